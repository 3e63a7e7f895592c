//! The JSON text the server writes after every action, written by hand: the view (`Game::view_text`, straight
//! from the state), each seat's legal actions (`Game::legal_actions_text`), the action as the log keeps it
//! (`Game::action_text`) and each event (`Game::event_text`).
//!
//! The server writes every seat's view and the spectators' after every action. Serde's derived serialisation of
//! [`HickoryView`] was ~85 % of the server's instructions for this game: the view is large (~10 kB at four seats:
//! sixteen hunt-board spaces, four mice and their tiles per seat, twelve clock spaces), serde escapes every key as
//! it writes it, and the flattened members (a tile's kind, a hunt space's wish, the decision's step) go through
//! serde's map serialiser, one buffered entry at a time. Here the text is written in one pass into one string: the
//! keys as constant text, numbers by hand, and every card and tile, and the fixed
//! beginnings of every clock space, mouse and hunt-board row, as the text serde itself wrote for them once
//! ([`Texts`]). The legal actions, the action and the events are written the same way (an action holds only unit
//! enums and small numbers; the tiles and cards of an event come from the same table): through serde they cost
//! ~4,000 more instructions per action (callgrind, the engines bench's `server` path: 98,716 -> 94,696 at three
//! seats, 162,453 -> 158,571 at four). A tile, card or mission in an event that is not the one its id names, and
//! a reason that would need escaping, fall back to serde's text for that piece.
//!
//! Every text must be byte for byte serde's text of the typed value (members in declaration order, compact, the
//! same tag and rename rules): the registry's `json_text_is_the_same_value_as_the_value_path` checks all four
//! through whole random games, and this game's own `view_text_is_serdes_text_of_the_view` and
//! `legal_action_and_event_texts_are_serdes_text_through_random_games` check more games, for every viewer and
//! seat; `texts_are_serdes_text` checks every action and event variant, fallbacks included. What each viewer
//! may see is decided by the same code as the typed view ([`Hickory::shows_favours`], [`Hickory::step_view`]).

use std::sync::OnceLock;

use super::*;
use crate::json_text::{push_array, push_bool, push_number, push_seat, push_serde, push_small, push_viewer};

/// Serde's JSON text of every card and tile a view can show, and the fixed beginnings of its clock spaces, mice
/// and hunt-board rows, made once. Taking serde's own text for these (the members with tags and flattened fields)
/// means the writer below never restates serde's rules for them, and writes most of a view in few large pieces.
struct Texts {
    /// By [`TileId`].
    tiles: Vec<String>,
    /// By [`FavourId`].
    favours: Vec<String>,
    /// By [`MissionId`].
    missions: Vec<String>,
    /// A [`SpaceView`] up to its `tile`: `{"number":N,"face":F,"token":T,"paw":B,"tile":`, by
    /// [`Texts::space_index`].
    space_heads: Vec<String>,
    /// A [`MouseView`] up to its `tiles`: `{"mouse":M,"loc":L,"capacity":C,"tiles":`, by [`Texts::mouse_index`]
    /// (every location a `u8` can number).
    mouse_heads: Vec<String>,
    /// A row of a hunt board (`[HuntSpaceView; 4]`), by [`Texts::hunt_index`].
    hunt_rows: Vec<String>,
}

/// Every token face and action token, in declaration order (`as usize` indexes them; checked by the tests).
pub(super) const FACES: [TokenFace; 3] = [TokenFace::Numbered, TokenFace::Sun, TokenFace::Moon];
pub(super) const TOKENS: [ActionKind; 6] = [
    ActionKind::Climb,
    ActionKind::Delivery,
    ActionKind::CuckooDoor,
    ActionKind::Search,
    ActionKind::Exchange,
    ActionKind::Favour,
];

/// Every location of a mouse, in the order of [`Texts::loc_index`].
fn all_locs() -> impl Iterator<Item = Loc> {
    [Loc::Unplaced, Loc::Card, Loc::Hand]
        .into_iter()
        .chain((0..=u8::MAX).flat_map(|n| [Loc::Inner(n), Loc::Outer(n)]))
}

/// Serde's text of `value`.
fn json(value: &impl Serialize) -> String {
    serde_json::to_string(value).expect("plain data serialises to JSON")
}

/// Serde's text of `value` without `tail`, the text of the members the writer adds itself (written empty here).
fn head(value: &impl Serialize, tail: &str) -> String {
    let text = json(value);
    match text.strip_suffix(tail) {
        Some(head) => head.to_string(),
        None => panic!("{text} ends in {tail}"),
    }
}

impl Texts {
    fn get() -> &'static Texts {
        static TEXTS: OnceLock<Texts> = OnceLock::new();
        TEXTS.get_or_init(|| {
            let mut space_heads = Vec::new();
            for number in 1..=NUMBERS {
                for face in FACES {
                    for token in TOKENS {
                        for paw in [false, true] {
                            let space = SpaceView {
                                number,
                                face,
                                token,
                                paw,
                                tile: None,
                                inner: vec![],
                                outer: vec![],
                            };
                            space_heads.push(head(&space, r#"null,"inner":[],"outer":[]}"#));
                        }
                    }
                }
            }
            let mut mouse_heads = Vec::new();
            for mouse in MICE {
                for loc in all_locs() {
                    let view = MouseView {
                        mouse,
                        loc,
                        capacity: mouse.capacity(),
                        tiles: vec![],
                    };
                    mouse_heads.push(head(&view, "[]}"));
                }
            }
            let mut hunt_rows = Vec::new();
            for board in &HUNT_BOARDS {
                for row in board {
                    for done in 0..1 << HUNT_SIZE {
                        let spaces: Vec<HuntSpaceView> = (0..HUNT_SIZE)
                            .map(|c| HuntSpaceView {
                                space: row[c],
                                done: done & (1 << c) != 0,
                            })
                            .collect();
                        hunt_rows.push(json(&spaces));
                    }
                }
            }
            Texts {
                tiles: (0..TILE_COUNT).map(|id| json(&tile(id))).collect(),
                favours: (0..FAVOURS.len() as u8)
                    .map(|id| json(&favour_card(id)))
                    .collect(),
                missions: (0..MISSIONS.len() as u8)
                    .map(|id| json(&mission_card(id)))
                    .collect(),
                space_heads,
                mouse_heads,
                hunt_rows,
            }
        })
    }

    fn space_index(number: u8, face: TokenFace, token: ActionKind, paw: bool) -> usize {
        ((usize::from(number - 1) * FACES.len() + face as usize) * TOKENS.len() + token as usize) * 2
            + usize::from(paw)
    }

    fn loc_index(loc: Loc) -> usize {
        match loc {
            Loc::Unplaced => 0,
            Loc::Card => 1,
            Loc::Hand => 2,
            Loc::Inner(n) => 3 + 2 * usize::from(n),
            Loc::Outer(n) => 4 + 2 * usize::from(n),
        }
    }

    fn mouse_index(kind: MouseKind, loc: Loc) -> usize {
        /// Locations a mouse can be at: three off the rings, then both rings at every `u8` (see [`all_locs`]).
        const LOCS: usize = 3 + 2 * (u8::MAX as usize + 1);
        mouse_index(kind) * LOCS + Self::loc_index(loc)
    }

    /// Bit `c` of the row's mask is whether column `c` is done.
    fn hunt_index(board: u8, row: usize, done: &[bool; HUNT_SIZE]) -> usize {
        let mask = done
            .iter()
            .enumerate()
            .fold(0, |mask, (c, d)| mask | usize::from(*d) << c);
        (usize::from(board) * HUNT_SIZE + row) * (1 << HUNT_SIZE) + mask
    }

    fn tile(&self, id: TileId) -> &str {
        &self.tiles[usize::from(id)]
    }
    fn favour(&self, id: FavourId) -> &str {
        &self.favours[usize::from(id)]
    }
    fn mission(&self, id: MissionId) -> &str {
        &self.missions[usize::from(id)]
    }
}

// The unit enums as serde writes them (`rename_all = "snake_case"`, quotes included). The test
// `unit_enum_texts_are_serdes` compares every variant with serde's text.

pub(super) fn mouse_text(kind: MouseKind) -> &'static str {
    match kind {
        MouseKind::Scurrier => r#""scurrier""#,
        MouseKind::Spotter => r#""spotter""#,
        MouseKind::Scavenger => r#""scavenger""#,
        MouseKind::Scamp => r#""scamp""#,
    }
}

pub(super) fn blocker_text(blocker: Blocker) -> &'static str {
    match blocker {
        Blocker::Small => r#""small""#,
        Blocker::Large => r#""large""#,
    }
}

/// A [`MouseRef`]: `{"seat":S,"mouse":M}`.
fn push_mouse_ref(out: &mut String, m: MouseRef) {
    out.push_str(r#"{"seat":"#);
    push_number(out, m.seat.0);
    out.push_str(r#","mouse":"#);
    out.push_str(mouse_text(m.mouse));
    out.push('}');
}

/// A [`Breakdown`]: `{"deliveries":D,"relics":R,"missions":M,"chain":C,"hunt_lines":H,"leftovers":L}`.
fn push_breakdown(out: &mut String, b: &Breakdown) {
    out.push_str(r#"{"deliveries":"#);
    push_number(out, b.deliveries);
    out.push_str(r#","relics":"#);
    push_number(out, b.relics);
    out.push_str(r#","missions":"#);
    push_number(out, b.missions);
    out.push_str(r#","chain":"#);
    push_number(out, b.chain);
    out.push_str(r#","hunt_lines":"#);
    push_number(out, b.hunt_lines);
    out.push_str(r#","leftovers":"#);
    push_number(out, b.leftovers);
    out.push('}');
}

/// A [`Tile`] value: the table's text when it is the tile its id names (every tile the engine builds is), serde's
/// otherwise.
fn push_tile(out: &mut String, texts: &Texts, t: &Tile) {
    if t.id < TILE_COUNT && t.kind == tile_kind(t.id) {
        out.push_str(texts.tile(t.id));
    } else {
        push_serde(out, t);
    }
}

/// A [`FavourCard`] value: the table's text when it is the card its id names, serde's otherwise.
fn push_favour(out: &mut String, texts: &Texts, c: &FavourCard) {
    if usize::from(c.id) < FAVOURS.len() && *c == favour_card(c.id) {
        out.push_str(texts.favour(c.id));
    } else {
        push_serde(out, c);
    }
}

/// A [`MissionCard`] value: the table's text when it is the card its id names, serde's otherwise (its name is
/// the only text in an event that may need escaping, and the table's is serde's).
fn push_mission(out: &mut String, texts: &Texts, m: &MissionCard) {
    let printed = MISSIONS.get(usize::from(m.id));
    if printed.is_some_and(|p| p.name == m.name && p.requirement == m.requirement && p.points == m.points) {
        out.push_str(texts.mission(m.id));
    } else {
        push_serde(out, m);
    }
}

/// A string member: as it is between quotes when serde would not escape any of it (no control character, quote
/// or backslash), serde's text otherwise.
fn push_string(out: &mut String, s: &str) {
    if s.bytes().all(|b| b >= 0x20 && b != b'"' && b != b'\\') {
        out.push('"');
        out.push_str(s);
        out.push('"');
    } else {
        push_serde(out, &s);
    }
}

/// The members of a [`PieceView`] (internally tagged by `piece`), without the braces: as they appear flattened
/// into [`HickoryEvent::HuntMarked`].
fn push_piece_members(out: &mut String, texts: &Texts, piece: &PieceView) {
    match piece {
        PieceView::Tile { tile } => {
            out.push_str(r#""piece":"tile","tile":"#);
            push_tile(out, texts, tile);
        }
        PieceView::Favour { card } => {
            out.push_str(r#""piece":"favour","card":"#);
            push_favour(out, texts, card);
        }
    }
}

/// A [`PieceView`].
fn push_piece(out: &mut String, texts: &Texts, piece: &PieceView) {
    out.push('{');
    push_piece_members(out, texts, piece);
    out.push('}');
}

/// The members of a [`StepView`] as they appear flattened into [`DecisionView`]: the `step` tag first, then the
/// variant's fields, without the braces.
fn push_step_members(out: &mut String, texts: &Texts, step: &StepView) {
    let tiles =
        |out: &mut String, ids: &[Tile]| push_array(out, ids, |out, t| out.push_str(texts.tile(t.id)));
    let favours = |out: &mut String, cards: &[FavourCard]| {
        push_array(out, cards, |out, c| out.push_str(texts.favour(c.id)))
    };
    match step {
        StepView::Place { remaining } => {
            out.push_str(r#""step":"place","remaining":"#);
            push_array(out, remaining, |out, m| out.push_str(mouse_text(*m)));
        }
        StepView::HandMouse { mouse, place } => {
            out.push_str(r#""step":"hand_mouse","mouse":"#);
            out.push_str(mouse_text(*mouse));
            out.push_str(r#","place":"#);
            push_number(out, *place);
        }
        StepView::InnerRing { number, mice } => {
            out.push_str(r#""step":"inner_ring","number":"#);
            push_number(out, *number);
            out.push_str(r#","mice":"#);
            push_array(out, mice, |out, m| out.push_str(mouse_text(*m)));
        }
        StepView::Scurry { mouse, from } => {
            out.push_str(r#""step":"scurry","mouse":"#);
            out.push_str(mouse_text(*mouse));
            out.push_str(r#","from":"#);
            push_number(out, *from);
        }
        StepView::Act {
            mouse,
            number,
            token_used,
        } => {
            out.push_str(r#""step":"act","mouse":"#);
            out.push_str(mouse_text(*mouse));
            out.push_str(r#","number":"#);
            push_number(out, *number);
            out.push_str(r#","token_used":"#);
            push_bool(out, *token_used);
        }
        StepView::SearchKeep { mouse, drawn, keep } => {
            out.push_str(r#""step":"search_keep","mouse":"#);
            out.push_str(mouse_text(*mouse));
            out.push_str(r#","drawn":"#);
            tiles(out, drawn);
            out.push_str(r#","keep":"#);
            push_number(out, *keep);
        }
        StepView::Delivery {
            mouse,
            favours_added,
            favours: cards,
        } => {
            out.push_str(r#""step":"delivery","mouse":"#);
            out.push_str(mouse_text(*mouse));
            out.push_str(r#","favours_added":"#);
            push_number(out, *favours_added);
            out.push_str(r#","favours":"#);
            match cards {
                Some(cards) => favours(out, cards),
                None => out.push_str("null"),
            }
        }
        StepView::Hunt { mouse, placing, then } => {
            out.push_str(r#""step":"hunt","mouse":"#);
            out.push_str(mouse_text(*mouse));
            out.push_str(r#","placing":"#);
            push_piece(out, texts, placing);
            out.push_str(r#","then":"#);
            push_array(out, then, |out, p| push_piece(out, texts, p));
        }
    }
}

impl Hickory {
    /// The JSON text of [`Game::view`] for `viewer`, exactly as serde's derived serialisation of [`HickoryView`]
    /// writes it, member by member in [`HickoryView`]'s order (see the module's comment). The decision is built
    /// as the typed view builds it ([`Hickory::step_view`]: it is small, and what the viewer may see of a
    /// delivery is decided there) and then written by hand.
    pub(super) fn view_json_text(&self, viewer: Viewer) -> String {
        let texts = Texts::get();
        // One allocation for the whole view: the longest seen in random games were ~5, 7.8, 9.2 and 11.4 kB at one
        // to four seats.
        let mut out = String::with_capacity(3072 + 2560 * usize::from(self.players));
        out.push_str(r#"{"viewer":"#);
        push_viewer(&mut out, viewer);
        out.push_str(r#","players":"#);
        push_number(&mut out, self.players);
        out.push_str(r#","hour":"#);
        push_number(&mut out, self.hour);
        out.push_str(r#","minute":"#);
        push_number(&mut out, self.minute);
        out.push_str(r#","priority":"#);
        push_number(&mut out, self.priority.0);
        out.push_str(r#","decision":"#);
        match self.decision() {
            Some(d) => {
                out.push_str(r#"{"seat":"#);
                push_number(&mut out, d.seat().0);
                out.push(',');
                push_step_members(&mut out, texts, &self.step_view(&d, viewer));
                out.push('}');
            }
            None => out.push_str("null"),
        }
        out.push_str(r#","blockers":"#);
        push_array(&mut out, blockers(self.players), |out, b| {
            out.push_str(blocker_text(*b))
        });
        out.push_str(r#","hand_capacity":"#);
        push_number(&mut out, self.hand_capacity());
        out.push_str(r#","hand":"#);
        push_array(&mut out, &self.hand, |out, m| push_mouse_ref(out, *m));
        out.push_str(r#","spaces":"#);
        let mut ring = self.ring_mice();
        push_array(&mut out, 1..=NUMBERS, |out, n| {
            let s = self.space(n);
            let paw = self.paws.contains(&n);
            out.push_str(&texts.space_heads[Texts::space_index(n, s.face, s.token, paw)]);
            out.push_str(s.tile.map_or("null", |t| texts.tile(t)));
            out.push_str(r#","inner":"#);
            push_array(out, ring.take(Loc::Inner(n)), push_mouse_ref);
            out.push_str(r#","outer":"#);
            push_array(out, ring.take(Loc::Outer(n)), push_mouse_ref);
            out.push('}');
        });
        out.push_str(r#","web_wilds":"#);
        push_number(&mut out, self.web_wilds.len());
        out.push_str(r#","web_market":"#);
        push_array(&mut out, &self.web_market, |out, t| out.push_str(texts.tile(*t)));
        out.push_str(r#","bag":"#);
        push_number(&mut out, self.bag.len());
        out.push_str(r#","pantry":"#);
        push_number(&mut out, self.pantry.len());
        out.push_str(r#","favour_deck":"#);
        push_number(&mut out, self.favour_deck.len());
        out.push_str(r#","favour_discard":"#);
        push_array(&mut out, &self.favour_discard, |out, f| {
            out.push_str(texts.favour(*f))
        });
        out.push_str(r#","mission_deck":"#);
        push_number(&mut out, self.mission_deck.len());
        out.push_str(r#","missions":"#);
        push_array(&mut out, &self.missions, |out, m| out.push_str(texts.mission(*m)));
        out.push_str(r#","pinecone":"#);
        push_number(&mut out, self.pinecone);
        out.push_str(r#","paws":"#);
        push_array(&mut out, &self.paws, |out, n| push_number(out, *n));
        out.push_str(r#","seats":"#);
        push_array(&mut out, Seat::all(self.players), |out, seat| {
            self.push_player(out, texts, viewer, seat)
        });
        out.push_str(r#","game_over":"#);
        push_bool(&mut out, self.phase == Phase::Over);
        out.push('}');
        out
    }

    /// One [`PlayerView`].
    fn push_player(&self, out: &mut String, texts: &Texts, viewer: Viewer, seat: Seat) {
        let p = self.player(seat);
        out.push_str(r#"{"seat":"#);
        push_number(out, seat.0);
        out.push_str(r#","score":"#);
        push_number(out, p.points.total());
        out.push_str(r#","points":"#);
        push_breakdown(out, &p.points);
        out.push_str(r#","hunt_board":"#);
        push_number(out, p.hunt_board);
        out.push_str(r#","hunt":"#);
        push_array(out, 0..HUNT_SIZE, |out, r| {
            out.push_str(&texts.hunt_rows[Texts::hunt_index(p.hunt_board, r, &p.hunt_done[r])]);
        });
        out.push_str(r#","hunt_spaces_done":"#);
        push_number(out, p.hunt_spaces_done());
        out.push_str(r#","mice":"#);
        push_array(out, &p.mice, |out, m| {
            out.push_str(&texts.mouse_heads[Texts::mouse_index(m.kind, m.loc)]);
            push_array(out, &m.tiles, |out, t| out.push_str(texts.tile(*t)));
            out.push('}');
        });
        out.push_str(r#","scaler_link":"#);
        push_number(out, p.scaler_link);
        out.push_str(r#","favour_count":"#);
        push_number(out, p.favours.len());
        out.push_str(r#","favours":"#);
        if self.shows_favours(viewer, seat) {
            push_array(out, &p.favours, |out, f| out.push_str(texts.favour(*f)));
        } else {
            out.push_str("null");
        }
        out.push_str(r#","missions_done":"#);
        push_array(out, &p.missions_done, |out, m| out.push_str(texts.mission(*m)));
        out.push('}');
    }
}

/// Appends an action's text (internally tagged by `type`; every member a unit enum or a small number).
fn push_action(out: &mut String, action: &HickoryAction) {
    use HickoryAction as A;
    match action {
        A::Place { mouse, space } => {
            out.push_str(r#"{"type":"place","mouse":"#);
            out.push_str(mouse_text(*mouse));
            out.push_str(r#","space":"#);
            push_small(out, *space);
        }
        A::Stay => out.push_str(r#"{"type":"stay""#),
        A::HopOff => out.push_str(r#"{"type":"hop_off""#),
        A::StepOut { mouse } => {
            out.push_str(r#"{"type":"step_out","mouse":"#);
            out.push_str(mouse_text(*mouse));
        }
        A::Board { mouse } => {
            out.push_str(r#"{"type":"board","mouse":"#);
            out.push_str(mouse_text(*mouse));
        }
        A::Scurry { steps } => {
            out.push_str(r#"{"type":"scurry","steps":"#);
            push_small(out, *steps);
        }
        A::Climb => out.push_str(r#"{"type":"climb""#),
        A::Deliver => out.push_str(r#"{"type":"deliver""#),
        A::Search => out.push_str(r#"{"type":"search""#),
        A::TakeFavour => out.push_str(r#"{"type":"take_favour""#),
        A::Swap { give, take } => {
            out.push_str(r#"{"type":"swap","give":"#);
            push_small(out, *give);
            out.push_str(r#","take":"#);
            push_small(out, *take);
        }
        A::BuyWild { pay } => {
            out.push_str(r#"{"type":"buy_wild","pay":"#);
            push_array(out, pay, |out, &t| push_small(out, t));
        }
        A::CallScamp { space } => {
            out.push_str(r#"{"type":"call_scamp","space":"#);
            push_small(out, *space);
        }
        A::PlayFavour { card } => {
            out.push_str(r#"{"type":"play_favour","card":"#);
            push_small(out, *card);
        }
        A::Keep { tile } => {
            out.push_str(r#"{"type":"keep","tile":"#);
            push_small(out, *tile);
        }
        A::AddFavour { card } => {
            out.push_str(r#"{"type":"add_favour","card":"#);
            push_small(out, *card);
        }
        A::FinishDelivery => out.push_str(r#"{"type":"finish_delivery""#),
        A::MarkHunt { row, col } => {
            out.push_str(r#"{"type":"mark_hunt","row":"#);
            push_small(out, *row);
            out.push_str(r#","col":"#);
            push_small(out, *col);
        }
        A::Done => out.push_str(r#"{"type":"done""#),
    }
    out.push('}');
}

/// An action's JSON text (`Game::action_text`), as serde writes it.
pub(super) fn action_json_text(action: &HickoryAction) -> String {
    let mut out = String::with_capacity(64);
    push_action(&mut out, action);
    out
}

/// An event's JSON text (`Game::event_text`; internally tagged by `type`), as serde writes it: the keys as
/// constant text, numbers by hand, and the tiles and cards it shows as the text serde wrote for them once
/// ([`Texts`]).
pub(super) fn event_json_text(event: &HickoryEvent) -> String {
    use HickoryEvent as E;
    let texts = Texts::get();
    let mut text = String::with_capacity(128);
    let out = &mut text;
    let tiles = |out: &mut String, tiles: &[Tile]| push_array(out, tiles, |out, t| push_tile(out, texts, t));
    let favours =
        |out: &mut String, cards: &[FavourCard]| push_array(out, cards, |out, c| push_favour(out, texts, c));
    match event {
        E::MousePlaced { seat, mouse, number } => {
            out.push_str(r#"{"type":"mouse_placed","seat":"#);
            push_seat(out, *seat);
            out.push_str(r#","mouse":"#);
            out.push_str(mouse_text(*mouse));
            out.push_str(r#","number":"#);
            push_small(out, *number);
        }
        E::MinuteHand { hour, minute } => {
            out.push_str(r#"{"type":"minute_hand","hour":"#);
            push_small(out, *hour);
            out.push_str(r#","minute":"#);
            push_small(out, *minute);
        }
        E::Stayed { seat, mouse } => {
            out.push_str(r#"{"type":"stayed","seat":"#);
            push_seat(out, *seat);
            out.push_str(r#","mouse":"#);
            out.push_str(mouse_text(*mouse));
        }
        E::HoppedOff { seat, mouse, number } => {
            out.push_str(r#"{"type":"hopped_off","seat":"#);
            push_seat(out, *seat);
            out.push_str(r#","mouse":"#);
            out.push_str(mouse_text(*mouse));
            out.push_str(r#","number":"#);
            push_small(out, *number);
        }
        E::SteppedOut { seat, mouse, number } => {
            out.push_str(r#"{"type":"stepped_out","seat":"#);
            push_seat(out, *seat);
            out.push_str(r#","mouse":"#);
            out.push_str(mouse_text(*mouse));
            out.push_str(r#","number":"#);
            push_small(out, *number);
        }
        E::Boarded { seat, mouse } => {
            out.push_str(r#"{"type":"boarded","seat":"#);
            push_seat(out, *seat);
            out.push_str(r#","mouse":"#);
            out.push_str(mouse_text(*mouse));
        }
        E::Scurried { seat, from, to } => {
            out.push_str(r#"{"type":"scurried","seat":"#);
            push_seat(out, *seat);
            out.push_str(r#","from":"#);
            push_small(out, *from);
            out.push_str(r#","to":"#);
            push_small(out, *to);
        }
        E::ScampCalled { seat, number } => {
            out.push_str(r#"{"type":"scamp_called","seat":"#);
            push_seat(out, *seat);
            out.push_str(r#","number":"#);
            push_small(out, *number);
        }
        E::TileCollected {
            seat,
            mouse,
            number,
            tile,
        } => {
            out.push_str(r#"{"type":"tile_collected","seat":"#);
            push_seat(out, *seat);
            out.push_str(r#","mouse":"#);
            out.push_str(mouse_text(*mouse));
            out.push_str(r#","number":"#);
            push_small(out, *number);
            out.push_str(r#","tile":"#);
            push_tile(out, texts, tile);
        }
        E::TileLeft {
            seat,
            mouse,
            number,
            reason,
        } => {
            out.push_str(r#"{"type":"tile_left","seat":"#);
            push_seat(out, *seat);
            out.push_str(r#","mouse":"#);
            out.push_str(mouse_text(*mouse));
            out.push_str(r#","number":"#);
            push_small(out, *number);
            out.push_str(r#","reason":"#);
            push_string(out, reason);
        }
        E::Climbed { seat, links, link } => {
            out.push_str(r#"{"type":"climbed","seat":"#);
            push_seat(out, *seat);
            out.push_str(r#","links":"#);
            push_small(out, *links);
            out.push_str(r#","link":"#);
            push_small(out, *link);
        }
        E::Summit {
            seat,
            points,
            pinecone,
        } => {
            out.push_str(r#"{"type":"summit","seat":"#);
            push_seat(out, *seat);
            out.push_str(r#","points":"#);
            push_number(out, *points);
            out.push_str(r#","pinecone":"#);
            push_small(out, *pinecone);
        }
        E::SearchDrawn {
            seat,
            mouse,
            tiles: drawn,
        } => {
            out.push_str(r#"{"type":"search_drawn","seat":"#);
            push_seat(out, *seat);
            out.push_str(r#","mouse":"#);
            out.push_str(mouse_text(*mouse));
            out.push_str(r#","tiles":"#);
            tiles(out, drawn);
        }
        E::SearchKept {
            seat,
            mouse,
            kept,
            returned,
        } => {
            out.push_str(r#"{"type":"search_kept","seat":"#);
            push_seat(out, *seat);
            out.push_str(r#","mouse":"#);
            out.push_str(mouse_text(*mouse));
            out.push_str(r#","kept":"#);
            tiles(out, kept);
            out.push_str(r#","returned":"#);
            tiles(out, returned);
        }
        E::Delivered {
            seat,
            mouse,
            tiles: delivered,
            favours: cards,
            points,
            relic_points,
        } => {
            out.push_str(r#"{"type":"delivered","seat":"#);
            push_seat(out, *seat);
            out.push_str(r#","mouse":"#);
            out.push_str(mouse_text(*mouse));
            out.push_str(r#","tiles":"#);
            tiles(out, delivered);
            out.push_str(r#","favours":"#);
            favours(out, cards);
            out.push_str(r#","points":"#);
            push_number(out, *points);
            out.push_str(r#","relic_points":"#);
            push_number(out, *relic_points);
        }
        E::HuntMarked {
            seat,
            row,
            col,
            piece,
        } => {
            out.push_str(r#"{"type":"hunt_marked","seat":"#);
            push_seat(out, *seat);
            out.push_str(r#","row":"#);
            push_small(out, *row);
            out.push_str(r#","col":"#);
            push_small(out, *col);
            out.push(',');
            push_piece_members(out, texts, piece);
        }
        E::MissionCompleted { seat, mission } => {
            out.push_str(r#"{"type":"mission_completed","seat":"#);
            push_seat(out, *seat);
            out.push_str(r#","mission":"#);
            push_mission(out, texts, mission);
        }
        E::MissionRevealed { mission } => {
            out.push_str(r#"{"type":"mission_revealed","mission":"#);
            push_mission(out, texts, mission);
        }
        E::Swapped {
            seat,
            mouse,
            gave,
            took,
        } => {
            out.push_str(r#"{"type":"swapped","seat":"#);
            push_seat(out, *seat);
            out.push_str(r#","mouse":"#);
            out.push_str(mouse_text(*mouse));
            out.push_str(r#","gave":"#);
            push_tile(out, texts, gave);
            out.push_str(r#","took":"#);
            push_tile(out, texts, took);
        }
        E::WildBought {
            seat,
            mouse,
            paid,
            wild,
        } => {
            out.push_str(r#"{"type":"wild_bought","seat":"#);
            push_seat(out, *seat);
            out.push_str(r#","mouse":"#);
            out.push_str(mouse_text(*mouse));
            out.push_str(r#","paid":"#);
            tiles(out, paid);
            out.push_str(r#","wild":"#);
            push_tile(out, texts, wild);
        }
        E::FavourTaken { seat } => {
            out.push_str(r#"{"type":"favour_taken","seat":"#);
            push_seat(out, *seat);
        }
        E::FavourDrawn { seat, card } => {
            out.push_str(r#"{"type":"favour_drawn","seat":"#);
            push_seat(out, *seat);
            out.push_str(r#","card":"#);
            push_favour(out, texts, card);
        }
        E::FavourPlayed { seat, card } => {
            out.push_str(r#"{"type":"favour_played","seat":"#);
            push_seat(out, *seat);
            out.push_str(r#","card":"#);
            push_favour(out, texts, card);
        }
        E::Foraged { seat, mouse, tile } => {
            out.push_str(r#"{"type":"foraged","seat":"#);
            push_seat(out, *seat);
            out.push_str(r#","mouse":"#);
            out.push_str(mouse_text(*mouse));
            out.push_str(r#","tile":"#);
            push_tile(out, texts, tile);
        }
        E::WildGifted { seat, mouse, wild } => {
            out.push_str(r#"{"type":"wild_gifted","seat":"#);
            push_seat(out, *seat);
            out.push_str(r#","mouse":"#);
            out.push_str(mouse_text(*mouse));
            out.push_str(r#","wild":"#);
            push_tile(out, texts, wild);
        }
        E::BagRefilled { tiles } => {
            out.push_str(r#"{"type":"bag_refilled","tiles":"#);
            push_number(out, *tiles);
        }
        E::MouseDone { seat, mouse } => {
            out.push_str(r#"{"type":"mouse_done","seat":"#);
            push_seat(out, *seat);
            out.push_str(r#","mouse":"#);
            out.push_str(mouse_text(*mouse));
        }
        E::HourStruck { hour } => {
            out.push_str(r#"{"type":"hour_struck","hour":"#);
            push_small(out, *hour);
        }
        E::PriorityPassed { seat } => {
            out.push_str(r#"{"type":"priority_passed","seat":"#);
            push_seat(out, *seat);
        }
        E::MiceSteppedDown { mice } => {
            out.push_str(r#"{"type":"mice_stepped_down","mice":"#);
            push_array(out, mice, |out, m| push_mouse_ref(out, *m));
        }
        E::PawsPlaced { numbers } => {
            out.push_str(r#"{"type":"paws_placed","numbers":"#);
            push_array(out, numbers, |out, &n| push_small(out, n));
        }
        E::ClockRefilled { tiles } => {
            out.push_str(r#"{"type":"clock_refilled","tiles":"#);
            push_array(out, tiles, |out, (number, tile)| {
                out.push('[');
                push_small(out, *number);
                out.push(',');
                push_tile(out, texts, tile);
                out.push(']');
            });
        }
        E::FavoursRevealed { hands } => {
            out.push_str(r#"{"type":"favours_revealed","hands":"#);
            push_array(out, hands, |out, hand| favours(out, hand));
        }
        E::GameEnded { scores } => {
            out.push_str(r#"{"type":"game_ended","scores":"#);
            push_array(out, scores, |out, s| {
                out.push_str(r#"{"seat":"#);
                push_seat(out, s.seat);
                out.push_str(r#","points":"#);
                push_breakdown(out, &s.points);
                out.push_str(r#","total":"#);
                push_number(out, s.total);
                out.push_str(r#","hunt_spaces":"#);
                push_number(out, s.hunt_spaces);
                out.push('}');
            });
        }
    }
    out.push('}');
    text
}

impl Hickory {
    /// `seat`'s legal actions (`Game::legal_actions_text`) as the JSON text of one array, exactly as serde writes
    /// [`Game::legal_actions`], each action written by hand.
    pub(super) fn legal_actions_json_text(&self, seat: Seat) -> String {
        let actions = self.legal(seat);
        // Room without growing: the longest actions (a placement) are 47 bytes.
        let mut out = String::with_capacity(2 + 48 * actions.len());
        push_array(&mut out, &actions, push_action);
        out
    }
}
