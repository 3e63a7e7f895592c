//! Rules version 2 (issue 25): the Eeek! race as a game of spotting, judged by reaction time; version 3 (issue 43)
//! adds the reaction floor with drawn ties and late claims (a claim on a face-up card between windows opens a short
//! window on it), in the same code behind [`HideAndEeek::v3`].
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

    /// Version 3: the reaction floor with drawn ties, and late claims.
    pub(super) fn v3(&self) -> bool {
        self.rules_version >= 3
    }

    /// Version 3: the face-up cards any seat may claim late (outside a window), in row-major order.
    pub(super) fn face_up_cells(&self) -> impl Iterator<Item = Cell> + '_ {
        self.grid
            .iter()
            .enumerate()
            .filter(|(_, card)| card.is_some_and(|card| card.face_up))
            .map(|(i, _)| Cell::from_index(i))
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
        if seat == self.turn {
            self.each_turn_action(&mut f);
        }
        if self.v3() && !self.late_claimed.contains(&seat) {
            // Late spotting: every face-up card, mouse or not (the list must not tell which show one).
            self.face_up_cells().for_each(|cell| f(Action::Eeek { cell }));
        }
    }

    /// Checks an action of `seat` (a seat of the table; the clock's are checked before): an answer to the open
    /// window, a late claim (version 3), or a move of the turn.
    pub(super) fn check_v2(&self, seat: Seat, action: &Action) -> Result<(), Rejected> {
        match action {
            Action::CloseRace => return Err(Rejected::ClockOnly),
            Action::Eeek { .. } | Action::Pass => {
                let Some(look) = &self.look else {
                    return match action {
                        Action::Eeek { cell } if self.v3() => {
                            if self.late_claimed.contains(&seat) {
                                Err(Rejected::LateClaimMade)
                            } else if cell.on_grid() && self.card_at(*cell).is_some_and(|c| c.face_up) {
                                Ok(())
                            } else {
                                Err(Rejected::NotFaceUp(*cell))
                            }
                        }
                        _ => Err(Rejected::NoWindow),
                    };
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
            (Actor::Seat(seat), Action::Eeek { cell }) => {
                if self.look.is_none() {
                    // Version 3, a late claim: it opens a short window on that card, which it answers first.
                    self.late_claimed.push(seat);
                    self.open_look(vec![*cell], false, Some(seat), now, &mut events);
                }
                self.answer(seat, Some(*cell), now, &mut events)
            }
            (Actor::Seat(seat), Action::Pass) => self.answer(seat, None, now, &mut events),
            (Actor::Seat(seat), Action::Move { to }) => self.move_mouse(seat, *to, now, &mut events),
            (Actor::Seat(seat), Action::Choose { cell }) => {
                let card = self.card_at(*cell).expect("checked");
                if card.face_up {
                    // A card already showing is simply chosen and tested.
                    self.judge(seat, *cell, now, &mut events);
                } else {
                    // The card turns up: everyone looks at it before it is tested.
                    self.turn_up(seat, *cell, card.number, &mut events);
                    self.open_look(vec![*cell], true, None, now, &mut events);
                }
            }
            (Actor::Seat(seat), Action::Stop) => self.stop(seat, now, &mut events),
            (Actor::Clock, _) => unreachable!("checked"),
        }
        events
    }

    fn open_look(
        &mut self,
        cells: Vec<Cell>,
        during_turn: bool,
        late_by: Option<Seat>,
        now: Millis,
        events: &mut Vec<Event<EventBody>>,
    ) {
        let late = late_by.is_some();
        let length = if late {
            LATE_WINDOW_MS
        } else {
            self.config.claim_window_ms
        };
        let closes_at = now + Millis::from(length);
        events.push(Event::public(EventBody::LookOpened {
            cells: cells.clone(),
            closes_at,
            late_by,
        }));
        self.look = Some(Look {
            cells,
            opened_at: now,
            closes_at,
            during_turn,
            responses: Vec::new(),
            late,
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
    /// card without the mouse is false and costs the claimant their next turn. Version 3 judges a reaction faster
    /// than the floor as the floor, and draws the winner among equal judged reactions with the match's generator
    /// (version 2: the earlier arrival).
    fn close_look(&mut self, now: Millis, events: &mut Vec<Event<EventBody>>) {
        let look = self.look.take().expect("checked");
        let floor = self.config.reaction_floor_ms.map(Millis::from);
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
                    judged_ms: floor.map(|floor| r.reaction_ms.max(floor)),
                    tied: false,
                })
            })
            .collect();
        let judged = |c: &ClaimResult| c.judged_ms.unwrap_or(c.reaction_ms);
        // Earliest first; equal times keep arrival order.
        claims.sort_by_key(judged);
        for &cell in &look.cells {
            let right: Vec<usize> = (0..claims.len())
                .filter(|&i| claims[i].cell == cell && claims[i].mouse)
                .collect();
            let Some(&first) = right.first() else {
                continue;
            };
            let best = judged(&claims[first]);
            let equal: Vec<usize> = right
                .into_iter()
                .filter(|&i| judged(&claims[i]) == best)
                .collect();
            let winner = if self.v3() && equal.len() > 1 {
                for &i in &equal {
                    claims[i].tied = true;
                }
                equal[self.rng.index(equal.len())]
            } else {
                first
            };
            claims[winner].won = true;
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
        if look.late {
            // A late claim does not end the turn in progress: the winner takes the card now and plays once that
            // turn is over; its cell is refilled then.
            if let Some(winner) = winners.first() {
                self.take_claimed(winner.seat, winner.cell, events);
                if self.check_end(events) {
                    return;
                }
                self.owed_turns.push_back(winner.seat);
                self.late_gaps.push(winner.cell);
                // The claimed card may have been the last one the active player could choose.
                self.continue_or_end(now, events);
            }
        } else if look.during_turn {
            let cell = look.cells[0];
            let active = self.turn;
            match winners.first() {
                None => self.judge(active, cell, now, events),
                Some(winner) => {
                    // The turn ends: the cards it had set aside (all matched) are banked first, then the claimant
                    // takes the card on top of their pile and the next turn.
                    // Cards set aside before the mouse turned up reach the target first.
                    let Some(set_aside) = self.bank_set_aside(active, events) else {
                        return;
                    };
                    self.take_claimed(winner.seat, cell, events);
                    if self.check_end(events) {
                        return;
                    }
                    self.owed_turns.push_front(winner.seat);
                    let mut gaps = vec![cell];
                    gaps.extend(set_aside);
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
        let matched = self.fits(number);
        events.push(Event::public(EventBody::Judged {
            seat,
            cell,
            number,
            matched,
        }));
        self.keep_or_miss(seat, cell, number, matched, now, events);
    }

    /// Ends the current turn (or window between turns; see [`Self::finish_turn`]): refills the gaps; cards placed face up open a window;
    /// otherwise the next turn starts: an owed turn (a claim's, an extra turn) first, else normal order.
    pub(super) fn end_turn_v2(&mut self, gaps: &[Cell], now: Millis, events: &mut Vec<Event<EventBody>>) {
        // Version 3: the cells emptied by late claims during the turn are refilled after the turn's own.
        let mut gaps = gaps.to_vec();
        gaps.append(&mut self.late_gaps);
        let up = self.refill(&gaps, events);
        if self.check_end(events) {
            return;
        }
        if !up.is_empty() {
            self.open_look(up, false, None, now, events);
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
