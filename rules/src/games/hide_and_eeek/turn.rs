//! Applying an action already known to be legal (rules version 1, and the turn's moves of every version; version
//! 2's windows are in [`super::v2`]): moving the mouse figure, choosing and testing cards, stopping, claiming a
//! mouse card, and the turn's end with the refill.

use super::*;

impl HideAndEeek {
    pub(super) fn roll_dice(rng: &mut Rng) -> Roll {
        let face = MOVEMENT_DIE[rng.index(MOVEMENT_DIE.len())];
        let category = CATEGORY_DIE[rng.index(CATEGORY_DIE.len())];
        Roll {
            steps: face.steps,
            arrow: face.arrow,
            category,
        }
    }

    /// Fills `cells` (in order) from the top of the draw pile, turned as the arrow says. Returns the cells where
    /// a mouse card was placed face up (version 1) or every cell where a card was placed face up (version 2).
    pub(super) fn refill(&mut self, cells: &[Cell], events: &mut Vec<Event<EventBody>>) -> Vec<Cell> {
        let face_up = self.roll.arrow == Arrow::Up;
        let mut mice = Vec::new();
        for &cell in cells {
            if self.card_at(cell).is_some() {
                continue;
            }
            let Some(number) = self.draw_pile.pop_front() else {
                break;
            };
            self.grid[cell.index()] = Some(GridCard { number, face_up });
            events.push(Event::public(EventBody::Refilled {
                cell,
                face_up,
                number: face_up.then_some(number),
            }));
            if face_up && (self.v2() || shows_mouse(number)) {
                mice.push(cell);
            }
        }
        mice
    }

    /// Ends the current turn: refills the given gaps, then opens a race for a mouse placed face up or starts the
    /// next turn. `next` is who plays next unless a claim owes someone a turn.
    pub(super) fn end_turn(
        &mut self,
        gaps: &[Cell],
        next: Seat,
        extra: bool,
        now: Millis,
        events: &mut Vec<Event<EventBody>>,
    ) {
        let mice = self.refill(gaps, events);
        if self.check_end(events) {
            return;
        }
        let next = if extra {
            next
        } else {
            self.owed_turns.pop_front().unwrap_or(next)
        };
        self.start_turn(next, extra, events);
        if let Some(&cell) = mice.first() {
            self.open_race(cell, false, now, events);
        }
    }

    pub(super) fn start_turn(&mut self, seat: Seat, extra: bool, events: &mut Vec<Event<EventBody>>) {
        self.late_claimed.clear();
        self.turn = seat;
        self.roll = Self::roll_dice(&mut self.rng);
        self.step = TurnStep::Move;
        events.push(Event::public(EventBody::TurnStarted {
            seat,
            roll: self.roll,
            extra,
        }));
    }

    pub(super) fn open_race(
        &mut self,
        cell: Cell,
        during_turn: bool,
        now: Millis,
        events: &mut Vec<Event<EventBody>>,
    ) {
        let number = self.card_at(cell).expect("a mouse card lies there").number;
        let closes_at = now + Millis::from(self.config.claim_window_ms);
        self.race = Some(Race {
            cell,
            closes_at,
            during_turn,
        });
        events.push(Event::public(EventBody::RaceOpened {
            cell,
            number,
            closes_at,
        }));
    }

    /// The active player may go on only if a card is left to choose; otherwise the turn ends here (with an extra
    /// turn if every neighbour was taken). Both rules versions.
    pub(super) fn continue_or_end(&mut self, now: Millis, events: &mut Vec<Event<EventBody>>) {
        if !matches!(self.step, TurnStep::Collect { .. }) || self.choosable().next().is_some() {
            return;
        }
        let seat = self.turn;
        let all_taken = matches!(&self.step, TurnStep::Collect { collected } if !collected.is_empty())
            && self.mouse.neighbours().all(|c| self.card_at(c).is_none());
        let Some(gaps) = self.bank_set_aside(seat, events) else {
            return;
        };
        if all_taken {
            events.push(Event::public(EventBody::ExtraTurn { seat }));
        }
        self.finish_turn(seat, &gaps, all_taken, now, events);
    }

    /// Ends the collecting: the cards set aside this turn go onto `seat`'s pile, and the step is back to moving.
    /// Returns the cells they came from (gaps to refill), or `None` if that ended the game. Both rules versions.
    pub(super) fn bank_set_aside(
        &mut self,
        seat: Seat,
        events: &mut Vec<Event<EventBody>>,
    ) -> Option<Vec<Cell>> {
        let collected = match std::mem::replace(&mut self.step, TurnStep::Move) {
            TurnStep::Collect { collected } => collected,
            TurnStep::Move => Vec::new(),
        };
        self.bank(seat, collected.iter().map(|&(_, n)| n).collect(), events);
        if self.check_end(events) {
            return None;
        }
        Some(collected.iter().map(|&(c, _)| c).collect())
    }

    /// Ends `seat`'s turn with `gaps` to refill; `extra`: every card next to the mouse was taken, and the same
    /// seat plays again. Version 1 names who plays next ([`Self::end_turn`]); version 2 owes the extra turn and
    /// lets normal order decide the rest ([`Self::end_turn_v2`]).
    pub(super) fn finish_turn(
        &mut self,
        seat: Seat,
        gaps: &[Cell],
        extra: bool,
        now: Millis,
        events: &mut Vec<Event<EventBody>>,
    ) {
        if self.v2() {
            self.step = TurnStep::Move;
            if extra {
                self.owed_turns.push_front(seat);
            }
            self.end_turn_v2(gaps, now, events);
        } else {
            let next = if extra { seat } else { seat.next(self.players) };
            self.end_turn(gaps, next, extra, now, events);
        }
    }

    /// `seat` moves the mouse figure to `to`, then chooses cards next to it; if none is left there (only once
    /// the draw pile has run dry), the turn ends. Both rules versions.
    pub(super) fn move_mouse(
        &mut self,
        seat: Seat,
        to: Cell,
        now: Millis,
        events: &mut Vec<Event<EventBody>>,
    ) {
        let from = self.mouse;
        self.mouse = to;
        self.step = TurnStep::Collect {
            collected: Vec::new(),
        };
        events.push(Event::public(EventBody::Moved { seat, from, to }));
        if self.choosable().next().is_none() {
            self.finish_turn(seat, &[], false, now, events);
        }
    }

    /// `seat` stops and banks the cards set aside this turn, which ends it. Both rules versions.
    pub(super) fn stop(&mut self, seat: Seat, now: Millis, events: &mut Vec<Event<EventBody>>) {
        if let Some(gaps) = self.bank_set_aside(seat, events) {
            self.finish_turn(seat, &gaps, false, now, events);
        }
    }

    /// The card `seat` chose at `cell` turns face up for every seat to see, not yet tested. Both rules versions.
    pub(super) fn turn_up(&mut self, seat: Seat, cell: Cell, number: u8, events: &mut Vec<Event<EventBody>>) {
        self.grid[cell.index()] = Some(GridCard {
            number,
            face_up: true,
        });
        events.push(Event::public(EventBody::Chosen {
            seat,
            cell,
            number,
            matched: None,
        }));
    }

    /// Whether the card `number` fits the category die, compared with the baseline.
    pub(super) fn fits(&self, number: u8) -> bool {
        let baseline = self
            .baseline()
            .expect("a scoring pile is never empty: it starts with a card and only grows");
        self.roll.category.accepts(number, baseline)
    }

    /// After the chosen card at `cell` was tested (`matched`): a match is set aside and the turn goes on while a
    /// card is left to choose; a miss stays in the grid, turned as the arrow says, the cards set aside go to the
    /// bottom of the draw pile, and the turn ends. Both rules versions.
    pub(super) fn keep_or_miss(
        &mut self,
        seat: Seat,
        cell: Cell,
        number: u8,
        matched: bool,
        now: Millis,
        events: &mut Vec<Event<EventBody>>,
    ) {
        let TurnStep::Collect { collected } = &mut self.step else {
            unreachable!("a card is chosen while collecting")
        };
        if matched {
            self.grid[cell.index()] = None;
            collected.push((cell, number));
            self.continue_or_end(now, events);
        } else {
            let lost: Vec<(Cell, u8)> = std::mem::take(collected);
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
            self.finish_turn(seat, &gaps, false, now, events);
        }
    }

    pub(super) fn do_apply(&mut self, actor: Actor, action: &Action, now: Millis) -> Vec<Event<EventBody>> {
        if self.v2() {
            return self.do_apply_v2(actor, action, now);
        }
        let mut events = Vec::new();
        match (actor, action) {
            (_, Action::CloseRace) => {
                let race = self.race.take().expect("checked");
                events.push(Event::public(EventBody::RaceClosed { cell: race.cell }));
                if race.during_turn {
                    self.continue_or_end(now, &mut events);
                }
            }
            (Actor::Seat(seat), Action::Eeek { cell }) => self.claim(seat, *cell, now, &mut events),
            (Actor::Seat(seat), Action::Move { to }) => self.move_mouse(seat, *to, now, &mut events),
            (Actor::Seat(seat), Action::Choose { cell }) => self.choose(seat, *cell, now, &mut events),
            (Actor::Seat(seat), Action::Stop) => self.stop(seat, now, &mut events),
            (Actor::Clock, _) | (_, Action::Pass) => unreachable!("checked"),
        }
        events
    }

    pub(super) fn choose(&mut self, seat: Seat, cell: Cell, now: Millis, events: &mut Vec<Event<EventBody>>) {
        let number = self.card_at(cell).expect("checked").number;
        if shows_mouse(number) {
            // Eeek! The card stays face up where it lies and every seat may claim it.
            self.turn_up(seat, cell, number, events);
            self.open_race(cell, true, now, events);
            return;
        }
        let matched = self.fits(number);
        events.push(Event::public(EventBody::Chosen {
            seat,
            cell,
            number,
            matched: Some(matched),
        }));
        self.keep_or_miss(seat, cell, number, matched, now, events);
    }

    /// A claim wins the card and the next turn, after which play continues to the claimant's left. A claim during
    /// a window interrupts the turn in progress: the cards it had already collected are banked and it ends. A claim
    /// outside a window (late spotting) does not interrupt: the claimant plays once the current turn is over.
    pub(super) fn claim(&mut self, seat: Seat, cell: Cell, now: Millis, events: &mut Vec<Event<EventBody>>) {
        let number = self.card_at(cell).expect("checked").number;
        self.grid[cell.index()] = None;
        self.piles[seat.index()].push(number);
        events.push(Event::public(EventBody::Claimed { seat, cell, number }));
        let race = self.race.take();
        if self.check_end(events) {
            return;
        }
        match race {
            Some(race) if race.during_turn => {
                let active = self.turn;
                let Some(set_aside) = self.bank_set_aside(active, events) else {
                    return;
                };
                let mut gaps = vec![cell];
                gaps.extend(set_aside);
                self.owed_turns.push_front(seat);
                self.finish_turn(active, &gaps, false, now, events);
            }
            Some(_) => {
                // A window between two turns: the turn about to start had not begun; the claimant plays instead.
                let mice = self.refill(&[cell], events);
                if self.check_end(events) {
                    return;
                }
                self.start_turn(seat, false, events);
                if let Some(&mouse) = mice.first() {
                    self.open_race(mouse, false, now, events);
                }
            }
            None => {
                self.owed_turns.push_back(seat);
                let mice = self.refill(&[cell], events);
                if !self.check_end(events)
                    && let Some(&mouse) = mice.first()
                {
                    // The refill showed another mouse: the turn in progress waits for a fresh race.
                    self.open_race(mouse, true, now, events);
                }
            }
        }
    }
}
