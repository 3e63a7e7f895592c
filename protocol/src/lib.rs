//! The wire protocol: every message that crosses the WebSocket at `/ws`, in both directions, as typed serde
//! values. Each WebSocket text frame carries exactly one JSON object with a `"type"` field.
//!
//! Architecture invariant: this crate owns every type that crosses the wire. The server never sends a value that
//! is not built from a type defined here (game views, actions and events are opaque JSON produced by the rules
//! engines through `rules::AnyGame`). See `docs/protocol.md` for the reference with examples.
//!
//! The types are in `request` (what clients send), `reply` and `push` (what the server sends), `error` (refusal
//! codes) and `lobby`; `parse` reads client frames; every message is written by serde.

pub use rules::{GameInfo, Outcome, Seat, Status};

mod error;
mod lobby;
mod notify;
mod parse;
mod push;
mod raw;
mod reply;
mod request;
pub mod schema;

pub use error::{ErrorBody, ErrorCode};
pub use lobby::{
    AbsenceKind, AbsencePolicy, CatalogueEntry, ListedLobby, LobbyInfo, LobbyPhase, Occupant, Presence,
    SeatInfo,
};
pub use notify::{NotifyKind, NotifyLanguage};
pub use parse::{ParseError, parse_client_message, request_id_of};
pub use push::{
    ActedBy, AwayAction, AwayReport, CHAT_HISTORY, ChatChannel, ChatMessage, Push, RematchInfo, StateUpdate,
};
pub use raw::RawJson;
pub use reply::{Reply, ReplyMessage, ServerMessage};
pub use request::{
    CHAT_MAX_CHARS, COMBINING_MARKS_MAX, ClientMessage, NAME_MAX_CHARS, REQUEST_TYPES, Request, RequestId,
    SeatToken,
};

/// The protocol version this crate describes. A client announces the version it speaks in [`Request::Hello`];
/// the server accepts exactly the versions in [`SUPPORTED_VERSIONS`]. Version 2 renamed a game view's seat count
/// `players` to `player_count` ([`StateUpdate::for_version`] writes a push for a version 1 connection).
pub const PROTOCOL_VERSION: u32 = 2;
/// Versions this server speaks.
pub const SUPPORTED_VERSIONS: &[u32] = &[1, 2];

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    #[test]
    fn the_protocol_document_shows_real_messages() {
        let doc = include_str!("../../docs/protocol.md");
        let mut examples = 0;
        for block in doc.split("```json").skip(1) {
            let text = block.split("```").next().unwrap();
            let value: Value = serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"));
            let kind = value["type"].as_str().expect("every example has a type");
            if REQUEST_TYPES.contains(&kind) {
                parse_client_message(text).unwrap_or_else(|e| panic!("{e:?}: {text}"));
            } else {
                let message: ServerMessage =
                    serde_json::from_value(value.clone()).unwrap_or_else(|e| panic!("{e}: {text}"));
                let is_reply = matches!(message, ServerMessage::Reply(_));
                assert_eq!(
                    is_reply,
                    value.get("re").is_some(),
                    "replies and only replies have `re`: {text}"
                );
            }
            examples += 1;
        }
        assert!(examples >= 20, "only {examples} examples");
        // Each request type has an example.
        for kind in REQUEST_TYPES {
            assert!(
                doc.contains(&format!("{{\"type\": \"{kind}\"")),
                "no example of {kind}"
            );
        }
        // The error code table lists exactly the codes that exist.
        let table = doc
            .split("## Error codes")
            .nth(1)
            .unwrap()
            .split("\n## ")
            .next()
            .unwrap();
        let listed: Vec<&str> = table
            .lines()
            .filter_map(|l| l.strip_prefix("| `"))
            .filter_map(|l| l.split('`').next())
            .collect();
        let codes: Vec<&str> = ErrorCode::ALL.iter().map(|code| code.as_str()).collect();
        assert_eq!(listed, codes, "the table lists every code, in declaration order");
    }
}
