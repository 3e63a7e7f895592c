//! Checks that every engine must pass, written once (after OpenSpiel's `RandomSimTest`).
//!
//! [`random_playout`] plays a whole game with random legal actions and, at every step, verifies the engine's
//! contract: every listed action is accepted, actions that are not listed are refused without changing the
//! state, the game never stalls, and replaying the log reproduces the final state exactly. Engines add their own
//! invariants through the `check` callback. `rules/tests/random_sim.rs` runs it for every registered game at every
//! table size (through `crate::visit_games`); each game's own tests run it with that game's invariants.

use serde::Serialize;

use crate::model::{Actor, Game, Millis, Seat, Status, Viewer};
use crate::rng::Rng;

/// One logged action: who, what, when.
#[derive(Clone, Debug)]
pub struct Logged<A> {
    pub actor: Actor,
    pub action: A,
    pub at: Millis,
}

/// What a playout did.
#[derive(Debug)]
pub struct Playout<G: Game> {
    pub state: G,
    pub log: Vec<Logged<G::Action>>,
    pub rejected_probes: usize,
}

/// The state as JSON, for exact comparisons (the state's serialisation is its identity: snapshots use it).
pub fn fingerprint<T: Serialize>(state: &T) -> String {
    serde_json::to_string(state).expect("game state serialises")
}

/// Plays one game with random legal actions from a driver seeded by `driver_seed` (independent of the game's
/// own seed), checking the engine contract at every step. Panics with a precise message on any violation.
/// `check` runs after setup and after every accepted action.
pub fn random_playout<G: Game>(
    config: &G::Config,
    players: u8,
    seed: u64,
    driver_seed: u64,
    max_steps: usize,
    mut check: impl FnMut(&G),
) -> Playout<G> {
    let mut state = G::new(config, players, seed).expect("setup succeeds");
    check(&state);
    let mut driver = Rng::from_seed(driver_seed);
    let mut now: Millis = 1_700_000_000_000;
    let mut log = Vec::new();
    let mut rejected_probes = 0;

    for step in 0..max_steps {
        if state.status() == Status::Over {
            assert!(state.outcome().is_some(), "game over without an outcome");
            for seat in Seat::all(players) {
                assert!(
                    state.legal_actions(seat).is_empty(),
                    "{seat} has actions after the end"
                );
            }
            assert!(state.deadline().is_none(), "deadline after the end");
            assert_replays(config, players, seed, &log, &state);
            return Playout {
                state,
                log,
                rejected_probes,
            };
        }
        assert!(state.outcome().is_none(), "outcome before the game is over");
        let movers: Vec<(Seat, Vec<G::Action>)> = Seat::all(players)
            .map(|s| (s, state.legal_actions(s)))
            .filter(|(_, actions)| !actions.is_empty())
            .collect();

        // Probes that must be refused and leave the state untouched.
        let before = fingerprint(&state);
        for (seat, _) in Seat::all(players).map(|s| (s, ())) {
            let own = state.legal_actions(seat);
            for (other, actions) in &movers {
                if *other == seat {
                    continue;
                }
                if let Some(foreign) = actions.iter().find(|a| !own.contains(a)) {
                    let mut probe = state.clone();
                    let result = probe.apply(Actor::Seat(seat), foreign, now);
                    assert!(
                        result.is_err(),
                        "step {step}: {seat} may play {other}'s action {foreign:?}"
                    );
                    assert_eq!(fingerprint(&probe), before, "a refused action changed the state");
                    rejected_probes += 1;
                }
            }
        }
        let deadline = state.deadline();
        if let Some((_, actions)) = movers.first() {
            let early = deadline.as_ref().is_none_or(|d| d.at > now);
            if early {
                let mut probe = state.clone();
                let result = probe.apply(Actor::Clock, &actions[0], now);
                assert!(
                    result.is_err(),
                    "step {step}: the clock may act before any deadline"
                );
                assert_eq!(
                    fingerprint(&probe),
                    before,
                    "a refused clock action changed the state"
                );
                rejected_probes += 1;
            }
        }
        if let Some(seat) = Seat::all(players).last() {
            let mut probe = state.clone();
            let bogus = Seat(seat.0 + 1);
            if let Some((_, actions)) = movers.first() {
                assert!(
                    probe.apply(Actor::Seat(bogus), &actions[0], now).is_err(),
                    "a seat past the table acted"
                );
                assert_eq!(fingerprint(&probe), before);
            }
        }

        // Pick who acts: one of the seats with actions, or the clock when it is due (or nobody else can act).
        let clock_due = deadline.as_ref().is_some_and(|d| d.at <= now);
        let take_clock = match (&deadline, movers.is_empty()) {
            (Some(_), true) => true,
            (Some(_), false) => clock_due && driver.below(2) == 0,
            (None, true) => panic!(
                "step {step}: nobody can act and no deadline, status {:?}",
                state.status()
            ),
            (None, false) => false,
        };
        let (actor, action) = if take_clock {
            let d = deadline.expect("deadline");
            now = now.max(d.at);
            (Actor::Clock, d.action)
        } else {
            let (seat, actions) = &movers[driver.index(movers.len())];
            (Actor::Seat(*seat), actions[driver.index(actions.len())].clone())
        };
        let events = state
            .apply(actor, &action, now)
            .unwrap_or_else(|r| panic!("step {step}: listed action {action:?} of {actor:?} refused: {r}"));
        for e in &events {
            serde_json::to_string(&e.body).expect("events serialise");
        }
        for v in Seat::all(players).map(Viewer::Seat).chain([Viewer::Spectator]) {
            serde_json::to_string(&state.view(v)).expect("views serialise");
        }
        check(&state);
        log.push(Logged {
            actor,
            action,
            at: now,
        });
        now += driver.below(3_000);
    }
    panic!("the game did not end within {max_steps} steps");
}

/// Replays `log` from scratch and asserts that it reproduces `expected` exactly.
pub fn assert_replays<G: Game>(
    config: &G::Config,
    players: u8,
    seed: u64,
    log: &[Logged<G::Action>],
    expected: &G,
) {
    let mut replay = G::new(config, players, seed).expect("setup succeeds");
    for (i, entry) in log.iter().enumerate() {
        replay
            .apply(entry.actor, &entry.action, entry.at)
            .unwrap_or_else(|r| panic!("replay step {i}: {:?} refused: {r}", entry.action));
    }
    assert_eq!(fingerprint(&replay), fingerprint(expected), "replay diverged");
}

/// Plays one whole game in which the seats marked in `bots` play [`Game::bot_action`] and the others uniformly
/// random legal actions (`crate::bot::random_legal`), and returns the final state. Whenever several seats may
/// act, the driver picks one of them at random, so a random seat gets as many turns to act as a bot; a due
/// deadline is taken half of the time (always when nobody else can act), and the clock advances 0-3 s between
/// actions, as in [`random_playout`]. Panics if the game does not end within `max_steps` or an action is refused.
pub fn bot_match<G: Game>(
    config: &G::Config,
    seed: u64,
    driver_seed: u64,
    bots: &[bool],
    max_steps: usize,
) -> G {
    let players = bots.len() as u8;
    let mut state = G::new(config, players, seed).expect("setup succeeds");
    let mut driver = Rng::from_seed(driver_seed);
    let mut bot_rng = driver.fork();
    let mut now: Millis = 1_700_000_000_000;
    for step in 0..max_steps {
        if state.status() == Status::Over {
            return state;
        }
        // A bot that lets its optional interrupts pass (`Game::bot_waits`) is not asked, as on the server.
        let movers: Vec<Seat> = Seat::all(players)
            .filter(|s| !state.legal_actions(*s).is_empty())
            .filter(|s| !(bots[s.index()] && state.bot_waits(*s)))
            .collect();
        let deadline = state.deadline();
        let clock_due = deadline.as_ref().is_some_and(|d| d.at <= now);
        let (actor, action) = match deadline {
            Some(d) if movers.is_empty() || (clock_due && driver.below(2) == 0) => {
                now = now.max(d.at);
                (Actor::Clock, d.action)
            }
            _ => {
                let seat = *driver
                    .choose(&movers)
                    .unwrap_or_else(|| panic!("step {step}: nobody can act and no deadline"));
                let action = if bots[seat.index()] {
                    state
                        .bot_action(seat, &mut bot_rng)
                        .expect("a bot with legal actions moves")
                } else {
                    crate::bot::random_legal(&state, seat, &mut driver).expect("legal actions")
                };
                (Actor::Seat(seat), action)
            }
        };
        state
            .apply(actor, &action, now)
            .unwrap_or_else(|r| panic!("step {step}: {actor:?}'s action {action:?} refused: {r}"));
        now += driver.below(3_000);
    }
    panic!("the game did not end within {max_steps} steps");
}

/// The server's door into a game ([`crate::AnyGame`]) speaks JSON text; a test that looks inside reads values
/// from that text, as the admin pages do. Only tests use this: the server sends and keeps the text.
pub trait Parsed {
    /// `viewer`'s view (from [`crate::AnyGame::views`]).
    fn view_value(&self, viewer: Viewer) -> serde_json::Value;
    /// `seat`'s legal actions (from [`crate::AnyGame::legal_actions`]).
    fn legal_values(&self, seat: Seat) -> Vec<serde_json::Value>;
    /// Applies `action` as its text, and reads the events back (from [`crate::AnyGame::apply`]).
    fn apply_value(
        &mut self,
        actor: Actor,
        action: &serde_json::Value,
        now: Millis,
    ) -> Result<Vec<crate::Event<serde_json::Value>>, crate::Rejection>;
    /// The engine's deadline with the clock's action (from [`crate::AnyGame::deadline`]).
    fn deadline_value(&self) -> Option<crate::Deadline<serde_json::Value>>;
    /// `seat`'s skip (from [`crate::AnyGame::skip_action`]).
    fn skip_value(&self, seat: Seat) -> Option<serde_json::Value>;
    /// The whole state (from [`crate::AnyGame::full_state`]).
    fn state_value(&self) -> serde_json::Value;
}

fn parse(text: &str) -> serde_json::Value {
    serde_json::from_str(text).expect("the game writes JSON")
}

impl Parsed for crate::AnyGame {
    fn view_value(&self, viewer: Viewer) -> serde_json::Value {
        parse(self.views(&[viewer], &mut 0)[0].get())
    }

    fn legal_values(&self, seat: Seat) -> Vec<serde_json::Value> {
        serde_json::from_str(self.legal_actions(seat, &mut json_write::Buffer::default()))
            .expect("the game writes JSON")
    }

    fn apply_value(
        &mut self,
        actor: Actor,
        action: &serde_json::Value,
        now: Millis,
    ) -> Result<Vec<crate::Event<serde_json::Value>>, crate::Rejection> {
        let applied = self.apply(actor, &action.to_string(), now)?;
        Ok(applied
            .events
            .iter()
            .map(|e| crate::Event {
                audience: e.audience.clone(),
                body: parse(e.body.get()),
            })
            .collect())
    }

    fn deadline_value(&self) -> Option<crate::Deadline<serde_json::Value>> {
        self.deadline().map(|d| crate::Deadline {
            at: d.at,
            action: parse(d.action.get()),
        })
    }

    fn skip_value(&self, seat: Seat) -> Option<serde_json::Value> {
        self.skip_action(seat).map(|a| parse(a.get()))
    }

    fn state_value(&self) -> serde_json::Value {
        parse(&self.full_state())
    }
}

#[cfg(test)]
mod tests {
    //! A tiny game that exercises the harness itself: take 1-3 from a pile in turn; whoever takes the last wins.
    //! After each take there is a one-second window in which the other seat may "object" (a race), closed by
    //! the clock, so turns, races and deadlines are all covered.
    use super::*;
    use crate::model::*;
    use serde::Deserialize;

    #[derive(Clone, Debug, Serialize, Deserialize)]
    struct Pile {
        left: u32,
        turn: Seat,
        window_until: Option<Millis>,
        objections: u32,
        rng: Rng,
    }
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize, json_write::WriteJson)]
    enum Act {
        Take(u32),
        Object,
        CloseWindow,
    }
    #[derive(Clone, Debug, PartialEq, Eq)]
    enum No {
        Turn,
        Illegal,
        Over,
        NotDue,
        Seat,
    }
    impl std::fmt::Display for No {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            write!(f, "{self:?}")
        }
    }
    impl Reject for No {
        fn kind(&self) -> RejectKind {
            match self {
                No::Turn => RejectKind::NotYourTurn,
                No::Illegal => RejectKind::IllegalAction,
                No::Over => RejectKind::GameOver,
                No::NotDue => RejectKind::NotDue,
                No::Seat => RejectKind::NoSuchSeat,
            }
        }
    }
    impl Game for Pile {
        type Config = ();
        type Action = Act;
        type Event = String;
        type View<'a> = u32;
        type Reject = No;
        fn info() -> GameInfo {
            GameInfo {
                id: "pile",
                name: "Pile",
                rules_version: 1,
                min_players: 2,
                max_players: 2,
                can_skip: false,
                options: vec![],
            }
        }
        fn new(_: &(), players: u8, seed: u64) -> Result<Self, SetupError> {
            let mut rng = Rng::from_seed(seed);
            Ok(Pile {
                left: 10 + rng.below(10) as u32,
                turn: Seat(0),
                window_until: None,
                objections: 0,
                rng,
            }
            .with(players))
        }
        fn bot_action(&self, seat: Seat, rng: &mut Rng) -> Option<Act> {
            crate::bot::random_legal(self, seat, rng)
        }
        fn players(&self) -> u8 {
            2
        }
        fn status(&self) -> Status {
            if self.left == 0 {
                Status::Over
            } else if self.window_until.is_some() {
                Status::Race {
                    seats: vec![self.turn],
                }
            } else {
                Status::Turn { seat: self.turn }
            }
        }
        fn legal_actions(&self, seat: Seat) -> Vec<Act> {
            if self.left == 0 || seat != self.turn {
                vec![]
            } else if self.window_until.is_some() {
                vec![Act::Object]
            } else {
                (1..=self.left.min(3)).map(Act::Take).collect()
            }
        }
        fn apply(&mut self, actor: Actor, action: &Act, now: Millis) -> Result<Vec<Event<String>>, No> {
            if self.left == 0 {
                return Err(No::Over);
            }
            match actor {
                Actor::Clock => match (self.window_until, action) {
                    (Some(at), Act::CloseWindow) if at <= now => {
                        self.window_until = None;
                        Ok(vec![Event::public("closed".into())])
                    }
                    _ => Err(No::NotDue),
                },
                Actor::Seat(s) if s.0 >= 2 => Err(No::Seat),
                Actor::Seat(s) if s != self.turn => Err(No::Turn),
                Actor::Seat(_) => {
                    if !self.legal_actions(self.turn).contains(action) {
                        return Err(No::Illegal);
                    }
                    match action {
                        Act::Take(n) => {
                            self.left -= n;
                            self.turn = self.turn.next(2);
                            if self.left > 0 {
                                self.window_until = Some(now + 1000);
                            }
                        }
                        Act::Object => {
                            self.objections += 1;
                            self.window_until = None;
                        }
                        Act::CloseWindow => unreachable!("never listed"),
                    }
                    Ok(vec![Event::public(format!("{action:?}"))])
                }
            }
        }
        fn view(&self, _: Viewer) -> u32 {
            self.left
        }
        fn deadline(&self) -> Option<Deadline<Act>> {
            self.window_until.map(|at| Deadline {
                at,
                action: Act::CloseWindow,
            })
        }
        fn outcome(&self) -> Option<Outcome> {
            (self.left == 0).then(|| {
                let winner = self.turn.next(2);
                let scores: Vec<i64> = Seat::all(2).map(|s| i64::from(s == winner)).collect();
                Outcome::ranked(scores.clone(), scores)
            })
        }
    }
    impl Pile {
        fn with(self, _players: u8) -> Self {
            self
        }
    }

    #[test]
    fn harness_plays_the_fixture_to_the_end_and_replays_it() {
        for seed in 0..200 {
            let p = random_playout::<Pile>(&(), 2, seed, seed * 7 + 1, 1000, |g| assert!(g.left < 20));
            assert_eq!(p.state.status(), Status::Over);
            assert!(p.rejected_probes > 0);
            assert!(
                p.log.iter().any(|l| l.actor == Actor::Clock)
                    || p.log.iter().any(|l| l.action == Act::Object)
            );
        }
    }
}
