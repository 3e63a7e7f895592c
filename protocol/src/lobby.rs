//! Lobbies as clients see them: seats and who holds them, the phase, the absence policy, the public list.

use schemars::JsonSchema;
use serde::de::{Deserializer, MapAccess, Visitor, value::MapAccessDeserializer};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::{GameInfo, Seat};

/// One game of `GET /api/games`: what the engine says of itself (`rules_version` is the newest version of its
/// rules) and the oldest version a lobby may still choose (`rules_version` in `create_lobby`).
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct CatalogueEntry {
    #[serde(flatten)]
    pub info: GameInfo,
    pub oldest_rules_version: u32,
}

impl CatalogueEntry {
    /// Every hosted game, in the registry's order.
    pub fn all() -> Vec<CatalogueEntry> {
        rules::catalogue()
            .into_iter()
            .map(|info| CatalogueEntry {
                oldest_rules_version: rules::rules_versions(info.id)
                    .map_or(info.rules_version, |versions| *versions.start()),
                info,
            })
            .collect()
    }
}

/// What the server does for a seated player who is away: disconnected for `grace_ms`, or (for `bot` and `skip`)
/// at once when their turn timer ran out. Wire form: `{"policy": "bot", "grace_ms": 30000}` (an object: a list is
/// refused).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, JsonSchema, json_write::WriteJson)]
pub struct AbsencePolicy {
    pub policy: AbsenceKind,
    /// How long a player may be disconnected before the server plays for them (`bot`, `skip`); 0 for `wait`.
    pub grace_ms: u64,
}

/// Read from a JSON object only: serde's derive would also read a list, by position (`["bot", 5000]`).
impl<'de> Deserialize<'de> for AbsencePolicy {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(remote = "AbsencePolicy")]
        struct Members {
            policy: AbsenceKind,
            grace_ms: u64,
        }
        struct ObjectOnly;
        impl<'de> Visitor<'de> for ObjectOnly {
            type Value = AbsencePolicy;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<AbsencePolicy, A::Error> {
                Members::deserialize(MapAccessDeserializer::new(map))
            }
        }
        deserializer.deserialize_map(ObjectOnly)
    }
}

#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema, json_write::WriteJson,
)]
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

/// The most a correspondence lobby's `move_ms` may be: 14 days.
pub const MAX_MOVE_MS: u64 = 14 * 24 * 60 * 60 * 1_000;
/// The least a correspondence lobby's `move_ms` may be: 1 hour.
pub const MIN_MOVE_MS: u64 = 60 * 60 * 1_000;
/// The most a correspondence lobby's `bank_cap_ms` may be: 30 days.
pub const MAX_BANK_CAP_MS: u64 = 30 * 24 * 60 * 60 * 1_000;

/// A lobby's pace. `live` (the default): today's play, with an optional turn timer and absence policy.
/// `correspondence`: each seat has a clock (a bank of time) that runs while that seat must decide; each of its
/// actions adds `move_ms`, up to `bank_cap_ms`; `stall` says what happens when a bank runs out. A correspondence
/// lobby has no turn timer and its absence policy is `wait` (`create_lobby` and `configure_lobby` refuse
/// anything else with `bad_options`).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema, json_write::WriteJson,
)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Pace {
    #[default]
    Live,
    Correspondence {
        /// The time a seat's bank gains once per turn (when the seat's action ends its decision), and its
        /// starting bank: from 1 hour (3600000) to 14 days (1209600000).
        #[schemars(range(min = 3_600_000, max = 1_209_600_000))]
        move_ms: u64,
        /// The most a bank may hold: at least `move_ms`, at most 30 days (2592000000).
        #[schemars(range(min = 3_600_000, max = 2_592_000_000u64))]
        bank_cap_ms: u64,
        /// What happens when a seat's bank runs out.
        stall: StallPolicy,
    },
}

impl Pace {
    pub fn is_live(&self) -> bool {
        matches!(self, Pace::Live)
    }
}

/// What a correspondence table does when a seat's clock runs out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, json_write::WriteJson)]
#[serde(rename_all = "snake_case")]
pub enum StallPolicy {
    /// The server bot plays that move for the seat (logged as `turn_timer`); the seat's clock gets `move_ms`.
    Bot,
    /// The seat's decision is skipped with the game's passive choice (games whose `can_skip` is true only).
    Skip,
    /// The match ends, recorded as timed out by that seat (lobby `timed_out`).
    End,
}

/// Whether a seat's player is there: `connected` (a live connection with recent activity), `idle` (connected,
/// but silent for a while or the page is hidden) or `away` (no connection).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema, json_write::WriteJson,
)]
#[serde(rename_all = "snake_case")]
pub enum Presence {
    Connected,
    Idle,
    #[default]
    Away,
}

/// One open lobby of the public list (`GET /api/lobbies`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, json_write::WriteJson)]
pub struct ListedLobby {
    pub code: String,
    pub game: String,
    /// The options with every default filled in.
    pub options: Value,
    pub seats: u8,
    pub seats_taken: u8,
    pub seats_free: u8,
    /// The version of the game's rules the match will play by (the host's choice; the newest by default).
    pub rules_version: u32,
    /// The host's display name.
    pub host_name: String,
    #[serde(default)]
    pub turn_timer_ms: Option<u64>,
    /// The lobby's pace.
    #[serde(default)]
    pub pace: Pace,
    /// When the lobby was created, in Unix milliseconds.
    pub created_at: u64,
}

/// A lobby as everyone in it sees it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, json_write::WriteJson)]
pub struct LobbyInfo {
    pub code: String,
    pub game: String,
    /// The options with every default filled in.
    pub options: Value,
    /// The version of the game's rules the match plays (or will play) by: the newest unless the host chose an
    /// older one.
    pub rules_version: u32,
    pub seats: Vec<SeatInfo>,
    pub host: Seat,
    pub phase: LobbyPhase,
    #[serde(default)]
    pub turn_timer_ms: Option<u64>,
    /// Set once the match has started.
    #[serde(default)]
    pub match_id: Option<String>,
    pub spectators: u32,
    /// The names of the spectators who gave one (`spectate` with `name`), in the order they came, at most 20;
    /// spectators without a name (and named ones past the twentieth) are counted in `spectators` only. Omitted
    /// when empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub watchers: Vec<String>,
    /// Whether the lobby is in the public list of open lobbies (otherwise only its code leads to it).
    #[serde(default)]
    pub listed: bool,
    /// The lobby's absence policy.
    #[serde(default)]
    pub absent: AbsencePolicy,
    /// The lobby's pace (`live` or `correspondence`).
    #[serde(default)]
    pub pace: Pace,
    /// The match ended because this seat's correspondence clock ran out under the stall policy `end` (phase
    /// `finished`, no result). Omitted otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timed_out: Option<Seat>,
    /// The match ended as abandoned (phase `finished`): nobody was connected to it for the server's abandonment
    /// time (weeks by default). It is over without a result; its final state stays viewable. Omitted when false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub abandoned: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, json_write::WriteJson)]
#[serde(rename_all = "snake_case")]
pub enum LobbyPhase {
    /// Seats can be taken; the host can start.
    Open,
    /// The match is being played.
    Playing,
    /// The match is over; the final state stays available.
    Finished,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, json_write::WriteJson)]
pub struct SeatInfo {
    pub seat: Seat,
    pub occupant: Occupant,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, json_write::WriteJson)]
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
