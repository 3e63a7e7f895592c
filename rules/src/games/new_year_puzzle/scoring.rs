//! Reward cards: taking the top one for a card put in place, their conditions and effects on the scores, and
//! the conditions that wait for a later reveal.

use super::*;

impl NewYearPuzzle {
    pub(super) fn add(&mut self, change: ScoreChange) {
        self.scores[change.seat.index()] += change.delta;
    }

    /// Judges a condition that does not wait, for `seat` who has just put a card at `placed_at`.
    pub(super) fn condition_met(&self, seat: Seat, condition: Condition, placed_at: u8) -> bool {
        let (row, col) = row_col(placed_at);
        let own = self.scores[seat.index()];
        let others = || Seat::all(self.players).filter(move |s| *s != seat);
        match condition {
            Condition::PlacedOnBorder => on_border(placed_at),
            Condition::PlacedInSky => row <= SKY_LAST_ROW,
            Condition::PlacedOnGround => row > SKY_LAST_ROW,
            Condition::PlacedTouching { at_least } => {
                side_neighbours(placed_at).filter(|p| self.uncovered(*p)).count() >= at_least as usize
            }
            Condition::CompletesLine => {
                (0..SIDE).all(|c| self.face_up[(row * SIDE + c) as usize])
                    || (0..SIDE).all(|r| self.face_up[(r * SIDE + col) as usize])
            }
            Condition::LowestScore => others().all(|s| self.scores[s.index()] >= own),
            Condition::BehindSomeone => others().any(|s| self.scores[s.index()] > own),
            // Judged at the next reveal, not here.
            Condition::NextRevealSucceeds => false,
        }
    }

    /// The score changes an effect makes for `seat`, on the current scores.
    pub(super) fn effect_changes(&self, seat: Seat, effect: Effect) -> Vec<ScoreChange> {
        let others: Vec<Seat> = Seat::all(self.players).filter(|s| *s != seat).collect();
        match effect {
            Effect::Gain { points } => vec![ScoreChange {
                seat,
                delta: i64::from(points),
            }],
            Effect::OthersLose { points } => others
                .into_iter()
                .map(|s| ScoreChange {
                    seat: s,
                    delta: -i64::from(points),
                })
                .collect(),
            Effect::LeadersLose { points } => {
                let own = self.scores[seat.index()];
                let top = others.iter().map(|s| self.scores[s.index()]).max().unwrap_or(own);
                if top <= own {
                    return vec![];
                }
                others
                    .into_iter()
                    .filter(|s| self.scores[s.index()] == top)
                    .map(|s| ScoreChange {
                        seat: s,
                        delta: -i64::from(points),
                    })
                    .collect()
            }
        }
    }

    /// Judges `seat`'s waiting conditions against the reveal it is making now.
    pub(super) fn resolve_pending(
        &mut self,
        seat: Seat,
        success: bool,
        events: &mut Vec<Event<PuzzleEvent>>,
    ) {
        let (mine, rest): (Vec<Pending>, Vec<Pending>) = self.pending.iter().partition(|p| p.seat == seat);
        self.pending = rest;
        for pending in mine {
            let bonus = pending.reward.card().bonus.expect("only cards with a bonus wait");
            let changes = if success {
                self.effect_changes(seat, bonus.effect)
            } else {
                vec![]
            };
            for change in &changes {
                self.add(*change);
            }
            events.push(Event::public(PuzzleEvent::Bonus {
                seat,
                reward: pending.reward,
                met: success,
                changes,
            }));
        }
    }

    /// `seat` takes the top reward card for a card just put at `placed_at`. Returns whether the turn ends.
    pub(super) fn take_reward(
        &mut self,
        seat: Seat,
        placed_at: u8,
        events: &mut Vec<Event<PuzzleEvent>>,
    ) -> bool {
        let Some(reward) = self.pile.pop() else {
            let points = i64::from(EMPTY_PILE_POINTS);
            self.add(ScoreChange { seat, delta: points });
            events.push(Event::public(PuzzleEvent::PileEmpty { seat, points }));
            return true;
        };
        let card = reward.card();
        self.rewards[seat.index()].push(reward);
        // The condition is judged, and its targets chosen, before the card's own points count.
        let bonus_event = card.bonus.map(|bonus| {
            if bonus.condition.is_deferred() {
                self.pending.push(Pending { seat, reward });
                (PuzzleEvent::BonusPending { seat, reward }, vec![])
            } else {
                let met = self.condition_met(seat, bonus.condition, placed_at);
                let changes = if met {
                    self.effect_changes(seat, bonus.effect)
                } else {
                    vec![]
                };
                (
                    PuzzleEvent::Bonus {
                        seat,
                        reward,
                        met,
                        changes: changes.clone(),
                    },
                    changes,
                )
            }
        });
        let points = i64::from(card.points);
        self.add(ScoreChange { seat, delta: points });
        events.push(Event::public(PuzzleEvent::RewardDrawn { seat, reward, points }));
        if let Some((event, changes)) = bonus_event {
            for change in changes {
                self.add(change);
            }
            events.push(Event::public(event));
        }
        card.ends_turn
    }
}
