//! The store's own tests on an in-memory SQLite database (the tests crate runs the same paths on PostgreSQL).

use protocol::ActedBy;
use rules::{Actor, Outcome};
use serde_json::json;

use super::*;

fn lobby(code: &str) -> LobbyRecord {
    LobbyRecord {
        code: code.into(),
        game: "g".into(),
        options: json!({"a": 1}),
        seat_count: 2,
        host_seat: 0,
        turn_timer_ms: Some(5_000),
        phase: Phase::Open,
        created_at: 7,
        absent_policy: "bot".into(),
        absent_grace_ms: 1_500,
        rules_version: Some(3),
        rematch_of: None,
        pace: Default::default(),
    }
}

fn seat(n: u8, kind: SeatKind) -> SeatRecord {
    SeatRecord {
        seat: n,
        kind,
        name: format!("p{n}"),
        token_hash: Some("ab".repeat(32)),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_in_memory_database_takes_concurrent_writes() {
    // `sqlite::memory:` is a shared-cache database: several connections to it refuse concurrent writers with
    // "database table is locked", which the busy timeout does not cover. One connection serialises them.
    let store = Store::connect("sqlite::memory:").await.unwrap();
    let writes = (0..32).map(|i| {
        let store = store.clone();
        tokio::spawn(async move {
            let code = format!("C{i:05}");
            store.create_lobby(&lobby(&code), &seat(0, SeatKind::Human)).await
        })
    });
    for write in writes.collect::<Vec<_>>() {
        write.await.unwrap().unwrap();
    }
}

#[tokio::test]
async fn a_group_commit_writes_every_row_of_a_large_batch_or_none() {
    let store = Store::connect("sqlite::memory:").await.unwrap();
    for (code, id) in [("AAAAAA", "m1"), ("BBBBBB", "m2")] {
        store
            .create_lobby(&lobby(code), &seat(0, SeatKind::Human))
            .await
            .unwrap();
        let record = MatchRecord {
            id: id.into(),
            game: "g".into(),
            options: json!({}),
            players: 2,
            seed: 1,
            rules_version: 1,
            started_at: 10,
            finished: false,
            to_decide: None,
        };
        store.start_match(code, &record).await.unwrap();
    }
    let entry = |seq: u64| LogEntry {
        seq,
        actor: Actor::Seat(rules::Seat((seq % 2) as u8)),
        action: json!({"n": seq, "s": "a \"quoted\" text"}).into(),
        at: 100 + seq,
        // Every kind of maker, an unrecorded one (NULL) included, comes back as written.
        by: [
            ActedBy::Player,
            ActedBy::StandIn,
            ActedBy::TurnTimer,
            ActedBy::Unknown,
        ][(seq % 4) as usize],
    };
    // The largest batch the committer makes (one INSERT of 3,072 parameters), interleaving two matches, one
    // with a snapshot.
    let largest = crate::commit::MAX_BATCH as u64;
    let entries: Vec<LogEntry> = (1..=largest).map(entry).collect();
    let snapshot = json!({"after": 40}).to_string();
    let appends: Vec<Append<'_>> = entries
        .iter()
        .map(|e| Append {
            match_id: if e.seq % 3 == 0 { "m2" } else { "m1" },
            lobby_code: if e.seq % 3 == 0 { "BBBBBB" } else { "AAAAAA" },
            entry: e,
            snapshot: (e.seq == 40).then_some(snapshot.as_str()),
            outcome: None,
            to_decide: None,
            clocks: None,
        })
        .collect();
    store.append_batch(&appends).await.unwrap();
    let of = |m: u64| -> Vec<LogEntry> {
        entries
            .iter()
            .filter(|e| (e.seq % 3 == 0) == (m == 2))
            .cloned()
            .collect()
    };
    assert_eq!(store.action_log("m1").await.unwrap(), of(1));
    assert_eq!(store.action_log("m2").await.unwrap(), of(2));
    // A batch with one conflicting row (m1 already has seq 1) leaves nothing of itself behind.
    let more: Vec<LogEntry> = (largest + 1..=largest + 13)
        .map(entry)
        .chain([entry(1)])
        .collect();
    let appends: Vec<Append<'_>> = more
        .iter()
        .map(|e| Append {
            match_id: "m1",
            lobby_code: "AAAAAA",
            entry: e,
            snapshot: None,
            outcome: None,
            to_decide: None,
            clocks: None,
        })
        .collect();
    assert!(matches!(
        store.append_batch(&appends).await,
        Err(StoreError::Conflict)
    ));
    assert_eq!(store.action_log("m1").await.unwrap(), of(1));
    // A batch refused by a statement after its actions' INSERT (a second result for m1) leaves none of its
    // actions behind either, and the connection takes the next batch.
    let outcome = Outcome {
        scores: vec![1, 0],
        placings: vec![1, 2],
        winners: vec![rules::Seat(0)],
    };
    let ends = |seq: u64| vec![entry(seq)];
    for (seq, written) in [(largest + 20, true), (largest + 21, false), (largest + 22, true)] {
        let entries = ends(seq);
        let append = Append {
            match_id: "m1",
            lobby_code: "AAAAAA",
            entry: &entries[0],
            snapshot: None,
            outcome: (seq != largest + 22).then_some(&outcome),
            to_decide: None,
            clocks: None,
        };
        let result = store.append_batch(&[append]).await;
        assert_eq!(result.is_ok(), written, "seq {seq}: {result:?}");
        let last = store.action_log("m1").await.unwrap().last().map(|e| e.seq);
        assert_eq!(last, Some(if written { seq } else { largest + 20 }), "seq {seq}");
    }
}

/// Action `seq` of the match `the_log_refuses_a_second_writer_and_recovery_reads_after_the_snapshot` logs: the
/// clock's on even numbers, seat 1's (skipped) on odd ones.
fn entry(seq: u64) -> LogEntry {
    LogEntry {
        seq,
        actor: if seq.is_multiple_of(2) {
            Actor::Clock
        } else {
            Actor::Seat(rules::Seat(1))
        },
        action: json!({"n": seq}).into(),
        at: 100 + seq,
        by: if seq.is_multiple_of(2) {
            ActedBy::Clock
        } else {
            ActedBy::Skip
        },
    }
}

#[tokio::test]
async fn the_log_refuses_a_second_writer_and_recovery_reads_after_the_snapshot() {
    let store = Store::connect("sqlite::memory:").await.unwrap();
    store
        .create_lobby(&lobby("AAAAAA"), &seat(0, SeatKind::Human))
        .await
        .unwrap();
    assert!(matches!(
        store
            .create_lobby(&lobby("AAAAAA"), &seat(0, SeatKind::Human))
            .await,
        Err(StoreError::Conflict)
    ));
    store
        .insert_seat("AAAAAA", &seat(1, SeatKind::Bot))
        .await
        .unwrap();
    assert!(matches!(
        store.insert_seat("AAAAAA", &seat(1, SeatKind::Human)).await,
        Err(StoreError::Conflict)
    ));
    let record = MatchRecord {
        id: "m1".into(),
        game: "g".into(),
        options: json!({"a": 1}),
        players: 2,
        seed: u64::MAX - 3,
        rules_version: 4,
        started_at: 10,
        finished: false,
        to_decide: None,
    };
    store.start_match("AAAAAA", &record).await.unwrap();
    for seq in 1..=5 {
        let snapshot = json!({"after": seq}).to_string();
        let e = entry(seq);
        store
            .append(&Append {
                match_id: "m1",
                lobby_code: "AAAAAA",
                entry: &e,
                snapshot: (seq == 3).then_some(snapshot.as_str()),
                outcome: None,
                to_decide: None,
                clocks: None,
            })
            .await
            .unwrap();
    }
    // A second writer of sequence number 5 is refused, and nothing of its transaction remains.
    let again = Append {
        match_id: "m1",
        lobby_code: "AAAAAA",
        entry: &LogEntry {
            action: json!("other").into(),
            ..entry(5)
        },
        snapshot: None,
        outcome: None,
        to_decide: None,
        clocks: None,
    };
    assert!(matches!(store.append(&again).await, Err(StoreError::Conflict)));
    let loaded = store.load_lobby("aaaaaa").await.unwrap();
    assert!(loaded.is_none(), "codes are stored upper case; callers normalise");
    let loaded = store.load_lobby("AAAAAA").await.unwrap().unwrap();
    assert_eq!(loaded.lobby.phase, Phase::Playing);
    assert_eq!(loaded.lobby.turn_timer_ms, Some(5_000));
    // The absence policy and rules version are written with the lobby's row, not after it.
    assert_eq!(
        (loaded.lobby.absent_policy.as_str(), loaded.lobby.absent_grace_ms),
        ("bot", 1_500)
    );
    assert_eq!(loaded.lobby.rules_version, Some(3));
    assert_eq!(loaded.lobby.rematch_of, None);
    assert_eq!(loaded.seats.len(), 2);
    assert_eq!(loaded.seats[1].kind, SeatKind::Bot);
    let m = loaded.game.unwrap();
    assert_eq!(m.record.seed, u64::MAX - 3, "all 64 bits of the seed survive");
    assert_eq!(m.record.rules_version, 4);
    let snapshot = m.snapshot.unwrap();
    assert_eq!((snapshot.seq, snapshot.state), (3, json!({"after": 3})));
    assert_eq!(m.log_after_snapshot, vec![entry(4), entry(5)]);
    assert_eq!(store.action_log("m1").await.unwrap().len(), 5);
    assert_eq!(
        store.live_lobby_codes().await.unwrap(),
        vec!["AAAAAA".to_string()]
    );

    // Finishing: the result is stored and the lobby is no longer live.
    let outcome = rules::Outcome::ranked(vec![1, 2], vec![1, 2]);
    store
        .append(&Append {
            match_id: "m1",
            lobby_code: "AAAAAA",
            entry: &entry(6),
            snapshot: None,
            outcome: Some(&outcome),
            to_decide: None,
            clocks: None,
        })
        .await
        .unwrap();
    assert!(store.live_lobby_codes().await.unwrap().is_empty());
    let loaded = store.load_lobby("AAAAAA").await.unwrap().unwrap();
    assert_eq!(loaded.lobby.phase, Phase::Finished);
    assert!(loaded.game.unwrap().record.finished);
}

#[tokio::test]
async fn a_lobby_everyone_left_is_closed_and_no_longer_found() {
    let store = Store::connect("sqlite::memory:").await.unwrap();
    store
        .create_lobby(&lobby("BBBBBB"), &seat(0, SeatKind::Human))
        .await
        .unwrap();
    store.free_seat("BBBBBB", 0, None).await.unwrap();
    assert!(store.load_lobby("BBBBBB").await.unwrap().is_none());
    store.ping().await.unwrap();
}

/// Issue 42: a call that outlives the store's deadline fails as unreachable (the database never answered), the
/// calls of the next deadline fail at once without running, and the first one after it runs again.
#[tokio::test]
async fn a_call_past_the_deadline_fails_and_the_next_deadline_fails_at_once() {
    let settings = PoolSettings {
        deadline: Duration::from_millis(50),
        ..PoolSettings::default()
    };
    let store = Store::connect_with("sqlite::memory:", settings).await.unwrap();
    let silent = store
        .guarded(std::future::pending::<Result<(), StoreError>>())
        .await;
    assert!(matches!(silent, Err(StoreError::TimedOut(_))), "{silent:?}");
    assert!(silent.unwrap_err().is_unavailable());
    let ran = std::sync::atomic::AtomicBool::new(false);
    let next = store
        .guarded(async {
            ran.store(true, Relaxed);
            Ok(())
        })
        .await;
    assert!(matches!(next, Err(StoreError::Unavailable(_))), "{next:?}");
    assert!(
        !ran.load(Relaxed),
        "not tried within the deadline after a failure"
    );
    assert!(store.ready().await.is_err(), "/readyz answers from the failure");
    // A failure a second (20 deadlines) ago: the database is tried again, and a success clears the state.
    let store = Store {
        db: store.db.clone(),
        health: Arc::new(Health {
            deadline: Duration::from_millis(50),
            start: Instant::now().checked_sub(Duration::from_secs(1)).unwrap(),
            down_at: AtomicU64::new(1),
        }),
    };
    assert!(store.health.recently_down().is_none());
    store.ping().await.unwrap();
    assert_eq!(store.health.down_at.load(Relaxed), 0);
    store.ready().await.unwrap();
}

/// Issue 42: on SQLite a database locked by another connection (past the busy timeout) counts as unreachable,
/// like a PostgreSQL outage (`store_unavailable`, retryable), not as an internal error.
#[tokio::test]
async fn a_locked_sqlite_database_counts_as_unreachable() {
    let path = std::env::temp_dir().join(format!("tabletop-locked-{}.db", std::process::id()));
    let url = format!("sqlite://{}", path.display());
    let options = |busy_ms| {
        SqliteConnectOptions::from_str(&url)
            .unwrap()
            .create_if_missing(true)
            .busy_timeout(Duration::from_millis(busy_ms))
    };
    let holder = SqlitePoolOptions::new()
        .max_connections(1)
        .connect_with(options(0))
        .await
        .unwrap();
    sqlx::query("CREATE TABLE IF NOT EXISTS t (x INTEGER)")
        .execute(&holder)
        .await
        .unwrap();
    let mut lock = holder.acquire().await.unwrap();
    sqlx::query("BEGIN EXCLUSIVE").execute(&mut *lock).await.unwrap();
    let other = SqlitePoolOptions::new()
        .max_connections(1)
        .connect_with(options(0))
        .await
        .unwrap();
    let refused = sqlx::query("INSERT INTO t (x) VALUES (1)")
        .execute(&other)
        .await
        .map_err(classify)
        .unwrap_err();
    assert!(refused.is_unavailable(), "{refused:?}");
    // A constraint or a syntax error is not.
    let broken = sqlx::query("INSERT INTO nowhere VALUES (1)")
        .execute(&mut *lock)
        .await
        .map_err(classify)
        .unwrap_err();
    assert!(!broken.is_unavailable(), "{broken:?}");
    sqlx::query("ROLLBACK").execute(&mut *lock).await.unwrap();
    drop(lock);
    holder.close().await;
    other.close().await;
    let _ = std::fs::remove_file(&path);
}

/// The runs kept are those that can still give a table a gap: every run beating after the oldest unfinished
/// lobby's creation, and of the others the one with the latest beat; so the gaps after that creation are the same
/// as with every run kept.
#[tokio::test]
async fn only_the_runs_that_can_still_give_a_gap_are_kept() {
    let store = Store::connect("sqlite::memory:").await.unwrap();
    let gaps = |runs: &[ServerRun], now| -> Vec<Outage> {
        crate::downtime::gaps(runs, now, 0)
            .into_iter()
            .filter(|(_, to)| *to > 1_000)
            .collect()
    };
    // Runs from 0 to 900 with gaps between, then a lobby created at 1 000 (still open), then more runs.
    for (id, start, beat) in [
        ("r1", 0, 100),
        ("r2", 200, 700),
        ("r3", 300, 400),
        ("r4", 800, 900),
    ] {
        store.start_run(id, start).await.unwrap();
        store.beat_run(id, beat).await.unwrap();
    }
    let mut open = lobby("CCCCCC");
    open.created_at = 1_000;
    store
        .create_lobby(&open, &seat(0, SeatKind::Human))
        .await
        .unwrap();
    store.start_run("r5", 1_200).await.unwrap();
    store.beat_run("r5", 1_300).await.unwrap();
    let all = store.start_run("r6", 1_500).await.unwrap();
    let kept: Vec<rules::Millis> = all.iter().map(|r| r.started_at).collect();
    assert_eq!(
        kept,
        vec![800, 1_200],
        "r4 keeps the latest beat before the lobby; r1-r3 are gone"
    );
    let every = [(0, 100), (200, 700), (300, 400), (800, 900), (1_200, 1_300)]
        .map(|(started_at, beat_at)| ServerRun { started_at, beat_at });
    assert_eq!(gaps(&all, 1_500), gaps(&every, 1_500));
    assert_eq!(gaps(&all, 1_500), vec![(900, 1_200), (1_300, 1_500)]);
    // With no unfinished lobby, only the latest beat is kept.
    store.free_seat("CCCCCC", 0, None).await.unwrap();
    let all = store.start_run("r7", 1_600).await.unwrap();
    assert_eq!(all.len(), 1, "{all:?}");
    assert_eq!(all[0].beat_at, 1_500);
}
