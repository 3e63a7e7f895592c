//! Finished matches do not stay in memory for the life of the process: once nobody has been connected to a
//! finished table for `UNLOAD_FINISHED_AFTER_SECS`, its task ends; the match is loaded again from the database,
//! unchanged, when someone asks for it.

use std::time::Duration;

use integration_tests::*;
use serde_json::json;

/// The `tabletop_matches{state="finished"}` gauge of `/metrics`: finished tables held in memory.
async fn finished_in_memory(server: &TestServer) -> u64 {
    let (status, body) = http_get(server.addr, "/metrics").await;
    assert_eq!(status, 200);
    body.lines()
        .find_map(|l| l.strip_prefix("tabletop_matches{state=\"finished\"} "))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| panic!("no finished gauge in:\n{body}"))
}

async fn wait_finished_in_memory(server: &TestServer, expected: u64) {
    for _ in 0..400 {
        if finished_in_memory(server).await == expected {
            return;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!(
        "finished tables in memory: {} (expected {expected})",
        finished_in_memory(server).await
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_finished_table_nobody_watches_leaves_memory_and_loads_again() {
    for backend in backends() {
        let db = TestDb::new(backend).await;
        let mut config = test_config();
        config.unload_finished_after_secs = 60;
        let server = TestServer::start(&db, config).await;
        let time = Time::Manual(server.clock.clone());
        let (code, mut players) = start_match(
            server.addr,
            "hide_and_eeek",
            json!({"target": 3, "claim_window_ms": 1000}),
            2,
            2,
        )
        .await;
        let played = play(&mut players, &time, 11, 10_000).await;
        assert_eq!(played.last_state["status"]["kind"], "over");
        let version = played.last_state["version"].as_u64().unwrap();
        // The lobby is private: once over, it is watched with its watch link.
        let link = players[0].client.request(req::watch_link()).await;
        let watch = link["watch"].as_str().expect("a watch token").to_string();
        wait_finished_in_memory(&server, 1).await;

        // While a player is still connected, the table stays however long it waits.
        drop(players.pop());
        server.clock.advance(120_000);
        let (status, _) = http_get(server.addr, "/healthz").await;
        assert_eq!(status, 200);
        assert_eq!(players[0].client.request(req::ping()).await["type"], "pong");
        assert_eq!(finished_in_memory(&server).await, 1, "someone is connected");

        // Once nobody is, it leaves memory after the configured time, not before.
        let token = players[0].token.clone();
        drop(players);
        // Let the table see the last connection go (a request to it goes through its queue after that).
        let mut probe = server.client().await;
        let r = probe.request(req::spectate_with(&code, &watch)).await;
        assert_eq!(r["type"], "spectating", "{r}");
        drop(probe);
        tokio::time::sleep(Duration::from_millis(200)).await;
        // Nobody was connected: the table dropped its history of events (most of its memory while it waits), so
        // a player who comes back redraws from the view instead of replaying what it missed.
        let mut back = server.client().await;
        let r = back.request(req::resume_from(&code, &token, version - 2)).await;
        assert_eq!(r["type"], "resumed", "{r}");
        let state = back.wait_version(version).await;
        assert_eq!(state["since"].as_u64(), Some(version), "no events kept: {state}");
        drop(back);
        tokio::time::sleep(Duration::from_millis(200)).await;
        server.clock.advance(30_000);
        tokio::time::sleep(Duration::from_millis(200)).await;
        assert_eq!(finished_in_memory(&server).await, 1, "too early to unload");
        server.clock.advance(31_000);
        wait_finished_in_memory(&server, 0).await;

        // Asked for again, it comes back from the database as it was.
        let mut watcher = server.client().await;
        let r = watcher.request(req::spectate_with(&code, &watch)).await;
        assert_eq!(r["type"], "spectating", "{r}");
        let state = watcher.wait_version(version).await;
        assert_eq!(state["version"].as_u64(), Some(version));
        assert_eq!(state["status"]["kind"], "over");
        assert_eq!(state["outcome"], played.last_state["outcome"]);
        wait_finished_in_memory(&server, 1).await;

        server.stop().await;
        db.drop_db().await;
    }
}
