//! Issue 47's acceptance run: a correspondence table of two players; Bob asks to be told of his turns by webhook,
//! Web Push and email (the subscription his page would send; a headless browser cannot reach a real push
//! service), closes his page, and Alice moves until it is his turn. Each of his receivers, real servers on
//! loopback, gets exactly one "your turn" within 2 s: the webhook's POST, the push (checked for its VAPID
//! signature and decrypted with the subscription's keys, as a push service and browser would), and the email at
//! an SMTP sink. Then Bob opens the start page in Chromium: the table is listed first, his turn, and opening it
//! shows the catch-up of Alice's moves before the board. On SQLite and on PostgreSQL (`common::backends`), each
//! run checking that the table is in that backend's database.
//!
//! Needs `chromium` and `chromedriver` on PATH; without them the test says so and passes, unless `CI` is set.

mod common;

use std::time::Duration;

use common::{Browser, TestServer, assert_stored, browsers_available, with_chromedriver};
use integration_tests::webhook_receiver::{DELIVERY, Receiver};
use integration_tests::{Client, TestDb, http_get, push_receiver::PushReceiver, req, smtp_sink::SmtpSink};
use serde_json::{Value, json};

/// Alice plays her first legal action until it is seat `bob`'s turn; returns how many she played.
async fn alice_until_bobs_turn(alice: &mut Client, bob: u64) -> u64 {
    let mut played = 0;
    loop {
        let state = alice.state.clone().expect("a state");
        let version = state["version"].as_u64().unwrap();
        assert_eq!(state["status"]["kind"], "turn", "{state}");
        if state["status"]["seat"] == bob {
            return played;
        }
        let action = state["legal_actions"][0].clone();
        let r = alice.request(req::action(&action, version)).await;
        assert_eq!(r["type"], "accepted", "{r}");
        alice.wait_version(r["version"].as_u64().unwrap()).await;
        played += 1;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bob_away_from_the_page_hears_of_his_turn_once_on_each_channel_and_catches_up() {
    let test = "correspondence notification test";
    if !browsers_available(test) {
        return;
    }
    for backend in common::backends(test) {
        eprintln!("{test}: on {backend}");
        run_on(backend).await;
    }
}

/// The acceptance run on a server whose database is a fresh one of `backend`.
async fn run_on(backend: &str) {
    let mut sink = SmtpSink::start().await;
    let smtp = sink.url();
    let server = TestServer::start_on(TestDb::new(backend).await, move |config| {
        config.notify_allow_private = true;
        config.smtp_url = Some(server::config::Redacted(smtp));
        config.smtp_from = Some("Tabletop <games@example.org>".into());
    })
    .await;
    let (addr, base) = (server.addr, server.base_url());
    let (status, key) = http_get(addr, "/api/push/key").await;
    assert_eq!(status, 200, "{key}");
    let key: Value = serde_json::from_str(&key).unwrap();
    let mut push = PushReceiver::start(key["publicKey"].as_str().unwrap()).await;
    let mut hook = Receiver::start().await;

    // Alice creates a correspondence table of Hickory Dickory, a day a turn; Bob joins; the match starts.
    let mut alice = Client::hello(addr).await;
    let created = alice
        .request(json!({"type": "create_lobby", "game": "hickory_dickory", "seats": 2, "name": "Alice",
            "pace": {"kind": "correspondence", "move_ms": 86_400_000, "bank_cap_ms": 259_200_000, "stall": "bot"}}))
        .await;
    assert_eq!(created["type"], "seated", "{created}");
    let code = created["code"].as_str().unwrap().to_string();
    let mut bob = Client::hello(addr).await;
    let joined = bob.request(req::join(&code, "Bob")).await;
    assert_eq!(joined["type"], "seated", "{joined}");
    let (bob_seat, bob_token) = (
        joined["seat"].as_u64().unwrap(),
        joined["seat_token"].as_str().unwrap().to_string(),
    );
    assert_eq!(alice.request(req::start()).await["type"], "ok");
    alice.wait_version(0).await;
    let first = bob.wait_version(0).await;

    // Bob's three endpoints, as his page sends them.
    let subscription = push.subscribe("bob");
    for target in [
        json!({"channel": "webhook", "url": hook.url}),
        json!({"channel": "web_push", "endpoint": subscription.endpoint, "p256dh": subscription.p256dh, "auth": subscription.auth}),
        json!({"channel": "email", "address": "bob@example.org"}),
    ] {
        let r = bob
            .request(json!({"type": "notify_subscribe", "target": target, "language": "en"}))
            .await;
        assert_eq!(r["type"], "notify_endpoints", "{r}");
    }
    // If Bob starts, he plays until it is Alice's turn before he leaves.
    let _ = first;
    loop {
        let state = bob.state.clone().unwrap();
        if state["status"]["seat"] != bob_seat {
            break;
        }
        let version = state["version"].as_u64().unwrap();
        let r = bob
            .request(req::action(&state["legal_actions"][0], version))
            .await;
        assert_eq!(r["type"], "accepted", "{r}");
        let v = r["version"].as_u64().unwrap();
        bob.wait_version(v).await;
        alice.wait_version(v).await;
    }
    let last_seen = bob.state.as_ref().unwrap()["version"].as_u64().unwrap();
    // Bob closes his page.
    bob.close().await;
    let played = alice_until_bobs_turn(&mut alice, bob_seat).await;
    assert!(played > 0);

    let told = hook.next().await.body;
    assert_eq!(told["kind"], "your_turn", "{told}");
    assert_eq!(told["table"], code.as_str());
    let pushed = push
        .next(DELIVERY)
        .await
        .unwrap_or_else(|| panic!("a push within 2 s: {:?}", push.refused()));
    assert_eq!(pushed.payload["kind"], "your_turn", "{:?}", pushed.payload);
    assert_eq!(pushed.payload["tag"], code.as_str());
    let mail = sink.next(DELIVERY).await.expect("an email within 2 s");
    assert_eq!(mail.to, vec!["bob@example.org".to_string()]);
    assert!(mail.decoded().contains(&code), "{}", mail.decoded());
    // Exactly one each, and the same notification.
    assert_eq!(pushed.payload["id"], told["id"]);
    assert!(
        hook.within(Duration::from_millis(800)).await.is_none(),
        "one webhook call"
    );
    assert!(push.next(Duration::from_millis(200)).await.is_none(), "one push");
    assert!(sink.next(Duration::from_millis(200)).await.is_none(), "one email");
    // The table and Bob's three endpoints are in the backend's own database.
    let stored = assert_stored(&server, backend, &code).await;
    assert_eq!(
        serde_json::to_value(stored.lobby.pace).unwrap()["kind"],
        "correspondence"
    );
    let endpoints = server
        .store()
        .await
        .endpoints(&code, bob_seat as u8)
        .await
        .unwrap();
    assert_eq!(endpoints.len(), 3, "{backend}: {endpoints:?}");

    let seat = Seat {
        code,
        number: bob_seat,
        token: bob_token,
        last_seen,
    };
    bob_catches_up_in_chromium(&base, seat, played).await;
    server.finish().await;
}

/// Bob's seat as his browser keeps it.
struct Seat {
    code: String,
    number: u64,
    token: String,
    /// The version he last saw.
    last_seen: u64,
}

/// Bob opens the start page in Chromium: the table is listed first, waiting on him, with the title's badge; opening
/// it shows the catch-up of Alice's `played` moves since he last looked.
async fn bob_catches_up_in_chromium(base: &str, seat: Seat, played: u64) {
    let base = base.to_string();
    let Seat {
        code,
        number: bob_seat,
        token: bob_token,
        last_seen,
    } = seat;
    with_chromedriver(|webdriver| async move {
        let page = Browser::open(&webdriver, "bob", 1100, 900, false).await;
        page.goto(&format!("{base}/")).await;
        let seats = json!({"name": "Bob", "seats": {
            code.clone(): {"seat": bob_seat, "token": bob_token, "lastVersion": last_seen, "savedAt": 1},
        }});
        page.js(&format!("localStorage.setItem('tabletop.v1', {}); return true;", json!(seats.to_string())))
            .await;
        page.goto(&format!("{base}/")).await;
        page.wait_for("Bob's tables", "document.querySelector('.my-tables li')").await;
        let listed = page
            .js("const li = document.querySelector('.my-tables li'); return {code: li.dataset.code, mine: li.dataset.yourTurn, text: li.textContent}")
            .await;
        assert_eq!(listed["code"], json!(code), "{listed}");
        assert_eq!(listed["mine"], "true", "{listed}");
        assert!(page.js("return document.title").await.as_str().unwrap().starts_with("(1) "));
        page.js("document.querySelector('.my-tables li a').click(); return true;").await;
        page.wait_for("the catch-up", "document.querySelectorAll('[data-key=catch-up-list] li').length > 0")
            .await;
        let moves = page
            .js("return [...document.querySelectorAll('[data-key=catch-up-list] li')].map(li => Number(li.dataset.seq))")
            .await;
        let expected: Vec<u64> = (last_seen + 1..=last_seen + played).collect();
        assert_eq!(moves, json!(expected), "Alice's moves since Bob's last look");
        page.close().await;
    })
    .await;
}
