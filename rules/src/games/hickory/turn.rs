//! Applying an action already known to be legal: the decision it answers, and a mouse's action on the outer ring.

use super::*;

impl Hickory {
    /// Applies an action already known to be legal for `seat`.
    pub(super) fn perform(&mut self, seat: Seat, action: &HickoryAction) -> Events {
        use HickoryAction as A;
        let mut events = Vec::new();
        let decision = self.decision().expect("a legal action has a decision");
        match (decision, action) {
            (Decision::Place(_), A::Place { mouse, space }) => {
                self.player_mut(seat).mouse_mut(*mouse).loc = Loc::Inner(*space);
                events.push(Event::public(HickoryEvent::MousePlaced {
                    seat,
                    mouse: *mouse,
                    number: *space,
                }));
                if let Phase::Placement { next, .. } = &mut self.phase {
                    *next += 1;
                }
            }
            (Decision::HandMouse(who), A::Stay) => {
                self.resolved.push(who);
                events.push(Event::public(HickoryEvent::Stayed {
                    seat,
                    mouse: who.mouse,
                }));
            }
            (Decision::HandMouse(who), A::HopOff) => {
                self.hand.retain(|m| *m != who);
                self.resolved.push(who);
                let here = self.minute;
                events.push(Event::public(HickoryEvent::HoppedOff {
                    seat,
                    mouse: who.mouse,
                    number: here,
                }));
                if who.mouse == MouseKind::Scurrier {
                    self.mouse_mut(who).loc = Loc::Outer(here);
                    self.phase = Phase::Play {
                        pending: Some(Pending::Scurry { who, from: here }),
                    };
                } else {
                    self.land(who, here, &mut events);
                }
            }
            (Decision::InnerRing(_, here), A::StepOut { mouse }) => {
                let who = MouseRef { seat, mouse: *mouse };
                self.resolved.push(who);
                events.push(Event::public(HickoryEvent::SteppedOut {
                    seat,
                    mouse: *mouse,
                    number: here,
                }));
                self.land(who, here, &mut events);
            }
            (Decision::InnerRing(_, here), A::Board { mouse }) => {
                let who = MouseRef { seat, mouse: *mouse };
                self.resolved.push(who);
                self.hand.push(who);
                self.mouse_mut(who).loc = Loc::Hand;
                events.push(Event::public(HickoryEvent::Boarded { seat, mouse: *mouse }));
                // Rules version 2: a full hand bumps its front mice off until the newcomer fits; they land here.
                // Rules version 3: where a cat paw blocks this number they cannot land here; they fall onto the
                // inner ring at the next number, where the hand is about to go, and wait there like any mouse.
                let blocked = self.blocked(here);
                let fall = match next_number(here, 1) {
                    NO_INNER_RING => INNER_RING_AFTER_12,
                    n => n,
                };
                while self.hand_used() > self.hand_capacity() {
                    let off = self.hand.remove(0);
                    if blocked {
                        self.mouse_mut(off).loc = Loc::Inner(fall);
                    } else {
                        self.mouse_mut(off).loc = Loc::Outer(here);
                        self.bumped.push(off);
                    }
                    events.push(Event::public(HickoryEvent::Bumped {
                        seat: off.seat,
                        mouse: off.mouse,
                        number: here,
                    }));
                }
            }
            (Decision::Pending(Pending::Scurry { who, from }), A::Scurry { steps }) => {
                let to = next_number(from, *steps);
                events.push(Event::public(HickoryEvent::Scurried { seat, from, to }));
                self.land(who, to, &mut events);
            }
            (Decision::Pending(Pending::Act { who, .. }), a) => self.act(who, a, &mut events),
            (
                Decision::Pending(Pending::SearchKeep {
                    who,
                    mut drawn,
                    keep,
                    mut kept,
                }),
                A::Keep { tile: t },
            ) => {
                drawn.retain(|d| d != t);
                kept.push(*t);
                self.mouse_mut(who).tiles.push(*t);
                if keep > 1 {
                    let pending = Pending::SearchKeep {
                        who,
                        drawn,
                        keep: keep - 1,
                        kept,
                    };
                    self.phase = Phase::Play {
                        pending: Some(pending),
                    };
                } else {
                    if self.v2() {
                        // Published: the spotter's extra tile is discarded.
                        self.pantry.extend_from_slice(&drawn);
                    } else {
                        self.return_to_bag(&drawn);
                    }
                    events.push(Event::public(HickoryEvent::SearchKept {
                        seat,
                        mouse: who.mouse,
                        kept: tiles(&kept),
                        returned: tiles(&drawn),
                    }));
                    self.back_to_act(who);
                }
            }
            (
                Decision::Pending(Pending::Delivery {
                    who,
                    mut favours,
                    tiles,
                }),
                A::AddFavour { card },
            ) => {
                favours.push(*card);
                self.delivery_chosen(who, favours, tiles, &mut events);
            }
            (
                Decision::Pending(Pending::Delivery {
                    who,
                    favours,
                    mut tiles,
                }),
                A::AddTile { tile: t },
            ) => {
                tiles.push(*t);
                self.delivery_chosen(who, favours, tiles, &mut events);
            }
            (Decision::Pending(Pending::Delivery { who, favours, tiles }), A::FinishDelivery) => {
                self.deliver(who, favours, tiles, &mut events);
            }
            (
                Decision::Pending(Pending::Hunt {
                    who,
                    mut queue,
                    delivered,
                    favours,
                    marked,
                }),
                A::MarkHunt { row, col },
            ) => {
                let piece = queue.remove(0);
                self.mark_hunt(seat, piece, (*row, *col), &mut events);
                self.place_on_hunt_board(who, queue, delivered, favours, marked + 1, &mut events);
            }
            (d, a) => unreachable!("listed action {a:?} does not fit {d:?}"),
        }
        self.advance(&mut events);
        events
    }

    pub(super) fn act(&mut self, who: MouseRef, action: &HickoryAction, events: &mut Events) {
        use HickoryAction as A;
        let seat = who.seat;
        match action {
            A::Climb => {
                self.climb(seat, CLIMB_TOKEN_LINKS, events);
                self.back_to_act(who);
            }
            A::Deliver => {
                if self.v2() {
                    // Rules version 2: "some, or all" (publisher): the player chooses the tiles.
                    self.phase = Phase::Play {
                        pending: Some(Pending::Delivery {
                            who,
                            favours: vec![],
                            tiles: vec![],
                        }),
                    };
                } else if self.player(seat).favours.is_empty() {
                    self.deliver(who, vec![], vec![], events);
                } else {
                    self.phase = Phase::Play {
                        pending: Some(Pending::Delivery {
                            who,
                            favours: vec![],
                            tiles: vec![],
                        }),
                    };
                }
            }
            A::Search => self.search(who, events),
            A::TakeFavour => {
                self.draw_favour(seat, events);
                self.back_to_act(who);
            }
            A::Swap { give, take } => {
                let m = self.mouse_mut(who);
                m.tiles.retain(|t| t != give);
                m.tiles.push(*take);
                for slot in &mut self.web_market {
                    if slot == take {
                        *slot = *give;
                    }
                }
                events.push(Event::public(HickoryEvent::Swapped {
                    seat,
                    mouse: who.mouse,
                    gave: tile(*give),
                    took: tile(*take),
                }));
                self.back_to_act(who);
            }
            A::BuyWild { pay } => {
                let wild = self.web_wilds.pop().expect("listed only with a wild on the web");
                let m = self.mouse_mut(who);
                m.tiles.retain(|t| !pay.contains(t));
                m.tiles.push(wild);
                self.pantry.extend_from_slice(pay);
                events.push(Event::public(HickoryEvent::WildBought {
                    seat,
                    mouse: who.mouse,
                    paid: tiles(pay),
                    wild: tile(wild),
                }));
                self.back_to_act(who);
            }
            A::CallScamp { space } => {
                let scamp = MouseRef {
                    seat,
                    mouse: MouseKind::Scamp,
                };
                events.push(Event::public(HickoryEvent::MouseDone {
                    seat,
                    mouse: who.mouse,
                }));
                events.push(Event::public(HickoryEvent::ScampCalled { seat, number: *space }));
                self.land(scamp, *space, events);
            }
            A::PlayFavour { card } => {
                self.player_mut(seat).favours.retain(|c| c != card);
                self.favour_discard.push(*card);
                events.push(Event::public(HickoryEvent::FavourPlayed {
                    seat,
                    card: favour_card(*card),
                }));
                match FAVOURS[*card as usize].effect {
                    FavourEffect::Forage => {
                        if let Some(t) = self.draw(events) {
                            self.mouse_mut(who).tiles.push(t);
                            events.push(Event::public(HickoryEvent::Foraged {
                                seat,
                                mouse: who.mouse,
                                tile: tile(t),
                            }));
                        }
                    }
                    FavourEffect::WebGift => {
                        let wild = self.web_wilds.pop().expect("listed only with a wild on the web");
                        self.mouse_mut(who).tiles.push(wild);
                        events.push(Event::public(HickoryEvent::WildGifted {
                            seat,
                            mouse: who.mouse,
                            wild: tile(wild),
                        }));
                    }
                    FavourEffect::Clamber => self.climb(seat, FAVOUR_CLAMBER_LINKS, events),
                }
                // The phase is still this mouse's Act step (token use unchanged).
            }
            A::Done => {
                events.push(Event::public(HickoryEvent::MouseDone {
                    seat,
                    mouse: who.mouse,
                }));
                self.phase = Phase::Play { pending: None };
            }
            other => unreachable!("{other:?} is not an outer-ring action"),
        }
    }
}
