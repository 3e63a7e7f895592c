//! What a viewer sees: the view type and the view built from the state for one viewer.

use super::*;

/// What one viewer may know. The same for every viewer: everything in it is public.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema, json_write::WriteJson)]
pub struct PuzzleView<'a> {
    /// The viewer's seat, or null for a spectator.
    pub you: Option<Seat>,
    /// How many seats the match has.
    pub player_count: u8,
    /// The seat to act, or null once the game is over.
    pub turn: Option<Seat>,
    /// The rules version the match plays (see the rules page): 3 for every new match.
    pub rules_version: u32,
    /// Whether the seat to act is on an extra move (it may then also `stop`).
    pub extra_move: bool,
    /// Passes in a row since the last reveal (rules version 2); when it reaches `players - 1` the seat to act
    /// must reveal.
    pub passes: u8,
    /// The 64 positions, rows of eight, top left first: the card lying face up there, or null for a face-down
    /// card. A face-up card is in the picture (then it is the card that belongs there), unless its position is
    /// listed in `exposed`.
    pub board: Vec<Option<u8>>,
    /// Positions of exposed cards (rules version 2): face up but not in the picture, shown twice without fitting.
    /// Increasing order.
    pub exposed: &'a [u8],
    /// Face-down cards (neither in the picture nor exposed).
    pub face_down: usize,
    /// Whether the reward pile lies face up (rules version 1) or face down (version 2; GAPS Q4).
    pub pile_face_up: bool,
    /// The top card of the reward pile with its full text, when the pile lies face up; otherwise, or when the
    /// pile is empty, null. Its `copies` counts the deck of this match's rules version.
    pub pile_top: Option<RewardCard>,
    /// Cards left in the reward pile, the top one included.
    pub pile_left: usize,
    /// Each seat's points, by seat index.
    pub scores: &'a [i64],
    /// Square cards each seat has put into the picture (the tie-break).
    pub placed: &'a [u32],
    /// The reward cards each seat has collected, in the order drawn.
    pub rewards: &'a [Vec<Reward>],
    /// Conditions waiting for their drawer's next reveal.
    pub pending: &'a [Pending],
    pub outcome: Option<Outcome>,
}

impl NewYearPuzzle {
    /// The state as `viewer` may see it ([`Game::view`]).
    pub(super) fn view_of(&self, viewer: Viewer) -> PuzzleView<'_> {
        PuzzleView {
            you: match viewer {
                Viewer::Seat(seat) => Some(seat),
                Viewer::Spectator => None,
            },
            player_count: self.players,
            turn: (!self.over).then_some(self.turn),
            rules_version: self.rules_version,
            extra_move: self.extra_move,
            passes: self.passes,
            board: (0..CARDS as u8)
                .map(|p| (!self.face_down(p)).then_some(self.board[p as usize]))
                .collect(),
            exposed: &self.exposed,
            face_down: self.face_down_count(),
            pile_face_up: !self.v2(),
            pile_top: self
                .pile
                .last()
                .filter(|_| !self.v2())
                .map(|reward| reward.card().in_deck(self.rules_version)),
            pile_left: self.pile.len(),
            scores: &self.scores,
            placed: &self.placed,
            rewards: &self.rewards,
            pending: &self.pending,
            outcome: self.outcome(),
        }
    }
}
