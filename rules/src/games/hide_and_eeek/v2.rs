//! Rules version 2 (issue 25): the Eeek! race as a game of spotting, judged by reaction time.
//!
//! Every card that turns face up on the grid opens a window (`Look`): the card the active player turns over while
//! collecting, or the cards a refill places face up. Nothing in the view says whether a card shows the mouse: the
//! client draws the camouflaged mouse from the number, and the players must spot it. Until the window closes each
//! seat may answer once, with a claim on one of the window's cards or a pass; answers stay hidden until the close.
//! The window closes at its deadline, or as soon as every seat has answered. Then the earliest claim (by reaction
//! time, the claim's time less the window's opening time: the server passes a claim's time so that this is the
//! reaction it measured, from the push leaving it to the claim arriving less the connection's round trip; see
//! "How a reaction is measured" in `docs/rules/hide-and-eeek.md`) on a card that shows the mouse wins it; a claim
//! on a card without the mouse makes the claimant miss their next turn. The winner takes the card on top of their
//! pile and the next turn; normal order then resumes where it was. See `docs/rules/hide-and-eeek.md`.

use super::data::*;
use super::*;

impl HideAndEeek {
    pub(super) fn v2(&self) -> bool {
        self.rules_version >= 2
    }

    /// The open window, if `seat` has not answered it yet.
    pub(super) fn unanswered_look(&self, seat: Seat) -> Option<&Look> {
        self.look
            .as_ref()
            .filter(|look| !look.responses.iter().any(|r| r.seat == seat))
    }

    pub(super) fn each_legal_action_v2(&self, seat: Seat, mut f: impl FnMut(Action)) {
        if self.look.is_some() {
            if let Some(look) = self.unanswered_look(seat) {
                for &cell in &look.cells {
                    f(Action::Eeek { cell });
                }
                f(Action::Pass);
            }
            return;
        }
        if seat != self.turn {
            return;
        }
        match &self.step {
            TurnStep::Move => {
                for &to in Self::reachable(self.mouse, self.roll.steps).iter() {
                    f(Action::Move { to });
                }
            }
            TurnStep::Collect { collected } => {
                self.choosable().for_each(|cell| f(Action::Choose { cell }));
                if !collected.is_empty() {
                    f(Action::Stop);
                }
            }
        }
    }

    pub(super) fn check_v2(&self, actor: Actor, action: &Action, now: Millis) -> Result<(), Rejected> {
        let seat = match actor {
            Actor::Clock => {
                return match (action, &self.look) {
                    (Action::CloseRace, Some(look)) if look.closes_at <= now => Ok(()),
                    _ => Err(Rejected::NotDue),
                };
            }
            Actor::Seat(seat) if seat.0 >= self.players => return Err(Rejected::NoSuchSeat(seat)),
            Actor::Seat(seat) => seat,
        };
        match action {
            Action::CloseRace => return Err(Rejected::ClockOnly),
            Action::Eeek { .. } | Action::Pass => {
                let Some(look) = &self.look else {
                    return Err(Rejected::NoWindow);
                };
                if self.unanswered_look(seat).is_none() {
                    return Err(Rejected::AlreadyAnswered);
                }
                if let Action::Eeek { cell } = action
                    && !look.cells.contains(cell)
                {
                    return Err(Rejected::NotJustTurnedUp(*cell));
                }
                return Ok(());
            }
            _ => {}
        }
        self.check_turn(seat, action, self.look.is_some())
    }

    pub(super) fn do_apply_v2(
        &mut self,
        actor: Actor,
        action: &Action,
        now: Millis,
    ) -> Vec<Event<EventBody>> {
        let mut events = Vec::new();
        match (actor, action) {
            (_, Action::CloseRace) => self.close_look(now, &mut events),
            (Actor::Seat(seat), Action::Eeek { cell }) => self.answer(seat, Some(*cell), now, &mut events),
            (Actor::Seat(seat), Action::Pass) => self.answer(seat, None, now, &mut events),
            (Actor::Seat(seat), Action::Move { to }) => {
                let from = self.mouse;
                self.mouse = *to;
                self.step = TurnStep::Collect {
                    collected: Vec::new(),
                };
                events.push(Event::public(EventBody::Moved { seat, from, to: *to }));
                if self.choosable().next().is_none() {
                    // Only when the draw pile has run dry can the mouse land next to nothing.
                    self.step = TurnStep::Move;
                    self.end_turn_v2(&[], now, &mut events);
                }
            }
            (Actor::Seat(seat), Action::Choose { cell }) => {
                let card = self.card_at(*cell).expect("checked");
                if card.face_up {
                    // A card already showing is simply chosen and tested.
                    self.judge(seat, *cell, now, &mut events);
                } else {
                    // The card turns up: everyone looks at it before it is tested.
                    self.grid[cell.index()] = Some(GridCard {
                        number: card.number,
                        face_up: true,
                    });
                    events.push(Event::public(EventBody::Chosen {
                        seat,
                        cell: *cell,
                        number: card.number,
                        matched: None,
                    }));
                    self.open_look(vec![*cell], true, now, &mut events);
                }
            }
            (Actor::Seat(seat), Action::Stop) => {
                let TurnStep::Collect { collected } = std::mem::replace(&mut self.step, TurnStep::Move)
                else {
                    unreachable!("checked")
                };
                self.bank(seat, collected.iter().map(|&(_, n)| n).collect(), &mut events);
                if !self.check_end(&mut events) {
                    let gaps: Vec<Cell> = collected.iter().map(|&(c, _)| c).collect();
                    self.end_turn_v2(&gaps, now, &mut events);
                }
            }
            (Actor::Clock, _) => unreachable!("checked"),
        }
        events
    }

    fn open_look(
        &mut self,
        cells: Vec<Cell>,
        during_turn: bool,
        now: Millis,
        events: &mut Vec<Event<EventBody>>,
    ) {
        let closes_at = now + Millis::from(self.config.claim_window_ms);
        events.push(Event::public(EventBody::LookOpened {
            cells: cells.clone(),
            closes_at,
        }));
        self.look = Some(Look {
            cells,
            opened_at: now,
            closes_at,
            during_turn,
            responses: Vec::new(),
        });
    }

    fn answer(&mut self, seat: Seat, claim: Option<Cell>, now: Millis, events: &mut Vec<Event<EventBody>>) {
        let look = self.look.as_mut().expect("checked");
        look.responses.push(Response {
            seat,
            claim,
            reaction_ms: now.saturating_sub(look.opened_at),
        });
        let everyone = look.responses.len() == usize::from(self.players);
        events.push(Event::public(EventBody::Responded { seat }));
        if everyone {
            self.close_look(now, events);
        }
    }

    /// Judges the window's claims: per card, the earliest claim wins it if it shows the mouse; every claim on a
    /// card without the mouse is false and costs the claimant their next turn.
    fn close_look(&mut self, now: Millis, events: &mut Vec<Event<EventBody>>) {
        let look = self.look.take().expect("checked");
        let mut claims: Vec<ClaimResult> = look
            .responses
            .iter()
            .filter_map(|r| {
                let cell = r.claim?;
                let number = self
                    .card_at(cell)
                    .expect("a window's card stays until it closes")
                    .number;
                Some(ClaimResult {
                    seat: r.seat,
                    cell,
                    number,
                    reaction_ms: r.reaction_ms,
                    mouse: shows_mouse(number),
                    won: false,
                })
            })
            .collect();
        // Earliest first; equal times keep arrival order.
        claims.sort_by_key(|c| c.reaction_ms);
        let mut taken: Vec<Cell> = Vec::new();
        for c in claims.iter_mut() {
            if c.mouse && !taken.contains(&c.cell) {
                c.won = true;
                taken.push(c.cell);
            }
        }
        events.push(Event::public(EventBody::LookClosed {
            cells: look.cells.clone(),
            claims: claims.clone(),
        }));
        for c in claims.iter().filter(|c| !c.mouse) {
            let skips = &mut self.skips[c.seat.index()];
            *skips = skips.saturating_add(1);
            events.push(Event::public(EventBody::FalseClaim {
                seat: c.seat,
                cell: c.cell,
                skips: *skips,
            }));
        }
        let winners: Vec<&ClaimResult> = claims.iter().filter(|c| c.won).collect();
        if look.during_turn {
            let cell = look.cells[0];
            let active = self.turn;
            match winners.first() {
                None => self.judge(active, cell, now, events),
                Some(winner) => {
                    // The turn ends: the cards it had set aside (all matched) are banked first, then the claimant
                    // takes the card on top of their pile and the next turn.
                    let collected = match std::mem::replace(&mut self.step, TurnStep::Move) {
                        TurnStep::Collect { collected } => collected,
                        TurnStep::Move => Vec::new(),
                    };
                    self.bank(active, collected.iter().map(|&(_, n)| n).collect(), events);
                    // Cards set aside before the mouse turned up reach the target first.
                    if self.check_end(events) {
                        return;
                    }
                    self.take_claimed(winner.seat, cell, events);
                    if self.check_end(events) {
                        return;
                    }
                    self.owed_turns.push_front(winner.seat);
                    let mut gaps = vec![cell];
                    gaps.extend(collected.iter().map(|&(c, _)| c));
                    self.end_turn_v2(&gaps, now, events);
                }
            }
        } else {
            // The earliest claim first: if it reaches the target, the game ends there.
            for w in &winners {
                self.take_claimed(w.seat, w.cell, events);
                if self.check_end(events) {
                    return;
                }
            }
            // The earliest claimant plays first; then the others; then whatever was owed before.
            for w in winners.iter().rev() {
                self.owed_turns.push_front(w.seat);
            }
            let gaps: Vec<Cell> = winners.iter().map(|w| w.cell).collect();
            self.end_turn_v2(&gaps, now, events);
        }
    }

    fn take_claimed(&mut self, seat: Seat, cell: Cell, events: &mut Vec<Event<EventBody>>) {
        let number = self.card_at(cell).expect("a window's card").number;
        self.grid[cell.index()] = None;
        self.piles[seat.index()].push(number);
        events.push(Event::public(EventBody::Claimed { seat, cell, number }));
    }

    /// Tests the chosen card at `cell` (face up now) against the category die.
    fn judge(&mut self, seat: Seat, cell: Cell, now: Millis, events: &mut Vec<Event<EventBody>>) {
        let number = self.card_at(cell).expect("checked").number;
        let baseline = self
            .baseline()
            .expect("a scoring pile is never empty: it starts with a card and only grows");
        let matched = self.roll.category.accepts(number, baseline);
        events.push(Event::public(EventBody::Judged {
            seat,
            cell,
            number,
            matched,
        }));
        let TurnStep::Collect { collected } = &mut self.step else {
            unreachable!("a card is chosen while collecting")
        };
        if matched {
            self.grid[cell.index()] = None;
            collected.push((cell, number));
            self.continue_or_end_v2(now, events);
        } else {
            let lost: Vec<(Cell, u8)> = std::mem::take(collected);
            self.step = TurnStep::Move;
            let face_up = self.roll.arrow == Arrow::Up;
            self.grid[cell.index()] = Some(GridCard { number, face_up });
            events.push(Event::public(EventBody::LeftInGrid { cell, face_up }));
            if !lost.is_empty() {
                self.draw_pile.extend(lost.iter().map(|&(_, n)| n));
                events.push(Event::public(EventBody::Lost {
                    seat,
                    cards: lost.iter().map(|&(_, n)| n).collect(),
                }));
            }
            let gaps: Vec<Cell> = lost.iter().map(|&(c, _)| c).collect();
            self.end_turn_v2(&gaps, now, events);
        }
    }

    /// The active player may go on only if a card is left to choose; otherwise the turn ends here (with an extra
    /// turn if every neighbour was taken).
    fn continue_or_end_v2(&mut self, now: Millis, events: &mut Vec<Event<EventBody>>) {
        if self.choosable().next().is_some() {
            return;
        }
        let TurnStep::Collect { collected } = std::mem::replace(&mut self.step, TurnStep::Move) else {
            unreachable!("collecting")
        };
        let seat = self.turn;
        let all_taken = !collected.is_empty() && self.mouse.neighbours().all(|c| self.card_at(c).is_none());
        self.bank(seat, collected.iter().map(|&(_, n)| n).collect(), events);
        if self.check_end(events) {
            return;
        }
        if all_taken {
            events.push(Event::public(EventBody::ExtraTurn { seat }));
            self.owed_turns.push_front(seat);
        }
        let gaps: Vec<Cell> = collected.iter().map(|&(c, _)| c).collect();
        self.end_turn_v2(&gaps, now, events);
    }

    /// Ends the current turn (or window between turns): refills the gaps; cards placed face up open a window;
    /// otherwise the next turn starts: an owed turn (a claim's, an extra turn) first, else normal order.
    fn end_turn_v2(&mut self, gaps: &[Cell], now: Millis, events: &mut Vec<Event<EventBody>>) {
        let up = self.refill(gaps, events);
        if self.check_end(events) {
            return;
        }
        if !up.is_empty() {
            self.open_look(up, false, now, events);
            return;
        }
        let (seat, extra) = match self.owed_turns.pop_front() {
            Some(seat) => (seat, true),
            None => loop {
                // Normal order; a seat that owes a missed turn for a false claim is passed over once. Every pass
                // pays one off, so this ends.
                let seat = self.order_next.expect("version 2 keeps the order");
                self.order_next = Some(seat.next(self.players));
                if self.skips[seat.index()] > 0 {
                    self.skips[seat.index()] -= 1;
                    events.push(Event::public(EventBody::TurnMissed { seat }));
                    continue;
                }
                break (seat, false);
            },
        };
        self.start_turn(seat, extra, events);
    }
}
