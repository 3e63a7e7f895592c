//! Every component of Mountains out of Molehills, as data, named as the game names it.
//!
//! The published game (The Op, 2022) gives the counts (120 movement cards, 30 molehill pieces per colour, one
//! rock token, one rock die) and the height limit by round; it does not publish the card list, the rock die's
//! faces or exactly how a mountain topples. Those are designed here and explained in `docs/rules/molehills.md`
//! (GAPS.md 001 questions 4, 10, 11, 16 and 17).

use serde::{Deserialize, Serialize};

/// Rounds in a game.
pub const ROUNDS: u8 = 6;

/// Movement cards dealt face up per player at the start of each round.
pub const CARDS_DEALT_PER_PLAYER: usize = 5;

/// Cards each player drafts and programs each round.
pub const HAND_SIZE: usize = 4;

/// Molehill pieces of each colour (published: 120 pieces, 30 per colour).
pub const PIECES_PER_COLOUR: u8 = 30;

/// The maximum height of a mountain in rounds 1 to 6 (published). A mountain taller than this topples.
pub const MAX_HEIGHT_BY_ROUND: [u8; ROUNDS as usize] = [2, 3, 3, 4, 4, 5];

/// The faces of the rock die: how many spaces (orthogonal steps) from its own mole a player may place the rock.
pub const ROCK_DIE: [u8; 6] = [1, 1, 2, 2, 3, 3];

/// The side of the underground and surface grids for a player count (seed: 4x4 for 2, 6x6 for 3-4; the
/// published game uses a 5x5 part of the 6x6 board at 3, available as an option).
pub fn grid_side(players: u8, three_player_grid: ThreePlayerGrid) -> u8 {
    match (players, three_player_grid) {
        (2, _) => 4,
        (3, ThreePlayerGrid::Published5x5) => 5,
        _ => 6,
    }
}

/// Which grid three players use.
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
    json_write::WriteJson,
)]
pub enum ThreePlayerGrid {
    /// The seed's rule: the 6x6 side, as for four players.
    #[default]
    #[serde(rename = "6x6")]
    Seed6x6,
    /// The published game: a 5x5 part of the 6x6 side.
    #[serde(rename = "5x5")]
    Published5x5,
}

/// A turn printed on a card, relative to the way the mole faces.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
    json_write::WriteJson,
)]
#[serde(rename_all = "snake_case")]
pub enum Turn {
    /// A quarter turn anticlockwise.
    Left,
    /// A quarter turn clockwise.
    Right,
    /// A half turn.
    About,
}

/// A movement card. `steps` are spaces forward, in the direction the mole faces.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
    json_write::WriteJson,
)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Card {
    /// Move forward.
    Move { steps: u8 },
    /// Turn in place.
    Turn { turn: Turn },
    /// Move forward and turn, in the order the player chooses when the card is revealed.
    MoveTurn { steps: u8, turn: Turn },
    /// Roll the rock die and place the rock token.
    Rock,
}

/// Where the pieces of a toppling mountain fall, relative to the direction it falls in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    Ahead,
    Right,
    Behind,
    Left,
}

/// The toppling rule. A mountain taller than the round's limit keeps its base piece; the pieces above it come
/// off top first and are dealt one at a time onto the adjacent spaces in this order (and round again), starting
/// from the direction of the fall. Spaces that have already toppled in the same landslide are skipped; a piece
/// dealt towards the outside of the board falls off and goes back to its owner's supply. Every mountain that
/// then exceeds the limit topples in turn, falling away from the mountain that fell on it.
pub const TOPPLE_DEAL_ORDER: [Side; 4] = [Side::Ahead, Side::Right, Side::Behind, Side::Left];

/// The movement deck: each card with its number of copies. 120 cards (5 per player x 4 players x 6 rounds).
pub const DECK: [(Card, u8); 11] = [
    (Card::Move { steps: 1 }, 24),
    (Card::Move { steps: 2 }, 22),
    (Card::Move { steps: 3 }, 12),
    (Card::Turn { turn: Turn::Left }, 10),
    (Card::Turn { turn: Turn::Right }, 10),
    (Card::Turn { turn: Turn::About }, 6),
    (
        Card::MoveTurn {
            steps: 1,
            turn: Turn::Left,
        },
        8,
    ),
    (
        Card::MoveTurn {
            steps: 1,
            turn: Turn::Right,
        },
        8,
    ),
    (
        Card::MoveTurn {
            steps: 2,
            turn: Turn::Left,
        },
        6,
    ),
    (
        Card::MoveTurn {
            steps: 2,
            turn: Turn::Right,
        },
        6,
    ),
    (Card::Rock, 8),
];

/// The deck expanded card by card; a card's identity is its index here.
pub fn deck_cards() -> Vec<Card> {
    DECK.iter()
        .flat_map(|(card, copies)| std::iter::repeat_n(*card, *copies as usize))
        .collect()
}
