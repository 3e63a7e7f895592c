//! Complete Hide and Eeek! matches between WebSocket clients, on every backend.

use integration_tests::*;
use rules::testkit::Parsed;
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
            let r = spectator.request(req::spectate(&code)).await;
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
                    (entry.action.to_value(), entry.actor),
                    (action.clone(), rules::Actor::Seat(rules::Seat(*seat)))
                );
            }
            // The seed never reaches a player: no message any client received contains it.
            let stored = store.load_lobby(&code).await.unwrap().unwrap();
            let seed = stored.game.unwrap().record.seed;
            for p in &players {
                for state in &p.client.states {
                    let text = state.to_string();
                    assert!(!text.contains(&seed.to_string()) && !text.contains(&(seed as i64).to_string()));
                }
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
                .request(req::action(&json!({"type": "stop"}), None))
                .await;
            assert_eq!(r["code"], "game_over", "{r}");
        }
        server.stop().await;
        db.drop_db().await;
    }
}

/// For every registered game: a complete match between clients and a spectator, after which the test replays the
/// stored log with the rules engine itself and checks that every push each viewer received is exactly the
/// engine's view for that viewer, that seat's legal actions, and the events whose audience includes it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_push_is_the_engines_view_and_the_events_its_viewer_may_see() {
    let db = TestDb::new("sqlite").await;
    let server = TestServer::start(&db, test_config()).await;
    let tables = rules::catalogue()
        .into_iter()
        .flat_map(|info| [info.min_players, info.max_players].map(|seats| (info.clone(), seats)));
    for (n, (info, seats)) in tables.enumerate() {
        let options = if info.id == GAME {
            json!({"target": 3, "claim_window_ms": 1000})
        } else {
            json!({})
        };
        let (code, mut players) = start_match(server.addr, info.id, options, seats, seats).await;
        let mut spectator = server.client().await;
        spectator.request(req::spectate(&code)).await;
        let played = play(
            &mut players,
            &Time::Manual(server.clock.clone()),
            100 + n as u64,
            100_000,
        )
        .await;
        assert_eq!(played.last_state["status"]["kind"], "over", "{}", info.id);
        let version = played.last_state["version"].as_u64().unwrap();
        spectator.wait_version(version).await;

        let store = db.store().await;
        let stored = store.load_lobby(&code).await.unwrap().unwrap();
        let record = stored.game.unwrap().record;
        let log = store.action_log(&record.id).await.unwrap();
        store.close().await;
        let mut game =
            rules::AnyGame::new(&record.game, None, &record.options, record.players, record.seed).unwrap();
        let mut viewers: Vec<(rules::Viewer, &Client)> = players
            .iter()
            .map(|p| (rules::Viewer::Seat(rules::Seat(p.seat)), &p.client))
            .collect();
        viewers.push((rules::Viewer::Spectator, &spectator));
        let check = |game: &rules::AnyGame, v: u64, events: &[rules::Event<serde_json::Value>]| {
            for (viewer, client) in &viewers {
                let pushed: Vec<&serde_json::Value> = client
                    .states
                    .iter()
                    .filter(|s| {
                        s["version"].as_u64() == Some(v) && s["since"].as_u64() == Some(v.saturating_sub(1))
                    })
                    .collect();
                // The spectator joined after the start; everyone else saw every version exactly once.
                if v == 0 && matches!(viewer, rules::Viewer::Spectator) {
                    continue;
                }
                assert_eq!(
                    pushed.len(),
                    1,
                    "{}: {viewer:?} got {} pushes of version {v}",
                    info.id,
                    pushed.len()
                );
                let s = pushed[0];
                assert_eq!(
                    s["view"],
                    game.view_value(*viewer),
                    "{}: view of {viewer:?} at {v}",
                    info.id
                );
                let legal = match viewer {
                    rules::Viewer::Seat(seat) => game.legal_values(*seat),
                    rules::Viewer::Spectator => vec![],
                };
                assert_eq!(
                    s["legal_actions"],
                    json!(legal),
                    "{}: legal actions of {viewer:?} at {v}",
                    info.id
                );
                let expected: Vec<&serde_json::Value> = events
                    .iter()
                    .filter(|e| e.audience.includes(*viewer))
                    .map(|e| &e.body)
                    .collect();
                assert_eq!(
                    s["events"],
                    json!(expected),
                    "{}: events of {viewer:?} at {v}",
                    info.id
                );
                assert_eq!(s["status"], json!(game.status()));
            }
        };
        check(&game, 0, &[]);
        for entry in &log {
            let events = game
                .apply_value(entry.actor, &entry.action.to_value(), entry.at)
                .unwrap();
            check(&game, entry.seq, &events);
        }
        assert_eq!(log.len() as u64, version);
    }
    server.stop().await;
    db.drop_db().await;
}
