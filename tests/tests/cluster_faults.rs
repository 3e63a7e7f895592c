//! Cluster mode against its own faults (issue 45), with real server processes on one real PostgreSQL and one real
//! NATS server, as an operator runs them.
//!
//! - A relayed session that ends while pushes for it are pending (its client drops the socket, closes it, leaves
//!   first, its relaying node stops, or the owner stops) never panics a node, and the nodes' counts of open
//!   connections come back down: a panic used to skip the connection's clean-up (`start_send called without
//!   poll_ready`, the owner's sink of a relayed session after a failed write).
//! - A node started with another `CLUSTER_SECRET` is refused before it registers or claims anything.
//! - What nodes relay cannot be read on NATS, and a replayed open request starts no connection.
//! - `leave` ends a relay: the connection serves any table again, and its new lobbies are its node's.
//! - A node paused past its lease and replaced by a new process under its id stops serving when it resumes: its
//!   clients are told to reconnect and it exits with a failure status.
//! - A node killed with SIGKILL hands its tables on before their leases expire: its relayed seats are told to
//!   reconnect at once, and the first survivor asked for one of its tables takes it over.
//! - The time between a killed node's last renewal and a survivor taking its tables over is charged to nobody: no
//!   correspondence clock loses it and no turn timer fires early.
//! - No refusal at start-up prints a secret (a short `CLUSTER_SECRET` or `ADMIN_TOKEN`, a database or NATS URL's
//!   password).
//!
//! They need `TEST_DATABASE_URL` and NATS (`TEST_NATS_URL`); without them they say so and pass, unless `CI` is
//! set (then they fail).

use std::{
    net::SocketAddr,
    path::PathBuf,
    time::{Duration, Instant},
};

use futures_util::StreamExt;
use integration_tests::{cluster::*, *};
use serde_json::{Value, json};

const SERVER_BINARY: &str = env!("CARGO_BIN_EXE_server-under-test");

/// Chat freely (the pushes a test makes pending are chat lines) and create many lobbies from one address.
const CHATTY: [(&str, &str); 3] = [
    ("CHAT_BURST", "100000"),
    ("CHAT_RATE_PER_SEC", "100000"),
    ("MAX_LOBBIES_PER_IP", "10000"),
];

/// A log file for node `name` of this test.
fn log_file(test: &str, name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cluster-faults-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(format!("{test}-{name}.log"))
}

/// Waits until node `addr` counts `open` connections; fails with what it counts after 10 s.
async fn connections_come_to(addr: SocketAddr, open: f64, what: &str) {
    let mut now = f64::NAN;
    for _ in 0..100 {
        now = metric(addr, "tabletop_connections").await;
        if now == open {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("{what}: the owner counts {now} open connections, not {open}");
}

/// How a relayed session ends.
#[derive(Clone, Copy, Debug)]
enum End {
    /// The client's socket goes away without a close frame.
    Drop,
    /// The client sends a WebSocket close frame.
    Close,
    /// The client leaves the lobby, then drops the socket at once.
    Leave,
}

/// A lobby of quacks for two created on `owner` by a host who stays; the second seat joined through `relay`.
async fn lobby_with_a_relayed_seat(owner: SocketAddr, relay: SocketAddr) -> (Client, Client) {
    let mut host = Client::hello(owner).await;
    let created = host.request(req::create_lobby("quacks", 2, "Ann")).await;
    assert_eq!(created["type"], "seated", "{created}");
    let code = created["code"].as_str().unwrap().to_string();
    let mut far = Client::hello(relay).await;
    let joined = far.request(req::join(&code, "Bo")).await;
    assert_eq!(joined["type"], "seated", "{joined}");
    (host, far)
}

/// The host sends a burst of chat lines without waiting (pushes for the relayed seat pile up), and the relayed
/// session ends `how` while they are on their way.
async fn end_with_pushes_pending(host: &mut Client, far: Client, how: End, round: u64) {
    for i in 0..40 {
        host.send_text(req::chat(&format!("line {i} of round {round}")).frame(10_000 + i))
            .await;
    }
    tokio::time::sleep(Duration::from_millis(round % 7)).await;
    match how {
        End::Drop => drop(far),
        End::Close => far.close().await,
        End::Leave => {
            let mut far = far;
            far.send_text(req::leave().frame(1)).await;
            drop(far);
        }
    }
}

/// Whether a node's log shows a panic.
fn panics_in(log: &std::path::Path) -> Vec<String> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter(|l| l.contains("panicked"))
        .map(str::to_owned)
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn relayed_sessions_ending_in_every_order_with_pushes_pending_never_panic_the_owner() {
    let Some(cl) = TestCluster::forwarding().await else {
        return;
    };
    let (owner_log, relay_log) = (log_file("ends", "owner"), log_file("ends", "relay"));
    let owner = cl
        .process_with(SERVER_BINARY, "owner", None, &CHATTY, Some(&owner_log))
        .await;
    let relay = cl
        .process_with(SERVER_BINARY, "relay", None, &CHATTY, Some(&relay_log))
        .await;

    let mut round = 0;
    for how in [End::Drop, End::Close, End::Leave] {
        for _ in 0..8 {
            round += 1;
            let (mut host, far) = lobby_with_a_relayed_seat(owner.addr, relay.addr).await;
            end_with_pushes_pending(&mut host, far, how, round).await;
            // The host's chat lines are all answered: the owner still serves it.
            for i in 0..40 {
                let answered = host.reply_to(json!(10_000 + i)).await;
                assert_eq!(answered["type"], "ok", "{how:?}: {answered}");
            }
            // Only the host's connection is left on the owner once the relayed session's end has reached it.
            connections_come_to(owner.addr, 1.0, &format!("{how:?}, round {round}")).await;
            drop(host);
            connections_come_to(owner.addr, 0.0, &format!("{how:?}, round {round}, host gone")).await;
        }
    }

    // The relaying node stops (SIGTERM) with relayed sessions open and pushes on their way.
    let mut hosts = Vec::new();
    for _ in 0..4 {
        let (mut host, far) = lobby_with_a_relayed_seat(owner.addr, relay.addr).await;
        for i in 0..40 {
            host.send_text(req::chat(&format!("line {i}")).frame(20_000 + i))
                .await;
        }
        hosts.push((host, far));
    }
    assert!(relay.terminate().await, "the relaying node stops cleanly");
    connections_come_to(owner.addr, hosts.len() as f64, "the relaying node stopped").await;
    let far_ends: Vec<Option<Value>> = {
        let mut ends = Vec::new();
        for (_, far) in &mut hosts {
            ends.push(far.until_closed().await);
        }
        ends
    };
    assert!(far_ends.iter().all(Option::is_some), "{far_ends:?}");
    drop(hosts);
    connections_come_to(owner.addr, 0.0, "every host gone").await;

    // The owner stops (SIGTERM) while it serves relayed sessions with pushes on their way; the relaying node's
    // clients are told and its connections end.
    let relay_log_2 = log_file("ends", "relay-2");
    let relay = cl
        .process_with(SERVER_BINARY, "relay-2", None, &CHATTY, Some(&relay_log_2))
        .await;
    let mut pairs = Vec::new();
    for _ in 0..4 {
        let (mut host, far) = lobby_with_a_relayed_seat(owner.addr, relay.addr).await;
        for i in 0..40 {
            host.send_text(req::chat(&format!("line {i}")).frame(30_000 + i))
                .await;
        }
        pairs.push((host, far));
    }
    assert!(owner.terminate().await, "the owner stops cleanly");
    for (host, far) in &mut pairs {
        // The host's own connection ends too (its chat lines answered or not).
        while host.read().await.is_some() {}
        // The relayed client hears the owner went away (and may resume through any node).
        assert!(far.until_closed().await.is_some());
    }
    drop(pairs);
    connections_come_to(relay.addr, 0.0, "the owner stopped").await;

    let panics = [
        panics_in(&owner_log),
        panics_in(&relay_log),
        panics_in(&relay_log_2),
    ]
    .concat();
    assert!(panics.is_empty(), "a node panicked: {panics:?}");
    relay.kill().await;
    cl.finish().await;
}

/// [`run_refused`](integration_tests::run_refused) of this test's server binary, logging at `trace` (so that a
/// secret printed at any level is seen).
fn run_refused(env: &[(&str, &str)], args: &[&str]) -> (Option<i32>, String) {
    let mut all = vec![("RUST_LOG", "trace")];
    all.extend_from_slice(env);
    integration_tests::run_refused(SERVER_BINARY, &all, args)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_refusal_prints_a_secret() {
    // 31 characters: one short of a cluster secret; 19: short of an admin token.
    let secret = "s3cr3t-cluster-value-31-chars-x";
    let token = "adm1n-t0ken-19chars";
    let database = "sqlite::memory:";
    for (env, args, why) in [
        (
            vec![("CLUSTER_SECRET", secret)],
            vec![],
            "the cluster secret must be at least 32 characters",
        ),
        (
            vec![],
            vec!["--cluster-secret", secret],
            "the cluster secret must be at least 32 characters",
        ),
        (
            vec![],
            vec![&format!("--cluster-secret={secret}")[..]],
            "at least 32 characters",
        ),
        (
            vec![("ADMIN_TOKEN", token)],
            vec![],
            "the admin token must carry at least 128 random bits",
        ),
        (
            vec![],
            vec!["--admin-token", token],
            "the admin token must carry at least 128 random bits",
        ),
    ] {
        let mut env = env.clone();
        env.push(("DATABASE_URL", database));
        let (status, text) = run_refused(&env, &args);
        assert_eq!(status, Some(2), "{text}");
        assert!(text.contains(why), "{text}");
        assert!(
            !text.contains(secret) && !text.contains(token),
            "a secret was printed: {text}"
        );
    }
    // A database URL's password is not printed when the database cannot be reached.
    let password = "pg-password-not-to-print";
    let url = format!("postgres://ann:{password}@127.0.0.1:1/tabletop");
    let (status, text) = run_refused(&[("DATABASE_URL", &url), ("DB_ACQUIRE_TIMEOUT_MS", "300")], &[]);
    assert_ne!(status, Some(0), "{text}");
    assert!(
        !text.contains(password),
        "the database password was printed: {text}"
    );

    // A node whose NATS server cannot be reached says so without the credentials in its URL.
    let Some(cl) = TestCluster::forwarding().await else {
        return;
    };
    let nats_password = "nats-password-not-to-print";
    let nats = format!("nats://ann:{nats_password}@127.0.0.1:1");
    let log = log_file("secrets", "node");
    let node = cl
        .process_with(SERVER_BINARY, "node", None, &[("NATS_URL", &nats)], Some(&log))
        .await;
    let mut logged = String::new();
    for _ in 0..50 {
        logged = std::fs::read_to_string(&log).unwrap();
        if logged.contains("NATS is not reachable") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(logged.contains("NATS is not reachable"), "{logged}");
    assert!(
        !logged.contains(nats_password),
        "the NATS password was printed: {logged}"
    );
    node.kill().await;
    cl.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_with_another_secret_is_refused_before_it_registers_or_claims_anything() {
    let Some(cl) = TestCluster::forwarding().await else {
        return;
    };
    // A node of the cluster, with a table.
    let node = cl.process(SERVER_BINARY, "a", None).await;
    let mut host = Client::hello(node.addr).await;
    let created = host.request(req::create_lobby("quacks", 2, "Ann")).await;
    assert_eq!(created["type"], "seated", "{created}");
    let leases_before = lease_count(&cl).await;

    // A node started with another secret (and the right one, under another node id, for comparison).
    let other_secret = "another-cluster-secret-0123456789abcdef";
    let nats = nats_url();
    let url = cl.db.url().to_string();
    let env = |id: &str, secret: &'static str| {
        vec![
            ("CLUSTER", "true".to_string()),
            ("NODE_ID", cl.id(id)),
            ("NATS_URL", nats.clone()),
            ("CLUSTER_SECRET", secret.to_string()),
            ("DATABASE_URL", url.clone()),
        ]
    };
    let refused = env("intruder", other_secret);
    let refused: Vec<(&str, &str)> = refused.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let (status, text) = run_refused(&refused, &[]);
    assert_ne!(status, Some(0), "{text}");
    assert!(
        text.contains("CLUSTER_SECRET is not the cluster's"),
        "the refusal says why: {text}"
    );
    assert!(!text.contains(other_secret) && !text.contains(SECRET), "{text}");
    let registered: i64 = sqlx::query_scalar("SELECT count(*) FROM nodes WHERE id = $1")
        .bind(cl.id("intruder"))
        .fetch_one(&cl.sql)
        .await
        .unwrap();
    assert_eq!(registered, 0, "the refused node did not register");
    assert_eq!(lease_count(&cl).await, leases_before, "nor claimed anything");

    // The right secret under another id joins (the check is of the secret, not of the first node).
    let second = cl.process(SERVER_BINARY, "b", None).await;
    let mut far = Client::hello(second.addr).await;
    let code = created["code"].as_str().unwrap();
    let joined = far.request(req::join(code, "Bo")).await;
    assert_eq!(joined["type"], "seated", "{joined}");
    drop((host, far));
    second.kill().await;
    node.kill().await;
    cl.finish().await;
}

async fn lease_count(cl: &TestCluster) -> i64 {
    sqlx::query_scalar("SELECT count(*) FROM table_leases")
        .fetch_one(&cl.sql)
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn leave_ends_the_relay_and_the_connection_serves_any_table_again() {
    let Some(cl) = TestCluster::forwarding().await else {
        return;
    };
    let a = cl.process(SERVER_BINARY, "a", None).await;
    let b = cl.process(SERVER_BINARY, "b", None).await;
    let mut on_a = Client::hello(a.addr).await;
    let there = on_a.request(req::create_lobby("quacks", 2, "Ann")).await;
    let there = there["code"].as_str().unwrap().to_string();
    let mut on_b = Client::hello(b.addr).await;
    let here = on_b.request(req::create_lobby("molehills", 3, "Cy")).await;
    let here = here["code"].as_str().unwrap().to_string();

    // Bo, connected to b, joins the table a owns (relayed), then leaves it.
    let mut bo = Client::hello(b.addr).await;
    let joined = bo.request(req::join(&there, "Bo")).await;
    assert_eq!(joined["type"], "seated", "{joined}");
    let left = bo.request(req::leave()).await;
    assert_eq!(left["type"], "ok", "{left}");

    // The same connection joins b's own table: served by b, not answered `moved` by a.
    let joined = bo.request(req::join(&here, "Bo")).await;
    assert_eq!(joined["type"], "seated", "{joined}");
    let left = bo.request(req::leave()).await;
    assert_eq!(left["type"], "ok", "{left}");
    // A lobby it creates is b's (the node it is connected to), not the old owner's.
    let created = bo.request(req::create_lobby("quacks", 2, "Bo")).await;
    assert_eq!(created["type"], "seated", "{created}");
    let code = created["code"].as_str().unwrap();
    assert_eq!(cl.lease(code).await.0, cl.id("b"), "the new lobby is owned by b");
    let left = bo.request(req::leave()).await;
    assert_eq!(left["type"], "ok", "{left}");
    // And a's table can be joined again through b (relayed anew).
    let joined = bo.request(req::join(&there, "Bo")).await;
    assert_eq!(joined["type"], "seated", "{joined}");
    let chat = on_a.request(req::chat("hello Bo")).await;
    assert_eq!(chat["type"], "ok", "{chat}");
    let heard = bo
        .wait_push("chat_message", |m| m["message"]["text"] == "hello Bo")
        .await;
    assert_eq!(heard["code"], json!(there));

    drop((on_a, on_b, bo));
    a.kill().await;
    b.kill().await;
    cl.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn relayed_frames_cannot_be_read_on_nats_and_a_replayed_open_starts_nothing() {
    let Some(cl) = TestCluster::forwarding().await else {
        return;
    };
    let owner = cl.process_with(SERVER_BINARY, "owner", None, &CHATTY, None).await;
    let relay = cl.process_with(SERVER_BINARY, "relay", None, &CHATTY, None).await;
    // Anyone on the NATS network: everything sent to either node's subjects.
    let spy = async_nats::connect(nats_url()).await.unwrap();
    let mut heard = Vec::new();
    for node in ["owner", "relay"] {
        let prefix = server::cluster::forward::node_subject(&cl.id(node));
        heard.push(spy.subscribe(format!("{prefix}.>")).await.unwrap());
    }
    let mut heard = futures_util::stream::select_all(heard);
    spy.flush().await.unwrap();

    let mut host = Client::hello(owner.addr).await;
    let created = host.request(req::create_lobby("quacks", 2, "Ann")).await;
    let code = created["code"].as_str().unwrap().to_string();
    let mut far = Client::hello(relay.addr).await;
    let joined = far.request(req::join(&code, "Bo")).await;
    assert_eq!(joined["type"], "seated", "{joined}");
    let token = joined["seat_token"].as_str().unwrap().to_string();
    let said = far.request(req::chat("words-for-the-table-only")).await;
    assert_eq!(said["type"], "ok", "{said}");
    host.wait_push("chat_message", |m| {
        m["message"]["text"] == "words-for-the-table-only"
    })
    .await;
    // The match starts: the owner relays the far seat's private view.
    let started = host.request(req::start()).await;
    assert_eq!(started["type"], "ok", "{started}");
    far.wait_version(0).await;

    // What crossed NATS until now: the open request and the session's frames (and the links' liveness probes,
    // empty, several a second: not counted).
    let mut messages = Vec::new();
    let mut quiet = tokio::time::Instant::now() + Duration::from_millis(500);
    while let Ok(Some(m)) = tokio::time::timeout_at(quiet, heard.next()).await {
        if !m.subject.ends_with(".ping") {
            messages.push(m);
            quiet = tokio::time::Instant::now() + Duration::from_millis(500);
        }
    }
    let open = messages
        .iter()
        .find(|m| m.subject.ends_with(".open2"))
        .expect("the relay's open request was heard")
        .clone();
    assert!(messages.len() > 3, "{} messages heard", messages.len());
    for m in &messages {
        let text = String::from_utf8_lossy(&m.payload);
        // (The client's address too: the open request is sealed, relay format 2.)
        for secret in [
            &token[..],
            &code[..],
            "words-for-the-table-only",
            "Bo\"",
            "127.0.0.1",
        ] {
            assert!(!text.contains(secret), "`{secret}` crossed NATS readable: {text}");
        }
    }

    // The far seat goes; its session ends. Replaying its open request starts nothing on the owner.
    drop(far);
    connections_come_to(owner.addr, 1.0, "the far seat gone").await;
    let refused = metric(owner.addr, "tabletop_forward_refused_total").await;
    for _ in 0..2 {
        spy.publish_with_reply(
            open.subject.clone(),
            open.reply.clone().unwrap(),
            open.payload.clone(),
        )
        .await
        .unwrap();
    }
    spy.flush().await.unwrap();
    let started = std::time::Instant::now();
    while metric(owner.addr, "tabletop_forward_refused_total").await < refused + 2.0 {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "the replays are refused"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    for _ in 0..10 {
        assert_eq!(
            metric(owner.addr, "tabletop_connections").await,
            1.0,
            "a replayed open started a connection"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    drop(host);
    owner.kill().await;
    relay.kill().await;
    cl.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_replaced_while_paused_stops_serving_when_it_resumes() {
    let Some(cl) = TestCluster::forwarding().await else {
        return;
    };
    let log = log_file("replaced", "old");
    let old = cl
        .process_with(SERVER_BINARY, "one", Some(1500), &[], Some(&log))
        .await;
    let mut host = Client::hello(old.addr).await;
    let created = host.request(req::create_lobby("quacks", 2, "Ann")).await;
    assert_eq!(created["type"], "seated", "{created}");

    // Paused past its lease: a new process under the same id is accepted (the old heartbeat is stale).
    old.signal("STOP");
    tokio::time::sleep(Duration::from_millis(2500)).await;
    let new = cl.process(SERVER_BINARY, "one", Some(1500)).await;
    let (status, _) = http_get(new.addr, "/readyz").await;
    assert_eq!(status, 200);

    // The old one resumes: at its next renewal it finds its id taken, tells its clients `moved` and exits.
    let resumed = std::time::Instant::now();
    old.signal("CONT");
    // (`moved` from the stopped table, normally; `shutting_down` if the server's stop reached the connection
    // first: either says reconnect and resume.)
    let last = host.until_closed().await.expect("a closing push");
    assert_eq!(last["type"], "closing", "{last}");
    assert!(
        ["moved", "shutting_down"].contains(&last["code"].as_str().unwrap()),
        "{last}"
    );
    assert!(
        !old.exited().await,
        "the replaced process exits with a failure status"
    );
    let took = resumed.elapsed();
    assert!(took < Duration::from_secs(5), "noticed within {took:?}");
    let logged = std::fs::read_to_string(&log).unwrap();
    assert!(logged.contains("another process took this node's id"), "{logged}");

    // The new process serves on.
    let mut ann = Client::hello(new.addr).await;
    let created = ann.request(req::create_lobby("quacks", 2, "Ann")).await;
    assert_eq!(created["type"], "seated", "{created}");
    new.kill().await;
    cl.finish().await;
}

/// Resumes `player`'s seat on `addr` and has it act once (whichever legal action is first, if it may act; else
/// the player who may act is found among `players`); returns when an action was accepted. Every refusal on the
/// way is collected, for the test to check.
async fn play_on_through(addr: SocketAddr, code: &str, players: &mut Vec<Player>, refusals: &mut Vec<Value>) {
    let mut resumed = Vec::new();
    for p in players.drain(..) {
        let mut c = Client::hello(addr).await;
        let r = c.request(req::resume(code, &p.token)).await;
        if r["type"] != "resumed" {
            refusals.push(r.clone());
        }
        assert_eq!(r["type"], "resumed", "{r}");
        c.wait_version(0).await;
        resumed.push(Player {
            client: c,
            seat: p.seat,
            token: p.token,
        });
    }
    *players = resumed;
    let (i, action, version) = a_legal_action(players).expect("someone may act");
    let r = players[i].client.request(req::action(&action, version)).await;
    assert_eq!(r["type"], "accepted", "{r}");
}

/// A node killed with SIGKILL hands its tables on before their leases expire (issue 45, point 6): NATS says
/// nobody listens for it any more, and its heartbeat has missed a renewal, so the first survivor asked for one
/// of its tables takes it over at once. With 60 s leases: a seat whose relayed session went through a survivor
/// is told to reconnect at once (its session sees the owner gone, not 60 s of silence), and every seat resumes
/// through a survivor at the first attempt and plays on, well before the lease could have expired.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_node_s_tables_play_on_long_before_their_leases_expire() {
    let Some(cl) = TestCluster::forwarding().await else {
        return;
    };
    let owner = cl.process(SERVER_BINARY, "owner", Some(60_000)).await;
    let survivor = cl.process(SERVER_BINARY, "survivor", Some(60_000)).await;
    // The host on the owner, the second seat relayed to it through the survivor.
    let (code, mut players) = start_match_on(&[owner.addr, survivor.addr], "quacks", json!({}), 2, 2).await;
    assert_eq!(cl.lease(&code).await.0, cl.id("owner"));
    let (_, epoch) = cl.lease(&code).await;

    let killed = std::time::Instant::now();
    owner.kill().await;
    // The relayed seat is told at once to reconnect.
    let last = players[1].client.until_closed().await.expect("a closing push");
    assert_eq!(
        (last["type"].as_str(), last["code"].as_str()),
        (Some("closing"), Some("forward_unavailable")),
        "{last}"
    );
    let told = killed.elapsed();
    assert!(told < Duration::from_secs(10), "told after {told:?}");

    let mut refusals = Vec::new();
    play_on_through(survivor.addr, &code, &mut players, &mut refusals).await;
    let played = killed.elapsed();
    assert!(refusals.is_empty(), "{refusals:?}");
    assert!(
        played < Duration::from_secs(20),
        "play went on {played:?} after the kill (the lease is 60 s)"
    );
    assert_eq!(cl.lease(&code).await, (cl.id("survivor"), epoch + 1));
    assert_eq!(
        metric(survivor.addr, "tabletop_cluster_early_takeovers_total").await,
        1.0
    );
    survivor.kill().await;
    cl.finish().await;
}

/// The tables' clock (Unix ms) at which the owner of `code`'s lease last recorded serving it.
async fn served_ms(cl: &TestCluster, code: &str) -> Option<i64> {
    sqlx::query_scalar("SELECT served_ms FROM table_leases WHERE code = $1")
        .bind(code)
        .fetch_one(&cl.sql)
        .await
        .unwrap()
}

/// [`served_ms`], once the owner has recorded it anew since it was `seen`.
async fn served_anew(cl: &TestCluster, code: &str, seen: Option<i64>) -> i64 {
    loop {
        match served_ms(cl, code).await {
            Some(served) if Some(served) != seen => return served,
            _ => tokio::time::sleep(Duration::from_millis(50)).await,
        }
    }
}

/// What each running correspondence clock of `state` has been charged, of a bank of `bank` ms.
fn charged(state: &Value, bank: u64) -> Vec<u64> {
    let clocks = state["clocks"].as_array().expect("clocks");
    let running: Vec<u64> = clocks
        .iter()
        .filter(|c| c["running"] == true)
        .map(|c| bank - c["left_ms"].as_u64().unwrap())
        .collect();
    assert!(!running.is_empty(), "a clock runs: {state}");
    running
}

/// Time nobody served a table is charged to nobody in cluster mode either (issue 47, point 2). The owner of a
/// correspondence table (Quacks, both seats brewing on their own clocks) and of a live one (a 20 s turn timer) is
/// killed with SIGKILL, and nobody asks for either table for 4 s; then a survivor takes both over. The running
/// clocks are charged the time the owner served (from the start to its last renewal before the kill, at most a
/// renewal period before it) and no more: not the 4 s nobody served them; the turn timer's deadline moved by at
/// least those 4 s, so it does not fire early. The survivor is killed in turn before anyone moves, and a third
/// node that takes the table over 4 s later keeps the first credit (stored with the table) and adds the second.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_node_s_tables_are_not_charged_the_time_nobody_served_them() {
    const HOUR: u64 = 3_600_000;
    const UNSERVED: Duration = Duration::from_secs(4);
    let Some(cl) = TestCluster::forwarding().await else {
        return;
    };
    let owner = cl.process(SERVER_BINARY, "owner", Some(60_000)).await;
    let survivor = cl.process(SERVER_BINARY, "survivor", Some(60_000)).await;
    let third = cl.process(SERVER_BINARY, "third", Some(60_000)).await;
    let pace = protocol::Pace::Correspondence {
        move_ms: 2 * HOUR,
        bank_cap_ms: 5 * HOUR,
        stall: protocol::StallPolicy::Bot,
    };
    let before_start = Instant::now();
    let create = req::create_lobby("quacks", 2, "Ann");
    let (slow, slow_players, _) = start_for_two(owner.addr, create.clone().pace(pace)).await;
    // A renewal recorded after the start: the owner served the table at least from then to its last renewal.
    let at_start = served_ms(&cl, &slow).await;
    let first_served = served_anew(&cl, &slow, at_start).await;
    let (live, live_players, first) = start_for_two(owner.addr, create.turn_timer_ms(20_000)).await;
    let deadline = first["turn_deadline"].as_u64().expect("a turn timer runs");
    tokio::time::sleep(Duration::from_millis(2500)).await;
    let last_served = served_anew(&cl, &slow, Some(first_served)).await;
    served_anew(&cl, &live, None).await;

    let killed = Instant::now();
    owner.kill().await;
    tokio::time::sleep(UNSERVED).await;

    // The correspondence table: each running clock is charged the time the owner served it, not the 4 s after.
    let taken = Instant::now();
    let mut c = resume_when_taken_over(survivor.addr, &slow, &slow_players[0].token).await;
    let state = c.wait_push("state", |_| true).await;
    assert_eq!(state["version"], 0, "nothing was played: {state}");
    let served = (killed - before_start).as_millis() as u64;
    for charged in charged(&state, 2 * HOUR) {
        assert!(
            charged <= served + 1000,
            "charged {charged} ms, but the owner served the table {served} ms and nobody the {UNSERVED:?} after: \
             {state}"
        );
        assert!(
            charged as i64 + 200 >= last_served - first_served,
            "charged {charged} ms, less than the owner served ({first_served} to {last_served}): {state}"
        );
    }

    // The live table: the turn timer's deadline moved by at least the time nobody served the table.
    let mut c = resume_when_taken_over(survivor.addr, &live, &live_players[0].token).await;
    let state = c.wait_push("state", |_| true).await;
    assert_eq!(state["version"], 0, "nothing was played: {state}");
    let moved = state["turn_deadline"].as_u64().expect("a turn timer runs");
    assert!(
        moved >= deadline + UNSERVED.as_millis() as u64,
        "the deadline {deadline} moved only to {moved}: {state}"
    );

    // A second takeover before anyone moved: the survivor (once it has renewed) is killed, and 4 s later the third
    // node takes the correspondence table over. Neither gap is charged.
    served_anew(&cl, &slow, Some(last_served)).await;
    let killed_again = Instant::now();
    survivor.kill().await;
    tokio::time::sleep(UNSERVED).await;
    let mut c = resume_when_taken_over(third.addr, &slow, &slow_players[1].token).await;
    let state = c.wait_push("state", |_| true).await;
    assert_eq!(state["version"], 0, "nothing was played: {state}");
    let served = served + (killed_again - taken).as_millis() as u64;
    for charged in charged(&state, 2 * HOUR) {
        assert!(
            charged <= served + 1000,
            "charged {charged} ms, but the two owners served the table {served} ms and nobody the {UNSERVED:?} \
             after each: {state}"
        );
    }
    third.kill().await;
    cl.finish().await;
}
