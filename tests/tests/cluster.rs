//! Cluster mode (issue 27): in-process nodes on port 0 sharing one real PostgreSQL database (a database of each
//! test's own). Fencing (a stale owner's writes are refused by the database itself), takeover from the database
//! after a lease expires with no acknowledged action lost or applied twice, lease loss noticed by the renewal,
//! graceful handover, a duplicate node id, and cluster mode refused on SQLite.
//!
//! They need `TEST_DATABASE_URL` (`.ci/run` sets it); without it they say so and pass, unless `CI` is set (then
//! they fail).

use integration_tests::*;
use serde_json::{Value, json};
use server::Store;
use sqlx::{PgPool, Row};

const GAME: &str = "hide_and_eeek";
const ADMIN_TOKEN: &str = "admin-token-for-tests-0123456789";

/// Whether PostgreSQL is there; in CI (`CI` set) its absence fails the test instead of skipping it.
fn postgres() -> bool {
    let set = backends().contains(&"postgres");
    if !set {
        assert!(
            std::env::var("CI").is_err(),
            "the cluster tests need PostgreSQL: set TEST_DATABASE_URL in CI"
        );
        eprintln!("skipped: TEST_DATABASE_URL is not set (cluster mode needs PostgreSQL)");
    }
    set
}

fn node_config(id: &str, lease_ms: u64) -> server::Config {
    let mut config = test_config();
    config.cluster = true;
    config.node_id = Some(id.to_string());
    config.lease_ms = lease_ms;
    config.admin_token = Some(server::admin::AdminToken::parse(ADMIN_TOKEN).unwrap());
    config
}

/// The admin API's `owner` of the table `code` (its lease), as node `addr` lists it.
async fn admin_owner(addr: std::net::SocketAddr, code: &str) -> Value {
    let auth = format!("Bearer {ADMIN_TOKEN}");
    let (status, _, text) = http_request(
        addr,
        "GET",
        "/api/admin/matches",
        &[("Authorization", auth.as_str())],
        None,
    )
    .await;
    assert_eq!(status, 200, "{text}");
    let listed: Value = serde_json::from_str(&text).unwrap();
    let item = listed["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["code"] == code)
        .expect("the table is listed")
        .clone();
    item["owner"].clone()
}

async fn node(db: &TestDb, id: &str, lease_ms: u64) -> TestServer {
    let store = Store::connect(db.url()).await.expect("database");
    let server = TestServer::start_with_store(store, node_config(id, lease_ms)).await;
    // The node is serving once it answers.
    let (status, _) = http_get(server.addr, "/readyz").await;
    assert_eq!(status, 200);
    server
}

async fn pool(db: &TestDb) -> PgPool {
    PgPool::connect(db.url()).await.unwrap()
}

/// (owner node, epoch) of a table's lease.
async fn lease(pool: &PgPool, code: &str) -> (String, i64) {
    let row = sqlx::query("SELECT owner_node, epoch FROM table_leases WHERE code = $1")
        .bind(code)
        .fetch_one(pool)
        .await
        .unwrap();
    (row.get(0), row.get(1))
}

/// The match's logged actions: (seq, actor, action).
async fn log(pool: &PgPool, code: &str) -> Vec<(i64, String, String)> {
    sqlx::query(
        "SELECT a.seq, a.actor, a.action FROM actions a JOIN matches m ON m.id = a.match_id \
         WHERE m.lobby_code = $1 ORDER BY a.seq",
    )
    .bind(code)
    .fetch_all(pool)
    .await
    .unwrap()
    .iter()
    .map(|r| (r.get(0), r.get(1), r.get(2)))
    .collect()
}

/// A legal action of whichever player may act now, with the index of that player.
fn a_legal_action(players: &[Player]) -> Option<(usize, Value, u64)> {
    players.iter().enumerate().find_map(|(i, p)| {
        let state = p.client.state.as_ref()?;
        let legal = state["legal_actions"].as_array()?;
        Some((i, legal.first()?.clone(), state["version"].as_u64()?))
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stale_owner_is_fenced_by_the_database_and_the_new_owner_resumes_the_match() {
    if !postgres() {
        return;
    }
    let db = TestDb::new("postgres").await;
    let sql = pool(&db).await;
    // Long leases: nothing expires by itself during the test; the test expires the lease, as a paused owner's.
    let a = node(&db, "node-a", 60_000).await;
    let b = node(&db, "node-b", 60_000).await;
    let (code, mut players) =
        start_match(a.addr, GAME, json!({"target": 5, "claim_window_ms": 1000}), 2, 2).await;
    let played = play(&mut players, &Time::Manual(a.clock.clone()), 5, 3).await;
    let version = played.last_state["version"].as_u64().unwrap();
    assert_eq!(lease(&sql, &code).await, ("node-a".to_string(), 1));
    let before = log(&sql, &code).await;
    assert_eq!(before.len() as u64, version);

    // Node A "pauses": its lease expires, and node B, asked for the table, claims it (epoch 2) and recovers it
    // from the database.
    sqlx::query("UPDATE table_leases SET expires_at = now() - interval '1 second' WHERE code = $1")
        .bind(&code)
        .execute(&sql)
        .await
        .unwrap();
    let mut watcher = b.client().await;
    let r = watcher.request(req::spectate(&code)).await;
    assert_eq!(r["type"], "spectating", "{r}");
    let seen = watcher.wait_version(version).await;
    assert_eq!(seen["version"].as_u64(), Some(version));
    assert_eq!(lease(&sql, &code).await, ("node-b".to_string(), 2));
    // Any node's admin API shows the owner and the epoch.
    assert_eq!(
        admin_owner(a.addr, &code).await,
        json!({"node": "node-b", "epoch": 2, "live": true})
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
    for p in &mut players {
        let last = p.client.until_closed().await.expect("a closing message");
        assert_eq!(
            (last["type"].as_str(), last["code"].as_str()),
            (Some("closing"), Some("moved")),
            "{last}"
        );
    }
    assert_eq!(
        log(&sql, &code).await,
        before,
        "nothing from the stale owner reached the log"
    );

    // The players reconnect to node B with their seat tokens and play on; the log has every acknowledged
    // action once, in order.
    let mut moved = Vec::new();
    for p in players {
        let mut c = b.client().await;
        let r = c.request(req::resume(&code, &p.token)).await;
        assert_eq!(r["type"], "resumed", "{r}");
        c.wait_version(version).await;
        moved.push(Player {
            client: c,
            seat: p.seat,
            token: p.token,
        });
    }
    let more = play(&mut moved, &Time::Manual(b.clock.clone()), 6, 3).await;
    let after = log(&sql, &code).await;
    let last = more.last_state["version"].as_u64().unwrap();
    assert_eq!(after.len() as u64, last);
    assert_eq!(&after[..before.len()], &before[..]);
    let seqs: Vec<i64> = after.iter().map(|(s, _, _)| *s).collect();
    assert_eq!(seqs, (1..=last as i64).collect::<Vec<_>>());
    for (seat, action, v) in &more.acknowledged {
        let (_, actor, logged) = &after[*v as usize - 1];
        assert_eq!(
            serde_json::from_str::<Value>(actor).unwrap(),
            json!({"seat": seat})
        );
        assert_eq!(&serde_json::from_str::<Value>(logged).unwrap(), action);
    }

    a.stop().await;
    b.stop().await;
    sql.close().await;
    db.drop_db().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lease_lost_to_another_owner_stops_the_table_at_the_next_renewal() {
    if !postgres() {
        return;
    }
    let db = TestDb::new("postgres").await;
    let sql = pool(&db).await;
    // Renewals every 300 ms.
    let a = node(&db, "node-a", 900).await;
    let (code, mut players) = start_match(a.addr, GAME, json!({"target": 5}), 2, 2).await;
    // Another owner takes the lease (as a node that found it expired would).
    sqlx::query(
        "UPDATE table_leases SET owner_node = 'node-z', incarnation = 'node-z#1', epoch = epoch + 1 \
         WHERE code = $1",
    )
    .bind(&code)
    .execute(&sql)
    .await
    .unwrap();
    // Without sending anything, A's clients hear that the table moved.
    for p in &mut players {
        let last = p.client.until_closed().await.expect("a closing message");
        assert_eq!(last["code"], "moved", "{last}");
    }
    let (_, metrics) = http_get(a.addr, "/metrics").await;
    assert!(
        metrics.contains("tabletop_cluster_leases_lost_total 1"),
        "{metrics}"
    );
    a.stop().await;
    sql.close().await;
    db.drop_db().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_graceful_stop_hands_the_tables_over_without_waiting_for_the_lease() {
    if !postgres() {
        return;
    }
    let db = TestDb::new("postgres").await;
    let sql = pool(&db).await;
    // A minute-long lease: a takeover that waited for it would time the test out.
    let a = node(&db, "node-a", 60_000).await;
    let b = node(&db, "node-b", 60_000).await;
    let (code, mut players) = start_match(a.addr, GAME, json!({"target": 5}), 2, 2).await;
    let played = play(&mut players, &Time::Manual(a.clock.clone()), 9, 2).await;
    let version = played.last_state["version"].as_u64().unwrap();
    a.stop().await;
    for p in &mut players {
        let last = p.client.until_closed().await.expect("a closing message");
        assert_eq!(last["code"], "shutting_down", "{last}");
    }
    let mut c = b.client().await;
    let r = c.request(req::resume(&code, &players[0].token)).await;
    assert_eq!(r["type"], "resumed", "{r}");
    let state = c.wait_version(version).await;
    assert_eq!(state["version"].as_u64(), Some(version));
    assert_eq!(lease(&sql, &code).await, ("node-b".to_string(), 2));
    // The node id may be used again at once.
    let again = node(&db, "node-a", 60_000).await;
    again.stop().await;
    b.stop().await;
    sql.close().await;
    db.drop_db().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_live_node_with_the_same_id_is_refused() {
    if !postgres() {
        return;
    }
    let db = TestDb::new("postgres").await;
    let a = node(&db, "same", 60_000).await;
    let store = Store::connect(db.url()).await.unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let refused = server::run(
        listener,
        node_config("same", 60_000),
        store,
        std::sync::Arc::new(server::ManualClock::new(CLOCK_START)),
        std::future::pending(),
    )
    .await
    .expect_err("a duplicate live node id is refused");
    assert!(
        refused
            .to_string()
            .contains("another live node already uses the node id `same`"),
        "{refused}"
    );
    a.stop().await;
    db.drop_db().await;
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

/// Resumes `token`'s seat on the node at `addr`, retrying while the table is still another node's (`moved`,
/// until the killed owner's lease expires). Returns the client and how many attempts it took.
async fn resume_when_taken_over(addr: std::net::SocketAddr, code: &str, token: &str) -> Client {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        let mut c = Client::hello(addr).await;
        let r = c.request(req::resume(code, token)).await;
        if r["type"] == "resumed" {
            return c;
        }
        assert_eq!(r["code"], "moved", "{r}");
        assert!(
            std::time::Instant::now() < deadline,
            "no takeover within 20 s: {r}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_9_of_the_owner_mid_match_loses_no_acknowledged_action_and_the_match_finishes() {
    if !postgres() {
        return;
    }
    let db = TestDb::new("postgres").await;
    let sql = pool(&db).await;
    let binary = env!("CARGO_BIN_EXE_server-under-test");
    let env = |id: &'static str| {
        [
            ("CLUSTER", "true"),
            ("NODE_ID", id),
            ("LEASE_MS", "1000"),
            ("BOT_DELAY_MS", "0"),
            ("RATE_LIMIT_PER_SEC", "1000"),
        ]
    };
    let a = ServerProcess::start(binary, &db, &env("node-a")).await;
    let b = ServerProcess::start(binary, &db, &env("node-b")).await;
    let (code, mut players) =
        start_match(a.addr, GAME, json!({"target": 3, "claim_window_ms": 1000}), 2, 2).await;
    let first = play(&mut players, &Time::Real, 21, 6).await;
    let version = first.last_state["version"].as_u64().unwrap();
    a.kill().await;
    let killed = std::time::Instant::now();

    // Every player reconnects to node B, which takes the table over once A's lease has expired.
    let mut moved = Vec::new();
    for p in players {
        let mut c = resume_when_taken_over(b.addr, &code, &p.token).await;
        c.wait_version(version).await;
        moved.push(Player {
            client: c,
            seat: p.seat,
            token: p.token,
        });
    }
    let took = killed.elapsed();
    assert!(took < std::time::Duration::from_secs(6), "takeover took {took:?}");
    assert_eq!(lease(&sql, &code).await, ("node-b".to_string(), 2));

    // The match goes on to its end on node B.
    let rest = play(&mut moved, &Time::Real, 22, 10_000).await;
    assert_eq!(rest.last_state["status"]["kind"], "over", "{}", rest.last_state);
    let logged = log(&sql, &code).await;
    let last = rest.last_state["version"].as_u64().unwrap();
    let seqs: Vec<i64> = logged.iter().map(|(s, _, _)| *s).collect();
    assert_eq!(
        seqs,
        (1..=last as i64).collect::<Vec<_>>(),
        "each action once, in order"
    );
    // Every action a client had acknowledged, before and after the kill, is in the log at its version.
    for (seat, action, v) in first.acknowledged.iter().chain(&rest.acknowledged) {
        let (_, actor, logged) = &logged[*v as usize - 1];
        assert_eq!(
            serde_json::from_str::<Value>(actor).unwrap(),
            json!({"seat": seat})
        );
        assert_eq!(&serde_json::from_str::<Value>(logged).unwrap(), action);
    }
    assert!(b.terminate().await);
    sql.close().await;
    db.drop_db().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_match_and_its_rematch_on_a_cluster_node_hold_their_own_leases() {
    if !postgres() {
        return;
    }
    let db = TestDb::new("postgres").await;
    let sql = pool(&db).await;
    let a = node(&db, "node-a", 60_000).await;
    let (code, mut players) =
        start_match(a.addr, GAME, json!({"target": 3, "claim_window_ms": 1000}), 2, 2).await;
    let played = play(&mut players, &Time::Manual(a.clock.clone()), 21, 100_000).await;
    assert_eq!(played.last_state["status"]["kind"], "over");
    // The rematch's lobby is created by the finished table (not through the hub): the fence takes its lease
    // for the node in the statement that inserts it.
    for p in &mut players {
        let r = p.client.request(req::rematch(true)).await;
        assert_eq!(r["type"], "ok", "{r}");
    }
    // Everyone accepted: the rematch starts by itself.
    let rematched = players[0].client.wait_push("rematched", |_| true).await;
    let new_code = rematched["code"].as_str().unwrap().to_string();
    assert_ne!(new_code, code);
    assert_eq!(lease(&sql, &code).await, ("node-a".to_string(), 1));
    assert_eq!(lease(&sql, &new_code).await, ("node-a".to_string(), 1));
    let mut c = a.client().await;
    let token = rematched["seat_token"].as_str().unwrap();
    let r = c.request(req::resume(&new_code, token)).await;
    assert_eq!(r["type"], "resumed", "{r}");
    a.stop().await;
    sql.close().await;
    db.drop_db().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_asked_for_a_table_another_live_node_owns_answers_moved_and_leaves_the_lease_alone() {
    if !postgres() {
        return;
    }
    let db = TestDb::new("postgres").await;
    let sql = pool(&db).await;
    let a = node(&db, "node-a", 60_000).await;
    let b = node(&db, "node-b", 60_000).await;
    let (code, players) = start_match(a.addr, GAME, json!({"target": 5}), 2, 2).await;
    let mut c = b.client().await;
    let r = c.request(req::resume(&code, &players[1].token)).await;
    assert_eq!(
        (r["type"].as_str(), r["code"].as_str()),
        (Some("error"), Some("moved")),
        "{r}"
    );
    assert_eq!(lease(&sql, &code).await, ("node-a".to_string(), 1));
    // An unknown code is refused as on a single node, and leaves no lease behind.
    let r = c.request(req::spectate("ZZZZZZ")).await;
    assert_eq!(r["code"], "unknown_lobby", "{r}");
    let leases: i64 = sqlx::query("SELECT count(*) FROM table_leases")
        .fetch_one(&sql)
        .await
        .unwrap()
        .get(0);
    assert_eq!(leases, 1);
    a.stop().await;
    b.stop().await;
    sql.close().await;
    db.drop_db().await;
}
