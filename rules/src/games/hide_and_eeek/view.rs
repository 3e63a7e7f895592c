//! What a viewer sees: the grid's cells as shown, the piles, the open window, and the view built from the state
//! (the same for every viewer).

use super::*;
use json_write::Mapped;

/// An open window as every viewer sees it: who has answered, not what.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema, json_write::WriteJson)]
pub struct LookView {
    pub cells: Vec<Cell>,
    pub opened_at: Millis,
    pub closes_at: Millis,
    pub during_turn: bool,
    pub responded: Vec<Seat>,
    /// Version 3: a late window (opened by a claim on a card already face up; its claimant answered first).
    #[serde(skip_serializing_if = "is_false")]
    pub late: bool,
}

/// A grid position as a viewer sees it.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema, json_write::WriteJson,
)]
#[serde(tag = "card", rename_all = "snake_case")]
pub enum CellView {
    Empty,
    FaceDown,
    /// `mouse`: version 1 only. Version 2 shows the card as a player sees it, its number, and the client draws
    /// the camouflaged mouse from the number: spotting it is the game.
    FaceUp {
        number: u8,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        mouse: Option<bool>,
    },
}

/// What every viewer sees of a grid position holding `card` (`shows_mouse`: rules version 1, which tells
/// whether a face-up card is a mouse).
pub(super) fn cell_view(card: &Option<GridCard>, _col: usize, shows_mouse_too: bool) -> CellView {
    match card {
        None => CellView::Empty,
        Some(card) if card.face_up => CellView::FaceUp {
            number: card.number,
            mouse: shows_mouse_too.then(|| shows_mouse(card.number)),
        },
        Some(_) => CellView::FaceDown,
    }
}

/// One seat's public information.
#[derive(
    Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema, json_write::WriteJson,
)]
pub struct PileView {
    pub cards: usize,
    pub top: Option<u8>,
}

/// The grid as a viewer sees it: one list per row (each row a list of its cells), borrowed from the state and
/// shown through [`cell_view`] as it is written: built as `Vec`s, the 4-seat `server` run of `cargo bench -p rules
/// --bench engines` took ~10 % longer.
pub type GridView<'a> = Mapped<'a, u8, Mapped<'a, Option<GridCard>, CellView, bool>, &'a HideAndEeek>;

/// The rows' numbers, what [`GridView`] maps to rows.
pub(super) const ROWS: [u8; GRID_SIZE as usize] = {
    let mut rows = [0; GRID_SIZE as usize];
    let mut row = 0;
    while row < rows.len() {
        rows[row] = row as u8;
        row += 1;
    }
    rows
};

/// What one viewer may know. Identical for every viewer: this game has no private hands, only face-down cards
/// and the draw pile, which nobody may see.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema, json_write::WriteJson)]
pub struct View<'a> {
    /// How many seats the match has.
    pub player_count: u8,
    pub target: u8,
    /// The grid, row by row from the top, each row its cells from the left.
    pub grid: GridView<'a>,
    pub mouse: Cell,
    pub draw_pile: usize,
    pub piles: Vec<PileView>,
    pub turn: Seat,
    pub roll: Roll,
    pub step: &'a TurnStep,
    pub race: Option<&'a Race>,
    /// Version 2: the open Eeek! window.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub look: Option<LookView>,
    pub owed_turns: &'a VecDeque<Seat>,
    /// Version 2: turns each seat must miss for false claims.
    #[serde(skip_serializing_if = "<[u8]>::is_empty")]
    pub skips: &'a [u8],
    /// The card that higher/lower compares with now (the top of the scoring pile, or the last card chosen).
    pub baseline: Option<u8>,
    pub over: bool,
}

impl HideAndEeek {
    /// The grid as every viewer sees it.
    pub(super) fn grid_view(&self) -> GridView<'_> {
        Mapped::new(&ROWS, self, |&row, _, game| {
            let start = row as usize * GRID_SIZE as usize;
            let cards = &game.grid[start..start + GRID_SIZE as usize];
            Mapped::new(cards, !game.v2(), cell_view)
        })
    }

    /// The view's `baseline`: none once the game is over.
    pub(super) fn shown_baseline(&self) -> Option<u8> {
        if self.over { None } else { self.baseline() }
    }

    /// The view every viewer gets ([`Game::view`]).
    pub(super) fn view_of(&self) -> View<'_> {
        View {
            player_count: self.players,
            target: self.config.target,
            grid: self.grid_view(),
            mouse: self.mouse,
            draw_pile: self.draw_pile.len(),
            piles: self
                .piles
                .iter()
                .map(|p| PileView {
                    cards: p.len(),
                    top: p.last().copied(),
                })
                .collect(),
            turn: self.turn,
            roll: self.roll,
            step: &self.step,
            race: self.race.as_ref(),
            look: self.look.as_ref().map(|l| LookView {
                cells: l.cells.clone(),
                opened_at: l.opened_at,
                closes_at: l.closes_at,
                during_turn: l.during_turn,
                responded: l.responses.iter().map(|r| r.seat).collect(),
                late: l.late,
            }),
            owed_turns: &self.owed_turns,
            skips: &self.skips,
            baseline: self.shown_baseline(),
            over: self.over,
        }
    }
}
