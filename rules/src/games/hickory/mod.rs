//! Hickory Dickory (seed 000): mice ride the hands of a cuckoo clock, collect item tiles, deliver them to Lord
//! Cuckoo, complete missions, fill their hunt boards and climb the clock's chain.
//!
//! The seed fixes the tick; everything it leaves unsaid is designed here as one whole and written up in
//! `docs/rules/hickory-dickory.md`. Every component is data in [`data`]. Decisions are sequential: the engine
//! resolves the tick itself and stops whenever one seat has a choice ([`Status::Turn`]).
//!
//! Hidden information: the order of the bag, of the mission deck and of the favour deck, and the favour cards in
//! each hand (others see how many). Everything else lies face up on the table.

mod bot;
pub mod data;
mod legal;
mod mice;
mod round;
mod scoring;
mod secrets;
#[cfg(test)]
mod tests;
mod turn;
mod view;

use std::borrow::Cow;
use std::fmt;

use serde::{Deserialize, Serialize};

use self::data::*;
pub use self::scoring::*;
pub use self::view::*;
use crate::model::{
    Actor, Deadline, Event, Game, GameInfo, Millis, OptionKind, OptionSpec, Outcome, Reject, RejectKind,
    Seat, SetupError, Status, Viewer,
};
use crate::rng::Rng;

/// The options of a match: where the starting mice go. The player count decides the blockers; everything else is
/// fixed by the design.
#[derive(
    Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema, json_write::WriteJson,
)]
#[serde(default, deny_unknown_fields)]
pub struct HickoryConfig {
    /// The basic game's printed start spaces (default), or the published advanced variant's free placement.
    /// Rules version 1 always placed freely.
    pub start: StartSpaces,
}

/// Where each player's scurrier, spotter and scavenger start. GAPS 000 Q8.
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
    json_write::WriteJson,
)]
#[serde(rename_all = "snake_case")]
pub enum StartSpaces {
    /// On the start spaces printed on the player's hunt board ([`HUNT_START_SPACES`]).
    #[default]
    Printed,
    /// The advanced variant: in reverse priority order, one mouse a turn, on any inner-ring space.
    Free,
}

/// The rules version this engine plays for new matches, and the oldest one it still replays.
pub const RULES_VERSION: u32 = 3;
pub const OLDEST_RULES_VERSION: u32 = 1;

fn rules_v1() -> u32 {
    1
}
fn is_rules_v1(v: &u32) -> bool {
    *v == 1
}

/// One of a player's mice that has a mouse card.
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
pub struct MouseRef {
    pub seat: Seat,
    pub mouse: MouseKind,
}

/// Where a carded mouse is.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema, json_write::WriteJson,
)]
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

/// A carded mouse of a seat's (public so that a view can borrow the list: its members stay private).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, json_write::WriteJson)]
pub struct MouseState {
    kind: MouseKind,
    loc: Loc,
    tiles: Vec<TileId>,
}

/// Points by source, shown on the score track and in the final tally.
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
    json_write::WriteJson,
)]
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

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, json_write::WriteJson)]
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

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, json_write::WriteJson)]
struct Space {
    token: ActionKind,
    face: TokenFace,
    tile: Option<TileId>,
}

/// A decision in progress after a mouse has landed on the outer ring.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, json_write::WriteJson)]
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
    /// A delivery is under way; the owner may add favour cards (secret until the delivery is made) and, from rules
    /// version 2, chooses the tiles (`tiles`, public) one by one: "some, or all" (publisher).
    Delivery {
        who: MouseRef,
        favours: Vec<FavourId>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        tiles: Vec<TileId>,
    },
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
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema, json_write::WriteJson,
)]
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

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, json_write::WriteJson)]
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
#[derive(Clone, Debug, Serialize, Deserialize, json_write::WriteJson)]
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
    /// The rules version this match plays by ([`RULES_VERSION`]; snapshots written before it existed are 1).
    #[serde(default = "rules_v1", skip_serializing_if = "is_rules_v1")]
    rules_version: u32,
    /// Mice bumped off the front of the minute hand by a boarding mouse, still to land at the current number (in
    /// the order they fell off). Rules version 2.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    bumped: Vec<MouseRef>,
    /// Relics handed over to Lord Cuckoo: out of the game for good (rules version 2; version 1 put them in the
    /// pantry, so they could come back out of the bag).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    cuckoo: Vec<TileId>,
}

/// A decision a player sends. Every value of `legal_actions` is exactly what a client sends back.
#[derive(
    Clone, Debug, PartialEq, Eq, Serialize, json_write::TagFirst, schemars::JsonSchema, json_write::WriteJson,
)]
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
    /// Add a tile of the delivering mouse's card to the delivery (rules version 2: the player chooses which).
    AddTile {
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
// Events (the view is in `view.rs`).

/// A final tally line.
#[derive(
    Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema, json_write::WriteJson,
)]
pub struct FinalScore {
    pub seat: Seat,
    pub points: Breakdown,
    pub total: i64,
    pub hunt_spaces: usize,
}

#[derive(
    Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema, json_write::WriteJson,
)]
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
    /// A boarding mouse found the minute hand full: the mouse at the front fell off at `number` (rules version
    /// 2), onto the outer ring there; where a cat paw blocks `number` (rules version 3), onto the inner ring at the
    /// next number instead, to wait there.
    Bumped {
        seat: Seat,
        mouse: MouseKind,
        number: u8,
    },
    /// A cat paw covers the number the minute hand reached: no mouse goes there, the hand moves on (rules
    /// version 2).
    PawBlocked {
        number: u8,
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

/// The clock's number `steps` after `n` (1 follows 12).
fn next_number(n: u8, steps: u8) -> u8 {
    (n - 1 + steps) % NUMBERS + 1
}

// ---------------------------------------------------------------------------------------------------------------
// The engine.

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
            Decision::Pending(Pending::Delivery { .. }) => "choosing what to deliver",
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
        self.hand_capacity().saturating_sub(self.hand_used())
    }
    fn hand_used(&self) -> u8 {
        self.hand.iter().map(|m| m.mouse.hand_places()).sum()
    }
    /// Whether a cat paw blocks `number` for the mice (rules version 2: "it will block the clock number it is on.
    /// Mice will not go there"; version 1 only disabled the token).
    fn blocked(&self, number: u8) -> bool {
        self.v2() && self.paws.contains(&number)
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
                if !self.tick_open || !self.bumped.is_empty() {
                    return None;
                }
                // At a number a cat paw blocks, the hand's mice cannot hop off (nothing to ask), and the mice
                // waiting on its inner ring must board (rules version 3: "mice cannot stay on the inner ring";
                // version 2 left them waiting there).
                let blocked = self.blocked(self.minute);
                if blocked && !self.v3() {
                    return None;
                }
                if !blocked && let Some(m) = self.hand.iter().find(|m| !self.resolved.contains(m)) {
                    return Some(Decision::HandMouse(*m));
                }
                let here = self.minute;
                self.priority_order()
                    .find(|s| self.player(*s).mice.iter().any(|m| m.loc == Loc::Inner(here)))
                    .map(|s| Decision::InnerRing(s, here))
            }
        }
    }

    /// Every tile of the game, wherever it is (for the invariant that none is lost or duplicated).
    pub fn all_tile_locations(&self) -> Vec<TileId> {
        let mut all = Vec::new();
        all.extend(&self.bag);
        all.extend(&self.pantry);
        all.extend(&self.web_wilds);
        all.extend(&self.web_market);
        all.extend(&self.cuckoo);
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

impl Hickory {
    /// Sets up a match that plays by `rules_version` (1 to 3).
    fn setup(config: &HickoryConfig, players: u8, seed: u64, rules_version: u32) -> Result<Self, SetupError> {
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
            bag: bag_tiles(rules_version).collect(),
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
            rules_version,
            bumped: vec![],
            cuckoo: vec![],
        };
        let mut events = Vec::new();
        for _ in 0..WEB_MARKET_SPACES {
            let t = game.draw(&mut events).expect("the bag is full at setup");
            game.web_market.push(t);
        }
        game.refill_clock(&mut events);
        if game.v2() && config.start == StartSpaces::Printed {
            // The basic game: the starting mice wait on the start spaces printed on their owner's hunt board, and
            // the clock runs to the first decision.
            for p in &mut game.seats {
                for (kind, number) in HUNT_START_SPACES[p.hunt_board as usize] {
                    p.mouse_mut(kind).loc = Loc::Inner(number);
                }
            }
            game.phase = Phase::Play { pending: None };
            game.advance(&mut events);
            return Ok(game);
        }
        // Placement: in reverse priority order, one starting mouse per turn, round after round.
        let reverse: Vec<Seat> = game.priority_order().rev().collect();
        let order: Vec<Seat> = (0..STARTING_MICE.len()).flat_map(|_| reverse.clone()).collect();
        game.phase = Phase::Placement { order, next: 0 };
        Ok(game)
    }

    /// Whether this match plays by rules version 2 or later (bumping, paws that block, chosen deliveries, no inner
    /// ring at 12, one-tile searches, relics that stay with Lord Cuckoo).
    fn v2(&self) -> bool {
        self.rules_version >= 2
    }

    /// Whether this match plays by rules version 3 or later (mice waiting at a number a cat paw blocks board the
    /// minute hand; the published 93 tiles).
    fn v3(&self) -> bool {
        self.rules_version >= 3
    }

    /// The number of tiles this match plays with.
    pub fn tile_count(&self) -> u8 {
        tile_count(self.rules_version)
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
            rules_version: RULES_VERSION,
            min_players: MIN_PLAYERS,
            max_players: MAX_PLAYERS,
            can_skip: false,
            options: vec![OptionSpec {
                key: "start",
                label: "Starting mice: on the hunt board's printed start spaces (basic game) or placed freely (advanced)",
                kind: OptionKind::Choice {
                    values: vec!["printed", "free"],
                    default: "printed",
                },
                players: None,
            }],
        }
    }

    fn oldest_rules_version() -> u32 {
        OLDEST_RULES_VERSION
    }

    fn new_at(
        config: &HickoryConfig,
        players: u8,
        seed: u64,
        rules_version: u32,
    ) -> Result<Self, SetupError> {
        if !(OLDEST_RULES_VERSION..=RULES_VERSION).contains(&rules_version) {
            return Err(SetupError::RulesVersion {
                game: Self::info().id.to_string(),
                version: rules_version,
                oldest: OLDEST_RULES_VERSION,
                current: RULES_VERSION,
            });
        }
        Self::setup(config, players, seed, rules_version)
    }

    fn new(config: &HickoryConfig, players: u8, seed: u64) -> Result<Self, SetupError> {
        Self::setup(config, players, seed, RULES_VERSION)
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
        self.view_of(viewer)
    }

    fn rebind_view<'a>(&'a self, view: &mut HickoryView<'a>, viewer: Viewer) {
        self.rebind_view_of(view, viewer);
    }

    fn bot_action(&self, seat: Seat, rng: &mut crate::rng::Rng) -> Option<Self::Action> {
        bot::bot_action(self, seat, rng)
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
