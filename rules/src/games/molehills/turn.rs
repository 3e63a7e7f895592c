//! Applying an action already known to be legal, and the revealed stacks played out card by card: moving and
//! turning a mole, pushing up earth, landslides, the rock.

use std::collections::VecDeque;

use super::*;

impl Molehills {
    /// Moves `seat`'s mole forward up to `steps` spaces, pushing up a piece under each space it enters.
    pub(super) fn move_mole(&mut self, seat: Seat, steps: u8, ev: &mut Events) {
        for _ in 0..steps {
            let mole = self.moles[seat.index()].expect("moles are placed before cards are played");
            let blocked = match self.step(mole.at, mole.facing) {
                None => Some(Obstacle::Edge),
                Some(p) if self.rock == Some(p) => Some(Obstacle::Rock),
                Some(p) => self.mole_at(p).map(|s| Obstacle::Mole { seat: s }),
            };
            if let Some(by) = blocked {
                ev.push(Event::public(MolehillsEvent::Blocked { seat, by }));
                return;
            }
            let to = self.step(mole.at, mole.facing).expect("checked above");
            self.moles[seat.index()] = Some(Mole { at: to, ..mole });
            ev.push(Event::public(MolehillsEvent::Moved { seat, to }));
            self.push_up(seat, to, mole.facing, ev);
        }
    }

    pub(super) fn turn_mole(&mut self, seat: Seat, turn: Turn, ev: &mut Events) {
        let mole = self.moles[seat.index()].as_mut().expect("placed");
        mole.facing = mole.facing.turned(turn);
        let facing = mole.facing;
        ev.push(Event::public(MolehillsEvent::Turned { seat, facing }));
    }

    /// A mole entered `at` going `toward`: a piece of its colour goes under the mountain there.
    pub(super) fn push_up(&mut self, seat: Seat, at: Pos, toward: Dir, ev: &mut Events) {
        if self.supply[seat.index()] == 0 {
            ev.push(Event::public(MolehillsEvent::OutOfPieces { seat }));
            return;
        }
        self.supply[seat.index()] -= 1;
        let i = self.idx(at);
        self.stacks[i].insert(0, seat);
        let height = self.stacks[i].len();
        ev.push(Event::public(MolehillsEvent::PiecePushed {
            seat,
            at,
            height: height as u8,
        }));
        if height > self.max_height() {
            self.landslide(at, toward, ev);
        }
    }

    /// Topples the mountain at `origin` (falling `toward`) and every mountain that then exceeds the limit.
    pub(super) fn landslide(&mut self, origin: Pos, toward: Dir, ev: &mut Events) {
        let limit = self.max_height();
        let mut toppled = vec![false; self.stacks.len()];
        let mut queue = VecDeque::from([(origin, toward)]);
        while let Some((at, dir)) = queue.pop_front() {
            let i = self.idx(at);
            if toppled[i] || self.stacks[i].len() <= limit {
                continue;
            }
            toppled[i] = true;
            let falling: Vec<Seat> = self.stacks[i].drain(1..).rev().collect();
            let targets: Vec<(Dir, Option<Pos>)> = TOPPLE_DEAL_ORDER
                .iter()
                .map(|side| dir.to_side(*side))
                .map(|d| (d, self.step(at, d)))
                .filter(|(_, p)| p.is_none_or(|p| !toppled[self.idx(p)]))
                .collect();
            let mut falls = Vec::with_capacity(falling.len());
            for (k, piece) in falling.into_iter().enumerate() {
                let to = if targets.is_empty() {
                    None
                } else {
                    targets[k % targets.len()].1
                };
                match to {
                    Some(p) => {
                        let j = self.idx(p);
                        self.stacks[j].push(piece);
                    }
                    None => self.supply[piece.index()] += 1,
                }
                falls.push(Fall { piece, to });
            }
            ev.push(Event::public(MolehillsEvent::Toppled {
                at,
                toward: dir,
                falls,
            }));
            for (d, p) in targets {
                if let Some(p) = p
                    && self.stacks[self.idx(p)].len() > limit
                {
                    queue.push_back((p, d));
                }
            }
        }
    }

    /// Reveals and resolves cards until a player must decide something or the round is over.
    pub(super) fn run(&mut self, ev: &mut Events) {
        loop {
            let Phase::Resolving {
                card,
                turn,
                pending: None,
            } = self.phase
            else {
                return;
            };
            if card as usize == HAND_SIZE {
                self.end_round(ev);
                return;
            }
            let seat = self.order[turn as usize];
            let plan = self.plans[seat.index()]
                .as_mut()
                .expect("every stack is programmed");
            let id = plan.remove(0);
            self.hands[seat.index()].retain(|c| *c != id);
            self.revealed[seat.index()].push(id);
            ev.push(Event::public(MolehillsEvent::Revealed {
                seat,
                card: card_view(id),
            }));
            let pending = match card_of(id) {
                Card::Move { steps } => {
                    self.move_mole(seat, steps, ev);
                    None
                }
                Card::Turn { turn } => {
                    self.turn_mole(seat, turn, ev);
                    None
                }
                Card::MoveTurn { .. } => Some(Pending::MoveTurn { seat, card: id }),
                Card::Rock => {
                    let roll = ROCK_DIE[self.rng.index(ROCK_DIE.len())];
                    ev.push(Event::public(MolehillsEvent::RockRolled { seat, roll }));
                    let from = self.moles[seat.index()].expect("placed").at;
                    let spaces: Vec<Pos> = self
                        .all_positions()
                        .filter(|p| {
                            let d = from.distance(*p);
                            d >= 1 && d <= roll && self.mole_at(*p).is_none() && self.rock != Some(*p)
                        })
                        .collect();
                    if spaces.is_empty() {
                        ev.push(Event::public(MolehillsEvent::RockOutOfReach { seat }));
                        None
                    } else {
                        Some(Pending::Rock {
                            seat,
                            card: id,
                            roll,
                            spaces,
                        })
                    }
                }
            };
            if pending.is_some() {
                self.phase = Phase::Resolving { card, turn, pending };
                return;
            }
            self.advance();
        }
    }

    /// The next player's card (after a card is fully resolved).
    pub(super) fn advance(&mut self) {
        if let Phase::Resolving { card, turn, .. } = self.phase {
            let next = turn + 1;
            self.phase = if next as usize == self.n() {
                Phase::Resolving {
                    card: card + 1,
                    turn: 0,
                    pending: None,
                }
            } else {
                Phase::Resolving {
                    card,
                    turn: next,
                    pending: None,
                }
            };
        }
    }

    /// Applies `action`, already checked, for `seat`.
    pub(super) fn perform(&mut self, seat: Seat, action: &MolehillsAction) -> Events {
        let mut ev = Events::new();
        match action {
            MolehillsAction::PlaceMole { at, facing } => {
                self.moles[seat.index()] = Some(Mole {
                    at: *at,
                    facing: *facing,
                });
                let i = self.idx(*at);
                self.stacks[i].push(seat);
                self.supply[seat.index()] -= 1;
                ev.push(Event::public(MolehillsEvent::MolePlaced {
                    seat,
                    at: *at,
                    facing: *facing,
                }));
                let Phase::PlaceMoles { placed } = self.phase else {
                    unreachable!("checked")
                };
                if placed as usize + 1 == self.n() {
                    self.start_round(&mut ev);
                } else {
                    self.phase = Phase::PlaceMoles { placed: placed + 1 };
                }
            }
            MolehillsAction::Pick { card } => {
                self.display.retain(|c| c != card);
                let hand = &mut self.hands[seat.index()];
                hand.push(*card);
                hand.sort_unstable();
                ev.push(Event::public(MolehillsEvent::Picked {
                    seat,
                    card: card_view(*card),
                }));
                let Phase::Draft { picks } = self.phase else {
                    unreachable!("checked")
                };
                if picks as usize + 1 == HAND_SIZE * self.n() {
                    let left = std::mem::take(&mut self.display);
                    ev.push(Event::public(MolehillsEvent::Discarded {
                        cards: left.iter().map(|c| card_view(*c)).collect(),
                    }));
                    self.discard.extend(left);
                    self.phase = Phase::Planning;
                } else {
                    self.phase = Phase::Draft { picks: picks + 1 };
                }
            }
            MolehillsAction::Plan { order } => {
                self.plans[seat.index()] = Some(order.clone());
                ev.push(Event::public(MolehillsEvent::Ready { seat }));
                ev.push(Event::to(
                    seat,
                    MolehillsEvent::Planned {
                        seat,
                        order: order.iter().map(|c| card_view(*c)).collect(),
                    },
                ));
                if self.plans.iter().all(Option::is_some) {
                    self.phase = Phase::Resolving {
                        card: 0,
                        turn: 0,
                        pending: None,
                    };
                    self.run(&mut ev);
                }
            }
            MolehillsAction::MoveThenTurn | MolehillsAction::TurnThenMove => {
                let Phase::Resolving {
                    pending: Some(Pending::MoveTurn { card, .. }),
                    ..
                } = self.phase
                else {
                    unreachable!("checked")
                };
                let Card::MoveTurn { steps, turn } = card_of(card) else {
                    unreachable!("a move-and-turn card is pending")
                };
                if *action == MolehillsAction::MoveThenTurn {
                    self.move_mole(seat, steps, &mut ev);
                    self.turn_mole(seat, turn, &mut ev);
                } else {
                    self.turn_mole(seat, turn, &mut ev);
                    self.move_mole(seat, steps, &mut ev);
                }
                self.advance();
                self.run(&mut ev);
            }
            MolehillsAction::PlaceRock { at } => {
                self.rock = Some(*at);
                ev.push(Event::public(MolehillsEvent::RockPlaced { seat, at: *at }));
                self.advance();
                self.run(&mut ev);
            }
            MolehillsAction::ChooseToken { token } => {
                let mut order: Vec<Seat> = self.order.iter().copied().filter(|s| *s != seat).collect();
                order.insert(*token as usize - 1, seat);
                self.order = order;
                self.round += 1;
                self.start_round(&mut ev);
            }
        }
        ev
    }
}
