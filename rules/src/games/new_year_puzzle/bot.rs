//! The server bot's strategy for this game (`Game::bot_action`).

use super::NewYearPuzzle;
use crate::Game;
use crate::model::Seat;
use crate::rng::Rng;

/// For now a uniformly random legal action (to be replaced by the game's strategy, issue 25).
pub(super) fn bot_action(
    game: &NewYearPuzzle,
    seat: Seat,
    rng: &mut Rng,
) -> Option<<NewYearPuzzle as Game>::Action> {
    crate::bot::random_legal(game, seat, rng)
}
