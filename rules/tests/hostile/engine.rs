//! Hostile actions against every engine, driven by a byte string (shared by `rules/tests/hostile.rs`, which feeds
//! it random bytes through proptest, and the `engine_actions` fuzz target in `fuzz/`, which feeds it libFuzzer's).
//!
//! [`run`] picks a game from the registry, a table size, options and a seed, plays a prefix of listed actions
//! chosen by the bytes to reach an arbitrary state, then sends arbitrary JSON values from arbitrary actors as text through
//! [`AnyGame::apply`] (the server's path) and checks the engine contract at the JSON boundary the server uses:
//!
//! - nothing panics (setup, apply, views, legal actions, deadlines, outcomes);
//! - a refused action changes nothing: the full state (hidden information included) is identical before and after;
//! - an accepted action from a seat is one of that seat's listed legal actions: applying it has exactly the effect
//!   of applying some listed action (same full state after); from the clock, it is the due deadline's action;
//! - every listed legal action is accepted, and the deadline's action is accepted once due;
//! - the action text [`AnyGame::apply`] returns for the log replays to the same state.
//!
//! The file is plain Rust with no dependencies beyond `rules` and `serde_json`, included with `#[path]` by both.
//! Nothing in it names a game: games, tables, options and action field names come from the registry.

#![allow(dead_code)]

use std::collections::BTreeSet;
use std::sync::OnceLock;

use rules::testkit::Parsed;
use rules::{Actor, AnyGame, Millis, Seat, Status, Viewer, model::OptionKind};
use serde_json::{Map, Value, json};

/// Reads choices from the input; past its end every read is zero, so any input is a complete run.
pub struct Bytes<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Bytes<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Bytes { data, pos: 0 }
    }
    pub fn is_empty(&self) -> bool {
        self.pos >= self.data.len()
    }
    pub fn byte(&mut self) -> u8 {
        let b = self.data.get(self.pos).copied().unwrap_or(0);
        self.pos += 1;
        b
    }
    pub fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.byte(), self.byte()])
    }
    pub fn u64(&mut self) -> u64 {
        let mut x = [0u8; 8];
        for b in &mut x {
            *b = self.byte();
        }
        u64::from_le_bytes(x)
    }
    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        if n <= 256 {
            self.byte() as usize % n
        } else {
            self.u16() as usize % n
        }
    }
    pub fn pick<'v, T>(&mut self, items: &'v [T]) -> Option<&'v T> {
        if items.is_empty() {
            None
        } else {
            Some(&items[self.below(items.len())])
        }
    }
}

/// The most actions the prefix plays, and the most hostile probes per run (keeps each run fast).
const MAX_PREFIX: usize = 600;
const MAX_PROBES: usize = 48;
/// Nesting of generated values; deeper frames are refused by the server's JSON reader before they reach an engine
/// (serde_json's recursion limit of 128), which `protocol/tests/hostile.rs` checks.
const MAX_DEPTH: usize = 100;

fn state_of(game: &AnyGame) -> String {
    game.full_state()
}

/// Options for a game: usually valid values from its option specs, sometimes out of range or of the wrong type or
/// unknown keys. Returns the options and whether they are valid by construction.
fn options(info: &rules::GameInfo, b: &mut Bytes) -> (Value, bool) {
    let mut map = Map::new();
    let mut valid = true;
    for spec in &info.options {
        match b.byte() % 8 {
            0 => {} // left to its default
            1 => {
                map.insert(spec.key.to_string(), hostile_scalar(b));
                valid = false;
            }
            _ => {
                let v = match &spec.kind {
                    OptionKind::Integer { min, max, .. } => {
                        let span = (max - min) as u64 + 1;
                        json!(min + (b.u64() % span) as i64)
                    }
                    OptionKind::Boolean { .. } => json!(b.byte().is_multiple_of(2)),
                    OptionKind::Choice { values, .. } => json!(b.pick(values).copied().unwrap_or_default()),
                };
                map.insert(spec.key.to_string(), v);
            }
        }
    }
    if b.byte().is_multiple_of(16) {
        map.insert("no_such_option".into(), json!(1));
        valid = false;
    }
    let options = match b.byte() % 32 {
        0 => {
            valid = false;
            hostile_value(b, 0)
        }
        1 => Value::Null,
        _ => Value::Object(map),
    };
    (options, valid)
}

/// A scalar chosen to break parsers: huge, negative, fractional, wrong types.
pub fn hostile_scalar(b: &mut Bytes) -> Value {
    match b.byte() % 20 {
        0 => json!(u64::MAX),
        1 => json!(i64::MIN),
        2 => json!(-1),
        3 => json!(0),
        4 => json!(1.5),
        5 => json!(1e300),
        6 => json!(-0.0),
        7 => json!(256),
        8 => json!(65536),
        9 => json!(""),
        10 => json!("\u{0}\u{feff}é☃"),
        11 => Value::Null,
        12 => json!(true),
        13 => json!([]),
        14 => json!({}),
        15 => json!((b.byte() as i64) - 8),
        16 => json!(b.u64()),
        17 => json!(b.byte().to_string()),
        18 => json!("x".repeat(b.below(64))),
        _ => json!(b.byte() % 12),
    }
}

/// An arbitrary JSON value (depth-bounded), sometimes a deep nest of arrays.
pub fn hostile_value(b: &mut Bytes, depth: usize) -> Value {
    if depth >= MAX_DEPTH || b.is_empty() {
        return hostile_scalar(b);
    }
    match b.byte() % 8 {
        0 => {
            let n = b.below(5);
            Value::Array((0..n).map(|_| hostile_value(b, depth + 1)).collect())
        }
        1 => {
            let n = b.below(5);
            let mut m = Map::new();
            for _ in 0..n {
                let key = match b.byte() % 4 {
                    0 => "type".to_string(),
                    1 => format!("k{}", b.byte() % 4),
                    _ => action_key(b),
                };
                m.insert(key, hostile_value(b, depth + 1));
            }
            Value::Object(m)
        }
        2 => {
            let depth = MAX_DEPTH - depth;
            let mut v = hostile_scalar(b);
            for _ in 0..b.below(depth) {
                v = Value::Array(vec![v]);
            }
            v
        }
        _ => hostile_scalar(b),
    }
}

/// Field names that occur in the games' actions, so that random objects often get past the first field: every
/// property name of every registered game's action schema (`rules::schemas`), found once.
pub fn action_keys() -> &'static [String] {
    static KEYS: OnceLock<Vec<String>> = OnceLock::new();
    KEYS.get_or_init(|| {
        fn collect(schema: &Value, keys: &mut BTreeSet<String>) {
            match schema {
                Value::Object(m) => {
                    if let Some(Value::Object(properties)) = m.get("properties") {
                        keys.extend(properties.keys().cloned());
                    }
                    m.values().for_each(|v| collect(v, keys));
                }
                Value::Array(items) => items.iter().for_each(|v| collect(v, keys)),
                _ => {}
            }
        }
        let mut keys = BTreeSet::from(["type".to_string()]);
        for game in rules::schemas() {
            collect(
                &serde_json::to_value(&game.action).expect("a schema is JSON"),
                &mut keys,
            );
        }
        keys.into_iter().collect()
    })
}

/// One of [`action_keys`].
fn action_key(b: &mut Bytes) -> String {
    let keys = action_keys();
    keys[b.below(keys.len())].clone()
}

/// A variation of a real action: a field dropped, replaced, added, retyped, or the action wrapped or mixed with
/// another one. Most of these are refused; the few that are accepted must act like a listed action.
fn mutate(action: &Value, others: &[Value], b: &mut Bytes) -> Value {
    let mut a = action.clone();
    for _ in 0..=b.below(3) {
        match (b.byte() % 10, &mut a) {
            (0, Value::Object(m)) if !m.is_empty() => {
                let k = m.keys().nth(b.below(m.len())).cloned().unwrap();
                m.remove(&k);
            }
            (1..=3, Value::Object(m)) if !m.is_empty() => {
                let k = m.keys().nth(b.below(m.len())).cloned().unwrap();
                let v = m.get_mut(&k).unwrap();
                *v = mutate_inner(v, b);
            }
            (4, Value::Object(m)) => {
                let k = action_key(b);
                m.insert(k, hostile_value(b, 1));
            }
            (5, Value::Object(m)) => {
                if let Some(Value::Object(o)) = b.pick(others) {
                    for (k, v) in o {
                        if b.byte().is_multiple_of(2) {
                            m.insert(k.clone(), v.clone());
                        }
                    }
                }
            }
            (6, _) => a = Value::Array(vec![a.clone()]),
            (7, Value::Object(m)) => {
                m.insert("type".into(), hostile_scalar(b));
            }
            (8, _) => a = hostile_value(b, 0),
            _ => a = mutate_inner(&a, b),
        }
    }
    a
}

fn mutate_inner(v: &Value, b: &mut Bytes) -> Value {
    match v {
        Value::Number(n) => match b.byte() % 6 {
            0 => json!(n.as_i64().unwrap_or(0).wrapping_add(1)),
            1 => json!(n.as_i64().unwrap_or(0).wrapping_sub(1)),
            2 => json!(n.as_f64().unwrap_or(0.0) + 0.5),
            3 => json!(n.to_string()),
            _ => hostile_scalar(b),
        },
        Value::Array(items) if !items.is_empty() && b.byte().is_multiple_of(2) => {
            let mut items = items.clone();
            match b.byte() % 4 {
                0 => {
                    items.pop();
                }
                1 => items.push(items[0].clone()),
                2 => items.reverse(),
                _ => {
                    let i = b.below(items.len());
                    items[i] = mutate_inner(&items[i], b);
                }
            }
            Value::Array(items)
        }
        Value::Object(m) if !m.is_empty() && b.byte().is_multiple_of(2) => {
            let mut m = m.clone();
            let k = m.keys().nth(b.below(m.len())).cloned().unwrap();
            let inner = mutate_inner(&m[&k], b);
            m.insert(k, inner);
            Value::Object(m)
        }
        Value::String(s) if b.byte().is_multiple_of(2) => {
            let mut s = s.clone();
            match b.byte() % 3 {
                0 => s.push('x'),
                1 => s = s.to_uppercase(),
                _ => {
                    s.pop();
                }
            }
            json!(s)
        }
        _ => hostile_scalar(b),
    }
}

/// Applies `action` by `actor` to a copy of `game` as the server does (its text) and checks the contract;
/// returns the copy when accepted.
fn probe(game: &AnyGame, actor: Actor, action: &Value, now: Millis) -> Option<AnyGame> {
    let before = state_of(game);
    let mut copy = game.clone();
    let result = copy.apply(actor, &action.to_string(), now);
    // The text the server keeps in the log must replay to the same state.
    if let Ok(applied) = &result {
        let mut replayed = game.clone();
        replayed
            .replay([(actor, applied.action.get(), now)])
            .unwrap_or_else(|r| {
                panic!(
                    "{}: the kept text {} of {action} is refused: {r}",
                    game.info().id,
                    applied.action
                )
            });
        assert_eq!(
            state_of(&replayed),
            state_of(&copy),
            "{}: the kept text of {action}",
            game.info().id
        );
    }
    match result {
        Err(rejection) => {
            assert!(!rejection.message.is_empty(), "a refusal explains itself");
            assert_eq!(
                state_of(&copy),
                before,
                "{}: refused {action} by {actor:?} changed the state",
                game.info().id
            );
            None
        }
        Ok(applied) => {
            for e in &applied.events {
                serde_json::from_str::<Value>(e.body.get()).expect("events are JSON");
            }
            let after = state_of(&copy);
            let same_as = |listed: &Value| {
                let mut other = game.clone();
                other.apply_value(actor, listed, now).is_ok() && state_of(&other) == after
            };
            match actor {
                Actor::Seat(seat) => {
                    assert!(
                        seat.0 < game.players(),
                        "{}: {seat} past the table played {action}",
                        game.info().id
                    );
                    assert!(
                        game.legal_values(seat).iter().any(same_as),
                        "{}: {action} by {seat} was accepted but acts like none of its listed actions {:?}",
                        game.info().id,
                        game.legal_values(seat)
                    );
                }
                Actor::Clock => {
                    let deadline = game.deadline_value().unwrap_or_else(|| {
                        panic!("{}: the clock played {action} with no deadline", game.info().id)
                    });
                    assert!(
                        deadline.at <= now,
                        "{}: the clock played {action} before its deadline",
                        game.info().id
                    );
                    assert!(
                        same_as(&deadline.action),
                        "{}: the clock played {action}, not its deadline's action {}",
                        game.info().id,
                        deadline.action
                    );
                }
            }
            Some(copy)
        }
    }
}

/// Everything a server asks of a game in any state: none of it may panic.
fn observe(game: &AnyGame) {
    let players = game.players();
    for viewer in Seat::all(players).map(Viewer::Seat).chain([Viewer::Spectator]) {
        serde_json::to_string(&game.view_value(viewer)).expect("views serialise");
    }
    for seat in Seat::all(players) {
        game.legal_values(seat);
    }
    game.deadline();
    match game.status() {
        Status::Over => assert!(game.outcome().is_some(), "over without an outcome"),
        _ => assert!(game.outcome().is_none(), "an outcome before the end"),
    }
}

/// Every listed action of every seat is accepted, and so is the deadline's action once due.
fn listed_are_accepted(game: &AnyGame, now: Millis) {
    for seat in Seat::all(game.players()) {
        for action in game.legal_values(seat) {
            let mut copy = game.clone();
            if let Err(r) = copy.apply_value(Actor::Seat(seat), &action, now) {
                panic!("{}: listed {action} of {seat} refused: {r}", game.info().id);
            }
        }
    }
    if let Some(d) = game.deadline_value() {
        let mut copy = game.clone();
        if let Err(r) = copy.apply_value(Actor::Clock, &d.action, now.max(d.at)) {
            panic!(
                "{}: due deadline action {} refused: {r}",
                game.info().id,
                d.action
            );
        }
    }
}

/// One run: see the module documentation.
pub fn run(data: &[u8]) {
    let mut b = Bytes::new(data);
    let catalogue = rules::catalogue();
    let info = catalogue[b.below(catalogue.len())].clone();
    let (players, players_valid) = if b.byte().is_multiple_of(16) {
        let p = b.byte();
        (p, (info.min_players..=info.max_players).contains(&p))
    } else {
        let span = (info.max_players - info.min_players + 1) as usize;
        (info.min_players + b.below(span) as u8, true)
    };
    let (config, config_valid) = options(&info, &mut b);
    let seed = b.u64();
    let mut game = match AnyGame::new(info.id, None, &config, players, seed) {
        Ok(game) => game,
        Err(e) => {
            assert!(
                !(players_valid && config_valid),
                "{}: valid setup ({players} players, {config}) refused: {e}",
                info.id
            );
            return;
        }
    };
    if players_valid && config_valid {
        let normalised = rules::normalise_config(info.id, &config).expect("valid options normalise");
        let again =
            AnyGame::new(info.id, None, &normalised, players, seed).expect("normalised options set up");
        assert_eq!(
            state_of(&again),
            state_of(&game),
            "normalised options set up another game"
        );
    }
    observe(&game);

    // A prefix of listed actions (and due deadlines) to reach an arbitrary state.
    let mut now: Millis = 1_700_000_000_000;
    let prefix = b.below(MAX_PREFIX + 1);
    for _ in 0..prefix {
        if game.status() == Status::Over {
            break;
        }
        let movers: Vec<(Seat, Vec<Value>)> = Seat::all(players)
            .map(|s| (s, game.legal_values(s)))
            .filter(|(_, a)| !a.is_empty())
            .collect();
        let deadline = game.deadline_value();
        now += b.byte() as Millis * 50;
        let (actor, action) = match (&deadline, movers.is_empty()) {
            (Some(d), true) => (Actor::Clock, d.action.clone()),
            (Some(d), false) if b.byte().is_multiple_of(4) => (Actor::Clock, d.action.clone()),
            (None, true) => panic!("{}: nobody can act and no deadline", info.id),
            _ => {
                let (seat, actions) = &movers[b.below(movers.len())];
                (Actor::Seat(*seat), actions[b.below(actions.len())].clone())
            }
        };
        if actor == Actor::Clock {
            now = now.max(deadline.as_ref().unwrap().at);
        }
        if let Err(r) = game.apply_value(actor, &action, now) {
            panic!("{}: listed {action} of {actor:?} refused: {r}", info.id);
        }
    }
    observe(&game);

    // Hostile probes from here; an accepted one sometimes becomes the new state, so probes walk on.
    for _ in 0..MAX_PROBES {
        if b.is_empty() {
            break;
        }
        let mut listed: Vec<Value> = Seat::all(players).flat_map(|s| game.legal_values(s)).collect();
        if let Some(d) = game.deadline_value() {
            listed.push(d.action);
        }
        let actor = match b.byte() % 8 {
            0 => Actor::Clock,
            1 => Actor::Seat(Seat(b.byte())),
            _ => Actor::Seat(Seat(b.byte() % players.max(1))),
        };
        let action = match (b.byte() % 6, b.pick(&listed).cloned()) {
            (0, _) | (_, None) => hostile_value(&mut b, 0),
            (1, Some(a)) => a,
            (_, Some(a)) => mutate(&a, &listed, &mut b),
        };
        // Time only moves forward, as the server's clock does.
        let at = match b.byte() % 4 {
            0 => now,
            1 => game.deadline().map_or(now, |d| d.at.max(now)),
            2 => game.deadline().map_or(now, |d| d.at.saturating_sub(1).max(now)),
            _ => now + b.u16() as Millis,
        };
        if let Some(next) = probe(&game, actor, &action, at)
            && b.byte().is_multiple_of(2)
        {
            game = next;
            now = now.max(at);
            observe(&game);
        }
        if b.byte().is_multiple_of(8) {
            listed_are_accepted(&game, now);
        }
    }
    listed_are_accepted(&game, now);
}
