//! Correspondence tables (issue 47, point 1): a lobby's pace, each seat's clock (a bank that loses the time the
//! seat used and gains `move_ms` once per turn, when its action ends its decision, capped), the stall policies when a bank runs out, vacations, and
//! clocks that survive a restart. Time is a manual clock: hours and days pass at once.

use std::time::Duration;

use integration_tests::req::LobbySettings;
use integration_tests::*;
use protocol::{ActedBy, Pace, StallPolicy};
use serde_json::{Value, json};
use server::{Clock, store::LogEntry};

const MINUTE: u64 = 60_000;
const HOUR: u64 = 60 * MINUTE;
const DAY: u64 = 24 * HOUR;

/// A lobby of `game` with this pace, `humans` human seats (the host first) and bots for the rest, started.
async fn start_paced(
    server: &TestServer,
    game: &str,
    seats: u8,
    humans: u8,
    pace: Pace,
) -> (String, Vec<Player>) {
    let mut host = server.client().await;
    let created = host
        .request(req::create_lobby(game, seats, "Host").pace(pace))
        .await;
    assert_eq!(created["type"], "seated", "{created}");
    let code = created["code"].as_str().unwrap().to_string();
    let mut players = vec![Player {
        client: host,
        seat: 0,
        token: created["seat_token"].as_str().unwrap().to_string(),
    }];
    for i in 1..humans {
        let mut c = server.client().await;
        let joined = c.request(req::join(&code, &format!("P{i}"))).await;
        assert_eq!(joined["type"], "seated", "{joined}");
        players.push(Player {
            client: c,
            seat: i,
            token: joined["seat_token"].as_str().unwrap().to_string(),
        });
    }
    for _ in humans..seats {
        let r = players[0].client.request(req::add_bot()).await;
        assert_eq!(r["type"], "ok", "{r}");
    }
    let r = players[0].client.request(req::start()).await;
    assert_eq!(r["type"], "ok", "{r}");
    for p in &mut players {
        p.client.wait_version(0).await;
    }
    let lobby = players[0].client.lobby.clone().unwrap();
    assert_eq!(lobby["pace"], serde_json::to_value(pace).unwrap(), "{lobby}");
    (code, players)
}

fn pace(move_ms: u64, bank_cap_ms: u64, stall: StallPolicy) -> Pace {
    req::correspondence(move_ms, bank_cap_ms, stall)
}

/// `(left_ms, running)` of every seat in a state push.
fn clocks(state: &Value) -> Vec<(u64, bool)> {
    state["clocks"]
        .as_array()
        .unwrap_or_else(|| panic!("no clocks in {state}"))
        .iter()
        .enumerate()
        .map(|(i, c)| {
            assert_eq!(c["seat"], i);
            (c["left_ms"].as_u64().unwrap(), c["running"].as_bool().unwrap())
        })
        .collect()
}

/// The test's own account of the clocks: each seat's bank and since when it runs.
struct Model {
    move_ms: u64,
    cap: u64,
    banks: Vec<(u64, Option<u64>)>,
}

impl Model {
    fn new(move_ms: u64, cap: u64, state: &Value, now: u64) -> Model {
        let seats = state["clocks"].as_array().unwrap().len();
        let d = deciding(state);
        Model {
            move_ms,
            cap,
            banks: (0..seats)
                .map(|s| (move_ms, d.contains(&(s as u64)).then_some(now)))
                .collect(),
        }
    }

    /// `actor` acted at `now`, leading to `state`. Every seat that stops deciding is charged its time; the actor
    /// gains `move_ms` once per decision, when its action ends it: it no longer decides, or a new step began (a
    /// seat starts deciding).
    fn acted(&mut self, actor: usize, now: u64, state: &Value) {
        let d = deciding(state);
        let step_began = d.iter().any(|s| self.banks[*s as usize].1.is_none());
        for (s, (left, since)) in self.banks.iter_mut().enumerate() {
            let decides = d.contains(&(s as u64));
            let ended = s == actor && (!decides || step_began);
            if let Some(t) = *since
                && (ended || !decides)
            {
                *left = left.saturating_sub(now - t);
                *since = None;
                if ended {
                    *left = (*left + self.move_ms).min(self.cap);
                }
            }
            if since.is_none() && decides {
                *since = Some(now);
            }
        }
    }

    fn shown_at(&self, now: u64) -> Vec<(u64, bool)> {
        self.banks
            .iter()
            .map(|(left, since)| (left - since.map_or(0, |t| now - t), since.is_some()))
            .collect()
    }
}

/// Plays seat `seat`'s first legal action now; returns the state every player then sees.
async fn act(players: &mut [Player], seat: usize) -> Value {
    act_with(players, seat, |legal| legal[0].clone()).await
}

/// Seat `seat` makes every decision it has now (first legal actions); returns the state after the last.
async fn play_turn(players: &mut [Player], seat: usize) -> Value {
    loop {
        let state = act(players, seat).await;
        if !deciding(&state).contains(&(seat as u64)) {
            return state;
        }
    }
}

/// Plays the action `pick` chooses among seat `seat`'s legal actions now; returns the state every player then sees.
async fn act_with(players: &mut [Player], seat: usize, pick: impl Fn(&[Value]) -> Value) -> Value {
    let state = players[seat].client.state.clone().unwrap();
    let version = state["version"].as_u64().unwrap();
    let action = pick(state["legal_actions"].as_array().unwrap());
    let r = players[seat].client.request(req::action(&action, version)).await;
    assert_eq!(r["type"], "accepted", "{r}");
    let mut last = Value::Null;
    for p in players.iter_mut() {
        last = p.client.wait_version(version + 1).await;
    }
    last
}

async fn log_of(db: &TestDb, state: &Value) -> Vec<LogEntry> {
    let store = db.store().await;
    let log = store
        .action_log(state["match_id"].as_str().unwrap())
        .await
        .unwrap();
    store.close().await;
    log
}

/// Two round trips through the table: what the table had to do at the clock's time is done (each command is served
/// after the wake-ups that were due when it arrived, or the next one is).
async fn settle(client: &mut Client) {
    for _ in 0..2 {
        let r = client.request(req::presence(false)).await;
        assert_eq!(r["type"], "ok", "{r}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bank_loses_the_time_used_and_gains_move_ms_up_to_its_cap() {
    for backend in backends() {
        let db = TestDb::new(backend).await;
        let server = TestServer::start(&db, test_config()).await;
        let (code, mut players) = start_paced(
            &server,
            "hickory_dickory",
            2,
            2,
            pace(HOUR, 3 * HOUR, StallPolicy::Bot),
        )
        .await;
        let mut state = players[0].client.state.clone().unwrap();
        let mut model = Model::new(HOUR, 3 * HOUR, &state, server.clock.now());
        assert_eq!(clocks(&state), model.shown_at(server.clock.now()));
        let mut capped = false;
        // A bank gains `move_ms` once per turn (a Hickory Dickory turn may be several decisions).
        for step in 0..60u64 {
            let seat = state["status"]["seat"].as_u64().expect("a turn") as usize;
            server.clock.advance((step % 3) * 5 * MINUTE);
            let now = server.clock.now();
            state = act(&mut players, seat).await;
            model.acted(seat, now, &state);
            assert_eq!(clocks(&state), model.shown_at(now), "after step {step}:\n{state}");
            capped |= model.banks[seat].0 == 3 * HOUR;
            if capped && step >= 8 {
                break;
            }
        }
        assert!(capped, "a bank reached its cap");
        // The bank on turn counts down between pushes (seen on a resume).
        let seat = state["status"]["seat"].as_u64().unwrap() as usize;
        server.clock.advance(7 * MINUTE);
        let mut again = server.client().await;
        let r = again.request(req::resume(&code, &players[seat].token)).await;
        assert_eq!(r["type"], "resumed", "{r}");
        let resumed = again.wait_version(state["version"].as_u64().unwrap()).await;
        assert_eq!(clocks(&resumed), model.shown_at(server.clock.now()));
        assert_eq!(clocks(&resumed)[seat].0, clocks(&state)[seat].0 - 7 * MINUTE);
        server.stop().await;
        db.drop_db().await;
    }
}

/// `stop` when it is listed, otherwise the first legal action (a fortune card's choice comes before brewing).
fn stop_or_first(legal: &[Value]) -> Value {
    let stop = json!({"type": "stop"});
    if legal.contains(&stop) {
        stop
    } else {
        legal[0].clone()
    }
}

/// Seat `seat` stops brewing now (answering a card's choice first if it has one); returns the state after it.
async fn stop_brewing(players: &mut [Player], seat: usize) -> Value {
    let stop = json!({"type": "stop"});
    loop {
        let stops = players[seat].client.state.as_ref().unwrap()["legal_actions"]
            .as_array()
            .unwrap()
            .contains(&stop);
        let state = act_with(players, seat, stop_or_first).await;
        if stops || !deciding(&state).contains(&(seat as u64)) {
            return state;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_simultaneous_step_charges_each_seat_only_its_own_time() {
    for backend in backends() {
        let db = TestDb::new(backend).await;
        let server = TestServer::start(&db, test_config()).await;
        let cap = 30 * DAY;
        let (_code, mut players) =
            start_paced(&server, "quacks", 3, 3, pace(HOUR, cap, StallPolicy::Bot)).await;
        let start = server.clock.now();
        let state = players[0].client.state.clone().unwrap();
        assert_eq!(deciding(&state), vec![0, 1, 2], "{state}");
        let mut model = Model::new(HOUR, cap, &state, start);
        server.clock.advance(10 * MINUTE);
        let state = stop_brewing(&mut players, 0).await;
        model.acted(0, start + 10 * MINUTE, &state);
        assert_eq!(clocks(&state), model.shown_at(start + 10 * MINUTE));
        server.clock.advance(20 * MINUTE);
        let state = stop_brewing(&mut players, 1).await;
        model.acted(1, start + 30 * MINUTE, &state);
        let shown = clocks(&state);
        assert_eq!(shown, model.shown_at(start + 30 * MINUTE));
        // Seat 2 is still brewing: charged its own 30 minutes only, still running. Seats 0 and 1 stopped after 10
        // and 30 minutes: each was charged its own time and gained an hour.
        assert_eq!(shown[2], (HOUR - 30 * MINUTE, true));
        assert_eq!(shown[0], (2 * HOUR - 10 * MINUTE, false));
        assert_eq!(shown[1], (2 * HOUR - 30 * MINUTE, false));
        server.stop().await;
        db.drop_db().await;
    }
}

/// A decision of several actions gains `move_ms` once, when it ends (once per turn, not per action): a Quacks
/// brew of three draws and a stop gains one hour, not four; the last brewer's stop opens the buying, a new decision,
/// and gains its hour too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_brew_of_several_draws_gains_move_ms_once_when_it_ends() {
    for backend in backends() {
        let db = TestDb::new(backend).await;
        let server = TestServer::start(&db, test_config()).await;
        let cap = 30 * DAY;
        let (_code, mut players) =
            start_paced(&server, "quacks", 2, 2, pace(HOUR, cap, StallPolicy::Bot)).await;
        let start = server.clock.now();
        let mut state = players[0].client.state.clone().unwrap();
        let mut model = Model::new(HOUR, cap, &state, start);
        let draw = json!({"type": "draw"});
        let mut draws = 0;
        while deciding(&state).contains(&0) {
            server.clock.advance(10 * MINUTE);
            let now = server.clock.now();
            let legal = players[0].client.state.as_ref().unwrap()["legal_actions"].clone();
            let legal = legal.as_array().unwrap();
            let action = if draws < 3 && legal.contains(&draw) {
                draws += 1;
                draw.clone()
            } else {
                stop_or_first(legal)
            };
            state = act_with(&mut players, 0, |_| action.clone()).await;
            model.acted(0, now, &state);
            assert_eq!(clocks(&state), model.shown_at(now), "{state}");
            if deciding(&state).contains(&0) {
                // Still brewing: charged, nothing gained.
                assert_eq!(clocks(&state)[0], (HOUR - (now - start), true), "{state}");
            }
        }
        let used = server.clock.now() - start;
        assert!(
            draws >= 1 && used >= 20 * MINUTE,
            "seat 0 drew before its brew ended"
        );
        assert_eq!(
            clocks(&state)[0],
            (2 * HOUR - used, false),
            "one hour gained: {state}"
        );

        // Seat 1, the last one brewing, stops: its clock gains an hour and runs on into the buying.
        server.clock.advance(5 * MINUTE);
        let now = server.clock.now();
        let state = stop_brewing(&mut players, 1).await;
        model.acted(1, now, &state);
        assert_eq!(clocks(&state), model.shown_at(now), "{state}");
        assert_eq!(deciding(&state), vec![0, 1], "the buying: {state}");
        assert_eq!(clocks(&state)[1], (2 * HOUR - (now - start), true), "{state}");
        server.stop().await;
        db.drop_db().await;
    }
}

/// Alice (seat 0) moves at once until only Bob (seat 1) must decide (in Quacks she stops brewing): her bank grows
/// to two hours, Bob's hour runs from the start.
async fn bobs_turn(players: &mut [Player]) {
    while deciding(players[0].client.state.as_ref().unwrap()) != vec![1] {
        act_with(players, 0, stop_or_first).await;
    }
}

/// Seat 1 (disconnected) on turn with its bank `HOUR` since `since`: nothing is played for it before its bank is
/// out, even a millisecond before; then the stall policy acts at that moment. Returns the log after it.
async fn run_out(server: &TestServer, players: &mut [Player], db: &TestDb, since: u64) -> Vec<LogEntry> {
    let state = players[0].client.state.clone().unwrap();
    let before = log_of(db, &state).await.len();
    server.clock.set(since + HOUR - 1);
    settle(&mut players[0].client).await;
    assert_eq!(
        log_of(db, &state).await.len(),
        before,
        "nothing is played before the clock runs out"
    );
    server.clock.set(since + HOUR);
    loop {
        let log = log_of(db, &state).await;
        if log.len() > before {
            break log;
        }
        players[0].client.next_push().await.expect("pushes");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bank_run_out_plays_the_bot_or_skips_by_the_stall_policy() {
    for backend in backends() {
        for (game, stall, by) in [
            ("hickory_dickory", StallPolicy::Bot, ActedBy::TurnTimer),
            ("quacks", StallPolicy::Skip, ActedBy::Skip),
        ] {
            let db = TestDb::new(backend).await;
            let server = TestServer::start(&db, test_config()).await;
            let (_code, mut players) = start_paced(&server, game, 2, 2, pace(HOUR, 2 * HOUR, stall)).await;
            let since = server.clock.now();
            bobs_turn(&mut players).await;
            // Bob closes his page: the absence policy of a correspondence lobby is `wait`, nothing stands in.
            let bob = players.pop().unwrap();
            bob.client.close().await;
            let log = run_out(&server, &mut players, &db, since).await;
            let played = log.last().unwrap();
            assert_eq!(played.actor, rules::Actor::Seat(rules::Seat(1)), "{played:?}");
            assert_eq!(played.by, by, "{game}");
            assert_eq!(played.at, since + HOUR, "played when the bank ran out");
            // Once its decision is made (the bot plays it out: the bank stays empty until then), the seat gets
            // `move_ms` for its next one.
            let refilled =
                |s: &Value| s["version"].as_u64().unwrap() >= played.seq && clocks(s)[1].0 >= HOUR - 1;
            if !refilled(players[0].client.state.as_ref().unwrap()) {
                players[0].client.wait_push("state", refilled).await;
            }
            server.stop().await;
            db.drop_db().await;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bank_run_out_ends_the_match_as_timed_out_under_end() {
    for backend in backends() {
        let db = TestDb::new(backend).await;
        let server = TestServer::start(&db, test_config()).await;
        let (code, mut players) = start_paced(
            &server,
            "hickory_dickory",
            2,
            2,
            pace(HOUR, 2 * HOUR, StallPolicy::End),
        )
        .await;
        let since = server.clock.now();
        bobs_turn(&mut players).await;
        let bob = players.pop().unwrap();
        bob.client.close().await;
        let state = players[0].client.state.clone().unwrap();
        let version = state["version"].as_u64().unwrap();
        server.clock.set(since + HOUR - 1);
        settle(&mut players[0].client).await;
        assert_eq!(players[0].client.lobby.as_ref().unwrap()["phase"], "playing");
        server.clock.set(since + HOUR);
        let lobby = players[0]
            .client
            .wait_push("lobby", |l| l["phase"] == "finished")
            .await;
        assert_eq!(lobby["timed_out"], 1, "{lobby}");
        assert_eq!(log_of(&db, &state).await.len() as u64, version, "nothing played");
        let r = players[0].client.request(req::action(&json!({}), None)).await;
        assert_eq!(r["code"], "game_over", "{r}");
        let store = db.store().await;
        let status = store
            .match_status(state["match_id"].as_str().unwrap())
            .await
            .unwrap()
            .unwrap();
        assert_eq!(status.status, "timed_out");
        store.close().await;

        // After a restart, a returning seat sees why.
        let clock = server.clock.clone();
        server.stop().await;
        let server = TestServer::start_with_clock(&db, test_config(), clock).await;
        let mut back = server.client().await;
        let r = back.request(req::resume(&code, &bob.token)).await;
        assert_eq!(r["type"], "resumed", "{r}");
        let lobby = back.wait_push("lobby", |_| true).await;
        assert_eq!(lobby["phase"], "finished", "{lobby}");
        assert_eq!(lobby["timed_out"], 1, "{lobby}");
        server.stop().await;
        db.drop_db().await;
    }
}

/// Abandonment (nobody at a playing match for `ABANDON_AFTER_SECS`) never cuts a correspondence clock that still
/// has time: with abandonment after 2 days and banks grown to their cap of 3 days, the match nobody is at still
/// plays 2 days and an hour later, and ends by its stall policy (`end`) when the waiting seat's bank runs out.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn abandonment_waits_for_a_correspondence_clock_with_time_left() {
    for backend in backends() {
        let db = TestDb::new(backend).await;
        let mut config = test_config();
        config.abandon_after_secs = 2 * 24 * 3600;
        let server = TestServer::start(&db, config).await;
        let (code, mut players) = start_paced(
            &server,
            "hickory_dickory",
            2,
            2,
            pace(DAY, 3 * DAY, StallPolicy::End),
        )
        .await;
        // Four quick turns: each gains a day, so both banks reach their cap.
        let mut state = players[0].client.state.clone().unwrap();
        for _ in 0..4 {
            let seat = deciding(&state)[0] as usize;
            state = play_turn(&mut players, seat).await;
        }
        let waiting = deciding(&state)[0] as usize;
        assert_eq!(clocks(&state)[waiting], (3 * DAY, true), "{state}");
        let match_id = state["match_id"].as_str().unwrap().to_string();
        for player in players {
            player.client.close().await;
        }
        let store = db.store().await;
        let mut idle = false;
        for _ in 0..400 {
            idle = store
                .load_idleness(&code)
                .await
                .unwrap()
                .unwrap()
                .idle_since
                .is_some();
            if idle {
                break;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        assert!(idle, "the table stored that nobody is at it");
        let status = async || store.match_status(&match_id).await.unwrap().unwrap().status;
        let since = server.clock.now();
        server.clock.set(since + 2 * DAY + HOUR);
        tokio::time::sleep(Duration::from_millis(500)).await;
        assert_eq!(
            status().await,
            "playing",
            "not abandoned while the clock has a day left"
        );
        server.clock.set(since + 3 * DAY);
        let mut ended = String::new();
        for _ in 0..400 {
            ended = status().await;
            if ended != "playing" {
                break;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        assert_eq!(
            ended, "timed_out",
            "the stall policy ends it when the bank runs out"
        );
        store.close().await;
        server.stop().await;
        db.drop_db().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clocks_and_vacations_are_what_they_were_after_a_restart() {
    for backend in backends() {
        let db = TestDb::new(backend).await;
        let server = TestServer::start(&db, test_config()).await;
        let (code, mut players) = start_paced(
            &server,
            "hickory_dickory",
            2,
            2,
            pace(2 * HOUR, 5 * HOUR, StallPolicy::Bot),
        )
        .await;
        for minutes in [15, 40, 5] {
            server.clock.advance(minutes * MINUTE);
            let seat = players[0].client.state.as_ref().unwrap()["status"]["seat"]
                .as_u64()
                .unwrap() as usize;
            act(&mut players, seat).await;
        }
        server.clock.advance(25 * MINUTE);
        // The seat on turn pauses its clock for two days, half an hour after its turn began.
        let seat = players[0].client.state.as_ref().unwrap()["status"]["seat"]
            .as_u64()
            .unwrap() as usize;
        let version = players[0].client.state.as_ref().unwrap()["version"]
            .as_u64()
            .unwrap();
        let r = players[seat].client.request(req::vacation(2)).await;
        assert_eq!(r["type"], "ok", "{r}");
        let before = players[0]
            .client
            .wait_push("state", |s| s["clocks"][seat]["running"] == false)
            .await;
        assert_eq!(
            before["clocks"][seat]["vacation_until"],
            server.clock.now() + 2 * DAY
        );
        server.clock.advance(DAY);
        let mut seen_before = clocks(&before);
        let other = 1 - seat;
        // The other seat is not running: its bank is unchanged a day later.
        assert!(!seen_before[other].1);

        let clock = server.clock.clone();
        server.stop().await;
        let server = TestServer::start_with_clock(&db, test_config(), clock).await;
        for p in &players {
            let mut c = server.client().await;
            let r = c.request(req::resume(&code, &p.token)).await;
            assert_eq!(r["type"], "resumed", "{r}");
            let state = c.wait_version(version).await;
            assert_eq!(clocks(&state), seen_before, "{state}");
            assert_eq!(
                state["clocks"][seat]["vacation_until"],
                before["clocks"][seat]["vacation_until"]
            );
        }
        // Once the vacation is over, the clock runs from where it stopped.
        server.clock.advance(DAY + 10 * MINUTE);
        let mut c = server.client().await;
        let r = c.request(req::resume(&code, &players[0].token)).await;
        assert_eq!(r["type"], "resumed", "{r}");
        let state = c.wait_version(version).await;
        seen_before[seat] = (seen_before[seat].0 - 10 * MINUTE, true);
        let mut shown = clocks(&state);
        shown[seat].1 = true;
        assert_eq!(shown, seen_before, "{state}");
        assert_eq!(state["clocks"][seat]["running"], true);
        server.stop().await;
        db.drop_db().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_vacation_stops_the_clock_and_is_refused_past_the_monthly_allowance() {
    for backend in backends() {
        let db = TestDb::new(backend).await;
        let server = TestServer::start(&db, test_config()).await;
        let (code, mut players) = start_paced(
            &server,
            "hickory_dickory",
            2,
            2,
            pace(HOUR, 2 * HOUR, StallPolicy::Bot),
        )
        .await;
        let state = players[0].client.state.clone().unwrap();
        let seat = state["status"]["seat"].as_u64().unwrap() as usize;
        let version = state["version"].as_u64().unwrap();
        server.clock.advance(10 * MINUTE);
        let r = players[seat].client.request(req::vacation(8)).await;
        assert_eq!(r["code"], "bad_options", "{r}");
        assert!(r["message"].as_str().unwrap().contains("7 vacation days"), "{r}");
        let r = players[seat].client.request(req::vacation(5)).await;
        assert_eq!(r["type"], "ok", "{r}");
        let paused = players[0]
            .client
            .wait_push("state", |s| s["clocks"][seat]["running"] == false)
            .await;
        assert_eq!(paused["clocks"][seat]["left_ms"], HOUR - 10 * MINUTE);
        // Three days later nothing was charged, and nothing was played (the bank would have run out).
        server.clock.advance(3 * DAY);
        settle(&mut players[0].client).await;
        let mut look = server.client().await;
        let r = look.request(req::resume(&code, &players[seat].token)).await;
        assert_eq!(r["type"], "resumed", "{r}");
        let state = look.wait_version(version).await;
        assert_eq!(state["version"], version);
        assert_eq!(state["clocks"][seat]["left_ms"], HOUR - 10 * MINUTE);
        assert_eq!(state["clocks"][seat]["running"], false);
        let r = look.request(req::vacation(1)).await;
        assert_eq!(r["code"], "bad_options", "already on vacation: {r}");
        // Ended early, the clock runs again from now; the 5 days stay taken.
        let r = look.request(req::end_vacation()).await;
        assert_eq!(r["type"], "ok", "{r}");
        let running = look
            .wait_push("state", |s| s["clocks"][seat]["running"] == true)
            .await;
        assert!(
            running["clocks"][seat].get("vacation_until").is_none(),
            "{running}"
        );
        let r = look.request(req::vacation(3)).await;
        assert_eq!(r["code"], "bad_options", "{r}");
        assert!(r["message"].as_str().unwrap().contains("2 vacation days"), "{r}");
        let r = look.request(req::end_vacation()).await;
        assert_eq!(r["code"], "bad_options", "not on vacation: {r}");
        server.clock.advance(5 * MINUTE);
        // Its turn is charged 15 minutes in all, and gains an hour when it ends.
        players[seat].client = look;
        let state = play_turn(&mut players, seat).await;
        assert_eq!(state["clocks"][seat]["left_ms"], 2 * HOUR - 15 * MINUTE);
        // A live match has no vacation.
        let (_c, mut live) = start_match(server.addr, "hickory_dickory", Value::Null, 2, 2).await;
        let live_state = live[0].client.state.clone().unwrap();
        assert!(live_state.get("clocks").is_none(), "{live_state}");
        assert_eq!(
            live[0].client.lobby.as_ref().unwrap()["pace"],
            json!({"kind": "live"})
        );
        let r = live[0].client.request(req::vacation(1)).await;
        assert_eq!(r["code"], "bad_options", "{r}");
        server.stop().await;
        db.drop_db().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_pace_options_are_refused_in_words() {
    let db = TestDb::new("sqlite").await;
    let server = TestServer::start(&db, test_config()).await;
    let mut c = server.client().await;
    let refused = [
        (
            req::create_lobby("hickory_dickory", 2, "A").pace(pace(MINUTE, HOUR, StallPolicy::Bot)),
            "pace.move_ms",
        ),
        (
            req::create_lobby("hickory_dickory", 2, "A").pace(pace(15 * DAY, 20 * DAY, StallPolicy::Bot)),
            "pace.move_ms",
        ),
        (
            req::create_lobby("hickory_dickory", 2, "A").pace(pace(2 * HOUR, HOUR, StallPolicy::Bot)),
            "pace.bank_cap_ms",
        ),
        (
            req::create_lobby("hickory_dickory", 2, "A").pace(pace(HOUR, 31 * DAY, StallPolicy::Bot)),
            "pace.bank_cap_ms",
        ),
        (
            req::create_lobby("hickory_dickory", 2, "A").pace(pace(HOUR, HOUR, StallPolicy::Skip)),
            "pace.stall",
        ),
        (
            req::create_lobby("quacks", 2, "A")
                .pace(pace(HOUR, HOUR, StallPolicy::End))
                .turn_timer_ms(60_000),
            "turn_timer_ms",
        ),
        (
            req::create_lobby("quacks", 2, "A")
                .pace(pace(HOUR, HOUR, StallPolicy::End))
                .absent(req::bot_after(1000)),
            "absent",
        ),
    ];
    for (request, names) in refused {
        let r = c.request(request).await;
        assert_eq!(r["code"], "bad_options", "{r}");
        assert!(r["message"].as_str().unwrap().contains(names), "{r}");
    }
    let r = c
        .request(json!({"type": "create_lobby", "game": "quacks", "seats": 2, "name": "A",
            "pace": {"kind": "correspondence", "move_ms": "an hour", "bank_cap_ms": 3_600_000, "stall": "bot"}}))
        .await;
    assert_eq!(r["code"], "bad_message", "{r}");
    assert!(r["message"].as_str().unwrap().contains("pace"), "{r}");
    assert!(rust_word_in(r["message"].as_str().unwrap()).is_none(), "{r}");
    // The host changes the pace of an open lobby; the lobby shows it.
    let r = c.request(req::create_lobby("quacks", 2, "A")).await;
    assert_eq!(r["type"], "seated", "{r}");
    let corr = pace(HOUR, 2 * HOUR, StallPolicy::Skip);
    let r = c.request(req::configure_lobby(Value::Null, 2).pace(corr)).await;
    assert_eq!(r["type"], "ok", "{r}");
    let lobby = c
        .wait_push("lobby", |l| l["pace"]["kind"] == "correspondence")
        .await;
    assert_eq!(lobby["pace"], serde_json::to_value(corr).unwrap());
    let r = c
        .request(req::configure_lobby(Value::Null, 2).turn_timer_ms(60_000))
        .await;
    assert_eq!(r["code"], "bad_options", "{r}");
    server.stop().await;
    db.drop_db().await;
}

/// `my_tables` shows each seat's correspondence bank from the stored clocks: before the first action (every seat
/// `move_ms`, the one on turn running since the start) and after moves, the same as the table's `state` push.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn my_tables_shows_the_correspondence_clock() {
    for backend in backends() {
        let db = TestDb::new(backend).await;
        let server = TestServer::start(&db, test_config()).await;
        let (code, mut players) = start_paced(
            &server,
            "hickory_dickory",
            2,
            2,
            pace(2 * HOUR, 5 * HOUR, StallPolicy::Bot),
        )
        .await;
        // The banks as this test counts them: each turn (its decisions made at once) charges its seat the time
        // since the turn began and gives it `move_ms`, up to the cap.
        let mut banks = [2 * HOUR, 2 * HOUR];
        let mut running_for = 0;
        for (step, minutes) in [10, 25, 5].into_iter().enumerate() {
            server.clock.advance(minutes * MINUTE);
            running_for += minutes * MINUTE;
            let state = players[0].client.state.clone().unwrap();
            let seat = state["status"]["seat"].as_u64().unwrap() as usize;
            let tables: Vec<(&str, &str)> = players
                .iter()
                .map(|p| (code.as_str(), p.token.as_str()))
                .collect();
            let mut c = server.client().await;
            let reply = c.request(req::my_tables(&tables)).await;
            assert_eq!(reply["type"], "my_tables", "{reply}");
            let listed: Vec<u64> = reply["tables"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| e["clock_left_ms"].as_u64().unwrap())
                .collect();
            let mut expected = banks.to_vec();
            expected[seat] -= running_for;
            assert_eq!(listed, expected, "step {step}: {reply}");
            play_turn(&mut players, seat).await;
            banks[seat] = (banks[seat] - running_for + 2 * HOUR).min(5 * HOUR);
            running_for = 0;
        }
        server.stop().await;
        db.drop_db().await;
    }
}
