//! What Quacks keeps from whom (`docs/rules/quacks.md`): the fortune deck's order and the order of every bag
//! (a bag has none: its chips are drawn by the generator) from everyone; a seat's bag as it stands, the chips it
//! is looking at and its secret round-9 commitment from the other seats.

use super::Quacks;
use crate::model::Viewer;
use crate::rng::Rng;
use crate::secrets::{Allowed, HiddenOrder, Secrets, Twin, ViewSecret, others};

impl Secrets for Quacks {
    fn rng_mut(&mut self) -> Option<&mut Rng> {
        Some(&mut self.rng)
    }

    fn hidden_orders(&self, _viewer: Viewer) -> Vec<HiddenOrder> {
        vec![HiddenOrder::of("fortune deck", &self.deck, false)]
    }

    fn hidden_twins(&self) -> Vec<Twin<Self>> {
        vec![
            Twin::hidden("the fortune deck's order", self, |s| s.deck.reverse()),
            Twin::hidden("the order of every bag", self, |s| {
                for p in &mut s.players {
                    p.bag.reverse();
                }
            }),
        ]
    }

    fn view_secrets(&self, viewer: Viewer) -> Vec<ViewSecret> {
        let mut secrets = Vec::new();
        for seat in others(self.n(), viewer) {
            let p = &self.players[seat.index()];
            let i = seat.0;
            secrets.push(ViewSecret::new(
                format!("{seat}'s bag"),
                format!("/players/{i}/bag"),
                Allowed::Null,
                &p.bag,
            ));
            secrets.push(ViewSecret::new(
                format!("{seat}'s looking_at"),
                format!("/players/{i}/looking_at"),
                Allowed::Null,
                &p.aside,
            ));
            secrets.push(ViewSecret::new(
                format!("{seat}'s commitment"),
                format!("/players/{i}/commitment"),
                Allowed::Null,
                p.commitment,
            ));
        }
        secrets
    }
}
