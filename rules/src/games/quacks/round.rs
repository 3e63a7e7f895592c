//! The round's structure ([`Quacks::advance`]): the start of a round with its fortune-teller card, the stir of
//! round 9, the end of brewing and of the round, and the end of the game.

use super::*;

impl Quacks {
    pub(super) fn start_round(&mut self, events: &mut Vec<Event<QuacksEvent>>) {
        self.round += 1;
        let round = self.round;
        events.push(Event::public(QuacksEvent::RoundStarted {
            round,
            start_player: self.start_player,
        }));
        for colour in Colour::ALL {
            if round > 1 && colour.book_from_round() == Some(round) {
                events.push(Event::public(QuacksEvent::BookOpened { colour }));
            }
        }
        if round == EXTRA_WHITE_ROUND {
            for seat in self.order() {
                self.gain_chip(seat, EXTRA_WHITE, Reason::ExtraWhite, events);
            }
        }
        let card = self.deck.pop().expect("24 cards for 9 rounds");
        self.card = Some(card);
        events.push(Event::public(QuacksEvent::CardRevealed { card }));
        let reason = Reason::Fortune { card };
        let order = self.order();
        match card {
            Card::RollTheDie => {
                for &seat in &order {
                    self.roll_die(seat, reason, events);
                }
            }
            Card::ThePotIsFillingUp => {
                for &seat in &order {
                    self.gain_droplet(seat, 1, reason, events);
                }
            }
            Card::Charity => {
                let fewest = self.players.iter().map(|p| p.rubies).min().unwrap_or(0);
                for &seat in &order {
                    if self.players[seat.index()].rubies == fewest {
                        self.gain_rubies(seat, 1, reason, events);
                    }
                }
            }
            Card::BeginnersBonus => {
                let fewest = self.players.iter().map(|p| p.score).min().unwrap_or(0);
                for &seat in &order {
                    if self.players[seat.index()].score == fewest {
                        self.gain_chip(seat, BEGINNERS_BONUS_CHIP, reason, events);
                    }
                }
            }
            Card::LessIsMore => {
                let mut sums = Vec::new();
                for &seat in &order {
                    let n = LESS_IS_MORE_DRAW.min(self.players[seat.index()].bag.len());
                    let mut chips: Vec<Chip> = (0..n).map(|_| self.draw_chip(seat)).collect();
                    chips.sort();
                    sums.push((seat, chips.iter().map(|c| u32::from(c.value)).sum::<u32>()));
                    events.push(Event::public(QuacksEvent::Showed {
                        seat,
                        chips: chips.clone(),
                    }));
                    for chip in chips {
                        self.players[seat.index()].put_in_bag(chip);
                    }
                }
                let lowest = sums.iter().map(|(_, s)| *s).min().unwrap_or(0);
                for (seat, sum) in sums {
                    if sum == lowest {
                        self.gain_chip(seat, LESS_IS_MORE_PRIZE, reason, events);
                    } else {
                        self.gain_rubies(seat, LESS_IS_MORE_OTHERS_RUBIES, reason, events);
                    }
                }
            }
            _ => {}
        }
        if round >= RATS_FROM_ROUND {
            let leader = self.players.iter().map(|p| p.score).max().unwrap_or(0);
            let factor = if card == Card::RatInfestation { 2 } else { 1 };
            for &seat in &order {
                let p = &mut self.players[seat.index()];
                p.rat_tails = rat_tails_between(p.score, leader) * factor;
                if p.rat_tails > 0 {
                    events.push(Event::public(QuacksEvent::RatTails {
                        seat,
                        tails: p.rat_tails,
                    }));
                }
            }
        }
        for &seat in &order {
            let pending = match card {
                Card::RatsAreYourFriends
                | Card::JustInTime
                | Card::YouOnlyGetToChooseOne
                | Card::ChooseWisely => Some(Pending::Fortune { card }),
                Card::AGoodStart if self.players[seat.index()].rat_tails > 0 => {
                    Some(Pending::Fortune { card })
                }
                Card::WheelAndDeal if self.fortune_choices(seat, card).len() > 1 => {
                    Some(Pending::Fortune { card })
                }
                Card::AnOpportunisticMoment => {
                    self.draw_to_look_at(seat, OPPORTUNISTIC_MOMENT_DRAW, events);
                    if self.fortune_choices(seat, card).len() > 1 {
                        Some(Pending::Opportunistic)
                    } else {
                        self.put_back(seat, events);
                        self.gain_chip(seat, OPPORTUNISTIC_MOMENT_CONSOLATION, reason, events);
                        None
                    }
                }
                _ => None,
            };
            self.players[seat.index()].pending = pending;
        }
        self.phase = Phase::Brewing;
    }

    /// Round 9 (every round with the lockstep option): everyone still brewing has decided; all draws happen together, in start-player order.
    pub(super) fn stir(&mut self, events: &mut Vec<Event<QuacksEvent>>) {
        let mut draw = Vec::new();
        let mut stop = Vec::new();
        for seat in self.order() {
            match self.players[seat.index()].commitment.take() {
                Some(Commitment::Draw) => draw.push(seat),
                Some(Commitment::Stop) => stop.push(seat),
                None => {}
            }
        }
        events.push(Event::public(QuacksEvent::Stirred {
            draw: draw.clone(),
            stop: stop.clone(),
        }));
        for seat in stop {
            self.players[seat.index()].brew = Brew::Stopped;
            events.push(Event::public(QuacksEvent::Stopped { seat }));
        }
        for seat in draw {
            let chip = self.draw_chip(seat);
            self.place(seat, chip, true, true, events);
            self.settle(seat);
        }
    }

    pub(super) fn after_brewing(&mut self, events: &mut Vec<Event<QuacksEvent>>) {
        let n = self.n();
        if self.card_is(Card::StrongIngredient) {
            for seat in self.order() {
                if self.players[seat.index()].brew == Brew::Stopped
                    && self.draw_to_look_at(seat, STRONG_INGREDIENT_DRAW, events) > 0
                {
                    self.players[seat.index()].pending = Some(Pending::StrongIngredient);
                }
            }
        }
        if self.card_is(Card::Schadenfreude) {
            for seat in self.order() {
                if self.players[seat.index()].brew == Brew::Exploded {
                    let left = seat.next(n);
                    if !self.card_chips(2).is_empty() {
                        self.players[left.index()].pending = Some(Pending::Schadenfreude);
                    }
                }
            }
        }
        self.phase = Phase::AfterBrewing;
    }
}

impl Quacks {
    pub(super) fn end_round(&mut self, events: &mut Vec<Event<QuacksEvent>>) {
        if self.round == ROUNDS {
            for seat in self.order() {
                let p = &mut self.players[seat.index()];
                let points = p.rubies / RUBIES_PER_POINT;
                let rubies = points * RUBIES_PER_POINT;
                p.rubies -= rubies;
                p.score += points;
                events.push(Event::public(QuacksEvent::Converted {
                    seat,
                    coins: 0,
                    rubies,
                    points,
                }));
            }
            self.phase = Phase::Over;
            events.push(Event::public(QuacksEvent::GameOver {
                scores: self.players.iter().map(|p| p.score).collect(),
            }));
            return;
        }
        for p in &mut self.players {
            p.reset_for_round();
        }
        self.card = None;
        self.buying_in_order = false;
        self.start_player = self.start_player.next(self.n());
        self.start_round(events);
    }

    /// Runs every step that needs nobody's decision, until someone must decide or the game is over.
    pub(super) fn advance(&mut self, events: &mut Vec<Event<QuacksEvent>>) {
        loop {
            let pending = self.players.iter().any(|p| p.pending.is_some());
            match self.phase {
                Phase::Brewing => {
                    if pending {
                        return;
                    }
                    let brewing: Vec<&Player> =
                        self.players.iter().filter(|p| p.brew == Brew::Brewing).collect();
                    if brewing.is_empty() {
                        self.after_brewing(events);
                    } else if self.stirring() && brewing.iter().all(|p| p.commitment.is_some()) {
                        self.stir(events);
                    } else {
                        return;
                    }
                }
                Phase::AfterBrewing => {
                    if pending {
                        return;
                    }
                    self.evaluate(events);
                }
                Phase::Evaluation => {
                    if self.players.iter().any(|p| p.shop != Shop::Done) {
                        return;
                    }
                    self.end_round(events);
                }
                Phase::Over => return,
            }
        }
    }
}
