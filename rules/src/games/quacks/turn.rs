//! Applying an action already known to be legal: the brewer's and the buyer's decisions, round 9's commitments
//! and the fortune-teller card's choices.

use super::*;

impl Quacks {
    /// Carries out an action already known to be legal.
    pub(super) fn perform(&mut self, seat: Seat, action: &Action, events: &mut Vec<Event<QuacksEvent>>) {
        let i = seat.index();
        let last_round = self.round == ROUNDS;
        let stirring = self.stirring();
        match action {
            Action::Draw if stirring => self.commit(seat, Commitment::Draw, events),
            Action::Stop if stirring => self.commit(seat, Commitment::Stop, events),
            Action::Draw => {
                let chip = self.draw_chip(seat);
                self.place(seat, chip, true, true, events);
                self.settle(seat);
            }
            Action::Stop => {
                self.players[i].red_bonus = 0;
                self.players[i].brew = Brew::Stopped;
                events.push(Event::public(QuacksEvent::Stopped { seat }));
            }
            Action::UseFlask => {
                let p = &mut self.players[i];
                let placed = p.pot.pop().expect("flask needs a white just placed");
                p.whites -= placed.chip.value;
                p.flask_full = false;
                p.flask_open = false;
                p.well_stirred_open = false;
                p.put_in_bag(placed.chip);
                events.push(Event::public(QuacksEvent::FlaskUsed {
                    seat,
                    chip: placed.chip,
                }));
            }
            Action::ReturnFirstWhite => {
                let p = &mut self.players[i];
                let placed = p.pot.pop().expect("a first white just placed");
                p.whites -= placed.chip.value;
                p.flask_open = false;
                p.well_stirred_open = false;
                p.put_in_bag(placed.chip);
                events.push(Event::public(QuacksEvent::WhiteReturned {
                    seat,
                    chip: placed.chip,
                }));
            }
            Action::ReturnWhiteBeforeMandrake => {
                let p = &mut self.players[i];
                let at = p.pot.len() - 2;
                let placed = p.pot.remove(at);
                p.whites -= placed.chip.value;
                p.mandrake_open = false;
                p.put_in_bag(placed.chip);
                events.push(Event::public(QuacksEvent::WhiteReturned {
                    seat,
                    chip: placed.chip,
                }));
            }
            Action::DeclineRedBonus => {
                let p = &mut self.players[i];
                let placed = p.pot.last_mut().expect("a red chip just placed");
                placed.space -= p.red_bonus;
                p.red_bonus = 0;
                events.push(Event::public(QuacksEvent::RedBonusDeclined {
                    seat,
                    space: placed.space,
                }));
            }
            Action::DeclineDropletStep => {
                let p = &mut self.players[i];
                p.optional_steps -= 1;
                p.droplet -= 1;
                events.push(Event::public(QuacksEvent::DropletStepDeclined {
                    seat,
                    space: p.droplet,
                }));
                if p.shop == Shop::Spending {
                    self.go_spending(seat, events);
                }
            }
            Action::Place { chip } => {
                let strong = self.players[i].pending == Some(Pending::StrongIngredient);
                self.players[i].pending = None;
                let p = &mut self.players[i];
                let at = p
                    .aside
                    .iter()
                    .position(|c| c == chip)
                    .expect("listed chip is aside");
                p.aside.remove(at);
                self.put_back(seat, events);
                self.place(seat, *chip, !strong, !strong, events);
                self.settle(seat);
            }
            Action::PlaceNone => {
                self.players[i].pending = None;
                self.put_back(seat, events);
                self.settle(seat);
            }
            Action::StartOver => {
                let p = &mut self.players[i];
                p.pending = None;
                for placed in std::mem::take(&mut p.pot) {
                    p.put_in_bag(placed.chip);
                }
                p.whites = 0;
                p.red_bonus = 0;
                p.brew = Brew::Brewing;
                p.flask_open = false;
                p.well_stirred_open = false;
                p.mandrake_open = false;
                events.push(Event::public(QuacksEvent::StartedOver { seat }));
            }
            Action::KeepPotion => {
                self.players[i].pending = None;
                events.push(Event::public(QuacksEvent::KeptPotion { seat }));
            }
            Action::Fortune { choice } => self.choose(seat, choice, events),
            Action::TakePoints => {
                let points = pot_space(self.players[i].scoring_space).points;
                self.gain_points(seat, u32::from(points), Reason::ScoringSpace, events);
                if last_round {
                    self.players[i].shop = Shop::Done;
                } else {
                    self.players[i].coins = 0;
                    self.go_spending(seat, events);
                }
            }
            Action::ConvertCoins => {
                self.convert_coins(seat, events);
                self.players[i].shop = Shop::Done;
            }
            Action::Buy { chips } => {
                for chip in chips {
                    let taken = self.take_from_supply(*chip);
                    debug_assert!(taken, "listed purchases are in the supply");
                    self.players[i].put_in_bag(*chip);
                }
                self.players[i].coins = 0;
                events.push(Event::public(QuacksEvent::Bought {
                    seat,
                    chips: chips.clone(),
                }));
                self.go_spending(seat, events);
            }
            Action::BuyNothing => {
                self.players[i].coins = 0;
                events.push(Event::public(QuacksEvent::BoughtNothing { seat }));
                self.go_spending(seat, events);
            }
            Action::MoveDroplet => {
                let p = &mut self.players[i];
                p.rubies -= RUBIES_PER_DROPLET_STEP;
                p.move_droplet(1);
                events.push(Event::public(QuacksEvent::DropletMoved {
                    seat,
                    space: p.droplet,
                }));
                self.go_spending(seat, events);
            }
            Action::RefillFlask => {
                let p = &mut self.players[i];
                p.rubies -= RUBIES_PER_FLASK_REFILL;
                p.flask_full = true;
                events.push(Event::public(QuacksEvent::FlaskRefilled { seat }));
                self.go_spending(seat, events);
            }
            Action::FinishRound => {
                self.players[i].shop = Shop::Done;
                events.push(Event::public(QuacksEvent::FinishedRound { seat }));
            }
        }
    }

    pub(super) fn commit(
        &mut self,
        seat: Seat,
        commitment: Commitment,
        events: &mut Vec<Event<QuacksEvent>>,
    ) {
        self.players[seat.index()].commitment = Some(commitment);
        events.push(Event::public(QuacksEvent::Committed { seat }));
        events.push(Event::to(seat, QuacksEvent::CommittedTo { seat, commitment }));
    }

    pub(super) fn choose(
        &mut self,
        seat: Seat,
        choice: &FortuneChoice,
        events: &mut Vec<Event<QuacksEvent>>,
    ) {
        let i = seat.index();
        let pending = self.players[i].pending.take();
        let card = match pending {
            Some(Pending::Fortune { card }) => card,
            Some(Pending::Opportunistic) => Card::AnOpportunisticMoment,
            Some(Pending::Schadenfreude) => Card::Schadenfreude,
            other => unreachable!("fortune choice listed without a card decision: {other:?}"),
        };
        let reason = Reason::Fortune { card };
        events.push(Event::public(QuacksEvent::Chose {
            seat,
            choice: choice.clone(),
        }));
        match choice {
            FortuneChoice::TakeChip { chip } => {
                if card == Card::WheelAndDeal {
                    self.players[i].rubies -= WHEEL_AND_DEAL_RUBIES;
                }
                self.gain_chip(seat, *chip, reason, events);
            }
            FortuneChoice::PointsForRatTails => {
                let tails = self.players[i].rat_tails;
                self.gain_points(seat, tails, reason, events);
            }
            FortuneChoice::KeepRatTails | FortuneChoice::Decline => {}
            FortuneChoice::TradeRatTails { tails } => {
                self.players[i].rat_tails -= tails;
                self.gain_rubies(seat, *tails, reason, events);
            }
            FortuneChoice::FourPoints => self.gain_points(seat, JUST_IN_TIME_POINTS, reason, events),
            FortuneChoice::RemoveWhite => {
                if self.players[i].remove_from_bag(WHITE_1) {
                    self.return_to_supply(WHITE_1);
                    events.push(Event::public(QuacksEvent::Gained {
                        seat,
                        gain: Gain::ChipRemoved { chip: WHITE_1 },
                        reason,
                    }));
                }
            }
            FortuneChoice::ThreeRubies => {
                self.gain_rubies(seat, YOU_ONLY_GET_TO_CHOOSE_ONE_RUBIES, reason, events)
            }
            FortuneChoice::DropletSteps => {
                self.gain_droplet(seat, CHOOSE_WISELY_DROPLET_STEPS, reason, events)
            }
            FortuneChoice::TradeUp { chip } => {
                let up = next_value(*chip).expect("listed trades have a next value");
                let p = &mut self.players[i];
                let at = p
                    .aside
                    .iter()
                    .position(|c| c == chip)
                    .expect("traded chip is aside");
                p.aside.remove(at);
                self.return_to_supply(*chip);
                let taken = self.take_from_supply(up);
                debug_assert!(taken, "listed trades are in the supply");
                // In its place, so that the chips aside stay sorted (they go back into the bag just below).
                let aside = &mut self.players[i].aside;
                aside.insert(aside.partition_point(|c| *c <= up), up);
                events.push(Event::public(QuacksEvent::TradedUp {
                    seat,
                    from: *chip,
                    to: up,
                }));
            }
        }
        if card == Card::AnOpportunisticMoment {
            self.put_back(seat, events);
        }
    }
}
