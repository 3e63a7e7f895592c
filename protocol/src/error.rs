//! Refusals: the stable [`ErrorCode`]s and the [`ErrorBody`] that carries one to a client.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A refusal: a stable machine-readable code and a human message.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, json_write::WriteJson)]
pub struct ErrorBody {
    pub code: ErrorCode,
    pub message: String,
}

impl ErrorBody {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        ErrorBody {
            code,
            message: message.into(),
        }
    }
}

/// Declares [`ErrorCode`] from one list of its variants, each with its wire name: the enum (serialised by that
/// name), [`ErrorCode::as_str`] and [`ErrorCode::ALL`] are all written from the list, so a new code is added once.
macro_rules! error_codes {
    ($($(#[$doc:meta])* $variant:ident = $name:literal,)+) => {
        /// Every reason the server refuses something. The serialised names are stable; new codes may be added.
        #[derive(
            Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema, json_write::WriteJson,
        )]
        pub enum ErrorCode {
            $($(#[$doc])* #[serde(rename = $name)] $variant,)+
        }

        impl ErrorCode {
            /// Every code, in declaration order (the order of the error code table in `docs/protocol.md`).
            pub const ALL: &[ErrorCode] = &[$(ErrorCode::$variant),+];

            /// The code as it appears on the wire.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(ErrorCode::$variant => $name,)+
                }
            }
        }
    };
}

error_codes! {
    /// The frame is not a JSON object of a known shape (bad JSON, missing or mistyped fields, binary frame).
    BadMessage = "bad_message",
    /// A display name (`create_lobby`, `join_lobby`) the server does not keep: empty, too long, without a visible
    /// character, or with a character names may not contain (a bidirectional control, an invisible or control
    /// character, a line separator, too many combining marks); the message names the problem and the code point.
    BadName = "bad_name",
    /// A chat message the server does not send: empty, too long, or with a character chat may not contain (as for
    /// `bad_name`); the message names the problem and the code point.
    BadChat = "bad_chat",
    /// The frame's `type` is not a request this server knows.
    UnknownMessage = "unknown_message",
    /// The frame exceeds the server's message size limit.
    TooLarge = "too_large",
    /// Retryable: the client sends faster than the rate limit allows (the message was dropped), or too many
    /// look-ups of join codes found nothing, from this address or on the whole server (`CODE_GUESSES_*`); the
    /// message says in how many seconds to try again.
    RateLimited = "rate_limited",
    /// The first request must be `hello`.
    HandshakeRequired = "handshake_required",
    /// `hello` named a protocol version this server does not speak (or, on a greeted connection, another version
    /// than the one it speaks).
    UnsupportedVersion = "unsupported_version",
    /// No game with that id.
    UnknownGame = "unknown_game",
    /// The options or seat count do not set up this game.
    BadOptions = "bad_options",
    /// No lobby with that join code (or a private lobby whose match is over, asked for by its code alone; or a
    /// wrong watch token).
    UnknownLobby = "unknown_lobby",
    /// Every seat is taken.
    LobbyFull = "lobby_full",
    /// The match has started: seats can no longer be taken or changed.
    AlreadyStarted = "already_started",
    /// The match has not started yet.
    NotStarted = "not_started",
    /// Start refused: some seat is still empty.
    SeatsEmpty = "seats_empty",
    /// This connection already sits in or watches a lobby; leave first.
    AlreadyInLobby = "already_in_lobby",
    /// This connection does not sit in (or watch) a lobby.
    NotInLobby = "not_in_lobby",
    /// Only the host may do this.
    NotHost = "not_host",
    /// Wrong seat token, or an action from a spectator.
    Unauthorized = "unauthorized",
    /// Another seat must act now.
    NotYourTurn = "not_your_turn",
    /// The action is not legal in the current state.
    IllegalAction = "illegal_action",
    /// The action was chosen on an outdated state: this seat's options changed (or it acted) after the `version`
    /// the action names, or that version has not been reached.
    StaleVersion = "stale_version",
    /// The match is over.
    GameOver = "game_over",
    /// A newer connection took this seat; this connection is closed next.
    SessionReplaced = "session_replaced",
    /// Too many connections, or the client is too slow to read its messages.
    Overloaded = "overloaded",
    /// The server is shutting down; reconnect later with your seat token.
    ShuttingDown = "shutting_down",
    /// Something failed inside the server (the database, for instance); nothing changed.
    Internal = "internal",
    /// (closing) An administrator removed this seat's player (or gave the seat to a bot); the seat token no
    /// longer works.
    Removed = "removed",
    /// A rematch can only be asked for once the match is over.
    NotOver = "not_over",
    /// (closing) The server already serves as many connections as it allows, in total or from this client's
    /// address (`MAX_CONNECTIONS`, `MAX_CONNECTIONS_PER_IP`); try again later.
    TooManyConnections = "too_many_connections",
    /// This client's address opened more lobbies than the server allows in the current window
    /// (`MAX_LOBBIES_PER_IP`, `LOBBY_WINDOW_SECS`); nothing was created. Try again later.
    CreateLimited = "create_limited",
    /// (closing) The connection sent nothing for longer than the idle timeout (`IDLE_TIMEOUT_SECS`); send
    /// `ping` to keep a quiet connection open.
    IdleTimeout = "idle_timeout",
    /// (closing) The connection did not complete `hello` within the handshake deadline
    /// (`HANDSHAKE_TIMEOUT_SECS`).
    HandshakeTimeout = "handshake_timeout",
    /// Retryable: the database cannot be reached, so nothing can be committed; nothing changed and nothing was
    /// published. Send the same request again (same `version`) a little later.
    StoreUnavailable = "store_unavailable",
    /// (closing; also a refusal) In a cluster of server nodes, the node that served the table no longer owns it
    /// (its lease passed to another node, which took the table over). Nothing was lost: reconnect (to any node)
    /// and `resume` with the seat token.
    Moved = "moved",
    /// Retryable (also closing): in a cluster of server nodes, this node relays the connection to the node that
    /// serves its table, and cannot reach it now (node-to-node messaging is down, or that node stopped
    /// answering). Nothing was relayed if it refuses a request; if it closes the connection, reconnect (to any
    /// node) and `resume` with the seat token: nothing committed is lost.
    ForwardUnavailable = "forward_unavailable",
    /// `my_tables` named more tables than one request may (`MY_TABLES_MAX`, 100); nothing was looked up. Ask for
    /// them in several requests.
    TooManyTables = "too_many_tables",
    /// A notification endpoint (`notify_subscribe`) is not valid: a webhook URL that is not http(s) or too long,
    /// an email address or push subscription that does not parse, a key of the wrong length; or it is refused:
    /// a webhook or push endpoint that resolves to a loopback, private, link-local or multicast address.
    BadEndpoint = "bad_endpoint",
    /// The seat has as many notification endpoints as it may (`NOTIFY_ENDPOINTS_PER_SEAT`); remove one first.
    TooManyEndpoints = "too_many_endpoints",
    /// No endpoint of this seat has that id (`notify_unsubscribe`).
    UnknownEndpoint = "unknown_endpoint",
}

impl ErrorCode {
    /// Whether the same request may succeed if sent again unchanged a little later: the refusal says nothing
    /// about the request itself (`rate_limited`, `create_limited`, `store_unavailable`).
    pub fn retryable(self) -> bool {
        matches!(
            self,
            ErrorCode::RateLimited
                | ErrorCode::CreateLimited
                | ErrorCode::StoreUnavailable
                | ErrorCode::ForwardUnavailable
        )
    }
}

impl From<rules::RejectKind> for ErrorCode {
    fn from(kind: rules::RejectKind) -> Self {
        match kind {
            rules::RejectKind::NotYourTurn => ErrorCode::NotYourTurn,
            rules::RejectKind::IllegalAction => ErrorCode::IllegalAction,
            rules::RejectKind::GameOver => ErrorCode::GameOver,
            // Clients only ever act for a seat, so a clock-only refusal means the action was not theirs to take.
            rules::RejectKind::NotDue => ErrorCode::IllegalAction,
            rules::RejectKind::NoSuchSeat => ErrorCode::Unauthorized,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    #[test]
    fn error_codes_serialise_as_their_stable_names() {
        for &code in ErrorCode::ALL {
            assert_eq!(
                serde_json::to_value(code).unwrap(),
                Value::String(code.as_str().into())
            );
        }
    }
}
