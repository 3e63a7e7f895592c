//! The notification channels (issue 47, point 4): Web Push and email as a push service, a browser and a mail
//! server receive them, on loopback (`integration_tests::push_receiver`, `smtp_sink`), and the email's one-click
//! unsubscribe link. On SQLite and, with `TEST_DATABASE_URL`, PostgreSQL.

use std::time::Duration;

use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD as B64};
use integration_tests::{push_receiver::PushReceiver, *};
use protocol::{NotifyKind, NotifyLanguage};
use serde_json::{Value, json};
use server::notify::{
    Endpoint, Notification, SendError, email, http_post::PostSettings, vapid::VapidKey, webpush,
};

const WAIT: Duration = Duration::from_secs(5);

/// Loopback receivers are allowed, as the tests' servers allow them.
const LOOPBACK: PostSettings = PostSettings {
    timeout: Duration::from_secs(5),
    allow_private: true,
};

fn notification(kind: NotifyKind, language: NotifyLanguage) -> Notification {
    Notification {
        id: "0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b".parse().unwrap(),
        kind,
        lobby_code: "KXRT-PQWM".into(),
        game: "quacks".into(),
        seat: 1,
        language,
        at_ms: CLOCK_START,
        link: "http://games.example.org/#KXRT-PQWM".into(),
        title: "Your turn at Quacks".into(),
        body: "Alice has played; the table waits for you.".into(),
    }
}

fn now_secs() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// RFC 8291, Appendix A: the test receiver decrypts the RFC's message with the RFC's keys (and refuses it
/// changed), so that what it decrypts below is what a browser would read.
#[test]
fn the_receiver_decrypts_the_rfc_8291_example() {
    let body = B64
        .decode("DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN")
        .unwrap();
    let private = B64.decode("q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94").unwrap();
    let auth = B64.decode("BTBZMqHH6r4Tts7J_aSIgg").unwrap();
    assert_eq!(
        push_receiver::decrypt_with(&body, &private, &auth).unwrap(),
        b"When I grow up, I want to be a watermelon"
    );
    let mut changed = body.clone();
    changed[40] ^= 1;
    assert!(push_receiver::decrypt_with(&changed, &private, &auth).is_err());
}

/// A push sent by `webpush::send` reaches the push service with a VAPID token it accepts (signed by the key
/// stored in the database, `aud` its origin, `exp` ahead), and the browser decrypts the payload.
#[tokio::test]
async fn a_push_arrives_signed_and_decrypts_to_the_payload() {
    for backend in backends() {
        let db = TestDb::new(backend).await;
        let store = db.store().await;
        let key = VapidKey::load(None, None, Some("mailto:ops@example.org"), &store, CLOCK_START)
            .await
            .unwrap();
        // Made once: a second load (another node, a restart) reads the same key.
        let again = VapidKey::load(None, None, None, &store, CLOCK_START + 1)
            .await
            .unwrap();
        assert_eq!(key.public_key(), again.public_key(), "{backend}");

        let mut receiver = PushReceiver::start(key.public_key()).await;
        let bob = receiver.subscribe("bob");
        let n = notification(NotifyKind::YourTurn, NotifyLanguage::En);
        webpush::send(
            &key,
            &bob.endpoint,
            &bob.p256dh,
            &bob.auth,
            &n,
            now_secs(),
            LOOPBACK,
        )
        .await
        .unwrap();
        let got = receiver.next(WAIT).await.expect("a delivery");
        assert_eq!(receiver.refused(), Vec::<String>::new(), "{backend}");
        assert_eq!(got.name, "bob");
        assert_eq!(
            got.payload,
            json!({
                "id": n.id.to_string(), "kind": "your_turn", "title": n.title, "body": n.body, "link": n.link,
                "tag": "KXRT-PQWM",
            })
        );
        assert_eq!(got.claims["sub"], "mailto:ops@example.org");
        assert_eq!(got.headers["ttl"], webpush::TTL_SECS.to_string());
        assert_eq!(got.headers["urgency"], "high");
        assert_eq!(got.headers["content-encoding"], "aes128gcm");
        store.close().await;
        db.drop_db().await;
    }
}

/// A push service's answers: 410 and 404 (the subscription is gone) are permanent, 429 and 5xx temporary; a
/// token for another key is refused by the push service (so the check is real).
#[tokio::test]
async fn gone_is_permanent_and_busy_is_temporary() {
    let db = TestDb::new("sqlite").await;
    let store = db.store().await;
    let key = VapidKey::load(None, None, None, &store, CLOCK_START)
        .await
        .unwrap();
    let mut receiver = PushReceiver::start(key.public_key()).await;
    let bob = receiver.subscribe("bob");
    let n = notification(NotifyKind::MatchOver, NotifyLanguage::En);
    let send_with = |key, settings| {
        webpush::send(
            key,
            &bob.endpoint,
            &bob.p256dh,
            &bob.auth,
            &n,
            now_secs(),
            settings,
        )
    };
    let send = |key| send_with(key, LOOPBACK);
    for (status, permanent) in [(410, true), (404, true), (429, false), (503, false)] {
        receiver.answer_with(status);
        match send(&key).await {
            Err(SendError::Permanent(_)) => assert!(permanent, "{status}"),
            Err(SendError::Temporary(_)) => assert!(!permanent, "{status}"),
            Ok(()) => panic!("{status} is not a delivery"),
        }
        assert_eq!(receiver.next(WAIT).await.expect("a delivery").status, status);
    }
    receiver.answer_with(201);
    // Urgency follows the kind: the end of a match is not urgent.
    send(&key).await.unwrap();
    assert_eq!(receiver.next(WAIT).await.unwrap().headers["urgency"], "normal");

    // Another server's key: the push service refuses the token (403, permanent), nothing is delivered.
    let other_db = TestDb::new("sqlite").await;
    let other_store = other_db.store().await;
    let other = VapidKey::load(None, None, None, &other_store, CLOCK_START)
        .await
        .unwrap();
    assert!(matches!(send(&other).await, Err(SendError::Permanent(_))));
    assert_eq!(receiver.refused(), vec!["k= is not the server's key".to_owned()]);
    assert!(receiver.next(Duration::from_millis(200)).await.is_none());
    // A subscription whose keys are not a P-256 point is permanent, before any request.
    let bad = webpush::send(&key, &bob.endpoint, "AAAA", &bob.auth, &n, now_secs(), LOOPBACK).await;
    assert!(matches!(bad, Err(SendError::Permanent(_))));
    // Without NOTIFY_ALLOW_PRIVATE a push endpoint must be https: the receiver's plain http one is refused for
    // good, before any request.
    let strict = PostSettings {
        allow_private: false,
        ..LOOPBACK
    };
    let plain = send_with(&key, strict).await;
    assert_eq!(
        plain,
        Err(SendError::Permanent("refused URL: not an https URL".into()))
    );
    assert!(receiver.next(Duration::from_millis(200)).await.is_none());
    store.close().await;
    other_store.close().await;
    db.drop_db().await;
    other_db.drop_db().await;
}

/// `/api/push/key` serves the key the server signs with, the same after a restart.
#[tokio::test]
async fn the_push_key_is_served_and_kept_across_restarts() {
    for backend in backends() {
        let db = TestDb::new(backend).await;
        let server = TestServer::start(&db, test_config()).await;
        let (status, body) = http_get(server.addr, "/api/push/key").await;
        assert_eq!(status, 200, "{backend}");
        let first: Value = serde_json::from_str(&body).unwrap();
        let key = first["publicKey"].as_str().unwrap().to_owned();
        assert_eq!(B64.decode(&key).unwrap().len(), 65);
        server.stop().await;
        let server = TestServer::start(&db, test_config()).await;
        let (_, body) = http_get(server.addr, "/api/push/key").await;
        let second: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(second["publicKey"], key.as_str(), "{backend}");
        // The same key as the store's (what every sender loads).
        let store = db.store().await;
        let stored = VapidKey::load(None, None, None, &store, CLOCK_START)
            .await
            .unwrap();
        assert_eq!(stored.public_key(), key);
        store.close().await;
        server.stop().await;
        db.drop_db().await;
    }
}

fn mailer(sink: &smtp_sink::SmtpSink) -> email::Mailer {
    email::Mailer::new(&sink.url(), "Tabletop <games@example.org>").unwrap()
}

/// The path of the email's one-click link (`List-Unsubscribe: <http://host/notify/unsubscribe/TOKEN>`).
fn unsubscribe_path(mail: &smtp_sink::Mail) -> String {
    let header = mail.header("List-Unsubscribe").expect("List-Unsubscribe");
    let url = header.trim_start_matches('<').trim_end_matches('>');
    let at = url.find("/notify/unsubscribe/").expect("the route");
    url[at..].to_owned()
}

/// An email reaches the relay with the envelope, the subject, a `Message-ID` from the notification's id, the
/// one-click unsubscribe headers, and the link to the table in the player's language.
#[tokio::test]
async fn an_email_arrives_with_its_headers_and_link() {
    let db = TestDb::new("sqlite").await;
    let store = db.store().await;
    let mut sink = smtp_sink::SmtpSink::start().await;
    let n = notification(NotifyKind::YourTurn, NotifyLanguage::Es);
    email::send(
        &mailer(&sink),
        &store,
        "endpoint-1",
        "bob@example.org",
        &n,
        CLOCK_START,
    )
    .await
    .unwrap();
    let mail = sink.next(WAIT).await.expect("a message");
    assert_eq!(mail.from, "games@example.org");
    assert_eq!(mail.to, vec!["bob@example.org".to_owned()]);
    assert_eq!(mail.header("Subject").as_deref(), Some(n.title.as_str()));
    assert_eq!(
        mail.header("Message-ID").as_deref(),
        Some("<0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b@example.org>")
    );
    assert_eq!(
        mail.header("List-Unsubscribe-Post").as_deref(),
        Some("List-Unsubscribe=One-Click")
    );
    assert_eq!(mail.header("Auto-Submitted").as_deref(), Some("auto-generated"));
    let link = mail.header("List-Unsubscribe").unwrap();
    assert!(
        link.starts_with("<http://games.example.org/notify/unsubscribe/"),
        "{link}"
    );
    let text = mail.decoded();
    assert!(text.contains(&n.link), "{text}");
    assert!(text.contains(&n.body), "{text}");
    assert!(text.contains("Abrir la mesa"), "{text}");
    assert!(text.contains(link.trim_matches(['<', '>'])), "{text}");
    // Each email has a link of its own.
    email::send(
        &mailer(&sink),
        &store,
        "endpoint-1",
        "bob@example.org",
        &n,
        CLOCK_START,
    )
    .await
    .unwrap();
    let second = sink.next(WAIT).await.expect("a second message");
    assert_ne!(second.header("List-Unsubscribe"), Some(link));
    // An address the relay cannot take is refused before it is tried.
    let bad = email::send(
        &mailer(&sink),
        &store,
        "endpoint-2",
        "not an address",
        &n,
        CLOCK_START,
    )
    .await;
    assert!(matches!(bad, Err(SendError::Permanent(_))));
    // A relay that is not there is worth another try.
    let nowhere = email::Mailer::new("smtp://127.0.0.1:9", "games@example.org").unwrap();
    let down = email::send(&nowhere, &store, "endpoint-1", "bob@example.org", &n, CLOCK_START).await;
    assert!(matches!(down, Err(SendError::Temporary(_))), "{down:?}");
    store.close().await;
    db.drop_db().await;
}

/// The one-click link: `GET` shows a button and changes nothing, the first `POST` switches the email endpoint
/// off, any later use of any of its links says it is already done, no page shows the address, and no email goes
/// to that endpoint any more; another endpoint is not touched.
#[tokio::test]
async fn the_unsubscribe_link_works_once() {
    for backend in backends() {
        let db = TestDb::new(backend).await;
        let server = TestServer::start(&db, test_config()).await;
        let store = db.store().await;
        let mut sink = smtp_sink::SmtpSink::start().await;
        let mut n = notification(NotifyKind::YourTurn, NotifyLanguage::En);
        n.link = format!("http://{}/#KXRT-PQWM", server.addr);
        let mailer = mailer(&sink);
        let now = CLOCK_START;
        for endpoint in ["bob-email", "bob-email", "carol-email"] {
            email::send(&mailer, &store, endpoint, "bob@example.org", &n, now)
                .await
                .unwrap();
        }
        let first = unsubscribe_path(&sink.next(WAIT).await.unwrap());
        let second = unsubscribe_path(&sink.next(WAIT).await.unwrap());
        let carol = unsubscribe_path(&sink.next(WAIT).await.unwrap());

        let (status, page) = http_get(server.addr, &first).await;
        assert_eq!(status, 200, "{backend}");
        assert!(page.contains("<form method=\"post\">"), "{page}");
        assert!(!page.contains("example.org"), "{page}");
        let (status, _, page) = http_request(server.addr, "POST", &first, &[], None).await;
        assert_eq!(status, 200);
        assert!(page.contains("Done: you will get no more emails"), "{page}");
        let (status, _, page) = http_request(server.addr, "POST", &first, &[], None).await;
        assert_eq!(status, 200);
        assert!(page.contains("Already done"), "{page}");
        let (_, _, page) = http_request(server.addr, "POST", &second, &[], None).await;
        assert!(page.contains("Already done"), "{page}");
        let (_, page) = http_get(server.addr, &second).await;
        assert!(page.contains("Already done") && !page.contains("<form"), "{page}");
        assert!(!page.contains("example.org"), "{page}");
        let unknown = format!("/notify/unsubscribe/{}", "0".repeat(64));
        assert_eq!(
            http_request(server.addr, "POST", &unknown, &[], None).await.0,
            404
        );
        assert_eq!(http_get(server.addr, "/notify/unsubscribe/short").await.0, 404);

        // The endpoint is off: nothing more is sent to it; Carol's still gets mail.
        let refused = email::send(&mailer, &store, "bob-email", "bob@example.org", &n, now).await;
        assert!(matches!(refused, Err(SendError::Permanent(_))), "{refused:?}");
        assert!(store.email_unsubscribed("bob-email").await.unwrap());
        assert!(!store.email_unsubscribed("carol-email").await.unwrap());
        email::send(&mailer, &store, "carol-email", "bob@example.org", &n, now)
            .await
            .unwrap();
        assert!(sink.next(WAIT).await.is_some());
        let (_, page) = http_get(server.addr, &carol).await;
        assert!(page.contains("<form"), "{page}");
        store.close().await;
        server.stop().await;
        db.drop_db().await;
    }
}

/// The worker's email sender keys an address's links by its hash: unsubscribing through one seat's email stops
/// the address for every seat, whatever its case.
#[tokio::test]
async fn the_email_sender_switches_an_address_off_for_every_seat() {
    let db = TestDb::new("sqlite").await;
    let server = TestServer::start(&db, test_config()).await;
    let store = db.store().await;
    let mut sink = smtp_sink::SmtpSink::start().await;
    let sender = email::EmailSender {
        mailer: mailer(&sink),
        store: store.clone(),
        clock: std::sync::Arc::new(server.clock.clone()),
    };
    let mut n = notification(NotifyKind::YourTurn, NotifyLanguage::It);
    n.link = format!("http://{}/#KXRT-PQWM", server.addr);
    let bob = Endpoint::Email {
        address: "bob@example.org".into(),
    };
    sender.send(&bob, &n).await.unwrap();
    let mail = sink.next(WAIT).await.unwrap();
    assert!(mail.decoded().contains("Apri il tavolo"));
    let (status, _, page) = http_request(server.addr, "POST", &unsubscribe_path(&mail), &[], None).await;
    assert_eq!(status, 200);
    assert!(page.contains("Fatto"), "{page}");
    let same = Endpoint::Email {
        address: " Bob@Example.ORG".into(),
    };
    assert!(matches!(
        sender.send(&same, &n).await,
        Err(SendError::Permanent(_))
    ));
    assert!(
        store
            .email_unsubscribed(&email::address_key("bob@example.org"))
            .await
            .unwrap()
    );
    let not_email = Endpoint::Webhook {
        url: "http://127.0.0.1:9/".into(),
        secret: "s".into(),
    };
    assert!(matches!(
        sender.send(&not_email, &n).await,
        Err(SendError::Permanent(_))
    ));
    store.close().await;
    server.stop().await;
    db.drop_db().await;
}
