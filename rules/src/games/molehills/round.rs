//! The round's structure: dealing the display at the start of a round, scoring it at its end, and the game's end.

use super::*;

impl Molehills {
    pub(super) fn start_round(&mut self, ev: &mut Events) {
        ev.push(Event::public(MolehillsEvent::RoundStarted {
            round: self.round,
            max_height: self.max_height() as u8,
        }));
        ev.push(Event::public(MolehillsEvent::TurnOrder {
            round: self.round,
            order: self.order.clone(),
        }));
        let need = CARDS_DEALT_PER_PLAYER * self.n();
        if self.deck.len() < need {
            // Unreachable with the published 120 cards (5 x 4 players x 6 rounds); kept so that a smaller deck
            // would reshuffle the discard pile under the remaining cards instead of failing (GAPS 001 Q5).
            let mut reshuffled = std::mem::take(&mut self.discard);
            self.rng.shuffle(&mut reshuffled);
            reshuffled.append(&mut self.deck);
            self.deck = reshuffled;
        }
        let dealt: Vec<CardId> = (0..need).filter_map(|_| self.deck.pop()).collect();
        self.display = dealt;
        ev.push(Event::public(MolehillsEvent::Dealt {
            cards: self.display.iter().map(|c| card_view(*c)).collect(),
        }));
        self.phase = Phase::Draft { picks: 0 };
    }

    pub(super) fn end_round(&mut self, ev: &mut Events) {
        let (points, tops) = self.control();
        self.round_scores.push(points.clone());
        for seat in 0..self.n() {
            self.discard.append(&mut self.revealed[seat]);
            self.plans[seat] = None;
        }
        ev.push(Event::public(MolehillsEvent::RoundScored {
            round: self.round,
            points,
            tops: tops.clone(),
            totals: self.totals(),
        }));
        if self.round == ROUNDS {
            self.phase = Phase::Over;
            let outcome = self.outcome().expect("over");
            ev.push(Event::public(MolehillsEvent::GameOver {
                totals: outcome.scores,
                placings: outcome.placings,
            }));
            return;
        }
        // Most pieces on top; ties go to the earlier seat in this round's turn order.
        let mut chooser = self.order[0];
        for seat in &self.order[1..] {
            if tops[seat.index()] > tops[chooser.index()] {
                chooser = *seat;
            }
        }
        ev.push(Event::public(MolehillsEvent::KingOfTheHill { seat: chooser }));
        self.phase = Phase::KingOfTheHill { chooser };
    }
}
