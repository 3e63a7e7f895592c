//! Issue 44, point 2 ("At the table") in Chromium: what a person meets at the table.
//!
//! - Every game's create form offers two seats by default (Hickory Dickory offered one), and a joiner who opens the
//!   link of a full lobby is told so before any form, with the choice to watch instead of a Join that is refused.
//!
//! Needs `chromium` and `chromedriver` on PATH; without them the test says so and passes, unless `CI` is set.

mod common;

use common::{Browser, TestServer, browsers_available, with_chromedriver};
use serde_json::json;

/// Chooses `game` in the start page's create form.
const CHOOSE_GAME: &str = "const s = document.querySelector('#create-game'); s.value = arguments_game; s.dispatchEvent(new Event('change')); return true";

async fn choose_game(b: &Browser, game: &str) {
    b.js(&CHOOSE_GAME.replace("arguments_game", &json!(game).to_string()))
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_seats_by_default_and_a_full_lobby_says_so_before_join() {
    if !browsers_available("table test") {
        return;
    }
    let server = TestServer::start_in(common::test_dir("table-seats"), |_| {}).await;
    let base = server.base_url();
    with_chromedriver(move |webdriver| async move {
        let ann = Browser::open(&webdriver, "table-ann", 1200, 900, false).await;
        let bo = Browser::open(&webdriver, "table-bo", 1200, 900, false).await;
        let cy = Browser::open(&webdriver, "table-cy", 1200, 900, false).await;

        ann.goto(&format!("{base}/")).await;
        ann.wait_for("the create form", "document.querySelector('#create-game option')")
            .await;
        let games = ann
            .js("return [...document.querySelectorAll('#create-game option')].map(o => o.value)")
            .await;
        let games: Vec<String> = serde_json::from_value(games).unwrap();
        assert_eq!(games.len(), 5, "every game is offered: {games:?}");
        for game in &games {
            choose_game(&ann, game).await;
            let seats = ann.js("return document.querySelector('#create-seats').value").await;
            assert_eq!(seats, json!("2"), "{game}: the create form offers two seats");
        }

        // Ann creates a Hickory Dickory table with the seats offered; Bo takes the second seat by the link.
        choose_game(&ann, "hickory_dickory").await;
        ann.fill("#create-name", "Ann").await;
        ann.click("button[data-key=create-submit]").await;
        let code = ann
            .wait_for("the lobby code", "document.querySelector('#lobby-code')?.innerText")
            .await;
        let code = code.as_str().unwrap().trim().replace('-', "");
        bo.goto(&format!("{base}/#join={code}")).await;
        bo.wait_for("the join form", "document.querySelector('.join-only #join-name')")
            .await;
        bo.fill(".join-only #join-name", "Bo").await;
        bo.click(".join-only button[data-key=join-submit]").await;
        bo.wait_for("Bo's lobby", "document.querySelector('#lobby-code')")
            .await;
        ann.wait_for(
            "Bo in Ann's lobby",
            "document.querySelector('.seats [data-seat=\"1\"]')?.innerText.includes('Bo')",
        )
        .await;

        // Cy opens the same link: the lobby is full, said before any form, and Cy can watch.
        cy.goto(&format!("{base}/#join={code}")).await;
        let said = cy
            .wait_for(
                "the full lobby said on the join page",
                "!document.querySelector('.join-only[aria-busy]') && document.querySelector('.join-only')?.innerText",
            )
            .await;
        let said = said.as_str().unwrap();
        assert!(said.contains("is full"), "the join page says the lobby is full: {said}");
        let form = cy.js("return !!document.querySelector('#join-name, [data-key=join-submit]')").await;
        assert_eq!(form, json!(false), "no Join form for a full lobby");
        cy.click("[data-key=watch-started]").await;
        cy.wait_for("Cy watching the lobby", "document.querySelector('#lobby-code')")
            .await;
        let role = cy.js("return window.tabletop.session?.seat ?? null").await;
        assert_eq!(role, json!(null), "Cy watches, with no seat");
        for b in [ann, bo, cy] {
            b.close().await;
        }
    })
    .await;
    server.finish().await;
}
