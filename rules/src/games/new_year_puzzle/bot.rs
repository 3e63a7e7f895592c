//! The server bot's strategy for this game (`Game::bot_action`): a player with a good but bounded memory.
//!
//! What it knows (`docs/rules/new-year-puzzle.md`, "Server bot"): its seat's view (the picture, the exposed cards,
//! the reward pile's size and, in rules version 1, its face-up top card, every reward collected so far) and the
//! public record of sightings (`NewYearPuzzle::sightings`: each face-down card that a failed reveal showed to
//! everyone, followed when a success moves it, which every seat saw in the events). Of that record it recalls only
//! the [`RECALL`] most recent sightings, as a player at the table forgets old ones; it never reads a face-down
//! card nobody has seen or the pile's order.
//!
//! What it does:
//! 1. If a card it knows (an exposed one, or one it recalls) fits (the engine's judgement under the match's rules
//!    version: from version 3 an exposed card is a neighbour too), it places it, choosing the one that makes most
//!    other known cards fit next (a one-step lookahead for a chain of extra moves). On an extra move it first
//!    stops if the next reward is worth less than nothing.
//! 2. Otherwise it turns over a card it knows nothing about, at random: a success is worth the reward and another
//!    move, a failure only shows everyone a card. It stops an extra move, or passes a first move, instead when the
//!    next reward is worth less than nothing. It never turns over a card it recalls not fitting unless it must
//!    (from version 2 that card would stay face up for everyone).
//!
//! The worth of the next reward: the face-up top card in version 1; from version 2 the average of the cards left
//! in the pile, which are public (the deck's list less every card collected).

use super::data::{Effect, REWARDS, RewardCard, side_neighbours};
use super::{NewYearPuzzle, PuzzleAction};
use crate::Game;
use crate::model::{Seat, Viewer};
use crate::rng::Rng;

/// How many of the most recent sightings the bot recalls. A player at the table remembers some cards, not all: in
/// games between bots about 6 seen cards wait face down on average, more than 12 a sixth of the time (up to 30),
/// so the bot forgets now and then. Measured figures are in the rules page, "Server bot".
pub const RECALL: usize = 12;

pub(super) fn bot_action(game: &NewYearPuzzle, seat: Seat, rng: &mut Rng) -> Option<PuzzleAction> {
    bot_action_recalling(game, seat, rng, RECALL)
}

/// The strategy for a bot that recalls the `recall` most recent sightings.
pub(super) fn bot_action_recalling(
    game: &NewYearPuzzle,
    seat: Seat,
    rng: &mut Rng,
    recall: usize,
) -> Option<PuzzleAction> {
    let legal = game.legal_actions(seat);
    if legal.is_empty() {
        return None;
    }
    let view = game.view(Viewer::Seat(seat));
    let exposed = view.exposed;
    // Whether a card lying at `from` fits: the game's own judgement, which reads only the face-up cards (the
    // picture and, from rules version 3, the exposed cards), public in every view.
    let fits = |from: u8, card: u8| game.fits(card, from);
    // What it knows lies where: the exposed cards (face up for everyone) and the sightings it recalls.
    let recalled: Vec<(u8, u8)> = game
        .sightings()
        .iter()
        .rev()
        .take(recall)
        .map(|s| (s.position, s.card))
        .collect();
    let known: Vec<(u8, u8)> = exposed
        .iter()
        .map(|p| (*p, view.board[*p as usize].expect("an exposed card is face up")))
        .chain(recalled.iter().copied())
        .collect();
    let can_stop = legal.contains(&PuzzleAction::Stop);
    let reward_worth = next_reward_worth(game, seat);
    if can_stop && reward_worth < 0.0 {
        return Some(PuzzleAction::Stop);
    }

    // 1. A known card that fits, preferring the one that makes most other known cards fit next.
    let unlocks = |card: u8| {
        known
            .iter()
            .filter(|(from, other)| {
                *other != card && !fits(*from, *other) && side_neighbours(*other).any(|p| p == card)
            })
            .count() as i64
    };
    let fitting: Vec<(u8, u8)> = known
        .iter()
        .copied()
        .filter(|(from, card)| fits(*from, *card))
        .collect();
    if let Some(best) = fitting.iter().map(|(_, card)| unlocks(*card)).max() {
        let ties: Vec<u8> = fitting
            .iter()
            .filter(|(_, card)| unlocks(*card) == best)
            .map(|(position, _)| *position)
            .collect();
        let position = ties[rng.index(ties.len())];
        debug_assert!(legal.contains(&PuzzleAction::Reveal { position }));
        return Some(PuzzleAction::Reveal { position });
    }

    // 2. A card it knows nothing about.
    let unknown: Vec<PuzzleAction> = legal
        .iter()
        .copied()
        .filter(|a| match a {
            PuzzleAction::Reveal { position } => recalled.iter().all(|(p, _)| p != position),
            PuzzleAction::Stop => false,
        })
        .collect();
    if let Some(action) = rng.choose(&unknown) {
        return Some(*action);
    }
    if can_stop {
        return Some(PuzzleAction::Stop);
    }
    // Only cards it recalls not fitting are left, and it must reveal: the one seen longest ago.
    recalled
        .iter()
        .rev()
        .map(|(position, _)| PuzzleAction::Reveal { position: *position })
        .find(|a| legal.contains(a))
        .or_else(|| crate::bot::random_legal(game, seat, rng))
}

/// What the next reward card is worth to `seat`, in points: the face-up top card (rules version 1), or the
/// average of the cards left in the face-down pile (version 2), which every player can count. Zero when the pile
/// is empty (the success then scores 1 and ends the turn, worth taking).
fn next_reward_worth(game: &NewYearPuzzle, seat: Seat) -> f64 {
    let view = game.view(Viewer::Seat(seat));
    if let Some(top) = &view.pile_top {
        return worth(top, view.player_count);
    }
    if view.pile_left == 0 {
        return 0.0;
    }
    let (mut total, mut cards) = (0.0, 0u32);
    for card in REWARDS {
        let taken = view
            .rewards
            .iter()
            .flatten()
            .filter(|r| **r == card.reward)
            .count() as u32;
        let left = u32::from(card.copies_in(view.rules_version)).saturating_sub(taken);
        total += f64::from(left) * worth(card, view.player_count);
        cards += left;
    }
    if cards == 0 { 0.0 } else { total / f64::from(cards) }
}

/// A rough worth of one reward card: its points, half of what its condition would bring (met about half the
/// time), less half a point when it forbids the extra move.
fn worth(card: &RewardCard, players: u8) -> f64 {
    let bonus = card.bonus.map_or(0.0, |b| match b.effect {
        Effect::Gain { points } | Effect::LeadersLose { points } => f64::from(points) / 2.0,
        // Every other player losing is a gain against each of them; against the table it is worth about this.
        Effect::OthersLose { points } => f64::from(points) * f64::from(players - 1) / f64::from(players),
    });
    f64::from(card.points) + bonus - if card.ends_turn { 0.5 } else { 0.0 }
}
