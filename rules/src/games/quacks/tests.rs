//! Tests of the Quacks engine: the published component values, every ingredient and fortune card with exact
//! numbers, the round structure, hidden information, determinism and random playouts.

use super::*;
use crate::model::{Audience, Game};
use crate::testkit::{fingerprint, random_playout};

const CFG: QuacksConfig = QuacksConfig {
    stir_every_round: false,
};

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
        assert!(p.bag.is_sorted(), "the bag is kept sorted (a multiset)");
        assert!(p.aside.is_sorted(), "the chips aside are kept sorted");
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
    g.start_player = Seat(0);
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
    // The box's 219 chips less its 3 spares (docs/rules/quacks.md, "Supply and spares").
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

/// `status()` names exactly the seats that have legal actions, and `apply`'s purchase check accepts exactly the
/// listed purchases (both decide without listing every action).
#[test]
fn status_and_purchase_checks_agree_with_the_legal_actions() {
    for players in 2..=4u8 {
        for seed in 0..40u64 {
            random_playout::<Quacks>(&CFG, players, seed, seed * 17 + 3, 20_000, |state| {
                let with_actions: Vec<Seat> = Seat::all(players)
                    .filter(|s| !state.legal_actions(*s).is_empty())
                    .collect();
                match state.status() {
                    Status::Simultaneous { seats, .. } => assert_eq!(seats, with_actions),
                    Status::Over => assert!(with_actions.is_empty()),
                    other => panic!("Quacks has no {other:?} status"),
                }
                // `apply` checks purchases without listing them: the same answer as the list, for every
                // single chip and every pair of chips on sale.
                if state.phase == Phase::Evaluation {
                    for seat in with_actions {
                        let legal = state.legal_actions(seat);
                        for (i, (a, _)) in PRICES.iter().enumerate() {
                            let mut offers = vec![vec![*a]];
                            offers.extend(PRICES[i..].iter().map(|(b, _)| {
                                let mut pair = vec![*a, *b];
                                pair.sort();
                                pair
                            }));
                            for chips in offers {
                                let buy = Action::Buy { chips };
                                assert_eq!(state.is_legal(seat, &buy), legal.contains(&buy), "{buy:?}");
                            }
                        }
                    }
                }
            });
        }
    }
}

#[test]
fn random_playouts_2_3_4_players() {
    // 600 games; measured about 15 s on the shared 2-core machine (rules is built with opt-level 2).
    for players in 2..=4u8 {
        for seed in 0..200u64 {
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

/// Reseeds the generator so that the next roll of the bonus die shows `face`.
fn rig_die(g: &mut Quacks, face: DieFace) {
    let k = (0..)
        .find(|k| BONUS_DIE[Rng::from_seed(*k).index(BONUS_DIE.len())] == face)
        .expect("every face can come up");
    g.rng = Rng::from_seed(k);
}

/// Reveals `card` as the card of round `g.round + 1` (players' boards as the caller prepared them).
fn reveal(g: &mut Quacks, card: Card) -> Vec<Event<QuacksEvent>> {
    g.deck.push(card);
    let mut events = Vec::new();
    g.start_round(&mut events);
    g.advance(&mut events);
    events
}

fn die_rolls(events: &[Event<QuacksEvent>]) -> Vec<Seat> {
    events
        .iter()
        .filter_map(|e| match e.body {
            QuacksEvent::DieRolled { seat, .. } => Some(seat),
            _ => None,
        })
        .collect()
}

fn bag_count(g: &Quacks, seat: Seat, chip: Chip) -> usize {
    g.players[seat.index()].bag.iter().filter(|c| **c == chip).count()
}

fn choose(g: &mut Quacks, seat: Seat, choice: FortuneChoice) -> Vec<Event<QuacksEvent>> {
    act(g, seat, Action::Fortune { choice })
}

const W1: Chip = WHITE_1;
const W2: Chip = WHITE_2;
const W3: Chip = WHITE_3;
const O1: Chip = ORANGE_1;
const G1: Chip = GREEN_1;

// ----- brewing -----

#[test]
fn chips_move_by_their_value_from_the_last_one_and_score_the_next_space() {
    let mut g = table(2, 1, QUIET);
    brew(&mut g, s(0), &[W1, O1, W2, G1, W3]);
    assert_eq!(spaces(&g, s(0)), vec![1, 2, 4, 5, 8]);
    assert_eq!(g.players[0].whites, 6);
    assert_eq!(g.players[0].brew, Brew::Brewing);
    g.players[1].droplet = 20; // seat 1 goes further and takes the die
    let events = stop_all(&mut g);
    assert!(events.iter().any(|e| e.body
        == QuacksEvent::Scoring {
            seat: s(0),
            space: 9,
            coins: 9,
            points: 1,
            exploded: false
        }));
    assert_eq!(die_rolls(&events), vec![s(1)]);
    assert_eq!(
        rubies_from(&events, s(0), Reason::Spider),
        1,
        "green next-to-last"
    );
    assert_eq!(
        rubies_from(&events, s(0), Reason::RubySpace),
        1,
        "space 9 has a ruby"
    );
    assert_eq!(points_from(&events, s(0), Reason::ScoringSpace), 1);
    assert_eq!(g.players[0].score, 1);
    assert_eq!(g.players[0].rubies, STARTING_RUBIES + 2);
    assert_eq!(g.players[0].coins, 9);
    assert_eq!(g.players[0].shop, Shop::Buying);
}

#[test]
fn the_pot_explodes_at_8_white_points_not_at_7_and_the_chip_stays() {
    let mut g = table(2, 1, QUIET);
    brew(&mut g, s(0), &[W3, W2, W2]);
    assert_eq!(g.players[0].whites, 7);
    assert_eq!(g.players[0].brew, Brew::Brewing);
    assert!(g.legal_actions(s(0)).contains(&Action::Draw));
    let events = {
        let mut bag = g.players[0].bag.clone();
        bag.push(W1);
        set_bag(&mut g, s(0), &bag);
        draw(&mut g, s(0), W1)
    };
    assert!(
        events
            .iter()
            .any(|e| e.body == QuacksEvent::Exploded { seat: s(0) })
    );
    assert_eq!(g.players[0].whites, 8);
    assert_eq!(spaces(&g, s(0)), vec![3, 5, 7, 8], "the exploding chip is placed");
    assert_eq!(g.players[0].brew, Brew::Exploded);
    assert!(
        g.legal_actions(s(0)).is_empty(),
        "an exploded pot takes no more chips"
    );
    assert!(!g.legal_actions(s(0)).contains(&Action::UseFlask));

    // Evaluation: seat 1 (not exploded, nearer) rolls; seat 0 chooses points or buying.
    let events = stop_all(&mut g);
    assert_eq!(die_rolls(&events), vec![s(1)]);
    assert_eq!(g.players[0].shop, Shop::PointsOrBuying);
    assert_eq!(g.players[0].scoring_space, 9);
    let legal = g.legal_actions(s(0));
    assert_eq!(legal[0], Action::TakePoints);
    assert!(legal.contains(&Action::Buy { chips: vec![O1] }));
    let before = g.players[0].score;
    act(&mut g, s(0), Action::TakePoints);
    assert_eq!(g.players[0].score, before + 1);
    assert!(
        !g.legal_actions(s(0))
            .iter()
            .any(|a| matches!(a, Action::Buy { .. })),
        "points or buying, not both"
    );
}

#[test]
fn living_in_luxury_raises_the_limit_to_9() {
    let mut g = table(2, 1, Card::LivingInLuxury);
    brew(&mut g, s(0), &[W3, W3, W3]);
    assert_eq!((g.players[0].whites, g.players[0].brew), (9, Brew::Brewing));
    brew(&mut g, s(0), &[W1]);
    assert_eq!((g.players[0].whites, g.players[0].brew), (10, Brew::Exploded));
}

#[test]
fn the_flask_returns_a_white_just_placed_once() {
    let mut g = table(2, 1, QUIET);
    brew(&mut g, s(0), &[O1, W3]);
    assert!(g.legal_actions(s(0)).contains(&Action::UseFlask));
    let w_before = bag_count(&g, s(0), W3);
    act(&mut g, s(0), Action::UseFlask);
    assert_eq!(spaces(&g, s(0)), vec![1]);
    assert_eq!(g.players[0].whites, 0);
    assert_eq!(bag_count(&g, s(0), W3), w_before + 1);
    assert!(!g.players[0].flask_full);
    brew(&mut g, s(0), &[W2]);
    assert_eq!(
        spaces(&g, s(0)),
        vec![1, 3],
        "the next chip counts from the last one left"
    );
    assert!(
        !g.legal_actions(s(0)).contains(&Action::UseFlask),
        "the flask is empty"
    );
    assert_eq!(g.explain(s(0), &Action::UseFlask), QuacksReject::FlaskEmpty);
    // A full flask does not return a chip that is not white.
    let mut g = table(2, 1, QUIET);
    brew(&mut g, s(0), &[W1, O1]);
    assert!(!g.legal_actions(s(0)).contains(&Action::UseFlask));
}

#[test]
fn pumpkin_moves_its_value_and_one_more_at_the_pumpkin_patch_party() {
    let mut g = table(2, 1, QUIET);
    brew(&mut g, s(0), &[O1, O1]);
    assert_eq!(spaces(&g, s(0)), vec![1, 2]);
    let mut g = table(2, 1, Card::PumpkinPatchParty);
    brew(&mut g, s(0), &[O1, W1, O1]);
    assert_eq!(spaces(&g, s(0)), vec![2, 3, 5]);
}

#[test]
fn toadstool_counts_the_pumpkins_already_in_the_pot() {
    let r1 = c(Colour::Red, 1);
    let r2 = c(Colour::Red, 2);
    let mut g = table(2, 1, QUIET);
    brew(&mut g, s(0), &[r1]);
    assert_eq!(spaces(&g, s(0)), vec![1], "no pumpkin: +0");
    let mut g = table(2, 1, QUIET);
    brew(&mut g, s(0), &[O1, O1, r1]);
    assert_eq!(spaces(&g, s(0)), vec![1, 2, 4], "2 pumpkins: +1");
    let mut g = table(2, 1, QUIET);
    brew(&mut g, s(0), &[O1, O1, O1, r2]);
    assert_eq!(spaces(&g, s(0)), vec![1, 2, 3, 7], "3 pumpkins: +2");
}

#[test]
fn crow_skull_lets_its_owner_alone_look_at_its_value_in_chips_and_place_one() {
    let b2 = c(Colour::Blue, 2);
    let mut g = table(2, 1, QUIET);
    set_bag(&mut g, s(0), &[b2, G1, O1]);
    let events = draw(&mut g, s(0), b2);
    assert_eq!(spaces(&g, s(0)), vec![2]);
    assert_eq!(g.players[0].aside, vec![O1, G1]);
    assert!(g.players[0].bag.is_empty());
    for e in &events {
        if let QuacksEvent::LookingAt { seat, chips } = &e.body {
            assert_eq!(*seat, s(0));
            assert_eq!(chips, &vec![O1, G1]);
            assert_eq!(e.audience, Audience::only(s(0)), "the chips looked at are secret");
        } else if let QuacksEvent::DrewToLookAt { count, .. } = e.body {
            assert_eq!(count, 2);
        } else {
            assert_eq!(e.audience, Audience::Everyone);
        }
    }
    assert_eq!(
        g.legal_actions(s(0)),
        vec![
            Action::Place { chip: O1 },
            Action::Place { chip: G1 },
            Action::PlaceNone
        ]
    );
    act(&mut g, s(0), Action::Place { chip: G1 });
    assert_eq!(spaces(&g, s(0)), vec![2, 3]);
    assert_eq!(g.players[0].bag, vec![O1]);
    assert!(g.players[0].aside.is_empty());

    // Putting them all back.
    let mut g = table(2, 1, QUIET);
    set_bag(&mut g, s(0), &[b2, G1, O1]);
    draw(&mut g, s(0), b2);
    act(&mut g, s(0), Action::PlaceNone);
    assert_eq!(spaces(&g, s(0)), vec![2]);
    assert_eq!(g.players[0].bag, vec![O1, G1]);

    // The chip placed acts: a toadstool counts the pumpkins, a white can explode the pot, a blue chains.
    let b1 = c(Colour::Blue, 1);
    let r1 = c(Colour::Red, 1);
    let mut g = table(2, 1, QUIET);
    brew(&mut g, s(0), &[O1]);
    set_bag(&mut g, s(0), &[b1, r1]);
    draw(&mut g, s(0), b1);
    act(&mut g, s(0), Action::Place { chip: r1 });
    assert_eq!(spaces(&g, s(0)), vec![1, 2, 4]);
    let mut g = table(2, 1, QUIET);
    brew(&mut g, s(0), &[W3, W3]);
    set_bag(&mut g, s(0), &[b1, W2]);
    draw(&mut g, s(0), b1);
    act(&mut g, s(0), Action::Place { chip: W2 });
    assert_eq!(g.players[0].brew, Brew::Exploded);
    let mut g = table(2, 1, QUIET);
    set_bag(&mut g, s(0), &[b1, b1, O1]);
    draw(&mut g, s(0), b1);
    let looked = g.players[0].aside[0];
    act(&mut g, s(0), Action::Place { chip: looked });
    if looked == b1 {
        assert_eq!(
            g.players[0].aside,
            vec![O1],
            "the second skull looks at the last chip"
        );
    }
}

#[test]
fn mandrake_may_send_back_the_white_placed_just_before_it() {
    let y1 = c(Colour::Yellow, 1);
    let mut g = table(2, 2, QUIET);
    brew(&mut g, s(0), &[W2, y1]);
    assert_eq!(spaces(&g, s(0)), vec![2, 3]);
    assert!(g.legal_actions(s(0)).contains(&Action::ReturnWhiteBeforeMandrake));
    let before = bag_count(&g, s(0), W2);
    act(&mut g, s(0), Action::ReturnWhiteBeforeMandrake);
    assert_eq!(g.players[0].whites, 0);
    assert_eq!(
        spaces(&g, s(0)),
        vec![3],
        "the yellow stays, the white's space is empty"
    );
    assert_eq!(bag_count(&g, s(0), W2), before + 1);
    brew(&mut g, s(0), &[O1]);
    assert_eq!(spaces(&g, s(0)), vec![3, 4]);
    // Not after a chip that is not white, and only right after the mandrake.
    let mut g = table(2, 2, QUIET);
    brew(&mut g, s(0), &[O1, y1]);
    assert!(!g.legal_actions(s(0)).contains(&Action::ReturnWhiteBeforeMandrake));
    let mut g = table(2, 2, QUIET);
    brew(&mut g, s(0), &[W1, y1, O1]);
    assert!(!g.legal_actions(s(0)).contains(&Action::ReturnWhiteBeforeMandrake));
}

#[test]
fn spider_gives_a_ruby_for_each_green_among_the_last_two_chips() {
    for (pot, rubies) in [
        (vec![G1], 1),
        (vec![G1, O1], 1),
        (vec![G1, O1, O1], 0),
        (vec![O1, G1, G1], 2),
    ] {
        let mut g = table(2, 1, QUIET);
        brew(&mut g, s(0), &pot);
        let events = stop_all(&mut g);
        assert_eq!(rubies_from(&events, s(0), Reason::Spider), rubies, "{pot:?}");
    }
}

#[test]
fn ghosts_breath_pays_by_the_number_of_purples() {
    for (purples, points, rubies, steps) in [(1, 1, 0, 0), (2, 1, 1, 0), (3, 2, 0, 1), (4, 2, 0, 1)] {
        let mut g = table(2, 3, QUIET);
        brew(&mut g, s(0), &vec![PURPLE_1; purples]);
        let events = stop_all(&mut g);
        assert_eq!(points_from(&events, s(0), Reason::GhostsBreath), points);
        assert_eq!(rubies_from(&events, s(0), Reason::GhostsBreath), rubies);
        assert_eq!(droplet_from(&events, s(0), Reason::GhostsBreath), steps);
    }
}

#[test]
fn moths_with_two_players() {
    for (mine, theirs, steps, rubies) in [
        (1, 0, 1, 1),
        (1, 1, 1, 0),
        (0, 0, 0, 0),
        (0, 2, 0, 0),
        (3, 2, 1, 1),
    ] {
        let mut g = table(2, 1, QUIET);
        brew(&mut g, s(0), &vec![BLACK_1; mine]);
        brew(&mut g, s(1), &vec![BLACK_1; theirs]);
        let droplet = g.players[0].droplet;
        let events = stop_all(&mut g);
        assert_eq!(
            droplet_from(&events, s(0), Reason::Moth),
            steps,
            "{mine} v {theirs}"
        );
        assert_eq!(
            rubies_from(&events, s(0), Reason::Moth),
            rubies,
            "{mine} v {theirs}"
        );
        assert!(g.players[0].droplet >= droplet + steps);
    }
}

#[test]
fn moths_with_three_and_four_players_compare_both_neighbours() {
    // (blacks per seat, expected (droplet steps, rubies) per seat)
    type Case = (Vec<usize>, Vec<(u8, u32)>);
    let cases: [Case; 3] = [
        (vec![2, 1, 3, 0], vec![(1, 1), (0, 0), (1, 1), (0, 0)]),
        (vec![1, 1, 0], vec![(1, 0), (1, 0), (0, 0)]),
        (vec![1, 1, 1, 1], vec![(0, 0); 4]),
    ];
    for (blacks, expected) in cases {
        let n = blacks.len() as u8;
        let mut g = table(n, 1, QUIET);
        for (i, b) in blacks.iter().enumerate() {
            brew(&mut g, s(i as u8), &vec![BLACK_1; *b]);
        }
        let events = stop_all(&mut g);
        for (i, (steps, rubies)) in expected.iter().enumerate() {
            assert_eq!(
                droplet_from(&events, s(i as u8), Reason::Moth),
                *steps,
                "{blacks:?} seat {i}"
            );
            assert_eq!(
                rubies_from(&events, s(i as u8), Reason::Moth),
                *rubies,
                "{blacks:?} seat {i}"
            );
        }
    }
}

#[test]
fn bonus_die_goes_to_every_furthest_unexploded_pot() {
    let mut g = table(3, 1, QUIET);
    brew(&mut g, s(0), &[O1, O1]);
    brew(&mut g, s(1), &[c(Colour::Red, 2)]);
    brew(&mut g, s(2), &[O1, O1, O1, W3, W3, W2]); // exploded, furthest
    assert_eq!(g.players[2].brew, Brew::Exploded);
    let events = stop_all(&mut g);
    assert_eq!(
        die_rolls(&events),
        vec![s(0), s(1)],
        "a tie: both roll, in start-player order"
    );
    // The Pot Is Full: each roller rolls twice.
    let mut g = table(2, 1, Card::ThePotIsFull);
    brew(&mut g, s(0), &[O1]);
    let events = stop_all(&mut g);
    assert_eq!(die_rolls(&events), vec![s(0), s(0)]);
}

#[test]
fn every_die_face_pays_what_it_shows() {
    for (face, points, rubies, droplet, pumpkins) in [
        (DieFace::OnePoint, 1, 0, 0, 0),
        (DieFace::TwoPoints, 2, 0, 0, 0),
        (DieFace::Ruby, 0, 1, 0, 0),
        (DieFace::Droplet, 0, 0, 1, 0),
        (DieFace::Pumpkin, 0, 0, 0, 1),
    ] {
        let mut g = table(2, 1, QUIET);
        brew(&mut g, s(0), &[G1, G1]);
        let oranges = bag_count(&g, s(0), O1);
        rig_die(&mut g, face);
        let events = stop_all(&mut g);
        assert_eq!(points_from(&events, s(0), Reason::BonusDie), points);
        assert_eq!(rubies_from(&events, s(0), Reason::BonusDie), rubies);
        assert_eq!(droplet_from(&events, s(0), Reason::BonusDie), droplet);
        assert_eq!(bag_count(&g, s(0), O1), oranges + pumpkins);
    }
}

// ----- evaluation steps E and F, books, special rounds -----

#[test]
fn buying_one_or_two_chips_of_different_colours_from_open_books() {
    let mut g = table(2, 1, QUIET);
    g.players[0].droplet = 12; // an empty pot scores space 13: 13 coins and a ruby
    g.players[0].rubies = 2;
    rig_die(&mut g, DieFace::OnePoint);
    stop_all(&mut g);
    assert_eq!(g.players[0].rubies, 3);
    assert_eq!(g.players[0].coins, 13);
    let legal = g.legal_actions(s(0));
    let b2 = c(Colour::Blue, 2);
    let b1 = c(Colour::Blue, 1);
    assert!(
        legal.contains(&Action::Buy { chips: vec![O1, b2] }),
        "3 + 10 = 13"
    );
    assert!(!legal.contains(&Action::Buy { chips: vec![b1, b2] }));
    let probe = |g: &Quacks, chips: Vec<Chip>| {
        let mut g = g.clone();
        g.apply(Actor::Seat(s(0)), &Action::Buy { chips }, 0).unwrap_err()
    };
    assert_eq!(probe(&g, vec![b1, b2]), QuacksReject::SameColour);
    assert_eq!(
        probe(&g, vec![c(Colour::Blue, 4)]),
        QuacksReject::CannotAfford { cost: 19, coins: 13 }
    );
    assert_eq!(
        probe(&g, vec![c(Colour::Yellow, 1)]),
        QuacksReject::BookNotInPlay {
            colour: Colour::Yellow
        }
    );
    assert_eq!(
        probe(&g, vec![PURPLE_1]),
        QuacksReject::BookNotInPlay {
            colour: Colour::Purple
        }
    );
    assert!(
        !legal
            .iter()
            .any(|a| matches!(a, Action::Buy { chips } if chips.contains(&WHITE_1)))
    );
    let supply = g.in_supply(b2);
    // Either order is accepted.
    act(&mut g, s(0), Action::Buy { chips: vec![b2, O1] });
    assert_eq!(g.in_supply(b2), supply - 1);
    assert_eq!(bag_count(&g, s(0), b2), 1);
    assert_eq!(g.players[0].coins, 0, "leftover coins are lost");
    // Step F: 3 rubies buy one droplet step (or the flask, which is full).
    assert_eq!(g.players[0].shop, Shop::Spending);
    assert_eq!(
        g.legal_actions(s(0)),
        vec![Action::MoveDroplet, Action::FinishRound]
    );
    act(&mut g, s(0), Action::MoveDroplet);
    assert_eq!((g.players[0].droplet, g.players[0].rubies), (13, 1));
    assert_eq!(g.players[0].shop, Shop::Done, "nothing left to spend");

    // Yellow from round 2, purple from round 3.
    for (round, yellow, purple) in [(1, false, false), (2, true, false), (3, true, true)] {
        let mut g = table(2, round, QUIET);
        g.players[0].droplet = 14;
        stop_all(&mut g);
        let legal = g.legal_actions(s(0));
        let has = |chip: Chip| legal.contains(&Action::Buy { chips: vec![chip] });
        assert_eq!(has(c(Colour::Yellow, 1)), yellow, "round {round}");
        assert_eq!(has(PURPLE_1), purple, "round {round}");
    }
}

#[test]
fn a_sold_out_chip_cannot_be_bought() {
    let mut g = table(2, 1, QUIET);
    g.players[0].droplet = 12;
    stop_all(&mut g);
    for entry in &mut g.supply {
        if entry.0 == BLACK_1 {
            entry.1 = 0;
        }
    }
    assert!(
        !g.legal_actions(s(0))
            .contains(&Action::Buy { chips: vec![BLACK_1] })
    );
    assert_eq!(
        g.clone()
            .apply(Actor::Seat(s(0)), &Action::Buy { chips: vec![BLACK_1] }, 0)
            .unwrap_err(),
        QuacksReject::SoldOut { chip: BLACK_1 }
    );
}

#[test]
fn rubies_refill_the_flask() {
    let mut g = table(2, 1, QUIET);
    g.players[0].flask_full = false;
    g.players[0].rubies = 4;
    stop_all(&mut g);
    act(&mut g, s(0), Action::BuyNothing);
    assert_eq!(
        g.legal_actions(s(0)),
        vec![Action::MoveDroplet, Action::RefillFlask, Action::FinishRound]
    );
    act(&mut g, s(0), Action::RefillFlask);
    assert!(g.players[0].flask_full);
    assert_eq!(
        g.legal_actions(s(0)),
        vec![Action::MoveDroplet, Action::FinishRound]
    );
    act(&mut g, s(0), Action::FinishRound);
    assert_eq!(g.players[0].rubies, 2);
}

#[test]
fn rats_start_the_pot_past_the_droplet_from_round_2() {
    let mut g = table(3, 1, QUIET);
    g.players[0].score = 10;
    g.players[1].score = 2;
    g.players[2].score = 1;
    g.players[2].droplet = 1;
    for p in &mut g.players {
        p.reset_for_round();
    }
    reveal(&mut g, Card::PumpkinPatchParty);
    assert_eq!(g.round, 2);
    let tails: Vec<u32> = g.players.iter().map(|p| p.rat_tails).collect();
    assert_eq!(tails, vec![0, 2, 3]);
    brew(&mut g, s(2), &[W1]);
    assert_eq!(
        spaces(&g, s(2)),
        vec![1 + 3 + 1],
        "droplet 1, rat 3 further, then the chip"
    );
    // The droplet stays; the rat goes back after the round.
    g.players[2].reset_for_round();
    assert_eq!((g.players[2].droplet, g.players[2].rat_tails), (1, 0));
    // No rats in round 1.
    let mut g = table(2, 0, QUIET);
    g.players[0].score = 10;
    reveal(&mut g, Card::PumpkinPatchParty);
    assert_eq!(g.players[1].rat_tails, 0);
}

#[test]
fn round_6_adds_a_white_1_to_every_bag_and_the_start_player_moves_left() {
    let mut g = table(3, 5, QUIET);
    let whites: Vec<usize> = (0..3).map(|i| bag_count(&g, s(i), W1)).collect();
    let mut events = Vec::new();
    g.phase = Phase::Evaluation;
    for p in &mut g.players {
        p.shop = Shop::Done;
    }
    g.deck.push(Card::PumpkinPatchParty);
    g.advance(&mut events);
    assert_eq!(g.round, 6);
    assert_eq!(g.start_player, s(1));
    for i in 0..3 {
        assert_eq!(bag_count(&g, s(i), W1), whites[usize::from(i)] + 1);
    }
    assert!(events.iter().any(|e| e.body
        == QuacksEvent::RoundStarted {
            round: 6,
            start_player: s(1)
        }));
}

#[test]
fn books_open_in_rounds_2_and_3() {
    let mut g = table(2, 1, QUIET);
    let events = reveal(&mut g, Card::PumpkinPatchParty);
    assert!(events.iter().any(|e| e.body
        == QuacksEvent::BookOpened {
            colour: Colour::Yellow
        }));
    let events = reveal(&mut g, Card::LuckyDevil);
    assert!(events.iter().any(|e| e.body
        == QuacksEvent::BookOpened {
            colour: Colour::Purple
        }));
    assert_eq!(
        g.view(Viewer::Spectator).books,
        vec![
            Colour::Orange,
            Colour::Green,
            Colour::Blue,
            Colour::Red,
            Colour::Yellow,
            Colour::Purple,
            Colour::Black
        ]
    );
}

// ----- round 9 and the end -----

#[test]
fn round_9_draws_in_lockstep_with_secret_commitments() {
    let mut g = table(3, 9, QUIET);
    assert_eq!(
        g.status(),
        Status::Simultaneous {
            seats: vec![s(0), s(1), s(2)],
            secret: true
        }
    );
    set_bag(&mut g, s(0), &[O1]);
    set_bag(&mut g, s(2), &[G1]);
    let events = act(&mut g, s(0), Action::Draw);
    assert!(g.players[0].pot.is_empty(), "nothing is drawn before the stir");
    assert!(g.legal_actions(s(0)).is_empty(), "a commitment is final");
    for e in &events {
        match e.body {
            QuacksEvent::CommittedTo { .. } => assert_eq!(e.audience, Audience::only(s(0))),
            _ => assert_eq!(e.audience, Audience::Everyone),
        }
    }
    // Others cannot tell a draw from a stop before the stir.
    let mut other = g.clone();
    other.players[0].commitment = Some(Commitment::Stop);
    for viewer in [Viewer::Seat(s(1)), Viewer::Seat(s(2)), Viewer::Spectator] {
        assert_eq!(fingerprint(&g.view(viewer)), fingerprint(&other.view(viewer)));
    }
    assert_ne!(
        fingerprint(&g.view(Viewer::Seat(s(0)))),
        fingerprint(&other.view(Viewer::Seat(s(0))))
    );
    act(&mut g, s(1), Action::Stop);
    assert!(
        g.players[1].brew == Brew::Brewing,
        "the stop waits for the stir too"
    );
    let events = act(&mut g, s(2), Action::Draw);
    assert!(events.iter().any(|e| e.body
        == QuacksEvent::Stirred {
            draw: vec![s(0), s(2)],
            stop: vec![s(1)]
        }));
    assert_eq!(spaces(&g, s(0)), vec![1]);
    assert_eq!(spaces(&g, s(2)), vec![1]);
    assert_eq!(g.players[1].brew, Brew::Stopped);
    // Only the two still brewing continue; bags are empty now, so they can only stop.
    assert_eq!(g.legal_actions(s(0)), vec![Action::Stop]);
    assert!(g.legal_actions(s(1)).is_empty());
}

#[test]
fn the_end_converts_coins_and_rubies_into_points() {
    let mut g = table(2, 9, QUIET);
    g.players[0].droplet = 22; // scoring space 23: 19 coins, 5 points, no ruby
    g.players[0].rubies = 5;
    g.players[1].rubies = 1;
    rig_die(&mut g, DieFace::OnePoint);
    let events = stop_all(&mut g);
    assert_eq!(g.status(), Status::Over);
    assert!(events.iter().any(|e| e.body
        == QuacksEvent::Converted {
            seat: s(0),
            coins: 19,
            rubies: 0,
            points: 3
        }));
    assert!(events.iter().any(|e| e.body
        == QuacksEvent::Converted {
            seat: s(0),
            coins: 0,
            rubies: 4,
            points: 2
        }));
    // 5 (space 23) + 1 (die) + 3 (19 coins) + 2 (4 of 5 rubies)
    assert_eq!(g.players[0].score, 11);
    assert_eq!(g.players[0].rubies, 1);
    // Seat 1: space 1 (1 coin, 0 points) and 1 ruby: nothing to convert.
    assert_eq!(g.players[1].score, 0);
    let outcome = g.outcome().expect("over");
    assert_eq!(outcome.scores, vec![11, 0]);
    assert_eq!(outcome.winners, vec![s(0)]);
    assert!(g.legal_actions(s(0)).is_empty());
    assert_eq!(
        g.clone().apply(Actor::Seat(s(0)), &Action::Stop, 0).unwrap_err(),
        QuacksReject::GameOver
    );
}

#[test]
fn an_exploded_pot_in_round_9_takes_points_or_converts_its_coins() {
    for (action, points) in [(Action::TakePoints, 7), (Action::ConvertCoins, 4)] {
        let mut g = table(2, 9, QUIET);
        g.players[0].droplet = 21; // chips at 24, 25, 27, 29: scoring space 30 = 22 coins, 7 points, ruby
        g.players[0].rubies = 0;
        set_bag(&mut g, s(0), &[W3, W1, W2, W2]);
        for chip in [W3, W1, W2] {
            draw(&mut g, s(0), chip);
            act(&mut g, s(1), Action::Draw);
            assert_eq!(g.players[0].brew, Brew::Brewing);
        }
        draw(&mut g, s(0), W2);
        act(&mut g, s(1), Action::Stop);
        assert_eq!(spaces(&g, s(0)), vec![24, 25, 27, 29]);
        assert_eq!(g.players[0].brew, Brew::Exploded);
        assert_eq!(g.players[0].scoring_space, 30);
        assert_eq!(
            g.legal_actions(s(0)),
            vec![Action::TakePoints, Action::ConvertCoins]
        );
        act(&mut g, s(0), action);
        assert_eq!(g.status(), Status::Over);
        // space 30's ruby (1) is converted with nothing else: 0 points from rubies.
        assert_eq!(g.players[0].score, points, "7 points, or 22 coins / 5 = 4");
    }
}

#[test]
fn ties_go_to_the_furthest_pot_of_the_last_round_then_are_shared() {
    let mut g = table(3, 9, QUIET);
    g.phase = Phase::Over;
    for (i, (score, space)) in [(40, 20), (40, 25), (38, 30)].into_iter().enumerate() {
        g.players[i].score = score;
        g.players[i].scoring_space = space;
    }
    let o = g.outcome().expect("over");
    assert_eq!(o.placings, vec![2, 1, 3]);
    g.players[0].scoring_space = 25;
    let o = g.outcome().expect("over");
    assert_eq!(o.placings, vec![1, 1, 3]);
    assert_eq!(o.winners, vec![s(0), s(1)]);
}

// ----- the fortune-teller cards: purple -----

fn fortune(card: Card) -> Reason {
    Reason::Fortune { card }
}

#[test]
fn card_roll_the_die_every_player_rolls_once() {
    let mut g = table(3, 0, QUIET);
    let events = reveal(&mut g, Card::RollTheDie);
    assert_eq!(die_rolls(&events), vec![s(0), s(1), s(2)]);
    for i in 0..3 {
        assert_eq!(gains(&events, s(i), fortune(Card::RollTheDie)).len(), 1);
    }
}

#[test]
fn card_the_pot_is_filling_up_moves_every_droplet() {
    let mut g = table(3, 0, QUIET);
    g.players[1].droplet = 4;
    reveal(&mut g, Card::ThePotIsFillingUp);
    let droplets: Vec<u8> = g.players.iter().map(|p| p.droplet).collect();
    assert_eq!(droplets, vec![1, 5, 1]);
}

#[test]
fn card_charity_gives_a_ruby_to_all_with_fewest() {
    let mut g = table(3, 0, QUIET);
    for (i, r) in [1, 0, 0].into_iter().enumerate() {
        g.players[i].rubies = r;
    }
    reveal(&mut g, Card::Charity);
    let rubies: Vec<u32> = g.players.iter().map(|p| p.rubies).collect();
    assert_eq!(rubies, vec![1, 1, 1]);
}

#[test]
fn card_beginners_bonus_gives_a_green_1_to_all_with_fewest_points() {
    let mut g = table(3, 0, QUIET);
    for (i, score) in [3, 1, 1].into_iter().enumerate() {
        g.players[i].score = score;
    }
    let greens: Vec<usize> = (0..3).map(|i| bag_count(&g, s(i), G1)).collect();
    reveal(&mut g, Card::BeginnersBonus);
    let after: Vec<usize> = (0..3).map(|i| bag_count(&g, s(i), G1)).collect();
    assert_eq!(after, vec![greens[0], greens[1] + 1, greens[2] + 1]);
}

#[test]
fn card_rat_infestation_doubles_the_rat_tails() {
    let mut g = table(2, 1, QUIET);
    g.players[0].score = 10;
    g.players[1].score = 2;
    reveal(&mut g, Card::RatInfestation);
    assert_eq!(g.players[1].rat_tails, 4);
    assert_eq!(g.players[1].start_space(), 4);
}

#[test]
fn card_rats_are_your_friends_a_4_chip_or_a_point_per_rat_tail() {
    let mut g = table(2, 1, QUIET);
    g.players[0].score = 10;
    g.players[1].score = 2;
    reveal(&mut g, Card::RatsAreYourFriends);
    let legal = g.legal_actions(s(1));
    let expected: Vec<Action> = [Colour::Green, Colour::Blue, Colour::Red, Colour::Yellow]
        .into_iter()
        .map(|colour| FortuneChoice::TakeChip { chip: c(colour, 4) })
        .chain([FortuneChoice::PointsForRatTails])
        .map(|choice| Action::Fortune { choice })
        .collect();
    assert_eq!(legal, expected);
    assert!(
        !legal.contains(&Action::Draw),
        "the card is answered before brewing"
    );
    choose(&mut g, s(1), FortuneChoice::PointsForRatTails);
    assert_eq!(g.players[1].score, 4);
    assert_eq!(g.players[1].rat_tails, 2, "the rat is still placed");
    // Seat 1 brews while seat 0 has not answered yet.
    assert!(g.legal_actions(s(1)).contains(&Action::Draw));
    let b4 = c(Colour::Blue, 4);
    choose(&mut g, s(0), FortuneChoice::TakeChip { chip: b4 });
    assert_eq!(bag_count(&g, s(0), b4), 1);
}

#[test]
fn card_a_good_start_trades_up_to_3_rat_tails_for_rubies() {
    let mut g = table(2, 1, QUIET);
    g.players[0].score = 10;
    g.players[1].score = 2;
    g.players[1].rubies = 0;
    reveal(&mut g, Card::AGoodStart);
    assert!(
        g.legal_actions(s(0)).contains(&Action::Draw),
        "no rat tails, nothing to choose"
    );
    assert_eq!(
        g.legal_actions(s(1)),
        vec![
            Action::Fortune {
                choice: FortuneChoice::KeepRatTails
            },
            Action::Fortune {
                choice: FortuneChoice::TradeRatTails { tails: 1 }
            },
            Action::Fortune {
                choice: FortuneChoice::TradeRatTails { tails: 2 }
            },
        ]
    );
    choose(&mut g, s(1), FortuneChoice::TradeRatTails { tails: 2 });
    assert_eq!((g.players[1].rubies, g.players[1].rat_tails), (2, 0));
    let mut g = table(2, 1, QUIET);
    g.players[0].score = 20;
    reveal(&mut g, Card::AGoodStart);
    assert_eq!(g.players[1].rat_tails, 8);
    assert_eq!(g.legal_actions(s(1)).len(), 4, "keep, or trade 1, 2 or 3");
}

#[test]
fn card_just_in_time_four_points_or_a_white_1_out_of_the_bag() {
    let mut g = table(2, 0, QUIET);
    reveal(&mut g, Card::JustInTime);
    let whites = bag_count(&g, s(1), W1);
    let supply = g.in_supply(W1);
    choose(&mut g, s(0), FortuneChoice::FourPoints);
    choose(&mut g, s(1), FortuneChoice::RemoveWhite);
    assert_eq!(g.players[0].score, 4);
    assert_eq!(bag_count(&g, s(1), W1), whites - 1);
    assert_eq!(g.in_supply(W1), supply + 1);
    assert_chips_conserved(&g);
}

#[test]
fn card_you_only_get_to_choose_one_black_a_2_chip_or_3_rubies() {
    let mut g = table(2, 0, QUIET);
    reveal(&mut g, Card::YouOnlyGetToChooseOne);
    let legal = g.legal_actions(s(0));
    let take = |chip| Action::Fortune {
        choice: FortuneChoice::TakeChip { chip },
    };
    assert_eq!(
        legal,
        vec![
            take(BLACK_1),
            take(c(Colour::Green, 2)),
            take(c(Colour::Blue, 2)),
            take(c(Colour::Red, 2)),
            Action::Fortune {
                choice: FortuneChoice::ThreeRubies
            },
        ],
        "no yellow in round 1"
    );
    choose(&mut g, s(0), FortuneChoice::ThreeRubies);
    choose(
        &mut g,
        s(1),
        FortuneChoice::TakeChip {
            chip: c(Colour::Red, 2),
        },
    );
    assert_eq!(g.players[0].rubies, STARTING_RUBIES + 3);
    assert_eq!(bag_count(&g, s(1), c(Colour::Red, 2)), 1);
}

#[test]
fn card_choose_wisely_two_droplet_steps_or_a_purple_once_its_book_is_open() {
    let mut g = table(2, 1, QUIET);
    reveal(&mut g, Card::ChooseWisely);
    assert_eq!(
        g.legal_actions(s(0)),
        vec![Action::Fortune {
            choice: FortuneChoice::DropletSteps
        }]
    );
    choose(&mut g, s(0), FortuneChoice::DropletSteps);
    assert_eq!(g.players[0].droplet, 2);
    let mut g = table(2, 2, QUIET);
    reveal(&mut g, Card::ChooseWisely);
    choose(&mut g, s(1), FortuneChoice::TakeChip { chip: PURPLE_1 });
    assert_eq!(bag_count(&g, s(1), PURPLE_1), 1);
}

#[test]
fn card_wheel_and_deal_a_ruby_for_a_1_chip() {
    let mut g = table(2, 0, QUIET);
    g.players[1].rubies = 0;
    reveal(&mut g, Card::WheelAndDeal);
    assert!(
        g.legal_actions(s(1)).contains(&Action::Draw),
        "no ruby, nothing to trade"
    );
    let take = |chip| Action::Fortune {
        choice: FortuneChoice::TakeChip { chip },
    };
    assert_eq!(
        g.legal_actions(s(0)),
        vec![
            take(O1),
            take(G1),
            take(c(Colour::Blue, 1)),
            take(c(Colour::Red, 1)),
            Action::Fortune {
                choice: FortuneChoice::Decline
            },
        ],
        "never purple or black"
    );
    choose(
        &mut g,
        s(0),
        FortuneChoice::TakeChip {
            chip: c(Colour::Red, 1),
        },
    );
    assert_eq!(g.players[0].rubies, 0);
    assert_eq!(bag_count(&g, s(0), c(Colour::Red, 1)), 1);
}

#[test]
fn card_an_opportunistic_moment_trades_one_of_four_chips_up_or_gives_a_green() {
    let g2 = c(Colour::Green, 2);
    let mut g = table(2, 0, QUIET);
    set_bag(&mut g, s(0), &[G1, g2, O1, W1]);
    set_bag(&mut g, s(1), &[O1, W1, W2, W3]);
    let (greens, green_2s) = (g.in_supply(G1), g.in_supply(g2));
    let events = reveal(&mut g, Card::AnOpportunisticMoment);
    for e in &events {
        if let QuacksEvent::LookingAt { seat, .. } = e.body {
            assert_eq!(e.audience, Audience::only(seat));
        }
    }
    assert_eq!(
        g.legal_actions(s(0)),
        vec![
            Action::Fortune {
                choice: FortuneChoice::TradeUp { chip: G1 }
            },
            Action::Fortune {
                choice: FortuneChoice::TradeUp { chip: g2 }
            },
            Action::Fortune {
                choice: FortuneChoice::Decline
            },
        ]
    );
    // Seat 1 could trade nothing up: a green 1 instead, and all chips back.
    assert_eq!(g.players[1].bag, vec![W1, W2, W3, O1, G1]);
    assert!(g.players[1].pending.is_none());
    choose(&mut g, s(0), FortuneChoice::TradeUp { chip: G1 });
    assert_eq!(g.players[0].bag, vec![W1, O1, g2, g2]);
    assert!(g.players[0].aside.is_empty());
    // Seat 1's green 1 left the box, seat 0's came back; a green 2 left it.
    assert_eq!((g.in_supply(G1), g.in_supply(g2)), (greens, green_2s - 1));
}

#[test]
fn card_less_is_more_blue_2_for_the_lowest_five_a_ruby_for_the_others() {
    let mut g = table(2, 0, QUIET);
    set_bag(&mut g, s(0), &[W1, W1, W1, W1, W1]);
    set_bag(&mut g, s(1), &[W3, W2, W2, O1, G1]);
    let events = reveal(&mut g, Card::LessIsMore);
    assert_eq!(bag_count(&g, s(0), BLUE_2), 1);
    assert_eq!(rubies_from(&events, s(1), fortune(Card::LessIsMore)), 1);
    assert_eq!(rubies_from(&events, s(0), fortune(Card::LessIsMore)), 0);
    assert!(events.iter().any(|e| e.body
        == QuacksEvent::Showed {
            seat: s(1),
            chips: vec![W2, W2, W3, O1, G1]
        }));
    // Ties all take the blue.
    let mut g = table(2, 0, QUIET);
    set_bag(&mut g, s(0), &[W1, W1, W1, W1, W1]);
    set_bag(&mut g, s(1), &[W1, W1, W1, W1, O1]);
    reveal(&mut g, Card::LessIsMore);
    assert_eq!((bag_count(&g, s(0), BLUE_2), bag_count(&g, s(1), BLUE_2)), (1, 1));
}

// ----- the fortune-teller cards: blue -----

#[test]
fn card_lucky_devil_two_points_on_a_ruby_space_even_exploded() {
    let mut g = table(2, 1, Card::LuckyDevil);
    g.players[0].droplet = 8; // empty pot: space 9, a ruby
    g.players[1].droplet = 4;
    brew(&mut g, s(1), &[W3, W3, W2]); // 7, 10, 12: exploded, space 13, a ruby
    assert_eq!(g.players[1].brew, Brew::Exploded);
    let events = stop_all(&mut g);
    for seat in [s(0), s(1)] {
        assert_eq!(points_from(&events, seat, fortune(Card::LuckyDevil)), 2);
        assert_eq!(rubies_from(&events, seat, Reason::RubySpace), 1);
    }
}

#[test]
fn card_its_shining_extra_bright_one_more_ruby_on_a_ruby_space() {
    let mut g = table(2, 1, Card::ItsShiningExtraBright);
    g.players[0].droplet = 8;
    let events = stop_all(&mut g);
    assert_eq!(rubies_from(&events, s(0), Reason::RubySpace), 1);
    assert_eq!(
        rubies_from(&events, s(0), fortune(Card::ItsShiningExtraBright)),
        1
    );
    assert_eq!(
        rubies_from(&events, s(1), fortune(Card::ItsShiningExtraBright)),
        0
    );
}

#[test]
fn card_magic_potion_refills_every_flask() {
    let mut g = table(2, 1, Card::MagicPotion);
    g.players[1].flask_full = false;
    let events = stop_all(&mut g);
    assert!(g.players.iter().all(|p| p.flask_full));
    assert!(
        events
            .iter()
            .any(|e| e.body == QuacksEvent::FlaskRefilled { seat: s(1) })
    );
}

#[test]
fn card_seasoned_perfectly_a_droplet_step_for_exactly_7_whites() {
    for (pot, steps) in [(vec![W3, W2, W2], 1), (vec![W3, W2, W1], 0)] {
        let mut g = table(2, 1, Card::SeasonedPerfectly);
        brew(&mut g, s(0), &pot);
        let events = stop_all(&mut g);
        assert_eq!(
            droplet_from(&events, s(0), fortune(Card::SeasonedPerfectly)),
            steps
        );
    }
}

#[test]
fn card_well_stirred_returns_the_first_white_without_the_flask() {
    let mut g = table(2, 1, Card::WellStirred);
    brew(&mut g, s(0), &[O1, W2]);
    assert!(g.legal_actions(s(0)).contains(&Action::ReturnFirstWhite));
    act(&mut g, s(0), Action::ReturnFirstWhite);
    assert_eq!(spaces(&g, s(0)), vec![1]);
    assert_eq!(g.players[0].whites, 0);
    assert!(g.players[0].flask_full);
    brew(&mut g, s(0), &[W1]);
    assert!(
        !g.legal_actions(s(0)).contains(&Action::ReturnFirstWhite),
        "only the first"
    );
    assert!(g.legal_actions(s(0)).contains(&Action::UseFlask));
}

#[test]
fn card_strong_ingredient_one_last_chip_after_stopping_without_its_effect() {
    let r1 = c(Colour::Red, 1);
    let mut g = table(2, 1, Card::StrongIngredient);
    brew(&mut g, s(0), &[O1, W3, W3]);
    brew(&mut g, s(1), &[W3, W3, W2]);
    set_bag(&mut g, s(0), &[r1, W2]);
    act(&mut g, s(0), Action::Stop);
    assert!(
        g.players[1].pending.is_none(),
        "an exploded pot gets no last chip"
    );
    assert_eq!(g.players[0].pending, Some(Pending::StrongIngredient));
    assert_eq!(g.players[0].aside, vec![W2, r1]);
    let mut white = g.clone();
    act(&mut white, s(0), Action::Place { chip: W2 });
    assert_eq!(white.players[0].whites, 8);
    assert_eq!(
        white.players[0].brew,
        Brew::Stopped,
        "a card's chip cannot explode the pot"
    );
    act(&mut g, s(0), Action::Place { chip: r1 });
    assert_eq!(spaces(&g, s(0)), vec![1, 4, 7, 8], "no toadstool bonus");
    assert_eq!(g.players[0].bag, vec![W2]);
    assert_eq!(g.phase, Phase::Evaluation);
}

#[test]
fn card_schadenfreude_the_left_neighbour_of_an_exploded_pot_takes_a_2_chip() {
    let mut g = table(3, 1, Card::Schadenfreude);
    brew(&mut g, s(0), &[W3, W3, W2]);
    stop_all(&mut g);
    assert_eq!(g.players[1].pending, Some(Pending::Schadenfreude));
    assert!(g.players[2].pending.is_none());
    let take = |chip| Action::Fortune {
        choice: FortuneChoice::TakeChip { chip },
    };
    assert_eq!(
        g.legal_actions(s(1)),
        vec![take(c(Colour::Green, 2)), take(BLUE_2), take(c(Colour::Red, 2))]
    );
    act(&mut g, s(1), take(BLUE_2));
    assert_eq!(bag_count(&g, s(1), BLUE_2), 1);
    assert_eq!(g.phase, Phase::Evaluation);
}

#[test]
fn card_a_second_chance_after_five_chips_or_an_early_explosion() {
    let mut g = table(2, 1, Card::ASecondChance);
    brew(&mut g, s(0), &[O1, O1, G1, W1]);
    assert!(g.players[0].pending.is_none());
    brew(&mut g, s(0), &[W2]);
    assert_eq!(g.legal_actions(s(0)), vec![Action::StartOver, Action::KeepPotion]);
    let mut keep = g.clone();
    act(&mut keep, s(0), Action::KeepPotion);
    assert_eq!(keep.players[0].pot.len(), 5);
    assert!(keep.legal_actions(s(0)).contains(&Action::Draw));
    let bag = g.players[0].bag.len();
    act(&mut g, s(0), Action::StartOver);
    assert!(g.players[0].pot.is_empty());
    assert_eq!(g.players[0].whites, 0);
    assert_eq!(g.players[0].bag.len(), bag + 5);
    brew(&mut g, s(0), &[O1, O1, G1, W1, W1]);
    assert!(g.players[0].pending.is_none(), "only once");
    // An explosion within the first five chips may also be undone.
    let mut g = table(2, 1, Card::ASecondChance);
    brew(&mut g, s(0), &[W3, W3, W2]);
    assert_eq!(g.players[0].brew, Brew::Exploded);
    act(&mut g, s(0), Action::StartOver);
    assert_eq!(g.players[0].brew, Brew::Brewing);
}

// ----- hidden information, determinism, the registry -----

fn all_viewers(n: u8) -> Vec<Viewer> {
    Seat::all(n)
        .map(Viewer::Seat)
        .chain([Viewer::Spectator])
        .collect()
}

/// The same state with different hidden information for `seat`: one chip being looked at swapped with a
/// different chip of the bag (what the others know, the chips not in the pot, is unchanged).
fn swap_looked_at(g: &Quacks, seat: Seat) -> Option<Quacks> {
    let p = &g.players[seat.index()];
    let looked = *p.aside.first()?;
    let other = *p.bag.iter().find(|c| **c != looked)?;
    let mut v = g.clone();
    let q = &mut v.players[seat.index()];
    q.aside[0] = other;
    q.aside.sort();
    q.remove_from_bag(other);
    q.put_in_bag(looked);
    Some(v)
}

#[test]
fn hidden_information_never_reaches_a_view_or_a_foreign_event() {
    let mut looked_at_states = 0;
    let mut committed_states = 0;
    for game in 0..24u64 {
        let players = 2 + (game % 3) as u8;
        let mut g = Quacks::new(&CFG, players, game).expect("setup");
        let mut driver = Rng::from_seed(game + 1000);
        while g.status() != Status::Over {
            let viewers = all_viewers(players);
            // The generator and the order of the fortune deck are never visible.
            let mut v = g.clone();
            v.rng = Rng::from_seed(driver.next_u64());
            driver.shuffle(&mut v.deck);
            for viewer in &viewers {
                assert_eq!(fingerprint(&g.view(*viewer)), fingerprint(&v.view(*viewer)));
            }
            for seat in Seat::all(players) {
                // Chips looked at are seen by their owner only.
                if let Some(v) = swap_looked_at(&g, seat) {
                    looked_at_states += 1;
                    for viewer in &viewers {
                        let same = fingerprint(&g.view(*viewer)) == fingerprint(&v.view(*viewer));
                        assert_eq!(
                            same,
                            *viewer != Viewer::Seat(seat),
                            "{viewer:?} looking at {seat}"
                        );
                    }
                }
                // A round-9 commitment is seen by its owner only until the stir.
                if let Some(commitment) = g.players[seat.index()].commitment {
                    committed_states += 1;
                    let mut v = g.clone();
                    v.players[seat.index()].commitment = Some(match commitment {
                        Commitment::Draw => Commitment::Stop,
                        Commitment::Stop => Commitment::Draw,
                    });
                    for viewer in &viewers {
                        let same = fingerprint(&g.view(*viewer)) == fingerprint(&v.view(*viewer));
                        assert_eq!(same, *viewer != Viewer::Seat(seat));
                    }
                }
            }
            let movers: Vec<(Seat, Vec<Action>)> = Seat::all(players)
                .map(|s| (s, g.legal_actions(s)))
                .filter(|(_, a)| !a.is_empty())
                .collect();
            let (seat, actions) = &movers[driver.index(movers.len())];
            // Draw more often than stop, so that pots grow and skulls come up.
            let action = if actions.contains(&Action::Draw) && driver.below(4) > 0 {
                Action::Draw
            } else {
                actions[driver.index(actions.len())].clone()
            };
            for e in act(&mut g, *seat, action) {
                match &e.body {
                    QuacksEvent::LookingAt { seat, .. } | QuacksEvent::CommittedTo { seat, .. } => {
                        assert_eq!(e.audience, Audience::only(*seat), "{:?}", e.body)
                    }
                    _ => assert_eq!(e.audience, Audience::Everyone, "{:?}", e.body),
                }
            }
        }
    }
    assert!(
        looked_at_states > 20,
        "the test must see chips being looked at ({looked_at_states})"
    );
    assert!(
        committed_states > 20,
        "the test must see round-9 commitments ({committed_states})"
    );
}

#[test]
fn the_same_seed_and_actions_give_the_same_game() {
    let a = Quacks::new(&CFG, 3, 42).expect("setup");
    let b = Quacks::new(&CFG, 3, 42).expect("setup");
    assert_eq!(fingerprint(&a), fingerprint(&b));
    let decks: std::collections::BTreeSet<String> = (0..20)
        .map(|seed| fingerprint(&Quacks::new(&CFG, 3, seed).expect("setup").deck))
        .collect();
    assert!(decks.len() > 15, "seeds shuffle the fortune deck");
    let p = random_playout::<Quacks>(&CFG, 4, 5, 6, 20_000, |_| {});
    let q = random_playout::<Quacks>(&CFG, 4, 5, 6, 20_000, |_| {});
    assert_eq!(fingerprint(&p.state), fingerprint(&q.state));
    assert_eq!(p.state.outcome(), q.state.outcome());
}

#[test]
fn the_registry_hosts_quacks_behind_json() {
    use crate::registry::AnyGame;
    use crate::testkit::Parsed;
    use serde_json::json;
    assert!(crate::catalogue().iter().any(|i| i.id == "quacks"));
    assert!(
        AnyGame::new("quacks", None, &json!({"variant": 2}), 2, 1).is_err(),
        "no options"
    );
    let mut g = AnyGame::new("quacks", None, &serde_json::Value::Null, 2, 3).expect("setup");
    let seat = Seat::all(2)
        .find(|s| g.legal_values(*s).contains(&json!({"type": "stop"})))
        .expect("someone may stop");
    g.apply_value(Actor::Seat(seat), &json!({"type": "stop"}), 0)
        .expect("stop");
    let r = g
        .apply_value(Actor::Seat(seat), &json!({"type": "draw"}), 0)
        .expect_err("already stopped");
    assert_eq!(r.kind, RejectKind::NotYourTurn);
    let restored = AnyGame::from_full_state(&g.full_state()).expect("snapshot");
    assert_eq!(
        restored.view_value(Viewer::Spectator),
        g.view_value(Viewer::Spectator)
    );
}

#[test]
fn a_fast_brewer_waits_for_nobody_until_evaluation() {
    let mut g = table(3, 1, QUIET);
    brew(&mut g, s(0), &[O1, G1, W1]);
    act(&mut g, s(0), Action::Stop);
    assert_eq!(g.phase, Phase::Brewing);
    assert_eq!(
        g.status(),
        Status::Simultaneous {
            seats: vec![s(1), s(2)],
            secret: false
        }
    );
    // Another seat's pot is public as it fills.
    brew(&mut g, s(1), &[O1]);
    assert_eq!(
        g.view(Viewer::Seat(s(0))).players[1].pot[..],
        g.players[1].pot[..]
    );
    stop_all(&mut g);
    assert_eq!(g.phase, Phase::Evaluation);
}

#[test]
fn actions_have_readable_json() {
    use serde_json::json;
    let cases = [
        (Action::Draw, json!({"type": "draw"})),
        (
            Action::Buy {
                chips: vec![O1, BLUE_2],
            },
            json!({"type": "buy", "chips": [{"colour": "orange", "value": 1}, {"colour": "blue", "value": 2}]}),
        ),
        (
            Action::Fortune {
                choice: FortuneChoice::TradeRatTails { tails: 2 },
            },
            json!({"type": "fortune", "choice": {"option": "trade_rat_tails", "tails": 2}}),
        ),
        (
            Action::Place { chip: W3 },
            json!({"type": "place", "chip": {"colour": "white", "value": 3}}),
        ),
    ];
    for (action, wire) in cases {
        assert_eq!(serde_json::to_value(&action).expect("serialises"), wire);
        assert_eq!(serde_json::from_value::<Action>(wire).expect("parses"), action);
    }
}

/// Views count the chips of a bag whatever order they are stored in (play keeps them sorted; the count takes a
/// sorted copy of chips out of order, so that no view depends on the order of a bag).
#[test]
fn views_do_not_depend_on_the_order_of_a_bag() {
    let mut g = table(3, 1, QUIET);
    set_bag(&mut g, s(0), &[W1, O1, W2, W1, G1, W3, O1]);
    g.players[0].aside = vec![W1, G1, O1];
    g.players[0].pending = Some(Pending::CrowSkull);
    let mut shuffled = g.clone();
    shuffled.players[0].bag.reverse();
    shuffled.players[0].aside.reverse();
    shuffled.players[1].bag.reverse();
    for viewer in all_viewers(3) {
        let mut expected = g.view(viewer);
        // The chips looked at are shown as they lie.
        expected.players[0].looking_at = shuffled.view(viewer).players[0].looking_at;
        assert_eq!(shuffled.view(viewer), expected, "{viewer:?}");
    }
}

// ----- rules version 2 (issue 25): optional benefits, buying order, the lockstep option -----

/// [`table`] under rules version 1.
fn table_v1(players: u8, round: u8, card: Card) -> Quacks {
    let mut g = table(players, round, card);
    g.rules_version = RULES_V1;
    g
}

#[test]
fn the_red_bonus_may_be_declined_until_the_next_chip() {
    let r1 = c(Colour::Red, 1);
    let mut g = table(2, 1, QUIET);
    brew(&mut g, s(0), &[O1, O1, r1]);
    assert_eq!(spaces(&g, s(0)), vec![1, 2, 4], "the bonus is taken at once");
    assert!(g.legal_actions(s(0)).contains(&Action::DeclineRedBonus));
    let mut declined = g.clone();
    let events = act(&mut declined, s(0), Action::DeclineRedBonus);
    assert_eq!(spaces(&declined, s(0)), vec![1, 2, 3]);
    assert!(
        events
            .iter()
            .any(|e| e.body == QuacksEvent::RedBonusDeclined { seat: s(0), space: 3 })
    );
    assert!(
        !declined.legal_actions(s(0)).contains(&Action::DeclineRedBonus),
        "once"
    );
    // The next chip closes the offer; a red without pumpkins has nothing to decline.
    brew(&mut g, s(0), &[G1]);
    assert!(!g.legal_actions(s(0)).contains(&Action::DeclineRedBonus));
    let mut g = table(2, 1, QUIET);
    brew(&mut g, s(0), &[r1]);
    assert!(!g.legal_actions(s(0)).contains(&Action::DeclineRedBonus));
    // Version 1: the bonus is forced.
    let mut g = table_v1(2, 1, QUIET);
    brew(&mut g, s(0), &[O1, O1, r1]);
    assert_eq!(spaces(&g, s(0)), vec![1, 2, 4]);
    assert!(!g.legal_actions(s(0)).contains(&Action::DeclineRedBonus));
}

#[test]
fn the_die_and_ghosts_breath_droplet_steps_may_be_given_back_in_evaluation() {
    // The die's droplet face.
    let mut g = table(2, 1, QUIET);
    brew(&mut g, s(0), &[G1, G1]);
    rig_die(&mut g, DieFace::Droplet);
    stop_all(&mut g);
    assert_eq!(g.players[0].droplet, 1);
    assert!(g.legal_actions(s(0)).contains(&Action::DeclineDropletStep));
    assert!(!g.legal_actions(s(1)).contains(&Action::DeclineDropletStep));
    act(&mut g, s(0), Action::DeclineDropletStep);
    assert_eq!(g.players[0].droplet, 0);
    assert!(!g.legal_actions(s(0)).contains(&Action::DeclineDropletStep));
    // Ghost's breath, 3 purples: 2 points and a droplet step that may be given back.
    let mut g = table(2, 3, QUIET);
    brew(&mut g, s(0), &[PURPLE_1; 3]);
    rig_die(&mut g, DieFace::OnePoint);
    stop_all(&mut g);
    assert_eq!(g.players[0].optional_steps, 1);
    assert!(g.legal_actions(s(0)).contains(&Action::DeclineDropletStep));
    // Still offered after buying, until the round is finished.
    act(&mut g, s(0), Action::BuyNothing);
    assert_eq!(g.players[0].shop, Shop::Spending);
    assert!(g.legal_actions(s(0)).contains(&Action::DeclineDropletStep));
    act(&mut g, s(0), Action::DeclineDropletStep);
    assert_eq!(g.players[0].droplet, 0);
    // Version 1: the steps are forced.
    let mut g = table_v1(2, 3, QUIET);
    brew(&mut g, s(0), &[PURPLE_1; 3]);
    rig_die(&mut g, DieFace::Droplet);
    stop_all(&mut g);
    assert_eq!(g.players[0].droplet, 2);
    assert!(!g.legal_actions(s(0)).contains(&Action::DeclineDropletStep));
}

#[test]
fn roll_the_die_droplet_step_may_be_given_back_before_the_first_chip() {
    let mut g = table(2, 1, QUIET);
    g.round = 1;
    rig_die(&mut g, DieFace::Droplet);
    reveal(&mut g, Card::RollTheDie);
    let seat = Seat::all(2)
        .find(|s| g.players[s.index()].optional_steps == 1)
        .expect("the rigged roll gave a droplet step");
    assert!(g.legal_actions(seat).contains(&Action::DeclineDropletStep));
    let mut declined = g.clone();
    act(&mut declined, seat, Action::DeclineDropletStep);
    assert_eq!(
        declined.players[seat.index()].droplet + 1,
        g.players[seat.index()].droplet
    );
    act(&mut g, seat, Action::Draw);
    assert!(
        !g.legal_actions(seat).contains(&Action::DeclineDropletStep),
        "not once brewing began"
    );
}

#[test]
fn buying_follows_start_player_order_when_a_chip_could_run_out() {
    for (version, ordered) in [(RULES_V2, true), (RULES_V1, false)] {
        let mut g = table(3, 1, QUIET);
        g.rules_version = version;
        g.start_player = s(1);
        for p in &mut g.players {
            p.droplet = 12; // 13 coins each
        }
        let black = g.supply.iter_mut().find(|(c, _)| *c == BLACK_1).expect("black");
        black.1 = 2; // three could afford a black 1
        rig_die(&mut g, DieFace::OnePoint);
        stop_all(&mut g);
        assert_eq!(g.buying_in_order, ordered);
        let Status::Simultaneous { seats, .. } = g.status() else {
            panic!("simultaneous")
        };
        if ordered {
            assert_eq!(seats, vec![s(1)], "the start player buys first");
            act(&mut g, s(1), Action::Buy { chips: vec![BLACK_1] });
            let Status::Simultaneous { seats, .. } = g.status() else {
                panic!("simultaneous")
            };
            assert_eq!(
                seats,
                vec![s(1), s(2)],
                "then the next one (seat 1 spends meanwhile)"
            );
            assert_eq!(
                g.apply(Actor::Seat(s(0)), &Action::BuyNothing, 0),
                Err(QuacksReject::NothingToDecide(s(0)))
            );
        } else {
            assert_eq!(seats, vec![s(0), s(1), s(2)]);
        }
    }
    // Plenty for everyone: simultaneous.
    let mut g = table(3, 1, QUIET);
    rig_die(&mut g, DieFace::OnePoint);
    stop_all(&mut g);
    assert!(!g.buying_in_order);
}

#[test]
fn the_lockstep_option_brews_every_round_like_round_9() {
    let cfg = QuacksConfig {
        stir_every_round: true,
    };
    let mut g = Quacks::new(&cfg, 2, 7).expect("setup");
    assert_eq!(g.round, 1);
    let seats = Seat::all(2).collect::<Vec<_>>();
    assert_eq!(
        g.status(),
        Status::Simultaneous {
            seats: seats.clone(),
            secret: true
        }
    );
    act(&mut g, s(0), Action::Draw);
    assert!(g.players[0].pot.is_empty(), "a commitment, not a draw");
    assert_eq!(g.players[0].commitment, Some(Commitment::Draw));
    act(&mut g, s(1), Action::Draw);
    assert_eq!(
        (g.players[0].pot.len(), g.players[1].pot.len()),
        (1, 1),
        "the stir"
    );
    // Games with the option end.
    for seed in 0..20 {
        let p = random_playout::<Quacks>(
            &cfg,
            2 + (seed % 3) as u8,
            seed,
            seed + 9,
            20_000,
            assert_chips_conserved,
        );
        assert!(p.state.outcome().is_some());
    }
    // Version 1 had no options.
    assert!(Quacks::new_at(&cfg, 2, 7, RULES_V1).is_err());
    assert!(Quacks::new_at(&CFG, 2, 7, RULES_V1).is_ok());
    assert!(Quacks::new_at(&CFG, 2, 7, 3).is_err());
}

#[test]
fn a_version_1_state_reads_as_version_1_and_writes_no_new_field() {
    let g = Quacks::new_at(&CFG, 3, 11, RULES_V1).expect("setup");
    let text = serde_json::to_string(&g).expect("serialises");
    for field in [
        "rules_version",
        "red_bonus",
        "optional_steps",
        "stir_every_round",
        "buying_in_order",
    ] {
        assert!(!text.contains(field), "{field} in a version-1 state");
    }
    let back: Quacks = serde_json::from_str(&text).expect("reads");
    assert_eq!(back.rules_version, RULES_V1);
    let g = Quacks::new(&CFG, 3, 11).expect("setup");
    let back: Quacks = serde_json::from_str(&serde_json::to_string(&g).unwrap()).unwrap();
    assert_eq!(back.rules_version, RULES_V2);
}

// ----- the server bot -----

/// Plays whole games with the bot at the seats in `bots` and a random player elsewhere; every bot move must be
/// one of the seat's legal actions. Returns the final state.
fn bot_game(cfg: &QuacksConfig, players: u8, seed: u64, bots: &[bool]) -> Quacks {
    let mut g = Quacks::new(cfg, players, seed).expect("setup");
    let mut driver = Rng::from_seed(seed ^ 0x5eed);
    let mut bot_rng = Rng::from_seed(seed + 77);
    for _ in 0..20_000 {
        if g.status() == Status::Over {
            return g;
        }
        let movers: Vec<Seat> = Seat::all(players)
            .filter(|s| !g.legal_actions(*s).is_empty())
            .collect();
        let seat = movers[driver.index(movers.len())];
        let legal = g.legal_actions(seat);
        let action = if bots[seat.index()] {
            let a = g
                .bot_action(seat, &mut bot_rng)
                .expect("a bot with legal actions moves");
            assert!(legal.contains(&a), "bot played {a:?}, not among {legal:?}");
            a
        } else {
            legal[driver.index(legal.len())].clone()
        };
        act(&mut g, seat, action);
    }
    panic!("the game did not end");
}

#[test]
fn the_bot_plays_only_legal_actions_at_every_table_size() {
    for players in 2..=4u8 {
        for seed in 0..6u64 {
            let all = vec![true; usize::from(players)];
            let g = bot_game(&CFG, players, seed, &all);
            assert!(g.outcome().is_some());
            let mut one = vec![false; usize::from(players)];
            one[(seed % u64::from(players)) as usize] = true;
            bot_game(&CFG, players, seed + 100, &one);
        }
    }
    // With the lockstep option too.
    let cfg = QuacksConfig {
        stir_every_round: true,
    };
    for players in 2..=4u8 {
        bot_game(&cfg, players, 9, &vec![true; usize::from(players)]);
    }
}

#[test]
fn bots_brew_real_potions() {
    // Bot against bot: scores in the range of human players (the random bot of old scored 3-6).
    let mut total = 0;
    let games = 10;
    for seed in 0..games {
        let g = bot_game(&CFG, 2, seed, &[true, true]);
        total += g.players.iter().map(|p| p.score).sum::<u32>();
    }
    let mean = total / (2 * games as u32);
    println!("bot self-play mean score: {mean}");
    assert!(mean >= 30, "mean {mean}");
}
