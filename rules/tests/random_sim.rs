//! One random-simulation test over the registry, after OpenSpiel's `RandomSimTest`: every registered game, at
//! every table size, plays several whole games of random legal actions through `rules::testkit::random_playout`,
//! which checks the engine contract at every step (every listed action is accepted; another seat's action, an
//! early clock action and a seat past the table are refused without a change; the game never stalls; events and
//! every viewer's view serialise; the game ends within the bound with an outcome and nothing left to do; the log
//! replays to the same state). At every step each viewer's view also shows none of its secrets
//! (`rules::Secrets::view_secrets`), and the text the server sends and keeps of every view, legal-action list,
//! action and event, written by the writer `#[derive(json_write::WriteJson)]` generates, is byte for byte serde's,
//! also when one build of a view is rebound from viewer to viewer (`rules::Game::rebind_view`). Games' own tests
//! add their game's invariants to the same harness.

use json_write::WriteJson;
use rules::secrets::view_leaks;
use rules::testkit::random_playout;
use rules::{Game, GameVisitor, Seat, Secrets, Status, Viewer};

/// Whole games per game and table size.
const SEEDS: u64 = 6;
/// The most actions a game may take before the test calls it stalled.
const MAX_STEPS: usize = 20_000;

struct RandomSim {
    games: Vec<(&'static str, u8, usize)>,
}

impl GameVisitor for RandomSim {
    fn visit<G: Game + Secrets>(&mut self) {
        let info = G::info();
        for players in info.min_players..=info.max_players {
            let mut actions = 0;
            for seed in 0..SEEDS {
                let playout = random_playout::<G>(
                    &G::Config::default(),
                    players,
                    0x29_0000 + seed,
                    seed * 7 + u64::from(players),
                    MAX_STEPS,
                    |state| {
                        let viewers: Vec<Viewer> = Seat::all(players)
                            .map(Viewer::Seat)
                            .chain([Viewer::Spectator])
                            .collect();
                        let texts: Vec<String> = viewers
                            .iter()
                            .map(|&v| serde_json::to_string(&state.view(v)).expect("views serialise"))
                            .collect();
                        // The server shows one view to everybody when the engine says they are all the same.
                        if state.same_view_for_everyone() {
                            assert!(
                                texts.iter().all(|t| *t == texts[0]),
                                "{} says every viewer sees the same",
                                info.id
                            );
                        }
                        // The server writes every viewer's view of a change from one build rebound from viewer to
                        // viewer (`Game::rebind_view`), the shared members' text kept from the first
                        // (`json_write::Shared`): each text is that viewer's own, whoever the build was for, in
                        // either order and back to the first.
                        let n = viewers.len();
                        for order in [
                            (0..n).chain([0]).collect::<Vec<_>>(),
                            (0..n).rev().chain([n - 1]).collect(),
                        ] {
                            let mut shared = json_write::Shared::default();
                            let mut write = |view: &G::View<'_>| {
                                let mut out = String::new();
                                view.write_json_shared(&mut out, &mut shared);
                                out
                            };
                            let mut view = state.view(viewers[order[0]]);
                            assert_eq!(write(&view), texts[order[0]], "{}: a view as written", info.id);
                            for &i in &order[1..] {
                                state.rebind_view(&mut view, viewers[i]);
                                assert_eq!(
                                    write(&view),
                                    texts[i],
                                    "{}: a view rebound to {:?}",
                                    info.id,
                                    viewers[i]
                                );
                            }
                        }
                        for viewer in viewers.iter().copied() {
                            // The generated writer the server uses writes serde's exact text.
                            let text = serde_json::to_string(&state.view(viewer)).expect("views serialise");
                            let written = state.view(viewer).to_json_string();
                            assert_eq!(written, text, "{}: {viewer:?}'s view as written", info.id);
                            if let Viewer::Seat(seat) = viewer {
                                let legal = state.legal_actions(seat);
                                let written = legal.to_json_string();
                                assert_eq!(
                                    written,
                                    serde_json::to_string(&legal).unwrap(),
                                    "{}: {seat}'s legal actions",
                                    info.id
                                );
                            }
                            let view = serde_json::to_value(state.view(viewer)).expect("views serialise");
                            let found = view_leaks(state, viewer, &view);
                            assert!(found.is_empty(), "{}: {viewer:?} sees {found:?}", info.id);
                        }
                    },
                );
                assert_eq!(playout.state.status(), Status::Over, "{}", info.id);
                // The actions and events the server keeps are written by the generated writer too: serde's text.
                let mut replay = G::new(&G::Config::default(), players, 0x29_0000 + seed).expect("setup");
                for entry in &playout.log {
                    let action = serde_json::to_string(&entry.action).expect("actions serialise");
                    assert_eq!(
                        entry.action.to_json_string(),
                        action,
                        "{}: an action as written",
                        info.id
                    );
                    let events = replay
                        .apply(entry.actor, &entry.action, entry.at)
                        .expect("the log replays");
                    for event in events {
                        let text = serde_json::to_string(&event.body).expect("events serialise");
                        assert_eq!(
                            event.body.to_json_string(),
                            text,
                            "{}: an event as written",
                            info.id
                        );
                    }
                }
                assert_eq!(
                    playout.state.outcome().expect("an outcome").scores.len(),
                    usize::from(players),
                    "{}: a score per seat",
                    info.id
                );
                actions += playout.log.len();
            }
            self.games.push((info.id, players, actions));
        }
    }
}

#[test]
fn every_registered_game_survives_random_play_at_every_table_size() {
    let mut sim = RandomSim { games: Vec::new() };
    rules::visit_games(&mut sim);
    // Every game of the catalogue was visited at every table size, and played.
    let expected: Vec<(&str, u8)> = rules::catalogue()
        .iter()
        .flat_map(|info| (info.min_players..=info.max_players).map(move |p| (info.id, p)))
        .collect();
    let visited: Vec<(&str, u8)> = sim.games.iter().map(|(id, p, _)| (*id, *p)).collect();
    assert_eq!(visited, expected);
    for (id, players, actions) in sim.games {
        assert!(
            actions as u64 >= SEEDS,
            "{id} {players}p: {actions} actions in {SEEDS} games"
        );
    }
}
