//! Strangers before the WebSocket upgrade (issue 42, points 2 and 8), against the real binary: the request-head
//! timeout (silent sockets, header trickles, idle kept-alive connections), the open-file limit raised at start,
//! the cap on connections not yet upgraded (1,100 silent sockets do not lock out a health check or a player),
//! WebSockets past the cap refused at once with 503, and where `/metrics` is served.

use std::{
    net::SocketAddr,
    time::{Duration, Instant},
};

use integration_tests::*;
use serde_json::json;
use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::TcpStream,
};

const BINARY: &str = env!("CARGO_BIN_EXE_server-under-test");
const GAME: &str = "hide_and_eeek";

/// A log file in the temporary folder, unique to this test run.
fn log_path(name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("before-upgrade-{name}-{}.log", std::process::id()))
}

/// Reads until the server closes the socket (end of stream or a reset); `None` if it is still open after `wait`.
/// Anything the server sends first is skipped.
async fn closed_within(stream: &mut TcpStream, wait: Duration) -> Option<Duration> {
    let start = Instant::now();
    let mut buf = [0u8; 1024];
    tokio::time::timeout(wait, async {
        loop {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => return start.elapsed(),
                Ok(_) => {}
            }
        }
    })
    .await
    .ok()
}

/// A GET with a bounded wait: `None` when no complete answer came within `wait`.
async fn get_within(addr: SocketAddr, path: &str, wait: Duration) -> Option<(u16, String)> {
    tokio::time::timeout(wait, http_get(addr, path)).await.ok()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn silent_trickling_and_idle_connections_are_closed_after_the_header_timeout() {
    let db = TestDb::new("sqlite").await;
    let server = ServerProcess::start(BINARY, &db, &[("HEADER_TIMEOUT_SECS", "1")]).await;
    let addr = server.addr;
    // Timeout 1 s; the slack covers a loaded machine.
    let wait = Duration::from_secs(5);
    let silent = tokio::spawn(async move {
        let mut silent = TcpStream::connect(addr).await.unwrap();
        closed_within(&mut silent, wait).await
    });
    let trickle = tokio::spawn(async move {
        // A header line, then one byte every 100 ms: never a complete head.
        let mut trickle = TcpStream::connect(addr).await.unwrap();
        trickle
            .write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
            .await
            .unwrap();
        let start = Instant::now();
        let mut buf = [0u8; 1024];
        while start.elapsed() < wait {
            tokio::select! {
                read = trickle.read(&mut buf) => match read {
                    Ok(0) | Err(_) => return Some(start.elapsed()),
                    Ok(_) => {}
                },
                () = tokio::time::sleep(Duration::from_millis(100)) => {
                    if trickle.write_all(b"x").await.is_err() {
                        return Some(start.elapsed());
                    }
                }
            }
        }
        None
    });
    let idle = tokio::spawn(async move {
        // One complete request on a kept-alive connection, then nothing.
        let mut idle = TcpStream::connect(addr).await.unwrap();
        idle.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            .await
            .unwrap();
        let mut answer = Vec::new();
        let mut buf = [0u8; 1024];
        while !answer.ends_with(b"ok") {
            let n = tokio::time::timeout(wait, idle.read(&mut buf))
                .await
                .unwrap()
                .unwrap();
            assert!(n > 0, "closed before answering");
            answer.extend_from_slice(&buf[..n]);
        }
        assert!(answer.starts_with(b"HTTP/1.1 200"));
        closed_within(&mut idle, wait).await
    });
    for (what, task) in [
        ("a silent socket", silent),
        ("a header trickle", trickle),
        ("an idle kept-alive connection", idle),
    ] {
        let closed = task.await.unwrap();
        let after = closed.unwrap_or_else(|| panic!("{what} was still open after {wait:?}"));
        assert!(
            after >= Duration::from_millis(900),
            "{what} was closed after {after:?}, before the timeout"
        );
    }
    // A prompt client is served as before.
    assert_eq!(http_get(addr, "/healthz").await, (200, "ok".to_string()));
    assert!(server.terminate().await);
    db.drop_db().await;
}

/// The hard open-file limit of this process, and its soft limit raised to it (this test process holds a socket
/// per silent connection it opens).
fn raise_own_open_file_limit() -> u64 {
    use nix::sys::resource::{Resource, getrlimit, setrlimit};
    let (_, hard) = getrlimit(Resource::RLIMIT_NOFILE).unwrap();
    setrlimit(Resource::RLIMIT_NOFILE, hard, hard).unwrap();
    hard
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_soft_open_file_limit_is_raised_to_the_hard_limit_and_logged() {
    let hard = raise_own_open_file_limit();
    let db = TestDb::new("sqlite").await;
    let log = log_path("rlimit");
    let soft = hard.min(1024);
    let server = ServerProcess::start_logging_with_open_files(BINARY, &db, &[], "info", &log, soft).await;
    let text = std::fs::read_to_string(&log).unwrap();
    let line = text
        .lines()
        .find(|l| l.contains("open-file limit (RLIMIT_NOFILE)"))
        .unwrap_or_else(|| panic!("no open-file limit line in\n{text}"));
    let field = |name: &str| -> u64 {
        line.split_whitespace()
            .find_map(|w| w.strip_prefix(&format!("{name}=")))
            .unwrap_or_else(|| panic!("no {name} in {line}"))
            .parse()
            .unwrap()
    };
    assert_eq!(
        (field("was"), field("soft"), field("hard")),
        (soft, hard, hard),
        "{line}"
    );
    assert!(server.terminate().await);
    db.drop_db().await;
    let _ = std::fs::remove_file(log);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn health_checks_and_new_players_get_in_past_1100_silent_sockets() {
    let hard = raise_own_open_file_limit();
    assert!(
        hard >= 2048,
        "this test opens 1,100 sockets: it needs a hard open-file limit of 2048 or more"
    );
    let db = TestDb::new("sqlite").await;
    let log = log_path("silent");
    // Started as on a machine whose soft limit is 1024; silent sockets are not timed out during the test.
    let env = [
        ("HEADER_TIMEOUT_SECS", "600"),
        ("BOT_DELAY_MS", "0"),
        ("RATE_LIMIT_BURST", "1000000"),
    ];
    let server = ServerProcess::start_logging_with_open_files(BINARY, &db, &env, "info", &log, 1024).await;
    let addr = server.addr;
    let mut silent = Vec::new();
    for _ in 0..1100 {
        let socket = tokio::time::timeout(Duration::from_secs(5), TcpStream::connect(addr))
            .await
            .expect("a connection is accepted or queued")
            .unwrap();
        silent.push(socket);
    }
    // Health checks answer promptly, and a new player connects and plays.
    let wait = Duration::from_secs(5);
    assert_eq!(
        get_within(addr, "/healthz", wait).await,
        Some((200, "ok".into())),
        "/healthz"
    );
    assert_eq!(
        get_within(addr, "/readyz", wait).await,
        Some((200, "ready".into())),
        "/readyz"
    );
    let (_, mut players) = tokio::time::timeout(
        Duration::from_secs(20),
        start_match(addr, GAME, json!({"target": 4, "claim_window_ms": 1000}), 2, 2),
    )
    .await
    .expect("a new match starts");
    let played = play(&mut players, &Time::Real, 42, 4).await;
    assert!(
        !played.acknowledged.is_empty(),
        "the new players' actions are acknowledged"
    );
    // The oldest silent sockets made room (at most --max-http-connections, 1024, are held).
    assert!(
        closed_within(&mut silent[0], Duration::from_secs(5))
            .await
            .is_some(),
        "the oldest silent socket was not closed to make room"
    );
    drop(silent);
    drop(players);
    assert!(server.terminate().await);
    db.drop_db().await;
    let _ = std::fs::remove_file(log);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn past_the_http_connection_cap_the_oldest_silent_socket_makes_room() {
    let db = TestDb::new("sqlite").await;
    let env = [("HEADER_TIMEOUT_SECS", "600"), ("MAX_HTTP_CONNECTIONS", "20")];
    let server = ServerProcess::start(BINARY, &db, &env).await;
    let addr = server.addr;
    let mut silent = Vec::new();
    for _ in 0..40 {
        silent.push(TcpStream::connect(addr).await.unwrap());
    }
    // The first 20 are closed to make room for the next 20, oldest first.
    for (i, socket) in silent[..20].iter_mut().enumerate() {
        assert!(
            closed_within(socket, Duration::from_secs(5)).await.is_some(),
            "silent socket {i} was not closed"
        );
    }
    // A health check gets in (and closes the oldest one left, the 21st).
    assert_eq!(
        get_within(addr, "/healthz", Duration::from_secs(5)).await,
        Some((200, "ok".into()))
    );
    assert!(
        closed_within(&mut silent[20], Duration::from_secs(5))
            .await
            .is_some()
    );
    // The newest are still held.
    let mut buf = [0u8; 1];
    let newest = &silent[39];
    assert!(
        matches!(newest.try_read(&mut buf), Err(e) if e.kind() == std::io::ErrorKind::WouldBlock),
        "the newest silent socket is still open"
    );
    drop(silent);
    assert!(server.terminate().await);
    db.drop_db().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn at_the_websocket_cap_health_checks_answer_and_new_websockets_get_503() {
    let db = TestDb::new("sqlite").await;
    let server = ServerProcess::start(BINARY, &db, &[("MAX_CONNECTIONS", "2")]).await;
    let addr = server.addr;
    let mut first = Client::hello(addr).await;
    let _second = Client::hello(addr).await;
    let refused = Client::try_connect(addr)
        .await
        .expect_err("a WebSocket past the cap is not upgraded");
    assert_eq!(refused.status, 503, "{refused:?}");
    assert_eq!(refused.body["code"], "too_many_connections", "{refused:?}");
    assert!(
        refused.body["message"]
            .as_str()
            .unwrap()
            .contains("as many connections"),
        "{refused:?}"
    );
    assert_eq!(refused.retry_after.as_deref(), Some("5"), "{refused:?}");
    let wait = Duration::from_secs(5);
    assert_eq!(get_within(addr, "/healthz", wait).await, Some((200, "ok".into())));
    assert_eq!(
        get_within(addr, "/readyz", wait).await,
        Some((200, "ready".into()))
    );
    assert_eq!(first.request(req::ping()).await["type"], "pong");
    drop(first);
    assert!(server.terminate().await);
    db.drop_db().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_on_a_public_address_are_warned_about_or_served_on_their_own() {
    let db = TestDb::new("sqlite").await;
    // On every interface, with /metrics there: a warning at start.
    let log = log_path("metrics-public");
    let public = ServerProcess::start_logging(BINARY, &db, &[("BIND", "0.0.0.0:0")], "info", &log).await;
    // Once it answers, everything it logs at start has been logged.
    let (status, body) = http_get(public.addr, "/metrics").await;
    assert_eq!(status, 200);
    assert!(body.contains("tabletop_"), "{body}");
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(
        text.lines()
            .any(|l| l.contains("WARN") && l.contains("/metrics is served on a public address")),
        "no warning in\n{text}"
    );
    assert!(public.terminate().await);

    // --metrics-bind: /metrics there only, and no warning.
    let log = log_path("metrics-bind");
    let env = [("BIND", "0.0.0.0:0"), ("METRICS_BIND", "127.0.0.1:0")];
    let split = ServerProcess::start_logging(BINARY, &db, &env, "info", &log).await;
    assert_eq!(http_get(split.addr, "/healthz").await.0, 200);
    let text = std::fs::read_to_string(&log).unwrap();
    let line = text
        .lines()
        .find(|l| l.contains("metrics at /metrics on their own address"))
        .unwrap_or_else(|| panic!("no metrics address in\n{text}"));
    let metrics_addr: SocketAddr = line
        .split_whitespace()
        .find_map(|w| w.strip_prefix("addr="))
        .unwrap()
        .parse()
        .unwrap();
    assert!(!text.contains("/metrics is served on a public address"), "{text}");
    let (status, body) = http_get(metrics_addr, "/metrics").await;
    assert_eq!(status, 200);
    assert!(body.contains("tabletop_"), "{body}");
    assert_eq!(
        http_get(split.addr, "/metrics").await.0,
        404,
        "not on the public address"
    );
    assert_eq!(
        http_get(metrics_addr, "/healthz").await.0,
        404,
        "only /metrics there"
    );
    assert!(split.terminate().await);
    db.drop_db().await;
    let _ = std::fs::remove_file(log_path("metrics-public"));
    let _ = std::fs::remove_file(log);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ipv6_clients_of_one_64_share_the_per_address_connection_cap() {
    let db = TestDb::new("sqlite").await;
    // Clients behind a balancer on this machine: the per-address cap counts the forwarded address.
    let env = [("MAX_CONNECTIONS_PER_IP", "1"), ("TRUSTED_PROXIES", "127.0.0.1")];
    let server = ServerProcess::start(BINARY, &db, &env).await;
    let addr = server.addr;
    let from = async move |ip: &'static str| {
        Client::try_connect_with_headers(addr, &[("x-forwarded-for", ip)]).await
    };
    let _first = from("2001:db8:0:1::1").await.expect("the first of its /64");
    let refused = from("2001:db8:0:1:ffff:ffff:ffff:2")
        .await
        .expect_err("another address of the same /64 is over the cap");
    assert_eq!(refused.status, 503, "{refused:?}");
    assert_eq!(refused.body["code"], "too_many_connections", "{refused:?}");
    let _other = from("2001:db8:0:2::1")
        .await
        .expect("the next /64 is another client");
    // IPv4 addresses are each their own.
    let _v4 = from("192.0.2.1").await.expect("an IPv4 client");
    let _v4_next = from("192.0.2.2").await.expect("the next IPv4 address");
    assert!(server.terminate().await);
    db.drop_db().await;
}
