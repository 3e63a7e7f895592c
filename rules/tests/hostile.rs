//! Hostile actions at arbitrary states of every engine, as proptest properties that run in plain `cargo test`
//! (the same driver is the `engine_actions` fuzz target in `fuzz/`; see `docs/reliability.md`).

#[path = "hostile/engine.rs"]
mod engine;

use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    /// Random bytes drive the choice of game, table, options, seed, prefix and probes.
    #[test]
    fn engines_survive_arbitrary_actions_at_arbitrary_states(data in prop::collection::vec(any::<u8>(), 0..2048)) {
        engine::run(&data);
    }

    /// The same, with each game in turn chosen (so every game gets its share of cases).
    #[test]
    fn every_game_survives_arbitrary_actions(game in 0u8..5, data in prop::collection::vec(any::<u8>(), 0..2048)) {
        let games = rules::AnyGame::catalogue().len() as u8;
        let mut input = vec![game % games];
        input.extend(data);
        engine::run(&input);
    }
}

/// Every game is reached by the driver (the first byte chooses the game), so no game escapes the properties.
#[test]
fn the_driver_reaches_every_game() {
    let games = rules::AnyGame::catalogue();
    assert_eq!(
        games.len(),
        5,
        "a game was added: check the driver's generators cover its actions"
    );
    for i in 0..games.len() as u8 {
        engine::run(&[i, 1, 2, 3, 4, 5, 6, 7, 8, 9, 200, 1, 7, 3, 9, 2, 8, 4, 6, 5]);
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
    for info in AnyGame::catalogue() {
        let game = AnyGame::new(info.id, &json!({}), info.min_players, 7).unwrap();
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
                    copy.apply(actor, action, 0).is_err(),
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
