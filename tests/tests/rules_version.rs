//! A lobby chooses the version of its game's rules (`rules_version` in `create_lobby` and `configure_lobby`): a
//! version the engine does not keep is refused, the lobby push shows the chosen one, it survives a restart of an
//! open lobby, the match plays by it, and a rematch keeps it. Hide and Eeek! keeps versions 1 to 3; its view tells
//! version 1 apart (version 1 has no `skips`, later versions always list them).

use integration_tests::*;
use serde_json::{Value, json};

const GAME: &str = "hide_and_eeek";

fn plays_v1(state: &Value) -> bool {
    state["view"].get("skips").is_none()
}

/// Seats a bot, starts the match and returns the host as a player once it has seen the first state.
async fn start_with_a_bot(mut host: Client, token: String) -> Player {
    let r = host.request(req::add_bot()).await;
    assert_eq!(r["type"], "ok", "{r}");
    let r = host.request(req::start()).await;
    assert_eq!(r["type"], "ok", "{r}");
    host.wait_version(0).await;
    Player {
        client: host,
        seat: 0,
        token,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lobby_plays_the_rules_version_its_host_chose() {
    let versions = rules::rules_versions(GAME).unwrap();
    assert_eq!(
        (*versions.start(), *versions.end()),
        (1, 3),
        "the versions this test knows"
    );
    for backend in backends() {
        let db = TestDb::new(backend).await;
        let server = TestServer::start(&db, test_config()).await;

        // A version the engine does not keep is refused, on creation and on configuration, naming the range.
        let mut host = server.client().await;
        let r = host
            .request(req::create_lobby(GAME, 2, "Ann").rules_version(99))
            .await;
        assert_eq!(r["code"], "bad_options", "{r}");
        assert!(r["message"].as_str().unwrap().contains("1 to 3"), "{r}");
        let r = host
            .request(req::create_lobby(GAME, 2, "Ann").rules_version(0))
            .await;
        assert_eq!(r["code"], "bad_options", "{r}");

        // Without a choice the lobby plays the newest version.
        let created = host.request(req::create_lobby(GAME, 2, "Ann")).await;
        assert_eq!(created["type"], "seated", "{created}");
        let lobby = host.wait_push("lobby", |_| true).await;
        assert_eq!(lobby["rules_version"], 3, "{lobby}");
        let r = host
            .request(req::configure_lobby(json!({}), 2).rules_version(99))
            .await;
        assert_eq!(r["code"], "bad_options", "{r}");
        // The host chooses version 1 by configuring the lobby; the next configuration without a version keeps it.
        let r = host
            .request(req::configure_lobby(json!({"target": 3}), 2).rules_version(1))
            .await;
        assert_eq!(r["type"], "ok", "{r}");
        host.wait_push("lobby", |l| l["rules_version"] == 1).await;
        let r = host.request(req::configure_lobby(json!({"target": 3}), 2)).await;
        assert_eq!(r["type"], "ok", "{r}");
        let lobby = host.wait_push("lobby", |_| true).await;
        assert_eq!(lobby["rules_version"], 1, "{lobby}");
        let configured = start_with_a_bot(host, String::new()).await;
        assert!(plays_v1(configured.client.state.as_ref().unwrap()));
        drop(configured);

        // A lobby created at version 1 keeps it across a restart while open.
        let mut host = server.client().await;
        let created = host
            .request(
                req::create_lobby(GAME, 2, "Ann")
                    .options(json!({"target": 3}))
                    .rules_version(1),
            )
            .await;
        assert_eq!(created["type"], "seated", "{created}");
        let code = created["code"].as_str().unwrap().to_string();
        let token = created["seat_token"].as_str().unwrap().to_string();
        let lobby = host.wait_push("lobby", |_| true).await;
        assert_eq!(lobby["rules_version"], 1, "{lobby}");
        drop(host);
        let clock = server.clock.clone();
        server.stop().await;
        let server = TestServer::start_with_clock(&db, test_config(), clock).await;
        let mut host = server.client().await;
        let r = host.request(req::resume(&code, &token)).await;
        assert_eq!(r["type"], "resumed", "{r}");
        let lobby = host.wait_push("lobby", |_| true).await;
        assert_eq!(lobby["rules_version"], 1, "{lobby}");

        // The match plays by version 1 to its end.
        let mut players = vec![start_with_a_bot(host, token).await];
        assert!(plays_v1(players[0].client.state.as_ref().unwrap()));
        let played = play(&mut players, &Time::Manual(server.clock.clone()), 5, 5_000).await;
        assert_eq!(played.last_state["status"]["kind"], "over");
        assert!(plays_v1(&played.last_state));

        // The rematch keeps version 1.
        let r = players[0].client.request(req::rematch(true)).await;
        assert_eq!(r["type"], "ok", "{r}");
        let rematched = players[0].client.wait_push("rematched", |_| true).await;
        let mut again = server.client().await;
        let r = again
            .request(req::resume(
                rematched["code"].as_str().unwrap(),
                rematched["seat_token"].as_str().unwrap(),
            ))
            .await;
        assert_eq!(r["type"], "resumed", "{r}");
        let lobby = again.wait_push("lobby", |_| true).await;
        assert_eq!(lobby["rules_version"], 1, "{lobby}");
        let state = again.wait_push("state", |_| true).await;
        assert!(plays_v1(&state), "{state}");

        // A lobby at the newest version plays it, for contrast.
        let mut host = server.client().await;
        let created = host
            .request(req::create_lobby(GAME, 2, "Ann").rules_version(3))
            .await;
        let token = created["seat_token"].as_str().unwrap().to_string();
        let player = start_with_a_bot(host, token).await;
        let state = player.client.state.as_ref().unwrap();
        assert!(!plays_v1(state), "{state}");

        drop((players, again, player));
        server.stop().await;
        db.drop_db().await;
    }
}

/// `GET /api/games` tells each game's range of versions a lobby may choose, and the public list shows the version
/// each open lobby will play (the chosen one, or the newest).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_catalogue_and_the_public_list_show_rules_versions() {
    let db = TestDb::new("sqlite").await;
    let server = TestServer::start(&db, test_config()).await;
    let (status, body) = http_get(server.addr, "/api/games").await;
    assert_eq!(status, 200);
    let games: Value = serde_json::from_str(&body).unwrap();
    for game in games.as_array().unwrap() {
        let versions = rules::rules_versions(game["id"].as_str().unwrap()).unwrap();
        assert_eq!(game["rules_version"], *versions.end(), "{game}");
        assert_eq!(game["oldest_rules_version"], *versions.start(), "{game}");
    }

    let (mut codes, mut hosts) = (Vec::new(), Vec::new());
    for version in [Some(1), None] {
        let mut host = server.client().await;
        let mut create = req::create_lobby(GAME, 2, "Ann");
        if let Some(v) = version {
            create = create.rules_version(v);
        }
        let created = host.request(create).await;
        assert_eq!(created["type"], "seated", "{created}");
        let r = host.request(req::set_listed(true)).await;
        assert_eq!(r["type"], "ok", "{r}");
        codes.push((
            created["code"].as_str().unwrap().to_string(),
            version.unwrap_or(3),
        ));
        hosts.push(host);
    }
    let (status, body) = http_get(server.addr, "/api/lobbies?game=hide_and_eeek").await;
    assert_eq!(status, 200, "{body}");
    let listed: Value = serde_json::from_str(&body).unwrap();
    for (code, version) in codes {
        let lobby = listed
            .as_array()
            .unwrap()
            .iter()
            .find(|l| l["code"] == code.as_str())
            .unwrap_or_else(|| panic!("{code} is listed: {listed}"));
        assert_eq!(lobby["rules_version"], version, "{lobby}");
    }
    drop(hosts);
    server.stop().await;
    db.drop_db().await;
}
