//! What the New Year Puzzle keeps from everyone (`docs/rules/new-year-puzzle.md`): which card lies face down
//! where, and the order of the reward pile below its face-up top card.

use super::NewYearPuzzle;
use crate::model::Viewer;
use crate::rng::Rng;
use crate::secrets::{Allowed, HiddenOrder, Secrets, Twin, ViewSecret};

impl NewYearPuzzle {
    fn face_down_places(&self) -> Vec<usize> {
        (0..self.face_up.len()).filter(|&i| !self.face_up[i]).collect()
    }

    /// The reward pile without its top card, which lies face up.
    fn pile_below_top(&self) -> &[super::data::Reward] {
        &self.pile[..self.pile.len().saturating_sub(1)]
    }
}

impl Secrets for NewYearPuzzle {
    /// Everything is shuffled at setup; the state keeps no generator.
    fn rng_mut(&mut self) -> Option<&mut Rng> {
        None
    }

    fn hidden_orders(&self, _viewer: Viewer) -> Vec<HiddenOrder> {
        vec![HiddenOrder::of("reward pile", self.pile_below_top(), false)]
    }

    fn hidden_twins(&self) -> Vec<Twin<Self>> {
        let mut twins = Vec::new();
        if self.pile.len() > 2 {
            twins.push(Twin::hidden("the reward pile below its top", self, |s| {
                let top = s.pile.len() - 1;
                s.pile[..top].reverse();
            }));
        }
        let down = self.face_down_places();
        if down.len() >= 2 {
            twins.push(Twin::hidden("which face-down card lies where", self, |s| {
                s.board.swap(down[0], down[1])
            }));
        }
        twins
    }

    fn view_secrets(&self, _viewer: Viewer) -> Vec<ViewSecret> {
        self.face_down_places()
            .into_iter()
            .map(|i| {
                ViewSecret::new(
                    format!("face-down card {} at place {i}", self.board[i]),
                    format!("/board/{i}"),
                    Allowed::Null,
                    self.board[i],
                )
            })
            .collect()
    }
}
