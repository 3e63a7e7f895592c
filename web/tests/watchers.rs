//! Browser test of spectators as people (issue 44, point 3): Ann opens a two-seat Molehills lobby; Cy follows its
//! link, types her name and watches, and Ann sees "Watching: Cy"; Cy then takes the free seat from the lobby without
//! leaving it. Ann and Cy play a few moves; Dee follows the link of the started game, watches under her name, and
//! finds the earlier moves in her log (not "You are looking at the current position"); both players see Dee's name
//! beside the players during the match, and Dee's chat line carries it ("Dee (watching)").
//!
//! Needs `chromium` and `chromedriver` on PATH; without them the test says so and passes, unless `CI` is set.

mod common;

use std::time::{Duration, Instant};

use common::{Browser, TestServer, browsers_available, with_chromedriver};
use serde_json::{Value, json};

/// One step of a player: click one of the offered actions (`data-act`), at most once per state version.
const STEP: &str = r#"
const app = window.tabletop;
if (document.querySelector('#outcome')) return 'over';
if (!app.state || app.busy || window.__acted === app.state.version) return 'wait';
const buttons = [...document.querySelectorAll('.game [data-act]:not([disabled])')];
if (!buttons.length) return 'wait';
window.__n = (window.__n || 0) + 1;
const b = buttons[(app.state.version * 7 + (app.session.seat || 0) * 3 + window.__n) % buttons.length];
if (!b.dataset.local) window.__acted = app.state.version;
b.click();
return 'acted';
"#;

/// The players' panel's list of watchers on this page, once it names Dee.
const DEE_WATCHING: &str = "(document.querySelector('.players [data-key=watchers]')?.innerText || '').includes('Dee') && document.querySelector('.players [data-key=watchers]').innerText";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn players_see_named_watchers_who_get_the_history_and_take_a_free_seat() {
    if !browsers_available("watchers test") {
        return;
    }
    let dir = common::test_dir("watchers");
    let server = TestServer::start_in(dir, |config| {
        config.bot_delay_ms = 50;
    })
    .await;
    let base = server.base_url();
    with_chromedriver(move |webdriver| async move {
        let ann = Browser::open(&webdriver, "ann", 1200, 900, false).await;
        let cy = Browser::open(&webdriver, "cy", 1200, 900, false).await;
        let dee = Browser::open(&webdriver, "dee", 1200, 900, false).await;

        ann.goto(&format!("{base}/")).await;
        ann.wait_for("the create form", "document.querySelector('#create-game option')")
            .await;
        ann.js("const s = document.querySelector('#create-game'); s.value = 'molehills'; s.dispatchEvent(new Event('change'));")
            .await;
        ann.fill("#create-seats", "2").await;
        ann.fill("#create-name", "Ann").await;
        ann.click("button[data-key=create-submit]").await;
        let code = ann
            .wait_for("the lobby code", "window.tabletop.lobby?.code")
            .await;
        let code = code.as_str().unwrap().to_string();

        // Cy follows the link and watches under her name.
        cy.goto(&format!("{base}/#join={code}")).await;
        cy.wait_for("the join form", "document.querySelector('#join-name')").await;
        cy.fill("#join-name", "Cy").await;
        cy.click("button[data-key=watch-submit]").await;
        cy.wait_for("Cy watching", "window.tabletop.session?.spectator === true")
            .await;
        let seen = ann
            .wait_for(
                "Cy's name in Ann's lobby",
                "document.querySelector('.lobby [data-key=watchers]')?.innerText.includes('Cy') && document.querySelector('.lobby [data-key=watchers]').innerText",
            )
            .await;
        assert_eq!(seen, json!("Watching: Cy"));

        // A seat is free: Cy takes it without leaving first.
        cy.wait_for("the free seat offered", "document.querySelector('[data-key=take-seat]')")
            .await;
        let name = cy.js("return document.querySelector('#seat-name').value").await;
        assert_eq!(name, json!("Cy"), "the name she watched under");
        cy.click("button[data-key=take-seat]").await;
        cy.wait_for("Cy seated", "window.tabletop.session?.spectator === false && window.tabletop.session.seat === 1")
            .await;
        ann.wait_for(
            "Cy in seat 1, nobody watching",
            "window.tabletop.lobby?.seats[1].occupant.name === 'Cy' && window.tabletop.lobby.spectators === 0 && !document.querySelector('.lobby [data-key=watchers]')",
        )
        .await;

        // They start and play a few moves.
        ann.wait_for("the start button", "document.querySelector('[data-key=start]:not([disabled])')")
            .await;
        ann.click("[data-key=start]").await;
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let version = ann.js("return window.tabletop.state?.version ?? 0").await;
            if version.as_u64().unwrap_or(0) >= 4 {
                break;
            }
            assert!(Instant::now() < deadline, "the match moved on: {version}");
            for b in [&ann, &cy] {
                b.js(STEP).await;
            }
            tokio::time::sleep(Duration::from_millis(40)).await;
        }
        let played: Value = ann
            .js("return window.tabletop.log.filter(e => e.kind === 'game').length")
            .await;
        assert!(played.as_u64().unwrap() > 0);

        // Dee arrives mid-match by the link, watches under her name, and gets the earlier moves in her log.
        dee.goto(&format!("{base}/#join={code}")).await;
        dee.wait_for("the started game's page", "document.querySelector('#watch-name')")
            .await;
        dee.fill("#watch-name", "Dee").await;
        dee.click("button[data-key=watch-started]").await;
        dee.wait_for("Dee watching the board", "window.tabletop.session?.spectator === true && document.querySelector('.game')")
            .await;
        let log = dee
            .wait_for(
                "earlier moves in Dee's log",
                "document.querySelectorAll('.log-list .log-game').length > 0 && [...document.querySelectorAll('.log-list li')].map(li => li.innerText)",
            )
            .await;
        let lines: Vec<&str> = log.as_array().unwrap().iter().map(|l| l.as_str().unwrap()).collect();
        assert!(
            !lines.iter().any(|l| l.contains("current position")),
            "a spectator arriving mid-match sees the history: {lines:?}"
        );
        let ann_lines = ann
            .js("return [...document.querySelectorAll('.log-list .log-game')].map(li => li.innerText)")
            .await;
        let dee_lines = dee
            .js("return [...document.querySelectorAll('.log-list .log-game')].map(li => li.innerText)")
            .await;
        assert!(
            dee_lines.as_array().unwrap().len() >= ann_lines.as_array().unwrap().len().min(1),
            "{dee_lines} / {ann_lines}"
        );

        // The players see her name during the match.
        for b in [&ann, &cy] {
            let watchers = b
                .wait_for("Dee's name beside the players", DEE_WATCHING)
                .await;
            assert_eq!(watchers, json!("Watching: Dee"), "{}", b.name);
        }

        // Her chat line carries her name.
        dee.fill("#chat-input", "go Ann").await;
        dee.click("button[data-key=chat-send]").await;
        for b in [&ann, &cy, &dee] {
            let who = b
                .wait_for(
                    "Dee's chat line",
                    "[...document.querySelectorAll('#chat-list .chat-line')].map(l => l.innerText).find(t => t.includes('go Ann'))",
                )
                .await;
            assert!(who.as_str().unwrap().contains("Dee (watching)"), "{}: {who}", b.name);
        }

        for b in [ann, cy, dee] {
            b.close().await;
        }
    })
    .await;
    server.finish().await;
}
