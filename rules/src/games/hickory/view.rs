//! What a viewer sees: the table's pieces as shown (tiles, favour and mission cards, delivered pieces), the
//! view types, and the view built from the state for one viewer.

use super::*;
use json_write::Mapped;

/// A tile as the table shows it.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema, json_write::WriteJson,
)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Tile {
    Item {
        id: TileId,
        colour: Colour,
        item: Item,
    },
    /// Counts as any colour and any item (the seed's wild tokens; they live on Itzy's web).
    Wild {
        id: TileId,
    },
    /// A golden relic: scores [`RELIC_POINTS`] and a favour card when handed over at Lord Cuckoo's door.
    Relic {
        id: TileId,
    },
}

impl Tile {
    pub fn id(self) -> TileId {
        match self {
            Tile::Item { id, .. } | Tile::Wild { id } | Tile::Relic { id } => id,
        }
    }

    pub fn kind(self) -> TileKind {
        match self {
            Tile::Item { colour, item, .. } => TileKind::Item { colour, item },
            Tile::Wild { .. } => TileKind::Wild,
            Tile::Relic { .. } => TileKind::Relic,
        }
    }
}

pub(super) fn tile(id: TileId) -> Tile {
    match tile_kind(id) {
        TileKind::Item { colour, item } => Tile::Item { id, colour, item },
        TileKind::Wild => Tile::Wild { id },
        TileKind::Relic => Tile::Relic { id },
    }
}

pub(super) fn tiles(ids: &[TileId]) -> Vec<Tile> {
    ids.iter().map(|&id| tile(id)).collect()
}

#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema, json_write::WriteJson,
)]
pub struct FavourCard {
    pub id: FavourId,
    pub effect: FavourEffect,
    pub colour: Colour,
    pub item: Item,
}

pub(super) fn favour_card(id: FavourId) -> FavourCard {
    let f = FAVOURS[id as usize];
    FavourCard {
        id,
        effect: f.effect,
        colour: f.colour,
        item: f.item,
    }
}

#[derive(
    Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema, json_write::WriteJson,
)]
pub struct MissionCard {
    pub id: MissionId,
    pub name: Cow<'static, str>,
    pub requirement: Requirement,
    pub points: i64,
}

pub(super) fn mission_card(id: MissionId) -> MissionCard {
    let m = MISSIONS[id as usize];
    MissionCard {
        id,
        name: Cow::Borrowed(m.name),
        requirement: m.requirement,
        points: m.points,
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema, json_write::WriteJson)]
pub struct SpaceView {
    pub number: u8,
    pub face: TokenFace,
    pub token: ActionKind,
    pub paw: bool,
    pub tile: Option<Tile>,
    pub inner: Vec<MouseRef>,
    pub outer: Vec<MouseRef>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema, json_write::WriteJson)]
pub struct MouseView<'a> {
    pub mouse: MouseKind,
    pub loc: Loc,
    pub capacity: usize,
    pub tiles: Mapped<'a, TileId, Tile>,
}

// The lists are borrowed from the state and shown through a function as they are written (`Mapped`): built as
// `Vec`s, the 4-seat `server` run of `cargo bench -p rules --bench engines` took 6-20 % longer.
/// A seat's mice as its view shows them, borrowed from the state.
pub type MiceView<'a> = Mapped<'a, MouseState, MouseView<'a>>;

fn mice_view(mice: &[MouseState]) -> MiceView<'_> {
    Mapped::new(mice, (), |m, _, ()| MouseView {
        mouse: m.kind,
        loc: m.loc,
        capacity: m.kind.capacity(),
        tiles: Mapped::new(&m.tiles, (), |&id, _, ()| tile(id)),
    })
}

/// What a hunt-board space asks for: an item of one colour, or one kind of item in any colour. A delivered item
/// completes one free space that accepts it; a wild completes any free space.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema, json_write::WriteJson)]
#[serde(tag = "wants", rename_all = "snake_case")]
pub enum HuntSpaceView {
    Colour { value: Colour, done: bool },
    Item { value: Item, done: bool },
}

fn hunt_space_view(space: HuntSpace, done: bool) -> HuntSpaceView {
    match space {
        HuntSpace::Colour(value) => HuntSpaceView::Colour { value, done },
        HuntSpace::Item(value) => HuntSpaceView::Item { value, done },
    }
}

/// A delivered piece as the table shows it.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema, json_write::WriteJson,
)]
#[serde(tag = "piece", rename_all = "snake_case")]
pub enum PieceView {
    Tile { tile: Tile },
    Favour { card: FavourCard },
}

pub(super) fn piece_view(piece: Piece) -> PieceView {
    match piece {
        Piece::Tile(t) => PieceView::Tile { tile: tile(t) },
        Piece::Favour(f) => PieceView::Favour { card: favour_card(f) },
    }
}

/// A hunt board's rows as the view lists them: each space with whether it is done (borrowed: the printed board
/// and the owner's marks).
pub type HuntRows<'a> =
    Mapped<'a, [HuntSpace; HUNT_SIZE], HuntRowView<'a>, &'a [[bool; HUNT_SIZE]; HUNT_SIZE]>;
pub type HuntRowView<'a> = Mapped<'a, HuntSpace, HuntSpaceView, &'a [bool; HUNT_SIZE]>;

/// The printed hunt boards, where views borrow them from.
static PRINTED_HUNT_BOARDS: [[[HuntSpace; HUNT_SIZE]; HUNT_SIZE]; 4] = HUNT_BOARDS;

fn hunt_rows(board: u8, done: &[[bool; HUNT_SIZE]; HUNT_SIZE]) -> HuntRows<'_> {
    Mapped::new(&PRINTED_HUNT_BOARDS[usize::from(board)], done, |row, r, done| {
        hunt_row(row, &done[r])
    })
}

fn hunt_row<'a>(row: &'a [HuntSpace; HUNT_SIZE], done: &'a [bool; HUNT_SIZE]) -> HuntRowView<'a> {
    Mapped::new(row, done, |&space, c, done| hunt_space_view(space, done[c]))
}

/// A hunt board as its owner's view shows it: [`HuntRows`], serialised as that list. Its JSON text is written from
/// the text of every row a board can show (4 boards, 4 rows, 16 sets of marks), each written once by the derived
/// writer: the sixteen spaces of every seat's board in every viewer's view were a tenth of the instructions of
/// an action at 4 seats (callgrind, `docs/performance.md`), and a row's marks change a few times a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HuntView<'a> {
    board: u8,
    done: &'a [[bool; HUNT_SIZE]; HUNT_SIZE],
}

impl HuntView<'_> {
    pub fn rows(&self) -> HuntRows<'_> {
        hunt_rows(self.board, self.done)
    }
}

/// The text of every row of every printed board with every set of marks, by [`hunt_row_index`].
fn hunt_row_texts() -> &'static [Box<str>] {
    static TEXTS: std::sync::OnceLock<Vec<Box<str>>> = std::sync::OnceLock::new();
    TEXTS.get_or_init(|| {
        let mut texts = Vec::with_capacity((PRINTED_HUNT_BOARDS.len() * HUNT_SIZE) << HUNT_SIZE);
        for board in &PRINTED_HUNT_BOARDS {
            for row in board {
                for marks in 0..1usize << HUNT_SIZE {
                    let done: [bool; HUNT_SIZE] = std::array::from_fn(|c| marks >> c & 1 == 1);
                    texts.push(json_write::WriteJson::to_json_string(&hunt_row(row, &done)).into());
                }
            }
        }
        texts
    })
}

fn hunt_row_index(board: u8, row: usize, done: &[bool; HUNT_SIZE]) -> usize {
    let marks = done
        .iter()
        .enumerate()
        .fold(0, |marks, (c, &d)| marks | usize::from(d) << c);
    ((usize::from(board) * HUNT_SIZE + row) << HUNT_SIZE) | marks
}

impl json_write::WriteJson for HuntView<'_> {
    fn write_json(&self, out: &mut String) {
        let texts = hunt_row_texts();
        out.push('[');
        for (r, done) in self.done.iter().enumerate() {
            if r > 0 {
                out.push(',');
            }
            out.push_str(&texts[hunt_row_index(self.board, r, done)]);
        }
        out.push(']');
    }
}

impl Serialize for HuntView<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.rows().serialize(serializer)
    }
}

impl schemars::JsonSchema for HuntView<'_> {
    fn inline_schema() -> bool {
        <HuntRows<'static>>::inline_schema()
    }

    fn schema_name() -> Cow<'static, str> {
        <HuntRows<'static>>::schema_name()
    }

    fn schema_id() -> Cow<'static, str> {
        <HuntRows<'static>>::schema_id()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        <HuntRows<'static>>::json_schema(generator)
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema, json_write::WriteJson)]
pub struct PlayerView<'a> {
    pub seat: Seat,
    pub score: i64,
    pub points: Breakdown,
    pub hunt_board: u8,
    pub hunt: HuntView<'a>,
    pub hunt_spaces_done: usize,
    #[json(shared)]
    pub mice: MiceView<'a>,
    pub scaler_link: u8,
    pub favour_count: usize,
    /// The cards themselves: only in the owner's own view, and for everyone once the game is over.
    pub favours: Option<Mapped<'a, FavourId, FavourCard>>,
    #[json(shared)]
    pub missions_done: Mapped<'a, MissionId, MissionCard>,
}

/// The decision the table is waiting for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema, json_write::WriteJson)]
#[serde(tag = "step", rename_all = "snake_case")]
pub enum DecisionView {
    Place {
        seat: Seat,
        remaining: Vec<MouseKind>,
    },
    HandMouse {
        seat: Seat,
        mouse: MouseKind,
        place: usize,
    },
    InnerRing {
        seat: Seat,
        number: u8,
        mice: Vec<MouseKind>,
        /// A cat paw blocks `number` (rules version 3): the mice cannot step out there and must board the minute
        /// hand, since no mouse stays on the inner ring.
        must_board: bool,
    },
    Scurry {
        seat: Seat,
        mouse: MouseKind,
        from: u8,
    },
    Act {
        seat: Seat,
        mouse: MouseKind,
        number: u8,
        token_used: bool,
    },
    SearchKeep {
        seat: Seat,
        mouse: MouseKind,
        drawn: Vec<Tile>,
        keep: usize,
    },
    /// `favours` (the cards added so far) only for the deliverer; others see how many. `tiles`: the tiles chosen
    /// so far (rules version 2; empty in version 1, which delivers every tile on the card).
    Delivery {
        seat: Seat,
        mouse: MouseKind,
        tiles: Vec<Tile>,
        favours_added: usize,
        favours: Option<Vec<FavourCard>>,
    },
    /// Choosing the space for `placing`; `then` are the pieces after it.
    Hunt {
        seat: Seat,
        mouse: MouseKind,
        placing: PieceView,
        then: Vec<PieceView>,
    },
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema, json_write::WriteJson)]
pub struct HickoryView<'a> {
    pub viewer: Viewer,
    /// The rules version the match plays by: 3 sends the mice waiting at a number a cat paw blocks onto the minute
    /// hand and plays with the published 93 tiles; 2 bumps mice off a full hand, lets cat paws block their number,
    /// has no inner ring at 12 and lets the deliverer choose the tiles; 1 is the engine's first design.
    pub rules_version: u32,
    /// How many seats the match has.
    pub player_count: u8,
    pub hour: u8,
    pub minute: u8,
    pub priority: Seat,
    pub decision: Option<DecisionView>,
    pub blockers: &'static [Blocker],
    pub hand_capacity: u8,
    pub hand: &'a [MouseRef],
    #[json(shared)]
    pub spaces: Vec<SpaceView>,
    pub web_wilds: usize,
    pub web_market: Mapped<'a, TileId, Tile>,
    pub bag: usize,
    pub pantry: usize,
    /// Relics handed over to Lord Cuckoo, out of the game (rules version 2).
    pub relics_returned: usize,
    pub favour_deck: usize,
    #[json(shared)]
    pub favour_discard: Mapped<'a, FavourId, FavourCard>,
    pub mission_deck: usize,
    #[json(shared)]
    pub missions: Mapped<'a, MissionId, MissionCard>,
    pub pinecone: u8,
    pub paws: &'a [u8],
    pub seats: Vec<PlayerView<'a>>,
    pub game_over: bool,
}

/// The most carded mice a table holds: every mouse card of every seat.
pub(super) const MAX_CARDED_MICE: usize = MAX_PLAYERS as usize * MICE.len();

/// The carded mice standing on the clock's rings ([`Hickory::ring_mice`]), sorted by [`RingMice::key`] and, on one
/// space, in priority order then in the order of [`MICE`]: the `inner` and `outer` lists of the view's spaces.
#[derive(Clone, Copy, Debug)]
pub(super) struct RingMice {
    len: usize,
    mice: [(u16, MouseRef); MAX_CARDED_MICE],
    /// How many of `mice` [`RingMice::take`] has passed.
    taken: usize,
}

impl RingMice {
    /// The sort key of a ring space: by number, the inner ring before the outer; none off the rings.
    pub(super) fn key(loc: Loc) -> Option<u16> {
        match loc {
            Loc::Inner(n) => Some(2 * u16::from(n)),
            Loc::Outer(n) => Some(2 * u16::from(n) + 1),
            Loc::Unplaced | Loc::Card | Loc::Hand => None,
        }
    }

    /// The mice on the ring space `loc`, in the view's order. The spaces must be asked in increasing order of
    /// key, as the view lists them (number by number, inner then outer): each answer starts where the last ended.
    pub(super) fn take(&mut self, loc: Loc) -> impl Iterator<Item = MouseRef> + '_ {
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

impl Hickory {
    pub(super) fn decision_view(&self, decision: &Decision, viewer: Viewer) -> DecisionView {
        let seat = decision.seat();
        match decision {
            Decision::Place(s) => DecisionView::Place {
                seat,
                remaining: STARTING_MICE
                    .iter()
                    .copied()
                    .filter(|k| self.player(*s).mouse(*k).loc == Loc::Unplaced)
                    .collect(),
            },
            Decision::HandMouse(m) => DecisionView::HandMouse {
                seat,
                mouse: m.mouse,
                place: self
                    .hand
                    .iter()
                    .position(|x| x == m)
                    .expect("the mouse is on the hand"),
            },
            Decision::InnerRing(s, n) => DecisionView::InnerRing {
                seat,
                number: *n,
                mice: self
                    .player(*s)
                    .mice
                    .iter()
                    .filter(|m| m.loc == Loc::Inner(*n))
                    .map(|m| m.kind)
                    .collect(),
                must_board: self.blocked(*n),
            },
            Decision::Pending(Pending::Scurry { who, from }) => DecisionView::Scurry {
                seat,
                mouse: who.mouse,
                from: *from,
            },
            Decision::Pending(Pending::Act { who, token_used }) => DecisionView::Act {
                seat,
                mouse: who.mouse,
                number: match self.mouse(*who).loc {
                    Loc::Outer(n) => n,
                    _ => unreachable!("an acting mouse stands on the outer ring"),
                },
                token_used: *token_used,
            },
            Decision::Pending(Pending::SearchKeep { who, drawn, keep, .. }) => DecisionView::SearchKeep {
                seat,
                mouse: who.mouse,
                drawn: tiles(drawn),
                keep: *keep,
            },
            Decision::Pending(Pending::Delivery {
                who,
                favours,
                tiles: chosen,
            }) => DecisionView::Delivery {
                seat,
                mouse: who.mouse,
                tiles: tiles(chosen),
                favours_added: favours.len(),
                favours: (viewer == Viewer::Seat(who.seat))
                    .then(|| favours.iter().map(|&f| favour_card(f)).collect()),
            },
            Decision::Pending(Pending::Hunt { who, queue, .. }) => DecisionView::Hunt {
                seat,
                mouse: who.mouse,
                placing: piece_view(queue[0]),
                then: queue[1..].iter().map(|&p| piece_view(p)).collect(),
            },
        }
    }

    /// The carded mice on the clock's rings, found in one pass over the mice (a view lists them space by space;
    /// a pass per ring space was a quarter of building a view).
    pub(super) fn ring_mice(&self) -> RingMice {
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

    /// Whether `viewer` sees the favour cards in `seat`'s hand: their owner does, and everyone once the game
    /// is over.
    pub(super) fn shows_favours(&self, viewer: Viewer, seat: Seat) -> bool {
        viewer == Viewer::Seat(seat) || self.phase == Phase::Over
    }

    /// The state as `viewer` may see it ([`Game::view`]): the members every viewer shares (the long ones
    /// `#[json(shared)]`, written once for every viewer), then `viewer`'s own ([`Hickory::rebind_view_of`]).
    pub(super) fn view_of(&self, viewer: Viewer) -> HickoryView<'_> {
        let mut ring = self.ring_mice();
        let mut view = HickoryView {
            viewer,
            rules_version: self.rules_version,
            player_count: self.players,
            hour: self.hour,
            minute: self.minute,
            priority: self.priority,
            decision: None,
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
            web_market: Mapped::new(&self.web_market, (), |&id, _, ()| tile(id)),
            bag: self.bag.len(),
            pantry: self.pantry.len(),
            relics_returned: self.cuckoo.len(),
            favour_deck: self.favour_deck.len(),
            favour_discard: Mapped::new(&self.favour_discard, (), |&f, _, ()| favour_card(f)),
            mission_deck: self.mission_deck.len(),
            missions: Mapped::new(&self.missions, (), |&m, _, ()| mission_card(m)),
            pinecone: self.pinecone,
            paws: &self.paws,
            seats: Seat::all(self.players)
                .map(|seat| {
                    let p = self.player(seat);
                    PlayerView {
                        seat,
                        score: p.points.total(),
                        points: p.points,
                        hunt_board: p.hunt_board,
                        hunt: HuntView {
                            board: p.hunt_board,
                            done: &p.hunt_done,
                        },
                        hunt_spaces_done: p.hunt_spaces_done(),
                        mice: mice_view(&p.mice),
                        scaler_link: p.scaler_link,
                        favour_count: p.favours.len(),
                        favours: None,
                        missions_done: Mapped::new(&p.missions_done, (), |&m, _, ()| mission_card(m)),
                    }
                })
                .collect(),
            game_over: self.phase == Phase::Over,
        };
        self.rebind_view_of(&mut view, viewer);
        view
    }

    /// Sets the members of `view` that differ from viewer to viewer to `viewer`'s ([`Game::rebind_view`]): the
    /// viewer, the decision (a delivery's favour cards) and whose favour cards show. Every other member is the
    /// same for every viewer.
    pub(super) fn rebind_view_of<'a>(&'a self, view: &mut HickoryView<'a>, viewer: Viewer) {
        view.viewer = viewer;
        view.decision = self.decision().map(|d| self.decision_view(&d, viewer));
        for p in &mut view.seats {
            p.favours = self
                .shows_favours(viewer, p.seat)
                .then(|| Mapped::new(&self.player(p.seat).favours, (), |&f, _, ()| favour_card(f)));
        }
    }
}
