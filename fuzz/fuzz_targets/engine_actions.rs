//! Arbitrary JSON actions from arbitrary actors at arbitrary states of every engine in the registry. The driver
//! and its checks live in `rules/tests/hostile/engine.rs` (also run by proptest in `cargo test`).

#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../rules/tests/hostile/engine.rs"]
mod engine;

fuzz_target!(|data: &[u8]| {
    engine::run(data);
});
