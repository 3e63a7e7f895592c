//! Hide and Eeek!'s race under network latency (issue 25 point 10, issue 43 point 1): the server measures each
//! connection's round trip with WebSocket ping/pong frames and times an answer in an Eeek! window from the push that
//! showed the window leaving for that connection to the answer reaching its socket, less the whole round trip, so a
//! player 150 ms away is not behind one 10 ms away by latency alone; and a window that has closed is closed.
//!
//! The server's clock is the manual one (frozen unless the test moves it): the pushes showing the window are
//! written at the time the window opened, and both answers are received when the test has moved the clock on: the
//! logged times differ only by the round trips taken off. The slow player connects through a proxy that holds
//! every byte 75 ms each way. (`eeek_latency.rs` plays the race on the wall clock.)

use std::time::Duration;

use integration_tests::*;
use serde_json::{Value, json};
use tokio::time::Instant;

const GAME: &str = "hide_and_eeek";

/// Keeps a client reading (so that it answers the server's pings at once) for `how_long`, with pings of its own.
async fn keep_reading(client: &mut Client, how_long: Duration) {
    let until = Instant::now() + how_long;
    while Instant::now() < until {
        let r = client.request(req::ping()).await;
        assert_eq!(r["type"], "pong", "{r}");
    }
}

fn window_open(state: &Value) -> bool {
    state["view"]["look"].is_object()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn answers_are_timed_from_the_push_less_the_whole_round_trip() {
    let db = TestDb::new("sqlite").await;
    let server = TestServer::start(&db, test_config()).await;
    let far = delaying_proxy(server.addr, Duration::from_millis(75)).await;
    // The host near (direct), the guest far (through the proxy).
    let (_code, mut players) = start_match_on(
        &[server.addr, far],
        GAME,
        json!({"target": 10, "claim_window_ms": 4000}),
        2,
        2,
    )
    .await;
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
    // Both players have the window (`play_until` waits for everyone): their pushes were written at its opening.
    // Both answers are received 500 ms later, the far one's less its round trip.
    server.clock.advance(500);
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
    // The far player's round trip is at least 150 ms (75 ms each way): 500 ms less that is at most 350 ms after
    // the opening (and its round trip well under the cap leaves at least 100 ms); the near one's reaction is the
    // 500 ms less a few milliseconds.
    assert!(
        (opened_at + 100..=opened_at + 350).contains(&far_at),
        "far answer at {far_at}, window opened at {opened_at}"
    );
    assert!(
        (opened_at + 480..=opened_at + 500).contains(&near_at),
        "near answer at {near_at}, window opened at {opened_at}"
    );
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
