//! Issue 26, point 5 in Chromium: a whole New Year Picture Puzzle game against a bot played with the keyboard
//! alone (Tab, arrow keys, typing and Enter, from the start page's form to the last card), with a spectator who
//! came through the game's link after the start.
//!
//! Checked on the way: focus moves to the lobby's next step (add a bot, then start) and to each new decision, and
//! is never on `<body>` after a move; the shared link of a started game says so before any form and offers to
//! watch; the log survives a reload and follows a change of language (lines kept in English read in Polish after
//! the switch and the reload); while the server is stopped every action control is disabled and every
//! player's presence shows as unknown, and both come back with the server; at the end focus is on "Play again",
//! and the spectator is offered the rematch's table and follows it. No console errors on either page.
//!
//! Needs `chromium` and `chromedriver` on PATH; without them the test says so and passes, unless `CI` is set.

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{Browser, TestServer, browsers_available, with_chromedriver};
use fantoccini::key::Key;
use serde_json::{Value, json};
use tokio::sync::Mutex;

const GAME_LIMIT: Duration = Duration::from_secs(240);

/// Collects the page's console errors and uncaught errors in `window.__errors` (again after each load).
const ERRORS_HOOK: &str = r#"
if (!window.__errors) {
  window.__errors = [];
  const original = console.error.bind(console);
  console.error = (...args) => { window.__errors.push(args.map(String).join(' ')); original(...args); };
  window.addEventListener('error', (e) => window.__errors.push(String(e.message)));
  window.addEventListener('unhandledrejection', (e) => window.__errors.push('unhandled: ' + String(e.reason)));
}
return true;
"#;

/// What has keyboard focus: "BODY" when nothing does (focus dropped to the page), else its data-key, id or tag.
const FOCUSED: &str = r#"
const a = document.activeElement;
if (!a || a === document.body || a === document.documentElement) return 'BODY';
return a.dataset?.key || a.id || a.tagName;
"#;

async fn press(b: &Browser, key: Key) {
    let el = b
        .client
        .active_element()
        .await
        .unwrap_or_else(|e| panic!("{}: an active element: {e}", b.name));
    el.send_keys(&key.to_string())
        .await
        .unwrap_or_else(|e| panic!("{}: presses a key: {e}", b.name));
}

async fn type_text(b: &Browser, text: &str) {
    let el = b.client.active_element().await.unwrap();
    el.send_keys(text)
        .await
        .unwrap_or_else(|e| panic!("{}: types {text}: {e}", b.name));
}

async fn focused(b: &Browser) -> String {
    b.js(FOCUSED).await.as_str().unwrap_or_default().to_string()
}

/// Presses Tab until the element with `id` has focus.
async fn tab_to(b: &Browser, id: &str) {
    for _ in 0..40 {
        if b.js("return document.activeElement?.id || ''").await == json!(id) {
            return;
        }
        press(b, Key::Tab).await;
    }
    panic!("{}: Tab never reached #{id}", b.name);
}

async fn no_errors(b: &Browser) {
    let errors = b.js("return window.__errors || []").await;
    assert_eq!(errors, json!([]), "{}: console errors", b.name);
}

async fn log_lines(b: &Browser) -> Vec<String> {
    let v = b
        .js("return [...document.querySelectorAll('.log-list li')].map(l => l.textContent)")
        .await;
    v.as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap().to_string())
        .collect()
}

/// Chooses the page's language with the switch in the top bar, and waits for the page to be redrawn in it.
async fn set_lang(b: &Browser, lang: &str) {
    b.js(&format!(
        "const s = document.getElementById('lang'); s.value = {}; s.dispatchEvent(new Event('change')); return true",
        json!(lang)
    ))
    .await;
    b.wait_for(
        "the page in the chosen language",
        &format!("document.documentElement.lang === {}", json!(lang)),
    )
    .await;
}

/// Every control that plays an action is disabled, and there was at least one.
const ALL_ACTIONS_DISABLED: &str = r#"
const acts = [...document.querySelectorAll('#main [data-act]')];
return acts.length > 0 && acts.every(e => e.disabled || e.getAttribute('aria-disabled') === 'true');
"#;

/// The presence of every human player on the page, as the page shows it.
const PRESENCES: &str = "return [...document.querySelectorAll('.players .presence')].map(p => p.dataset.presence + ':' + p.textContent)";

async fn run(webdriver: &str, base: &str, server: &Mutex<TestServer>) {
    let ann = Browser::open(webdriver, "ux-ann", 1280, 860, false).await;
    let watcher = Browser::open(webdriver, "ux-watcher", 1024, 800, false).await;

    // The start page, with the keyboard only: Tab to the game, arrow keys to choose, type a name, Enter.
    ann.goto(&format!("{base}/")).await;
    ann.js(ERRORS_HOOK).await;
    ann.wait_for(
        "the create form, connected",
        "document.querySelector('#create-game option') && window.tabletop.conn.ready",
    )
    .await;
    tab_to(&ann, "create-game").await;
    // Down through the list, then back up if the game lies above the first choice.
    for key in [Key::Down; 8].into_iter().chain([Key::Up; 16]) {
        if ann.js("return document.activeElement.value").await == json!("new_year_puzzle") {
            break;
        }
        press(&ann, key).await;
    }
    assert_eq!(
        ann.js("return document.querySelector('#create-game').value")
            .await,
        json!("new_year_puzzle"),
        "the arrow keys choose the game"
    );
    tab_to(&ann, "create-name").await;
    type_text(&ann, "Ann").await;
    press(&ann, Key::Enter).await;

    // The lobby: focus is on its next step, adding a bot; once the seats are full, on starting.
    ann.wait_for(
        "focus on 'Add a bot' in the new lobby",
        "document.activeElement?.dataset.key === 'add-bot'",
    )
    .await;
    let code = ann.text("#lobby-code").await.trim().to_string();
    press(&ann, Key::Enter).await;
    ann.wait_for(
        "focus on 'Start the game' once the bot sat down",
        "document.activeElement?.dataset.key === 'start' && !document.activeElement.disabled",
    )
    .await;
    press(&ann, Key::Enter).await;
    ann.wait_for("the game screen", "document.querySelector('.game')")
        .await;

    // A stranger opens the game's link after the start: the page says so before any form and offers to watch.
    watcher.goto(&format!("{base}/#join={code}")).await;
    watcher.js(ERRORS_HOOK).await;
    let said = watcher
        .wait_for(
            "the started game's notice",
            "document.querySelector('[data-key=started-link]')?.innerText",
        )
        .await;
    assert!(
        said.as_str().unwrap().contains("already started"),
        "the link says the game has started: {said}"
    );
    assert_eq!(
        watcher.js("return !!document.querySelector('#join-name')").await,
        json!(false),
        "no join form for a started game"
    );
    watcher.click("[data-key=watch-started]").await;
    watcher
        .wait_for(
            "the spectator's game screen",
            "window.tabletop.session?.spectator && document.querySelector('.game')",
        )
        .await;

    // The game, with the keyboard only: each decision gets focus by itself; Tab picks a card, Enter plays it.
    let start = Instant::now();
    let mut moves = 0u32;
    let (mut reloaded, mut stopped) = (false, false);
    loop {
        assert!(start.elapsed() < GAME_LIMIT, "the game ends ({moves} moves)");
        let now = ann
            .wait_for(
                "a decision with focus on it, or the end",
                "document.querySelector('#outcome') ? 'over' : (window.tabletop.conn.ready && !window.tabletop.busy \
                 && window.tabletop.state?.legal_actions.length && document.activeElement?.matches('[data-act]:not([disabled])') ? 'mine' : null)",
            )
            .await;
        if now == json!("over") {
            break;
        }

        if moves == 6 && !reloaded {
            // The log survives a reload, and is kept as what happened rather than as words: switched to Polish,
            // the lines written in English read in Polish, after the reload too, and in English again after
            // switching back. (The switch is set from script here: the keyboard path to it is the start page's.)
            reloaded = true;
            let before = log_lines(&ann).await;
            assert!(before.len() > 3, "a log to keep: {before:?}");
            set_lang(&ann, "pl").await;
            let polish = log_lines(&ann).await;
            let same = before.iter().zip(&polish).filter(|(a, b)| a == b).count();
            assert!(
                same * 4 < before.len(),
                "the log's lines change language: English {before:?}, Polish {polish:?}"
            );
            no_errors(&ann).await;
            ann.client.refresh().await.unwrap();
            ann.js(ERRORS_HOOK).await;
            ann.wait_for(
                "the game after the reload",
                "window.tabletop.state && document.querySelector('.game') && document.documentElement.lang === 'pl'",
            )
            .await;
            let after = log_lines(&ann).await;
            let kept = polish.iter().take(40).filter(|l| after.contains(l)).count();
            assert_eq!(
                kept,
                polish.len().min(40),
                "the log is shown again after the reload, in Polish: before {polish:?}, after {after:?}"
            );
            set_lang(&ann, "en").await;
            let english = log_lines(&ann).await;
            let kept = before.iter().take(40).filter(|l| english.contains(l)).count();
            assert_eq!(
                kept,
                before.len().min(40),
                "back in English, the kept lines read as they were written: before {before:?}, now {english:?}"
            );
            continue;
        }

        if moves == 12 && !stopped {
            // The server goes away while Ann has a decision: every action is disabled, presence unknown.
            stopped = true;
            server.lock().await.stop().await;
            for b in [&ann, &watcher] {
                b.wait_for(
                    "the page to notice the server is gone",
                    "window.tabletop.connection.status !== 'open'",
                )
                .await;
                let presences = b.js(PRESENCES).await;
                assert!(
                    !presences.as_array().unwrap().is_empty()
                        && presences
                            .as_array()
                            .unwrap()
                            .iter()
                            .all(|p| p.as_str().unwrap() == "unknown:unknown"),
                    "{}: presence unknown while disconnected: {presences}",
                    b.name
                );
            }
            assert_eq!(
                ann.js(ALL_ACTIONS_DISABLED).await,
                json!(true),
                "every action control is disabled while disconnected"
            );
            assert_ne!(focused(&ann).await, "BODY", "focus stays off the page");
            ann.shot("ux-disconnected").await;
            server.lock().await.start_again().await;
            for b in [&ann, &watcher] {
                b.wait_for(
                    "the reconnection, presence known again",
                    "window.tabletop.connection.status === 'open' && \
                     [...document.querySelectorAll('.players .presence')].every(p => p.dataset.presence !== 'unknown')",
                )
                .await;
            }
            continue;
        }

        // Vary the card: Tab a few times, staying on controls that play an action.
        for _ in 0..(moves % 4) {
            press(&ann, Key::Tab).await;
        }
        for _ in 0..4 {
            if ann
                .js("return !!document.activeElement?.matches('[data-act]:not([disabled])')")
                .await
                == json!(true)
            {
                break;
            }
            let back = ann.client.active_element().await.unwrap();
            back.send_keys(&format!("{}{}", Key::Shift, Key::Tab))
                .await
                .unwrap();
        }
        let version = ann.js("return window.tabletop.state.version").await;
        press(&ann, Key::Enter).await;
        ann.wait_for(
            "the keyboard move to be played",
            &format!("window.tabletop.state.version > {version}"),
        )
        .await;
        moves += 1;
        let f = focused(&ann).await;
        assert_ne!(f, "BODY", "focus dropped to the page after move {moves}");
    }
    assert!(
        moves > 12,
        "the game was played with the keyboard ({moves} moves)"
    );
    ann.shot("ux-keyboard-end").await;

    // The end: focus is on "Play again"; Enter starts the rematch (the only human accepted), and the spectator is
    // offered the rematch's table.
    ann.wait_for(
        "focus on 'Play again'",
        "document.activeElement?.dataset.key === 'play-again'",
    )
    .await;
    press(&ann, Key::Enter).await;
    let new_code = ann
        .wait_for(
            "Ann in the rematch",
            &format!(
                "window.tabletop.session?.code !== {} && window.tabletop.state && window.tabletop.session.code",
                json!(code)
            ),
        )
        .await;
    let offered = watcher
        .wait_for(
            "the spectator offered the rematch",
            "document.querySelector('[data-key=watch-rematch]') && document.querySelector('.rematch')?.innerText",
        )
        .await;
    assert!(
        offered.as_str().unwrap().contains(new_code.as_str().unwrap()),
        "the offer names the rematch's code: {offered}"
    );
    watcher.click("[data-key=watch-rematch]").await;
    watcher
        .wait_for(
            "the spectator watching the rematch",
            &format!(
                "window.tabletop.session?.spectator && window.tabletop.session.code === {new_code} && document.querySelector('.game')"
            ),
        )
        .await;
    assert_eq!(
        watcher.js("return location.hash").await,
        Value::String(format!("#watch={}", new_code.as_str().unwrap()))
    );
    watcher.shot("ux-spectator-rematch").await;
    no_errors(&ann).await;
    no_errors(&watcher).await;
    ann.close().await;
    watcher.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_played_with_the_keyboard_alone_keeps_focus_log_and_state() {
    if !browsers_available("keyboard and state browser test") {
        return;
    }
    let server = TestServer::start_in(common::test_dir("ux"), |config| {
        config.bot_delay_ms = 100;
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
