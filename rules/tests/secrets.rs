//! Every registered game's hidden-information hooks (`rules::Secrets`), checked without naming a game: views do
//! not depend on what they hide, the hooks find something to check, honest views show no secret and a secret
//! put into a view is found. The wire test (`tests/tests/leaks.rs`) uses the same hooks on real matches.

use rules::testkit::Parsed;
use rules::{Actor, AnyGame, Rng, Seat, Status, Viewer};
use serde_json::Value;

/// A game of `id` for `players`, `steps` random legal actions (or due deadlines) in.
fn sample(id: &str, players: u8, seed: u64, steps: usize) -> AnyGame {
    let mut g = AnyGame::new(id, None, &Value::Null, players, seed).unwrap();
    let mut rng = Rng::from_seed(seed ^ 5);
    let mut now = 1_000;
    for _ in 0..steps {
        if g.status() == Status::Over {
            break;
        }
        let movers: Vec<Seat> = Seat::all(players)
            .filter(|s| !g.legal_values(*s).is_empty())
            .collect();
        if movers.is_empty() {
            let d = g.deadline().expect("no seat decides, so the clock must");
            now = now.max(d.at);
            g.apply(Actor::Clock, d.action.get(), now).unwrap();
            continue;
        }
        let seat = movers[rng.index(movers.len())];
        let actions = g.legal_values(seat);
        g.apply_value(Actor::Seat(seat), &actions[rng.index(actions.len())], now)
            .unwrap();
        now += 10;
    }
    g
}

fn viewers(players: u8) -> impl Iterator<Item = Viewer> {
    Seat::all(players).map(Viewer::Seat).chain([Viewer::Spectator])
}

const STEPS: [usize; 7] = [0, 5, 20, 60, 150, 400, 1_000];

/// Twins of a state that differ only in hidden information (an order reversed, two face-down cards swapped, a
/// card of a hand swapped with the top of the deck, another random generator) look the same to every viewer but
/// the one seat that may know the difference.
#[test]
fn views_do_not_depend_on_hidden_orders_plans_or_the_rng() {
    let mut compared = 0;
    for info in rules::catalogue() {
        for players in [info.min_players.max(2), info.max_players] {
            for steps in STEPS {
                let g = sample(info.id, players, 0x5eed + steps as u64, steps);
                for twin in g.secrets().hidden_twins() {
                    for viewer in viewers(players) {
                        if twin.known_to.is_some_and(|s| viewer == Viewer::Seat(s)) {
                            continue;
                        }
                        assert_eq!(
                            g.view_value(viewer),
                            twin.state.view_value(viewer),
                            "{} {players}p after {steps}: {viewer:?}'s view depends on {}",
                            info.id,
                            twin.what
                        );
                        compared += 1;
                    }
                }
            }
        }
    }
    assert!(compared > 500, "only {compared} comparisons");
}

/// Every game's hooks find something to check somewhere in a random game: a twin of its own (not only the
/// generic one with another random generator), a hidden order with items, and a place in some viewer's view
/// where a secret would show. An empty implementation of `Secrets` fails here.
#[test]
fn every_games_hooks_find_something_to_check() {
    for info in rules::catalogue() {
        let (mut twins, mut orders, mut secrets) = (0, 0, 0);
        for players in info.min_players..=info.max_players {
            for steps in STEPS {
                let g = sample(info.id, players, 11 + steps as u64, steps);
                twins += g
                    .secrets()
                    .hidden_twins()
                    .iter()
                    .filter(|t| t.what != "the random generator")
                    .count();
                for viewer in viewers(players) {
                    orders += g
                        .secrets()
                        .hidden_orders(viewer)
                        .iter()
                        .filter(|o| !o.items.is_empty())
                        .count();
                    secrets += g.secrets().view_secrets(viewer).len();
                }
            }
        }
        assert!(twins > 0, "{}: no hidden twins of its own", info.id);
        assert!(orders > 0, "{}: no hidden order with items", info.id);
        assert!(secrets > 0, "{}: nothing in any view to keep secret", info.id);
    }
}

/// An honest view shows none of its viewer's secrets, and the same view with one secret put where it would show
/// is found out. A secret is planted only into a member of the view that exists (an object or array of the
/// honest view), so a place that does not match the view's shape fails here too.
#[test]
fn honest_views_show_no_secret_and_a_planted_one_is_found() {
    let mut planted = 0;
    for info in rules::catalogue() {
        for players in [info.min_players.max(2), info.max_players] {
            for steps in STEPS {
                let g = sample(info.id, players, 23 + steps as u64, steps);
                for viewer in viewers(players) {
                    let view = g.view_value(viewer);
                    let found = g.secrets().view_leaks(viewer, &view);
                    assert!(
                        found.is_empty(),
                        "{} {players}p after {steps}: {viewer:?}'s honest view: {found:?}",
                        info.id
                    );
                    for secret in g.secrets().view_secrets(viewer) {
                        let leaky = secret.planted_in(&view);
                        let found = g.secrets().view_leaks(viewer, &leaky);
                        assert!(
                            found.iter().any(|f| f.starts_with(&secret.what)),
                            "{} {players}p after {steps}: {} planted at {} for {viewer:?} is not found: {found:?}",
                            info.id,
                            secret.what,
                            secret.at
                        );
                        planted += 1;
                    }
                }
            }
        }
    }
    assert!(planted > 500, "only {planted} secrets planted");
}

/// What the spectators may not see but one seat's view shows (its own hand, bag or stack) is listed among the
/// secrets of every other seat whose view does not show it: each seat's hooks cover the other seats' private
/// information, not only the spectators'.
#[test]
fn what_one_seat_sees_and_spectators_may_not_is_secret_from_the_other_seats() {
    let mut checked = 0;
    for info in rules::catalogue() {
        for players in [info.min_players.max(2), info.max_players] {
            for steps in STEPS {
                let g = sample(info.id, players, 41 + steps as u64, steps);
                let views: Vec<Value> = Seat::all(players)
                    .map(|s| g.view_value(Viewer::Seat(s)))
                    .collect();
                for place in g.secrets().view_secrets(Viewer::Spectator) {
                    let shown: Vec<bool> = views.iter().map(|v| place.shown_in(v)).collect();
                    if !shown.contains(&true) {
                        continue;
                    }
                    for t in Seat::all(players).filter(|t| !shown[t.index()]) {
                        assert!(
                            g.secrets()
                                .view_secrets(Viewer::Seat(t))
                                .iter()
                                .any(|s| s.at == place.at),
                            "{} {players}p after {steps}: {} shows in some seat's view, yet is not among {t}'s secrets",
                            info.id,
                            place.what
                        );
                        checked += 1;
                    }
                }
            }
        }
    }
    assert!(
        checked > 0,
        "no private information of one seat was checked against the others"
    );
}
