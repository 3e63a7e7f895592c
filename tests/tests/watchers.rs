//! Spectators as people (issue 44, point 3): a spectator may give a name, which its chat carries and the lobby
//! push lists; one arriving mid-match gets the match's events so far that a spectator may see (and none that only
//! a seat saw); one watching an open lobby takes a free seat without leaving first.

use integration_tests::*;
use protocol::Request;
use serde_json::{Value, json};

/// The events of every state push `client` received up to `version`, in order, as JSON text.
fn events_up_to(client: &Client, version: u64) -> Vec<String> {
    client
        .states
        .iter()
        .filter(|s| s["version"].as_u64().unwrap() <= version)
        .flat_map(|s| s["events"].as_array().unwrap().iter().map(Value::to_string))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_named_spectator_chats_under_its_name_and_the_lobby_lists_it() {
    for backend in backends() {
        let db = TestDb::new(backend).await;
        let server = TestServer::start(&db, test_config()).await;
        let mut host = server.client().await;
        let created = host.request(req::create_lobby("hide_and_eeek", 2, "Ann")).await;
        let code = created["code"].as_str().unwrap().to_string();

        // A name is checked as a player's: refused, the connection watches nothing.
        let mut cy = server.client().await;
        for bad in ["   ", "Cy\u{202e}", "two\nlines"] {
            let r = cy.request(req::spectate_as(&code, bad)).await;
            assert_eq!(r["code"], "bad_name", "{bad:?}: {r}");
        }
        let r = cy.request(req::spectate_as(&code, "  Cy ")).await;
        assert_eq!(r["type"], "spectating", "{r}");
        let lobby = host.wait_push("lobby", |l| l["spectators"] == 1).await;
        assert_eq!(lobby["watchers"], json!(["Cy"]), "{lobby}");

        // An unnamed spectator is counted but not listed.
        let mut quiet = server.client().await;
        let r = quiet.request(req::spectate(&code)).await;
        assert_eq!(r["type"], "spectating", "{r}");
        let lobby = host.wait_push("lobby", |l| l["spectators"] == 2).await;
        assert_eq!(lobby["watchers"], json!(["Cy"]), "{lobby}");

        // Each writes under its own name in the spectators' channel.
        let r = cy.request(req::chat("go Ann")).await;
        assert_eq!(r["type"], "ok", "{r}");
        let m = host.wait_push("chat_message", |_| true).await;
        assert_eq!(
            (
                &m["message"]["name"],
                &m["message"]["channel"],
                &m["message"]["seat"]
            ),
            (&json!("Cy"), &json!("spectators"), &Value::Null),
            "{m}"
        );
        let r = quiet.request(req::chat("hello")).await;
        assert_eq!(r["type"], "ok", "{r}");
        let m = host.wait_push("chat_message", |_| true).await;
        assert_eq!(m["message"]["name"], "Spectator", "{m}");

        // The list follows the spectators: once Cy leaves, nobody named is watching (the member is omitted).
        let r = cy.request(req::leave()).await;
        assert_eq!(r["type"], "ok", "{r}");
        let lobby = host.wait_push("lobby", |l| l["spectators"] == 1).await;
        assert!(lobby.get("watchers").is_none(), "{lobby}");

        // A crowd: the first twenty names are listed, everyone is counted.
        let mut crowd = Vec::new();
        for i in 0..21 {
            let mut c = server.client().await;
            let r = c.request(req::spectate_as(&code, &format!("W{i}"))).await;
            assert_eq!(r["type"], "spectating", "{r}");
            crowd.push(c);
        }
        let lobby = host.wait_push("lobby", |l| l["spectators"] == 22).await;
        let first: Vec<String> = (0..20).map(|i| format!("W{i}")).collect();
        assert_eq!(lobby["watchers"], json!(first), "{lobby}");

        server.stop().await;
        db.drop_db().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_spectator_arriving_mid_match_gets_what_a_spectator_was_shown_so_far() {
    for backend in backends() {
        let db = TestDb::new(backend).await;
        let server = TestServer::start(&db, test_config()).await;
        // Quacks tells each seat of its own draws: hidden information a spectator must not get.
        let (code, mut players) = start_match(server.addr, "quacks", json!({}), 2, 2).await;
        let mut early = server.client().await;
        let r = early.request(req::spectate(&code)).await;
        assert_eq!(r["type"], "spectating", "{r}");
        // Played until a seat has been told something in private (well within the 256 changes a table keeps).
        let private_so_far = |players: &[Player], early: &Client, version: u64| -> Vec<String> {
            let shown = events_up_to(early, version);
            players
                .iter()
                .flat_map(|p| events_up_to(&p.client, version))
                .filter(|e| !shown.contains(e))
                .collect()
        };
        let mut version = 0;
        for seed in 0..200 {
            let played = play(&mut players, &Time::Manual(server.clock.clone()), seed, 1).await;
            version = played.last_state["version"].as_u64().unwrap();
            early.wait_version(version).await;
            if !private_so_far(&players, &early, version).is_empty() {
                break;
            }
        }

        // The seats' private events come late in a match, often with its end: watched with the watch token,
        // which opens a finished private lobby too.
        let link = players[0].client.request(req::watch_link()).await;
        let watch = link["watch"].as_str().unwrap().to_string();
        let spectate = |name: &str, last_version: Option<u64>| Request::Spectate {
            code: code.clone(),
            watch: Some(watch.clone()),
            name: Some(name.to_string()),
            last_version,
        };
        let mut late = server.client().await;
        let r = late.request(spectate("Cy", None)).await;
        assert_eq!(r["type"], "spectating", "{r}");
        let first = late.wait_version(version).await;
        assert_eq!(first["version"], version);
        assert_eq!(first["seat"], Value::Null);
        assert_eq!(first["since"], 0, "the whole match is still in memory: {first}");
        let got: Vec<String> = first["events"]
            .as_array()
            .unwrap()
            .iter()
            .map(Value::to_string)
            .collect();
        // Exactly what a spectator watching from the start was shown, in order.
        let shown = events_up_to(&early, version);
        assert!(!shown.is_empty());
        assert_eq!(got, shown);
        // And none of what only a seat saw.
        let private = private_so_far(&players, &early, version);
        assert!(
            !private.is_empty(),
            "the seats were told something the spectators were not"
        );
        for e in &got {
            assert!(!private.contains(e), "a spectator got a seat's event {e}");
        }

        // A spectator coming back with the version it saw gets only what it missed.
        let half = version / 2;
        let mut back = server.client().await;
        let r = back.request(spectate("Cy", Some(half))).await;
        assert_eq!(r["type"], "spectating", "{r}");
        let state = back.wait_version(version).await;
        assert_eq!(state["since"], half, "{state}");
        let missed: Vec<String> = state["events"]
            .as_array()
            .unwrap()
            .iter()
            .map(Value::to_string)
            .collect();
        let before = events_up_to(&early, half).len();
        assert_eq!(missed, shown[before..].to_vec());

        server.stop().await;
        db.drop_db().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_spectator_takes_a_free_seat_without_leaving_and_plays() {
    for backend in backends() {
        let db = TestDb::new(backend).await;
        let server = TestServer::start(&db, test_config()).await;
        let mut host = server.client().await;
        let created = host.request(req::create_lobby("molehills", 2, "Ann")).await;
        assert_eq!(created["type"], "seated", "{created}");
        let code = created["code"].as_str().unwrap().to_string();
        let mut other = server.client().await;
        let other_code = other.request(req::create_lobby("molehills", 2, "Bea")).await["code"]
            .as_str()
            .unwrap()
            .to_string();

        let mut cy = server.client().await;
        let r = cy.request(req::spectate_as(&code, "Cy")).await;
        assert_eq!(r["type"], "spectating", "{r}");
        host.wait_push("lobby", |l| l["spectators"] == 1).await;
        // Only this lobby's seat: another lobby still needs leaving first.
        let r = cy.request(req::join(&other_code, "Cy")).await;
        assert_eq!(r["code"], "already_in_lobby", "{r}");
        // A bad name changes nothing: still a spectator.
        let r = cy.request(req::join(&code, "\u{202e}")).await;
        assert_eq!(r["code"], "bad_name", "{r}");
        // The code as a person types it.
        let seated = cy.request(req::join(&code.to_lowercase(), "Cy")).await;
        assert_eq!(seated["type"], "seated", "{seated}");
        assert_eq!(seated["seat"], 1);
        let lobby = host
            .wait_push("lobby", |l| l["seats"][1]["occupant"]["kind"] == "human")
            .await;
        assert_eq!(lobby["spectators"], 0, "{lobby}");
        assert!(lobby.get("watchers").is_none(), "{lobby}");
        assert_eq!(lobby["seats"][1]["occupant"]["name"], "Cy");
        // A seat now: it chats as a player.
        let r = cy.request(req::chat("hi")).await;
        assert_eq!(r["type"], "ok", "{r}");
        let m = host.wait_push("chat_message", |_| true).await;
        assert_eq!(
            (&m["message"]["channel"], &m["message"]["seat"]),
            (&json!("players"), &json!(1))
        );

        let r = host.request(req::start()).await;
        assert_eq!(r["type"], "ok", "{r}");
        host.wait_version(0).await;
        cy.wait_version(0).await;
        let mut players = vec![
            Player {
                client: host,
                seat: 0,
                token: created["seat_token"].as_str().unwrap().to_string(),
            },
            Player {
                client: cy,
                seat: 1,
                token: seated["seat_token"].as_str().unwrap().to_string(),
            },
        ];
        let played = play(&mut players, &Time::Manual(server.clock.clone()), 3, 10_000).await;
        assert_eq!(
            played.last_state["status"]["kind"], "over",
            "{}",
            played.last_state
        );
        assert!(
            played.acknowledged.iter().any(|(seat, _, _)| *seat == 1),
            "the new seat played"
        );

        // Once the match has started, a spectator is told so and stays a spectator.
        let (code, _players) = start_match(server.addr, "molehills", json!({}), 2, 1).await;
        let mut late = server.client().await;
        late.request(req::spectate_as(&code, "Dee")).await;
        let r = late.request(req::join(&code, "Dee")).await;
        assert_eq!(r["code"], "already_started", "{r}");
        let r = late.request(req::chat("still here")).await;
        assert_eq!(r["type"], "ok", "{r}");

        server.stop().await;
        db.drop_db().await;
    }
}
