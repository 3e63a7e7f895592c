//! Brewing: drawing chips from the bag, looking at chips and putting them back, placing a chip in the pot with
//! its effect, and settling a pot that stopped or exploded.

use super::*;

impl Quacks {
    /// Draws a chip at random from the bag of `seat` (the bag must not be empty).
    pub(super) fn draw_chip(&mut self, seat: Seat) -> Chip {
        let len = self.players[seat.index()].bag.len();
        let i = self.rng.index(len);
        self.players[seat.index()].bag.remove(i)
    }

    /// Draws up to `n` chips to be looked at by `seat` alone.
    pub(super) fn draw_to_look_at(
        &mut self,
        seat: Seat,
        n: usize,
        events: &mut Vec<Event<QuacksEvent>>,
    ) -> usize {
        let n = n.min(self.players[seat.index()].bag.len());
        for _ in 0..n {
            let chip = self.draw_chip(seat);
            self.players[seat.index()].aside.push(chip);
        }
        self.players[seat.index()].aside.sort();
        if n > 0 {
            events.push(Event::public(QuacksEvent::DrewToLookAt { seat, count: n }));
            events.push(Event::to(
                seat,
                QuacksEvent::LookingAt {
                    seat,
                    chips: self.players[seat.index()].aside.clone(),
                },
            ));
        }
        n
    }

    pub(super) fn put_back(&mut self, seat: Seat, events: &mut Vec<Event<QuacksEvent>>) {
        let count = self.players[seat.index()].return_aside();
        if count > 0 {
            events.push(Event::public(QuacksEvent::PutBack { seat, count }));
        }
    }

    /// Places `chip` in the pot of `seat`. `ingredient`: the chip's own effect applies (false for Strong
    /// Ingredient's last chip). `can_explode`: false for chips placed by a card.
    pub(super) fn place(
        &mut self,
        seat: Seat,
        chip: Chip,
        ingredient: bool,
        can_explode: bool,
        events: &mut Vec<Event<QuacksEvent>>,
    ) {
        let pumpkin_party = self.card_is(Card::PumpkinPatchParty);
        let well_stirred = self.card_is(Card::WellStirred);
        let limit = self.white_limit();
        let v2 = self.v2();
        let p = &mut self.players[seat.index()];
        let mut steps = chip.value;
        let mut red = false;
        if ingredient {
            match chip.colour {
                Colour::Orange if pumpkin_party => steps += 1,
                Colour::Red => {
                    steps += toadstool_bonus(p.count_in_pot(Colour::Orange));
                    red = true;
                }
                _ => {}
            }
        }
        let previous_white = p.pot.last().is_some_and(|q| q.chip.colour == Colour::White);
        let space = p.last_space().saturating_add(steps).min(LAST_CHIP_SPACE);
        // Version 2: the toadstool's bonus may be declined until the next placement; the droplet steps that may
        // be given back can no longer be once the first chip lies in the pot.
        p.red_bonus = 0;
        if v2 {
            let base = p.last_space().saturating_add(chip.value).min(LAST_CHIP_SPACE);
            if red {
                p.red_bonus = space - base;
            }
            p.optional_steps = 0;
        }
        p.pot.push(Placed { chip, space });
        p.flask_open = false;
        p.well_stirred_open = false;
        p.mandrake_open = ingredient && chip.colour == Colour::Yellow && previous_white;
        if chip.colour == Colour::White {
            p.whites += chip.value;
            p.flask_open = true;
            if well_stirred && !p.white_seen {
                p.well_stirred_open = true;
            }
            p.white_seen = true;
        }
        events.push(Event::public(QuacksEvent::Placed {
            seat,
            chip,
            space,
            whites: p.whites,
        }));
        if can_explode && p.whites > limit {
            p.brew = Brew::Exploded;
            p.flask_open = false;
            p.well_stirred_open = false;
            events.push(Event::public(QuacksEvent::Exploded { seat }));
            return;
        }
        if ingredient && chip.colour == Colour::Blue && space < LAST_CHIP_SPACE {
            let looked = self.draw_to_look_at(seat, crow_skull_draw(chip), events);
            if looked > 0 {
                self.players[seat.index()].pending = Some(Pending::CrowSkull);
            }
        }
    }

    /// After a brewing step of `seat`: offers A Second Chance once its moment has come.
    pub(super) fn settle(&mut self, seat: Seat) {
        let second_chance = self.card_is(Card::ASecondChance);
        let p = &mut self.players[seat.index()];
        if p.pending.is_some() || !second_chance || p.second_chance_offered {
            return;
        }
        let reached = p.pot.len() >= usize::from(SECOND_CHANCE_AFTER_PLACEMENTS);
        if p.brew == Brew::Exploded || (p.brew == Brew::Brewing && reached) {
            p.second_chance_offered = true;
            p.pending = Some(Pending::SecondChance);
        }
    }
}
