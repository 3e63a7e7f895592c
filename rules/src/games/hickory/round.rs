//! The clock running on between decisions ([`Hickory::advance`]): ticks of the minute hand, the round's end
//! (cat paws, refilling the clock) and the game's end with its final scores.

use super::*;

impl Hickory {
    pub(super) fn end_round(&mut self, events: &mut Events) {
        self.hour += 1;
        events.push(Event::public(HickoryEvent::HourStruck { hour: self.hour }));
        // The seed: the game ends immediately when the hour hand reaches 12 (and if the minute hand reaches 12 with
        // the hour hand already there). The hour hand moves only here, so both conditions meet at this point.
        if self.hour >= END_HOUR {
            self.finish(events);
            return;
        }
        self.priority = self.priority.next(self.players);
        events.push(Event::public(HickoryEvent::PriorityPassed {
            seat: self.priority,
        }));
        let mut stepped = Vec::new();
        let v2 = self.v2();
        for seat in self.priority_order() {
            for m in &mut self.seats[seat.index()].mice {
                if let Loc::Outer(n) = m.loc {
                    // No inner ring at 12 (rules version 2): that mouse waits at the next number.
                    m.loc = Loc::Inner(if v2 && n == NO_INNER_RING {
                        INNER_RING_AFTER_12
                    } else {
                        n
                    });
                    stepped.push(MouseRef { seat, mouse: m.kind });
                }
            }
        }
        events.push(Event::public(HickoryEvent::MiceSteppedDown { mice: stepped }));
        self.roll_paws(events);
        self.refill_clock(events);
    }

    pub(super) fn roll_paws(&mut self, events: &mut Events) {
        self.paws.clear();
        for _ in 0..CAT_PAWS {
            let mut n = self.rng.below(u64::from(CAT_DIE_FACES)) as u8 + 1;
            while self.paws.contains(&n) {
                n = n % CAT_DIE_FACES + 1;
            }
            self.paws.push(n);
        }
        events.push(Event::public(HickoryEvent::PawsPlaced {
            numbers: self.paws.clone(),
        }));
    }

    pub(super) fn refill_clock(&mut self, events: &mut Events) {
        let mut placed = Vec::new();
        for number in 1..=NUMBERS {
            if self.space(number).tile.is_none() {
                match self.draw(events) {
                    Some(t) => {
                        self.space_mut(number).tile = Some(t);
                        placed.push((number, tile(t)));
                    }
                    None => break,
                }
            }
        }
        events.push(Event::public(HickoryEvent::ClockRefilled { tiles: placed }));
    }

    pub(super) fn finish(&mut self, events: &mut Events) {
        for p in &mut self.seats {
            let rows = p.hunt_done.iter().filter(|row| row.iter().all(|d| *d)).count();
            let cols = (0..HUNT_SIZE)
                .filter(|&c| p.hunt_done.iter().all(|row| row[c]))
                .count();
            p.points.hunt_lines = (rows + cols) as i64 * HUNT_LINE_POINTS;
            let mut group = Group::default();
            for m in &p.mice {
                for &t in &m.tiles {
                    group.add_tile(t);
                }
            }
            for &f in &p.favours {
                group.add_favour(f);
            }
            p.points.leftovers = group.points();
        }
        self.phase = Phase::Over;
        let hands = self
            .seats
            .iter()
            .map(|p| p.favours.iter().map(|&f| favour_card(f)).collect())
            .collect();
        events.push(Event::public(HickoryEvent::FavoursRevealed { hands }));
        events.push(Event::public(HickoryEvent::GameEnded {
            scores: self.final_scores(),
        }));
    }

    pub(super) fn final_scores(&self) -> Vec<FinalScore> {
        Seat::all(self.players)
            .map(|seat| {
                let p = self.player(seat);
                FinalScore {
                    seat,
                    points: p.points,
                    total: p.points.total(),
                    hunt_spaces: p.hunt_spaces_done(),
                }
            })
            .collect()
    }

    /// Runs the clock until a seat has a decision or the game ends.
    pub(super) fn advance(&mut self, events: &mut Events) {
        loop {
            match &self.phase {
                Phase::Over | Phase::Play { pending: Some(_) } => return,
                Phase::Placement { order, next } => {
                    if *next < order.len() {
                        return;
                    }
                    self.phase = Phase::Play { pending: None };
                }
                Phase::Play { pending: None } => {
                    if !self.tick_open {
                        self.minute = next_number(self.minute, 1);
                        self.tick_open = true;
                        self.resolved.clear();
                        events.push(Event::public(HickoryEvent::MinuteHand {
                            hour: self.hour,
                            minute: self.minute,
                        }));
                        if self.blocked(self.minute) {
                            events.push(Event::public(HickoryEvent::PawBlocked { number: self.minute }));
                        }
                        continue;
                    }
                    if !self.bumped.is_empty() {
                        // A mouse bumped off the hand lands on the outer ring here, collects and acts.
                        let who = self.bumped.remove(0);
                        let here = self.minute;
                        self.land(who, here, events);
                        continue;
                    }
                    if self.decision().is_some() {
                        return;
                    }
                    self.tick_open = false;
                    if self.minute == ROUND_END_MINUTE {
                        self.end_round(events);
                    }
                }
            }
        }
    }
}
