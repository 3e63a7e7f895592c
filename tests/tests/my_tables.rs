//! "My tables" (issue 47, point 3): one `my_tables` request with the seat tokens a client keeps answers, for each
//! table, the game, the seats, the phase, whose turn it is and whether it is this seat's, the turn timer's
//! deadline, the last move's time, the version and the result, read from the database (so also after a restart);
//! an unknown code or a wrong token is reported in its entry, counts against the limits on guessing, and a request
//! naming too many tables is refused.

use integration_tests::*;
use serde_json::{Value, json};
use server::clock::Clock;

const TIMER_MS: u64 = 3_600_000;

/// Two human seats (host seat 0, guest seat 1) of `game` with a turn timer, started; both have seen version 0.
async fn two_humans(addr: std::net::SocketAddr, game: &str, options: Value) -> (String, Vec<Player>) {
    let mut host = Client::hello(addr).await;
    let created = host
        .request(
            req::create_lobby(game, 2, "Ann")
                .options(options)
                .turn_timer_ms(TIMER_MS),
        )
        .await;
    assert_eq!(created["type"], "seated", "{created}");
    let code = created["code"].as_str().unwrap().to_string();
    let mut guest = Client::hello(addr).await;
    let joined = guest.request(req::join(&code, "Bob")).await;
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
    (code, players)
}

/// The `my_tables` reply's entries for `tables`, from a fresh connection that joined nothing.
async fn ask(addr: std::net::SocketAddr, tables: &[(&str, &str)]) -> Vec<Value> {
    let mut c = Client::hello(addr).await;
    let r = c.request(req::my_tables(tables)).await;
    assert_eq!(r["type"], "my_tables", "{r}");
    r["tables"].as_array().unwrap().clone()
}

/// Checks an entry against the `state` push `seat` saw last.
fn check_entry(entry: &Value, code: &str, game: &str, seat: u64, state: &Value, now: u64) {
    assert_eq!(entry["status"], "seated", "{entry}");
    assert_eq!(entry["code"], code);
    assert_eq!(entry["game"], game);
    let name = rules::catalogue()
        .into_iter()
        .find(|g| g.id == game)
        .unwrap()
        .name;
    assert_eq!(entry["game_name"], name);
    assert_eq!(entry["seat"], seat);
    assert_eq!(entry["phase"], "playing", "{entry}");
    assert_eq!(entry["version"], state["version"], "{entry}");
    let to_decide = json!(deciding(state));
    assert_eq!(
        entry["to_decide"], to_decide,
        "{game} at {}: {entry}",
        state["version"]
    );
    let mine = to_decide.as_array().unwrap().contains(&json!(seat));
    assert_eq!(entry["your_turn"], mine, "{entry}");
    assert_eq!(
        entry["players"],
        json!([{"seat": 0, "name": "Ann", "bot": false}, {"seat": 1, "name": "Bob", "bot": false}])
    );
    let last = entry["last_move_at"].as_u64().unwrap();
    if to_decide.as_array().unwrap().is_empty() {
        assert!(entry["deadline"].is_null(), "{entry}");
    } else {
        assert_eq!(entry["deadline"], last + TIMER_MS, "{entry}");
    }
    if mine {
        assert_eq!(entry["clock_left_ms"], last + TIMER_MS - now, "{entry}");
    } else {
        assert!(entry["clock_left_ms"].is_null(), "{entry}");
    }
    assert!(entry["result"].is_null());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn my_tables_lists_each_table_with_whose_turn_it_is() {
    for backend in backends() {
        let db = TestDb::new(backend).await;
        let mut server = TestServer::start(&db, test_config()).await;
        let clock = server.clock.clone();
        let time = Time::Manual(clock.clone());
        // Two games: one of turns (Hickory Dickory), one of simultaneous steps (Quacks).
        let (turns, mut turn_players) = two_humans(server.addr, "hickory_dickory", json!({})).await;
        let (brew, mut brew_players) = two_humans(server.addr, "quacks", json!({})).await;
        // A finished one, with a bot.
        let (done, mut done_players) =
            start_match(server.addr, "hide_and_eeek", json!({"target": 3}), 2, 1).await;
        let finished = play(&mut done_players, &time, 7, 2_000).await;
        assert_eq!(finished.last_state["status"]["kind"], "over");

        let bob_turns = turn_players[1].token.clone();
        let bob_brew = brew_players[1].token.clone();
        let ann_done = done_players[0].token.clone();
        let wrong = "0".repeat(64);
        let tables = [
            (turns.as_str(), bob_turns.as_str()),
            (brew.as_str(), bob_brew.as_str()),
            (done.as_str(), ann_done.as_str()),
            (turns.as_str(), wrong.as_str()),
            ("ABCD-EFGH-JKMN-PQRS", bob_turns.as_str()),
            ("not a code", bob_turns.as_str()),
        ];

        // Right after the start: whose turn it is comes from the match's start row.
        clock.advance(5_000);
        let now = clock.now();
        let entries = ask(server.addr, &tables).await;
        assert_eq!(entries.len(), tables.len());
        let turn_state = turn_players[1].client.state.clone().unwrap();
        check_entry(&entries[0], &turns, "hickory_dickory", 1, &turn_state, now);
        assert_eq!(entries[0]["version"], 0);
        let brew_state = brew_players[1].client.state.clone().unwrap();
        check_entry(&entries[1], &brew, "quacks", 1, &brew_state, now);

        // The finished table: its result, nobody to wait for, the bot marked.
        let e = &entries[2];
        assert_eq!(e["status"], "seated");
        assert_eq!(e["phase"], "finished", "{e}");
        assert_eq!(e["to_decide"], json!([]));
        assert_eq!(e["your_turn"], false);
        assert!(e["deadline"].is_null() && e["clock_left_ms"].is_null());
        assert_eq!(e["players"][1]["bot"], true);
        assert_eq!(e["version"], finished.last_state["version"]);
        assert_eq!(
            e["result"]["winners"], finished.last_state["outcome"]["winners"],
            "{e}"
        );

        // A wrong token, an unknown code and a malformed one: each its own entry, the same answer.
        for (i, (code, _)) in tables.iter().enumerate().skip(3) {
            assert_eq!(
                entries[i],
                json!({"status": "unknown", "code": code}),
                "entry {i}"
            );
        }

        // After moves in both.
        play_until(&mut turn_players, &time, 1, 5, |_| false).await;
        play_until(&mut brew_players, &time, 2, 3, |_| false).await;
        let now = clock.now();
        let entries = ask(server.addr, &tables[..2]).await;
        let turn_state = turn_players[1].client.state.clone().unwrap();
        assert!(turn_state["version"].as_u64().unwrap() >= 5);
        check_entry(&entries[0], &turns, "hickory_dickory", 1, &turn_state, now);
        let brew_state = brew_players[1].client.state.clone().unwrap();
        check_entry(&entries[1], &brew, "quacks", 1, &brew_state, now);
        // The host's view of the same table: its own seat, the same seats deciding.
        let ann = ask(server.addr, &[(turns.as_str(), turn_players[0].token.as_str())]).await;
        check_entry(&ann[0], &turns, "hickory_dickory", 0, &turn_state, now);

        // After a restart: the same answers, from the database.
        drop(turn_players);
        drop(brew_players);
        drop(done_players);
        server.stop().await;
        server = TestServer::start_with_clock(&db, test_config(), clock.clone()).await;
        let again = ask(server.addr, &tables[..2]).await;
        assert_eq!(again, entries, "the same after a restart");

        // A seated connection may ask too.
        let mut seated = server.client().await;
        let r = seated.request(req::resume(&turns, &bob_turns)).await;
        assert_eq!(r["type"], "resumed", "{r}");
        let r = seated.request(req::my_tables(&tables[..1])).await;
        assert_eq!(r["tables"][0]["status"], "seated", "{r}");
        server.stop().await;
        db.drop_db().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_open_lobby_is_listed_with_its_free_seats() {
    let db = TestDb::new("sqlite").await;
    let server = TestServer::start(&db, test_config()).await;
    let mut host = server.client().await;
    let created = host.request(req::create_lobby("molehills", 3, "Ann")).await;
    let code = created["code"].as_str().unwrap();
    let token = created["seat_token"].as_str().unwrap();
    let entries = ask(server.addr, &[(code, token)]).await;
    let e = &entries[0];
    assert_eq!(e["phase"], "open", "{e}");
    assert_eq!(e["version"], 0);
    assert!(e["last_move_at"].is_null());
    assert_eq!(e["to_decide"], json!([]));
    assert_eq!(e["players"][1], json!({"seat": 1, "name": null, "bot": false}));
    server.stop().await;
    db.drop_db().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn too_many_tables_are_refused_and_wrong_tokens_count_as_guesses() {
    let db = TestDb::new("sqlite").await;
    let mut config = test_config();
    config.code_guesses_per_ip_burst = 3.0;
    config.code_guesses_per_ip_per_min = 1.0;
    let server = TestServer::start(&db, config).await;
    let mut host = server.client().await;
    let created = host.request(req::create_lobby("molehills", 2, "Ann")).await;
    let code = created["code"].as_str().unwrap();
    let token = created["seat_token"].as_str().unwrap();

    let mut c = server.client().await;
    let many: Vec<(&str, &str)> = (0..=protocol::MY_TABLES_MAX).map(|_| (code, token)).collect();
    let r = c.request(req::my_tables(&many)).await;
    assert_eq!(r["type"], "error", "{r}");
    assert_eq!(r["code"], "too_many_tables");
    // The connection stays usable; the largest list allowed is answered (right tokens cost no guess).
    let r = c.request(req::my_tables(&many[..protocol::MY_TABLES_MAX])).await;
    assert_eq!(
        r["tables"].as_array().unwrap().len(),
        protocol::MY_TABLES_MAX,
        "{r}"
    );

    // Three wrong tokens spend this address's allowance of failed look-ups: a join by code is refused next.
    let wrong = "f".repeat(64);
    let r = c.request(req::my_tables(&[(code, wrong.as_str()); 3])).await;
    assert!(
        r["tables"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["status"] == "unknown"),
        "{r}"
    );
    let mut guesser = server.client().await;
    let r = guesser.request(req::join("ABCD-EFGH-JKMN-PQRS", "Eve")).await;
    assert_eq!(r["code"], "rate_limited", "{r}");
    // A right token still gets through.
    let r = c.request(req::my_tables(&[(code, token)])).await;
    assert_eq!(r["tables"][0]["status"], "seated", "{r}");

    // Per connection, at most a burst of requests.
    let mut refused = None;
    for _ in 0..20 {
        let r = c.request(req::my_tables(&[])).await;
        if r["type"] == "error" {
            refused = Some(r);
            break;
        }
    }
    let refused = refused.expect("the burst runs out");
    assert_eq!(refused["code"], "rate_limited", "{refused}");
    assert_eq!(c.request(req::ping()).await["type"], "pong");
    server.stop().await;
    db.drop_db().await;
}
