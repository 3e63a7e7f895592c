//! The "while you were away" report (issue 44, point 3): a player who resumes with the last version they saw is
//! told, in an `away` push, the seat's own actions after it as the stored action log holds them, each with who
//! made it, and the seat's view at that version. In every game: a seat leaves, the stand-in bot plays for it, it
//! resumes, and the report equals the log; under the `wait` policy nothing is played for it and the report is
//! empty. The report is read from the database, so it is checked across a restart too.

use integration_tests::*;
use protocol::{AbsenceKind, AbsencePolicy};
use serde_json::{Value, json};
use server::store::LogEntry;

const GRACE_MS: u64 = 2_000;

/// Two human seats under `absent`, started; both players have seen the first state.
async fn start_two(addr: std::net::SocketAddr, game: &str, absent: AbsencePolicy) -> (String, Vec<Player>) {
    let mut host = Client::hello(addr).await;
    let created = host
        .request(
            req::create_lobby(game, 2, "Host")
                .options(json!({}))
                .absent(absent),
        )
        .await;
    assert_eq!(created["type"], "seated", "{created}");
    let code = created["code"].as_str().unwrap().to_string();
    let mut guest = Client::hello(addr).await;
    let joined = guest.request(req::join(&code, "Guest")).await;
    assert_eq!(joined["type"], "seated", "{joined}");
    let r = host.request(req::start()).await;
    assert_eq!(r["type"], "ok", "{r}");
    let mut players = vec![
        Player {
            client: host,
            seat: 0,
            token: created["seat_token"].as_str().unwrap().to_string(),
        },
        Player {
            client: guest,
            seat: 1,
            token: joined["seat_token"].as_str().unwrap().to_string(),
        },
    ];
    for p in &mut players {
        p.client.wait_version(0).await;
    }
    (code, players)
}

/// Whether `seat` must (or, in a race, may) decide in this state.
fn decides(state: &Value, seat: u64) -> bool {
    let status = &state["status"];
    match status["kind"].as_str().unwrap() {
        "turn" => status["seat"] == seat,
        "simultaneous" | "race" => status["seats"].as_array().unwrap().contains(&json!(seat)),
        _ => false,
    }
}

async fn log_of(db: &TestDb, match_id: &str) -> Vec<LogEntry> {
    let store = db.store().await;
    let log = store.action_log(match_id).await.unwrap();
    store.close().await;
    log
}

/// The report's actions as `(seq, by, action)`, oldest first.
fn reported(report: &Value) -> Vec<(u64, String, Value)> {
    report["actions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            (
                a["seq"].as_u64().unwrap(),
                a["by"].as_str().unwrap().to_string(),
                a["action"].clone(),
            )
        })
        .collect()
}

/// Seat 1's entries of the stored log after `since` up to `version`, as [`reported`] lists them.
fn logged(log: &[LogEntry], since: u64, version: u64) -> Vec<(u64, String, Value)> {
    log.iter()
        .filter(|e| e.seq > since && e.seq <= version)
        .filter(|e| e.actor == rules::Actor::Seat(rules::Seat(1)))
        .map(|e| (e.seq, e.by.as_str().to_string(), e.action.to_value()))
        .collect()
}

/// One match of `game` under the `bot` policy: seat 1 drops after a few actions, the stand-in plays for it while
/// the host plays on (with a restart of the server in between when `restart`), seat 1 resumes with the version it
/// last saw. Returns how many actions the report listed (all of them checked against the log).
async fn stand_in_match(backend: &str, game: &str, seed: u64, restart: bool) -> usize {
    let db = TestDb::new(backend).await;
    let mut server = TestServer::start(&db, test_config()).await;
    let clock = server.clock.clone();
    let time = Time::Manual(clock.clone());
    let (code, mut players) = start_two(server.addr, game, req::bot_after(GRACE_MS)).await;
    play_until(&mut players, &time, seed, 200, |s| {
        s["version"].as_u64().unwrap() >= 3
    })
    .await;

    // Seat 1 leaves; what it saw last is what it resumes from.
    let gone = players.remove(1);
    let seen = gone.client.state.clone().unwrap();
    let since = seen["version"].as_u64().unwrap();
    let token = gone.token.clone();
    drop(gone);
    players[0]
        .client
        .wait_push("lobby", |l| l["seats"][1]["occupant"]["connected"] == false)
        .await;
    clock.advance(GRACE_MS);
    let target = since + 14;
    play_until(&mut players, &time, seed + 1, 400, |s| {
        s["version"].as_u64().unwrap() >= target
    })
    .await;
    if restart {
        let host_token = players.remove(0).token;
        server.stop().await;
        server = TestServer::start_with_clock(&db, test_config(), clock.clone()).await;
        let mut host = server.client().await;
        let r = host.request(req::resume(&code, &host_token)).await;
        assert_eq!(r["type"], "resumed", "{r}");
        // No `last_version`: no report.
        host.wait_push("state", |_| true).await;
        players.insert(
            0,
            Player {
                client: host,
                seat: 0,
                token: host_token,
            },
        );
    }

    // Seat 1 comes back: the state, then the report.
    let mut back = server.client().await;
    let r = back.request(req::resume_from(&code, &token, since)).await;
    assert_eq!(r["type"], "resumed", "{r}");
    let state = back.wait_push("state", |_| true).await;
    let report = back.wait_push("away", |_| true).await;
    let version = state["version"].as_u64().unwrap();
    assert_eq!(report["code"], code.as_str());
    assert_eq!(report["match_id"], state["match_id"]);
    assert_eq!(report["seat"], 1);
    assert_eq!(report["since"], since, "{game}");
    assert_eq!(
        report["version"], version,
        "{game}: up to the state the resume showed"
    );
    assert_eq!(
        report["before"], seen["view"],
        "{game}: the seat's view at the version it last saw"
    );
    let log = log_of(&db, state["match_id"].as_str().unwrap()).await;
    let actions = reported(&report);
    assert_eq!(
        actions,
        logged(&log, since, version),
        "{game}: the report is the seat's part of the log"
    );
    for (seq, by, _) in &actions {
        assert_eq!(by, "stand_in", "{game}: action {seq} was the stand-in's");
    }
    // Each action's events are those the seat may see, as the admin log recomputes them.
    for a in report["actions"].as_array().unwrap() {
        assert!(a["events"].is_array(), "{a}");
    }
    // The host, who never left, hears of no report.
    assert!(
        !players[0].client.received.iter().any(|m| m["type"] == "away"),
        "{game}: only the returning seat gets a report"
    );
    let n = actions.len();
    drop(back);
    drop(players);
    server.stop().await;
    db.drop_db().await;
    n
}

/// Under `wait` nothing is played for the absent seat: the host plays until seat 1 must decide, and seat 1's
/// report lists nothing although the match moved on (the clock's and the host's actions are not the seat's).
async fn waiting_match(backend: &str, game: &str, seed: u64) -> Option<()> {
    let db = TestDb::new(backend).await;
    let server = TestServer::start(&db, test_config()).await;
    let time = Time::Manual(server.clock.clone());
    let wait = AbsencePolicy {
        policy: AbsenceKind::Wait,
        grace_ms: 0,
    };
    let (code, mut players) = start_two(server.addr, game, wait).await;
    // Until the host decides and seat 1 does not.
    let host_alone = |s: &Value| decides(s, 0) && !decides(s, 1);
    let played = play_until(&mut players, &time, seed, 200, host_alone).await;
    if !host_alone(&played.last_state) {
        server.stop().await;
        db.drop_db().await;
        return None;
    }
    let gone = players.remove(1);
    let since = gone.client.state.as_ref().unwrap()["version"].as_u64().unwrap();
    let token = gone.token.clone();
    drop(gone);
    let played = play_until(&mut players, &time, seed + 1, 200, |s| decides(s, 1)).await;
    let version = played.last_state["version"].as_u64().unwrap();
    assert!(version > since, "{game}: the host played");
    let mut back = server.client().await;
    let r = back.request(req::resume_from(&code, &token, since)).await;
    assert_eq!(r["type"], "resumed", "{r}");
    let state = back.wait_push("state", |_| true).await;
    let report = back.wait_push("away", |_| true).await;
    assert_eq!(report["since"], since);
    assert_eq!(report["version"], state["version"]);
    assert_eq!(
        report["actions"],
        json!([]),
        "{game}: nothing was played for the seat"
    );
    let log = log_of(&db, state["match_id"].as_str().unwrap()).await;
    assert!(logged(&log, since, version).is_empty());
    drop(back);
    drop(players);
    server.stop().await;
    db.drop_db().await;
    Some(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_report_lists_the_stand_ins_actions_from_the_log_in_every_game() {
    for backend in backends() {
        for (i, info) in rules::catalogue().iter().enumerate() {
            // A deal whose stand-in had nothing to decide is dealt again (a few at most).
            let mut listed = 0;
            for seed in 0..4 {
                listed = stand_in_match(backend, info.id, 10 * i as u64 + seed, false).await;
                if listed > 0 {
                    break;
                }
            }
            assert!(listed > 0, "{}: the stand-in played for the seat", info.id);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_report_is_read_from_the_database_after_a_restart() {
    for backend in backends() {
        let listed = stand_in_match(backend, "quacks", 7, true).await;
        assert!(listed > 0);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn under_the_wait_policy_the_report_is_empty() {
    for backend in backends() {
        for (i, info) in rules::catalogue().iter().enumerate() {
            let mut served = None;
            for seed in 0..4 {
                served = waiting_match(backend, info.id, 100 + 10 * i as u64 + seed).await;
                if served.is_some() {
                    break;
                }
            }
            served.unwrap_or_else(|| panic!("{}: the host had a turn of its own", info.id));
        }
    }
}
