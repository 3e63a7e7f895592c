//! Every registered game, at every seat count it supports: a complete match over real WebSockets between
//! scripted clients (random legal actions), whose result is stored and survives a restart of the server.

use integration_tests::*;
use serde_json::{Value, json};

/// Options that keep a match short where the game has a length option; every other game plays its full rules.
fn quick_options(game: &str) -> Value {
    match game {
        "hide_and_eeek" => json!({"target": 4, "claim_window_ms": 1000}),
        _ => json!({}),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_game_plays_to_a_stored_result_at_every_seat_count() {
    for backend in backends() {
        let db = TestDb::new(backend).await;
        let mut finished: Vec<(String, String, Value, String)> = Vec::new();
        let server = TestServer::start(&db, test_config()).await;
        // Every engine is listed by GET /api/games with its player counts.
        let (status, body) = http_get(server.addr, "/api/games").await;
        assert_eq!(status, 200);
        let listed: Value = serde_json::from_str(&body).unwrap();
        for info in rules::catalogue() {
            let entry = listed.as_array().unwrap().iter().find(|g| g["id"] == info.id);
            let entry = entry.unwrap_or_else(|| panic!("{} is not listed: {body}", info.id));
            assert_eq!(
                (entry["min_players"].as_u64(), entry["max_players"].as_u64()),
                (Some(info.min_players.into()), Some(info.max_players.into()))
            );
        }
        let mut n = 0u64;
        for info in rules::catalogue() {
            for seats in info.min_players..=info.max_players {
                n += 1;
                let (code, mut players) =
                    start_match(server.addr, info.id, quick_options(info.id), seats, seats).await;
                let played = play(
                    &mut players,
                    &Time::Manual(server.clock.clone()),
                    7_000 + n,
                    200_000,
                )
                .await;
                let last = &played.last_state;
                assert_eq!(
                    last["status"]["kind"], "over",
                    "{backend} {} with {seats}: {last}",
                    info.id
                );
                let outcome = last["outcome"].clone();
                assert_eq!(
                    outcome["placings"].as_array().unwrap().len(),
                    seats as usize,
                    "{}",
                    info.id
                );
                let match_id = last["match_id"].as_str().unwrap().to_string();
                // The result is stored as the players were told it.
                let store = db.store().await;
                let stored = store.result(&match_id).await.unwrap().expect("a stored result");
                store.close().await;
                assert_eq!(serde_json::to_value(&stored).unwrap(), outcome, "{}", info.id);
                finished.push((code, players[0].token.clone(), outcome, info.id.to_string()));
            }
        }
        server.stop().await;

        // After a restart every match is still finished with the same result, and refuses actions.
        let server = TestServer::start(&db, test_config()).await;
        for (code, token, outcome, game) in &finished {
            let mut client = server.client().await;
            let r = client.request(req::resume(code, token)).await;
            assert_eq!(r["type"], "resumed", "{game}: {r}");
            let state = client.wait_push("state", |_| true).await;
            assert_eq!(state["status"]["kind"], "over", "{game}");
            assert_eq!(state["outcome"], *outcome, "{game}");
            assert!(state["legal_actions"].as_array().unwrap().is_empty(), "{game}");
        }
        server.stop().await;
        db.drop_db().await;
    }
}
