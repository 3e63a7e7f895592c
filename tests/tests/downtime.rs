//! Downtime is not charged to anyone (issue 47, point 2): after the server was down, or a table could not write,
//! every wake-up (turn timer, bots' delay, stand-in) comes that much later, and nothing is played for anyone at
//! recovery. Paused time: a `ManualClock` that moves only when told, kept across restarts on the same database.

use std::time::Duration;

use integration_tests::*;
use protocol::ActedBy;
use serde_json::{Value, json};
use server::{Clock, ManualClock};

/// No deadline of its own: only the turn timer, the bots and the stand-ins act by themselves.
const GAME: &str = "quacks";
const OUTAGE: u64 = 10 * 60 * 1000;
const TIMER: u64 = 60_000;
const HOUR: u64 = 3_600_000;

/// A match of `humans` human seats and `bots` bots, with the turn timer and absence policy given.
async fn start(
    addr: std::net::SocketAddr,
    humans: u8,
    bots: u8,
    timer: Option<u64>,
    absent: protocol::AbsencePolicy,
) -> (String, Vec<Player>) {
    let mut create = req::create_lobby(GAME, humans + bots, "Alice").absent(absent);
    if let Some(timer) = timer {
        create = create.turn_timer_ms(timer);
    }
    let mut host = Client::hello(addr).await;
    let created = host.request(create).await;
    assert_eq!(created["type"], "seated", "{created}");
    let code = created["code"].as_str().unwrap().to_string();
    let mut players = vec![Player {
        client: host,
        seat: 0,
        token: created["seat_token"].as_str().unwrap().to_string(),
    }];
    for i in 1..humans {
        let mut c = Client::hello(addr).await;
        let joined = c.request(req::join(&code, &format!("P{i}"))).await;
        assert_eq!(joined["type"], "seated", "{joined}");
        players.push(Player {
            client: c,
            seat: i,
            token: joined["seat_token"].as_str().unwrap().to_string(),
        });
    }
    for _ in 0..bots {
        assert_eq!(players[0].client.request(req::add_bot()).await["type"], "ok");
    }
    assert_eq!(players[0].client.request(req::start()).await["type"], "ok");
    for p in &mut players {
        p.client.wait_version(0).await;
    }
    (code, players)
}

/// Resumes the seats of `players` on a new server; returns the first state each sees.
async fn resume(addr: std::net::SocketAddr, code: &str, players: &mut [&mut Player]) -> Vec<Value> {
    let mut states = Vec::new();
    for p in players.iter_mut() {
        let mut c = Client::hello(addr).await;
        let r = c.request(req::resume(code, &p.token)).await;
        assert_eq!(r["type"], "resumed", "{r}");
        p.client = c;
        states.push(p.client.wait_push("state", |_| true).await);
    }
    states
}

async fn log_of(db: &TestDb, match_id: &str) -> Vec<server::store::LogEntry> {
    let store = db.store().await;
    let log = store.action_log(match_id).await.unwrap();
    store.close().await;
    log
}

/// Moves the clock to `at` and checks, with a request the table answers after any wake-up then due, that the
/// state is still at `version`.
async fn nothing_at(clock: &ManualClock, at: u64, player: &mut Player, version: u64) {
    clock.set(at);
    for _ in 0..2 {
        let probe = player
            .client
            .request(req::action(&json!({"type": "no_such"}), None))
            .await;
        assert_eq!(probe["type"], "error", "{probe}");
    }
    let s = player.client.state.as_ref().unwrap();
    assert_eq!(
        s["version"].as_u64(),
        Some(version),
        "nothing was played at {at}: {s}"
    );
}

/// Stops the server and starts another on the same database `down` later (the clock goes on).
async fn restart_after(server: TestServer, db: &TestDb, config: server::Config, down: u64) -> TestServer {
    let clock = server.clock.clone();
    server.stop().await;
    clock.advance(down);
    let server = TestServer::start_with_clock(db, config, clock).await;
    // Served once it answers: every table was restored before.
    Client::hello(server.addr).await.close().await;
    server
}

/// A live table with a turn timer and the `bot` policy: the server is down for 10 minutes (twice, in the second
/// case); nothing is played for anyone at recovery, the turn timer's deadline in the first push is the old one plus
/// the outages, and it fires when that much served time has passed, not a millisecond early.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_outage_moves_the_turn_timer_by_its_length_and_plays_nothing() {
    for backend in backends() {
        for restarts in [1u64, 2] {
            let db = TestDb::new(backend).await;
            let server = TestServer::start(&db, test_config()).await;
            let (code, mut players) = start(server.addr, 2, 0, Some(TIMER), req::bot_after(HOUR)).await;
            let first = players[0].client.state.clone().unwrap();
            let match_id = first["match_id"].as_str().unwrap().to_string();
            let deadline = first["turn_deadline"].as_u64().expect("a turn timer runs");
            assert_eq!(deadline, CLOCK_START + TIMER);
            server.clock.advance(20_000);
            let mut server = restart_after(server, &db, test_config(), OUTAGE).await;
            if restarts == 2 {
                server = restart_after(server, &db, test_config(), OUTAGE / 2).await;
            }
            let down = OUTAGE + (restarts - 1) * OUTAGE / 2;
            let [alice, bob] = &mut players[..] else {
                unreachable!()
            };
            for s in resume(server.addr, &code, &mut [alice, bob]).await {
                assert_eq!(s["version"], 0, "nothing was played at recovery: {s}");
                assert_eq!(
                    s["turn_deadline"].as_u64(),
                    Some(deadline + down),
                    "{backend}, {restarts} restart(s): the deadline moved by the time the server was down"
                );
            }
            assert!(log_of(&db, &match_id).await.is_empty());
            nothing_at(&server.clock, deadline + down - 1, &mut players[0], 0).await;
            server.clock.set(deadline + down);
            let after = players[0].client.wait_version(1).await;
            assert!(after["version"].as_u64().unwrap() >= 1);
            let log = log_of(&db, &match_id).await;
            // The turn timer first (then the stand-ins it started), all at the moved deadline.
            assert_eq!(log[0].by, ActedBy::TurnTimer, "{log:?}");
            assert!(log.iter().all(|e| e.at == deadline + down), "{log:?}");
            server.stop().await;
            db.drop_db().await;
        }
    }
}

/// A bot's delay counts served time: a bot due 30 s after the last change acts 30 s of served time after it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_outage_moves_a_bots_move() {
    for backend in backends() {
        let db = TestDb::new(backend).await;
        let mut config = test_config();
        config.bot_delay_ms = 30_000;
        let server = TestServer::start(&db, config.clone()).await;
        let (code, mut players) = start(server.addr, 1, 1, None, req::wait()).await;
        let first = players[0].client.state.clone().unwrap();
        assert_eq!(first["status"]["kind"], "simultaneous", "{first}");
        assert!(
            first["status"]["seats"].as_array().unwrap().contains(&json!(1)),
            "{first}"
        );
        server.clock.advance(10_000);
        let server = restart_after(server, &db, config, OUTAGE).await;
        let [alice] = &mut players[..] else { unreachable!() };
        let states = resume(server.addr, &code, &mut [alice]).await;
        assert_eq!(states[0]["version"], 0, "{}", states[0]);
        let due = CLOCK_START + 30_000 + OUTAGE;
        nothing_at(&server.clock, due - 1, &mut players[0], 0).await;
        server.clock.set(due);
        players[0].client.wait_version(1).await;
        let log = log_of(&db, first["match_id"].as_str().unwrap()).await;
        assert_eq!((log[0].by, log[0].at), (ActedBy::Bot, due), "{log:?}");
        server.stop().await;
        db.drop_db().await;
    }
}

fn stand_in(lobby: &Value, seat: usize) -> bool {
    lobby["seats"][seat]["occupant"]["stand_in"] == true
}

/// A stand-in time still ahead when the server went down moves by the outage: the absent player's grace period
/// counts served time only.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_outage_moves_a_stand_ins_start() {
    for backend in backends() {
        let db = TestDb::new(backend).await;
        let server = TestServer::start(&db, test_config()).await;
        let (code, mut players) = start(server.addr, 2, 0, None, req::bot_after(TIMER)).await;
        server.clock.advance(10_000);
        // Bob leaves: the server stands in for him a minute later.
        let bob = players.pop().unwrap();
        bob.client.close().await;
        players[0]
            .client
            .wait_push("lobby", |l| l["seats"][1]["occupant"]["connected"] == false)
            .await;
        let from = CLOCK_START + 10_000 + TIMER;
        server.clock.advance(10_000);
        let server = restart_after(server, &db, test_config(), OUTAGE).await;
        let [alice] = &mut players[..] else { unreachable!() };
        resume(server.addr, &code, &mut [alice]).await;
        let lobby = players[0]
            .client
            .lobby
            .clone()
            .expect("the lobby, before the state");
        assert!(!stand_in(&lobby, 1), "not yet: {lobby}");
        nothing_at(&server.clock, from + OUTAGE - 1, &mut players[0], 0).await;
        assert!(!stand_in(players[0].client.lobby.as_ref().unwrap(), 1));
        server.clock.set(from + OUTAGE);
        players[0].client.wait_push("lobby", |l| stand_in(l, 1)).await;
        server.stop().await;
        db.drop_db().await;
    }
}

/// A table that cannot write is not served: the time from its first failed write to its next successful one moves
/// its turn timer (PostgreSQL behind a proxy the test cuts).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_store_outage_moves_the_turn_timer() {
    if !backends().contains(&"postgres") {
        assert!(
            std::env::var("CI").is_err(),
            "this test needs PostgreSQL: set TEST_DATABASE_URL in CI"
        );
        eprintln!("skipped: TEST_DATABASE_URL is not set (PostgreSQL only)");
        return;
    }
    let db = TestDb::new("postgres").await;
    db.store().await.close().await;
    let proxy = TcpProxy::start(database_host(db.url())).await;
    let store = server::Store::connect_with(
        &url_through(db.url(), proxy.addr),
        server::store::PoolSettings {
            acquire_timeout: Duration::from_millis(1500),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    let server = TestServer::start_with_store(store, test_config()).await;
    let (_code, mut players) = start(server.addr, 2, 0, Some(TIMER), req::wait()).await;
    let deadline = players[0].client.state.as_ref().unwrap()["turn_deadline"]
        .as_u64()
        .unwrap();
    let action = players[0].client.state.as_ref().unwrap()["legal_actions"][0].clone();
    server.clock.advance(10_000);
    proxy.cut();
    let reply = players[0].client.request(req::action(&action, 0)).await;
    assert_eq!(reply["code"], "store_unavailable", "{reply}");
    let failed_at = CLOCK_START + 10_000;
    // Well past the old deadline: nothing is played while the table cannot write.
    server.clock.advance(100_000);
    let probe = players[0]
        .client
        .request(req::action(&json!({"type": "no_such"}), None))
        .await;
    assert_eq!(probe["type"], "error");
    proxy.restore();
    tokio::time::timeout(TIMEOUT, async {
        while http_get(server.addr, "/readyz").await.0 != 200 {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await
    .expect("ready again");
    // The table's next try (a second later) writes; the outage ends then.
    server.clock.advance(1_000);
    let back_at = server.clock.now();
    let moved = deadline + (back_at - failed_at);
    let s = players[0]
        .client
        .wait_push("state", |s| s["turn_deadline"].as_u64() != Some(deadline))
        .await;
    assert_eq!(s["turn_deadline"].as_u64(), Some(moved), "{s}");
    assert_eq!(s["version"], 0);
    nothing_at(&server.clock, moved - 1, &mut players[0], 0).await;
    server.clock.set(moved);
    players[0].client.wait_version(1).await;
    server.stop().await;
    drop(proxy);
    db.drop_db().await;
}

/// A correspondence table (Quacks, every seat brewing at once, each its own clock): the server is down for 10
/// minutes; after the restart every running clock has what it had before the outage, less only the served time,
/// and runs on from there.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_outage_costs_no_correspondence_clock_anything() {
    for backend in backends() {
        let db = TestDb::new(backend).await;
        let config = test_config();
        let server = TestServer::start(&db, config.clone()).await;
        let mut host = Client::hello(server.addr).await;
        let pace = protocol::Pace::Correspondence {
            move_ms: 2 * HOUR,
            bank_cap_ms: 5 * HOUR,
            stall: protocol::StallPolicy::Bot,
        };
        let created = host.request(req::create_lobby(GAME, 2, "Alice").pace(pace)).await;
        assert_eq!(created["type"], "seated", "{created}");
        let code = created["code"].as_str().unwrap().to_string();
        let mut guest = Client::hello(server.addr).await;
        let joined = guest.request(req::join(&code, "Bob")).await;
        assert_eq!(joined["type"], "seated", "{joined}");
        assert_eq!(host.request(req::start()).await["type"], "ok");
        host.wait_version(0).await;
        let mut alice = Player {
            client: host,
            seat: 0,
            token: created["seat_token"].as_str().unwrap().to_string(),
        };
        let mut bob = Player {
            client: guest,
            seat: 1,
            token: joined["seat_token"].as_str().unwrap().to_string(),
        };
        bob.client.wait_version(0).await;
        server.clock.advance(30 * 60_000);
        let server = restart_after(server, &db, config, OUTAGE).await;
        let states = resume(server.addr, &code, &mut [&mut alice, &mut bob]).await;
        for state in &states {
            let clocks = state["clocks"].as_array().expect("clocks");
            for c in clocks {
                if c["running"] == true {
                    // 2 h less the 30 served minutes: the 10 minutes down cost nothing.
                    assert_eq!(c["left_ms"], 2 * HOUR - 30 * 60_000, "{state}");
                }
            }
            assert!(clocks.iter().any(|c| c["running"] == true), "{state}");
            assert_eq!(state["version"], 0, "nothing was played: {state}");
        }
        server.stop().await;
        db.drop_db().await;
    }
}
