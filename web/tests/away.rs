//! Browser test of the "while you were away" report (issue 44, point 3): in every game Bo, in Chromium, holds seat 1
//! of a table whose absence policy lets a bot play for an away player at once; he closes the page, Ann (a test
//! client) plays on while the stand-in bot plays Bo's turns, and Bo comes back through the game's link. The report
//! he is shown must list exactly seat 1's actions of the action log (read through the admin API) after the version
//! his page last saw: as many lines as actions, one per action, newest first like the log, each a sentence, all
//! said to be the bot's, with the standing then and now.
//!
//! Needs `chromium` and `chromedriver` on PATH; without them the test says so and passes, unless `CI` is set.

mod common;

use std::time::Duration;

use common::{Browser, TestServer, browsers_available, with_chromedriver};
use integration_tests::{Client, LobbySettings, Player, Time, play_until, req};
use serde_json::{Value, json};

const ADMIN_TOKEN: &str = "away-report-test-token-0123456789";

/// Ann creates a two-seat table of `game` whose stand-in bot plays for an away player at once.
async fn create(addr: std::net::SocketAddr, game: &str) -> (String, Player) {
    let mut ann = Client::hello(addr).await;
    let created = ann
        .request(
            req::create_lobby(game, 2, "Ann")
                // Hide and Eeek!'s claim windows, waited for in real time, at their shortest.
                .options(if game == "hide_and_eeek" {
                    json!({"claim_window_ms": 1000})
                } else {
                    json!({})
                })
                .absent(req::bot_after(0)),
        )
        .await;
    assert_eq!(created["type"], "seated", "{created}");
    let code = created["code"].as_str().unwrap().to_string();
    let token = created["seat_token"].as_str().unwrap().to_string();
    (
        code,
        Player {
            client: ann,
            seat: 0,
            token,
        },
    )
}

/// The admin API's action log of a match, fetched by the page (with the admin token).
async fn admin_log(page: &Browser, match_id: &str) -> Vec<Value> {
    let log = page
        .js(&format!(
            "return fetch('/api/admin/matches/{match_id}/log', \
               {{ headers: {{ Authorization: 'Bearer {ADMIN_TOKEN}' }} }}).then(r => r.json());"
        ))
        .await;
    log["entries"]
        .as_array()
        .unwrap_or_else(|| panic!("the admin log: {log}"))
        .clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_away_report_lists_the_seats_own_actions_newest_first_in_every_game() {
    if !browsers_available("away report test") {
        return;
    }
    let server = TestServer::start_in(common::test_dir("away-report"), |config| {
        config.bot_delay_ms = 20;
        config.admin_token = Some(server::admin::AdminToken::parse(ADMIN_TOKEN).unwrap());
    })
    .await;
    let addr = server.addr;
    let base = server.base_url();
    let games: Vec<String> = rules::catalogue().into_iter().map(|g| g.id.to_string()).collect();
    with_chromedriver(|webdriver| async move {
        for (i, game) in games.iter().enumerate() {
            let (code, mut ann) = create(addr, game).await;

            // Bo joins by the link, in the browser; Ann starts.
            let bo = Browser::open(&webdriver, "bo", 1100, 900, false).await;
            bo.goto(&format!("{base}/#join={code}")).await;
            bo.wait_for("the join form", "document.querySelector('.join-only #join-name')")
                .await;
            bo.fill(".join-only #join-name", "Bo").await;
            bo.click(".join-only button[data-key=join-submit]").await;
            ann.client
                .wait_push("lobby", |l| l["seats"][1]["occupant"]["kind"] == "human")
                .await;
            let r = ann.client.request(req::start()).await;
            assert_eq!(r["type"], "ok", "{r}");
            ann.client.wait_version(0).await;
            bo.wait_for(
                "Bo's game screen",
                "document.querySelector('.game') && window.tabletop.state",
            )
            .await;

            // Bo closes the page; what his browser remembers (the seat token and the last version it saw) is kept
            // aside to open the link again as the same browser would.
            let remembered = bo.js("return localStorage.getItem('tabletop.v1')").await;
            let seen: Value = serde_json::from_str(remembered.as_str().unwrap()).unwrap();
            let since = seen["seats"][&code]["lastVersion"]
                .as_u64()
                .expect("a version seen");
            bo.close().await;
            ann.client
                .wait_push("lobby", |l| l["seats"][1]["occupant"]["connected"] == false)
                .await;

            // Ann plays on; the stand-in bot plays Bo's part.
            let mut players = vec![ann];
            let target = since + 12;
            let played = play_until(&mut players, &Time::Real, 70 + i as u64, 300, |s| {
                s["version"].as_u64().unwrap() >= target
            })
            .await;
            let match_id = played.last_state["match_id"].as_str().unwrap().to_string();

            // Bo comes back through the game's link.
            let bo = Browser::open(&webdriver, "bo", 1100, 900, false).await;
            bo.goto(&format!("{base}/")).await;
            // The link is loaded afresh, as a new window opens it (changing only the address's fragment on the
            // open page would resume the seat there first).
            bo.js(&format!(
                "localStorage.setItem('tabletop.v1', {remembered}); history.replaceState(null, '', '#join={code}');"
            ))
            .await;
            bo.client.refresh().await.unwrap();
            bo.wait_for("Bo's game screen", "document.querySelector('.game')")
                .await;
            let start = std::time::Instant::now();
            while bo.js("return !!document.querySelector('[data-key=away-report] li')").await != json!(true) {
                if start.elapsed() > Duration::from_secs(20) {
                    let seen = bo
                        .js("const a = window.tabletop; return { v: a.state?.version, report: a.awayReport, log: a.log.slice(0, 5), session: a.session }")
                        .await;
                    let log = admin_log(&bo, &match_id).await;
                    let own: Vec<_> = log.iter().filter(|e| e["seat"] == 1 && e["seq"].as_u64().unwrap() > since).map(|e| (e["seq"].clone(), e["by"].clone())).collect();
                    panic!("{game}: no report from {since}: {seen}\nseat 1's log: {own:?}");
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            let version = bo
                .js("return window.tabletop.awayReport.version")
                .await
                .as_u64()
                .unwrap();
            assert_eq!(
                bo.js("return window.tabletop.awayReport.since").await,
                json!(since),
                "{game}: from the version the page last saw"
            );

            // The catch-up before the board: every action after the version the page last saw, oldest first
            // (every seat's and the clock's), one line each in words.
            let log = admin_log(&bo, &match_id).await;
            let span: Vec<u64> = log
                .iter()
                .map(|e| e["seq"].as_u64().unwrap())
                .filter(|seq| *seq > since && *seq <= version)
                .collect::<std::collections::BTreeSet<u64>>()
                .into_iter()
                .collect();
            // At most the last 200 (`CATCH_UP_MAX`).
            let span = &span[span.len().saturating_sub(200)..];
            let caught = bo
                .js("return [...document.querySelectorAll('[data-key=catch-up-list] li')]\
                     .map(li => ({ seq: Number(li.dataset.seq), text: li.innerText }))")
                .await;
            let caught = caught.as_array().unwrap();
            let seqs: Vec<u64> = caught.iter().map(|l| l["seq"].as_u64().unwrap()).collect();
            assert_eq!(seqs, span, "{game}: the catch-up lists every move since {since}: {caught:?}");
            for line in caught {
                let text = line["text"].as_str().unwrap();
                assert!(
                    text.starts_with(&format!("Move {}, ", line["seq"])) && !text.contains("undefined"),
                    "{game}: a sentence per move: {text}"
                );
            }
            assert_eq!(
                bo.js("const c = document.querySelector('[data-key=catch-up]'), b = document.querySelector('.board-area');\
                       return !!c && !!b && !!(c.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING)")
                    .await,
                json!(true),
                "{game}: the catch-up comes before the board"
            );

            // The seat's own actions in the log, newest first.
            let mut own: Vec<&Value> = log
                .iter()
                .filter(|e| e["seat"] == 1)
                .filter(|e| {
                    let seq = e["seq"].as_u64().unwrap();
                    seq > since && seq <= version
                })
                .collect();
            own.reverse();
            assert!(!own.is_empty(), "{game}: the stand-in played for Bo");
            for e in &own {
                assert_eq!(e["by"], "stand_in", "{game}: {e}");
            }

            // Every line shown (after "Show all" when the report is long).
            if bo
                .js("return !!document.querySelector('[data-key=away-all]')")
                .await
                == json!(true)
            {
                bo.click("[data-key=away-all]").await;
            }
            let shown = bo
                .js("return [...document.querySelectorAll('[data-key=away-list] li')]\
                     .map(li => ({ seq: Number(li.dataset.seq), by: li.dataset.by, text: li.innerText }))")
                .await;
            let shown = shown.as_array().unwrap();
            assert_eq!(
                shown.len(),
                own.len(),
                "{game}: one line per action of the seat: {shown:?}"
            );
            for (line, entry) in shown.iter().zip(&own) {
                let seq = entry["seq"].as_u64().unwrap();
                assert_eq!(
                    line["seq"],
                    json!(seq),
                    "{game}: newest first, like the log: {shown:?}"
                );
                assert_eq!(line["by"], "stand_in", "{game}: {line}");
                let text = line["text"].as_str().unwrap();
                let prefix = format!("Move {seq}: ");
                assert!(
                    text.starts_with(&prefix) && text.len() > prefix.len() + 3 && !text.contains("undefined"),
                    "{game}: a sentence for action {seq}: {text}"
                );
            }
            let by = bo.text("[data-key=away-by]").await;
            let n = own.len();
            let expected = if n == 1 {
                "A bot played 1 move for you:".to_string()
            } else {
                format!("A bot played {n} moves for you:")
            };
            assert_eq!(by.trim(), expected, "{game}: who played, and how many");
            let then_now = bo.text("[data-key=away-then-now]").await;
            assert!(
                then_now.starts_with("Then and now: ") && then_now.contains('→'),
                "{game}: the standing then and now: {then_now}"
            );
            // The log says it too, newest first.
            let logged = bo.text(".log-list li.log-away").await;
            assert!(logged.contains(&format!("{n} move")), "{game}: {logged}");
            bo.shot(&format!("away-report-{game}")).await;

            // Dismissed, it is not shown again after a reload (a new report may come: with no grace period the
            // stand-in plays again the moment the reload drops the connection, but it starts where this one ended).
            bo.click("[data-key=away-ok]").await;
            assert_eq!(
                bo.js("return !!document.querySelector('[data-key=away-report]')")
                    .await,
                json!(false),
                "{game}: dismissed"
            );
            bo.client.refresh().await.unwrap();
            bo.wait_for("Bo's game screen", "document.querySelector('.game')")
                .await;
            tokio::time::sleep(Duration::from_millis(500)).await;
            let again = bo.js("return window.tabletop.awayReport?.since ?? null").await;
            assert!(
                again.is_null() || again.as_u64().unwrap() >= version,
                "{game}: the dismissed report is not shown again (a new one from {again})"
            );
            bo.close().await;
            drop(players);
        }
    })
    .await;
    server.finish().await;
}
