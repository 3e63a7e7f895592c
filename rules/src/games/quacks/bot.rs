//! The server bot's strategy for this game (`Game::bot_action`), described in `docs/rules/quacks.md` ("Server
//! bot").
//!
//! Every legal action gets a worth in victory points and the best is played (ties broken by `rng`):
//!
//! - **Brewing** is a stop rule that weighs the risk: from the chips in its own bag (their kinds are known to
//!   their owner; the order does not exist until a draw), the white total and the white limit, the bot
//!   computes the worth of the pot if it stops now and the expected worth after one more draw (each chip of the
//!   bag equally likely; a white that passes the limit explodes the pot, which then keeps only the better of
//!   its points or its coins). It draws while the draw is worth more.
//! - **Buying** takes the purchase (one chip or two) whose chips are worth most for the rounds left; an
//!   exploded pot compares that with the points it would take instead.
//! - **Rubies** move the droplet while the rounds left make a permanent step worth more than the 2 rubies'
//!   end value; an empty flask is refilled.
//! - **Other decisions**: the best chip of those looked at that does not explode the pot, the flask, mandrake and
//!   Well Stirred to take whites out when the pot nears the limit, the fortune card's option worth most, never
//!   declining a bonus, and A Second Chance only to undo an explosion.
//!
//! It reads only what the seat's own view shows: its own bag and chips looked at, the pots, scores, the card,
//! the supply. Never the generator or the fortune deck.

use super::*;
use crate::rng::Rng;

/// A worth that always wins or always loses against the ordinary ones.
const CERTAIN: f64 = 1_000.0;

/// The worth of a coin, in points, by the round in which it is earned (index = round): early coins buy the
/// chips of the whole game, round 9's convert at 5 to a point.
const COIN_WORTH: [f64; 10] = [0.0, 0.6, 0.55, 0.5, 0.45, 0.4, 0.33, 0.27, 0.22, 0.2];

/// How far a chip carries a pot when drawn, in spaces, its effect included (an estimate per colour).
fn chip_quality(chip: Chip, oranges_owned: usize) -> f64 {
    let v = f64::from(chip.value);
    match chip.colour {
        Colour::White => 0.0,
        Colour::Orange => 1.0,
        Colour::Green => v + 0.3,
        // The skull looks at its value in chips and places the best: about a chip more.
        Colour::Blue => v + [1.0, 1.5, 2.5][usize::from(chip.value.min(4) / 2)],
        Colour::Red => {
            v + match oranges_owned {
                0 => 0.2,
                1 | 2 => 0.8,
                _ => 1.5,
            }
        }
        Colour::Yellow => v + 0.8,
        // Points at evaluation: about a point (1.7 spaces) each.
        Colour::Purple => v + 1.6,
        // Moths: droplet steps and rubies against the neighbours.
        Colour::Black => v + 1.5,
    }
}

struct Ctx<'a> {
    game: &'a Quacks,
    seat: Seat,
    round: u8,
    /// Rounds still to be brewed after this one.
    rounds_left: f64,
    oranges_owned: usize,
}

impl Ctx<'_> {
    fn p(&self) -> &Player {
        &self.game.players[self.seat.index()]
    }

    fn coin_worth(&self) -> f64 {
        COIN_WORTH[usize::from(self.round.min(ROUNDS))]
    }

    fn ruby_worth(&self) -> f64 {
        // At the end 2 rubies make a point; before that, half a droplet step.
        (0.3 * self.rounds_left).max(0.5)
    }

    fn droplet_step_worth(&self) -> f64 {
        0.6 * self.rounds_left
    }

    /// What a chip bought (or gained) now is worth in points over the rounds left.
    fn chip_worth(&self, chip: Chip) -> f64 {
        let q = chip_quality(chip, self.oranges_owned);
        // Purple pays points: worth most late, when a space is worth less than a point.
        let late = if chip.colour == Colour::Purple && self.round >= 3 {
            0.6
        } else {
            0.0
        };
        (0.3 * q + late) * self.rounds_left
    }

    /// The worth of the pot scoring space `space`: exploded, only the better of its points and its coins.
    fn pot_worth(&self, space: u8, exploded: bool) -> f64 {
        let s = pot_space(space);
        let points = f64::from(s.points);
        let coins = self.coin_worth() * f64::from(s.coins);
        let ruby = if s.ruby { self.ruby_worth() } else { 0.0 };
        if exploded {
            points.max(coins) + ruby
        } else {
            points + coins + ruby
        }
    }

    /// How far a chip drawn now would go (its bonuses included) and whether it would explode the pot.
    fn outcome_of(&self, chip: Chip, ingredient: bool) -> (u8, bool) {
        let p = self.p();
        let mut steps = f64::from(chip.value);
        if ingredient {
            match chip.colour {
                Colour::Orange if self.game.card_is(Card::PumpkinPatchParty) => steps += 1.0,
                Colour::Red => steps += f64::from(toadstool_bonus(p.count_in_pot(Colour::Orange))),
                Colour::Blue => steps += 1.0,
                _ => {}
            }
        }
        let last = f64::from(p.last_space()) + steps;
        let space = (last.round() as u8).min(LAST_CHIP_SPACE) + 1;
        let explodes =
            ingredient && chip.colour == Colour::White && p.whites + chip.value > self.game.white_limit();
        (space, explodes)
    }

    /// The worth of stopping now and the expected worth after one more draw.
    fn stop_and_draw(&self) -> (f64, f64) {
        let p = self.p();
        let now = self.pot_worth(p.scoring_space_now(), false);
        if p.bag.is_empty() {
            return (now, f64::MIN);
        }
        let total: f64 = p
            .bag
            .iter()
            .map(|chip| {
                let (space, explodes) = self.outcome_of(*chip, true);
                self.pot_worth(space, explodes)
            })
            .sum();
        (now, total / p.bag.len() as f64)
    }

    /// Whether a white now in the pot is worth taking out (flask, mandrake, Well Stirred): when the pot is
    /// near its limit, or a white 3 that would bring it there.
    fn white_out_pays(&self) -> bool {
        let p = self.p();
        let margin = self.game.white_limit().saturating_sub(p.whites);
        let risky = p
            .bag
            .iter()
            .any(|c| c.colour == Colour::White && c.value > margin);
        risky && !p.bag.is_empty()
    }

    fn fortune_worth(&self, choice: &FortuneChoice) -> f64 {
        let p = self.p();
        match choice {
            FortuneChoice::TakeChip { chip } => {
                let cost = if self.game.card_is(Card::WheelAndDeal) {
                    self.ruby_worth()
                } else {
                    0.0
                };
                self.chip_worth(*chip) - cost
            }
            FortuneChoice::PointsForRatTails => f64::from(p.rat_tails),
            FortuneChoice::KeepRatTails => 0.0,
            // A rat tail is a space this round.
            FortuneChoice::TradeRatTails { tails } => f64::from(*tails) * (self.ruby_worth() - 0.6 - 0.1),
            FortuneChoice::FourPoints => f64::from(JUST_IN_TIME_POINTS),
            // A white 1 out of the bag for good: less risk in every round left.
            FortuneChoice::RemoveWhite => 0.45 * self.rounds_left,
            FortuneChoice::ThreeRubies => 3.0 * self.ruby_worth(),
            FortuneChoice::DropletSteps => 2.0 * self.droplet_step_worth(),
            FortuneChoice::TradeUp { chip } => {
                next_value(*chip).map_or(0.0, |up| self.chip_worth(up) - self.chip_worth(*chip))
            }
            FortuneChoice::Decline => 0.0,
        }
    }

    fn buy_worth(&self, chips: &[Chip]) -> f64 {
        chips.iter().map(|c| self.chip_worth(*c)).sum()
    }

    /// The worth of each legal action, in points.
    fn worth(&self, action: &Action, draw: f64) -> f64 {
        let p = self.p();
        match action {
            // `draw` is the expected gain of one more draw over stopping, computed once per call.
            Action::Draw => draw,
            Action::Stop => 0.0,
            Action::UseFlask | Action::ReturnWhiteBeforeMandrake | Action::ReturnFirstWhite => {
                if self.white_out_pays() { CERTAIN } else { -CERTAIN }
            }
            // Taking a bonus is never worse.
            Action::DeclineRedBonus | Action::DeclineDropletStep => -CERTAIN,
            Action::Place { chip } => {
                let strong = p.pending == Some(Pending::StrongIngredient);
                let (space, explodes) = self.outcome_of(*chip, !strong);
                if explodes {
                    return -CERTAIN;
                }
                let gain = self.pot_worth(space, false) - self.pot_worth(p.scoring_space_now(), false);
                // A white placed safely leaves the bag (less risk later) but brings the limit nearer.
                let risk = if chip.colour == Colour::White && !strong {
                    0.3 * f64::from(chip.value)
                } else {
                    0.0
                };
                gain - risk
            }
            Action::PlaceNone => 0.0,
            Action::StartOver => {
                if p.brew == Brew::Exploded {
                    CERTAIN
                } else {
                    -CERTAIN
                }
            }
            Action::KeepPotion => 0.0,
            Action::Fortune { choice } => self.fortune_worth(choice),
            Action::TakePoints => f64::from(pot_space(p.scoring_space).points),
            Action::ConvertCoins => f64::from(u32::from(p.coins) / COINS_PER_POINT),
            Action::Buy { chips } => self.buy_worth(chips),
            Action::BuyNothing => 0.0,
            Action::MoveDroplet => self.droplet_step_worth() - 2.0 * self.ruby_worth().clamp(0.5, 1.0),
            Action::RefillFlask => 1.2 - 2.0 * 0.5,
            Action::FinishRound => 0.0,
        }
    }
}

pub(super) fn bot_action(game: &Quacks, seat: Seat, rng: &mut Rng) -> Option<<Quacks as Game>::Action> {
    if game.phase == Phase::Over || seat.0 >= game.n() {
        return None;
    }
    let p = &game.players[seat.index()];
    let oranges_owned = p
        .bag
        .iter()
        .chain(&p.aside)
        .chain(p.pot.iter().map(|q| &q.chip))
        .filter(|c| c.colour == Colour::Orange)
        .count();
    let ctx = Ctx {
        game,
        seat,
        round: game.round,
        rounds_left: f64::from(ROUNDS.saturating_sub(game.round)),
        oranges_owned,
    };
    let draw = {
        let (stop, draw) = ctx.stop_and_draw();
        draw - stop
    };
    crate::bot::best_by(game, seat, rng, |action| {
        (ctx.worth(action, draw) * 1000.0).round() as i64
    })
}
