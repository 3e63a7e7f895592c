//! Frames from a hostile stranger (issue 42, points 1 and 3), over real sockets: a ping flood from a client that
//! never reads, pings that would keep a connection open forever, binary frames, frames over the size limit
//! (refused from their header) and sockets holding unfinished frames. Memory is read from the real binary
//! (`VmRSS`); some clients here are hand-made frames over a plain TCP socket with a small receive buffer, so
//! that they can flood without reading and send frame headers alone.

use std::{
    net::SocketAddr,
    time::{Duration, Instant},
};

use integration_tests::*;
use serde_json::{Value, json};
use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::{TcpSocket, TcpStream},
};

const BINARY: &str = env!("CARGO_BIN_EXE_server-under-test");
const MB: u64 = 1024 * 1024;

/// A WebSocket opened by hand over a socket with a small receive buffer (it fills at once when not read).
async fn raw_socket(addr: SocketAddr) -> TcpStream {
    let socket = TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    let mut tcp = socket.connect(addr).await.unwrap();
    tcp.write_all(
        b"GET /ws HTTP/1.1\r\nHost: test\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
          Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
    )
    .await
    .unwrap();
    let mut head = Vec::new();
    while !head.ends_with(b"\r\n\r\n") {
        let mut byte = [0u8; 1];
        let n = tokio::time::timeout(TIMEOUT, tcp.read(&mut byte))
            .await
            .expect("an upgrade answer in time")
            .unwrap();
        assert_eq!(
            n,
            1,
            "closed during the upgrade: {}",
            String::from_utf8_lossy(&head)
        );
        head.push(byte[0]);
    }
    let head = String::from_utf8_lossy(&head);
    assert!(head.starts_with("HTTP/1.1 101"), "{head}");
    tcp
}

/// The header of a masked client frame (FIN set) of `opcode` whose payload is `len` bytes, masked with key 0
/// (the payload then goes as it is).
fn frame_header(opcode: u8, len: usize) -> Vec<u8> {
    let mut out = vec![0x80 | opcode];
    match len {
        0..=125 => out.push(0x80 | len as u8),
        126..=0xFFFF => {
            out.push(0x80 | 126);
            out.extend_from_slice(&(len as u16).to_be_bytes());
        }
        _ => {
            out.push(0x80 | 127);
            out.extend_from_slice(&(len as u64).to_be_bytes());
        }
    }
    out.extend_from_slice(&[0, 0, 0, 0]);
    out
}

fn client_frame(opcode: u8, payload: &[u8]) -> Vec<u8> {
    let mut out = frame_header(opcode, payload.len());
    out.extend_from_slice(payload);
    out
}

const TEXT: u8 = 0x1;
const PING: u8 = 0x9;

/// The server's next frame on a hand-made socket (opcode, payload; server frames are not masked), from the bytes
/// already read (`buf`) and the socket; `None` when the socket ends.
async fn next_frame(tcp: &mut TcpStream, buf: &mut Vec<u8>) -> Option<(u8, Vec<u8>)> {
    loop {
        if buf.len() >= 2 {
            let (len, at) = match buf[1] & 0x7F {
                126 if buf.len() >= 4 => (Some(u16::from_be_bytes([buf[2], buf[3]]) as usize), 4),
                127 if buf.len() >= 10 => (
                    Some(u64::from_be_bytes(buf[2..10].try_into().unwrap()) as usize),
                    10,
                ),
                126 | 127 => (None, 0),
                n => (Some(n as usize), 2),
            };
            if let Some(len) = len
                && buf.len() >= at + len
            {
                let opcode = buf[0] & 0x0F;
                let payload = buf[at..at + len].to_vec();
                buf.drain(..at + len);
                return Some((opcode, payload));
            }
        }
        let mut chunk = [0u8; 4096];
        let n = tokio::time::timeout(TIMEOUT, tcp.read(&mut chunk))
            .await
            .expect("the server answers in time")
            .unwrap_or(0);
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
}

/// The server's frames on a hand-made socket until it closes: its text frames as JSON, and the status of its close
/// frame (`None` if the socket ended without a close frame or the frame had no status).
async fn read_until_close(tcp: &mut TcpStream) -> (Vec<Value>, Option<u16>) {
    let mut texts = Vec::new();
    let mut buf = Vec::new();
    while let Some((opcode, payload)) = next_frame(tcp, &mut buf).await {
        match opcode {
            0x1 => texts.push(serde_json::from_slice(&payload).expect("JSON text frames")),
            0x8 => {
                let status = (payload.len() >= 2).then(|| u16::from_be_bytes([payload[0], payload[1]]));
                return (texts, status);
            }
            _ => {}
        }
    }
    (texts, None)
}

fn last_closing(texts: &[Value]) -> Option<&str> {
    texts
        .iter()
        .rev()
        .find(|m| m["type"] == "closing")
        .and_then(|m| m["code"].as_str())
}

/// Floods ping frames (125-byte payloads) on a socket that never reads, as fast as the server takes them, for
/// `how_long`, then closes it. Returns the bytes written.
async fn ping_flood(mut tcp: TcpStream, how_long: Duration) -> u64 {
    let batch: Vec<u8> = (0..500).flat_map(|_| client_frame(PING, &[7u8; 125])).collect();
    let end = tokio::time::Instant::now() + how_long;
    let mut sent = 0;
    while let Ok(written) = tokio::time::timeout_at(end, tcp.write_all(&batch)).await {
        if written.is_err() {
            break;
        }
        sent += batch.len() as u64;
    }
    sent
}

/// Samples the server's RSS every 100 ms until `done` resolves; returns the highest sample.
async fn peak_rss_while<T>(server: &ServerProcess, done: impl std::future::Future<Output = T>) -> (u64, T) {
    tokio::pin!(done);
    let mut peak = server.rss_bytes();
    let mut tick = tokio::time::interval(Duration::from_millis(100));
    loop {
        tokio::select! {
            out = &mut done => return (peak.max(server.rss_bytes()), out),
            _ = tick.tick() => peak = peak.max(server.rss_bytes()),
        }
    }
}

/// Waits (up to `TIMEOUT`) for the server's RSS to come back under `limit`; returns the last sample.
async fn rss_back_under(server: &ServerProcess, limit: u64) -> u64 {
    let deadline = Instant::now() + TIMEOUT;
    loop {
        let rss = server.rss_bytes();
        if rss < limit || Instant::now() > deadline {
            return rss;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// A client that floods ping frames and never reads, against the real binary with its default limits: the
/// server's memory stays within +64 MB (it grew by 1.5 GB in 13 s before), comes back after the flood, and
/// another match's actions keep being accepted meanwhile. A second flood with the rate limit off shows the
/// outbound bound on its own: the pongs a client does not read are capped by `MAX_OUTBOX_BYTES`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_ping_flood_from_a_client_that_never_reads_costs_bounded_memory() {
    for rate in ["20", "1000000000"] {
        let db = TestDb::new("sqlite").await;
        let server = ServerProcess::start(
            BINARY,
            &db,
            &[("RATE_LIMIT_PER_SEC", rate), ("RATE_LIMIT_BURST", "40")],
        )
        .await;
        let (_, mut players) = start_match(server.addr, "hide_and_eeek", json!({"target": 5}), 2, 2).await;
        let base = server.rss_bytes();

        let mut flooder = raw_socket(server.addr).await;
        let hello = json!({"id": 1, "type": "hello", "protocol": protocol::PROTOCOL_VERSION}).to_string();
        flooder
            .write_all(&client_frame(TEXT, hello.as_bytes()))
            .await
            .unwrap();
        let flood = tokio::spawn(ping_flood(flooder, Duration::from_secs(6)));

        // Meanwhile the match plays on, at most 10 actions a second (within the players' own rate limit); a new
        // match starts when one ends.
        let playing = async {
            let mut accepted = 0;
            let mut slowest = Duration::ZERO;
            let mut pace = tokio::time::interval(Duration::from_millis(100));
            let mut seed = 1;
            while !flood.is_finished() {
                pace.tick().await;
                let sent = Instant::now();
                let played = play(&mut players, &Time::Real, seed, 1).await;
                slowest = slowest.max(sent.elapsed());
                accepted += played.acknowledged.len();
                if played.last_state["status"]["kind"] == "over" {
                    players = start_match(server.addr, "hide_and_eeek", json!({"target": 5}), 2, 2)
                        .await
                        .1;
                    seed += 1;
                }
            }
            (accepted, slowest)
        };
        let (peak, (accepted, slowest)) = peak_rss_while(&server, playing).await;
        let sent = flood.await.unwrap();
        let after = rss_back_under(&server, base + 16 * MB).await;
        eprintln!(
            "rate {rate}/s: flood of {} MB; server RSS {} MB before, peak {} MB, {} MB after; {accepted} actions \
             accepted meanwhile, slowest {slowest:?}",
            sent / MB,
            base / MB,
            peak / MB,
            after / MB
        );
        assert!(sent > 0);
        assert!(
            peak < base + 64 * MB,
            "the flood grew the server from {base} to {peak} bytes"
        );
        assert!(
            after < base + 16 * MB,
            "memory did not come back: {after} bytes, {base} before"
        );
        assert!(
            accepted >= 10,
            "only {accepted} actions accepted during the flood"
        );
        drop(players);
        assert!(server.terminate().await);
        db.drop_db().await;
    }
}

/// Pings (and unsolicited pongs) are not activity: a connection that only pings is closed at the idle timeout,
/// told `idle_timeout`, with close status 1008.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connection_that_only_pings_is_closed_at_the_idle_timeout() {
    let db = TestDb::new("sqlite").await;
    let mut config = test_config();
    config.idle_timeout_secs = 1;
    let server = TestServer::start(&db, config).await;
    let mut c = server.client().await;
    let mut last = None;
    let pinging = async {
        loop {
            c.send_ping(b"still here".to_vec()).await;
            match tokio::time::timeout(Duration::from_millis(200), c.read()).await {
                Ok(Some(m)) => last = Some(m),
                Ok(None) => break,
                Err(_) => {}
            }
        }
    };
    tokio::time::timeout(TIMEOUT, pinging)
        .await
        .expect("closed at the idle timeout, pings or not");
    let last = last.expect("a closing push");
    assert_eq!(
        (last["type"].as_str(), last["code"].as_str()),
        (Some("closing"), Some("idle_timeout")),
        "{last}"
    );
    assert_eq!(c.close_status, Some(Some(1008)));
    server.stop().await;
    db.drop_db().await;
}

/// Every frame takes a token from the connection's rate limit: pings first, then binary frames (answered
/// `rate_limited` when over the rate, before anything else). A binary frame within the rate ends the connection:
/// `closing` with `bad_message`, close status 1003.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pings_and_binary_frames_count_against_the_rate_limit_and_binary_frames_close() {
    let db = TestDb::new("sqlite").await;
    let mut config = test_config();
    config.rate_limit_burst = 5.0;
    config.rate_limit_per_sec = 0.001;
    let server = TestServer::start(&db, config).await;

    // hello and three pings take four tokens; the fifth goes to a request, and the next request is refused.
    let mut c = server.client().await;
    for _ in 0..3 {
        c.send_ping(b"p".to_vec()).await;
    }
    assert_eq!(c.request(req::ping()).await["type"], "pong");
    let r = c.request(req::ping()).await;
    assert_eq!(r["code"], "rate_limited", "{r}");
    // A binary frame over the rate is refused like a request, and the connection stays open.
    c.send_binary(vec![1, 2, 3]).await;
    let r = c.reply_to(Value::Null).await;
    assert_eq!(r["code"], "rate_limited", "{r}");

    // Within the rate, a binary frame closes the connection with a status.
    let mut d = server.client().await;
    d.send_binary(b"{\"type\":\"ping\"}".to_vec()).await;
    let last = d.until_closed().await.expect("a closing push");
    assert_eq!(
        (last["type"].as_str(), last["code"].as_str()),
        (Some("closing"), Some("bad_message")),
        "{last}"
    );
    assert_eq!(d.close_status, Some(Some(1003)));
    server.stop().await;
    db.drop_db().await;
}

/// A frame whose header announces more than `MAX_MESSAGE_BYTES` is refused at once, without waiting for (or
/// buffering) its payload: `closing` with `too_large`, close status 1009. Other endings carry their status too:
/// 1001 when the server shuts down.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_oversized_frame_is_refused_from_its_header_and_closes_with_1009() {
    let db = TestDb::new("sqlite").await;
    let config = test_config();
    let limit = config.max_message_bytes;
    let server = TestServer::start(&db, config).await;
    let mut tcp = raw_socket(server.addr).await;
    // The header alone, of a frame far over the limit (and under the old hard limit of 1 MiB).
    tcp.write_all(&frame_header(TEXT, 512 * 1024)).await.unwrap();
    let (texts, status) = read_until_close(&mut tcp).await;
    assert_eq!(last_closing(&texts), Some("too_large"), "{texts:?}");
    assert_eq!(status, Some(1009));

    // At the limit, a frame is read.
    let mut tcp = raw_socket(server.addr).await;
    let pad = "x".repeat(limit - 40);
    let ping = format!("{{\"id\":7,\"type\":\"ping\",\"pad\":\"{pad}\"}}");
    assert!(ping.len() <= limit);
    tcp.write_all(&client_frame(TEXT, ping.as_bytes())).await.unwrap();
    let (opcode, pong) = next_frame(&mut tcp, &mut Vec::new()).await.expect("a reply");
    let pong: Value = serde_json::from_slice(&pong).unwrap();
    assert_eq!(
        (opcode, pong["re"].clone(), pong["type"].clone()),
        (TEXT, json!(7), json!("pong"))
    );

    // Shutting down: `shutting_down`, then 1001.
    let mut c = server.client().await;
    server.stop().await;
    let last = c.until_closed().await.expect("a closing push");
    assert_eq!(last["code"], "shutting_down");
    assert_eq!(c.close_status, Some(Some(1001)));
    let (texts, status) = read_until_close(&mut tcp).await;
    assert_eq!(last_closing(&texts), Some("shutting_down"), "{texts:?}");
    assert_eq!(status, Some(1001));
    db.drop_db().await;
}

/// 200 sockets each holding an unfinished large frame: one over the limit is refused from its header, so the
/// server holds nothing for it; one at the limit is held, but only up to `MAX_MESSAGE_BYTES` each. (200 unfinished
/// frames of 1 MiB took the server from 21 MB to 254 MB before.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sockets_holding_unfinished_large_frames_cost_at_most_the_message_limit() {
    let db = TestDb::new("sqlite").await;
    let server = ServerProcess::start(BINARY, &db, &[("MAX_CONNECTIONS_PER_IP", "1000")]).await;
    let limit = 16 * 1024;
    let base = server.rss_bytes();
    let mut refused = 0;
    // 200 frames of ~1 MB, each sent but for its last 64 KiB.
    let mut held = Vec::new();
    for _ in 0..200 {
        let mut tcp = raw_socket(server.addr).await;
        let len = 1_000_000;
        let mut bytes = frame_header(TEXT, len);
        bytes.resize(bytes.len() + len - 64 * 1024, b'x');
        // The server may close while this is written.
        if tokio::time::timeout(Duration::from_millis(200), tcp.write_all(&bytes))
            .await
            .is_ok_and(|r| r.is_err())
        {
            refused += 1;
        }
        held.push(tcp);
    }
    let over = server.rss_bytes();
    assert!(over < base + 16 * MB, "1 MB frames: {over} bytes, {base} before");
    for tcp in &mut held {
        let (texts, status) = read_until_close(tcp).await;
        assert_eq!(last_closing(&texts), Some("too_large"), "{texts:?}");
        assert_eq!(status, Some(1009));
    }
    drop(held);
    // 200 frames at the limit, each sent but for its last byte: held, at most the limit each.
    let mut held = Vec::new();
    for _ in 0..200 {
        let mut tcp = raw_socket(server.addr).await;
        let mut bytes = frame_header(TEXT, limit);
        bytes.resize(bytes.len() + limit - 1, b' ');
        tcp.write_all(&bytes).await.unwrap();
        held.push(tcp);
    }
    // The server has read them when the connections are all counted and it answers another one.
    let mut c = Client::hello(server.addr).await;
    assert_eq!(c.request(req::ping()).await["type"], "pong");
    let at = server.rss_bytes();
    eprintln!(
        "RSS {} MB before; {} MB with 200 frames of 1 MB unfinished ({refused} writes refused); {} MB with 200 \
         frames of {limit} bytes unfinished",
        base / MB,
        over / MB,
        at / MB
    );
    assert!(
        at < base + 32 * MB,
        "frames at the limit: {at} bytes, {base} before"
    );
    drop(held);
    assert!(server.terminate().await);
    db.drop_db().await;
}

/// A client that watches a lobby and never reads is closed once what waits for it passes `MAX_OUTBOX_BYTES`: at once,
/// not after the write timeout (set to ten minutes here), and with `OUTBOX_SIZE` out of the way. The players'
/// chat fills its queue; the connection gauge shows when the server let it go.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_does_not_read_is_closed_past_the_outbox_bound_in_bytes() {
    let db = TestDb::new("sqlite").await;
    let mut config = test_config();
    config.max_outbox_bytes = 64 * 1024;
    config.outbox_size = 1_000_000;
    config.write_timeout_secs = 600;
    config.chat_rate_per_sec = 1e9;
    config.chat_burst = 1e9;
    let server = TestServer::start(&db, config).await;
    let (code, mut players) = start_match(server.addr, "hide_and_eeek", json!({"target": 5}), 2, 2).await;

    let mut watcher = raw_socket(server.addr).await;
    for (id, request) in [(1, req::hello()), (2, req::spectate(&code))] {
        watcher
            .write_all(&client_frame(TEXT, request.frame(id).as_bytes()))
            .await
            .unwrap();
    }
    let connections = || async {
        let (_, body) = http_get(server.addr, "/metrics").await;
        body.lines()
            .find_map(|l| l.strip_prefix("tabletop_connections "))
            .map(|v| v.trim().parse::<f64>().unwrap())
    };
    // Wait until the watcher is counted, then chat (500 characters a message) until the server lets it go.
    let deadline = Instant::now() + TIMEOUT;
    while connections().await != Some(3.0) {
        assert!(Instant::now() < deadline, "the watcher never connected");
        tokio::task::yield_now().await;
    }
    let text = "x".repeat(500);
    let mut said = 0;
    while connections().await == Some(3.0) {
        assert!(
            Instant::now() < deadline,
            "the watcher is still connected after {said} chat messages"
        );
        for _ in 0..50 {
            let r = players[0].client.request(req::chat(&text)).await;
            assert_eq!(r["type"], "ok", "{r}");
            said += 1;
        }
    }
    eprintln!("the watcher was let go after {said} chat messages of 500 characters");
    // The players go on.
    assert_eq!(players[1].client.request(req::ping()).await["type"], "pong");
    // What the watcher finds when it reads at last: what reached its socket, then the end (the `closing` and its
    // close status only if they fit in the socket; here they do not have to).
    let (texts, status) = read_until_close(&mut watcher).await;
    assert!(!texts.is_empty());
    if let Some(status) = status {
        assert_eq!(status, 1008);
        assert_eq!(last_closing(&texts), Some("overloaded"));
    }
    drop(players);
    server.stop().await;
    db.drop_db().await;
}
