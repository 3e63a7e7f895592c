//! Typed requests for the tests: each helper builds a [`protocol::Request`], which serde writes as the wire
//! JSON, so a test cannot send a misspelt field or a wrongly typed value by accident. Tests that send invalid
//! input on purpose (malformed, unknown or hostile frames) write raw JSON instead and say so.
//!
//! ```ignore
//! let created = host.request(req::create_lobby("hide_and_eeek", 2, "Ann").options(json!({"target": 3}))).await;
//! let r = guest.request(req::join(&code, "Bob")).await;
//! let r = mover.request(req::action(&legal[0], version)).await;
//! ```

use protocol::{
    AbsenceKind, AbsencePolicy, ClientMessage, Pace, RawJson, Request, RequestId, SeatToken, StallPolicy,
};
use serde_json::Value;

/// What [`crate::Client::request`] sends: a typed request, or (for tests of invalid input) a raw JSON object.
pub trait Body {
    /// The text frame carrying this request with the request id `id`.
    fn frame(self, id: u64) -> String;
}

impl Body for Request {
    fn frame(self, id: u64) -> String {
        frame(self, RequestId::Number(id))
    }
}

impl Body for &Request {
    fn frame(self, id: u64) -> String {
        self.clone().frame(id)
    }
}

/// A raw JSON object, sent as it is with `"id"` set: only for input that is invalid on purpose.
impl Body for Value {
    fn frame(mut self, id: u64) -> String {
        self["id"] = Value::from(id);
        self.to_string()
    }
}

/// The text frame carrying `request` with the request id `id` (a number or a string).
pub fn frame(request: Request, id: RequestId) -> String {
    let message = ClientMessage {
        id: Some(id),
        request,
    };
    serde_json::to_string(&message).expect("a request serialises")
}

/// A request's JSON as it goes on the wire (without an id).
pub fn to_value(request: &Request) -> Value {
    serde_json::to_value(request).expect("a request serialises")
}

/// The handshake for this crate's protocol version.
pub fn hello() -> Request {
    hello_as(protocol::PROTOCOL_VERSION, None)
}

/// The handshake announcing `protocol`, with an optional client name.
pub fn hello_as(protocol: u32, client: Option<&str>) -> Request {
    Request::Hello {
        protocol,
        client: client.map(str::to_string),
    }
}

/// `create_lobby` with the game's default options, no turn timer and the `wait` absence policy; the
/// [`LobbySettings`] methods set the rest.
pub fn create_lobby(game: &str, seats: u8, name: &str) -> Request {
    Request::CreateLobby {
        game: game.to_string(),
        options: Value::Null,
        seats,
        name: name.to_string(),
        turn_timer_ms: None,
        absent: AbsencePolicy::default(),
        rules_version: None,
        pace: Pace::Live,
    }
}

/// `configure_lobby` with `options` and `seats`, no turn timer and the absence policy unchanged; the
/// [`LobbySettings`] methods set the rest.
pub fn configure_lobby(options: Value, seats: u8) -> Request {
    Request::ConfigureLobby {
        options,
        seats,
        turn_timer_ms: None,
        absent: None,
        rules_version: None,
        pace: None,
    }
}

/// The settings `create_lobby` and `configure_lobby` share, set builder-style on either request (a test that
/// sets them on another request is wrong, and panics).
pub trait LobbySettings {
    /// The game's options (missing ones take their defaults).
    fn options(self, options: Value) -> Self;
    fn turn_timer_ms(self, ms: u64) -> Self;
    fn absent(self, absent: AbsencePolicy) -> Self;
    /// The version of the game's rules.
    fn rules_version(self, version: u32) -> Self;
    /// The lobby's pace.
    fn pace(self, pace: Pace) -> Self;
}

impl LobbySettings for Request {
    fn options(mut self, value: Value) -> Request {
        match &mut self {
            Request::CreateLobby { options, .. } | Request::ConfigureLobby { options, .. } => {
                *options = value
            }
            other => panic!("options on a {} request", other.kind()),
        }
        self
    }

    fn turn_timer_ms(mut self, ms: u64) -> Request {
        match &mut self {
            Request::CreateLobby { turn_timer_ms, .. } | Request::ConfigureLobby { turn_timer_ms, .. } => {
                *turn_timer_ms = Some(ms)
            }
            other => panic!("a turn timer on a {} request", other.kind()),
        }
        self
    }

    fn absent(mut self, policy: AbsencePolicy) -> Request {
        match &mut self {
            Request::CreateLobby { absent, .. } => *absent = policy,
            Request::ConfigureLobby { absent, .. } => *absent = Some(policy),
            other => panic!("an absence policy on a {} request", other.kind()),
        }
        self
    }

    fn rules_version(mut self, version: u32) -> Request {
        match &mut self {
            Request::CreateLobby { rules_version, .. } | Request::ConfigureLobby { rules_version, .. } => {
                *rules_version = Some(version)
            }
            other => panic!("a rules version on a {} request", other.kind()),
        }
        self
    }

    fn pace(mut self, value: Pace) -> Request {
        match &mut self {
            Request::CreateLobby { pace, .. } => *pace = value,
            Request::ConfigureLobby { pace, .. } => *pace = Some(value),
            other => panic!("a pace on a {} request", other.kind()),
        }
        self
    }
}

/// A correspondence pace.
pub fn correspondence(move_ms: u64, bank_cap_ms: u64, stall: StallPolicy) -> Pace {
    Pace::Correspondence {
        move_ms,
        bank_cap_ms,
        stall,
    }
}

/// `vacation` for `days` days.
pub fn vacation(days: u32) -> Request {
    Request::Vacation { days }
}

/// `end_vacation`.
pub fn end_vacation() -> Request {
    Request::EndVacation {}
}

/// `notify_subscribe`: an email endpoint for the seat, with words in `language`.
pub fn notify_email(address: &str, language: protocol::NotifyLanguage) -> Request {
    Request::NotifySubscribe {
        target: protocol::NotifyTarget::Email {
            address: address.to_string(),
        },
        language,
    }
}

/// `notify_subscribe`: a webhook endpoint for the seat (words in English).
pub fn notify_webhook(url: &str) -> Request {
    Request::NotifySubscribe {
        target: protocol::NotifyTarget::Webhook { url: url.to_string() },
        language: protocol::NotifyLanguage::En,
    }
}

pub fn notify_list() -> Request {
    Request::NotifyList {}
}

pub fn notify_unsubscribe(endpoint: u64) -> Request {
    Request::NotifyUnsubscribe { endpoint }
}

/// The absence policy `wait` (the default).
pub fn wait() -> AbsencePolicy {
    AbsencePolicy::default()
}

/// The absence policy `bot` after `grace_ms` away.
pub fn bot_after(grace_ms: u64) -> AbsencePolicy {
    AbsencePolicy {
        policy: AbsenceKind::Bot,
        grace_ms,
    }
}

/// The absence policy `skip` after `grace_ms` away.
pub fn skip_after(grace_ms: u64) -> AbsencePolicy {
    AbsencePolicy {
        policy: AbsenceKind::Skip,
        grace_ms,
    }
}

pub fn join(code: &str, name: &str) -> Request {
    Request::JoinLobby {
        code: code.to_string(),
        name: name.to_string(),
    }
}

pub fn spectate(code: &str) -> Request {
    Request::Spectate {
        code: code.to_string(),
        watch: None,
        name: None,
        last_version: None,
    }
}

/// `spectate` with a watch token (a replay link).
pub fn spectate_with(code: &str, watch: &str) -> Request {
    Request::Spectate {
        code: code.to_string(),
        watch: Some(watch.to_string()),
        name: None,
        last_version: None,
    }
}

/// `spectate` under a name (shown in the lobby's `watchers` and on the spectator's chat).
pub fn spectate_as(code: &str, name: &str) -> Request {
    Request::Spectate {
        code: code.to_string(),
        watch: None,
        name: Some(name.to_string()),
        last_version: None,
    }
}

/// `watch_link`: a seat holder asks for the lobby's watch token.
pub fn watch_link() -> Request {
    Request::WatchLink {}
}

/// `resume` without a last version: the client gets the current view alone.
pub fn resume(code: &str, token: &str) -> Request {
    resume_from(code, token, None)
}

/// `resume` with the last version this client saw (`None`: as [`resume`]).
pub fn resume_from(code: &str, token: &str, last_version: impl Into<Option<u64>>) -> Request {
    Request::Resume {
        code: code.to_string(),
        token: SeatToken::new(token.to_string()),
        last_version: last_version.into(),
    }
}

pub fn leave() -> Request {
    Request::Leave {}
}

/// `add_bot` at the lowest free seat.
pub fn add_bot() -> Request {
    Request::AddBot { seat: None }
}

pub fn add_bot_at(seat: u8) -> Request {
    Request::AddBot { seat: Some(seat) }
}

pub fn start() -> Request {
    Request::Start {}
}

/// `action` with `action` as the game lists it, chosen on state `version` (a `u64`, or `None` for no version).
pub fn action(action: &Value, version: impl Into<Option<u64>>) -> Request {
    Request::Action {
        action: RawJson::of(action),
        version: version.into(),
    }
}

pub fn ping() -> Request {
    Request::Ping {}
}

pub fn chat(text: &str) -> Request {
    Request::Chat {
        text: text.to_string(),
    }
}

pub fn presence(hidden: bool) -> Request {
    Request::Presence { hidden }
}

pub fn remove_player(seat: u8) -> Request {
    Request::RemovePlayer { seat }
}

pub fn make_host(seat: u8) -> Request {
    Request::MakeHost { seat }
}

pub fn set_listed(listed: bool) -> Request {
    Request::SetListed { listed }
}

/// `rematch`: asks for (or accepts, `true`) or declines (`false`) a rematch.
pub fn rematch(accept: bool) -> Request {
    Request::Rematch { accept }
}

/// `my_tables` for these `(code, seat token)` pairs.
pub fn my_tables(tables: &[(&str, &str)]) -> Request {
    Request::MyTables {
        tables: tables
            .iter()
            .map(|(code, token)| protocol::TableRef {
                code: code.to_string(),
                token: SeatToken::new(token.to_string()),
            })
            .collect(),
    }
}
