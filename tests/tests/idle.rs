//! Matches nobody is at do not hold memory (issue 42, point 7): an open or playing table to which nobody has been
//! connected for `IDLE_UNLOAD_SECS` leaves memory (it stays in the database, and a restart does not bring it
//! back); a seat that returns finds it as it was, and its timed behaviour (a turn timer) goes on while it is out
//! of memory; a match nobody has come back to for `ABANDON_AFTER_SECS` ends as abandoned. On SQLite and, with
//! `TEST_DATABASE_URL`, PostgreSQL, against the in-process server with a manual clock.

use std::time::Duration;

use integration_tests::*;
use serde_json::Value;

const GAME: &str = "molehills";
const IDLE_SECS: u64 = 60;
const ADMIN_TOKEN: &str = "admin-token-for-tests-0123456789";

fn idle_config() -> server::Config {
    let mut config = test_config();
    config.idle_unload_secs = IDLE_SECS;
    config.admin_token = Some(server::admin::AdminToken::parse(ADMIN_TOKEN).unwrap());
    config
}

/// A gauge or counter of `/metrics`.
async fn metric(server: &TestServer, name: &str) -> u64 {
    let (status, body) = http_get(server.addr, "/metrics").await;
    assert_eq!(status, 200);
    body.lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' '))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| panic!("no {name} in:\n{body}"))
}

const PLAYING: &str = "tabletop_matches{state=\"playing\"}";
const LOADED: &str = "tabletop_tables_loaded";

async fn wait_metric(server: &TestServer, name: &str, expected: u64) {
    for _ in 0..400 {
        if metric(server, name).await == expected {
            return;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("{name}: {} (expected {expected})", metric(server, name).await);
}

/// Waits until every table of `codes` has stored that nobody is connected to it (it saw everyone leave).
async fn wait_idle_stored(db: &TestDb, codes: &[String]) {
    let store = db.store().await;
    for code in codes {
        let mut seen = false;
        for _ in 0..400 {
            let idle = store.load_idleness(code).await.unwrap().expect("the lobby");
            if idle.idle_since.is_some() {
                seen = true;
                break;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        assert!(seen, "{code}: the table never stored that nobody is connected");
    }
}

/// A started match of two humans with a few moves played, everyone then gone: its code, the players' tokens and
/// the last state the first player saw; the second's is the same but for the viewer (compared by [`same_match`]
/// at the same seat only).
async fn left_match(
    server: &TestServer,
    seed: u64,
    turn_timer_ms: Option<u64>,
) -> (String, Vec<String>, [Value; 2]) {
    let mut host = server.client().await;
    let mut create = req::create_lobby(GAME, 2, "Host");
    if let Some(ms) = turn_timer_ms {
        create = create.turn_timer_ms(ms);
    }
    let created = host.request(create).await;
    assert_eq!(created["type"], "seated", "{created}");
    let code = created["code"].as_str().unwrap().to_string();
    let mut guest = server.client().await;
    let joined = guest.request(req::join(&code, "Guest")).await;
    assert_eq!(joined["type"], "seated", "{joined}");
    assert_eq!(host.request(req::start()).await["type"], "ok");
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
    let played = play(&mut players, &Time::Manual(server.clock.clone()), seed, 3).await;
    assert_eq!(
        played.last_state["status"]["kind"], "turn",
        "{}",
        played.last_state
    );
    let tokens = players.iter().map(|p| p.token.clone()).collect();
    let last = played.last_state["version"].as_u64().unwrap();
    let guest_state = players[1].client.wait_version(last).await;
    (code, tokens, [played.last_state, guest_state])
}

/// Resumes the seat of `token` at `code`; returns the client, the state and the lobby it is sent.
async fn resume(server: &TestServer, code: &str, token: &str) -> (Client, Value, Value) {
    let mut client = server.client().await;
    let r = client.request(req::resume(code, token)).await;
    assert_eq!(r["type"], "resumed", "{r}");
    while client.state.is_none() || client.lobby.is_none() {
        client.next_push().await.expect("pushes after resumed");
    }
    let (state, lobby) = (client.state.clone().unwrap(), client.lobby.clone().unwrap());
    (client, state, lobby)
}

/// What a state says of the match, without who is looking at it.
fn same_match(a: &Value, b: &Value) {
    for key in ["version", "status", "view", "legal_actions", "outcome"] {
        assert_eq!(a[key], b[key], "{key} differs:\n{a}\n{b}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn matches_everyone_left_leave_memory_and_resume_intact() {
    for backend in backends() {
        let db = TestDb::new(backend).await;
        let server = TestServer::start(&db, idle_config()).await;
        let mut left = Vec::new();
        for seed in 0..4 {
            left.push(left_match(&server, seed, None).await);
        }
        let codes: Vec<String> = left.iter().map(|(c, ..)| c.clone()).collect();
        wait_idle_stored(&db, &codes).await;
        assert_eq!(metric(&server, PLAYING).await, 4);

        // Not before the idle time...
        server.clock.advance(IDLE_SECS * 1000 - 1_000);
        tokio::time::sleep(Duration::from_millis(200)).await;
        assert_eq!(metric(&server, PLAYING).await, 4, "too early to unload");
        // ...but once it has passed, every one leaves memory, and `playing` follows.
        server.clock.advance(1_000);
        wait_metric(&server, PLAYING, 0).await;
        wait_metric(&server, LOADED, 0).await;
        assert_eq!(metric(&server, "tabletop_tables_unloaded_total").await, 4);

        // A seat that comes back finds its match as it was (its partner sees the same), and play goes on.
        for (code, tokens, before) in &left {
            let (_host, state, _) = resume(&server, code, &tokens[0]).await;
            same_match(&state, &before[0]);
        }
        wait_metric(&server, PLAYING, 4).await;
        let (code, tokens, before) = &left[0];
        let (host, ..) = resume(&server, code, &tokens[0]).await;
        let (guest, ..) = resume(&server, code, &tokens[1]).await;
        let mut players = vec![
            Player {
                client: host,
                seat: 0,
                token: tokens[0].clone(),
            },
            Player {
                client: guest,
                seat: 1,
                token: tokens[1].clone(),
            },
        ];
        let played = play(&mut players, &Time::Manual(server.clock.clone()), 99, 10_000).await;
        assert_eq!(played.last_state["status"]["kind"], "over");
        assert!(played.last_state["version"].as_u64() > before[0]["version"].as_u64());
        assert_eq!(metric(&server, "tabletop_tables_reloaded_total").await, 4);

        server.stop().await;
        db.drop_db().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restart_leaves_idle_matches_in_the_database_and_each_still_resumes() {
    for backend in backends() {
        let db = TestDb::new(backend).await;
        let server = TestServer::start(&db, idle_config()).await;
        let mut left = Vec::new();
        for seed in 0..3 {
            left.push(left_match(&server, seed, None).await);
        }
        let codes: Vec<String> = left.iter().map(|(c, ..)| c.clone()).collect();
        wait_idle_stored(&db, &codes).await;
        server.clock.advance(IDLE_SECS * 1000);
        wait_metric(&server, LOADED, 0).await;
        let clock = server.clock.clone();
        server.stop().await;

        let server = TestServer::start_with_clock(&db, idle_config(), clock).await;
        assert_eq!(metric(&server, LOADED).await, 0, "restored into memory");
        assert_eq!(metric(&server, PLAYING).await, 0);
        for (code, tokens, before) in &left {
            let (_guest, state, _) = resume(&server, code, &tokens[1]).await;
            same_match(&state, &before[1]);
        }
        wait_metric(&server, PLAYING, 3).await;

        server.stop().await;
        db.drop_db().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_match_nobody_comes_back_to_ends_as_abandoned() {
    for backend in backends() {
        let db = TestDb::new(backend).await;
        let mut config = idle_config();
        config.abandon_after_secs = 3 * 24 * 3600;
        let server = TestServer::start(&db, config).await;
        let (code, tokens, [before, _]) = left_match(&server, 5, None).await;
        let (kept_code, kept_tokens, _) = left_match(&server, 6, None).await;
        wait_idle_stored(&db, &[code.clone(), kept_code.clone()]).await;
        server.clock.advance(IDLE_SECS * 1000);
        wait_metric(&server, LOADED, 0).await;

        // Two days later a friend looks in on the second match (it is still playing), and leaves again.
        server.clock.advance(2 * 24 * 3600 * 1000);
        let (friend, state, lobby) = resume(&server, &kept_code, &kept_tokens[1]).await;
        assert_eq!(state["status"]["kind"], "turn");
        assert_eq!(lobby["phase"], "playing", "{lobby}");
        drop(friend);
        let store = db.store().await;
        for _ in 0..400 {
            if store
                .load_idleness(&kept_code)
                .await
                .unwrap()
                .unwrap()
                .idle_since
                .is_some()
            {
                break;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }

        // Three days after everyone left, the first one ends as abandoned, by itself (out of memory meanwhile).
        server.clock.advance(24 * 3600 * 1000 - IDLE_SECS * 1000);
        wait_metric(&server, "tabletop_matches_abandoned_total", 1).await;
        let (mut back, state, lobby) = resume(&server, &code, &tokens[0]).await;
        assert_eq!(state["version"], before["version"], "nothing was played");
        assert_eq!(lobby["phase"], "finished", "{lobby}");
        assert_eq!(lobby["abandoned"], true, "{lobby}");
        let legal = &before["legal_actions"];
        if let Some(action) = legal.as_array().and_then(|a| a.first()) {
            let r = back.request(req::action(action, None)).await;
            assert_eq!(r["code"], "game_over", "{r}");
        }

        // The admin API shows it as abandoned, and the other match as playing.
        let match_id = lobby["match_id"].as_str().unwrap();
        let auth = format!("Bearer {ADMIN_TOKEN}");
        let headers = [("Authorization", auth.as_str())];
        let (status, _, body) = http_request(
            server.addr,
            "GET",
            &format!("/api/admin/matches/{match_id}/result"),
            &headers,
            None,
        )
        .await;
        assert_eq!(status, 200, "{body}");
        let result: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(result["status"], "abandoned", "{result}");
        assert_eq!(result["outcome"], Value::Null, "{result}");
        let (status, _, body) = http_request(
            server.addr,
            "GET",
            "/api/admin/matches?status=abandoned",
            &headers,
            None,
        )
        .await;
        assert_eq!(status, 200, "{body}");
        let list: Value = serde_json::from_str(&body).unwrap();
        let listed: Vec<&str> = list["items"]
            .as_array()
            .unwrap_or_else(|| panic!("{list}"))
            .iter()
            .filter_map(|t| t["code"].as_str())
            .collect();
        assert_eq!(listed, [code.as_str()], "{list}");

        // The other match was looked at a day ago: it is still playing, and resumes.
        let (_friend, state, lobby) = resume(&server, &kept_code, &kept_tokens[0]).await;
        assert_eq!(state["status"]["kind"], "turn");
        assert_eq!(lobby["phase"], "playing", "{lobby}");
        assert_eq!(lobby.get("abandoned"), None, "{lobby}");

        server.stop().await;
        db.drop_db().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_turn_timer_goes_on_while_the_match_is_out_of_memory() {
    const TIMER_MS: u64 = 600_000;
    for backend in backends() {
        let db = TestDb::new(backend).await;
        let server = TestServer::start(&db, idle_config()).await;
        let (code, tokens, [before, _]) = left_match(&server, 7, Some(TIMER_MS)).await;
        let deadline = before["turn_deadline"].as_u64().expect("a turn deadline");
        let version = before["version"].as_u64().unwrap();
        wait_idle_stored(&db, std::slice::from_ref(&code)).await;
        server.clock.advance(IDLE_SECS * 1000);
        wait_metric(&server, LOADED, 0).await;

        // At the deadline the server loads the match and plays the timed-out seat's move at that time, then the
        // match leaves memory again (its next deadline is a turn timer away).
        server.clock.set(deadline);
        wait_metric(&server, "tabletop_tables_reloaded_total", 1).await;
        wait_metric(&server, "tabletop_tables_unloaded_total", 2).await;
        wait_metric(&server, LOADED, 0).await;
        let store = db.store().await;
        let lobby = store.load_lobby(&code).await.unwrap().unwrap();
        let log = store.action_log(&lobby.game.unwrap().record.id).await.unwrap();
        assert_eq!(log.len() as u64, version + 1, "one move by the turn timer");
        assert_eq!(log.last().unwrap().at, deadline, "played at the deadline");

        // The next deadline too, and a seat that comes back sees both moves.
        server.clock.set(deadline + TIMER_MS);
        wait_metric(&server, "tabletop_tables_unloaded_total", 3).await;
        let (_client, state, _) = resume(&server, &code, &tokens[0]).await;
        assert_eq!(state["version"].as_u64(), Some(version + 2), "{state}");
        assert_eq!(
            state["turn_deadline"].as_u64(),
            Some(deadline + 2 * TIMER_MS),
            "{state}"
        );

        server.stop().await;
        db.drop_db().await;
    }
}
