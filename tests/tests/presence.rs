//! Presence (issue 13): every seat shows `connected`, `idle` or `away`, updated live for everyone; idleness is
//! measured on the server's injected clock.

use integration_tests::*;
use serde_json::Value;

const GAME: &str = "hide_and_eeek";
const IDLE_MS: u64 = 10_000;

fn presence(lobby: &Value, seat: usize) -> (&str, bool) {
    let occupant = &lobby["seats"][seat]["occupant"];
    (
        occupant["presence"].as_str().unwrap_or("?"),
        occupant["connected"].as_bool().unwrap_or(false),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn seats_turn_idle_and_away_and_everyone_sees_it() {
    for backend in backends() {
        let db = TestDb::new(backend).await;
        let mut config = test_config();
        config.idle_after_ms = IDLE_MS;
        let server = TestServer::start(&db, config).await;
        let mut host = server.client().await;
        let created = host.request(req::create_lobby(GAME, 3, "Host")).await;
        let code = created["code"].as_str().unwrap().to_string();
        let mut guest = server.client().await;
        let joined = guest.request(req::join(&code, "Guest")).await;
        let guest_token = joined["seat_token"].as_str().unwrap().to_string();
        let lobby = host
            .wait_push("lobby", |l| l["seats"][1]["occupant"]["kind"] == "human")
            .await;
        assert_eq!(presence(&lobby, 0), ("connected", true));
        assert_eq!(presence(&lobby, 1), ("connected", true));

        // The guest does something halfway through; then the host's silence makes the host idle first.
        server.clock.advance(IDLE_MS / 2);
        let r = guest.request(req::chat("hello")).await;
        assert_eq!(r["type"], "ok", "{r}");
        server.clock.advance(IDLE_MS / 2);
        let lobby = guest
            .wait_push("lobby", |l| l["seats"][0]["occupant"]["presence"] == "idle")
            .await;
        assert_eq!(presence(&lobby, 0), ("idle", true), "idle is still connected");
        assert_eq!(presence(&lobby, 1), ("connected", true));
        server.clock.advance(IDLE_MS / 2);
        let lobby = host
            .wait_push("lobby", |l| l["seats"][1]["occupant"]["presence"] == "idle")
            .await;
        assert_eq!(presence(&lobby, 0), ("idle", true));

        // Any request brings a seat back (a ping does not reach the lobby, so it does not count).
        let r = host.request(req::ping()).await;
        assert_eq!(r["type"], "pong");
        let r = host.request(req::presence(false)).await;
        assert_eq!(r["type"], "ok", "{r}");
        let lobby = guest
            .wait_push("lobby", |l| l["seats"][0]["occupant"]["presence"] == "connected")
            .await;
        assert_eq!(presence(&lobby, 1), ("idle", true));

        // A hidden page is idle at once, and active again when it says so.
        let r = guest.request(req::presence(false)).await;
        assert_eq!(r["type"], "ok", "{r}");
        host.wait_push("lobby", |l| l["seats"][1]["occupant"]["presence"] == "connected")
            .await;
        let r = guest.request(req::presence(true)).await;
        assert_eq!(r["type"], "ok", "{r}");
        host.wait_push("lobby", |l| l["seats"][1]["occupant"]["presence"] == "idle")
            .await;
        // Hidden stays idle however the clock moves, and never wakes the table into a loop.
        server.clock.advance(3 * IDLE_MS);
        let lobby = guest
            .wait_push("lobby", |l| l["seats"][0]["occupant"]["presence"] == "idle")
            .await;
        assert_eq!(presence(&lobby, 1), ("idle", true));

        // A closed connection is away; resuming on a new connection is connected again.
        drop(guest);
        let lobby = host
            .wait_push("lobby", |l| l["seats"][1]["occupant"]["presence"] == "away")
            .await;
        assert_eq!(presence(&lobby, 1), ("away", false));
        let mut guest = server.client().await;
        let r = guest.request(req::resume(&code, &guest_token)).await;
        assert_eq!(r["type"], "resumed", "{r}");
        let lobby = host
            .wait_push("lobby", |l| l["seats"][1]["occupant"]["presence"] == "connected")
            .await;
        assert_eq!(presence(&lobby, 1), ("connected", true));

        // Spectators may say they are hidden; it changes nothing for the seats.
        let mut spectator = server.client().await;
        spectator.request(req::spectate(&code)).await;
        let r = spectator.request(req::presence(true)).await;
        assert_eq!(r["type"], "ok", "{r}");

        // During the match, too.
        let r = host.request(req::add_bot()).await;
        assert_eq!(r["type"], "ok", "{r}");
        let r = host.request(req::start()).await;
        assert_eq!(r["type"], "ok", "{r}");
        guest.wait_version(0).await;
        host.wait_version(0).await;
        server.clock.advance(IDLE_MS);
        let lobby = spectator
            .wait_push("lobby", |l| {
                l["seats"][0]["occupant"]["presence"] == "idle"
                    && l["seats"][1]["occupant"]["presence"] == "idle"
            })
            .await;
        assert_eq!(lobby["phase"], "playing");
        assert_eq!(lobby["seats"][2]["occupant"]["kind"], "bot");
        // Any request of a seated player counts, during the match too.
        let r = guest.request(req::chat("still here")).await;
        assert_eq!(r["type"], "ok", "{r}");
        let lobby = spectator
            .wait_push("lobby", |l| l["seats"][1]["occupant"]["presence"] == "connected")
            .await;
        assert_eq!(presence(&lobby, 0), ("idle", true));

        server.stop().await;
        db.drop_db().await;
    }
}
