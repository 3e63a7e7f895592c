//! Pieces the games' server bots share (`Game::bot_action`; each game's strategy is in `games/<game>/bot.rs`).

use crate::model::{Game, Seat};
use crate::rng::Rng;

/// A uniformly random legal action of `seat`, or `None` when it has none: the "random player" the bots are
/// measured against (`rules/tests/bots.rs`), and a fallback for decisions a strategy does not weigh.
pub fn random_legal<G: Game>(game: &G, seat: Seat, rng: &mut Rng) -> Option<G::Action> {
    let legal = game.legal_actions(seat);
    rng.choose(&legal).cloned()
}

/// The legal action of `seat` with the highest `score` (ties broken by `rng`), or `None` when it has none: the
/// greedy step most bots are built from.
pub fn best_by<G: Game>(
    game: &G,
    seat: Seat,
    rng: &mut Rng,
    mut score: impl FnMut(&G::Action) -> i64,
) -> Option<G::Action> {
    let legal = game.legal_actions(seat);
    let scored: Vec<i64> = legal.iter().map(&mut score).collect();
    let best = *scored.iter().max()?;
    let ties: Vec<usize> = (0..legal.len()).filter(|&i| scored[i] == best).collect();
    Some(legal[ties[rng.index(ties.len())]].clone())
}
