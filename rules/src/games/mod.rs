pub mod hide_and_eeek;
pub mod quacks;
