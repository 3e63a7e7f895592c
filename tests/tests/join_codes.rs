//! Join codes against guessing (issue 42, point 4): codes are 16 characters of 31 (79 bits), typed in any case,
//! with or without dashes; failed look-ups are limited per client address and on the whole server with a
//! retryable `rate_limited`; and a private lobby whose match is over is read only by its seats and by those given
//! its watch token (a replay link), never by its code alone. Clients appear to come from different addresses
//! through a trusted proxy's `X-Forwarded-For`, as in `balancer.rs`.

use integration_tests::*;
use serde_json::{Value, json};

const GAME: &str = "hide_and_eeek";
const ALPHABET: &str = "ABCDEFGHJKMNPQRSTUVWXYZ23456789";

/// A connection from 127.0.0.1 (a trusted proxy) for the client at `address`, greeted.
async fn from(server: &TestServer, address: &str) -> Client {
    let mut c = Client::connect_with_headers(server.addr, &[("x-forwarded-for", address)]).await;
    let welcome = c.request(req::hello()).await;
    assert_eq!(welcome["type"], "welcome", "{welcome}");
    c
}

fn code_of(reply: &Value) -> (&str, &str) {
    (
        reply["type"].as_str().unwrap_or(""),
        reply["code"].as_str().unwrap_or(""),
    )
}

/// A code of the right shape that no lobby has (one in 7e23 could be taken; `unknown_lobby` is asserted).
fn unused_code(i: usize) -> String {
    let digits: Vec<char> = ALPHABET.chars().collect();
    (0..16).map(|k| digits[(i * 7 + k * 13) % digits.len()]).collect()
}

fn guessing_config() -> server::config::Config {
    let mut config = test_config();
    config.trusted_proxies = server::proxy::TrustedProxies::parse("127.0.0.1").unwrap();
    config
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn codes_are_sixteen_unambiguous_characters_typed_in_any_case_with_or_without_dashes() {
    let db = TestDb::new("sqlite").await;
    let server = TestServer::start(&db, test_config()).await;
    let mut host = server.client().await;
    let created = host.request(req::create_lobby(GAME, 3, "Ann")).await;
    let code = created["code"].as_str().unwrap().to_string();
    assert_eq!(code.len(), 16, "{code}");
    assert!(code.chars().all(|c| ALPHABET.contains(c)), "{code}");
    // Read aloud in groups of four: lower case, dashes and spaces are all accepted.
    let typed = format!(
        " {}-{}-{} {} ",
        &code[..4].to_lowercase(),
        &code[4..8],
        &code[8..12].to_lowercase(),
        &code[12..]
    );
    let mut bob = server.client().await;
    let joined = bob.request(req::join(&typed, "Bob")).await;
    assert_eq!(
        (joined["type"].as_str(), joined["code"].as_str()),
        (Some("seated"), Some(code.as_str()))
    );
    let mut cy = server.client().await;
    assert_eq!(
        cy.request(req::spectate(&code.to_lowercase())).await["type"],
        "spectating"
    );
    // Neither a short nor a long string of the right letters is a code.
    let mut eve = server.client().await;
    for wrong in [&code[..15], &format!("{code}A")] {
        let r = eve.request(req::join(wrong, "Eve")).await;
        assert_eq!(code_of(&r), ("error", "unknown_lobby"), "{r}");
    }
    server.stop().await;
    db.drop_db().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn guessing_from_one_address_is_refused_rate_limited_while_others_join() {
    let db = TestDb::new("sqlite").await;
    let mut config = guessing_config();
    config.code_guesses_per_ip_burst = 5.0;
    config.code_guesses_per_ip_per_min = 1.0;
    let server = TestServer::start(&db, config).await;
    let mut host = from(&server, "198.51.100.1").await;
    let created = host.request(req::create_lobby(GAME, 3, "Ann")).await;
    let code = created["code"].as_str().unwrap().to_string();
    let token = created["seat_token"].as_str().unwrap().to_string();

    let mut guesser = from(&server, "203.0.113.7").await;
    for i in 0..5 {
        let r = guesser.request(req::join(&unused_code(i), "Eve")).await;
        assert_eq!(code_of(&r), ("error", "unknown_lobby"), "guess {i}: {r}");
    }
    // The allowance is spent: nothing more is looked up from this address, not even a code that exists, and the
    // refusal says when to try again (one failure back a minute).
    for request in [
        req::join(&unused_code(9), "Eve"),
        req::spectate(&code),
        req::join(&code, "Eve"),
    ] {
        let r = guesser.request(request).await;
        assert_eq!(code_of(&r), ("error", "rate_limited"), "{r}");
        let message = r["message"].as_str().unwrap();
        assert!(
            message.contains("try again in 60 s") || message.contains("try again in 59 s"),
            "{message}"
        );
    }
    // The connection stays usable, and another connection from the same address shares the allowance.
    assert_eq!(guesser.request(req::ping()).await["type"], "pong");
    let mut again = from(&server, "203.0.113.7").await;
    assert_eq!(
        code_of(&again.request(req::spectate(&code)).await),
        ("error", "rate_limited")
    );
    // A player who holds a seat still gets back in from that address: a seat token is no guess.
    let mut back = from(&server, "203.0.113.7").await;
    let r = back.request(req::resume(&code, &token)).await;
    assert_eq!(r["type"], "resumed", "{r}");
    // ...but a wrong token is answered like any refused guess.
    let wrong = "0".repeat(64);
    let r = again.request(req::resume(&code, &wrong)).await;
    assert_eq!(code_of(&r), ("error", "rate_limited"), "{r}");
    // Meanwhile another address joins, and its own mistakes are its own.
    let mut bob = from(&server, "198.51.100.2").await;
    assert_eq!(
        code_of(&bob.request(req::join(&unused_code(1), "Bob")).await),
        ("error", "unknown_lobby")
    );
    let joined = bob.request(req::join(&code, "Bob")).await;
    assert_eq!(joined["type"], "seated", "{joined}");
    server.stop().await;
    db.drop_db().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn guessing_from_many_addresses_meets_the_servers_total_limit() {
    let db = TestDb::new("sqlite").await;
    let mut config = guessing_config();
    config.code_guesses_per_ip_burst = 3.0;
    config.code_guesses_burst = 12.0;
    config.code_guesses_per_sec = 0.01;
    let server = TestServer::start(&db, config).await;
    let mut host = from(&server, "198.51.100.1").await;
    let created = host.request(req::create_lobby(GAME, 3, "Ann")).await;
    let code = created["code"].as_str().unwrap().to_string();
    let token = created["seat_token"].as_str().unwrap().to_string();

    // Four addresses, three guesses each: every one within its own allowance, together the server's.
    for a in 0..4 {
        let mut c = from(&server, &format!("203.0.113.{}", 10 + a)).await;
        for i in 0..3 {
            let r = c.request(req::join(&unused_code(a * 3 + i), "Eve")).await;
            assert_eq!(code_of(&r), ("error", "unknown_lobby"), "{r}");
        }
    }
    // Now a fifth address, which never guessed, is refused too: look-ups by code alone wait for the total.
    let mut fresh = from(&server, "203.0.113.99").await;
    let r = fresh.request(req::join(&unused_code(50), "Eve")).await;
    assert_eq!(code_of(&r), ("error", "rate_limited"), "{r}");
    assert!(r["message"].as_str().unwrap().contains("on this server"), "{r}");
    let r = fresh.request(req::spectate(&code)).await;
    assert_eq!(code_of(&r), ("error", "rate_limited"), "{r}");
    // Seats still come back (resume carries the seat token); a wrong token learns nothing.
    let r = fresh.request(req::resume(&code, &"0".repeat(64))).await;
    assert_eq!(code_of(&r), ("error", "rate_limited"), "{r}");
    let mut back = from(&server, "198.51.100.1").await;
    assert_eq!(back.request(req::resume(&code, &token)).await["type"], "resumed");
    assert_eq!(fresh.request(req::ping()).await["type"], "pong");
    server.stop().await;
    db.drop_db().await;
}

/// Plays a match of two humans to its end and returns its code and players.
async fn finished_match(server: &TestServer, listed: bool) -> (String, Vec<Player>) {
    let time = Time::Manual(server.clock.clone());
    let mut host = server.client().await;
    let created = host
        .request(req::create_lobby(GAME, 2, "Ann").options(json!({"target": 3, "claim_window_ms": 1000})))
        .await;
    let code = created["code"].as_str().unwrap().to_string();
    if listed {
        assert_eq!(host.request(req::set_listed(true)).await["type"], "ok");
    }
    let mut bob = server.client().await;
    let joined = bob.request(req::join(&code, "Bob")).await;
    // Before the start the watch link is not given: the seats may still change.
    assert_eq!(
        code_of(&host.request(req::watch_link()).await),
        ("error", "not_started")
    );
    assert_eq!(host.request(req::start()).await["type"], "ok");
    let mut players = vec![
        Player {
            client: host,
            seat: 0,
            token: created["seat_token"].as_str().unwrap().to_string(),
        },
        Player {
            client: bob,
            seat: 1,
            token: joined["seat_token"].as_str().unwrap().to_string(),
        },
    ];
    for p in &mut players {
        p.client.wait_version(0).await;
    }
    let played = play(&mut players, &time, 21, 100_000).await;
    assert_eq!(played.last_state["status"]["kind"], "over");
    let last = played.last_state["version"].as_u64().unwrap();
    for p in &mut players {
        p.client.wait_version(last).await;
        assert_eq!(p.client.lobby.as_ref().unwrap()["phase"], "finished");
    }
    (code, players)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_finished_private_lobby_is_read_by_its_seats_and_its_watch_link_only() {
    let db = TestDb::new("sqlite").await;
    let server = TestServer::start(&db, test_config()).await;
    let (code, mut players) = finished_match(&server, false).await;

    // A stranger with the code alone: the same answer as a code no lobby has, for every request.
    let mut stranger = server.client().await;
    let nothing = stranger.request(req::spectate(&unused_code(3))).await;
    let expected = nothing["message"]
        .as_str()
        .unwrap()
        .replace(&unused_code(3), &code);
    for request in [
        req::spectate(&code),
        req::join(&code, "Eve"),
        req::resume(&code, &"0".repeat(64)),
        req::spectate_with(&code, &"0".repeat(32)),
    ] {
        let r = stranger.request(request).await;
        assert_eq!(code_of(&r), ("error", "unknown_lobby"), "{r}");
        assert_eq!(r["message"], expected.as_str());
    }
    assert!(
        stranger.state.is_none() && stranger.lobby.is_none(),
        "nothing of the lobby was sent"
    );

    // A seat holder gets the watch link; with it, anyone watches the finished match and its chat.
    let link = players[1].client.request(req::watch_link()).await;
    assert_eq!(link["type"], "watch_link", "{link}");
    let watch = link["watch"].as_str().unwrap().to_string();
    assert_eq!(watch.len(), 32);
    let host_link = players[0].client.request(req::watch_link()).await;
    assert_eq!(host_link["watch"], watch.as_str(), "one link for the lobby");
    let r = stranger.request(req::spectate_with(&code, &watch)).await;
    assert_eq!(r["type"], "spectating", "{r}");
    let state = stranger.wait_push("state", |_| true).await;
    assert_eq!(state["status"]["kind"], "over");
    // A spectator cannot hand out links.
    assert_eq!(
        code_of(&stranger.request(req::watch_link()).await),
        ("error", "unauthorized")
    );

    // After a restart (the table loaded again from the database): seats resume, the link still works, the code
    // alone still does not.
    let token = players[0].token.clone();
    drop(players);
    let clock = server.clock.clone();
    server.stop().await;
    let server = TestServer::start_with_clock(&db, test_config(), clock).await;
    let mut seat = server.client().await;
    let r = seat.request(req::resume(&code, &token)).await;
    assert_eq!(r["type"], "resumed", "{r}");
    assert_eq!(seat.wait_push("state", |_| true).await["status"]["kind"], "over");
    let mut watcher = server.client().await;
    assert_eq!(
        code_of(&watcher.request(req::spectate(&code)).await),
        ("error", "unknown_lobby")
    );
    assert_eq!(
        watcher.request(req::spectate_with(&code, &watch)).await["type"],
        "spectating"
    );
    server.stop().await;
    db.drop_db().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_finished_listed_lobby_stays_watchable_by_its_code() {
    let db = TestDb::new("sqlite").await;
    let server = TestServer::start(&db, test_config()).await;
    let (code, _players) = finished_match(&server, true).await;
    let mut stranger = server.client().await;
    let r = stranger.request(req::spectate(&code)).await;
    assert_eq!(r["type"], "spectating", "{r}");
    assert_eq!(
        stranger.wait_push("state", |_| true).await["status"]["kind"],
        "over"
    );
    // A watch token, if given, must still be the lobby's.
    let mut other = server.client().await;
    let r = other.request(req::spectate_with(&code, &"0".repeat(32))).await;
    assert_eq!(code_of(&r), ("error", "unknown_lobby"), "{r}");
    server.stop().await;
    db.drop_db().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lobby_stored_with_an_old_six_character_code_is_still_found() {
    use server::store::{LobbyRecord, Phase, SeatKind, SeatRecord};
    let db = TestDb::new("sqlite").await;
    // As a database from before 16-character codes holds it.
    let store = db.store().await;
    let lobby = LobbyRecord {
        code: "ABC234".into(),
        game: GAME.into(),
        options: rules::normalise_config(GAME, &json!({})).unwrap(),
        seat_count: 2,
        host_seat: 0,
        turn_timer_ms: None,
        phase: Phase::Open,
        created_at: 0,
        absent_policy: "wait".into(),
        absent_grace_ms: 0,
        rules_version: None,
        rematch_of: None,
        pace: Default::default(),
    };
    let host = SeatRecord {
        seat: 0,
        kind: SeatKind::Human,
        name: "Ann".into(),
        token_hash: Some(server::secrets::token_hash("old host token")),
    };
    store.create_lobby(&lobby, &host).await.unwrap();
    drop(store);
    let server = TestServer::start(&db, test_config()).await;
    let mut bob = server.client().await;
    let joined = bob.request(req::join("abc-234", "Bob")).await;
    assert_eq!(
        (joined["type"].as_str(), joined["code"].as_str()),
        (Some("seated"), Some("ABC234")),
        "{joined}"
    );
    let mut ann = server.client().await;
    assert_eq!(
        ann.request(req::resume("ABC234", "old host token")).await["type"],
        "resumed"
    );
    server.stop().await;
    db.drop_db().await;
}
