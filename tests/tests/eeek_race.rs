//! Hide and Eeek!'s race under network latency (issue 25 point 10): the server measures each connection's round
//! trip with WebSocket ping/pong frames and times an answer in an Eeek! window as received less half of it, so a
//! player 150 ms away is not behind one 10 ms away by latency alone; and a window that has closed is closed.
//!
//! The server's clock is the manual one (frozen unless the test moves it), so every answer received while it stands
//! still is received "at the same time": the logged times differ only by the latency allowance. The slow player
//! connects through a proxy that holds every byte 75 ms each way.

use std::{net::SocketAddr, time::Duration};

use integration_tests::*;
use serde_json::{Value, json};
use server::Clock;
use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::{TcpListener, TcpStream},
    sync::mpsc,
    time::Instant,
};

const GAME: &str = "hide_and_eeek";

/// A TCP proxy that delivers every chunk `delay` after it was read, in each direction.
async fn delaying_proxy(upstream: SocketAddr, delay: Duration) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((client, _)) = listener.accept().await {
            let server = TcpStream::connect(upstream).await.unwrap();
            client.set_nodelay(true).unwrap();
            server.set_nodelay(true).unwrap();
            let (cr, cw) = client.into_split();
            let (sr, sw) = server.into_split();
            pipe(cr, sw, delay);
            pipe(sr, cw, delay);
        }
    });
    addr
}

fn pipe(mut from: tokio::net::tcp::OwnedReadHalf, mut to: tokio::net::tcp::OwnedWriteHalf, delay: Duration) {
    let (tx, mut rx) = mpsc::unbounded_channel::<(Instant, Vec<u8>)>();
    tokio::spawn(async move {
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            match from.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    if tx.send((Instant::now() + delay, buf[..n].to_vec())).is_err() {
                        break;
                    }
                }
            }
        }
    });
    tokio::spawn(async move {
        while let Some((at, bytes)) = rx.recv().await {
            tokio::time::sleep_until(at).await;
            if to.write_all(&bytes).await.is_err() {
                break;
            }
        }
        let _ = to.shutdown().await;
    });
}

/// Keeps a client reading (so that it answers the server's pings at once) for `how_long`, with pings of its own.
async fn keep_reading(client: &mut Client, how_long: Duration) {
    let until = Instant::now() + how_long;
    while Instant::now() < until {
        let r = client.request(req::ping()).await;
        assert_eq!(r["type"], "pong", "{r}");
    }
}

/// Two players, the host near (direct) and the guest far (through the proxy); returns them once the match runs.
async fn near_and_far(server: &TestServer, far: SocketAddr) -> (String, Vec<Player>) {
    let mut host = Client::hello(server.addr).await;
    let created = host
        .request(req::create_lobby(GAME, 2, "Near").options(json!({"target": 10, "claim_window_ms": 4000})))
        .await;
    assert_eq!(created["type"], "seated", "{created}");
    let code = created["code"].as_str().unwrap().to_string();
    let mut guest = Client::hello(far).await;
    let joined = guest.request(req::join(&code, "Far")).await;
    assert_eq!(joined["type"], "seated", "{joined}");
    let r = host.request(req::start()).await;
    assert_eq!(r["type"], "ok", "{r}");
    host.wait_version(0).await;
    guest.wait_version(0).await;
    let players = vec![
        Player {
            client: host,
            seat: 0,
            token: created["seat_token"].as_str().unwrap().to_string(),
        },
        Player {
            client: guest,
            seat: 1,
            token: joined["seat_token"].as_str().unwrap().to_string(),
        },
    ];
    (code, players)
}

fn window_open(state: &Value) -> bool {
    state["view"]["look"].is_object()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn answers_are_timed_as_received_less_half_the_round_trip() {
    let db = TestDb::new("sqlite").await;
    let server = TestServer::start(&db, test_config()).await;
    let far = delaying_proxy(server.addr, Duration::from_millis(75)).await;
    let (_code, mut players) = near_and_far(&server, far).await;
    // Both connections are bound to the table: the server pings them every 2 s. Let it take a few samples.
    for p in players.iter_mut() {
        keep_reading(&mut p.client, Duration::from_millis(4_500)).await;
    }
    keep_reading(&mut players[0].client, Duration::from_millis(2_500)).await;
    // Play until a card turns up and opens a window.
    let played = play_until(
        &mut players,
        &Time::Manual(server.clock.clone()),
        7,
        2_000,
        window_open,
    )
    .await;
    let state = played.last_state;
    assert!(window_open(&state), "a window opened: {state}");
    let version = state["version"].as_u64().unwrap();
    let opened_at = state["view"]["look"]["opened_at"].as_u64().unwrap();
    // The clock stands still: both answers are received "now"; the far one is timed earlier by its latency.
    let now = server.clock.now();
    let far_reply = players[1]
        .client
        .request(req::action(&json!({"type": "pass"}), version))
        .await;
    assert_eq!(far_reply["type"], "accepted", "{far_reply}");
    let near_reply = players[0]
        .client
        .request(req::action(&json!({"type": "pass"}), version + 1))
        .await;
    assert_eq!(near_reply["type"], "accepted", "{near_reply}");
    let store = db.store().await;
    let log = store
        .action_log(state["match_id"].as_str().unwrap())
        .await
        .unwrap();
    let at = |seq: u64| log[seq as usize - 1].at;
    let (far_at, near_at) = (at(version + 1), at(version + 2));
    // The far player's round trip is at least 150 ms (75 ms each way): its answer is moved back by at least 75 ms
    // and at most the 250 ms cap; the near one's by a few milliseconds at most.
    assert!(
        (now - 250..=now - 70).contains(&far_at),
        "far answer at {far_at}, now {now}"
    );
    assert!(
        (now - 20..=now).contains(&near_at),
        "near answer at {near_at}, now {now}"
    );
    assert!(far_at >= opened_at.saturating_sub(250));
    store.close().await;
    server.stop().await;
    db.drop_db().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_claim_after_the_window_closed_is_no_answer_to_it() {
    let db = TestDb::new("sqlite").await;
    let server = TestServer::start(&db, test_config()).await;
    let (_code, mut players) = start_match(server.addr, GAME, json!({"claim_window_ms": 1000}), 2, 2).await;
    let played = play_until(
        &mut players,
        &Time::Manual(server.clock.clone()),
        3,
        2_000,
        window_open,
    )
    .await;
    let state = played.last_state;
    assert!(window_open(&state), "a window opened: {state}");
    let version = state["version"].as_u64().unwrap();
    let cell = state["view"]["look"]["cells"][0].clone();
    let closes_at = state["view"]["look"]["closes_at"].as_u64().unwrap();
    // The window closes (the table plays the clock's action at the deadline) before the claim arrives.
    server.clock.set(closes_at);
    for p in players.iter_mut() {
        p.client.wait_version(version + 1).await;
    }
    // The claim is no answer to the closed window. Rules version 3 judges it as a late claim: on a card left face
    // up it opens a late window of its own; on a card no longer face up it is refused, saying so.
    let reply = players[1]
        .client
        .request(req::action(&json!({"type": "eeek", "cell": cell}), None))
        .await;
    if reply["type"] == "accepted" {
        let state = players[1].client.wait_version(version + 2).await;
        assert_eq!(state["view"]["look"]["late"], true, "{state}");
        assert_eq!(state["view"]["look"]["responded"], json!([1]), "{state}");
    } else {
        assert_eq!(reply["code"], "illegal_action", "{reply}");
        assert!(
            reply["message"].as_str().unwrap().contains("no face-up card"),
            "{reply}"
        );
    }
    server.stop().await;
    db.drop_db().await;
}
