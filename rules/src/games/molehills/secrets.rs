//! What Mountains out of Molehills keeps from whom (`docs/rules/molehills.md`): the deck's order from everyone,
//! a seat's hand and its programmed stack from the other seats (until the stack's cards are revealed), and any
//! stack from spectators (a view shows only its own seat's stack).

use super::{Molehills, Phase};
use crate::model::{Seat, Viewer};
use crate::rng::Rng;
use crate::secrets::{Allowed, HiddenOrder, Secrets, Twin, ViewSecret, others};

impl Secrets for Molehills {
    fn rng_mut(&mut self) -> Option<&mut Rng> {
        Some(&mut self.rng)
    }

    fn hidden_orders(&self, viewer: Viewer) -> Vec<HiddenOrder> {
        let mut orders = vec![HiddenOrder::of("deck", &self.deck, false)];
        if self.phase == Phase::Planning {
            for seat in others(self.players, viewer) {
                if let Some(plan) = &self.plans[seat.index()]
                    && plan.len() >= 2
                {
                    orders.push(HiddenOrder::of(format!("{seat}'s plan"), plan, true));
                }
            }
        }
        orders
    }

    fn hidden_twins(&self) -> Vec<Twin<Self>> {
        let mut twins = vec![Twin::hidden("the deck's order", self, |s| s.deck.reverse())];
        for seat in Seat::all(self.players) {
            let i = seat.index();
            twins.push(Twin::known_to(format!("{seat}'s plan"), Some(seat), self, |s| {
                if let Some(plan) = &mut s.plans[i] {
                    plan.reverse();
                }
            }));
            // A card of the seat's hand swapped with the top of the deck (both hidden from the others).
            if !self.hands[i].is_empty() && !self.deck.is_empty() && self.plans[i].is_none() {
                twins.push(Twin::known_to(format!("{seat}'s hand"), Some(seat), self, |s| {
                    std::mem::swap(&mut s.hands[i][0], &mut s.deck[0])
                }));
            }
        }
        twins
    }

    fn view_secrets(&self, viewer: Viewer) -> Vec<ViewSecret> {
        let mut secrets: Vec<ViewSecret> = others(self.players, viewer)
            .map(|seat| {
                ViewSecret::new(
                    format!("{seat}'s hand"),
                    format!("/players/{}/cards", seat.0),
                    Allowed::Null,
                    &self.hands[seat.index()],
                )
            })
            .collect();
        match viewer {
            Viewer::Spectator => secrets.push(ViewSecret::new(
                "a stack shown to a spectator",
                "/your_stack",
                Allowed::Null,
                &self.plans,
            )),
            // A seat that has programmed no stack is shown none (another seat's would be a leak).
            Viewer::Seat(seat) if self.plans[seat.index()].is_none() => secrets.push(ViewSecret::new(
                format!("a stack shown to {seat}, who has none"),
                "/your_stack",
                Allowed::Null,
                &self.plans,
            )),
            Viewer::Seat(_) => {}
        }
        secrets
    }
}
