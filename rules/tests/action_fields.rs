//! A field an action does not use is not read: every listed action of every game is accepted with extra members
//! (of any name, another action's fields included, and any value), and means exactly what it means without them.
//! Only the fields an action uses are checked (a used field of the wrong type is refused).

use rules::testkit::Parsed;
use rules::{Actor, AnyGame, Seat, Status};
use serde_json::{Map, Value, json};

/// Values an unused field may carry: none of them may matter.
fn junk() -> [Value; 5] {
    [
        json!("garbage"),
        json!(-1),
        Value::Null,
        json!({"row": 99, "col": "x"}),
        json!([1, "two", null]),
    ]
}

/// Every member name used by any listed action of `game` along a random playout, plus names no action uses.
fn field_names(actions: &[Value]) -> Vec<String> {
    let mut names: Vec<String> = ["garbage", "cell", "version", "seat", "id"]
        .map(String::from)
        .to_vec();
    for a in actions {
        for key in a.as_object().into_iter().flat_map(Map::keys) {
            if !names.contains(key) {
                names.push(key.clone());
            }
        }
    }
    names
}

#[test]
fn unused_fields_of_an_action_are_ignored_in_every_game() {
    for info in rules::catalogue() {
        for players in [info.min_players, info.max_players] {
            let mut game = AnyGame::new(info.id, None, &Value::Null, players, 5).unwrap();
            let mut names: Vec<String> = Vec::new();
            let (mut now, mut probed) = (1_000, 0usize);
            for step in 0..400usize {
                if game.status() == Status::Over {
                    break;
                }
                let actions: Vec<(Seat, Value)> = Seat::all(players)
                    .flat_map(|s| game.legal_values(s).into_iter().map(move |a| (s, a)))
                    .collect();
                for name in field_names(&actions.iter().map(|(_, a)| a.clone()).collect::<Vec<_>>()) {
                    if !names.contains(&name) {
                        names.push(name);
                    }
                }
                // A few of this state's actions, each with every unused name and every junk value.
                for (seat, action) in actions.iter().step_by(actions.len() / 3 + 1) {
                    let plain = game
                        .clone()
                        .apply(Actor::Seat(*seat), &action.to_string(), now)
                        .unwrap_or_else(|e| panic!("{}: listed {action} refused: {e}", info.id));
                    for name in names.iter().filter(|n| action.get(n.as_str()).is_none()) {
                        for value in junk() {
                            let mut extended = action.clone();
                            extended[name.as_str()] = value;
                            let with = game
                                .clone()
                                .apply(Actor::Seat(*seat), &extended.to_string(), now)
                                .unwrap_or_else(|e| {
                                    panic!("{}: {extended} refused for an unused field: {e}", info.id)
                                });
                            assert_eq!(with.action.get(), plain.action.get(), "{}: {extended}", info.id);
                            let bodies = |a: &rules::Applied| -> Vec<String> {
                                a.events.iter().map(|e| e.body.get().to_string()).collect()
                            };
                            assert_eq!(bodies(&with), bodies(&plain), "{}: {extended}", info.id);
                            probed += 1;
                        }
                    }
                }
                match actions.get(step * 7 % actions.len().max(1)) {
                    Some((seat, action)) => {
                        game.apply_value(Actor::Seat(*seat), action, now).unwrap();
                    }
                    None => {
                        let d = game.deadline().expect("no seat decides, so the clock must");
                        now = now.max(d.at);
                        game.apply(Actor::Clock, d.action.get(), now).unwrap();
                    }
                }
                now += 10;
            }
            assert!(probed > 100, "{}: only {probed} probes", info.id);
        }
    }
}

/// A field the action uses is still checked: the same action with that field of the wrong type is refused.
#[test]
fn used_fields_are_still_checked() {
    for info in rules::catalogue() {
        let mut game = AnyGame::new(info.id, None, &Value::Null, info.min_players, 9).unwrap();
        let (mut checked, mut now) = (0, 1_000);
        for step in 0..300usize {
            if game.status() == Status::Over {
                break;
            }
            let actions: Vec<(Seat, Value)> = Seat::all(info.min_players)
                .flat_map(|s| game.legal_values(s).into_iter().map(move |a| (s, a)))
                .collect();
            for (seat, action) in &actions {
                for key in action.as_object().unwrap().keys().filter(|k| *k != "type") {
                    let mut broken = action.clone();
                    broken[key.as_str()] = json!("garbage");
                    let refused = game.clone().apply(Actor::Seat(*seat), &broken.to_string(), now);
                    assert!(refused.is_err(), "{}: {broken} accepted", info.id);
                    checked += 1;
                }
            }
            match actions.get(step * 5 % actions.len().max(1)) {
                Some((seat, action)) => {
                    game.apply_value(Actor::Seat(*seat), action, now).unwrap();
                }
                None => {
                    let d = game.deadline().expect("the clock decides");
                    now = now.max(d.at);
                    game.apply(Actor::Clock, d.action.get(), now).unwrap();
                }
            }
            now += 10;
        }
        assert!(checked > 0, "{}: no action with a field was listed", info.id);
    }
}

/// The server's frame reader leaves an action's text to its engine (`protocol/src/parse.rs`): what a JSON `Value`
/// could not hold, anywhere in an action (a number out of range, nesting deeper than 128 levels), is refused as
/// not an action of the game, without overflowing the stack, and changes nothing.
#[test]
fn actions_no_value_could_hold_are_refused_without_harm() {
    for info in rules::catalogue() {
        let game = AnyGame::new(info.id, None, &Value::Null, info.min_players, 5).unwrap();
        let (seat, action) = Seat::all(info.min_players)
            .find_map(|s| game.legal_values(s).into_iter().next().map(|a| (s, a)))
            .unwrap_or_else(|| panic!("{}: nothing to do at the start", info.id));
        let listed = action.to_string();
        let nested = |depth: usize| format!("{}1{}", "[".repeat(depth), "]".repeat(depth));
        let with = |member: &str| format!("{{{member},{}", &listed[1..]);
        for text in [
            with(r#""unused":1e400"#),
            with(r#""unused":-1e400"#),
            with(&format!(r#""unused":{}"#, nested(200))),
            with(&format!(r#""unused":{}"#, nested(100_000))),
            nested(100_000),
        ] {
            let mut after = game.clone();
            let e = after
                .apply(Actor::Seat(seat), &text, 1_000)
                .expect_err(&format!("{}: accepted {:.80}", info.id, text));
            assert_eq!(e.kind, rules::RejectKind::IllegalAction, "{}: {e}", info.id);
            assert_eq!(
                after.full_state(),
                game.full_state(),
                "{}: a refused action changed the game",
                info.id
            );
        }
    }
}
