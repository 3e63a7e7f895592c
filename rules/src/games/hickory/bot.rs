//! The server bot's strategy for this game (`Game::bot_action`).

use super::Hickory;
use crate::Game;
use crate::model::Seat;
use crate::rng::Rng;

/// For now a uniformly random legal action (to be replaced by the game's strategy, issue 25).
pub(super) fn bot_action(game: &Hickory, seat: Seat, rng: &mut Rng) -> Option<<Hickory as Game>::Action> {
    crate::bot::random_legal(game, seat, rng)
}
