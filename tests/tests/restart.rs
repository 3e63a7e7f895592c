//! Durability: a graceful restart tells clients and resumes every match with its deadlines; a SIGKILL of the
//! real server binary mid-match loses no acknowledged action.

use integration_tests::*;
use serde_json::{Value, json};

const GAME: &str = "hide_and_eeek";
const SERVER_BINARY: &str = env!("CARGO_BIN_EXE_server-under-test");

async fn resume_all(
    addr: std::net::SocketAddr,
    code: &str,
    players: &mut [Player],
    last_version: Option<u64>,
) {
    for p in players.iter_mut() {
        let mut c = Client::hello(addr).await;
        let r = c.request(req::resume_from(code, &p.token, last_version)).await;
        assert_eq!(
            (r["type"].as_str(), r["seat"].as_u64()),
            (Some("resumed"), Some(u64::from(p.seat))),
            "{r}"
        );
        p.client = c;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn graceful_restart_tells_clients_and_rearms_deadlines() {
    for backend in backends() {
        let db = TestDb::new(backend).await;
        let mut config = test_config();
        config.snapshot_every = 3;
        let server = TestServer::start(&db, config.clone()).await;
        let time = Time::Manual(server.clock.clone());
        // Play until a claim window is open (a mouse card face up), so that the engine's own deadline is pending
        // when the server stops. Short games; if one ends without a mouse showing, start another (the match
        // seed comes from the OS, so each is different).
        let mut attempt = 0;
        let (code, mut players, played) = loop {
            let (code, mut players) = start_match(
                server.addr,
                GAME,
                json!({"target": 6, "claim_window_ms": 4000}),
                3,
                3,
            )
            .await;
            let played = play_until(&mut players, &time, 5 + attempt, 10_000, |s| {
                s["deadline"].is_u64()
            })
            .await;
            if played.last_state["deadline"].is_u64() {
                break (code, players, played);
            }
            attempt += 1;
            assert!(attempt < 30, "no mouse card showed in 30 games");
        };
        let before = played.last_state.clone();
        let deadline = before["deadline"]
            .as_u64()
            .expect("a claim window opened during a long game");
        let version = before["version"].as_u64().unwrap();
        let views: Vec<Value> = players
            .iter()
            .map(|p| p.client.state.as_ref().unwrap()["view"].clone())
            .collect();
        // A spectator and the players are all told that the server is going away.
        let mut spectator = server.client().await;
        spectator.request(req::spectate(&code)).await;
        let clock = server.clock.clone();
        server.stop().await;
        for c in players.iter_mut().map(|p| &mut p.client).chain([&mut spectator]) {
            let last = c.until_closed().await.expect("a closing message");
            assert_eq!(
                (last["type"].as_str(), last["code"].as_str()),
                (Some("closing"), Some("shutting_down"))
            );
        }

        // The same database, the clock where it was.
        let server = TestServer::start_with_clock(&db, config, clock).await;
        resume_all(server.addr, &code, &mut players, Some(version)).await;
        for (p, view) in players.iter_mut().zip(&views) {
            let s = p.client.wait_version(version).await;
            assert_eq!(
                s["version"].as_u64().unwrap(),
                version,
                "no action lost or invented"
            );
            assert_eq!(
                s["deadline"].as_u64(),
                Some(deadline),
                "the claim window is still open"
            );
            assert_eq!(&s["view"], view, "each seat sees what it saw before the restart");
        }
        // The window closes on time after the restart: not a millisecond early.
        server.clock.set(deadline - 1);
        let probe = players[0]
            .client
            .request(req::action(&json!({"type": "no_such"}), None))
            .await;
        assert_eq!(probe["code"], "illegal_action");
        assert_eq!(
            players[0].client.state.as_ref().unwrap()["version"]
                .as_u64()
                .unwrap(),
            version
        );
        server.clock.set(deadline);
        let after = players[0].client.wait_version(version + 1).await;
        assert!(after["deadline"].as_u64() != Some(deadline), "{after}");
        // And the match plays on to its end.
        let played = play(&mut players, &Time::Manual(server.clock.clone()), 6, 10_000).await;
        assert_eq!(played.last_state["status"]["kind"], "over");
        let end = played.last_state["version"].as_u64().unwrap();
        server.stop().await;

        // A finished match stays finished across a restart.
        let server = TestServer::start(&db, test_config()).await;
        resume_all(server.addr, &code, &mut players, None).await;
        let s = players[0].client.wait_version(end).await;
        assert_eq!(s["status"]["kind"], "over");
        assert_eq!(s["outcome"], played.last_state["outcome"]);
        let lobby = players[0].client.wait_push("lobby", |_| true).await;
        assert_eq!(lobby["phase"], "finished");
        server.stop().await;
        db.drop_db().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigkill_mid_match_loses_no_acknowledged_action() {
    for backend in backends() {
        let db = TestDb::new(backend).await;
        let env = [
            ("SNAPSHOT_EVERY", "4"),
            ("BOT_DELAY_MS", "0"),
            ("RATE_LIMIT_BURST", "1000000"),
        ];
        let process = ServerProcess::start(SERVER_BINARY, &db, &env).await;
        let (code, mut players) = start_match(
            process.addr,
            GAME,
            json!({"target": 4, "claim_window_ms": 1000}),
            3,
            2,
        )
        .await;
        // Two humans and a bot play a while on the wall clock.
        let played = play(&mut players, &Time::Real, 21, 9).await;
        let mut acknowledged = played.acknowledged.clone();
        let mut highest = acknowledged.last().map_or(0, |a| a.2);
        // One more action is sent and the server is killed without waiting for its reply: it may or may not
        // have been committed, but it was never acknowledged.
        let in_flight = players.iter_mut().find(|p| {
            !p.client.state.as_ref().unwrap()["legal_actions"]
                .as_array()
                .unwrap()
                .is_empty()
        });
        if let Some(p) = in_flight {
            let s = p.client.state.clone().unwrap();
            let action = s["legal_actions"][0].clone();
            p.client
                .send_text(req::to_value(&req::action(&action, s["version"].as_u64())).to_string())
                .await;
        }
        process.kill().await;

        // Restart on the same database.
        let process = ServerProcess::start(SERVER_BINARY, &db, &env).await;
        resume_all(process.addr, &code, &mut players, None).await;
        let state = players[0].client.wait_version(0).await;
        let recovered = state["version"].as_u64().unwrap();
        assert!(
            recovered >= highest,
            "acknowledged up to {highest}, the restarted server is at {recovered}"
        );
        // Every acknowledged action is in the log at the version it was acknowledged as.
        let store = db.store().await;
        let match_id = state["match_id"].as_str().unwrap().to_string();
        let log = store.action_log(&match_id).await.unwrap();
        assert!(log.len() as u64 >= recovered);
        for (seat, action, v) in &acknowledged {
            let entry = &log[*v as usize - 1];
            assert_eq!(entry.actor, rules::Actor::Seat(rules::Seat(*seat)));
            assert_eq!(&entry.action, action);
        }
        // The match resumes and finishes.
        let rest = play(&mut players, &Time::Real, 22, 10_000).await;
        acknowledged.extend(rest.acknowledged);
        highest = rest.last_state["version"].as_u64().unwrap();
        assert_eq!(rest.last_state["status"]["kind"], "over");
        let log = store.action_log(&match_id).await.unwrap();
        assert_eq!(log.len() as u64, highest);
        for (seat, action, v) in &acknowledged {
            let entry = &log[*v as usize - 1];
            assert_eq!(
                (entry.actor, entry.action.to_value()),
                (rules::Actor::Seat(rules::Seat(*seat)), action.clone())
            );
        }
        store.close().await;
        process.kill().await;
        db.drop_db().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_tells_clients_and_exits_cleanly() {
    let db = TestDb::new("sqlite").await;
    let process = ServerProcess::start(SERVER_BINARY, &db, &[]).await;
    let (code, mut players) = start_match(process.addr, GAME, json!({"target": 3}), 2, 1).await;
    assert!(
        process.terminate().await,
        "the server exits with success after SIGTERM"
    );
    let last = players[0].client.until_closed().await.expect("a closing message");
    assert_eq!(
        (last["type"].as_str(), last["code"].as_str()),
        (Some("closing"), Some("shutting_down"))
    );
    // And it comes back with the match.
    let process = ServerProcess::start(SERVER_BINARY, &db, &[]).await;
    resume_all(process.addr, &code, &mut players, None).await;
    let s = players[0].client.wait_version(0).await;
    assert_eq!(s["code"], code.as_str());
    process.kill().await;
    db.drop_db().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_open_lobby_survives_a_restart() {
    for backend in backends() {
        let db = TestDb::new(backend).await;
        let server = TestServer::start(&db, test_config()).await;
        let mut ann = server.client().await;
        let created = ann
            .request(req::create_lobby(GAME, 3, "Ann").turn_timer_ms(60000))
            .await;
        let code = created["code"].as_str().unwrap().to_string();
        let ann_token = created["seat_token"].as_str().unwrap().to_string();
        let mut bob = server.client().await;
        let joined = bob.request(req::join(&code, "Bob")).await;
        let bob_token = joined["seat_token"].as_str().unwrap().to_string();
        server.stop().await;

        let server = TestServer::start(&db, test_config()).await;
        let mut ann = server.client().await;
        let r = ann.request(req::resume(&code, &ann_token)).await;
        assert_eq!(
            (r["type"].as_str(), r["seat"].as_u64(), r["host"].as_bool()),
            (Some("resumed"), Some(0), Some(true))
        );
        let lobby = ann.wait_push("lobby", |_| true).await;
        assert_eq!(lobby["phase"], "open");
        assert_eq!(lobby["turn_timer_ms"], 60000);
        assert_eq!(
            lobby["seats"][1]["occupant"],
            json!({"kind": "human", "name": "Bob", "connected": false, "presence": "away"})
        );
        let mut bob = server.client().await;
        let r = bob.request(req::resume(&code, &bob_token)).await;
        assert_eq!(
            (r["type"].as_str(), r["seat"].as_u64(), r["host"].as_bool()),
            (Some("resumed"), Some(1), Some(false))
        );
        assert_eq!(ann.request(req::add_bot()).await["type"], "ok");
        assert_eq!(ann.request(req::start()).await["type"], "ok");
        // The first player is drawn at random; the bot (seat 2) plays at once, so wait for a human's turn. Each card
        // turned face up opens an Eeek! window (rules version 2) that the humans leave unanswered here: move the
        // clock past it (4 s by default) and the turn goes on.
        let mut advanced = 0;
        let s = loop {
            let s = bob.wait_push("state", |_| true).await;
            if s["status"]["seat"].as_u64().is_some_and(|seat| seat < 2) {
                break s;
            }
            if s["status"]["kind"] == "race" {
                server.clock.advance(5_000);
                advanced += 5_000;
            }
        };
        assert_eq!(s["turn_deadline"].as_u64(), Some(CLOCK_START + advanced + 60_000));
        server.stop().await;
        db.drop_db().await;
    }
}
