use super::legal::permutations;
use super::*;
use crate::model::Audience;
use crate::testkit::{fingerprint, random_playout};

const P0: Seat = Seat(0);
const P1: Seat = Seat(1);
const P2: Seat = Seat(2);

// ---------------------------------------------------------------------------------------------------------
// Building positions by hand for the golden cases.
// ---------------------------------------------------------------------------------------------------------

/// A table at the planning step of `round`, turn order `order`, an empty surface and no moles yet.
fn table(players: u8, round: u8, order: &[Seat]) -> Molehills {
    let mut g = Molehills::new(&MolehillsConfig::default(), players, 11).expect("setup");
    g.order = order.to_vec();
    g.round = round;
    g.phase = Phase::Planning;
    g
}

fn mole(g: &mut Molehills, seat: Seat, at: Pos, facing: Dir) {
    g.moles[seat.index()] = Some(Mole { at, facing });
}

/// Puts a mountain (bottom first) on the surface, taking its pieces from the owners' supplies.
fn mountain(g: &mut Molehills, at: Pos, pieces: &[Seat]) {
    for p in pieces {
        g.supply[p.index()] -= 1;
    }
    let i = g.idx(at);
    g.stacks[i] = pieces.to_vec();
}

/// Gives `seat` a hand of cards of these kinds (taken out of the deck); returns their ids in the given order.
fn hand(g: &mut Molehills, seat: Seat, cards: [Card; 4]) -> Vec<CardId> {
    let mut ids = Vec::new();
    for card in cards {
        let pos = g
            .deck
            .iter()
            .position(|id| card_of(*id) == card)
            .unwrap_or_else(|| panic!("no {card:?} left in the deck"));
        ids.push(g.deck.remove(pos));
    }
    let mut sorted = ids.clone();
    sorted.sort_unstable();
    g.hands[seat.index()] = sorted;
    ids
}

fn turns() -> [Card; 4] {
    [
        Card::Turn { turn: Turn::Left },
        Card::Turn { turn: Turn::Right },
        Card::Turn { turn: Turn::About },
        Card::Turn { turn: Turn::About },
    ]
}

fn plan(g: &mut Molehills, seat: Seat, order: Vec<CardId>) -> Events {
    g.apply(Actor::Seat(seat), &MolehillsAction::Plan { order }, 0)
        .expect("the plan is accepted")
}

fn stack(g: &Molehills, row: u8, col: u8) -> Vec<Seat> {
    g.stacks[g.idx(Pos::new(row, col))].clone()
}

fn bodies(events: &Events) -> Vec<MolehillsEvent> {
    events.iter().map(|e| e.body.clone()).collect()
}

/// Colour conservation, heights, card conservation, moles and plans: checked after every step of a playout.
fn invariants(g: &Molehills) {
    for seat in Seat::all(g.players) {
        let on_board = g.stacks.iter().flatten().filter(|p| **p == seat).count();
        assert_eq!(
            on_board + g.supply[seat.index()] as usize,
            PIECES_PER_COLOUR as usize,
            "every molehill piece of {seat} is in supply or on the board"
        );
        if let Some(plan) = &g.plans[seat.index()] {
            let mut sorted = plan.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, g.hands[seat.index()], "a stack is the unrevealed hand");
        }
    }
    for s in &g.stacks {
        assert!(
            s.len() <= g.max_height(),
            "a mountain over the limit stayed up: {s:?}"
        );
    }
    let mut cards: Vec<CardId> = g
        .deck
        .iter()
        .chain(&g.display)
        .chain(&g.discard)
        .chain(g.hands.iter().flatten())
        .chain(g.revealed.iter().flatten())
        .copied()
        .collect();
    cards.sort_unstable();
    assert_eq!(
        cards,
        (0..deck_cards().len() as CardId).collect::<Vec<_>>(),
        "cards lost or doubled"
    );
    let placed: Vec<Pos> = g.moles.iter().flatten().map(|m| m.at).collect();
    for (i, a) in placed.iter().enumerate() {
        assert!(placed[i + 1..].iter().all(|b| b != a), "two moles share a space");
        assert_ne!(g.rock, Some(*a), "a mole is on the rock");
    }
}

// ---------------------------------------------------------------------------------------------------------
// Data
// ---------------------------------------------------------------------------------------------------------

#[test]
fn the_deck_has_120_cards_enough_for_six_rounds_at_four_players() {
    let deck = deck_cards();
    assert_eq!(deck.len(), 120);
    assert!(deck.len() >= CARDS_DEALT_PER_PLAYER * 4 * ROUNDS as usize);
    assert_eq!(MAX_HEIGHT_BY_ROUND, [2, 3, 3, 4, 4, 5]);
    // Left and right are equally common, so neither way round the board is favoured.
    let count = |f: &dyn Fn(&Card) -> bool| deck.iter().filter(|c| f(c)).count();
    let lefts = count(&|c| {
        matches!(
            c,
            Card::Turn { turn: Turn::Left } | Card::MoveTurn { turn: Turn::Left, .. }
        )
    });
    let rights = count(&|c| {
        matches!(
            c,
            Card::Turn { turn: Turn::Right }
                | Card::MoveTurn {
                    turn: Turn::Right,
                    ..
                }
        )
    });
    assert_eq!(lefts, rights);
    for (id, card) in deck.iter().enumerate() {
        assert_eq!(card_of(id as CardId), *card);
    }
}

#[test]
fn grids_by_player_count() {
    for (players, grid, g) in [
        (2, ThreePlayerGrid::Seed6x6, 4),
        (3, ThreePlayerGrid::Seed6x6, 6),
        (3, ThreePlayerGrid::Published5x5, 5),
        (4, ThreePlayerGrid::Seed6x6, 6),
        (4, ThreePlayerGrid::Published5x5, 6),
    ] {
        let game = Molehills::new(
            &MolehillsConfig {
                three_player_grid: grid,
            },
            players,
            1,
        )
        .expect("setup");
        assert_eq!(game.grid, g, "{players} players, {grid:?}");
    }
    assert!(Molehills::new(&MolehillsConfig::default(), 1, 1).is_err());
    assert!(Molehills::new(&MolehillsConfig::default(), 5, 1).is_err());
}

/// The catalogue says at which table sizes the grid option matters (clients leave it out elsewhere): exactly where
/// the two grids give different boards.
#[test]
fn grid_option_applies_where_the_grids_differ() {
    let info = Molehills::info();
    let spec = info
        .options
        .iter()
        .find(|o| o.key == "three_player_grid")
        .expect("option");
    for players in info.min_players..=info.max_players {
        let differ = data::grid_side(players, ThreePlayerGrid::Seed6x6)
            != data::grid_side(players, ThreePlayerGrid::Published5x5);
        assert_eq!(spec.applies_to(players), differ, "{players} players");
    }
}

#[test]
fn config_json_takes_defaults_and_refuses_unknown_options() {
    let c: MolehillsConfig = serde_json::from_str("{}").expect("defaults");
    assert_eq!(c.three_player_grid, ThreePlayerGrid::Seed6x6);
    let c: MolehillsConfig = serde_json::from_str(r#"{"three_player_grid":"5x5"}"#).expect("5x5");
    assert_eq!(c.three_player_grid, ThreePlayerGrid::Published5x5);
    assert!(serde_json::from_str::<MolehillsConfig>(r#"{"grid":"5x5"}"#).is_err());
    let any = crate::AnyGame::new(
        "molehills",
        None,
        &serde_json::json!({"three_player_grid": "5x5"}),
        3,
        9,
    )
    .expect("registered");
    assert_eq!(
        crate::testkit::Parsed::view_value(&any, Viewer::Spectator)["grid"],
        5
    );
}

// ---------------------------------------------------------------------------------------------------------
// Setup and draft
// ---------------------------------------------------------------------------------------------------------

#[test]
fn setup_places_moles_on_free_corners_in_turn_order_then_deals_a_public_draft() {
    let mut g = Molehills::new(&MolehillsConfig::default(), 3, 5).expect("setup");
    let order = g.order.clone();
    assert_eq!(g.status(), Status::Turn { seat: order[0] });
    assert_eq!(g.legal_actions(order[0]).len(), 16, "four corners, four facings");
    let first = MolehillsAction::PlaceMole {
        at: Pos::new(0, 0),
        facing: Dir::East,
    };
    assert_eq!(
        g.apply(Actor::Seat(order[1]), &first, 0),
        Err(MolehillsReject::NotYourTurn)
    );
    g.apply(Actor::Seat(order[0]), &first, 0).expect("placed");
    assert_eq!(stack(&g, 0, 0), vec![order[0]]);
    assert_eq!(
        g.apply(Actor::Seat(order[1]), &first, 0),
        Err(MolehillsReject::NotAFreeCorner)
    );
    let middle = MolehillsAction::PlaceMole {
        at: Pos::new(2, 2),
        facing: Dir::East,
    };
    assert_eq!(
        g.apply(Actor::Seat(order[1]), &middle, 0),
        Err(MolehillsReject::NotAFreeCorner)
    );
    assert_eq!(g.legal_actions(order[1]).len(), 12);
    g.apply(
        Actor::Seat(order[1]),
        &MolehillsAction::PlaceMole {
            at: Pos::new(5, 5),
            facing: Dir::North,
        },
        0,
    )
    .expect("placed");
    let events = g
        .apply(
            Actor::Seat(order[2]),
            &MolehillsAction::PlaceMole {
                at: Pos::new(0, 5),
                facing: Dir::West,
            },
            0,
        )
        .expect("placed");
    assert!(bodies(&events).contains(&MolehillsEvent::RoundStarted {
        round: 1,
        max_height: 2
    }));
    assert_eq!(g.display.len(), 15);
    // The draft goes round in turn order (1, 2, 3, 1, 2, 3, ...) until each player has four cards.
    let mut pickers = Vec::new();
    while let Phase::Draft { .. } = g.phase {
        let Status::Turn { seat } = g.status() else {
            panic!("the draft is turn by turn")
        };
        pickers.push(seat);
        let pick = g.legal_actions(seat)[0].clone();
        let events = g.apply(Actor::Seat(seat), &pick, 0).expect("pick");
        assert!(
            events.iter().all(|e| e.audience == Audience::Everyone),
            "the draft is public"
        );
    }
    assert_eq!(
        pickers,
        order.iter().copied().cycle().take(12).collect::<Vec<_>>()
    );
    assert_eq!(g.phase, Phase::Planning);
    assert_eq!(g.discard.len(), 3, "the cards nobody took are discarded");
    assert!(g.hands.iter().all(|h| h.len() == HAND_SIZE));
}

// ---------------------------------------------------------------------------------------------------------
// Golden cases
// ---------------------------------------------------------------------------------------------------------

#[test]
fn a_mole_pushes_its_piece_under_an_existing_mountain() {
    let mut g = table(2, 2, &[P0, P1]);
    mole(&mut g, P0, Pos::new(0, 0), Dir::East);
    mole(&mut g, P1, Pos::new(3, 3), Dir::North);
    mountain(&mut g, Pos::new(0, 0), &[P0]);
    mountain(&mut g, Pos::new(3, 3), &[P1]);
    mountain(&mut g, Pos::new(0, 1), &[P1, P1]);
    let p0 = hand(
        &mut g,
        P0,
        [
            Card::Move { steps: 1 },
            Card::Turn { turn: Turn::Right },
            Card::Turn { turn: Turn::Right },
            Card::Turn { turn: Turn::Right },
        ],
    );
    let p1 = hand(&mut g, P1, turns());
    plan(&mut g, P0, p0);
    let events = plan(&mut g, P1, p1);
    assert!(bodies(&events).contains(&MolehillsEvent::PiecePushed {
        seat: P0,
        at: Pos::new(0, 1),
        height: 3
    }));
    assert_eq!(stack(&g, 0, 1), vec![P0, P1, P1], "the new piece goes underneath");
    assert_eq!(
        g.moles[0],
        Some(Mole {
            at: Pos::new(0, 1),
            facing: Dir::North
        })
    );
    // Round 2 allows three pieces, so nothing toppled; P0 now controls the mountain and scores all of it.
    assert_eq!(g.round_scores[0], vec![1 + 3, 1]);
    assert_eq!(g.supply[0], PIECES_PER_COLOUR - 2);
}

#[test]
fn a_topple_chains_into_the_next_mountain() {
    // Round 1: the limit is 2. P0 digs east under a mountain of two; it topples east, and the mountain it lands
    // on grows to three and topples in turn, away from the first (never back onto it).
    let mut g = table(2, 1, &[P0, P1]);
    mole(&mut g, P0, Pos::new(1, 0), Dir::East);
    mole(&mut g, P1, Pos::new(3, 3), Dir::North);
    mountain(&mut g, Pos::new(1, 1), &[P1, P1]);
    mountain(&mut g, Pos::new(1, 2), &[P1, P1]);
    let p0 = hand(
        &mut g,
        P0,
        [
            Card::Move { steps: 1 },
            Card::Turn { turn: Turn::Left },
            Card::Turn { turn: Turn::Left },
            Card::Turn { turn: Turn::Left },
        ],
    );
    let p1 = hand(&mut g, P1, turns());
    plan(&mut g, P0, p0);
    let events = bodies(&plan(&mut g, P1, p1));
    let topples: Vec<&MolehillsEvent> = events
        .iter()
        .filter(|e| matches!(e, MolehillsEvent::Toppled { .. }))
        .collect();
    assert_eq!(
        topples,
        vec![
            &MolehillsEvent::Toppled {
                at: Pos::new(1, 1),
                toward: Dir::East,
                falls: vec![
                    Fall {
                        piece: P1,
                        to: Some(Pos::new(1, 2))
                    },
                    Fall {
                        piece: P1,
                        to: Some(Pos::new(2, 1))
                    },
                ],
            },
            &MolehillsEvent::Toppled {
                at: Pos::new(1, 2),
                toward: Dir::East,
                falls: vec![
                    Fall {
                        piece: P1,
                        to: Some(Pos::new(1, 3))
                    },
                    Fall {
                        piece: P1,
                        to: Some(Pos::new(2, 2))
                    },
                ],
            },
        ]
    );
    assert_eq!(
        stack(&g, 1, 1),
        vec![P0],
        "the piece just pushed up stays as the base"
    );
    assert_eq!(stack(&g, 1, 2), vec![P1]);
    assert_eq!(stack(&g, 1, 3), vec![P1]);
    assert_eq!(stack(&g, 2, 1), vec![P1]);
    assert_eq!(stack(&g, 2, 2), vec![P1]);
    invariants(&g);
}

#[test]
fn a_topple_at_the_edge_loses_pieces_over_the_edge_and_skips_spaces_already_fallen() {
    // Round 2 (limit 3). P0 digs east into the last column under [P1, P1, P0]: the top piece falls off the
    // board back to its owner's supply, the next lands south on a full mountain, which topples in turn.
    let mut g = table(2, 2, &[P0, P1]);
    mole(&mut g, P0, Pos::new(1, 2), Dir::East);
    mole(&mut g, P1, Pos::new(3, 0), Dir::North);
    mountain(&mut g, Pos::new(1, 3), &[P1, P1, P0]);
    mountain(&mut g, Pos::new(2, 3), &[P1, P1, P1]);
    let p0 = hand(
        &mut g,
        P0,
        [
            Card::Move { steps: 1 },
            Card::Turn { turn: Turn::Left },
            Card::Turn { turn: Turn::Left },
            Card::Turn { turn: Turn::Left },
        ],
    );
    let p1 = hand(&mut g, P1, turns());
    let supply_before = g.supply.clone();
    plan(&mut g, P0, p0);
    let events = bodies(&plan(&mut g, P1, p1));
    let topples: Vec<&MolehillsEvent> = events
        .iter()
        .filter(|e| matches!(e, MolehillsEvent::Toppled { .. }))
        .collect();
    assert_eq!(
        topples,
        vec![
            // Top first: P0 off the east edge, P1 south onto (2, 3), P1 west (behind) onto (1, 2).
            &MolehillsEvent::Toppled {
                at: Pos::new(1, 3),
                toward: Dir::East,
                falls: vec![
                    Fall { piece: P0, to: None },
                    Fall {
                        piece: P1,
                        to: Some(Pos::new(2, 3))
                    },
                    Fall {
                        piece: P1,
                        to: Some(Pos::new(1, 2))
                    },
                ],
            },
            // (2, 3) is now four tall and falls south (away from (1, 3)): ahead is (3, 3), right is west
            // (2, 2), behind is (1, 3) which already fell and is skipped, left is east, off the board.
            &MolehillsEvent::Toppled {
                at: Pos::new(2, 3),
                toward: Dir::South,
                falls: vec![
                    Fall {
                        piece: P1,
                        to: Some(Pos::new(3, 3))
                    },
                    Fall {
                        piece: P1,
                        to: Some(Pos::new(2, 2))
                    },
                    Fall { piece: P1, to: None },
                ],
            },
        ]
    );
    assert_eq!(stack(&g, 1, 3), vec![P0]);
    assert_eq!(stack(&g, 2, 3), vec![P1]);
    assert_eq!(stack(&g, 1, 2), vec![P1]);
    assert_eq!(
        g.supply[0],
        supply_before[0] - 1 + 1,
        "one piece pushed up, one fell off"
    );
    assert_eq!(g.supply[1], supply_before[1] + 1);
    invariants(&g);
}

#[test]
fn cards_resolve_one_per_player_in_turn_order_and_the_round_is_scored_by_control() {
    let mut g = table(2, 1, &[P1, P0]);
    mole(&mut g, P0, Pos::new(0, 0), Dir::South);
    mole(&mut g, P1, Pos::new(3, 3), Dir::North);
    mountain(&mut g, Pos::new(0, 0), &[P0]);
    mountain(&mut g, Pos::new(3, 3), &[P1]);
    mountain(&mut g, Pos::new(1, 0), &[P1]);
    let p0 = hand(
        &mut g,
        P0,
        [
            Card::Move { steps: 1 },
            Card::Turn { turn: Turn::Left },
            Card::Turn { turn: Turn::Right },
            Card::Turn { turn: Turn::About },
        ],
    );
    let p1 = hand(
        &mut g,
        P1,
        [
            Card::Turn { turn: Turn::About },
            Card::Turn { turn: Turn::About },
            Card::Move { steps: 2 },
            Card::Turn { turn: Turn::Right },
        ],
    );
    plan(&mut g, P0, p0);
    let events = bodies(&plan(&mut g, P1, p1));
    let revealed: Vec<Seat> = events
        .iter()
        .filter_map(|e| match e {
            MolehillsEvent::Revealed { seat, .. } => Some(*seat),
            _ => None,
        })
        .collect();
    assert_eq!(
        revealed,
        vec![P1, P0, P1, P0, P1, P0, P1, P0],
        "one card each, in turn order"
    );
    // P0 pushed under (1, 0): [P0, P1]. P1 dug north twice: (2, 3) and (1, 3).
    assert_eq!(stack(&g, 1, 0), vec![P0, P1]);
    assert_eq!(stack(&g, 2, 3), vec![P1]);
    assert_eq!(stack(&g, 1, 3), vec![P1]);
    // Control: P0 has (0, 0) = 1 and (1, 0) = 2; P1 has (3, 3), (2, 3), (1, 3) = 1 each.
    assert!(events.contains(&MolehillsEvent::RoundScored {
        round: 1,
        points: vec![3, 3],
        tops: vec![1, 4],
        totals: vec![3, 3],
    }));
    assert_eq!(g.round_scores, vec![vec![3, 3]]);
    let view = g.view(Viewer::Spectator);
    assert_eq!(view.players[0].score, 3);
    assert_eq!(view.players[1].round_scores.to_vec(), vec![3]);
    assert_eq!(g.phase, Phase::KingOfTheHill { chooser: P1 });
    invariants(&g);
}

#[test]
fn king_of_the_hill_goes_to_most_tops_with_ties_broken_by_the_previous_turn_order() {
    // P0 and P2 each have two pieces on top, P1 one. The tie goes to whichever of P0 and P2 played earlier.
    for (previous, chooser, token, next) in [
        ([P2, P0, P1], P2, 3, [P0, P1, P2]),
        ([P0, P1, P2], P0, 2, [P1, P0, P2]),
        ([P1, P2, P0], P2, 1, [P2, P1, P0]),
    ] {
        let mut g = table(3, 2, &previous);
        mole(&mut g, P0, Pos::new(0, 0), Dir::North);
        mole(&mut g, P1, Pos::new(0, 5), Dir::North);
        mole(&mut g, P2, Pos::new(5, 5), Dir::South);
        mountain(&mut g, Pos::new(0, 0), &[P0]);
        mountain(&mut g, Pos::new(0, 5), &[P1, P0]);
        mountain(&mut g, Pos::new(5, 5), &[P2]);
        mountain(&mut g, Pos::new(2, 2), &[P1, P2, P1]);
        mountain(&mut g, Pos::new(3, 3), &[P0, P2]);
        let plans: Vec<Vec<CardId>> = [P0, P1, P2].iter().map(|s| hand(&mut g, *s, turns())).collect();
        let mut events = Vec::new();
        for (s, p) in plans.into_iter().enumerate() {
            events.extend(bodies(&plan(&mut g, Seat(s as u8), p)));
        }
        assert!(events.contains(&MolehillsEvent::RoundScored {
            round: 2,
            points: vec![1 + 2, 2 + 3, 1],
            tops: vec![2, 1, 2],
            totals: vec![3, 5, 1],
        }));
        assert_eq!(g.status(), Status::Turn { seat: chooser });
        for other in [P0, P1, P2].into_iter().filter(|s| *s != chooser) {
            assert!(g.legal_actions(other).is_empty());
        }
        let action = MolehillsAction::ChooseToken { token };
        assert_eq!(
            g.apply(
                Actor::Seat(chooser),
                &MolehillsAction::ChooseToken { token: 4 },
                0
            ),
            Err(MolehillsReject::NoSuchToken)
        );
        let events = bodies(&g.apply(Actor::Seat(chooser), &action, 0).expect("token"));
        assert_eq!(
            g.order,
            next.to_vec(),
            "the others keep their previous relative order"
        );
        assert!(events.contains(&MolehillsEvent::TurnOrder {
            round: 3,
            order: next.to_vec()
        }));
        assert_eq!(g.round, 3);
        assert_eq!(g.status(), Status::Turn { seat: next[0] }, "token 1 drafts first");
        assert_eq!(g.display.len(), 15);
    }
}

#[test]
fn a_final_tie_is_broken_by_five_piece_mountains_then_four_and_so_on() {
    // Each case: the last round; mountains (bottom first); expected placings.
    type Mountains = Vec<(Pos, Vec<Seat>)>;
    let cases: Vec<(Mountains, Vec<u8>)> = vec![
        // 5 + 0 against 4 + 1: the five-piece mountain wins.
        (
            vec![
                (Pos::new(1, 1), vec![P0, P1, P1, P1, P1]),
                (Pos::new(2, 2), vec![P1, P0, P0, P0]),
                (Pos::new(1, 2), vec![P1]),
            ],
            vec![1, 2],
        ),
        // 3 + 2 against 3 + 1 + 1: equal fives and fours; more threes? equal; more twos wins.
        (
            vec![
                (Pos::new(1, 1), vec![P0, P1, P1]),
                (Pos::new(1, 2), vec![P0, P1]),
                (Pos::new(2, 1), vec![P1, P0, P0]),
                (Pos::new(2, 2), vec![P1]),
                (Pos::new(2, 3), vec![P1]),
            ],
            vec![1, 2],
        ),
        // Identical holdings: a shared victory.
        (
            vec![(Pos::new(1, 1), vec![P0, P1]), (Pos::new(2, 2), vec![P1, P0])],
            vec![1, 1],
        ),
    ];
    for (mountains, placings) in cases {
        let mut g = table(2, ROUNDS, &[P0, P1]);
        mole(&mut g, P0, Pos::new(0, 0), Dir::North);
        mole(&mut g, P1, Pos::new(3, 3), Dir::South);
        for (at, pieces) in &mountains {
            mountain(&mut g, *at, pieces);
        }
        let p0 = hand(&mut g, P0, turns());
        let p1 = hand(&mut g, P1, turns());
        plan(&mut g, P0, p0);
        plan(&mut g, P1, p1);
        assert_eq!(g.status(), Status::Over);
        let outcome = g.outcome().expect("over");
        assert_eq!(
            outcome.scores[0], outcome.scores[1],
            "the totals tie: {mountains:?}"
        );
        assert_eq!(outcome.placings, placings, "{mountains:?}");
        assert!(g.legal_actions(P0).is_empty() && g.legal_actions(P1).is_empty());
    }
}

#[test]
fn move_and_turn_cards_and_the_rock_are_decided_when_revealed() {
    let mut g = table(2, 1, &[P0, P1]);
    mole(&mut g, P0, Pos::new(0, 0), Dir::East);
    mole(&mut g, P1, Pos::new(3, 3), Dir::West);
    let p0 = hand(
        &mut g,
        P0,
        [
            Card::MoveTurn {
                steps: 1,
                turn: Turn::Right,
            },
            Card::Move { steps: 3 },
            Card::Turn { turn: Turn::Left },
            Card::Turn { turn: Turn::Left },
        ],
    );
    let p1 = hand(
        &mut g,
        P1,
        [
            Card::Rock,
            Card::Turn { turn: Turn::Left },
            Card::Turn { turn: Turn::Left },
            Card::Turn { turn: Turn::Left },
        ],
    );
    plan(&mut g, P0, p0);
    plan(&mut g, P1, p1);
    assert_eq!(g.status(), Status::Turn { seat: P0 });
    assert_eq!(
        g.legal_actions(P0),
        vec![MolehillsAction::MoveThenTurn, MolehillsAction::TurnThenMove]
    );
    assert_eq!(
        g.apply(Actor::Seat(P1), &MolehillsAction::MoveThenTurn, 0),
        Err(MolehillsReject::NotYourTurn)
    );
    // Turn first (now facing south), then move one: (1, 0).
    g.apply(Actor::Seat(P0), &MolehillsAction::TurnThenMove, 0)
        .expect("decided");
    assert_eq!(
        g.moles[0],
        Some(Mole {
            at: Pos::new(1, 0),
            facing: Dir::South
        })
    );
    // P1's rock card: the die was rolled and P1 must place the rock within reach of its mole.
    let Phase::Resolving {
        pending: Some(Pending::Rock { roll, spaces, .. }),
        ..
    } = g.phase.clone()
    else {
        panic!("a rock placement is pending: {:?}", g.phase)
    };
    assert!(ROCK_DIE.contains(&roll));
    let expected: Vec<Pos> = (0..4)
        .flat_map(|row| (0..4).map(move |col| Pos::new(row, col)))
        .filter(|p| (1..=roll).contains(&p.distance(Pos::new(3, 3))) && *p != Pos::new(1, 0))
        .collect();
    assert_eq!(spaces, expected, "within the roll of P1's mole, not on a mole");
    assert_eq!(
        g.apply(
            Actor::Seat(P1),
            &MolehillsAction::PlaceRock { at: Pos::new(3, 3) },
            0
        ),
        Err(MolehillsReject::RockNotThere)
    );
    let at = spaces[0];
    g.apply(Actor::Seat(P1), &MolehillsAction::PlaceRock { at }, 0)
        .expect("placed");
    assert_eq!(g.rock, Some(at));
    invariants(&g);
}

#[test]
fn a_mole_stops_at_the_rock_another_mole_and_the_edge() {
    let mut g = table(2, 1, &[P0, P1]);
    mole(&mut g, P0, Pos::new(0, 0), Dir::East);
    mole(&mut g, P1, Pos::new(0, 3), Dir::South);
    g.rock = Some(Pos::new(2, 3));
    let p0 = hand(
        &mut g,
        P0,
        [
            Card::Move { steps: 3 },
            Card::Turn { turn: Turn::Right },
            Card::Move { steps: 1 },
            Card::Move { steps: 3 },
        ],
    );
    let p1 = hand(
        &mut g,
        P1,
        [
            Card::Move { steps: 3 },
            Card::Turn { turn: Turn::Right },
            Card::Move { steps: 3 },
            Card::Turn { turn: Turn::Left },
        ],
    );
    plan(&mut g, P0, p0);
    let events = bodies(&plan(&mut g, P1, p1));
    let blocks: Vec<&MolehillsEvent> = events
        .iter()
        .filter(|e| matches!(e, MolehillsEvent::Blocked { .. }))
        .collect();
    assert_eq!(
        blocks,
        vec![
            &MolehillsEvent::Blocked {
                seat: P0,
                by: Obstacle::Mole { seat: P1 }
            },
            &MolehillsEvent::Blocked {
                seat: P1,
                by: Obstacle::Rock
            },
            &MolehillsEvent::Blocked {
                seat: P1,
                by: Obstacle::Mole { seat: P0 }
            },
            &MolehillsEvent::Blocked {
                seat: P0,
                by: Obstacle::Edge
            },
        ]
    );
    assert_eq!(g.moles[0].map(|m| m.at), Some(Pos::new(3, 2)));
    assert_eq!(g.moles[1].map(|m| m.at), Some(Pos::new(1, 3)));
}

#[test]
fn a_player_without_pieces_still_moves_but_pushes_nothing_up() {
    let mut g = table(2, 1, &[P0, P1]);
    mole(&mut g, P0, Pos::new(0, 0), Dir::East);
    mole(&mut g, P1, Pos::new(3, 3), Dir::West);
    g.supply[0] = 0;
    let p0 = hand(
        &mut g,
        P0,
        [
            Card::Move { steps: 2 },
            Card::Turn { turn: Turn::Left },
            Card::Turn { turn: Turn::Left },
            Card::Turn { turn: Turn::Left },
        ],
    );
    let p1 = hand(&mut g, P1, turns());
    plan(&mut g, P0, p0);
    let events = bodies(&plan(&mut g, P1, p1));
    assert_eq!(
        events
            .iter()
            .filter(|e| **e == MolehillsEvent::OutOfPieces { seat: P0 })
            .count(),
        2
    );
    assert_eq!(g.moles[0].map(|m| m.at), Some(Pos::new(0, 2)));
    assert!(stack(&g, 0, 1).is_empty() && stack(&g, 0, 2).is_empty());
}

// ---------------------------------------------------------------------------------------------------------
// Commit and reveal; hidden information
// ---------------------------------------------------------------------------------------------------------

fn viewers(players: u8) -> Vec<Viewer> {
    Seat::all(players)
        .map(Viewer::Seat)
        .chain([Viewer::Spectator])
        .collect()
}

/// What `viewer` receives of a batch of events, as JSON.
fn seen(events: &Events, viewer: Viewer) -> String {
    let visible: Vec<&MolehillsEvent> = events
        .iter()
        .filter(|e| e.audience.includes(viewer))
        .map(|e| &e.body)
        .collect();
    serde_json::to_string(&visible).expect("events serialise")
}

fn view_json(g: &Molehills, viewer: Viewer) -> String {
    serde_json::to_string(&g.view(viewer)).expect("views serialise")
}

/// Plays random legal actions from a fresh game, calling `at_state` before every step.
fn walk(players: u8, seed: u64, mut at_state: impl FnMut(&Molehills)) {
    let mut g = Molehills::new(&MolehillsConfig::default(), players, seed).expect("setup");
    let mut driver = Rng::from_seed(seed ^ 0xA5A5);
    while g.phase != Phase::Over {
        at_state(&g);
        let movers: Vec<(Seat, Vec<MolehillsAction>)> = Seat::all(players)
            .map(|s| (s, g.legal_actions(s)))
            .filter(|(_, a)| !a.is_empty())
            .collect();
        let (seat, actions) = &movers[driver.index(movers.len())];
        let action = actions[driver.index(actions.len())].clone();
        g.apply(Actor::Seat(*seat), &action, 0).expect("legal");
    }
}

#[test]
fn planned_orders_stay_secret_until_revealed_and_cannot_be_changed() {
    let mut compared = 0;
    for players in 2..=4 {
        for seed in 0..12 {
            walk(players, seed, |g| {
                if g.phase != Phase::Planning {
                    return;
                }
                let waiting = Seat::all(players)
                    .filter(|s| g.plans[s.index()].is_none())
                    .count();
                for seat in Seat::all(players).filter(|s| g.plans[s.index()].is_none()) {
                    let orders = permutations(&g.hands[seat.index()]);
                    // Two states that differ only in the order this seat programmed.
                    let (mut a, mut b) = (g.clone(), g.clone());
                    let ea = plan(&mut a, seat, orders[0].clone());
                    let eb = plan(&mut b, seat, orders[23].clone());
                    // The seat itself is told its own order.
                    assert_ne!(seen(&ea, Viewer::Seat(seat)), seen(&eb, Viewer::Seat(seat)));
                    if waiting > 1 {
                        // Not the last to plan: nothing is revealed yet, and nobody else can tell the orders
                        // apart, from a view or from any event (the seat itself can: the test can see).
                        assert_ne!(
                            view_json(&a, Viewer::Seat(seat)),
                            view_json(&b, Viewer::Seat(seat))
                        );
                        for viewer in viewers(players).into_iter().filter(|v| *v != Viewer::Seat(seat)) {
                            assert_eq!(
                                view_json(&a, viewer),
                                view_json(&b, viewer),
                                "{viewer:?} sees the plan"
                            );
                            assert_eq!(seen(&ea, viewer), seen(&eb, viewer), "{viewer:?} hears the plan");
                        }
                        compared += 1;
                    }
                    // Committed: the seat may not change its stack.
                    let before = fingerprint(&a);
                    let again = MolehillsAction::Plan {
                        order: orders[5].clone(),
                    };
                    if a.phase == Phase::Planning {
                        assert_eq!(
                            a.apply(Actor::Seat(seat), &again, 0),
                            Err(MolehillsReject::AlreadyPlanned)
                        );
                        assert!(a.legal_actions(seat).is_empty());
                        assert_eq!(fingerprint(&a), before);
                    }
                }
            });
        }
    }
    assert!(compared > 100, "the comparison ran {compared} times");
}

#[test]
fn the_deck_order_and_the_random_generator_never_reach_a_view() {
    for players in 2..=4 {
        for seed in 0..8 {
            walk(players, seed, |g| {
                let mut other = g.clone();
                other.deck.reverse();
                other.rng = Rng::from_seed(!seed);
                for viewer in viewers(players) {
                    assert_eq!(view_json(g, viewer), view_json(&other, viewer));
                }
                // A spectator sees no programmed stack at all, and a seat sees only its own.
                assert!(g.view(Viewer::Spectator).your_stack.is_none());
                for seat in Seat::all(players) {
                    let expected = g.plans[seat.index()]
                        .as_ref()
                        .map(|p| p.iter().map(|c| card_view(*c)).collect::<Vec<_>>());
                    assert_eq!(
                        g.view(Viewer::Seat(seat)).your_stack.map(|s| s.to_vec()),
                        expected
                    );
                }
            });
        }
    }
}

#[test]
fn a_hand_is_hidden_from_opponents_and_never_in_stack_order() {
    // Its owner's listing must not follow the programmed order (GAPS Q7).
    let mut g = table(2, 1, &[P0, P1]);
    mole(&mut g, P0, Pos::new(0, 0), Dir::South);
    mole(&mut g, P1, Pos::new(3, 3), Dir::North);
    let mut p0 = hand(&mut g, P0, turns());
    hand(&mut g, P1, turns());
    p0.sort_unstable();
    p0.reverse();
    plan(&mut g, P0, p0);
    let cards: Vec<CardId> = g.view(Viewer::Seat(P0)).players[0]
        .cards
        .as_ref()
        .expect("a seat sees its own hand")
        .iter()
        .map(|c| c.id())
        .collect();
    let mut sorted = cards.clone();
    sorted.sort_unstable();
    assert_eq!(cards, sorted);
    assert_eq!(cards.len(), 4);
    // Opponents and spectators see how many cards the hand holds, never which (the seed: "hidden from opponents").
    for viewer in [Viewer::Seat(P1), Viewer::Spectator] {
        let theirs = &g.view(viewer).players[0];
        // `null`, not an empty list: a hidden hand must not read as an empty one.
        assert_eq!(theirs.cards, None, "{viewer:?} sees P0's hand");
        assert_eq!(theirs.hand_size, 4);
    }
}

// ---------------------------------------------------------------------------------------------------------
// Random playouts and determinism
// ---------------------------------------------------------------------------------------------------------

fn playouts(players: u8, config: MolehillsConfig, games: u64) {
    for seed in 0..games {
        let p = random_playout::<Molehills>(&config, players, seed, seed * 31 + 7, 2_000, invariants);
        assert_eq!(p.state.status(), Status::Over);
        assert_eq!(p.state.round_scores.len(), ROUNDS as usize);
        let outcome = p.state.outcome().expect("over");
        assert_eq!(outcome.scores, p.state.totals());
        assert!(p.rejected_probes > 0);
    }
}

// 300 games per player count. Measured alone in a dev build on the 2-core machine: about 2.5 s at two players,
// 6 s at three, 9 s at four (the harness probes and replays every step).
const PLAYOUTS: u64 = 300;

#[test]
fn random_playouts_2_players() {
    playouts(2, MolehillsConfig::default(), PLAYOUTS);
}

#[test]
fn random_playouts_3_players() {
    playouts(3, MolehillsConfig::default(), PLAYOUTS);
}

#[test]
fn random_playouts_3_players_on_the_published_5x5_grid() {
    let config = MolehillsConfig {
        three_player_grid: ThreePlayerGrid::Published5x5,
    };
    playouts(3, config, PLAYOUTS / 3);
}

#[test]
fn random_playouts_4_players() {
    playouts(4, MolehillsConfig::default(), PLAYOUTS);
}

/// Every action a client could send that is not listed for a seat: refused, and the state does not change.
#[test]
fn every_action_outside_the_list_is_refused_and_changes_nothing() {
    for (players, seed) in [(2, 1), (3, 2), (4, 3)] {
        let p = random_playout::<Molehills>(&MolehillsConfig::default(), players, seed, seed, 2_000, |_| {});
        let mut g = Molehills::new(&MolehillsConfig::default(), players, seed).expect("setup");
        let side = g.grid;
        let mut universe = vec![MolehillsAction::MoveThenTurn, MolehillsAction::TurnThenMove];
        for row in 0..=side {
            for col in 0..=side {
                let at = Pos::new(row, col);
                universe.push(MolehillsAction::PlaceRock { at });
                universe.extend(Dir::ALL.map(|facing| MolehillsAction::PlaceMole { at, facing }));
            }
        }
        universe.extend((0..=deck_cards().len() as CardId).map(|card| MolehillsAction::Pick { card }));
        universe.extend((0..=players + 1).map(|token| MolehillsAction::ChooseToken { token }));
        for entry in &p.log {
            let mut candidates = universe.clone();
            // Plans: every seat's legal orders, and malformed ones.
            for seat in Seat::all(players) {
                let h = &g.hands[seat.index()];
                if h.len() == HAND_SIZE {
                    candidates.push(MolehillsAction::Plan { order: h.clone() });
                    candidates.push(MolehillsAction::Plan {
                        order: h[..3].to_vec(),
                    });
                    candidates.push(MolehillsAction::Plan {
                        order: vec![h[0], h[0], h[1], h[2]],
                    });
                    candidates.push(MolehillsAction::Plan {
                        order: [h.as_slice(), &h[..1]].concat(),
                    });
                }
            }
            for seat in Seat::all(players) {
                let legal = g.legal_actions(seat);
                for action in candidates.iter().filter(|a| !legal.contains(a)) {
                    let mut probe = g.clone();
                    assert!(
                        probe.apply(Actor::Seat(seat), action, entry.at).is_err(),
                        "{seat} {action:?} accepted in {:?}",
                        g.phase
                    );
                    assert!(probe == g, "{seat} {action:?} was refused but changed the state");
                }
            }
            g.apply(entry.actor, &entry.action, entry.at)
                .expect("logged action replays");
        }
    }
}

#[test]
fn same_seed_same_game_and_the_seed_matters() {
    let a = random_playout::<Molehills>(&MolehillsConfig::default(), 4, 42, 1, 2_000, |_| {});
    let b = random_playout::<Molehills>(&MolehillsConfig::default(), 4, 42, 1, 2_000, |_| {});
    assert_eq!(fingerprint(&a.state), fingerprint(&b.state));
    let c = Molehills::new(&MolehillsConfig::default(), 4, 43).expect("setup");
    let d = Molehills::new(&MolehillsConfig::default(), 4, 42).expect("setup");
    assert_ne!(fingerprint(&c), fingerprint(&d));
}

#[test]
fn the_clock_and_strangers_are_refused() {
    let mut g = Molehills::new(&MolehillsConfig::default(), 2, 3).expect("setup");
    let action = g.legal_actions(g.order[0])[0].clone();
    assert_eq!(g.apply(Actor::Clock, &action, 0), Err(MolehillsReject::NotDue));
    assert_eq!(
        g.apply(Actor::Seat(Seat(2)), &action, 0),
        Err(MolehillsReject::NoSuchSeat)
    );
    assert_eq!(
        g.apply(Actor::Seat(g.order[0]), &MolehillsAction::Pick { card: 0 }, 0),
        Err(MolehillsReject::WrongPhase)
    );
    assert!(g.deadline().is_none());
    assert_eq!(MolehillsReject::AlreadyPlanned.kind(), RejectKind::NotYourTurn);
}

#[test]
fn actions_and_events_read_as_json() {
    let a = MolehillsAction::Plan {
        order: vec![3, 1, 2, 0],
    };
    assert_eq!(
        serde_json::to_string(&a).expect("json"),
        r#"{"type":"plan","order":[3,1,2,0]}"#
    );
    let a = MolehillsAction::PlaceMole {
        at: Pos::new(0, 3),
        facing: Dir::West,
    };
    assert_eq!(
        serde_json::to_string(&a).expect("json"),
        r#"{"type":"place_mole","at":{"row":0,"col":3},"facing":"west"}"#
    );
    assert_eq!(
        serde_json::to_value(card_view(0)).expect("json"),
        serde_json::json!({"id": 0, "kind": "move", "steps": 1})
    );
}

#[test]
fn snapshots_restore_mid_game_through_the_registry() {
    // Stop a random game in every phase it passes through and restore it from its full state.
    let mut phases = std::collections::BTreeSet::new();
    walk(4, 5, |g| {
        let any = crate::AnyGame::Molehills(Box::new(g.clone()));
        let back = crate::AnyGame::from_full_state(&any.full_state()).expect("restores");
        let crate::AnyGame::Molehills(back) = back else {
            panic!("another game")
        };
        assert_eq!(fingerprint(&*back), fingerprint(g));
        phases.insert(serde_json::to_value(&g.phase).expect("json")["phase"].to_string());
    });
    assert!(phases.len() >= 5, "{phases:?}");
    assert!(crate::catalogue().iter().any(|i| i.id == "molehills"));
}

/// The iterative `permutations` lists the same orders, in the same order, as the plain recursive definition
/// (the order of the legal actions is part of what random playouts and replays depend on).
#[test]
fn permutations_match_the_recursive_definition() {
    fn recursive(items: &[CardId]) -> Vec<Vec<CardId>> {
        if items.len() <= 1 {
            return vec![items.to_vec()];
        }
        let mut out = Vec::new();
        for i in 0..items.len() {
            let mut rest = items.to_vec();
            let first = rest.remove(i);
            for mut tail in recursive(&rest) {
                tail.insert(0, first);
                out.push(tail);
            }
        }
        out
    }
    for items in [
        &[][..],
        &[4],
        &[7, 2],
        &[1, 5, 9],
        &[3, 0, 8, 6],
        &[2, 2, 5],
        &[9, 1, 4, 3, 7],
    ] {
        assert_eq!(permutations(items), recursive(items), "{items:?}");
    }
}

// ---------------------------------------------------------------------------------------------------------
// The deck
// ---------------------------------------------------------------------------------------------------------

#[test]
fn the_card_table_is_the_deck() {
    assert_eq!(CARDS.to_vec(), deck_cards());
    assert!(deck_cards().len() <= CardId::MAX as usize + 1);
}

// ---------------------------------------------------------------------------------------------------------
// Every game ends: no stalling (issue 25, "for every change")
// ---------------------------------------------------------------------------------------------------------

/// The most actions a game of `players` can take: each mole placed once; each round every player picks
/// [`HAND_SIZE`] cards and programs one stack, and each revealed card asks its player at most one decision
/// (move-and-turn order or where the rock goes); after each round but the last one player chooses a token.
/// Nothing can be passed, undone or repeated, so no line of play is longer.
fn action_bound(players: u8) -> usize {
    let n = players as usize;
    n + ROUNDS as usize * (2 * HAND_SIZE * n + n) + (ROUNDS as usize - 1)
}

/// An upper bound on the actions still to come, read from the phase alone. It starts at [`action_bound`] and
/// every accepted action lowers it by at least one (checked at every step below), which proves the bound.
fn actions_left(g: &Molehills) -> usize {
    let (n, hand) = (g.n(), HAND_SIZE);
    let round_max = 2 * hand * n + n;
    let token_after = |round: u8| usize::from(round < ROUNDS);
    let later: usize = (g.round + 1..=ROUNDS).map(|r| round_max + token_after(r)).sum();
    let this = match &g.phase {
        Phase::PlaceMoles { placed } => n - *placed as usize + round_max + token_after(g.round),
        Phase::Draft { picks } => hand * n - *picks as usize + n + hand * n + token_after(g.round),
        Phase::Planning => g.plans.iter().filter(|p| p.is_none()).count() + hand * n + token_after(g.round),
        // Cards not yet fully resolved (the pending one included), each at most one decision.
        Phase::Resolving { card, turn, .. } => {
            (hand - *card as usize) * n - *turn as usize + token_after(g.round)
        }
        Phase::KingOfTheHill { .. } => 1,
        Phase::Over => return 0,
    };
    this + later
}

/// How long an action keeps the game going, as an adversarial staller judges it: the bound on the actions left
/// after it, then, for a pick, how surely the card will ask its player a decision when revealed (a move-and-turn
/// card always does; a rock card does unless no space is within the roll's reach). Nothing else a player chooses
/// changes how many actions remain.
fn stall_score(g: &Molehills, seat: Seat, action: &MolehillsAction) -> usize {
    let mut next = g.clone();
    next.apply(Actor::Seat(seat), action, 0).expect("a listed action");
    let asks = match action {
        MolehillsAction::Pick { card } => match card_of(*card) {
            Card::MoveTurn { .. } => 2,
            Card::Rock => 1,
            Card::Move { .. } | Card::Turn { .. } => 0,
        },
        _ => 0,
    };
    actions_left(&next) * 4 + asks
}

/// Plays a game in which the seats marked in `stallers` always take the action that delays the end most
/// ([`stall_score`], ties broken at random) and the others random legal actions, checking at every step that
/// [`actions_left`] falls; returns how many actions the game took.
fn stalled_game(players: u8, config: &MolehillsConfig, seed: u64, stallers: &[bool]) -> usize {
    let mut g = Molehills::new(config, players, seed).expect("setup");
    let mut driver = Rng::from_seed(seed ^ 0x57A1);
    assert_eq!(actions_left(&g), action_bound(players));
    let mut steps = 0;
    while g.phase != Phase::Over {
        let movers: Vec<Seat> = Seat::all(players)
            .filter(|s| !g.legal_actions(*s).is_empty())
            .collect();
        let seat = movers[driver.index(movers.len())];
        let legal = g.legal_actions(seat);
        let action = if stallers[seat.index()] {
            let scores: Vec<usize> = legal.iter().map(|a| stall_score(&g, seat, a)).collect();
            let top = *scores.iter().max().expect("legal actions");
            let ties: Vec<usize> = (0..legal.len()).filter(|&i| scores[i] == top).collect();
            legal[ties[driver.index(ties.len())]].clone()
        } else {
            legal[driver.index(legal.len())].clone()
        };
        let before = actions_left(&g);
        g.apply(Actor::Seat(seat), &action, 0).expect("a listed action");
        steps += 1;
        assert!(
            actions_left(&g) < before,
            "{action:?} did not bring the end nearer ({before} actions left before it)"
        );
        assert!(steps <= action_bound(players), "the game outlasted its bound");
        invariants(&g);
    }
    steps
}

#[test]
fn every_game_ends_within_the_bound_even_when_every_player_stalls() {
    let cases = [
        (2, MolehillsConfig::default()),
        (3, MolehillsConfig::default()),
        (
            3,
            MolehillsConfig {
                three_player_grid: ThreePlayerGrid::Published5x5,
            },
        ),
        (4, MolehillsConfig::default()),
    ];
    for (players, config) in cases {
        let mut longest = 0;
        for seed in 0..12 {
            // Everyone stalls; then a single staller among random players.
            let all = vec![true; players as usize];
            let mut one = vec![false; players as usize];
            one[seed as usize % players as usize] = true;
            for stallers in [all, one] {
                longest = longest.max(stalled_game(players, &config, seed, &stallers));
            }
        }
        println!(
            "{players} players ({:?}): longest stalled game {longest} actions, bound {}",
            config.three_player_grid,
            action_bound(players)
        );
        assert!(longest <= action_bound(players));
    }
}

#[test]
fn the_action_bound_holds_for_random_play_too() {
    assert_eq!(
        [2, 3, 4].map(action_bound),
        [115, 170, 225],
        "55 actions per player and 5 token choices"
    );
    for players in 2..=4 {
        for seed in 0..20 {
            let stallers = vec![false; players as usize];
            assert!(
                stalled_game(players, &MolehillsConfig::default(), 100 + seed, &stallers)
                    <= action_bound(players)
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------------------
// The server bot
// ---------------------------------------------------------------------------------------------------------

/// Plays a game in which the seats marked in `bots` play [`Game::bot_action`] and the others random legal
/// actions; every action a bot chooses must be one of its listed actions. Returns the final state.
fn bot_game(players: u8, config: &MolehillsConfig, seed: u64, bots: &[bool]) -> Molehills {
    let mut g = Molehills::new(config, players, seed).expect("setup");
    let mut driver = Rng::from_seed(seed ^ 0xB07);
    let mut bot_rng = Rng::from_seed(seed ^ 0x5EED);
    for _ in 0..action_bound(players) {
        if g.phase == Phase::Over {
            return g;
        }
        let movers: Vec<Seat> = Seat::all(players)
            .filter(|s| !g.legal_actions(*s).is_empty())
            .collect();
        let seat = movers[driver.index(movers.len())];
        let legal = g.legal_actions(seat);
        let action = if bots[seat.index()] {
            let action = g
                .bot_action(seat, &mut bot_rng)
                .expect("a bot with legal actions moves");
            assert!(
                legal.contains(&action),
                "the bot chose {action:?}, which is not listed"
            );
            action
        } else {
            legal[driver.index(legal.len())].clone()
        };
        g.apply(Actor::Seat(seat), &action, 0).expect("a listed action");
        invariants(&g);
    }
    assert_eq!(g.phase, Phase::Over, "the game outlasted its bound");
    g
}

#[test]
fn the_bot_only_plays_listed_actions_at_every_seat_count() {
    let five = MolehillsConfig {
        three_player_grid: ThreePlayerGrid::Published5x5,
    };
    for (players, config) in [
        (2, MolehillsConfig::default()),
        (3, MolehillsConfig::default()),
        (3, five),
        (4, MolehillsConfig::default()),
    ] {
        for seed in 0..6 {
            bot_game(players, &config, seed, &vec![true; players as usize]);
            let mut one = vec![false; players as usize];
            one[seed as usize % players as usize] = true;
            bot_game(players, &config, seed, &one);
        }
    }
    // Nobody is asked to act outside their turn, and a bot with nothing to do says so.
    let g = Molehills::new(&MolehillsConfig::default(), 3, 5).expect("setup");
    let waiting = Seat::all(3)
        .find(|s| g.legal_actions(*s).is_empty())
        .expect("two seats wait");
    assert_eq!(g.bot_action(waiting, &mut Rng::from_seed(1)), None);
}

/// The bot alone against random players at three and four seats: it should win far more often than its fair
/// share (a third, a quarter). The full figures (200 games each, release build) are in the rules page.
#[test]
fn the_bot_beats_random_players_at_three_and_four_seats() {
    for players in [3u8, 4] {
        let games = 24;
        let mut wins = 0;
        for seed in 0..games {
            let bot = Seat((seed % u64::from(players)) as u8);
            let mut bots = vec![false; players as usize];
            bots[bot.index()] = true;
            let end = bot_game(players, &MolehillsConfig::default(), 0x3400 + seed, &bots);
            if end.outcome().expect("over").winners == [bot] {
                wins += 1;
            }
        }
        println!("{players} players: the bot won {wins} of {games} games alone against random players");
        assert!(
            wins * 10 >= games * 7,
            "{players} players: the bot won only {wins} of {games}"
        );
    }
}

/// The bot decides from what its seat may know: changing the deck order, the engine's random generator and the
/// other players' hands and stacks never changes its choice.
#[test]
fn the_bot_never_reads_what_its_seat_cannot_see() {
    for players in 2..=4u8 {
        walk(players, u64::from(players) * 7, |g| {
            for seat in Seat::all(players) {
                if g.legal_actions(seat).is_empty() {
                    continue;
                }
                let mut other = g.clone();
                other.rng = Rng::from_seed(0xD1FF);
                other.deck.reverse();
                for s in Seat::all(players).filter(|s| *s != seat) {
                    if let Some(plan) = other.plans[s.index()].as_mut() {
                        plan.reverse();
                    }
                    let swapped: Vec<CardId> = other
                        .deck
                        .iter()
                        .take(other.hands[s.index()].len())
                        .copied()
                        .collect();
                    other.hands[s.index()] = swapped;
                }
                let rng = Rng::from_seed(seat.0 as u64 + 3);
                assert_eq!(
                    g.bot_action(seat, &mut rng.clone()),
                    other.bot_action(seat, &mut rng.clone()),
                    "{seat:?} decided differently on hidden information in {:?}",
                    g.phase
                );
            }
        });
    }
}

/// Speed and strength of the bot, for the rules page: `cargo test -p rules --release --lib molehills_bot_figures
/// -- --ignored --nocapture`. Each call is timed five times and the fastest counts (the machine is shared).
#[test]
#[ignore = "a measurement for the docs, run in release"]
fn molehills_bot_figures() {
    use std::time::Instant;
    for players in [2u8, 3, 4] {
        let games = 200;
        let (mut wins, mut times) = (0, Vec::new());
        for game in 0..games {
            let bot = Seat((game % u64::from(players)) as u8);
            let mut g = Molehills::new(&MolehillsConfig::default(), players, 0x77 + game).expect("setup");
            let mut driver = Rng::from_seed(game);
            let mut bot_rng = Rng::from_seed(game + 1000);
            while g.phase != Phase::Over {
                let movers: Vec<Seat> = Seat::all(players)
                    .filter(|s| !g.legal_actions(*s).is_empty())
                    .collect();
                let seat = movers[driver.index(movers.len())];
                let action = if seat == bot {
                    let fastest = (0..5)
                        .map(|_| {
                            let mut r = bot_rng.clone();
                            let t = Instant::now();
                            let _ = g.bot_action(seat, &mut r);
                            t.elapsed().as_micros()
                        })
                        .min()
                        .expect("timed");
                    times.push(fastest);
                    g.bot_action(seat, &mut bot_rng).expect("bot moves")
                } else {
                    crate::bot::random_legal(&g, seat, &mut driver).expect("legal")
                };
                g.apply(Actor::Seat(seat), &action, 0).expect("legal");
            }
            if g.outcome().expect("over").winners == [bot] {
                wins += 1;
            }
        }
        times.sort_unstable();
        let at = |q: f64| times[((times.len() - 1) as f64 * q) as usize];
        println!(
            "{players} players: the bot won {wins} of {games} alone against random players; per call p50 {} us, \
             p99 {} us, max {} us",
            at(0.5),
            at(0.99),
            times[times.len() - 1]
        );
    }
}
