//! Hide and Eeek! (seed 003). The rules as implemented, with every decision, are in
//! `docs/rules/hide-and-eeek.md`; the components are in [`data`].
//!
//! A turn: the engine rolls both dice; the player moves the mouse figure exactly the rolled number of steps
//! (orthogonal, never returning to a card visited during the move); then chooses adjacent cards one at a time,
//! each tested against the category die, stopping to bank at will. A revealed mouse card opens a race that any
//! seat may win by claiming it.

mod bot;
pub mod data;
mod legal;
mod scoring;
mod secrets;
#[cfg(test)]
mod tests;
mod turn;
mod v2;
mod view;

use std::borrow::Cow;
use std::collections::VecDeque;
use std::fmt;

use serde::{Deserialize, Serialize};

use self::data::*;
pub use self::view::*;
use crate::model::{
    Actor, Deadline, Event, Game, GameInfo, Millis, OptionKind, OptionSpec, Outcome, Reject, RejectKind,
    Seat, SetupError, Status, Viewer,
};
use crate::rng::Rng;

/// A position on the grid, 0-based.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
    json_write::WriteJson,
)]
pub struct Cell {
    pub row: u8,
    pub col: u8,
}

impl Cell {
    fn index(self) -> usize {
        self.row as usize * GRID_SIZE as usize + self.col as usize
    }
    fn from_index(i: usize) -> Cell {
        Cell {
            row: (i / GRID_SIZE as usize) as u8,
            col: (i % GRID_SIZE as usize) as u8,
        }
    }
    fn on_grid(self) -> bool {
        self.row < GRID_SIZE && self.col < GRID_SIZE
    }
    /// The orthogonal neighbours on the grid (2 in a corner, 3 on an edge, 4 inside).
    pub fn neighbours(self) -> impl Iterator<Item = Cell> {
        let (r, c) = (self.row as i16, self.col as i16);
        [(r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)]
            .into_iter()
            .filter(|&(r, c)| r >= 0 && c >= 0 && r < GRID_SIZE as i16 && c < GRID_SIZE as i16)
            .map(|(r, c)| Cell {
                row: r as u8,
                col: c as u8,
            })
    }
}

impl fmt::Display for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The same 0-based numbers, under the same names, as the cell in the messages (`{"row": 9, "col": 9}`).
        write!(f, "row {}, col {}", self.row, self.col)
    }
}

/// Options a lobby may set.
#[derive(
    Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema, json_write::WriteJson,
)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// Cards in the scoring pile (the starting card included) needed to win.
    pub target: u8,
    /// How long a newly revealed mouse may be claimed before play goes on, in milliseconds.
    pub claim_window_ms: u32,
    /// Rules version 3: a reaction judged faster than this counts as this (milliseconds; 0: no floor).
    pub reaction_floor_ms: u32,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            target: DEFAULT_TARGET,
            claim_window_ms: DEFAULT_CLAIM_WINDOW_MS,
            reaction_floor_ms: DEFAULT_REACTION_FLOOR_MS,
        }
    }
}

/// The options as the state keeps them: the reaction floor only under rules version 3, so that the states of
/// versions 1 and 2 are written exactly as before.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, json_write::WriteJson)]
#[serde(deny_unknown_fields)]
struct KeptConfig {
    target: u8,
    claim_window_ms: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    reaction_floor_ms: Option<u32>,
}

/// The two dice as rolled for a turn.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema, json_write::WriteJson,
)]
pub struct Roll {
    pub steps: u8,
    pub arrow: Arrow,
    pub category: Category,
}

/// A card lying on the grid.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema, json_write::WriteJson,
)]
pub struct GridCard {
    pub number: u8,
    pub face_up: bool,
}

/// Where the current turn stands.
#[derive(
    Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema, json_write::WriteJson,
)]
#[serde(tag = "step", rename_all = "snake_case")]
pub enum TurnStep {
    /// The dice are rolled; the mouse figure must be moved.
    Move,
    /// The figure has moved; the player chooses adjacent cards. `collected` are this turn's matching cards with
    /// the cells they came from, in the order chosen.
    Collect { collected: Vec<(Cell, u8)> },
}

/// A claim window: a mouse card was just revealed at `cell`; until `closes_at` the turn waits for claims.
#[derive(
    Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema, json_write::WriteJson,
)]
pub struct Race {
    pub cell: Cell,
    pub closes_at: Millis,
    /// Whether the window interrupts a turn in progress (a mouse turned over while collecting) or sits between
    /// two turns (a mouse placed face up by a refill).
    pub during_turn: bool,
}

/// The whole state, hidden information included. Never sent to players: see [`HideAndEeek::view`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, json_write::WriteJson)]
pub struct HideAndEeek {
    config: KeptConfig,
    players: u8,
    /// Row-major, `None` where a card has been taken and the draw pile could not refill it.
    grid: Vec<Option<GridCard>>,
    mouse: Cell,
    /// The draw pile, top first.
    draw_pile: VecDeque<u8>,
    /// Each seat's scoring pile, bottom first (the last card is the top).
    piles: Vec<Vec<u8>>,
    turn: Seat,
    roll: Roll,
    step: TurnStep,
    race: Option<Race>,
    /// Seats owed a turn because they won a claim, in claim order; they play before normal order goes on.
    owed_turns: VecDeque<Seat>,
    over: bool,
    rng: Rng,
    /// The rules version this game plays by (see [`HideAndEeek::new_at`]); absent from version-1 states, which
    /// therefore read and write exactly as before.
    #[serde(default = "version_1", skip_serializing_if = "is_version_1")]
    rules_version: u32,
    /// Version 2: who plays when no turn is owed (normal order, to the left of the last seat that played in it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    order_next: Option<Seat>,
    /// Version 2: the open Eeek! window, if any (cards that just turned face up).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    look: Option<Look>,
    /// Version 2: turns each seat must still miss for false claims.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    skips: Vec<u8>,
    /// Version 3: cells emptied by late claims during the turn in progress, refilled when it ends.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    late_gaps: Vec<Cell>,
    /// Version 3: the seats that have made their late claim during the turn in progress (one each).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    late_claimed: Vec<Seat>,
}

/// The newest rules version: 3 (issue 43) counts a reaction faster than a human floor as the floor and draws
/// ties with the match's generator, and lets a mouse left face up be claimed later (a late claim opens a short
/// window). Version 2 (issue 25) judges the Eeek! race by reaction time in a window opened by every card that turns
/// face up, shows no mouse flag, and fixes the turn order and pile order around claims.
pub const RULES_VERSION: u32 = 3;
/// The oldest version still replayed: 1, the first race (first claim received wins; the view flags mice).
pub const OLDEST_RULES_VERSION: u32 = 1;

fn version_1() -> u32 {
    1
}

fn is_version_1(v: &u32) -> bool {
    *v == 1
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// Version 2's Eeek! window: `cells` just turned face up (the card the active player turned over, or the cards a
/// refill placed face up); until `closes_at` every seat may shout Eeek! for one of them, or pass, once. The
/// responses stay hidden until the window closes; then the earliest claim (by reaction time) on a card that
/// shows the mouse wins it.
#[derive(
    Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema, json_write::WriteJson,
)]
pub struct Look {
    pub cells: Vec<Cell>,
    pub opened_at: Millis,
    pub closes_at: Millis,
    /// Whether the window interrupts the active player's choice (a card turned over while collecting: it is
    /// tested against the category die if nobody wins it), or sits between two turns (a refill).
    pub during_turn: bool,
    /// The responses in arrival order. Hidden from views until the close.
    pub responses: Vec<Response>,
    /// Version 3: a late window, opened by a claim on a card already face up (its first response); the turn in
    /// progress waits and then goes on.
    #[serde(default, skip_serializing_if = "is_false")]
    pub late: bool,
}

/// One seat's answer to a window: a claim on a cell, or a pass; `reaction_ms` is the time since the window
/// opened, as the server measured it (from the push leaving the server to the answer arriving, less the
/// connection's round trip: `docs/rules/hide-and-eeek.md`, "How a reaction is measured").
#[derive(
    Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema, json_write::WriteJson,
)]
pub struct Response {
    pub seat: Seat,
    pub claim: Option<Cell>,
    pub reaction_ms: Millis,
}

/// A claim as the window's close judged it.
#[derive(
    Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema, json_write::WriteJson,
)]
pub struct ClaimResult {
    pub seat: Seat,
    pub cell: Cell,
    pub number: u8,
    pub reaction_ms: Millis,
    /// Whether the card shows the mouse.
    pub mouse: bool,
    /// Whether this claim won the card (the earliest correct claim on it).
    pub won: bool,
    /// Version 3: the reaction as judged: `reaction_ms`, or the lobby's reaction floor if that is more.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judged_ms: Option<Millis>,
    /// Version 3: this right claim tied with another on the same card (equal `judged_ms`), and the match's
    /// generator drew the winner among them.
    #[serde(default, skip_serializing_if = "is_false")]
    pub tied: bool,
}

/// What a seat sends.
#[derive(
    Clone, Debug, PartialEq, Eq, Serialize, json_write::TagFirst, schemars::JsonSchema, json_write::WriteJson,
)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Action {
    /// Move the mouse figure to `to`, reachable in exactly the rolled number of steps.
    Move { to: Cell },
    /// Turn over (or choose, if face up) the card at `cell`, next to the mouse figure.
    Choose { cell: Cell },
    /// Stop and bank this turn's cards.
    Stop,
    /// Grab the mouse figure and shout "Eeek!" for the face-up mouse card at `cell`: in a window, for one of its
    /// cards; version 3, outside a window, for any face-up card (a late claim, which opens a short window).
    Eeek { cell: Cell },
    /// The clock closes a claim window (only the server's clock sends this).
    CloseRace,
    /// Version 2: "no mouse here" — answer an Eeek! window without claiming (the window closes early once every
    /// seat has answered).
    Pass,
}

/// What happened, for clients to show. Every event is public: it only tells what every player at the table sees.
#[derive(
    Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema, json_write::WriteJson,
)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum EventBody {
    TurnStarted {
        seat: Seat,
        roll: Roll,
        extra: bool,
    },
    Moved {
        seat: Seat,
        from: Cell,
        to: Cell,
    },
    /// A card was chosen; `matched` tells whether it fits the category die (absent for a mouse card).
    Chosen {
        seat: Seat,
        cell: Cell,
        number: u8,
        matched: Option<bool>,
    },
    /// A mouse card was revealed: every seat may claim it until `closes_at`.
    RaceOpened {
        cell: Cell,
        number: u8,
        closes_at: Millis,
    },
    RaceClosed {
        cell: Cell,
    },
    Claimed {
        seat: Seat,
        cell: Cell,
        number: u8,
    },
    /// Cards added on top of a scoring pile, bottom to top.
    Banked {
        seat: Seat,
        cards: Vec<u8>,
        pile_size: usize,
    },
    /// A missed card ended the turn: these cards went to the bottom of the draw pile, in this order.
    Lost {
        seat: Seat,
        cards: Vec<u8>,
    },
    /// A card from the draw pile filled a gap; `number` only when it was placed face up.
    Refilled {
        cell: Cell,
        face_up: bool,
        number: Option<u8>,
    },
    /// The missed card stays in the grid, turned as the arrow says.
    LeftInGrid {
        cell: Cell,
        face_up: bool,
    },
    ExtraTurn {
        seat: Seat,
    },
    GameOver {
        winners: Vec<Seat>,
    },
    /// Version 2: cards just turned face up; every seat may shout Eeek! for one of them, or pass, until
    /// `closes_at`. Version 3, `late_by`: this seat claimed a card already face up (a late claim, its answer to
    /// this window); the others may claim it too, or pass, until `closes_at`.
    LookOpened {
        cells: Vec<Cell>,
        closes_at: Millis,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        late_by: Option<Seat>,
    },
    /// Version 2: a seat answered the open window (what it answered stays hidden until the close).
    Responded {
        seat: Seat,
    },
    /// Version 2: the window closed; every claim made in it, earliest first, as judged.
    LookClosed {
        cells: Vec<Cell>,
        claims: Vec<ClaimResult>,
    },
    /// Version 2: a false claim (on a card without the mouse): the claimant misses their next turn in normal
    /// order (`skips`: how many they must now miss).
    FalseClaim {
        seat: Seat,
        cell: Cell,
        skips: u8,
    },
    /// Version 2: a seat missed its turn for a false claim.
    TurnMissed {
        seat: Seat,
    },
    /// Version 2: the card turned over by the active player, nobody having won it, is tested against the category
    /// die.
    Judged {
        seat: Seat,
        cell: Cell,
        number: u8,
        matched: bool,
    },
}

/// Why an action was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Rejected {
    GameOver,
    NoSuchSeat(Seat),
    NotYourTurn(Seat),
    /// A claim window is open: the turn waits.
    RaceOpen,
    WrongStep(&'static str),
    Unreachable(Cell),
    NotAdjacent(Cell),
    NoCard(Cell),
    MouseCardCannotBeChosen(Cell),
    NothingToBank,
    NoMouseThere(Cell),
    ClockOnly,
    NotDue,
    /// Version 2: no Eeek! window is open (it has closed, or no card just turned up).
    NoWindow,
    /// Version 2: the card at this cell did not just turn face up.
    NotJustTurnedUp(Cell),
    /// Version 2: this seat has already answered the open window.
    AlreadyAnswered,
    /// Version 3: a late claim names a cell without a face-up card.
    NotFaceUp(Cell),
    /// Version 3: this seat has already made its late claim during this turn.
    LateClaimMade,
}

impl fmt::Display for Rejected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Rejected::GameOver => write!(f, "the game is over"),
            Rejected::NoSuchSeat(s) => write!(f, "there is no {s} at this table"),
            Rejected::NotYourTurn(s) => write!(f, "it is {s}'s turn"),
            Rejected::RaceOpen => write!(
                f,
                "a mouse is showing: the turn waits until it is claimed or the window closes"
            ),
            Rejected::WrongStep(what) => write!(f, "not now: {what}"),
            Rejected::Unreachable(c) => write!(
                f,
                "the mouse cannot reach {c} in exactly the rolled number of steps"
            ),
            Rejected::NotAdjacent(c) => write!(f, "{c} is not next to the mouse figure"),
            Rejected::NoCard(c) => write!(f, "there is no card at {c}"),
            Rejected::MouseCardCannotBeChosen(c) => {
                write!(
                    f,
                    "the card at {c} shows the mouse: shout Eeek! to claim it instead"
                )
            }
            Rejected::NothingToBank => write!(f, "choose at least one card before stopping"),
            Rejected::NoMouseThere(c) => write!(f, "there is no face-up mouse card at {c}"),
            Rejected::ClockOnly => write!(f, "only the server's clock closes a claim window"),
            Rejected::NotDue => write!(f, "no claim window is due to close"),
            Rejected::NoWindow => write!(
                f,
                "no Eeek! window is open: a mouse can only be claimed while the card that just turned up is showing"
            ),
            Rejected::NotJustTurnedUp(c) => write!(f, "the card at {c} did not just turn up"),
            Rejected::AlreadyAnswered => write!(f, "you have already answered this Eeek! window"),
            Rejected::NotFaceUp(c) => write!(f, "there is no face-up card at {c} to claim"),
            Rejected::LateClaimMade => write!(
                f,
                "you have already shouted Eeek! for a card left face up this turn: one late claim a turn"
            ),
        }
    }
}

impl Reject for Rejected {
    fn kind(&self) -> RejectKind {
        match self {
            Rejected::GameOver => RejectKind::GameOver,
            Rejected::NoSuchSeat(_) => RejectKind::NoSuchSeat,
            Rejected::NotYourTurn(_)
            | Rejected::RaceOpen
            | Rejected::AlreadyAnswered
            | Rejected::LateClaimMade => RejectKind::NotYourTurn,
            Rejected::NotDue => RejectKind::NotDue,
            Rejected::WrongStep(_)
            | Rejected::Unreachable(_)
            | Rejected::NotAdjacent(_)
            | Rejected::NoCard(_)
            | Rejected::MouseCardCannotBeChosen(_)
            | Rejected::NothingToBank
            | Rejected::NoMouseThere(_)
            | Rejected::NoWindow
            | Rejected::NotJustTurnedUp(_)
            | Rejected::NotFaceUp(_)
            | Rejected::ClockOnly => RejectKind::IllegalAction,
        }
    }
}

impl HideAndEeek {
    fn card_at(&self, cell: Cell) -> Option<GridCard> {
        self.grid[cell.index()]
    }
    /// When the open claim window closes: version 1's race or version 2's window (a game has only its version's).
    fn window_closes_at(&self) -> Option<Millis> {
        match (&self.race, &self.look) {
            (Some(race), _) => Some(race.closes_at),
            (_, Some(look)) => Some(look.closes_at),
            (None, None) => None,
        }
    }
}

impl Game for HideAndEeek {
    type Config = Config;
    type Action = Action;
    type Event = EventBody;
    type View<'a> = View<'a>;
    type Reject = Rejected;
    fn info() -> GameInfo {
        GameInfo {
            id: "hide_and_eeek",
            name: "Hide and Eeek!",
            rules_version: RULES_VERSION,
            min_players: MIN_PLAYERS,
            max_players: MAX_PLAYERS,
            can_skip: false,
            options: vec![
                OptionSpec {
                    key: "target",
                    label: "Cards needed to win",
                    kind: OptionKind::Integer {
                        min: MIN_TARGET.into(),
                        max: MAX_TARGET.into(),
                        default: DEFAULT_TARGET.into(),
                    },
                    players: None,
                },
                OptionSpec {
                    key: "claim_window_ms",
                    label: "Time to shout Eeek! (milliseconds)",
                    kind: OptionKind::Integer {
                        min: MIN_CLAIM_WINDOW_MS.into(),
                        max: MAX_CLAIM_WINDOW_MS.into(),
                        default: DEFAULT_CLAIM_WINDOW_MS.into(),
                    },
                    players: None,
                },
                OptionSpec {
                    key: "reaction_floor_ms",
                    label: "Fastest reaction that counts (milliseconds; rules version 3)",
                    kind: OptionKind::Integer {
                        min: MIN_REACTION_FLOOR_MS.into(),
                        max: MAX_REACTION_FLOOR_MS.into(),
                        default: DEFAULT_REACTION_FLOOR_MS.into(),
                    },
                    players: None,
                },
            ],
        }
    }
    fn new(config: &Config, players: u8, seed: u64) -> Result<Self, SetupError> {
        Self::info().check_players(players)?;
        if !(MIN_TARGET..=MAX_TARGET).contains(&config.target) {
            return Err(SetupError::BadOption {
                option: "target".into(),
                message: format!("must be between {MIN_TARGET} and {MAX_TARGET}"),
            });
        }
        if !(MIN_CLAIM_WINDOW_MS..=MAX_CLAIM_WINDOW_MS).contains(&config.claim_window_ms) {
            return Err(SetupError::BadOption {
                option: "claim_window_ms".into(),
                message: format!("must be between {MIN_CLAIM_WINDOW_MS} and {MAX_CLAIM_WINDOW_MS}"),
            });
        }
        if !(MIN_REACTION_FLOOR_MS..=MAX_REACTION_FLOOR_MS).contains(&config.reaction_floor_ms) {
            return Err(SetupError::BadOption {
                option: "reaction_floor_ms".into(),
                message: format!("must be between {MIN_REACTION_FLOOR_MS} and {MAX_REACTION_FLOOR_MS}"),
            });
        }
        let mut rng = Rng::from_seed(seed);
        let mut deck: Vec<u8> = (FIRST_CARD..=LAST_CARD).collect();
        rng.shuffle(&mut deck);
        let mut deck: VecDeque<u8> = deck.into();
        let grid = (0..GRID_CELLS)
            .map(|_| {
                Some(GridCard {
                    number: deck.pop_front().expect("100 cards"),
                    face_up: false,
                })
            })
            .collect();
        let piles = (0..players)
            .map(|_| vec![deck.pop_front().expect("100 cards")])
            .collect();
        let (row, col) = CENTRE[rng.index(CENTRE.len())];
        let first = Seat(rng.below(u64::from(players)) as u8);
        let roll = Self::roll_dice(&mut rng);
        Ok(HideAndEeek {
            config: KeptConfig {
                target: config.target,
                claim_window_ms: config.claim_window_ms,
                reaction_floor_ms: Some(config.reaction_floor_ms),
            },
            players,
            grid,
            mouse: Cell { row, col },
            draw_pile: deck,
            piles,
            turn: first,
            roll,
            step: TurnStep::Move,
            race: None,
            owed_turns: VecDeque::new(),
            over: false,
            rng,
            rules_version: RULES_VERSION,
            order_next: Some(first.next(players)),
            look: None,
            skips: vec![0; usize::from(players)],
            late_gaps: Vec::new(),
            late_claimed: Vec::new(),
        })
    }
    fn players(&self) -> u8 {
        self.players
    }
    fn oldest_rules_version() -> u32 {
        OLDEST_RULES_VERSION
    }
    /// Version 1 (the first-claim race), 2 (the judged window) or 3; the setup is the same.
    fn new_at(config: &Config, players: u8, seed: u64, rules_version: u32) -> Result<Self, SetupError> {
        if !(OLDEST_RULES_VERSION..=RULES_VERSION).contains(&rules_version) {
            return Err(SetupError::RulesVersion {
                game: Self::info().id.to_string(),
                version: rules_version,
                oldest: OLDEST_RULES_VERSION,
                current: RULES_VERSION,
            });
        }
        let mut game = Self::new(config, players, seed)?;
        game.rules_version = rules_version;
        if rules_version < 3 {
            // The floor is version 3's: older states keep the options they always had.
            game.config.reaction_floor_ms = None;
        }
        if rules_version == 1 {
            game.order_next = None;
            game.skips = Vec::new();
        }
        Ok(game)
    }
    fn status(&self) -> Status {
        if self.over {
            Status::Over
        } else if let Some(look) = &self.look {
            Status::Race {
                seats: Seat::all(self.players)
                    .filter(|s| !look.responses.iter().any(|r| r.seat == *s))
                    .collect(),
            }
        } else if self.race.is_some() {
            Status::Race {
                seats: Seat::all(self.players).collect(),
            }
        } else {
            Status::Turn { seat: self.turn }
        }
    }
    fn legal_actions(&self, seat: Seat) -> Vec<Action> {
        let mut actions = Vec::new();
        self.each_legal_action(seat, |action| actions.push(action));
        actions
    }
    fn apply(
        &mut self,
        actor: Actor,
        action: &Action,
        now: Millis,
    ) -> Result<Vec<Event<EventBody>>, Rejected> {
        self.check(actor, action, now)?;
        Ok(self.do_apply(actor, action, now))
    }
    fn view(&self, _viewer: Viewer) -> View<'_> {
        self.view_of()
    }
    /// This game has no private hands: face-down cards and the draw pile are hidden from everyone alike.
    fn same_view_for_everyone(&self) -> bool {
        true
    }
    fn bot_action(&self, seat: Seat, rng: &mut crate::rng::Rng) -> Option<Self::Action> {
        bot::bot_action(self, seat, rng)
    }
    /// Version 3: between windows a bot that is not playing its turn acts only when it has spotted a mouse left
    /// face up (see `bot.rs`).
    fn bot_waits(&self, seat: Seat) -> bool {
        bot::waits(self, seat)
    }
    /// A bot answers an Eeek! window after its human-like reaction time (see `bot.rs`).
    fn bot_acts_at(&self, seat: Seat) -> Option<Millis> {
        bot::window_answer(self, seat).map(|(at, _)| at)
    }
    fn deadline(&self) -> Option<Deadline<Action>> {
        self.window_closes_at().map(|at| Deadline {
            at,
            action: Action::CloseRace,
        })
    }
    fn outcome(&self) -> Option<Outcome> {
        if !self.over {
            return None;
        }
        let target = self.config.target as usize;
        let scores: Vec<i64> = self.piles.iter().map(|p| p.len() as i64).collect();
        // Reaching the target wins outright (only one seat can: the game stops at once); otherwise, when the cards
        // run out, the most cards win and equal piles share.
        let keys: Vec<(bool, usize)> = self.piles.iter().map(|p| (p.len() >= target, p.len())).collect();
        Some(Outcome::ranked(scores, keys))
    }
}
