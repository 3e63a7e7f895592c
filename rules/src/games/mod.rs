pub mod hide_and_eeek;
