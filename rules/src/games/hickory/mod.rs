//! Hickory Dickory (seed 000): mice ride the hands of a cuckoo clock, collect item tiles, deliver them to Lord
//! Cuckoo, complete missions, fill their hunt boards and climb the clock's chain.
//!
//! The seed fixes the tick; everything it leaves unsaid is designed here as one whole and written up in
//! `docs/rules/hickory-dickory.md`. Every component is data in [`data`]. Decisions are sequential: the engine
//! resolves the tick itself and stops whenever one seat has a choice ([`Status::Turn`]).
//!
//! Hidden information: the order of the bag, of the mission deck and of the favour deck, and the favour cards in
//! each hand (others see how many). Everything else lies face up on the table.

pub mod data;
#[cfg(test)]
mod tests;

use std::borrow::Cow;
use std::fmt;

use serde::{Deserialize, Serialize};

use self::data::*;
use crate::model::{
    Actor, Deadline, Event, Game, GameInfo, Millis, Outcome, Reject, RejectKind, Seat, SetupError, Status,
    Viewer,
};
use crate::rng::Rng;

/// No options: the player count decides blockers, everything else is fixed by the design.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HickoryConfig {}

/// One of a player's mice that has a mouse card.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
pub struct MouseRef {
    pub seat: Seat,
    pub mouse: MouseKind,
}

/// Where a carded mouse is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "at", content = "number", rename_all = "snake_case")]
pub enum Loc {
    /// Not yet placed (the setup placement).
    Unplaced,
    /// Waiting on its mouse card (the scamp until it is called).
    Card,
    /// Riding the minute hand (its place is its index in the hand).
    Hand,
    Inner(u8),
    Outer(u8),
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct MouseState {
    kind: MouseKind,
    loc: Loc,
    tiles: Vec<TileId>,
}

/// Points by source, shown on the score track and in the final tally.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Breakdown {
    pub deliveries: i64,
    pub relics: i64,
    pub missions: i64,
    pub chain: i64,
    pub hunt_lines: i64,
    pub leftovers: i64,
}

impl Breakdown {
    pub fn total(&self) -> i64 {
        self.deliveries + self.relics + self.missions + self.chain + self.hunt_lines + self.leftovers
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct PlayerState {
    points: Breakdown,
    hunt_board: u8,
    hunt_done: [[bool; HUNT_SIZE]; HUNT_SIZE],
    /// Delivered tiles (items and wilds) that lie on completed hunt-board spaces.
    hunt_tiles: Vec<TileId>,
    /// Indexed like [`MICE`].
    mice: Vec<MouseState>,
    scaler_link: u8,
    favours: Vec<FavourId>,
    missions_done: Vec<MissionId>,
}

impl PlayerState {
    fn mouse(&self, kind: MouseKind) -> &MouseState {
        &self.mice[mouse_index(kind)]
    }
    fn mouse_mut(&mut self, kind: MouseKind) -> &mut MouseState {
        &mut self.mice[mouse_index(kind)]
    }
    fn hunt_spaces_done(&self) -> usize {
        self.hunt_done.iter().flatten().filter(|d| **d).count()
    }
}

fn mouse_index(kind: MouseKind) -> usize {
    MICE.iter()
        .position(|m| *m == kind)
        .expect("every mouse kind is in MICE")
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct Space {
    token: ActionKind,
    face: TokenFace,
    tile: Option<TileId>,
}

/// A decision in progress after a mouse has landed on the outer ring.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "step", rename_all = "snake_case")]
enum Pending {
    /// The scurrier has hopped off at `from` and may run on 0-2 numbers.
    Scurry { who: MouseRef, from: u8 },
    /// The mouse has landed: token action, favour cards, calling the scamp, or done.
    Act { who: MouseRef, token_used: bool },
    /// A search drew `drawn` face up; the owner keeps `keep` more of them (`kept` so far).
    SearchKeep {
        who: MouseRef,
        drawn: Vec<TileId>,
        keep: usize,
        kept: Vec<TileId>,
    },
    /// A delivery is under way; the owner may add favour cards (secret until the delivery is made).
    Delivery { who: MouseRef, favours: Vec<FavourId> },
    /// The delivered pieces still to place on the hunt board, in order; the first one accepts two or more free
    /// spaces and its owner chooses. Then the delivery (`delivered`, `favours`, `marked` spaces) meets the missions.
    Hunt {
        who: MouseRef,
        queue: Vec<Piece>,
        delivered: Vec<TileId>,
        favours: Vec<FavourId>,
        marked: usize,
    },
}

/// Something delivered that may complete a hunt-board space: a tile, or the item printed on a favour card.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "piece", content = "id", rename_all = "snake_case")]
pub enum Piece {
    Tile(TileId),
    Favour(FavourId),
}

impl Pending {
    fn who(&self) -> MouseRef {
        match self {
            Pending::Scurry { who, .. }
            | Pending::Act { who, .. }
            | Pending::SearchKeep { who, .. }
            | Pending::Delivery { who, .. }
            | Pending::Hunt { who, .. } => *who,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "phase", rename_all = "snake_case")]
enum Phase {
    /// Before the first tick, in reverse priority order, each player places one starting mouse per turn.
    Placement {
        order: Vec<Seat>,
        next: usize,
    },
    Play {
        pending: Option<Pending>,
    },
    Over,
}

/// The whole state of a game of Hickory Dickory.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Hickory {
    players: u8,
    rng: Rng,
    hour: u8,
    minute: u8,
    /// Whether the mice at `minute` are being resolved (false before the first tick and between ticks).
    tick_open: bool,
    priority: Seat,
    /// Index `n - 1` is clock number `n`.
    spaces: Vec<Space>,
    /// Mice on the minute hand, from the front (the tip) to the back.
    hand: Vec<MouseRef>,
    /// Mice already resolved in the current tick.
    resolved: Vec<MouseRef>,
    bag: Vec<TileId>,
    /// Delivered and spent tiles; shuffled back into the bag when it runs dry.
    pantry: Vec<TileId>,
    web_wilds: Vec<TileId>,
    web_market: Vec<TileId>,
    mission_deck: Vec<MissionId>,
    missions: Vec<MissionId>,
    favour_deck: Vec<FavourId>,
    favour_discard: Vec<FavourId>,
    pinecone: u8,
    paws: Vec<u8>,
    seats: Vec<PlayerState>,
    phase: Phase,
}

/// A decision a player sends. Every value of `legal_actions` is exactly what a client sends back.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum HickoryAction {
    /// Setup: put one of your starting mice on the inner-ring space of `space`.
    Place {
        mouse: MouseKind,
        space: u8,
    },
    /// The mouse at the front of the unresolved part of the minute hand stays on.
    Stay,
    /// ... or hops off to the outer ring at the current number.
    HopOff,
    /// A mouse on the inner ring at the current number moves to the outer ring there.
    StepOut {
        mouse: MouseKind,
    },
    /// ... or jumps onto the back of the minute hand.
    Board {
        mouse: MouseKind,
    },
    /// The scurrier runs on `steps` numbers (0 to 2) after hopping off.
    Scurry {
        steps: u8,
    },
    /// Token actions of the space the mouse stands on.
    Climb,
    Deliver,
    Search,
    TakeFavour,
    Swap {
        give: TileId,
        take: TileId,
    },
    /// Pay [`WILD_PRICE`] items (in the order the card holds them) for one of Itzy's wilds.
    BuyWild {
        pay: Vec<TileId>,
    },
    /// Instead of the token action: the scamp leaves its card for the outer-ring space `space`.
    CallScamp {
        space: u8,
    },
    PlayFavour {
        card: FavourId,
    },
    /// Keep one tile of a search.
    Keep {
        tile: TileId,
    },
    /// Add a favour card from your hand to the delivery as its printed item.
    AddFavour {
        card: FavourId,
    },
    FinishDelivery,
    /// Put a delivered wild on a free space of your hunt board.
    MarkHunt {
        row: u8,
        col: u8,
    },
    /// End this mouse's turn on the outer ring.
    Done,
}

/// Why an action was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HickoryReject {
    GameOver,
    NoSuchSeat(Seat),
    NotYourTurn(Seat),
    /// The clock never acts in Hickory Dickory.
    NothingDue,
    /// The action is not one of the choices of the current step.
    NotNow(&'static str),
    /// The choice names a mouse, space, tile or card that is not available.
    Unavailable(&'static str),
}

impl fmt::Display for HickoryReject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HickoryReject::GameOver => write!(f, "the game is over"),
            HickoryReject::NoSuchSeat(s) => write!(f, "there is no {s} at this table"),
            HickoryReject::NotYourTurn(s) => write!(f, "it is {s}'s decision"),
            HickoryReject::NothingDue => write!(f, "the clock has nothing to do in this game"),
            HickoryReject::NotNow(step) => write!(f, "that is not a choice now: the current step is {step}"),
            HickoryReject::Unavailable(what) => write!(f, "not available: {what}"),
        }
    }
}

impl Reject for HickoryReject {
    fn kind(&self) -> RejectKind {
        match self {
            HickoryReject::GameOver => RejectKind::GameOver,
            HickoryReject::NoSuchSeat(_) => RejectKind::NoSuchSeat,
            HickoryReject::NotYourTurn(_) => RejectKind::NotYourTurn,
            HickoryReject::NothingDue => RejectKind::NotDue,
            HickoryReject::NotNow(_) | HickoryReject::Unavailable(_) => RejectKind::IllegalAction,
        }
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Views and events.

/// A tile as the table shows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Tile {
    pub id: TileId,
    #[serde(flatten)]
    pub kind: TileKind,
}

fn tile(id: TileId) -> Tile {
    Tile {
        id,
        kind: tile_kind(id),
    }
}

fn tiles(ids: &[TileId]) -> Vec<Tile> {
    ids.iter().map(|&id| tile(id)).collect()
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FavourCard {
    pub id: FavourId,
    pub effect: FavourEffect,
    pub colour: Colour,
    pub item: Item,
}

fn favour_card(id: FavourId) -> FavourCard {
    let f = FAVOURS[id as usize];
    FavourCard {
        id,
        effect: f.effect,
        colour: f.colour,
        item: f.item,
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct MissionCard {
    pub id: MissionId,
    pub name: Cow<'static, str>,
    pub requirement: Requirement,
    pub points: i64,
}

fn mission_card(id: MissionId) -> MissionCard {
    let m = MISSIONS[id as usize];
    MissionCard {
        id,
        name: Cow::Borrowed(m.name),
        requirement: m.requirement,
        points: m.points,
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct SpaceView {
    pub number: u8,
    pub face: TokenFace,
    pub token: ActionKind,
    pub paw: bool,
    pub tile: Option<Tile>,
    pub inner: Vec<MouseRef>,
    pub outer: Vec<MouseRef>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct MouseView {
    pub mouse: MouseKind,
    pub loc: Loc,
    pub capacity: usize,
    pub tiles: Vec<Tile>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct HuntSpaceView {
    #[serde(flatten)]
    pub space: HuntSpace,
    pub done: bool,
}

/// A delivered piece as the table shows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "piece", rename_all = "snake_case")]
pub enum PieceView {
    Tile { tile: Tile },
    Favour { card: FavourCard },
}

fn piece_view(piece: Piece) -> PieceView {
    match piece {
        Piece::Tile(t) => PieceView::Tile { tile: tile(t) },
        Piece::Favour(f) => PieceView::Favour { card: favour_card(f) },
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct PlayerView {
    pub seat: Seat,
    pub score: i64,
    pub points: Breakdown,
    pub hunt_board: u8,
    pub hunt: Vec<Vec<HuntSpaceView>>,
    pub hunt_spaces_done: usize,
    pub mice: Vec<MouseView>,
    pub scaler_link: u8,
    pub favour_count: usize,
    /// The cards themselves: only in the owner's own view, and for everyone once the game is over.
    pub favours: Option<Vec<FavourCard>>,
    pub missions_done: Vec<MissionCard>,
}

/// The decision the table is waiting for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(tag = "step", rename_all = "snake_case")]
pub enum StepView {
    Place {
        remaining: Vec<MouseKind>,
    },
    HandMouse {
        mouse: MouseKind,
        place: usize,
    },
    InnerRing {
        number: u8,
        mice: Vec<MouseKind>,
    },
    Scurry {
        mouse: MouseKind,
        from: u8,
    },
    Act {
        mouse: MouseKind,
        number: u8,
        token_used: bool,
    },
    SearchKeep {
        mouse: MouseKind,
        drawn: Vec<Tile>,
        keep: usize,
    },
    /// `favours` (the cards added so far) only for the deliverer; others see how many.
    Delivery {
        mouse: MouseKind,
        favours_added: usize,
        favours: Option<Vec<FavourCard>>,
    },
    /// Choosing the space for `placing`; `then` are the pieces after it.
    Hunt {
        mouse: MouseKind,
        placing: PieceView,
        then: Vec<PieceView>,
    },
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct DecisionView {
    pub seat: Seat,
    #[serde(flatten)]
    pub step: StepView,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct HickoryView<'a> {
    pub viewer: Viewer,
    pub players: u8,
    pub hour: u8,
    pub minute: u8,
    pub priority: Seat,
    pub decision: Option<DecisionView>,
    pub blockers: &'static [Blocker],
    pub hand_capacity: u8,
    pub hand: &'a [MouseRef],
    pub spaces: Vec<SpaceView>,
    pub web_wilds: usize,
    pub web_market: Vec<Tile>,
    pub bag: usize,
    pub pantry: usize,
    pub favour_deck: usize,
    pub favour_discard: Vec<FavourCard>,
    pub mission_deck: usize,
    pub missions: Vec<MissionCard>,
    pub pinecone: u8,
    pub paws: &'a [u8],
    pub seats: Vec<PlayerView>,
    pub game_over: bool,
}

/// A final tally line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FinalScore {
    pub seat: Seat,
    pub points: Breakdown,
    pub total: i64,
    pub hunt_spaces: usize,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum HickoryEvent {
    MousePlaced {
        seat: Seat,
        mouse: MouseKind,
        number: u8,
    },
    MinuteHand {
        hour: u8,
        minute: u8,
    },
    Stayed {
        seat: Seat,
        mouse: MouseKind,
    },
    HoppedOff {
        seat: Seat,
        mouse: MouseKind,
        number: u8,
    },
    SteppedOut {
        seat: Seat,
        mouse: MouseKind,
        number: u8,
    },
    Boarded {
        seat: Seat,
        mouse: MouseKind,
    },
    Scurried {
        seat: Seat,
        from: u8,
        to: u8,
    },
    ScampCalled {
        seat: Seat,
        number: u8,
    },
    TileCollected {
        seat: Seat,
        mouse: MouseKind,
        number: u8,
        tile: Tile,
    },
    TileLeft {
        seat: Seat,
        mouse: MouseKind,
        number: u8,
        reason: String,
    },
    Climbed {
        seat: Seat,
        links: u8,
        link: u8,
    },
    Summit {
        seat: Seat,
        points: i64,
        pinecone: u8,
    },
    SearchDrawn {
        seat: Seat,
        mouse: MouseKind,
        tiles: Vec<Tile>,
    },
    SearchKept {
        seat: Seat,
        mouse: MouseKind,
        kept: Vec<Tile>,
        returned: Vec<Tile>,
    },
    Delivered {
        seat: Seat,
        mouse: MouseKind,
        tiles: Vec<Tile>,
        favours: Vec<FavourCard>,
        points: i64,
        relic_points: i64,
    },
    /// A delivered piece completes a space of its deliverer's hunt board.
    HuntMarked {
        seat: Seat,
        row: u8,
        col: u8,
        #[serde(flatten)]
        piece: PieceView,
    },
    MissionCompleted {
        seat: Seat,
        mission: MissionCard,
    },
    MissionRevealed {
        mission: MissionCard,
    },
    Swapped {
        seat: Seat,
        mouse: MouseKind,
        gave: Tile,
        took: Tile,
    },
    WildBought {
        seat: Seat,
        mouse: MouseKind,
        paid: Vec<Tile>,
        wild: Tile,
    },
    /// Public: someone took a favour card (which one is told only to them).
    FavourTaken {
        seat: Seat,
    },
    FavourDrawn {
        seat: Seat,
        card: FavourCard,
    },
    FavourPlayed {
        seat: Seat,
        card: FavourCard,
    },
    Foraged {
        seat: Seat,
        mouse: MouseKind,
        tile: Tile,
    },
    WildGifted {
        seat: Seat,
        mouse: MouseKind,
        wild: Tile,
    },
    BagRefilled {
        tiles: usize,
    },
    MouseDone {
        seat: Seat,
        mouse: MouseKind,
    },
    HourStruck {
        hour: u8,
    },
    PriorityPassed {
        seat: Seat,
    },
    MiceSteppedDown {
        mice: Vec<MouseRef>,
    },
    PawsPlaced {
        numbers: Vec<u8>,
    },
    ClockRefilled {
        tiles: Vec<(u8, Tile)>,
    },
    /// At the end, the favour cards still in hand are shown: they score in the leftover group.
    FavoursRevealed {
        hands: Vec<Vec<FavourCard>>,
    },
    GameEnded {
        scores: Vec<FinalScore>,
    },
}

type Events = Vec<Event<HickoryEvent>>;

// ---------------------------------------------------------------------------------------------------------------
// Scoring of a group of items (deliveries and the final leftovers). GAPS 000 Q26, Q28.

/// A group of items to score: coloured items and wilds (relics are never part of a group).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Group {
    pub items: Vec<(Colour, Item)>,
    pub wilds: usize,
}

impl Group {
    pub fn add_tile(&mut self, id: TileId) {
        match tile_kind(id) {
            TileKind::Item { colour, item } => self.items.push((colour, item)),
            TileKind::Wild => self.wilds += 1,
            TileKind::Relic => {}
        }
    }
    pub fn add_favour(&mut self, id: FavourId) {
        let f = FAVOURS[id as usize];
        self.items.push((f.colour, f.item));
    }
    pub fn len(&self) -> usize {
        self.items.len() + self.wilds
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The largest same-colour group, wilds joining it.
    pub fn largest_colour(&self) -> usize {
        COLOURS
            .iter()
            .map(|c| self.items.iter().filter(|(ic, _)| ic == c).count())
            .max()
            .unwrap_or(0)
            + self.wilds
    }
    /// The largest same-item group, wilds joining it.
    pub fn largest_item(&self) -> usize {
        ITEMS
            .iter()
            .map(|i| self.items.iter().filter(|(_, ii)| ii == i).count())
            .max()
            .unwrap_or(0)
            + self.wilds
    }
    pub fn distinct_colours(&self) -> usize {
        let n = COLOURS
            .iter()
            .filter(|c| self.items.iter().any(|(ic, _)| ic == *c))
            .count();
        (n + self.wilds).min(COLOURS.len())
    }
    pub fn distinct_items(&self) -> usize {
        let n = ITEMS
            .iter()
            .filter(|i| self.items.iter().any(|(_, ii)| ii == *i))
            .count();
        (n + self.wilds).min(ITEMS.len())
    }
    /// Published delivery scoring: 1 per tile, plus 1 per tile of the largest same-item group, plus 1 per tile of
    /// the largest same-colour group; a wild counts in both groups.
    pub fn points(&self) -> i64 {
        if self.is_empty() {
            return 0;
        }
        (self.len() + self.largest_item() + self.largest_colour()) as i64
    }
    pub fn meets(&self, requirement: Requirement, hunt_spaces: usize) -> bool {
        let at_least = |have: usize, n: u8| have >= n as usize;
        match requirement {
            Requirement::SameColour(n) => at_least(self.largest_colour(), n),
            Requirement::SameItem(n) => at_least(self.largest_item(), n),
            Requirement::DistinctColours(n) => at_least(self.distinct_colours(), n),
            Requirement::DistinctItems(n) => at_least(self.distinct_items(), n),
            Requirement::Tiles(n) => at_least(self.len(), n),
            Requirement::HuntSpaces(n) => at_least(hunt_spaces, n),
        }
    }
}

/// Every choice of `k` of `items`, each in the order of `items`, in lexicographic order of positions.
fn combinations(items: &[TileId], k: usize) -> Vec<Vec<TileId>> {
    if k == 0 {
        return vec![vec![]];
    }
    let mut out = Vec::new();
    for (i, &first) in items.iter().enumerate() {
        for mut rest in combinations(&items[i + 1..], k - 1) {
            rest.insert(0, first);
            out.push(rest);
        }
    }
    out
}

fn next_number(n: u8, steps: u8) -> u8 {
    (n - 1 + steps) % NUMBERS + 1
}

// ---------------------------------------------------------------------------------------------------------------
// The engine.

/// The most carded mice a table holds: every mouse card of every seat.
const MAX_CARDED_MICE: usize = MAX_PLAYERS as usize * MICE.len();

/// The carded mice standing on the clock's rings ([`Hickory::ring_mice`]), sorted by [`RingMice::key`] and, on one
/// space, in priority order then in the order of [`MICE`]: the `inner` and `outer` lists of the view's spaces.
#[derive(Clone, Copy, Debug)]
struct RingMice {
    len: usize,
    mice: [(u16, MouseRef); MAX_CARDED_MICE],
    /// How many of `mice` [`RingMice::take`] has passed.
    taken: usize,
}

impl RingMice {
    /// The sort key of a ring space: by number, the inner ring before the outer; none off the rings.
    fn key(loc: Loc) -> Option<u16> {
        match loc {
            Loc::Inner(n) => Some(2 * u16::from(n)),
            Loc::Outer(n) => Some(2 * u16::from(n) + 1),
            Loc::Unplaced | Loc::Card | Loc::Hand => None,
        }
    }

    /// The mice on the ring space `loc`, in the view's order. The spaces must be asked in increasing order of
    /// key, as the view lists them (number by number, inner then outer): each answer starts where the last ended.
    fn take(&mut self, loc: Loc) -> impl Iterator<Item = MouseRef> + '_ {
        let key = Self::key(loc).expect("a ring space");
        debug_assert!(
            self.taken == 0 || self.mice[self.taken - 1].0 <= key,
            "ring spaces asked out of order"
        );
        let rest = &self.mice[self.taken..self.len];
        let start = rest.iter().take_while(|(k, _)| *k < key).count();
        let end = start + rest[start..].iter().take_while(|(k, _)| *k == key).count();
        self.taken += end;
        rest[start..end].iter().map(|(_, m)| *m)
    }
}

/// The decision the table is waiting for, computed from the state.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Decision {
    Place(Seat),
    HandMouse(MouseRef),
    InnerRing(Seat, u8),
    Pending(Pending),
}

impl Decision {
    fn seat(&self) -> Seat {
        match self {
            Decision::Place(s) | Decision::InnerRing(s, _) => *s,
            Decision::HandMouse(m) => m.seat,
            Decision::Pending(p) => p.who().seat,
        }
    }
    fn name(&self) -> &'static str {
        match self {
            Decision::Place(_) => "placing the starting mice",
            Decision::HandMouse(_) => "a mouse on the minute hand staying or hopping off",
            Decision::InnerRing(..) => "a mouse leaving the inner ring",
            Decision::Pending(Pending::Scurry { .. }) => "the scurrier running on",
            Decision::Pending(Pending::Act { .. }) => "a mouse acting on the outer ring",
            Decision::Pending(Pending::SearchKeep { .. }) => "keeping tiles from a search",
            Decision::Pending(Pending::Delivery { .. }) => "adding favour cards to a delivery",
            Decision::Pending(Pending::Hunt { .. }) => "placing a delivered piece on the hunt board",
        }
    }
}

impl Hickory {
    fn player(&self, seat: Seat) -> &PlayerState {
        &self.seats[seat.index()]
    }
    fn player_mut(&mut self, seat: Seat) -> &mut PlayerState {
        &mut self.seats[seat.index()]
    }
    fn mouse(&self, who: MouseRef) -> &MouseState {
        self.player(who.seat).mouse(who.mouse)
    }
    fn mouse_mut(&mut self, who: MouseRef) -> &mut MouseState {
        self.player_mut(who.seat).mouse_mut(who.mouse)
    }
    fn room(&self, who: MouseRef) -> usize {
        let m = self.mouse(who);
        m.kind.capacity().saturating_sub(m.tiles.len())
    }
    fn space(&self, number: u8) -> &Space {
        &self.spaces[(number - 1) as usize]
    }
    fn space_mut(&mut self, number: u8) -> &mut Space {
        &mut self.spaces[(number - 1) as usize]
    }

    /// Places on the minute hand not covered by blockers.
    pub fn hand_capacity(&self) -> u8 {
        HAND_SLOTS - blockers(self.players).iter().map(|b| b.places()).sum::<u8>()
    }
    fn hand_free(&self) -> u8 {
        let used: u8 = self.hand.iter().map(|m| m.mouse.hand_places()).sum();
        self.hand_capacity() - used
    }

    /// Seats in priority order: the priority holder, then to the left. The iterator borrows nothing, so the
    /// state may change while it runs (and it allocates nothing: the view and `status` use it).
    fn priority_order(&self) -> impl DoubleEndedIterator<Item = Seat> + use<> {
        let (players, priority) = (self.players, self.priority);
        (0..players).map(move |i| Seat((priority.0 + i) % players))
    }

    fn decision(&self) -> Option<Decision> {
        match &self.phase {
            Phase::Over => None,
            Phase::Placement { order, next } => order.get(*next).map(|s| Decision::Place(*s)),
            Phase::Play { pending: Some(p) } => Some(Decision::Pending(p.clone())),
            Phase::Play { pending: None } => {
                if !self.tick_open {
                    return None;
                }
                if let Some(m) = self.hand.iter().find(|m| !self.resolved.contains(m)) {
                    return Some(Decision::HandMouse(*m));
                }
                let here = self.minute;
                self.priority_order()
                    .find(|s| self.player(*s).mice.iter().any(|m| m.loc == Loc::Inner(here)))
                    .map(|s| Decision::InnerRing(s, here))
            }
        }
    }

    fn token_usable(&self, number: u8) -> bool {
        !self.paws.contains(&number)
    }

    /// Tiles of a mouse that a delivery at a space with `token` hands over.
    fn deliverable(&self, who: MouseRef, token: ActionKind) -> Vec<TileId> {
        self.mouse(who)
            .tiles
            .iter()
            .copied()
            .filter(|&t| token == ActionKind::CuckooDoor || tile_kind(t) != TileKind::Relic)
            .collect()
    }

    fn can_draw(&self) -> bool {
        !self.bag.is_empty() || !self.pantry.is_empty()
    }

    fn legal(&self, seat: Seat) -> Vec<HickoryAction> {
        use HickoryAction as A;
        let Some(decision) = self.decision() else {
            return vec![];
        };
        if decision.seat() != seat {
            return vec![];
        }
        let mut out = Vec::new();
        match decision {
            Decision::Place(s) => {
                for kind in STARTING_MICE {
                    if self.player(s).mouse(kind).loc == Loc::Unplaced {
                        for space in 1..=NUMBERS {
                            out.push(A::Place { mouse: kind, space });
                        }
                    }
                }
            }
            Decision::HandMouse(_) => {
                out.push(A::Stay);
                out.push(A::HopOff);
            }
            Decision::InnerRing(s, here) => {
                let free = self.hand_free();
                for m in &self.player(s).mice {
                    if m.loc == Loc::Inner(here) {
                        out.push(A::StepOut { mouse: m.kind });
                        if m.kind.hand_places() <= free {
                            out.push(A::Board { mouse: m.kind });
                        }
                    }
                }
            }
            Decision::Pending(Pending::Scurry { .. }) => {
                for steps in 0..=SCURRY_MAX {
                    out.push(A::Scurry { steps });
                }
            }
            Decision::Pending(Pending::Act { who, token_used }) => {
                let Loc::Outer(here) = self.mouse(who).loc else {
                    unreachable!("an acting mouse stands on the outer ring")
                };
                if !token_used && self.token_usable(here) {
                    self.token_actions(who, self.space(here).token, &mut out);
                }
                if !token_used
                    && who.mouse != MouseKind::Scamp
                    && self.player(seat).mouse(MouseKind::Scamp).loc == Loc::Card
                {
                    for space in 1..=NUMBERS {
                        out.push(A::CallScamp { space });
                    }
                }
                for &card in &self.player(seat).favours {
                    let possible = match FAVOURS[card as usize].effect {
                        FavourEffect::Forage => self.room(who) > 0 && self.can_draw(),
                        FavourEffect::WebGift => self.room(who) > 0 && !self.web_wilds.is_empty(),
                        FavourEffect::Clamber => true,
                    };
                    if possible {
                        out.push(A::PlayFavour { card });
                    }
                }
                out.push(A::Done);
            }
            Decision::Pending(Pending::SearchKeep { drawn, .. }) => {
                for &t in &drawn {
                    out.push(A::Keep { tile: t });
                }
            }
            Decision::Pending(Pending::Delivery { favours, .. }) => {
                for &card in &self.player(seat).favours {
                    if !favours.contains(&card) {
                        out.push(A::AddFavour { card });
                    }
                }
                out.push(A::FinishDelivery);
            }
            Decision::Pending(Pending::Hunt { queue, .. }) => {
                for (row, col) in self.hunt_candidates(seat, queue[0]) {
                    out.push(A::MarkHunt { row, col });
                }
            }
        }
        out
    }

    fn token_actions(&self, who: MouseRef, token: ActionKind, out: &mut Vec<HickoryAction>) {
        use HickoryAction as A;
        match token {
            ActionKind::Climb => out.push(A::Climb),
            ActionKind::Delivery | ActionKind::CuckooDoor => {
                if !self.deliverable(who, token).is_empty() {
                    out.push(A::Deliver);
                }
            }
            ActionKind::Search => {
                if self.room(who) > 0 && self.can_draw() {
                    out.push(A::Search);
                }
            }
            ActionKind::Favour => {
                if !self.favour_deck.is_empty() || !self.favour_discard.is_empty() {
                    out.push(A::TakeFavour);
                }
            }
            ActionKind::Exchange => {
                let tradeable: Vec<TileId> = self
                    .mouse(who)
                    .tiles
                    .iter()
                    .copied()
                    .filter(|&t| tile_kind(t) != TileKind::Relic)
                    .collect();
                for &give in &tradeable {
                    for &take in &self.web_market {
                        out.push(A::Swap { give, take });
                    }
                }
                if !self.web_wilds.is_empty() {
                    let items: Vec<TileId> = tradeable
                        .iter()
                        .copied()
                        .filter(|&t| tile_kind(t) != TileKind::Wild)
                        .collect();
                    for pay in combinations(&items, WILD_PRICE) {
                        out.push(A::BuyWild { pay });
                    }
                }
            }
        }
    }

    /// The most precise reason we can give for an action that is not listed.
    fn refusal(&self, seat: Seat, action: &HickoryAction) -> HickoryReject {
        let Some(decision) = self.decision() else {
            return HickoryReject::GameOver;
        };
        if decision.seat() != seat {
            return HickoryReject::NotYourTurn(decision.seat());
        }
        use HickoryAction as A;
        let fits = matches!(
            (&decision, action),
            (Decision::Place(_), A::Place { .. })
                | (Decision::HandMouse(_), A::Stay | A::HopOff)
                | (Decision::InnerRing(..), A::StepOut { .. } | A::Board { .. })
                | (Decision::Pending(Pending::Scurry { .. }), A::Scurry { .. })
                | (Decision::Pending(Pending::Hunt { .. }), A::MarkHunt { .. })
                | (Decision::Pending(Pending::SearchKeep { .. }), A::Keep { .. })
                | (
                    Decision::Pending(Pending::Delivery { .. }),
                    A::AddFavour { .. } | A::FinishDelivery
                )
                | (
                    Decision::Pending(Pending::Act { .. }),
                    A::Climb
                        | A::Deliver
                        | A::Search
                        | A::TakeFavour
                        | A::Swap { .. }
                        | A::BuyWild { .. }
                        | A::CallScamp { .. }
                        | A::PlayFavour { .. }
                        | A::Done
                )
        );
        if !fits {
            return HickoryReject::NotNow(decision.name());
        }
        HickoryReject::Unavailable(match action {
            A::Place { .. } => "that mouse is already placed, or there is no such space",
            A::Board { .. } => {
                "that mouse is not on this inner-ring space, or the minute hand has no room for it"
            }
            A::StepOut { .. } => "that mouse is not on this inner-ring space",
            A::Scurry { .. } => "the scurrier runs on 0, 1 or 2 numbers",
            A::Keep { .. } => "that tile was not drawn in this search",
            A::MarkHunt { .. } => "that hunt-board space is completed already or does not accept this piece",
            A::AddFavour { .. } | A::PlayFavour { .. } => {
                "that favour card is not in your hand or cannot be used"
            }
            A::CallScamp { .. } => {
                "the scamp is not on its card, the token was already used, or no such space"
            }
            A::Swap { .. } | A::BuyWild { .. } => "that trade is not possible at Itzy's web",
            _ => "this space's token cannot be used (used already, covered by a cat paw, or nothing to do)",
        })
    }

    // -- tiles ----------------------------------------------------------------------------------------------------

    /// Draws one random tile from the bag, pouring the pantry back in when the bag is empty.
    fn draw(&mut self, events: &mut Events) -> Option<TileId> {
        if self.bag.is_empty() && !self.pantry.is_empty() {
            self.bag.append(&mut self.pantry);
            self.bag.sort_unstable();
            events.push(Event::public(HickoryEvent::BagRefilled {
                tiles: self.bag.len(),
            }));
        }
        if self.bag.is_empty() {
            return None;
        }
        let i = self.rng.index(self.bag.len());
        Some(self.bag.swap_remove(i))
    }

    fn return_to_bag(&mut self, ids: &[TileId]) {
        self.bag.extend_from_slice(ids);
    }

    fn draw_favour(&mut self, seat: Seat, events: &mut Events) {
        if self.favour_deck.is_empty() {
            self.favour_deck.append(&mut self.favour_discard);
            self.rng.shuffle(&mut self.favour_deck);
        }
        if let Some(card) = self.favour_deck.pop() {
            self.player_mut(seat).favours.push(card);
            events.push(Event::public(HickoryEvent::FavourTaken { seat }));
            events.push(Event::to(
                seat,
                HickoryEvent::FavourDrawn {
                    seat,
                    card: favour_card(card),
                },
            ));
        }
    }

    // -- moving mice ----------------------------------------------------------------------------------------------

    /// A mouse arrives on the outer ring at `number`: it collects the tile there if it has room, then acts.
    fn land(&mut self, who: MouseRef, number: u8, events: &mut Events) {
        self.mouse_mut(who).loc = Loc::Outer(number);
        if let Some(t) = self.space(number).tile {
            if self.room(who) > 0 {
                self.space_mut(number).tile = None;
                self.mouse_mut(who).tiles.push(t);
                events.push(Event::public(HickoryEvent::TileCollected {
                    seat: who.seat,
                    mouse: who.mouse,
                    number,
                    tile: tile(t),
                }));
            } else {
                events.push(Event::public(HickoryEvent::TileLeft {
                    seat: who.seat,
                    mouse: who.mouse,
                    number,
                    reason: "the mouse card is full".into(),
                }));
            }
        }
        self.phase = Phase::Play {
            pending: Some(Pending::Act {
                who,
                token_used: false,
            }),
        };
    }

    fn climb(&mut self, seat: Seat, links: u8, events: &mut Events) {
        let p = self.player_mut(seat);
        p.scaler_link += links;
        let link = p.scaler_link.min(CHAIN_TOP);
        events.push(Event::public(HickoryEvent::Climbed { seat, links, link }));
        if p.scaler_link >= CHAIN_TOP {
            let points = i64::from(self.pinecone);
            let p = self.player_mut(seat);
            p.points.chain += points;
            p.scaler_link = 0;
            self.pinecone = self.pinecone.saturating_sub(1).max(PINECONE_MIN);
            events.push(Event::public(HickoryEvent::Summit {
                seat,
                points,
                pinecone: self.pinecone,
            }));
        }
    }

    fn back_to_act(&mut self, who: MouseRef) {
        self.phase = Phase::Play {
            pending: Some(Pending::Act {
                who,
                token_used: true,
            }),
        };
    }

    fn deliver(&mut self, who: MouseRef, favours: Vec<FavourId>, events: &mut Events) {
        let Loc::Outer(here) = self.mouse(who).loc else {
            unreachable!("deliveries happen on the outer ring")
        };
        let token = self.space(here).token;
        let delivered = self.deliverable(who, token);
        self.mouse_mut(who).tiles.retain(|t| !delivered.contains(t));
        let mut group = Group::default();
        for &t in &delivered {
            group.add_tile(t);
        }
        for &f in &favours {
            group.add_favour(f);
        }
        let points = group.points();
        let seat = who.seat;
        let relics = delivered
            .iter()
            .filter(|&&t| tile_kind(t) == TileKind::Relic)
            .count() as i64;
        self.pantry
            .extend(delivered.iter().filter(|&&t| tile_kind(t) == TileKind::Relic));
        for &f in &favours {
            self.player_mut(seat).favours.retain(|c| *c != f);
            self.favour_discard.push(f);
        }
        let relic_points = relics * RELIC_POINTS;
        let p = self.player_mut(seat);
        p.points.deliveries += points;
        p.points.relics += relic_points;
        events.push(Event::public(HickoryEvent::Delivered {
            seat,
            mouse: who.mouse,
            tiles: tiles(&delivered),
            favours: favours.iter().map(|&f| favour_card(f)).collect(),
            points,
            relic_points,
        }));
        for _ in 0..relics {
            self.draw_favour(seat, events);
        }
        // The hunt board: items first (in the card's order), then favour cards, then wilds (the most flexible).
        let items = delivered
            .iter()
            .filter(|&&t| matches!(tile_kind(t), TileKind::Item { .. }));
        let wilds = delivered.iter().filter(|&&t| tile_kind(t) == TileKind::Wild);
        let queue: Vec<Piece> = items
            .map(|&t| Piece::Tile(t))
            .chain(favours.iter().map(|&f| Piece::Favour(f)))
            .chain(wilds.map(|&t| Piece::Tile(t)))
            .collect();
        self.place_on_hunt_board(who, queue, delivered, favours, 0, events);
    }

    /// Free spaces of `seat`'s hunt board that accept `piece`.
    fn hunt_candidates(&self, seat: Seat, piece: Piece) -> Vec<(u8, u8)> {
        let p = self.player(seat);
        let board = HUNT_BOARDS[p.hunt_board as usize];
        let accepts = |space: HuntSpace| match piece {
            Piece::Favour(f) => space.accepts(FAVOURS[f as usize].colour, FAVOURS[f as usize].item),
            Piece::Tile(t) => match tile_kind(t) {
                TileKind::Item { colour, item } => space.accepts(colour, item),
                TileKind::Wild => true,
                TileKind::Relic => false,
            },
        };
        let mut out = Vec::new();
        for (r, row) in board.iter().enumerate() {
            for (c, &space) in row.iter().enumerate() {
                if !p.hunt_done[r][c] && accepts(space) {
                    out.push((r as u8, c as u8));
                }
            }
        }
        out
    }

    fn mark_hunt(&mut self, seat: Seat, piece: Piece, (row, col): (u8, u8), events: &mut Events) {
        let p = self.player_mut(seat);
        p.hunt_done[row as usize][col as usize] = true;
        if let Piece::Tile(t) = piece {
            p.hunt_tiles.push(t);
        }
        events.push(Event::public(HickoryEvent::HuntMarked {
            seat,
            row,
            col,
            piece: piece_view(piece),
        }));
    }

    /// Places the delivered pieces on the hunt board in order: a piece with one free space that accepts it takes
    /// it, a piece with none is set aside (items to the pantry, wilds back to Itzy's web), and a piece with a choice
    /// waits for its owner. When all are placed, the delivery is checked against the missions.
    fn place_on_hunt_board(
        &mut self,
        who: MouseRef,
        mut queue: Vec<Piece>,
        delivered: Vec<TileId>,
        favours: Vec<FavourId>,
        mut marked: usize,
        events: &mut Events,
    ) {
        let seat = who.seat;
        while let Some(&piece) = queue.first() {
            let candidates = self.hunt_candidates(seat, piece);
            if candidates.len() > 1 {
                let pending = Pending::Hunt {
                    who,
                    queue,
                    delivered,
                    favours,
                    marked,
                };
                self.phase = Phase::Play {
                    pending: Some(pending),
                };
                return;
            }
            queue.remove(0);
            match (candidates.first(), piece) {
                (Some(&space), _) => {
                    self.mark_hunt(seat, piece, space, events);
                    marked += 1;
                }
                (None, Piece::Tile(t)) if tile_kind(t) == TileKind::Wild => self.web_wilds.push(t),
                (None, Piece::Tile(t)) => self.pantry.push(t),
                (None, Piece::Favour(_)) => {}
            }
        }
        let mut group = Group::default();
        for &t in &delivered {
            group.add_tile(t);
        }
        for &f in &favours {
            group.add_favour(f);
        }
        // Missions are checked after the tiles have been scored (seed); both face-up cards, as they lay.
        let face_up = self.missions.clone();
        for m in face_up {
            if group.meets(MISSIONS[m as usize].requirement, marked) {
                self.missions.retain(|x| *x != m);
                let p = self.player_mut(seat);
                p.missions_done.push(m);
                p.points.missions += MISSIONS[m as usize].points;
                events.push(Event::public(HickoryEvent::MissionCompleted {
                    seat,
                    mission: mission_card(m),
                }));
                if let Some(next) = self.mission_deck.pop() {
                    self.missions.push(next);
                    events.push(Event::public(HickoryEvent::MissionRevealed {
                        mission: mission_card(next),
                    }));
                }
            }
        }
        self.back_to_act(who);
    }

    fn search(&mut self, who: MouseRef, events: &mut Events) {
        let draws = SEARCH_DRAW
            + if who.mouse == MouseKind::Spotter {
                SPOTTER_EXTRA_DRAW
            } else {
                0
            };
        let mut drawn = Vec::new();
        for _ in 0..draws {
            match self.draw(events) {
                Some(t) => drawn.push(t),
                None => break,
            }
        }
        events.push(Event::public(HickoryEvent::SearchDrawn {
            seat: who.seat,
            mouse: who.mouse,
            tiles: tiles(&drawn),
        }));
        let keep = SEARCH_KEEP.min(self.room(who)).min(drawn.len());
        if keep == drawn.len() {
            self.mouse_mut(who).tiles.extend_from_slice(&drawn);
            events.push(Event::public(HickoryEvent::SearchKept {
                seat: who.seat,
                mouse: who.mouse,
                kept: tiles(&drawn),
                returned: vec![],
            }));
            self.back_to_act(who);
        } else {
            self.phase = Phase::Play {
                pending: Some(Pending::SearchKeep {
                    who,
                    drawn,
                    keep,
                    kept: vec![],
                }),
            };
        }
    }

    // -- the round's end and the game's end -------------------------------------------------------------------------

    fn end_round(&mut self, events: &mut Events) {
        self.hour += 1;
        events.push(Event::public(HickoryEvent::HourStruck { hour: self.hour }));
        // The seed: the game ends immediately when the hour hand reaches 12 (and if the minute hand reaches 12 with
        // the hour hand already there). The hour hand moves only here, so both conditions meet at this point.
        if self.hour >= END_HOUR {
            self.finish(events);
            return;
        }
        self.priority = self.priority.next(self.players);
        events.push(Event::public(HickoryEvent::PriorityPassed {
            seat: self.priority,
        }));
        let mut stepped = Vec::new();
        for seat in self.priority_order() {
            for m in &mut self.seats[seat.index()].mice {
                if let Loc::Outer(n) = m.loc {
                    m.loc = Loc::Inner(n);
                    stepped.push(MouseRef { seat, mouse: m.kind });
                }
            }
        }
        events.push(Event::public(HickoryEvent::MiceSteppedDown { mice: stepped }));
        self.roll_paws(events);
        self.refill_clock(events);
    }

    fn roll_paws(&mut self, events: &mut Events) {
        self.paws.clear();
        for _ in 0..CAT_PAWS {
            let mut n = self.rng.below(u64::from(CAT_DIE_FACES)) as u8 + 1;
            while self.paws.contains(&n) {
                n = n % CAT_DIE_FACES + 1;
            }
            self.paws.push(n);
        }
        events.push(Event::public(HickoryEvent::PawsPlaced {
            numbers: self.paws.clone(),
        }));
    }

    fn refill_clock(&mut self, events: &mut Events) {
        let mut placed = Vec::new();
        for number in 1..=NUMBERS {
            if self.space(number).tile.is_none() {
                match self.draw(events) {
                    Some(t) => {
                        self.space_mut(number).tile = Some(t);
                        placed.push((number, tile(t)));
                    }
                    None => break,
                }
            }
        }
        events.push(Event::public(HickoryEvent::ClockRefilled { tiles: placed }));
    }

    fn finish(&mut self, events: &mut Events) {
        for p in &mut self.seats {
            let rows = p.hunt_done.iter().filter(|row| row.iter().all(|d| *d)).count();
            let cols = (0..HUNT_SIZE)
                .filter(|&c| p.hunt_done.iter().all(|row| row[c]))
                .count();
            p.points.hunt_lines = (rows + cols) as i64 * HUNT_LINE_POINTS;
            let mut group = Group::default();
            for m in &p.mice {
                for &t in &m.tiles {
                    group.add_tile(t);
                }
            }
            for &f in &p.favours {
                group.add_favour(f);
            }
            p.points.leftovers = group.points();
        }
        self.phase = Phase::Over;
        let hands = self
            .seats
            .iter()
            .map(|p| p.favours.iter().map(|&f| favour_card(f)).collect())
            .collect();
        events.push(Event::public(HickoryEvent::FavoursRevealed { hands }));
        events.push(Event::public(HickoryEvent::GameEnded {
            scores: self.final_scores(),
        }));
    }

    fn final_scores(&self) -> Vec<FinalScore> {
        Seat::all(self.players)
            .map(|seat| {
                let p = self.player(seat);
                FinalScore {
                    seat,
                    points: p.points,
                    total: p.points.total(),
                    hunt_spaces: p.hunt_spaces_done(),
                }
            })
            .collect()
    }

    /// Runs the clock until a seat has a decision or the game ends.
    fn advance(&mut self, events: &mut Events) {
        loop {
            match &self.phase {
                Phase::Over | Phase::Play { pending: Some(_) } => return,
                Phase::Placement { order, next } => {
                    if *next < order.len() {
                        return;
                    }
                    self.phase = Phase::Play { pending: None };
                }
                Phase::Play { pending: None } => {
                    if !self.tick_open {
                        self.minute = next_number(self.minute, 1);
                        self.tick_open = true;
                        self.resolved.clear();
                        events.push(Event::public(HickoryEvent::MinuteHand {
                            hour: self.hour,
                            minute: self.minute,
                        }));
                        continue;
                    }
                    if self.decision().is_some() {
                        return;
                    }
                    self.tick_open = false;
                    if self.minute == ROUND_END_MINUTE {
                        self.end_round(events);
                    }
                }
            }
        }
    }

    /// Applies an action already known to be legal for `seat`.
    fn perform(&mut self, seat: Seat, action: &HickoryAction) -> Events {
        use HickoryAction as A;
        let mut events = Vec::new();
        let decision = self.decision().expect("a legal action has a decision");
        match (decision, action) {
            (Decision::Place(_), A::Place { mouse, space }) => {
                self.player_mut(seat).mouse_mut(*mouse).loc = Loc::Inner(*space);
                events.push(Event::public(HickoryEvent::MousePlaced {
                    seat,
                    mouse: *mouse,
                    number: *space,
                }));
                if let Phase::Placement { next, .. } = &mut self.phase {
                    *next += 1;
                }
            }
            (Decision::HandMouse(who), A::Stay) => {
                self.resolved.push(who);
                events.push(Event::public(HickoryEvent::Stayed {
                    seat,
                    mouse: who.mouse,
                }));
            }
            (Decision::HandMouse(who), A::HopOff) => {
                self.hand.retain(|m| *m != who);
                self.resolved.push(who);
                let here = self.minute;
                events.push(Event::public(HickoryEvent::HoppedOff {
                    seat,
                    mouse: who.mouse,
                    number: here,
                }));
                if who.mouse == MouseKind::Scurrier {
                    self.mouse_mut(who).loc = Loc::Outer(here);
                    self.phase = Phase::Play {
                        pending: Some(Pending::Scurry { who, from: here }),
                    };
                } else {
                    self.land(who, here, &mut events);
                }
            }
            (Decision::InnerRing(_, here), A::StepOut { mouse }) => {
                let who = MouseRef { seat, mouse: *mouse };
                self.resolved.push(who);
                events.push(Event::public(HickoryEvent::SteppedOut {
                    seat,
                    mouse: *mouse,
                    number: here,
                }));
                self.land(who, here, &mut events);
            }
            (Decision::InnerRing(..), A::Board { mouse }) => {
                let who = MouseRef { seat, mouse: *mouse };
                self.resolved.push(who);
                self.hand.push(who);
                self.mouse_mut(who).loc = Loc::Hand;
                events.push(Event::public(HickoryEvent::Boarded { seat, mouse: *mouse }));
            }
            (Decision::Pending(Pending::Scurry { who, from }), A::Scurry { steps }) => {
                let to = next_number(from, *steps);
                events.push(Event::public(HickoryEvent::Scurried { seat, from, to }));
                self.land(who, to, &mut events);
            }
            (Decision::Pending(Pending::Act { who, .. }), a) => self.act(who, a, &mut events),
            (
                Decision::Pending(Pending::SearchKeep {
                    who,
                    mut drawn,
                    keep,
                    mut kept,
                }),
                A::Keep { tile: t },
            ) => {
                drawn.retain(|d| d != t);
                kept.push(*t);
                self.mouse_mut(who).tiles.push(*t);
                if keep > 1 {
                    let pending = Pending::SearchKeep {
                        who,
                        drawn,
                        keep: keep - 1,
                        kept,
                    };
                    self.phase = Phase::Play {
                        pending: Some(pending),
                    };
                } else {
                    self.return_to_bag(&drawn);
                    events.push(Event::public(HickoryEvent::SearchKept {
                        seat,
                        mouse: who.mouse,
                        kept: tiles(&kept),
                        returned: tiles(&drawn),
                    }));
                    self.back_to_act(who);
                }
            }
            (Decision::Pending(Pending::Delivery { who, mut favours }), A::AddFavour { card }) => {
                favours.push(*card);
                if favours.len() == self.player(seat).favours.len() {
                    self.deliver(who, favours, &mut events);
                } else {
                    self.phase = Phase::Play {
                        pending: Some(Pending::Delivery { who, favours }),
                    };
                }
            }
            (Decision::Pending(Pending::Delivery { who, favours }), A::FinishDelivery) => {
                self.deliver(who, favours, &mut events);
            }
            (
                Decision::Pending(Pending::Hunt {
                    who,
                    mut queue,
                    delivered,
                    favours,
                    marked,
                }),
                A::MarkHunt { row, col },
            ) => {
                let piece = queue.remove(0);
                self.mark_hunt(seat, piece, (*row, *col), &mut events);
                self.place_on_hunt_board(who, queue, delivered, favours, marked + 1, &mut events);
            }
            (d, a) => unreachable!("listed action {a:?} does not fit {d:?}"),
        }
        self.advance(&mut events);
        events
    }

    fn act(&mut self, who: MouseRef, action: &HickoryAction, events: &mut Events) {
        use HickoryAction as A;
        let seat = who.seat;
        match action {
            A::Climb => {
                self.climb(seat, CLIMB_TOKEN_LINKS, events);
                self.back_to_act(who);
            }
            A::Deliver => {
                if self.player(seat).favours.is_empty() {
                    self.deliver(who, vec![], events);
                } else {
                    self.phase = Phase::Play {
                        pending: Some(Pending::Delivery { who, favours: vec![] }),
                    };
                }
            }
            A::Search => self.search(who, events),
            A::TakeFavour => {
                self.draw_favour(seat, events);
                self.back_to_act(who);
            }
            A::Swap { give, take } => {
                let m = self.mouse_mut(who);
                m.tiles.retain(|t| t != give);
                m.tiles.push(*take);
                for slot in &mut self.web_market {
                    if slot == take {
                        *slot = *give;
                    }
                }
                events.push(Event::public(HickoryEvent::Swapped {
                    seat,
                    mouse: who.mouse,
                    gave: tile(*give),
                    took: tile(*take),
                }));
                self.back_to_act(who);
            }
            A::BuyWild { pay } => {
                let wild = self.web_wilds.pop().expect("listed only with a wild on the web");
                let m = self.mouse_mut(who);
                m.tiles.retain(|t| !pay.contains(t));
                m.tiles.push(wild);
                self.pantry.extend_from_slice(pay);
                events.push(Event::public(HickoryEvent::WildBought {
                    seat,
                    mouse: who.mouse,
                    paid: tiles(pay),
                    wild: tile(wild),
                }));
                self.back_to_act(who);
            }
            A::CallScamp { space } => {
                let scamp = MouseRef {
                    seat,
                    mouse: MouseKind::Scamp,
                };
                events.push(Event::public(HickoryEvent::MouseDone {
                    seat,
                    mouse: who.mouse,
                }));
                events.push(Event::public(HickoryEvent::ScampCalled { seat, number: *space }));
                self.land(scamp, *space, events);
            }
            A::PlayFavour { card } => {
                self.player_mut(seat).favours.retain(|c| c != card);
                self.favour_discard.push(*card);
                events.push(Event::public(HickoryEvent::FavourPlayed {
                    seat,
                    card: favour_card(*card),
                }));
                match FAVOURS[*card as usize].effect {
                    FavourEffect::Forage => {
                        if let Some(t) = self.draw(events) {
                            self.mouse_mut(who).tiles.push(t);
                            events.push(Event::public(HickoryEvent::Foraged {
                                seat,
                                mouse: who.mouse,
                                tile: tile(t),
                            }));
                        }
                    }
                    FavourEffect::WebGift => {
                        let wild = self.web_wilds.pop().expect("listed only with a wild on the web");
                        self.mouse_mut(who).tiles.push(wild);
                        events.push(Event::public(HickoryEvent::WildGifted {
                            seat,
                            mouse: who.mouse,
                            wild: tile(wild),
                        }));
                    }
                    FavourEffect::Clamber => self.climb(seat, FAVOUR_CLAMBER_LINKS, events),
                }
                // The phase is still this mouse's Act step (token use unchanged).
            }
            A::Done => {
                events.push(Event::public(HickoryEvent::MouseDone {
                    seat,
                    mouse: who.mouse,
                }));
                self.phase = Phase::Play { pending: None };
            }
            other => unreachable!("{other:?} is not an outer-ring action"),
        }
    }

    // -- views ------------------------------------------------------------------------------------------------------

    fn step_view(&self, decision: &Decision, viewer: Viewer) -> StepView {
        match decision {
            Decision::Place(s) => StepView::Place {
                remaining: STARTING_MICE
                    .iter()
                    .copied()
                    .filter(|k| self.player(*s).mouse(*k).loc == Loc::Unplaced)
                    .collect(),
            },
            Decision::HandMouse(m) => StepView::HandMouse {
                mouse: m.mouse,
                place: self
                    .hand
                    .iter()
                    .position(|x| x == m)
                    .expect("the mouse is on the hand"),
            },
            Decision::InnerRing(s, n) => StepView::InnerRing {
                number: *n,
                mice: self
                    .player(*s)
                    .mice
                    .iter()
                    .filter(|m| m.loc == Loc::Inner(*n))
                    .map(|m| m.kind)
                    .collect(),
            },
            Decision::Pending(Pending::Scurry { who, from }) => StepView::Scurry {
                mouse: who.mouse,
                from: *from,
            },
            Decision::Pending(Pending::Act { who, token_used }) => StepView::Act {
                mouse: who.mouse,
                number: match self.mouse(*who).loc {
                    Loc::Outer(n) => n,
                    _ => unreachable!("an acting mouse stands on the outer ring"),
                },
                token_used: *token_used,
            },
            Decision::Pending(Pending::SearchKeep { who, drawn, keep, .. }) => StepView::SearchKeep {
                mouse: who.mouse,
                drawn: tiles(drawn),
                keep: *keep,
            },
            Decision::Pending(Pending::Delivery { who, favours }) => StepView::Delivery {
                mouse: who.mouse,
                favours_added: favours.len(),
                favours: (viewer == Viewer::Seat(who.seat))
                    .then(|| favours.iter().map(|&f| favour_card(f)).collect()),
            },
            Decision::Pending(Pending::Hunt { who, queue, .. }) => StepView::Hunt {
                mouse: who.mouse,
                placing: piece_view(queue[0]),
                then: queue[1..].iter().map(|&p| piece_view(p)).collect(),
            },
        }
    }

    /// The carded mice on the clock's rings, found in one pass over the mice (a view lists them space by space;
    /// a pass per ring space was a quarter of building a view).
    fn ring_mice(&self) -> RingMice {
        let mut ring = RingMice {
            len: 0,
            mice: [(
                0,
                MouseRef {
                    seat: Seat(0),
                    mouse: MouseKind::Scurrier,
                },
            ); MAX_CARDED_MICE],
            taken: 0,
        };
        for seat in self.priority_order() {
            for m in &self.player(seat).mice {
                if let Some(key) = RingMice::key(m.loc) {
                    ring.mice[ring.len] = (key, MouseRef { seat, mouse: m.kind });
                    ring.len += 1;
                }
            }
        }
        // Stable: within one space the mice stay in priority order, then in the order of MICE (what the view has
        // always listed). Sixteen at most: an insertion sort, no allocation.
        ring.mice[..ring.len].sort_by_key(|(key, _)| *key);
        ring
    }

    /// Whether `viewer` sees the favour cards in `seat`'s hand: their owner does, and everyone once the game is
    /// over (the typed view and its text both ask this).
    fn shows_favours(&self, viewer: Viewer, seat: Seat) -> bool {
        viewer == Viewer::Seat(seat) || self.phase == Phase::Over
    }

    /// Every tile of the game, wherever it is (for the invariant that none is lost or duplicated).
    pub fn all_tile_locations(&self) -> Vec<TileId> {
        let mut all = Vec::new();
        all.extend(&self.bag);
        all.extend(&self.pantry);
        all.extend(&self.web_wilds);
        all.extend(&self.web_market);
        all.extend(self.spaces.iter().filter_map(|s| s.tile));
        for p in &self.seats {
            all.extend(&p.hunt_tiles);
            for m in &p.mice {
                all.extend(&m.tiles);
            }
        }
        match &self.phase {
            Phase::Play {
                pending: Some(Pending::SearchKeep { drawn, .. }),
            } => all.extend(drawn),
            Phase::Play {
                pending: Some(Pending::Hunt { queue, .. }),
            } => all.extend(queue.iter().filter_map(|p| match p {
                Piece::Tile(t) => Some(*t),
                Piece::Favour(_) => None,
            })),
            _ => {}
        }
        all
    }

    /// Every favour card, wherever it is.
    pub fn all_favour_locations(&self) -> Vec<FavourId> {
        let mut all = self.favour_deck.clone();
        all.extend(&self.favour_discard);
        for p in &self.seats {
            all.extend(&p.favours);
        }
        all
    }

    /// Every mission card, wherever it is.
    pub fn all_mission_locations(&self) -> Vec<MissionId> {
        let mut all = self.mission_deck.clone();
        all.extend(&self.missions);
        for p in &self.seats {
            all.extend(&p.missions_done);
        }
        all
    }
}

impl Game for Hickory {
    type Config = HickoryConfig;
    type Action = HickoryAction;
    type Event = HickoryEvent;
    type View<'a> = HickoryView<'a>;
    type Reject = HickoryReject;

    fn info() -> GameInfo {
        GameInfo {
            id: "hickory_dickory",
            name: "Hickory Dickory",
            rules_version: 1,
            min_players: MIN_PLAYERS,
            max_players: MAX_PLAYERS,
            can_skip: false,
            options: vec![],
        }
    }

    fn new(_config: &HickoryConfig, players: u8, seed: u64) -> Result<Self, SetupError> {
        Self::info().check_players(players)?;
        let mut rng = Rng::from_seed(seed);
        // Action tokens: numbered ones on their numbers, sun and moon tokens at random on their spaces.
        let mut spaces: Vec<Option<Space>> = vec![None; NUMBERS as usize];
        for (n, token) in NUMBERED_TOKENS {
            spaces[(n - 1) as usize] = Some(Space {
                token,
                face: TokenFace::Numbered,
                tile: None,
            });
        }
        for (face, places, tokens) in [
            (TokenFace::Sun, SUN_SPACES, SUN_TOKENS),
            (TokenFace::Moon, MOON_SPACES, MOON_TOKENS),
        ] {
            let mut tokens = tokens;
            rng.shuffle(&mut tokens);
            for (n, token) in places.into_iter().zip(tokens) {
                spaces[(n - 1) as usize] = Some(Space {
                    token,
                    face,
                    tile: None,
                });
            }
        }
        let spaces: Vec<Space> = spaces
            .into_iter()
            .map(|s| s.expect("every number has a token"))
            .collect();

        let mut mission_deck: Vec<MissionId> = (0..MISSIONS.len() as u8).collect();
        rng.shuffle(&mut mission_deck);
        let missions: Vec<MissionId> = (0..MISSIONS_FACE_UP).filter_map(|_| mission_deck.pop()).collect();
        let mut favour_deck: Vec<FavourId> = (0..FAVOURS.len() as u8).collect();
        rng.shuffle(&mut favour_deck);
        let mut boards: Vec<u8> = (0..HUNT_BOARDS.len() as u8).collect();
        rng.shuffle(&mut boards);

        let seats = (0..players as usize)
            .map(|i| PlayerState {
                points: Breakdown::default(),
                hunt_board: boards[i],
                hunt_done: [[false; HUNT_SIZE]; HUNT_SIZE],
                hunt_tiles: vec![],
                mice: MICE
                    .iter()
                    .map(|&kind| MouseState {
                        kind,
                        loc: if kind == MouseKind::Scamp {
                            Loc::Card
                        } else {
                            Loc::Unplaced
                        },
                        tiles: vec![],
                    })
                    .collect(),
                scaler_link: 0,
                favours: (0..STARTING_FAVOURS).filter_map(|_| favour_deck.pop()).collect(),
                missions_done: vec![],
            })
            .collect();
        // A random first priority holder (the online stand-in for "the most punctual personality").
        let priority = Seat(rng.below(u64::from(players)) as u8);

        let mut game = Hickory {
            players,
            rng,
            hour: START_HOUR,
            minute: ROUND_END_MINUTE,
            tick_open: false,
            priority,
            spaces,
            hand: vec![],
            resolved: vec![],
            bag: bag_tiles().collect(),
            pantry: vec![],
            web_wilds: wild_tiles().collect(),
            web_market: vec![],
            mission_deck,
            missions,
            favour_deck,
            favour_discard: vec![],
            pinecone: PINECONE_START,
            paws: vec![],
            seats,
            phase: Phase::Over,
        };
        let mut events = Vec::new();
        for _ in 0..WEB_MARKET_SPACES {
            let t = game.draw(&mut events).expect("the bag is full at setup");
            game.web_market.push(t);
        }
        game.refill_clock(&mut events);
        // Placement: in reverse priority order, one starting mouse per turn, round after round.
        let reverse: Vec<Seat> = game.priority_order().rev().collect();
        let order: Vec<Seat> = (0..STARTING_MICE.len()).flat_map(|_| reverse.clone()).collect();
        game.phase = Phase::Placement { order, next: 0 };
        Ok(game)
    }

    fn players(&self) -> u8 {
        self.players
    }

    fn status(&self) -> Status {
        match self.decision() {
            Some(d) => Status::Turn { seat: d.seat() },
            None => Status::Over,
        }
    }

    fn legal_actions(&self, seat: Seat) -> Vec<HickoryAction> {
        self.legal(seat)
    }

    fn apply(&mut self, actor: Actor, action: &HickoryAction, _now: Millis) -> Result<Events, HickoryReject> {
        if self.phase == Phase::Over {
            return Err(HickoryReject::GameOver);
        }
        let seat = match actor {
            Actor::Clock => return Err(HickoryReject::NothingDue),
            Actor::Seat(s) if s.0 >= self.players => return Err(HickoryReject::NoSuchSeat(s)),
            Actor::Seat(s) => s,
        };
        if !self.legal(seat).contains(action) {
            return Err(self.refusal(seat, action));
        }
        Ok(self.perform(seat, action))
    }

    fn view(&self, viewer: Viewer) -> HickoryView<'_> {
        let decision = self.decision();
        let mut ring = self.ring_mice();
        HickoryView {
            viewer,
            players: self.players,
            hour: self.hour,
            minute: self.minute,
            priority: self.priority,
            decision: decision.as_ref().map(|d| DecisionView {
                seat: d.seat(),
                step: self.step_view(d, viewer),
            }),
            blockers: blockers(self.players),
            hand_capacity: self.hand_capacity(),
            hand: &self.hand,
            spaces: (1..=NUMBERS)
                .map(|n| {
                    let s = self.space(n);
                    SpaceView {
                        number: n,
                        face: s.face,
                        token: s.token,
                        paw: self.paws.contains(&n),
                        tile: s.tile.map(tile),
                        inner: ring.take(Loc::Inner(n)).collect(),
                        outer: ring.take(Loc::Outer(n)).collect(),
                    }
                })
                .collect(),
            web_wilds: self.web_wilds.len(),
            web_market: tiles(&self.web_market),
            bag: self.bag.len(),
            pantry: self.pantry.len(),
            favour_deck: self.favour_deck.len(),
            favour_discard: self.favour_discard.iter().map(|&f| favour_card(f)).collect(),
            mission_deck: self.mission_deck.len(),
            missions: self.missions.iter().map(|&m| mission_card(m)).collect(),
            pinecone: self.pinecone,
            paws: &self.paws,
            seats: Seat::all(self.players)
                .map(|seat| {
                    let p = self.player(seat);
                    let board = HUNT_BOARDS[p.hunt_board as usize];
                    PlayerView {
                        seat,
                        score: p.points.total(),
                        points: p.points,
                        hunt_board: p.hunt_board,
                        hunt: (0..HUNT_SIZE)
                            .map(|r| {
                                (0..HUNT_SIZE)
                                    .map(|c| HuntSpaceView {
                                        space: board[r][c],
                                        done: p.hunt_done[r][c],
                                    })
                                    .collect()
                            })
                            .collect(),
                        hunt_spaces_done: p.hunt_spaces_done(),
                        mice: p
                            .mice
                            .iter()
                            .map(|m| MouseView {
                                mouse: m.kind,
                                loc: m.loc,
                                capacity: m.kind.capacity(),
                                tiles: tiles(&m.tiles),
                            })
                            .collect(),
                        scaler_link: p.scaler_link,
                        favour_count: p.favours.len(),
                        favours: self
                            .shows_favours(viewer, seat)
                            .then(|| p.favours.iter().map(|&f| favour_card(f)).collect()),
                        missions_done: p.missions_done.iter().map(|&m| mission_card(m)).collect(),
                    }
                })
                .collect(),
            game_over: self.phase == Phase::Over,
        }
    }

    fn deadline(&self) -> Option<Deadline<HickoryAction>> {
        None
    }

    fn outcome(&self) -> Option<Outcome> {
        if self.phase != Phase::Over {
            return None;
        }
        let scores: Vec<i64> = self.seats.iter().map(|p| p.points.total()).collect();
        let keys: Vec<(i64, usize)> = self
            .seats
            .iter()
            .map(|p| (p.points.total(), p.hunt_spaces_done()))
            .collect();
        Some(Outcome::ranked(scores, keys))
    }
}
