//! Hostile actions at arbitrary states of every engine, as proptest properties that run in plain `cargo test`
//! (the same driver is the `engine_actions` fuzz target in `fuzz/`; see `docs/reliability.md`).

#[path = "hostile/engine.rs"]
mod engine;

use proptest::prelude::*;
use rules::testkit::Parsed;

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    /// Random bytes drive the choice of game, table, options, seed, prefix and probes.
    #[test]
    fn engines_survive_arbitrary_actions_at_arbitrary_states(data in prop::collection::vec(any::<u8>(), 0..2048)) {
        engine::run(&data);
    }

    /// The same, with each game in turn chosen (so every game gets its share of cases).
    #[test]
    fn every_game_survives_arbitrary_actions(game in any::<u8>(), data in prop::collection::vec(any::<u8>(), 0..2048)) {
        let games = rules::catalogue().len() as u8;
        let mut input = vec![game % games];
        input.extend(data);
        engine::run(&input);
    }
}

/// Every game is reached by the driver (the first byte chooses the game), so no game escapes the properties, and
/// the driver's field names cover every field of every game's listed actions.
#[test]
fn the_driver_reaches_every_game_and_knows_its_action_fields() {
    use rules::{Actor, AnyGame, Seat, Status};
    let keys = engine::action_keys();
    let games = rules::catalogue();
    for (i, info) in games.iter().enumerate() {
        engine::run(&[i as u8, 1, 2, 3, 4, 5, 6, 7, 8, 9, 200, 1, 7, 3, 9, 2, 8, 4, 6, 5]);
        // Every field name of every action listed in a random game of this one.
        let mut game = AnyGame::new(info.id, None, &serde_json::Value::Null, info.min_players, 11).unwrap();
        let (mut fields, mut now) = (0, 1_000);
        for step in 0..400 {
            if game.status() == Status::Over {
                break;
            }
            let actions: Vec<(Seat, serde_json::Value)> = Seat::all(game.players())
                .flat_map(|s| game.legal_values(s).into_iter().map(move |a| (s, a)))
                .collect();
            for (_, action) in &actions {
                for key in action.as_object().into_iter().flat_map(|m| m.keys()) {
                    assert!(
                        keys.contains(key),
                        "{}: the driver does not know the field `{key}`",
                        info.id
                    );
                    fields += 1;
                }
            }
            match actions.get(step % actions.len().max(1)) {
                Some((seat, action)) => game.apply_value(Actor::Seat(*seat), action, now).map(drop),
                None => {
                    let d = game.deadline().expect("no seat decides, so the clock must");
                    now = now.max(d.at);
                    game.apply(Actor::Clock, d.action.get(), now).map(drop)
                }
            }
            .unwrap();
        }
        assert!(fields > 0, "{}: no action with fields", info.id);
    }
}

/// Hand-picked hostile actions against a fresh game of each kind: all refused without a change of state.
#[test]
fn hand_picked_hostile_actions_are_refused() {
    use rules::{Actor, AnyGame, Seat};
    use serde_json::json;
    let hostile = [
        json!(null),
        json!(1e300),
        json!(u64::MAX),
        json!(-1),
        json!("pass"),
        json!([]),
        json!({}),
        json!({"type": null}),
        json!({"type": "no_such_action"}),
        json!({"type": ["play"]}),
        json!({"type": "eeek", "cell": {"row": u64::MAX, "col": -1}}),
    ];
    for info in rules::catalogue() {
        let game = AnyGame::new(info.id, None, &json!({}), info.min_players, 7).unwrap();
        let before = game.full_state().to_string();
        for action in &hostile {
            for actor in [
                Actor::Clock,
                Actor::Seat(Seat(0)),
                Actor::Seat(Seat(1)),
                Actor::Seat(Seat(200)),
            ] {
                let mut copy = game.clone();
                assert!(
                    copy.apply(actor, &action.to_string(), 0).is_err(),
                    "{}: {action} by {actor:?} accepted",
                    info.id
                );
                assert_eq!(
                    copy.full_state().to_string(),
                    before,
                    "{}: refused {action} changed the state",
                    info.id
                );
            }
        }
    }
}
