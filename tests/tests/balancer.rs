//! The repository's load balancer configuration (`deploy/haproxy.cfg`, issue 27 point 5) in front of three real
//! server nodes in cluster mode on one PostgreSQL database: a lobby created through it plays to its end against
//! bots over one WebSocket, new connections go round-robin to every node, a node that is stopped (SIGTERM) or
//! hangs (SIGSTOP) fails its `/readyz` and is taken out by the health check, new connections then go to the live
//! nodes only, and a node that runs again is taken back. Behind a trusted proxy (`TRUSTED_PROXIES`), the
//! per-address limits count the client named in `X-Forwarded-For` (an in-process server, no balancer needed).
//!
//! The balancer test needs `TEST_DATABASE_URL` and the `haproxy` binary (Debian's package; `.ci/run` installs
//! it); without them it says so and passes, unless `CI` is set (then it fails).

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
        let addr = free_port();
        let stats = free_port();
        let child = tokio::process::Command::new("haproxy")
            .args(["-db", "-f", CONFIG])
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
