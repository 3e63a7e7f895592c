//! Complete Hide and Eeek! matches between WebSocket clients, on every backend.

use integration_tests::*;
use serde_json::json;

const GAME: &str = "hide_and_eeek";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn complete_matches_between_clients_end_with_an_outcome() {
    for backend in backends() {
        let db = TestDb::new(backend).await;
        let server = TestServer::start(&db, test_config()).await;
        for (seats, seed) in [(2u8, 1u64), (3, 2), (4, 3)] {
            let (code, mut players) = start_match(
                server.addr,
                GAME,
                json!({"target": 3, "claim_window_ms": 1000}),
                seats,
                seats,
            )
            .await;
            // A spectator watches the whole match.
            let mut spectator = server.client().await;
            let r = spectator.request(json!({"type": "spectate", "code": code})).await;
            assert_eq!(r["type"], "spectating", "{r}");
            let played = play(&mut players, &Time::Manual(server.clock.clone()), seed, 10_000).await;
            let last = &played.last_state;
            assert_eq!(last["status"]["kind"], "over", "{backend}: {last}");
            let outcome = &last["outcome"];
            assert_eq!(outcome["placings"].as_array().unwrap().len(), seats as usize);
            assert!(!outcome["winners"].as_array().unwrap().is_empty());
            // Every acknowledged action is in the log, in order, exactly once.
            let version = last["version"].as_u64().unwrap();
            let store = db.store().await;
            let log = store
                .action_log(last["match_id"].as_str().unwrap())
                .await
                .unwrap();
            assert_eq!(log.len() as u64, version);
            for (seat, action, v) in &played.acknowledged {
                let entry = &log[*v as usize - 1];
                assert_eq!(
                    (&entry.action, entry.actor),
                    (action, rules::Actor::Seat(rules::Seat(*seat)))
                );
            }
            store.close().await;
            // The spectator saw the same end, with no seat and no legal actions.
            let seen = spectator.wait_version(version).await;
            assert_eq!(seen["seat"], serde_json::Value::Null);
            assert!(seen["legal_actions"].as_array().unwrap().is_empty());
            assert_eq!(seen["outcome"], *outcome);
            // The lobby says finished, and acting now is refused.
            let lobby = players[0].client.lobby.clone().unwrap();
            assert_eq!(lobby["phase"], "finished", "{lobby}");
            assert_eq!(lobby["match_id"], last["match_id"]);
            let r = players[0]
                .client
                .request(json!({"type": "action", "action": {"type": "stop"}}))
                .await;
            assert_eq!(r["code"], "game_over", "{r}");
        }
        server.stop().await;
        db.drop_db().await;
    }
}
