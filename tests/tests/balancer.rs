//! The repository's load balancer configuration (`deploy/haproxy.cfg`, issue 27 point 5) in front of three real
//! server nodes in cluster mode on one PostgreSQL database: a lobby created through it plays to its end against
//! bots over one WebSocket, new connections go round-robin to every node, a node that is stopped (SIGTERM) or
//! hangs (SIGSTOP) fails its `/readyz` and is taken out by the health check, new connections then go to the live
//! nodes only, and a node that runs again is taken back. Behind a trusted proxy (`TRUSTED_PROXIES`), the
//! per-address limits count the client named in `X-Forwarded-For` (an in-process server, no balancer needed).
//! The per-address limits hold for the cluster as a whole (issue 45, point 8): WebSockets counted by the
//! balancer, lobby creations in the database; a connection relayed to a table's owner takes no place of its
//! address there (in-process nodes).
//!
//! The balancer tests need `TEST_DATABASE_URL` and the `haproxy` binary (Debian's package; `.ci/run` installs
//! it), the relaying one NATS (`TEST_NATS_URL`); without them they say so and pass, unless `CI` is set (then
//! they fail).

use std::{
    collections::BTreeSet,
    net::SocketAddr,
    process::Stdio,
    time::{Duration, Instant},
};

use integration_tests::{cluster::*, *};
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const GAME: &str = "hide_and_eeek";
const BINARY: &str = env!("CARGO_BIN_EXE_server-under-test");
const CONFIG: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../deploy/haproxy.cfg");

/// Whether `haproxy` can be run; in CI its absence fails the test.
fn haproxy_present() -> bool {
    let found = std::process::Command::new("haproxy")
        .arg("-v")
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !found {
        assert!(
            std::env::var("CI").is_err(),
            "the balancer test needs haproxy (apt-get install haproxy; .ci/run installs it)"
        );
        eprintln!("skipped: haproxy is not installed");
    }
    found
}

/// A free port on 127.0.0.1 (HAProxy cannot bind port 0 and report it): bound, read, released.
fn free_port() -> SocketAddr {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap()
}

/// HAProxy running `deploy/haproxy.cfg` in the foreground, killed when dropped.
struct Balancer {
    addr: SocketAddr,
    stats: SocketAddr,
    _child: tokio::process::Child,
}

impl Balancer {
    async fn start(nodes: [SocketAddr; 3]) -> Balancer {
        Balancer::start_with(nodes, &[]).await
    }

    /// [`Balancer::start`] with more environment (e.g. `MAX_CONNECTIONS_PER_IP`).
    async fn start_with(nodes: [SocketAddr; 3], extra_env: &[(&str, &str)]) -> Balancer {
        let addr = free_port();
        let stats = free_port();
        let child = tokio::process::Command::new("haproxy")
            .args(["-db", "-f", CONFIG])
            .envs(extra_env.iter().copied())
            .env("BALANCER_BIND", addr.to_string())
            .env("STATS_BIND", stats.to_string())
            .env("NODE1_ADDR", nodes[0].to_string())
            .env("NODE2_ADDR", nodes[1].to_string())
            .env("NODE3_ADDR", nodes[2].to_string())
            .stdout(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("haproxy starts");
        let balancer = Balancer {
            addr,
            stats,
            _child: child,
        };
        // Serving once every node has passed its health check.
        balancer
            .wait_for_states(&[("node1", "UP"), ("node2", "UP"), ("node3", "UP")])
            .await;
        balancer
    }

    /// Each node's state as HAProxy's statistics list it (`UP`, `DOWN`, ...), by server name.
    async fn states(&self) -> Option<Vec<(String, String)>> {
        let (status, csv) = get(self.stats, "/stats;csv", Duration::from_secs(2)).await?;
        assert_eq!(status, 200, "{csv}");
        let mut lines = csv.lines();
        let header: Vec<&str> = lines.next()?.trim_start_matches("# ").split(',').collect();
        let column = |name: &str| header.iter().position(|c| *c == name).unwrap();
        let (proxy, server, state) = (column("pxname"), column("svname"), column("status"));
        Some(
            lines
                .map(|l| l.split(',').collect::<Vec<_>>())
                .filter(|f| f.len() > state && f[proxy] == "nodes" && f[server].starts_with("node"))
                .map(|f| (f[server].to_string(), f[state].to_string()))
                .collect(),
        )
    }

    /// Waits (at most 10 s) until each named node is in the given state.
    async fn wait_for_states(&self, want: &[(&str, &str)]) {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let states = self.states().await;
            let ok = states.as_ref().is_some_and(|s| {
                want.iter()
                    .all(|(node, state)| s.iter().any(|(n, st)| n == node && st == state))
            });
            if ok {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "the balancer's nodes are {states:?}, not {want:?}"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

/// A plain HTTP GET with a deadline: the status and body, or `None` when the connection is refused or nothing
/// answers in time.
async fn get(addr: SocketAddr, path: &str, within: Duration) -> Option<(u16, String)> {
    let exchange = async {
        let mut stream = tokio::net::TcpStream::connect(addr).await.ok()?;
        let request = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
        stream.write_all(request.as_bytes()).await.ok()?;
        let mut response = Vec::new();
        stream.read_to_end(&mut response).await.ok()?;
        let response = String::from_utf8(response).ok()?;
        let status = response.get(9..12)?.parse().ok()?;
        let (head, body) = response.split_once("\r\n\r\n")?;
        let chunked = head.to_ascii_lowercase().contains("transfer-encoding: chunked");
        Some((status, if chunked { dechunk(body)? } else { body.to_string() }))
    };
    tokio::time::timeout(within, exchange).await.ok().flatten()
}

/// The body of a chunked HTTP answer.
fn dechunk(mut rest: &str) -> Option<String> {
    let mut out = String::new();
    loop {
        let (size, tail) = rest.split_once("\r\n")?;
        let n = usize::from_str_radix(size.trim(), 16).ok()?;
        if n == 0 {
            return Some(out);
        }
        out.push_str(tail.get(..n)?);
        rest = tail.get(n + 2..)?;
    }
}

/// Opens a lobby over a new connection through the balancer; returns which node owns it (so which node the
/// balancer chose).
async fn lobby_owner(cl: &TestCluster, balancer: SocketAddr) -> String {
    let mut c = Client::hello(balancer).await;
    let created = c.request(req::create_lobby(GAME, 2, "Host")).await;
    assert_eq!(created["type"], "seated", "{created}");
    cl.lease(created["code"].as_str().unwrap()).await.0
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn haproxy_spreads_clients_over_the_nodes_and_takes_a_stopped_or_hung_node_out() {
    if !haproxy_present() {
        return;
    }
    let Some(cl) = TestCluster::new().await else {
        return;
    };
    let n1 = cl.process(BINARY, "node-1", None).await;
    let n2 = cl.process(BINARY, "node-2", None).await;
    let n3 = cl.process(BINARY, "node-3", None).await;
    let balancer = Balancer::start([n1.addr, n2.addr, n3.addr]).await;

    // A lobby created through the balancer plays to its end against two bots, over one WebSocket.
    let (code, mut players) = start_match(balancer.addr, GAME, json!({"target": 5}), 3, 1).await;
    let played = play(&mut players, &Time::Real, 51, 10_000).await;
    assert_eq!(
        played.last_state["status"]["kind"], "over",
        "{}",
        played.last_state
    );
    assert_eq!(
        players[0]
            .client
            .received
            .iter()
            .filter(|f| f["type"] == "welcome")
            .count(),
        1,
        "one connection"
    );
    let last = played.last_state["version"].as_u64().unwrap();
    cl.assert_log_holds(&code, last, &played.acknowledged).await;

    // Round robin, no stickiness: six new connections reach all three nodes.
    let mut owners = BTreeSet::new();
    for _ in 0..6 {
        owners.insert(lobby_owner(&cl, balancer.addr).await);
    }
    assert_eq!(
        owners,
        BTreeSet::from([cl.id("node-1"), cl.id("node-2"), cl.id("node-3")])
    );

    // Node 3 goes down (SIGTERM): its /readyz fails at once (within a second), and the health check takes it
    // out.
    n3.signal("TERM");
    let deadline = Instant::now() + Duration::from_secs(1);
    while get(n3.addr, "/readyz", Duration::from_millis(500))
        .await
        .is_some_and(|(status, _)| status == 200)
    {
        assert!(Instant::now() < deadline, "a node going down is still ready");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(n3.exited().await, "node 3 exits cleanly");
    balancer.wait_for_states(&[("node3", "DOWN")]).await;

    // Node 2 hangs (SIGSTOP): its /readyz does not answer, and the health check takes it out too.
    n2.signal("STOP");
    assert_eq!(get(n2.addr, "/readyz", Duration::from_secs(1)).await, None);
    balancer
        .wait_for_states(&[("node1", "UP"), ("node2", "DOWN"), ("node3", "DOWN")])
        .await;
    // Every new connection goes to the live node.
    for _ in 0..4 {
        assert_eq!(lobby_owner(&cl, balancer.addr).await, cl.id("node-1"));
    }

    // Node 2 runs again: it passes its checks and gets new connections again.
    n2.signal("CONT");
    balancer.wait_for_states(&[("node2", "UP")]).await;
    let mut owners = BTreeSet::new();
    for _ in 0..4 {
        owners.insert(lobby_owner(&cl, balancer.addr).await);
    }
    assert_eq!(owners, BTreeSet::from([cl.id("node-1"), cl.id("node-2")]));

    drop(balancer);
    assert!(n1.terminate().await);
    assert!(n2.terminate().await);
    cl.finish().await;
}

/// What a new connection from 127.0.0.1 (a balancer on this machine) claiming `forwarded_for` is told first:
/// `welcome`, or the error code of the refused upgrade (HTTP 503) or of the `closing` push.
async fn admitted(server: &TestServer, forwarded_for: &str) -> (Option<Client>, String) {
    let headers = [("x-forwarded-for", forwarded_for)];
    let mut c = match Client::try_connect_with_headers(server.addr, &headers).await {
        Ok(c) => c,
        Err(refused) => {
            assert_eq!(refused.status, 503, "{refused:?}");
            return (
                None,
                refused.body["code"].as_str().unwrap_or_default().to_string(),
            );
        }
    };
    c.send_text(req::hello().frame(1)).await;
    let first = c.read().await.expect("an answer");
    let said = match first["type"].as_str() {
        Some("welcome") => "welcome".to_string(),
        _ => first["code"].as_str().unwrap_or_default().to_string(),
    };
    (Some(c), said)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn behind_a_trusted_proxy_the_per_address_limits_count_each_forwarded_client() {
    let db = TestDb::new("sqlite").await;
    let mut config = test_config();
    config.max_connections_per_ip = 1;
    config.trusted_proxies = server::proxy::TrustedProxies::parse("127.0.0.1").unwrap();
    let trusting = TestServer::start(&db, config.clone()).await;
    // Two clients behind the balancer: one connection each.
    let (_ann, said) = admitted(&trusting, "198.51.100.1").await;
    assert_eq!(said, "welcome");
    let (_bob, said) = admitted(&trusting, "198.51.100.2").await;
    assert_eq!(said, "welcome");
    // A second connection of the same client is over its limit, also when it forged an address in front of
    // the one the balancer appended.
    let (_, said) = admitted(&trusting, "198.51.100.1").await;
    assert_eq!(said, "too_many_connections");
    let (_, said) = admitted(&trusting, "203.0.113.9, 198.51.100.2").await;
    assert_eq!(said, "too_many_connections");
    trusting.stop().await;

    // Trusting nobody (the default), the header is ignored: every connection here is 127.0.0.1's.
    config.trusted_proxies = Default::default();
    let plain = TestServer::start(&db, config).await;
    let (_ann, said) = admitted(&plain, "198.51.100.1").await;
    assert_eq!(said, "welcome");
    let (_, said) = admitted(&plain, "198.51.100.2").await;
    assert_eq!(said, "too_many_connections");
    plain.stop().await;
    db.drop_db().await;
}

/// The per-address limits hold for the cluster as a whole, through the balancer (issue 45, point 8). Before, each
/// node counted alone: one address held 3 x 4 WebSockets and made 3 x 3 lobbies here.
///
/// - WebSockets, counted by HAProxy (`deploy/haproxy.cfg`'s stick table, `MAX_CONNECTIONS_PER_IP`): one address
///   holds 4 across the three nodes; the fifth is refused before the upgrade as a node refuses it (HTTP 503,
///   `Retry-After`, `too_many_connections`); once one closes, a new one gets in.
/// - Lobbies, counted in the database (`MAX_LOBBIES_PER_IP`): 3 made on at least two nodes, then the fourth is
///   refused `create_limited`; a creation that made no lobby took no place; the database holds keyed hashes of
///   the address, never the address.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_per_address_limits_hold_for_the_cluster_through_the_balancer() {
    if !haproxy_present() {
        return;
    }
    let Some(cl) = TestCluster::new().await else {
        return;
    };
    let env = [
        ("MAX_CONNECTIONS_PER_IP", "4"),
        ("MAX_LOBBIES_PER_IP", "3"),
        ("TRUSTED_PROXIES", "127.0.0.1"),
    ];
    let n1 = cl.process_with(BINARY, "node-1", None, &env, None).await;
    let n2 = cl.process_with(BINARY, "node-2", None, &env, None).await;
    let n3 = cl.process_with(BINARY, "node-3", None, &env, None).await;
    let nodes = [n1.addr, n2.addr, n3.addr];
    let balancer = Balancer::start_with(nodes, &[("MAX_CONNECTIONS_PER_IP", "4")]).await;

    // Four WebSockets from this address, spread over the nodes by round robin.
    let mut held = Vec::new();
    for _ in 0..4 {
        held.push(Client::hello(balancer.addr).await);
    }
    let mut per_node = Vec::new();
    for node in nodes {
        per_node.push(metric(node, "tabletop_connections").await);
    }
    assert_eq!(per_node.iter().sum::<f64>(), 4.0, "{per_node:?}");
    assert!(
        per_node.iter().filter(|n| **n > 0.0).count() >= 2,
        "on one node only: {per_node:?}"
    );
    // A fifth is refused by the balancer, whichever node it would have reached.
    for _ in 0..3 {
        let refused = Client::try_connect(balancer.addr)
            .await
            .expect_err("a fifth WebSocket from one address is refused");
        assert_eq!(refused.status, 503, "{refused:?}");
        assert_eq!(refused.body["code"], "too_many_connections", "{refused:?}");
        assert_eq!(
            refused.body["message"], "at most 4 connections from one address; close one first",
            "{refused:?}"
        );
        assert_eq!(refused.retry_after.as_deref(), Some("5"), "{refused:?}");
    }
    // One closes: its place is free again (once the balancer has seen the connection end), and only one.
    held.pop().unwrap().close().await;
    let deadline = Instant::now() + Duration::from_secs(5);
    let mut again = loop {
        match Client::try_connect(balancer.addr).await {
            Ok(client) => break client,
            Err(refused) => assert_eq!(refused.status, 503, "{refused:?}"),
        }
        assert!(Instant::now() < deadline, "no place came back after a close");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let welcome = again.request(req::hello()).await;
    assert_eq!(welcome["type"], "welcome", "{welcome}");
    held.push(again);
    assert_eq!(
        Client::try_connect(balancer.addr).await.err().map(|r| r.status),
        Some(503)
    );

    // A creation that makes no lobby (an unknown game) takes no place of the allowance.
    let refused = held[0]
        .request(req::create_lobby("no_such_game", 2, "Host"))
        .await;
    assert_eq!(refused["type"], "error", "{refused}");
    assert_ne!(refused["code"], "create_limited", "{refused}");
    // Three lobbies, over the connections the balancer spread over the nodes.
    let mut owners = BTreeSet::new();
    for c in &mut held[..3] {
        let created = c.request(req::create_lobby(GAME, 2, "Host")).await;
        assert_eq!(created["type"], "seated", "{created}");
        owners.insert(cl.lease(created["code"].as_str().unwrap()).await.0);
    }
    assert!(owners.len() >= 2, "made on one node only: {owners:?}");
    // The fourth is refused, on whichever node (the hosts leave their lobbies first).
    for (i, c) in held.iter_mut().enumerate() {
        if i < 3 {
            let left = c.request(req::leave()).await;
            assert_ne!(left["type"], "error", "{left}");
        }
        let refused = c.request(req::create_lobby(GAME, 2, "Host")).await;
        assert_eq!(refused["code"], "create_limited", "{refused}");
        assert_eq!(
            refused["message"], "at most 3 new lobbies per 600 seconds from one address; try again later",
            "{refused}"
        );
    }
    // The database counts keyed hashes of the address, not the address.
    let keys: Vec<String> = sqlx::query_scalar("SELECT address_key FROM lobby_creations")
        .fetch_all(&cl.sql)
        .await
        .unwrap();
    assert_eq!(keys.len(), 3, "{keys:?}");
    assert!(
        keys.iter()
            .all(|k| k.len() == 64 && k.bytes().all(|b| b.is_ascii_hexdigit()) && *k == keys[0]),
        "{keys:?}"
    );

    drop(held);
    drop(balancer);
    assert!(n1.terminate().await);
    assert!(n2.terminate().await);
    assert!(n3.terminate().await);
    cl.finish().await;
}

/// A connection one node relays to a table's owner takes no place of its address on the owner (issue 45, point
/// 8): the relaying node counted it. Before, it did, and an address at its cap on the relaying node lost places
/// on the owner too. Here the cap is 2 on each node: the host holds one place on the owner, a guest of the same
/// address joins through the other node, and one more direct connection to the owner is still admitted.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_relayed_connection_takes_no_place_of_its_address_on_the_owner() {
    let Some(cl) = TestCluster::forwarding().await else {
        return;
    };
    let node = |name: &str| {
        let mut config = node_config(&cl.id(name), 5_000);
        config.max_connections_per_ip = 2;
        config
    };
    let near = cl.start(node("near")).await;
    let owner = cl.start(node("owner")).await;

    let mut host = Client::hello(owner.addr).await;
    let created = host.request(req::create_lobby(GAME, 2, "Host")).await;
    assert_eq!(created["type"], "seated", "{created}");
    let code = created["code"].as_str().unwrap();
    let mut guest = Client::hello(near.addr).await;
    let joined = guest.request(req::join(code, "Guest")).await;
    assert_eq!(joined["type"], "seated", "{joined}");
    assert_eq!(
        metric(owner.addr, "tabletop_connections").await,
        2.0,
        "the relayed one counts in total"
    );

    // The owner holds the host's connection and the relayed one: one direct place of this address is left.
    let mut third = Client::try_connect(owner.addr)
        .await
        .expect("the relayed connection holds no place of the address on the owner");
    let welcome = third.request(req::hello()).await;
    assert_eq!(welcome["type"], "welcome", "{welcome}");
    let refused = Client::try_connect(owner.addr).await.expect_err("the cap holds");
    assert_eq!(refused.body["code"], "too_many_connections", "{refused:?}");

    drop((host, guest, third));
    near.stop().await;
    owner.stop().await;
    cl.finish().await;
}

/// Nodes counting lobby creations of one address at once cannot both take the last place (issue 45, point 8):
/// of 24 creations raced through two pools (as two nodes), exactly the allowance is counted, and another
/// address's allowance is its own. A creation deletes the rows older than the window, and places older than
/// the window are free again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lobby_creations_raced_from_two_nodes_take_exactly_the_allowance() {
    let Some(cl) = TestCluster::new().await else {
        return;
    };
    let a = server::Store::connect_with(cl.db.url(), test_pool())
        .await
        .unwrap();
    let b = server::Store::connect_with(cl.db.url(), test_pool())
        .await
        .unwrap();
    let window = Duration::from_secs(600);
    let tries: Vec<_> = (0..24)
        .map(|i| {
            let node = if i % 2 == 0 { a.clone() } else { b.clone() };
            tokio::spawn(async move { node.count_lobby_creation("one", 5, window).await.unwrap() })
        })
        .collect();
    let mut counted = 0;
    for t in tries {
        counted += usize::from(t.await.unwrap().is_some());
    }
    assert_eq!(counted, 5);
    assert!(
        a.count_lobby_creation("other", 5, window)
            .await
            .unwrap()
            .is_some()
    );
    let rows = || async {
        sqlx::query_scalar::<_, i64>("SELECT count(*) FROM lobby_creations")
            .fetch_one(&cl.sql)
            .await
            .unwrap()
    };
    assert_eq!(rows().await, 6);

    // A window later: the next creation deletes the old rows, and the address has its allowance again.
    sqlx::query("UPDATE lobby_creations SET created_at = created_at - interval '601 seconds'")
        .execute(&cl.sql)
        .await
        .unwrap();
    let id = b.count_lobby_creation("one", 5, window).await.unwrap();
    assert!(id.is_some());
    assert_eq!(rows().await, 1);
    // A place taken back is free again.
    b.forget_lobby_creation(id.unwrap()).await.unwrap();
    assert_eq!(rows().await, 0);

    a.close().await;
    b.close().await;
    cl.finish().await;
}
