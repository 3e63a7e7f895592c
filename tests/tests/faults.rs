//! Faults (issue 10, point 3): the real server binary killed with SIGKILL in the middle of many matches, and the
//! database going away (a TCP proxy the test controls, cut and restored) while a match is played.

use std::{
    collections::BTreeMap,
    sync::{
        Arc,
        atomic::{AtomicUsize, Ordering},
    },
    time::{Duration, Instant},
};

use integration_tests::*;
use serde_json::{Value, json};

const GAME: &str = "hide_and_eeek";
const SERVER_BINARY: &str = env!("CARGO_BIN_EXE_server-under-test");

/// An action a seat sent at a version, and what became of it before the server died.
#[derive(Debug, Clone)]
struct Sent {
    seat: u8,
    action: Value,
    version: u64,
}

/// One player acting on its own as fast as it may: on each state where it has legal actions it sends one with the
/// state's version and waits for the reply. Returns the actions acknowledged, and the one in flight (sent, no
/// reply) when the connection dropped.
async fn autonomous(mut player: Player, seed: u64, acked: Arc<AtomicUsize>) -> (Vec<Sent>, Option<Sent>) {
    let mut rng = rules::Rng::from_seed(seed);
    let mut acknowledged = Vec::new();
    let mut next_id = 1000u64;
    loop {
        let state = player.client.state.clone().expect("a state");
        let legal = state["legal_actions"].as_array().cloned().unwrap_or_default();
        if state["status"]["kind"] == "over" {
            return (acknowledged, None);
        }
        if legal.is_empty() {
            // Wait for the next state (or the end of the connection).
            loop {
                match player.client.read().await {
                    None => return (acknowledged, None),
                    Some(m) if m["type"] == "state" => break,
                    Some(_) => continue,
                }
            }
            continue;
        }
        let action = legal[rng.index(legal.len())].clone();
        let version = state["version"].as_u64().unwrap();
        next_id += 1;
        let sent = Sent {
            seat: player.seat,
            action: action.clone(),
            version,
        };
        player
            .client
            .send_text(req::action(&action, version).frame(next_id))
            .await;
        let reply = loop {
            match player.client.read().await {
                None => return (acknowledged, Some(sent)),
                Some(m) if m["re"] == json!(next_id) => break m,
                Some(_) => continue,
            }
        };
        if reply["type"] == "accepted" {
            // After `version`, later than the next one when another seat's independent move came first.
            let applied = reply["version"].as_u64().unwrap();
            assert!(applied > version, "{reply}");
            acknowledged.push(Sent {
                version: applied,
                ..sent
            });
            acked.fetch_add(1, Ordering::SeqCst);
        } else {
            let code = reply["code"].as_str().unwrap_or_default();
            assert!(
                ["stale_version", "not_your_turn", "illegal_action", "game_over"].contains(&code),
                "{reply}"
            );
            // The state moved on; wait for it before acting again.
            if player.client.state.as_ref().unwrap()["version"].as_u64() == Some(version) {
                loop {
                    match player.client.read().await {
                        None => return (acknowledged, None),
                        Some(m) if m["type"] == "state" => break,
                        Some(_) => continue,
                    }
                }
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigkill_under_load_loses_no_acknowledged_action_and_applies_no_retry_twice() {
    const MATCHES: usize = 6;
    const SEATS: u8 = 3;
    for backend in backends() {
        let db = TestDb::new(backend).await;
        let env = [
            ("SNAPSHOT_EVERY", "4"),
            ("BOT_DELAY_MS", "0"),
            ("RATE_LIMIT_BURST", "1000000"),
            ("RATE_LIMIT_PER_SEC", "1000000"),
            ("MAX_CONNECTIONS_PER_IP", "10000"),
            ("MAX_LOBBIES_PER_IP", "10000"),
        ];
        let process = ServerProcess::start(SERVER_BINARY, &db, &env).await;
        let mut matches = Vec::new();
        for _ in 0..MATCHES {
            let (code, players) = start_match(
                process.addr,
                GAME,
                json!({"target": 12, "claim_window_ms": 1000}),
                SEATS,
                SEATS,
            )
            .await;
            let match_id = players[0].client.state.as_ref().unwrap()["match_id"]
                .as_str()
                .unwrap()
                .to_string();
            let tokens: Vec<(u8, String)> = players.iter().map(|p| (p.seat, p.token.clone())).collect();
            matches.push((code, match_id, tokens, players));
        }
        // Every player of every match acts on its own, all at once.
        let acked = Arc::new(AtomicUsize::new(0));
        let mut tasks = Vec::new();
        let mut plan = Vec::new();
        for (m, (code, match_id, tokens, players)) in matches.into_iter().enumerate() {
            plan.push((code, match_id, tokens));
            for (i, p) in players.into_iter().enumerate() {
                tasks.push((m, tokio::spawn(autonomous(p, (m * 10 + i) as u64, acked.clone()))));
            }
        }
        // Kill the server mid-play, once a fair number of actions were acknowledged.
        let waited = tokio::time::timeout(TIMEOUT, async {
            while acked.load(Ordering::SeqCst) < 60 {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        })
        .await;
        assert!(waited.is_ok(), "the matches were played");
        process.kill().await;
        let mut acknowledged: BTreeMap<usize, Vec<Sent>> = BTreeMap::new();
        let mut in_flight: BTreeMap<usize, Vec<Sent>> = BTreeMap::new();
        for (m, task) in tasks {
            let (acks, flying) = task.await.unwrap();
            acknowledged.entry(m).or_default().extend(acks);
            in_flight.entry(m).or_default().extend(flying);
        }

        // Restart on the same database: every acknowledged action is in the log, at its version.
        let process = ServerProcess::start(SERVER_BINARY, &db, &env).await;
        let store = db.store().await;
        for (m, (code, match_id, tokens)) in plan.iter().enumerate() {
            let log = store.action_log(match_id).await.unwrap();
            for a in &acknowledged[&m] {
                let entry = log
                    .get(a.version as usize - 1)
                    .unwrap_or_else(|| panic!("acknowledged version {} is missing from the log", a.version));
                assert_eq!(
                    (entry.actor, entry.action.to_value()),
                    (rules::Actor::Seat(rules::Seat(a.seat)), a.action.clone())
                );
            }
            // Each seat resumes and retries the action it had in flight, with the same version.
            let mut clients = Vec::new();
            for (seat, token) in tokens {
                let mut c = Client::hello(process.addr).await;
                let r = c.request(req::resume(code, token)).await;
                assert_eq!(r["type"], "resumed", "{r}");
                clients.push((*seat, c));
            }
            let before = store.action_log(match_id).await.unwrap().len() as u64;
            let mut accepted = 0;
            for retry in &in_flight[&m] {
                let c = &mut clients.iter_mut().find(|(s, _)| *s == retry.seat).unwrap().1;
                let reply = c.request(req::action(&retry.action, retry.version)).await;
                if reply["type"] == "accepted" {
                    // Accepted only if it had not been applied: then it comes after its version.
                    assert!(reply["version"].as_u64().unwrap() > retry.version, "{reply}");
                    accepted += 1;
                } else {
                    assert!(
                        ["stale_version", "not_your_turn", "illegal_action", "game_over"]
                            .contains(&reply["code"].as_str().unwrap_or_default()),
                        "{reply}"
                    );
                }
            }
            // The log grew by the accepted retries (and any deadline the restarted server closed), and holds
            // each retried action at most once after its version.
            let log = store.action_log(match_id).await.unwrap();
            assert!(log.len() as u64 >= before + accepted);
            for retry in &in_flight[&m] {
                let copies = log
                    .iter()
                    .skip(retry.version as usize)
                    .filter(|e| {
                        e.actor == rules::Actor::Seat(rules::Seat(retry.seat))
                            && e.action.to_value() == retry.action
                    })
                    .count();
                assert!(copies <= 1, "{retry:?} applied {copies} times");
            }
            // Every seat sees the log's length as its version.
            let version = log.len() as u64;
            for (_, c) in clients.iter_mut() {
                let s = c.wait_version(version).await;
                assert_eq!(s["version"].as_u64(), Some(version));
            }
        }
        let total: usize = acknowledged.values().map(Vec::len).sum();
        let flying: usize = in_flight.values().map(Vec::len).sum();
        eprintln!("{backend}: {total} actions acknowledged before the kill, {flying} in flight and retried");
        assert!(total >= 60);
        store.close().await;
        process.kill().await;
        db.drop_db().await;
    }
}

/// The database goes away while a match is played (a proxy between the server and PostgreSQL drops every
/// connection and refuses new ones) and comes back: the server stays up, says `store_unavailable` and not ready
/// meanwhile, publishes nothing it did not commit, and afterwards the same retried action succeeds by itself,
/// with nothing lost.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_database_going_away_and_coming_back_loses_nothing() {
    if !backends().contains(&"postgres") {
        assert!(
            std::env::var("CI").is_err(),
            "this test needs PostgreSQL: set TEST_DATABASE_URL in CI"
        );
        eprintln!("skipped: TEST_DATABASE_URL is not set (PostgreSQL only)");
        return;
    }
    let db = TestDb::new("postgres").await;
    // Migrations run directly; the server reaches the database only through the proxy.
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
    let time = Time::Manual(server.clock.clone());
    let (_code, mut players) = start_match(server.addr, GAME, json!({"target": 6}), 2, 2).await;
    let before = play(&mut players, &time, 3, 4).await;
    let mut acknowledged = before.acknowledged.clone();
    assert_eq!(http_get(server.addr, "/readyz").await.0, 200);

    // Someone may act (let an open claim window close first).
    let (mover, action, version) = loop {
        let found = players.iter().enumerate().find_map(|(i, p)| {
            let s = p.client.state.as_ref().unwrap();
            let legal = s["legal_actions"].as_array().unwrap();
            (!legal.is_empty()).then(|| (i, legal[0].clone(), s["version"].as_u64().unwrap()))
        });
        if let Some(found) = found {
            break found;
        }
        let s = players[0].client.state.clone().unwrap();
        let v = s["version"].as_u64().unwrap();
        server
            .clock
            .set(s["deadline"].as_u64().expect("a deadline when nobody may act"));
        for p in players.iter_mut() {
            p.client.wait_version(v + 1).await;
        }
    };

    // An open lobby too, whose host will change it while the database is away.
    let mut lobby_host = server.client().await;
    let created = lobby_host.request(req::create_lobby(GAME, 2, "Host")).await;
    assert_eq!(created["type"], "seated", "{created}");

    proxy.cut();
    // A lobby change cannot be stored either: the same retryable refusal, and the seat stays empty.
    let reply = lobby_host.request(req::add_bot()).await;
    assert_eq!(reply["code"], "store_unavailable", "{reply}");
    // The mover's action cannot be committed: a retryable refusal, nothing published.
    for _ in 0..2 {
        let reply = players[mover].client.request(req::action(&action, version)).await;
        assert_eq!(
            (reply["type"].as_str(), reply["code"].as_str()),
            (Some("error"), Some("store_unavailable")),
            "{reply}"
        );
        assert!(protocol::ErrorCode::StoreUnavailable.retryable());
    }
    assert_eq!(
        http_get(server.addr, "/readyz").await.0,
        503,
        "not ready without a database"
    );
    assert_eq!(http_get(server.addr, "/healthz").await.0, 200, "still up");
    for p in players.iter_mut() {
        // A request round trip: any state push queued before the pong would be seen by now.
        assert_eq!(p.client.request(req::ping()).await["type"], "pong");
        assert_eq!(
            p.client.state.as_ref().unwrap()["version"].as_u64(),
            Some(version),
            "nothing unacknowledged was published"
        );
    }

    proxy.restore();
    // The client retries the same action with the same version; the server carries on by itself.
    let mut accepted = None;
    for _ in 0..300 {
        let reply = players[mover].client.request(req::action(&action, version)).await;
        match reply["type"].as_str() {
            Some("accepted") => {
                accepted = Some(reply);
                break;
            }
            _ => {
                assert_eq!(reply["code"], "store_unavailable", "{reply}");
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    }
    let accepted = accepted.expect("the retry succeeds once the database is back");
    let reply = lobby_host.request(req::add_bot()).await;
    assert_eq!(
        reply["type"], "ok",
        "the lobby change succeeds once the database is back: {reply}"
    );
    assert_eq!(accepted["version"].as_u64(), Some(version + 1));
    let seat = players[mover].seat;
    acknowledged.push((seat, action, version + 1));
    assert_eq!(http_get(server.addr, "/readyz").await.0, 200);
    for p in players.iter_mut() {
        p.client.wait_version(version + 1).await;
    }
    // The match plays on to its end; the log holds every acknowledged action once, in order.
    let rest = play(&mut players, &time, 4, 10_000).await;
    assert_eq!(rest.last_state["status"]["kind"], "over");
    acknowledged.extend(rest.acknowledged);
    let match_id = rest.last_state["match_id"].as_str().unwrap().to_string();
    server.stop().await;
    let store = db.store().await;
    let log = store.action_log(&match_id).await.unwrap();
    assert_eq!(log.len() as u64, rest.last_state["version"].as_u64().unwrap());
    for (seat, action, v) in &acknowledged {
        let entry = &log[*v as usize - 1];
        assert_eq!(
            (entry.actor, entry.action.to_value()),
            (rules::Actor::Seat(rules::Seat(*seat)), action.clone())
        );
    }
    store.close().await;
    drop(proxy);
    db.drop_db().await;
}

/// The database commits an action but its answer is lost (the proxy drops everything the database says from the
/// statement that commits it on), then it goes away and comes back. The server answers `store_unavailable` within
/// its deadline (the connection stays open and says nothing), without publishing the action; the client's retry with the same version is refused as `stale_version` (the server learns from the
/// database that it was applied) and every seat then sees it: applied once, never twice, never lost.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_commit_whose_answer_was_lost_is_found_and_never_applied_twice() {
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
    let time = Time::Manual(server.clock.clone());
    let (_code, mut players) = start_match(server.addr, GAME, json!({"target": 6}), 2, 2).await;
    play(&mut players, &time, 7, 3).await;
    let (mover, action, version) = loop {
        let found = players.iter().enumerate().find_map(|(i, p)| {
            let s = p.client.state.as_ref().unwrap();
            let legal = s["legal_actions"].as_array().unwrap();
            (!legal.is_empty()).then(|| (i, legal[0].clone(), s["version"].as_u64().unwrap()))
        });
        if let Some(found) = found {
            break found;
        }
        let s = players[0].client.state.clone().unwrap();
        let v = s["version"].as_u64().unwrap();
        server
            .clock
            .set(s["deadline"].as_u64().expect("a deadline when nobody may act"));
        for p in players.iter_mut() {
            p.client.wait_version(v + 1).await;
        }
    };
    let match_id = players[0].client.state.as_ref().unwrap()["match_id"]
        .as_str()
        .unwrap()
        .to_string();

    // The match id is in that commit's parameters and in no other message before the cut.
    proxy.lose_answers_after(&match_id);
    let frame = req::action(&action, version).frame(777);
    let sent = Instant::now();
    players[mover].client.send_text(frame).await;
    // The action reaches the database and is committed there...
    let direct = db.store().await;
    let committed = tokio::time::timeout(TIMEOUT, async {
        loop {
            if direct.action_log(&match_id).await.unwrap().len() as u64 > version {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await;
    assert!(committed.is_ok(), "the action was committed");
    // ... but the server never hears so: its deadline answers the client (issue 42: within 2 s, though the
    // connection stays open and silent); then the database goes away.
    let reply = players[mover].client.reply_to(json!(777)).await;
    let took = sent.elapsed();
    assert_eq!(reply["code"], "store_unavailable", "{reply}");
    assert!(
        took < REFUSED_WITHIN,
        "the unanswered commit was refused after {took:?}"
    );
    proxy.cut();
    for p in players.iter_mut() {
        assert_eq!(p.client.request(req::ping()).await["type"], "pong");
        assert_eq!(
            p.client.state.as_ref().unwrap()["version"].as_u64(),
            Some(version),
            "nothing unacknowledged was published"
        );
    }

    proxy.restore();
    let mut answer = None;
    for _ in 0..300 {
        let reply = players[mover].client.request(req::action(&action, version)).await;
        if reply["code"] != "store_unavailable" {
            answer = Some(reply);
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let answer = answer.expect("an answer once the database is back");
    assert_eq!(
        (answer["type"].as_str(), answer["code"].as_str()),
        (Some("error"), Some("stale_version")),
        "the retry of a committed action is refused: {answer}"
    );
    for p in players.iter_mut() {
        let s = p.client.wait_version(version + 1).await;
        assert_eq!(s["version"].as_u64(), Some(version + 1));
    }
    let log = direct.action_log(&match_id).await.unwrap();
    assert_eq!(log.len() as u64, version + 1, "applied once");
    assert_eq!(log[version as usize].action.to_value(), action);
    // And the match goes on.
    let rest = play(&mut players, &time, 8, 10_000).await;
    assert_eq!(rest.last_state["status"]["kind"], "over");
    server.stop().await;
    direct.close().await;
    drop(proxy);
    db.drop_db().await;
}

/// The longest a request that needs the database may wait for its `store_unavailable` while the database is away
/// (issue 42: 2 s; the server's own deadline, `STORE_TIMEOUT_MS`, is 1.5 s by default), with slack for a busy
/// test machine. A functional bound the issue demands, not a speed benchmark.
const REFUSED_WITHIN: Duration = Duration::from_millis(3000);
/// The same for `/readyz` (issue 42: 1 s; the server waits 0.8 s at most).
const NOT_READY_WITHIN: Duration = Duration::from_millis(1500);

/// Sends `requests` at once (pipelined on one connection) and checks that each is refused `store_unavailable`
/// (never `internal`) within [`REFUSED_WITHIN`] of being sent, measured on the client.
async fn refused_in_time(client: &mut Client, requests: Vec<(&str, protocol::Request)>, outage: &str) {
    let started = Instant::now();
    for (i, (_, request)) in requests.iter().enumerate() {
        client.send_text(request.frame(9000 + i as u64)).await;
    }
    for (i, (what, _)) in requests.iter().enumerate() {
        let reply = client.reply_to(json!(9000 + i as u64)).await;
        let took = started.elapsed();
        eprintln!("{outage}: {what} answered {} in {took:?}", reply["code"]);
        assert_eq!(
            (reply["type"].as_str(), reply["code"].as_str()),
            (Some("error"), Some("store_unavailable")),
            "{outage}: {what}: {reply}"
        );
        assert!(took < REFUSED_WITHIN, "{outage}: {what} took {took:?}");
    }
}

/// `/readyz` says 503 within [`NOT_READY_WITHIN`].
async fn not_ready_in_time(addr: std::net::SocketAddr, outage: &str) {
    let started = Instant::now();
    let (status, _) = http_get(addr, "/readyz").await;
    let took = started.elapsed();
    eprintln!("{outage}: /readyz answered {status} in {took:?}");
    assert_eq!(status, 503, "{outage}: not ready without a database");
    assert!(took < NOT_READY_WITHIN, "{outage}: /readyz took {took:?}");
}

/// Sends `request` until it is answered with something other than `store_unavailable` (the database is back;
/// the server finds it again by itself), and returns that answer.
async fn once_back(client: &mut Client, request: impl Fn() -> protocol::Request, what: &str) -> Value {
    let answered = tokio::time::timeout(TIMEOUT, async {
        loop {
            let reply = client.request(request()).await;
            if reply["code"] != "store_unavailable" {
                return reply;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await;
    answered.unwrap_or_else(|_| panic!("{what} still refused {TIMEOUT:?} after the database came back"))
}

/// Issue 42, point 5: the real server binary, whose database connections go through a proxy, loses its database
/// twice: refused at once (the database stopped) and then silent (a black hole: connections accepted and never
/// answered, open ones no longer forwarded). Each time, every request that needs the database (an action, the
/// same action again, `create_lobby`, `join` of a lobby in memory and of one only in the database, chat, adding a
/// bot, configuring the lobby) is refused `store_unavailable`, never `internal`, within 2 s (+ slack), and
/// `/readyz` says 503 within 1 s (+ slack) while `/healthz` stays 200. Nothing unacknowledged is published. Once
/// the database is back, every request succeeds again without a restart, and the log holds every acknowledged
/// action once, in order.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn while_the_database_is_away_every_request_is_refused_store_unavailable_within_two_seconds() {
    if !backends().contains(&"postgres") {
        assert!(
            std::env::var("CI").is_err(),
            "this test needs PostgreSQL: set TEST_DATABASE_URL in CI"
        );
        eprintln!("skipped: TEST_DATABASE_URL is not set (PostgreSQL only)");
        return;
    }
    const GAME: &str = "quacks"; // no deadline of its own: nothing changes unless a player acts
    let db = TestDb::new("postgres").await;
    // Migrations run directly; the server reaches the database only through the proxy.
    let direct = db.store().await;
    let proxy = TcpProxy::start(database_host(db.url())).await;
    let through = url_through(db.url(), proxy.addr);
    let env = [
        ("DATABASE_URL", through.as_str()),
        ("RATE_LIMIT_BURST", "1000000"),
        ("RATE_LIMIT_PER_SEC", "1000000"),
        ("CHAT_BURST", "1000"),
        ("CHAT_RATE_PER_SEC", "1000"),
        ("MAX_LOBBIES_PER_IP", "10000"),
    ];
    let process = ServerProcess::start(SERVER_BINARY, &db, &env).await;
    let addr = process.addr;
    let (_code, mut players) = start_match(addr, GAME, json!({}), 2, 2).await;
    let match_id = players[0].client.state.as_ref().unwrap()["match_id"]
        .as_str()
        .unwrap()
        .to_string();
    let mut acknowledged: Vec<(u8, Value, u64)> = Vec::new();

    for outage in ["refused", "black hole"] {
        // An open lobby (its host chats, adds a bot and configures it; someone joins it), a lobby only the
        // database knows (someone joins it: the server loads it first), and someone who creates a lobby.
        let mut host = Client::hello(addr).await;
        let created = host.request(req::create_lobby(GAME, 3, "Host")).await;
        assert_eq!(created["type"], "seated", "{created}");
        let open_code = created["code"].as_str().unwrap().to_string();
        let stored_code = server::secrets::join_code();
        let lobby = server::store::LobbyRecord {
            code: stored_code.clone(),
            game: GAME.into(),
            options: json!({}),
            seat_count: 2,
            host_seat: 0,
            turn_timer_ms: None,
            phase: server::store::Phase::Open,
            created_at: 1,
            absent_policy: "wait".into(),
            absent_grace_ms: 0,
            rules_version: None,
            rematch_of: None,
            pace: Default::default(),
        };
        let stored_host = server::store::SeatRecord {
            seat: 0,
            kind: server::store::SeatKind::Human,
            name: "Stored".into(),
            token_hash: Some(server::secrets::token_hash("a token nobody uses")),
        };
        direct.create_lobby(&lobby, &stored_host).await.unwrap();
        let (mut joiner, mut loader, mut creator) = (
            Client::hello(addr).await,
            Client::hello(addr).await,
            Client::hello(addr).await,
        );
        // A seat that may act now.
        let (mover, action, version) = players
            .iter()
            .enumerate()
            .find_map(|(i, p)| {
                let s = p.client.state.as_ref().unwrap();
                let legal = s["legal_actions"].as_array().unwrap();
                (!legal.is_empty()).then(|| (i, legal[0].clone(), s["version"].as_u64().unwrap()))
            })
            .expect("a seat that may act");

        match outage {
            "refused" => proxy.cut(),
            _ => proxy.black_hole(),
        }
        let act = || req::action(&action, version);
        // /readyz first, alone: it waits for the database itself (nothing failed yet).
        not_ready_in_time(addr, outage).await;
        // Then every request at once: each waits for the database (or for the failure of another), none for
        // another's deadline after its own; the second action finds the table unsure of its state.
        tokio::join!(
            refused_in_time(
                &mut players[mover].client,
                vec![("an action", act()), ("the same action again", act())],
                outage
            ),
            refused_in_time(
                &mut creator,
                vec![("create_lobby", req::create_lobby(GAME, 2, "C"))],
                outage
            ),
            refused_in_time(&mut joiner, vec![("join", req::join(&open_code, "J"))], outage),
            refused_in_time(
                &mut loader,
                vec![("join of a lobby not in memory", req::join(&stored_code, "L"))],
                outage
            ),
            refused_in_time(
                &mut host,
                vec![
                    ("chat", req::chat("hello")),
                    ("add_bot", req::add_bot()),
                    ("configure_lobby", req::configure_lobby(json!({}), 4)),
                ],
                outage
            ),
        );
        not_ready_in_time(addr, outage).await;
        assert_eq!(http_get(addr, "/healthz").await.0, 200, "{outage}: still up");
        for p in players.iter_mut() {
            // A request round trip: any state push queued before the pong would be seen by now.
            assert_eq!(p.client.request(req::ping()).await["type"], "pong");
            assert_eq!(
                p.client.state.as_ref().unwrap()["version"].as_u64(),
                Some(version),
                "{outage}: nothing unacknowledged was published"
            );
        }

        proxy.restore();
        // Every request succeeds again by itself; the action, retried with the same version, is applied once.
        let reply = once_back(&mut players[mover].client, act, "the action").await;
        assert_eq!(reply["type"], "accepted", "{outage}: {reply}");
        assert_eq!(reply["version"].as_u64(), Some(version + 1));
        acknowledged.push((players[mover].seat, action.clone(), version + 1));
        for p in players.iter_mut() {
            p.client.wait_version(version + 1).await;
        }
        let reply = once_back(&mut creator, || req::create_lobby(GAME, 2, "C"), "create_lobby").await;
        assert_eq!(reply["type"], "seated", "{outage}: {reply}");
        let reply = once_back(&mut joiner, || req::join(&open_code, "J"), "join").await;
        assert_eq!(reply["type"], "seated", "{outage}: {reply}");
        let reply = once_back(&mut loader, || req::join(&stored_code, "L"), "join (loaded)").await;
        assert_eq!(reply["type"], "seated", "{outage}: {reply}");
        let reply = once_back(&mut host, || req::chat("hello"), "chat").await;
        assert_eq!(reply["type"], "ok", "{outage}: {reply}");
        let reply = once_back(&mut host, req::add_bot, "add_bot").await;
        assert_eq!(reply["type"], "ok", "{outage}: {reply}");
        let reply = once_back(
            &mut host,
            || req::configure_lobby(json!({}), 4),
            "configure_lobby",
        )
        .await;
        assert_eq!(reply["type"], "ok", "{outage}: {reply}");
        assert_eq!(http_get(addr, "/readyz").await.0, 200, "{outage}: ready again");
    }

    // The match plays on; the log holds every acknowledged action once, at its version.
    let rest = play(&mut players, &Time::Real, 5, 20).await;
    acknowledged.extend(rest.acknowledged);
    let version = rest.last_state["version"].as_u64().unwrap();
    process.kill().await;
    let log = direct.action_log(&match_id).await.unwrap();
    assert_eq!(log.len() as u64, version);
    for (seat, action, v) in &acknowledged {
        let entry = &log[*v as usize - 1];
        assert_eq!(
            (entry.actor, entry.action.to_value()),
            (rules::Actor::Seat(rules::Seat(*seat)), action.clone())
        );
    }
    direct.close().await;
    drop(proxy);
    db.drop_db().await;
}
