//! Golden replays: one whole recorded game per registered game and rules version, in
//! `rules/tests/golden/<game>.v<rules_version>.json` (options, table size, seed, the action log with each
//! action's actor and time, the outcome and a fingerprint of the final full state). Each is replayed under the
//! rules version it was recorded with (`AnyGame::new` at that version, then `AnyGame::replay`), as the server replays a stored match under the
//! version it started with; the final state must have the same fingerprint.
//!
//! A changed fingerprint means the rules changed: matches stored under that version would replay differently.
//! Then bump `rules_version` in the game's `info()`, keep the old behaviour for matches of the old version (see
//! `rules::Game::new_at`), and record the new version's game with
//!
//! ```text
//! UPDATE_GOLDEN=1 cargo test -p rules --test golden
//! ```
//!
//! which writes only a missing file of each game's CURRENT rules version: no existing file is ever rewritten (to
//! record a version again before any match was stored under it, delete its file first).

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use rules::testkit::Parsed;
use rules::{Actor, AnyGame, Millis, Rng, Seat, SetupError, Status};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One golden file.
#[derive(Debug, Serialize, Deserialize)]
struct Golden {
    game: String,
    rules_version: u32,
    options: Value,
    players: u8,
    seed: u64,
    log: Vec<Logged>,
    outcome: Value,
    /// FNV-1a (64 bits) of the final `AnyGame::full_state()`, in hex.
    fingerprint: String,
}

#[derive(Debug, Serialize, Deserialize)]
struct Logged {
    actor: Actor,
    action: Value,
    at: Millis,
}

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

fn file_name(game: &str, rules_version: u32) -> String {
    format!("{game}.v{rules_version}.json")
}

/// FNV-1a, 64 bits: a fingerprint that needs no dependency.
fn fnv64(text: &str) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in text.bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{hash:016x}")
}

/// Plays a whole game of `game_id` at its current rules version with random legal actions (the clock when
/// nobody else can act, or now and then when due) and records it.
fn record(game_id: &str) -> Golden {
    let info = rules::catalogue()
        .into_iter()
        .find(|i| i.id == game_id)
        .expect("a registered game");
    let players = 3.clamp(info.min_players, info.max_players);
    let seed = 29;
    let options = rules::normalise_config(game_id, &Value::Null).expect("the default options");
    let mut game = AnyGame::new(game_id, None, &options, players, seed).expect("setup");
    let mut driver = Rng::from_seed(2_900 + u64::from(players));
    let mut now: Millis = 1_700_000_000_000;
    let mut log = Vec::new();
    while game.status() != Status::Over {
        assert!(log.len() < 20_000, "{game_id} does not end");
        let movers: Vec<Seat> = Seat::all(players)
            .filter(|s| !game.legal_values(*s).is_empty())
            .collect();
        let deadline = game.deadline_value();
        let clock = match &deadline {
            Some(d) => movers.is_empty() || (d.at <= now && driver.below(2) == 0),
            None => false,
        };
        let (actor, action) = match deadline {
            Some(d) if clock => {
                now = now.max(d.at);
                (Actor::Clock, d.action)
            }
            _ => {
                let seat = movers[driver.index(movers.len())];
                let legal = game.legal_values(seat);
                (Actor::Seat(seat), legal[driver.index(legal.len())].clone())
            }
        };
        game.apply_value(actor, &action, now).expect("a listed action");
        log.push(Logged {
            actor,
            action,
            at: now,
        });
        now += driver.below(2_500);
    }
    Golden {
        game: game_id.to_string(),
        rules_version: info.rules_version,
        options,
        players,
        seed,
        log,
        outcome: serde_json::to_value(game.outcome()).unwrap(),
        fingerprint: fnv64(&game.full_state()),
    }
}

/// The file's text: one member per line, one logged action per line (a diff shows which actions changed).
fn text(golden: &Golden) -> String {
    let mut out = String::from("{\n");
    out += &format!("  \"game\": {},\n", j(&golden.game));
    out += &format!("  \"rules_version\": {},\n", golden.rules_version);
    out += &format!("  \"options\": {},\n", j(&golden.options));
    out += &format!("  \"players\": {},\n", golden.players);
    out += &format!("  \"seed\": {},\n", golden.seed);
    out += "  \"log\": [\n";
    for (i, entry) in golden.log.iter().enumerate() {
        let comma = if i + 1 < golden.log.len() { "," } else { "" };
        out += &format!("    {}{comma}\n", j(entry));
    }
    out += "  ],\n";
    out += &format!("  \"outcome\": {},\n", j(&golden.outcome));
    out += &format!("  \"fingerprint\": {}\n", j(&golden.fingerprint));
    out += "}\n";
    out
}

/// A value as compact JSON text.
fn j<T: Serialize + ?Sized>(value: &T) -> String {
    serde_json::to_string(value).expect("serialises")
}

/// The golden files, once `UPDATE_GOLDEN=1` has written each game's missing file at its current rules version.
fn golden_files() -> &'static Vec<(String, Golden)> {
    static FILES: OnceLock<Vec<(String, Golden)>> = OnceLock::new();
    FILES.get_or_init(|| {
        if std::env::var_os("UPDATE_GOLDEN").is_some_and(|v| v == "1") {
            std::fs::create_dir_all(dir()).unwrap();
            for info in rules::catalogue() {
                // Only the current version's file, and only when it does not exist yet: a recorded version is
                // never rewritten, so a rules change cannot be recorded over the version it changes without a bump.
                let path = dir().join(file_name(info.id, info.rules_version));
                if !path.exists() {
                    std::fs::write(&path, text(&record(info.id))).unwrap();
                }
            }
        }
        let mut files: Vec<(String, Golden)> = std::fs::read_dir(dir())
            .expect("rules/tests/golden/")
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
            .map(|p| {
                let name = p.file_name().unwrap().to_string_lossy().into_owned();
                let golden: Golden = serde_json::from_str(&std::fs::read_to_string(&p).unwrap())
                    .unwrap_or_else(|e| panic!("{name}: {e}"));
                (name, golden)
            })
            .collect();
        files.sort_by(|a, b| a.0.cmp(&b.0));
        files
    })
}

/// Every golden file replays, under the rules version it names, to the state it recorded.
#[test]
fn golden_replays_reproduce_their_final_state_under_their_rules_version() {
    let files = golden_files();
    assert!(!files.is_empty(), "no golden files in {}", dir().display());
    for (name, golden) in files {
        assert_eq!(
            *name,
            file_name(&golden.game, golden.rules_version),
            "a golden file is named after its game and rules version"
        );
        let current = rules::rules_versions(&golden.game)
            .unwrap_or_else(|| panic!("{name}: no game `{}` is registered", golden.game));
        let texts: Vec<String> = golden.log.iter().map(|l| l.action.to_string()).collect();
        let log = golden
            .log
            .iter()
            .zip(&texts)
            .map(|(l, text)| (l.actor, text.as_str(), l.at));
        let rules_changed = format!(
            "{name}: the rules of `{game}` changed: a match of rules version {v} no longer replays to the same \
             state. Bump `rules_version` in the game's `info()` (now {now}), keep the old behaviour for matches \
             of version {v} (`Game::new_at`, `Game::oldest_rules_version`), and record the new version with \
             `UPDATE_GOLDEN=1 cargo test -p rules --test golden`",
            game = golden.game,
            v = golden.rules_version,
            now = current.end(),
        );
        let mut game = match AnyGame::new(
            &golden.game,
            Some(golden.rules_version),
            &golden.options,
            golden.players,
            golden.seed,
        ) {
            Ok(game) => game,
            Err(SetupError::RulesVersion { .. }) if golden.rules_version > *current.end() => {
                panic!(
                    "{name}: rules version {} of `{}` is newer than the engine's ({current:?})",
                    golden.rules_version, golden.game
                )
            }
            Err(SetupError::RulesVersion { .. }) => panic!(
                "{name}: `{}` no longer replays rules version {} (it replays {current:?}): stored matches of that \
                 version could not be loaded. Keep that version, or delete this file if no stored match of it \
                 must replay",
                golden.game, golden.rules_version
            ),
            Err(e) => panic!("{rules_changed} (setup failed: {e})"),
        };
        if let Err(e) = game.replay(log) {
            panic!("{rules_changed} ({e})");
        }
        assert_eq!(
            game.status(),
            Status::Over,
            "{rules_changed} (the game no longer ends)"
        );
        assert_eq!(
            serde_json::to_value(game.outcome()).unwrap(),
            golden.outcome,
            "{rules_changed} (another outcome)"
        );
        assert_eq!(fnv64(&game.full_state()), golden.fingerprint, "{rules_changed}");
    }
}

/// Every registered game has a golden replay at its current rules version (and so one is recorded whenever the
/// version is bumped).
#[test]
fn every_game_has_a_golden_replay_at_its_current_rules_version() {
    let files = golden_files();
    for info in rules::catalogue() {
        let name = file_name(info.id, info.rules_version);
        assert!(
            files.iter().any(|(n, _)| *n == name),
            "no golden replay {name} of `{}` at its rules version {}: record it with \
             `UPDATE_GOLDEN=1 cargo test -p rules --test golden`",
            info.id,
            info.rules_version
        );
    }
}

/// `AnyGame::new` sets up every version an engine replays, the current one when no version is named, and
/// refuses the others with `SetupError::RulesVersion`.
#[test]
fn new_at_accepts_exactly_the_versions_an_engine_replays() {
    for info in rules::catalogue() {
        let versions = rules::rules_versions(info.id).expect("registered");
        assert_eq!(*versions.end(), info.rules_version, "{}", info.id);
        let players = info.min_players;
        for version in versions.clone() {
            AnyGame::new(info.id, Some(version), &Value::Null, players, 3)
                .unwrap_or_else(|e| panic!("{} at version {version}: {e}", info.id));
        }
        let now = AnyGame::new(info.id, Some(info.rules_version), &Value::Null, players, 3).unwrap();
        let new = AnyGame::new(info.id, None, &Value::Null, players, 3).unwrap();
        assert_eq!(now.full_state(), new.full_state(), "{}", info.id);
        for version in [versions.start().wrapping_sub(1), versions.end() + 1] {
            assert!(
                matches!(
                    AnyGame::new(info.id, Some(version), &Value::Null, players, 3),
                    Err(SetupError::RulesVersion { .. })
                ),
                "{} at version {version}",
                info.id
            );
        }
    }
    assert!(matches!(
        AnyGame::new("no_such_game", Some(1), &Value::Null, 2, 3),
        Err(SetupError::UnknownGame(_))
    ));
}
