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

/// Every reason the server refuses something. The serialised names are stable; new codes may be added.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema, json_write::WriteJson,
)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// The frame is not a JSON object of a known shape (bad JSON, missing or mistyped fields, binary frame).
    BadMessage,
    /// A display name (`create_lobby`, `join_lobby`) the server does not keep: empty, too long, without a visible
    /// character, or with a character names may not contain (a bidirectional control, an invisible or control
    /// character, a line separator, too many combining marks); the message names the problem and the code point.
    BadName,
    /// A chat message the server does not send: empty, too long, or with a character chat may not contain (as for
    /// `bad_name`); the message names the problem and the code point.
    BadChat,
    /// The frame's `type` is not a request this server knows.
    UnknownMessage,
    /// The frame exceeds the server's message size limit.
    TooLarge,
    /// Retryable: the client sends faster than the rate limit allows (the message was dropped), or too many
    /// look-ups of join codes found nothing, from this address or on the whole server (`CODE_GUESSES_*`); the
    /// message says in how many seconds to try again.
    RateLimited,
    /// The first request must be `hello`.
    HandshakeRequired,
    /// `hello` named a protocol version this server does not speak (or, on a greeted connection, another version
    /// than the one it speaks).
    UnsupportedVersion,
    /// No game with that id.
    UnknownGame,
    /// The options or seat count do not set up this game.
    BadOptions,
    /// No lobby with that join code (or a private lobby whose match is over, asked for by its code alone; or a
    /// wrong watch token).
    UnknownLobby,
    /// Every seat is taken.
    LobbyFull,
    /// The match has started: seats can no longer be taken or changed.
    AlreadyStarted,
    /// The match has not started yet.
    NotStarted,
    /// Start refused: some seat is still empty.
    SeatsEmpty,
    /// This connection already sits in or watches a lobby; leave first.
    AlreadyInLobby,
    /// This connection does not sit in (or watch) a lobby.
    NotInLobby,
    /// Only the host may do this.
    NotHost,
    /// Wrong seat token, or an action from a spectator.
    Unauthorized,
    /// Another seat must act now.
    NotYourTurn,
    /// The action is not legal in the current state.
    IllegalAction,
    /// The action was chosen on an outdated state: this seat's options changed (or it acted) after the `version`
    /// the action names, or that version has not been reached.
    StaleVersion,
    /// The match is over.
    GameOver,
    /// A newer connection took this seat; this connection is closed next.
    SessionReplaced,
    /// Too many connections, or the client is too slow to read its messages.
    Overloaded,
    /// The server is shutting down; reconnect later with your seat token.
    ShuttingDown,
    /// Something failed inside the server (the database, for instance); nothing changed.
    Internal,
    /// (closing) An administrator removed this seat's player (or gave the seat to a bot); the seat token no
    /// longer works.
    Removed,
    /// A rematch can only be asked for once the match is over.
    NotOver,
    /// (closing) The server already serves as many connections as it allows, in total or from this client's
    /// address (`MAX_CONNECTIONS`, `MAX_CONNECTIONS_PER_IP`); try again later.
    TooManyConnections,
    /// This client's address opened more lobbies than the server allows in the current window
    /// (`MAX_LOBBIES_PER_IP`, `LOBBY_WINDOW_SECS`); nothing was created. Try again later.
    CreateLimited,
    /// (closing) The connection sent nothing for longer than the idle timeout (`IDLE_TIMEOUT_SECS`); send
    /// `ping` to keep a quiet connection open.
    IdleTimeout,
    /// (closing) The connection did not complete `hello` within the handshake deadline
    /// (`HANDSHAKE_TIMEOUT_SECS`).
    HandshakeTimeout,
    /// Retryable: the database cannot be reached, so nothing can be committed; nothing changed and nothing was
    /// published. Send the same request again (same `version`) a little later.
    StoreUnavailable,
    /// (closing; also a refusal) In a cluster of server nodes, the node that served the table no longer owns it
    /// (its lease passed to another node, which took the table over). Nothing was lost: reconnect (to any node)
    /// and `resume` with the seat token.
    Moved,
    /// Retryable (also closing): in a cluster of server nodes, this node relays the connection to the node that
    /// serves its table, and cannot reach it now (node-to-node messaging is down, or that node stopped
    /// answering). Nothing was relayed if it refuses a request; if it closes the connection, reconnect (to any
    /// node) and `resume` with the seat token: nothing committed is lost.
    ForwardUnavailable,
}

impl ErrorCode {
    /// The code as it appears on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::BadMessage => "bad_message",
            ErrorCode::BadName => "bad_name",
            ErrorCode::BadChat => "bad_chat",
            ErrorCode::UnknownMessage => "unknown_message",
            ErrorCode::TooLarge => "too_large",
            ErrorCode::RateLimited => "rate_limited",
            ErrorCode::HandshakeRequired => "handshake_required",
            ErrorCode::UnsupportedVersion => "unsupported_version",
            ErrorCode::UnknownGame => "unknown_game",
            ErrorCode::BadOptions => "bad_options",
            ErrorCode::UnknownLobby => "unknown_lobby",
            ErrorCode::LobbyFull => "lobby_full",
            ErrorCode::AlreadyStarted => "already_started",
            ErrorCode::NotStarted => "not_started",
            ErrorCode::SeatsEmpty => "seats_empty",
            ErrorCode::AlreadyInLobby => "already_in_lobby",
            ErrorCode::NotInLobby => "not_in_lobby",
            ErrorCode::NotHost => "not_host",
            ErrorCode::Unauthorized => "unauthorized",
            ErrorCode::NotYourTurn => "not_your_turn",
            ErrorCode::IllegalAction => "illegal_action",
            ErrorCode::StaleVersion => "stale_version",
            ErrorCode::GameOver => "game_over",
            ErrorCode::SessionReplaced => "session_replaced",
            ErrorCode::Overloaded => "overloaded",
            ErrorCode::ShuttingDown => "shutting_down",
            ErrorCode::Internal => "internal",
            ErrorCode::Removed => "removed",
            ErrorCode::NotOver => "not_over",
            ErrorCode::TooManyConnections => "too_many_connections",
            ErrorCode::CreateLimited => "create_limited",
            ErrorCode::IdleTimeout => "idle_timeout",
            ErrorCode::HandshakeTimeout => "handshake_timeout",
            ErrorCode::StoreUnavailable => "store_unavailable",
            ErrorCode::Moved => "moved",
            ErrorCode::ForwardUnavailable => "forward_unavailable",
        }
    }
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
pub(crate) mod tests {
    use super::*;
    use serde_json::Value;

    /// Every error code (a new variant must be added here, which the exhaustive match below enforces).
    pub(crate) fn all_error_codes() -> Vec<ErrorCode> {
        use ErrorCode::*;
        let all = vec![
            BadMessage,
            BadName,
            BadChat,
            UnknownMessage,
            TooLarge,
            RateLimited,
            HandshakeRequired,
            UnsupportedVersion,
            UnknownGame,
            BadOptions,
            UnknownLobby,
            LobbyFull,
            AlreadyStarted,
            NotStarted,
            SeatsEmpty,
            AlreadyInLobby,
            NotInLobby,
            NotHost,
            Unauthorized,
            NotYourTurn,
            IllegalAction,
            StaleVersion,
            GameOver,
            SessionReplaced,
            Overloaded,
            ShuttingDown,
            Internal,
            Removed,
            NotOver,
            TooManyConnections,
            CreateLimited,
            IdleTimeout,
            HandshakeTimeout,
            StoreUnavailable,
            Moved,
            ForwardUnavailable,
        ];
        for code in &all {
            match code {
                BadMessage | BadName | BadChat | UnknownMessage | TooLarge | RateLimited
                | HandshakeRequired | UnsupportedVersion | UnknownGame | BadOptions | UnknownLobby
                | LobbyFull | AlreadyStarted | NotStarted | SeatsEmpty | AlreadyInLobby | NotInLobby
                | NotHost | Unauthorized | NotYourTurn | IllegalAction | StaleVersion | GameOver
                | SessionReplaced | Overloaded | ShuttingDown | Internal | Removed | NotOver
                | TooManyConnections | CreateLimited | IdleTimeout | HandshakeTimeout | StoreUnavailable
                | Moved | ForwardUnavailable => {}
            }
        }
        all
    }

    #[test]
    fn error_codes_serialise_as_their_stable_names() {
        for code in all_error_codes() {
            assert_eq!(
                serde_json::to_value(code).unwrap(),
                Value::String(code.as_str().into())
            );
        }
    }
}
