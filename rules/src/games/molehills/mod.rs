//! Mountains out of Molehills (seed 001): moles dig under a grid and push earth up into mountains; whoever's
//! piece is at the base of a mountain controls it and scores every piece in it, each round for six rounds.
//!
//! Phases of a round: a public draft from a face-up display (turn order), secret simultaneous programming of a
//! four-card stack (commit, then reveal), resolution of the stacks one card per player at a time in turn order,
//! scoring, and the King of the Hill choosing the turn order of the next round. Every decision the seed leaves
//! open is recorded in `docs/rules/molehills.md`; every component is in [`data`].

mod bot;
mod data;
mod legal;
mod round;
mod scoring;
mod secrets;
#[cfg(test)]
mod tests;
mod turn;
mod view;

use std::fmt;

use serde::{Deserialize, Serialize};

pub use data::{
    CARDS_DEALT_PER_PLAYER, Card, DECK, HAND_SIZE, MAX_HEIGHT_BY_ROUND, PIECES_PER_COLOUR, ROCK_DIE, ROUNDS,
    Side, TOPPLE_DEAL_ORDER, ThreePlayerGrid, Turn, deck_cards,
};

pub use self::view::*;
use crate::model::{
    Actor, Deadline, Event, Game, GameInfo, Millis, OptionKind, OptionSpec, Outcome, PlayerCounts, Reject,
    RejectKind, Seat, SetupError, Status, Viewer,
};
use crate::rng::Rng;

/// A movement card's identity: its index in [`deck_cards`].
pub type CardId = u8;

/// A space of the grid; row 0 is the north edge, column 0 the west edge.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
    json_write::WriteJson,
)]
pub struct Pos {
    pub row: u8,
    pub col: u8,
}

impl Pos {
    pub const fn new(row: u8, col: u8) -> Pos {
        Pos { row, col }
    }
    fn distance(self, other: Pos) -> u8 {
        self.row.abs_diff(other.row) + self.col.abs_diff(other.col)
    }
}

/// The way a mole faces (orthogonal only).
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
    json_write::WriteJson,
)]
#[serde(rename_all = "snake_case")]
pub enum Dir {
    North,
    East,
    South,
    West,
}

impl Dir {
    pub const ALL: [Dir; 4] = [Dir::North, Dir::East, Dir::South, Dir::West];
    fn clockwise(self, quarters: u8) -> Dir {
        let i = Dir::ALL.iter().position(|d| *d == self).expect("a direction");
        Dir::ALL[(i + quarters as usize) % 4]
    }
    pub fn turned(self, turn: Turn) -> Dir {
        match turn {
            Turn::Right => self.clockwise(1),
            Turn::About => self.clockwise(2),
            Turn::Left => self.clockwise(3),
        }
    }
    fn to_side(self, side: Side) -> Dir {
        match side {
            Side::Ahead => self,
            Side::Right => self.clockwise(1),
            Side::Behind => self.clockwise(2),
            Side::Left => self.clockwise(3),
        }
    }
}

/// A mole on the underground grid.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema, json_write::WriteJson,
)]
pub struct Mole {
    pub at: Pos,
    pub facing: Dir,
}

/// The options of a match.
#[derive(
    Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema, json_write::WriteJson,
)]
#[serde(default, deny_unknown_fields)]
pub struct MolehillsConfig {
    /// The grid three players use: the seed's 6x6 (default) or the published 5x5.
    pub three_player_grid: ThreePlayerGrid,
}

/// A decision the player whose card was just revealed must take before play goes on.
#[derive(
    Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema, json_write::WriteJson,
)]
#[serde(tag = "decision", rename_all = "snake_case")]
pub enum Pending {
    /// A move-and-turn card: move first or turn first.
    MoveTurn { seat: Seat, card: CardId },
    /// A rock card: the die was rolled; place the rock on one of `spaces`.
    Rock {
        seat: Seat,
        card: CardId,
        roll: u8,
        spaces: Vec<Pos>,
    },
}

impl Pending {
    fn seat(&self) -> Seat {
        match self {
            Pending::MoveTurn { seat, .. } | Pending::Rock { seat, .. } => *seat,
        }
    }
}

/// Where the game stands. Public: every viewer sees it.
#[derive(
    Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema, json_write::WriteJson,
)]
#[serde(tag = "phase", rename_all = "snake_case")]
pub enum Phase {
    /// Setup: in turn order, each player puts their mole on a free corner. `placed` moles are down.
    PlaceMoles {
        placed: u8,
    },
    /// Card selection: `picks` cards have been taken from the display so far this round.
    Draft {
        picks: u8,
    },
    /// Every player secretly programs a stack of their four cards.
    Planning,
    /// The stacks are being revealed: card `card` (0-3) of the player at position `turn` of the turn order.
    Resolving {
        card: u8,
        turn: u8,
        pending: Option<Pending>,
    },
    /// The round is scored; `chooser` takes a King of the Hill token for the next round.
    KingOfTheHill {
        chooser: Seat,
    },
    Over,
}

/// Why a move was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MolehillsReject {
    #[error("the game is over")]
    GameOver,
    #[error("there is no such seat at this table")]
    NoSuchSeat,
    #[error("this game has no timed actions")]
    NotDue,
    #[error("it is not your turn")]
    NotYourTurn,
    #[error("you have already programmed your stack; it cannot be changed")]
    AlreadyPlanned,
    #[error("that action does not belong to this phase of the game")]
    WrongPhase,
    #[error("moles start on a free corner of the grid")]
    NotAFreeCorner,
    #[error("that card is not in the display")]
    NotInDisplay,
    #[error("a stack is exactly the {HAND_SIZE} cards of your hand, each once")]
    BadStack,
    #[error("the rock cannot be placed there")]
    RockNotThere,
    #[error("King of the Hill tokens go from 1 to the number of players")]
    NoSuchToken,
}

impl Reject for MolehillsReject {
    fn kind(&self) -> RejectKind {
        match self {
            MolehillsReject::GameOver => RejectKind::GameOver,
            MolehillsReject::NoSuchSeat => RejectKind::NoSuchSeat,
            MolehillsReject::NotDue => RejectKind::NotDue,
            MolehillsReject::NotYourTurn | MolehillsReject::AlreadyPlanned => RejectKind::NotYourTurn,
            MolehillsReject::WrongPhase
            | MolehillsReject::NotAFreeCorner
            | MolehillsReject::NotInDisplay
            | MolehillsReject::BadStack
            | MolehillsReject::RockNotThere
            | MolehillsReject::NoSuchToken => RejectKind::IllegalAction,
        }
    }
}

/// What a player sends.
#[derive(
    Clone, Debug, PartialEq, Eq, Serialize, json_write::TagFirst, schemars::JsonSchema, json_write::WriteJson,
)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum MolehillsAction {
    /// Setup: put your mole on a free corner, facing `facing`.
    PlaceMole { at: Pos, facing: Dir },
    /// Draft: take a card from the display.
    Pick { card: CardId },
    /// Planning: your four cards, top of the stack (played first) first. Final once sent.
    Plan { order: Vec<CardId> },
    /// A revealed move-and-turn card: move, then turn.
    MoveThenTurn,
    /// A revealed move-and-turn card: turn, then move.
    TurnThenMove,
    /// A revealed rock card: put the rock here.
    PlaceRock { at: Pos },
    /// King of the Hill: take token `token` (1 plays first) for the next round.
    ChooseToken { token: u8 },
}

/// What stopped a mole.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema, json_write::WriteJson,
)]
#[serde(tag = "obstacle", rename_all = "snake_case")]
pub enum Obstacle {
    Edge,
    Rock,
    Mole { seat: Seat },
}

/// One piece of a toppling mountain: whose it is and where it landed (`None`: off the board, back to supply).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema, json_write::WriteJson,
)]
pub struct Fall {
    pub piece: Seat,
    pub to: Option<Pos>,
}

/// Something that happened.
#[derive(
    Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema, json_write::WriteJson,
)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum MolehillsEvent {
    /// The turn order of a round: `order[0]` holds King of the Hill token 1.
    TurnOrder {
        round: u8,
        order: Vec<Seat>,
    },
    MolePlaced {
        seat: Seat,
        at: Pos,
        facing: Dir,
    },
    RoundStarted {
        round: u8,
        max_height: u8,
    },
    /// Cards dealt face up to the display.
    Dealt {
        cards: Vec<CardView>,
    },
    Picked {
        seat: Seat,
        card: CardView,
    },
    /// The cards left in the display go to the discard pile.
    Discarded {
        cards: Vec<CardView>,
    },
    /// A player has programmed their stack (public: the King of the Hill token on the stack).
    Ready {
        seat: Seat,
    },
    /// Only to the player who programmed it: their stack, top first.
    Planned {
        seat: Seat,
        order: Vec<CardView>,
    },
    Revealed {
        seat: Seat,
        card: CardView,
    },
    Turned {
        seat: Seat,
        facing: Dir,
    },
    Moved {
        seat: Seat,
        to: Pos,
    },
    Blocked {
        seat: Seat,
        by: Obstacle,
    },
    /// A piece of `seat`'s colour was pushed under the mountain at `at`, which is now `height` tall.
    PiecePushed {
        seat: Seat,
        at: Pos,
        height: u8,
    },
    /// The mole moved but its player has no molehill piece left in supply.
    OutOfPieces {
        seat: Seat,
    },
    /// The mountain at `at` exceeded the limit and fell towards `toward`.
    Toppled {
        at: Pos,
        toward: Dir,
        falls: Vec<Fall>,
    },
    RockRolled {
        seat: Seat,
        roll: u8,
    },
    RockPlaced {
        seat: Seat,
        at: Pos,
    },
    /// The rock could not be placed anywhere within reach; the card has no effect.
    RockOutOfReach {
        seat: Seat,
    },
    RoundScored {
        round: u8,
        points: Vec<i64>,
        tops: Vec<u32>,
        totals: Vec<i64>,
    },
    /// This player has the most pieces on top of mountains and chooses a token.
    KingOfTheHill {
        seat: Seat,
    },
    GameOver {
        totals: Vec<i64>,
        placings: Vec<u8>,
    },
}

/// The whole state of a match, hidden information included (never sent to players: see [`Game::view`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, json_write::WriteJson)]
pub struct Molehills {
    config: MolehillsConfig,
    players: u8,
    grid: u8,
    round: u8,
    /// `order[i]` holds King of the Hill token `i + 1`.
    order: Vec<Seat>,
    moles: Vec<Option<Mole>>,
    rock: Option<Pos>,
    /// Row-major; each mountain bottom piece first.
    stacks: Vec<Vec<Seat>>,
    supply: Vec<u8>,
    /// Face down; the top is the last card.
    deck: Vec<CardId>,
    display: Vec<CardId>,
    discard: Vec<CardId>,
    /// Unrevealed cards of each seat, sorted by id.
    hands: Vec<Vec<CardId>>,
    /// Each seat's programmed stack, unrevealed cards, top first (secret).
    plans: Vec<Option<Vec<CardId>>>,
    revealed: Vec<Vec<CardId>>,
    round_scores: Vec<Vec<i64>>,
    phase: Phase,
    rng: Rng,
}

type Events = Vec<Event<MolehillsEvent>>;

/// The most players at a table ([`GameInfo::max_players`]).
const MAX_PLAYERS: u8 = 4;

/// How many cards [`DECK`] holds, copies counted.
const DECK_SIZE: usize = {
    let mut total = 0;
    let mut k = 0;
    while k < DECK.len() {
        total += DECK[k].1 as usize;
        k += 1;
    }
    total
};

/// Every card by its id: [`DECK`] expanded at compile time (the same list as [`deck_cards`]), so that views,
/// which show many cards after every action, look a card up instead of counting through the deck.
const CARDS: [Card; DECK_SIZE] = {
    let mut cards = [Card::Rock; DECK_SIZE];
    let (mut k, mut i) = (0, 0);
    while k < DECK.len() {
        let (card, copies) = DECK[k];
        let mut c = 0;
        while c < copies {
            cards[i] = card;
            i += 1;
            c += 1;
        }
        k += 1;
    }
    cards
};

fn card_of(id: CardId) -> Card {
    match CARDS.get(id as usize) {
        Some(card) => *card,
        None => panic!("no card {id}"),
    }
}

impl Molehills {
    fn n(&self) -> usize {
        self.players as usize
    }
    fn max_height(&self) -> usize {
        MAX_HEIGHT_BY_ROUND[(self.round.clamp(1, ROUNDS) - 1) as usize] as usize
    }
    fn idx(&self, p: Pos) -> usize {
        p.row as usize * self.grid as usize + p.col as usize
    }
    fn step(&self, p: Pos, d: Dir) -> Option<Pos> {
        let (r, c) = (p.row as i16, p.col as i16);
        let (r, c) = match d {
            Dir::North => (r - 1, c),
            Dir::East => (r, c + 1),
            Dir::South => (r + 1, c),
            Dir::West => (r, c - 1),
        };
        let g = self.grid as i16;
        (r >= 0 && c >= 0 && r < g && c < g).then(|| Pos::new(r as u8, c as u8))
    }
    fn corners(&self) -> [Pos; 4] {
        let e = self.grid - 1;
        [Pos::new(0, 0), Pos::new(0, e), Pos::new(e, 0), Pos::new(e, e)]
    }
    fn mole_at(&self, p: Pos) -> Option<Seat> {
        self.moles
            .iter()
            .position(|m| m.is_some_and(|m| m.at == p))
            .map(|i| Seat(i as u8))
    }
    fn all_positions(&self) -> impl Iterator<Item = Pos> + use<> {
        let g = self.grid;
        (0..g).flat_map(move |row| (0..g).map(move |col| Pos::new(row, col)))
    }
    /// The seat whose decision the game waits for, outside planning.
    fn actor(&self) -> Option<Seat> {
        match &self.phase {
            Phase::PlaceMoles { placed } => Some(self.order[*placed as usize]),
            Phase::Draft { picks } => Some(self.order[*picks as usize % self.n()]),
            Phase::Resolving { pending: Some(p), .. } => Some(p.seat()),
            Phase::KingOfTheHill { chooser } => Some(*chooser),
            Phase::Planning | Phase::Resolving { pending: None, .. } | Phase::Over => None,
        }
    }
}

impl Game for Molehills {
    type Config = MolehillsConfig;
    type Action = MolehillsAction;
    type Event = MolehillsEvent;
    type View<'a> = MolehillsView<'a>;
    type Reject = MolehillsReject;
    fn info() -> GameInfo {
        GameInfo {
            id: "molehills",
            name: "Mountains out of Molehills",
            rules_version: 1,
            min_players: 2,
            max_players: MAX_PLAYERS,
            can_skip: false,
            options: vec![OptionSpec {
                key: "three_player_grid",
                label: "Grid for three players (6x6 as the seed says, or the published 5x5)",
                kind: OptionKind::Choice {
                    values: vec!["6x6", "5x5"],
                    default: "6x6",
                },
                // Only three players choose their grid (`data::grid_side`).
                players: Some(PlayerCounts { min: 3, max: 3 }),
            }],
        }
    }
    fn new(config: &MolehillsConfig, players: u8, seed: u64) -> Result<Self, SetupError> {
        Self::info().check_players(players)?;
        let mut rng = Rng::from_seed(seed);
        let grid = data::grid_side(players, config.three_player_grid);
        let mut order: Vec<Seat> = Seat::all(players).collect();
        rng.shuffle(&mut order);
        let mut deck: Vec<CardId> = (0..deck_cards().len() as CardId).collect();
        rng.shuffle(&mut deck);
        let n = players as usize;
        Ok(Molehills {
            config: config.clone(),
            players,
            grid,
            round: 1,
            order,
            moles: vec![None; n],
            rock: None,
            stacks: vec![Vec::new(); grid as usize * grid as usize],
            supply: vec![PIECES_PER_COLOUR; n],
            deck,
            display: Vec::new(),
            discard: Vec::new(),
            hands: vec![Vec::new(); n],
            plans: vec![None; n],
            revealed: vec![Vec::new(); n],
            round_scores: Vec::new(),
            phase: Phase::PlaceMoles { placed: 0 },
            rng,
        })
    }
    fn players(&self) -> u8 {
        self.players
    }
    fn status(&self) -> Status {
        match &self.phase {
            Phase::Over => Status::Over,
            Phase::Planning => Status::Simultaneous {
                seats: Seat::all(self.players)
                    .filter(|s| self.plans[s.index()].is_none())
                    .collect(),
                secret: true,
            },
            _ => Status::Turn {
                seat: self
                    .actor()
                    .expect("a decision is always pending outside planning"),
            },
        }
    }
    fn legal_actions(&self, seat: Seat) -> Vec<MolehillsAction> {
        self.legal(seat)
    }
    fn apply(
        &mut self,
        actor: Actor,
        action: &MolehillsAction,
        _now: Millis,
    ) -> Result<Vec<Event<MolehillsEvent>>, MolehillsReject> {
        let seat = match actor {
            Actor::Clock if self.phase == Phase::Over => return Err(MolehillsReject::GameOver),
            Actor::Clock => return Err(MolehillsReject::NotDue),
            Actor::Seat(seat) if seat.0 >= self.players => return Err(MolehillsReject::NoSuchSeat),
            Actor::Seat(seat) => seat,
        };
        self.check(seat, action)?;
        Ok(self.perform(seat, action))
    }
    fn view(&self, viewer: Viewer) -> MolehillsView<'_> {
        self.view_of(viewer)
    }
    fn rebind_view<'a>(&'a self, view: &mut MolehillsView<'a>, viewer: Viewer) {
        self.rebind_view_of(view, viewer);
    }
    fn bot_action(&self, seat: Seat, rng: &mut crate::rng::Rng) -> Option<Self::Action> {
        bot::bot_action(self, seat, rng)
    }
    fn deadline(&self) -> Option<Deadline<MolehillsAction>> {
        None
    }
    fn outcome(&self) -> Option<Outcome> {
        if self.phase != Phase::Over {
            return None;
        }
        let totals = self.totals();
        let keys = Seat::all(self.players)
            .map(|s| self.ranking_key(s, totals[s.index()]))
            .collect();
        Some(Outcome::ranked(totals, keys))
    }
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({}, {})", self.row, self.col)
    }
}
