//! What Hickory Dickory keeps from whom (`docs/rules/hickory-dickory.md`): the order of the bag, of the favour
//! deck and of the mission deck from everyone, and each seat's favour cards from the others until the end.

use super::{Hickory, Phase};
use crate::model::{Seat, Viewer};
use crate::rng::Rng;
use crate::secrets::{Allowed, HiddenOrder, Secrets, Twin, ViewSecret, others};

impl Secrets for Hickory {
    fn rng_mut(&mut self) -> Option<&mut Rng> {
        Some(&mut self.rng)
    }

    fn hidden_orders(&self, _viewer: Viewer) -> Vec<HiddenOrder> {
        vec![
            HiddenOrder::of("favour deck", &self.favour_deck, false),
            HiddenOrder::of("mission deck", &self.mission_deck, false),
        ]
    }

    fn hidden_twins(&self) -> Vec<Twin<Self>> {
        let mut twins = vec![
            Twin::hidden("the bag's order", self, |s| s.bag.reverse()),
            Twin::hidden("the favour deck's order", self, |s| s.favour_deck.reverse()),
            Twin::hidden("the mission deck's order", self, |s| s.mission_deck.reverse()),
        ];
        // A favour card of a seat's hand swapped with the top of the favour deck, before the end reveals hands.
        if self.phase != Phase::Over {
            for seat in Seat::all(self.players) {
                let i = seat.index();
                if !self.seats[i].favours.is_empty() && !self.favour_deck.is_empty() {
                    twins.push(Twin::known_to(
                        format!("{seat}'s favour cards"),
                        Some(seat),
                        self,
                        |s| std::mem::swap(&mut s.seats[i].favours[0], &mut s.favour_deck[0]),
                    ));
                }
            }
        }
        twins
    }

    fn view_secrets(&self, viewer: Viewer) -> Vec<ViewSecret> {
        if self.phase == Phase::Over {
            return Vec::new();
        }
        others(self.players, viewer)
            .map(|seat| {
                ViewSecret::new(
                    format!("{seat}'s favour cards"),
                    format!("/seats/{}/favours", seat.0),
                    Allowed::Null,
                    &self.seats[seat.index()].favours,
                )
            })
            .collect()
    }
}
