//! `sqlx::migrate!` embeds the migration files at compile time but, on stable Rust, cannot tell Cargo to watch
//! them: without this, adding a migration leaves an incremental build with the old set (seen when
//! `0006_drop_lobbies_by_phase.sql` was added and the release binary did not change).
fn main() {
    println!("cargo:rerun-if-changed=../migrations");
}
