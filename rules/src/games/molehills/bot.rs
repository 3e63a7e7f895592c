//! The server bot's strategy for Mountains out of Molehills (`Game::bot_action`): greedy with a short lookahead,
//! described in `docs/rules/molehills.md` ("Server bot").
//!
//! The bot judges a board by what the round would score: its points for the mountains it controls against those
//! of its strongest rival (totals so far included), then the pieces it has on top of mountains (King of the
//! Hill), then how far its mole can dig straight ahead. It looks ahead only at its own mole: it tries its cards
//! on a copy of the board as if the other moles stood still, because their stacks are secret.
//!
//! It sees the game only through [`seen_by`]: a copy of the state with everything the seat may not know removed
//! (the deck and discard pile, the other hands and stacks, the engine's random generator). Every decision below
//! is computed from that copy alone.

use super::{
    Card, Dir, Events, HAND_SIZE, MAX_PLAYERS, Molehills, MolehillsAction, Pending, Phase, Pos, card_of,
};
use crate::model::Seat;
use crate::rng::Rng;

/// The weight of one point of the round's score lead over the tie-breaking terms of [`Lookahead::value`].
const POINT: i64 = 1_000;
/// The weight of one piece on top of a mountain (the King of the Hill count).
const TOP: i64 = 10;

pub(super) fn bot_action(game: &Molehills, seat: Seat, rng: &mut Rng) -> Option<MolehillsAction> {
    use crate::Game;
    let legal = game.legal_actions(seat);
    if legal.is_empty() {
        return None;
    }
    let seen = seen_by(game, seat);
    let action = match &seen.phase {
        Phase::PlaceMoles { .. } => best(&legal, rng, |a| place_score(&seen, seat, a)),
        Phase::Draft { .. } => {
            let mut look = Lookahead::new(&seen, seat);
            let hand: Vec<Card> = seen.hands[seat.index()].iter().map(|id| card_of(*id)).collect();
            // For the last pick, the three cards held keep their best order and the new card is tried at each
            // place in it (four orders instead of twenty-four, which keeps the call fast).
            let held = (hand.len() + 1 == HAND_SIZE).then(|| {
                let (_, order) = look.best_any_order(&hand);
                order.into_iter().map(|i| hand[i]).collect::<Vec<Card>>()
            });
            // Copies of a card are worth the same: each kind is weighed once.
            let mut weighed: Vec<(Card, i64)> = Vec::new();
            best(&legal, rng, |a| {
                let MolehillsAction::Pick { card } = a else {
                    return i64::MIN;
                };
                let kind = card_of(*card);
                if let Some((_, score)) = weighed.iter().find(|(k, _)| *k == kind) {
                    return *score;
                }
                let score = match &held {
                    Some(held) => (0..=held.len())
                        .map(|at| {
                            let mut cards = held.clone();
                            cards.insert(at, kind);
                            look.best_in_order(0, &cards)
                        })
                        .max()
                        .expect("an order"),
                    None => {
                        let mut cards = hand.clone();
                        cards.push(kind);
                        look.best_any_order(&cards).0
                    }
                };
                weighed.push((kind, score));
                score
            })
        }
        Phase::Planning => {
            let hand = &seen.hands[seat.index()];
            let cards: Vec<Card> = hand.iter().map(|id| card_of(*id)).collect();
            let (_, order) = Lookahead::new(&seen, seat).best_any_order(&cards);
            MolehillsAction::Plan {
                order: order.into_iter().map(|i| hand[i]).collect(),
            }
        }
        Phase::Resolving {
            pending: Some(Pending::MoveTurn { card, .. }),
            ..
        } => {
            let card = card_of(*card);
            let rest = remaining_plan(&seen, seat);
            let mut look = Lookahead::new(&seen, seat);
            let mut option = |turn_first: bool| {
                look.copy_down(0);
                look.play(1, card, turn_first);
                look.best_in_order(1, &rest)
            };
            let (move_first, turn_first) = (option(false), option(true));
            if turn_first > move_first {
                MolehillsAction::TurnThenMove
            } else {
                MolehillsAction::MoveThenTurn
            }
        }
        Phase::Resolving {
            pending: Some(Pending::Rock { .. }),
            ..
        } => {
            let rest = remaining_plan(&seen, seat);
            let mut look = Lookahead::new(&seen, seat);
            best(&legal, rng, |a| match a {
                MolehillsAction::PlaceRock { at } => rock_score(&seen, seat, *at, &rest, &mut look),
                _ => i64::MIN,
            })
        }
        // Token 1 drafts first and resolves first.
        Phase::KingOfTheHill { .. } => MolehillsAction::ChooseToken { token: 1 },
        Phase::Resolving { pending: None, .. } | Phase::Over => return None,
    };
    debug_assert!(
        legal.contains(&action),
        "the bot chose {action:?}, not a legal action"
    );
    Some(action)
}

/// The state as `seat` may know it: the deck, the discard pile, the other players' hands and stacks and the
/// engine's random generator are removed. Everything left is in `seat`'s view.
fn seen_by(game: &Molehills, seat: Seat) -> Molehills {
    let mut seen = game.clone();
    seen.deck.clear();
    seen.discard.clear();
    seen.rng = Rng::from_seed(0);
    for other in 0..seen.n() {
        if other != seat.index() {
            seen.hands[other].clear();
            seen.plans[other] = None;
        }
    }
    seen
}

/// The legal action with the highest score; ties broken by `rng`.
fn best(
    legal: &[MolehillsAction],
    rng: &mut Rng,
    mut score: impl FnMut(&MolehillsAction) -> i64,
) -> MolehillsAction {
    let scores: Vec<i64> = legal.iter().map(&mut score).collect();
    let top = *scores.iter().max().expect("legal actions");
    let ties: Vec<usize> = (0..legal.len()).filter(|&i| scores[i] == top).collect();
    legal[ties[rng.index(ties.len())]].clone()
}

/// The ways a card can be played: a move-and-turn card in either order (`true`: turn first).
fn options(card: Card) -> &'static [bool] {
    match card {
        Card::MoveTurn { .. } => &[false, true],
        _ => &[false],
    }
}

/// The bot's own mole tried on copies of the board, one board per depth of the search (`boards[0]` is the board
/// as it stands). A deeper board is overwritten from the one above it with `clone_from`, which reuses its
/// storage, so a search allocates nothing once the boards exist. Only what a card can change is copied: the
/// surface, the moles, the rock and the supplies.
struct Lookahead {
    seat: Seat,
    /// Each seat's points from the rounds already scored (public).
    totals: Vec<i64>,
    boards: Vec<Molehills>,
    scratch: Events,
}

impl Lookahead {
    fn new(seen: &Molehills, seat: Seat) -> Lookahead {
        Lookahead {
            seat,
            totals: seen.totals(),
            boards: vec![seen.clone(); HAND_SIZE + 1],
            scratch: Events::new(),
        }
    }

    /// Copies the board at `depth` onto the board at `depth + 1`.
    fn copy_down(&mut self, depth: usize) {
        let (above, below) = self.boards.split_at_mut(depth + 1);
        let (from, to) = (&above[depth], &mut below[0]);
        to.stacks.clone_from(&from.stacks);
        to.moles.clone_from(&from.moles);
        to.supply.clone_from(&from.supply);
        to.rock = from.rock;
    }

    /// Carries out one card of the bot's on the board at `depth` (a rock card changes nothing here: its roll is
    /// not known yet).
    fn play(&mut self, depth: usize, card: Card, turn_first: bool) {
        let (board, seat, ev) = (&mut self.boards[depth], self.seat, &mut self.scratch);
        ev.clear();
        match card {
            Card::Move { steps } => board.move_mole(seat, steps, ev),
            Card::Turn { turn } => board.turn_mole(seat, turn, ev),
            Card::MoveTurn { steps, turn } if turn_first => {
                board.turn_mole(seat, turn, ev);
                board.move_mole(seat, steps, ev);
            }
            Card::MoveTurn { steps, turn } => {
                board.move_mole(seat, steps, ev);
                board.turn_mole(seat, turn, ev);
            }
            Card::Rock => {}
        }
    }

    /// How good the board at `depth` is for the bot if the round were scored now: its lead over its strongest
    /// rival (totals so far plus the mountains each controls), then its pieces on top of mountains (King of the
    /// Hill), then how far its mole can dig straight ahead.
    fn value(&self, depth: usize) -> i64 {
        let board = &self.boards[depth];
        let mut points = [0i64; MAX_PLAYERS as usize];
        let mut tops = [0i64; MAX_PLAYERS as usize];
        points[..self.totals.len()].copy_from_slice(&self.totals);
        for stack in &board.stacks {
            if let (Some(base), Some(top)) = (stack.first(), stack.last()) {
                points[base.index()] += stack.len() as i64;
                tops[top.index()] += 1;
            }
        }
        let me = self.seat.index();
        let rival = (0..board.n())
            .filter(|s| *s != me)
            .map(|s| points[s])
            .max()
            .unwrap_or(0);
        (points[me] - rival) * POINT + tops[me] * TOP + free_ahead(board, self.seat)
    }

    /// The best [`Self::value`] the bot can reach from the board at `depth` by playing `cards` in this order
    /// (choosing each move-and-turn order).
    fn best_in_order(&mut self, depth: usize, cards: &[Card]) -> i64 {
        let Some((&card, rest)) = cards.split_first() else {
            return self.value(depth);
        };
        let mut best = i64::MIN;
        for &turn_first in options(card) {
            self.copy_down(depth);
            self.play(depth + 1, card, turn_first);
            best = best.max(self.best_in_order(depth + 1, rest));
        }
        best
    }

    /// The best [`Self::value`] the bot can reach from the board as it stands by playing `cards` in any order,
    /// and that order (indices into `cards`). Cards of the same kind are tried once at each step.
    fn best_any_order(&mut self, cards: &[Card]) -> (i64, Vec<usize>) {
        let mut best = (i64::MIN, Vec::new());
        self.search(cards, &mut Vec::new(), &mut best);
        best
    }

    fn search(&mut self, cards: &[Card], used: &mut Vec<usize>, best: &mut (i64, Vec<usize>)) {
        let depth = used.len();
        if depth == cards.len() {
            let v = self.value(depth);
            if v > best.0 {
                *best = (v, used.clone());
            }
            return;
        }
        for i in 0..cards.len() {
            let same_kind_first = (0..i).any(|j| cards[j] == cards[i] && !used.contains(&j));
            if used.contains(&i) || same_kind_first {
                continue;
            }
            used.push(i);
            for &turn_first in options(cards[i]) {
                self.copy_down(depth);
                self.play(depth + 1, cards[i], turn_first);
                self.search(cards, used, best);
            }
            used.pop();
        }
    }
}

/// How many spaces (up to 3) `seat`'s mole could dig straight ahead before an obstacle.
fn free_ahead(board: &Molehills, seat: Seat) -> i64 {
    let Some(mole) = board.moles[seat.index()] else {
        return 0;
    };
    let mut at = mole.at;
    let mut free = 0;
    while free < 3 {
        match board.step(at, mole.facing) {
            Some(p) if board.rock != Some(p) && board.mole_at(p).is_none() => {
                at = p;
                free += 1;
            }
            _ => break,
        }
    }
    free
}

/// The cards still in `seat`'s own stack, top first.
fn remaining_plan(seen: &Molehills, seat: Seat) -> Vec<Card> {
    seen.plans[seat.index()]
        .iter()
        .flatten()
        .map(|id| card_of(*id))
        .collect()
}

/// Setup: a corner and facing from which the mole can dig far, away from the other moles.
fn place_score(seen: &Molehills, seat: Seat, action: &MolehillsAction) -> i64 {
    let MolehillsAction::PlaceMole { at, facing } = *action else {
        return i64::MIN;
    };
    let ahead = (1..=3u8)
        .take_while(|k| step_n(seen, at, facing, *k).is_some())
        .count() as i64;
    let nearest = seen
        .moles
        .iter()
        .enumerate()
        .filter(|(s, _)| *s != seat.index())
        .filter_map(|(_, m)| m.map(|m| i64::from(m.at.distance(at))))
        .min()
        .unwrap_or(0);
    ahead * 100 + nearest
}

fn step_n(seen: &Molehills, from: Pos, facing: Dir, n: u8) -> Option<Pos> {
    (0..n).try_fold(from, |p, _| seen.step(p, facing))
}

/// A revealed rock card: where the rock helps `seat` most. Its own remaining cards are played with the rock
/// there, and each other mole's straight line ahead that the rock cuts is counted as denied: every space from
/// the rock on along that line (up to three from the mole), worth a point, plus the pieces under it when `seat`
/// controls them.
fn rock_score(seen: &Molehills, seat: Seat, at: Pos, rest: &[Card], look: &mut Lookahead) -> i64 {
    look.boards[0].rock = Some(at);
    let own = look.best_in_order(0, rest);
    look.boards[0].rock = seen.rock;
    let mut denied = 0;
    for (other, mole) in seen.moles.iter().enumerate() {
        let Some(mole) = mole.filter(|_| other != seat.index()) else {
            continue;
        };
        let mut cut = false;
        let mut p = mole.at;
        for _ in 0..3 {
            let Some(next) = seen.step(p, mole.facing) else {
                break;
            };
            p = next;
            cut |= p == at;
            if cut {
                let stack = &seen.stacks[seen.idx(p)];
                let mine = stack.first() == Some(&seat);
                denied += 1 + if mine { stack.len() as i64 } else { 0 };
            }
        }
    }
    own + denied * POINT
}
