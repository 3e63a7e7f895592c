//! What clients send: a [`ClientMessage`] is an optional request id and a [`Request`].

use schemars::JsonSchema;
use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::{AbsencePolicy, NotifyLanguage, NotifyTarget, Pace, RawJson, TableRef};

/// A client-chosen identifier of a request, echoed as `re` in the one reply to it. A string or an integer.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum RequestId {
    Number(u64),
    Text(String),
}

/// Read as serde's `untagged` reads it (the same values, the same refusal), without buffering the value first:
/// every request carries one, so it is on the way of every action.
impl<'de> Deserialize<'de> for RequestId {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct IdVisitor;
        fn mismatch<E: de::Error>() -> E {
            E::custom("a request id is a string or a whole number, 0 or more")
        }
        impl<'de> Visitor<'de> for IdVisitor {
            type Value = RequestId;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a string or an unsigned integer")
            }
            fn visit_u64<E: de::Error>(self, n: u64) -> Result<RequestId, E> {
                Ok(RequestId::Number(n))
            }
            fn visit_i64<E: de::Error>(self, n: i64) -> Result<RequestId, E> {
                u64::try_from(n).map(RequestId::Number).map_err(|_| mismatch())
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<RequestId, E> {
                Ok(RequestId::Text(s.to_owned()))
            }
            fn visit_string<E: de::Error>(self, s: String) -> Result<RequestId, E> {
                Ok(RequestId::Text(s))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<RequestId, E> {
                Err(mismatch())
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<RequestId, E> {
                Err(mismatch())
            }
            fn visit_unit<E: de::Error>(self) -> Result<RequestId, E> {
                Err(mismatch())
            }
            fn visit_none<E: de::Error>(self) -> Result<RequestId, E> {
                Err(mismatch())
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, _: A) -> Result<RequestId, A::Error> {
                Err(mismatch())
            }
            fn visit_map<A: de::MapAccess<'de>>(self, _: A) -> Result<RequestId, A::Error> {
                Err(mismatch())
            }
        }
        deserializer.deserialize_any(IdVisitor)
    }
}

/// A seat token: the secret that gives a seat back. Its `Debug` form is redacted so that it cannot reach a log
/// by accident; read it with [`SeatToken::expose`].
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, json_write::WriteJson)]
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

/// Everything a client may ask. Read with its `type` first (`json_write::TagFirst`), so that a refusal can name
/// the member it is about (serde's own derive reads an internally tagged enum from a copy that has lost the path).
#[derive(Clone, Debug, PartialEq, Serialize, json_write::TagFirst, JsonSchema)]
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
        /// The host's display name: plain text, kept in NFC and trimmed, 1 to [`NAME_MAX_CHARS`] characters with a
        /// visible one, one line, without bidirectional controls or invisible characters (see `docs/protocol.md`,
        /// "Names and chat text"); refused with `bad_name`.
        name: String,
        /// Optional turn timer: a seat that must decide and stays idle this long plays a random legal action.
        #[serde(default)]
        turn_timer_ms: Option<u64>,
        /// What happens to the seat of a player who is away (disconnected, or let the turn timer run out);
        /// `wait` when absent.
        #[serde(default)]
        absent: AbsencePolicy,
        /// The version of the game's rules the match plays by: one the server keeps, up to the game's
        /// `rules_version` in `GET /api/games` (the newest); omitted or `null`: the newest. Another is refused
        /// with `bad_options`, whose message names the versions there are.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        rules_version: Option<u32>,
        /// The lobby's pace: `{"kind":"live"}` (the default) or a correspondence clock (see `Pace`).
        #[serde(default, skip_serializing_if = "Pace::is_live")]
        pace: Pace,
    },
    /// Takes the lowest free seat of the lobby with this join code (case, spaces and dashes ignored). A connection
    /// that spectates this lobby while it is open may join it directly: it stops spectating and takes the seat.
    JoinLobby {
        code: String,
        /// The player's display name, as in `create_lobby` (refused with `bad_name`).
        name: String,
    },
    /// Watches the lobby with this join code without a seat: the public view only. A private lobby whose match
    /// is over is watched only with its `watch` token (from [`Request::WatchLink`]); by its code alone it is
    /// answered `unknown_lobby`, as if it did not exist. A `watch` token given must be the lobby's.
    Spectate {
        code: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        watch: Option<String>,
        /// The spectator's display name, checked as a player's (`bad_name`): shown in the lobby push's `watchers`
        /// and on the spectator's chat messages. Omitted or `null`: an unnamed spectator, counted in `spectators`
        /// only and writing as `Spectator`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
        /// The last state version this client saw of this lobby's match (after a dropped connection): the first
        /// `state` carries the events since then, as for `resume`. Omitted: the events of the match's recent
        /// changes the server keeps (at most 256), so that a spectator arriving mid-match sees what was played.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        last_version: Option<u64>,
    },
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
    /// Plays an action of the game for the sender's seat. `version`, when given, is the version of the state the
    /// action was chosen on: it is refused with `stale_version` if this seat's options changed (or it acted) since
    /// then, never for other seats' independent moves.
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
    /// plain text, kept in NFC and trimmed, 1 to [`CHAT_MAX_CHARS`] characters, one line, without bidirectional
    /// controls or invisible characters (see `docs/protocol.md`, "Names and chat text"); refused with `bad_chat`.
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
        /// The version of the game's rules (as in `create_lobby`); omitted or `null`: unchanged.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        rules_version: Option<u32>,
        /// The lobby's pace (as in `create_lobby`); omitted or `null`: unchanged.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pace: Option<Pace>,
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
    /// A seat holder, once the match has started: the lobby's watch token, for a replay link that lets anyone
    /// given it watch the lobby, also once it is over and private. Answered by [`Reply::WatchLink`].
    WatchLink {},
    /// The tables whose seat tokens the client holds, with whose turn it is at each: answered by
    /// `Reply::MyTables`, one entry per table named, in order. Allowed on any greeted connection, seated or not.
    /// At most [`crate::MY_TABLES_MAX`] tables (`too_many_tables`); a wrong code or token is reported in its entry
    /// (`unknown`), not as an error of the request.
    MyTables { tables: Vec<TableRef> },
    /// A seat holder of a playing correspondence match: pauses their own clock for `days` days from now (from 1 to
    /// what is left of the server's monthly allowance, `VACATION_DAYS_PER_MONTH`, counted per calendar month in
    /// UTC). Refused with `bad_options` past the allowance or outside a correspondence match.
    Vacation { days: u32 },
    /// Ends the sender's vacation now (the unused days are not given back).
    EndVacation {},
    /// A seat holder: adds an endpoint that is told when it becomes this seat's turn while its player is not at
    /// the table, and when the match ends (at most [`crate::NOTIFY_ENDPOINTS_PER_SEAT`] per seat; words in
    /// `language`). Answered by [`Reply::NotifyEndpoints`], which carries a webhook's signing secret, once.
    NotifySubscribe {
        target: NotifyTarget,
        #[serde(default)]
        language: NotifyLanguage,
    },
    /// A seat holder: removes one of its endpoints (`endpoint`: its `id` as `notify_endpoints` shows it; not
    /// named `id`, which is the request's own). Answered by [`Reply::NotifyEndpoints`].
    NotifyUnsubscribe { endpoint: u64 },
    /// A seat holder: its endpoints and their state. Answered by [`Reply::NotifyEndpoints`].
    NotifyList {},
}

fn yes() -> bool {
    true
}

/// The longest chat message, in characters (code points, after NFC normalisation and trimming).
pub const CHAT_MAX_CHARS: usize = 500;

/// The longest display name, in characters (code points, after NFC normalisation and trimming).
pub const NAME_MAX_CHARS: usize = 32;

/// The most non-spacing or enclosing combining marks (and variation selectors) a name or chat message may put on
/// one character: enough for every script's real stacks (Vietnamese, Thai, Tibetan, Indic conjuncts, an emoji
/// keycap), far from the towers of "Zalgo" text.
pub const COMBINING_MARKS_MAX: usize = 4;

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
            Request::WatchLink {} => "watch_link",
            Request::MyTables { .. } => "my_tables",
            Request::Vacation { .. } => "vacation",
            Request::EndVacation {} => "end_vacation",
            Request::NotifySubscribe { .. } => "notify_subscribe",
            Request::NotifyUnsubscribe { .. } => "notify_unsubscribe",
            Request::NotifyList {} => "notify_list",
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
    "watch_link",
    "my_tables",
    "vacation",
    "end_vacation",
    "notify_subscribe",
    "notify_unsubscribe",
    "notify_list",
];
