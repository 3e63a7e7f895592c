pub mod hide_and_eeek;
pub mod molehills;
