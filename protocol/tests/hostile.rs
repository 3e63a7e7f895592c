//! Hostile client frames against the protocol's reader, as proptest properties that run in plain `cargo test`
//! (the same checks are the `client_message` fuzz target in `fuzz/`; see `docs/reliability.md`).

#[path = "hostile/messages.rs"]
mod messages;

use proptest::prelude::*;
use protocol::{ErrorCode, parse_client_message};

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_text_never_panics_and_accepted_frames_round_trip(text in ".{0,200}") {
        messages::check_text(&text);
    }

    #[test]
    fn arbitrary_bytes_as_text(data in prop::collection::vec(any::<u8>(), 0..256)) {
        messages::check_text(&String::from_utf8_lossy(&data));
    }

    #[test]
    fn action_shaped_frames_read_as_serde_reads_them(data in prop::collection::vec(any::<u8>(), 0..256)) {
        messages::check_text(&messages::action_frame(&data));
    }

    #[test]
    fn request_shaped_frames_never_panic_and_round_trip(data in prop::collection::vec(any::<u8>(), 0..256)) {
        messages::check_text(&messages::structured(&data));
    }
}

fn refused(text: &str) -> ErrorCode {
    messages::check_text(text);
    parse_client_message(text).expect_err(text).code
}

#[test]
fn deep_nesting_is_refused_without_overflowing_the_stack() {
    let nested = |depth: usize| format!("{}1{}", "[".repeat(depth), "]".repeat(depth));
    for depth in [127, 10_000, 100_000] {
        // With the frame's own object, more levels than a `Value` holds (127).
        assert_eq!(
            refused(&format!("{{\"type\":\"ping\",\"x\":{}}}", nested(depth))),
            ErrorCode::BadMessage
        );
        let objects = format!("{}{}", "{\"a\":".repeat(depth), "}".repeat(depth));
        assert_eq!(refused(&objects), ErrorCode::BadMessage);
        // An action is the engine's to read (`rules/tests/hostile.rs` gives engines such actions): the reader
        // keeps its text.
        let action = format!("{{\"type\":\"action\",\"action\":{}}}", nested(depth));
        messages::check_text(&action);
        assert!(parse_client_message(&action).is_ok());
    }
    let deepest = format!("{{\"type\":\"ping\",\"x\":{}}}", nested(126));
    messages::check_text(&deepest);
    assert!(parse_client_message(&deepest).is_ok());
}

#[test]
fn huge_and_negative_numbers_are_refused() {
    for frame in [
        r#"{"type":"hello","protocol":18446744073709551616}"#,
        r#"{"type":"hello","protocol":1e400}"#,
        r#"{"type":"hello","protocol":-1}"#,
        r#"{"type":"hello","protocol":4294967296}"#,
        r#"{"type":"create_lobby","game":"quacks","seats":-2,"name":"a"}"#,
        r#"{"type":"create_lobby","game":"quacks","seats":256,"name":"a"}"#,
        r#"{"type":"add_bot","seat":-1}"#,
        r#"{"type":"action","action":{},"version":-1}"#,
        r#"{"type":"ping","id":-5}"#,
        r#"{"type":"ping","id":1.5}"#,
        r#"{"type":"ping","unused":1e400}"#,
        r#"{"type":"ping","unused":1,"unused":1e400}"#,
        r#"{"type":"ping","unused":1e400,"unused":1}"#,
    ] {
        assert_eq!(refused(frame), ErrorCode::BadMessage, "{frame}");
    }
    // Inside an action, numbers are the engine's to read: one the action does not use is not checked.
    let frame = r#"{"type":"action","action":{"type":"x","n":1e400}}"#;
    messages::check_text(frame);
    assert!(parse_client_message(frame).is_ok());
}

#[test]
fn a_refusal_echoes_the_id_the_frame_carries() {
    // The reader echoes the id of a frame it refuses only when the frame carries one: a frame with an id of 7 and
    // an unknown type is refused with `re: 7`.
    let e = parse_client_message(r#"{"id":7,"type":"teleport"}"#).unwrap_err();
    assert_eq!(
        (e.code, e.re),
        (ErrorCode::UnknownMessage, Some(protocol::RequestId::Number(7)))
    );
    messages::check_text(r#"{"id":7,"type":"teleport"}"#);
}
