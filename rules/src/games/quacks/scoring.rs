//! Evaluation (steps A-D and the moth book's comparison with the neighbours), converting coins into points
//! at the end, and the players' turn to spend.

use super::*;

/// Sides of the 4 neighbour-comparison of the moth book.
pub(super) fn moth_reward(mine: usize, neighbours: &[usize]) -> (u8, u32) {
    match neighbours {
        [other] => {
            if mine > *other {
                (1, 1)
            } else if mine == *other && mine > 0 {
                (1, 0)
            } else {
                (0, 0)
            }
        }
        _ => {
            let beaten = neighbours.iter().filter(|n| mine > **n).count();
            if beaten == neighbours.len() && beaten > 0 {
                (1, 1)
            } else if beaten >= 1 {
                (1, 0)
            } else {
                (0, 0)
            }
        }
    }
}

impl Quacks {
    /// Evaluation steps A-D (and the free refill of Magic Potion); the players' decisions follow.
    pub(super) fn evaluate(&mut self, events: &mut Vec<Event<QuacksEvent>>) {
        let order = self.order();
        let n = self.n();
        let last_round = self.round == ROUNDS;
        for &seat in &order {
            let p = &mut self.players[seat.index()];
            // Steps of the round's start (Roll the Die) can no longer be given back.
            p.optional_steps = 0;
            p.red_bonus = 0;
            p.scoring_space = p.scoring_space_now();
            let s = pot_space(p.scoring_space);
            p.coins = s.coins;
            events.push(Event::public(QuacksEvent::Scoring {
                seat,
                space: p.scoring_space,
                coins: s.coins,
                points: s.points,
                exploded: p.brew == Brew::Exploded,
            }));
        }
        // A: the bonus die, for the furthest scoring space among pots that did not explode.
        let furthest = self
            .players
            .iter()
            .filter(|p| p.brew != Brew::Exploded)
            .map(|p| p.scoring_space)
            .max();
        if let Some(furthest) = furthest {
            let rolls = if self.card_is(Card::ThePotIsFull) { 2 } else { 1 };
            for &seat in &order {
                let p = &self.players[seat.index()];
                if p.brew != Brew::Exploded && p.scoring_space == furthest {
                    for _ in 0..rolls {
                        self.roll_die(seat, Reason::BonusDie, events);
                    }
                }
            }
        }
        // B: chip actions (black, green, purple), exploded pots included.
        let blacks: Vec<usize> = self
            .players
            .iter()
            .map(|p| p.count_in_pot(Colour::Black))
            .collect();
        for &seat in &order {
            let i = seat.index();
            let neighbours: Vec<usize> = if n == 2 {
                vec![blacks[seat.next(n).index()]]
            } else {
                vec![
                    blacks[seat.next(n).index()],
                    blacks[(i + n as usize - 1) % n as usize],
                ]
            };
            let (steps, rubies) = moth_reward(blacks[i], &neighbours);
            self.gain_droplet(seat, steps, Reason::Moth, events);
            self.gain_rubies(seat, rubies, Reason::Moth, events);
            let p = &self.players[i];
            let greens = p
                .pot
                .iter()
                .rev()
                .take(2)
                .filter(|q| q.chip.colour == Colour::Green)
                .count() as u32;
            let purples = p.count_in_pot(Colour::Purple);
            self.gain_rubies(seat, greens, Reason::Spider, events);
            if self.book_open(Colour::Purple) {
                let (points, rubies, steps) = ghost_breath_reward(purples);
                self.gain_points(seat, points, Reason::GhostsBreath, events);
                self.gain_rubies(seat, rubies, Reason::GhostsBreath, events);
                self.gain_optional_droplet(seat, steps, Reason::GhostsBreath, events);
            }
            let p = &self.players[i];
            if self.card_is(Card::SeasonedPerfectly)
                && p.brew != Brew::Exploded
                && p.whites == SEASONED_PERFECTLY_WHITES
            {
                let reason = Reason::Fortune {
                    card: Card::SeasonedPerfectly,
                };
                self.gain_droplet(seat, 1, reason, events);
            }
        }
        // C: rubies on scoring spaces.
        for &seat in &order {
            if pot_space(self.players[seat.index()].scoring_space).ruby {
                self.gain_rubies(seat, 1, Reason::RubySpace, events);
                if let Some(card @ (Card::ItsShiningExtraBright | Card::LuckyDevil)) = self.card {
                    let reason = Reason::Fortune { card };
                    if card == Card::ItsShiningExtraBright {
                        self.gain_rubies(seat, 1, reason, events);
                    } else {
                        self.gain_points(seat, LUCKY_DEVIL_POINTS, reason, events);
                    }
                }
            }
        }
        // D: points for pots that did not explode; exploded ones choose in their own step.
        for &seat in &order {
            let p = &self.players[seat.index()];
            let exploded = p.brew == Brew::Exploded;
            let space = pot_space(p.scoring_space);
            if exploded {
                self.players[seat.index()].shop = Shop::PointsOrBuying;
            } else {
                self.gain_points(seat, u32::from(space.points), Reason::ScoringSpace, events);
                if last_round {
                    self.convert_coins(seat, events);
                    self.players[seat.index()].shop = Shop::Done;
                } else {
                    self.players[seat.index()].shop = Shop::Buying;
                }
            }
        }
        // Version 2: when some chip could run out (fewer left than the players who could afford it), buying
        // follows start-player order this round.
        if self.v2() && !last_round {
            self.buying_in_order = self.supply_could_run_out();
        }
        // F, ahead of time: Magic Potion refills every flask for free.
        if self.card_is(Card::MagicPotion) {
            for &seat in &order {
                if !self.players[seat.index()].flask_full {
                    self.players[seat.index()].flask_full = true;
                    events.push(Event::public(QuacksEvent::FlaskRefilled { seat }));
                }
            }
        }
        self.phase = Phase::Evaluation;
    }

    pub(super) fn convert_coins(&mut self, seat: Seat, events: &mut Vec<Event<QuacksEvent>>) {
        let p = &mut self.players[seat.index()];
        let coins = u32::from(p.coins);
        let points = coins / COINS_PER_POINT;
        p.score += points;
        p.coins = 0;
        events.push(Event::public(QuacksEvent::Converted {
            seat,
            coins,
            rubies: 0,
            points,
        }));
    }

    /// Whether some chip for sale has fewer left in the supply than the players about to buy who could afford it.
    pub(super) fn supply_could_run_out(&self) -> bool {
        PRICES.iter().any(|&(chip, price)| {
            let buyers = self
                .players
                .iter()
                .filter(|p| matches!(p.shop, Shop::Buying | Shop::PointsOrBuying) && p.coins >= price)
                .count();
            self.book_open(chip.colour) && buyers > usize::from(self.in_supply(chip))
        })
    }

    /// Whether `seat` may take its evaluation decisions now: always, except that when buying follows
    /// start-player order, a seat still to buy waits for those before it to have bought.
    pub(super) fn may_shop(&self, seat: Seat) -> bool {
        let buying = |s: Seat| matches!(self.players[s.index()].shop, Shop::Buying | Shop::PointsOrBuying);
        !self.buying_in_order
            || !buying(seat)
            || self
                .order()
                .into_iter()
                .take_while(|s| *s != seat)
                .all(|s| !buying(s))
    }

    /// After buying: go on to spending rubies, or finish when there is nothing to spend (nor to give back).
    pub(super) fn go_spending(&mut self, seat: Seat, events: &mut Vec<Event<QuacksEvent>>) {
        if self.spend_options(seat).is_empty() && self.players[seat.index()].optional_steps == 0 {
            self.players[seat.index()].shop = Shop::Done;
            events.push(Event::public(QuacksEvent::FinishedRound { seat }));
        } else {
            self.players[seat.index()].shop = Shop::Spending;
        }
    }
}
