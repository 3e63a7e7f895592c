//! Browser test of the correspondence pace (issue 47, point 1): Ann creates a Quacks table "by correspondence, 1 day
//! a turn" from the start page's form, adds a bot and starts; the lobby line says the pace, the players panel shows
//! her clock (a day, running while she must decide), and she pauses it for a day with the vacation button and ends
//! the vacation again; she adds an email notification in the table's panel and removes it. On SQLite and on
//! PostgreSQL (`common::backends`), each run checking that the table and its pace are in that backend's database.
//!
//! Needs `chromium` and `chromedriver` on PATH; without them the test says so and passes, unless `CI` is set.

mod common;

use common::{Browser, TestServer, assert_stored, browsers_available, with_chromedriver};
use integration_tests::TestDb;
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_correspondence_table_is_created_from_the_form_and_shows_each_clock() {
    let test = "correspondence test";
    if !browsers_available(test) {
        return;
    }
    for backend in common::backends(test) {
        eprintln!("{test}: on {backend}");
        run_on(backend).await;
    }
}

/// The run on a server whose database is a fresh one of `backend`.
async fn run_on(backend: &str) {
    let server = TestServer::start_on(TestDb::new(backend).await, |_| {}).await;
    let base = server.base_url();
    let code = with_chromedriver(|webdriver| async move {
        let ann = Browser::open(&webdriver, "ann", 1100, 900, false).await;
        ann.goto(&format!("{base}/")).await;
        ann.wait_for("the create form", "document.querySelector('#create-pace')").await;
        ann.js(
            "const f = document.querySelector('form.create'); \
             f.querySelector('#create-game').value = 'quacks'; \
             f.querySelector('#create-game').dispatchEvent(new Event('change')); \
             const p = f.querySelector('#create-pace'); p.value = '86400000'; p.dispatchEvent(new Event('change')); \
             return true;",
        )
        .await;
        // By correspondence the turn timer and the absence policy are not offered; what a run-out clock does is.
        let shown = ann
            .js("return ['create-stall', 'create-timer', 'create-absent']\
                 .map(id => !document.getElementById(id).closest('.field').hidden)")
            .await;
        assert_eq!(shown, json!([true, false, false]));
        ann.fill("#create-name", "Ann").await;
        ann.click("[data-key=create-submit]").await;
        ann.wait_for("the lobby", "window.tabletop.lobby && window.tabletop.lobby.pace").await;
        let pace = ann.js("return window.tabletop.lobby.pace").await;
        assert_eq!(
            pace,
            json!({"kind": "correspondence", "move_ms": 86_400_000, "bank_cap_ms": 259_200_000, "stall": "bot"})
        );
        ann.wait_for(
            "the pace in the lobby's settings",
            "document.body.innerText.includes('By correspondence: 1 day a turn, up to 3 days')",
        )
        .await;
        ann.wait_for("the add-bot button", "document.querySelector('[data-key=add-bot]')").await;
        ann.click("[data-key=add-bot]").await;
        ann.wait_for("the start button", "document.querySelector('[data-key=start]:not([disabled])')").await;
        ann.click("[data-key=start]").await;
        ann.wait_for("Ann's clock", "document.querySelector('[data-key=clock-0]')").await;
        let text = ann
            .js("return document.querySelector('[data-key=clock-0]').innerText")
            .await;
        assert!(
            text.as_str().unwrap().starts_with("Clock: 1 day") || text.as_str().unwrap().starts_with("Clock: 23 hours"),
            "{text}"
        );
        ann.js("document.querySelector('[data-key=vacation]').click(); return true;").await;
        ann.wait_for(
            "the vacation shown",
            "window.tabletop.state.clocks[0].vacation_until && document.querySelector('[data-key=end-vacation]')",
        )
        .await;
        ann.js("document.querySelector('[data-key=end-vacation]').click(); return true;").await;
        ann.wait_for(
            "the vacation ended",
            "!window.tabletop.state.clocks[0].vacation_until && document.querySelector('[data-key=vacation]')",
        )
        .await;
        // She asks to be told by email when it is her turn: the panel lists the address (its name hidden), on,
        // and removes it again.
        ann.js("document.querySelector('details[data-key=notify]').open = true; return true;").await;
        ann.wait_for("the notification panel", "document.querySelector('[data-key=notify-email]')").await;
        ann.js("document.querySelector('[data-key=notify-email]').value = 'ann@example.org'; return true;")
            .await;
        ann.js("document.querySelector('[data-key=notify-add-email]').click(); return true;").await;
        let line = ann
            .wait_for(
                "the email endpoint",
                "(document.querySelector('[data-key=notify-endpoint][data-channel=email]') || {}).innerText",
            )
            .await;
        let line = line.as_str().unwrap();
        assert!(line.contains("example.org") && !line.contains("ann@"), "{line}");
        assert_eq!(
            ann.js("return document.querySelector('[data-key=notify-endpoint]').dataset.active").await,
            json!("true")
        );
        ann.js("document.querySelector('[data-key=notify-remove]').click(); return true;").await;
        ann.wait_for("no endpoint", "document.querySelector('[data-key=notify-none]')").await;
        let code = ann.js("return window.tabletop.session.code").await;
        ann.close().await;
        code.as_str().expect("Ann's table's code").to_string()
    })
    .await;
    let stored = assert_stored(&server, backend, &code).await;
    assert_eq!(
        serde_json::to_value(stored.lobby.pace).unwrap(),
        json!({"kind": "correspondence", "move_ms": 86_400_000, "bank_cap_ms": 259_200_000, "stall": "bot"}),
        "{backend}"
    );
    server.finish().await;
}
