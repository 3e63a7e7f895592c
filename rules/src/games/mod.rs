pub mod hickory;
pub mod hide_and_eeek;
