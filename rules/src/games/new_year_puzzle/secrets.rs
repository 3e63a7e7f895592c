//! What the New Year Puzzle keeps from everyone (`docs/rules/new-year-puzzle.md`): which card lies face down
//! where, and the order of the reward pile (below its face-up top card in rules version 1; all of it from
//! version 2, where the pile lies face down).

use super::NewYearPuzzle;
use crate::model::Viewer;
use crate::rng::Rng;
use crate::secrets::{Allowed, HiddenOrder, Secrets, Twin, ViewSecret};

impl NewYearPuzzle {
    fn face_down_places(&self) -> Vec<usize> {
        (0..self.face_up.len())
            .filter(|&i| self.face_down(i as u8))
            .collect()
    }

    /// The part of the reward pile nobody sees: all of it when it lies face down, else all but its top card.
    pub(super) fn pile_hidden(&self) -> &[super::data::Reward] {
        if self.v2() {
            &self.pile
        } else {
            &self.pile[..self.pile.len().saturating_sub(1)]
        }
    }
}

impl Secrets for NewYearPuzzle {
    /// Everything is shuffled at setup; the state keeps no generator.
    fn rng_mut(&mut self) -> Option<&mut Rng> {
        None
    }

    fn hidden_orders(&self, _viewer: Viewer) -> Vec<HiddenOrder> {
        vec![HiddenOrder::of("reward pile", self.pile_hidden(), false)]
    }

    fn hidden_twins(&self) -> Vec<Twin<Self>> {
        let mut twins = Vec::new();
        let hidden = self.pile_hidden().len();
        if hidden >= 2 && self.pile_hidden().windows(2).any(|w| w[0] != w[1]) {
            twins.push(Twin::hidden(
                "the hidden part of the reward pile",
                self,
                move |s| {
                    s.pile[..hidden].reverse();
                },
            ));
        }
        // Two face-down cards nobody has seen change places (cards everyone has seen are remembered, if not
        // shown; when fewer than two are unseen, any two face-down cards).
        let down = self.face_down_places();
        let unseen: Vec<usize> = down
            .iter()
            .copied()
            .filter(|p| self.seen.iter().all(|s| s.position as usize != *p))
            .collect();
        let pair = if unseen.len() >= 2 { unseen } else { down };
        if pair.len() >= 2 {
            twins.push(Twin::hidden("which face-down card lies where", self, |s| {
                s.board.swap(pair[0], pair[1])
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
