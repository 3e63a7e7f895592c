//! What Hide and Eeek! keeps from everyone (`docs/rules/hide-and-eeek.md`): the numbers of face-down cards and
//! the order of the draw pile. Nobody holds private cards, so every viewer is kept from the same things.

use super::HideAndEeek;
use super::data::{GRID_CELLS, GRID_SIZE};
use crate::model::Viewer;
use crate::rng::Rng;
use crate::secrets::{Allowed, HiddenOrder, Secrets, Twin, ViewSecret};

impl HideAndEeek {
    /// The cells of face-down cards, row-major.
    fn face_down_cells(&self) -> Vec<usize> {
        (0..GRID_CELLS)
            .filter(|&i| self.grid[i].is_some_and(|c| !c.face_up))
            .collect()
    }
}

impl Secrets for HideAndEeek {
    fn rng_mut(&mut self) -> Option<&mut Rng> {
        Some(&mut self.rng)
    }

    fn hidden_orders(&self, _viewer: Viewer) -> Vec<HiddenOrder> {
        vec![HiddenOrder::of("draw pile", &self.draw_pile, false)]
    }

    fn hidden_twins(&self) -> Vec<Twin<Self>> {
        let mut twins = vec![Twin::hidden("the draw pile's order", self, |s| {
            s.draw_pile.make_contiguous().reverse()
        })];
        let down = self.face_down_cells();
        fn number(s: &mut HideAndEeek, i: usize) -> &mut u8 {
            &mut s.grid[i].as_mut().expect("a card lies there").number
        }
        if down.len() >= 2 {
            twins.push(Twin::hidden("which face-down card lies where", self, |s| {
                let a = *number(s, down[0]);
                let b = std::mem::replace(number(s, down[1]), a);
                *number(s, down[0]) = b;
            }));
        }
        if !down.is_empty() && !self.draw_pile.is_empty() {
            twins.push(Twin::hidden("a face-down card's number", self, |s| {
                let a = *number(s, down[0]);
                let b = std::mem::replace(&mut s.draw_pile[0], a);
                *number(s, down[0]) = b;
            }));
        }
        twins
    }

    fn view_secrets(&self, _viewer: Viewer) -> Vec<ViewSecret> {
        let size = usize::from(GRID_SIZE);
        self.face_down_cells()
            .into_iter()
            .map(|i| {
                let number = self.grid[i].expect("a card lies there").number;
                ViewSecret::new(
                    format!("face-down card {number} at cell {i}"),
                    format!("/grid/{}/{}/number", i / size, i % size),
                    Allowed::Absent,
                    number,
                )
            })
            .collect()
    }
}
