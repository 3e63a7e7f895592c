//! Scoring piles: banking cards, the top card that higher/lower compares with, and the game's end.

use super::*;

impl HideAndEeek {
    /// The top of a seat's scoring pile.
    pub(super) fn top(&self, seat: Seat) -> Option<u8> {
        self.piles[seat.index()].last().copied()
    }

    /// What higher/lower compares with now.
    pub(super) fn baseline(&self) -> Option<u8> {
        match &self.step {
            TurnStep::Collect { collected } if !collected.is_empty() => collected.last().map(|&(_, n)| n),
            _ => self.top(self.turn),
        }
    }

    pub(super) fn bank(&mut self, seat: Seat, cards: Vec<u8>, events: &mut Vec<Event<EventBody>>) {
        if cards.is_empty() {
            return;
        }
        self.piles[seat.index()].extend(&cards);
        let pile_size = self.piles[seat.index()].len();
        events.push(Event::public(EventBody::Banked {
            seat,
            cards,
            pile_size,
        }));
    }

    pub(super) fn someone_won(&self) -> bool {
        self.piles.iter().any(|p| p.len() >= self.config.target as usize)
    }

    pub(super) fn grid_is_empty(&self) -> bool {
        self.grid.iter().all(Option::is_none)
    }

    /// Ends the game if a pile reached the target, or if no card is left to play for.
    pub(super) fn check_end(&mut self, events: &mut Vec<Event<EventBody>>) -> bool {
        if self.someone_won() || (self.grid_is_empty() && self.draw_pile.is_empty()) {
            self.over = true;
            self.race = None;
            self.look = None;
            let winners = self.outcome().map(|o| o.winners).unwrap_or_default();
            events.push(Event::public(EventBody::GameOver { winners }));
        }
        self.over
    }
}
