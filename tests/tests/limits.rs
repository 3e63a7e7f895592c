//! Abuse limits (issue 10, point 1), over real WebSockets: connections per IP address, lobbies per IP address,
//! the handshake deadline, the idle timeout, and a client that never reads its socket. Each limit is set low
//! here; every test client connects from 127.0.0.1. (Frame size and message rate: `bad_input.rs`.)

use std::time::Duration;

use futures_util::SinkExt;
use integration_tests::*;
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;

const GAME: &str = "hide_and_eeek";

fn closing_code(last: Option<Value>) -> (Option<String>, Option<String>) {
    let last = last.expect("a closing message before the close");
    (
        last["type"].as_str().map(str::to_string),
        last["code"].as_str().map(str::to_string),
    )
}

fn closing(code: &str) -> (Option<String>, Option<String>) {
    (Some("closing".into()), Some(code.into()))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_per_address_are_capped_with_too_many_connections() {
    let db = TestDb::new("sqlite").await;
    let mut config = test_config();
    config.max_connections_per_ip = 2;
    let server = TestServer::start(&db, config).await;
    let mut first = server.client().await;
    let second = server.client().await;
    // The third is refused before the upgrade: HTTP 503 with the reason.
    let refused = Client::try_connect(server.addr)
        .await
        .expect_err("a third connection from one address is refused");
    assert_eq!(refused.status, 503, "{refused:?}");
    assert_eq!(refused.body["code"], "too_many_connections", "{refused:?}");
    assert!(refused.retry_after.is_some(), "{refused:?}");
    // The others are unaffected; once one leaves, there is room again.
    assert_eq!(first.request(req::ping()).await["type"], "pong");
    drop(second);
    let mut admitted = false;
    for _ in 0..200 {
        // The server frees the place when it notices the close: retry until it has.
        if let Ok(mut c) = Client::try_connect(server.addr).await {
            c.send_text(req::hello().frame(1)).await;
            if c.read().await.is_some_and(|m| m["type"] == "welcome") {
                admitted = true;
                break;
            }
        }
        tokio::task::yield_now().await;
    }
    assert!(admitted, "the place of a closed connection was never given back");
    server.stop().await;
    db.drop_db().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lobbies_per_address_are_capped_with_create_limited() {
    let db = TestDb::new("sqlite").await;
    let mut config = test_config();
    config.max_lobbies_per_ip = 2;
    config.lobby_window_secs = 3600;
    let server = TestServer::start(&db, config).await;
    let create = req::create_lobby(GAME, 2, "Ann");
    let mut ann = server.client().await;
    for _ in 0..2 {
        assert_eq!(ann.request(create.clone()).await["type"], "seated");
        assert_eq!(ann.request(req::leave()).await["type"], "ok");
    }
    let refused = ann.request(create.clone()).await;
    assert_eq!(
        (refused["type"].as_str(), refused["code"].as_str()),
        (Some("error"), Some("create_limited")),
        "{refused}"
    );
    // Another connection from the same address counts against the same allowance.
    let mut bob = server.client().await;
    assert_eq!(bob.request(create).await["code"], "create_limited");
    // The connection stays usable: joining someone else's lobby is not limited.
    assert_eq!(ann.request(req::ping()).await["type"], "pong");
    server.stop().await;
    db.drop_db().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_hello_in_time_is_closed_with_handshake_timeout() {
    let db = TestDb::new("sqlite").await;
    let mut config = test_config();
    config.handshake_timeout_secs = 1;
    let server = TestServer::start(&db, config).await;
    let mut silent = Client::connect(server.addr).await;
    assert_eq!(
        closing_code(silent.until_closed().await),
        closing("handshake_timeout")
    );
    // Requests other than hello do not count as the handshake.
    let mut chatty = Client::connect(server.addr).await;
    let refused = chatty.request(req::spectate("AAAAAA")).await;
    assert_eq!(refused["code"], "handshake_required");
    assert_eq!(
        closing_code(chatty.until_closed().await),
        closing("handshake_timeout")
    );
    server.stop().await;
    db.drop_db().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_silent_connection_is_closed_with_idle_timeout() {
    let db = TestDb::new("sqlite").await;
    let mut config = test_config();
    config.idle_timeout_secs = 1;
    let server = TestServer::start(&db, config).await;
    let mut idle = server.client().await;
    assert_eq!(closing_code(idle.until_closed().await), closing("idle_timeout"));
    server.stop().await;
    db.drop_db().await;
}

/// A client that never reads its socket, watching a match, while it floods the server with requests: the
/// server stops reading from it once its replies cannot be written, disconnects it after the write timeout,
/// and the watched match and another match play on to their ends meanwhile.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_never_reads_is_disconnected_and_does_not_slow_other_matches() {
    let db = TestDb::new("sqlite").await;
    let mut config = test_config();
    config.outbox_size = 8;
    config.write_timeout_secs = 1;
    let server = TestServer::start(&db, config).await;
    let time = Time::Manual(server.clock.clone());
    let (code_a, mut match_a) = start_match(server.addr, GAME, json!({"target": 5}), 3, 3).await;
    let (_, mut match_b) = start_match(server.addr, GAME, json!({"target": 5}), 3, 3).await;

    // A raw WebSocket over a socket with a tiny receive buffer, so that it fills at once.
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(2048).unwrap();
    let tcp = socket.connect(server.addr).await.unwrap();
    let (mut ws, _) = tokio_tungstenite::client_async(format!("ws://{}/ws", server.addr), tcp)
        .await
        .expect("WebSocket handshake");
    for (id, request) in [(0, req::hello()), (1, req::spectate(&code_a))] {
        ws.send(Message::Text(request.frame(id).into())).await.unwrap();
    }
    // From now on it only writes: pings as fast as the socket takes them, until the server hangs up.
    let flood = tokio::spawn(async move {
        let ping = req::ping().frame(99);
        let mut sent = 0u64;
        loop {
            if ws.send(Message::Text(ping.clone().into())).await.is_err() {
                return sent;
            }
            sent += 1;
        }
    });

    // Both matches play to their ends while the slow client is stuck.
    let a = play(&mut match_a, &time, 1, 10_000).await;
    let b = play(&mut match_b, &time, 2, 10_000).await;
    assert_eq!(a.last_state["status"]["kind"], "over");
    assert_eq!(b.last_state["status"]["kind"], "over");

    let sent = tokio::time::timeout(TIMEOUT, flood)
        .await
        .expect("the server disconnects the client that does not read")
        .unwrap();
    assert!(sent > 0);
    // Only the six players are still connected.
    let mut connections = None;
    for _ in 0..200 {
        let (_, body) = http_get(server.addr, "/metrics").await;
        let n = body
            .lines()
            .find_map(|l| l.strip_prefix("tabletop_connections "))
            .map(|v| v.trim().parse::<f64>().unwrap());
        connections = n;
        if n == Some(6.0) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(connections, Some(6.0));
    server.stop().await;
    db.drop_db().await;
}
