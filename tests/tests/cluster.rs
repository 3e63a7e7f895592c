//! Cluster mode (issue 27): nodes sharing one real PostgreSQL database (a database of each test's own), in this
//! process on port 0 or as real server processes (for kill -9, SIGSTOP and SIGTERM). Fencing (a stale owner's
//! writes are refused by the database itself, also after a real pause), takeover from the database after a lease
//! expires (within 5 s of the expiry, on the database's clock) with no acknowledged action lost or applied twice,
//! lease loss noticed by the renewal, graceful handover, a duplicate node id, a node that relays a table it does
//! not own, and cluster mode refused on SQLite and without a cluster secret.
//! The shared set-up is `integration_tests::cluster`.
//!
//! They need `TEST_DATABASE_URL` (`.ci/run` sets it), and the relaying test NATS (`TEST_NATS_URL`); without them
//! they say so and pass, unless `CI` is set (then they fail).

use std::time::Duration;

use integration_tests::{cluster::*, *};
use serde_json::{Value, json};
use server::Store;
use sqlx::Row;

const GAME: &str = "hide_and_eeek";
const BINARY: &str = env!("CARGO_BIN_EXE_server-under-test");

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stale_owner_is_fenced_by_the_database_and_the_new_owner_resumes_the_match() {
    let Some(cl) = TestCluster::new().await else {
        return;
    };
    // Long leases: nothing expires by itself during the test; the test expires the lease, as a paused owner's.
    let a = cl.node("node-a", 60_000).await;
    let b = cl.node("node-b", 60_000).await;
    let (code, mut players) =
        start_match(a.addr, GAME, json!({"target": 5, "claim_window_ms": 1000}), 2, 2).await;
    let played = play(&mut players, &Time::Manual(a.clock.clone()), 5, 3).await;
    let version = played.last_state["version"].as_u64().unwrap();
    assert_eq!(cl.lease(&code).await, (cl.id("node-a"), 1));
    let before = cl.log(&code).await;
    assert_eq!(before.len() as u64, version);

    // Node A "pauses": its lease expires, and node B, asked for the table, claims it (epoch 2) and recovers it
    // from the database.
    sqlx::query("UPDATE table_leases SET expires_at = now() - interval '1 second' WHERE code = $1")
        .bind(&code)
        .execute(&cl.sql)
        .await
        .unwrap();
    let mut watcher = b.client().await;
    let r = watcher.request(req::spectate(&code)).await;
    assert_eq!(r["type"], "spectating", "{r}");
    let seen = watcher.wait_version(version).await;
    assert_eq!(seen["version"].as_u64(), Some(version));
    assert_eq!(cl.lease(&code).await, (cl.id("node-b"), 2));
    // Any node's admin API shows the owner and the epoch.
    assert_eq!(
        admin_owner(a.addr, &code).await,
        json!({"node": cl.id("node-b"), "epoch": 2, "live": true})
    );

    // Node A does not know yet: its table accepts an action and writes it. The database refuses the write
    // (the fence), nothing is acknowledged, and A's clients are told `moved`.
    let (i, action, at) = a_legal_action(&players).expect("someone may act");
    let reply = players[i].client.request(req::action(&action, at)).await;
    assert_eq!(
        (reply["type"].as_str(), reply["code"].as_str()),
        (Some("error"), Some("moved")),
        "a fenced write is never acknowledged: {reply}"
    );
    assert_closed_with(players.iter_mut().map(|p| &mut p.client), "moved").await;
    assert_eq!(
        cl.log(&code).await,
        before,
        "nothing from the stale owner reached the log"
    );

    // The players reconnect to node B with their seat tokens and play on; the log has every acknowledged
    // action once, in order.
    let mut moved = resume_all(b.addr, &code, players, version).await;
    let more = play(&mut moved, &Time::Manual(b.clock.clone()), 6, 3).await;
    let last = more.last_state["version"].as_u64().unwrap();
    let after = cl.assert_log_holds(&code, last, &more.acknowledged).await;
    assert_eq!(&after[..before.len()], &before[..]);

    a.stop().await;
    b.stop().await;
    cl.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lease_lost_to_another_owner_stops_the_table_at_the_next_renewal() {
    let Some(cl) = TestCluster::new().await else {
        return;
    };
    // Renewals every 300 ms.
    let a = cl.node("node-a", 900).await;
    let (code, mut players) = start_match(a.addr, GAME, json!({"target": 5}), 2, 2).await;
    // Another owner takes the lease (as a node that found it expired would).
    sqlx::query(
        "UPDATE table_leases SET owner_node = 'node-z', incarnation = 'node-z#1', epoch = epoch + 1 \
         WHERE code = $1",
    )
    .bind(&code)
    .execute(&cl.sql)
    .await
    .unwrap();
    // Without sending anything, A's clients hear that the table moved.
    assert_closed_with(players.iter_mut().map(|p| &mut p.client), "moved").await;
    let (_, metrics) = http_get(a.addr, "/metrics").await;
    assert!(
        metrics.contains("tabletop_cluster_leases_lost_total 1"),
        "{metrics}"
    );
    a.stop().await;
    cl.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_graceful_stop_hands_the_tables_over_without_waiting_for_the_lease() {
    let Some(cl) = TestCluster::new().await else {
        return;
    };
    // A minute-long lease: a takeover that waited for it would time the test out.
    let a = cl.node("node-a", 60_000).await;
    let b = cl.node("node-b", 60_000).await;
    let (code, mut players) = start_match(a.addr, GAME, json!({"target": 5}), 2, 2).await;
    let played = play(&mut players, &Time::Manual(a.clock.clone()), 9, 2).await;
    let version = played.last_state["version"].as_u64().unwrap();
    a.stop().await;
    assert_closed_with(players.iter_mut().map(|p| &mut p.client), "shutting_down").await;
    let mut c = b.client().await;
    let r = c.request(req::resume(&code, &players[0].token)).await;
    assert_eq!(r["type"], "resumed", "{r}");
    let state = c.wait_version(version).await;
    assert_eq!(state["version"].as_u64(), Some(version));
    assert_eq!(cl.lease(&code).await, (cl.id("node-b"), 2));
    // The node id may be used again at once.
    let again = cl.node("node-a", 60_000).await;
    again.stop().await;
    b.stop().await;
    cl.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_live_node_with_the_same_id_is_refused() {
    let Some(cl) = TestCluster::new().await else {
        return;
    };
    let a = cl.node("same", 60_000).await;
    let store = Store::connect(cl.db.url()).await.unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let refused = server::run(
        listener,
        node_config(&cl.id("same"), 60_000),
        store,
        std::sync::Arc::new(server::ManualClock::new(CLOCK_START)),
        std::future::pending(),
    )
    .await
    .expect_err("a duplicate live node id is refused");
    assert!(
        refused.to_string().contains(&format!(
            "another live node already uses the node id `{}`",
            cl.id("same")
        )),
        "{refused}"
    );
    a.stop().await;
    cl.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cluster_mode_is_refused_on_sqlite() {
    let db = TestDb::new("sqlite").await;
    let store = Store::connect(db.url()).await.unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let refused = server::run(
        listener,
        node_config("n", 5_000),
        store,
        std::sync::Arc::new(server::ManualClock::new(CLOCK_START)),
        std::future::pending(),
    )
    .await
    .expect_err("cluster mode needs PostgreSQL");
    assert!(
        refused.to_string().contains("cluster mode needs PostgreSQL"),
        "{refused}"
    );
    db.drop_db().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cluster_mode_is_refused_without_a_cluster_secret() {
    let says = |refused: &str| {
        assert!(
            refused.contains("cluster mode needs CLUSTER_SECRET") && refused.contains("openssl rand -hex 16"),
            "{refused}"
        );
    };
    // The binary says so before it opens anything (the database need not be there).
    let out = tokio::process::Command::new(BINARY)
        .env("CLUSTER", "true")
        .env("DATABASE_URL", "postgres://nobody@127.0.0.1:1/nothing")
        .env("BIND", "127.0.0.1:0")
        .env_remove("CLUSTER_SECRET")
        .output()
        .await
        .unwrap();
    assert!(!out.status.success());
    says(&String::from_utf8_lossy(&out.stderr));
    // An in-process server too, with nothing else wrong.
    let Some(cl) = TestCluster::new().await else {
        return;
    };
    let mut config = node_config(&cl.id("n"), 5_000);
    config.cluster_secret = None;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let refused = server::run(
        listener,
        config,
        Store::connect(cl.db.url()).await.unwrap(),
        std::sync::Arc::new(server::ManualClock::new(CLOCK_START)),
        std::future::pending(),
    )
    .await
    .expect_err("cluster mode needs a secret");
    says(&refused.to_string());
    cl.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_9_of_the_owner_mid_match_loses_no_acknowledged_action_and_the_match_finishes() {
    let Some(cl) = TestCluster::new().await else {
        return;
    };
    let a = cl.process(BINARY, "node-a", Some(1000)).await;
    let b = cl.process(BINARY, "node-b", Some(1000)).await;
    let (code, mut players) =
        start_match(a.addr, GAME, json!({"target": 3, "claim_window_ms": 1000}), 2, 2).await;
    let first = play(&mut players, &Time::Real, 21, 6).await;
    let version = first.last_state["version"].as_u64().unwrap();
    a.kill().await;
    let killed = std::time::Instant::now();

    // Every player reconnects to node B, which takes the table over once A's lease has expired.
    let mut moved = reconnect_all(b.addr, &code, players, version).await;
    let took = killed.elapsed();
    assert!(took < Duration::from_secs(6), "takeover took {took:?}");
    assert_eq!(cl.lease(&code).await, (cl.id("node-b"), 2));

    // The match goes on to its end on node B; every action a client had acknowledged, before and after the
    // kill, is in the log at its version, and each action is there once.
    cl.finish_match(&code, &mut moved, &Time::Real, 22, &first).await;
    assert!(b.terminate().await);
    cl.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_match_and_its_rematch_on_a_cluster_node_hold_their_own_leases() {
    let Some(cl) = TestCluster::new().await else {
        return;
    };
    let a = cl.node("node-a", 60_000).await;
    let (code, mut players) =
        start_match(a.addr, GAME, json!({"target": 3, "claim_window_ms": 1000}), 2, 2).await;
    let played = play(&mut players, &Time::Manual(a.clock.clone()), 21, 100_000).await;
    assert_eq!(played.last_state["status"]["kind"], "over");
    // A word at the finished table: the rematch's lobby carries it on.
    let r = players[0].client.request(req::chat("one more?")).await;
    assert_eq!(r["type"], "ok", "{r}");
    // The rematch's lobby is created by the finished table (not through the hub): the fence takes its lease
    // for the node in the statement that inserts it, so that its chat's copy is written by its owner too.
    for p in &mut players {
        let r = p.client.request(req::rematch(true)).await;
        assert_eq!(r["type"], "ok", "{r}");
    }
    // Everyone accepted: the rematch starts by itself.
    let rematched = players[0].client.wait_push("rematched", |_| true).await;
    let new_code = rematched["code"].as_str().unwrap().to_string();
    assert_ne!(new_code, code);
    assert_eq!(cl.lease(&code).await, (cl.id("node-a"), 1));
    assert_eq!(cl.lease(&new_code).await, (cl.id("node-a"), 1));
    let mut c = a.client().await;
    let token = rematched["seat_token"].as_str().unwrap();
    let r = c.request(req::resume(&new_code, token)).await;
    assert_eq!(r["type"], "resumed", "{r}");
    let history = c.wait_push("chat_history", |_| true).await;
    assert_eq!(history["messages"][0]["text"], "one more?", "{history}");
    a.stop().await;
    cl.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_asked_for_a_table_another_live_node_owns_relays_it_and_leaves_the_lease_alone() {
    let Some(cl) = TestCluster::forwarding().await else {
        return;
    };
    let a = cl.node("node-a", 60_000).await;
    let b = cl.node("node-b", 60_000).await;
    let (code, players) = start_match(a.addr, GAME, json!({"target": 5}), 2, 2).await;
    // Node B relays the seat to node A, which goes on serving the table under its lease.
    let mut c = b.client().await;
    let r = c.request(req::resume(&code, &players[1].token)).await;
    assert_eq!(r["type"], "resumed", "{r}");
    let state = c.wait_version(0).await;
    assert_eq!(state["seat"], 1, "{state}");
    assert_eq!(cl.lease(&code).await, (cl.id("node-a"), 1));
    let (_, metrics) = http_get(b.addr, "/metrics").await;
    assert!(
        metrics.contains("tabletop_forwarded_requests_total 1"),
        "{metrics}"
    );
    // An unknown code is refused as on a single node, and leaves no lease behind.
    let mut c = b.client().await;
    let r = c.request(req::spectate("ZZZZZZ")).await;
    assert_eq!(r["code"], "unknown_lobby", "{r}");
    let leases: i64 = sqlx::query("SELECT count(*) FROM table_leases")
        .fetch_one(&cl.sql)
        .await
        .unwrap()
        .get(0);
    assert_eq!(leases, 1);
    a.stop().await;
    b.stop().await;
    cl.finish().await;
}

/// Whether nothing but a player can change the match now: no engine deadline and no turn timer is running,
/// and a player has something to do (on a node with only human seats, the table then waits for its players).
fn waiting_for_a_player(state: &Value) -> bool {
    state["deadline"].is_null()
        && state["turn_deadline"].is_null()
        && !state["legal_actions"].as_array().is_none_or(Vec::is_empty)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_paused_owner_resumed_after_a_takeover_writes_nothing_and_sends_its_clients_away() {
    let Some(cl) = TestCluster::new().await else {
        return;
    };
    let a = cl.process(BINARY, "node-a", Some(1000)).await;
    let b = cl.process(BINARY, "node-b", Some(1000)).await;
    // Play until only a player can act: once node B holds the table nothing changes it there, so the log
    // after the takeover shows exactly what node A wrote. On the wall clock a match now and then ends before
    // seat 0 is seen waiting with no window open (seen once in CI): then another match is played.
    let mut attempts = 0;
    let (code, mut players, first) = loop {
        attempts += 1;
        let (code, mut players) =
            start_match(a.addr, GAME, json!({"target": 5, "claim_window_ms": 1000}), 2, 2).await;
        let mut first = play(&mut players, &Time::Real, 31, 4).await;
        if !waiting_for_a_player(&first.last_state) {
            let more = play_until(&mut players, &Time::Real, 32, 10_000, waiting_for_a_player).await;
            first.acknowledged.extend(more.acknowledged);
            first.last_state = more.last_state;
        }
        if first.last_state["status"]["kind"] != "over" {
            break (code, players, first);
        }
        assert!(
            attempts < 3,
            "{attempts} matches ended before a player was left to act"
        );
    };
    let version = first.last_state["version"].as_u64().unwrap();
    let before = cl.log(&code).await;
    assert_eq!(before.len() as u64, version);

    // SIGSTOP: node A stops renewing; node B's sweep finds the lease expired and takes the table over.
    a.signal("STOP");
    let taken = cl
        .wait_takeovers(std::slice::from_ref(&code), 1, Duration::from_secs(20))
        .await;
    let (owner, after_expiry) = &taken[0];
    assert_eq!(owner, &cl.id("node-b"));
    assert!(
        *after_expiry < Duration::from_secs(5),
        "owned again {after_expiry:?} after the lease expired"
    );

    // While A is stopped, every player whose seat may act sends an action to A (the kernel keeps it); A
    // reads them when it runs again, not knowing yet that it lost the table.
    let mut sent = Vec::new();
    for (i, p) in players.iter_mut().enumerate() {
        let state = p.client.state.clone().unwrap();
        if let Some(action) = state["legal_actions"].as_array().and_then(|l| l.first()) {
            let id = 9000 + i as u64;
            p.client.send_text(req::action(action, version).frame(id)).await;
            sent.push(id);
        }
    }
    assert!(!sent.is_empty(), "someone may act");
    a.signal("CONT");

    // Each of A's clients is told to reconnect; no action is acknowledged, and an answered one is `moved`
    // (the fence refused its write, or the renewal found the lease gone first).
    for p in &mut players {
        let frames = drain(&mut p.client).await;
        for frame in &frames {
            assert_ne!(frame["type"], "accepted", "a stale owner acknowledged {frame}");
            if frame.get("re").is_some() {
                assert_eq!(
                    (frame["type"].as_str(), frame["code"].as_str()),
                    (Some("error"), Some("moved")),
                    "{frame}"
                );
            }
            assert!(
                frame["type"] != "state" || frame["version"].as_u64() <= Some(version),
                "a stale owner published a change: {frame}"
            );
        }
        let last = frames.last().expect("a closing message");
        assert_eq!(
            (last["type"].as_str(), last["code"].as_str()),
            (Some("closing"), Some("moved")),
            "{last}"
        );
    }
    // A runs on, owning nothing, and nothing of it reached the log after the takeover.
    let (_, metrics) = http_get(a.addr, "/metrics").await;
    assert!(metrics.contains("tabletop_cluster_tables_owned 0"), "{metrics}");
    assert!(
        metrics.contains("tabletop_cluster_leases_lost_total 1"),
        "{metrics}"
    );
    // Which came first on A, a write (refused) or the renewal (the lease gone), depends on scheduling.
    let fenced = metrics
        .lines()
        .find(|l| l.starts_with("tabletop_cluster_fenced_writes_total "))
        .expect("the fenced-writes counter");
    eprintln!("node A after SIGCONT: {fenced}");
    assert_eq!(cl.log(&code).await, before, "the stale owner wrote nothing");
    assert_eq!(cl.lease(&code).await, (cl.id("node-b"), 2));

    // The players resume on node B and finish the match; the log holds every acknowledged action once.
    let mut moved = reconnect_all(b.addr, &code, players, version).await;
    let after = cl.finish_match(&code, &mut moved, &Time::Real, 33, &first).await;
    assert_eq!(&after[..before.len()], &before[..]);
    assert!(a.terminate().await);
    assert!(b.terminate().await);
    cl.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_of_a_node_hands_its_table_over_with_nothing_but_a_reconnect_for_its_clients() {
    let Some(cl) = TestCluster::new().await else {
        return;
    };
    // A minute-long lease: a takeover that waited for it would time the test out.
    let a = cl.process(BINARY, "node-a", Some(60_000)).await;
    let b = cl.process(BINARY, "node-b", Some(60_000)).await;
    let (code, mut players) =
        start_match(a.addr, GAME, json!({"target": 3, "claim_window_ms": 1000}), 2, 2).await;
    let first = play(&mut players, &Time::Real, 41, 6).await;
    let version = first.last_state["version"].as_u64().unwrap();
    assert!(a.terminate().await, "a graceful stop exits cleanly");

    // What the clients saw of the stop: at most the clock's last changes and the other player leaving, then
    // `closing` with `shutting_down`; no error.
    for p in &mut players {
        let frames = drain(&mut p.client).await;
        for frame in &frames[..frames.len().saturating_sub(1)] {
            assert!(
                ["state", "lobby"].contains(&frame["type"].as_str().unwrap()),
                "{frame}"
            );
        }
        let last = frames.last().expect("a closing message");
        assert_eq!(
            (last["type"].as_str(), last["code"].as_str()),
            (Some("closing"), Some("shutting_down")),
            "{last}"
        );
    }
    // Each resumes on node B at its first attempt: the lease was handed over, not left to expire.
    let mut moved = resume_all(b.addr, &code, players, version).await;
    assert_eq!(cl.lease(&code).await, (cl.id("node-b"), 2));
    cl.finish_match(&code, &mut moved, &Time::Real, 42, &first).await;
    assert!(b.terminate().await);
    cl.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_nodes_tables_are_owned_again_within_5_s_of_their_leases_expiring() {
    let Some(cl) = TestCluster::new().await else {
        return;
    };
    // The default lease length (no LEASE_MS).
    let a = cl.process(BINARY, "node-a", None).await;
    let b = cl.process(BINARY, "node-b", None).await;
    let c = cl.process(BINARY, "node-c", None).await;
    // Two matches being played and an open lobby on node A.
    let mut codes = Vec::new();
    let mut clients = Vec::new();
    for _ in 0..2 {
        let (code, players) = start_match(a.addr, GAME, json!({"target": 5}), 2, 2).await;
        codes.push(code);
        clients.push(players);
    }
    let mut host = Client::hello(a.addr).await;
    let created = host.request(req::create_lobby(GAME, 2, "Host")).await;
    assert_eq!(created["type"], "seated", "{created}");
    codes.push(created["code"].as_str().unwrap().to_string());
    for code in &codes {
        assert_eq!(cl.lease(code).await, (cl.id("node-a"), 1));
    }
    a.kill().await;
    // No client asks for them: the survivors' sweeps find them.
    let taken = cl.wait_takeovers(&codes, 1, Duration::from_secs(30)).await;
    for (code, (owner, after_expiry)) in codes.iter().zip(&taken) {
        assert!(
            [cl.id("node-b"), cl.id("node-c")].contains(owner),
            "{code}: {owner}"
        );
        assert!(
            *after_expiry < Duration::from_secs(5),
            "{code} owned again {after_expiry:?} after its lease expired"
        );
    }
    // A player resumes on whichever survivor now owns the match.
    let owner = &taken[0].0;
    let addr = if *owner == cl.id("node-b") { b.addr } else { c.addr };
    let mut resumed = Client::hello(addr).await;
    let r = resumed
        .request(req::resume(&codes[0], &clients[0][0].token))
        .await;
    assert_eq!(r["type"], "resumed", "{r}");
    assert!(b.terminate().await);
    assert!(c.terminate().await);
    cl.finish().await;
}

/// Paused time: a table taken over is credited the time since its earlier owner last served it, as the lease
/// says (`served_ms`, written at every renewal and at a graceful stop), only if that owner wrote it: a lease whose
/// `served_ms` is older than the last change of owner (an owner of a build that does not write it came between)
/// credits nothing. Node A starts a correspondence match and stops gracefully; node B, 10 minutes later on its
/// own clock, takes the table over.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_takeover_credits_the_time_since_the_last_owner_served_the_table_and_no_older_owner_s() {
    const HOUR: u64 = 3_600_000;
    const DOWN: u64 = 10 * 60_000;
    for stale in [false, true] {
        let Some(cl) = TestCluster::new().await else {
            return;
        };
        let a = cl.node("node-a", 60_000).await;
        let b = cl.node("node-b", 60_000).await;
        let pace = protocol::Pace::Correspondence {
            move_ms: 2 * HOUR,
            bank_cap_ms: 5 * HOUR,
            stall: protocol::StallPolicy::Bot,
        };
        let (code, players, _) =
            start_for_two(a.addr, req::create_lobby("quacks", 2, "Ann").pace(pace)).await;
        a.stop().await;
        let (served, epoch): (Option<i64>, i64) =
            sqlx::query_as("SELECT served_ms, epoch FROM table_leases WHERE code = $1")
                .bind(&code)
                .fetch_one(&cl.sql)
                .await
                .unwrap();
        assert_eq!(served, Some(CLOCK_START as i64), "A's clock at its graceful stop");
        if stale {
            // As if an owner that wrote nothing had held the lease since A.
            sqlx::query("UPDATE table_leases SET epoch = epoch + 1 WHERE code = $1")
                .bind(&code)
                .execute(&cl.sql)
                .await
                .unwrap();
        }
        b.clock.advance(DOWN);
        let mut c = b.client().await;
        let r = c.request(req::resume(&code, &players[0].token)).await;
        assert_eq!(r["type"], "resumed", "{r}");
        let state = c.wait_push("state", |_| true).await;
        assert_eq!(
            cl.lease(&code).await,
            (cl.id("node-b"), epoch + 1 + i64::from(stale))
        );
        let clocks = state["clocks"].as_array().expect("clocks");
        assert!(clocks.iter().any(|c| c["running"] == true), "{state}");
        for clock in clocks.iter().filter(|c| c["running"] == true) {
            // Credited: A served the table no time at all (its clock never moved). Stale: nothing credited.
            let charged = if stale { DOWN } else { 0 };
            assert_eq!(clock["left_ms"], 2 * HOUR - charged, "stale: {stale}: {state}");
        }
        b.stop().await;
        cl.finish().await;
    }
}

/// A whole cluster down: a correspondence table nobody was at (so it had left memory and its lease named no
/// server) is credited the time no node served, from the nodes' runs (`server_runs`): Ann's and Bob's brewing
/// clocks are charged the 30 minutes node A served, not the 10 minutes before node B started.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_whole_cluster_s_outage_costs_a_table_out_of_memory_nothing() {
    const HOUR: u64 = 3_600_000;
    const SERVED: u64 = 30 * 60_000;
    const DOWN: u64 = 10 * 60_000;
    let Some(cl) = TestCluster::new().await else {
        return;
    };
    let mut config = node_config(&cl.id("node-a"), 60_000);
    config.idle_unload_secs = 60;
    let a = cl.start(config).await;
    let pace = protocol::Pace::Correspondence {
        move_ms: 2 * HOUR,
        bank_cap_ms: 5 * HOUR,
        stall: protocol::StallPolicy::Bot,
    };
    let (code, players, _) = start_for_two(a.addr, req::create_lobby("quacks", 2, "Ann").pace(pace)).await;
    let tokens: Vec<String> = players.iter().map(|p| p.token.clone()).collect();
    for player in players {
        player.client.close().await;
    }
    // `query`'s column of the lobby's row becomes set within 10 s.
    let set = |query: &'static str| {
        let (sql, code) = (cl.sql.clone(), code.clone());
        async move {
            for _ in 0..400 {
                let at: Option<i64> = sqlx::query_scalar(query)
                    .bind(&code)
                    .fetch_one(&sql)
                    .await
                    .unwrap();
                if at.is_some() {
                    return;
                }
                tokio::time::sleep(Duration::from_millis(25)).await;
            }
            panic!("never set: {query}");
        }
    };
    set("SELECT idle_since FROM lobbies WHERE code = $1").await;
    a.clock.advance(SERVED);
    // Nobody is at the table: it leaves memory, and its lease no longer says when it was served.
    set("SELECT unloaded_until FROM lobbies WHERE code = $1").await;
    let clock = a.clock.clone();
    a.stop().await;
    clock.advance(DOWN);
    let b = cl
        .start_with_clock(node_config(&cl.id("node-b"), 60_000), clock)
        .await;
    let mut c = b.client().await;
    let r = c.request(req::resume(&code, &tokens[0])).await;
    assert_eq!(r["type"], "resumed", "{r}");
    let state = c.wait_push("state", |_| true).await;
    let clocks = state["clocks"].as_array().expect("clocks");
    let running: Vec<&Value> = clocks.iter().filter(|c| c["running"] == true).collect();
    assert_eq!(running.len(), 2, "both brew: {state}");
    for clock in running {
        assert_eq!(
            clock["left_ms"],
            2 * HOUR - SERVED,
            "only the served time is charged: {state}"
        );
    }
    b.stop().await;
    cl.finish().await;
}
