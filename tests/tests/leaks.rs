//! Hidden information at the wire. For every game and table size, a full match between seat clients playing
//! random legal actions, watched by a spectator; every message each seat and the spectator receives (replies,
//! lobby pushes, states) is checked against the truth, rebuilt by replaying the stored seed and action log with
//! `rules::AnyGame`:
//!
//! 1. The server sends each viewer exactly the engine's view for that viewer at that version, that seat's legal
//!    actions only (none to a spectator), and only the events addressed to that viewer.
//! 2. The seed and the random generator's state never appear, as a number or inside a string.
//! 3. No hidden order appears (draw pile, decks, reward pile, a secret plan before its reveal): no array of a
//!    message holds a run of consecutive items of it too unlikely to be a coincidence (see `coincidence`).
//! 4. Per game, what the rules (`docs/rules/*.md`) keep from a viewer is absent from that viewer's view:
//!    face-down card numbers (Hide and Eeek!, New Year Puzzle), other hands (Molehills cards, Hickory Dickory
//!    favours before the end), other bags, looked-at chips and secret commitments (Quacks).
//!
//! `the_checker_*` unit tests feed deliberately leaky messages to the checker and require it to object;
//! `views_do_not_depend_on_hidden_orders_plans_or_the_rng` compares views of twin states that differ only in hidden
//! information.

use integration_tests::*;
use rules::{Actor, AnyGame, Seat, Viewer};
use serde_json::{Value, json};

/// A run shared by a message's array and a hidden order is a leak when a coincidence that long would happen less
/// often than this (see `coincidence`).
const COINCIDENCE: f64 = 1e-9;

/// Everything the checker reads of the truth at one version.
struct Truth<'a> {
    game: &'a str,
    /// `AnyGame::full_state()["state"]`.
    state: &'a Value,
    seed: u64,
}

fn numbers_of_rng(state: &Value) -> Vec<u64> {
    state["rng"]["s"]
        .as_array()
        .map(|s| s.iter().filter_map(Value::as_u64).collect())
        .unwrap_or_default()
}

/// The hidden orders of a state: (name, items, whole) no viewer may learn. A `whole` order is a leak as soon as an
/// array holds all of it in order (Molehills plans: two or more of a hand's card ids, which no public array holds
/// before the reveal); the others are leaks past [`COINCIDENCE`].
fn hidden_orders(truth: &Truth, viewer: Viewer) -> Vec<(String, Vec<Value>, bool)> {
    let s = truth.state;
    let list = |v: &Value| v.as_array().cloned().unwrap_or_default();
    let mut orders = Vec::new();
    match truth.game {
        "hide_and_eeek" => orders.push(("draw pile".into(), list(&s["draw_pile"]), false)),
        "molehills" => {
            orders.push(("deck".into(), list(&s["deck"]), false));
            if s["phase"]["phase"] == "planning" {
                for (seat, plan) in list(&s["plans"]).iter().enumerate() {
                    if viewer != Viewer::Seat(Seat(seat as u8)) && list(plan).len() >= 2 {
                        orders.push((format!("seat {seat}'s plan"), list(plan), true));
                    }
                }
            }
        }
        "new_year_puzzle" => {
            // The top reward card (the pile's last) lies face up; the rest of the pile is hidden.
            let mut pile = list(&s["pile"]);
            pile.pop();
            orders.push(("reward pile".into(), pile, false));
        }
        "quacks" => orders.push(("fortune deck".into(), list(&s["deck"]), false)),
        "hickory_dickory" => {
            orders.push(("favour deck".into(), list(&s["favour_deck"]), false));
            orders.push(("mission deck".into(), list(&s["mission_deck"]), false));
        }
        _ => {}
    }
    orders
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
/// Puzzle's face-up rewards come off the reward pile, 48 cards of 15 kinds; Hide and Eeek!'s won piles off the
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
        numbers_of_rng(truth.state)
            .into_iter()
            .map(|n| ("the RNG state".into(), n)),
    );
    let orders = hidden_orders(truth, viewer);
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
            for (what, order, whole) in &orders {
                let (len, chance) = coincidence(items, order);
                if chance < COINCIDENCE || (*whole && len == order.len()) {
                    found.push(format!("the {what}'s order at {at} ({len} items in a row)"));
                }
            }
        }
    });
    if message["type"] == "state" {
        found.extend(view_leaks(truth, viewer, &message["view"]));
    }
    found
}

/// The per-game checks of a view.
fn view_leaks(truth: &Truth, viewer: Viewer, view: &Value) -> Vec<String> {
    let s = truth.state;
    let mut found = Vec::new();
    let others = |n: usize| (0..n).filter(move |&i| viewer != Viewer::Seat(Seat(i as u8)));
    match truth.game {
        "hide_and_eeek" => {
            for (i, card) in s["grid"].as_array().unwrap().iter().enumerate() {
                let shown = &view["grid"][i / 6][i % 6];
                if card["face_up"] == false && shown.get("number").is_some() {
                    found.push(format!("face-down card {} at cell {i}", card["number"]));
                }
            }
        }
        "new_year_puzzle" => {
            for (i, up) in s["face_up"].as_array().unwrap().iter().enumerate() {
                if up == false && !view["board"][i].is_null() {
                    found.push(format!("face-down card {} at place {i}", s["board"][i]));
                }
            }
        }
        "molehills" => {
            let n = s["players"].as_u64().unwrap() as usize;
            for i in others(n) {
                if view["players"][i]["cards"]
                    .as_array()
                    .is_some_and(|c| !c.is_empty())
                {
                    found.push(format!("seat {i}'s hand"));
                }
            }
            if !matches!(viewer, Viewer::Seat(_)) && !view["your_stack"].is_null() {
                found.push("a stack shown to a spectator".into());
            }
        }
        "quacks" => {
            let n = s["players"].as_array().unwrap().len();
            for i in others(n) {
                let p = &view["players"][i];
                for field in ["bag", "looking_at", "commitment"] {
                    if !p[field].is_null() {
                        found.push(format!("seat {i}'s {field}"));
                    }
                }
            }
        }
        "hickory_dickory" => {
            let n = s["seats"].as_array().unwrap().len();
            if view["game_over"] != true {
                for i in others(n) {
                    if !view["seats"][i]["favours"].is_null() {
                        found.push(format!("seat {i}'s favour cards"));
                    }
                }
            }
        }
        other => found.push(format!("no hidden-information checks for {other}: add them")),
    }
    found
}

/// The truth at every version: the game after `v` actions and the events action `v` produced.
struct Replay {
    game: String,
    seed: u64,
    states: Vec<AnyGame>,
    events: Vec<Vec<rules::Event<Value>>>,
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
    let mut game = AnyGame::new(&record.game, &record.options, record.players, record.seed).unwrap();
    let mut states = vec![game.clone()];
    let mut events = vec![Vec::new()];
    for entry in log {
        events.push(
            game.apply(entry.actor, &entry.action.to_value(), entry.at)
                .unwrap(),
        );
        states.push(game.clone());
    }
    Replay {
        game: record.game,
        seed: record.seed,
        states,
        events,
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
    let full = game.full_state();
    let truth = Truth {
        game: &replay.game,
        state: &full["state"],
        seed: replay.seed,
    };
    found.extend(leaks(&truth, viewer, message));
    if message["type"] == "state" {
        if message["view"] != game.view(viewer) {
            found.push("a view other than the engine's for this viewer".into());
        }
        let legal = match viewer {
            Viewer::Seat(seat) => game.legal_actions(seat),
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
    found
        .into_iter()
        .map(|f| format!("{} v{version} to {viewer:?}: {f}", replay.game))
        .collect()
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
        for info in AnyGame::catalogue() {
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

// --- The checker objects to leaky messages (and accepts honest ones).

const SEED: u64 = 0x5eed_1234_5678_9abc;

/// A game of `id` a few actions in, its truth, and an honest state message for `viewer`.
fn sample(id: &str, players: u8, steps: usize) -> (AnyGame, Value) {
    let mut g = AnyGame::new(id, &json!({}), players, SEED).unwrap();
    let mut rng = rules::Rng::from_seed(5);
    for _ in 0..steps {
        let movers: Vec<Seat> = Seat::all(players)
            .filter(|s| !g.legal_actions(*s).is_empty())
            .collect();
        if movers.is_empty() {
            match g.deadline() {
                Some(d) => {
                    g.apply(Actor::Clock, &d.action, d.at).unwrap();
                }
                None => break,
            }
            continue;
        }
        let seat = movers[rng.index(movers.len())];
        let actions = g.legal_actions(seat);
        g.apply(Actor::Seat(seat), &actions[rng.index(actions.len())], 0)
            .unwrap();
    }
    (g, Value::Null)
}

fn state_message(g: &AnyGame, viewer: Viewer) -> Value {
    json!({"type": "state", "version": 0, "since": 0, "view": g.view(viewer), "legal_actions": [], "events": []})
}

fn leaks_in(g: &AnyGame, seed: u64, viewer: Viewer, message: &Value) -> Vec<String> {
    let full = g.full_state();
    let truth = Truth {
        game: g.info().id,
        state: &full["state"],
        seed,
    };
    leaks(&truth, viewer, message)
}

#[test]
fn the_checker_accepts_honest_views_of_every_game() {
    for info in AnyGame::catalogue() {
        for steps in [0, 10, 40, 120] {
            let (g, _) = sample(info.id, info.min_players.max(2), steps);
            for viewer in Seat::all(g.players())
                .map(Viewer::Seat)
                .chain([Viewer::Spectator])
            {
                let found = leaks_in(&g, SEED, viewer, &state_message(&g, viewer));
                assert!(found.is_empty(), "{} after {steps}: {found:?}", info.id);
            }
        }
    }
}

#[test]
fn the_checker_finds_the_seed_and_the_rng() {
    let (g, _) = sample("quacks", 2, 3);
    let viewer = Viewer::Seat(Seat(0));
    let mut m = state_message(&g, viewer);
    m["view"]["debug"] = json!(SEED);
    assert!(!leaks_in(&g, SEED, viewer, &m).is_empty(), "the seed as a number");
    let mut m = state_message(&g, viewer);
    m["view"]["note"] = json!("seeded with 12345678901");
    assert!(
        !leaks_in(&g, 12_345_678_901, viewer, &m).is_empty(),
        "the seed in a string"
    );
    let rng = g.full_state()["state"]["rng"]["s"][2].clone();
    let mut m = state_message(&g, viewer);
    m["events"] = json!([{"type": "x", "r": rng}]);
    assert!(!leaks_in(&g, SEED, viewer, &m).is_empty(), "the RNG state");
}

/// A few common kinds in a row, in the pile and in a seat's public rewards, are a coincidence, not a leak; sixteen
/// of the pile's cards in its order are one.
#[test]
fn the_checker_tells_a_hidden_order_from_a_coincidence() {
    let (g, _) = sample("new_year_puzzle", 4, 0);
    let full = g.full_state();
    let truth = Truth {
        game: "new_year_puzzle",
        state: &full["state"],
        seed: SEED,
    };
    let pile = full["state"]["pile"].as_array().unwrap();
    let below_top = &pile[..pile.len() - 1];
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

#[test]
fn the_checker_finds_face_down_cards_and_hidden_orders() {
    let (g, _) = sample("hide_and_eeek", 2, 2);
    let full = g.full_state();
    let viewer = Viewer::Spectator;
    let cell = full["state"]["grid"]
        .as_array()
        .unwrap()
        .iter()
        .position(|c| c["face_up"] == false)
        .unwrap();
    let mut m = state_message(&g, viewer);
    m["view"]["grid"][cell / 6][cell % 6]["number"] = full["state"]["grid"][cell]["number"].clone();
    assert!(!leaks_in(&g, SEED, viewer, &m).is_empty(), "a face-down number");
    let mut m = state_message(&g, viewer);
    let pile: Vec<Value> = full["state"]["draw_pile"].as_array().unwrap()[3..15].to_vec();
    m["view"]["peek"] = json!(pile);
    assert!(
        !leaks_in(&g, SEED, viewer, &m).is_empty(),
        "the draw pile's order"
    );

    let (g, _) = sample("new_year_puzzle", 2, 0);
    let full = g.full_state();
    let place = full["state"]["face_up"]
        .as_array()
        .unwrap()
        .iter()
        .position(|u| u == false)
        .unwrap();
    let mut m = state_message(&g, viewer);
    m["view"]["board"][place] = full["state"]["board"][place].clone();
    assert!(
        !leaks_in(&g, SEED, viewer, &m).is_empty(),
        "a face-down puzzle card"
    );
}

#[test]
fn the_checker_finds_other_hands_bags_and_plans() {
    // Molehills: a hand shown to another seat.
    let (g, _) = sample("molehills", 2, 20);
    let me = Viewer::Seat(Seat(0));
    let mut m = state_message(&g, me);
    m["view"]["players"][1]["cards"] = json!([{"id": 1, "kind": "move", "steps": 1}]);
    assert!(
        !leaks_in(&g, SEED, me, &m).is_empty(),
        "another seat's molehills hand"
    );

    // Molehills: another seat's secret plan, in order, before the reveal.
    let (g, plan) = (0..200)
        .find_map(|steps| {
            let (g, _) = sample("molehills", 2, steps);
            let full = g.full_state();
            let plan = full["state"]["plans"][1].as_array()?.clone();
            (full["state"]["phase"]["phase"] == "planning" && plan.len() >= 2).then_some((g, plan))
        })
        .expect("seat 1 commits a plan of two or more cards");
    let mut m = state_message(&g, me);
    m["view"]["peek"] = json!(plan);
    assert!(!leaks_in(&g, SEED, me, &m).is_empty(), "another seat's plan");
    let mut m = state_message(&g, Viewer::Seat(Seat(1)));
    m["view"]["peek"] = json!(plan);
    assert!(
        leaks_in(&g, SEED, Viewer::Seat(Seat(1)), &m).is_empty(),
        "a seat's own plan"
    );

    // Quacks: another seat's bag.
    let (g, _) = sample("quacks", 2, 3);
    let mut m = state_message(&g, me);
    m["view"]["players"][1]["bag"] = m["view"]["players"][1]["not_in_pot"].clone();
    assert!(!leaks_in(&g, SEED, me, &m).is_empty(), "another seat's bag");

    // Hickory Dickory: another seat's favour cards before the end.
    let (g, _) = sample("hickory_dickory", 2, 3);
    let mut m = state_message(&g, me);
    m["view"]["seats"][1]["favours"] = m["view"]["seats"][0]["favours"].clone();
    assert!(!leaks_in(&g, SEED, me, &m).is_empty(), "another seat's favours");
}

#[test]
fn the_checker_finds_a_view_meant_for_someone_else() {
    let (g, _) = sample("molehills", 2, 30);
    let replay = Replay {
        game: "molehills".into(),
        seed: SEED,
        states: vec![g.clone()],
        events: vec![Vec::new()],
    };
    let honest = state_message(&g, Viewer::Seat(Seat(1)));
    assert!(check(&replay, Viewer::Seat(Seat(1)), &honest).is_empty());
    // Seat 0's view (with its own hand) delivered to seat 1.
    let wrong = state_message(&g, Viewer::Seat(Seat(0)));
    if g.view(Viewer::Seat(Seat(0))) != g.view(Viewer::Seat(Seat(1))) {
        assert!(!check(&replay, Viewer::Seat(Seat(1)), &wrong).is_empty());
    }
    // Another seat's legal actions.
    let mut m = honest.clone();
    m["legal_actions"] = json!([{"type": "anything"}]);
    assert!(!check(&replay, Viewer::Seat(Seat(1)), &m).is_empty());
}

// --- Views do not depend on what they hide.

/// Twins of a full state that differ only in hidden information, each with the viewers that must not tell them
/// apart: hidden orders reversed, the RNG replaced, a seat's secret plan reversed (for everyone but that seat).
fn hidden_twins(game: &str, full: &Value) -> Vec<(String, Value, Option<usize>)> {
    let mut twins = Vec::new();
    let mut twin = |what: &str, except: Option<usize>, change: &dyn Fn(&mut Value)| {
        let mut t = full.clone();
        change(&mut t["state"]);
        if t != *full {
            twins.push((what.to_string(), t, except));
        }
    };
    let reverse = |v: &mut Value| {
        if let Some(a) = v.as_array_mut() {
            a.reverse();
        }
    };
    twin("the RNG", None, &|s| {
        if s.get("rng").is_some() {
            s["rng"]["s"] = json!([1, 2, 3, 4]);
        }
    });
    match game {
        "hide_and_eeek" => {
            twin("the draw pile's order", None, &|s| reverse(&mut s["draw_pile"]));
            // Two face-down cards swapped, and a face-down card swapped with the top of the draw pile.
            let down: Vec<usize> = full["state"]["grid"]
                .as_array()
                .unwrap()
                .iter()
                .enumerate()
                .filter(|(_, c)| c["face_up"] == false)
                .map(|(i, _)| i)
                .collect();
            if down.len() >= 2 {
                twin("which face-down card lies where", None, &|s| {
                    let a = s["grid"][down[0]]["number"].take();
                    let b = std::mem::replace(&mut s["grid"][down[1]]["number"], a);
                    s["grid"][down[0]]["number"] = b;
                });
            }
            if !down.is_empty()
                && full["state"]["draw_pile"]
                    .as_array()
                    .is_some_and(|p| !p.is_empty())
            {
                twin("a face-down card's number", None, &|s| {
                    let a = s["grid"][down[0]]["number"].take();
                    let b = std::mem::replace(&mut s["draw_pile"][0], a);
                    s["grid"][down[0]]["number"] = b;
                });
            }
        }
        "molehills" => {
            twin("the deck's order", None, &|s| reverse(&mut s["deck"]));
            let n = full["state"]["players"].as_u64().unwrap() as usize;
            for seat in 0..n {
                twin(&format!("seat {seat}'s plan"), Some(seat), &|s| {
                    reverse(&mut s["plans"][seat])
                });
                // A card of the seat's hand swapped with the top of the deck (both hidden from the others).
                if full["state"]["hands"][seat]
                    .as_array()
                    .is_some_and(|h| !h.is_empty())
                    && full["state"]["deck"].as_array().is_some_and(|d| !d.is_empty())
                    && full["state"]["plans"][seat].is_null()
                {
                    twin(&format!("seat {seat}'s hand"), Some(seat), &|s| {
                        let a = s["hands"][seat][0].take();
                        let b = std::mem::replace(&mut s["deck"][0], a);
                        s["hands"][seat][0] = b;
                    });
                }
            }
        }
        "new_year_puzzle" => {
            twin("the reward pile below its top", None, &|s| {
                if let Some(pile) = s["pile"].as_array_mut()
                    && pile.len() > 2
                {
                    let top = pile.len() - 1;
                    pile[..top].reverse();
                }
            });
            let down: Vec<usize> = full["state"]["face_up"]
                .as_array()
                .unwrap()
                .iter()
                .enumerate()
                .filter(|(_, up)| **up == false)
                .map(|(i, _)| i)
                .collect();
            if down.len() >= 2 {
                twin("which face-down card lies where", None, &|s| {
                    let a = s["board"][down[0]].take();
                    let b = std::mem::replace(&mut s["board"][down[1]], a);
                    s["board"][down[0]] = b;
                });
            }
        }
        "quacks" => {
            twin("the fortune deck's order", None, &|s| reverse(&mut s["deck"]));
            twin("the order of every bag", None, &|s| {
                for p in s["players"].as_array_mut().unwrap() {
                    reverse(&mut p["bag"]);
                }
            });
        }
        "hickory_dickory" => {
            twin("the bag's order", None, &|s| reverse(&mut s["bag"]));
            twin("the favour deck's order", None, &|s| {
                reverse(&mut s["favour_deck"])
            });
            twin("the mission deck's order", None, &|s| {
                reverse(&mut s["mission_deck"])
            });
            // A favour card of a seat's hand swapped with the top of the favour deck, before the end reveals hands.
            if full["state"]["phase"]["phase"] != "over" {
                for seat in 0..full["state"]["seats"].as_array().unwrap().len() {
                    if full["state"]["seats"][seat]["favours"]
                        .as_array()
                        .is_some_and(|f| !f.is_empty())
                        && full["state"]["favour_deck"]
                            .as_array()
                            .is_some_and(|d| !d.is_empty())
                    {
                        twin(&format!("seat {seat}'s favour cards"), Some(seat), &|s| {
                            let a = s["seats"][seat]["favours"][0].take();
                            let b = std::mem::replace(&mut s["favour_deck"][0], a);
                            s["seats"][seat]["favours"][0] = b;
                        });
                    }
                }
            }
        }
        _ => {}
    }
    twins
}

#[test]
fn views_do_not_depend_on_hidden_orders_plans_or_the_rng() {
    let mut compared = 0;
    for info in AnyGame::catalogue() {
        for players in [info.min_players.max(2), info.max_players] {
            for steps in [0, 5, 20, 60, 150, 400] {
                let (g, _) = sample(info.id, players, steps);
                let full = g.full_state();
                for (what, twin, except) in hidden_twins(info.id, &full) {
                    let t = AnyGame::from_full_state(&twin).unwrap();
                    for viewer in Seat::all(players).map(Viewer::Seat).chain([Viewer::Spectator]) {
                        if except.is_some_and(|s| viewer == Viewer::Seat(Seat(s as u8))) {
                            continue;
                        }
                        assert_eq!(
                            g.view(viewer),
                            t.view(viewer),
                            "{} {players}p after {steps}: {viewer:?}'s view depends on {what}",
                            info.id
                        );
                        compared += 1;
                    }
                }
            }
        }
    }
    assert!(compared > 500, "only {compared} comparisons");
}
