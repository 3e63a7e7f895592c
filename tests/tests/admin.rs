//! The admin API (issue 9) against a real server and real WebSocket clients, on SQLite and (when
//! `TEST_DATABASE_URL` is set) PostgreSQL: every admin route refuses a missing, wrong or seat token; the state
//! replayed at every step N equals what each viewer was pushed at version N; each admin action reaches the
//! connected clients and leaves an audit entry.

use integration_tests::*;
use serde_json::{Value, json};

const ADMIN_TOKEN: &str = "admin-token-for-tests-0123456789";
const GAME: &str = "hide_and_eeek";

fn admin_config() -> server::Config {
    let mut config = test_config();
    config.admin_token = Some(server::admin::AdminToken::parse(ADMIN_TOKEN).unwrap());
    config
}

async fn call(
    addr: std::net::SocketAddr,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: Option<Value>,
) -> (u16, Vec<(String, String)>, Value) {
    let auth = token.map(|t| format!("Bearer {t}"));
    let headers: Vec<(&str, &str)> = auth.iter().map(|a| ("Authorization", a.as_str())).collect();
    let body = body.map(|b| b.to_string());
    let (status, headers, text) = http_request(addr, method, path, &headers, body.as_deref()).await;
    let value = serde_json::from_str(&text).unwrap_or(Value::String(text));
    (status, headers, value)
}

async fn get(addr: std::net::SocketAddr, path: &str) -> Value {
    let (status, _, body) = call(addr, "GET", path, Some(ADMIN_TOKEN), None).await;
    assert_eq!(status, 200, "GET {path}: {body}");
    body
}

async fn post(addr: std::net::SocketAddr, path: &str, by: &str, reason: &str) -> (u16, Value) {
    let (status, _, body) = call(
        addr,
        "POST",
        path,
        Some(ADMIN_TOKEN),
        Some(json!({"by": by, "reason": reason})),
    )
    .await;
    (status, body)
}

/// Every admin route of the router, with its parameters filled in.
fn admin_routes(match_id: &str) -> Vec<(String, String)> {
    server::app::route_table()
        .into_iter()
        .filter(|(_, path)| path.starts_with("/api/admin/"))
        .map(|(method, path)| {
            let path = path
                .replace("{id}", match_id)
                .replace("{seat}", "1")
                .replace("{step}", "0");
            (method.to_ascii_uppercase(), path)
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_admin_route_refuses_a_missing_wrong_or_seat_token() {
    for backend in backends() {
        let db = TestDb::new(backend).await;
        let server = TestServer::start(&db, admin_config()).await;
        let (_code, players) = start_match(server.addr, GAME, json!({}), 2, 2).await;
        let match_id = players[0].client.state.as_ref().unwrap()["match_id"]
            .as_str()
            .unwrap()
            .to_string();
        let routes = admin_routes(&match_id);
        assert!(routes.len() >= 12, "{routes:?}");
        let body = json!({"by": "mallory", "reason": "testing"});
        let near_miss = format!("{}x", &ADMIN_TOKEN[..ADMIN_TOKEN.len() - 1]);
        for (method, path) in &routes {
            let body = (method == "POST").then(|| body.clone());
            let (status, headers, reply) = call(server.addr, method, path, None, body.clone()).await;
            assert_eq!(status, 401, "{backend} {method} {path} without a token: {reply}");
            assert!(
                headers
                    .iter()
                    .any(|(n, v)| n == "www-authenticate" && v == "Bearer")
            );
            assert_eq!(reply["code"], "unauthorized");
            for wrong in [
                near_miss.as_str(),
                players[0].token.as_str(),
                players[1].token.as_str(),
            ] {
                let (status, _, reply) = call(server.addr, method, path, Some(wrong), body.clone()).await;
                assert_eq!(
                    status, 403,
                    "{backend} {method} {path} with a wrong token: {reply}"
                );
                assert!(
                    !reply.to_string().contains(wrong),
                    "the refusal does not echo the token"
                );
            }
            // A token sent without the Bearer scheme is no token.
            let (status, _, _) = http_request(
                server.addr,
                method,
                path,
                &[("Authorization", ADMIN_TOKEN)],
                body.as_ref().map(|b| b.to_string()).as_deref(),
            )
            .await;
            assert_eq!(status, 401, "{method} {path} without the Bearer scheme");
        }
        // Nothing was done: the match still plays, no audit entry, the seats are intact.
        let inspected = get(server.addr, &format!("/api/admin/matches/{match_id}")).await;
        assert_eq!(inspected["phase"], "playing");
        assert_eq!(inspected["version"], 0);
        assert_eq!(inspected["seats"][1]["kind"], "human");
        assert_eq!(inspected["seats"][1]["connected"], true);
        assert_eq!(inspected["seats"][1]["presence"], "connected");
        assert_eq!(inspected["seats"][1]["stand_in"], false);
        assert_eq!(inspected["absent"]["policy"], "wait");
        assert_eq!(inspected["listed"], false);
        let audit = get(server.addr, "/api/admin/audit").await;
        assert_eq!(audit["items"], json!([]));
        // With the token, every GET route answers.
        for (method, path) in &routes {
            if method == "GET" {
                get(server.addr, path).await;
            }
        }
        server.stop().await;

        // Without a configured admin token the admin API does not exist, whatever the request carries.
        let server = TestServer::start(&db, test_config()).await;
        for (method, path) in &routes {
            let body = (method == "POST").then(|| body.clone());
            for token in [None, Some(ADMIN_TOKEN)] {
                let (status, _, _) = call(server.addr, method, path, token, body.clone()).await;
                assert_eq!(status, 404, "{method} {path} with the admin API off");
            }
        }
        // The public routes and the OpenAPI document are served either way, and the document is the committed one.
        let (status, body) = http_get(server.addr, "/api/openapi.json").await;
        assert_eq!(status, 200);
        let served: Value = serde_json::from_str(&body).unwrap();
        let committed: Value = serde_json::from_str(include_str!("../../docs/openapi.json")).unwrap();
        assert_eq!(served, committed);
        server.stop().await;
        db.drop_db().await;
    }
}

/// For each viewer, every `state` push it received equals the admin replay of that version as that viewer
/// (a resync push without its events; a late spectator's first push with every kept step's events), every version from its first push on reached it, and the live view is
/// its last push.
async fn assert_replays_equal_pushes(
    addr: std::net::SocketAddr,
    backend: &str,
    match_id: &str,
    version: u64,
    viewers: &[(Option<u8>, &integration_tests::Client)],
) {
    for (seat, client) in viewers {
        let query = seat.map_or(String::new(), |s| format!("?seat={s}"));
        for push in &client.states {
            let v = push["version"].as_u64().unwrap();
            let since = push["since"].as_u64().unwrap();
            let replayed = get(addr, &format!("/api/admin/matches/{match_id}/replay/{v}{query}")).await;
            let mut expected = replayed["state"].clone();
            if since == v && v > 0 {
                // A resync push: the view alone counts.
                expected["since"] = json!(v);
                expected["events"] = json!([]);
            } else if since + 1 < v {
                // A late spectator's first push carries the kept history: every step's events since `since`, as
                // the replay of each step shows them to this viewer.
                let mut events = Vec::new();
                for step in since + 1..=v {
                    let at = get(
                        addr,
                        &format!("/api/admin/matches/{match_id}/replay/{step}{query}"),
                    )
                    .await;
                    events.extend(at["state"]["events"].as_array().unwrap().iter().cloned());
                }
                expected["since"] = json!(since);
                expected["events"] = Value::Array(events);
            }
            assert_eq!(*push, expected, "{backend}: viewer {seat:?} at version {v}");
        }
        // Every version from the viewer's first push on was pushed to it (and so compared): the players from
        // version 0, the spectator from when it arrived.
        let versions: Vec<u64> = client
            .states
            .iter()
            .map(|s| s["version"].as_u64().unwrap())
            .collect();
        let first = if seat.is_some() { 0 } else { versions[0] };
        assert_eq!(
            versions,
            (first..=version).collect::<Vec<_>>(),
            "{backend}: {seat:?}"
        );
        // The live view is the last push, without its events.
        let mut now = get(addr, &format!("/api/admin/matches/{match_id}/view{query}")).await;
        let mut last_push = client.states.last().unwrap().clone();
        last_push["since"] = json!(version);
        last_push["events"] = json!([]);
        now["since"] = json!(version);
        assert_eq!(now, last_push, "{backend}: live view of {seat:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_state_replayed_at_every_step_is_what_each_viewer_was_shown() {
    for backend in backends() {
        let db = TestDb::new(backend).await;
        let server = TestServer::start(&db, admin_config()).await;
        // Three people and a bot, with a spectator: hidden cards, claim windows, clock actions and bot moves.
        let (code, mut players) = start_match(
            server.addr,
            GAME,
            json!({"target": 3, "claim_window_ms": 1000}),
            4,
            3,
        )
        .await;
        let mut spectator = server.client().await;
        let r = spectator.request(req::spectate(&code)).await;
        assert_eq!(r["type"], "spectating", "{r}");
        let played = play(&mut players, &Time::Manual(server.clock.clone()), 11, 10_000).await;
        let last = played.last_state.clone();
        assert_eq!(last["status"]["kind"], "over", "{last}");
        let version = last["version"].as_u64().unwrap();
        let match_id = last["match_id"].as_str().unwrap().to_string();
        spectator.wait_version(version).await;

        let mut viewers: Vec<(Option<u8>, &integration_tests::Client)> =
            players.iter().map(|p| (Some(p.seat), &p.client)).collect();
        viewers.push((None, &spectator));
        assert_replays_equal_pushes(server.addr, backend, &match_id, version, &viewers).await;

        // The complete state: the table's equals the replay's at the last step, and it holds what no seat's view
        // shows (hidden cards), so it differs from every view.
        let inspected = get(server.addr, &format!("/api/admin/matches/{match_id}")).await;
        let replayed = get(
            server.addr,
            &format!("/api/admin/matches/{match_id}/replay/{version}"),
        )
        .await;
        assert_eq!(inspected["full_state"], replayed["full_state"]);
        assert_eq!(inspected["version"], version);
        assert_eq!(inspected["match"]["status"], "finished");
        for p in &players {
            assert_ne!(inspected["full_state"], p.client.state.as_ref().unwrap()["view"]);
        }
        // Beyond the log there is nothing; a seat the match does not have is refused.
        let (status, _, _) = call(
            server.addr,
            "GET",
            &format!("/api/admin/matches/{match_id}/replay/{}", version + 1),
            Some(ADMIN_TOKEN),
            None,
        )
        .await;
        assert_eq!(status, 404);
        let (status, _, _) = call(
            server.addr,
            "GET",
            &format!("/api/admin/matches/{match_id}/view?seat=9"),
            Some(ADMIN_TOKEN),
            None,
        )
        .await;
        assert_eq!(status, 400);

        // The log: one entry per version, the acknowledged actions at their places, and events whose public part
        // is what the spectator was told at that version.
        let log = get(server.addr, &format!("/api/admin/matches/{match_id}/log")).await;
        let entries = log["entries"].as_array().unwrap();
        assert_eq!(entries.len() as u64, version);
        for (i, entry) in entries.iter().enumerate() {
            assert_eq!(entry["seq"], i as u64 + 1);
        }
        for (seat, action, v) in &played.acknowledged {
            let entry = &entries[*v as usize - 1];
            assert_eq!((&entry["seat"], &entry["action"]), (&json!(seat), action));
        }
        for push in &spectator.states {
            let v = push["version"].as_u64().unwrap();
            if v == 0 || push["since"].as_u64().unwrap() + 1 != v {
                continue;
            }
            let public: Vec<&Value> = entries[v as usize - 1]["events"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|e| e["audience"] == "everyone")
                .map(|e| &e["body"])
                .collect();
            let seen: Vec<&Value> = push["events"].as_array().unwrap().iter().collect();
            assert_eq!(seen, public, "{backend}: public events of version {v}");
        }
        // The result.
        let result = get(server.addr, &format!("/api/admin/matches/{match_id}/result")).await;
        assert_eq!(result["status"], "finished");
        assert_eq!(result["outcome"], last["outcome"]);
        server.stop().await;
        db.drop_db().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn admin_actions_reach_connected_clients_and_are_audited() {
    for backend in backends() {
        let db = TestDb::new(backend).await;
        let server = TestServer::start(&db, admin_config()).await;
        let addr = server.addr;
        // A match with a claim window open (the seed is the server's own: a match may end before one opens, or
        // open one at the start; try again with another match then).
        let mut attempt = 0;
        let (code, mut players, mut spectator, match_id, base, state) = loop {
            attempt += 1;
            assert!(attempt <= 10, "no claim window opened in 10 matches");
            let (code, mut players) =
                start_match(addr, GAME, json!({"target": 20, "claim_window_ms": 1000}), 3, 3).await;
            let mut spectator = server.client().await;
            let r = spectator.request(req::spectate(&code)).await;
            assert_eq!(r["type"], "spectating", "{r}");
            let match_id = players[0].client.state.as_ref().unwrap()["match_id"]
                .as_str()
                .unwrap()
                .to_string();
            let base = format!("/api/admin/matches/{match_id}");
            let inspected = get(addr, &base).await;
            if inspected["deadline"].is_null() {
                // With no deadline pending, firing is refused and nothing is audited.
                let (status, reply) = post(addr, &format!("{base}/fire-deadline"), "ann", "stuck").await;
                assert_eq!(
                    (status, &reply["code"]),
                    (409, &json!("illegal_action")),
                    "{reply}"
                );
                let audit = get(addr, &format!("{base}/audit")).await;
                assert_eq!(audit["items"], json!([]));
            }
            // Play until a claim window is open, then close it now instead of waiting for the clock.
            let played = play_until(
                &mut players,
                &Time::Manual(server.clock.clone()),
                attempt,
                10_000,
                |s| s["deadline"].is_number(),
            )
            .await;
            let state = played.last_state;
            if state["deadline"].is_number() {
                break (code, players, spectator, match_id, base, state);
            }
        };
        let before = state["version"].as_u64().unwrap();
        let deadline = state["deadline"].as_u64().unwrap();
        assert!(
            server::Clock::now(&server.clock) < deadline,
            "the deadline is still ahead"
        );
        let (status, reply) = post(addr, &format!("{base}/fire-deadline"), "ann", "the window hung").await;
        assert_eq!(status, 200, "{reply}");
        assert_eq!(reply["version"], before + 1);
        assert_eq!(reply["fired"], "engine");
        for p in &mut players {
            let s = p.client.wait_version(before + 1).await;
            assert_eq!(s["version"], before + 1);
            assert_eq!(s["since"], before);
        }
        spectator.wait_version(before + 1).await;
        let log = get(addr, &format!("{base}/log")).await;
        let fired = &log["entries"][before as usize];
        assert_eq!(fired["actor"], "clock");
        assert_eq!(fired["at"], deadline, "played at the deadline's time");

        // Replace seat 2 with a bot: its player is told and disconnected, its token no longer works, the others
        // see a bot there, and the bot plays.
        let mut removed = players.pop().unwrap();
        let (status, reply) = post(addr, &format!("{base}/seats/2/bot"), "ann", "cheating").await;
        assert_eq!(status, 200, "{reply}");
        let closing = removed.client.wait_push("closing", |_| true).await;
        assert_eq!(closing["code"], "removed", "{closing}");
        assert!(closing["message"].as_str().unwrap().contains("cheating"));
        assert_eq!(removed.client.until_closed().await, None);
        let lobby = players[0]
            .client
            .wait_push("lobby", |l| l["seats"][2]["occupant"]["kind"] == "bot")
            .await;
        assert_eq!(lobby["phase"], "playing");
        let mut again = server.client().await;
        let r = again.request(req::resume(&code, &removed.token)).await;
        assert_eq!(r["code"], "unauthorized", "{r}");

        // Remove seat 1: told and disconnected, token revoked; the seat stays a (removed) human.
        let mut gone = players.pop().unwrap();
        let (status, reply) = post(addr, &format!("{base}/seats/1/remove"), "bob", "abusive chat").await;
        assert_eq!(status, 200, "{reply}");
        let closing = gone.client.wait_push("closing", |_| true).await;
        assert_eq!(closing["code"], "removed", "{closing}");
        assert_eq!(gone.client.until_closed().await, None);
        let r = again.request(req::resume(&code, &gone.token)).await;
        assert_eq!(r["code"], "unauthorized", "{r}");
        let inspected = get(addr, &base).await;
        assert_eq!(inspected["seats"][1]["kind"], "human");
        assert_eq!(inspected["seats"][1]["removed"], true);
        assert_eq!(inspected["seats"][1]["connected"], false);
        assert_eq!(inspected["seats"][1]["presence"], "away");
        assert_eq!(inspected["seats"][2]["kind"], "bot");
        // Removing twice, a bot's seat or a seat that does not exist is refused.
        for (path, expected) in [
            ("seats/1/remove", 400),
            ("seats/2/remove", 400),
            ("seats/7/bot", 400),
        ] {
            let (status, reply) = post(addr, &format!("{base}/{path}"), "bob", "again").await;
            assert_eq!(status, expected, "{path}: {reply}");
        }
        // A body without a reason is refused before anything happens.
        let (status, _, _) = call(
            addr,
            "POST",
            &format!("{base}/abort"),
            Some(ADMIN_TOKEN),
            Some(json!({"by": "ann"})),
        )
        .await;
        assert_eq!(status, 400);
        // So is a body that is a list (serde would read it by position as `by` and `reason`), and a seat in the
        // path that is not a number, each with a JSON refusal in words.
        for (path, body) in [
            ("abort", json!(["ann", "a list"])),
            ("seats/x/remove", json!({"by": "ann", "reason": "no such seat"})),
        ] {
            let (status, _, reply) = call(
                addr,
                "POST",
                &format!("{base}/{path}"),
                Some(ADMIN_TOKEN),
                Some(body),
            )
            .await;
            assert_eq!(
                (status, &reply["code"]),
                (400, &json!("bad_message")),
                "{path}: {reply}"
            );
            let message = reply["message"].as_str().unwrap();
            assert_eq!(rust_word_in(message), None, "{path}: {message}");
        }

        // Abort: the host and the spectator are told, the lobby is finished, actions are refused, the result says
        // aborted with the reason.
        let (status, reply) = post(addr, &format!("{base}/abort"), "carol", "server migration").await;
        assert_eq!(status, 200, "{reply}");
        let version = reply["version"].as_u64().unwrap();
        for client in [&mut players[0].client, &mut spectator] {
            let aborted = client.wait_push("aborted", |_| true).await;
            assert_eq!(aborted["match_id"], match_id);
            assert_eq!(aborted["reason"], "server migration");
            assert_eq!(aborted["code"], code);
            let lobby = client.wait_push("lobby", |_| true).await;
            assert_eq!(lobby["phase"], "finished");
        }
        let r = players[0]
            .client
            .request(req::action(&json!({"type": "stop"}), None))
            .await;
        assert_eq!(r["code"], "game_over", "{r}");
        let (status, reply) = post(addr, &format!("{base}/abort"), "carol", "twice").await;
        assert_eq!((status, &reply["code"]), (409, &json!("game_over")));
        let (status, _) = post(addr, &format!("{base}/fire-deadline"), "carol", "after").await;
        assert_eq!(status, 409);
        let result = get(addr, &format!("{base}/result")).await;
        assert_eq!(result["status"], "aborted");
        assert_eq!(result["abort_reason"], "server migration");
        assert_eq!(result["outcome"], Value::Null);

        // The audit log: one entry per successful action, newest first, with who, what, when and why.
        let audit = get(addr, &format!("{base}/audit")).await;
        let items = audit["items"].as_array().unwrap();
        let summary: Vec<(&str, &str, &str, Value)> = items
            .iter()
            .map(|e| {
                (
                    e["action"].as_str().unwrap(),
                    e["admin"].as_str().unwrap(),
                    e["reason"].as_str().unwrap(),
                    e["seat"].clone(),
                )
            })
            .collect();
        assert_eq!(
            summary,
            vec![
                ("abort", "carol", "server migration", Value::Null),
                ("remove_player", "bob", "abusive chat", json!(1)),
                ("replace_with_bot", "ann", "cheating", json!(2)),
                ("fire_deadline", "ann", "the window hung", Value::Null),
            ],
            "{backend}"
        );
        for e in items {
            assert_eq!(e["match_id"], match_id);
            assert_eq!(e["lobby_code"], code);
            assert!(e["at"].as_u64().unwrap() >= CLOCK_START);
        }
        assert_eq!(items[0]["detail"]["version"], version);
        assert_eq!(items[2]["detail"]["name"], "P2");
        let page = get(addr, "/api/admin/audit?limit=1&offset=1").await;
        assert_eq!(page["items"].as_array().unwrap().len(), 1);
        assert_eq!(page["items"][0]["action"], "remove_player");

        // The list: filters by status, game, player name and time, and pages.
        let (_other_code, other) = start_match(addr, GAME, json!({}), 2, 2).await;
        let other_id = other[0].client.state.as_ref().unwrap()["match_id"].clone();
        let list = |q: &'static str| async move { get(addr, &format!("/api/admin/matches{q}")).await };
        let ids = |v: &Value| -> Vec<Value> {
            v["items"]
                .as_array()
                .unwrap()
                .iter()
                .map(|i| i["match_id"].clone())
                .collect()
        };
        assert_eq!(ids(&list("?status=aborted").await), vec![json!(match_id)]);
        assert_eq!(ids(&list("?status=playing").await), vec![other_id.clone()]);
        assert_eq!(ids(&list("?game=hide_and_eeek&limit=1").await).len(), 1);
        // Earlier attempts that ended without a claim window are listed too, as finished.
        let total = attempt as usize + 1;
        assert_eq!(ids(&list("").await).len(), total);
        assert_eq!(ids(&list("?status=finished").await).len(), total - 2);
        assert!(ids(&list("?game=quacks").await).is_empty());
        assert_eq!(
            ids(&list("?player=BOT").await),
            vec![json!(match_id)],
            "a bot sits only in the first"
        );
        assert_eq!(ids(&list("?player=p1").await).len(), total);
        assert_eq!(
            ids(&list("?player=%25").await),
            Vec::<Value>::new(),
            "wildcards are literal"
        );
        assert_eq!(ids(&list("?player=host").await).len(), total);
        assert_eq!(ids(&list("?to=1").await), Vec::<Value>::new());
        assert_eq!(ids(&list("?from=1").await).len(), total);
        let aborted_row = &list("?status=aborted").await["items"][0];
        assert_eq!(aborted_row["abort_reason"], "server migration");
        assert_eq!(aborted_row["code"], code);
        let (status, _, _) = call(
            addr,
            "GET",
            "/api/admin/matches?status=weird",
            Some(ADMIN_TOKEN),
            None,
        )
        .await;
        assert_eq!(status, 400);

        // After a restart the aborted match stays aborted: finished, nothing acts in it.
        drop(players);
        drop(other);
        let clock = server.clock.clone();
        server.stop().await;
        let server = TestServer::start_with_clock(&db, admin_config(), clock).await;
        let inspected = get(server.addr, &base).await;
        assert_eq!(inspected["phase"], "finished");
        assert_eq!(inspected["version"], version);
        assert_eq!(inspected["next_wake"], Value::Null);
        assert_eq!(inspected["match"]["status"], "aborted");
        server.stop().await;
        db.drop_db().await;
    }
}

/// Without an engine deadline, firing plays the turn timer's random legal action for the idle seat now, logged
/// as that seat's action at the timer's deadline.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn firing_the_turn_timer_plays_for_the_idle_seat() {
    for backend in backends() {
        let db = TestDb::new(backend).await;
        let server = TestServer::start(&db, admin_config()).await;
        let addr = server.addr;
        let mut host = server.client().await;
        let created = host
            .request(req::create_lobby(GAME, 2, "Host").turn_timer_ms(60000))
            .await;
        assert_eq!(created["type"], "seated", "{created}");
        let code = created["code"].as_str().unwrap().to_string();
        let mut guest = server.client().await;
        let joined = guest.request(req::join(&code, "Guest")).await;
        assert_eq!(joined["type"], "seated", "{joined}");
        let r = host.request(req::start()).await;
        assert_eq!(r["type"], "ok", "{r}");
        let state = host.wait_version(0).await;
        let states = [state.clone(), guest.wait_version(0).await];
        let match_id = state["match_id"].as_str().unwrap().to_string();
        assert_eq!(state["deadline"], Value::Null);
        let turn_deadline = state["turn_deadline"].as_u64().expect("the turn timer runs");
        let mover = state["status"]["seat"].as_u64().expect("a turn");

        let (status, reply) = post(
            addr,
            &format!("/api/admin/matches/{match_id}/fire-deadline"),
            "dana",
            "player asleep",
        )
        .await;
        assert_eq!(status, 200, "{reply}");
        assert_eq!(
            (&reply["version"], &reply["fired"]),
            (&json!(1), &json!("turn_timer"))
        );
        for client in [&mut host, &mut guest] {
            assert_eq!(client.wait_version(1).await["since"], 0);
        }
        let log = get(addr, &format!("/api/admin/matches/{match_id}/log")).await;
        let entry = &log["entries"][0];
        assert_eq!(entry["seat"], mover);
        assert_eq!(entry["at"], turn_deadline);
        let legal = states[mover as usize]["legal_actions"].as_array().unwrap();
        assert!(
            legal.contains(&entry["action"]),
            "a legal action of the idle seat: {entry}"
        );
        let audit = get(addr, &format!("/api/admin/matches/{match_id}/audit")).await;
        assert_eq!(audit["items"][0]["action"], "fire_deadline");
        assert_eq!(audit["items"][0]["detail"]["fired"], "turn_timer");
        assert_eq!(audit["items"][0]["detail"]["deadline"], turn_deadline);
        server.stop().await;
        db.drop_db().await;
    }
}

/// The replay equals what the viewers were shown for every registered game (hidden hands, bags, simultaneous
/// secret choices), with a bot where the game seats three or more.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_game_replays_to_what_its_viewers_were_shown() {
    for backend in backends() {
        let db = TestDb::new(backend).await;
        let server = TestServer::start(&db, admin_config()).await;
        for (i, info) in rules::catalogue().into_iter().enumerate() {
            let seats = info.min_players.max(2);
            let humans = if seats >= 3 { seats - 1 } else { seats };
            let options = match info.id {
                "hide_and_eeek" => json!({"target": 4, "claim_window_ms": 1000}),
                _ => json!({}),
            };
            let (code, mut players) = start_match(server.addr, info.id, options, seats, humans).await;
            let mut spectator = server.client().await;
            let r = spectator.request(req::spectate(&code)).await;
            assert_eq!(r["type"], "spectating", "{r}");
            // Long games are cut short: a replay at any step works the same on an unfinished match.
            let played = play(
                &mut players,
                &Time::Manual(server.clock.clone()),
                100 + i as u64,
                150,
            )
            .await;
            let version = played.last_state["version"].as_u64().unwrap();
            let match_id = played.last_state["match_id"].as_str().unwrap().to_string();
            spectator.wait_version(version).await;
            let mut viewers: Vec<(Option<u8>, &integration_tests::Client)> =
                players.iter().map(|p| (Some(p.seat), &p.client)).collect();
            viewers.push((None, &spectator));
            assert_replays_equal_pushes(
                server.addr,
                &format!("{backend} {}", info.id),
                &match_id,
                version,
                &viewers,
            )
            .await;
        }
        server.stop().await;
        db.drop_db().await;
    }
}
