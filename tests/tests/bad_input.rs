//! Every kind of bad input gets an error reply with a stable code, and the connection stays usable; a frame over
//! the size limit and a binary frame end the connection, with their code and a close status.

use integration_tests::*;
use serde_json::{Value, json};

/// After each refusal the same connection still answers a ping with the right request id.
async fn still_usable(c: &mut Client) {
    let pong = c.request(req::ping()).await;
    assert_eq!(pong["type"], "pong", "{pong}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_frames_get_error_replies_and_the_connection_survives() {
    let db = TestDb::new("sqlite").await;
    let mut config = test_config();
    config.max_message_bytes = 1024;
    config.rate_limit_burst = 1_000.0;
    let server = TestServer::start(&db, config).await;
    let mut c = Client::connect(server.addr).await;

    // Before the handshake only hello (and ping) are answered.
    let r = c.request(req::join("ABCDEF", "x")).await;
    assert_eq!(r["code"], "handshake_required", "{r}");
    let r = c.request(req::hello_as(99, None)).await;
    assert_eq!(r["code"], "unsupported_version", "{r}");
    still_usable(&mut c).await;
    let r = c
        .request(req::hello_as(protocol::PROTOCOL_VERSION, Some("tests")))
        .await;
    assert_eq!(r["type"], "welcome", "{r}");
    assert_eq!(r["protocol"], protocol::PROTOCOL_VERSION);

    // Frames that are not requests: (frame, code, echoed id). Raw JSON and text on purpose: no typed request can
    // be malformed like these.
    let cases: Vec<(String, &str, Value)> = vec![
        ("{not json".into(), "bad_message", Value::Null),
        ("[1, 2, 3]".into(), "bad_message", Value::Null),
        ("\"hello\"".into(), "bad_message", Value::Null),
        (
            json!({"id": 41, "protocol": 1}).to_string(),
            "bad_message",
            json!(41),
        ),
        (
            json!({"id": "u", "type": "teleport"}).to_string(),
            "unknown_message",
            json!("u"),
        ),
        (
            json!({"id": 42, "type": "join_lobby", "code": 7}).to_string(),
            "bad_message",
            json!(42),
        ),
        (
            json!({"id": 43, "type": "create_lobby", "game": "hide_and_eeek", "seats": "two", "name": "a"})
                .to_string(),
            "bad_message",
            json!(43),
        ),
        (
            json!({"id": 44, "type": "action"}).to_string(),
            "bad_message",
            json!(44),
        ),
    ];
    for (frame, code, re) in cases {
        c.send_text(frame.clone()).await;
        let r = c.reply_to(re.clone()).await;
        assert_eq!(
            (r["type"].as_str(), r["code"].as_str()),
            (Some("error"), Some(code)),
            "{frame}: {r}"
        );
        assert!(!r["message"].as_str().unwrap().is_empty());
        still_usable(&mut c).await;
    }

    // Requests that are well formed but refused.
    let refusals = [
        (req::create_lobby("chess", 2, "a"), "unknown_game"),
        (req::create_lobby("hide_and_eeek", 9, "a"), "bad_options"),
        (
            req::create_lobby("hide_and_eeek", 2, "a").options(json!({"target": 99})),
            "bad_options",
        ),
        (
            req::create_lobby("hide_and_eeek", 2, "a").options(json!({"colour": "red"})),
            "bad_options",
        ),
        (req::create_lobby("hide_and_eeek", 2, "   "), "bad_name"),
        (req::join("QQQQQQ", "a"), "unknown_lobby"),
        (req::join("O0I1L!", "a"), "unknown_lobby"),
        (req::spectate("QQQQQQ"), "unknown_lobby"),
        (req::resume("QQQQQQ", "aa"), "unknown_lobby"),
        (req::leave(), "not_in_lobby"),
        (req::start(), "not_in_lobby"),
        (req::add_bot(), "not_in_lobby"),
        (req::action(&json!({"type": "stop"}), None), "not_in_lobby"),
    ];
    for (request, code) in refusals {
        let r = c.request(request.clone()).await;
        assert_eq!(
            (r["type"].as_str(), r["code"].as_str()),
            (Some("error"), Some(code)),
            "{request:?}: {r}"
        );
        still_usable(&mut c).await;
    }

    // Two frames end the connection, each with its reason and its close status: one over the size limit
    // (refused from its header) and a binary frame.
    let too_large = format!(
        "{{\"id\": 45, \"type\": \"ping\", \"pad\": \"{}\"}}",
        "x".repeat(2000)
    );
    let mut big = server.client().await;
    big.try_send_text(too_large).await;
    let last = big.until_closed().await.expect("a closing push");
    assert_eq!(
        (last["type"].as_str(), last["code"].as_str()),
        (Some("closing"), Some("too_large")),
        "{last}"
    );
    assert_eq!(big.close_status, Some(Some(1009)));
    let mut binary = server.client().await;
    binary.send_binary(vec![1, 2, 3]).await;
    let last = binary.until_closed().await.expect("a closing push");
    assert_eq!(
        (last["type"].as_str(), last["code"].as_str()),
        (Some("closing"), Some("bad_message")),
        "{last}"
    );
    assert_eq!(binary.close_status, Some(Some(1003)));
    // The first connection was not affected.
    still_usable(&mut c).await;
    server.stop().await;
    db.drop_db().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn flooding_is_rate_limited_and_the_connection_recovers() {
    let db = TestDb::new("sqlite").await;
    let mut config = test_config();
    config.rate_limit_burst = 5.0;
    config.rate_limit_per_sec = 0.001;
    let server = TestServer::start(&db, config).await;
    let mut c = Client::connect(server.addr).await;
    for i in 0..12 {
        c.send_text(req::ping().frame(i)).await;
    }
    let mut codes = Vec::new();
    for i in 0..12 {
        let r = c.read().await.unwrap();
        assert_eq!(r["re"], i, "each refusal echoes its request id");
        codes.push(r["type"].as_str().unwrap().to_string() + ":" + r["code"].as_str().unwrap_or(""));
    }
    assert_eq!(codes.iter().filter(|c| *c == "pong:").count(), 5, "{codes:?}");
    assert_eq!(
        codes.iter().filter(|c| *c == "error:rate_limited").count(),
        7,
        "{codes:?}"
    );
    server.stop().await;
    db.drop_db().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_endpoints_answer() {
    let db = TestDb::new("sqlite").await;
    let server = TestServer::start(&db, test_config()).await;
    let (status, body) = http_get(server.addr, "/api/games").await;
    assert_eq!(status, 200);
    let games: Value = serde_json::from_str(&body).unwrap();
    let ids: Vec<&str> = games
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["id"].as_str().unwrap())
        .collect();
    let catalogue: Vec<&str> = rules::catalogue().iter().map(|g| g.id).collect();
    assert_eq!(ids, catalogue);
    let eeek = &games[0];
    assert_eq!(
        (
            eeek["id"].as_str(),
            eeek["min_players"].as_u64(),
            eeek["max_players"].as_u64()
        ),
        (Some("hide_and_eeek"), Some(2), Some(6))
    );
    assert!(
        eeek["options"]
            .as_array()
            .unwrap()
            .iter()
            .any(|o| o["key"] == "target")
    );
    assert_eq!(http_get(server.addr, "/healthz").await, (200, "ok".into()));
    assert_eq!(http_get(server.addr, "/readyz").await, (200, "ready".into()));

    // Play a little so that every metric has moved.
    let (_code, mut players) = start_match(server.addr, "hide_and_eeek", json!({"target": 3}), 2, 2).await;
    let played = play(&mut players, &Time::Manual(server.clock.clone()), 3, 3).await;
    let refused = players[0]
        .client
        .request(req::action(&json!({"type": "nope"}), None))
        .await;
    assert_eq!(refused["type"], "error");
    let (status, metrics) = http_get(server.addr, "/metrics").await;
    assert_eq!(status, 200);
    let value = |name: &str| -> f64 {
        metrics
            .lines()
            .find_map(|l| l.strip_prefix(name).and_then(|rest| rest.strip_prefix(' ')))
            .unwrap_or_else(|| panic!("{name} missing from\n{metrics}"))
            .parse()
            .unwrap()
    };
    assert!(value("tabletop_connections") >= 2.0);
    assert_eq!(value("tabletop_matches{state=\"playing\"}"), 1.0);
    assert_eq!(
        value("tabletop_actions_total{result=\"accepted\"}"),
        played.acknowledged.len() as f64
    );
    assert_eq!(value("tabletop_actions_total{result=\"rejected\"}"), 1.0);
    assert_eq!(
        value("tabletop_action_latency_seconds_count"),
        played.acknowledged.len() as f64
    );
    let version = played.last_state["version"].as_f64().unwrap();
    assert_eq!(value("tabletop_db_write_seconds_count"), version);
    server.stop().await;
    db.drop_db().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_beyond_the_limit_are_refused_with_503_and_why() {
    let db = TestDb::new("sqlite").await;
    let mut config = test_config();
    config.max_connections = 1;
    let server = TestServer::start(&db, config).await;
    let mut first = server.client().await;
    let refused = Client::try_connect(server.addr)
        .await
        .expect_err("a connection over the cap is not upgraded");
    assert_eq!(refused.status, 503, "{refused:?}");
    assert_eq!(refused.body["code"], "too_many_connections", "{refused:?}");
    assert!(refused.retry_after.is_some(), "{refused:?}");
    // The first one is unaffected, and once it is gone there is room again.
    assert_eq!(first.request(req::ping()).await["type"], "pong");
    drop(first);
    let mut again = None;
    for _ in 0..200 {
        // The server releases the slot when it notices the close; each attempt is a full round trip.
        if let Ok(mut c) = Client::try_connect(server.addr).await {
            c.send_text(req::hello().frame(1)).await;
            if c.read().await.is_some_and(|m| m["type"] == "welcome") {
                again = Some(c);
                break;
            }
        }
        tokio::task::yield_now().await;
    }
    assert!(again.is_some(), "the slot was never released");
    server.stop().await;
    db.drop_db().await;
}

/// A second `hello` on a greeted connection that names the version it speaks is answered `welcome` again and
/// changes nothing (the connection keeps its lobby and seat); one naming another version is refused with
/// `unsupported_version`, saying that the connection already speaks its version.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_hello_changes_nothing() {
    let db = TestDb::new("sqlite").await;
    let server = TestServer::start(&db, test_config()).await;
    let (_code, mut players) = start_match(server.addr, "hide_and_eeek", json!({}), 2, 2).await;
    let c = &mut players[0].client;
    let again = c.request(req::hello()).await;
    assert_eq!(again["type"], "welcome", "{again}");
    assert_eq!(again["protocol"], protocol::PROTOCOL_VERSION);
    let other = c
        .request(req::hello_as(protocol::PROTOCOL_VERSION + 1, None))
        .await;
    assert_eq!(other["code"], "unsupported_version", "{other}");
    let message = other["message"].as_str().unwrap();
    assert!(
        message.contains(&format!(
            "already speaks protocol version {}",
            protocol::PROTOCOL_VERSION
        )),
        "{message}"
    );
    // Still seated and playing: both players' legal actions are accepted.
    let played = play(&mut players, &Time::Manual(server.clock.clone()), 1, 4).await;
    assert_eq!(played.acknowledged.len(), 4);
    server.stop().await;
    db.drop_db().await;
}

/// A field an action does not use is not read, over the wire too: `{"type": "stop", "cell": "garbage"}` is the
/// `stop` it names, accepted where `stop` is legal (and logged as the plain `stop`); a field the action uses is
/// still checked.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fields_an_action_does_not_use_are_ignored() {
    let db = TestDb::new("sqlite").await;
    let server = TestServer::start(&db, test_config()).await;
    let time = Time::Manual(server.clock.clone());
    let (_code, mut players) = start_match(server.addr, "hide_and_eeek", json!({}), 2, 2).await;
    let has = |s: &Value, kind: &str| {
        s["legal_actions"]
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a["type"] == kind)
    };
    let played = play_until(&mut players, &time, 4, 10_000, |s| {
        has(s, "stop") && has(s, "choose")
    })
    .await;
    let state = played.last_state;
    let v = state["version"].as_u64().unwrap();
    let c = &mut players[0].client;
    // A used field of the wrong type is refused...
    let bad = c
        .request(req::action(&json!({"type": "choose", "cell": "garbage"}), v))
        .await;
    assert_eq!(bad["code"], "illegal_action", "{bad}");
    // ... an unused one is not.
    let r = c
        .request(req::action(
            &json!({"type": "stop", "cell": "garbage", "to": 7, "note": null}),
            v,
        ))
        .await;
    assert_eq!(
        (r["type"].as_str(), r["version"].as_u64()),
        (Some("accepted"), Some(v + 1)),
        "{r}"
    );
    let after = c.wait_version(v + 1).await;
    let banked = after["events"].as_array().unwrap();
    assert!(banked.iter().any(|e| e["type"] == "banked"), "{after}");
    server.stop().await;
    db.drop_db().await;
}

/// Refusals say in words what was wrong: which member, and what it should be in JSON's words, never Rust's
/// (serde's own messages read "invalid type: string \"two\", expected u8"). `options`, `absent` and an action
/// must be JSON objects: serde's derive read a list by position (`"options": [5, 2000]` was target 5 and a
/// 2,000 ms window).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refusals_say_in_words_what_was_wrong() {
    let db = TestDb::new("sqlite").await;
    let server = TestServer::start(&db, test_config()).await;
    let (_code, mut players) = start_match(server.addr, "hide_and_eeek", json!({}), 2, 2).await;
    let mut host = Client::hello(server.addr).await;
    let r = host.request(req::create_lobby("hide_and_eeek", 2, "Host")).await;
    assert_eq!(r["type"], "seated", "{r}");
    let mut stranger = Client::hello(server.addr).await;
    let create = |extra: Value| {
        let mut frame = json!({"type": "create_lobby", "game": "hide_and_eeek", "seats": 2, "name": "a"});
        frame
            .as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        frame
    };
    // (frame, code, words the message must hold)
    let requests = [
        (
            create(json!({"options": [5, 2000]})),
            "bad_options",
            vec!["`options`", "object", "list"],
        ),
        (
            create(json!({"options": {"target": "ten"}})),
            "bad_options",
            vec!["`target`", "whole number", "\"ten\""],
        ),
        (
            create(json!({"options": {"colour": "red"}})),
            "bad_options",
            vec!["`colour`", "`target`"],
        ),
        (
            create(json!({"seats": "two"})),
            "bad_message",
            vec!["`seats`", "whole number", "\"two\""],
        ),
        (
            create(json!({"absent": ["bot", 5000]})),
            "bad_message",
            vec!["`absent`", "object", "list"],
        ),
        (
            create(json!({"absent": {"policy": "nap", "grace_ms": 0}})),
            "bad_message",
            vec!["`absent.policy`", "\"wait\"", "\"nap\""],
        ),
        (
            json!({"type": "join_lobby", "name": "a"}),
            "bad_message",
            vec!["`code`", "missing"],
        ),
        (
            json!({"type": "rematch", "accept": "yes"}),
            "bad_message",
            vec!["`accept`", "true or false"],
        ),
    ];
    let mut id = 100;
    for (frame, code, words) in requests {
        id += 1;
        let mut frame = frame;
        frame["id"] = json!(id);
        stranger.send_text(frame.to_string()).await;
        let r = stranger.reply_to(json!(id)).await;
        check_refusal(&frame, &r, code, &words);
    }
    let configure = json!({"id": 1, "type": "configure_lobby", "options": [5, 2000], "seats": 2});
    host.send_text(configure.to_string()).await;
    let r = host.reply_to(json!(1)).await;
    check_refusal(&configure, &r, "bad_options", &["`options`", "object", "list"]);
    stranger
        .send_text(json!({"id": [1], "type": "ping"}).to_string())
        .await;
    let r = stranger.reply_to(Value::Null).await;
    check_refusal(&json!({"id": [1]}), &r, "bad_message", &["`id`", "request id"]);

    // Actions, from the seat that may act.
    let mover = players
        .iter_mut()
        .find(|p| {
            p.client.state.as_ref().unwrap()["legal_actions"]
                .as_array()
                .is_some_and(|a| !a.is_empty())
        })
        .expect("a seat may act");
    let actions = [
        (json!({"type": "nope"}), vec!["\"nope\"", "\"move\""]),
        (
            json!({"type": "move", "to": "b2"}),
            vec!["`to`", "object", "\"b2\""],
        ),
        (
            json!({"type": "move", "to": {"row": 0, "col": 999}}),
            vec!["`to.col`", "whole number", "999"],
        ),
        (json!({"type": "move"}), vec!["`to`", "missing"]),
        (json!(["move", {"row": 0, "col": 0}]), vec!["object", "list"]),
    ];
    for (action, words) in actions {
        let r = mover.client.request(req::action(&action, None)).await;
        check_refusal(&action, &r, "illegal_action", &words);
    }
    server.stop().await;
    db.drop_db().await;
}

fn check_refusal(sent: &Value, reply: &Value, code: &str, words: &[&str]) {
    assert_eq!(
        (reply["type"].as_str(), reply["code"].as_str()),
        (Some("error"), Some(code)),
        "{sent}: {reply}"
    );
    let message = reply["message"].as_str().unwrap();
    for word in words {
        assert!(message.contains(word), "{sent}: {message:?} does not say {word}");
    }
    if let Some(word) = rust_word_in(message) {
        panic!("{sent}: {message:?} says {word}");
    }
}

/// Protocol version 2 calls a game view's number of seats `player_count`; a connection that said hello with
/// version 1 still reads it as `players`, in the same match at the same time.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_version_1_connection_reads_the_seat_count_as_players() {
    let db = TestDb::new("sqlite").await;
    let server = TestServer::start(&db, test_config()).await;
    let (code, players) = start_match(server.addr, "hide_and_eeek", json!({}), 2, 2).await;
    let view = &players[0].client.state.as_ref().unwrap()["view"];
    assert_eq!(
        (view.get("player_count"), view.get("players")),
        (Some(&json!(2)), None),
        "{view}"
    );
    let mut old = Client::connect(server.addr).await;
    let welcome = old.request(req::hello_as(1, Some("an old client"))).await;
    assert_eq!(welcome["protocol"], 1, "{welcome}");
    let r = old.request(req::resume(&code, &players[1].token)).await;
    assert_eq!(r["type"], "resumed", "{r}");
    let state = old.wait_push("state", |_| true).await;
    let old_view = &state["view"];
    assert_eq!(
        (old_view.get("players"), old_view.get("player_count")),
        (Some(&json!(2)), None),
        "{old_view}"
    );
    // Nothing else differs.
    let mut renamed = old_view.clone();
    let count = renamed.as_object_mut().unwrap().remove("players").unwrap();
    renamed["player_count"] = count;
    assert_eq!(&renamed, view);
    server.stop().await;
    db.drop_db().await;
}
