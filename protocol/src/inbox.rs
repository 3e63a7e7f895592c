//! "My tables" (issue 47): a player's list of the tables whose seat tokens their client keeps, with whose turn it
//! is at each ([`crate::Request::MyTables`], answered by [`crate::Reply::MyTables`]).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::{Outcome, Seat, SeatToken};

/// The most tables one `my_tables` request may name; more are refused with `too_many_tables`.
pub const MY_TABLES_MAX: usize = 100;

/// A table the client holds a seat of: its join code and the seat token `seated` (or `rematched`) gave.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TableRef {
    pub code: String,
    pub token: SeatToken,
}

/// One entry of the `my_tables` reply, in the order the request named the tables.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum MyTable {
    /// The token holds a seat of this lobby.
    Seated(Box<TableSummary>),
    /// No lobby has this code, or the token is not one of its seats' (the two are not told apart), or the lobby
    /// closed before its start. Each such entry counts as a failed look-up against the limits on guessing
    /// (`rate_limited`).
    Unknown { code: String },
}

/// Where a table is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TablePhase {
    /// Waiting for players; not started.
    Open,
    Playing,
    /// Over, with a result.
    Finished,
    /// Ended by an administrator, without a result.
    Aborted,
    /// Ended because nobody was connected for a long time (`ABANDON_AFTER_SECS`), without a result.
    Abandoned,
}

/// A seat of a table as the list shows it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TableSeat {
    pub seat: Seat,
    /// The player's display name; `null` for a seat nobody has taken yet (an open lobby).
    pub name: Option<String>,
    /// A server-side bot sits there.
    pub bot: bool,
}

/// What the list says of one table, read from the database (the same on every node, also for a table out of
/// memory).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TableSummary {
    /// The join code as the request wrote it.
    pub code: String,
    /// The game's id (as in `GET /api/games`) and its name.
    pub game: String,
    pub game_name: String,
    /// The seat the token holds.
    pub seat: Seat,
    /// Every seat of the table, in order.
    pub players: Vec<TableSeat>,
    pub phase: TablePhase,
    /// The seats that must decide now (the one whose turn it is, or those still expected in a simultaneous
    /// step); empty when nobody is waited for (an open lobby, a race any seat may claim, an ended match);
    /// `null` when the server did not record it (a match played before it did).
    pub to_decide: Option<Vec<Seat>>,
    /// Whether `seat` is among `to_decide`: this table waits on this player.
    pub your_turn: bool,
    /// When the turn timer plays for the seats that must decide, in Unix milliseconds; `null` without a turn
    /// timer or when no human seat must decide.
    pub deadline: Option<u64>,
    /// The time left on this seat's clock, in milliseconds: in a live match the turn timer's, when this seat must
    /// decide (`null` when nothing times it now); in a playing correspondence match its bank (an estimate from the
    /// stored clocks; the `state` push has them exactly).
    pub clock_left_ms: Option<u64>,
    /// When the last action was played, or the match started before the first one, in Unix milliseconds;
    /// `null` while the lobby is open.
    pub last_move_at: Option<u64>,
    /// The match's state version (its number of actions); 0 before the start.
    pub version: u64,
    /// The result, once finished.
    pub result: Option<Outcome>,
}
