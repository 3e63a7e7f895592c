//! Messages the server sends unasked: lobby changes, state pushes, chat, rematches, closing.

use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;

use crate::{ErrorBody, LobbyInfo, Outcome, RawJson, Seat, SeatToken, Status};

/// Messages the server sends unasked.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, json_write::WriteJson)]
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
    /// What was played for this seat while its player was away: sent after `resumed` (after its `state` push) when
    /// the resume's `last_version` is older than the match's version. Read from the stored action log, so it
    /// survives a server restart.
    Away(Box<AwayReport>),
    /// The seat's notification endpoints changed without its asking: one was switched off after failing (its
    /// `last_error` says why). To that seat's connection only.
    NotifyChanged {
        code: String,
        seat: Seat,
        endpoints: Vec<crate::NotifyEndpoint>,
    },
}

/// Who made an action of a seat (the action log's `made_by`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, json_write::WriteJson)]
#[serde(rename_all = "snake_case")]
pub enum ActedBy {
    /// The seat's player, from their own connection.
    Player,
    /// The bot sitting in a bot seat.
    Bot,
    /// The server's stand-in bot for an absent player (absence policy `bot`).
    StandIn,
    /// The server skipped an absent player's decision with the game's passive choice (absence policy `skip`).
    Skip,
    /// The turn timer ran out and the server played for the idle seat.
    TurnTimer,
    /// The engine's own deadline (the clock's actions; never a seat's).
    Clock,
    /// An administrator (an action played or a deadline fired through the admin API).
    Admin,
    /// Not recorded: an action logged before the server recorded who made each.
    Unknown,
}

impl ActedBy {
    /// The name stored in the action log's `made_by` column (the wire name).
    pub fn as_str(self) -> &'static str {
        match self {
            ActedBy::Player => "player",
            ActedBy::Bot => "bot",
            ActedBy::StandIn => "stand_in",
            ActedBy::Skip => "skip",
            ActedBy::TurnTimer => "turn_timer",
            ActedBy::Clock => "clock",
            ActedBy::Admin => "admin",
            ActedBy::Unknown => "unknown",
        }
    }

    /// The stored name read back; `Unknown` for a missing (older) or unrecognised one.
    pub fn parse(name: Option<&str>) -> ActedBy {
        match name {
            Some("player") => ActedBy::Player,
            Some("bot") => ActedBy::Bot,
            Some("stand_in") => ActedBy::StandIn,
            Some("skip") => ActedBy::Skip,
            Some("turn_timer") => ActedBy::TurnTimer,
            Some("clock") => ActedBy::Clock,
            Some("admin") => ActedBy::Admin,
            _ => ActedBy::Unknown,
        }
    }
}

/// The "while you were away" report of one seat (see [`Push::Away`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, json_write::WriteJson)]
pub struct AwayReport {
    pub code: String,
    pub match_id: String,
    pub seat: Seat,
    /// The `last_version` the resume sent: the report covers the actions after it ...
    pub since: u64,
    /// ... up to this version, the one of the `state` push that followed `resumed`.
    pub version: u64,
    /// The seat's own actions in that span (its log entries whose actor is the seat), oldest first, each with
    /// who made it. Empty when nothing was played for the seat (the match went on without it).
    pub actions: Vec<AwayAction>,
    /// The seat's view at version `since`, replayed from the log (game JSON, as `state.view`): with the `state`
    /// push's view, the standing then and now.
    #[schemars(with = "Value")]
    pub before: RawJson,
    /// The catch-up: every action in that span, every seat's and the clock's, oldest first, as this seat may see
    /// it (at most the last [`CATCH_UP_MAX`]).
    pub moves: Vec<CaughtUp>,
    /// How many earlier actions of the span `moves` leaves out (beyond [`CATCH_UP_MAX`]).
    pub moves_left_out: u64,
}

/// The most actions an [`AwayReport`]'s catch-up lists (the last ones of its span).
pub const CATCH_UP_MAX: usize = 200;

/// One action of an [`AwayReport`]'s catch-up, as the returning seat may see it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, json_write::WriteJson)]
pub struct CaughtUp {
    /// The version this action made.
    pub seq: u64,
    /// The seat that acted; `null` for the engine's own deadline (the clock).
    pub seat: Option<Seat>,
    pub by: ActedBy,
    /// When it was applied, in Unix milliseconds.
    pub at: u64,
    /// The action as logged, only for the returning seat's own actions (another seat's action may hold what
    /// this seat may not know); `null` otherwise. What the others did is told by `events`.
    #[schemars(with = "Option<Value>")]
    pub action: Option<RawJson>,
    /// The events it caused that this seat may see (game JSON, as `state.events`).
    #[schemars(with = "Vec<Value>")]
    pub events: Vec<RawJson>,
}

/// One action of a seat in an [`AwayReport`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, json_write::WriteJson)]
pub struct AwayAction {
    /// The version this action made (its sequence number in the log).
    pub seq: u64,
    pub by: ActedBy,
    /// The action as logged (game JSON, an element of some earlier `legal_actions`).
    #[schemars(with = "Value")]
    pub action: RawJson,
    /// When it was applied, in Unix milliseconds.
    pub at: u64,
    /// The events it caused that this seat may see (game JSON, as `state.events`).
    #[schemars(with = "Vec<Value>")]
    pub events: Vec<RawJson>,
}

/// A game view as a connection that speaks protocol version `speaks` reads it, when that differs (`None`: the
/// same). Version 1 calls a game view's number of seats `players`, which version 2 calls `player_count`, apart
/// from the per-seat lists other games' views call `players`.
fn view_for_version(view: &RawJson, speaks: u32) -> Option<RawJson> {
    if speaks >= 2 {
        return None;
    }
    // A member of the view's top level (written compactly, first or after a comma); the text cannot occur
    // inside a string, whose quotes would be escaped.
    let text = view.get();
    let at = [r#"{"player_count":"#, r#","player_count":"#]
        .iter()
        .find_map(|member| text.find(member))?;
    let mut renamed = String::with_capacity(text.len());
    renamed.push_str(&text[..=at]);
    renamed.push_str(r#""players":"#);
    renamed.push_str(&text[at + r#"{"player_count":"#.len()..]);
    Some(RawJson::from(
        RawValue::from_string(renamed).expect("a member renamed in JSON is JSON"),
    ))
}

impl AwayReport {
    /// The report as a connection that speaks protocol version `speaks` reads it (its `before` view as
    /// [`StateUpdate::for_version`] writes a view), when that differs (`None`: the same).
    pub fn for_version(&self, speaks: u32) -> Option<AwayReport> {
        Some(AwayReport {
            before: view_for_version(&self.before, speaks)?,
            ..self.clone()
        })
    }
}

/// Who may read a chat message's channel: everyone in the lobby reads both; the channel says who wrote it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, json_write::WriteJson)]
#[serde(rename_all = "snake_case")]
pub enum ChatChannel {
    /// Written by a seated player.
    Players,
    /// Written by a spectator.
    Spectators,
}

/// One chat message: plain text, never markup.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, json_write::WriteJson)]
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

/// How many recent chat messages a client receives on joining, spectating or resuming.
pub const CHAT_HISTORY: usize = 50;

/// An open rematch offer of a finished lobby.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, json_write::WriteJson)]
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

impl StateUpdate {
    /// The push as a connection that speaks protocol version `speaks` reads it, when that differs from this one
    /// (`None`: the same). Version 1 calls a game view's number of seats `players`, which version 2 calls
    /// `player_count`, apart from the per-seat lists other games' views call `players`.
    pub fn for_version(&self, speaks: u32) -> Option<StateUpdate> {
        Some(StateUpdate {
            view: view_for_version(&self.view, speaks)?,
            ..self.clone()
        })
    }
}

/// One seat's correspondence clock in a `state` push.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, json_write::WriteJson)]
pub struct SeatClock {
    pub seat: Seat,
    /// The time left on the seat's bank at the push's moment, in milliseconds.
    pub left_ms: u64,
    /// Whether it runs now (the seat must decide and is not on vacation).
    pub running: bool,
    /// The seat's player is on vacation until then (Unix milliseconds): the clock does not run before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vacation_until: Option<u64>,
}

/// The state of a match as one viewer may see it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, json_write::WriteJson)]
pub struct StateUpdate {
    // Shared with the table, which sends them in every push (a reference count each, not a copy).
    #[schemars(with = "String")]
    pub code: Arc<str>,
    #[schemars(with = "String")]
    pub match_id: Arc<str>,
    #[schemars(with = "String")]
    pub game: Arc<str>,
    /// The number of actions applied to the match so far: every action counts, a seat's (its player's, a bot's, a
    /// stand-in's, the turn timer's) and the clock's alike. Only grows. Send it back with an action.
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
    /// A correspondence match's clocks, one per seat, as of this push (count down from them while `running`);
    /// absent for live matches.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clocks: Option<Vec<SeatClock>>,
    /// What happened, filtered to what this viewer may know (game-specific JSON).
    pub events: Vec<RawJson>,
    /// The engine's view for this viewer (opaque, game-specific JSON).
    pub view: RawJson,
}
