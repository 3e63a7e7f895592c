//! Chat in the lobby and the match (issue 13): players' and spectators' channels, plain text, length and rate
//! limits, history for clients that join, spectate or resume, also after a restart.

use integration_tests::*;
use protocol::RequestId;
use serde_json::{Value, json};

const GAME: &str = "hide_and_eeek";

/// Creates a two-seat lobby; returns the host, the joined player, the code and both seat tokens.
async fn lobby_of_two(server: &TestServer) -> (Client, Client, String, String, String) {
    let mut host = server.client().await;
    let created = host.request(req::create_lobby(GAME, 2, "Host")).await;
    assert_eq!(created["type"], "seated", "{created}");
    let code = created["code"].as_str().unwrap().to_string();
    let mut guest = server.client().await;
    let joined = guest.request(req::join(&code, "Guest")).await;
    assert_eq!(joined["type"], "seated", "{joined}");
    let history = guest.wait_push("chat_history", |_| true).await;
    assert_eq!(history["messages"], json!([]), "a new lobby has no chat");
    (
        host,
        guest,
        code,
        created["seat_token"].as_str().unwrap().to_string(),
        joined["seat_token"].as_str().unwrap().to_string(),
    )
}

async fn say(client: &mut Client, text: &str) -> Value {
    client.request(req::chat(text)).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn players_and_spectators_chat_in_plain_text_and_newcomers_get_the_history() {
    for backend in backends() {
        let db = TestDb::new(backend).await;
        let server = TestServer::start(&db, test_config()).await;
        let (mut host, mut guest, code, _, _) = lobby_of_two(&server).await;

        // Markup is just text: stored and delivered exactly as written (trimmed).
        let markup = "<img src=x onerror=alert(1)> & <b>bold</b>";
        let r = say(&mut host, &format!("  {markup}  ")).await;
        assert_eq!(r["type"], "ok", "{r}");
        for c in [&mut host, &mut guest] {
            let m = c.wait_push("chat_message", |_| true).await;
            assert_eq!(m["code"], code.as_str());
            let message = &m["message"];
            assert_eq!(message["text"], markup);
            assert_eq!(
                (
                    message["channel"].as_str(),
                    message["seat"].as_u64(),
                    message["name"].as_str()
                ),
                (Some("players"), Some(0), Some("Host"))
            );
            assert_eq!(message["id"], 1);
            assert_eq!(message["at"].as_u64(), Some(CLOCK_START));
        }

        // A spectator arrives: it gets the history, and its own messages go to the spectators' channel, which
        // the players read too.
        let mut spectator = server.client().await;
        let r = spectator.request(req::spectate(&code)).await;
        assert_eq!(r["type"], "spectating", "{r}");
        let history = spectator.wait_push("chat_history", |_| true).await;
        let messages = history["messages"].as_array().unwrap();
        assert_eq!(messages.len(), 1);
        assert_eq!(messages[0]["text"], markup);
        let r = say(&mut spectator, "go Guest").await;
        assert_eq!(r["type"], "ok", "{r}");
        for c in [&mut host, &mut guest, &mut spectator] {
            let m = c.wait_push("chat_message", |_| true).await;
            let message = &m["message"];
            assert_eq!(message["text"], "go Guest");
            assert_eq!(message["channel"], "spectators");
            assert_eq!(message["seat"], Value::Null);
            assert_eq!(message["name"], "Spectator");
            assert_eq!(message["id"], 2);
        }

        // Refused texts change nothing, and the connection stays usable.
        for (bad, why) in [
            ("   ", "empty"),
            ("line\nbreak", "control character"),
            ("bell\u{7}", "control character"),
        ] {
            let r = say(&mut guest, bad).await;
            assert_eq!(r["code"], "bad_chat", "{why}: {r}");
        }
        let long = "x".repeat(protocol::CHAT_MAX_CHARS + 1);
        let r = say(&mut guest, &long).await;
        assert_eq!(r["code"], "bad_chat", "{r}");
        let longest = "é".repeat(protocol::CHAT_MAX_CHARS);
        let r = say(&mut guest, &longest).await;
        assert_eq!(r["type"], "ok", "500 characters (not bytes) are allowed: {r}");
        let m = host.wait_push("chat_message", |_| true).await;
        assert_eq!(m["message"]["text"], longest.as_str());
        assert_eq!(m["message"]["id"], 3, "refused messages take no number");

        // Outside a lobby there is nobody to talk to.
        let mut lonely = server.client().await;
        let r = say(&mut lonely, "anyone?").await;
        assert_eq!(r["code"], "not_in_lobby", "{r}");

        // Chat goes on during the match, and does not get in its way.
        let r = host.request(req::add_bot()).await;
        assert_eq!(r["code"], "lobby_full", "{r}");
        let r = host.request(req::start()).await;
        assert_eq!(r["type"], "ok", "{r}");
        let state = guest.wait_version(0).await;
        let r = say(&mut guest, "good luck").await;
        assert_eq!(r["type"], "ok", "{r}");
        let m = host.wait_push("chat_message", |_| true).await;
        assert_eq!(m["message"]["text"], "good luck");
        assert_eq!(m["message"]["seat"], 1);
        // Stored with the lobby, and with the match once it is being played.
        let match_id = state["match_id"].as_str().unwrap().to_string();
        let store = db.store().await;
        let stored = store.chat_matches(&code).await.unwrap();
        store.close().await;
        assert_eq!(stored, vec![(1, None), (2, None), (3, None), (4, Some(match_id))]);
        // The match is untouched by it: the next action still applies at the same version.
        let mover = if state["legal_actions"].as_array().unwrap().is_empty() {
            &mut host
        } else {
            &mut guest
        };
        let s = mover.wait_version(0).await;
        let action = s["legal_actions"][0].clone();
        let r = mover.request(req::action(&action, 0)).await;
        assert_eq!(r["type"], "accepted", "{r}");

        server.stop().await;
        db.drop_db().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chat_is_rate_limited_per_writer_on_the_servers_clock() {
    for backend in backends() {
        let db = TestDb::new(backend).await;
        let mut config = test_config();
        config.chat_burst = 3.0;
        config.chat_rate_per_sec = 0.5;
        let server = TestServer::start(&db, config).await;
        let (mut host, mut guest, _, _, _) = lobby_of_two(&server).await;
        for i in 0..3 {
            let r = say(&mut host, &format!("message {i}")).await;
            assert_eq!(r["type"], "ok", "{r}");
        }
        let r = say(&mut host, "one too many").await;
        assert_eq!(r["code"], "rate_limited", "{r}");
        // Another writer has its own allowance.
        let r = say(&mut guest, "my turn").await;
        assert_eq!(r["type"], "ok", "{r}");
        // One message more every two seconds (0.5 per second).
        server.clock.advance(1_999);
        let r = say(&mut host, "still too early").await;
        assert_eq!(r["code"], "rate_limited", "{r}");
        server.clock.advance(1);
        let r = say(&mut host, "now").await;
        assert_eq!(r["type"], "ok", "{r}");
        let r = say(&mut host, "and not again").await;
        assert_eq!(r["code"], "rate_limited", "{r}");
        // The refused messages were neither delivered nor numbered.
        let texts: Vec<(String, u64)> = {
            let mut seen = Vec::new();
            while seen.len() < 5 {
                let m = guest.wait_push("chat_message", |_| true).await;
                seen.push((
                    m["message"]["text"].as_str().unwrap().to_string(),
                    m["message"]["id"].as_u64().unwrap(),
                ));
            }
            seen
        };
        assert_eq!(
            texts,
            vec![
                ("message 0".to_string(), 1),
                ("message 1".to_string(), 2),
                ("message 2".to_string(), 3),
                ("my turn".to_string(), 4),
                ("now".to_string(), 5),
            ]
        );
        server.stop().await;
        db.drop_db().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_last_fifty_messages_survive_a_restart() {
    for backend in backends() {
        let db = TestDb::new(backend).await;
        let mut config = test_config();
        config.chat_burst = 1_000.0;
        let server = TestServer::start(&db, config.clone()).await;
        let (mut host, mut guest, code, host_token, guest_token) = lobby_of_two(&server).await;
        for i in 1..=55 {
            let c = if i % 2 == 0 { &mut guest } else { &mut host };
            let r = say(c, &format!("<i>message</i> {i}")).await;
            assert_eq!(r["type"], "ok", "{r}");
        }
        // Everything was delivered, in order.
        for i in 1..=55u64 {
            let m = host.wait_push("chat_message", |_| true).await;
            assert_eq!(m["message"]["id"], i);
        }
        let clock = server.clock.clone();
        server.stop().await;
        drop((host, guest));

        let server = TestServer::start_with_clock(&db, config, clock).await;
        let mut host = server.client().await;
        let r = host.request(req::resume(&code, &host_token)).await;
        assert_eq!(r["type"], "resumed", "{r}");
        let history = host.wait_push("chat_history", |_| true).await;
        let messages = history["messages"].as_array().unwrap();
        assert_eq!(messages.len(), protocol::CHAT_HISTORY);
        let ids: Vec<u64> = messages.iter().map(|m| m["id"].as_u64().unwrap()).collect();
        assert_eq!(ids, (6..=55).collect::<Vec<u64>>(), "the last 50, oldest first");
        assert_eq!(messages[49]["text"], "<i>message</i> 55");
        assert_eq!(messages[49]["name"], "Host");
        assert_eq!(messages[48]["name"], "Guest");
        assert_eq!(messages[48]["seat"], 1);

        // Numbering carries on after the restart.
        let mut guest = server.client().await;
        let r = guest.request(req::resume(&code, &guest_token)).await;
        assert_eq!(r["type"], "resumed", "{r}");
        guest.wait_push("chat_history", |_| true).await;
        let r = say(&mut guest, "back again").await;
        assert_eq!(r["type"], "ok", "{r}");
        let m = host.wait_push("chat_message", |_| true).await;
        assert_eq!(m["message"]["id"], 56);
        server.stop().await;
        db.drop_db().await;
    }
}

/// The table never waits for a chat write: while the chat table is locked in the database (so a chat message
/// cannot be stored), the match goes on for the players (the writer's own connection waits for its reply, as
/// replies come in request order); once the lock is released the message is stored, answered and delivered. PostgreSQL only: SQLite has one writer for the whole
/// database, so a lock there would hold the actions' writes too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_chat_write_that_waits_does_not_hold_up_the_match() {
    use sqlx::Connection;
    for backend in backends() {
        if backend != "postgres" {
            continue;
        }
        let db = TestDb::new(backend).await;
        let server = TestServer::start(&db, test_config()).await;
        let time = Time::Manual(server.clock.clone());
        let (code, mut players) = start_match(
            server.addr,
            GAME,
            json!({"target": 5, "claim_window_ms": 1000}),
            2,
            1,
        )
        .await;
        let mut spectator = server.client().await;
        let r = spectator.request(req::spectate(&code)).await;
        assert_eq!(r["type"], "spectating", "{r}");

        let mut conn = sqlx::PgConnection::connect(db.url()).await.unwrap();
        let mut lock = conn.begin().await.unwrap();
        sqlx::query("LOCK TABLE chat_messages IN ACCESS EXCLUSIVE MODE")
            .execute(&mut *lock)
            .await
            .unwrap();
        spectator
            .send_text(req::frame(
                req::chat("can you see this?"),
                RequestId::Text("waiting".into()),
            ))
            .await;

        let played = play(&mut players, &time, 3, 6).await;
        let version = played.last_state["version"].as_u64().unwrap();
        assert!(version >= 6, "the match went on: version {version}");
        lock.rollback().await.unwrap();
        let r = spectator.reply_to(json!("waiting")).await;
        assert_eq!(r["type"], "ok", "{r}");
        let m = players[0].client.wait_push("chat_message", |_| true).await;
        assert_eq!(m["message"]["text"], "can you see this?");
        conn.close().await.unwrap();
        server.stop().await;
        db.drop_db().await;
    }
}
