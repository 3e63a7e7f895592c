//! The wire protocol: every message that crosses the WebSocket at `/ws`, in both directions, as typed serde
//! values. Each WebSocket text frame carries exactly one JSON object with a `"type"` field.
//!
//! Architecture invariant: this crate owns every type that crosses the wire. The server never sends a value that
//! is not built from a type defined here (game views, actions and events are opaque JSON produced by the rules
//! engines through `rules::AnyGame`). See `docs/protocol.md` for the reference with examples.

use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use rules::{GameInfo, Outcome, Seat, Status};

mod action_frame;
mod raw;
pub mod schema;
pub use raw::RawJson;

/// The protocol version this crate describes. A client announces the version it speaks in [`Request::Hello`];
/// the server accepts exactly the versions in [`SUPPORTED_VERSIONS`].
pub const PROTOCOL_VERSION: u32 = 1;
/// Versions this server speaks.
pub const SUPPORTED_VERSIONS: &[u32] = &[1];

/// A client-chosen identifier of a request, echoed as `re` in the one reply to it. A string or an integer.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum RequestId {
    Number(u64),
    Text(String),
}

/// A seat token: the secret that gives a seat back. Its `Debug` form is redacted so that it cannot reach a log
/// by accident; read it with [`SeatToken::expose`].
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(transparent)]
pub struct SeatToken(String);

impl SeatToken {
    pub fn new(token: String) -> Self {
        SeatToken(token)
    }
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for SeatToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SeatToken(<redacted>)")
    }
}

/// One client frame: an optional request id and the request itself.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ClientMessage {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<RequestId>,
    #[serde(flatten)]
    pub request: Request,
}

/// Everything a client may ask.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Request {
    /// The handshake: must be the first request on a connection. Answered by [`Reply::Welcome`].
    Hello {
        protocol: u32,
        /// Free-form client name and version, for logs.
        #[serde(default)]
        client: Option<String>,
    },
    /// Creates a lobby for `game` and sits the sender at seat 0 as its host.
    CreateLobby {
        game: String,
        /// The game's options (see `GET /api/games`); missing ones take their defaults.
        #[serde(default)]
        options: Value,
        /// How many seats the table has.
        seats: u8,
        /// The host's display name.
        name: String,
        /// Optional turn timer: a seat that must decide and stays idle this long plays a random legal action.
        #[serde(default)]
        turn_timer_ms: Option<u64>,
        /// What happens to the seat of a player who is away (disconnected, or let the turn timer run out);
        /// `wait` when absent.
        #[serde(default)]
        absent: AbsencePolicy,
    },
    /// Takes the lowest free seat of the lobby with this join code.
    JoinLobby { code: String, name: String },
    /// Watches the lobby with this join code without a seat: the public view only.
    Spectate { code: String },
    /// Takes a seat back with its seat token (after a dropped connection or a server restart).
    Resume {
        code: String,
        token: SeatToken,
        /// The last state version this client saw, to receive the events it missed.
        #[serde(default)]
        last_version: Option<u64>,
    },
    /// Leaves the lobby (frees the seat while the lobby is open; after the start the seat stays yours).
    Leave {},
    /// Host only: seats a server-side bot at `seat`, or at the lowest free seat.
    AddBot {
        #[serde(default)]
        seat: Option<u8>,
    },
    /// Host only: starts the match once every seat is taken.
    Start {},
    /// Plays an action of the game for the sender's seat. `version`, when given, must be the current state
    /// version (optimistic concurrency: an action chosen on an outdated view is refused with `stale_version`).
    Action {
        /// One of the seat's `legal_actions`, sent as listed.
        // Kept as the JSON text it arrived as, for the engine to read straight into its typed action.
        action: RawJson,
        #[serde(default)]
        version: Option<u64>,
    },
    /// Liveness check; answered by [`Reply::Pong`].
    Ping {},
    /// Says something in the lobby's chat (before, during and after the match). Seated players write to the
    /// `players` channel, spectators to the `spectators` channel; everyone in the lobby reads both. The text is
    /// trimmed, 1 to [`CHAT_MAX_CHARS`] characters, without control characters; it is plain text.
    Chat { text: String },
    /// Tells the server whether this client's page is hidden (a background tab): a hidden or silent seat shows
    /// as `idle`. Any request counts as activity.
    Presence { hidden: bool },
    /// Host only, before the start: sets the game's options (missing ones take their defaults), the number of
    /// seats and the turn timer together, and the absence policy when given. Seats removed from the end must be empty or hold bots.
    ConfigureLobby {
        #[serde(default)]
        options: Value,
        seats: u8,
        #[serde(default)]
        turn_timer_ms: Option<u64>,
        /// The absence policy; omitted or `null`: unchanged.
        #[serde(default)]
        absent: Option<AbsencePolicy>,
    },
    /// Host only, before the start: removes the player (or bot) at `seat`; a removed player's connection is
    /// closed with `removed`.
    RemovePlayer { seat: u8 },
    /// Host only, before the start: hands the host role to the human at `seat`.
    MakeHost { seat: u8 },
    /// Host only, before the start: `true` lists the lobby publicly (`GET /api/lobbies`), `false` makes it
    /// private (reachable only by its code).
    SetListed { listed: bool },
    /// Once the match is over: asks for (or answers) a rematch of the same game, options and seats. The first
    /// `rematch` opens the offer; every seat holder then accepts (`accept: true`, the default) or declines.
    /// Progress is pushed as [`Push::Rematch`]; when it starts, each accepting connection gets
    /// [`Push::Rematched`] with its new seat token.
    Rematch {
        #[serde(default = "yes")]
        accept: bool,
    },
}

fn yes() -> bool {
    true
}

/// What the server does for a seated player who is away: disconnected for `grace_ms`, or (for `bot` and `skip`)
/// at once when their turn timer ran out. Wire form: `{"policy": "bot", "grace_ms": 30000}`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct AbsencePolicy {
    pub policy: AbsenceKind,
    /// How long a player may be disconnected before the server plays for them (`bot`, `skip`); 0 for `wait`.
    pub grace_ms: u64,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AbsenceKind {
    /// The match waits for them (a turn timer, if set, still plays a random legal action for an idle seat).
    #[default]
    Wait,
    /// A server-side bot plays their seat (random legal actions) until they come back.
    Bot,
    /// Their decisions are skipped with the game's passive choice, for games whose `can_skip` is true.
    Skip,
}

/// The longest chat message, in characters (after trimming).
pub const CHAT_MAX_CHARS: usize = 500;
/// How many recent chat messages a client receives on joining, spectating or resuming.
pub const CHAT_HISTORY: usize = 50;

impl Request {
    /// The request's `type` tag.
    pub fn kind(&self) -> &'static str {
        match self {
            Request::Hello { .. } => "hello",
            Request::CreateLobby { .. } => "create_lobby",
            Request::JoinLobby { .. } => "join_lobby",
            Request::Spectate { .. } => "spectate",
            Request::Resume { .. } => "resume",
            Request::Leave {} => "leave",
            Request::AddBot { .. } => "add_bot",
            Request::Start {} => "start",
            Request::Action { .. } => "action",
            Request::Ping {} => "ping",
            Request::Chat { .. } => "chat",
            Request::Presence { .. } => "presence",
            Request::ConfigureLobby { .. } => "configure_lobby",
            Request::RemovePlayer { .. } => "remove_player",
            Request::MakeHost { .. } => "make_host",
            Request::SetListed { .. } => "set_listed",
            Request::Rematch { .. } => "rematch",
        }
    }
}

/// Every `type` a client may send, for telling an unknown message from a malformed one.
pub const REQUEST_TYPES: &[&str] = &[
    "hello",
    "create_lobby",
    "join_lobby",
    "spectate",
    "resume",
    "leave",
    "add_bot",
    "start",
    "action",
    "ping",
    "chat",
    "presence",
    "configure_lobby",
    "remove_player",
    "make_host",
    "set_listed",
    "rematch",
];

/// One server frame.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum ServerMessage {
    /// The one reply to a request, echoing its id.
    Reply(ReplyMessage),
    /// Something the client did not ask for: lobby and state changes, being replaced, shutdown.
    Push(Push),
}

/// A reply: the id of the request it answers (absent when the request had none or could not be read) and the
/// result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ReplyMessage {
    #[serde(default)]
    pub re: Option<RequestId>,
    #[serde(flatten)]
    pub reply: Reply,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Reply {
    /// The handshake succeeded.
    Welcome {
        protocol: u32,
        server: String,
    },
    /// The sender now holds `seat` of lobby `code`. `seat_token` is the secret for [`Request::Resume`]: it is
    /// sent once, here, and the server keeps only its hash.
    Seated {
        code: String,
        seat: Seat,
        seat_token: SeatToken,
        host: bool,
    },
    /// The sender has its seat back.
    Resumed {
        code: String,
        seat: Seat,
        host: bool,
    },
    /// The sender watches lobby `code`.
    Spectating {
        code: String,
    },
    /// The action was committed to the database as state `version`.
    Accepted {
        version: u64,
    },
    /// The request succeeded and has nothing more to say (leave, add_bot, start).
    Ok {},
    Pong {},
    /// The request was refused; nothing changed.
    Error(ErrorBody),
}

/// A refusal: a stable machine-readable code and a human message.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
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
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// The frame is not a JSON object of a known shape (bad JSON, missing or mistyped fields, binary frame).
    BadMessage,
    /// The frame's `type` is not a request this server knows.
    UnknownMessage,
    /// The frame exceeds the server's message size limit.
    TooLarge,
    /// The client sends faster than the rate limit allows; the message was dropped.
    RateLimited,
    /// The first request must be `hello`.
    HandshakeRequired,
    /// `hello` named a protocol version this server does not speak.
    UnsupportedVersion,
    /// No game with that id.
    UnknownGame,
    /// The options or seat count do not set up this game.
    BadOptions,
    /// No lobby with that join code.
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
    /// The action was chosen on an outdated state: its `version` is not the current one.
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
}

impl ErrorCode {
    /// The code as it appears on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::BadMessage => "bad_message",
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
        }
    }
}

impl ErrorCode {
    /// Whether the same request may succeed if sent again unchanged a little later: the refusal says nothing
    /// about the request itself (`rate_limited`, `create_limited`, `store_unavailable`).
    pub fn retryable(self) -> bool {
        matches!(
            self,
            ErrorCode::RateLimited | ErrorCode::CreateLimited | ErrorCode::StoreUnavailable
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

/// Messages the server sends unasked.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Push {
    /// The lobby changed (someone joined, left, connected, a bot sat down, the match started or ended).
    Lobby(LobbyInfo),
    /// The match changed: the viewer's own view after `version`.
    State(Box<StateUpdate>),
    /// The connection ends after this message (`session_replaced`, `shutting_down`, `overloaded`, `removed`,
    /// `too_many_connections`, `idle_timeout`, `handshake_timeout`).
    Closing(ErrorBody),
    /// An administrator aborted the match: it is over without a result, and actions are refused with
    /// `game_over`. The connection stays open.
    Aborted {
        code: String,
        match_id: String,
        reason: String,
        /// When it was aborted, in Unix milliseconds.
        at: u64,
    },
    /// A chat message, delivered once it is stored.
    ChatMessage { code: String, message: ChatMessage },
    /// The most recent chat messages (up to [`CHAT_HISTORY`], oldest first), sent after `seated` (join),
    /// `spectating` and `resumed`.
    ChatHistory {
        code: String,
        messages: Vec<ChatMessage>,
    },
    /// A rematch was asked for, or someone answered: who accepted, who declined, and until when the others may.
    Rematch(RematchInfo),
    /// The rematch started as a new lobby `code` whose match is already playing; this connection accepted and
    /// holds `seat` there. `seat_token` is the secret for [`Request::Resume`] on `code` (sent once, here): leave
    /// the old lobby and resume the new one.
    Rematched {
        code: String,
        /// The finished lobby this rematch follows.
        previous: String,
        seat: Seat,
        seat_token: SeatToken,
        host: bool,
    },
}

/// Who may read a chat message's channel: everyone in the lobby reads both; the channel says who wrote it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ChatChannel {
    /// Written by a seated player.
    Players,
    /// Written by a spectator.
    Spectators,
}

/// One chat message: plain text, never markup.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ChatMessage {
    /// Numbers the lobby's messages in order (1, 2, ...; a message the server failed to store leaves a gap).
    pub id: u64,
    pub channel: ChatChannel,
    /// The writer's seat; `null` for a spectator.
    pub seat: Option<Seat>,
    /// The writer's display name (a spectator's is `Spectator`).
    pub name: String,
    pub text: String,
    /// When it was written, in Unix milliseconds.
    pub at: u64,
}

/// Whether a seat's player is there: `connected` (a live connection with recent activity), `idle` (connected,
/// but silent for a while or the page is hidden) or `away` (no connection).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Presence {
    Connected,
    Idle,
    #[default]
    Away,
}

/// One open lobby of the public list (`GET /api/lobbies`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ListedLobby {
    pub code: String,
    pub game: String,
    /// The options with every default filled in.
    pub options: Value,
    pub seats: u8,
    pub seats_taken: u8,
    pub seats_free: u8,
    /// The host's display name.
    pub host_name: String,
    #[serde(default)]
    pub turn_timer_ms: Option<u64>,
    /// When the lobby was created, in Unix milliseconds.
    pub created_at: u64,
}

/// An open rematch offer of a finished lobby.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RematchInfo {
    /// The finished lobby.
    pub code: String,
    pub requested_by: Seat,
    pub accepted: Vec<Seat>,
    pub declined: Vec<Seat>,
    /// When the offer closes without the others' answers, in Unix milliseconds (the host may start it sooner).
    pub deadline: u64,
    /// The new lobby, once the rematch has started.
    #[serde(default)]
    pub new_code: Option<String>,
}

/// A lobby as everyone in it sees it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LobbyInfo {
    pub code: String,
    pub game: String,
    /// The options with every default filled in.
    pub options: Value,
    pub seats: Vec<SeatInfo>,
    pub host: Seat,
    pub phase: LobbyPhase,
    #[serde(default)]
    pub turn_timer_ms: Option<u64>,
    /// Set once the match has started.
    #[serde(default)]
    pub match_id: Option<String>,
    pub spectators: u32,
    /// Whether the lobby is in the public list of open lobbies (otherwise only its code leads to it).
    #[serde(default)]
    pub listed: bool,
    /// The lobby's absence policy.
    #[serde(default)]
    pub absent: AbsencePolicy,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LobbyPhase {
    /// Seats can be taken; the host can start.
    Open,
    /// The match is being played.
    Playing,
    /// The match is over; the final state stays available.
    Finished,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SeatInfo {
    pub seat: Seat,
    pub occupant: Occupant,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Occupant {
    Empty,
    Human {
        name: String,
        /// `true` while the player has a live connection (`presence` is not `away`).
        connected: bool,
        #[serde(default)]
        presence: Presence,
        /// The player is away and the server plays for their seat (a bot, or skips): see the lobby's `absent`.
        /// Omitted when false.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        stand_in: bool,
    },
    Bot {
        name: String,
    },
}

/// The state of a match as one viewer may see it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct StateUpdate {
    // Shared with the table, which sends them in every push (a reference count each, not a copy).
    #[schemars(with = "String")]
    pub code: Arc<str>,
    #[schemars(with = "String")]
    pub match_id: Arc<str>,
    #[schemars(with = "String")]
    pub game: Arc<str>,
    /// The number of actions applied so far; only grows. Send it back with an action.
    pub version: u64,
    /// The version these events start after: `events` explain the change from `since` to `version`. When
    /// `since == version` the events are not available (first view, or a resync) and only the view counts.
    pub since: u64,
    /// `null` for spectators.
    pub seat: Option<Seat>,
    // `view`, `legal_actions` and each event are JSON text serialised once by the engine (`RawJson`); on the
    // wire they are the plain JSON values the schema describes.
    //
    // The members are written in this order, with the large ones last (`events`, then `view`), so that a client
    // reading a push as a stream has what it acts on (status, legal actions) before the view (docs/protocol.md;
    // loadgen stops reading there).
    /// Every action this seat may send now, exactly as it may be sent (empty for spectators).
    #[schemars(with = "Vec<Value>")]
    pub legal_actions: RawJson,
    pub status: Status,
    /// When the engine's clock acts next (for example the end of a claim window), in Unix milliseconds.
    pub deadline: Option<u64>,
    /// When the turn timer plays for an idle seat, in Unix milliseconds.
    pub turn_deadline: Option<u64>,
    /// The result, once the match is over.
    pub outcome: Option<Outcome>,
    /// What happened, filtered to what this viewer may know (game-specific JSON).
    pub events: Vec<RawJson>,
    /// The engine's view for this viewer (opaque, game-specific JSON).
    pub view: RawJson,
}

impl StateUpdate {
    /// About how many bytes [`StateUpdate::write_push`] writes: the lengths of its texts (view, legal actions,
    /// events, ids) plus room for its keys, numbers and status. Made from lengths only, so it costs nothing
    /// against writing; a buffer of this capacity holds the push without growing in all but rare cases (a long
    /// outcome or an id that needs escaping). A frame's buffer used to be sized from the connection's previous
    /// frame, so a push after a short `accepted` reply was copied as it doubled its way up: for Hickory Dickory's
    /// views, ~5 % of the server's instructions per action (docs/performance.md, section 16).
    pub fn push_len_hint(&self) -> usize {
        const ROOM: usize = 320;
        let events: usize = self.events.iter().map(|e| e.get().len() + 1).sum();
        let status = match &self.status {
            Status::Simultaneous { seats, .. } | Status::Race { seats } => 4 * seats.len(),
            Status::Turn { .. } | Status::Over => 0,
        };
        let outcome = if self.outcome.is_some() { 256 } else { 0 };
        ROOM + self.code.len()
            + self.match_id.len()
            + self.game.len()
            + self.legal_actions.get().len()
            + events
            + self.view.get().len()
            + status
            + outcome
    }

    /// This update's `state` push (`ServerMessage::Push(Push::State(..))`) as JSON text, appended to `out`: the
    /// same text serde writes for it (tested), written member by member with the keys as constant text. Most
    /// frames the server sends are state pushes, and serde's path (the tagged enum around the update, and every key
    /// escaped as it is written) was about an eighth of the server's instructions per action (docs/performance.md,
    /// section 11).
    pub fn write_push(&self, out: &mut String) {
        out.reserve(self.push_len_hint());
        out.push_str(r#"{"type":"state","code":"#);
        write_str(out, &self.code);
        out.push_str(r#","match_id":"#);
        write_str(out, &self.match_id);
        out.push_str(r#","game":"#);
        write_str(out, &self.game);
        out.push_str(r#","version":"#);
        write_u64(out, self.version);
        out.push_str(r#","since":"#);
        write_u64(out, self.since);
        out.push_str(r#","seat":"#);
        write_opt_u64(out, self.seat.map(|s| u64::from(s.0)));
        out.push_str(r#","legal_actions":"#);
        out.push_str(self.legal_actions.get());
        out.push_str(r#","status":"#);
        write_status(out, &self.status);
        out.push_str(r#","deadline":"#);
        write_opt_u64(out, self.deadline);
        out.push_str(r#","turn_deadline":"#);
        write_opt_u64(out, self.turn_deadline);
        out.push_str(r#","outcome":"#);
        match &self.outcome {
            Some(outcome) => write_serde(out, outcome),
            None => out.push_str("null"),
        }
        out.push_str(r#","events":["#);
        for (i, event) in self.events.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str(event.get());
        }
        out.push_str(r#"],"view":"#);
        out.push_str(self.view.get());
        out.push('}');
    }
}

/// A JSON string as serde_json writes it: as it is between quotes when nothing in it needs escaping (the server's
/// codes, ids and game names never do), through serde_json otherwise.
fn write_str(out: &mut String, s: &str) {
    // Every byte is looked at, without stopping at the first one that needs escaping: a loop the compiler turns
    // into vector instructions (the codes, ids and game names of every push; `all` went byte by byte, ~1,300
    // instructions per action).
    let plain = !s
        .bytes()
        .fold(false, |needs, b| needs | (b < 0x20) | (b == b'"') | (b == b'\\'));
    if plain {
        out.push('"');
        out.push_str(s);
        out.push('"');
    } else {
        write_serde(out, s);
    }
}

fn write_u64(out: &mut String, n: u64) {
    out.push_str(itoa::Buffer::new().format(n));
}

fn write_opt_u64(out: &mut String, n: Option<u64>) {
    match n {
        Some(n) => write_u64(out, n),
        None => out.push_str("null"),
    }
}

fn write_serde<T: Serialize + ?Sized>(out: &mut String, value: &T) {
    out.push_str(&serde_json::to_string(value).expect("protocol values serialise"));
}

fn write_seats(out: &mut String, seats: &[Seat]) {
    out.push('[');
    for (i, seat) in seats.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_u64(out, u64::from(seat.0));
    }
    out.push(']');
}

/// A [`Status`] as serde writes it (an internally tagged enum: serde's map path, four in every push).
fn write_status(out: &mut String, status: &Status) {
    match status {
        Status::Turn { seat } => {
            out.push_str(r#"{"kind":"turn","seat":"#);
            write_u64(out, u64::from(seat.0));
        }
        Status::Simultaneous { seats, secret } => {
            out.push_str(r#"{"kind":"simultaneous","seats":"#);
            write_seats(out, seats);
            out.push_str(if *secret {
                r#","secret":true"#
            } else {
                r#","secret":false"#
            });
        }
        Status::Race { seats } => {
            out.push_str(r#"{"kind":"race","seats":"#);
            write_seats(out, seats);
        }
        Status::Over => out.push_str(r#"{"kind":"over""#),
    }
    out.push('}');
}

fn write_request_id(out: &mut String, id: &RequestId) {
    match id {
        RequestId::Number(n) => write_u64(out, *n),
        RequestId::Text(text) => write_str(out, text),
    }
}

impl ServerMessage {
    pub fn reply(re: Option<RequestId>, reply: Reply) -> Self {
        ServerMessage::Reply(ReplyMessage { re, reply })
    }
    pub fn error(re: Option<RequestId>, code: ErrorCode, message: impl Into<String>) -> Self {
        ServerMessage::reply(re, Reply::Error(ErrorBody::new(code, message)))
    }
    pub fn to_json(&self) -> String {
        let mut text = String::new();
        self.write_json(&mut text);
        text
    }

    /// This message as JSON text, appended to `out`: the same text as serde's. The two messages of every action,
    /// the `state` push ([`StateUpdate::write_push`]) and the `accepted` reply, are written by hand with their
    /// keys as constant text; the rest through serde.
    pub fn write_json(&self, out: &mut String) {
        match self {
            ServerMessage::Push(Push::State(update)) => update.write_push(out),
            ServerMessage::Reply(ReplyMessage {
                re,
                reply: Reply::Accepted { version },
            }) => {
                out.push_str(r#"{"re":"#);
                match re {
                    Some(id) => write_request_id(out, id),
                    None => out.push_str("null"),
                }
                out.push_str(r#","type":"accepted","version":"#);
                write_u64(out, *version);
                out.push('}');
            }
            _ => {
                let mut bytes = std::mem::take(out).into_bytes();
                serde_json::to_writer(&mut bytes, self).expect("protocol messages serialise");
                *out = String::from_utf8(bytes).expect("serde_json writes UTF-8");
            }
        }
    }
}

/// Why a client frame could not be read, with the request id when it could still be found.
#[derive(Clone, Debug, PartialEq)]
pub struct ParseError {
    pub re: Option<RequestId>,
    pub code: ErrorCode,
    pub message: String,
}

/// The request id of a frame, if it is a JSON object with a readable `id` (to echo it in a refusal that does
/// not otherwise read the frame).
/// An `id` given twice counts as its last, as in the `Value` the general path reads (a derived struct would refuse
/// the frame instead).
pub fn request_id_of(text: &str) -> Option<RequestId> {
    struct LastId(Option<Value>);
    impl<'de> Deserialize<'de> for LastId {
        fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            deserializer.deserialize_map(LastId(None))
        }
    }
    impl<'de> serde::de::Visitor<'de> for LastId {
        type Value = LastId;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a JSON object")
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(mut self, mut map: A) -> Result<LastId, A::Error> {
            while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                if key == "id" {
                    self.0 = Some(map.next_value()?);
                } else {
                    map.next_value::<serde::de::IgnoredAny>()?;
                }
            }
            Ok(self)
        }
    }
    serde_json::from_str::<LastId>(text)
        .ok()?
        .0
        .and_then(|id| serde_json::from_value(id).ok())
}

/// The one request clients send at play speed, `action`, read in one pass straight from the text, with the
/// action kept as its text (no `Value` tree). The general path of [`parse_client_message`] reads a `Value` tree
/// first and then the request from it through serde's buffering of flattened and tagged enums (most of the cost
/// of reading an action). `None` for any other frame, or one this cannot read, which the general path then reads
/// (or refuses) as before: both give the same message for every frame this accepts (tested).
fn parse_action_message(text: &str) -> Option<ClientMessage> {
    #[derive(Deserialize)]
    struct ActionFrame<'a> {
        #[serde(rename = "type", borrow)]
        kind: std::borrow::Cow<'a, str>,
        #[serde(default)]
        id: Option<RequestId>,
        #[serde(borrow)]
        action: &'a serde_json::value::RawValue,
        #[serde(default)]
        version: Option<u64>,
    }
    let frame: ActionFrame<'_> = serde_json::from_str(text).ok()?;
    // The frame must be one the general path would read as a `Value`: within the recursion limit (counted from
    // the frame, not from the action: an action nested 127 deep is one level too deep in its frame), numbers in
    // range. Only frames the hand reader (`action_frame`) leaves come here.
    serde_json::from_str::<AnyJson>(text).ok()?;
    (frame.kind == "action").then(|| ClientMessage {
        id: frame.id,
        request: Request::Action {
            action: RawJson::from(frame.action.to_owned()),
            version: frame.version,
        },
    })
}

/// Any JSON value, read exactly as a [`Value`] would be (the same recursion limit, the same range of numbers) but
/// kept nowhere: it checks text without building a tree.
struct AnyJson;

impl<'de> Deserialize<'de> for AnyJson {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(AnyJson)
    }
}

impl<'de> serde::de::Visitor<'de> for AnyJson {
    type Value = AnyJson;
    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, _: bool) -> Result<AnyJson, E> {
        Ok(AnyJson)
    }
    fn visit_i64<E>(self, _: i64) -> Result<AnyJson, E> {
        Ok(AnyJson)
    }
    fn visit_u64<E>(self, _: u64) -> Result<AnyJson, E> {
        Ok(AnyJson)
    }
    fn visit_f64<E>(self, _: f64) -> Result<AnyJson, E> {
        Ok(AnyJson)
    }
    fn visit_str<E>(self, _: &str) -> Result<AnyJson, E> {
        Ok(AnyJson)
    }
    fn visit_unit<E>(self) -> Result<AnyJson, E> {
        Ok(AnyJson)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<AnyJson, A::Error> {
        while seq.next_element::<AnyJson>()?.is_some() {}
        Ok(AnyJson)
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<AnyJson, A::Error> {
        while map.next_entry::<AnyJson, AnyJson>()?.is_some() {}
        Ok(AnyJson)
    }
}

/// Reads one client text frame. Tells an unknown `type` (`unknown_message`) from a malformed frame
/// (`bad_message`), and recovers the request id where the JSON allows it so the error reply can echo it.
pub fn parse_client_message(text: &str) -> Result<ClientMessage, ParseError> {
    if let Some(frame) = action_frame::scan(text) {
        return Ok(ClientMessage {
            id: frame.id,
            request: Request::Action {
                action: RawJson::read(frame.action),
                version: frame.version,
            },
        });
    }
    if let Some(message) = parse_action_message(text) {
        return Ok(message);
    }
    let value: Value = serde_json::from_str(text).map_err(|e| ParseError {
        re: None,
        code: ErrorCode::BadMessage,
        message: format!("not JSON: {e}"),
    })?;
    let re = value
        .get("id")
        .and_then(|id| serde_json::from_value::<RequestId>(id.clone()).ok());
    let Some(object) = value.as_object() else {
        return Err(ParseError {
            re,
            code: ErrorCode::BadMessage,
            message: "a message is a JSON object".into(),
        });
    };
    match object.get("type").and_then(Value::as_str) {
        None => {
            return Err(ParseError {
                re,
                code: ErrorCode::BadMessage,
                message: "a message needs a string field `type`".into(),
            });
        }
        Some(kind) if !REQUEST_TYPES.contains(&kind) => {
            return Err(ParseError {
                re,
                code: ErrorCode::UnknownMessage,
                message: format!("unknown message type `{kind}`"),
            });
        }
        Some(_) => {}
    }
    serde_json::from_value(value).map_err(|e| ParseError {
        re,
        code: ErrorCode::BadMessage,
        message: format!("malformed message: {e}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The general path of `parse_client_message`, without the fast one for actions.
    fn parse_generally(text: &str) -> Result<ClientMessage, String> {
        let value: Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
        serde_json::from_value(value).map_err(|e| e.to_string())
    }

    #[test]
    fn actions_read_fast_read_as_the_general_path_reads_them() {
        let accepted = [
            r#"{"type":"action","action":{"type":"move","to":[1,2]},"version":7,"id":3}"#,
            r#"{"id":"x","version":null,"action":"pass","type":"action"}"#,
            r#"{"type":"action","action":{"nested":{"a":[1,{"b":null}]}},"extra":"ignored"}"#,
            r#"  {"type":"action","action":0}  "#,
            // An escaped `type` is still `action`.
            r#"{"type":"acti\u006fn","action":1}"#,
        ];
        for text in accepted {
            let fast = parse_action_message(text).expect(text);
            assert_eq!(Ok(fast.clone()), parse_generally(text), "{text}");
            assert_eq!(parse_client_message(text), Ok(fast), "{text}");
        }
        // Not read by the fast path; the general path answers exactly as it did before there was one.
        let others = [
            r#"{"type":"ping","id":1}"#,
            r#"{"type":"action","version":1}"#,
            r#"{"type":"action","action":1,"version":"7"}"#,
            r#"{"type":"action","action":1,"version":-1}"#,
            r#"{"type":"action","action":1,"id":{"no":1}}"#,
            r#"{"type":"action","action":1,"action":2}"#,
            r#"{"type":"action","action":1} x"#,
            r#"[1]"#,
        ];
        for text in others {
            assert_eq!(parse_action_message(text), None, "{text}");
        }
        assert_eq!(
            parse_client_message(r#"{"type":"action","action":1,"action":2}"#).map(|m| m.request),
            Ok(Request::Action {
                action: RawJson::from(json!(2)),
                version: None
            })
        );
        assert_eq!(
            parse_client_message(r#"{"type":"action","version":"7","action":1,"id":4}"#)
                .map_err(|e| (e.re, e.code)),
            Err((Some(RequestId::Number(4)), ErrorCode::BadMessage))
        );
    }

    #[test]
    fn requests_read_from_their_documented_form() {
        let cases = [
            (json!({"type": "hello", "id": 1, "protocol": 1}), "hello"),
            (
                json!({"type": "create_lobby", "id": "a", "game": "hide_and_eeek", "seats": 3, "name": "Ann"}),
                "create_lobby",
            ),
            (
                json!({"type": "join_lobby", "code": "ABC234", "name": "Bo"}),
                "join_lobby",
            ),
            (json!({"type": "spectate", "code": "ABC234"}), "spectate"),
            (
                json!({"type": "resume", "code": "ABC234", "token": "ff", "last_version": 3}),
                "resume",
            ),
            (json!({"type": "leave"}), "leave"),
            (json!({"type": "add_bot"}), "add_bot"),
            (json!({"type": "start"}), "start"),
            (
                json!({"type": "action", "action": {"type": "roll"}, "version": 4}),
                "action",
            ),
            (json!({"type": "ping", "id": 9}), "ping"),
            (json!({"type": "chat", "text": "hi"}), "chat"),
            (json!({"type": "presence", "hidden": false}), "presence"),
            (
                json!({"type": "configure_lobby", "options": {"target": 4}, "seats": 3}),
                "configure_lobby",
            ),
            (json!({"type": "remove_player", "seat": 1}), "remove_player"),
            (json!({"type": "make_host", "seat": 1}), "make_host"),
            (json!({"type": "set_listed", "listed": true}), "set_listed"),
            (json!({"type": "rematch", "accept": false}), "rematch"),
        ];
        for (value, kind) in cases {
            let message = parse_client_message(&value.to_string()).unwrap();
            assert_eq!(message.request.kind(), kind);
            assert!(REQUEST_TYPES.contains(&kind));
            // What a client serialises reads back identically.
            let again = parse_client_message(&serde_json::to_string(&message).unwrap()).unwrap();
            assert_eq!(again, message);
        }
    }

    /// Every JSON example in docs/protocol.md is a message of this protocol: requests read as requests, the
    /// rest as server messages, and each error code in the table is a real code.
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
        let codes: Vec<&str> = all_error_codes().into_iter().map(ErrorCode::as_str).collect();
        assert_eq!(listed, codes, "the table lists every code, in declaration order");
    }

    #[test]
    fn seat_tokens_never_show_in_debug_output() {
        let message =
            parse_client_message(r#"{"type": "resume", "code": "ABC234", "token": "s3cr3t"}"#).unwrap();
        assert!(!format!("{message:?}").contains("s3cr3t"));
        assert!(serde_json::to_string(&message).unwrap().contains("s3cr3t"));
    }

    #[test]
    fn bad_frames_are_told_apart_and_keep_their_id() {
        let cases = [
            ("{not json", ErrorCode::BadMessage, None),
            ("[1,2]", ErrorCode::BadMessage, None),
            (
                r#"{"id": 7, "protocol": 1}"#,
                ErrorCode::BadMessage,
                Some(RequestId::Number(7)),
            ),
            (
                r#"{"id": "x", "type": "fly"}"#,
                ErrorCode::UnknownMessage,
                Some(RequestId::Text("x".into())),
            ),
            (
                r#"{"id": 3, "type": "hello"}"#,
                ErrorCode::BadMessage,
                Some(RequestId::Number(3)),
            ),
            (
                r#"{"id": 4, "type": "join_lobby", "code": 5, "name": "a"}"#,
                ErrorCode::BadMessage,
                Some(RequestId::Number(4)),
            ),
        ];
        for (text, code, re) in cases {
            let err = parse_client_message(text).unwrap_err();
            assert_eq!((err.code, err.re), (code, re), "{text}");
        }
    }

    #[test]
    fn server_messages_have_a_type_and_echo_the_request_id() {
        let reply = ServerMessage::error(Some(RequestId::Number(5)), ErrorCode::NotYourTurn, "wait");
        let value: Value = serde_json::from_str(&reply.to_json()).unwrap();
        assert_eq!(
            value,
            json!({"re": 5, "type": "error", "code": "not_your_turn", "message": "wait"})
        );
        let accepted = ServerMessage::reply(None, Reply::Accepted { version: 3 });
        assert_eq!(
            serde_json::from_str::<Value>(&accepted.to_json()).unwrap(),
            json!({"re": null, "type": "accepted", "version": 3})
        );
        let closing = ServerMessage::Push(Push::Closing(ErrorBody::new(ErrorCode::ShuttingDown, "bye")));
        assert_eq!(
            serde_json::from_str::<Value>(&closing.to_json()).unwrap(),
            json!({"type": "closing", "code": "shutting_down", "message": "bye"})
        );
        // Clients can read back what the server writes, replies and pushes alike.
        for message in [reply, accepted, closing] {
            let back: ServerMessage = serde_json::from_str(&message.to_json()).unwrap();
            assert_eq!(back, message);
        }
    }

    /// Every error code (a new variant must be added here, which the exhaustive match below enforces).
    fn all_error_codes() -> Vec<ErrorCode> {
        use ErrorCode::*;
        let all = vec![
            BadMessage,
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
        ];
        for code in &all {
            match code {
                BadMessage | UnknownMessage | TooLarge | RateLimited | HandshakeRequired
                | UnsupportedVersion | UnknownGame | BadOptions | UnknownLobby | LobbyFull
                | AlreadyStarted | NotStarted | SeatsEmpty | AlreadyInLobby | NotInLobby | NotHost
                | Unauthorized | NotYourTurn | IllegalAction | StaleVersion | GameOver | SessionReplaced
                | Overloaded | ShuttingDown | Internal | Removed | NotOver | TooManyConnections
                | CreateLimited | IdleTimeout | HandshakeTimeout | StoreUnavailable => {}
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

#[cfg(test)]
mod state_push_tests {
    use super::*;
    use serde_json::json;

    /// `write_push` writes exactly serde's text for a `state` push, for every documented example and for
    /// variations of every member (strings that need escaping, absent and present optional members, several
    /// events, large numbers).
    #[test]
    fn the_written_state_push_is_serdes_text() {
        let examples = [
            include_str!("../../docs/schema/examples/push.state.json"),
            include_str!("../../docs/schema/examples/push.state_over_spectator.json"),
            include_str!("../../docs/schema/examples/push.state_simultaneous.json"),
            include_str!("../../docs/schema/examples/push.state_turn.json"),
        ];
        let mut updates = Vec::new();
        for text in examples {
            match serde_json::from_str::<ServerMessage>(text).expect("an example reads") {
                ServerMessage::Push(Push::State(update)) => updates.push(*update),
                other => panic!("not a state push: {other:?}"),
            }
        }
        let base = updates[0].clone();
        let strings = [
            "",
            "RKPYM3",
            "a \"quoted\" \\ text",
            "tab\there\nnewline\r\u{1}\u{1f}\u{7f}",
            "é ✓ 🐭",
        ];
        for s in strings {
            let mut u = base.clone();
            u.code = s.into();
            u.match_id = format!("{s}{s}").into();
            u.game = s.chars().rev().collect::<String>().into();
            updates.push(u);
        }
        for (seat, deadline, turn_deadline) in [
            (None, None, Some(0)),
            (Some(Seat(0)), Some(u64::MAX), None),
            (Some(Seat(255)), Some(1), Some(9)),
        ] {
            let mut u = base.clone();
            u.seat = seat;
            u.deadline = deadline;
            u.turn_deadline = turn_deadline;
            u.version = deadline.unwrap_or(7);
            u.since = 10_000_000_000;
            updates.push(u);
        }
        for status in [
            Status::Turn { seat: Seat(0) },
            Status::Turn { seat: Seat(255) },
            Status::Simultaneous {
                seats: vec![],
                secret: true,
            },
            Status::Simultaneous {
                seats: vec![Seat(0), Seat(3)],
                secret: false,
            },
            Status::Race { seats: vec![] },
            Status::Race {
                seats: vec![Seat(1), Seat(2), Seat(3)],
            },
            Status::Over,
        ] {
            let mut u = base.clone();
            u.status = status;
            updates.push(u);
        }
        let mut u = base.clone();
        u.events = vec![
            RawJson::from(json!({"type": "a"})),
            RawJson::from(json!([1, "x"])),
            RawJson::from(json!(null)),
        ];
        u.legal_actions = RawJson::empty_array();
        u.status = Status::Over;
        updates.push(u);
        assert!(updates.iter().any(|u| u.outcome.is_some()) && updates.iter().any(|u| u.outcome.is_none()));
        for update in updates {
            let message = ServerMessage::Push(Push::State(Box::new(update)));
            let mut written = String::new();
            let mut hint = 0;
            if let ServerMessage::Push(Push::State(update)) = &message {
                update.write_push(&mut written);
                hint = update.push_len_hint();
            }
            let serde = serde_json::to_string(&message).unwrap();
            assert_eq!(written, serde);
            assert_eq!(message.to_json(), serde);
            // The buffer the server sizes from the hint holds the push without growing.
            assert!(
                written.len() <= hint,
                "{} bytes written, {hint} hinted",
                written.len()
            );
            assert_eq!(serde_json::from_str::<ServerMessage>(&written).unwrap(), message);
        }
    }

    /// `write_json` writes serde's text for every message: by hand for `accepted` replies (every request id form,
    /// ids that need escaping, versions at their limits), through serde for the rest.
    #[test]
    fn the_written_reply_is_serdes_text() {
        let mut messages = Vec::new();
        for re in [
            None,
            Some(RequestId::Number(0)),
            Some(RequestId::Number(u64::MAX)),
            Some(RequestId::Text(String::new())),
            Some(RequestId::Text("a \"quoted\" \\ id\n\u{1}é".into())),
        ] {
            for version in [0, 7, u64::MAX] {
                messages.push(ServerMessage::reply(re.clone(), Reply::Accepted { version }));
            }
            messages.push(ServerMessage::reply(re.clone(), Reply::Pong {}));
            messages.push(ServerMessage::error(
                re,
                ErrorCode::StaleVersion,
                "the state is at version 3",
            ));
        }
        for message in messages {
            let mut written = String::from("kept ");
            message.write_json(&mut written);
            let serde = serde_json::to_string(&message).unwrap();
            assert_eq!(written, format!("kept {serde}"));
            assert_eq!(message.to_json(), serde);
        }
    }

    /// The hand reader takes the action frames clients send (the documented form, the load generator's, the
    /// Python example's spacing), so the fast path is really used; frames outside its subset go to serde, and
    /// every path reads them alike (`protocol/tests/hostile.rs` compares them on generated frames).
    #[test]
    fn action_frames_are_read_by_hand() {
        fn read(text: &str) -> Option<(Option<RequestId>, String, Option<u64>)> {
            action_frame::scan(text).map(|f| (f.id, f.action.to_owned(), f.version))
        }
        assert_eq!(
            read(r#"{"type":"action","action":{"type":"move","to":[1,2]},"version":7,"id":3}"#),
            Some((
                Some(RequestId::Number(3)),
                r#"{"type":"move","to":[1,2]}"#.to_owned(),
                Some(7)
            ))
        );
        assert_eq!(
            read(
                "{\"id\": \"a-1\", \"type\": \"action\", \"action\": {\"type\": \"pass\"}, \"version\": null}\n"
            ),
            Some((
                Some(RequestId::Text("a-1".into())),
                r#"{"type": "pass"}"#.to_owned(),
                None
            ))
        );
        assert_eq!(
            read(r#"{"type":"action","action":[true,false,null,-3,"é"],"id":null,"x":{"y":[]}}"#),
            Some((None, r#"[true,false,null,-3,"é"]"#.to_owned(), None))
        );
        for other in [
            r#"{"type":"acti\u006fn","action":1}"#,
            r#"{"type":"action","action":"\n"}"#,
            r#"{"type":"action","action":1.5}"#,
            r#"{"type":"action","action":1,"action":2}"#,
            r#"{"type":"action","type":"action","action":1}"#,
            r#"{"type":"action","action":1,"id":-1}"#,
            r#"{"type":"action","action":1,"version":01}"#,
            r#"{"type":"action","action":1234567890123456789}"#,
            r#"{"type":"ping","action":1}"#,
            r#"{"action":1}"#,
            r#"{"type":"action"}"#,
            r#"{"type":"action","action":1} x"#,
            r#"{"type":"action","action":1,}"#,
            "{}",
            "",
        ] {
            assert_eq!(read(other), None, "{other}");
        }
        let deep = |n: usize| {
            format!(
                r#"{{"type":"action","action":{}1{}}}"#,
                "[".repeat(n),
                "]".repeat(n)
            )
        };
        assert!(read(&deep(63)).is_some());
        assert_eq!(read(&deep(64)), None);
        for text in [deep(63), deep(64), deep(127), deep(128)] {
            assert_eq!(
                parse_client_message(&text).is_ok(),
                serde_json::from_str::<Value>(&text).is_ok(),
                "{text}"
            );
        }
    }
}
