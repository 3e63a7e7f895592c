//! Whole games played by the rules engines, recorded as the server would send them: what seat 0 and a spectator
//! were pushed after every change, for tests that feed the real game screens with real states.

use rules::testkit::Parsed;
use rules::{Actor, AnyGame, Rng, Seat, Status, Viewer};
use serde_json::{Value, json};

/// The most changes recorded of one game (every game here ends well before).
pub const MAX_STEPS: usize = 3000;

/// What one viewer was sent after each change of a game.
pub struct Walk {
    pub seat0: Vec<Value>,
    pub spectator: Vec<Value>,
}

/// Plays one game to its end and returns what seat 0 and a spectator were sent after each change.
pub fn walk(game: &str, players: u8, seed: u64) -> Walk {
    let mut state = AnyGame::new(game, None, &json!({}), players, seed).expect("the game sets up");
    let mut driver = Rng::from_seed(seed ^ 0x5eed);
    let mut now: u64 = 1_700_000_000_000;
    let viewers = [Viewer::Seat(Seat(0)), Viewer::Spectator];
    let mut frames = viewers.map(|viewer| vec![frame(&state, viewer, 0, Vec::new())]);
    for version in 1..=MAX_STEPS {
        if state.status() == Status::Over {
            let [seat0, spectator] = frames;
            return Walk { seat0, spectator };
        }
        let seats: Vec<Seat> = Seat::all(players)
            .filter(|&s| !state.legal_values(s).is_empty())
            .collect();
        let events = if seats.is_empty() {
            let deadline = state
                .deadline()
                .unwrap_or_else(|| panic!("{game}: nobody can act and no clock is set"));
            now = now.max(deadline.at);
            state
                .apply(Actor::Clock, deadline.action.get(), now)
                .map(|applied| parse_events(&applied))
                .expect("the clock's action is accepted")
        } else {
            let seat = seats[driver.index(seats.len())];
            let legal = state.legal_values(seat);
            let bot = state
                .bot_action(seat, &mut driver)
                .map(|raw| serde_json::from_str::<Value>(raw.get()).expect("the bot's action is JSON"));
            let action = match bot {
                Some(action) if driver.below(10) < 7 => action,
                _ => legal[driver.index(legal.len())].clone(),
            };
            state
                .apply_value(Actor::Seat(seat), &action, now)
                .unwrap_or_else(|e| panic!("{game}: {action} is accepted: {e:?}"))
        };
        now += 1_500;
        for (viewer, frames) in viewers.iter().zip(frames.iter_mut()) {
            let seen: Vec<Value> = events
                .iter()
                .filter(|e| e.audience.includes(*viewer))
                .map(|e| e.body.clone())
                .collect();
            frames.push(frame(&state, *viewer, version, seen));
        }
    }
    panic!("{game} with {players} players did not end in {MAX_STEPS} changes");
}

/// The state push a viewer gets (the fields the screens read).
pub fn frame(state: &AnyGame, viewer: Viewer, version: usize, events: Vec<Value>) -> Value {
    let (seat, legal) = match viewer {
        Viewer::Seat(seat) => (json!(seat), json!(state.legal_values(seat))),
        Viewer::Spectator => (Value::Null, json!([])),
    };
    json!({
        "version": version,
        "since": version.saturating_sub(1),
        "seat": seat,
        "view": state.view_value(viewer),
        "legal_actions": legal,
        "status": state.status(),
        "deadline": state.deadline().map(|d| d.at),
        "turn_deadline": null,
        "outcome": state.outcome(),
        "events": events,
    })
}

/// The events of an applied action, read from their text.
fn parse_events(applied: &rules::Applied) -> Vec<rules::Event<Value>> {
    applied
        .events
        .iter()
        .map(|e| rules::Event {
            audience: e.audience.clone(),
            body: serde_json::from_str(e.body.get()).expect("events are JSON"),
        })
        .collect()
}
