//! Arbitrary bytes into `protocol::parse_client_message`: never panics, refusals are coded, accepted frames
//! round-trip. The checks live in `protocol/tests/hostile/messages.rs` (also run by proptest in `cargo test`).

#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../protocol/tests/hostile/messages.rs"]
mod messages;

fuzz_target!(|data: &[u8]| {
    // The raw input as a frame (the server reads text frames only; invalid UTF-8 is refused before parsing).
    if let Ok(text) = std::str::from_utf8(data) {
        messages::check_text(text);
    }
    // The input as choices for a request-shaped frame, to get past the JSON and `type` checks more often.
    messages::check_text(&messages::structured(data));
    // The input as choices for an action frame written as text (whitespace, escapes, number forms, repeats).
    messages::check_text(&messages::action_frame(data));
});
