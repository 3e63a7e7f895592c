//! What a viewer sees: cards as shown (with their identity), the view types, and the view built from the state
//! for one viewer.

use super::*;
use json_write::Mapped;

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

// `#[json(shared)]`: the same for every viewer, written once for all of them (`json_write::Shared`). The lists
// are borrowed from the state and shown through a function as they are written (`Mapped`): built as `Vec`s, the
// 4-seat `server` run of `cargo bench -p rules --bench engines` took ~20 % longer. (Doc comments here are the
// JSON Schema's descriptions.)
/// One player as every viewer sees them.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema, json_write::WriteJson)]
pub struct PlayerView<'a> {
    pub seat: Seat,
    /// King of the Hill token held this round (1 plays first).
    pub token: u8,
    pub mole: Option<Mole>,
    pub supply: u8,
    pub score: i64,
    #[json(shared)]
    pub round_scores: Mapped<'a, Vec<i64>, i64, usize>,
    /// The cards the player drafted and has not yet revealed, by card id, never in stack order. Only in the
    /// player's own view: the seed keeps a hand "hidden from opponents" (GAPS 001 Q7), so everyone else gets
    /// `null` (hidden, not empty) and reads `hand_size`.
    pub cards: Option<Mapped<'a, CardId, CardView>>,
    /// How many cards the player holds.
    pub hand_size: usize,
    /// Has programmed their stack this round.
    pub planned: bool,
    /// Cards revealed this round, in the order played.
    #[json(shared)]
    pub revealed: Mapped<'a, CardId, CardView>,
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
    #[json(shared)]
    pub surface: &'a [Vec<Seat>],
    #[json(shared)]
    pub display: Mapped<'a, CardId, CardView>,
    pub deck_size: usize,
    pub discard_size: usize,
    /// The viewer's own programmed stack, cards not yet revealed, top first.
    pub your_stack: Option<Mapped<'a, CardId, CardView>>,
}

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

/// Cards as shown, in the order of their ids in `ids`, as they are written.
pub(super) fn card_views(ids: &[CardId]) -> Mapped<'_, CardId, CardView> {
    Mapped::new(ids, (), |&id, _, ()| card_view(id))
}

pub(super) fn card_view(id: CardId) -> CardView {
    match card_of(id) {
        Card::Move { steps } => CardView::Move { id, steps },
        Card::Turn { turn } => CardView::Turn { id, turn },
        Card::MoveTurn { steps, turn } => CardView::MoveTurn { id, steps, turn },
        Card::Rock => CardView::Rock { id },
    }
}

impl Molehills {
    /// Each seat's King of the Hill token (1 plays first), by seat: `order` read once for every seat.
    pub(super) fn tokens(&self) -> [u8; MAX_PLAYERS as usize] {
        let mut tokens = [0; MAX_PLAYERS as usize];
        for (i, seat) in self.order.iter().enumerate() {
            tokens[seat.index()] = i as u8 + 1;
        }
        tokens
    }

    /// The programmed stack `viewer` may see: its own, if it is a seat of this table that has programmed one.
    pub(super) fn own_plan(&self, viewer: Viewer) -> Option<&[CardId]> {
        match viewer {
            Viewer::Seat(seat) if seat.0 < self.players => self.plans[seat.index()].as_deref(),
            _ => None,
        }
    }

    /// The members every viewer shares (`#[json(shared)]` where they are long), then `viewer`'s own
    /// ([`Game::rebind_view`]).
    pub(super) fn view_of(&self, viewer: Viewer) -> MolehillsView<'_> {
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
                    round_scores,
                    cards: None,
                    hand_size: self.hands[s].len(),
                    planned: self.plans[s].is_some(),
                    revealed: card_views(&self.revealed[s]),
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
            surface: &self.stacks,
            display: card_views(&self.display),
            deck_size: self.deck.len(),
            discard_size: self.discard.len(),
            your_stack: None,
        };
        self.rebind_view_of(&mut view, viewer);
        view
    }

    /// Sets what differs from viewer to viewer: the viewer, its own hand (everyone else's stays hidden) and its
    /// programmed stack. Every other member is the same for every viewer.
    pub(super) fn rebind_view_of<'a>(&'a self, view: &mut MolehillsView<'a>, viewer: Viewer) {
        view.viewer = viewer;
        for (s, player) in view.players.iter_mut().enumerate() {
            player.cards = (viewer == Viewer::Seat(player.seat)).then(|| card_views(&self.hands[s]));
        }
        view.your_stack = self.own_plan(viewer).map(card_views);
    }
}
