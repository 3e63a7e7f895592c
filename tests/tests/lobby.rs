//! Lobbies: join codes, seats, host rights, bots, spectators, the turn timer.

use integration_tests::*;
use serde_json::{Value, json};

const GAME: &str = "hide_and_eeek";

fn short_game() -> Value {
    json!({"target": 3, "claim_window_ms": 1000})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lobby_with_bots_plays_to_the_end() {
    for backend in backends() {
        let db = TestDb::new(backend).await;
        let server = TestServer::start(&db, test_config()).await;
        // One human and two bots, in a game long enough that the human's turns end and the bots' turns come:
        // to 3 cards, the human can win in their first turn before either bot has acted.
        let options = json!({"target": 20, "claim_window_ms": 1000});
        let (_code, mut players) = start_match(server.addr, GAME, options, 3, 1).await;
        let lobby = players[0].client.lobby.clone().unwrap();
        let kinds: Vec<&str> = lobby["seats"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["occupant"]["kind"].as_str().unwrap())
            .collect();
        assert_eq!(kinds, ["human", "bot", "bot"]);
        let played = play(&mut players, &Time::Manual(server.clock.clone()), 7, 10_000).await;
        assert_eq!(played.last_state["status"]["kind"], "over");
        let version = played.last_state["version"].as_u64().unwrap();
        // The bots did act: more actions were logged than the human sent.
        assert!(version > played.acknowledged.len() as u64, "bots never acted");
        let store = db.store().await;
        let log = store
            .action_log(played.last_state["match_id"].as_str().unwrap())
            .await
            .unwrap();
        assert!(
            log.iter()
                .any(|e| matches!(e.actor, rules::Actor::Seat(rules::Seat(1 | 2)))),
            "a bot seat played"
        );
        store.close().await;
        server.stop().await;
        db.drop_db().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bots_wait_for_their_delay_before_acting() {
    let db = TestDb::new("sqlite").await;
    let mut config = test_config();
    config.bot_delay_ms = 1_500;
    let server = TestServer::start(&db, config).await;
    // The host sits at seat 0 and plays first; once its turn is over the bot at seat 1 is due.
    let (_code, mut players) = start_match(server.addr, GAME, short_game(), 2, 1).await;
    let host = &mut players[0].client;
    // Play the host's turn to its end (stop after collecting, or fail a card) until it is the bot's turn.
    loop {
        let state = host.state.clone().unwrap();
        if state["status"]["kind"] == "turn" && state["status"]["seat"] == 1 {
            break;
        }
        if let Some(at) = state["deadline"].as_u64() {
            server.clock.set(at);
            let v = state["version"].as_u64().unwrap();
            host.wait_version(v + 1).await;
            continue;
        }
        let legal = state["legal_actions"].as_array().unwrap();
        // Prefer ending the turn: stop when allowed, otherwise the first listed action.
        let action = legal
            .iter()
            .find(|a| a["type"] == "stop")
            .unwrap_or(&legal[0])
            .clone();
        let v = state["version"].as_u64().unwrap();
        let r = host.request(req::action(&action, v)).await;
        assert_eq!(r["type"], "accepted", "{r}");
        host.wait_version(v + 1).await;
    }
    let before = host.state.clone().unwrap()["version"].as_u64().unwrap();
    // Nothing happens before the delay. A refused action is a round trip through the table itself, so its
    // reply comes after whatever the table did at that time.
    server.clock.advance(1_499);
    let r = host.request(req::action(&json!({"type": "stop"}), before)).await;
    assert_eq!(r["code"], "not_your_turn", "{r}");
    assert_eq!(
        host.state.clone().unwrap()["version"].as_u64().unwrap(),
        before,
        "the bot acted early"
    );
    server.clock.advance(1);
    let after = host.wait_version(before + 1).await;
    assert_eq!(after["version"].as_u64().unwrap(), before + 1);
    server.stop().await;
    db.drop_db().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn seats_codes_and_host_rights() {
    let db = TestDb::new("sqlite").await;
    let server = TestServer::start(&db, test_config()).await;
    let mut host = server.client().await;
    let created = host
        .request(req::create_lobby(GAME, 3, "Ann").options(short_game()))
        .await;
    assert_eq!(created["type"], "seated");
    assert_eq!(created["host"], true);
    let code = created["code"].as_str().unwrap().to_string();
    assert_eq!(code.len(), 16);
    assert!(
        code.chars()
            .all(|c| "ABCDEFGHJKMNPQRSTUVWXYZ23456789".contains(c)),
        "{code}"
    );
    assert_eq!(created["seat_token"].as_str().unwrap().len(), 64);
    let lobby = host.wait_push("lobby", |_| true).await;
    assert_eq!(lobby["code"], code.as_str());
    assert_eq!(lobby["options"]["target"], 3);
    assert_eq!(lobby["phase"], "open");

    // Unknown codes, and a code typed in lower case with spaces.
    let mut bob = server.client().await;
    let r = bob.request(req::join("ZZZZZZ", "Bob")).await;
    assert_eq!(r["code"], "unknown_lobby", "{r}");
    let r = bob
        .request(req::join(&format!(" {} ", code.to_lowercase()), "Bob"))
        .await;
    assert_eq!(
        (r["type"].as_str(), r["seat"].as_u64(), r["host"].as_bool()),
        (Some("seated"), Some(1), Some(false))
    );
    let r = bob.request(req::join(&code, "Bob")).await;
    assert_eq!(r["code"], "already_in_lobby", "{r}");
    // Only the host adds bots and starts.
    let r = bob.request(req::add_bot()).await;
    assert_eq!(r["code"], "not_host", "{r}");
    let r = bob.request(req::start()).await;
    assert_eq!(r["code"], "not_host", "{r}");
    let r = host.request(req::start()).await;
    assert_eq!(r["code"], "seats_empty", "{r}");
    let r = host.request(req::add_bot_at(7)).await;
    assert_eq!(r["code"], "bad_message", "{r}");
    let r = host.request(req::add_bot_at(1)).await;
    assert_eq!(r["code"], "lobby_full", "{r}");
    // The host leaves: Bob hosts now.
    let r = host.request(req::leave()).await;
    assert_eq!(r["type"], "ok");
    let lobby = bob.wait_push("lobby", |l| l["host"] == 1).await;
    assert_eq!(lobby["seats"][0]["occupant"]["kind"], "empty");
    let r = host.request(req::action(&json!({}), None)).await;
    assert_eq!(r["code"], "not_in_lobby", "{r}");
    // Ann comes back into the free seat 0; a third player fills seat 2; a fourth finds the lobby full.
    let r = host.request(req::join(&code, "Ann")).await;
    assert_eq!(r["seat"], 0, "{r}");
    let mut cy = server.client().await;
    let r = cy.request(req::join(&code, "Cy")).await;
    assert_eq!(r["seat"], 2, "{r}");
    let mut dee = server.client().await;
    let r = dee.request(req::join(&code, "Dee")).await;
    assert_eq!(r["code"], "lobby_full", "{r}");
    // Actions before the start.
    let r = cy.request(req::action(&json!({"type": "stop"}), None)).await;
    assert_eq!(r["code"], "not_started", "{r}");
    // A spectator joins by code, and cannot act.
    let r = dee.request(req::spectate(&code)).await;
    assert_eq!(r["type"], "spectating", "{r}");
    let r = bob.request(req::start()).await;
    assert_eq!(r["type"], "ok", "{r}");
    let s = dee.wait_version(0).await;
    assert_eq!(s["seat"], Value::Null);
    assert_eq!(s["legal_actions"], json!([]));
    let r = dee.request(req::action(&json!({"type": "stop"}), None)).await;
    assert_eq!(r["code"], "unauthorized", "{r}");
    // After the start nobody can join or add bots.
    let mut eve = server.client().await;
    let r = eve.request(req::join(&code, "Eve")).await;
    assert_eq!(r["code"], "already_started", "{r}");
    let r = bob.request(req::add_bot()).await;
    assert_eq!(r["code"], "already_started", "{r}");
    let r = bob.request(req::start()).await;
    assert_eq!(r["code"], "already_started", "{r}");
    // The same answer for a player who is not the host, and for a spectator.
    for who in [&mut cy, &mut dee] {
        for request in [req::start(), req::add_bot()] {
            let r = who.request(request.clone()).await;
            assert_eq!(r["code"], "already_started", "{request:?} -> {r}");
        }
    }
    // Out of turn, illegal, and stale actions.
    let state = host.wait_version(0).await;
    let turn = state["status"]["seat"].as_u64().unwrap() as usize;
    let mut clients = [host, bob, cy];
    let other = (turn + 1) % 3;
    let mover_state = clients[turn].wait_version(0).await;
    let mover_action = mover_state["legal_actions"][0].clone();
    let r = clients[other].request(req::action(&mover_action, 0)).await;
    assert!(
        ["not_your_turn", "illegal_action"].contains(&r["code"].as_str().unwrap()),
        "{r}"
    );
    let r = clients[turn]
        .request(req::action(
            &json!({"type": "move", "to": {"row": 99, "col": 0}}),
            0,
        ))
        .await;
    assert_eq!(r["code"], "illegal_action", "{r}");
    let r = clients[turn]
        .request(req::action(&json!({"type": "no_such_action"}), None))
        .await;
    assert_eq!(r["code"], "illegal_action", "{r}");
    let r = clients[turn].request(req::action(&mover_action, 5)).await;
    assert_eq!(r["code"], "stale_version", "{r}");
    let r = clients[turn].request(req::action(&mover_action, 0)).await;
    assert_eq!(r["type"], "accepted", "{r}");
    server.stop().await;
    db.drop_db().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_turn_timer_plays_for_an_idle_seat() {
    let db = TestDb::new("sqlite").await;
    let server = TestServer::start(&db, test_config()).await;
    let mut host = server.client().await;
    let created = host
        .request(
            req::create_lobby(GAME, 2, "Ann")
                .options(short_game())
                .turn_timer_ms(30000),
        )
        .await;
    let code = created["code"].as_str().unwrap().to_string();
    let mut bob = server.client().await;
    bob.request(req::join(&code, "Bob")).await;
    let r = host.request(req::start()).await;
    assert_eq!(r["type"], "ok");
    let s = host.wait_version(0).await;
    let due = s["turn_deadline"].as_u64().expect("a turn deadline");
    assert_eq!(due, CLOCK_START + 30_000);
    server.clock.set(due - 1);
    // Not yet: a refused request from the other seat is answered by the table after any timer work.
    let seat = s["status"]["seat"].as_u64().unwrap();
    let idle = if seat == 0 { &mut host } else { &mut bob };
    let r = idle
        .request(req::action(&json!({"type": "no_such_action"}), None))
        .await;
    assert_eq!(r["code"], "illegal_action");
    assert_eq!(idle.state.clone().unwrap()["version"], 0);
    server.clock.set(due);
    let after = idle.wait_version(1).await;
    assert_eq!(after["version"], 1);
    let store = db.store().await;
    let log = store
        .action_log(after["match_id"].as_str().unwrap())
        .await
        .unwrap();
    assert_eq!(log[0].actor, rules::Actor::Seat(rules::Seat(seat as u8)));
    assert_eq!(log[0].at, due);
    store.close().await;
    // Bad timers are refused.
    let mut c = server.client().await;
    let r = c.request(req::create_lobby(GAME, 2, "Cy").turn_timer_ms(5)).await;
    assert_eq!(r["code"], "bad_options", "{r}");
    server.stop().await;
    db.drop_db().await;
}
