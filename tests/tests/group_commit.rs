//! Group commit on both stores (SQLite always, PostgreSQL when `TEST_DATABASE_URL` is set): a batch of appends
//! is written whole or not at all. On SQLite a batch is one query of several statements from `BEGIN` to `COMMIT`
//! (its actions in one multi-row `INSERT`, then its snapshots and results), rolled back when one fails; on
//! PostgreSQL every batch is one statement of array parameters, snapshots, results and finished matches included. The actions' text holds quotes, backslashes, escapes and
//! non-ASCII.
//! (`server/src/store.rs` has the same check for SQLite alone; this one also runs on PostgreSQL, where the
//! action log has no foreign key and the batches are what the load test writes.)

use integration_tests::{TestDb, backends};
use rules::{Actor, Outcome, Seat};
use serde_json::json;
use server::store::{
    Append, LobbyRecord, LogEntry, MatchRecord, Phase, SeatKind, SeatRecord, Setup, StoreError,
};

fn lobby(code: &str) -> LobbyRecord {
    LobbyRecord {
        code: code.into(),
        game: "g".into(),
        options: json!({}),
        seat_count: 2,
        host_seat: 0,
        turn_timer_ms: None,
        phase: Phase::Open,
        created_at: 1,
        absent_policy: "wait".into(),
        absent_grace_ms: 0,
        rules_version: None,
        rematch_of: None,
        pace: Default::default(),
    }
}

fn host() -> SeatRecord {
    SeatRecord {
        seat: 0,
        kind: SeatKind::Human,
        name: "p0".into(),
        token_hash: Some("ab".repeat(32)),
    }
}

fn entry(seq: u64) -> LogEntry {
    LogEntry {
        seq,
        actor: if seq.is_multiple_of(7) {
            Actor::Clock
        } else {
            Actor::Seat(Seat((seq % 2) as u8))
        },
        // Backslashes, quotes, a tab, a newline, a carriage return and non-ASCII: in JSON text the control
        // characters are escapes (a backslash and a letter), which must come back as written.
        action: json!({
            "n": seq,
            "s": "a \"quoted\"\ttext\nwith \\ a backslash\r, \\N, \\. and é ✓",
            "list": [seq, null, true, {"deep": [1.5, -2]}],
        })
        .into(),
        at: 1_000 + seq,
        by: if seq.is_multiple_of(7) {
            protocol::ActedBy::Clock
        } else {
            protocol::ActedBy::Player
        },
    }
}

/// The appends of `entries`, of two interleaved matches (every third action the second's), the 40th with a
/// snapshot.
fn appends<'a>(entries: &'a [LogEntry], snapshot: &'a str) -> Vec<Append<'a>> {
    entries
        .iter()
        .map(|e| Append {
            match_id: if e.seq % 3 == 0 { "m2" } else { "m1" },
            lobby_code: if e.seq % 3 == 0 { "BBBBBB" } else { "AAAAAA" },
            entry: e,
            snapshot: (e.seq == 40).then_some(snapshot),
            outcome: None,
            to_decide: None,
            clocks: None,
        })
        .collect()
}

/// Plain appends (no snapshot, no result) of `entries` to match m1 of lobby AAAAAA.
fn of_m1(entries: &[LogEntry]) -> Vec<Append<'_>> {
    entries
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
        .collect()
}

/// The stored log is the expected one (on failure, the first entry that differs rather than both whole logs).
fn same_log(stored: Vec<LogEntry>, expected: Vec<LogEntry>, backend: &str) {
    let first_difference = stored.iter().zip(&expected).position(|(a, b)| a != b);
    if let Some(i) = first_difference {
        panic!(
            "{backend}: entry {i} is {:?}, expected {:?}",
            stored[i], expected[i]
        );
    }
    assert_eq!(
        stored.len(),
        expected.len(),
        "{backend}: how many entries are stored"
    );
}

#[tokio::test]
async fn every_batch_is_written_whole_or_not_at_all_on_every_store() {
    for backend in backends() {
        let db = TestDb::new(backend).await;
        let store = db.store().await;
        for (code, id) in [("AAAAAA", "m1"), ("BBBBBB", "m2")] {
            store.create_lobby(&lobby(code), &host()).await.unwrap();
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
        let snapshot = json!({"after": 40}).to_string();
        // Batches of 3, 15, 16 and 87.
        let mut written: Vec<LogEntry> = Vec::new();
        for range in [1..=3u64, 4..=18, 19..=34, 35..=121] {
            let entries: Vec<LogEntry> = range.map(entry).collect();
            store
                .append_batch(&appends(&entries, &snapshot))
                .await
                .unwrap_or_else(|e| panic!("{backend}: {e}"));
            written.extend(entries);
        }
        let of = |m: &str| -> Vec<LogEntry> {
            written
                .iter()
                .filter(|e| (e.seq % 3 == 0) == (m == "m2"))
                .cloned()
                .collect()
        };
        same_log(store.action_log("m1").await.unwrap(), of("m1"), backend);
        same_log(store.action_log("m2").await.unwrap(), of("m2"), backend);

        // A batch with one row that conflicts (m1 already has seq 1) leaves nothing of itself behind, large or
        // small.
        for range in [122..=150u64, 122..=126] {
            let mut entries: Vec<LogEntry> = range.map(entry).collect();
            entries.push(entry(1));
            let batch = of_m1(&entries);
            assert!(
                matches!(store.append_batch(&batch).await, Err(StoreError::Conflict)),
                "{backend}: a batch of {} with a second writer of seq 1",
                batch.len()
            );
            same_log(store.action_log("m1").await.unwrap(), of("m1"), backend);
        }
        // The store is usable after the refused batches.
        let last = [entry(200)];
        store.append_batch(&appends(&last, &snapshot)).await.unwrap();
        assert_eq!(
            store.action_log("m1").await.unwrap().last(),
            last.last(),
            "{backend}"
        );

        // A batch that ends both matches, with a snapshot: refused whole when one of its actions conflicts (no
        // result, no finished match or lobby, no snapshot), written whole otherwise.
        let outcome = Outcome {
            scores: vec![3, 1],
            placings: vec![1, 2],
            winners: vec![Seat(0)],
        };
        let end_state = json!({"ended": true}).to_string();
        let ending = |m2_seq: u64| -> [LogEntry; 2] { [entry(201), entry(m2_seq)] };
        for (m2_seq, accepted) in [(3, false), (1000, true)] {
            let entries = ending(m2_seq);
            let batch = [
                Append {
                    match_id: "m1",
                    lobby_code: "AAAAAA",
                    entry: &entries[0],
                    snapshot: Some(end_state.as_str()),
                    outcome: Some(&outcome),
                    to_decide: None,
                    clocks: None,
                },
                Append {
                    match_id: "m2",
                    lobby_code: "BBBBBB",
                    entry: &entries[1],
                    snapshot: None,
                    outcome: Some(&outcome),
                    to_decide: None,
                    clocks: None,
                },
            ];
            let result = store.append_batch(&batch).await;
            assert_eq!(
                result.is_ok(),
                accepted,
                "{backend}: ending batch with m2 seq {m2_seq}: {result:?}"
            );
            for (code, id) in [("AAAAAA", "m1"), ("BBBBBB", "m2")] {
                let stored = store.load_lobby(code).await.unwrap().expect("the lobby");
                let game = stored.game.expect("its match");
                assert_eq!(
                    stored.lobby.phase == Phase::Finished,
                    accepted,
                    "{backend}: {code}'s phase"
                );
                assert_eq!(game.record.finished, accepted, "{backend}: {id} finished");
                assert_eq!(
                    store.result(id).await.unwrap().as_ref(),
                    accepted.then_some(&outcome),
                    "{backend}: {id}'s result"
                );
                if id == "m1" {
                    let snapshot = game.snapshot.expect("m1 has snapshots");
                    assert_eq!(snapshot.seq == 201, accepted, "{backend}: m1's latest snapshot");
                }
            }
            assert_eq!(
                store.action_log("m2").await.unwrap().last().map(|e| e.seq),
                Some(if accepted { 1000 } else { 120 }),
                "{backend}"
            );
        }
        drop(store);
        db.drop_db().await;
    }
}

fn record(id: &str) -> MatchRecord {
    MatchRecord {
        id: id.into(),
        game: "g".into(),
        options: json!({"o": id}),
        players: 2,
        seed: 0xfeed_0000_0000_0001,
        rules_version: 3,
        started_at: 20,
        finished: false,
        to_decide: None,
    }
}

fn seat(n: u8, kind: SeatKind) -> SeatRecord {
    SeatRecord {
        seat: n,
        token_hash: (kind == SeatKind::Human).then(|| format!("{n:02x}").repeat(32)),
        kind,
        name: format!("p{n}"),
    }
}

/// The rows that set a match up (a lobby with its host, a seat, a match's start) share a batch with actions: all
/// written, in their order (a seat of a lobby created earlier in the same batch), or none of them.
#[tokio::test]
async fn lobbies_seats_and_starts_share_a_batch_with_actions_on_every_store() {
    for backend in backends() {
        let db = TestDb::new(backend).await;
        let store = db.store().await;
        store.create_lobby(&lobby("AAAAAA"), &host()).await.unwrap();
        store.start_match("AAAAAA", &record("m1")).await.unwrap();
        store.create_lobby(&lobby("DDDDDD"), &host()).await.unwrap();

        let timed = LobbyRecord {
            turn_timer_ms: Some(5_000),
            absent_policy: "skip".into(),
            absent_grace_ms: 30_000,
            rules_version: Some(2),
            ..lobby("CCCCCC")
        };
        let (bot, guest, m3) = (seat(1, SeatKind::Bot), seat(1, SeatKind::Human), record("m3"));
        let entries: Vec<LogEntry> = (1..=3).map(entry).collect();
        let actions = of_m1(&entries);
        let setups = [
            Setup::CreateLobby {
                lobby: &timed,
                host: &host(),
            },
            Setup::InsertSeat {
                code: "CCCCCC",
                seat: &bot,
            },
            Setup::InsertSeat {
                code: "DDDDDD",
                seat: &guest,
            },
            Setup::StartMatch {
                code: "DDDDDD",
                record: &m3,
            },
        ];
        store
            .write_batch(&setups, &actions)
            .await
            .unwrap_or_else(|e| panic!("{backend}: {e}"));
        let c = store.load_lobby("CCCCCC").await.unwrap().expect("CCCCCC");
        assert_eq!(c.lobby.phase, Phase::Open, "{backend}");
        assert_eq!(c.lobby.turn_timer_ms, Some(5_000), "{backend}");
        // The absence policy and the rules version are written in the lobby's own row, in the same batch.
        assert_eq!(
            (
                c.lobby.absent_policy.as_str(),
                c.lobby.absent_grace_ms,
                c.lobby.rules_version
            ),
            ("skip", 30_000, Some(2)),
            "{backend}"
        );
        let seats: Vec<_> = c
            .seats
            .iter()
            .map(|s| (s.seat, s.kind.clone(), s.name.clone(), s.token_hash.clone()))
            .collect();
        assert_eq!(
            seats,
            [
                (0, SeatKind::Human, "p0".to_string(), host().token_hash),
                (1, SeatKind::Bot, "p1".to_string(), None)
            ],
            "{backend}: CCCCCC's seats"
        );
        assert!(c.game.is_none(), "{backend}");
        let d = store.load_lobby("DDDDDD").await.unwrap().expect("DDDDDD");
        assert_eq!(d.lobby.phase, Phase::Playing, "{backend}");
        assert_eq!(d.seats.len(), 2, "{backend}");
        assert_eq!(d.seats[1].token_hash, guest.token_hash, "{backend}");
        let game = d.game.expect("DDDDDD's match").record;
        assert_eq!(
            (
                game.id.as_str(),
                game.seed,
                game.rules_version,
                game.started_at,
                game.finished
            ),
            ("m3", m3.seed, 3, 20, false),
            "{backend}"
        );
        assert_eq!(game.options, json!({"o": "m3"}), "{backend}");
        same_log(store.action_log("m1").await.unwrap(), entries.clone(), backend);

        // A taken seat refuses the whole batch: no new lobby, no start, no action.
        let later: Vec<LogEntry> = (4..=5).map(entry).collect();
        let more = of_m1(&later);
        let (m4, taken) = (record("m4"), seat(1, SeatKind::Human));
        let (fresh, h) = (lobby("EEEEEE"), host());
        let setups = [
            Setup::CreateLobby {
                lobby: &fresh,
                host: &h,
            },
            Setup::StartMatch {
                code: "CCCCCC",
                record: &m4,
            },
            Setup::InsertSeat {
                code: "DDDDDD",
                seat: &taken,
            },
        ];
        let result = store.write_batch(&setups, &more).await;
        assert!(
            matches!(result, Err(StoreError::Conflict)),
            "{backend}: {result:?}"
        );
        assert!(store.load_lobby("EEEEEE").await.unwrap().is_none(), "{backend}");
        let c = store.load_lobby("CCCCCC").await.unwrap().expect("CCCCCC");
        assert_eq!(
            (c.lobby.phase, c.game.is_none()),
            (Phase::Open, true),
            "{backend}"
        );
        same_log(store.action_log("m1").await.unwrap(), entries.clone(), backend);

        // A taken lobby code is left out (with its host's seat) and everything else is written; the batch says
        // which lobby it left out. The lobby that has the code keeps its row and seats.
        let intruder = LobbyRecord {
            game: "other".into(),
            turn_timer_ms: None,
            ..lobby("CCCCCC")
        };
        let intruding_host = SeatRecord {
            name: "intruder".into(),
            ..host()
        };
        let setups = [
            Setup::CreateLobby {
                lobby: &fresh,
                host: &h,
            },
            Setup::StartMatch {
                code: "CCCCCC",
                record: &m4,
            },
            Setup::CreateLobby {
                lobby: &intruder,
                host: &intruding_host,
            },
        ];
        let result = store.write_batch(&setups, &more).await;
        assert_eq!(
            result.ok(),
            Some(vec![2]),
            "{backend}: the taken code's lobby is left out"
        );
        assert!(store.load_lobby("EEEEEE").await.unwrap().is_some(), "{backend}");
        let c = store.load_lobby("CCCCCC").await.unwrap().expect("CCCCCC");
        assert_eq!(
            (c.lobby.game.as_str(), c.lobby.turn_timer_ms, c.lobby.phase),
            ("g", Some(5_000), Phase::Playing),
            "{backend}: CCCCCC is the first lobby, now started"
        );
        assert_eq!(
            c.seats[0].name, "p0",
            "{backend}: its host's seat is the first one's"
        );
        assert_eq!(c.game.expect("m4").record.id, "m4", "{backend}");
        let mut expected = entries.clone();
        expected.extend(later.iter().cloned());
        same_log(store.action_log("m1").await.unwrap(), expected, backend);
        drop(store);
        db.drop_db().await;
    }
}

/// Through the committer, writes queued together go in one batch. A taken lobby code is answered with a conflict
/// and the rest of its batch is written; any other conflict refuses the batch, whose writes are then written again
/// alone, each with its own answer.
#[tokio::test]
async fn a_conflicting_setup_fails_alone_through_the_committer_on_every_store() {
    for backend in backends() {
        let db = TestDb::new(backend).await;
        let store = db.store().await;
        store.create_lobby(&lobby("AAAAAA"), &host()).await.unwrap();
        store.start_match("AAAAAA", &record("m1")).await.unwrap();
        let metrics = std::sync::Arc::new(server::metrics::Metrics::default());
        let committer = server::commit::Committer::new(store.clone(), metrics.clone());
        let pending = |seq: u64| server::commit::Pending {
            match_id: "m1".into(),
            lobby_code: "AAAAAA".into(),
            entry: entry(seq),
            snapshot: None,
            outcome: None,
            to_decide: None,
            clocks: None,
            notices: Vec::new(),
        };
        // On this test's one thread, all four are queued before the writer runs: one batch.
        let (again, other, h) = (lobby("AAAAAA"), lobby("FFFFFF"), host());
        let (taken, fresh, first, second) = tokio::join!(
            committer.create_lobby(&again, &h),
            committer.create_lobby(&other, &h),
            committer.append(pending(1)),
            committer.append(pending(2)),
        );
        assert!(matches!(taken, Err(StoreError::Conflict)), "{backend}: {taken:?}");
        assert!(
            fresh.is_ok() && first.is_ok() && second.is_ok(),
            "{backend}: {fresh:?} {first:?} {second:?}"
        );
        let count = |c: &std::sync::atomic::AtomicU64| c.load(std::sync::atomic::Ordering::Relaxed);
        assert_eq!(
            count(&metrics.group_commits),
            1,
            "{backend}: the four writes were one batch"
        );
        assert_eq!(
            count(&metrics.group_commit_failures),
            0,
            "{backend}: the batch was not refused"
        );
        assert!(store.load_lobby("FFFFFF").await.unwrap().is_some(), "{backend}");
        same_log(
            store.action_log("m1").await.unwrap(),
            vec![entry(1), entry(2)],
            backend,
        );

        // A taken seat refuses its batch; written again in halves ([seat], then [lobby, action]), only that
        // seat fails.
        let (other, taken_seat) = (lobby("GGGGGG"), seat(0, SeatKind::Human));
        let (seated, created, third) = tokio::join!(
            committer.insert_seat("AAAAAA", &taken_seat),
            committer.create_lobby(&other, &h),
            committer.append(pending(3)),
        );
        assert!(
            matches!(seated, Err(StoreError::Conflict)),
            "{backend}: {seated:?}"
        );
        assert!(
            created.is_ok() && third.is_ok(),
            "{backend}: {created:?} {third:?}"
        );
        assert_eq!(
            count(&metrics.group_commits),
            4,
            "{backend}: the batch and its two halves"
        );
        assert_eq!(
            count(&metrics.group_commit_failures),
            2,
            "{backend}: the batch and the seat alone refused"
        );
        assert!(store.load_lobby("GGGGGG").await.unwrap().is_some(), "{backend}");
        same_log(
            store.action_log("m1").await.unwrap(),
            vec![entry(1), entry(2), entry(3)],
            backend,
        );

        // One refused write among seven: halved down to it, in order, in the batch and six more transactions
        // (one by one took the batch and seven more; for n writes, ~2 log2(n) against n). [4 5 6] written; [7 seat 8 9] refused; [7 seat] refused: [7] written, [seat]
        // refused alone; [8 9] written.
        let taken_again = seat(0, SeatKind::Human);
        let answers = tokio::join!(
            committer.append(pending(4)),
            committer.append(pending(5)),
            committer.append(pending(6)),
            committer.append(pending(7)),
            committer.insert_seat("AAAAAA", &taken_again),
            committer.append(pending(8)),
            committer.append(pending(9)),
        );
        assert!(
            matches!(answers.4, Err(StoreError::Conflict)),
            "{backend}: {:?}",
            answers.4
        );
        let appended = [answers.0, answers.1, answers.2, answers.3, answers.5, answers.6];
        assert!(appended.iter().all(Result::is_ok), "{backend}: {appended:?}");
        assert_eq!(
            count(&metrics.group_commits),
            4 + 7,
            "{backend}: the batch, [4 5 6], [7 seat 8 9], [7 seat], [7], [seat], [8 9]"
        );
        assert_eq!(
            count(&metrics.group_commit_failures),
            2 + 4,
            "{backend}: the batch, [7 seat 8 9], [7 seat], [seat]"
        );
        same_log(
            store.action_log("m1").await.unwrap(),
            (1..=9).map(entry).collect(),
            backend,
        );

        // Two new lobbies that drew the same code in one batch: one is written with its own host, the other is
        // answered with a conflict (SQLite leaves it out of the batch; PostgreSQL's batch is refused by the two
        // host seats and written again in halves), and nothing else is lost.
        let (twin_a, twin_b) = (lobby("HHHHHH"), lobby("HHHHHH"));
        let (host_a, host_b) = (
            SeatRecord {
                name: "first".into(),
                ..host()
            },
            SeatRecord {
                name: "second".into(),
                ..host()
            },
        );
        let (a, b, tenth) = tokio::join!(
            committer.create_lobby(&twin_a, &host_a),
            committer.create_lobby(&twin_b, &host_b),
            committer.append(pending(10)),
        );
        assert!(tenth.is_ok(), "{backend}: {tenth:?}");
        let winner = match (&a, &b) {
            (Ok(()), Err(StoreError::Conflict)) => "first",
            (Err(StoreError::Conflict), Ok(())) => "second",
            _ => panic!("{backend}: one twin is written, the other refused: {a:?} {b:?}"),
        };
        let h = store.load_lobby("HHHHHH").await.unwrap().expect("HHHHHH");
        let names: Vec<&str> = h.seats.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, [winner], "{backend}: the written twin's host alone");
        same_log(
            store.action_log("m1").await.unwrap(),
            (1..=10).map(entry).collect(),
            backend,
        );
        drop(committer);
        drop(store);
        db.drop_db().await;
    }
}

/// PostgreSQL plans a prepared statement when a connection first runs it and keeps the plan until the tables are
/// analyzed, which autovacuum does a minute or more after they filled. On a new database that first plan is made
/// while `lobbies` and `matches` are empty, where scanning them is cheapest; with it, every group commit scanned
/// both (twice `lobbies`) whatever it wrote, and cost more with every match played (+7 to +15 % throughput over
/// 40 s of load without it: docs/performance.md, "Measured reasons"). The store's connections refuse sequential
/// scans where an index serves (`enable_seqscan = off`); and a rematch request's lookup of a rematch already
/// started from its lobby has an index (`lobbies_by_rematch_of`). This test fails if a commit scans either table
/// or a lookup reads every lobby.
#[tokio::test]
async fn commits_and_rematch_lookups_find_rows_by_key_on_a_new_postgres_database() {
    if !backends().contains(&"postgres") {
        return;
    }
    let db = TestDb::new("postgres").await;
    let store = db.store().await;
    let outcome = Outcome {
        scores: vec![1, 0],
        placings: vec![1, 2],
        winners: vec![Seat(0)],
    };
    const MATCHES: usize = 12;
    let (codes, ids): (Vec<String>, Vec<String>) = (0..MATCHES)
        .map(|i| (format!("K{i:05}"), format!("m{i}")))
        .unzip();
    let (lobbies, records): (Vec<LobbyRecord>, Vec<MatchRecord>) = codes
        .iter()
        .zip(&ids)
        .map(|(c, id)| (lobby(c), record(id)))
        .unzip();
    let (first, last, h) = (entry(1), entry(2), host());
    for i in 0..MATCHES {
        let (code, id) = (codes[i].as_str(), ids[i].as_str());
        let plain = |entry| Append {
            match_id: id,
            lobby_code: code,
            entry,
            snapshot: None,
            outcome: None,
            to_decide: None,
            clocks: None,
        };
        let batches: [(Vec<Setup>, Vec<Append>); 4] = [
            (
                vec![Setup::CreateLobby {
                    lobby: &lobbies[i],
                    host: &h,
                }],
                vec![],
            ),
            (
                vec![Setup::StartMatch {
                    code,
                    record: &records[i],
                }],
                vec![],
            ),
            (vec![], vec![plain(&first)]),
            (
                vec![],
                vec![Append {
                    outcome: Some(&outcome),
                    to_decide: None,
                    clocks: None,
                    ..plain(&last)
                }],
            ),
        ];
        for (setups, appends) in &batches {
            store.write_batch(setups, appends).await.unwrap();
        }
    }
    let finished = store.load_lobby(&codes[MATCHES - 1]).await.unwrap().unwrap();
    assert_eq!(finished.lobby.phase, Phase::Finished);
    // A rematch request looks for a rematch already started from its lobby: by an index, not by reading every
    // lobby (each of these would read all 12 without `lobbies_by_rematch_of`).
    for code in &codes {
        assert_eq!(store.rematch_of(code).await.unwrap(), None);
    }
    // A backend reports its counters when it is idle or exits: close the pool and wait for them.
    store.close().await;
    let mut conn = <sqlx::PgConnection as sqlx::Connection>::connect(db.url())
        .await
        .unwrap();
    let mut scans = None;
    for _ in 0..300 {
        let row: (i64, i64, i64, i64) = sqlx::query_as(
            "SELECT COALESCE(SUM(n_tup_ins), 0)::int8, COALESCE(SUM(seq_scan), 0)::int8, \
                 COALESCE(SUM(n_tup_upd), 0)::int8, \
                 COALESCE(SUM(seq_tup_read + COALESCE(idx_tup_fetch, 0)) FILTER (WHERE relname = 'lobbies'), 0)::int8 \
                 FROM pg_stat_user_tables WHERE relname = 'matches' OR relname = 'lobbies'",
        )
        .fetch_one(&mut conn)
        .await
        .unwrap();
        // Both tables' rows in, and both updates of every lobby and the finish of every match.
        if row.0 >= 2 * MATCHES as i64 && row.2 >= 3 * MATCHES as i64 {
            scans = Some((row.1, row.3));
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let (scans, lobbies_read) =
        scans.expect("PostgreSQL reported the closed connections' counters within 30 s");
    // The migrations scan the new tables a few times (6 here, with 12 or 24 matches alike); a scan per commit
    // was 104 for 12 matches (without `enable_seqscan = off`).
    assert!(
        scans < MATCHES as i64,
        "{scans} sequential scans of lobbies and matches for {} group commits",
        4 * MATCHES
    );
    // 49 here: the commits' updates by key and the migrations; 193 without `lobbies_by_rematch_of`.
    assert!(
        lobbies_read < (MATCHES * MATCHES) as i64,
        "{lobbies_read} lobby rows read for {MATCHES} lobbies' commits and rematch lookups"
    );
    drop(conn);
    db.drop_db().await;
}
