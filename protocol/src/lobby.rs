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
