use std::collections::BTreeSet;

use super::*;
use crate::model::Audience;
use crate::testkit::{fingerprint, random_playout};

const NOW: Millis = 1_700_000_000_000;

fn cell(row: u8, col: u8) -> Cell {
    Cell { row, col }
}

/// Every card is in exactly one place: the grid, the draw pile, a scoring pile or this turn's collection.
fn assert_all_cards_accounted_for(g: &HideAndEeek) {
    let mut seen: Vec<u8> = g.grid.iter().flatten().map(|c| c.number).collect();
    seen.extend(g.draw_pile.iter());
    seen.extend(g.piles.iter().flatten());
    if let TurnStep::Collect { collected } = &g.step {
        seen.extend(collected.iter().map(|&(_, n)| n));
    }
    seen.sort();
    assert_eq!(
        seen,
        (FIRST_CARD..=LAST_CARD).collect::<Vec<_>>(),
        "cards lost or duplicated"
    );
    assert!(
        g.piles.iter().all(|p| !p.is_empty()),
        "a scoring pile is never empty"
    );
    if let TurnStep::Collect { collected } = &g.step {
        assert!(collected.len() <= 4, "at most 4 cards a turn");
    }
}

/// A game with a hand-made position: `grid` lists (row, col, number, face_up) to place (others stay face down
/// with whatever the shuffle put there, swapped so no card appears twice), the mouse figure, the roll and each
/// pile's cards.
fn position(
    players: u8,
    mouse: Cell,
    roll: Roll,
    piles: &[&[u8]],
    placed: &[(u8, u8, u8, bool)],
) -> HideAndEeek {
    position_at(RULES_VERSION, players, mouse, roll, piles, placed)
}

/// [`position`] under a given rules version.
fn position_at(
    version: u32,
    players: u8,
    mouse: Cell,
    roll: Roll,
    piles: &[&[u8]],
    placed: &[(u8, u8, u8, bool)],
) -> HideAndEeek {
    let mut g = HideAndEeek::new_at(&Config::default(), players, 99, version).expect("setup");
    // Gather every card, then lay them out as asked.
    let mut pool: Vec<u8> = (FIRST_CARD..=LAST_CARD).collect();
    let wanted: BTreeSet<u8> = placed
        .iter()
        .map(|p| p.2)
        .chain(piles.iter().flat_map(|p| p.iter().copied()))
        .collect();
    pool.retain(|n| !wanted.contains(n) && !shows_mouse(*n));
    let mut rest = pool.into_iter();
    g.grid = vec![None; GRID_CELLS];
    for &(r, c, number, face_up) in placed {
        g.grid[cell(r, c).index()] = Some(GridCard { number, face_up });
    }
    for slot in g.grid.iter_mut().filter(|s| s.is_none()) {
        *slot = Some(GridCard {
            number: rest.next().expect("enough cards"),
            face_up: false,
        });
    }
    g.piles = piles.iter().map(|p| p.to_vec()).collect();
    let mut draw: Vec<u8> = rest.collect();
    draw.extend(EEEK_CARDS.iter().filter(|n| !wanted.contains(n)));
    g.draw_pile = draw.into();
    g.mouse = mouse;
    g.roll = roll;
    g.turn = Seat(0);
    if g.v2() {
        g.order_next = Some(Seat(1));
    }
    g.step = TurnStep::Move;
    assert_all_cards_accounted_for(&g);
    g
}

fn roll(steps: u8, arrow: Arrow, category: Category) -> Roll {
    Roll {
        steps,
        arrow,
        category,
    }
}

fn act(g: &mut HideAndEeek, seat: u8, action: Action) -> Vec<EventBody> {
    g.apply(Actor::Seat(Seat(seat)), &action, NOW)
        .unwrap_or_else(|e| panic!("{action:?} refused: {e}"))
        .into_iter()
        .map(|e| e.body)
        .collect()
}

/// Plays `seeds` random games at a table of `players` through the shared harness (which checks the engine
/// contract at every step) with all 100 cards accounted for after every action.
fn playouts(players: u8, seeds: u64) {
    for seed in 0..seeds {
        let p = random_playout::<HideAndEeek>(
            &Config::default(),
            players,
            seed,
            seed ^ 0xE4,
            20_000,
            assert_all_cards_accounted_for,
        );
        let outcome = p.state.outcome().expect("over");
        assert!(!outcome.winners.is_empty());
        let target = p.state.config.target as usize;
        let reached = p.state.piles.iter().filter(|pile| pile.len() >= target).count();
        assert!(
            reached <= 1,
            "the game stops as soon as one pile reaches the target"
        );
    }
}

// A thousand games per player count; one test each so they run in parallel.
#[test]
fn random_playouts_2_players() {
    playouts(2, 1000);
}
#[test]
fn random_playouts_3_players() {
    playouts(3, 1000);
}
#[test]
fn random_playouts_4_players() {
    playouts(4, 1000);
}
#[test]
fn random_playouts_5_players() {
    playouts(5, 1000);
}
#[test]
fn random_playouts_6_players() {
    playouts(6, 1000);
}

#[test]
fn shorter_and_longer_games_by_option() {
    for target in [MIN_TARGET, 15, MAX_TARGET] {
        let config = Config {
            target,
            claim_window_ms: 1_000,
            ..Config::default()
        };
        for seed in 0..40u64 {
            let p = random_playout::<HideAndEeek>(
                &config,
                3,
                seed,
                seed + 1,
                50_000,
                assert_all_cards_accounted_for,
            );
            let o = p.state.outcome().expect("over");
            let best = *o.scores.iter().max().expect("scores");
            assert!(best >= i64::from(target) || (p.state.grid_is_empty() && p.state.draw_pile.is_empty()));
        }
    }
}

#[test]
fn every_action_outside_the_list_is_refused_and_changes_nothing() {
    let mut universe = vec![Action::Stop, Action::CloseRace];
    for i in 0..GRID_CELLS {
        let c = Cell::from_index(i);
        universe.extend([
            Action::Move { to: c },
            Action::Choose { cell: c },
            Action::Eeek { cell: c },
        ]);
    }
    universe.push(Action::Move { to: cell(6, 0) });
    universe.push(Action::Choose { cell: cell(0, 9) });
    for seed in 0..25u64 {
        let p = random_playout::<HideAndEeek>(&Config::default(), 4, seed, seed, 20_000, |_| {});
        let mut g = HideAndEeek::new(&Config::default(), 4, seed).expect("setup");
        for entry in &p.log {
            let before = fingerprint(&g);
            for seat in Seat::all(4) {
                let legal = g.legal_actions(seat);
                for action in universe.iter().filter(|a| !legal.contains(a)) {
                    let mut probe = g.clone();
                    assert!(
                        probe.apply(Actor::Seat(seat), action, entry.at).is_err(),
                        "{seat} {action:?} accepted"
                    );
                    assert_eq!(fingerprint(&probe), before);
                }
            }
            g.apply(entry.actor, &entry.action, entry.at)
                .expect("logged action replays");
        }
    }
}

#[test]
fn same_seed_same_game_and_seeds_differ() {
    let a = HideAndEeek::new(&Config::default(), 3, 5).expect("setup");
    let b = HideAndEeek::new(&Config::default(), 3, 5).expect("setup");
    let c = HideAndEeek::new(&Config::default(), 3, 6).expect("setup");
    assert_eq!(fingerprint(&a), fingerprint(&b));
    assert_ne!(fingerprint(&a), fingerprint(&c));
    let p = random_playout::<HideAndEeek>(&Config::default(), 3, 5, 1, 20_000, |_| {});
    let q = random_playout::<HideAndEeek>(&Config::default(), 3, 5, 1, 20_000, |_| {});
    assert_eq!(fingerprint(&p.state), fingerprint(&q.state));
}

#[test]
fn setup_follows_the_seed() {
    for players in MIN_PLAYERS..=MAX_PLAYERS {
        let g = HideAndEeek::new(&Config::default(), players, u64::from(players)).expect("setup");
        assert!(
            g.grid.iter().all(|c| c.is_some_and(|c| !c.face_up)),
            "36 cards face down"
        );
        assert!(
            g.piles.iter().all(|p| p.len() == 1),
            "one card dealt to each player"
        );
        assert_eq!(g.draw_pile.len(), CARD_COUNT - GRID_CELLS - players as usize);
        assert!(
            CENTRE.contains(&(g.mouse.row, g.mouse.col)),
            "the mouse starts near the centre"
        );
        assert_eq!(g.step, TurnStep::Move);
    }
    assert!(matches!(
        HideAndEeek::new(&Config::default(), 1, 0),
        Err(SetupError::PlayerCount { .. })
    ));
    assert!(matches!(
        HideAndEeek::new(&Config::default(), 7, 0),
        Err(SetupError::PlayerCount { .. })
    ));
    let bad = Config {
        target: 2,
        ..Config::default()
    };
    assert!(matches!(
        HideAndEeek::new(&bad, 3, 0),
        Err(SetupError::BadOption { .. })
    ));
}

#[test]
fn the_mouse_moves_exactly_and_never_goes_back() {
    assert_eq!(
        HideAndEeek::destinations(cell(0, 0), 1),
        vec![cell(0, 1), cell(1, 0)]
    );
    // Two steps from a corner: never back to the start.
    assert_eq!(
        HideAndEeek::destinations(cell(0, 0), 2),
        vec![cell(0, 2), cell(1, 1), cell(2, 0)]
    );
    // Three steps from the corner can end next to the start by going around (0,0)->(0,1)->(1,1)->(1,0).
    assert!(HideAndEeek::destinations(cell(0, 0), 3).contains(&cell(1, 0)));
    // Diagonal-only or too-short cells are out: (1,1) is two steps away, not one.
    assert!(!HideAndEeek::destinations(cell(0, 0), 1).contains(&cell(1, 1)));
    for i in 0..GRID_CELLS {
        for steps in 1..=6 {
            let d = HideAndEeek::destinations(Cell::from_index(i), steps);
            assert!(
                !d.is_empty() && !d.contains(&Cell::from_index(i)),
                "a 6x6 grid always allows {steps} steps"
            );
        }
    }
    let mut g = position(
        2,
        cell(2, 2),
        roll(2, Arrow::Up, Category::Odd),
        &[&[50], &[60]],
        &[],
    );
    let err = g
        .apply(Actor::Seat(Seat(0)), &Action::Move { to: cell(2, 3) }, NOW)
        .unwrap_err();
    assert_eq!(err, Rejected::Unreachable(cell(2, 3)));
}

#[test]
fn higher_than_46_keeps_47_and_loses_on_45() {
    // The seed's example: 46 on top, "higher": 47 keeps, 45 loses.
    let mut g = position_at(
        1,
        2,
        cell(2, 1),
        roll(1, Arrow::Down, Category::Higher),
        &[&[46], &[60]],
        &[(1, 2, 47, false), (3, 2, 45, false)],
    );
    act(&mut g, 0, Action::Move { to: cell(2, 2) });
    let events = act(&mut g, 0, Action::Choose { cell: cell(1, 2) });
    assert!(events.contains(&EventBody::Chosen {
        seat: Seat(0),
        cell: cell(1, 2),
        number: 47,
        matched: Some(true)
    }));
    assert_eq!(
        g.baseline(),
        Some(47),
        "the next card must beat the last one chosen"
    );
    let events = act(&mut g, 0, Action::Choose { cell: cell(3, 2) });
    assert!(events.contains(&EventBody::Chosen {
        seat: Seat(0),
        cell: cell(3, 2),
        number: 45,
        matched: Some(false)
    }));
    assert!(events.contains(&EventBody::Lost {
        seat: Seat(0),
        cards: vec![47]
    }));
    assert_eq!(g.piles[0], vec![46], "nothing banked after a miss");
    assert_eq!(g.turn, Seat(1), "the dice pass to the next player");
}

#[test]
fn odd_takes_37_and_stopping_banks_it_on_top() {
    let mut g = position_at(
        1,
        3,
        cell(2, 1),
        roll(1, Arrow::Up, Category::Odd),
        &[&[46], &[60], &[70]],
        &[(1, 2, 37, false)],
    );
    act(&mut g, 0, Action::Move { to: cell(2, 2) });
    act(&mut g, 0, Action::Choose { cell: cell(1, 2) });
    let refill_top = g.draw_pile[0];
    let events = act(&mut g, 0, Action::Stop);
    assert!(events.contains(&EventBody::Banked {
        seat: Seat(0),
        cards: vec![37],
        pile_size: 2
    }));
    assert_eq!(g.piles[0], vec![46, 37], "37 is the new top");
    // The gap is filled from the draw pile, face up because the arrow points up.
    assert_eq!(
        g.card_at(cell(1, 2)),
        Some(GridCard {
            number: refill_top,
            face_up: true
        })
    );
    assert!(events.contains(&EventBody::Refilled {
        cell: cell(1, 2),
        face_up: true,
        number: Some(refill_top)
    }));
    assert_eq!(g.turn, Seat(1));
}

#[test]
fn a_miss_sends_the_turns_cards_to_the_bottom_of_the_draw_pile() {
    let mut g = position_at(
        1,
        2,
        cell(2, 1),
        roll(1, Arrow::Down, Category::Even),
        &[&[46], &[60]],
        &[(1, 2, 10, false), (2, 3, 12, false), (3, 2, 13, false)],
    );
    act(&mut g, 0, Action::Move { to: cell(2, 2) });
    act(&mut g, 0, Action::Choose { cell: cell(1, 2) });
    act(&mut g, 0, Action::Choose { cell: cell(2, 3) });
    let top_before = g.draw_pile[0];
    let events = act(&mut g, 0, Action::Choose { cell: cell(3, 2) });
    assert!(events.contains(&EventBody::Lost {
        seat: Seat(0),
        cards: vec![10, 12]
    }));
    let n = g.draw_pile.len();
    assert_eq!(
        g.draw_pile.iter().skip(n - 2).copied().collect::<Vec<_>>(),
        vec![10, 12],
        "at the bottom, in order"
    );
    // The missed card stays where it was, face down as the arrow says; the two gaps are refilled face down.
    assert_eq!(
        g.card_at(cell(3, 2)),
        Some(GridCard {
            number: 13,
            face_up: false
        })
    );
    assert_eq!(
        g.card_at(cell(1, 2)),
        Some(GridCard {
            number: top_before,
            face_up: false
        })
    );
    assert!(events.contains(&EventBody::Refilled {
        cell: cell(1, 2),
        face_up: false,
        number: None
    }));
    assert_eq!(g.piles[0], vec![46]);
    assert_eq!(g.turn, Seat(1));
}

#[test]
fn taking_every_adjacent_card_gives_an_extra_turn() {
    // The mouse lands in a corner: two neighbours, both even.
    let mut g = position_at(
        1,
        2,
        cell(1, 1),
        roll(2, Arrow::Up, Category::Even),
        &[&[46], &[60]],
        &[(1, 0, 2, false), (0, 1, 4, false)],
    );
    act(&mut g, 0, Action::Move { to: cell(0, 0) });
    act(&mut g, 0, Action::Choose { cell: cell(1, 0) });
    let events = act(&mut g, 0, Action::Choose { cell: cell(0, 1) });
    assert!(events.contains(&EventBody::Banked {
        seat: Seat(0),
        cards: vec![2, 4],
        pile_size: 3
    }));
    assert!(events.contains(&EventBody::ExtraTurn { seat: Seat(0) }));
    assert_eq!(g.turn, Seat(0), "the same player goes again");
    assert_eq!(g.step, TurnStep::Move, "a full new turn with new dice");
    assert!(matches!(
        events.last(),
        Some(EventBody::TurnStarted {
            seat: Seat(0),
            extra: true,
            ..
        })
    ));
}

#[test]
fn an_eeek_race_goes_to_the_first_claim_received() {
    let mouse_card = EEEK_CARDS[0];
    let mut g = position_at(
        1,
        3,
        cell(2, 1),
        roll(1, Arrow::Up, Category::Odd),
        &[&[46], &[60], &[70]],
        &[(1, 2, 37, false), (2, 3, mouse_card, false)],
    );
    act(&mut g, 0, Action::Move { to: cell(2, 2) });
    act(&mut g, 0, Action::Choose { cell: cell(1, 2) });
    let events = act(&mut g, 0, Action::Choose { cell: cell(2, 3) });
    let closes_at = NOW + u64::from(DEFAULT_CLAIM_WINDOW_MS);
    assert!(events.contains(&EventBody::RaceOpened {
        cell: cell(2, 3),
        number: mouse_card,
        closes_at
    }));
    assert_eq!(
        g.status(),
        Status::Race {
            seats: vec![Seat(0), Seat(1), Seat(2)]
        }
    );
    assert_eq!(
        g.deadline(),
        Some(Deadline {
            at: closes_at,
            action: Action::CloseRace
        })
    );
    // The active player must wait: the turn is suspended while the window is open.
    assert_eq!(
        g.apply(Actor::Seat(Seat(0)), &Action::Stop, NOW),
        Err(Rejected::RaceOpen)
    );
    // Two claims: seat 2's arrives first and wins; seat 1's finds nothing left to claim.
    let claim = Action::Eeek { cell: cell(2, 3) };
    let events = act(&mut g, 2, claim.clone());
    assert!(events.contains(&EventBody::Claimed {
        seat: Seat(2),
        cell: cell(2, 3),
        number: mouse_card
    }));
    let before = fingerprint(&g);
    assert_eq!(
        g.apply(Actor::Seat(Seat(1)), &claim, NOW + 5),
        Err(Rejected::NoMouseThere(cell(2, 3)))
    );
    assert_eq!(fingerprint(&g), before);
    // The claimant's card is on top; the interrupted player keeps what they had collected; the claimant plays next.
    assert_eq!(g.piles[2], vec![70, mouse_card]);
    assert_eq!(g.piles[0], vec![46, 37]);
    assert_eq!(g.turn, Seat(2));
    assert_eq!(g.race, None);
    assert_eq!(g.deadline(), None);
}

#[test]
fn an_unclaimed_mouse_stays_face_up_and_can_be_spotted_later() {
    let mouse_card = EEEK_CARDS[1];
    let mut g = position_at(
        1,
        2,
        cell(2, 1),
        roll(1, Arrow::Up, Category::Odd),
        &[&[46], &[60]],
        &[(2, 3, mouse_card, false), (1, 2, 37, false)],
    );
    act(&mut g, 0, Action::Move { to: cell(2, 2) });
    act(&mut g, 0, Action::Choose { cell: cell(2, 3) });
    let closes_at = g.deadline().expect("window").at;
    // The clock may not close the window early.
    assert_eq!(
        g.apply(Actor::Clock, &Action::CloseRace, closes_at - 1),
        Err(Rejected::NotDue)
    );
    // A seat may not send the clock's action.
    assert_eq!(
        g.apply(Actor::Seat(Seat(1)), &Action::CloseRace, closes_at),
        Err(Rejected::ClockOnly)
    );
    g.apply(Actor::Clock, &Action::CloseRace, closes_at).expect("due");
    assert_eq!(g.status(), Status::Turn { seat: Seat(0) }, "the turn goes on");
    assert_eq!(
        g.card_at(cell(2, 3)),
        Some(GridCard {
            number: mouse_card,
            face_up: true
        })
    );
    assert!(
        !g.legal_actions(Seat(0))
            .contains(&Action::Choose { cell: cell(2, 3) }),
        "claimed, never chosen"
    );
    // Late spotting: seat 1 claims during seat 0's turn; seat 0's turn is not interrupted.
    act(&mut g, 1, Action::Eeek { cell: cell(2, 3) });
    assert_eq!(g.piles[1], vec![60, mouse_card]);
    assert_eq!(g.turn, Seat(0));
    act(&mut g, 0, Action::Choose { cell: cell(1, 2) });
    act(&mut g, 0, Action::Stop);
    assert_eq!(g.turn, Seat(1), "the claimant plays next");
}

#[test]
fn reaching_the_target_wins_at_once() {
    let mut g = position_at(
        1,
        2,
        cell(2, 1),
        roll(1, Arrow::Up, Category::Odd),
        &[&[46, 20], &[60]],
        &[(1, 2, 37, false)],
    );
    g.config.target = 3;
    act(&mut g, 0, Action::Move { to: cell(2, 2) });
    act(&mut g, 0, Action::Choose { cell: cell(1, 2) });
    let events = act(&mut g, 0, Action::Stop);
    assert!(events.contains(&EventBody::GameOver {
        winners: vec![Seat(0)]
    }));
    assert_eq!(g.status(), Status::Over);
    let o = g.outcome().expect("outcome");
    assert_eq!(o.winners, vec![Seat(0)]);
    assert_eq!(o.scores, vec![3, 1]);
    assert_eq!(o.placings, vec![1, 2]);
    assert!(g.legal_actions(Seat(1)).is_empty());
    assert_eq!(
        g.apply(Actor::Seat(Seat(1)), &Action::Stop, NOW),
        Err(Rejected::GameOver)
    );
}

#[test]
fn when_the_draw_pile_runs_dry_gaps_stay_empty() {
    let mut g = position_at(
        1,
        2,
        cell(2, 1),
        roll(1, Arrow::Up, Category::Odd),
        &[&[46], &[60]],
        &[(1, 2, 37, false)],
    );
    // A hand-made position: seat 1 holds the rest of the deck, and the target is out of reach so nobody has won.
    let rest: Vec<u8> = g.draw_pile.drain(..).collect();
    g.piles[1].extend(rest);
    g.config.target = 100;
    assert_all_cards_accounted_for(&g);
    act(&mut g, 0, Action::Move { to: cell(2, 2) });
    act(&mut g, 0, Action::Choose { cell: cell(1, 2) });
    let events = act(&mut g, 0, Action::Stop);
    assert!(!events.iter().any(|e| matches!(e, EventBody::Refilled { .. })));
    assert_eq!(g.card_at(cell(1, 2)), None);
    assert!(matches!(
        g.view(Viewer::Spectator).grid.to_vec()[1].to_vec()[2],
        CellView::Empty
    ));
}

/// Two states that differ only in what nobody may see: the identities of face-down cards, the draw pile's order
/// and the generator.
fn scramble_hidden(g: &HideAndEeek, salt: u64) -> HideAndEeek {
    let mut other = g.clone();
    let mut rng = Rng::from_seed(salt);
    let hidden_cells: Vec<usize> = (0..GRID_CELLS)
        .filter(|&i| g.grid[i].is_some_and(|c| !c.face_up))
        .collect();
    let mut hidden: Vec<u8> = hidden_cells
        .iter()
        .map(|&i| g.grid[i].expect("card").number)
        .collect();
    hidden.extend(g.draw_pile.iter());
    rng.shuffle(&mut hidden);
    let mut it = hidden.into_iter();
    for &i in &hidden_cells {
        other.grid[i] = Some(GridCard {
            number: it.next().expect("card"),
            face_up: false,
        });
    }
    other.draw_pile = it.collect();
    other.rng = Rng::from_seed(salt ^ 0xFFFF);
    // What the seats answered in an open window, and when, stays hidden until it closes.
    if let Some(look) = &mut other.look {
        for r in &mut look.responses {
            r.claim = match r.claim {
                Some(_) => None,
                None => look.cells.first().copied(),
            };
            r.reaction_ms += salt % 97;
        }
    }
    other
}

#[test]
fn views_show_no_face_down_card_no_draw_order_and_no_seed() {
    for seed in 0..40u64 {
        let p = random_playout::<HideAndEeek>(&Config::default(), 4, seed, seed + 3, 20_000, |_| {});
        let mut g = HideAndEeek::new(&Config::default(), 4, seed).expect("setup");
        for (i, entry) in p.log.iter().enumerate() {
            let twin = scramble_hidden(&g, seed * 1000 + i as u64);
            for viewer in Seat::all(4).map(Viewer::Seat).chain([Viewer::Spectator]) {
                let view = g.view(viewer);
                assert_eq!(
                    fingerprint(&view),
                    fingerprint(&twin.view(viewer)),
                    "a view depends on hidden information"
                );
                let json = fingerprint(&view);
                assert!(!json.contains("rng") && !json.contains("draw_pile\":["), "{json}");
            }
            // Events may name only cards that are visible before or after the action, or the card just chosen.
            let before = visible_numbers(&g);
            let chosen = match &entry.action {
                Action::Choose { cell } => g.card_at(*cell).map(|c| c.number),
                _ => None,
            };
            let events = g.apply(entry.actor, &entry.action, entry.at).expect("replays");
            let after = visible_numbers(&g);
            for e in events {
                assert_eq!(e.audience, Audience::Everyone);
                for n in numbers_in(&e.body) {
                    assert!(
                        before.contains(&n) || after.contains(&n) || chosen == Some(n),
                        "event {:?} names a hidden card",
                        e.body
                    );
                }
            }
        }
    }
}

fn visible_numbers(g: &HideAndEeek) -> BTreeSet<u8> {
    let mut v: BTreeSet<u8> = g
        .grid
        .iter()
        .flatten()
        .filter(|c| c.face_up)
        .map(|c| c.number)
        .collect();
    v.extend(g.piles.iter().flatten());
    if let TurnStep::Collect { collected } = &g.step {
        v.extend(collected.iter().map(|&(_, n)| n));
    }
    v
}

fn numbers_in(e: &EventBody) -> Vec<u8> {
    match e {
        EventBody::Chosen { number, .. }
        | EventBody::RaceOpened { number, .. }
        | EventBody::Judged { number, .. }
        | EventBody::Claimed { number, .. } => {
            vec![*number]
        }
        EventBody::LookClosed { claims, .. } => claims.iter().map(|c| c.number).collect(),
        EventBody::FalseClaim { .. } | EventBody::TurnMissed { .. } => Vec::new(),
        EventBody::Banked { cards, .. } | EventBody::Lost { cards, .. } => cards.clone(),
        EventBody::Refilled { number, .. } => number.iter().copied().collect(),
        EventBody::TurnStarted { .. }
        | EventBody::Moved { .. }
        | EventBody::RaceClosed { .. }
        | EventBody::LeftInGrid { .. }
        | EventBody::ExtraTurn { .. }
        | EventBody::LookOpened { .. }
        | EventBody::Responded { .. }
        | EventBody::GameOver { .. } => Vec::new(),
    }
}

#[test]
fn a_view_would_reveal_a_leak() {
    // Guard for the leak test itself: a face-down card's number differs between twins, so a view that showed it
    // would differ too.
    let g = HideAndEeek::new(&Config::default(), 2, 1).expect("setup");
    let twin = scramble_hidden(&g, 7);
    assert_ne!(fingerprint(&g.grid), fingerprint(&twin.grid));
    assert_eq!(
        fingerprint(&g.view(Viewer::Spectator)),
        fingerprint(&twin.view(Viewer::Spectator))
    );
}

// Issue 25 point 11: four faults of the race, each shown by a test written before its fix.

/// A claim by `seat` on `at`, then the clock closing whatever window is still open (the window's close decides
/// the race under rules version 2; version 1 settles a claim at once).
fn claim_and_close(g: &mut HideAndEeek, seat: u8, at: Cell) {
    g.apply(Actor::Seat(Seat(seat)), &Action::Eeek { cell: at }, NOW + 500)
        .unwrap_or_else(|e| panic!("the claim is refused: {e}"));
    close_windows(g);
}

/// Lets every open claim window close by the clock.
fn close_windows(g: &mut HideAndEeek) {
    while let Some(d) = g.deadline() {
        g.apply(Actor::Clock, &d.action, d.at).expect("due");
    }
}

/// Plays the active seat's turn to its end: the first legal move, the first card, then stop (windows closing
/// unclaimed on the way).
fn finish_turn(g: &mut HideAndEeek) {
    let seat = g.turn;
    for _ in 0..20 {
        close_windows(g);
        if g.over || g.turn != seat {
            return;
        }
        let legal = g.legal_actions(seat);
        let action = legal
            .iter()
            .find(|a| matches!(a, Action::Stop))
            .or_else(|| {
                legal
                    .iter()
                    .find(|a| matches!(a, Action::Move { .. } | Action::Choose { .. }))
            })
            .cloned()
            .expect("the active seat can act");
        let moved = matches!(action, Action::Move { .. });
        act(g, seat.0, action);
        if !moved && g.turn == seat && g.step == TurnStep::Move {
            return; // an extra turn: the turn asked for is over
        }
    }
    panic!("the turn did not end");
}

#[test]
fn a_claim_by_another_seat_does_not_skip_seats() {
    // Four players. Seat 0 banks a 37; the refill turns up a mouse face up as seat 1's turn is about to begin.
    let mouse_card = EEEK_CARDS[0];
    let mut g = position(
        4,
        cell(2, 2),
        roll(1, Arrow::Up, Category::Odd),
        &[&[46], &[60], &[70], &[80]],
        &[(1, 3, 37, false)],
    );
    g.draw_pile.retain(|&n| n != mouse_card);
    g.draw_pile.push_front(mouse_card);
    act(&mut g, 0, Action::Move { to: cell(2, 3) });
    act(&mut g, 0, Action::Choose { cell: cell(1, 3) });
    close_windows(&mut g);
    act(&mut g, 0, Action::Stop);
    assert_eq!(g.card_at(cell(1, 3)).map(|c| c.number), Some(mouse_card));
    // Seat 3 spots it: it gets the card and the next turn; then seat 1, whose turn it was, plays.
    claim_and_close(&mut g, 3, cell(1, 3));
    assert_eq!(g.piles[3].last(), Some(&mouse_card));
    assert_eq!(g.turn, Seat(3), "the claimant takes the next turn");
    finish_turn(&mut g);
    assert_eq!(
        g.turn,
        Seat(1),
        "normal order resumes where it was: seats 1 and 2 are not skipped"
    );
    finish_turn(&mut g);
    assert_eq!(g.turn, Seat(2));
}

#[test]
fn a_self_claim_puts_the_claimed_card_on_top() {
    let mouse_card = EEEK_CARDS[0];
    let mut g = position(
        2,
        cell(2, 2),
        roll(1, Arrow::Up, Category::Odd),
        &[&[46], &[60]],
        &[(1, 3, 37, false), (3, 3, mouse_card, false)],
    );
    act(&mut g, 0, Action::Move { to: cell(2, 3) });
    act(&mut g, 0, Action::Choose { cell: cell(1, 3) });
    close_windows(&mut g);
    act(&mut g, 0, Action::Choose { cell: cell(3, 3) });
    claim_and_close(&mut g, 0, cell(3, 3));
    assert_eq!(
        g.piles[0],
        vec![46, 37, mouse_card],
        "the turn's cards, then the claimed card on top"
    );
}

#[test]
fn a_claim_on_another_mouse_does_not_end_the_race_for_the_revealed_card() {
    let (old, new) = (EEEK_CARDS[1], EEEK_CARDS[0]);
    let mut g = position(
        3,
        cell(2, 2),
        roll(1, Arrow::Up, Category::Odd),
        &[&[46], &[60], &[70]],
        &[(0, 0, old, true), (3, 3, new, false)],
    );
    act(&mut g, 0, Action::Move { to: cell(2, 3) });
    act(&mut g, 0, Action::Choose { cell: cell(3, 3) });
    // Seat 1 shouts for the old card in the corner (accepted or not); the card just turned up is still there to win.
    let _ = g.apply(
        Actor::Seat(Seat(1)),
        &Action::Eeek { cell: cell(0, 0) },
        NOW + 300,
    );
    assert!(
        g.deadline().is_some(),
        "the window for the card just turned up is still open"
    );
    claim_and_close(&mut g, 2, cell(3, 3));
    assert_eq!(
        g.piles[2].last(),
        Some(&new),
        "the revealed card went to the seat that claimed it"
    );
}

#[test]
fn a_game_ending_claim_keeps_the_active_players_cards() {
    let mouse_card = EEEK_CARDS[0];
    let mut g = position(
        2,
        cell(2, 2),
        roll(1, Arrow::Up, Category::Odd),
        &[&[46], &[60, 61, 62, 63, 64, 65, 66, 67, 68]],
        &[(1, 3, 37, false), (3, 3, mouse_card, false)],
    );
    act(&mut g, 0, Action::Move { to: cell(2, 3) });
    act(&mut g, 0, Action::Choose { cell: cell(1, 3) });
    close_windows(&mut g);
    act(&mut g, 0, Action::Choose { cell: cell(3, 3) });
    claim_and_close(&mut g, 1, cell(3, 3));
    assert!(g.over, "seat 1 reached 10 cards");
    assert_eq!(
        g.piles[0],
        vec![46, 37],
        "seat 0's collected card is banked, not lost"
    );
    let in_play =
        g.grid.iter().flatten().count() + g.draw_pile.len() + g.piles.iter().map(Vec::len).sum::<usize>();
    assert_eq!(in_play, CARD_COUNT, "all 100 cards remain");
}

// Rules version 2 (issue 25 point 10): the Eeek! window.

#[test]
fn v2_the_earliest_reaction_wins_not_the_first_received() {
    let mouse_card = EEEK_CARDS[0];
    let mut g = position_at(
        2,
        3,
        cell(2, 2),
        roll(1, Arrow::Down, Category::Odd),
        &[&[46], &[60], &[70]],
        &[(3, 3, mouse_card, false)],
    );
    act(&mut g, 0, Action::Move { to: cell(2, 3) });
    let events = act(&mut g, 0, Action::Choose { cell: cell(3, 3) });
    let closes_at = NOW + u64::from(DEFAULT_CLAIM_WINDOW_MS);
    assert!(events.contains(&EventBody::LookOpened {
        cells: vec![cell(3, 3)],
        closes_at,
        late_by: None
    }));
    // Nothing says the card shows a mouse: no flag, no different event, the same window as for any card.
    let view = serde_json::to_value(g.view(Viewer::Seat(Seat(1)))).unwrap();
    assert_eq!(
        view["grid"][3][3],
        serde_json::json!({"card": "face_up", "number": mouse_card})
    );
    // Seat 1's claim is received first but timed at 900 ms; seat 2's arrives later, timed at 600 ms.
    g.apply(
        Actor::Seat(Seat(1)),
        &Action::Eeek { cell: cell(3, 3) },
        NOW + 900,
    )
    .unwrap();
    g.apply(
        Actor::Seat(Seat(2)),
        &Action::Eeek { cell: cell(3, 3) },
        NOW + 600,
    )
    .unwrap();
    // Answers stay hidden until the close: the view names who answered, not what.
    let view = serde_json::to_value(g.view(Viewer::Seat(Seat(0)))).unwrap();
    assert_eq!(view["look"]["responded"], serde_json::json!([1, 2]));
    assert!(!view.to_string().contains("reaction"));
    // The last answer closes the window at once.
    let events = g
        .apply(Actor::Seat(Seat(0)), &Action::Pass, NOW + 1_000)
        .unwrap()
        .into_iter()
        .map(|e| e.body)
        .collect::<Vec<_>>();
    let closed = events.iter().find_map(|e| match e {
        EventBody::LookClosed { claims, .. } => Some(claims.clone()),
        _ => None,
    });
    let claims = closed.expect("the window closed");
    assert_eq!(
        claims
            .iter()
            .map(|c| (c.seat, c.reaction_ms, c.won))
            .collect::<Vec<_>>(),
        vec![(Seat(2), 600, true), (Seat(1), 900, false)]
    );
    assert_eq!(g.piles[2], vec![70, mouse_card]);
    assert_eq!(g.skips, vec![0, 0, 0], "a slower right claim costs nothing");
    // (The arrow is down: the refill opens no window, so the next turn starts at once.)
    assert_eq!(g.turn, Seat(2), "the winner takes the next turn");
    assert_eq!(g.look, None);
}

#[test]
fn v2_a_false_claim_costs_the_next_turn() {
    let mut g = position_at(
        2,
        3,
        cell(2, 2),
        roll(1, Arrow::Down, Category::Odd),
        &[&[46], &[60], &[70]],
        &[(3, 3, 37, false)],
    );
    act(&mut g, 0, Action::Move { to: cell(2, 3) });
    act(&mut g, 0, Action::Choose { cell: cell(3, 3) });
    g.apply(
        Actor::Seat(Seat(1)),
        &Action::Eeek { cell: cell(3, 3) },
        NOW + 400,
    )
    .unwrap();
    let events = close_windows_events(&mut g);
    assert!(events.contains(&EventBody::FalseClaim {
        seat: Seat(1),
        cell: cell(3, 3),
        skips: 1
    }));
    // Nobody won the card: it is tested against the die (37 is odd) and set aside.
    assert!(events.contains(&EventBody::Judged {
        seat: Seat(0),
        cell: cell(3, 3),
        number: 37,
        matched: true
    }));
    act(&mut g, 0, Action::Stop);
    close_windows(&mut g);
    assert_eq!(g.turn, Seat(2), "seat 1 misses its turn");
    assert_eq!(g.skips, vec![0, 0, 0]);
}

fn close_windows_events(g: &mut HideAndEeek) -> Vec<EventBody> {
    let mut all = Vec::new();
    while let Some(d) = g.deadline() {
        all.extend(
            g.apply(Actor::Clock, &d.action, d.at)
                .expect("due")
                .into_iter()
                .map(|e| e.body),
        );
    }
    all
}

#[test]
fn v2_claims_only_in_the_window_once_and_for_the_cards_that_just_turned_up() {
    let old_mouse = EEEK_CARDS[1];
    let mut g = position_at(
        2,
        2,
        cell(2, 2),
        roll(1, Arrow::Up, Category::Odd),
        &[&[46], &[60]],
        &[(0, 0, old_mouse, true), (3, 3, 37, false)],
    );
    let claim_old = Action::Eeek { cell: cell(0, 0) };
    assert_eq!(
        g.apply(Actor::Seat(Seat(1)), &claim_old, NOW),
        Err(Rejected::NoWindow)
    );
    assert!(!g.legal_actions(Seat(1)).contains(&claim_old));
    act(&mut g, 0, Action::Move { to: cell(2, 3) });
    act(&mut g, 0, Action::Choose { cell: cell(3, 3) });
    assert_eq!(
        g.apply(Actor::Seat(Seat(1)), &claim_old, NOW),
        Err(Rejected::NotJustTurnedUp(cell(0, 0)))
    );
    assert_eq!(
        g.legal_actions(Seat(1)),
        vec![Action::Eeek { cell: cell(3, 3) }, Action::Pass]
    );
    act(&mut g, 1, Action::Pass);
    assert_eq!(
        g.apply(Actor::Seat(Seat(1)), &Action::Pass, NOW),
        Err(Rejected::AlreadyAnswered)
    );
    assert_eq!(g.status(), Status::Race { seats: vec![Seat(0)] });
    // Once closed, it is closed: the card is an ordinary face-up card.
    close_windows(&mut g);
    assert_eq!(
        g.apply(
            Actor::Seat(Seat(1)),
            &Action::Eeek { cell: cell(3, 3) },
            NOW + 10_000
        ),
        Err(Rejected::NoWindow)
    );
}

#[test]
fn v2_even_when_every_seat_shouts_at_every_card_the_game_ends() {
    // Adversarial players: everyone claims every card that turns up (blind spamming); the active seat plays at
    // random. False claims cost turns, never cards, so the game still ends.
    for players in MIN_PLAYERS..=MAX_PLAYERS {
        for seed in 0..20u64 {
            let mut g = HideAndEeek::new(&Config::default(), players, seed).unwrap();
            let mut rng = Rng::from_seed(seed ^ 0x5A);
            let mut now = NOW;
            let mut steps = 0;
            while !g.over {
                steps += 1;
                assert!(steps < 20_000, "{players} players, seed {seed}: no end");
                now += 300;
                if let Some(look) = g.look.clone() {
                    let seat = Seat::all(players).find(|s| g.unanswered_look(*s).is_some());
                    match seat {
                        Some(seat) => {
                            let cell = look.cells[0];
                            g.apply(Actor::Seat(seat), &Action::Eeek { cell }, now).unwrap();
                        }
                        None => unreachable!("a window everyone answered is closed"),
                    }
                    continue;
                }
                let legal = g.legal_actions(g.turn);
                let action = legal[rng.index(legal.len())].clone();
                g.apply(Actor::Seat(g.turn), &action, now).unwrap();
                assert_all_cards_accounted_for(&g);
            }
        }
    }
}

#[test]
fn the_bot_plays_only_legal_actions_at_every_table_size() {
    // `bot_match` panics on a refused action and on a game that does not end.
    for players in MIN_PLAYERS..=MAX_PLAYERS {
        for seed in 0..30u64 {
            let all_bots = vec![true; usize::from(players)];
            let end = crate::testkit::bot_match::<HideAndEeek>(
                &Config::default(),
                seed,
                seed + 1,
                &all_bots,
                20_000,
            );
            assert!(end.over);
            let mixed: Vec<bool> = (0..players).map(|s| (u64::from(s) + seed) % 2 == 0).collect();
            let end =
                crate::testkit::bot_match::<HideAndEeek>(&Config::default(), seed, seed + 2, &mixed, 20_000);
            assert!(end.over);
        }
    }
}

#[test]
fn v1_games_replay_as_before() {
    // A version-1 game flags mice in its view and settles a claim at once (the race tests above run under v1).
    let g = HideAndEeek::new_at(&Config::default(), 2, 5, 1).unwrap();
    assert!(!g.v2());
    let state = serde_json::to_string(&g).unwrap();
    assert!(!state.contains("rules_version") && !state.contains("order_next") && !state.contains("skips"));
    let back: HideAndEeek = serde_json::from_str(&state).unwrap();
    assert_eq!(
        back.rules_version, 1,
        "a state without the field reads as version 1"
    );
    assert!(HideAndEeek::new_at(&Config::default(), 2, 5, 4).is_err());
}

#[test]
fn the_web_clients_mouse_pictures_are_the_mouse_cards() {
    let js = include_str!("../../../../web/static/js/games/hide_and_eeek.js");
    let start = js.find("export const MOUSE_SPOTS = {").expect("the table");
    let end = start + js[start..].find("};").expect("its end");
    let numbers: Vec<u8> = js[start..end]
        .lines()
        .skip(1)
        .filter_map(|l| l.trim().split(':').next()?.parse().ok())
        .collect();
    assert_eq!(
        numbers,
        EEEK_CARDS.to_vec(),
        "MOUSE_SPOTS must list exactly data.rs's EEEK_CARDS"
    );
}

/// Refusals name cells with the same 0-based row and column, under the same names, as the messages carry them:
/// `{"row": 5, "col": 5}` is "row 5, col 5" (it once read "row 6 column 6"), and a cell off the grid the same way.
#[test]
fn refusals_name_cells_as_the_messages_do() {
    let roll_4 = roll(4, Arrow::Up, Category::Higher);
    let g = position(2, cell(2, 2), roll_4, &[&[50], &[60]], &[]);
    let refusal = |action: Action| {
        g.clone()
            .apply(Actor::Seat(Seat(0)), &action, NOW)
            .expect_err("refused")
            .to_string()
    };
    let corner = refusal(Action::Move { to: cell(5, 5) });
    assert!(corner.contains("row 5, col 5"), "{corner}");
    let off = refusal(Action::Move { to: cell(9, 9) });
    assert!(off.contains("row 9, col 9"), "{off}");
    let mut choosing = g.clone();
    choosing.step = TurnStep::Collect {
        collected: Vec::new(),
    };
    let far = choosing
        .apply(Actor::Seat(Seat(0)), &Action::Choose { cell: cell(0, 4) }, NOW)
        .expect_err("not next to the mouse")
        .to_string();
    assert_eq!(far, "row 0, col 4 is not next to the mouse figure");
}

// Rules version 3 (issue 43): the reaction floor with drawn ties, and late spotting.

/// A three-seat table where seat 0 has just
/// turned over the mouse card at (3, 3); the window is open.
fn mouse_window(version: u32, floor_ms: u32) -> HideAndEeek {
    let mut g = position_at(
        version,
        3,
        cell(2, 2),
        roll(1, Arrow::Down, Category::Odd),
        &[&[46], &[60], &[70]],
        &[(3, 3, EEEK_CARDS[0], false)],
    );
    if version >= 3 {
        g.config.reaction_floor_ms = Some(floor_ms);
    }
    act(&mut g, 0, Action::Move { to: cell(2, 3) });
    act(&mut g, 0, Action::Choose { cell: cell(3, 3) });
    g
}

/// The claims of the window's close, from the events of the last answer.
fn closed_claims(events: Vec<Event<EventBody>>) -> Vec<ClaimResult> {
    events
        .into_iter()
        .find_map(|e| match e.body {
            EventBody::LookClosed { claims, .. } => Some(claims),
            _ => None,
        })
        .expect("the window closed")
}

/// A script answering 10 ms after the card shows and a person answering 150 ms after (so the script's claim
/// always arrives first); the match's generator differs per match (`seed`). Returns whether the script won.
fn script_against_person(version: u32, seed: u64) -> bool {
    let mut g = mouse_window(version, DEFAULT_REACTION_FLOOR_MS);
    g.rng = Rng::from_seed(seed);
    let opened = g.look.as_ref().expect("open").opened_at;
    let (script, person) = (Seat(1), Seat(2));
    let claim = Action::Eeek { cell: cell(3, 3) };
    g.apply(Actor::Seat(script), &claim, opened + 10)
        .expect("an answer");
    g.apply(Actor::Seat(person), &claim, opened + 150)
        .expect("an answer");
    let claims = closed_claims(
        g.apply(Actor::Seat(Seat(0)), &Action::Pass, opened + 900)
            .unwrap(),
    );
    let won: Vec<Seat> = claims.iter().filter(|c| c.won).map(|c| c.seat).collect();
    assert_eq!(won.len(), 1, "{claims:?}");
    assert_eq!(g.piles[won[0].index()].last(), Some(&EEEK_CARDS[0]));
    won[0] == script
}

#[test]
fn v3_a_10_ms_script_ties_with_a_150_ms_person_and_wins_about_half() {
    let matches = 2_000u64;
    let script_wins = (0..matches)
        .filter(|&seed| script_against_person(RULES_VERSION, seed))
        .count();
    let share = script_wins as f64 / matches as f64;
    // Fair coin: the standard deviation of the share is about 0.011; 0.45-0.55 is more than 4 of them.
    assert!(
        (0.45..=0.55).contains(&share),
        "the script won {script_wins} of {matches} ties"
    );
    // Under version 2 the script's faster reaction wins every time.
    assert!((0..100).all(|seed| script_against_person(2, seed)));
}

#[test]
fn v3_the_close_shows_the_judged_reactions_and_the_draw() {
    let mut g = mouse_window(RULES_VERSION, 150);
    let opened = g.look.as_ref().unwrap().opened_at;
    let claim = Action::Eeek { cell: cell(3, 3) };
    g.apply(Actor::Seat(Seat(1)), &claim, opened + 10).unwrap();
    g.apply(Actor::Seat(Seat(2)), &claim, opened + 140).unwrap();
    let claims = closed_claims(g.apply(Actor::Seat(Seat(0)), &claim, opened + 400).unwrap());
    let shown: Vec<(Seat, Millis, Option<Millis>, bool)> = claims
        .iter()
        .map(|c| (c.seat, c.reaction_ms, c.judged_ms, c.tied))
        .collect();
    assert_eq!(
        shown,
        vec![
            (Seat(1), 10, Some(150), true),
            (Seat(2), 140, Some(150), true),
            (Seat(0), 400, Some(400), false),
        ]
    );
    assert_eq!(claims.iter().filter(|c| c.won).count(), 1);
    assert!(!claims[2].won, "slower than the floor: no share of the draw");
    let text = serde_json::to_string(&claims[0]).unwrap();
    assert!(
        text.contains("\"judged_ms\":150") && text.contains("\"tied\":true"),
        "{text}"
    );
    // Without a floor the fastest wins outright.
    let mut g = mouse_window(RULES_VERSION, 0);
    let opened = g.look.as_ref().unwrap().opened_at;
    g.apply(Actor::Seat(Seat(2)), &claim, opened + 150).unwrap();
    g.apply(Actor::Seat(Seat(1)), &claim, opened + 10).unwrap();
    let claims = closed_claims(
        g.apply(Actor::Seat(Seat(0)), &Action::Pass, opened + 400)
            .unwrap(),
    );
    assert!(claims.iter().all(|c| !c.tied));
    assert_eq!(claims.iter().find(|c| c.won).map(|c| c.seat), Some(Seat(1)));
}

#[test]
fn v3_the_reaction_floor_is_an_option_within_its_range() {
    for (floor, ok) in [
        (0, true),
        (150, true),
        (MAX_REACTION_FLOOR_MS, true),
        (MAX_REACTION_FLOOR_MS + 1, false),
    ] {
        let config = Config {
            reaction_floor_ms: floor,
            ..Config::default()
        };
        assert_eq!(HideAndEeek::new(&config, 2, 1).is_ok(), ok, "{floor}");
    }
    // Versions 1 and 2 keep their states as they were: no floor in them.
    for version in [1, 2] {
        let g = HideAndEeek::new_at(&Config::default(), 2, 5, version).unwrap();
        assert!(!serde_json::to_string(&g).unwrap().contains("reaction_floor_ms"));
    }
    let g = HideAndEeek::new(&Config::default(), 2, 5).unwrap();
    assert!(
        serde_json::to_string(&g)
            .unwrap()
            .contains("\"reaction_floor_ms\":150")
    );
}

/// Seat 0 turns over a mouse card at (2, 3), nobody claims it and it misses the category: it stays face up (the
/// arrow is up) and seat 1's turn begins, with the roll set to 1 down, odd; (1, 1) holds a face-down 37.
fn mouse_left_face_up() -> HideAndEeek {
    let mut g = position(
        3,
        cell(2, 1),
        roll(1, Arrow::Up, Category::Odd),
        &[&[46], &[60], &[70]],
        &[(2, 3, EEEK_CARDS[1], false), (1, 1, 37, false), (0, 0, 35, true)],
    );
    assert_eq!(EEEK_CARDS[1] % 2, 0, "the mouse card misses odd");
    act(&mut g, 0, Action::Move { to: cell(2, 2) });
    act(&mut g, 0, Action::Choose { cell: cell(2, 3) });
    close_windows(&mut g);
    assert_eq!(g.status(), Status::Turn { seat: Seat(1) });
    assert_eq!(g.card_at(cell(2, 3)).map(|c| c.face_up), Some(true));
    g.roll = roll(1, Arrow::Down, Category::Odd);
    g
}

/// Seat 1 plays its turn: to (1, 2), takes the 37 at (1, 1) and stops; the gaps are refilled face down.
fn seat_1_plays(g: &mut HideAndEeek) -> Vec<EventBody> {
    act(g, 1, Action::Move { to: cell(1, 2) });
    act(g, 1, Action::Choose { cell: cell(1, 1) });
    close_windows(g);
    let events = act(g, 1, Action::Stop);
    close_windows(g);
    events
}

#[test]
fn v3_a_mouse_left_face_up_can_be_spotted_later() {
    let mut g = mouse_left_face_up();
    // Every seat may claim any face-up card (the list does not tell which show a mouse); nothing else for seat 2.
    let late = vec![
        Action::Eeek { cell: cell(0, 0) },
        Action::Eeek { cell: cell(2, 3) },
    ];
    assert_eq!(g.legal_actions(Seat(2)), late);
    assert!(late.iter().all(|a| g.legal_actions(Seat(1)).contains(a)));
    assert_eq!(
        g.apply(Actor::Seat(Seat(2)), &Action::Eeek { cell: cell(5, 5) }, NOW),
        Err(Rejected::NotFaceUp(cell(5, 5)))
    );
    // Seat 2 claims: a short window opens on that card, seat 2 having answered; the turn waits.
    let at = NOW + 20_000;
    let events: Vec<EventBody> = g
        .apply(Actor::Seat(Seat(2)), &Action::Eeek { cell: cell(2, 3) }, at)
        .unwrap()
        .into_iter()
        .map(|e| e.body)
        .collect();
    assert_eq!(
        events,
        vec![
            EventBody::LookOpened {
                cells: vec![cell(2, 3)],
                closes_at: at + Millis::from(LATE_WINDOW_MS),
                late_by: Some(Seat(2))
            },
            EventBody::Responded { seat: Seat(2) }
        ]
    );
    assert_eq!(
        g.status(),
        Status::Race {
            seats: vec![Seat(0), Seat(1)]
        }
    );
    let view = serde_json::to_value(g.view(Viewer::Seat(Seat(0)))).unwrap();
    assert_eq!(view["look"]["late"], true);
    // Seat 0 had spotted it at about the same time: its claim, 90 ms later, ties at the floor; the draw decides.
    g.apply(Actor::Seat(Seat(0)), &Action::Eeek { cell: cell(2, 3) }, at + 90)
        .unwrap();
    let claims = closed_claims(g.apply(Actor::Seat(Seat(1)), &Action::Pass, at + 300).unwrap());
    assert!(
        claims.iter().all(|c| c.tied && c.judged_ms == Some(150)),
        "{claims:?}"
    );
    let winner = claims.iter().find(|c| c.won).expect("won").seat;
    assert_eq!(g.piles[winner.index()].last(), Some(&EEEK_CARDS[1]));
    assert_eq!(g.card_at(cell(2, 3)), None, "refilled when the turn ends");
    // The turn in progress goes on; one late claim a turn each; the winner plays once the turn is over.
    assert_eq!(g.status(), Status::Turn { seat: Seat(1) });
    assert_eq!(
        g.apply(
            Actor::Seat(Seat(2)),
            &Action::Eeek { cell: cell(0, 0) },
            at + 2_000
        ),
        Err(Rejected::LateClaimMade)
    );
    assert!(g.legal_actions(Seat(2)).is_empty());
    let events = seat_1_plays(&mut g);
    assert!(
        events
            .iter()
            .any(|e| matches!(e, EventBody::Refilled { cell: c, .. } if *c == cell(2, 3)))
    );
    assert_eq!(g.turn, winner, "the late claimant plays next");
    assert_eq!(
        g.legal_actions(Seat(2)).is_empty(),
        winner != Seat(2) && g.face_up_cells().next().is_none()
    );
}

#[test]
fn v3_a_false_late_claim_costs_a_turn_and_the_turn_goes_on() {
    let mut g = mouse_left_face_up();
    act(&mut g, 2, Action::Eeek { cell: cell(0, 0) });
    let events = close_windows_events(&mut g);
    assert!(events.contains(&EventBody::FalseClaim {
        seat: Seat(2),
        cell: cell(0, 0),
        skips: 1
    }));
    assert_eq!(
        g.card_at(cell(0, 0)).map(|c| c.number),
        Some(35),
        "the card stays"
    );
    assert_eq!(g.status(), Status::Turn { seat: Seat(1) });
    seat_1_plays(&mut g);
    assert_eq!(g.turn, Seat(0), "seat 2 misses its turn");
}

#[test]
fn v3_a_bot_spots_a_mouse_left_face_up_sometimes_and_never_a_card_without_one() {
    let g = mouse_left_face_up();
    let (mut spotted, mut asked) = (0, 0);
    for row in 0..GRID_SIZE {
        for col in 0..GRID_SIZE {
            let mut g = g.clone();
            g.mouse = cell(row, col);
            for seat in [Seat(0), Seat(2)] {
                asked += 1;
                let action = g.bot_action(seat, &mut Rng::from_seed(1));
                assert_eq!(g.bot_waits(seat), action.is_none());
                if let Some(action) = action {
                    assert_eq!(action, Action::Eeek { cell: cell(2, 3) });
                    spotted += 1;
                }
            }
        }
    }
    // About one chance in ten at each change of the table.
    assert!((2..=20).contains(&spotted), "{spotted} of {asked}");
    // Between windows the active bot plays its turn (or claims what it spotted); it never waits.
    assert!(!g.bot_waits(Seat(1)));
}
