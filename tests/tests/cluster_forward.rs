//! Cluster forwarding (issue 27, "any node serves any client"): in-process nodes on port 0 sharing one real
//! PostgreSQL database and one real NATS server. A match played with each seat on a different node gives every
//! seat exactly the frames a single node gives; NATS going away leaves local tables playing, refuses forwarded
//! requests with `forward_unavailable`, and recovers by itself; forged and replayed node-to-node messages are
//! refused and change nothing.
//!
//! They need `TEST_DATABASE_URL` and NATS (`TEST_NATS_URL`, default `nats://127.0.0.1:4222`; the outage test
//! starts its own `nats-server`); `.ci/run` provides both. Without them they say so and pass, unless `CI` is
//! set (then they fail).

use std::{
    net::SocketAddr,
    process::Stdio,
    sync::atomic::{AtomicU64, Ordering},
    time::{Duration, Instant},
};

use futures_util::StreamExt;
use integration_tests::*;
use serde_json::{Value, json};
use server::Store;

const SECRET: &str = "cluster-secret-for-tests-0123456789abcdef";

fn nats_url() -> String {
    std::env::var("TEST_NATS_URL")
        .ok()
        .filter(|u| !u.is_empty())
        .unwrap_or_else(|| "nats://127.0.0.1:4222".to_string())
}

/// Whether PostgreSQL and NATS are there; in CI (`CI` set) their absence fails the test instead of skipping it.
async fn services() -> bool {
    let postgres = backends().contains(&"postgres");
    let host = nats_url()
        .trim_start_matches("nats://")
        .split('/')
        .next()
        .unwrap()
        .to_string();
    let nats = tokio::net::TcpStream::connect(&host).await.is_ok();
    if !(postgres && nats) {
        assert!(
            std::env::var("CI").is_err(),
            "the forwarding tests need PostgreSQL (TEST_DATABASE_URL) and NATS (TEST_NATS_URL, at {host}) in CI"
        );
        eprintln!(
            "skipped: forwarding needs PostgreSQL and NATS (postgres: {postgres}, nats at {host}: {nats})"
        );
    }
    postgres && nats
}

/// A node id no other test (sharing the NATS server) uses.
fn node_id(name: &str) -> String {
    static N: AtomicU64 = AtomicU64::new(0);
    format!(
        "{name}-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    )
}

fn node_config(id: &str, nats: &str, seed: Option<u64>) -> server::Config {
    let mut config = test_config();
    config.cluster = true;
    config.node_id = Some(id.to_string());
    // Renewals every 300 ms: a lost lease is noticed at once.
    config.lease_ms = 900;
    config.nats_url = nats.to_string();
    config.cluster_secret = Some(server::cluster::forward::ClusterSecret::parse(SECRET).unwrap());
    config.match_seed = seed;
    config
}

async fn node(db: &TestDb, id: &str, nats: &str, seed: Option<u64>) -> TestServer {
    let store = Store::connect(db.url()).await.expect("database");
    let server = TestServer::start_with_store(store, node_config(id, nats, seed)).await;
    let (status, _) = http_get(server.addr, "/readyz").await;
    assert_eq!(status, 200);
    server
}

/// A counter of node `addr`'s `/metrics`.
async fn metric(addr: SocketAddr, name: &str) -> f64 {
    let (status, text) = http_get(addr, "/metrics").await;
    assert_eq!(status, 200);
    text.lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.parse().ok())
        .unwrap_or_else(|| panic!("{name} is on /metrics"))
}

/// Creates a lobby of `game` on `addrs[0]` with seat `i` connected to `addrs[i % addrs.len()]`, starts it, plays
/// it to its end with the driver's seeded choices, and returns every frame each seat received, with what differs
/// between runs by design (join code, match id, seat tokens) replaced by placeholders.
async fn play_spread(
    addrs: &[SocketAddr],
    clock: &server::ManualClock,
    game: &str,
    seats: u8,
) -> Vec<Vec<Value>> {
    let mut host = Client::hello(addrs[0]).await;
    let created = host.request(req::create_lobby(game, seats, "Host")).await;
    assert_eq!(created["type"], "seated", "{created}");
    let code = created["code"].as_str().unwrap().to_string();
    let mut players = vec![Player {
        client: host,
        seat: 0,
        token: created["seat_token"].as_str().unwrap().to_string(),
    }];
    for i in 1..seats {
        let mut c = Client::hello(addrs[i as usize % addrs.len()]).await;
        let joined = c.request(req::join(&code, &format!("P{i}"))).await;
        assert_eq!(joined["type"], "seated", "{joined}");
        assert_eq!(joined["seat"], i);
        players.push(Player {
            client: c,
            seat: i,
            token: joined["seat_token"].as_str().unwrap().to_string(),
        });
    }
    let r = players[0].client.request(req::start()).await;
    assert_eq!(r["type"], "ok", "{r}");
    for p in &mut players {
        p.client.wait_version(0).await;
    }
    let played = play(&mut players, &Time::Manual(clock.clone()), 27, 100_000).await;
    assert_eq!(played.last_state["status"]["kind"], "over", "the match ends");
    let match_id = played.last_state["match_id"].as_str().unwrap().to_string();
    players
        .into_iter()
        .map(|p| {
            let text = serde_json::to_string(&p.client.received).unwrap();
            let text = text
                .replace(&code, "CODE")
                .replace(&match_id, "MATCH")
                .replace(&p.token, "TOKEN");
            serde_json::from_str(&text).unwrap()
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_match_with_each_seat_on_another_node_gives_every_seat_what_a_single_node_gives() {
    if !services().await {
        return;
    }
    let nats = nats_url();
    for (game, seats, seed) in [("molehills", 4, 11), ("quacks", 2, 12)] {
        // One node.
        let db = TestDb::new("postgres").await;
        let single = node(&db, &node_id("single"), &nats, Some(seed)).await;
        let alone = play_spread(&[single.addr], &single.clock, game, seats).await;
        single.stop().await;
        db.drop_db().await;

        // Three nodes: the host's node owns the table, the other seats are relayed to it.
        let db = TestDb::new("postgres").await;
        let a = node(&db, &node_id("a"), &nats, Some(seed)).await;
        let b = node(&db, &node_id("b"), &nats, Some(seed)).await;
        let c = node(&db, &node_id("c"), &nats, Some(seed)).await;
        let spread = play_spread(&[a.addr, b.addr, c.addr], &a.clock, game, seats).await;
        for (seat, (one, three)) in alone.iter().zip(&spread).enumerate() {
            assert_eq!(
                one.len(),
                three.len(),
                "{game}: seat {seat} received as many frames"
            );
            for (i, (x, y)) in one.iter().zip(three).enumerate() {
                assert_eq!(x, y, "{game}: seat {seat}, frame {i}");
            }
        }
        // The relaying nodes counted their relayed requests and the replies' latency; nothing failed.
        let relayed = metric(b.addr, "tabletop_forwarded_requests_total").await
            + metric(c.addr, "tabletop_forwarded_requests_total").await;
        assert!(relayed > 10.0, "{game}: {relayed} requests relayed");
        assert_eq!(
            metric(b.addr, "tabletop_forward_latency_seconds_count").await
                + metric(c.addr, "tabletop_forward_latency_seconds_count").await,
            relayed,
            "every relayed request's reply came back"
        );
        for n in [&a, &b, &c] {
            assert_eq!(metric(n.addr, "tabletop_forward_errors_total").await, 0.0);
            assert_eq!(metric(n.addr, "tabletop_forward_refused_total").await, 0.0);
        }
        for n in [a, b, c] {
            n.stop().await;
        }
        db.drop_db().await;
    }
}

/// A `nats-server` of the test's own on a free port, which it can stop and start again.
struct OwnNats {
    port: u16,
    child: Option<tokio::process::Child>,
}

impl OwnNats {
    async fn start(port: u16) -> OwnNats {
        let mut nats = OwnNats { port, child: None };
        nats.restart().await;
        nats
    }

    async fn restart(&mut self) {
        let child = tokio::process::Command::new("nats-server")
            .args(["-a", "127.0.0.1", "-p", &self.port.to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("nats-server is installed");
        self.child = Some(child);
        let deadline = Instant::now() + TIMEOUT;
        while tokio::net::TcpStream::connect(("127.0.0.1", self.port))
            .await
            .is_err()
        {
            assert!(Instant::now() < deadline, "nats-server starts");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    async fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            child.kill().await.unwrap();
        }
    }

    fn url(&self) -> String {
        format!("nats://127.0.0.1:{}", self.port)
    }
}

async fn free_port() -> u16 {
    let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    l.local_addr().unwrap().port()
}

/// Sends `ping` until the answer is not `pong`: the `forward_unavailable` refusal, or the connection's `closing`
/// with it (a frame lost as NATS went away breaks the session). Returns that code.
async fn ping_until_refused(client: &mut Client) -> String {
    let deadline = Instant::now() + TIMEOUT;
    let mut id = 1000;
    loop {
        assert!(Instant::now() < deadline, "the outage shows");
        id += 1;
        client
            .send_text(json!({"id": id, "type": "ping"}).to_string())
            .await;
        loop {
            let Some(frame) = client.read().await else {
                panic!("closed without a reason");
            };
            match (frame["type"].as_str(), frame["code"].as_str()) {
                (Some("pong"), _) if frame["re"] == id => break,
                (Some("error" | "closing"), Some(code)) => return format!("{}: {code}", frame["type"]),
                _ => {}
            }
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nats_down_leaves_local_tables_playing_refuses_forwarded_requests_and_recovers_by_itself() {
    if !services().await {
        return;
    }
    assert!(
        std::process::Command::new("nats-server")
            .arg("--version")
            .output()
            .is_ok(),
        "nats-server is installed"
    );
    let mut nats = OwnNats::start(free_port().await).await;
    let db = TestDb::new("postgres").await;
    let a = node(&db, &node_id("a"), &nats.url(), None).await;
    let b = node(&db, &node_id("b"), &nats.url(), None).await;
    // A's table, whose second seat is relayed by B; and a table of B's own.
    let mut host = Client::hello(a.addr).await;
    let created = host.request(req::create_lobby("molehills", 2, "Ann")).await;
    let code = created["code"].as_str().unwrap().to_string();
    let mut far = Client::hello(b.addr).await;
    let joined = far.request(req::join(&code, "Bo")).await;
    assert_eq!(joined["type"], "seated", "{joined}");
    let far_token = joined["seat_token"].as_str().unwrap().to_string();
    let (_local_code, mut local) = start_match(b.addr, "molehills", json!({}), 2, 2).await;
    play(&mut local, &Time::Manual(b.clock.clone()), 1, 3).await;

    nats.stop().await;
    // The relayed connection's requests are refused with the clear code (or, had a frame been lost, the
    // connection is closed with it).
    let refused = ping_until_refused(&mut far).await;
    assert!(refused.ends_with("forward_unavailable"), "{refused}");
    // A new request for A's table at B: refused with the same code, nothing relayed.
    let mut late = Client::hello(b.addr).await;
    let r = late.request(req::spectate(&code)).await;
    assert_eq!(
        (r["type"].as_str(), r["code"].as_str()),
        (Some("error"), Some("forward_unavailable")),
        "{r}"
    );
    // B's own table keeps playing, and so does A's for its local seat.
    let more = play(&mut local, &Time::Manual(b.clock.clone()), 2, 6).await;
    assert!(!more.acknowledged.is_empty() || more.last_state["status"]["kind"] == "over");
    let r = host.request(req::chat("still here")).await;
    assert_eq!(r["type"], "ok", "{r}");
    assert!(metric(b.addr, "tabletop_forward_errors_total").await >= 2.0);

    // NATS is back: without restarting anything, B relays again, and the far seat resumes through B.
    tokio::time::sleep(Duration::from_secs(1)).await;
    nats.restart().await;
    let deadline = Instant::now() + TIMEOUT;
    let mut far = loop {
        let mut c = Client::hello(b.addr).await;
        let r = c.request(req::resume(&code, &far_token)).await;
        if r["type"] == "resumed" {
            break c;
        }
        assert_eq!(r["code"], "forward_unavailable", "{r}");
        assert!(Instant::now() < deadline, "forwarding recovers");
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    // The chat A's seat wrote during the outage reached the far seat on resuming.
    let history = far.wait_push("chat_history", |_| true).await;
    assert!(history.to_string().contains("still here"), "{history}");
    let r = host.request(req::start()).await;
    assert_eq!(r["type"], "ok", "{r}");
    host.wait_version(0).await;
    far.wait_version(0).await;
    let mut players = vec![
        Player {
            client: host,
            seat: 0,
            token: String::new(),
        },
        Player {
            client: far,
            seat: 1,
            token: far_token,
        },
    ];
    let played = play(&mut players, &Time::Manual(a.clock.clone()), 3, 100_000).await;
    assert_eq!(played.last_state["status"]["kind"], "over");
    a.stop().await;
    b.stop().await;
    nats.stop().await;
    db.drop_db().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forged_and_replayed_forward_messages_are_refused_and_change_nothing() {
    if !services().await {
        return;
    }
    let url = nats_url();
    let db = TestDb::new("postgres").await;
    let a_id = node_id("a");
    let a = node(&db, &a_id, &url, None).await;
    let b = node(&db, &node_id("b"), &url, None).await;
    let mut host = Client::hello(a.addr).await;
    let created = host.request(req::create_lobby("molehills", 2, "Ann")).await;
    let code = created["code"].as_str().unwrap().to_string();
    let mut far = Client::hello(b.addr).await;
    let joined = far.request(req::join(&code, "Bo")).await;
    assert_eq!(joined["type"], "seated", "{joined}");
    let mut watcher = Client::hello(a.addr).await;
    let r = watcher.request(req::spectate(&code)).await;
    assert_eq!(r["type"], "spectating", "{r}");

    // Listen to what reaches A for its forward sessions, as anyone on the NATS network could.
    let spy = async_nats::connect(url.as_str()).await.unwrap();
    let prefix = server::cluster::forward::node_subject(&a_id);
    let mut frames = spy.subscribe(format!("{prefix}.s.*")).await.unwrap();
    // The subscription is in place once it receives a probe of ours (A ignores a frame for no session).
    spy.publish(format!("{prefix}.s.probe"), bytes::Bytes::from_static(b"probe"))
        .await
        .unwrap();
    loop {
        let m = tokio::time::timeout(TIMEOUT, frames.next())
            .await
            .unwrap()
            .unwrap();
        if m.subject.ends_with(".probe") {
            break;
        }
    }
    let r = far.request(req::chat("hello")).await;
    assert_eq!(r["type"], "ok", "{r}");
    let captured = loop {
        let m = tokio::time::timeout(TIMEOUT, frames.next())
            .await
            .unwrap()
            .unwrap();
        if m.payload.windows(5).any(|w| w == b"hello") {
            break m;
        }
    };
    let seen = watcher.wait_push("chat_message", |_| true).await;
    assert_eq!(seen["message"]["text"], "hello");

    // Replayed as it was; forged (the text changed under the old signature); forged with the next number; and a
    // forged request to open a session.
    let subject = captured.subject.clone();
    spy.publish(subject.clone(), captured.payload.clone())
        .await
        .unwrap();
    let mut forged = captured.payload.to_vec();
    let at = forged.windows(5).position(|w| w == b"hello").unwrap();
    forged[at] = b'j';
    spy.publish(subject.clone(), forged.clone().into()).await.unwrap();
    let mut next = forged.clone();
    let seq = u64::from_be_bytes(next[33..41].try_into().unwrap()) + 1;
    next[33..41].copy_from_slice(&seq.to_be_bytes());
    spy.publish(subject, next.into()).await.unwrap();
    spy.publish(format!("{prefix}.open"), bytes::Bytes::from_static(b"not signed"))
        .await
        .unwrap();
    spy.flush().await.unwrap();
    let deadline = Instant::now() + TIMEOUT;
    while metric(a.addr, "tabletop_forward_refused_total").await < 4.0 {
        assert!(
            Instant::now() < deadline,
            "the forged and replayed messages are refused"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    // Nothing changed: the next chat message is the next one the watcher sees (no second `hello`, no `jello`),
    // numbered right after the first, and the relayed connection goes on.
    let r = far.request(req::chat("second")).await;
    assert_eq!(r["type"], "ok", "{r}");
    let seen_next = watcher.wait_push("chat_message", |_| true).await;
    assert_eq!(seen_next["message"]["text"], "second", "{seen_next}");
    assert_eq!(
        seen_next["message"]["id"].as_u64(),
        seen["message"]["id"].as_u64().map(|i| i + 1)
    );
    let r = far.request(req::ping()).await;
    assert_eq!(r["type"], "pong", "{r}");
    assert_eq!(metric(b.addr, "tabletop_forward_errors_total").await, 0.0);
    a.stop().await;
    b.stop().await;
    db.drop_db().await;
}

/// Resumes `token`'s seat on `addr`, retrying while the table is between owners (`moved`, or
/// `forward_unavailable` while its lease names an owner that does not answer).
async fn resume_at(addr: SocketAddr, code: &str, token: &str) -> Client {
    let deadline = Instant::now() + TIMEOUT;
    loop {
        let mut c = Client::hello(addr).await;
        let r = c.request(req::resume(code, token)).await;
        if r["type"] == "resumed" {
            return c;
        }
        assert!(
            ["moved", "forward_unavailable"].contains(&r["code"].as_str().unwrap_or("")),
            "{r}"
        );
        assert!(Instant::now() < deadline, "the table is served again");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_relayed_client_hears_moved_when_the_owner_loses_the_table_and_resumes_through_any_node() {
    if !services().await {
        return;
    }
    let url = nats_url();
    let db = TestDb::new("postgres").await;
    let sql = sqlx::PgPool::connect(db.url()).await.unwrap();
    let a = node(&db, &node_id("a"), &url, None).await;
    let b = node(&db, &node_id("b"), &url, None).await;
    let mut host = Client::hello(a.addr).await;
    let created = host.request(req::create_lobby("molehills", 2, "Ann")).await;
    let code = created["code"].as_str().unwrap().to_string();
    let host_token = created["seat_token"].as_str().unwrap().to_string();
    let mut far = Client::hello(b.addr).await;
    let joined = far.request(req::join(&code, "Bo")).await;
    assert_eq!(joined["type"], "seated", "{joined}");
    let far_token = joined["seat_token"].as_str().unwrap().to_string();
    let r = host.request(req::start()).await;
    assert_eq!(r["type"], "ok", "{r}");
    far.wait_version(0).await;

    // Another owner takes the lease for two seconds (as a node that found it expired would): A stops the table,
    // and the relayed client hears it from A exactly as A's own client does.
    sqlx::query(
        "UPDATE table_leases SET owner_node = 'node-z', incarnation = 'node-z#1', epoch = epoch + 1, \
         expires_at = now() + interval '2 seconds' WHERE code = $1",
    )
    .bind(&code)
    .execute(&sql)
    .await
    .unwrap();
    for client in [&mut host, &mut far] {
        let last = client.until_closed().await.expect("a closing message");
        assert_eq!(
            (last["type"].as_str(), last["code"].as_str()),
            (Some("closing"), Some("moved")),
            "{last}"
        );
    }

    // Once that lease has passed, B claims the table for the far seat, and A relays the host to B.
    let far = resume_at(b.addr, &code, &far_token).await;
    let host = resume_at(a.addr, &code, &host_token).await;
    let mut players = vec![
        Player {
            client: host,
            seat: 0,
            token: host_token,
        },
        Player {
            client: far,
            seat: 1,
            token: far_token,
        },
    ];
    for p in &mut players {
        p.client.wait_version(0).await;
    }
    let played = play(&mut players, &Time::Manual(b.clock.clone()), 4, 100_000).await;
    assert_eq!(played.last_state["status"]["kind"], "over");
    assert!(metric(a.addr, "tabletop_forwarded_requests_total").await > 5.0);
    a.stop().await;
    b.stop().await;
    sql.close().await;
    db.drop_db().await;
}
