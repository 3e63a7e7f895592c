//! Notifications (issue 47, points 4 and 5): a seat's webhook hears of its turn when its player is not at the
//! table (never while the page shows it) and of the match's end, exactly once each, signed; a failing receiver is
//! retried and then switched off and the seat told; bad endpoints are refused with clear codes; a notification
//! committed before a kill -9 is delivered once after the restart. On every backend.

use std::sync::atomic::Ordering::SeqCst;
use std::time::Duration;

use hmac::{KeyInit, Mac};
use integration_tests::webhook_receiver::{DELIVERY, Delivery, Receiver};
use integration_tests::*;
use serde_json::{Value, json};

const GAME: &str = "hickory_dickory";

/// Checks a delivery's signature as a receiver would: HMAC-SHA256 of `"<t>.<body>"` under the secret.
fn assert_signed(d: &Delivery, secret: &str) {
    let header = d.header("x-tabletop-signature").expect("a signature header");
    let (t, v1) = header.split_once(",v1=").expect("t=...,v1=...");
    let t = t.strip_prefix("t=").unwrap();
    let mut mac = hmac::Hmac::<sha2::Sha256>::new_from_slice(secret.as_bytes()).unwrap();
    mac.update(format!("{t}.").as_bytes());
    mac.update(&d.raw);
    assert_eq!(
        hex::encode(mac.finalize().into_bytes()),
        v1,
        "the signature checks"
    );
    assert_eq!(
        d.header("x-tabletop-id"),
        d.body["id"].as_str(),
        "the id header is the body's id"
    );
}

fn config() -> server::Config {
    let mut config = test_config();
    config.notify_allow_private = true;
    // Presence stays `connected` however the manual clock moves: only a hidden page or no connection is away.
    config.idle_after_ms = 365 * 86_400_000;
    config.notify_retry_base_ms = 1_000;
    config.notify_retry_max_ms = 1_000;
    config.notify_switch_off_after = 3;
    config
}

/// Waits until the outbox is empty: every delivery recorded (the receiver hears before the row is deleted).
async fn wait_until_delivered(store: &server::Store) {
    for _ in 0..100 {
        if store.outbox_len().await.unwrap() == 0 {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the outbox still holds rows");
}

async fn subscribe(client: &mut Client, url: &str) -> Value {
    let r = client
        .request(json!({"type": "notify_subscribe", "target": {"channel": "webhook", "url": url}, "language": "es"}))
        .await;
    assert_eq!(r["type"], "notify_endpoints", "{r}");
    r
}

/// Plays the first legal action of whoever must decide until an action of another seat gives `target` the turn;
/// returns the version reached. Both clients are kept in step.
async fn play_until_turn_of(players: &mut [Player], target: u8) -> u64 {
    loop {
        let state = players[0].client.state.clone().expect("a state");
        let version = state["version"].as_u64().unwrap();
        assert_eq!(state["status"]["kind"], "turn", "{state}");
        let seat = state["status"]["seat"].as_u64().unwrap() as usize;
        let own = players[seat].client.wait_version(version).await;
        let action = own["legal_actions"][0].clone();
        let r = players[seat].client.request(req::action(&action, version)).await;
        assert_eq!(r["type"], "accepted", "{r}");
        let v = r["version"].as_u64().unwrap();
        for p in players.iter_mut() {
            p.client.wait_version(v).await;
        }
        let now = players[0].client.state.clone().unwrap();
        if seat != usize::from(target) && now["status"]["kind"] == "turn" && now["status"]["seat"] == target {
            return v;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seat_away_from_the_table_hears_of_its_turn_once_never_while_it_looks() {
    for backend in backends() {
        let db = TestDb::new(backend).await;
        let server = TestServer::start(&db, config()).await;
        let mut hook = Receiver::start().await;
        let (code, mut players) = start_match(server.addr, GAME, json!({}), 2, 2).await;
        let subscribed = subscribe(&mut players[1].client, &hook.url).await;
        let secret = subscribed["secret"]
            .as_str()
            .expect("the secret, once")
            .to_string();
        assert_eq!(subscribed["endpoints"][0]["active"], true);
        assert_eq!(
            subscribed["endpoints"][0]["label"],
            hook.url[7..].split('/').next().unwrap()
        );
        // The list never shows the secret again.
        let listed = players[1].client.request(json!({"type": "notify_list"})).await;
        assert!(listed.get("secret").is_none(), "{listed}");
        assert_eq!(listed["endpoints"], subscribed["endpoints"]);

        // Bob's page is hidden: his turn reaches his webhook, once, signed, in his language.
        let r = players[1].client.request(req::presence(true)).await;
        assert_eq!(r["type"], "ok");
        play_until_turn_of(&mut players, 1).await;
        let first = hook.next().await;
        assert_signed(&first, &secret);
        assert_eq!(first.body["kind"], "your_turn", "{:?}", first.body);
        assert_eq!(first.body["table"], code.as_str());
        assert_eq!(first.body["game"], "Hickory Dickory");
        assert!(
            first.body["title"].as_str().unwrap().starts_with("Tu turno"),
            "{:?}",
            first.body
        );
        assert!(
            first.body["link"]
                .as_str()
                .unwrap()
                .ends_with(&format!("#join={code}"))
        );

        // While his page shows the table, his turns are not told; once hidden again, the next one is, and it is
        // the next delivery (none came in between).
        let r = players[1].client.request(req::presence(false)).await;
        assert_eq!(r["type"], "ok");
        play_until_turn_of(&mut players, 0).await;
        play_until_turn_of(&mut players, 1).await;
        let r = players[1].client.request(req::presence(true)).await;
        assert_eq!(r["type"], "ok");
        play_until_turn_of(&mut players, 0).await;
        play_until_turn_of(&mut players, 1).await;
        let second = hook.next().await;
        assert_eq!(second.body["kind"], "your_turn");
        assert_ne!(second.body["id"], first.body["id"]);

        // With Bob's page showing the table, the match is played out: only its end is told, once.
        let r = players[1].client.request(req::presence(false)).await;
        assert_eq!(r["type"], "ok");
        let played = play(&mut players, &Time::Manual(server.clock.clone()), 7, 10_000).await;
        assert_eq!(played.last_state["status"]["kind"], "over");
        let over = hook.next().await;
        assert_eq!(over.body["kind"], "match_over", "{:?}", over.body);
        assert_signed(&over, &secret);
        let store = db.store().await;
        wait_until_delivered(&store).await;
        store.close().await;
        server.stop().await;
        db.drop_db().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_receiver_is_retried_then_switched_off_and_the_seat_is_told() {
    for backend in backends() {
        let db = TestDb::new(backend).await;
        let server = TestServer::start(&db, config()).await;
        let mut hook = Receiver::start().await;
        hook.status.store(500, SeqCst);
        let (_code, mut players) = start_match(server.addr, GAME, json!({}), 2, 2).await;
        subscribe(&mut players[1].client, &hook.url).await;
        let r = players[1].client.request(req::presence(true)).await;
        assert_eq!(r["type"], "ok");
        play_until_turn_of(&mut players, 1).await;
        // Three tries of the same notification (the same id), each after the backoff; then the endpoint is off.
        let first = hook.next().await;
        for _ in 0..2 {
            let again = hook.next_moving(&server.clock, 1_000).await;
            assert_eq!(again.body["id"], first.body["id"], "a retry carries the same id");
        }
        let told = players[1]
            .client
            .wait_push("notify_changed", |p| p["endpoints"][0]["active"] == false)
            .await;
        let error = told["endpoints"][0]["last_error"].as_str().unwrap();
        assert!(error.contains("500"), "{error}");
        assert!(
            !error.contains("127.0.0.1"),
            "the error names no address: {error}"
        );
        let listed = players[1].client.request(json!({"type": "notify_list"})).await;
        assert_eq!(listed["endpoints"][0]["active"], false, "{listed}");
        server.stop().await;
        db.drop_db().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_endpoints_are_refused_with_clear_codes() {
    for backend in backends() {
        let db = TestDb::new(backend).await;
        let mut strict = config();
        strict.notify_allow_private = false;
        let server = TestServer::start(&db, strict).await;
        let (_code, mut players) = start_match(server.addr, GAME, json!({}), 2, 2).await;
        let c = &mut players[1].client;
        let refused = |r: &Value, code: &str| assert_eq!(r["code"], code, "{r}");
        let webhook =
            |url: &str| json!({"type": "notify_subscribe", "target": {"channel": "webhook", "url": url}});
        // Private addresses without NOTIFY_ALLOW_PRIVATE, other schemes, junk, a URL too long.
        for url in [
            "http://127.0.0.1:9/hook",
            "http://10.0.0.1/x",
            "http://[::1]/x",
            "http://169.254.169.254/latest",
            "ftp://example.org/x",
            "not a url",
        ] {
            refused(&c.request(webhook(url)).await, "bad_endpoint");
        }
        let long = format!("https://example.org/{}", "a".repeat(3000));
        refused(&c.request(webhook(&long)).await, "bad_endpoint");
        let email =
            |a: &str| json!({"type": "notify_subscribe", "target": {"channel": "email", "address": a}});
        refused(&c.request(email("not an address")).await, "bad_endpoint");
        let push = json!({"type": "notify_subscribe", "target": {"channel": "web_push",
            "endpoint": "https://push.example.org/x", "p256dh": "AAAA", "auth": "AAAA"}});
        refused(&c.request(push).await, "bad_endpoint");
        // An unknown language or channel is a malformed request.
        let r = c
            .request(json!({"type": "notify_subscribe", "target": {"channel": "pigeon"}}))
            .await;
        refused(&r, "bad_message");
        // At most five endpoints per seat (addresses need no look-up).
        for i in 0..5 {
            let r = c.request(email(&format!("bob{i}@example.org"))).await;
            assert_eq!(r["type"], "notify_endpoints", "{r}");
            assert_eq!(r["endpoints"][i]["label"], "…@example.org", "{r}");
        }
        refused(&c.request(email("bob9@example.org")).await, "too_many_endpoints");
        let id = {
            let listed = c.request(json!({"type": "notify_list"})).await;
            listed["endpoints"][0]["id"].clone()
        };
        let r = c
            .request(json!({"type": "notify_unsubscribe", "endpoint": id}))
            .await;
        assert_eq!(r["type"], "notify_endpoints", "{r}");
        assert_eq!(r["endpoints"].as_array().unwrap().len(), 4, "{r}");
        refused(
            &c.request(json!({"type": "notify_unsubscribe", "endpoint": id}))
                .await,
            "unknown_endpoint",
        );
        // The connection stays usable; a spectator holds no seat and has no endpoints.
        assert_eq!(c.request(req::ping()).await["type"], "pong");
        let mut spectator = server.client().await;
        let r = spectator.request(req::spectate(&_code)).await;
        assert_eq!(r["type"], "spectating");
        refused(
            &spectator.request(json!({"type": "notify_list"})).await,
            "not_in_lobby",
        );
        server.stop().await;
        db.drop_db().await;
    }
}

const SERVER_BINARY: &str = env!("CARGO_BIN_EXE_server-under-test");

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_notification_committed_before_a_kill_is_delivered_once_after_the_restart() {
    for backend in backends() {
        let db = TestDb::new(backend).await;
        let mut hook = Receiver::start().await;
        let env = [
            ("NOTIFY_ALLOW_PRIVATE", "1"),
            ("IDLE_AFTER_MS", "86400000"),
            ("RATE_LIMIT_BURST", "1000000"),
        ];
        // The first process only writes the outbox (its worker is off), so the kill comes between the commit and
        // the send.
        let without_worker: Vec<(&str, &str)> = env.iter().copied().chain([("NOTIFY_WORKER", "0")]).collect();
        let process = ServerProcess::start(SERVER_BINARY, &db, &without_worker).await;
        let (_code, mut players) = start_match(process.addr, GAME, json!({}), 2, 2).await;
        subscribe(&mut players[1].client, &hook.url).await;
        let r = players[1].client.request(req::presence(true)).await;
        assert_eq!(r["type"], "ok");
        play_until_turn_of(&mut players, 1).await;
        let store = db.store().await;
        assert_eq!(store.outbox_len().await.unwrap(), 1, "committed with the action");
        process.kill().await;

        let process = ServerProcess::start(SERVER_BINARY, &db, &env).await;
        let delivered = hook.next().await;
        assert_eq!(delivered.body["kind"], "your_turn");
        wait_until_delivered(&store).await;
        // Exactly one: nothing else arrives while the worker keeps looking at the (empty) outbox.
        assert!(
            hook.within(Duration::from_millis(800)).await.is_none(),
            "a second delivery"
        );
        store.close().await;
        drop(players);
        process.kill().await;
        db.drop_db().await;
    }
}

/// A correspondence seat whose clock passes 80 % of the bank its decision began with hears it once (`clock_low`),
/// not before; after a restart a reminder written again carries the same id, for the receiver to drop.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_correspondence_clock_at_80_percent_is_told_once() {
    const HOUR: u64 = 3_600_000;
    for backend in backends() {
        let db = TestDb::new(backend).await;
        let server = TestServer::start(&db, config()).await;
        let mut hook = Receiver::start().await;
        let pace = protocol::Pace::Correspondence {
            move_ms: 2 * HOUR,
            bank_cap_ms: 5 * HOUR,
            stall: protocol::StallPolicy::Bot,
        };
        let mut ann = server.client().await;
        let created = ann.request(req::create_lobby(GAME, 2, "Ann").pace(pace)).await;
        assert_eq!(created["type"], "seated", "{created}");
        let code = created["code"].as_str().unwrap().to_string();
        let mut bob = server.client().await;
        let joined = bob.request(req::join(&code, "Bob")).await;
        assert_eq!(joined["type"], "seated", "{joined}");
        assert_eq!(ann.request(req::start()).await["type"], "ok");
        let state = bob.wait_version(0).await;
        let bob_seat = joined["seat"].as_u64().unwrap();
        let bob_token = joined["seat_token"].as_str().unwrap().to_string();
        subscribe(&mut bob, &hook.url).await;
        assert_eq!(bob.request(req::presence(true)).await["type"], "ok");
        let mut players = vec![
            Player {
                client: ann,
                seat: 0,
                token: created["seat_token"].as_str().unwrap().to_string(),
            },
            Player {
                client: bob,
                seat: bob_seat as u8,
                token: bob_token.clone(),
            },
        ];
        players.sort_by_key(|p| p.seat);
        for p in &mut players {
            p.client.wait_version(0).await;
        }
        if state["status"]["seat"] != bob_seat {
            play_until_turn_of(&mut players, bob_seat as u8).await;
            let turn = hook.next().await;
            assert_eq!(turn.body["kind"], "your_turn", "{:?}", turn.body);
        }
        // Bob's decision began with a bank of 2 h: 80 % is 96 minutes.
        server.clock.advance(95 * 60_000);
        assert!(
            hook.within(Duration::from_millis(500)).await.is_none(),
            "nothing before 80 %"
        );
        server.clock.advance(2 * 60_000);
        let low = hook.next().await;
        assert_eq!(low.body["kind"], "clock_low", "{:?}", low.body);
        assert_eq!(low.body["table"], code.as_str());
        server.clock.advance(10 * 60_000);
        assert!(
            hook.within(Duration::from_millis(500)).await.is_none(),
            "once per decision"
        );

        // After a restart the reminder may be written again: with the same id.
        let clock = server.clock.clone();
        drop(players);
        server.stop().await;
        let server = TestServer::start_with_clock(&db, config(), clock).await;
        let mut back = server.client().await;
        let r = back.request(req::resume(&code, &bob_token)).await;
        assert_eq!(r["type"], "resumed", "{r}");
        if let Some(again) = hook.within(Duration::from_secs(1)).await {
            assert_eq!(again.body["kind"], "clock_low", "{:?}", again.body);
            assert_eq!(again.body["id"], low.body["id"], "the same id");
        }
        server.stop().await;
        db.drop_db().await;
    }
}

/// A decision lasts across the seat's own actions, and so does the bank its 80 % reminder counts from: a Quacks
/// brewer with 2 h that draws a chip 50 minutes in (its brew goes on, nothing gained) hears at 96 minutes, as if it
/// had not drawn (with a new decision per action it would hear at 202 minutes, of a bank grown to 3 h 10).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_clock_reminder_counts_from_the_start_of_a_decision_across_its_own_actions() {
    const MINUTE: u64 = 60_000;
    for backend in backends() {
        let db = TestDb::new(backend).await;
        let server = TestServer::start(&db, config()).await;
        let mut hook = Receiver::start().await;
        let pace = req::correspondence(120 * MINUTE, 300 * MINUTE, protocol::StallPolicy::Bot);
        let mut ann = server.client().await;
        let created = ann
            .request(req::create_lobby("quacks", 2, "Ann").pace(pace))
            .await;
        assert_eq!(created["type"], "seated", "{created}");
        let code = created["code"].as_str().unwrap().to_string();
        let mut bob = server.client().await;
        let joined = bob.request(req::join(&code, "Bob")).await;
        assert_eq!(joined["type"], "seated", "{joined}");
        assert_eq!(ann.request(req::start()).await["type"], "ok");
        bob.wait_version(0).await;
        subscribe(&mut bob, &hook.url).await;
        server.clock.advance(50 * MINUTE);
        // Bob draws a chip (answering the card's choice first if he has one).
        let draw = json!({"type": "draw"});
        loop {
            let state = bob.state.clone().unwrap();
            let version = state["version"].as_u64().unwrap();
            let legal = state["legal_actions"].as_array().unwrap();
            let action = if legal.contains(&draw) {
                draw.clone()
            } else {
                legal[0].clone()
            };
            let r = bob.request(req::action(&action, version)).await;
            assert_eq!(r["type"], "accepted", "{r}");
            let state = bob.wait_version(version + 1).await;
            assert!(
                state["status"]["seats"]
                    .as_array()
                    .unwrap()
                    .contains(&joined["seat"]),
                "{state}"
            );
            if action == draw {
                break;
            }
        }
        server.clock.advance(45 * MINUTE);
        assert!(
            hook.within(Duration::from_millis(500)).await.is_none(),
            "nothing before 80 %"
        );
        server.clock.advance(2 * MINUTE);
        let low = hook.next().await;
        assert_eq!(low.body["kind"], "clock_low", "{:?}", low.body);
        server.stop().await;
        db.drop_db().await;
    }
}

/// Two cluster nodes share the outbox (PostgreSQL): both workers run, and each notification reaches the receiver
/// once (rows are claimed with `FOR UPDATE SKIP LOCKED`); every id is delivered exactly once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_a_cluster_each_notification_is_sent_by_one_node_once() {
    let Some(cl) = integration_tests::cluster::TestCluster::new().await else {
        return;
    };
    let a = cl.start(notify_node(&cl, "a")).await;
    let b = cl.start(notify_node(&cl, "b")).await;
    let mut hook = Receiver::start().await;
    let (_code, mut players) = start_match(a.addr, GAME, json!({}), 2, 2).await;
    subscribe(&mut players[1].client, &hook.url).await;
    to_alices_turn_then_hide_bob(&mut players).await;
    let turns = 6;
    for _ in 0..turns {
        play_until_turn_of(&mut players, 1).await;
        play_until_turn_of(&mut players, 0).await;
    }
    let mut ids = std::collections::BTreeSet::new();
    for _ in 0..turns {
        let d = hook.next().await;
        assert_eq!(d.body["kind"], "your_turn", "{:?}", d.body);
        assert!(
            ids.insert(d.body["id"].as_str().unwrap().to_string()),
            "a repeat: {:?}",
            d.body
        );
    }
    let store = cl.db.store().await;
    wait_until_delivered(&store).await;
    store.close().await;
    if let Some(more) = hook.within(Duration::from_secs(1)).await {
        panic!("nothing more: each notification once, but {:?}", more.body);
    }
    a.stop().await;
    b.stop().await;
    cl.finish().await;
}

/// Plays until it is Alice's turn (seat 0), then hides Bob's page: from there each turn of Bob's is told once,
/// whoever began.
async fn to_alices_turn_then_hide_bob(players: &mut [Player]) {
    play_until_turn_of(players, 0).await;
    let r = players[1].client.request(req::presence(true)).await;
    assert_eq!(r["type"], "ok");
}

/// A cluster node of these tests: webhooks on loopback allowed, presence never idle.
fn notify_node(cl: &integration_tests::cluster::TestCluster, name: &str) -> server::Config {
    let mut c = integration_tests::cluster::node_config(&cl.id(name), 60_000);
    c.notify_allow_private = true;
    c.idle_after_ms = 365 * 86_400_000;
    c
}

/// Two cluster nodes with both workers running, one seat with two webhooks: within a rate window the deliveries
/// keep to the per-endpoint and per-seat limits for the cluster as a whole (counted in the database, not per
/// node), and the postponed ones arrive once the window has passed, each once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_a_cluster_the_rate_limits_hold_for_all_nodes_together() {
    const WINDOW: u64 = 10_000;
    let Some(cl) = integration_tests::cluster::TestCluster::new().await else {
        return;
    };
    let node = |name: &str| {
        let mut c = notify_node(&cl, name);
        c.notify_per_endpoint = 2;
        c.notify_per_seat = 3;
        c.notify_rate_window_ms = WINDOW;
        c
    };
    let a = cl.start(node("a")).await;
    let b = cl.start(node("b")).await;
    let mut hooks = [Receiver::start().await, Receiver::start().await];
    let (_code, mut players) = start_match(a.addr, GAME, json!({}), 2, 2).await;
    for hook in &hooks {
        // A worker that sends is busy for a while, so the other node's worker claims what comes meanwhile.
        hook.hold_ms.store(500, SeqCst);
        subscribe(&mut players[1].client, &hook.url).await;
    }
    to_alices_turn_then_hide_bob(&mut players).await;
    // Three turns of Bob's, each claimed before the next is written: six rows, three per endpoint.
    for _ in 0..3 {
        play_until_turn_of(&mut players, 1).await;
        play_until_turn_of(&mut players, 0).await;
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    // All that the limits let through has arrived (each held 0.5 s; the nodes' clocks stand still).
    tokio::time::sleep(Duration::from_secs(3)).await;
    let mut got: Vec<Vec<Delivery>> = hooks.iter_mut().map(|h| h.arrived()).collect();
    let first: Vec<usize> = got.iter().map(Vec::len).collect();
    assert!(
        first.iter().all(|n| *n <= 2),
        "at most 2 a window per endpoint, for both nodes together: {first:?}"
    );
    assert_eq!(
        first.iter().sum::<usize>(),
        3,
        "3 a window per seat, for both nodes together: {first:?}"
    );
    // Window after window on both nodes' clocks, the postponed ones come: each notification once per endpoint.
    let store = cl.db.store().await;
    for _ in 0..4 {
        a.clock.advance(WINDOW);
        b.clock.advance(WINDOW);
        tokio::time::sleep(Duration::from_secs(2)).await;
        if store.outbox_len().await.unwrap() == 0 {
            break;
        }
    }
    wait_until_delivered(&store).await;
    store.close().await;
    tokio::time::sleep(Duration::from_millis(600)).await;
    let mut ids = Vec::new();
    for (hook, got) in hooks.iter_mut().zip(&mut got) {
        got.extend(hook.arrived());
        let mut each: Vec<String> = got
            .iter()
            .map(|d| d.body["id"].as_str().unwrap().to_owned())
            .collect();
        each.sort();
        let n = each.len();
        each.dedup();
        assert_eq!(each.len(), n, "no repeat");
        assert_eq!(n, 3, "every turn told");
        ids.push(each);
    }
    assert_eq!(ids[0], ids[1], "every notification reaches both endpoints");
    a.stop().await;
    b.stop().await;
    cl.finish().await;
}

/// An endpoint switched off by the worker of a node that does not serve the table: the seat, connected to the
/// table's owner, is told (over NATS) all the same.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_a_cluster_the_seat_is_told_on_the_tables_node_when_another_node_switches_its_endpoint_off() {
    let Some(cl) = integration_tests::cluster::TestCluster::forwarding().await else {
        return;
    };
    // The owner only writes the outbox; the other node's worker sends.
    let mut owner = notify_node(&cl, "owner");
    owner.notify_worker = false;
    let a = cl.start(owner).await;
    let b = cl.start(notify_node(&cl, "sender")).await;
    let mut hook = Receiver::start().await;
    hook.status.store(410, SeqCst);
    let (code, mut players) = start_match(a.addr, GAME, json!({}), 2, 2).await;
    assert_eq!(cl.lease(&code).await.0, cl.id("owner"));
    subscribe(&mut players[1].client, &hook.url).await;
    let r = players[1].client.request(req::presence(true)).await;
    assert_eq!(r["type"], "ok");
    play_until_turn_of(&mut players, 1).await;
    assert_eq!(hook.next().await.body["kind"], "your_turn");
    let told = tokio::time::timeout(
        DELIVERY,
        players[1]
            .client
            .wait_push("notify_changed", |p| p["endpoints"][0]["active"] == false),
    )
    .await
    .expect("the seat told within 2 s by the table's node");
    assert!(
        told["endpoints"][0]["last_error"]
            .as_str()
            .unwrap()
            .contains("410"),
        "{told}"
    );
    assert!(hook.arrived().is_empty(), "nothing more once it is off");
    a.stop().await;
    b.stop().await;
    cl.finish().await;
}

/// The one-click unsubscribe link switches off at once every email endpoint of its address, on every seat: the
/// seats' lists show it off right away and a seat whose page is open is told. On every backend.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unsubscribe_link_switches_the_address_off_at_once_and_tells_the_seats() {
    for backend in backends() {
        let db = TestDb::new(backend).await;
        let mut sink = integration_tests::smtp_sink::SmtpSink::start().await;
        let mut with_mail = config();
        with_mail.smtp_url = Some(server::config::Redacted(sink.url()));
        with_mail.smtp_from = Some("Tabletop <games@example.org>".into());
        let server = TestServer::start(&db, with_mail).await;
        let (_code, mut players) = start_match(server.addr, GAME, json!({}), 2, 2).await;
        // Bob's address, on his seat and (written otherwise) on Alice's.
        for (p, address) in [(1, "bob@example.org"), (0, " Bob@Example.ORG")] {
            let r = players[p]
                .client
                .request(
                    json!({"type": "notify_subscribe", "target": {"channel": "email", "address": address}}),
                )
                .await;
            assert_eq!(r["endpoints"][0]["active"], true, "{r}");
        }
        let r = players[1].client.request(req::presence(true)).await;
        assert_eq!(r["type"], "ok");
        play_until_turn_of(&mut players, 1).await;
        let mail = sink.next(DELIVERY).await.expect("Bob's email");
        let link = mail.header("List-Unsubscribe").expect("List-Unsubscribe");
        let path = &link[link.find("/notify/unsubscribe/").expect("the route")..link.len() - 1];
        let (status, _, page) = http_request(server.addr, "POST", path, &[], None).await;
        assert_eq!(status, 200, "{page}");

        // At once: both seats list it off, and Bob, whose page is open, is told.
        for p in [1, 0] {
            let listed = players[p].client.request(json!({"type": "notify_list"})).await;
            assert_eq!(listed["endpoints"][0]["active"], false, "{backend}: {listed}");
            assert_eq!(listed["endpoints"][0]["last_error"], "unsubscribed", "{listed}");
        }
        let told = tokio::time::timeout(DELIVERY, players[1].client.wait_push("notify_changed", |_| true))
            .await
            .expect("Bob told");
        assert_eq!(told["endpoints"][0]["active"], false, "{told}");
        server.stop().await;
        db.drop_db().await;
    }
}
