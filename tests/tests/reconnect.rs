//! Reconnection with a seat token: the seat and the current view come back, missed events are delivered, and
//! of two connections on one seat the newer wins.

use integration_tests::*;
use serde_json::{Value, json};

const GAME: &str = "hide_and_eeek";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_resumes_mid_match_and_the_older_connection_is_closed() {
    for backend in backends() {
        let db = TestDb::new(backend).await;
        let server = TestServer::start(&db, test_config()).await;
        let time = Time::Manual(server.clock.clone());
        let (code, mut players) = start_match(
            server.addr,
            GAME,
            json!({"target": 5, "claim_window_ms": 1000}),
            2,
            2,
        )
        .await;
        let played = play(&mut players, &time, 11, 4).await;
        let version = played.last_state["version"].as_u64().unwrap();
        assert!(version >= 4);
        let old = &mut players[1];
        let seen: Vec<Value> = old.client.states.clone();
        let from = version - 2;
        // The events seat 1 received after `from`, as it received them.
        let expected: Vec<Value> = seen
            .iter()
            .filter(|s| s["version"].as_u64().unwrap() > from)
            .flat_map(|s| s["events"].as_array().unwrap().clone())
            .collect();
        assert!(!expected.is_empty());

        // A new connection resumes seat 1 with the token and the version it last saw.
        let mut fresh = server.client().await;
        let r = fresh.request(req::resume_from(&code, &old.token, from)).await;
        assert_eq!(
            (r["type"].as_str(), r["seat"].as_u64()),
            (Some("resumed"), Some(1)),
            "{r}"
        );
        let state = fresh.wait_version(version).await;
        assert_eq!(state["version"].as_u64().unwrap(), version);
        assert_eq!(state["since"].as_u64().unwrap(), from);
        assert_eq!(state["events"].as_array().unwrap(), &expected);
        assert_eq!(state["view"], played.last_state["view"]);
        assert_eq!(
            state["legal_actions"],
            old.client.state.as_ref().unwrap()["legal_actions"]
        );
        // The older connection is told and closed.
        let last = old.client.until_closed().await.expect("a closing message");
        assert_eq!(
            (last["type"].as_str(), last["code"].as_str()),
            (Some("closing"), Some("session_replaced"))
        );
        old.client = fresh;

        // Wrong tokens are refused.
        let mut intruder = server.client().await;
        let r = intruder.request(req::resume(&code, &"00".repeat(32))).await;
        assert_eq!(r["code"], "unauthorized", "{r}");
        let r = intruder
            .request(req::resume(&code, &players[0].token.to_uppercase()))
            .await;
        assert_eq!(r["code"], "unauthorized", "{r}");

        // A dropped connection shows as disconnected to the others, and its seat is kept.
        let token = players[1].token.clone();
        drop(players.remove(1));
        let lobby = players[0]
            .client
            .wait_push("lobby", |l| l["seats"][1]["occupant"]["connected"] == false)
            .await;
        assert_eq!(lobby["seats"][1]["occupant"]["name"], "P1");
        let mut back = server.client().await;
        let r = back.request(req::resume(&code, &token)).await;
        assert_eq!(r["type"], "resumed", "{r}");
        // Without a last version the client gets the current view alone.
        let state = back.wait_version(version).await;
        assert_eq!(state["since"], state["version"]);
        assert_eq!(state["events"], json!([]));
        players[0]
            .client
            .wait_push("lobby", |l| l["seats"][1]["occupant"]["connected"] == true)
            .await;
        players.push(Player {
            client: back,
            seat: 1,
            token: token.clone(),
        });
        // The match goes on to its end with the resumed seat.
        let played = play(&mut players, &time, 12, 10_000).await;
        assert_eq!(played.last_state["status"]["kind"], "over");

        // Seat tokens are stored only as hashes: the database files never contain a token.
        if let TestDb::Sqlite { dir, .. } = &db {
            let mut bytes = Vec::new();
            for entry in std::fs::read_dir(dir.join("data")).unwrap() {
                bytes.extend(std::fs::read(entry.unwrap().path()).unwrap());
            }
            let contains = |needle: &str| bytes.windows(needle.len()).any(|w| w == needle.as_bytes());
            for p in &players {
                assert!(!contains(&p.token), "a seat token is stored in clear");
                assert!(
                    contains(&server::secrets::token_hash(&p.token)),
                    "the token's hash is stored"
                );
            }
        }
        server.stop().await;
        db.drop_db().await;
    }
}
