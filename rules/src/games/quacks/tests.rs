//! Tests of the Quacks engine: the published component values, every ingredient and fortune card with exact
//! numbers, the round structure, hidden information, determinism and random playouts.

use super::*;
use crate::model::{Audience, Game};
use crate::testkit::{fingerprint, random_playout};

const CFG: QuacksConfig = QuacksConfig {};

fn s(n: u8) -> Seat {
    Seat(n)
}

fn c(colour: Colour, value: u8) -> Chip {
    Chip::new(colour, value)
}

/// Every chip kind: the supply plus all players' chips equals the box.
fn assert_chips_conserved(g: &Quacks) {
    for (chip, total) in SUPPLY {
        let owned: usize = g
            .players
            .iter()
            .map(|p| p.owned().iter().filter(|c| **c == chip).count())
            .sum();
        assert_eq!(
            usize::from(g.in_supply(chip)) + owned,
            usize::from(total),
            "{chip} not conserved"
        );
    }
    for p in &g.players {
        let whites: u32 = p
            .pot
            .iter()
            .filter(|q| q.chip.colour == Colour::White)
            .map(|q| u32::from(q.chip.value))
            .sum();
        assert_eq!(
            u32::from(p.whites),
            whites,
            "white total out of step with the pot"
        );
        assert!(
            p.pot
                .windows(2)
                .all(|w| w[0].space < w[1].space || w[1].space == LAST_CHIP_SPACE),
            "pot spaces must increase"
        );
        assert!(p.pot.iter().all(|q| q.space > 0 && q.space <= LAST_CHIP_SPACE));
        let mut bag = p.bag.clone();
        bag.sort();
        assert_eq!(bag, p.bag, "the bag is kept sorted (a multiset)");
        assert!(
            p.aside.is_empty() || p.pending.is_some(),
            "chips aside without a decision"
        );
    }
}

// ----- helpers for golden cases -----

/// A game in round `round` with `card` in force, nobody deciding anything, rats at 0.
fn table(players: u8, round: u8, card: Card) -> Quacks {
    let mut g = Quacks::new(&CFG, players, 1).expect("setup");
    for p in &mut g.players {
        p.reset_for_round();
    }
    g.round = round;
    g.card = Some(card);
    g.phase = Phase::Brewing;
    g
}

/// A card that does nothing to brewing or evaluation by itself (a purple card already carried out).
const QUIET: Card = Card::ThePotIsFillingUp;

/// Reseeds the state's generator so that the next draw of `seat` is `chip` (which must be in the bag), then
/// draws through the public action.
fn draw(g: &mut Quacks, seat: Seat, chip: Chip) -> Vec<Event<QuacksEvent>> {
    let bag = g.players[seat.index()].bag.clone();
    assert!(bag.contains(&chip), "{chip} not in the bag of {seat}: {bag:?}");
    let k = (0..)
        .find(|k| {
            let mut r = Rng::from_seed(*k);
            bag[r.index(bag.len())] == chip
        })
        .expect("some seed draws it");
    g.rng = Rng::from_seed(k);
    let events = act(g, seat, Action::Draw);
    if g.round != ROUNDS {
        assert!(
            g.players[seat.index()].pot.iter().any(|p| p.chip == chip),
            "the forced chip was not placed"
        );
    }
    events
}

fn act(g: &mut Quacks, seat: Seat, action: Action) -> Vec<Event<QuacksEvent>> {
    g.apply(Actor::Seat(seat), &action, 0)
        .unwrap_or_else(|r| panic!("{seat} {action:?} refused: {r}"))
}

fn set_bag(g: &mut Quacks, seat: Seat, chips: &[Chip]) {
    let mut bag = chips.to_vec();
    bag.sort();
    g.players[seat.index()].bag = bag;
}

fn spaces(g: &Quacks, seat: Seat) -> Vec<u8> {
    g.players[seat.index()].pot.iter().map(|p| p.space).collect()
}

fn gains(events: &[Event<QuacksEvent>], seat: Seat, reason: Reason) -> Vec<Gain> {
    events
        .iter()
        .filter_map(|e| match &e.body {
            QuacksEvent::Gained {
                seat: s,
                gain,
                reason: r,
            } if *s == seat && *r == reason => Some(*gain),
            _ => None,
        })
        .collect()
}

fn rubies_from(events: &[Event<QuacksEvent>], seat: Seat, reason: Reason) -> u32 {
    gains(events, seat, reason)
        .iter()
        .map(|g| match g {
            Gain::Rubies { rubies } => *rubies,
            _ => 0,
        })
        .sum()
}

fn points_from(events: &[Event<QuacksEvent>], seat: Seat, reason: Reason) -> u32 {
    gains(events, seat, reason)
        .iter()
        .map(|g| match g {
            Gain::Points { points } => *points,
            _ => 0,
        })
        .sum()
}

fn droplet_from(events: &[Event<QuacksEvent>], seat: Seat, reason: Reason) -> u8 {
    gains(events, seat, reason)
        .iter()
        .map(|g| match g {
            Gain::DropletSteps { steps } => *steps,
            _ => 0,
        })
        .sum()
}

/// Stops every seat still brewing (in seat order) and returns all events, evaluation included.
fn stop_all(g: &mut Quacks) -> Vec<Event<QuacksEvent>> {
    let mut events = Vec::new();
    for seat in Seat::all(g.n()) {
        if g.legal_actions(seat).contains(&Action::Stop) {
            events.extend(act(g, seat, Action::Stop));
        }
    }
    events
}

/// Fills the pot of `seat` with `chips` in order, as if drawn.
fn brew(g: &mut Quacks, seat: Seat, chips: &[Chip]) {
    let mut bag = g.players[seat.index()].bag.clone();
    bag.extend_from_slice(chips);
    set_bag(g, seat, &bag);
    for chip in chips {
        draw(g, seat, *chip);
    }
}

// ----- the published component values -----

#[test]
fn pot_track_matches_the_published_values() {
    let check = |i: u8, coins: u8, points: u8, ruby: bool| {
        assert_eq!(pot_space(i), Space { coins, points, ruby }, "space {i}");
    };
    check(0, 0, 0, false);
    check(5, 5, 0, true);
    check(6, 6, 1, false);
    check(9, 9, 1, true);
    check(14, 14, 3, false);
    check(15, 15, 3, false);
    check(16, 15, 3, true);
    check(17, 16, 3, false);
    check(23, 19, 5, false);
    check(30, 22, 7, true);
    check(52, 33, 14, true);
    check(53, 35, 15, false);
    let rubies: Vec<usize> = (0..POT_TRACK.len()).filter(|i| POT_TRACK[*i].ruby).collect();
    assert_eq!(
        rubies,
        vec![5, 9, 13, 16, 20, 24, 28, 30, 34, 36, 40, 42, 46, 50, 52]
    );
    for (i, space) in POT_TRACK.iter().enumerate() {
        let expected = if i <= 15 {
            i
        } else if i <= 52 {
            15 + (i - 15) / 2
        } else {
            35
        };
        assert_eq!(usize::from(space.coins), expected, "coins at {i}");
    }
    assert!(POT_TRACK.windows(2).all(|w| w[0].points <= w[1].points));
}

#[test]
fn rat_tails_between_scores() {
    assert_eq!(rat_tails_between(1, 10), 3);
    assert_eq!(rat_tails_between(2, 10), 2);
    assert_eq!(rat_tails_between(4, 5), 1);
    assert_eq!(rat_tails_between(5, 7), 0);
    assert_eq!(rat_tails_between(7, 8), 1);
    assert_eq!(rat_tails_between(10, 10), 0);
    assert_eq!(rat_tails_between(12, 3), 0, "the leader gets none");
    assert_eq!(rat_tails_between(0, 50), 23);
    // The second lap of the score track repeats the tails: 51 is 1 again.
    assert_eq!(rat_tails_between(49, 52), 1);
}

#[test]
fn components_match_the_box() {
    let total: u32 = SUPPLY.iter().map(|(_, n)| u32::from(*n)).sum();
    assert_eq!(total, 216);
    assert_eq!(STARTING_BAG.iter().map(|(_, n)| u32::from(*n)).sum::<u32>(), 9);
    assert_eq!(FORTUNE_DECK.len(), 24);
    let purple = FORTUNE_DECK
        .iter()
        .filter(|c| c.kind() == CardKind::Purple)
        .count();
    assert_eq!((purple, 24 - purple), (13, 11));
    let mut names: Vec<&str> = FORTUNE_DECK.iter().map(|c| c.name()).collect();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), 24);
    assert_eq!(price(c(Colour::Blue, 4)), Some(19));
    assert_eq!(price(c(Colour::Yellow, 2)), Some(12));
    assert_eq!(price(c(Colour::Red, 4)), Some(16));
    assert_eq!(price(PURPLE_1), Some(9));
    assert_eq!(price(BLACK_1), Some(10));
    assert_eq!(price(ORANGE_1), Some(3));
    assert_eq!(price(WHITE_1), None);
    assert_eq!(BONUS_DIE.iter().filter(|f| **f == DieFace::OnePoint).count(), 2);
}

#[test]
fn setup_gives_the_starting_bag_ruby_droplet_and_flask() {
    for n in 2..=4 {
        let g = Quacks::new(&CFG, n, 7).expect("setup");
        assert_eq!(g.round, 1);
        assert_eq!(g.deck.len(), 23);
        for p in &g.players {
            let mut owned = p.owned();
            owned.sort();
            // Round 1's card may already have given a chip; the starting bag is always there.
            for (chip, count) in STARTING_BAG {
                assert!(owned.iter().filter(|c| **c == chip).count() >= usize::from(count));
            }
            assert!(p.flask_full);
            assert!(p.pot.is_empty());
        }
        assert_chips_conserved(&g);
    }
    assert!(Quacks::new(&CFG, 1, 0).is_err());
    assert!(Quacks::new(&CFG, 5, 0).is_err());
}

// ----- random playouts, determinism -----

#[test]
fn random_playouts_2_3_4_players() {
    // Measured: about N s for the whole test in the dev profile (rules is built with opt-level 2).
    for players in 2..=4u8 {
        for seed in 0..60u64 {
            let p = random_playout::<Quacks>(
                &CFG,
                players,
                seed,
                seed * 31 + u64::from(players),
                20_000,
                assert_chips_conserved,
            );
            let outcome = p.state.outcome().expect("finished");
            assert_eq!(outcome.scores.len(), usize::from(players));
            assert_eq!(p.state.round, ROUNDS);
        }
    }
}
