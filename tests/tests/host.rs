//! Host controls before the start (issue 13): options, seat count and turn timer, removing a player, handing
//! the host role over, private or listed lobbies and the public list; only the host, only before the start, and
//! every change survives a restart.

use integration_tests::*;
use serde_json::{Value, json};

const GAME: &str = "hide_and_eeek";

async fn listed(server: &TestServer, query: &str) -> (u16, Value) {
    let (status, body) = http_get(server.addr, &format!("/api/lobbies{query}")).await;
    (status, serde_json::from_str(&body).unwrap_or(Value::Null))
}

fn codes(list: &Value) -> Vec<&str> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|l| l["code"].as_str().unwrap())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_host_changes_the_lobby_and_the_changes_survive_a_restart() {
    for backend in backends() {
        let db = TestDb::new(backend).await;
        let config = test_config();
        let server = TestServer::start(&db, config.clone()).await;
        let mut host = server.client().await;
        let created = host.request(req::create_lobby(GAME, 2, "Host")).await;
        let code = created["code"].as_str().unwrap().to_string();
        let mut guest = server.client().await;
        let joined = guest.request(req::join(&code, "Guest")).await;
        let guest_token = joined["seat_token"].as_str().unwrap().to_string();
        let mut spectator = server.client().await;
        spectator.request(req::spectate(&code)).await;

        // Only the host.
        for (spectating, request) in [
            (false, req::configure_lobby(json!({"target": 4}), 3)),
            (false, req::set_listed(true)),
            (false, req::make_host(1)),
            (true, req::remove_player(1)),
        ] {
            let who = if spectating { &mut spectator } else { &mut guest };
            let r = who.request(request).await;
            assert_eq!(r["code"], "not_host", "{r}");
        }

        // Options, seat count, turn timer and absence policy, together; everyone sees them.
        let r = host
            .request(
                req::configure_lobby(json!({"target": 4}), 4)
                    .turn_timer_ms(30000)
                    .absent(req::bot_after(20000)),
            )
            .await;
        assert_eq!(r["type"], "ok", "{r}");
        let lobby = guest
            .wait_push("lobby", |l| l["seats"].as_array().unwrap().len() == 4)
            .await;
        assert_eq!(lobby["options"]["target"], 4);
        assert!(
            lobby["options"]["claim_window_ms"].is_u64(),
            "missing options take their defaults"
        );
        assert_eq!(lobby["turn_timer_ms"], 30000);
        assert_eq!(lobby["absent"], json!({"policy": "bot", "grace_ms": 20000}));
        assert_eq!(lobby["seats"][3]["occupant"]["kind"], "empty");
        // What does not set the game up is refused, and changes nothing.
        for bad in [
            req::configure_lobby(json!({"target": 99}), 4),
            req::configure_lobby(json!({}), 7),
            req::configure_lobby(json!({}), 4).turn_timer_ms(5),
            // This game has no passive choice to skip with.
            req::configure_lobby(json!({}), 4).absent(req::skip_after(0)),
            // Seat 1 holds a player: it cannot be removed with its seat.
            req::configure_lobby(json!({}), 1),
        ] {
            let r = host.request(bad.clone()).await;
            assert_eq!(r["code"], "bad_options", "{bad:?} -> {r}");
        }
        // Bots on removed seats go with them.
        let r = host.request(req::add_bot_at(3)).await;
        assert_eq!(r["type"], "ok", "{r}");
        let r = host.request(req::configure_lobby(json!({"target": 4}), 3)).await;
        assert_eq!(r["type"], "ok", "{r}");
        let lobby = guest
            .wait_push("lobby", |l| l["seats"].as_array().unwrap().len() == 3)
            .await;
        assert_eq!(lobby["turn_timer_ms"], Value::Null, "no timer given: no timer");
        assert_eq!(lobby["absent"]["policy"], "bot", "no policy given: unchanged");

        // Private by default; listed on request, in the public list of its game only.
        let (status, list) = listed(&server, &format!("?game={GAME}")).await;
        assert_eq!(status, 200);
        assert!(!codes(&list).contains(&code.as_str()), "private: {list}");
        let r = host.request(req::set_listed(true)).await;
        assert_eq!(r["type"], "ok", "{r}");
        let lobby = guest.wait_push("lobby", |l| l["listed"] == true).await;
        assert_eq!(lobby["code"], code.as_str());
        let (status, list) = listed(&server, &format!("?game={GAME}")).await;
        assert_eq!(status, 200);
        let entry = list
            .as_array()
            .unwrap()
            .iter()
            .find(|l| l["code"] == code.as_str())
            .unwrap_or_else(|| panic!("listed: {list}"))
            .clone();
        assert_eq!(entry["game"], GAME);
        assert_eq!(entry["host_name"], "Host");
        assert_eq!(
            (
                entry["seats"].as_u64(),
                entry["seats_taken"].as_u64(),
                entry["seats_free"].as_u64()
            ),
            (Some(3), Some(2), Some(1))
        );
        assert_eq!(entry["options"]["target"], 4);
        let (_, all) = listed(&server, "").await;
        assert!(codes(&all).contains(&code.as_str()));
        let (status, other) = listed(&server, "?game=quacks").await;
        assert_eq!(status, 200);
        assert!(!codes(&other).contains(&code.as_str()));
        let (status, unknown) = listed(&server, "?game=chess").await;
        assert_eq!((status, unknown["code"].as_str()), (404, Some("unknown_game")));

        // Removing a player: they are told why and disconnected, and their token stops working.
        let mut third = server.client().await;
        let r = third.request(req::join(&code, "Third")).await;
        assert_eq!(r["seat"], 2, "{r}");
        let third_token = r["seat_token"].as_str().unwrap().to_string();
        let r = host.request(req::remove_player(0)).await;
        assert_eq!(r["code"], "bad_message", "not oneself: {r}");
        let r = host.request(req::remove_player(2)).await;
        assert_eq!(r["type"], "ok", "{r}");
        let last = third.until_closed().await.expect("a closing message");
        assert_eq!(
            (last["type"].as_str(), last["code"].as_str()),
            (Some("closing"), Some("removed")),
            "{last}"
        );
        let lobby = guest
            .wait_push("lobby", |l| l["seats"][2]["occupant"]["kind"] == "empty")
            .await;
        assert_eq!(lobby["seats"].as_array().unwrap().len(), 3);
        let mut third = server.client().await;
        let r = third.request(req::resume(&code, &third_token)).await;
        assert_eq!(r["code"], "unauthorized", "{r}");
        let r = host.request(req::remove_player(2)).await;
        assert_eq!(r["code"], "bad_message", "an empty seat: {r}");

        // Handing the host role over: the old host may no longer, the new one may.
        let r = host.request(req::make_host(2)).await;
        assert_eq!(r["code"], "bad_message", "not to an empty seat: {r}");
        let r = host.request(req::make_host(1)).await;
        assert_eq!(r["type"], "ok", "{r}");
        let lobby = host.wait_push("lobby", |l| l["host"] == 1).await;
        assert_eq!(lobby["host"], 1);
        let r = host.request(req::set_listed(false)).await;
        assert_eq!(r["code"], "not_host", "{r}");

        // A restart keeps options, seats, timer, host and visibility.
        let clock = server.clock.clone();
        server.stop().await;
        let server = TestServer::start_with_clock(&db, config, clock).await;
        let (_, list) = listed(&server, &format!("?game={GAME}")).await;
        assert!(codes(&list).contains(&code.as_str()), "still listed: {list}");
        let mut guest = server.client().await;
        let r = guest.request(req::resume(&code, &guest_token)).await;
        assert_eq!(
            (r["type"].as_str(), r["host"].as_bool()),
            (Some("resumed"), Some(true)),
            "{r}"
        );
        let lobby = guest.wait_push("lobby", |_| true).await;
        assert_eq!(lobby["host"], 1);
        assert_eq!(lobby["listed"], true);
        assert_eq!(lobby["options"]["target"], 4);
        assert_eq!(lobby["seats"].as_array().unwrap().len(), 3);
        assert_eq!(lobby["seats"][2]["occupant"]["kind"], "empty");
        assert_eq!(lobby["absent"], json!({"policy": "bot", "grace_ms": 20000}));

        // The new host makes it private: it leaves the list.
        let r = guest.request(req::set_listed(false)).await;
        assert_eq!(r["type"], "ok", "{r}");
        let (_, list) = listed(&server, &format!("?game={GAME}")).await;
        assert!(!codes(&list).contains(&code.as_str()), "private again: {list}");

        // After the start, nothing can be changed; a started lobby is not listed.
        let r = guest.request(req::set_listed(true)).await;
        assert_eq!(r["type"], "ok", "{r}");
        let r = guest.request(req::add_bot()).await;
        assert_eq!(r["type"], "ok", "{r}");
        let r = guest.request(req::start()).await;
        assert_eq!(r["type"], "ok", "{r}");
        for request in [
            req::configure_lobby(json!({}), 3),
            req::remove_player(2),
            req::make_host(0),
            req::set_listed(false),
        ] {
            let r = guest.request(request.clone()).await;
            assert_eq!(r["code"], "already_started", "{request:?} -> {r}");
        }
        let (_, list) = listed(&server, "").await;
        assert!(!codes(&list).contains(&code.as_str()), "started: {list}");

        server.stop().await;
        db.drop_db().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_listed_lobby_leaves_the_list_when_it_is_full_and_can_be_joined_from_it() {
    for backend in backends() {
        let db = TestDb::new(backend).await;
        let server = TestServer::start(&db, test_config()).await;
        let mut host = server.client().await;
        let created = host.request(req::create_lobby(GAME, 2, "Ann")).await;
        let code = created["code"].as_str().unwrap().to_string();
        let r = host.request(req::set_listed(true)).await;
        assert_eq!(r["type"], "ok", "{r}");
        let (_, list) = listed(&server, &format!("?game={GAME}")).await;
        let entry = list
            .as_array()
            .unwrap()
            .iter()
            .find(|l| l["code"] == code.as_str())
            .expect("listed")
            .clone();
        assert_eq!(entry["host_name"], "Ann");
        // Join it by the listed code.
        let mut guest = server.client().await;
        let r = guest
            .request(req::join(entry["code"].as_str().unwrap(), "Bo"))
            .await;
        assert_eq!(r["type"], "seated", "{r}");
        let (_, list) = listed(&server, &format!("?game={GAME}")).await;
        assert!(!codes(&list).contains(&code.as_str()), "full: {list}");
        // A seat frees up: back in the list.
        let r = guest.request(req::leave()).await;
        assert_eq!(r["type"], "ok", "{r}");
        let (_, list) = listed(&server, &format!("?game={GAME}")).await;
        assert!(codes(&list).contains(&code.as_str()), "a free seat again: {list}");
        let (status, _) = listed(&server, "?gmae=x").await;
        assert_eq!(status, 200, "unknown parameters are ignored");
        server.stop().await;
        db.drop_db().await;
    }
}
