//! What a seat may do now ([`Game::legal_actions`]): the fortune-teller card's choices, purchases, spending
//! rubies, brewing; and the precise reason for refusing anything else.

use super::*;

impl Quacks {
    /// Chips a card may give of this value, in the colours whose books are open (never white, purple or black).
    pub(super) fn card_chips(&self, value: u8) -> Vec<Chip> {
        [
            Colour::Orange,
            Colour::Green,
            Colour::Blue,
            Colour::Red,
            Colour::Yellow,
        ]
        .into_iter()
        .filter(|c| self.book_open(*c))
        .map(|c| Chip::new(c, value))
        .filter(|chip| self.in_supply(*chip) > 0)
        .collect()
    }

    pub(super) fn fortune_choices(&self, seat: Seat, card: Card) -> Vec<FortuneChoice> {
        let p = &self.players[seat.index()];
        let take = |chips: Vec<Chip>| chips.into_iter().map(|chip| FortuneChoice::TakeChip { chip });
        let mut out = Vec::new();
        match card {
            Card::RatsAreYourFriends => {
                out.extend(take(self.card_chips(4)));
                out.push(FortuneChoice::PointsForRatTails);
            }
            Card::AGoodStart => {
                out.push(FortuneChoice::KeepRatTails);
                for tails in 1..=p.rat_tails.min(A_GOOD_START_MAX_TAILS) {
                    out.push(FortuneChoice::TradeRatTails { tails });
                }
            }
            Card::JustInTime => {
                out.push(FortuneChoice::FourPoints);
                if p.bag.contains(&WHITE_1) {
                    out.push(FortuneChoice::RemoveWhite);
                }
            }
            Card::YouOnlyGetToChooseOne => {
                if self.in_supply(BLACK_1) > 0 {
                    out.push(FortuneChoice::TakeChip { chip: BLACK_1 });
                }
                out.extend(take(self.card_chips(2)));
                out.push(FortuneChoice::ThreeRubies);
            }
            Card::ChooseWisely => {
                out.push(FortuneChoice::DropletSteps);
                if self.book_open(Colour::Purple) && self.in_supply(PURPLE_1) > 0 {
                    out.push(FortuneChoice::TakeChip { chip: PURPLE_1 });
                }
            }
            Card::WheelAndDeal => {
                if p.rubies >= WHEEL_AND_DEAL_RUBIES {
                    out.extend(take(self.card_chips(1)));
                }
                out.push(FortuneChoice::Decline);
            }
            Card::AnOpportunisticMoment => {
                let mut seen: Vec<Chip> = Vec::new();
                for chip in &p.aside {
                    if seen.contains(chip) {
                        continue;
                    }
                    seen.push(*chip);
                    if next_value(*chip).is_some_and(|up| self.in_supply(up) > 0) {
                        out.push(FortuneChoice::TradeUp { chip: *chip });
                    }
                }
                out.push(FortuneChoice::Decline);
            }
            Card::Schadenfreude => {
                out.extend(take(self.card_chips(2)));
                if out.is_empty() {
                    // The last 2-chips went to another player meanwhile.
                    out.push(FortuneChoice::Decline);
                }
            }
            _ => {}
        }
        out
    }

    pub(super) fn buy_options(&self, seat: Seat) -> Vec<Action> {
        // Room for most lists at once (nothing, each chip alone, each pair).
        let mut out = Vec::with_capacity(32);
        self.each_buy_option(seat, |chips| {
            out.push(match chips {
                [] => Action::BuyNothing,
                chips => Action::Buy {
                    chips: chips.to_vec(),
                },
            })
        });
        out
    }

    /// Calls `each` with every purchase `seat` may make now, in the order [`Quacks::buy_options`] lists them:
    /// first `[]` (buy nothing), then each chip for sale alone, each followed by the pairs it starts (different
    /// colours, sorted, affordable together). Nothing is allocated: each purchase is lent to `each`.
    pub(super) fn each_buy_option(&self, seat: Seat, mut each: impl FnMut(&[Chip])) {
        let coins = u32::from(self.players[seat.index()].coins);
        let mut sellable = [(WHITE_1, 0u32); PRICES.len()];
        let mut n = 0;
        for (chip, price) in PRICES {
            let price = u32::from(price);
            if price <= coins && self.book_open(chip.colour) && self.in_supply(chip) > 0 {
                sellable[n] = (chip, price);
                n += 1;
            }
        }
        let sellable = &sellable[..n];
        each(&[]);
        for (i, &(a, pa)) in sellable.iter().enumerate() {
            each(&[a]);
            for &(b, pb) in &sellable[i + 1..] {
                if a.colour != b.colour && pa + pb <= coins {
                    let mut chips = [a, b];
                    chips.sort();
                    each(&chips);
                }
            }
        }
    }

    /// Whether `buy_options(seat)` lists `Buy { chips }` (`chips` sorted), without listing every option.
    pub(super) fn buy_is_offered(&self, seat: Seat, chips: &[Chip]) -> bool {
        let coins = u32::from(self.players[seat.index()].coins);
        let price = |chip: Chip| {
            PRICES
                .iter()
                .find(|(c, _)| *c == chip)
                .map(|(_, price)| u32::from(*price))
                .filter(|price| *price <= coins && self.book_open(chip.colour) && self.in_supply(chip) > 0)
        };
        match chips {
            [a] => price(*a).is_some(),
            [a, b] => match (price(*a), price(*b)) {
                (Some(pa), Some(pb)) => a.colour != b.colour && pa + pb <= coins,
                _ => false,
            },
            _ => false,
        }
    }

    /// Whether `legal_actions(seat)` contains `action` (a `Buy`'s chips sorted): purchases are checked directly,
    /// everything else against the list.
    pub(super) fn is_legal(&self, seat: Seat, action: &Action) -> bool {
        let shop = self.players[seat.index()].shop;
        let buying = self.phase == Phase::Evaluation
            && (shop == Shop::Buying || (shop == Shop::PointsOrBuying && self.round != ROUNDS))
            && self.may_shop(seat);
        match action {
            Action::Buy { chips } if buying => self.buy_is_offered(seat, chips),
            _ => self.legal_actions(seat).contains(action),
        }
    }

    pub(super) fn spend_options(&self, seat: Seat) -> Vec<Action> {
        let p = &self.players[seat.index()];
        let mut out = Vec::new();
        if p.rubies >= RUBIES_PER_DROPLET_STEP && p.droplet < LAST_CHIP_SPACE {
            out.push(Action::MoveDroplet);
        }
        if p.rubies >= RUBIES_PER_FLASK_REFILL && !p.flask_full {
            out.push(Action::RefillFlask);
        }
        out
    }

    /// Whether `seat` has a decision now, i.e. `!self.legal_actions(seat).is_empty()`, without listing the
    /// actions where the answer is known (`status()` asks this for every seat after every action).
    pub(super) fn decides(&self, seat: Seat) -> bool {
        if seat.0 >= self.n() {
            return false;
        }
        let p = &self.players[seat.index()];
        match self.phase {
            Phase::Brewing | Phase::AfterBrewing => match p.pending {
                // These always offer a "none" or two fixed answers.
                Some(Pending::CrowSkull | Pending::StrongIngredient | Pending::SecondChance) => true,
                Some(Pending::Fortune { .. } | Pending::Opportunistic | Pending::Schadenfreude) => {
                    !self.brewing_actions(seat).is_empty()
                }
                // `Stop` is always offered while brewing.
                None => self.phase == Phase::Brewing && p.brew == Brew::Brewing && p.commitment.is_none(),
            },
            Phase::Evaluation => match p.shop {
                // `TakePoints`, `BuyNothing` and `FinishRound` are always offered (once it is the seat's turn
                // to buy, when buying goes in start-player order).
                Shop::PointsOrBuying | Shop::Buying => self.may_shop(seat),
                Shop::Spending => true,
                Shop::Idle | Shop::Done => false,
            },
            Phase::Over => false,
        }
    }

    pub(super) fn brewing_actions(&self, seat: Seat) -> Vec<Action> {
        let p = &self.players[seat.index()];
        // At most draw, stop, the flask, two returns and two declines while brewing (one push at a time cost
        // reallocations).
        let mut out = Vec::with_capacity(7);
        if let Some(pending) = p.pending {
            match pending {
                Pending::CrowSkull | Pending::StrongIngredient => {
                    let mut chips = p.aside.clone();
                    chips.dedup();
                    out.extend(chips.into_iter().map(|chip| Action::Place { chip }));
                    out.push(Action::PlaceNone);
                }
                Pending::SecondChance => {
                    out.push(Action::StartOver);
                    out.push(Action::KeepPotion);
                }
                Pending::Fortune { card } => {
                    out.extend(
                        self.fortune_choices(seat, card)
                            .into_iter()
                            .map(|choice| Action::Fortune { choice }),
                    );
                }
                Pending::Opportunistic => out.extend(
                    self.fortune_choices(seat, Card::AnOpportunisticMoment)
                        .into_iter()
                        .map(|choice| Action::Fortune { choice }),
                ),
                Pending::Schadenfreude => out.extend(
                    self.fortune_choices(seat, Card::Schadenfreude)
                        .into_iter()
                        .map(|choice| Action::Fortune { choice }),
                ),
            }
            return out;
        }
        if self.phase != Phase::Brewing || p.brew != Brew::Brewing || p.commitment.is_some() {
            return out;
        }
        if p.can_draw() {
            out.push(Action::Draw);
        }
        out.push(Action::Stop);
        if p.flask_open && p.flask_full {
            out.push(Action::UseFlask);
        }
        if p.well_stirred_open {
            out.push(Action::ReturnFirstWhite);
        }
        if p.mandrake_open {
            out.push(Action::ReturnWhiteBeforeMandrake);
        }
        if p.red_bonus > 0 {
            out.push(Action::DeclineRedBonus);
        }
        if p.optional_steps > 0 && p.pot.is_empty() {
            out.push(Action::DeclineDropletStep);
        }
        out
    }
}

impl Quacks {
    /// A precise reason for refusing `action`, which is not among `seat`'s legal actions.
    pub(super) fn explain(&self, seat: Seat, action: &Action) -> QuacksReject {
        let p = &self.players[seat.index()];
        if p.pending.is_some() {
            return QuacksReject::DecisionPending;
        }
        match action {
            Action::Draw if self.phase == Phase::Brewing && p.brew == Brew::Brewing => {
                if p.bag.is_empty() {
                    QuacksReject::BagEmpty
                } else {
                    QuacksReject::PotFull
                }
            }
            Action::UseFlask if !p.flask_full => QuacksReject::FlaskEmpty,
            Action::UseFlask => QuacksReject::FlaskNotNow,
            Action::MoveDroplet | Action::RefillFlask if p.rubies < 2 => QuacksReject::NotEnoughRubies,
            Action::Buy { chips } if matches!(p.shop, Shop::Buying | Shop::PointsOrBuying) => {
                if let [a, b] = chips.as_slice()
                    && a.colour == b.colour
                {
                    return QuacksReject::SameColour;
                }
                for chip in chips {
                    if !self.book_open(chip.colour) {
                        return QuacksReject::BookNotInPlay { colour: chip.colour };
                    }
                    if self.in_supply(*chip) == 0 {
                        return QuacksReject::SoldOut { chip: *chip };
                    }
                }
                let cost: u32 = chips.iter().filter_map(|c| price(*c)).map(u32::from).sum();
                if cost > u32::from(p.coins) {
                    return QuacksReject::CannotAfford { cost, coins: p.coins };
                }
                QuacksReject::NotAvailable
            }
            _ => QuacksReject::NotAvailable,
        }
    }
}
