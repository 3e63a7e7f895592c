//! Every component of Hide and Eeek! as data, named as the game names them. `docs/rules/hide-and-eeek.md`
//! explains each choice and the GAPS.md question it answers.

use serde::{Deserialize, Serialize};

/// The elephant cards are numbered 1 to 100.
pub const FIRST_CARD: u8 = 1;
pub const LAST_CARD: u8 = 100;
pub const CARD_COUNT: usize = 100;

/// The grid is 6 by 6.
pub const GRID_SIZE: u8 = 6;
pub const GRID_CELLS: usize = (GRID_SIZE as usize) * (GRID_SIZE as usize);

/// The cards that show the hidden mouse (GAPS 003 Q15: the published list is unknown; ten cards spread over the
/// range, so that about one grid in four holds one at the start).
pub const EEEK_CARDS: [u8; 10] = [7, 18, 26, 33, 44, 51, 64, 72, 89, 96];

/// The central cards the mouse figure may start on (GAPS Q4): row and column 2 or 3 (0-based).
pub const CENTRE: [(u8, u8); 4] = [(2, 2), (2, 3), (3, 2), (3, 3)];

/// Which way the arrow on the movement die points: up leaves or places cards face up, down face down.
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
pub enum Arrow {
    Up,
    Down,
}

/// One face of the movement die: a number of steps on an arrow (GAPS Q2).
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
pub struct MovementFace {
    pub steps: u8,
    pub arrow: Arrow,
}

/// The movement die: 1 to 6, the arrows alternating so that each direction comes up half the time and across
/// short and long moves alike.
pub const MOVEMENT_DIE: [MovementFace; 6] = [
    MovementFace {
        steps: 1,
        arrow: Arrow::Up,
    },
    MovementFace {
        steps: 2,
        arrow: Arrow::Down,
    },
    MovementFace {
        steps: 3,
        arrow: Arrow::Up,
    },
    MovementFace {
        steps: 4,
        arrow: Arrow::Down,
    },
    MovementFace {
        steps: 5,
        arrow: Arrow::Up,
    },
    MovementFace {
        steps: 6,
        arrow: Arrow::Down,
    },
];

/// A face of the category die.
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
pub enum Category {
    Higher,
    Lower,
    Odd,
    Even,
}

/// The category die (GAPS Q3): six faces, higher and lower twice each, odd and even once. Higher/lower is the
/// game's signature push-your-luck test and chains from card to card; odd/even is the breather.
pub const CATEGORY_DIE: [Category; 6] = [
    Category::Higher,
    Category::Lower,
    Category::Odd,
    Category::Even,
    Category::Higher,
    Category::Lower,
];

/// Player counts (GAPS Q1, as published).
pub const MIN_PLAYERS: u8 = 2;
pub const MAX_PLAYERS: u8 = 6;

/// Cards needed to win (GAPS Q21): the published 10 by default, any of these by option.
pub const DEFAULT_TARGET: u8 = 10;
pub const MIN_TARGET: u8 = 3;
pub const MAX_TARGET: u8 = 20;

/// How long every player has to claim a newly revealed mouse before play goes on (GAPS Q17), in milliseconds.
pub const DEFAULT_CLAIM_WINDOW_MS: u32 = 4_000;
pub const MIN_CLAIM_WINDOW_MS: u32 = 1_000;
pub const MAX_CLAIM_WINDOW_MS: u32 = 30_000;

/// Rules version 3: the human floor of a reaction (issue 43 point 2), in milliseconds. A reaction judged faster
/// counts as the floor, so a program gains nothing over the quickest person; equal judged reactions are drawn.
/// About the quickest reaction to a sight that a person has; 0 switches the floor off.
pub const DEFAULT_REACTION_FLOOR_MS: u32 = 150;
pub const MIN_REACTION_FLOOR_MS: u32 = 0;
pub const MAX_REACTION_FLOOR_MS: u32 = 500;

/// Rules version 3: how long the window opened by a late claim (a claim on a card already face up, outside any
/// window) stays open for the other seats, in milliseconds: long enough for a claim sent at about the same moment
/// to arrive from across the world, too short to be a fresh look at the card.
pub const LATE_WINDOW_MS: u32 = 1_000;

/// Whether a card shows the hidden mouse.
pub fn shows_mouse(card: u8) -> bool {
    EEEK_CARDS.contains(&card)
}

impl Category {
    /// Whether `card` satisfies this category, compared with `baseline` (the top of the scoring pile, or the last
    /// card chosen this turn) for higher and lower.
    pub fn accepts(self, card: u8, baseline: u8) -> bool {
        match self {
            Category::Higher => card > baseline,
            Category::Lower => card < baseline,
            Category::Odd => card % 2 == 1,
            Category::Even => card.is_multiple_of(2),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn components_are_consistent() {
        assert_eq!(CARD_COUNT, (LAST_CARD - FIRST_CARD + 1) as usize);
        assert!(EEEK_CARDS.iter().all(|c| (FIRST_CARD..=LAST_CARD).contains(c)));
        let mut unique = EEEK_CARDS.to_vec();
        unique.dedup();
        assert_eq!(unique.len(), EEEK_CARDS.len());
        assert_eq!(MOVEMENT_DIE.iter().filter(|f| f.arrow == Arrow::Up).count(), 3);
        assert!(MOVEMENT_DIE.iter().all(|f| (1..=6).contains(&f.steps)));
        // 36 on the grid, one per player, and enough left to refill.
        assert!(GRID_CELLS + MAX_PLAYERS as usize <= CARD_COUNT);
    }

    #[test]
    fn the_seed_examples_of_the_category_die() {
        // "say you have a 46 on top of your scoring pile and you roll higher": 47 keeps, 45 loses.
        assert!(Category::Higher.accepts(47, 46));
        assert!(!Category::Higher.accepts(45, 46));
        assert!(Category::Lower.accepts(45, 46));
        // "if the category die shows odd and the number on the card you reveal is 37, you may take it".
        assert!(Category::Odd.accepts(37, 46));
        assert!(!Category::Even.accepts(37, 46));
    }
}
