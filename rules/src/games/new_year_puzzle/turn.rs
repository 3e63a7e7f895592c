//! Applying an action already known to be legal: revealing a card (put in its place, or seen and turned back
//! or left exposed), stopping or passing, and the turn passing on.

use super::*;

impl NewYearPuzzle {
    pub(super) fn pass_turn(&mut self, events: &mut Vec<Event<PuzzleEvent>>) {
        self.turn = self.turn.next(self.players);
        self.extra_move = false;
        events.push(Event::public(PuzzleEvent::TurnPassed { seat: self.turn }));
    }

    pub(super) fn reveal(&mut self, seat: Seat, from: u8) -> Vec<Event<PuzzleEvent>> {
        let mut events = Vec::new();
        let card = self.board[from as usize];
        let success = self.fits(card, from);
        self.passes = 0;
        self.resolve_pending(seat, success, &mut events);
        if !success {
            // Shown to everyone, then face down again where it lay (GAPS Q7). From version 2, a card everyone had
            // already seen stays face up instead (issue 25 point 7: failing on purpose is bounded).
            let seen_before = self.sighting_at(from);
            let exposed = self.v2() && seen_before.is_some();
            if let Some(i) = seen_before {
                self.seen.remove(i);
            }
            if exposed {
                let at = self.exposed.binary_search(&from).unwrap_err();
                self.exposed.insert(at, from);
            } else {
                self.seen.push(Sighting { position: from, card });
            }
            events.push(Event::public(PuzzleEvent::Failed {
                seat,
                position: from,
                card,
                exposed,
            }));
            self.pass_turn(&mut events);
            return events;
        }
        // The card goes to its own place; whatever lay there (face down, or exposed: GAPS Q11) takes the freed
        // spot, and what everyone knows of it goes along.
        self.board.swap(from as usize, card as usize);
        self.face_up[card as usize] = true;
        self.placed[seat.index()] += 1;
        self.seen.retain(|s| s.position != from);
        for s in &mut self.seen {
            if s.position == card {
                s.position = from;
            }
        }
        let displaced_exposed = self.is_exposed(card);
        self.exposed.retain(|p| *p != from && *p != card);
        if displaced_exposed && from != card {
            let at = self.exposed.binary_search(&from).unwrap_err();
            self.exposed.insert(at, from);
        }
        events.push(Event::public(PuzzleEvent::Placed {
            seat,
            from,
            card,
            swapped: from != card,
        }));
        let ends_turn = self.take_reward(seat, card, &mut events);
        if self.face_up.iter().all(|up| *up) {
            self.over = true;
            self.extra_move = false;
            for pending in std::mem::take(&mut self.pending) {
                events.push(Event::public(PuzzleEvent::BonusLapsed {
                    seat: pending.seat,
                    reward: pending.reward,
                }));
            }
            events.push(Event::public(PuzzleEvent::GameOver {
                scores: self.scores.clone(),
            }));
        } else if ends_turn {
            self.pass_turn(&mut events);
        } else {
            self.extra_move = true;
            events.push(Event::public(PuzzleEvent::ExtraMove { seat }));
        }
        events
    }

    /// Applies `action`, already checked, for `seat`.
    pub(super) fn perform(&mut self, seat: Seat, action: &PuzzleAction) -> Vec<Event<PuzzleEvent>> {
        match *action {
            PuzzleAction::Reveal { position } => self.reveal(seat, position),
            PuzzleAction::Stop if self.extra_move => {
                let mut events = vec![Event::public(PuzzleEvent::Stopped { seat })];
                self.pass_turn(&mut events);
                events
            }
            PuzzleAction::Stop => {
                // A pass (version 2), counted so that a whole round of passes forces the next seat to reveal.
                self.passes += 1;
                let mut events = vec![Event::public(PuzzleEvent::Passed { seat })];
                self.pass_turn(&mut events);
                events
            }
        }
    }
}
