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
    time::{Duration, Instant},
};

use futures_util::StreamExt;
use integration_tests::{cluster::*, *};
use serde_json::{Value, json};

/// An in-process node `name` of `cl` (renewals every 300 ms: a lost lease is noticed at once), forwarding
/// through `nats` (default [`nats_url`]), dealing every match from `seed` when given.
async fn node(cl: &TestCluster, name: &str, nats: Option<&str>, seed: Option<u64>) -> TestServer {
    let mut config = node_config(&cl.id(name), 900);
    if let Some(nats) = nats {
        config.nats_url = nats.to_string();
    }
    config.match_seed = seed;
    cl.start(config).await
}

/// A lobby of molehills for two created on node `a`, its second seat joined through node `b` (relayed to `a`):
/// the code, the host and the far seat.
async fn lobby_with_a_far_seat(a: SocketAddr, b: SocketAddr) -> (String, Player, Player) {
    let mut host = Client::hello(a).await;
    let created = host.request(req::create_lobby("molehills", 2, "Ann")).await;
    assert_eq!(created["type"], "seated", "{created}");
    let code = created["code"].as_str().unwrap().to_string();
    let mut far = Client::hello(b).await;
    let joined = far.request(req::join(&code, "Bo")).await;
    assert_eq!(joined["type"], "seated", "{joined}");
    let token = |reply: &Value| reply["seat_token"].as_str().unwrap().to_string();
    let (host_token, far_token) = (token(&created), token(&joined));
    (
        code,
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
    )
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
    let (code, mut players) = start_match_on(addrs, game, json!({}), seats, seats).await;
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
    for (game, seats, seed) in [("molehills", 4, 11), ("quacks", 2, 12)] {
        // One node.
        let Some(cl) = TestCluster::forwarding().await else {
            return;
        };
        let single = node(&cl, "single", None, Some(seed)).await;
        let alone = play_spread(&[single.addr], &single.clock, game, seats).await;
        single.stop().await;
        cl.finish().await;

        // Three nodes: the host's node owns the table, the other seats are relayed to it.
        let cl = TestCluster::forwarding().await.unwrap();
        let a = node(&cl, "a", None, Some(seed)).await;
        let b = node(&cl, "b", None, Some(seed)).await;
        let c = node(&cl, "c", None, Some(seed)).await;
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
        cl.finish().await;
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
    let Some(cl) = TestCluster::forwarding().await else {
        return;
    };
    assert!(
        std::process::Command::new("nats-server")
            .arg("--version")
            .output()
            .is_ok(),
        "nats-server is installed"
    );
    let mut nats = OwnNats::start(free_port().await).await;
    let a = node(&cl, "a", Some(&nats.url()), None).await;
    let b = node(&cl, "b", Some(&nats.url()), None).await;
    // A's table, whose second seat is relayed by B; and a table of B's own.
    let (code, mut host, mut far) = lobby_with_a_far_seat(a.addr, b.addr).await;
    let (_local_code, mut local) = start_match(b.addr, "molehills", json!({}), 2, 2).await;
    play(&mut local, &Time::Manual(b.clock.clone()), 1, 3).await;

    nats.stop().await;
    // The relayed connection's requests are refused with the clear code (or, had a frame been lost, the
    // connection is closed with it).
    let refused = ping_until_refused(&mut far.client).await;
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
    let r = host.client.request(req::chat("still here")).await;
    assert_eq!(r["type"], "ok", "{r}");
    assert!(metric(b.addr, "tabletop_forward_errors_total").await >= 2.0);

    // NATS is back: without restarting anything, B relays again, and the far seat resumes through B.
    tokio::time::sleep(Duration::from_secs(1)).await;
    nats.restart().await;
    far.client = resume_when_taken_over(b.addr, &code, &far.token).await;
    // The chat A's seat wrote during the outage reached the far seat on resuming.
    let history = far.client.wait_push("chat_history", |_| true).await;
    assert!(history.to_string().contains("still here"), "{history}");
    let r = host.client.request(req::start()).await;
    assert_eq!(r["type"], "ok", "{r}");
    let mut players = [host, far];
    for p in &mut players {
        p.client.wait_version(0).await;
    }
    let played = play(&mut players, &Time::Manual(a.clock.clone()), 3, 100_000).await;
    assert_eq!(played.last_state["status"]["kind"], "over");
    a.stop().await;
    b.stop().await;
    nats.stop().await;
    cl.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forged_and_replayed_forward_messages_are_refused_and_change_nothing() {
    let Some(cl) = TestCluster::forwarding().await else {
        return;
    };
    let a = node(&cl, "a", None, None).await;
    let b = node(&cl, "b", None, None).await;
    let (code, _host, Player { client: mut far, .. }) = lobby_with_a_far_seat(a.addr, b.addr).await;
    let mut watcher = Client::hello(a.addr).await;
    let r = watcher.request(req::spectate(&code)).await;
    assert_eq!(r["type"], "spectating", "{r}");

    // Listen to what reaches A for its forward sessions, as anyone on the NATS network could.
    let spy = async_nats::connect(nats_url()).await.unwrap();
    let prefix = server::cluster::forward::node_subject(&cl.id("a"));
    let mut frames = spy.subscribe(format!("{prefix}.*")).await.unwrap();
    // The subscription is in place once it receives a probe of ours (A ignores a subject it does not serve).
    spy.publish(format!("{prefix}.probe"), bytes::Bytes::from_static(b"probe"))
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
    // The link message that carried it, and in it the sealed frame of the relayed session: the only frame of a
    // text kind (1) or batch (8) since the probe, the others being heartbeats (7). Its text is not readable.
    // A frame: tag (16 bytes), kind (1), number (8), body.
    let (sid, captured) = loop {
        let m = tokio::time::timeout(TIMEOUT, frames.next())
            .await
            .unwrap()
            .unwrap();
        if !m.subject.ends_with(".m") {
            continue;
        }
        assert!(
            !m.payload.windows(5).any(|w| w == b"hello"),
            "the relayed chat text crosses NATS in clear"
        );
        let found = server::cluster::forward::link_frames(m.payload)
            .expect("a well-formed link message")
            .into_iter()
            .find(|(_, f)| matches!(f[16], 1 | 8));
        if let Some(found) = found {
            break found;
        }
    };
    let seen = watcher.wait_push("chat_message", |_| true).await;
    assert_eq!(seen["message"]["text"], "hello");

    // Replayed as it was; forged (the text changed under the old tag); forged with the next number; and a
    // forged request to open a session.
    let link = |frame: &[u8]| {
        let mut out = bytes::BytesMut::new();
        server::cluster::forward::put_link_frame(&mut out, &sid, frame);
        out.freeze()
    };
    let subject = format!("{prefix}.m");
    spy.publish(subject.clone(), link(&captured)).await.unwrap();
    let mut forged = captured.to_vec();
    forged[25] ^= 1;
    spy.publish(subject.clone(), link(&forged)).await.unwrap();
    let mut next = forged.clone();
    let seq = u64::from_be_bytes(next[17..25].try_into().unwrap()) + 1;
    next[17..25].copy_from_slice(&seq.to_be_bytes());
    spy.publish(subject, link(&next)).await.unwrap();
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

    // Nothing changed: the next chat message is the next one the watcher sees (no second `hello`, no other),
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
    cl.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_relayed_client_hears_moved_when_the_owner_loses_the_table_and_resumes_through_any_node() {
    let Some(cl) = TestCluster::forwarding().await else {
        return;
    };
    let a = node(&cl, "a", None, None).await;
    let b = node(&cl, "b", None, None).await;
    let (code, host, far) = lobby_with_a_far_seat(a.addr, b.addr).await;
    let mut players = [host, far];
    let r = players[0].client.request(req::start()).await;
    assert_eq!(r["type"], "ok", "{r}");
    players[1].client.wait_version(0).await;

    // Another owner takes the lease for two seconds (as a node that found it expired would): A stops the table,
    // and the relayed client hears it from A exactly as A's own client does.
    sqlx::query(
        "UPDATE table_leases SET owner_node = 'node-z', incarnation = 'node-z#1', epoch = epoch + 1, \
         expires_at = now() + interval '2 seconds' WHERE code = $1",
    )
    .bind(&code)
    .execute(&cl.sql)
    .await
    .unwrap();
    assert_closed_with(players.iter_mut().map(|p| &mut p.client), "moved").await;

    // Once that lease has passed, a node claims the table again and the other relays its player to it.
    players[1].client = resume_when_taken_over(b.addr, &code, &players[1].token).await;
    players[0].client = resume_when_taken_over(a.addr, &code, &players[0].token).await;
    for p in &mut players {
        p.client.wait_version(0).await;
    }
    let played = play(&mut players, &Time::Manual(b.clock.clone()), 4, 100_000).await;
    assert_eq!(played.last_state["status"]["kind"], "over");
    // Which node claims the expired lease is a race (B for the far seat, or A's own sweep first), so the relaying
    // node is whichever did not: one of them forwarded the other seat's requests.
    let forwarded = [
        metric(a.addr, "tabletop_forwarded_requests_total").await,
        metric(b.addr, "tabletop_forwarded_requests_total").await,
    ];
    assert!(
        forwarded[0].max(forwarded[1]) > 5.0,
        "forwarded requests on A and B: {forwarded:?}"
    );
    a.stop().await;
    b.stop().await;
    cl.finish().await;
}
