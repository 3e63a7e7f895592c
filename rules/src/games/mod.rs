pub mod hickory;
pub mod hide_and_eeek;
pub mod new_year_puzzle;
