//! Hidden information at the wire. For every game and table size, a full match between seat clients playing
//! random legal actions, watched by a spectator; every message each seat and the spectator receives (replies,
//! lobby pushes, states) is checked against the truth, rebuilt by replaying the stored seed and action log with
//! `rules::AnyGame` under the match's stored rules version:
//!
//! 1. The server sends each viewer exactly the engine's view for that viewer at that version, that seat's legal
//!    actions only (none to a spectator), and only the events addressed to that viewer.
//! 2. The seed and the random generator's state never appear, as a number or inside a string.
//! 3. No hidden order appears (draw pile, decks, reward pile, a secret plan before its reveal): no array of a
//!    message holds a run of consecutive items of it too unlikely to be a coincidence (see `coincidence`).
//! 4. What the rules (`docs/rules/*.md`) keep from a viewer is absent from that viewer's view: face-down card
//!    numbers, other hands, other bags, looked-at chips and secret commitments.
//!
//! What each game hides is the game's own knowledge (`rules::Secrets`, in `rules/src/games/<game>/secrets.rs`),
//! read here through `AnyGame` (`hidden_orders`, `rng_numbers`, `view_leaks`): nothing in this file names a
//! game. `the_checker_*` unit tests feed deliberately leaky messages to the checker and require it to object;
//! that views do not depend on hidden information (hidden twins) is tested in `rules/tests/secrets.rs`.

use integration_tests::*;
use rules::testkit::Parsed;
use rules::{Actor, AnyGame, Seat, Viewer};
use serde_json::{Value, json};

/// A run shared by a message's array and a hidden order is a leak when a coincidence that long would happen less
/// often than this (see `coincidence`).
const COINCIDENCE: f64 = 1e-9;

/// Everything the checker reads of the truth at one version.
struct Truth<'a> {
    game: &'a AnyGame,
    seed: u64,
}

/// Walks every value of a message.
fn walk<'v>(v: &'v Value, path: &mut Vec<String>, f: &mut dyn FnMut(&[String], &'v Value)) {
    f(path, v);
    match v {
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                path.push(i.to_string());
                walk(item, path, f);
                path.pop();
            }
        }
        Value::Object(map) => {
            for (k, item) in map {
                path.push(k.clone());
                walk(item, path, f);
                path.pop();
            }
        }
        _ => {}
    }
}

/// The longest run `array` shares with `order`, and the chance that a run that likely shows up by coincidence:
/// the number of places it could start in both (`array.len() * order.len()`) times the product, over its items, of
/// each item's share of `order`. Public arrays are often drawn from the same cards as a hidden order (New Year
/// Puzzle's face-up rewards come off the reward pile, 60 cards of a few kinds in rules version 2; Hide and Eeek!'s won piles off the
/// draw pile), so a few common kinds in a row are expected now and then (CI met four of them twice); a leak of an
/// order, even a dozen or so of its items, is below [`COINCIDENCE`]. Short leaks of views are the twin-state test's.
fn coincidence(array: &[Value], order: &[Value]) -> (usize, f64) {
    let share = |item: &Value| order.iter().filter(|o| *o == item).count() as f64 / order.len() as f64;
    let places = (array.len() * order.len()) as f64;
    let mut best = (0, 1.0);
    for i in 0..array.len() {
        for j in 0..order.len() {
            let mut chance = places;
            let mut len = 0;
            while i + len < array.len() && j + len < order.len() && array[i + len] == order[j + len] {
                chance *= share(&order[j + len]);
                len += 1;
            }
            if len > 0 && chance < best.1 {
                best = (len, chance);
            }
        }
    }
    best
}

/// Everything in `message` that `viewer` may not know at the truth's version.
fn leaks(truth: &Truth, viewer: Viewer, message: &Value) -> Vec<String> {
    let mut found = Vec::new();
    let mut secrets: Vec<(String, u64)> = vec![("the seed".into(), truth.seed)];
    secrets.extend(
        truth
            .game
            .secrets()
            .rng_numbers()
            .into_iter()
            .map(|n| ("the RNG state".into(), n)),
    );
    let orders = truth.game.secrets().hidden_orders(viewer);
    walk(message, &mut Vec::new(), &mut |path, v| {
        let at = path.join(".");
        for (what, n) in &secrets {
            let text = n.to_string();
            let hit = match v {
                Value::Number(x) => x.as_u64() == Some(*n) || x.as_f64() == Some(*n as f64),
                Value::String(s) => text.len() >= 6 && (s.contains(&text) || s.contains(&format!("{n:x}"))),
                _ => false,
            };
            if hit {
                found.push(format!("{what} at {at}"));
            }
        }
        if let Value::Array(items) = v {
            for order in &orders {
                let (len, chance) = coincidence(items, &order.items);
                if chance < COINCIDENCE || (order.whole && len == order.items.len()) {
                    found.push(format!(
                        "the {}'s order at {at} ({len} items in a row)",
                        order.name
                    ));
                }
            }
        }
    });
    if message["type"] == "state" {
        found.extend(truth.game.secrets().view_leaks(viewer, &message["view"]));
    }
    found
}

/// The truth at every version: the game after `v` actions and the events action `v` produced.
struct Replay {
    game: String,
    seed: u64,
    states: Vec<AnyGame>,
    events: Vec<Vec<rules::Event<Value>>>,
    /// Who made action `v` and what it was (index 0 unused).
    actors: Vec<Option<Actor>>,
    actions: Vec<Value>,
}

async fn replay(db: &TestDb, code: &str) -> Replay {
    let store = db.store().await;
    let stored = store
        .load_lobby(code)
        .await
        .unwrap()
        .expect("the lobby is stored");
    let record = stored.game.expect("the match is stored").record;
    let log = store.action_log(&record.id).await.unwrap();
    store.close().await;
    let mut game = record.setup().unwrap();
    let mut states = vec![game.clone()];
    let mut events = vec![Vec::new()];
    let (mut actors, mut actions) = (vec![None], vec![Value::Null]);
    for entry in log {
        actors.push(Some(entry.actor));
        actions.push(entry.action.to_value());
        events.push(
            game.apply_value(entry.actor, &entry.action.to_value(), entry.at)
                .unwrap(),
        );
        states.push(game.clone());
    }
    Replay {
        game: record.game,
        seed: record.seed,
        states,
        events,
        actors,
        actions,
    }
}

/// Checks one message a viewer received; returns what is wrong with it.
fn check(replay: &Replay, viewer: Viewer, message: &Value) -> Vec<String> {
    let mut found = Vec::new();
    // A message that is not about the match still must not carry the seed or the RNG (the latest state's).
    let version = if message["type"] == "state" {
        message["version"].as_u64().unwrap() as usize
    } else {
        replay.states.len() - 1
    };
    let game = &replay.states[version];
    let truth = Truth {
        game,
        seed: replay.seed,
    };
    found.extend(leaks(&truth, viewer, message));
    if message["type"] == "state" {
        if message["view"] != game.view_value(viewer) {
            found.push("a view other than the engine's for this viewer".into());
        }
        let legal = match viewer {
            Viewer::Seat(seat) => game.legal_values(seat),
            Viewer::Spectator => Vec::new(),
        };
        if message["legal_actions"] != json!(legal) {
            found.push("legal actions other than this viewer's".into());
        }
        let since = message["since"].as_u64().unwrap() as usize;
        let expected: Vec<Value> = (since + 1..=version)
            .flat_map(|v| replay.events[v].iter())
            .filter(|e| e.audience.includes(viewer))
            .map(|e| e.body.clone())
            .collect();
        if message["events"] != json!(expected) {
            found.push(format!(
                "events other than those addressed to this viewer: {} (expected {})",
                message["events"],
                json!(expected)
            ));
        }
    }
    if message["type"] == "away" {
        found.extend(check_catch_up(replay, viewer, message));
    }
    found
        .into_iter()
        .map(|f| format!("{} v{version} to {viewer:?}: {f}", replay.game))
        .collect()
}

/// An `away` report's catch-up (`moves`): the log's actions after `since`, each with only the events addressed to
/// this viewer, and an action only where the viewer's own seat made it.
fn check_catch_up(replay: &Replay, viewer: Viewer, message: &Value) -> Vec<String> {
    let mut found = Vec::new();
    let (since, version) = (
        message["since"].as_u64().unwrap(),
        message["version"].as_u64().unwrap(),
    );
    let moves = message["moves"].as_array().unwrap();
    let left_out = message["moves_left_out"].as_u64().unwrap();
    let seqs: Vec<u64> = moves.iter().map(|m| m["seq"].as_u64().unwrap()).collect();
    if seqs != (since + 1 + left_out..=version).collect::<Vec<_>>() {
        found.push(format!(
            "catch-up of versions {seqs:?}, not {since} to {version} less {left_out}"
        ));
    }
    for m in moves {
        let v = m["seq"].as_u64().unwrap() as usize;
        let Some(actor) = replay.actors.get(v).copied().flatten() else {
            found.push(format!("catch-up of an action {v} not logged"));
            continue;
        };
        let seat = match actor {
            Actor::Seat(s) => json!(s.0),
            Actor::Clock => Value::Null,
        };
        if m["seat"] != seat {
            found.push(format!("catch-up action {v} by {} not {seat}", m["seat"]));
        }
        let own = matches!((actor, viewer), (Actor::Seat(a), Viewer::Seat(b)) if a == b);
        let action = if own {
            replay.actions[v].clone()
        } else {
            Value::Null
        };
        if m["action"] != action {
            found.push(format!(
                "catch-up action {v}: {} shown, not {action}",
                m["action"]
            ));
        }
        let expected: Vec<Value> = replay.events[v]
            .iter()
            .filter(|e| e.audience.includes(viewer))
            .map(|e| e.body.clone())
            .collect();
        if m["events"] != json!(expected) {
            found.push(format!(
                "catch-up action {v}: events {} other than this viewer's {}",
                m["events"],
                json!(expected)
            ));
        }
    }
    found
}

async fn leak_check_match(server: &TestServer, db: &TestDb, game: &str, seats: u8, seed: u64) -> Vec<String> {
    let (code, mut players) = start_match(server.addr, game, json!({}), seats, seats).await;
    let mut spectator = Client::hello(server.addr).await;
    let r = spectator.request(json!({"type": "spectate", "code": code})).await;
    assert_eq!(r["type"], "spectating", "{r}");
    // The spectator reads on its own task (its pushes must not pile up) until told the last version.
    let (last_tx, mut last_rx) = tokio::sync::oneshot::channel::<u64>();
    let watcher = tokio::spawn(async move {
        let mut seen = Vec::new();
        let mut last: Option<u64> = None;
        let mut latest = 0;
        loop {
            if last.is_some_and(|l| latest >= l) {
                return seen;
            }
            tokio::select! {
                m = spectator.read() => {
                    let m = m.expect("the spectator stays connected");
                    if m["type"] == "state" {
                        latest = m["version"].as_u64().unwrap();
                    }
                    seen.push(m);
                }
                l = &mut last_rx, if last.is_none() => last = Some(l.unwrap()),
            }
        }
    });
    let played = play(&mut players, &Time::Manual(server.clock.clone()), seed, 1_500).await;
    let last = played.last_state["version"].as_u64().unwrap();
    assert_eq!(
        played.last_state["status"]["kind"], "over",
        "{game} {seats}p: a full match"
    );
    last_tx.send(last).unwrap();
    let watched = watcher.await.unwrap();

    let replay = replay(db, &code).await;
    assert_eq!(replay.states.len() as u64, last + 1, "{game}: the stored log");
    let mut found = Vec::new();
    let mut checked = 0;
    for p in &players {
        // Every frame the seat received: replies, lobby pushes and states.
        for m in &p.client.received {
            found.extend(check(&replay, Viewer::Seat(Seat(p.seat)), m));
            checked += 1;
        }
    }
    for m in &watched {
        found.extend(check(&replay, Viewer::Spectator, m));
        checked += 1;
    }
    assert!(checked as u64 > last, "{game}: every version was seen");
    found
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_message_carries_what_its_recipient_may_not_know() {
    for backend in backends() {
        let db = TestDb::new(backend).await;
        let server = TestServer::start(&db, test_config()).await;
        let mut found = Vec::new();
        for info in rules::catalogue() {
            for seats in info.min_players.max(2)..=info.max_players {
                found.extend(leak_check_match(&server, &db, info.id, seats, 7 + seats as u64).await);
            }
        }
        server.stop().await;
        db.drop_db().await;
        let shown: Vec<&String> = found.iter().take(30).collect();
        assert!(found.is_empty(), "{backend}: {} leaks: {shown:#?}", found.len());
    }
}

/// The catch-up (issue 47, point 6): a seat that comes back with an older `last_version` gets every action since
/// then, each as its seat may see it, in games with hidden hands, bags and secret plans.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_catch_up_carries_only_what_the_seat_may_see() {
    for backend in backends() {
        let db = TestDb::new(backend).await;
        let server = TestServer::start(&db, test_config()).await;
        let time = Time::Manual(server.clock.clone());
        let mut found = Vec::new();
        for (game, seed) in [("quacks", 3), ("hide_and_eeek", 4), ("molehills", 5)] {
            let (code, mut players) = start_match(server.addr, game, json!({}), 3, 3).await;
            play_until(&mut players, &time, seed, 1_000, |s| {
                s["version"].as_u64().unwrap() >= 4
            })
            .await;
            let since = players[2].client.state.as_ref().unwrap()["version"]
                .as_u64()
                .unwrap();
            let played = play_until(&mut players, &time, seed + 1, 1_000, |s| {
                s["version"].as_u64().unwrap() >= since + 25
            })
            .await;
            let version = played.last_state["version"].as_u64().unwrap();
            assert!(version > since + 10, "{game}: the match went on");
            // Seat 2 comes back on a new connection (after a reload) from the version it saw then.
            let mut back = server.client().await;
            let token = players[2].token.clone();
            let r = back.request(req::resume_from(&code, &token, since)).await;
            assert_eq!(r["type"], "resumed", "{r}");
            let away = back.wait_push("away", |_| true).await;
            assert_eq!(away["since"], since);
            assert_eq!(away["version"], version, "{game}");
            assert_eq!(
                away["moves"].as_array().unwrap().len() as u64,
                version - since,
                "{game}: {away}"
            );
            let others = away["moves"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|m| m["seat"] != 2)
                .count();
            assert!(others > 0, "{game}: the others' moves are listed too");
            let replay = replay(&db, &code).await;
            found.extend(check(&replay, Viewer::Seat(Seat(2)), &away));
        }
        server.stop().await;
        db.drop_db().await;
        assert!(found.is_empty(), "{backend}: {found:#?}");
    }
}

// --- The checker objects to leaky messages (and accepts honest ones), for every game through its hooks.

const SEED: u64 = 0x5eed_1234_5678_9abc;

/// A game of `id` a few random actions (or due deadlines) in.
fn sample(id: &str, players: u8, steps: usize) -> AnyGame {
    let mut g = AnyGame::new(id, None, &json!({}), players, SEED).unwrap();
    let mut rng = rules::Rng::from_seed(5);
    for _ in 0..steps {
        let movers: Vec<Seat> = Seat::all(players)
            .filter(|s| !g.legal_values(*s).is_empty())
            .collect();
        if movers.is_empty() {
            match g.deadline() {
                Some(d) => {
                    g.apply(Actor::Clock, d.action.get(), d.at).unwrap();
                }
                None => break,
            }
            continue;
        }
        let seat = movers[rng.index(movers.len())];
        let actions = g.legal_values(seat);
        g.apply_value(Actor::Seat(seat), &actions[rng.index(actions.len())], 0)
            .unwrap();
    }
    g
}

/// Samples of every game, a few table sizes and steps in.
fn samples() -> Vec<AnyGame> {
    let mut all = Vec::new();
    for info in rules::catalogue() {
        for players in [info.min_players.max(2), info.max_players] {
            for steps in [0, 3, 10, 20, 40, 120, 300] {
                all.push(sample(info.id, players, steps));
            }
        }
    }
    all
}

fn viewers(g: &AnyGame) -> impl Iterator<Item = Viewer> {
    Seat::all(g.players())
        .map(Viewer::Seat)
        .chain([Viewer::Spectator])
}

fn state_message(g: &AnyGame, viewer: Viewer) -> Value {
    json!({"type": "state", "version": 0, "since": 0, "view": g.view_value(viewer), "legal_actions": [], "events": []})
}

fn leaks_in(g: &AnyGame, seed: u64, viewer: Viewer, message: &Value) -> Vec<String> {
    leaks(&Truth { game: g, seed }, viewer, message)
}

#[test]
fn the_checker_accepts_honest_views_of_every_game() {
    for g in samples() {
        for viewer in viewers(&g) {
            let found = leaks_in(&g, SEED, viewer, &state_message(&g, viewer));
            assert!(found.is_empty(), "{}: {found:?}", g.info().id);
        }
    }
}

#[test]
fn the_checker_finds_the_seed_and_the_rng() {
    let mut rngs = 0;
    for info in rules::catalogue() {
        let g = sample(info.id, info.min_players.max(2), 3);
        let viewer = Viewer::Seat(Seat(0));
        let mut m = state_message(&g, viewer);
        m["view"]["debug"] = json!(SEED);
        assert!(
            !leaks_in(&g, SEED, viewer, &m).is_empty(),
            "{}: the seed as a number",
            info.id
        );
        let mut m = state_message(&g, viewer);
        m["view"]["note"] = json!("seeded with 12345678901");
        assert!(
            !leaks_in(&g, 12_345_678_901, viewer, &m).is_empty(),
            "{}: the seed in a string",
            info.id
        );
        for n in g.secrets().rng_numbers() {
            let mut m = state_message(&g, viewer);
            m["events"] = json!([{"type": "x", "r": n}]);
            assert!(
                !leaks_in(&g, SEED, viewer, &m).is_empty(),
                "{}: the RNG state",
                info.id
            );
            rngs += 1;
        }
    }
    assert!(rngs > 0, "some game keeps a random generator");
}

/// A few common kinds in a row, in the pile and in a seat's public rewards, are a coincidence, not a leak; sixteen
/// of the pile's cards in its order are one. New Year Puzzle's reward pile (60 cards in rules version 2, whose face-up
/// rewards come off that pile) is the example of data where this matters; every game's orders are checked by
/// `the_checker_finds_every_games_secrets_and_hidden_orders`.
#[test]
fn the_checker_tells_a_hidden_order_from_a_coincidence() {
    let g = sample("new_year_puzzle", 4, 0);
    let truth = Truth { game: &g, seed: SEED };
    let orders = g.secrets().hidden_orders(Viewer::Spectator);
    let below_top = &orders
        .iter()
        .find(|o| o.name == "reward pile")
        .expect("the reward pile is a hidden order")
        .items;
    let message = |rewards: &[Value]| json!({"type": "lobby", "rewards": [[], rewards]});
    // The most common kind, four times: in the pile's order if the pile holds it so, and no leak either way.
    let confetti = json!(["confetti", "confetti", "confetti", "confetti"]);
    assert_eq!(
        leaks(&truth, Viewer::Spectator, &message(confetti.as_array().unwrap())),
        Vec::<String>::new()
    );
    // Four of the pile's cards in its order, where they are common kinds: what CI met by chance.
    let kinds = |run: &[Value]| {
        let mut k: Vec<&Value> = run.iter().collect();
        k.sort_by_key(|v| v.to_string());
        k.dedup();
        k.len()
    };
    let common = below_top
        .windows(4)
        .find(|w| {
            kinds(w) >= 3
                && w.iter().all(|c| {
                    [
                        "confetti",
                        "sparkler",
                        "broken_glass",
                        "snowed_in",
                        "chimney_sweep",
                        "starry_sky",
                    ]
                    .contains(&c.as_str().unwrap())
                })
        })
        .expect("a run of common kinds in a 48-card pile");
    assert_eq!(
        leaks(&truth, Viewer::Spectator, &message(common)),
        Vec::<String>::new()
    );
    // Sixteen of the pile's cards in its order.
    assert_eq!(
        leaks(&truth, Viewer::Spectator, &message(&below_top[10..26])),
        ["the reward pile's order at rewards.1 (16 items in a row)"]
    );
    // The whole pile but its face-up top.
    assert_eq!(
        leaks(&truth, Viewer::Spectator, &message(below_top)),
        [format!(
            "the reward pile's order at rewards.1 ({} items in a row)",
            below_top.len()
        )]
    );
}

/// Every game's secrets, put into a viewer's state message, are found: each place of the view where a secret
/// would show (a face-down number, another seat's hand, bag, looked-at chips, commitment or favour cards), each
/// hidden order long enough not to be a coincidence (a deck, a pile) and each whole secret order (another seat's
/// plan); a seat's own plan is no leak to that seat.
#[test]
fn the_checker_finds_every_games_secrets_and_hidden_orders() {
    for info in rules::catalogue() {
        let (mut secrets, mut orders) = (0, 0);
        for g in samples().into_iter().filter(|g| g.info().id == info.id) {
            for viewer in viewers(&g) {
                let honest = state_message(&g, viewer);
                for secret in g.secrets().view_secrets(viewer) {
                    let mut m = honest.clone();
                    m["view"] = secret.planted_in(&honest["view"]);
                    assert!(
                        !leaks_in(&g, SEED, viewer, &m).is_empty(),
                        "{}: {} shown to {viewer:?}",
                        info.id,
                        secret.what
                    );
                    secrets += 1;
                }
                let own = g.secrets().hidden_orders(viewer);
                for order in &own {
                    let (_, chance) = coincidence(&order.items, &order.items);
                    if order.items.is_empty() || !(order.whole || chance < COINCIDENCE) {
                        continue;
                    }
                    let mut m = honest.clone();
                    m["view"]["peek"] = json!(order.items);
                    assert!(
                        !leaks_in(&g, SEED, viewer, &m).is_empty(),
                        "{}: the {}'s order shown to {viewer:?}",
                        info.id,
                        order.name
                    );
                    orders += 1;
                }
                // Another viewer's whole secret orders that this viewer may know (its own plan).
                for other in viewers(&g).filter(|o| *o != viewer) {
                    for order in g.secrets().hidden_orders(other) {
                        if !order.whole || own.iter().any(|o| o.name == order.name) {
                            continue;
                        }
                        let mut m = honest.clone();
                        m["view"]["peek"] = json!(order.items);
                        let found = leaks_in(&g, SEED, viewer, &m);
                        assert!(
                            found.iter().all(|f| !f.contains(&order.name)),
                            "{}: the {} is {viewer:?}'s own: {found:?}",
                            info.id,
                            order.name
                        );
                    }
                }
            }
        }
        assert!(secrets > 0, "{}: no view secret was checked", info.id);
        assert!(orders > 0, "{}: no hidden order was checked", info.id);
    }
}

#[test]
fn the_checker_finds_a_view_meant_for_someone_else() {
    let mut wrong_views = 0;
    for g in samples() {
        let id = g.info().id;
        let replay = Replay {
            game: id.into(),
            seed: SEED,
            states: vec![g.clone()],
            events: vec![Vec::new()],
            actors: vec![None],
            actions: vec![Value::Null],
        };
        let mut honest = state_message(&g, Viewer::Seat(Seat(1)));
        honest["legal_actions"] = json!(g.legal_values(Seat(1)));
        let found = check(&replay, Viewer::Seat(Seat(1)), &honest);
        assert!(found.is_empty(), "{id}: {found:?}");
        // Seat 0's view (with its own hand) delivered to seat 1.
        if g.view_value(Viewer::Seat(Seat(0))) != g.view_value(Viewer::Seat(Seat(1))) {
            let mut wrong = state_message(&g, Viewer::Seat(Seat(0)));
            wrong["legal_actions"] = honest["legal_actions"].clone();
            assert!(!check(&replay, Viewer::Seat(Seat(1)), &wrong).is_empty(), "{id}");
            wrong_views += 1;
        }
        // Another seat's legal actions.
        let mut m = honest.clone();
        m["legal_actions"] = json!([{"type": "anything"}]);
        assert!(!check(&replay, Viewer::Seat(Seat(1)), &m).is_empty(), "{id}");
    }
    assert!(wrong_views > 0, "some game shows seats different views");
}

#[test]
fn the_checker_finds_another_seats_action_or_events_in_a_catch_up() {
    let mut unfiltered = 0;
    for info in rules::catalogue() {
        let start = AnyGame::new(info.id, None, &json!({}), 2, SEED).unwrap();
        let mover = Seat::all(2).find(|s| !start.legal_values(*s).is_empty()).unwrap();
        let viewer = Viewer::Seat(Seat(1 - mover.0));
        let action = start.legal_values(mover).remove(0);
        let mut after = start.clone();
        let events = after.apply_value(Actor::Seat(mover), &action, 1).unwrap();
        let all: Vec<Value> = events.iter().map(|e| e.body.clone()).collect();
        let seen: Vec<Value> = events
            .iter()
            .filter(|e| e.audience.includes(viewer))
            .map(|e| e.body.clone())
            .collect();
        let replay = Replay {
            game: info.id.into(),
            seed: SEED,
            states: vec![start, after],
            events: vec![Vec::new(), events],
            actors: vec![None, Some(Actor::Seat(mover))],
            actions: vec![Value::Null, action.clone()],
        };
        let report = |action: Value, events: &[Value]| {
            json!({"type": "away", "since": 0, "version": 1, "moves_left_out": 0,
                   "moves": [{"seq": 1, "seat": mover.0, "by": "player", "at": 1, "action": action, "events": events}]})
        };
        let honest = check(&replay, viewer, &report(Value::Null, &seen));
        assert!(honest.is_empty(), "{}: {honest:?}", info.id);
        let shown = check(&replay, viewer, &report(action.clone(), &seen));
        assert!(!shown.is_empty(), "{}: another seat's action shown", info.id);
        if all != seen {
            unfiltered += 1;
            assert!(
                !check(&replay, viewer, &report(Value::Null, &all)).is_empty(),
                "{}",
                info.id
            );
        }
    }
    let _ = unfiltered;
}
