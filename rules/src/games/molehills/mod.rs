//! Mountains out of Molehills (seed 001): moles dig under a grid and push earth up into mountains; whoever's
//! piece is at the base of a mountain controls it and scores every piece in it, each round for six rounds.
//!
//! Phases of a round: a public draft from a face-up display (turn order), secret simultaneous programming of a
//! four-card stack (commit, then reveal), resolution of the stacks one card per player at a time in turn order,
//! scoring, and the King of the Hill choosing the turn order of the next round. Every decision the seed leaves
//! open is recorded in `docs/rules/molehills.md`; every component is in [`data`].

mod bot;
mod data;
mod secrets;
#[cfg(test)]
mod tests;

use std::collections::VecDeque;
use std::fmt;

use json_write::{Kept, Mapped};
use serde::{Deserialize, Serialize};

pub use data::{
    CARDS_DEALT_PER_PLAYER, Card, DECK, HAND_SIZE, MAX_HEIGHT_BY_ROUND, PIECES_PER_COLOUR, ROCK_DIE, ROUNDS,
    Side, TOPPLE_DEAL_ORDER, ThreePlayerGrid, Turn, deck_cards,
};

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

/// A card together with its identity, as views and events show it.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema, json_write::WriteJson,
)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum CardView {
    /// Move forward.
    Move { id: CardId, steps: u8 },
    /// Turn in place.
    Turn { id: CardId, turn: Turn },
    /// Move forward and turn, in the order the player chooses when the card is revealed.
    MoveTurn { id: CardId, steps: u8, turn: Turn },
    /// Roll the rock die and place the rock token.
    Rock { id: CardId },
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

// The lists are borrowed from the state (`Mapped`), not built.
/// One player as every viewer sees them.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema, json_write::WriteJson)]
pub struct PlayerView<'a> {
    pub seat: Seat,
    /// King of the Hill token held this round (1 plays first).
    pub token: u8,
    pub mole: Option<Mole>,
    pub supply: u8,
    pub score: i64,
    pub round_scores: Kept<Mapped<'a, Vec<i64>, i64, usize>>,
    /// The cards the player drafted and has not yet revealed, by card id, never in stack order. Only in the
    /// player's own view: the seed keeps a hand "hidden from opponents" (GAPS 001 Q7), so everyone else gets
    /// `null` (hidden, not empty) and reads `hand_size`.
    pub cards: Option<Mapped<'a, CardId, CardView>>,
    /// How many cards the player holds.
    pub hand_size: usize,
    /// Has programmed their stack this round.
    pub planned: bool,
    /// Cards revealed this round, in the order played.
    pub revealed: Kept<Mapped<'a, CardId, CardView>>,
}

/// What one viewer may know.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema, json_write::WriteJson)]
pub struct MolehillsView<'a> {
    pub viewer: Viewer,
    pub grid: u8,
    pub round: u8,
    pub rounds: u8,
    pub max_height: u8,
    pub phase: &'a Phase,
    /// `turn_order[0]` holds token 1.
    pub turn_order: &'a [Seat],
    pub players: Vec<PlayerView<'a>>,
    pub rock: Option<Pos>,
    /// The surface, row-major (`surface[row * grid + col]`): each mountain bottom piece first.
    pub surface: Kept<&'a [Vec<Seat>]>,
    pub display: Kept<Mapped<'a, CardId, CardView>>,
    pub deck_size: usize,
    pub discard_size: usize,
    /// The viewer's own programmed stack, cards not yet revealed, top first.
    pub your_stack: Option<Mapped<'a, CardId, CardView>>,
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

impl CardView {
    pub fn id(self) -> CardId {
        match self {
            CardView::Move { id, .. }
            | CardView::Turn { id, .. }
            | CardView::MoveTurn { id, .. }
            | CardView::Rock { id } => id,
        }
    }
}

/// [`card_view`] as a view's borrowed list maps each id.
fn card_view_of(id: &CardId, _: usize, (): ()) -> CardView {
    card_view(*id)
}

fn card_view(id: CardId) -> CardView {
    match card_of(id) {
        Card::Move { steps } => CardView::Move { id, steps },
        Card::Turn { turn } => CardView::Turn { id, turn },
        Card::MoveTurn { steps, turn } => CardView::MoveTurn { id, steps, turn },
        Card::Rock => CardView::Rock { id },
    }
}

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

/// Every order of `items`, in the lexicographic order of their positions (the first item's orders first). Built
/// iteratively (next permutation of the positions) into one preallocated list.
fn permutations(items: &[CardId]) -> Vec<Vec<CardId>> {
    let mut out = Vec::with_capacity((1..=items.len()).product());
    each_permutation(items, |order| out.push(order.to_vec()));
    out
}

/// Calls `each` with every order of `items`, in [`permutations`]' order, each in the same buffer.
fn each_permutation(items: &[CardId], mut each: impl FnMut(&[CardId])) {
    let n = items.len();
    let mut positions: Vec<usize> = (0..n).collect();
    let mut order = items.to_vec();
    loop {
        for (slot, &i) in order.iter_mut().zip(&positions) {
            *slot = items[i];
        }
        each(&order);
        // The next permutation: the last ascent, swapped with the last position above it, the tail reversed.
        let Some(k) = (1..n)
            .rev()
            .find(|&k| positions[k - 1] < positions[k])
            .map(|k| k - 1)
        else {
            return;
        };
        let l = (k + 1..n)
            .rev()
            .find(|&l| positions[k] < positions[l])
            .expect("an ascent has a larger position after it");
        positions.swap(k, l);
        positions[k + 1..].reverse();
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

    /// Each seat's King of the Hill token (1 plays first), by seat: `order` read once for every seat.
    fn tokens(&self) -> [u8; MAX_PLAYERS as usize] {
        let mut tokens = [0; MAX_PLAYERS as usize];
        for (i, seat) in self.order.iter().enumerate() {
            tokens[seat.index()] = i as u8 + 1;
        }
        tokens
    }

    /// The programmed stack `viewer` may see: its own, if it is a seat of this table that has programmed one.
    fn own_plan(&self, viewer: Viewer) -> Option<&[CardId]> {
        match viewer {
            Viewer::Seat(seat) if seat.0 < self.players => self.plans[seat.index()].as_deref(),
            _ => None,
        }
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

    fn check(&self, seat: Seat, action: &MolehillsAction) -> Result<(), MolehillsReject> {
        use MolehillsAction as A;
        use MolehillsReject as R;
        if self.phase == Phase::Over {
            return Err(R::GameOver);
        }
        if self.phase == Phase::Planning {
            if self.plans[seat.index()].is_some() {
                return Err(R::AlreadyPlanned);
            }
            let A::Plan { order } = action else {
                return Err(R::WrongPhase);
            };
            let mut sorted = order.clone();
            sorted.sort_unstable();
            return if sorted == self.hands[seat.index()] {
                Ok(())
            } else {
                Err(R::BadStack)
            };
        }
        if self.actor() != Some(seat) {
            return Err(R::NotYourTurn);
        }
        match (&self.phase, action) {
            (Phase::PlaceMoles { .. }, A::PlaceMole { at, .. }) => {
                if self.corners().contains(at) && self.mole_at(*at).is_none() {
                    Ok(())
                } else {
                    Err(R::NotAFreeCorner)
                }
            }
            (Phase::Draft { .. }, A::Pick { card }) => {
                if self.display.contains(card) {
                    Ok(())
                } else {
                    Err(R::NotInDisplay)
                }
            }
            (
                Phase::Resolving {
                    pending: Some(Pending::MoveTurn { .. }),
                    ..
                },
                A::MoveThenTurn | A::TurnThenMove,
            ) => Ok(()),
            (
                Phase::Resolving {
                    pending: Some(Pending::Rock { spaces, .. }),
                    ..
                },
                A::PlaceRock { at },
            ) => {
                if spaces.contains(at) {
                    Ok(())
                } else {
                    Err(R::RockNotThere)
                }
            }
            (Phase::KingOfTheHill { .. }, A::ChooseToken { token }) => {
                if (1..=self.players).contains(token) {
                    Ok(())
                } else {
                    Err(R::NoSuchToken)
                }
            }
            _ => Err(R::WrongPhase),
        }
    }

    fn start_round(&mut self, ev: &mut Events) {
        ev.push(Event::public(MolehillsEvent::RoundStarted {
            round: self.round,
            max_height: self.max_height() as u8,
        }));
        ev.push(Event::public(MolehillsEvent::TurnOrder {
            round: self.round,
            order: self.order.clone(),
        }));
        let need = CARDS_DEALT_PER_PLAYER * self.n();
        if self.deck.len() < need {
            // Unreachable with the published 120 cards (5 x 4 players x 6 rounds); kept so that a smaller deck
            // would reshuffle the discard pile under the remaining cards instead of failing (GAPS 001 Q5).
            let mut reshuffled = std::mem::take(&mut self.discard);
            self.rng.shuffle(&mut reshuffled);
            reshuffled.append(&mut self.deck);
            self.deck = reshuffled;
        }
        let dealt: Vec<CardId> = (0..need).filter_map(|_| self.deck.pop()).collect();
        self.display = dealt;
        ev.push(Event::public(MolehillsEvent::Dealt {
            cards: self.display.iter().map(|c| card_view(*c)).collect(),
        }));
        self.phase = Phase::Draft { picks: 0 };
    }

    /// Moves `seat`'s mole forward up to `steps` spaces, pushing up a piece under each space it enters.
    fn move_mole(&mut self, seat: Seat, steps: u8, ev: &mut Events) {
        for _ in 0..steps {
            let mole = self.moles[seat.index()].expect("moles are placed before cards are played");
            let blocked = match self.step(mole.at, mole.facing) {
                None => Some(Obstacle::Edge),
                Some(p) if self.rock == Some(p) => Some(Obstacle::Rock),
                Some(p) => self.mole_at(p).map(|s| Obstacle::Mole { seat: s }),
            };
            if let Some(by) = blocked {
                ev.push(Event::public(MolehillsEvent::Blocked { seat, by }));
                return;
            }
            let to = self.step(mole.at, mole.facing).expect("checked above");
            self.moles[seat.index()] = Some(Mole { at: to, ..mole });
            ev.push(Event::public(MolehillsEvent::Moved { seat, to }));
            self.push_up(seat, to, mole.facing, ev);
        }
    }

    fn turn_mole(&mut self, seat: Seat, turn: Turn, ev: &mut Events) {
        let mole = self.moles[seat.index()].as_mut().expect("placed");
        mole.facing = mole.facing.turned(turn);
        let facing = mole.facing;
        ev.push(Event::public(MolehillsEvent::Turned { seat, facing }));
    }

    /// A mole entered `at` going `toward`: a piece of its colour goes under the mountain there.
    fn push_up(&mut self, seat: Seat, at: Pos, toward: Dir, ev: &mut Events) {
        if self.supply[seat.index()] == 0 {
            ev.push(Event::public(MolehillsEvent::OutOfPieces { seat }));
            return;
        }
        self.supply[seat.index()] -= 1;
        let i = self.idx(at);
        self.stacks[i].insert(0, seat);
        let height = self.stacks[i].len();
        ev.push(Event::public(MolehillsEvent::PiecePushed {
            seat,
            at,
            height: height as u8,
        }));
        if height > self.max_height() {
            self.landslide(at, toward, ev);
        }
    }

    /// Topples the mountain at `origin` (falling `toward`) and every mountain that then exceeds the limit.
    fn landslide(&mut self, origin: Pos, toward: Dir, ev: &mut Events) {
        let limit = self.max_height();
        let mut toppled = vec![false; self.stacks.len()];
        let mut queue = VecDeque::from([(origin, toward)]);
        while let Some((at, dir)) = queue.pop_front() {
            let i = self.idx(at);
            if toppled[i] || self.stacks[i].len() <= limit {
                continue;
            }
            toppled[i] = true;
            let falling: Vec<Seat> = self.stacks[i].drain(1..).rev().collect();
            let targets: Vec<(Dir, Option<Pos>)> = TOPPLE_DEAL_ORDER
                .iter()
                .map(|side| dir.to_side(*side))
                .map(|d| (d, self.step(at, d)))
                .filter(|(_, p)| p.is_none_or(|p| !toppled[self.idx(p)]))
                .collect();
            let mut falls = Vec::with_capacity(falling.len());
            for (k, piece) in falling.into_iter().enumerate() {
                let to = if targets.is_empty() {
                    None
                } else {
                    targets[k % targets.len()].1
                };
                match to {
                    Some(p) => {
                        let j = self.idx(p);
                        self.stacks[j].push(piece);
                    }
                    None => self.supply[piece.index()] += 1,
                }
                falls.push(Fall { piece, to });
            }
            ev.push(Event::public(MolehillsEvent::Toppled {
                at,
                toward: dir,
                falls,
            }));
            for (d, p) in targets {
                if let Some(p) = p
                    && self.stacks[self.idx(p)].len() > limit
                {
                    queue.push_back((p, d));
                }
            }
        }
    }

    /// Reveals and resolves cards until a player must decide something or the round is over.
    fn run(&mut self, ev: &mut Events) {
        loop {
            let Phase::Resolving {
                card,
                turn,
                pending: None,
            } = self.phase
            else {
                return;
            };
            if card as usize == HAND_SIZE {
                self.end_round(ev);
                return;
            }
            let seat = self.order[turn as usize];
            let plan = self.plans[seat.index()]
                .as_mut()
                .expect("every stack is programmed");
            let id = plan.remove(0);
            self.hands[seat.index()].retain(|c| *c != id);
            self.revealed[seat.index()].push(id);
            ev.push(Event::public(MolehillsEvent::Revealed {
                seat,
                card: card_view(id),
            }));
            let pending = match card_of(id) {
                Card::Move { steps } => {
                    self.move_mole(seat, steps, ev);
                    None
                }
                Card::Turn { turn } => {
                    self.turn_mole(seat, turn, ev);
                    None
                }
                Card::MoveTurn { .. } => Some(Pending::MoveTurn { seat, card: id }),
                Card::Rock => {
                    let roll = ROCK_DIE[self.rng.index(ROCK_DIE.len())];
                    ev.push(Event::public(MolehillsEvent::RockRolled { seat, roll }));
                    let from = self.moles[seat.index()].expect("placed").at;
                    let spaces: Vec<Pos> = self
                        .all_positions()
                        .filter(|p| {
                            let d = from.distance(*p);
                            d >= 1 && d <= roll && self.mole_at(*p).is_none() && self.rock != Some(*p)
                        })
                        .collect();
                    if spaces.is_empty() {
                        ev.push(Event::public(MolehillsEvent::RockOutOfReach { seat }));
                        None
                    } else {
                        Some(Pending::Rock {
                            seat,
                            card: id,
                            roll,
                            spaces,
                        })
                    }
                }
            };
            if pending.is_some() {
                self.phase = Phase::Resolving { card, turn, pending };
                return;
            }
            self.advance();
        }
    }

    /// The next player's card (after a card is fully resolved).
    fn advance(&mut self) {
        if let Phase::Resolving { card, turn, .. } = self.phase {
            let next = turn + 1;
            self.phase = if next as usize == self.n() {
                Phase::Resolving {
                    card: card + 1,
                    turn: 0,
                    pending: None,
                }
            } else {
                Phase::Resolving {
                    card,
                    turn: next,
                    pending: None,
                }
            };
        }
    }

    /// Each seat's points for the mountains it controls and its count of pieces on top of mountains.
    fn control(&self) -> (Vec<i64>, Vec<u32>) {
        let mut points = vec![0i64; self.n()];
        let mut tops = vec![0u32; self.n()];
        for stack in &self.stacks {
            if let (Some(base), Some(top)) = (stack.first(), stack.last()) {
                points[base.index()] += stack.len() as i64;
                tops[top.index()] += 1;
            }
        }
        (points, tops)
    }

    fn totals(&self) -> Vec<i64> {
        (0..self.n())
            .map(|s| self.round_scores.iter().map(|r| r[s]).sum())
            .collect()
    }

    fn end_round(&mut self, ev: &mut Events) {
        let (points, tops) = self.control();
        self.round_scores.push(points.clone());
        for seat in 0..self.n() {
            self.discard.append(&mut self.revealed[seat]);
            self.plans[seat] = None;
        }
        ev.push(Event::public(MolehillsEvent::RoundScored {
            round: self.round,
            points,
            tops: tops.clone(),
            totals: self.totals(),
        }));
        if self.round == ROUNDS {
            self.phase = Phase::Over;
            let outcome = self.outcome().expect("over");
            ev.push(Event::public(MolehillsEvent::GameOver {
                totals: outcome.scores,
                placings: outcome.placings,
            }));
            return;
        }
        // Most pieces on top; ties go to the earlier seat in this round's turn order.
        let mut chooser = self.order[0];
        for seat in &self.order[1..] {
            if tops[seat.index()] > tops[chooser.index()] {
                chooser = *seat;
            }
        }
        ev.push(Event::public(MolehillsEvent::KingOfTheHill { seat: chooser }));
        self.phase = Phase::KingOfTheHill { chooser };
    }

    /// The tie-break key of a seat: total, then controlled mountains of each height from the tallest down.
    fn ranking_key(&self, seat: Seat, total: i64) -> Vec<i64> {
        let tallest = MAX_HEIGHT_BY_ROUND[ROUNDS as usize - 1] as usize;
        let tallest = self.stacks.iter().map(Vec::len).max().unwrap_or(0).max(tallest);
        let mut key = vec![total];
        for h in (1..=tallest).rev() {
            let n = self
                .stacks
                .iter()
                .filter(|s| s.len() == h && s.first() == Some(&seat))
                .count();
            key.push(n as i64);
        }
        key
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
        use MolehillsAction as A;
        if seat.0 >= self.players {
            return Vec::new();
        }
        if self.phase == Phase::Planning {
            if self.plans[seat.index()].is_some() {
                return Vec::new();
            }
            return permutations(&self.hands[seat.index()])
                .into_iter()
                .map(|order| A::Plan { order })
                .collect();
        }
        if self.actor() != Some(seat) {
            return Vec::new();
        }
        match &self.phase {
            Phase::PlaceMoles { .. } => self
                .corners()
                .into_iter()
                .filter(|c| self.mole_at(*c).is_none())
                .flat_map(|at| Dir::ALL.map(|facing| A::PlaceMole { at, facing }))
                .collect(),
            Phase::Draft { .. } => self.display.iter().map(|card| A::Pick { card: *card }).collect(),
            Phase::Resolving {
                pending: Some(Pending::MoveTurn { .. }),
                ..
            } => vec![A::MoveThenTurn, A::TurnThenMove],
            Phase::Resolving {
                pending: Some(Pending::Rock { spaces, .. }),
                ..
            } => spaces.iter().map(|at| A::PlaceRock { at: *at }).collect(),
            Phase::KingOfTheHill { .. } => (1..=self.players).map(|token| A::ChooseToken { token }).collect(),
            Phase::Planning | Phase::Resolving { pending: None, .. } | Phase::Over => Vec::new(),
        }
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
        let mut ev = Events::new();
        match action {
            MolehillsAction::PlaceMole { at, facing } => {
                self.moles[seat.index()] = Some(Mole {
                    at: *at,
                    facing: *facing,
                });
                let i = self.idx(*at);
                self.stacks[i].push(seat);
                self.supply[seat.index()] -= 1;
                ev.push(Event::public(MolehillsEvent::MolePlaced {
                    seat,
                    at: *at,
                    facing: *facing,
                }));
                let Phase::PlaceMoles { placed } = self.phase else {
                    unreachable!("checked")
                };
                if placed as usize + 1 == self.n() {
                    self.start_round(&mut ev);
                } else {
                    self.phase = Phase::PlaceMoles { placed: placed + 1 };
                }
            }
            MolehillsAction::Pick { card } => {
                self.display.retain(|c| c != card);
                let hand = &mut self.hands[seat.index()];
                hand.push(*card);
                hand.sort_unstable();
                ev.push(Event::public(MolehillsEvent::Picked {
                    seat,
                    card: card_view(*card),
                }));
                let Phase::Draft { picks } = self.phase else {
                    unreachable!("checked")
                };
                if picks as usize + 1 == HAND_SIZE * self.n() {
                    let left = std::mem::take(&mut self.display);
                    ev.push(Event::public(MolehillsEvent::Discarded {
                        cards: left.iter().map(|c| card_view(*c)).collect(),
                    }));
                    self.discard.extend(left);
                    self.phase = Phase::Planning;
                } else {
                    self.phase = Phase::Draft { picks: picks + 1 };
                }
            }
            MolehillsAction::Plan { order } => {
                self.plans[seat.index()] = Some(order.clone());
                ev.push(Event::public(MolehillsEvent::Ready { seat }));
                ev.push(Event::to(
                    seat,
                    MolehillsEvent::Planned {
                        seat,
                        order: order.iter().map(|c| card_view(*c)).collect(),
                    },
                ));
                if self.plans.iter().all(Option::is_some) {
                    self.phase = Phase::Resolving {
                        card: 0,
                        turn: 0,
                        pending: None,
                    };
                    self.run(&mut ev);
                }
            }
            MolehillsAction::MoveThenTurn | MolehillsAction::TurnThenMove => {
                let Phase::Resolving {
                    pending: Some(Pending::MoveTurn { card, .. }),
                    ..
                } = self.phase
                else {
                    unreachable!("checked")
                };
                let Card::MoveTurn { steps, turn } = card_of(card) else {
                    unreachable!("a move-and-turn card is pending")
                };
                if *action == MolehillsAction::MoveThenTurn {
                    self.move_mole(seat, steps, &mut ev);
                    self.turn_mole(seat, turn, &mut ev);
                } else {
                    self.turn_mole(seat, turn, &mut ev);
                    self.move_mole(seat, steps, &mut ev);
                }
                self.advance();
                self.run(&mut ev);
            }
            MolehillsAction::PlaceRock { at } => {
                self.rock = Some(*at);
                ev.push(Event::public(MolehillsEvent::RockPlaced { seat, at: *at }));
                self.advance();
                self.run(&mut ev);
            }
            MolehillsAction::ChooseToken { token } => {
                let mut order: Vec<Seat> = self.order.iter().copied().filter(|s| *s != seat).collect();
                order.insert(*token as usize - 1, seat);
                self.order = order;
                self.round += 1;
                self.start_round(&mut ev);
            }
        }
        Ok(ev)
    }

    /// The members every viewer shares (the lists kept as text once written), then `viewer`'s own
    /// ([`Game::rebind_view`]).
    fn view(&self, viewer: Viewer) -> MolehillsView<'_> {
        let tokens = self.tokens();
        let players = Seat::all(self.players)
            .map(|seat| {
                let s = seat.index();
                let round_scores = Mapped::new(&self.round_scores, s, |round, _, s| round[s]);
                PlayerView {
                    seat,
                    token: tokens[s],
                    mole: self.moles[s],
                    supply: self.supply[s],
                    score: round_scores.iter().sum(),
                    round_scores: Kept::new(round_scores),
                    cards: None,
                    hand_size: self.hands[s].len(),
                    planned: self.plans[s].is_some(),
                    revealed: Kept::new(Mapped::new(&self.revealed[s], (), card_view_of)),
                }
            })
            .collect();
        let mut view = MolehillsView {
            viewer,
            grid: self.grid,
            round: self.round,
            rounds: ROUNDS,
            max_height: self.max_height() as u8,
            phase: &self.phase,
            turn_order: &self.order,
            players,
            rock: self.rock,
            surface: Kept::new(&self.stacks),
            display: Kept::new(Mapped::new(&self.display, (), card_view_of)),
            deck_size: self.deck.len(),
            discard_size: self.discard.len(),
            your_stack: None,
        };
        self.rebind_view(&mut view, viewer);
        view
    }

    /// Sets what differs from viewer to viewer: the viewer, its own hand (everyone else's stays hidden) and its
    /// programmed stack. Every other member is the same for every viewer.
    fn rebind_view<'a>(&'a self, view: &mut MolehillsView<'a>, viewer: Viewer) {
        view.viewer = viewer;
        for (s, player) in view.players.iter_mut().enumerate() {
            player.cards =
                (viewer == Viewer::Seat(player.seat)).then(|| Mapped::new(&self.hands[s], (), card_view_of));
        }
        view.your_stack = self
            .own_plan(viewer)
            .map(|plan| Mapped::new(plan, (), card_view_of));
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
