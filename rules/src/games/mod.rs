//! One module per game.

pub mod hickory;
pub mod hide_and_eeek;
pub mod molehills;
pub mod new_year_puzzle;
pub mod quacks;
