//! The New Year picture puzzle (seed 002): a memory game of 64 face-down picture cards in an 8 x 8 square.
//!
//! On a turn a player reveals a face-down card (or, from rules version 2, passes). If the place where that card
//! belongs shares a side with a card of the picture (from version 3, or with an exposed card), the server puts it
//! there (the card that lay there moves to the freed spot), the player draws the top reward card and may move
//! again unless the card forbids it. Otherwise everyone sees the card, it goes back face down where it lay (or,
//! from version 2, stays face up, exposed, if everyone had seen it before), and the turn passes. The game ends
//! when the picture is complete. Every decision the seed leaves open is recorded in
//! `docs/rules/new-year-puzzle.md`, with what changed between rules versions.
//!
//! Hidden information: the identity of every face-down card and the order of the reward pile (below its top card
//! in version 1, where the pile lies face up). Views show neither; events show a card's identity only when it is
//! turned face up for everyone.

mod bot;
pub mod data;
mod legal;
mod scoring;
mod secrets;
#[cfg(test)]
mod tests;
mod turn;
mod view;

use std::fmt;

use serde::{Deserialize, Serialize};

pub use self::view::*;
use crate::model::{
    Actor, Deadline, Event, Game, GameInfo, Millis, Outcome, Reject, RejectKind, Seat, SetupError, Status,
    Viewer,
};
use crate::rng::Rng;

use data::{
    CARDS, CORNERS, Condition, EMPTY_PILE_POINTS, Effect, FIRST_RULES_VERSION, MAX_PLAYERS, MIN_PLAYERS,
    RULES_VERSION, Reward, RewardCard, SIDE, SKY_LAST_ROW, full_deck, on_border, row_col, side_neighbours,
};

/// The game has no options; unknown ones are refused.
#[derive(
    Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema, json_write::WriteJson,
)]
#[serde(deny_unknown_fields)]
pub struct NewYearPuzzleConfig {}

/// A decision of the seat whose turn it is.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Serialize,
    json_write::TagFirst,
    schemars::JsonSchema,
    json_write::WriteJson,
)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum PuzzleAction {
    /// Turn over the face-down card lying at `position` (0..64, rows of eight, top left first), or take the
    /// exposed card lying face up there once it fits (rules version 2). The server judges the reveal and, on a
    /// success, puts the card in its place (GAPS Q9).
    Reveal { position: u8 },
    /// End the turn without revealing (again): decline the extra move a success earned, or, from rules version 2,
    /// pass the turn's first reveal (not when every other player has passed since the last reveal).
    Stop,
}

/// A face-down card whose identity every player has seen: it failed face up for everyone while lying at
/// `position`, and `position` follows it when a success moves it. The public record every seat's memory can
/// hold; not in any view (remembering is the game), but the rules of version 2 and the server bot use it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, json_write::WriteJson)]
pub struct Sighting {
    pub position: u8,
    pub card: u8,
}

/// A reward condition that waits for the drawer's next reveal.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema, json_write::WriteJson,
)]
pub struct Pending {
    pub seat: Seat,
    pub reward: Reward,
}

/// A change to one seat's score.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema, json_write::WriteJson,
)]
pub struct ScoreChange {
    pub seat: Seat,
    pub delta: i64,
}

/// What happened, in order. Only [`PuzzleEvent::Failed`] and [`PuzzleEvent::Placed`] name a square card, and
/// only the one just turned face up for everyone; the face-down card a success displaces is never named.
#[derive(
    Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema, json_write::WriteJson,
)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum PuzzleEvent {
    /// A failed reveal, shown to everyone: `card` lay at `position`, and lies there again, face down; or, when
    /// `exposed` (rules version 2: everyone had seen it before), it stays there face up until it fits.
    Failed {
        seat: Seat,
        position: u8,
        card: u8,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        exposed: bool,
    },
    /// A successful reveal: `card` was at `from` and now lies face up in its own place, position `card`. When
    /// `swapped`, the face-down card that lay at `card` has moved, still face down, to `from`.
    Placed {
        seat: Seat,
        from: u8,
        card: u8,
        swapped: bool,
    },
    /// The top reward card went to `seat`, who scores its printed points.
    RewardDrawn { seat: Seat, reward: Reward, points: i64 },
    /// The reward pile was empty: the success scored [`EMPTY_PILE_POINTS`] and ends the turn.
    PileEmpty { seat: Seat, points: i64 },
    /// A reward card's condition was judged: `met`, and the score changes it caused.
    Bonus {
        seat: Seat,
        reward: Reward,
        met: bool,
        changes: Vec<ScoreChange>,
    },
    /// A reward card's condition waits for the drawer's next reveal.
    BonusPending { seat: Seat, reward: Reward },
    /// The game ended before the drawer revealed again: the condition scores nothing.
    BonusLapsed { seat: Seat, reward: Reward },
    /// The success earned another move for `seat`.
    ExtraMove { seat: Seat },
    /// `seat` declined its extra move.
    Stopped { seat: Seat },
    /// `seat` passed its turn without revealing (rules version 2).
    Passed { seat: Seat },
    /// It is now `seat`'s turn.
    TurnPassed { seat: Seat },
    /// The picture is complete.
    GameOver { scores: Vec<i64> },
}

/// Why an action was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PuzzleReject {
    GameOver,
    NoSuchSeat(Seat),
    NotYourTurn {
        turn: Seat,
    },
    NoClockAction,
    NoSuchPosition(u8),
    AlreadyFaceUp(u8),
    NoExtraMove,
    /// The exposed card at this position does not fit yet (rules version 2).
    ExposedMisfit(u8),
    /// Every other player has passed since the last reveal: this seat must reveal (rules version 2).
    MustReveal,
}

impl fmt::Display for PuzzleReject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PuzzleReject::GameOver => write!(f, "the picture is complete; the game is over"),
            PuzzleReject::NoSuchSeat(seat) => write!(f, "there is no {seat} at this table"),
            PuzzleReject::NotYourTurn { turn } => write!(f, "it is {turn}'s turn"),
            PuzzleReject::NoClockAction => write!(f, "this game has no timed actions"),
            PuzzleReject::NoSuchPosition(p) => {
                write!(
                    f,
                    "position {p} is off the picture (positions are 0 to {})",
                    CARDS - 1
                )
            }
            PuzzleReject::AlreadyFaceUp(p) => write!(f, "the card at position {p} is already face up"),
            PuzzleReject::NoExtraMove => write!(f, "there is no extra move to decline: reveal a card"),
            PuzzleReject::ExposedMisfit(p) => {
                write!(f, "the face-up card at position {p} does not fit the picture yet")
            }
            PuzzleReject::MustReveal => {
                write!(f, "everyone else has passed since the last reveal: reveal a card")
            }
        }
    }
}

impl Reject for PuzzleReject {
    fn kind(&self) -> RejectKind {
        match self {
            PuzzleReject::GameOver => RejectKind::GameOver,
            PuzzleReject::NoSuchSeat(_) => RejectKind::NoSuchSeat,
            PuzzleReject::NotYourTurn { .. } => RejectKind::NotYourTurn,
            PuzzleReject::NoClockAction => RejectKind::NotDue,
            PuzzleReject::NoSuchPosition(_)
            | PuzzleReject::AlreadyFaceUp(_)
            | PuzzleReject::NoExtraMove
            | PuzzleReject::ExposedMisfit(_)
            | PuzzleReject::MustReveal => RejectKind::IllegalAction,
        }
    }
}

/// The whole state, hidden information included. Never sent to players: [`Game::view`] is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, json_write::WriteJson)]
pub struct NewYearPuzzle {
    /// The rules version this match plays (`Game::new_at`); states written before version 2 existed read as 1.
    #[serde(
        default = "first_rules_version",
        skip_serializing_if = "is_first_rules_version"
    )]
    rules_version: u32,
    players: u8,
    /// `board[p]` is the square card lying at position `p`; always a permutation of `0..64`.
    board: Vec<u8>,
    /// Whether the card at a position is in the picture: face up in its own place.
    face_up: Vec<bool>,
    /// Positions of exposed cards, increasing (version 2): face up, not in the picture. Empty when the game ends.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    exposed: Vec<u8>,
    /// The face-down cards every player has seen, oldest sighting first (a card seen again moves to the end).
    /// Kept in every version (the server bot's memory); version 2's rules read it. Empty when the game ends.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    seen: Vec<Sighting>,
    /// Passes in a row since the last reveal (version 2).
    #[serde(default, skip_serializing_if = "is_zero")]
    passes: u8,
    /// The reward pile; the last element is the top card.
    pile: Vec<Reward>,
    turn: Seat,
    extra_move: bool,
    scores: Vec<i64>,
    placed: Vec<u32>,
    rewards: Vec<Vec<Reward>>,
    pending: Vec<Pending>,
    over: bool,
}

fn first_rules_version() -> u32 {
    FIRST_RULES_VERSION
}

fn is_first_rules_version(version: &u32) -> bool {
    *version == FIRST_RULES_VERSION
}

fn is_zero(n: &u8) -> bool {
    *n == 0
}

impl NewYearPuzzle {
    /// Whether this match plays rules version 2 or later: the reward pile face down, the first reveal of a turn
    /// may be passed, a card failed twice stays face up (issue 25 points 7-9).
    fn v2(&self) -> bool {
        self.rules_version >= 2
    }
    fn is_exposed(&self, position: u8) -> bool {
        self.exposed.binary_search(&position).is_ok()
    }
    fn face_down(&self, position: u8) -> bool {
        !self.face_up[position as usize] && !self.is_exposed(position)
    }
    fn face_down_count(&self) -> usize {
        (0..CARDS as u8).filter(|p| self.face_down(*p)).count()
    }
    /// The sightings every player has seen, oldest first (see [`Sighting`]).
    pub(crate) fn sightings(&self) -> &[Sighting] {
        &self.seen
    }
    fn sighting_at(&self, position: u8) -> Option<usize> {
        self.seen.iter().position(|s| s.position == position)
    }
}

impl Game for NewYearPuzzle {
    type Config = NewYearPuzzleConfig;
    type Action = PuzzleAction;
    type Event = PuzzleEvent;
    type View<'a> = PuzzleView<'a>;
    type Reject = PuzzleReject;
    fn info() -> GameInfo {
        GameInfo {
            id: "new_year_puzzle",
            name: "New Year Picture Puzzle",
            rules_version: RULES_VERSION,
            min_players: MIN_PLAYERS,
            max_players: MAX_PLAYERS,
            can_skip: false,
            options: vec![],
        }
    }
    fn new(config: &NewYearPuzzleConfig, players: u8, seed: u64) -> Result<Self, SetupError> {
        Self::new_at(config, players, seed, RULES_VERSION)
    }
    fn oldest_rules_version() -> u32 {
        FIRST_RULES_VERSION
    }
    fn new_at(
        _config: &NewYearPuzzleConfig,
        players: u8,
        seed: u64,
        rules_version: u32,
    ) -> Result<Self, SetupError> {
        if !(FIRST_RULES_VERSION..=RULES_VERSION).contains(&rules_version) {
            return Err(SetupError::RulesVersion {
                game: Self::info().id.to_string(),
                version: rules_version,
                oldest: FIRST_RULES_VERSION,
                current: RULES_VERSION,
            });
        }
        Self::info().check_players(players)?;
        let mut rng = Rng::from_seed(seed);
        // The corner cards lie in their corners; the other 60 are shuffled into the other places.
        let mut loose: Vec<u8> = (0..CARDS as u8).filter(|c| !CORNERS.contains(c)).collect();
        rng.shuffle(&mut loose);
        let mut loose = loose.into_iter();
        let board: Vec<u8> = (0..CARDS as u8)
            .map(|p| {
                if CORNERS.contains(&p) {
                    p
                } else {
                    loose.next().expect("60 loose cards for 60 places")
                }
            })
            .collect();
        let face_up = (0..CARDS as u8).map(|p| CORNERS.contains(&p)).collect();
        let mut pile = full_deck(rules_version);
        rng.shuffle(&mut pile);
        // GAPS Q5: the first player is drawn by lot; play passes to the next seat.
        let turn = Seat(rng.below(u64::from(players)) as u8);
        let seats = players as usize;
        Ok(NewYearPuzzle {
            rules_version,
            players,
            board,
            face_up,
            exposed: Vec::new(),
            seen: Vec::new(),
            passes: 0,
            pile,
            turn,
            extra_move: false,
            scores: vec![0; seats],
            placed: vec![0; seats],
            rewards: vec![Vec::new(); seats],
            pending: Vec::new(),
            over: false,
        })
    }
    fn players(&self) -> u8 {
        self.players
    }
    fn status(&self) -> Status {
        if self.over {
            Status::Over
        } else {
            Status::Turn { seat: self.turn }
        }
    }
    fn legal_actions(&self, seat: Seat) -> Vec<PuzzleAction> {
        self.legal(seat)
    }
    fn apply(
        &mut self,
        actor: Actor,
        action: &PuzzleAction,
        _now: Millis,
    ) -> Result<Vec<Event<PuzzleEvent>>, PuzzleReject> {
        let seat = self.check(actor, action)?;
        Ok(self.perform(seat, action))
    }
    fn view(&self, viewer: Viewer) -> PuzzleView<'_> {
        self.view_of(viewer)
    }
    fn bot_action(&self, seat: Seat, rng: &mut crate::rng::Rng) -> Option<Self::Action> {
        bot::bot_action(self, seat, rng)
    }
    fn deadline(&self) -> Option<Deadline<PuzzleAction>> {
        None
    }
    fn outcome(&self) -> Option<Outcome> {
        // GAPS Q17: most points; a tie goes to the seat that put more cards into the picture; then shared.
        self.over.then(|| {
            let keys = self
                .scores
                .iter()
                .zip(&self.placed)
                .map(|(score, placed)| (*score, *placed))
                .collect();
            Outcome::ranked(self.scores.clone(), keys)
        })
    }
}
