//! Browser test of playing with friends (issue 13): a real server in this process and headless Chromium through
//! chromedriver. Ann creates a lobby and lists it; Bo finds it in the start page's list of open games and joins
//! from there; they chat, and a message made of markup shows literally (and runs nothing); Cy joins by the link,
//! shows as online, then closes the page and shows as away; Ann changes an option, which Bo sees, and removes Bo,
//! who is told why.
//!
//! Needs `chromium` and `chromedriver` on PATH; without them the test says so and passes, unless `CI` is set.

mod common;

use common::{Browser, TestServer, browsers_available, with_chromedriver};
use serde_json::json;

const MARKUP: &str = r#"<img src=x onerror="window.__pwned=1"><b>bold?</b>"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn friends_chat_see_each_other_and_the_host_runs_the_lobby() {
    if !browsers_available("friends test") {
        return;
    }
    let dir = common::test_dir("friends");
    let server = TestServer::start_in(dir, |config| {
        config.bot_delay_ms = 50;
    })
    .await;
    let base = server.base_url();
    with_chromedriver(move |webdriver| async move {
        let ann = Browser::open(&webdriver, "ann", 1200, 900, false).await;
        let bo = Browser::open(&webdriver, "bo", 1200, 900, false).await;

        // Ann creates a three-seat Hide and Eeek! lobby and lists it.
        ann.goto(&format!("{base}/")).await;
        ann.wait_for("the create form", "document.querySelector('#create-game option')")
            .await;
        // What she chooses and types survives the page being redrawn (here by a dropped connection; also when
        // the open games arrive).
        ann.js("const s = document.querySelector('#create-game'); s.value = 'quacks'; s.dispatchEvent(new Event('change'));")
            .await;
        ann.fill("#create-name", "Ann").await;
        ann.wait_for("the connection", "window.tabletop.connection.status === 'open'")
            .await;
        ann.js("document.querySelector('#main').firstElementChild.dataset.old = '1'; window.tabletop.conn.socket.close();")
            .await;
        ann.wait_for(
            "the page redrawn after reconnecting",
            "!document.querySelector('#main [data-old]') && window.tabletop.connection.status === 'open'",
        )
        .await;
        let kept = ann
            .js("return [document.querySelector('#create-game').value, document.querySelector('#create-name').value, document.querySelector('fieldset.options legend').innerText]")
            .await;
        assert_eq!(kept, json!(["quacks", "Ann", "The Quacks of Quedlinburg options"]), "the create form kept its choices");
        ann.js("const s = document.querySelector('#create-game'); s.value = 'hide_and_eeek'; s.dispatchEvent(new Event('change'));")
            .await;
        ann.fill("#create-seats", "3").await;
        ann.fill("#create-name", "Ann").await;
        ann.click("button[data-key=create-submit]").await;
        let code = ann
            .wait_for("the lobby code", "document.querySelector('#lobby-code')?.innerText")
            .await;
        let code = code.as_str().unwrap().trim().to_string();
        ann.wait_for("the host's settings", "document.querySelector('#host-listed')")
            .await;
        ann.click("#host-listed").await;
        ann.wait_for("the lobby listed", "window.tabletop.lobby?.listed === true")
            .await;

        // Bo finds it on the start page and joins from the list.
        bo.goto(&format!("{base}/")).await;
        let entry = format!("#open-games [data-code='{code}']");
        // The start page renders again as the app settles (each render fetches the list afresh), so the entry's
        // text is read in the same step that finds it.
        let listed = bo
            .wait_for(
                "Ann's game in the open list",
                &format!("document.querySelector({})?.innerText", json!(entry)),
            )
            .await;
        let listed = listed.as_str().unwrap_or_default();
        assert!(listed.contains("Ann"), "the list names the host: {listed}");
        assert!(listed.contains("1 of 3"), "the list shows the seats taken: {listed}");
        bo.click(&format!("{entry} a")).await;
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

        // They chat; markup is shown as it was typed, and nothing of it runs.
        bo.fill("#chat-input", MARKUP).await;
        bo.click("button[data-key=chat-send]").await;
        ann.fill("#chat-input", "hello Bo").await;
        ann.click("button[data-key=chat-send]").await;
        for b in [&ann, &bo] {
            b.wait_for(
                "both messages in the chat",
                "document.querySelectorAll('#chat-list .chat-line').length >= 2",
            )
            .await;
            let texts = b
                .js("return [...document.querySelectorAll('#chat-list .chat-text')].map(e => e.textContent)")
                .await;
            assert_eq!(texts, json!([MARKUP, "hello Bo"]), "{}: the chat shows the text literally", b.name);
            let elements = b
                .js("return document.querySelectorAll('#chat-list img, #chat-list b').length")
                .await;
            assert_eq!(elements, json!(0), "{}: no markup became an element", b.name);
            let pwned = b.js("return window.__pwned === undefined").await;
            assert_eq!(pwned, json!(true), "{}: no script ran", b.name);
            let who = b.text("#chat-list .chat-line:first-child .chat-who").await;
            assert_eq!(who, "Bo:", "{}: the writer is named", b.name);
        }
        // A message being typed survives the screen being redrawn by a push.
        bo.fill("#chat-input", "half a sente").await;

        // Cy joins by the link and shows as online; closing the page makes them away.
        let cy = Browser::open(&webdriver, "cy", 900, 800, false).await;
        cy.goto(&format!("{base}/#join={code}")).await;
        cy.wait_for("the join form", "document.querySelector('.join-only #join-name')")
            .await;
        cy.fill(".join-only #join-name", "Cy").await;
        cy.click(".join-only button[data-key=join-submit]").await;
        for b in [&ann, &bo] {
            b.wait_for(
                "Cy online",
                "document.querySelector('.seats [data-seat=\"2\"] [data-presence=connected]')",
            )
            .await;
        }
        cy.wait_for("Cy's chat history", "document.querySelectorAll('#chat-list .chat-line').length === 2")
            .await;
        let kept = bo.js("return document.querySelector('#chat-input').value").await;
        assert_eq!(kept, json!("half a sente"), "the typed message was kept across redraws");
        cy.close().await;
        for b in [&ann, &bo] {
            let badge = b
                .wait_for(
                    "Cy away",
                    "document.querySelector('.seats [data-seat=\"2\"] [data-presence=away]')?.innerText",
                )
                .await;
            assert_eq!(badge, json!("away"), "{}", b.name);
        }

        // Ann changes an option and what happens to away players; Bo sees both.
        ann.fill("#host-opt-target", "4").await;
        ann.js("const s = document.querySelector('#host-absent'); s.value = 'bot:30000'; s.dispatchEvent(new Event('change'));")
            .await;
        ann.click("button[data-key=host-save]").await;
        bo.wait_for(
            "the absence policy on Bo's page",
            "document.querySelector('.lobby')?.innerText.includes('Away players: a bot plays for them after 30 s')",
        )
        .await;
        let seen = bo.js("return window.tabletop.lobby.absent").await;
        assert_eq!(seen, json!({"policy": "bot", "grace_ms": 30000}));
        bo.wait_for(
            "the new target on Bo's page",
            "document.querySelector('.lobby > p.hint')?.innerText.includes('Cards needed to win: 4')",
        )
        .await;
        let seen = bo.js("return window.tabletop.lobby.options.target").await;
        assert_eq!(seen, json!(4));
        // Only the host has the controls.
        let controls = bo.js("return !!document.querySelector('#host-listed, [data-key^=remove-]')").await;
        assert_eq!(controls, json!(false), "Bo is not the host");

        // Ann removes Bo: Bo is told why, and the seat is free again.
        ann.click("button[data-key=remove-1]").await;
        let notice = bo
            .wait_for("Bo told of the removal", "document.querySelector('#notice:not([hidden])')?.innerText")
            .await;
        assert!(
            notice.as_str().unwrap().contains("removed"),
            "Bo is told why: {notice}"
        );
        ann.wait_for(
            "seat 2 free again",
            "document.querySelector('.seats [data-seat=\"1\"]')?.classList.contains('empty')",
        )
        .await;
        ann.shot("friends-lobby").await;
        bo.shot("friends-removed").await;
        ann.close().await;
        bo.close().await;
    })
    .await;
    server.finish().await;
}
