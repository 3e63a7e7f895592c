//! The typed request helpers the other tests use (`integration_tests::req`): one for every request type, each
//! writing the wire JSON that docs/protocol.md shows (written out here as the expected JSON).

use integration_tests::*;
use protocol::{ClientMessage, Request, RequestId};
use serde_json::json;

#[test]
fn every_request_type_has_a_helper_that_writes_its_wire_json() {
    let action = json!({"type": "move", "to": {"row": 1, "col": 2}});
    let cases = [
        (
            req::hello(),
            json!({"type": "hello", "protocol": protocol::PROTOCOL_VERSION, "client": null}),
        ),
        (
            req::create_lobby("hide_and_eeek", 3, "Ann"),
            json!({"type": "create_lobby", "game": "hide_and_eeek", "options": null, "seats": 3, "name": "Ann",
                   "turn_timer_ms": null, "absent": {"policy": "wait", "grace_ms": 0}}),
        ),
        (
            req::join("ABCDEF", "Bob"),
            json!({"type": "join_lobby", "code": "ABCDEF", "name": "Bob"}),
        ),
        (
            req::spectate("ABCDEF"),
            json!({"type": "spectate", "code": "ABCDEF"}),
        ),
        (
            req::resume_from("ABCDEF", "ab12", 7),
            json!({"type": "resume", "code": "ABCDEF", "token": "ab12", "last_version": 7}),
        ),
        (req::leave(), json!({"type": "leave"})),
        (req::add_bot(), json!({"type": "add_bot", "seat": null})),
        (req::start(), json!({"type": "start"})),
        (
            req::action(&action, 4),
            json!({"type": "action", "action": action, "version": 4}),
        ),
        (req::ping(), json!({"type": "ping"})),
        (req::chat("hi"), json!({"type": "chat", "text": "hi"})),
        (req::presence(true), json!({"type": "presence", "hidden": true})),
        (
            req::configure_lobby(json!({"target": 4}), 3),
            json!({"type": "configure_lobby", "options": {"target": 4}, "seats": 3, "turn_timer_ms": null,
                   "absent": null}),
        ),
        (req::remove_player(1), json!({"type": "remove_player", "seat": 1})),
        (req::make_host(2), json!({"type": "make_host", "seat": 2})),
        (
            req::set_listed(true),
            json!({"type": "set_listed", "listed": true}),
        ),
        (req::rematch(false), json!({"type": "rematch", "accept": false})),
        (req::watch_link(), json!({"type": "watch_link"})),
        (req::vacation(3), json!({"type": "vacation", "days": 3})),
        (req::end_vacation(), json!({"type": "end_vacation"})),
        (
            req::my_tables(&[("ABCDEF", "00ff")]),
            json!({"type": "my_tables", "tables": [{"code": "ABCDEF", "token": "00ff"}]}),
        ),
        (
            req::notify_email("bo@example.org", protocol::NotifyLanguage::Pl),
            json!({"type": "notify_subscribe", "target": {"channel": "email", "address": "bo@example.org"},
                   "language": "pl"}),
        ),
        (
            req::notify_webhook("https://hooks.example.org/x"),
            json!({"type": "notify_subscribe", "target": {"channel": "webhook", "url": "https://hooks.example.org/x"},
                   "language": "en"}),
        ),
        (req::notify_list(), json!({"type": "notify_list"})),
        (
            req::notify_unsubscribe(3),
            json!({"type": "notify_unsubscribe", "endpoint": 3}),
        ),
        (
            req::spectate_with("ABCDEF", "00ff"),
            json!({"type": "spectate", "code": "ABCDEF", "watch": "00ff"}),
        ),
        (
            req::spectate_as("ABCDEF", "Cy"),
            json!({"type": "spectate", "code": "ABCDEF", "name": "Cy"}),
        ),
    ];
    let mut kinds: Vec<&str> = cases.iter().map(|(r, _)| r.kind()).collect();
    let mut types = protocol::REQUEST_TYPES.to_vec();
    kinds.sort_unstable();
    kinds.dedup();
    types.sort_unstable();
    assert_eq!(kinds, types, "one helper per request type");
    for (request, wire) in cases {
        assert_eq!(req::to_value(&request), wire, "{request:?}");
        // The frame the client sends is that JSON with the id, and reads back as the same request.
        let frame = request.clone().frame(9);
        let mut expected = wire;
        expected["id"] = json!(9);
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&frame).unwrap(),
            expected
        );
        let message: ClientMessage = serde_json::from_str(&frame).unwrap();
        assert_eq!(
            (message.id, message.request),
            (Some(RequestId::Number(9)), request)
        );
    }
}

#[test]
fn the_lobby_settings_set_their_fields() {
    let created = req::create_lobby("quacks", 4, "Ann")
        .options(json!({"variant": "basic"}))
        .turn_timer_ms(30_000)
        .absent(req::bot_after(20_000));
    assert_eq!(
        req::to_value(&created),
        json!({"type": "create_lobby", "game": "quacks", "options": {"variant": "basic"}, "seats": 4,
               "name": "Ann", "turn_timer_ms": 30000, "absent": {"policy": "bot", "grace_ms": 20000}})
    );
    let configured = req::configure_lobby(json!({}), 2)
        .turn_timer_ms(5_000)
        .absent(req::skip_after(0));
    assert_eq!(
        req::to_value(&configured),
        json!({"type": "configure_lobby", "options": {}, "seats": 2, "turn_timer_ms": 5000,
               "absent": {"policy": "skip", "grace_ms": 0}})
    );
    assert_eq!(
        req::to_value(&req::resume("ABCDEF", "ab12")),
        json!({"type": "resume", "code": "ABCDEF", "token": "ab12", "last_version": null})
    );
    assert_eq!(
        req::to_value(&req::add_bot_at(3)),
        json!({"type": "add_bot", "seat": 3})
    );
    assert_eq!(
        req::to_value(&req::action(&json!({"type": "stop"}), None))["version"],
        json!(null)
    );
    assert_eq!(
        req::to_value(&req::hello_as(99, Some("tests"))),
        json!({"type": "hello", "protocol": 99, "client": "tests"})
    );
}

#[test]
#[should_panic(expected = "a turn timer on a join_lobby request")]
fn lobby_settings_on_another_request_are_a_test_bug() {
    let _: Request = req::join("ABCDEF", "Bob").turn_timer_ms(1);
}
