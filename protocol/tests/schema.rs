//! The committed schemas under `docs/schema/` are exactly what the code generates, and they describe what the
//! engines really produce. Regenerate with `UPDATE_SCHEMA=1 cargo test -p protocol --test schema --test snapshots`.

use rules::testkit::Parsed;
use std::{collections::BTreeSet, path::PathBuf};

use rules::{Actor, AnyGame, Seat, Status, Viewer};
use serde_json::Value;

fn docs_schema() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../docs/schema")
}

fn updating() -> bool {
    std::env::var_os("UPDATE_SCHEMA").is_some()
}

/// Every generated file matches its committed copy, and no committed schema is left over from a removed type.
#[test]
fn committed_schemas_are_up_to_date() {
    let root = docs_schema();
    let files = protocol::schema::files();
    let mut stale = Vec::new();
    for (path, content) in &files {
        let full = root.join(path);
        let committed = std::fs::read_to_string(&full).unwrap_or_default();
        if committed != *content {
            if updating() {
                std::fs::create_dir_all(full.parent().unwrap()).unwrap();
                std::fs::write(&full, content).unwrap();
            } else {
                stale.push(path.clone());
            }
        }
    }
    // Leftovers: schema files under docs/schema/games that are no longer generated.
    let expected: BTreeSet<PathBuf> = files.iter().map(|(p, _)| root.join(p)).collect();
    let mut leftovers = Vec::new();
    let games_dir = root.join("games");
    if let Ok(dirs) = std::fs::read_dir(&games_dir) {
        for dir in dirs.flatten() {
            for file in std::fs::read_dir(dir.path()).into_iter().flatten().flatten() {
                if !expected.contains(&file.path()) {
                    leftovers.push(file.path());
                }
            }
        }
    }
    if updating() {
        for path in &leftovers {
            std::fs::remove_file(path).unwrap();
        }
        leftovers.clear();
    }
    assert!(
        stale.is_empty() && leftovers.is_empty(),
        "the committed schemas under docs/schema/ are stale: {stale:?}, left over: {leftovers:?}\n\
         regenerate them with:\n    {}\n",
        protocol::schema::REGENERATE
    );
}

/// The served document and the committed files are the same schemas, and every schema compiles.
#[test]
fn the_document_holds_every_file_and_every_schema_compiles() {
    let doc = protocol::schema::document();
    assert_eq!(doc["protocol_version"], protocol::PROTOCOL_VERSION);
    let games: Vec<&str> = rules::catalogue().iter().map(|g| g.id).collect();
    assert_eq!(
        doc["games"]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect::<BTreeSet<_>>(),
        games.iter().copied().collect::<BTreeSet<_>>()
    );
    for (path, content) in protocol::schema::files() {
        if path == "asyncapi.json" {
            continue;
        }
        let schema: Value = serde_json::from_str(&content).unwrap();
        jsonschema::validator_for(&schema).unwrap_or_else(|e| panic!("{path}: {e}"));
        let pointer = match path.strip_prefix("games/") {
            Some(rest) => format!("/games/{}", rest.trim_end_matches(".json")),
            None => format!("/{}", path.trim_end_matches(".json")),
        };
        assert_eq!(doc.pointer(&pointer), Some(&schema), "{path}");
    }
}

/// A tiny deterministic generator for the playouts below (the engines have their own; this only picks).
struct Pick(u64);
impl Pick {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

fn check(validator: &jsonschema::Validator, value: &Value, what: &str) {
    if let Err(e) = validator.validate(value) {
        panic!("{what} does not match its schema: {e}\n{value}");
    }
}

/// Random matches of every game at every seat count: every normalised configuration, legal action, view (each
/// seat's and the spectator's) and event the engine produces matches that game's schema. A schema that is too
/// strict, or a type whose schema forgot a field, fails here. (About 5 s of CPU in a debug build.)
#[test]
fn every_game_produces_values_its_schema_accepts() {
    for game in rules::schemas() {
        let compile = |schema: &schemars::Schema| jsonschema::validator_for(schema.as_value()).unwrap();
        let (config_v, action_v, view_v, event_v) = (
            compile(&game.config),
            compile(&game.action),
            compile(&game.view),
            compile(&game.event),
        );
        let info = rules::catalogue().into_iter().find(|g| g.id == game.id).unwrap();
        let config = rules::normalise_config(game.id, &Value::Null).unwrap();
        check(&config_v, &config, "the default configuration");
        for players in info.min_players..=info.max_players {
            for seed in 0..2u64 {
                let mut pick = Pick(0x9e37_79b9_7f4a_7c15 ^ ((seed + 1) * 7919 + players as u64));
                let mut state = AnyGame::new(game.id, None, &config, players, seed).unwrap();
                let mut now = 1_000_000u64;
                let mut seen_events = 0;
                for _ in 0..3000 {
                    for viewer in Seat::all(players).map(Viewer::Seat).chain([Viewer::Spectator]) {
                        check(
                            &view_v,
                            &state.view_value(viewer),
                            &format!("{} view for {viewer:?}", game.id),
                        );
                    }
                    if state.status() == Status::Over {
                        break;
                    }
                    let mut choices = Vec::new();
                    for seat in Seat::all(players) {
                        for action in state.legal_values(seat) {
                            check(&action_v, &action, &format!("{} legal action", game.id));
                            choices.push((Actor::Seat(seat), action));
                        }
                    }
                    if choices.is_empty() {
                        let deadline = state
                            .deadline_value()
                            .expect("no action and no deadline: stalled");
                        now = now.max(deadline.at);
                        check(
                            &action_v,
                            &deadline.action,
                            &format!("{} deadline action", game.id),
                        );
                        choices.push((Actor::Clock, deadline.action));
                    }
                    let (actor, action) = choices.swap_remove(pick.below(choices.len()));
                    now += 10;
                    let events = state.apply_value(actor, &action, now).unwrap();
                    for event in &events {
                        check(&event_v, &event.body, &format!("{} event", game.id));
                    }
                    seen_events += events.len();
                }
                assert!(seen_events > 0, "{}: no events checked", game.id);
            }
        }
    }
}

/// Every `$ref` of the AsyncAPI document points at something in it, and its payloads are the same messages as the
/// JSON Schemas describe: each documented example validates against them.
#[test]
fn the_asyncapi_document_is_self_contained() {
    let doc = protocol::schema::asyncapi();
    fn refs<'a>(value: &'a Value, out: &mut Vec<&'a str>) {
        match value {
            Value::Object(map) => {
                if let Some(Value::String(r)) = map.get("$ref") {
                    out.push(r);
                }
                map.values().for_each(|v| refs(v, out));
            }
            Value::Array(items) => items.iter().for_each(|v| refs(v, out)),
            _ => {}
        }
    }
    let mut found = Vec::new();
    refs(&doc, &mut found);
    assert!(found.len() > 10);
    for r in found {
        let pointer = r.strip_prefix('#').unwrap_or_else(|| panic!("external $ref {r}"));
        assert!(doc.pointer(pointer).is_some(), "dangling $ref {r}");
    }
    assert_eq!(doc["asyncapi"], "3.0.0");
    // The payloads, with the document as their root, accept the committed examples.
    for (message, prefix) in [("clientMessage", "request."), ("serverMessage", "reply.")] {
        let mut schema = doc.clone();
        let payload = doc["components"]["messages"][message]["payload"].clone();
        schema
            .as_object_mut()
            .unwrap()
            .extend(payload.as_object().unwrap().clone());
        schema["$schema"] = "http://json-schema.org/draft-07/schema#".into();
        let validator = jsonschema::validator_for(&schema).unwrap();
        let dir = docs_schema().join("examples");
        let mut checked = 0;
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let push = name.starts_with("push.") && message == "serverMessage";
            if name.starts_with(prefix) || push {
                let example: Value =
                    serde_json::from_str(&std::fs::read_to_string(entry.path()).unwrap()).unwrap();
                if let Err(e) = validator.validate(&example) {
                    panic!("{name} does not match the AsyncAPI {message} payload: {e}");
                }
                checked += 1;
            }
        }
        assert!(checked >= 8, "{message}: {checked} examples");
    }
}

/// Whether the server accepts `options` for a lobby of `game`: the checks `create_lobby` and `configure_lobby`
/// make (`normalise_config`, then setting the game up once at each seat count).
fn server_accepts(game: &rules::GameInfo, options: &Value) -> bool {
    let Ok(normalised) = rules::normalise_config(game.id, options) else {
        return false;
    };
    (game.min_players..=game.max_players)
        .all(|players| AnyGame::new(game.id, None, &normalised, players, 0).is_ok())
}

/// Each game's options schema says what the game accepts: every integer option is probed at its schema's
/// `minimum - 1`, `minimum`, `maximum` and `maximum + 1` (and every boolean and listed choice, and a value
/// outside them) through the real option checks, and the schema accepts exactly what they accept. Each
/// schema `default` is the value the game fills in.
#[test]
fn option_schemas_carry_the_ranges_the_games_accept() {
    let mut probed = 0;
    for (schemas, game) in rules::schemas().into_iter().zip(rules::catalogue()) {
        assert_eq!(schemas.id, game.id);
        let validator = jsonschema::validator_for(schemas.config.as_value()).unwrap();
        let defaults = rules::normalise_config(game.id, &Value::Null).unwrap();
        let properties = schemas.config.as_value()["properties"]
            .as_object()
            .cloned()
            .unwrap_or_default();
        assert_eq!(properties.len(), game.options.len(), "{}", game.id);
        for (key, property) in &properties {
            assert_eq!(
                property.get("default"),
                defaults.get(key),
                "{} {key}: the schema's default",
                game.id
            );
            let mut values: Vec<Value> = Vec::new();
            match property["type"].as_str() {
                Some("integer") => {
                    let (min, max) = (
                        property["minimum"].as_i64().unwrap(),
                        property["maximum"].as_i64().unwrap(),
                    );
                    assert!(min <= max, "{} {key}", game.id);
                    values.extend([min - 1, min, max, max + 1].map(Value::from));
                }
                Some("boolean") => values.extend([true.into(), false.into(), "yes".into()]),
                _ => {
                    // A choice: each listed value, and one that is not.
                    let spec = game.options.iter().find(|o| o.key == key).unwrap();
                    let rules::OptionKind::Choice { values: choices, .. } = &spec.kind else {
                        panic!("{} {key}: an option of an unexpected kind: {property}", game.id);
                    };
                    values.extend(choices.iter().map(|c| Value::from(*c)));
                    values.push("no such choice".into());
                }
            }
            for value in values {
                let options = serde_json::json!({ key: value });
                assert_eq!(
                    validator.is_valid(&options),
                    server_accepts(&game, &options),
                    "{}: the schema and the server disagree about {options}",
                    game.id
                );
                probed += 1;
            }
        }
    }
    // Hide and Eeek!'s two integers (4 probes each), Quacks' boolean (3), two choices of two (3 each).
    assert!(probed >= 17, "{probed} probes");
}
