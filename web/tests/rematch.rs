//! Browser test of issue 13's absent players and rematch: Ann creates a Hide and Eeek! game in which a bot plays
//! for an away player after 10 seconds; Bo joins. Mid-match Bo closes the page; Ann sees Bo go offline, then the
//! "a bot is playing for Bo" badge, and the bot plays Bo's turns. Bo comes back through the game's link and takes
//! the seat back (the badge goes), and both play to the end. Then both click "Play again", each seeing who
//! accepted, and a new match starts for both with a new game code, its chat going on from the finished game's (a
//! message written there shows at the new table) and neither log saying the other "is back" (nobody left). After
//! a server restart Bo opens the finished game's link again: the page says the rematch has started and takes him
//! back to his seat in it.
//!
//! Needs `chromium` and `chromedriver` on PATH; without them the test says so and passes, unless `CI` is set.
//! Takes about half a minute (the 10 seconds' grace period is waited for in real time).

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{Browser, TestServer, browsers_available, with_chromedriver};
use serde_json::{Value, json};
use tokio::sync::Mutex;

const MATCH_LIMIT: Duration = Duration::from_secs(90);

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

/// Whose turn it is on this page (null outside a turn).
const TURN: &str = "const s = window.tabletop.state?.status; return s && s.kind === 'turn' ? s.seat : null;";

async fn step(players: &[&Browser]) -> Vec<Value> {
    let mut out = Vec::new();
    for b in players {
        out.push(b.js(STEP).await);
    }
    tokio::time::sleep(Duration::from_millis(40)).await;
    out
}

async fn run(webdriver: &str, base: &str, server: &Mutex<TestServer>) {
    let ann = Browser::open(webdriver, "ann", 1280, 900, false).await;
    let bo = Browser::open(webdriver, "bo", 1024, 800, false).await;

    // Ann creates the game, choosing what happens to an away player.
    ann.goto(&format!("{base}/")).await;
    ann.wait_for("the create form", "document.querySelector('#create-game option')")
        .await;
    ann.js("const s = document.querySelector('#create-game'); s.value = 'hide_and_eeek'; s.dispatchEvent(new Event('change'));")
        .await;
    let choices = ann
        .js("return [...document.querySelectorAll('#create-absent option')].map(o => o.value)")
        .await;
    assert!(
        choices
            .as_array()
            .unwrap()
            .iter()
            .all(|c| !c.as_str().unwrap().starts_with("skip")),
        "Hide and Eeek! cannot skip, so the form does not offer it: {choices}"
    );
    ann.js("const s = document.querySelector('#create-game'); s.value = 'quacks'; s.dispatchEvent(new Event('change'));")
        .await;
    let choices = ann
        .js("return [...document.querySelectorAll('#create-absent option')].map(o => o.value)")
        .await;
    assert!(
        choices.as_array().unwrap().contains(&json!("skip:30000")),
        "Quacks can skip: {choices}"
    );
    ann.js("const s = document.querySelector('#create-game'); s.value = 'hide_and_eeek'; s.dispatchEvent(new Event('change'));")
        .await;
    ann.fill("#create-seats", "2").await;
    // The longest game: the stand-in bot plays to win (issue 25), and the match must outlast Bo's absence.
    ann.fill("#opt-target", "20").await;
    ann.fill("#create-name", "Ann").await;
    ann.js("document.querySelector('#create-absent').value = 'bot:10000';")
        .await;
    ann.click("button[data-key=create-submit]").await;
    let code = ann
        .wait_for(
            "the lobby code",
            "document.querySelector('#lobby-code')?.innerText",
        )
        .await;
    let code = code.as_str().unwrap().trim().to_string();
    let rules = ann.text(".lobby .hint").await;
    assert!(
        rules.contains("a bot plays for them after 10 s"),
        "the lobby says so: {rules}"
    );
    bo.goto(&format!("{base}/#join={code}")).await;
    bo.wait_for("the join form", "document.querySelector('.join-only #join-name')")
        .await;
    bo.fill(".join-only #join-name", "Bo").await;
    bo.click(".join-only button[data-key=join-submit]").await;
    ann.wait_for(
        "Bo in the lobby",
        "document.querySelector('.seats')?.innerText.includes('Bo')",
    )
    .await;
    ann.wait_for(
        "start enabled",
        "!document.querySelector('[data-key=start]').disabled",
    )
    .await;
    ann.click("button[data-key=start]").await;
    for b in [&ann, &bo] {
        b.wait_for("the game screen", "document.querySelector('.game')")
            .await;
    }

    // A few moves, until it is Ann's turn again after Bo has played.
    let start = Instant::now();
    while ann
        .js("return window.tabletop.state.version")
        .await
        .as_u64()
        .unwrap()
        < 4
    {
        assert!(start.elapsed() < MATCH_LIMIT, "the first moves");
        step(&[&ann, &bo]).await;
    }

    // Bo closes the page (the whole window; what the browser remembers, his seat token, is kept aside to bring
    // him back in a new window as the same browser would).
    let remembered = bo.js("return localStorage.getItem('tabletop.v1')").await;
    bo.close().await;
    ann.wait_for(
        "Bo shown offline",
        "document.querySelector('.players li[data-seat=\"1\"] .tag.warn')",
    )
    .await;
    // Ann plays on; after the grace period the badge shows and the bot plays Bo's turns.
    let start = Instant::now();
    let (mut badge, mut bo_turn_seen, mut bot_played) = (false, false, false);
    while !(badge && bot_played) {
        assert!(
            start.elapsed() < MATCH_LIMIT,
            "the stand-in: badge {badge}, Bo's turn seen {bo_turn_seen}, bot played {bot_played}"
        );
        let turn = ann.js(TURN).await;
        if badge && turn == json!(1) {
            bo_turn_seen = true;
        }
        if bo_turn_seen && turn == json!(0) {
            bot_played = true;
        }
        if !badge {
            let text = ann.text("[data-key=stand-in-1]").await;
            if !text.is_empty() {
                assert!(text.contains("a bot is playing for Bo"), "{text}");
                badge = true;
            }
        }
        if ann.js("return !!document.querySelector('#outcome')").await == json!(true) {
            panic!("the match ended before Bo could come back; lower the pace");
        }
        step(&[&ann]).await;
    }
    ann.shot("rematch-stand-in").await;

    // Bo comes back through the game's link: the seat is his again, and the badge goes.
    let bo = Browser::open(webdriver, "bo", 1024, 800, false).await;
    bo.goto(&format!("{base}/")).await;
    bo.js(&format!("localStorage.setItem('tabletop.v1', {remembered});"))
        .await;
    bo.goto(&format!("{base}/#join={code}")).await;
    // Only the address's fragment changed: load the page afresh, as opening the link in a new window does.
    bo.client.refresh().await.unwrap();
    bo.wait_for("Bo's game screen", "document.querySelector('.game')")
        .await;
    assert_eq!(bo.js("return window.tabletop.session.seat").await, json!(1));
    // He is told what the bot played for him while he was away (issue 26).
    let report = bo
        .wait_for(
            "what the bot played for Bo",
            "document.querySelector('[data-key=away-report] li') && document.querySelector('[data-key=away-report]').innerText",
        )
        .await;
    assert!(
        report.as_str().unwrap().contains("While you were away"),
        "{report}"
    );
    ann.wait_for(
        "the badge gone",
        "!document.querySelector('[data-key=stand-in-1]') && !document.querySelector('.players li[data-seat=\"1\"] .tag.warn')",
    )
    .await;

    // Both play to the end.
    let start = Instant::now();
    loop {
        assert!(start.elapsed() < MATCH_LIMIT, "the match ends");
        let done = step(&[&ann, &bo]).await;
        if done.iter().all(|d| d == "over") {
            break;
        }
    }
    let old_match = ann.js("return window.tabletop.state.match_id").await;

    // They chat at the finished table.
    ann.fill("#chat-input", "good game, again?").await;
    ann.click("[data-key=chat-send]").await;
    bo.wait_for(
        "Ann's message at Bo's",
        "document.querySelector('.chat-list')?.innerText.includes('good game, again?')",
    )
    .await;

    // Play again: Ann asks, Bo sees it and accepts; a new match starts for both.
    ann.wait_for(
        "the Play again button",
        "document.querySelector('[data-key=play-again]')",
    )
    .await;
    ann.click("[data-key=play-again]").await;
    ann.wait_for(
        "Ann's acceptance shown",
        "document.querySelector('[data-key=rematch-status]')?.innerText.includes('You accepted')",
    )
    .await;
    bo.wait_for(
        "Ann's request shown to Bo",
        "document.querySelector('[data-key=rematch-status]')?.innerText.includes('Ann accepted')",
    )
    .await;
    bo.click("[data-key=play-again]").await;
    let mut new_code = Value::Null;
    for b in [&ann, &bo] {
        new_code = b
            .wait_for(
                "the rematch",
                &format!(
                    "window.tabletop.state && window.tabletop.session?.code !== {} && !document.querySelector('#outcome') && window.tabletop.session.code",
                    json!(code)
                ),
            )
            .await;
        assert_ne!(new_code, json!(code));
        let match_id = b.js("return window.tabletop.state.match_id").await;
        assert_ne!(match_id, old_match, "{}: a new match", b.name);
    }
    assert_eq!(ann.js("return window.tabletop.session.seat").await, json!(0));
    assert_eq!(bo.js("return window.tabletop.session.seat").await, json!(1));
    // The conversation goes on at the new table (issue 44: the rematch started with an empty chat).
    for b in [&ann, &bo] {
        b.wait_for(
            "the chat carried over to the rematch",
            "document.querySelector('.chat-list')?.innerText.includes('good game, again?')",
        )
        .await;
    }
    // And it can be played.
    let first = ann
        .js("return window.tabletop.state.version")
        .await
        .as_u64()
        .unwrap();
    let start = Instant::now();
    while ann
        .js("return window.tabletop.state.version")
        .await
        .as_u64()
        .unwrap()
        < first + 2
    {
        assert!(start.elapsed() < MATCH_LIMIT, "the rematch is played");
        step(&[&ann, &bo]).await;
    }
    // Nobody left: whoever took their seat in the rematch second is not said to be "back" (issue 44).
    for b in [&ann, &bo] {
        let log = b.text(".log-list").await;
        assert!(
            !log.contains("is back"),
            "{}: nobody came back to the rematch, both came to it: {log}",
            b.name
        );
        assert!(log.contains("The rematch has started."), "{}: {log}", b.name);
    }
    ann.shot("rematch-new-match").await;

    // The server restarts (the offer lived in its memory). Bo opens the finished game's link: its table tells him
    // the rematch started, and he takes his seat in it from there.
    server.lock().await.stop().await;
    server.lock().await.start_again().await;
    bo.wait_for(
        "Bo connected again",
        "window.tabletop.conn.ready && window.tabletop.state",
    )
    .await;
    bo.js(&format!("location.hash = '#join={code}'; return true"))
        .await;
    let offered = bo
        .wait_for(
            "the finished table offering Bo his seat in the rematch",
            "document.querySelector('[data-key=play-rematch]') && document.querySelector('.rematch')?.innerText",
        )
        .await;
    assert!(
        offered.as_str().unwrap().contains(new_code.as_str().unwrap()),
        "the finished table names the rematch: {offered}"
    );
    bo.shot("rematch-after-restart-offer").await;
    bo.click("[data-key=play-rematch]").await;
    bo.wait_for(
        "Bo back in his seat of the rematch",
        &format!(
            "window.tabletop.session?.code === {new_code} && window.tabletop.session.seat === 1 && window.tabletop.state?.code === {new_code} && document.querySelector('.game')"
        ),
    )
    .await;
    ann.close().await;
    bo.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bot_stands_in_for_a_closed_page_and_both_play_again() {
    if !browsers_available("rematch browser test") {
        return;
    }
    let server = TestServer::start_in(common::test_dir("rematch"), |config| {
        config.bot_delay_ms = 250;
    })
    .await;
    let base = server.base_url();
    let server = Arc::new(Mutex::new(server));
    with_chromedriver({
        let server = server.clone();
        |webdriver| async move { run(&webdriver, &base, &server).await }
    })
    .await;
    let server = Arc::try_unwrap(server).expect("the test holds the only handle to the server");
    server.into_inner().finish().await;
}
