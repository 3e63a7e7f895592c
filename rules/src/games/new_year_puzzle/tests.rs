use serde_json::json;

use super::data::{REWARDS, full_deck};
use super::*;
use crate::bot::random_legal;
use crate::model::Audience;
use crate::registry::AnyGame;
use crate::testkit::{Parsed, fingerprint, random_playout};

const T: Millis = 1_700_000_000_000;

/// A game of `players` with card `board[p]` at position `p`, the corners and `extra_up` face up, the reward pile
/// `top_first` (its first element on top), seat 0 to act and every score 0.
fn rigged(players: u8, board: Vec<u8>, extra_up: &[u8], top_first: &[Reward]) -> NewYearPuzzle {
    let mut g = NewYearPuzzle::new(&NewYearPuzzleConfig::default(), players, 1).expect("setup");
    for p in CORNERS.iter().chain(extra_up) {
        assert_eq!(board[*p as usize], *p, "a face-up card lies in its own place");
    }
    g.board = board;
    g.face_up = (0..CARDS as u8)
        .map(|p| CORNERS.contains(&p) || extra_up.contains(&p))
        .collect();
    g.pile = top_first.iter().rev().copied().collect();
    g.turn = Seat(0);
    g
}

/// The solved order (card `p` at position `p`) with the cards at each pair of positions exchanged.
fn swapped(pairs: &[(u8, u8)]) -> Vec<u8> {
    let mut board: Vec<u8> = (0..CARDS as u8).collect();
    for (a, b) in pairs {
        board.swap(*a as usize, *b as usize);
    }
    board
}

fn identity() -> Vec<u8> {
    swapped(&[])
}

fn reveal(position: u8) -> PuzzleAction {
    PuzzleAction::Reveal { position }
}

fn play(g: &mut NewYearPuzzle, seat: u8, action: PuzzleAction) -> Vec<PuzzleEvent> {
    g.apply(Actor::Seat(Seat(seat)), &action, T)
        .unwrap_or_else(|r| panic!("{action:?} by seat {seat} refused: {r}"))
        .into_iter()
        .map(|e| {
            assert_eq!(
                e.audience,
                Audience::Everyone,
                "every event of this game is public"
            );
            e.body
        })
        .collect()
}

fn viewers(players: u8) -> impl Iterator<Item = Viewer> {
    Seat::all(players).map(Viewer::Seat).chain([Viewer::Spectator])
}

/// The invariants every reachable state keeps.
fn assert_invariants(g: &NewYearPuzzle) {
    let held: usize = g.rewards.iter().map(Vec::len).sum();
    assert_eq!(
        g.pile.len() + held,
        full_deck(g.rules_version).len(),
        "reward cards lost or duplicated"
    );
    let up = g.face_up.iter().filter(|u| **u).count();
    assert_eq!(
        g.placed.iter().sum::<u32>() as usize,
        up - CORNERS.len(),
        "every placement counted"
    );
    assert_board_invariants(g);
}

/// The invariants of the board and the views, which also hold in rigged states with a short pile.
fn assert_board_invariants(g: &NewYearPuzzle) {
    let mut sorted = g.board.clone();
    sorted.sort_unstable();
    assert_eq!(
        sorted,
        (0..CARDS as u8).collect::<Vec<_>>(),
        "the 64 cards are a permutation"
    );
    for p in 0..CARDS {
        if g.face_up[p] {
            assert_eq!(g.board[p] as usize, p, "face-up card {} out of place", g.board[p]);
            assert!(!g.is_exposed(p as u8), "placed and exposed at {p}");
        }
    }
    assert!(
        g.exposed.windows(2).all(|w| w[0] < w[1]),
        "exposed positions increasing"
    );
    assert!(g.v2() || g.exposed.is_empty(), "version 1 exposes nothing");
    assert!(g.v2() || g.passes == 0, "version 1 has no passes");
    assert!(g.passes < g.players, "a whole round of passes forces a reveal");
    // The public record of sightings is right: each names the face-down card lying at its place, once.
    for (i, s) in g.seen.iter().enumerate() {
        assert!(
            g.face_down(s.position),
            "sighting at {} is not face down",
            s.position
        );
        assert_eq!(
            g.board[s.position as usize], s.card,
            "sighting at {} is wrong",
            s.position
        );
        assert!(
            g.seen[..i].iter().all(|t| t.position != s.position),
            "two sightings at one place"
        );
    }
    for c in CORNERS {
        assert!(g.face_up[c as usize], "corner {c} face down");
    }
    for pending in &g.pending {
        assert!(g.rewards[pending.seat.index()].contains(&pending.reward));
        let bonus = pending.reward.card().bonus.expect("a waiting card has a bonus");
        assert!(bonus.condition.is_deferred());
    }
    assert_eq!(g.over, g.face_up.iter().all(|u| *u));
    assert_eq!(g.over, g.face_down_count() == 0 && g.exposed.is_empty());
    for viewer in viewers(g.players) {
        let view = g.view(viewer);
        for p in 0..CARDS {
            let expected = if g.face_up[p] {
                Some(p as u8)
            } else if g.is_exposed(p as u8) {
                Some(g.board[p])
            } else {
                None
            };
            assert_eq!(view.board[p], expected, "view of position {p} for {viewer:?}");
        }
        assert_eq!(view.pile_top.is_some(), !g.v2() && !g.pile.is_empty());
    }
}

// ---------------------------------------------------------------------------------------------------------
// Setup

#[test]
fn setup_lays_out_the_square_with_the_corners_up() {
    for players in MIN_PLAYERS..=MAX_PLAYERS {
        let g = NewYearPuzzle::new(&NewYearPuzzleConfig::default(), players, 99).unwrap();
        assert_invariants(&g);
        assert_eq!(g.face_down_count(), 60);
        assert_eq!(g.pile.len(), 60, "one reward card for each placement");
        assert_eq!(g.rules_version, 3);
        assert!(g.turn.0 < players);
        let legal = g.legal_actions(g.turn);
        assert_eq!(
            legal.len(),
            61,
            "any face-down card may be revealed (GAPS Q6), or the turn passed"
        );
        assert_eq!(legal.last(), Some(&PuzzleAction::Stop));
        for s in Seat::all(players).filter(|s| *s != g.turn) {
            assert!(g.legal_actions(s).is_empty());
        }
    }
    for players in [0, 1, MAX_PLAYERS + 1] {
        assert_eq!(
            NewYearPuzzle::new(&NewYearPuzzleConfig::default(), players, 1).unwrap_err(),
            SetupError::PlayerCount {
                min: MIN_PLAYERS,
                max: MAX_PLAYERS,
                got: players
            }
        );
    }
}

#[test]
fn setup_is_deterministic_and_depends_on_the_seed() {
    let config = NewYearPuzzleConfig::default();
    let a = NewYearPuzzle::new(&config, 4, 7).unwrap();
    let b = NewYearPuzzle::new(&config, 4, 7).unwrap();
    assert_eq!(fingerprint(&a), fingerprint(&b));
    let boards: std::collections::HashSet<Vec<u8>> = (0..20)
        .map(|s| NewYearPuzzle::new(&config, 4, s).unwrap().board)
        .collect();
    assert_eq!(boards.len(), 20, "different seeds shuffle differently");
    let firsts: std::collections::HashSet<u8> = (0..200)
        .map(|s| NewYearPuzzle::new(&config, 4, s).unwrap().turn.0)
        .collect();
    assert_eq!(firsts.len(), 4, "every seat can be drawn to start");
}

#[test]
fn the_deck_is_the_table() {
    // Version 2: one card per placement (issue 25 point 8); version 1: 48 cards.
    assert_eq!(full_deck(2).len(), CARDS - CORNERS.len());
    assert_eq!(full_deck(1).len(), 48);
    let forbidding = |version| {
        REWARDS
            .iter()
            .filter(|c| c.ends_turn)
            .map(|c| c.copies_in(version) as usize)
            .sum::<usize>()
    };
    assert_eq!((forbidding(2), forbidding(1)), (17, 14));
    for card in REWARDS {
        assert!(card.copies >= card.copies_v1, "version 2 only adds cards");
    }
    let mut kinds: Vec<Reward> = REWARDS.iter().map(|c| c.reward).collect();
    kinds.sort();
    kinds.dedup();
    assert_eq!(kinds.len(), REWARDS.len(), "one line per kind");
    for card in REWARDS {
        assert_eq!(card.reward.card(), card);
    }
}

#[test]
fn the_rules_document_lists_every_reward_card() {
    let doc = include_str!("../../../../docs/rules/new-year-puzzle.md");
    for card in REWARDS {
        let key = serde_json::to_value(card.reward).unwrap();
        let key = key.as_str().unwrap();
        let row = doc
            .lines()
            .find(|l| l.contains(&format!("`{key}`")))
            .unwrap_or_else(|| panic!("the doc has no row for `{key}`"));
        assert!(
            row.contains(card.name),
            "the row of `{key}` does not name {}",
            card.name
        );
        assert!(
            row.contains(&format!("| {} | {} |", card.copies, card.copies_v1)),
            "the row of `{key}` has not {} copies ({} in version 1)",
            card.copies,
            card.copies_v1
        );
    }
}

#[test]
fn the_rules_document_gives_each_refusal_a_client_can_get_with_its_code_and_message() {
    // Issue 43: the page listed engine kinds (`no_such_seat`, `not_due`) as if they were protocol error codes.
    // Every refusal a seat can provoke is a row `| code | when | "message" |` with the engine's own words.
    let doc = include_str!("../../../../docs/rules/new-year-puzzle.md");
    let reachable = [
        PuzzleReject::NotYourTurn { turn: Seat(1) },
        PuzzleReject::NoSuchPosition(64),
        PuzzleReject::AlreadyFaceUp(0),
        PuzzleReject::ExposedMisfit(20),
        PuzzleReject::MustReveal,
        PuzzleReject::NoExtraMove,
    ];
    for reject in reachable {
        let code = format!("| `{}` |", reject.kind().code());
        let message = format!("| \"{reject}\" |");
        assert!(
            doc.lines()
                .map(str::trim)
                .any(|l| l.starts_with(&code) && l.ends_with(&message)),
            "no row {code} ... {message} in the rules page"
        );
    }
    // The two the server never lets a client cause are not presented as codes.
    for kind in [RejectKind::NoSuchSeat, RejectKind::NotDue] {
        assert!(
            !doc.contains(&format!("`{}`", kind.code())),
            "the page names `{}` as a code",
            kind.code()
        );
    }
}

// ---------------------------------------------------------------------------------------------------------
// Golden cases: reveals

#[test]
fn a_card_whose_place_only_touches_a_corner_diagonally_fails() {
    // Card 9 (row 1, column 1) lies at 20. Its place touches corner 0 only at a corner: a failure.
    let board = swapped(&[(9, 20)]);
    let mut g = rigged(3, board.clone(), &[], &[Reward::Confetti]);
    let events = play(&mut g, 0, reveal(20));
    assert_eq!(
        events,
        vec![
            PuzzleEvent::Failed {
                seat: Seat(0),
                position: 20,
                card: 9,
                exposed: false
            },
            PuzzleEvent::TurnPassed { seat: Seat(1) },
        ]
    );
    assert_eq!(g.board, board, "the card lies where it lay");
    assert!(!g.face_up[20] && !g.face_up[9]);
    assert_eq!(
        g.view(Viewer::Spectator).board[20],
        None,
        "face down again in every view"
    );
    assert_eq!(g.pile.len(), 1, "no reward for a failure");
    assert_eq!(g.scores, vec![0, 0, 0]);
    assert_eq!(g.status(), Status::Turn { seat: Seat(1) });
}

#[test]
fn a_card_in_its_own_place_without_a_face_up_neighbour_fails() {
    // GAPS Q10: judged by the same rule, even when it already lies in its place.
    let mut g = rigged(2, identity(), &[], &[Reward::Confetti]);
    let events = play(&mut g, 0, reveal(27));
    assert!(matches!(
        events[0],
        PuzzleEvent::Failed {
            position: 27,
            card: 27,
            ..
        }
    ));
    assert!(!g.face_up[27]);
}

#[test]
fn a_card_sharing_a_side_succeeds_and_swaps_with_the_card_in_its_place() {
    // Card 1 lies at 20, card 33 at 1. Card 1's place shares a side with corner 0: a success.
    let board = swapped(&[(1, 20), (1, 33)]);
    assert_eq!((board[20], board[1], board[33]), (1, 33, 20));
    let mut g = rigged(3, board, &[], &[Reward::Confetti, Reward::Sparkler]);
    let events = play(&mut g, 0, reveal(20));
    assert_eq!(
        events,
        vec![
            PuzzleEvent::Placed {
                seat: Seat(0),
                from: 20,
                card: 1,
                swapped: true
            },
            PuzzleEvent::RewardDrawn {
                seat: Seat(0),
                reward: Reward::Confetti,
                points: 1
            },
            PuzzleEvent::ExtraMove { seat: Seat(0) },
        ]
    );
    assert_eq!(g.board[1], 1);
    assert!(g.face_up[1]);
    assert_eq!(g.board[20], 33, "the displaced card moved to the freed spot");
    assert!(!g.face_up[20], "still face down");
    let view = g.view(Viewer::Seat(Seat(2)));
    assert_eq!(view.board[1], Some(1));
    assert_eq!(view.board[20], None);
    assert_eq!(g.scores, vec![1, 0, 0]);
    assert_eq!(g.placed, vec![1, 0, 0]);
    assert_eq!(g.rewards[0], vec![Reward::Confetti]);
    assert_eq!(view.pile_top, None, "the reward pile lies face down");
    assert_eq!(view.pile_left, 1);
    // The extra move: the same seat again, now also allowed to stop.
    assert_eq!(g.status(), Status::Turn { seat: Seat(0) });
    assert_eq!(g.legal_actions(Seat(0)).last(), Some(&PuzzleAction::Stop));
    assert!(view.extra_move);
}

#[test]
fn a_card_already_in_its_place_is_turned_up_without_a_swap() {
    let mut g = rigged(2, identity(), &[], &[Reward::Confetti]);
    let events = play(&mut g, 0, reveal(8));
    assert_eq!(
        events[0],
        PuzzleEvent::Placed {
            seat: Seat(0),
            from: 8,
            card: 8,
            swapped: false
        }
    );
    assert_eq!(g.board, identity());
    assert!(g.face_up[8]);
}

#[test]
fn extra_moves_chain_until_a_failure_a_stop_or_a_forbidding_card() {
    let board = swapped(&[(9, 20)]);
    let pile = [
        Reward::Confetti,
        Reward::Sparkler,
        Reward::Fireworks,
        Reward::Confetti,
    ];
    let mut g = rigged(2, board, &[], &pile);
    play(&mut g, 0, reveal(1));
    play(&mut g, 0, reveal(2));
    assert_eq!(g.turn, Seat(0));
    // Fireworks forbid the extra move.
    let events = play(&mut g, 0, reveal(3));
    assert_eq!(events.last(), Some(&PuzzleEvent::TurnPassed { seat: Seat(1) }));
    assert_eq!(g.scores, vec![6, 0]);
    // Seat 1 succeeds, then declines the extra move.
    play(&mut g, 1, reveal(6));
    assert!(g.extra_move);
    let events = play(&mut g, 1, PuzzleAction::Stop);
    assert_eq!(
        events,
        vec![
            PuzzleEvent::Stopped { seat: Seat(1) },
            PuzzleEvent::TurnPassed { seat: Seat(0) }
        ]
    );
    assert!(!g.extra_move);
    // Seat 0 then fails: the turn passes.
    let events = play(&mut g, 0, reveal(27));
    assert!(matches!(events[0], PuzzleEvent::Failed { card: 27, .. }));
    assert_eq!(g.turn, Seat(1));
}

// ---------------------------------------------------------------------------------------------------------
// Golden cases: each reward card

struct Case {
    reward: Reward,
    /// Face-up places besides the corners (the board is solved, so card `p` is at `p`).
    up: &'static [u8],
    reveal: u8,
    before: [i64; 3],
    after: [i64; 3],
    /// The condition's verdict, for cards with an immediate condition.
    met: Option<bool>,
}

const fn case(
    reward: Reward,
    up: &'static [u8],
    reveal: u8,
    before: [i64; 3],
    after: [i64; 3],
    met: Option<bool>,
) -> Case {
    Case {
        reward,
        up,
        reveal,
        before,
        after,
        met,
    }
}

#[rustfmt::skip]
const CASES: &[Case] = &[
    // Plain cards: the printed points, nothing else.
    case(Reward::Confetti, &[], 1, [0, 0, 0], [1, 0, 0], None),
    case(Reward::Sparkler, &[], 1, [0, 0, 0], [2, 0, 0], None),
    case(Reward::MarzipanPig, &[], 1, [0, 0, 0], [2, 0, 0], None),
    case(Reward::Fireworks, &[], 1, [0, 0, 0], [3, 0, 0], None),
    case(Reward::ChampagneToast, &[], 1, [0, 0, 0], [4, 0, 0], None),
    case(Reward::MidnightKiss, &[], 1, [0, 0, 0], [5, 0, 0], None),
    case(Reward::BrokenGlass, &[], 1, [0, 0, 0], [-1, 0, 0], None),
    case(Reward::Overslept, &[], 1, [0, 0, 0], [-2, 0, 0], None),
    case(Reward::Hangover, &[], 1, [2, 0, 0], [-1, 0, 0], None),
    case(Reward::SnowedIn, &[], 1, [0, 0, 0], [0, 0, 0], None),
    // Border: 1 is on the top edge; 9 is not.
    case(Reward::ChimneySweep, &[], 1, [0, 0, 0], [3, 0, 0], Some(true)),
    case(Reward::ChimneySweep, &[1], 9, [0, 0, 0], [1, 0, 0], Some(false)),
    // Sky (rows 0-3) against ground (rows 4-7): 25 is row 3, 33 is row 4.
    case(Reward::StarrySky, &[24], 25, [0, 0, 0], [3, 0, 0], Some(true)),
    case(Reward::StarrySky, &[32], 33, [0, 0, 0], [1, 0, 0], Some(false)),
    case(Reward::SnowballFight, &[32], 33, [0, 2, 0], [1, 1, -1], Some(true)),
    case(Reward::SnowballFight, &[24], 25, [0, 2, 0], [1, 2, 0], Some(false)),
    // Touching: 9's sides are 1, 8, 10, 17.
    case(Reward::PuzzleMaster, &[1, 8, 10], 9, [0, 0, 0], [4, 0, 0], Some(true)),
    case(Reward::PuzzleMaster, &[1, 8], 9, [0, 0, 0], [1, 0, 0], Some(false)),
    // Completing the top row, completing the left column, and completing neither.
    case(Reward::MidnightChime, &[1, 2, 3, 4, 5], 6, [0, 0, 0], [5, 0, 0], Some(true)),
    case(Reward::MidnightChime, &[8, 16, 24, 32, 40], 48, [0, 0, 0], [5, 0, 0], Some(true)),
    case(Reward::MidnightChime, &[1, 2, 3, 4], 6, [0, 0, 0], [1, 0, 0], Some(false)),
    // Scores, judged before the card's own points: a shared lowest counts.
    case(Reward::LuckyHorseshoe, &[], 1, [2, 2, 5], [5, 2, 5], Some(true)),
    case(Reward::LuckyHorseshoe, &[], 1, [3, 2, 5], [3, 2, 5], Some(false)),
    // Every leader loses; a drawer sharing the lead hits nobody.
    case(Reward::HardFrost, &[], 1, [1, 4, 4], [1, 2, 2], Some(true)),
    case(Reward::HardFrost, &[], 1, [1, 5, 3], [1, 3, 3], Some(true)),
    case(Reward::HardFrost, &[], 1, [4, 4, 1], [4, 4, 1], Some(false)),
];

#[test]
fn each_reward_card_scores_as_printed() {
    for (i, case) in CASES.iter().enumerate() {
        let card = case.reward.card();
        let mut g = rigged(3, identity(), case.up, &[case.reward, Reward::Confetti]);
        g.scores = case.before.to_vec();
        let events = play(&mut g, 0, reveal(case.reveal));
        assert_eq!(g.scores, case.after.to_vec(), "case {i} ({:?})", case.reward);
        assert!(events.contains(&PuzzleEvent::RewardDrawn {
            seat: Seat(0),
            reward: case.reward,
            points: i64::from(card.points)
        }));
        let verdict = events.iter().find_map(|e| match e {
            PuzzleEvent::Bonus { met, .. } => Some(*met),
            _ => None,
        });
        assert_eq!(verdict, case.met, "case {i} ({:?})", case.reward);
        assert_eq!(g.extra_move, !card.ends_turn, "case {i}");
        assert_eq!(g.turn, if card.ends_turn { Seat(1) } else { Seat(0) }, "case {i}");
        assert_eq!(g.rewards[0], vec![case.reward]);
        assert_board_invariants(&g);
    }
    // Every kind with an immediate effect is covered above; the deferred ones have their own tests.
    for card in REWARDS {
        let deferred = card.bonus.is_some_and(|b| b.condition.is_deferred());
        assert!(
            deferred || CASES.iter().any(|c| c.reward == card.reward),
            "{:?} has no golden case",
            card.reward
        );
    }
}

#[test]
fn wax_fortune_pays_when_the_next_reveal_succeeds() {
    let board = swapped(&[(9, 20)]);
    let mut g = rigged(
        2,
        board,
        &[],
        &[Reward::WaxFortune, Reward::Confetti, Reward::Confetti],
    );
    let events = play(&mut g, 0, reveal(1));
    assert!(events.contains(&PuzzleEvent::BonusPending {
        seat: Seat(0),
        reward: Reward::WaxFortune
    }));
    assert_eq!(
        g.pending,
        vec![Pending {
            seat: Seat(0),
            reward: Reward::WaxFortune
        }]
    );
    assert_eq!(g.view(Viewer::Spectator).pending, g.pending);
    assert_eq!(g.scores, vec![0, 0]);
    // The next reveal (the extra move) succeeds: +3, and Confetti's +1.
    let events = play(&mut g, 0, reveal(2));
    assert_eq!(
        events[0],
        PuzzleEvent::Bonus {
            seat: Seat(0),
            reward: Reward::WaxFortune,
            met: true,
            changes: vec![ScoreChange {
                seat: Seat(0),
                delta: 3
            }]
        }
    );
    assert_eq!(g.scores, vec![4, 0]);
    assert!(g.pending.is_empty());
}

#[test]
fn wax_fortune_pays_nothing_when_the_next_reveal_fails() {
    let board = swapped(&[(9, 20)]);
    let mut g = rigged(2, board, &[], &[Reward::WaxFortune, Reward::Confetti]);
    play(&mut g, 0, reveal(1));
    let events = play(&mut g, 0, reveal(27));
    assert_eq!(
        events[0],
        PuzzleEvent::Bonus {
            seat: Seat(0),
            reward: Reward::WaxFortune,
            met: false,
            changes: vec![]
        }
    );
    assert!(matches!(events[1], PuzzleEvent::Failed { .. }));
    assert_eq!(g.scores, vec![0, 0]);
    assert!(g.pending.is_empty());
}

#[test]
fn a_resolution_ends_the_turn_and_waits_for_the_drawers_next_turn() {
    let board = swapped(&[(9, 20)]);
    let mut g = rigged(
        2,
        board,
        &[],
        &[Reward::Resolution, Reward::Confetti, Reward::Confetti],
    );
    let events = play(&mut g, 0, reveal(1));
    assert_eq!(events.last(), Some(&PuzzleEvent::TurnPassed { seat: Seat(1) }));
    assert_eq!(g.scores, vec![1, 0]);
    // Seat 1's reveals do not touch seat 0's waiting condition.
    play(&mut g, 1, reveal(2));
    play(&mut g, 1, PuzzleAction::Stop);
    assert_eq!(g.pending.len(), 1);
    let events = play(&mut g, 0, reveal(3));
    assert_eq!(
        events[0],
        PuzzleEvent::Bonus {
            seat: Seat(0),
            reward: Reward::Resolution,
            met: true,
            changes: vec![ScoreChange {
                seat: Seat(0),
                delta: 3
            }]
        }
    );
    assert_eq!(g.scores, vec![5, 1]);
}

#[test]
fn an_empty_pile_scores_one_point_and_ends_the_turn() {
    let mut g = rigged(2, identity(), &[], &[]);
    assert!(g.view(Viewer::Spectator).pile_top.is_none());
    let events = play(&mut g, 0, reveal(1));
    assert_eq!(
        events,
        vec![
            PuzzleEvent::Placed {
                seat: Seat(0),
                from: 1,
                card: 1,
                swapped: false
            },
            PuzzleEvent::PileEmpty {
                seat: Seat(0),
                points: i64::from(EMPTY_PILE_POINTS)
            },
            PuzzleEvent::TurnPassed { seat: Seat(1) },
        ]
    );
    assert_eq!(g.scores, vec![1, 0]);
    assert_eq!(g.placed, vec![1, 0]);
}

// ---------------------------------------------------------------------------------------------------------
// Golden cases: the end

/// Everything face up except positions 1 and 2, where cards 2 and 1 lie swapped.
fn last_two() -> NewYearPuzzle {
    let board = swapped(&[(1, 2)]);
    let up: Vec<u8> = (0..CARDS as u8).filter(|p| *p != 1 && *p != 2).collect();
    rigged(3, board, &up, &[Reward::Confetti, Reward::WaxFortune])
}

#[test]
fn the_game_ends_when_the_picture_is_complete() {
    let mut g = last_two();
    g.scores = vec![3, 4, 0];
    g.placed = vec![20, 10, 30];
    g.pending = vec![Pending {
        seat: Seat(1),
        reward: Reward::WaxFortune,
    }];
    g.rewards[1].push(Reward::WaxFortune);
    let events = play(&mut g, 0, reveal(1));
    assert_eq!(g.board, identity(), "card 1 moved, face down, into its own place");
    assert_eq!(g.face_down_count(), 1);
    assert!(matches!(events.last(), Some(PuzzleEvent::ExtraMove { .. })));
    assert!(g.outcome().is_none());
    // The last card: in its own place; the game ends at once and seat 1's waiting condition lapses.
    // Seat 0 draws a Wax fortune with it, whose condition can no longer be met: it lapses too.
    let events = play(&mut g, 0, reveal(1));
    assert_eq!(
        events,
        vec![
            PuzzleEvent::Placed {
                seat: Seat(0),
                from: 1,
                card: 1,
                swapped: false
            },
            PuzzleEvent::RewardDrawn {
                seat: Seat(0),
                reward: Reward::WaxFortune,
                points: 0
            },
            PuzzleEvent::BonusPending {
                seat: Seat(0),
                reward: Reward::WaxFortune
            },
            PuzzleEvent::BonusLapsed {
                seat: Seat(1),
                reward: Reward::WaxFortune
            },
            PuzzleEvent::BonusLapsed {
                seat: Seat(0),
                reward: Reward::WaxFortune
            },
            PuzzleEvent::GameOver {
                scores: vec![4, 4, 0]
            }
        ]
    );
    assert_eq!(g.status(), Status::Over);
    assert!(g.pending.is_empty());
    for s in Seat::all(3) {
        assert!(g.legal_actions(s).is_empty());
    }
    // 4 points each for seats 0 and 1: seat 0 put 22 cards in the picture, seat 1 only 10.
    let outcome = g.outcome().unwrap();
    assert_eq!(outcome.scores, vec![4, 4, 0]);
    assert_eq!(outcome.placings, vec![1, 2, 3]);
    assert_eq!(outcome.winners, vec![Seat(0)]);
    assert_eq!(g.view(Viewer::Spectator).outcome, Some(outcome));
    assert_eq!(g.view(Viewer::Spectator).turn, None);
    assert_eq!(
        g.apply(Actor::Seat(Seat(1)), &reveal(1), T),
        Err(PuzzleReject::GameOver)
    );
}

#[test]
fn a_full_tie_is_shared_and_scores_may_be_negative() {
    let mut g = last_two();
    g.pile = vec![Reward::Hangover, Reward::Hangover];
    g.scores = vec![0, -6, 2];
    g.placed = vec![8, 10, 40];
    play(&mut g, 0, reveal(1)); // -3, the turn passes
    play(&mut g, 1, reveal(1)); // -3: the last card
    let outcome = g.outcome().unwrap();
    assert_eq!(outcome.scores, vec![-3, -9, 2]);
    assert_eq!(outcome.placings, vec![2, 3, 1]);
    let mut g = last_two();
    g.scores = vec![0, 1, 1];
    g.placed = vec![0, 11, 10];
    g.pile = vec![Reward::Confetti, Reward::SnowedIn];
    play(&mut g, 0, reveal(1)); // 0 points, the turn passes
    play(&mut g, 1, reveal(1)); // +1: seat 1 has 2 points and 12 cards
    let outcome = g.outcome().unwrap();
    assert_eq!(outcome.scores, vec![0, 2, 1]);
    assert_eq!(outcome.winners, vec![Seat(1)]);
    let mut g = last_two();
    g.pile = vec![Reward::Confetti, Reward::SnowedIn];
    g.scores = vec![1, 0, 1];
    g.placed = vec![10, 0, 9];
    play(&mut g, 0, reveal(1));
    play(&mut g, 1, reveal(1));
    // Seats 0 and 2 have 1 point each; seat 0 put 11 cards in the picture, seat 2 only 9.
    let outcome = g.outcome().unwrap();
    assert_eq!(outcome.scores, vec![1, 1, 1]);
    assert_eq!(outcome.placings, vec![1, 3, 2]);
    let mut g = last_two();
    g.pile = vec![Reward::Confetti, Reward::SnowedIn];
    g.scores = vec![1, 0, 1];
    g.placed = vec![9, 0, 10];
    play(&mut g, 0, reveal(1));
    play(&mut g, 1, reveal(1));
    let outcome = g.outcome().unwrap();
    assert_eq!(
        outcome.placings,
        vec![1, 3, 1],
        "equal points and equal cards share the placing"
    );
    assert_eq!(outcome.winners, vec![Seat(0), Seat(2)]);
}

// ---------------------------------------------------------------------------------------------------------
// Refusals

#[test]
fn refused_actions_change_nothing_and_say_why() {
    let mut g = rigged(3, swapped(&[(9, 20)]), &[], &[Reward::Confetti]);
    let before = fingerprint(&g);
    let cases = [
        (
            Actor::Seat(Seat(1)),
            reveal(1),
            PuzzleReject::NotYourTurn { turn: Seat(0) },
        ),
        (Actor::Seat(Seat(3)), reveal(1), PuzzleReject::NoSuchSeat(Seat(3))),
        (Actor::Clock, reveal(1), PuzzleReject::NoClockAction),
        (Actor::Seat(Seat(0)), reveal(64), PuzzleReject::NoSuchPosition(64)),
        (Actor::Seat(Seat(0)), reveal(0), PuzzleReject::AlreadyFaceUp(0)),
    ];
    for (actor, action, reason) in cases {
        assert_eq!(g.apply(actor, &action, T), Err(reason.clone()));
        assert_eq!(fingerprint(&g), before, "{reason} changed the state");
        assert!(!reason.to_string().is_empty());
    }
    // A whole round of passes (two of three seats) forces a reveal.
    g.passes = 2;
    let before = fingerprint(&g);
    assert_eq!(
        g.apply(Actor::Seat(Seat(0)), &PuzzleAction::Stop, T),
        Err(PuzzleReject::MustReveal)
    );
    assert_eq!(fingerprint(&g), before);
    g.passes = 0;
    assert_eq!(PuzzleReject::NoClockAction.kind(), RejectKind::NotDue);
    assert_eq!(PuzzleReject::MustReveal.kind(), RejectKind::IllegalAction);
    assert_eq!(PuzzleReject::AlreadyFaceUp(0).kind(), RejectKind::IllegalAction);
    play(&mut g, 0, reveal(1));
    assert_eq!(
        g.apply(Actor::Seat(Seat(0)), &reveal(1), T),
        Err(PuzzleReject::AlreadyFaceUp(1))
    );
}

#[test]
fn the_registry_speaks_json() {
    assert!(crate::catalogue().iter().any(|i| i.id == "new_year_puzzle"));
    assert!(AnyGame::new("new_year_puzzle", None, &json!({"colour": "red"}), 2, 1).is_err());
    let mut g = AnyGame::new("new_year_puzzle", None, &json!(null), 2, 5).unwrap();
    let Status::Turn { seat } = g.status() else {
        panic!("a turn")
    };
    let actions = g.legal_values(seat);
    assert_eq!(actions[0], json!({"type": "reveal", "position": 1}));
    let events = g.apply_value(Actor::Seat(seat), &actions[0], T).unwrap();
    assert!(!events.is_empty());
    let view = g.view_value(Viewer::Spectator);
    assert_eq!(view["board"].as_array().unwrap().len(), 64);
    assert_eq!(view["board"][0], json!(0));
    assert_eq!(view["pile_top"], json!(null), "the pile lies face down");
    assert_eq!(view["pile_face_up"], json!(false));
    assert_eq!(view["rules_version"], json!(3));
    let restored = AnyGame::from_full_state(&g.full_state()).expect("a snapshot restores");
    assert_eq!(restored.full_state(), g.full_state());
    assert_eq!(
        restored.view_value(Viewer::Seat(seat)),
        g.view_value(Viewer::Seat(seat))
    );
}

// ---------------------------------------------------------------------------------------------------------
// Random playouts

#[test]
fn random_playouts_for_every_player_count() {
    // 500 games in 3.5-5 s on the shared 2-core machine (opt-level 2).
    for players in MIN_PLAYERS..=MAX_PLAYERS {
        for seed in 0..100u64 {
            let p = random_playout::<NewYearPuzzle>(
                &NewYearPuzzleConfig::default(),
                players,
                seed * 31 + u64::from(players),
                seed ^ 0x5eed,
                20_000,
                assert_invariants,
            );
            let outcome = p.state.outcome().expect("over");
            assert_eq!(outcome.scores.len(), players as usize);
            assert_eq!(p.state.placed.iter().sum::<u32>(), 60);
        }
    }
}

// ---------------------------------------------------------------------------------------------------------
// Hidden information

/// A state that differs from `g` only in what nobody may know: the face-down cards are rotated among the
/// face-down places (all but `keep`, the card being revealed), and the reward pile is rotated below its
/// `pile_keep` top cards (those the viewers see now or after one draw).
fn twin(g: &NewYearPuzzle, keep: Option<u8>, pile_keep: usize) -> NewYearPuzzle {
    let mut t = g.clone();
    let hidden: Vec<usize> = (0..CARDS)
        .filter(|p| g.face_down(*p as u8) && Some(*p as u8) != keep)
        .collect();
    for (i, p) in hidden.iter().enumerate() {
        t.board[*p] = g.board[hidden[(i + 1) % hidden.len()]];
    }
    if t.pile.len() >= pile_keep + 2 {
        let below = t.pile.len() - pile_keep;
        t.pile[..below].rotate_left(1);
    }
    t
}

/// Each viewer's view, as the server writes it.
fn views_json(g: &NewYearPuzzle) -> Vec<String> {
    viewers(g.players).map(|v| fingerprint(&g.view(v))).collect()
}

/// The events of `action`, as each viewer would receive them.
fn events_json(g: &mut NewYearPuzzle, actor: Seat, action: &PuzzleAction) -> Vec<Vec<String>> {
    let events = g.apply(Actor::Seat(actor), action, T).expect("legal");
    viewers(g.players)
        .map(|v| {
            events
                .iter()
                .filter(|e| e.audience.includes(v))
                .map(|e| fingerprint(&e.body))
                .collect()
        })
        .collect()
}

#[test]
fn no_view_or_event_tells_a_face_down_card_or_the_pile_order() {
    // Along random games: for each state, the views must not change when the hidden cards and the pile order
    // do; and for every legal action, the events and the views after it must not change either (only the
    // revealed card itself may be told). About 2.5 s for the 10 games.
    let mut driver = Rng::from_seed(2026);
    let mut checked_swaps = 0;
    for game in 0..10u64 {
        let players = MIN_PLAYERS + (game % u64::from(MAX_PLAYERS - MIN_PLAYERS + 1)) as u8;
        let version = if game < 5 { 2 } else { 1 };
        let mut g =
            NewYearPuzzle::new_at(&NewYearPuzzleConfig::default(), players, game + 100, version).unwrap();
        while g.status() != Status::Over {
            // The top reward card is public only while the pile lies face up (version 1).
            let shown = usize::from(!g.v2());
            let t = twin(&g, None, shown);
            if g.face_down_count() >= 2 {
                assert_ne!(t.board, g.board, "the twin must really differ");
            }
            if g.pile.len() >= 3 {
                assert_ne!(t.pile, g.pile, "the twin's pile must really differ");
            }
            assert_eq!(
                views_json(&g),
                views_json(&t),
                "a view depends on hidden information"
            );
            let seat = g.turn;
            let actions = g.legal_actions(seat);
            for action in &actions {
                let keep = match action {
                    PuzzleAction::Reveal { position } => Some(*position),
                    PuzzleAction::Stop => None,
                };
                let (mut a, mut b) = (g.clone(), twin(&g, keep, shown + 1));
                assert_eq!(
                    events_json(&mut a, seat, action),
                    events_json(&mut b, seat, action),
                    "the events of {action:?} depend on hidden information"
                );
                assert_eq!(views_json(&a), views_json(&b), "after {action:?}");
                if a.board != g.board && g.face_down_count() >= 3 {
                    assert_ne!(a.board, b.board, "the displaced card differs between the twins");
                    checked_swaps += 1;
                }
            }
            let action = actions[driver.index(actions.len())];
            g.apply(Actor::Seat(seat), &action, T).unwrap();
        }
    }
    assert!(
        checked_swaps > 100,
        "successful swaps were checked ({checked_swaps})"
    );
}

#[test]
fn a_failed_reveal_is_told_to_everyone_and_then_hidden_again() {
    let mut g = rigged(4, swapped(&[(9, 20)]), &[], &[Reward::Confetti]);
    let events = g.apply(Actor::Seat(Seat(0)), &reveal(20), T).unwrap();
    let failed = &events[0];
    assert_eq!(failed.audience, Audience::Everyone);
    assert_eq!(
        failed.body,
        PuzzleEvent::Failed {
            seat: Seat(0),
            position: 20,
            card: 9,
            exposed: false
        }
    );
    for v in viewers(4) {
        assert!(failed.audience.includes(v));
        let view = serde_json::to_value(g.view(v)).unwrap();
        assert_eq!(view["board"][20], json!(null));
        assert_eq!(view["board"][9], json!(null));
    }
}

// ---------------------------------------------------------------------------------------------------------
// Memory: what the public events let a player know

/// A player's perfect memory, built only from the events it receives: which card lies at which face-down place.
#[derive(Default)]
struct Memory {
    known: std::collections::BTreeMap<u8, u8>,
}

impl Memory {
    fn observe(&mut self, event: &PuzzleEvent) {
        match *event {
            PuzzleEvent::Failed {
                position,
                card,
                exposed,
                ..
            } => {
                // An exposed card lies face up for everyone: nothing to remember.
                if exposed {
                    self.known.remove(&position);
                } else {
                    self.known.insert(position, card);
                }
            }
            PuzzleEvent::Placed {
                from, card, swapped, ..
            } => {
                self.known.remove(&from);
                // The face-down card that lay in the placed card's place slid to `from`.
                if let Some(displaced) = self.known.remove(&card).filter(|_| swapped) {
                    self.known.insert(from, displaced);
                }
            }
            _ => {}
        }
    }

    /// A remembered card that fits now; else an unremembered place; stops an extra move before a losing card.
    fn choose(&self, view: &PuzzleView, rng: &mut Rng) -> PuzzleAction {
        let up = |p: u8| view.board[p as usize].is_some();
        if view.extra_move && view.pile_top.as_ref().is_some_and(|t| t.points < 0) {
            return PuzzleAction::Stop;
        }
        // Uncovered: in the picture, or from version 3 any face-up card (an exposed one too), but not the card
        // being moved itself.
        let uncovered = |p: u8| up(p) && (view.rules_version >= 3 || !view.exposed.contains(&p));
        let exposed = view
            .exposed
            .iter()
            .map(|p| (p, view.board[*p as usize].as_ref().unwrap()));
        if let Some((position, _)) = self
            .known
            .iter()
            .chain(exposed)
            .find(|(from, card)| data::side_neighbours(**card).any(|p| p != **from && uncovered(p)))
        {
            return reveal(*position);
        }
        let fresh: Vec<u8> = (0..CARDS as u8)
            .filter(|p| !up(*p) && !self.known.contains_key(p))
            .collect();
        let pool: Vec<u8> = if fresh.is_empty() {
            self.known.keys().copied().collect()
        } else {
            fresh
        };
        reveal(pool[rng.index(pool.len())])
    }
}

#[test]
fn the_events_let_a_memory_follow_every_card_and_memory_wins() {
    // Seat 0 remembers everything it is told; seat 1 reveals at random. The memory must always be right (the
    // events are enough to follow a remembered card when a success displaces it), and it should win clearly:
    // in a measured 400 games it won 96 %. About 0.2 s.
    let mut memory_wins = 0.0;
    let games = 100;
    for seed in 0..games {
        let mut g = NewYearPuzzle::new(&NewYearPuzzleConfig::default(), 2, seed).unwrap();
        let mut memory = Memory::default();
        let mut rng = Rng::from_seed(seed + 1_000);
        while g.status() != Status::Over {
            let seat = g.turn;
            let action = if seat == Seat(0) {
                memory.choose(&g.view(Viewer::Seat(seat)), &mut rng)
            } else {
                let actions = g.legal_actions(seat);
                actions[rng.index(actions.len())]
            };
            for event in g.apply(Actor::Seat(seat), &action, T).unwrap() {
                assert!(event.audience.includes(Viewer::Seat(Seat(0))));
                memory.observe(&event.body);
            }
            let record: std::collections::BTreeMap<u8, u8> =
                g.seen.iter().map(|s| (s.position, s.card)).collect();
            assert_eq!(
                record, memory.known,
                "the state's public record of sightings is what the events told"
            );
            for (position, card) in &memory.known {
                assert!(g.face_down(*position), "remembered place {position} is face up");
                assert_eq!(
                    g.board[*position as usize], *card,
                    "the memory of place {position} is wrong"
                );
            }
        }
        let outcome = g.outcome().unwrap();
        if outcome.winners.contains(&Seat(0)) {
            memory_wins += 1.0 / outcome.winners.len() as f64;
        }
    }
    assert!(
        memory_wins > 0.8 * games as f64,
        "memory won only {memory_wins} of {games}"
    );
}

// ---------------------------------------------------------------------------------------------------------
// Rules version 2 (issue 25 points 7-9): exposed cards, passes, a face-down pile of 60

#[test]
fn a_card_everyone_has_seen_that_fails_again_stays_face_up_until_it_fits() {
    // Card 9 lies at 20; its place (row 1, column 1) touches nothing of the picture.
    let mut g = rigged(2, swapped(&[(9, 20)]), &[], &[Reward::Confetti, Reward::Confetti]);
    play(&mut g, 0, reveal(20));
    assert_eq!(
        g.seen,
        vec![Sighting {
            position: 20,
            card: 9
        }]
    );
    // Shown a second time without fitting: it stays face up, for everyone, and nobody need remember it.
    let events = play(&mut g, 1, reveal(20));
    assert_eq!(
        events[0],
        PuzzleEvent::Failed {
            seat: Seat(1),
            position: 20,
            card: 9,
            exposed: true
        }
    );
    assert!(g.seen.is_empty());
    assert_eq!(g.exposed, vec![20]);
    let view = g.view(Viewer::Spectator);
    assert_eq!(view.board[20], Some(9));
    assert_eq!(view.exposed, &[20]);
    assert_eq!(view.face_down, 59);
    // It cannot be revealed again while it does not fit.
    assert!(!g.legal_actions(Seat(0)).contains(&reveal(20)));
    let before = fingerprint(&g);
    assert_eq!(
        g.apply(Actor::Seat(Seat(0)), &reveal(20), T),
        Err(PuzzleReject::ExposedMisfit(20))
    );
    assert_eq!(fingerprint(&g), before);
    // Card 1 goes next to corner 0; now card 9's place touches card 1, and anyone may take it.
    play(&mut g, 0, reveal(1));
    assert!(g.legal_actions(Seat(0)).contains(&reveal(20)));
    let events = play(&mut g, 0, reveal(20));
    assert_eq!(
        events[0],
        PuzzleEvent::Placed {
            seat: Seat(0),
            from: 20,
            card: 9,
            swapped: true
        }
    );
    assert!(g.exposed.is_empty());
    assert_eq!(g.board[20], 20, "the face-down card from 9 moved to 20");
    assert!(g.face_down(20));
    assert_board_invariants(&g);
}

#[test]
fn an_exposed_card_displaced_by_a_success_moves_face_up() {
    // Card 9 lies at 1, exposed; card 1 lies at 20. Placing card 1 sends card 9, face up, to 20.
    let mut g = rigged(2, swapped(&[(1, 20), (1, 9)]), &[], &[Reward::Confetti]);
    assert_eq!((g.board[1], g.board[20]), (9, 1));
    g.exposed = vec![1];
    play(&mut g, 0, reveal(20));
    assert_eq!(g.exposed, vec![20]);
    assert_eq!(g.view(Viewer::Spectator).board[20], Some(9));
    assert_board_invariants(&g);
    // A remembered face-down card displaced by a success is followed by the record too.
    let mut g = rigged(2, swapped(&[(1, 20), (1, 9)]), &[], &[Reward::Confetti]);
    g.seen = vec![Sighting { position: 1, card: 9 }];
    play(&mut g, 0, reveal(20));
    assert_eq!(
        g.seen,
        vec![Sighting {
            position: 20,
            card: 9
        }]
    );
    assert_board_invariants(&g);
}

// ---------------------------------------------------------------------------------------------------------
// Rules version 3 (issue 43, seed 002 "already uncovered on the table"): an exposed card is a neighbour

#[test]
fn an_exposed_card_counts_as_a_neighbour_from_version_3() {
    // Card 20 lies exposed at 11, next to place 10; card 10 lies face down at 36. Place 10 touches nothing of the
    // picture (its neighbours 2, 9, 11 and 18 are not in it).
    let rig = |version: u32| {
        let mut g = rigged(2, swapped(&[(11, 20), (10, 36)]), &[], &[Reward::Confetti]);
        g.rules_version = version;
        g.exposed = vec![11];
        assert_eq!((g.board[11], g.board[36]), (20, 10));
        g
    };
    // Version 3: a success; the face-down card from place 10 slides to 36, the exposed card stays where it lies.
    let mut g = rig(3);
    let events = play(&mut g, 0, reveal(36));
    assert_eq!(
        events[0],
        PuzzleEvent::Placed {
            seat: Seat(0),
            from: 36,
            card: 10,
            swapped: true
        }
    );
    assert!(g.face_up[10]);
    assert_eq!(g.exposed, vec![11]);
    assert_board_invariants(&g);
    // Version 2 (pinned): an exposed card is no neighbour, so the same reveal fails.
    let mut g = rig(2);
    let events = play(&mut g, 0, reveal(36));
    assert!(matches!(
        events[0],
        PuzzleEvent::Failed {
            position: 36,
            card: 10,
            exposed: false,
            ..
        }
    ));
    assert!(!g.face_up[10]);

    // An exposed card fitting only next to another exposed card may be taken from version 3: card 9 lies exposed
    // at 27, card 20 exposed at 10 (next to place 9).
    let rig = |version: u32| {
        let mut g = rigged(2, swapped(&[(9, 27), (10, 20)]), &[], &[Reward::Confetti]);
        g.rules_version = version;
        g.exposed = vec![10, 27];
        g
    };
    let g = rig(3);
    assert!(g.legal_actions(Seat(0)).contains(&reveal(27)));
    assert!(g.clone().apply(Actor::Seat(Seat(0)), &reveal(27), T).is_ok());
    let g = rig(2);
    assert!(!g.legal_actions(Seat(0)).contains(&reveal(27)));
    assert_eq!(
        g.clone().apply(Actor::Seat(Seat(0)), &reveal(27), T),
        Err(PuzzleReject::ExposedMisfit(27))
    );

    // An exposed card is not its own neighbour: card 9 exposed at 10, next to its own place, does not fit.
    let mut g = rigged(2, swapped(&[(9, 10)]), &[], &[Reward::Confetti]);
    g.exposed = vec![10];
    assert_eq!(g.rules_version, 3);
    assert!(!g.legal_actions(Seat(0)).contains(&reveal(10)));
    assert_eq!(
        g.apply(Actor::Seat(Seat(0)), &reveal(10), T),
        Err(PuzzleReject::ExposedMisfit(10))
    );
}

#[test]
fn puzzle_master_counts_exposed_neighbours_from_version_3() {
    // Card 9 lies at 36; its place touches card 1 of the picture, card 8 of the picture and card 20 exposed at 10.
    for (version, met) in [(2, false), (3, true)] {
        let mut g = rigged(2, swapped(&[(9, 36), (10, 20)]), &[1, 8], &[Reward::PuzzleMaster]);
        g.rules_version = version;
        g.exposed = vec![10];
        let events = play(&mut g, 0, reveal(36));
        assert!(
            events.iter().any(|e| matches!(
                e,
                PuzzleEvent::Bonus { reward: Reward::PuzzleMaster, met: m, .. } if *m == met
            )),
            "version {version}: {events:?}"
        );
    }
}

#[test]
fn the_first_reveal_may_be_passed_until_everyone_else_has_passed() {
    let mut g = rigged(3, identity(), &[], &[Reward::Confetti]);
    assert!(g.legal_actions(Seat(0)).contains(&PuzzleAction::Stop));
    let events = play(&mut g, 0, PuzzleAction::Stop);
    assert_eq!(
        events,
        vec![
            PuzzleEvent::Passed { seat: Seat(0) },
            PuzzleEvent::TurnPassed { seat: Seat(1) }
        ]
    );
    play(&mut g, 1, PuzzleAction::Stop);
    assert_eq!(g.view(Viewer::Spectator).passes, 2);
    // Seats 0 and 1 passed: seat 2 must reveal.
    assert!(!g.legal_actions(Seat(2)).contains(&PuzzleAction::Stop));
    assert_eq!(
        g.apply(Actor::Seat(Seat(2)), &PuzzleAction::Stop, T),
        Err(PuzzleReject::MustReveal)
    );
    play(&mut g, 2, reveal(27)); // a failure: the count starts again
    assert_eq!(g.passes, 0);
    assert!(g.legal_actions(Seat(0)).contains(&PuzzleAction::Stop));
    // A stop after a success is declining the extra move, not a pass.
    play(&mut g, 0, reveal(1));
    let events = play(&mut g, 0, PuzzleAction::Stop);
    assert_eq!(events[0], PuzzleEvent::Stopped { seat: Seat(0) });
    assert_eq!(g.passes, 0);
    // Two players: one pass, then the other must reveal.
    let mut g = rigged(2, identity(), &[], &[Reward::Confetti]);
    play(&mut g, 0, PuzzleAction::Stop);
    assert!(!g.legal_actions(Seat(1)).contains(&PuzzleAction::Stop));
}

#[test]
fn every_placement_of_a_version_2_game_draws_a_reward_card() {
    for players in MIN_PLAYERS..=MAX_PLAYERS {
        let mut g = NewYearPuzzle::new(&NewYearPuzzleConfig::default(), players, 77).unwrap();
        let mut driver = Rng::from_seed(u64::from(players));
        let mut extra_moves = 0;
        while g.status() != Status::Over {
            let seat = g.turn;
            let action = random_legal(&g, seat, &mut driver).unwrap();
            for e in play(&mut g, seat.0, action) {
                assert!(!matches!(e, PuzzleEvent::PileEmpty { .. }), "the pile ran out");
                extra_moves += usize::from(matches!(e, PuzzleEvent::ExtraMove { .. }));
            }
        }
        assert!(g.pile.is_empty(), "the last placement took the last card");
        let held: usize = g.rewards.iter().map(Vec::len).sum();
        assert_eq!(held, 60);
        assert!(extra_moves > 0);
    }
}

// ---------------------------------------------------------------------------------------------------------
// Stalling (issue 25 point 7): every line of play ends

/// Reveals, at most, in a version 2 game: 60 successes, and every failure lowers `2 × unseen + seen` face-down
/// cards (an unseen card becomes seen, a seen one exposed) while no success raises it, so at most 2 × 60
/// failures. Between reveals at most `players - 1` passes; a stop declines the extra move of a success.
fn action_bound(players: u8) -> usize {
    let reveals = 60 + 2 * 60;
    reveals + (players as usize - 1) * reveals + 60
}

/// How an adversary plays to delay the end as long as it can. It sees everything (the hidden cards included):
/// the worst case, not a fair player.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Staller {
    /// Passes or stops whenever it may; else reveals a card that fails, an unseen one first; else the success
    /// that lets fewest other cards fit.
    Refuser,
    /// Never passes, but always reveals a card that fails, a seen one first (the face-up-pile dodge of version
    /// 1, played on every move).
    Dodger,
}

impl Staller {
    fn choose(self, g: &NewYearPuzzle, rng: &mut Rng) -> PuzzleAction {
        let seat = g.turn;
        let legal = g.legal_actions(seat);
        if self == Staller::Refuser && legal.contains(&PuzzleAction::Stop) {
            return PuzzleAction::Stop;
        }
        let failing: Vec<u8> = legal
            .iter()
            .filter_map(|a| match a {
                PuzzleAction::Reveal { position } if !g.fits(g.board[*position as usize], *position) => {
                    Some(*position)
                }
                _ => None,
            })
            .collect();
        let seen = |p: &u8| g.sighting_at(*p).is_some();
        let (first, second): (Vec<u8>, Vec<u8>) = failing.iter().partition(|p| match self {
            Staller::Refuser => !seen(p),
            Staller::Dodger => seen(p),
        });
        for pool in [first, second] {
            if let Some(p) = rng.choose(&pool) {
                return reveal(*p);
            }
        }
        if legal.contains(&PuzzleAction::Stop) {
            return PuzzleAction::Stop;
        }
        // Only successes: the one opening fewest new places.
        let opened = |a: &PuzzleAction| match a {
            PuzzleAction::Reveal { position } => {
                let card = g.board[*position as usize];
                data::side_neighbours(card)
                    .filter(|n| !g.face_up[*n as usize] && !g.fits(*n, lies_at(g, *n)))
                    .count()
            }
            PuzzleAction::Stop => usize::MAX,
        };
        let fewest = legal.iter().map(opened).min().expect("a legal action");
        let ties: Vec<PuzzleAction> = legal.iter().copied().filter(|a| opened(a) == fewest).collect();
        ties[rng.index(ties.len())]
    }
}

/// Where card `card` lies.
fn lies_at(g: &NewYearPuzzle, card: u8) -> u8 {
    g.board
        .iter()
        .position(|c| *c == card)
        .expect("every card lies somewhere") as u8
}

/// Plays a game of `version` (2 or later) where seat `s` is `players[s]` (`None`: a random player) and returns
/// the actions it took, failing past the bound.
fn stall(version: u32, players: &[Option<Staller>], seed: u64) -> usize {
    let n = players.len() as u8;
    let mut g = NewYearPuzzle::new_at(&NewYearPuzzleConfig::default(), n, seed, version).unwrap();
    let mut rng = Rng::from_seed(seed ^ 0x57a11);
    let mut actions = 0;
    while g.status() != Status::Over {
        assert!(
            actions <= action_bound(n),
            "{players:?}, seed {seed}: no end after {actions} actions"
        );
        let seat = g.turn;
        let action = match players[seat.index()] {
            Some(staller) => staller.choose(&g, &mut rng),
            None => random_legal(&g, seat, &mut rng).unwrap(),
        };
        g.apply(Actor::Seat(seat), &action, T).unwrap();
        assert_invariants(&g);
        actions += 1;
    }
    actions
}

#[test]
fn stalling_players_cannot_keep_the_game_from_ending() {
    // Every seat count and version 2 and 3, with the whole table stalling and with stallers among random players.
    // About 2 s.
    use Staller::*;
    let mut longest = vec![0; MAX_PLAYERS as usize + 1];
    for n in MIN_PLAYERS..=MAX_PLAYERS {
        let tables: Vec<Vec<Option<Staller>>> = vec![
            vec![Some(Refuser); n as usize],
            vec![Some(Dodger); n as usize],
            (0..n)
                .map(|s| Some(if s % 2 == 0 { Refuser } else { Dodger }))
                .collect(),
            (0..n).map(|s| (s == 0).then_some(Refuser)).collect(),
            (0..n).map(|s| (s != 0).then_some(Dodger)).collect(),
        ];
        for table in &tables {
            for (version, seed) in [2, 3].into_iter().flat_map(|v| (0..6).map(move |s| (v, s))) {
                let actions = stall(version, table, seed * 7 + u64::from(n));
                longest[n as usize] = longest[n as usize].max(actions);
            }
        }
        assert!(longest[n as usize] <= action_bound(n));
    }
    println!(
        "longest stalled game by seat count: {longest:?}; bounds {:?}",
        (MIN_PLAYERS..=MAX_PLAYERS).map(action_bound).collect::<Vec<_>>()
    );
    // The adversaries do stall: far longer than the ~100 actions of a game between fair players.
    assert!(longest[2] > 200, "{longest:?}");
}

// ---------------------------------------------------------------------------------------------------------
// Rules version 1 still plays as it did (stored matches replay under it)

fn v1(players: u8, seed: u64) -> NewYearPuzzle {
    NewYearPuzzle::new_at(&NewYearPuzzleConfig::default(), players, seed, 1).unwrap()
}

#[test]
fn a_version_1_game_plays_as_before() {
    let g = v1(3, 99);
    assert_eq!(g.pile.len(), 48);
    assert!(
        g.view(Viewer::Spectator).pile_top.is_some(),
        "the pile lies face up"
    );
    assert!(g.view(Viewer::Spectator).pile_face_up);
    assert!(!g.legal_actions(g.turn).contains(&PuzzleAction::Stop), "no pass");
    let text = serde_json::to_value(&g).unwrap();
    assert!(
        text.get("rules_version").is_none(),
        "a version 1 state writes as before"
    );
    let restored: NewYearPuzzle = serde_json::from_value(text).unwrap();
    assert_eq!(
        restored.rules_version, 1,
        "a state without a version reads as version 1"
    );
    assert_eq!(restored, g);
    // The first move may not be stopped, and a card shown twice goes back face down both times.
    let mut g = rigged(2, swapped(&[(9, 20)]), &[], &[Reward::Confetti]);
    g.rules_version = 1;
    assert_eq!(
        g.apply(Actor::Seat(Seat(0)), &PuzzleAction::Stop, T),
        Err(PuzzleReject::NoExtraMove)
    );
    for seat in [0, 1, 0] {
        let events = play(&mut g, seat, reveal(20));
        assert!(matches!(
            events[0],
            PuzzleEvent::Failed {
                position: 20,
                card: 9,
                exposed: false,
                ..
            }
        ));
        assert!(g.exposed.is_empty() && g.face_down(20));
    }
    // The top card is on view.
    assert_eq!(
        g.view(Viewer::Spectator).pile_top.unwrap().reward,
        Reward::Confetti
    );
}

#[test]
fn a_version_1_view_shows_the_copies_of_its_own_deck() {
    // Issue 43: the top card of a version 1 pile showed the copies of version 2's deck (6 sparklers, not 5).
    let mut g = v1(2, 3);
    for card in REWARDS {
        g.pile = vec![card.reward];
        let top = g.view(Viewer::Spectator).pile_top.expect("the pile lies face up");
        assert_eq!(top.reward, card.reward);
        assert_eq!(
            top.copies, card.copies_v1,
            "copies of `{:?}` in version 1",
            card.reward
        );
        assert_eq!(
            top.copies as usize,
            full_deck(1).iter().filter(|r| **r == card.reward).count()
        );
    }
    g.pile = vec![Reward::Sparkler];
    let view = serde_json::to_value(g.view(Viewer::Seat(Seat(0)))).unwrap();
    assert_eq!(view["pile_top"]["copies"], json!(5));
    assert_eq!(view["pile_top"]["name"], json!("Sparkler"));
}

#[test]
fn a_version_1_game_runs_out_of_reward_cards_twelve_placements_before_the_end() {
    let mut g = v1(2, 5);
    let mut driver = Rng::from_seed(5);
    let mut empty = 0;
    while g.status() != Status::Over {
        let seat = g.turn;
        let action = random_legal(&g, seat, &mut driver).unwrap();
        for e in play(&mut g, seat.0, action) {
            empty += usize::from(matches!(e, PuzzleEvent::PileEmpty { .. }));
        }
        assert_invariants(&g);
    }
    assert_eq!(empty, 12);
    assert!(g.exposed.is_empty() && g.seen.is_empty());
    assert_eq!(g.rules_version, 1);
}

#[test]
fn setup_refuses_rules_versions_it_does_not_play() {
    let config = NewYearPuzzleConfig::default();
    for version in [0, 4] {
        assert!(matches!(
            NewYearPuzzle::new_at(&config, 2, 1, version),
            Err(SetupError::RulesVersion { .. })
        ));
    }
    assert_eq!(NewYearPuzzle::oldest_rules_version(), 1);
    assert_eq!(
        fingerprint(&NewYearPuzzle::new_at(&config, 4, 8, 3).unwrap()),
        fingerprint(&NewYearPuzzle::new(&config, 4, 8).unwrap())
    );
}

// ---------------------------------------------------------------------------------------------------------
// The server bot

#[test]
fn the_bot_plays_only_legal_actions_at_every_seat_count_and_every_version() {
    // Whole tables of bots, and bots among random players. About 0.5 s.
    for version in [1, 2, 3] {
        for players in MIN_PLAYERS..=MAX_PLAYERS {
            for seed in 0..4u64 {
                let mut g =
                    NewYearPuzzle::new_at(&NewYearPuzzleConfig::default(), players, seed, version).unwrap();
                let mut rng = Rng::from_seed(seed + 40);
                let mut steps = 0;
                while g.status() != Status::Over {
                    steps += 1;
                    assert!(steps < 5_000, "bots did not finish");
                    let seat = g.turn;
                    let bot = seed % 2 == 0 || seat.0 % 2 == 0;
                    let action = if bot {
                        let action = g.bot_action(seat, &mut rng).expect("the bot moves on its turn");
                        assert!(g.legal_actions(seat).contains(&action), "{action:?} is not legal");
                        action
                    } else {
                        random_legal(&g, seat, &mut rng).unwrap()
                    };
                    g.apply(Actor::Seat(seat), &action, T).unwrap();
                }
                for s in Seat::all(players) {
                    assert_eq!(g.bot_action(s, &mut rng), None, "nothing to do after the end");
                }
            }
        }
    }
}

#[test]
fn the_bot_uses_only_what_its_seat_has_seen() {
    // Twins that differ only in what no seat has seen (the unseen face-down cards, the pile's hidden order) get
    // the same bot move from the same generator. About 0.3 s.
    let mut driver = Rng::from_seed(11);
    let mut compared = 0;
    for version in [1, 2, 3] {
        for seed in 0..4u64 {
            let players = 2 + (seed % 3) as u8;
            let mut g =
                NewYearPuzzle::new_at(&NewYearPuzzleConfig::default(), players, seed, version).unwrap();
            while g.status() != Status::Over {
                let seat = g.turn;
                let mut twin = g.clone();
                let unseen: Vec<usize> = (0..CARDS)
                    .filter(|p| g.face_down(*p as u8) && g.sighting_at(*p as u8).is_none())
                    .collect();
                for (i, p) in unseen.iter().enumerate() {
                    twin.board[*p] = g.board[unseen[(i + 1) % unseen.len()]];
                }
                let hidden = g.pile_hidden().len();
                if hidden >= 2 {
                    twin.pile[..hidden].rotate_left(1);
                }
                let mut a = Rng::from_seed(compared);
                let mut b = Rng::from_seed(compared);
                assert_eq!(g.bot_action(seat, &mut a), twin.bot_action(seat, &mut b));
                compared += 1;
                let action = if driver.below(2) == 0 {
                    g.bot_action(seat, &mut driver).unwrap()
                } else {
                    random_legal(&g, seat, &mut driver).unwrap()
                };
                g.apply(Actor::Seat(seat), &action, T).unwrap();
            }
        }
    }
    assert!(compared > 500);
}

#[test]
#[ignore = "a measurement: cargo test -p rules --release --lib recall_sweep -- --ignored --nocapture"]
fn recall_sweep() {
    for recall in [0, 4, 8, 12, 16, 24, 64] {
        for opponent_recall in [None, Some(64)] {
            let mut wins = 0.0;
            let games = 400;
            for game in 0..games {
                let mut g = NewYearPuzzle::new(&NewYearPuzzleConfig::default(), 2, 0x25_0000 + game).unwrap();
                let bot = Seat((game % 2) as u8);
                let mut rng = Rng::from_seed(game);
                while g.status() != Status::Over {
                    let seat = g.turn;
                    let action = if seat == bot {
                        super::bot::bot_action_recalling(&g, seat, &mut rng, recall).unwrap()
                    } else if let Some(r) = opponent_recall {
                        super::bot::bot_action_recalling(&g, seat, &mut rng, r).unwrap()
                    } else {
                        random_legal(&g, seat, &mut rng).unwrap()
                    };
                    g.apply(Actor::Seat(seat), &action, T).unwrap();
                }
                let o = g.outcome().unwrap();
                if o.winners == [bot] {
                    wins += 1.0;
                }
            }
            println!(
                "recall {recall} vs {opponent_recall:?}: {:.1} %",
                100.0 * wins / games as f64
            );
        }
    }
}

#[test]
#[ignore = "a measurement: cargo test -p rules --release --lib bot_games -- --ignored --nocapture"]
fn bot_games() {
    // Whole tables of server bots: how the game plays, and how much the bots' memory holds.
    for players in [2u8, 4, 6] {
        let games = 200u64;
        let (mut sum, mut n, mut max, mut over) = (0usize, 0usize, 0usize, 0usize);
        let (mut successes, mut failures, mut exposures, mut passes, mut turns) = (0, 0, 0, 0, 0);
        let (mut longest, mut spread) = (0usize, 0i64);
        for game in 0..games {
            let mut g = NewYearPuzzle::new(&NewYearPuzzleConfig::default(), players, game).unwrap();
            let mut rng = Rng::from_seed(game);
            let mut chain = 0;
            while g.status() != Status::Over {
                let seat = g.turn;
                let a = g.bot_action(seat, &mut rng).unwrap();
                for e in play(&mut g, seat.0, a) {
                    match e {
                        PuzzleEvent::Failed { exposed, .. } => {
                            failures += 1;
                            exposures += usize::from(exposed)
                        }
                        PuzzleEvent::Placed { .. } => {
                            successes += 1;
                            chain += 1;
                            longest = longest.max(chain);
                        }
                        PuzzleEvent::Passed { .. } => passes += 1,
                        PuzzleEvent::TurnPassed { .. } => {
                            turns += 1;
                            chain = 0
                        }
                        _ => {}
                    }
                }
                sum += g.seen.len();
                n += 1;
                max = max.max(g.seen.len());
                over += usize::from(g.seen.len() > super::bot::RECALL);
            }
            let scores = g.outcome().unwrap().scores;
            spread += scores.iter().max().unwrap() - scores.iter().min().unwrap();
        }
        let per = |x: usize| x as f64 / games as f64;
        println!(
            "{players} players: seen cards waiting: mean {:.1}, max {max}, more than RECALL {:.1} % of the time; \
             per game: {:.1} successes, {:.1} failures, {:.2} exposures, {:.2} passes, {:.1} turns; longest chain \
             {longest}; spread first-last {:.1}",
            sum as f64 / n as f64,
            100.0 * over as f64 / n as f64,
            per(successes),
            per(failures),
            per(exposures),
            per(passes),
            per(turns),
            spread as f64 / games as f64,
        );
    }
}
