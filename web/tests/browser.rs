//! Browser test: a real server (in this process, SQLite in memory, the system clock) and headless Chromium driven
//! through chromedriver. Two players in two browser sessions (a desktop window and an emulated phone) go through a
//! lobby (create with options, share the link, join by it, add a bot, start) and a complete Hide and Eeek! match
//! against the bot, clicking what the page offers (one move by keyboard, the Eeek! claim button when a mouse
//! shows); a third session watches as a spectator; one player reloads mid-game and must get the same seat and
//! board back. Then every other game the server lists is played to its end the same way through its screen. The
//! page is checked at each step, and screenshots are saved under `target/browser-screenshots/` as artefacts.
//!
//! Needs `chromium` and `chromedriver` on PATH (Debian: `apt-get install chromium chromium-driver`). Without them
//! the test says so and passes, unless `CI` is set, where a missing browser is a failure. Takes about a minute.

mod common;

use std::{
    sync::Arc,
    time::{Duration, Instant},
};

use common::{Browser, TestServer, browsers_available, http_get, screenshot_dir, with_chromedriver};
use fantoccini::{Locator, key::Key};
use serde_json::json;

/// A whole match against the bot, with the target lowered to 3 cards.
const MATCH_LIMIT: Duration = Duration::from_secs(60);

/// One step of a player who plays what the page offers: claim a showing mouse, or in an Eeek! window one of the
/// cards it offers (reporting it once before the click, with the claims' text, for a check and a screenshot), otherwise stop once two cards are set aside, otherwise click a playable card. Acts at most once per state version. Returns what it did.
const PLAY_ONE_STEP: &str = r#"
const app = window.tabletop;
if (document.querySelector('#outcome')) return 'over';
if (!app.state || app.busy || window.__acted === app.state.version) return 'wait';
const act = (el, what) => { window.__acted = app.state.version; el.click(); return what; };
// Rules version 2: an Eeek! window over the cards just turned up, claimed by clicking a card it offers.
const eeek = document.querySelector('.eeek-button')
  || (document.querySelector('.pass-button') && document.querySelector('.hee-grid button.can-claim:not([disabled])'));
// Where the grid sits in the screen, with no Eeek! banner and with one: the banner must not move it.
const grid = document.querySelector('.hee-grid');
const gridTop = grid ? Math.round(grid.getBoundingClientRect().top - document.querySelector('.hee').getBoundingClientRect().top) : 0;
if (!document.querySelector('.claims-slot.open')) window.__gridTop = gridTop;
if (eeek && !window.__eeekSeen) {
  window.__eeekSeen = true;
  const claims = document.querySelector('.claims');
  const moved = window.__gridTop === undefined ? 0 : gridTop - window.__gridTop;
  return 'eeek-showing:' + moved + ':' + (claims ? claims.innerText : '');
}
if (eeek) { window.__eeekSeen = false; return act(eeek, 'eeek'); }
const stop = document.querySelector('button.stop');
const setAside = app.state.view.step.collected ? app.state.view.step.collected.length : 0;
const cells = [...document.querySelectorAll('.hee-grid button[data-cell]:not([disabled])')];
if (stop && (setAside >= 2 || !cells.length)) return act(stop, 'stop');
if (cells.length) {
  const cell = cells[(app.state.version * 7) % cells.length];
  return act(cell, 'cell ' + cell.dataset.cell);
}
return 'wait';
"#;

/// When Ann may play a card: pretend the page missed the last update (its version one behind) and click the card.
/// Returns the real version, or null when Ann has nothing to play now.
const STALE_CLICK: &str = r#"
const app = window.tabletop;
const cell = document.querySelector('.hee-grid button[data-cell]:not([disabled])');
if (!cell || app.busy || !app.state || app.state.version === 0) return null;
const version = app.state.version;
// Version 0: Ann (seat 0, first to move) has acted since, so her options have changed (an action is stale only
// then; another seat's move alone would not make it so).
app.state = { ...app.state, version: 0 };
cell.click();
return version;
"#;

async fn run_match(webdriver: &str, base: &str, server: &tokio::sync::Mutex<TestServer>) {
    let ann = Browser::open(webdriver, "ann", 1280, 900, false).await;
    let bo = Browser::open(webdriver, "bo", 390, 844, true).await;
    let watcher = Browser::open(webdriver, "watcher", 1024, 768, false).await;
    // A mouse card does not show in every match, and a short match can end before a reload, a stale click and a
    // restart were tried: play again (up to MATCHES matches) until everything was seen once.
    let mut checks = Checks::default();
    // For a quick local look at some screens: BROWSER_GAMES=quacks,hickory_dickory plays only those (never in CI).
    let only: Option<Vec<String>> = std::env::var("BROWSER_GAMES")
        .ok()
        .filter(|_| std::env::var_os("CI").is_none())
        .map(|v| v.split(',').map(str::to_string).collect());
    for round in 1..=(if only.is_some() { 0 } else { MATCHES }) {
        one_match(
            base,
            round,
            &ann,
            &bo,
            (round == 1).then_some(&watcher),
            server,
            &mut checks,
        )
        .await;
        if checks.done() {
            break;
        }
    }
    // Every other game the server hosts: a whole match through the screen the client has for it (the generic
    // one until a game has its own).
    if only.is_some() {
        ann.client.goto(&format!("{base}/")).await.unwrap();
        ann.wait_for("the catalogue", "window.tabletop?.catalogue?.length")
            .await;
    }
    let catalogue = ann
        .js("return window.tabletop.catalogue.map(g => [g.id, g.name])")
        .await;
    // The other games are played in two languages at once: Ann's page in English, Bo's in Polish (the language
    // switch is remembered in the browser's storage).
    bo.js("localStorage.setItem('tabletop.lang', 'pl')").await;
    bo.client.refresh().await.unwrap();
    bo.wait_for("Bo's page in Polish", "document.documentElement.lang === 'pl'")
        .await;
    let mut played = Vec::new();
    for game in catalogue.as_array().unwrap() {
        let (id, name) = (game[0].as_str().unwrap(), game[1].as_str().unwrap());
        if id == "hide_and_eeek" || only.as_ref().is_some_and(|o| !o.iter().any(|g| g == id)) {
            continue;
        }
        let started = Instant::now();
        generic_match(base, id, name, &ann, &bo).await;
        played.push(format!("{id} in {:.1} s", started.elapsed().as_secs_f64()));
    }
    eprintln!("browser test: also played {played:?}");
    for b in [&ann, &bo, &watcher] {
        let _ = b.client.clone().close().await;
    }
    if only.is_some() {
        return;
    }
    assert!(
        checks.eeek,
        "no mouse card showed in {MATCHES} matches: the Eeek! button was never exercised"
    );
    assert!(checks.keyboard, "a move was made with the keyboard: {checks:?}");
    assert!(checks.reload, "Bo reloaded the page during a match: {checks:?}");
    assert!(
        checks.stale && checks.restart,
        "the stale version and the restart were tried: {checks:?}"
    );
}

/// One step of a player on any game screen: click one of the offered actions (every element that plays an action,
/// or makes a choice on the page towards one, is marked `data-act`), at most once per state
/// version; which one depends on the version and the seat, so the players explore different moves.
const GENERIC_STEP: &str = r#"
const app = window.tabletop;
if (document.querySelector('#outcome')) return 'over';
if (!app.state || app.busy || window.__acted === app.state.version) return 'wait';
const buttons = [...document.querySelectorAll('.game [data-act]:not([disabled])')];
if (!buttons.length) return 'wait';
window.__n = (window.__n || 0) + 1;
const b = buttons[(app.state.version * 7 + (app.session.seat || 0) * 3 + window.__n) % buttons.length];
// A choice made on the page before anything is sent (a card of the stack being planned, a corner) is not an
// action: the next choice follows on the same version.
if (!b.dataset.local) window.__acted = app.state.version;
b.click();
return b.textContent;
"#;

/// One step of a player on a screen whose board plays moves itself (Quacks: the bag, the flask, the chips looked
/// at, the chips for sale; Hickory Dickory: the clock's numbers, the mice, the tiles, the hunt board, the favour cards): two times in
/// three it clicks one of the board's own elements when the board offers any, otherwise any offered action (the
/// buttons are the keyboard path). Returns `board:` or `button:` with the element's words.
const CLOCK_POT_STEP: &str = r#"
const app = window.tabletop;
if (document.querySelector('#outcome')) return 'over';
if (!app.state || app.busy || window.__acted === app.state.version) return 'wait';
const live = (sel) => [...document.querySelectorAll(sel)].filter((b) => !b.disabled);
const board = live('.quacks-board [data-act], .q-shop-chips [data-act], .hd-clock [data-act], .hd-player [data-act], .hd-side [data-act], .hd-choose [data-act]');
const any = live('.game [data-act]');
if (!any.length) return 'wait';
window.__n = (window.__n || 0) + 1;
// Quacks: stop brewing now and then, or a nine-round match outlasts the time limit.
const stop = any.find((b) => b.dataset.act === 'stop');
if (stop && (app.state.version + window.__n) % 3 === 0) {
  window.__acted = app.state.version;
  stop.click();
  return 'button: ' + stop.textContent;
}
const pickBoard = board.length && (app.state.version + window.__n) % 3 !== 0;
const list = pickBoard ? board : any;
const b = list[(app.state.version * 7 + (app.session.seat || 0) * 3 + window.__n) % list.length];
if (!b.dataset.local) window.__acted = app.state.version;
b.click();
return (pickBoard ? 'board: ' : 'button: ') + (b.getAttribute('aria-label') || b.textContent);
"#;

/// One step on the Hide and Eeek!, Molehills and New Year boards: click the board's own elements (a card of the
/// grid, a tile of the picture, a space of the field, a movement card) when the board offers one, and otherwise
/// (or now and then, to stop, pass or answer) another offered action. Counts the board clicks in
/// `window.__boardClicks`, and records every console error and uncaught error in `window.__errors`.
const BOARD_STEP: &str = r#"
if (!window.__errors) {
  window.__errors = [];
  const original = console.error.bind(console);
  console.error = (...args) => { window.__errors.push(args.map(String).join(' ')); original(...args); };
  window.addEventListener('error', (e) => window.__errors.push(String(e.message)));
}
const app = window.tabletop;
if (document.querySelector('#outcome')) return 'over';
if (!app.state || app.busy || window.__acted === app.state.version) return 'wait';
const live = (sel) => [...document.querySelectorAll(sel)].filter((b) => !b.disabled);
const board = live('.hee-grid [data-act], .ny-board [data-act], .mh-grid [data-act], .mh-hand [data-act]');
const other = live('.game [data-act]').filter((b) => !board.includes(b));
window.__n = (window.__n || 0) + 1;
const pick = app.state.version * 7 + (app.session.seat || 0) * 3 + window.__n;
const useOther = other.length && (!board.length || pick % 5 === 0);
const list = useOther ? other : board;
if (!list.length) return 'wait';
const b = list[pick % list.length];
if (!b.dataset.local) window.__acted = app.state.version;
if (!useOther) window.__boardClicks = (window.__boardClicks || 0) + 1;
b.click();
return (useOther ? 'button ' : 'board ') + (b.dataset.key || b.textContent);
"#;

/// The games whose screens are played by clicking their boards ([`BOARD_STEP`]).
const BOARD_GAMES: [&str; 3] = ["hide_and_eeek", "molehills", "new_year_puzzle"];

/// Ann creates a three-seat lobby of `id`, Bo joins by the link, a bot fills the last seat, and both humans play
/// the whole match on the page by clicking the offered actions.
async fn generic_match(base: &str, id: &str, name: &str, ann: &Browser, bo: &Browser) {
    let shot = |b: &Browser, what: &str| {
        let file = format!("{id}-{what}.png");
        let b = b.client.clone();
        async move {
            if let Ok(png) = b.screenshot().await {
                let _ = std::fs::write(screenshot_dir().join(file), png);
            }
        }
    };
    ann.client.goto(&format!("{base}/")).await.unwrap();
    ann.wait_for("the create form", "document.querySelector('#create-game option')")
        .await;
    ann.js(&format!(
        "const s = document.querySelector('#create-game'); s.value = {}; s.dispatchEvent(new Event('change'));",
        json!(id)
    ))
    .await;
    let legend = ann.text("fieldset.options legend").await;
    assert!(legend.contains(name), "the options shown are {name}'s: {legend}");
    ann.fill("#create-seats", "3").await;
    ann.fill("#create-name", "Ann").await;
    // A turn timer, so the page shows its countdown.
    ann.js("document.querySelector('#create-timer').value = '60000';")
        .await;
    ann.click("button[data-key=create-submit]").await;
    let code = ann
        .wait_for(
            "the lobby code",
            "document.querySelector('#lobby-code')?.innerText",
        )
        .await;
    let code = code.as_str().unwrap().trim().to_string();
    bo.client.goto(&format!("{base}/#join={code}")).await.unwrap();
    bo.wait_for("the join form", "document.querySelector('.join-only #join-name')")
        .await;
    bo.fill(".join-only #join-name", "Bo").await;
    bo.click(".join-only button[data-key=join-submit]").await;
    ann.wait_for(
        "Bo in Ann's lobby",
        "document.querySelector('.seats')?.innerText.includes('Bo')",
    )
    .await;
    ann.click("button[data-key=add-bot]").await;
    ann.wait_for(
        "start enabled",
        "!document.querySelector('[data-key=start]').disabled",
    )
    .await;
    ann.click("button[data-key=start]").await;
    for b in [ann, bo] {
        b.wait_for("the game screen", "document.querySelector('.game')")
            .await;
        let title = b.text(".game-head h1").await;
        if b.name == "bo" {
            // Bo's page speaks Polish (the game's title may be translated).
            let lang = b.js("return document.documentElement.lang").await;
            assert_eq!(lang, json!("pl"), "bo plays {id} in Polish");
            assert!(!title.trim().is_empty(), "bo: the screen is titled");
        } else {
            assert_eq!(title, name, "{}: the screen is titled with the game", b.name);
        }
        let generic = b.js("return !!document.querySelector('.game .generic')").await;
        if generic == json!(true) {
            let notice = b.text(".generic-notice").await;
            assert!(
                notice.contains("Generic screen"),
                "{}: the generic screen says so: {notice}",
                b.name
            );
        }
    }
    if id == "quacks" {
        for b in [ann, bo] {
            let pots = b
                .js("return document.querySelectorAll('.quacks-board svg.q-pot-svg').length")
                .await;
            assert_eq!(pots, json!(3), "{}: every player's pot is shown", b.name);
            let spaces = b
                .js("return document.querySelectorAll('.quacks-board.mine .q-pot-svg .q-space').length")
                .await;
            assert_eq!(spaces, json!(54), "{}: the spiral has its 54 spaces", b.name);
            let rubies = b
                .js("return document.querySelectorAll('.quacks-board.mine .q-pot-svg .q-space.ruby').length")
                .await;
            assert_eq!(rubies, json!(15), "{}: 15 ruby spaces on the spiral", b.name);
            let marks = b
                .js("const m = document.querySelector('.quacks-board.mine'); return [!!m.querySelector('.q-drop'), !!m.querySelector('.q-rat, .q-space.droplet'), document.querySelectorAll('.q-book .info-tip-text').length > 0]")
                .await;
            assert_eq!(
                marks,
                json!([true, true, true]),
                "{}: the droplet, the rat stone and the books' effects are shown",
                b.name
            );
        }
    }
    if id == "hickory_dickory" {
        for b in [ann, bo] {
            let numbers = b
                .js("return document.querySelectorAll('.hd-clock .hd-outer').length")
                .await;
            assert_eq!(numbers, json!(12), "{}: the clock has its twelve numbers", b.name);
            let drawn = b
                .js("return [document.querySelectorAll('.hd-clock svg.hd-clock-svg').length, document.querySelectorAll('.hd-clock .hd-mouse-svg').length > 0, document.querySelectorAll('.hd-clock .hd-tile-svg').length]")
                .await;
            assert_eq!(drawn[0], json!(1), "{}: the clock is drawn", b.name);
            assert_eq!(
                drawn[1],
                json!(true),
                "{}: the mice are figures on the clock",
                b.name
            );
            assert!(
                drawn[2].as_u64().unwrap_or(0) >= 10,
                "{}: the clock's tiles are drawn: {drawn}",
                b.name
            );
        }
    }
    if id == "molehills" {
        for b in [ann, bo] {
            let cells = b
                .js("return document.querySelectorAll('.mh-grid .mh-cell').length")
                .await;
            assert_eq!(cells, json!(36), "{}: three players dig a 6x6 field", b.name);
        }
    }
    if id == "new_year_puzzle" {
        for b in [ann, bo] {
            let tiles = b
                .js("return document.querySelectorAll('.ny-board [data-position]').length")
                .await;
            assert_eq!(tiles, json!(64), "{}: the picture has 64 cards", b.name);
            let corners = b
                .js("return document.querySelectorAll('.ny-board .tile.corner').length")
                .await;
            assert_eq!(corners, json!(4), "{}: the four corners start face up", b.name);
            let pile = b.text(".reward-card").await;
            assert!(!pile.is_empty(), "{}: the top reward card is shown", b.name);
        }
    }
    // Errors on the page (uncaught, or reported on the console) are collected and must stay none.
    for b in [ann, bo] {
        b.js("if (!window.__errors) { window.__errors = []; window.addEventListener('error', (e) => window.__errors.push(String(e.message))); const ce = console.error; console.error = (...a) => { window.__errors.push(a.map(String).join(' ')); ce(...a); }; }")
            .await;
    }
    shot(ann, "start-desktop").await;
    shot(bo, "start-phone").await;
    let step = if matches!(id, "quacks" | "hickory_dickory") {
        CLOCK_POT_STEP
    } else if BOARD_GAMES.contains(&id) {
        BOARD_STEP
    } else {
        GENERIC_STEP
    };
    // Hickory Dickory is five hours of twelve ticks, each with several decisions, and Quacks nine rounds of
    // brewing and buying: longer matches.
    let limit = match id {
        "hickory_dickory" => MATCH_LIMIT * 4,
        "quacks" => MATCH_LIMIT * 2,
        _ => MATCH_LIMIT,
    };
    let mut board_clicks = 0;
    let decision = match id {
        "quacks" => ".q-shop-chips",
        "hickory_dickory" => ".hd-choose, .hd-hunt .hd-play, .hd-give",
        _ => "",
    };
    let mut decision_shot = false;
    let start = Instant::now();
    let mut steps: Vec<String> = Vec::new();
    let mut mid_shot = false;
    let mut timer_seen = false;
    loop {
        assert!(
            start.elapsed() < limit,
            "{id}: the match did not end in time; last steps: {steps:?}"
        );
        if !timer_seen {
            for b in [ann, bo] {
                let shown = b
                    .js("const c = document.querySelector('.turn-timer .countdown'); return !!c && /\\d/.test(c.textContent)")
                    .await;
                timer_seen |= shown == json!(true);
            }
        }
        // One more picture of a board decision for review: Quacks' shop, Hickory Dickory's choice of mouse or tile.
        // Looked for before Ann's step, which would take the decision: a decision drawn since her last step is
        // still there (a poll after both steps could miss every shop when the machine is slow).
        if !decision_shot && !decision.is_empty() {
            let shown = ann
                .js(&format!("return !!document.querySelector({})", json!(decision)))
                .await;
            // Quacks' shop is checked on a drawn shop: the buy phase may end between the two scripts (CI once
            // found the shop gone), and then the check waits for the next round's shop.
            let checked = shown == json!(true) && (id != "quacks" || quacks_shop_and_pot_tips(ann).await);
            if checked {
                decision_shot = true;
                shot(ann, "decision-desktop").await;
                // And the players' own boards below (pots of the others; mouse cards, hunt boards).
                ann.js("document.querySelector('.q-others, .hd-player.mine')?.scrollIntoView()")
                    .await;
                shot(ann, "boards-desktop").await;
                ann.js("window.scrollTo(0, 0)").await;
            }
        }
        let mut all_over = true;
        for b in [ann, bo] {
            let did = b.js(step).await;
            let did = did.as_str().unwrap_or("?").to_string();
            if did != "over" {
                all_over = false;
            }
            if did.starts_with("board: ") {
                board_clicks += 1;
            }
            if did != "wait" && did != "over" {
                steps.push(format!("{}: {did}", b.name));
                if steps.len() > 30 {
                    steps.remove(0);
                }
            }
        }
        if all_over {
            break;
        }
        if !mid_shot && start.elapsed() > Duration::from_secs(2) {
            mid_shot = true;
            shot(ann, "mid-desktop").await;
            shot(bo, "mid-phone").await;
            let log = ann.text(".log-list").await;
            assert!(!log.trim().is_empty(), "{id}: the log tells what happened");
        }
        tokio::time::sleep(Duration::from_millis(40)).await;
    }
    assert!(
        decision.is_empty() || decision_shot,
        "{id}: Ann's board decision ({decision}) was drawn and checked during the match"
    );
    let mut results = Vec::new();
    for b in [ann, bo] {
        let outcome = b.text("#outcome table").await;
        for who in ["Ann", "Bo", "Bot 3"] {
            assert!(
                outcome.contains(who),
                "{id} {}: the result lists {who}: {outcome}",
                b.name
            );
        }
        // The players in the order of the result, with every number of their rows (the words are in each
        // page's language).
        results.push(b.js("return [...document.querySelectorAll('#outcome tbody tr')].map(r => [...r.cells].map(c => { const n = c.querySelector('.seat-name'); return n ? n.textContent.trim() : (c.textContent.match(/\\d+/g) || []).join(' '); }).join(' ')).join(' | ')").await);
    }
    assert_eq!(results[0], results[1], "{id}: both players see the same result");
    for b in [ann, bo] {
        let errors = b
            .js("const e = window.__errors || []; window.__errors = []; return e")
            .await;
        assert_eq!(errors, json!([]), "{id} {}: no errors on the page", b.name);
    }
    if step == CLOCK_POT_STEP {
        assert!(
            board_clicks > 10,
            "{id}: the players played on the board itself ({board_clicks} clicks)"
        );
        eprintln!("browser test: {id}: {board_clicks} moves made on the board itself");
    }
    if BOARD_GAMES.contains(&id) {
        for b in [ann, bo] {
            let clicks = b.js("return window.__boardClicks || 0").await;
            assert!(
                clicks.as_u64().unwrap_or(0) > 0,
                "{id} {}: the match was played by clicking the board",
                b.name
            );
            // Every named thing with an effect popover points at it.
            let tips = b
                .js("return [...document.querySelectorAll('.ttip')].every(t => { const p = document.getElementById(t.getAttribute('aria-describedby')); return p && p.textContent.trim().length > 0; })")
                .await;
            assert_eq!(tips, json!(true), "{id} {}: every popover has its text", b.name);
        }
    }
    assert!(timer_seen, "{id}: the turn timer's countdown was shown");
    shot(ann, "result-desktop").await;
    shot(bo, "result-phone").await;
}

/// Matches played at most, to see a mouse card show and to try everything in [`Checks`] (a match to 3 cards can
/// end before it gets to all of it).
const MATCHES: u32 = 4;

/// What the Hide and Eeek! matches must have tried once, whichever match it happened in.
#[derive(Debug, Default)]
struct Checks {
    /// Ann played a card with the keyboard.
    keyboard: bool,
    /// Bo reloaded the page mid-match and got his seat back.
    reload: bool,
    /// A click on an outdated state was refused and the page resynchronised.
    stale: bool,
    /// The server restarted mid-match and both pages took their seats back.
    restart: bool,
    /// The Eeek! claim button showed and was clicked.
    eeek: bool,
}

impl Checks {
    fn done(&self) -> bool {
        self.keyboard && self.reload && self.stale && self.restart && self.eeek
    }
}

/// One lobby and one whole match, trying what `checks` still lacks (keyboard play, a reload, a stale click, a
/// restart) and noting whether the Eeek! claim button showed and was clicked. The first round has a spectator.
async fn one_match(
    base: &str,
    round: u32,
    ann: &Browser,
    bo: &Browser,
    watcher: Option<&Browser>,
    server: &tokio::sync::Mutex<TestServer>,
    checks: &mut Checks,
) {
    let shot = |b: &Browser, name: &str| {
        let name = format!("r{round}-{name}");
        let b = b.client.clone();
        async move {
            if let Ok(png) = b.screenshot().await {
                let _ = std::fs::write(screenshot_dir().join(format!("{name}.png")), png);
            }
        }
    };
    // Ann creates a three-seat game, first to 4 cards, with the shortest Eeek! window.
    ann.client.goto(&format!("{base}/")).await.unwrap();
    ann.wait_for(
        "the create form with the game list",
        "document.querySelector('#create-game option')",
    )
    .await;
    ann.wait_for(
        "the connection",
        "document.querySelector('#conn').dataset.status === 'open'",
    )
    .await;
    let games = ann.text("#create-game").await;
    assert!(
        games.contains("Hide and Eeek!"),
        "the game list names the game: {games}"
    );
    ann.fill("#create-seats", "3").await;
    ann.fill("#opt-target", "4").await;
    // In seconds on the page (the server gets 1000 ms).
    ann.fill("#opt-claim_window_ms", "1").await;
    ann.fill("#create-name", "Ann").await;
    shot(ann, "01-create").await;
    ann.click("button[data-key=create-submit]").await;
    let code = ann
        .wait_for(
            "the lobby code",
            "document.querySelector('#lobby-code')?.innerText",
        )
        .await;
    let code = code.as_str().unwrap().trim().to_string();
    assert!(!code.is_empty());
    let link = ann.js("return document.querySelector('#share-link').href").await;
    assert_eq!(
        link.as_str().unwrap(),
        format!("{base}/#join={code}"),
        "the share link"
    );
    let seats = ann.text(".seats").await;
    assert!(
        seats.contains("Ann") && seats.contains("you"),
        "Ann sits at seat 1: {seats}"
    );
    assert!(
        seats.contains("Waiting for a player"),
        "two seats are free: {seats}"
    );
    let start_disabled = ann
        .js("return document.querySelector('[data-key=start]').disabled")
        .await;
    assert_eq!(
        start_disabled,
        json!(true),
        "start is not offered while seats are empty"
    );
    shot(ann, "02-lobby-host").await;

    // Bo opens the shared link on a phone and joins with a name.
    bo.client.goto(link.as_str().unwrap()).await.unwrap();
    bo.wait_for("the join form", "document.querySelector('.join-only #join-name')")
        .await;
    // The page says who invites to what, and names the code (in groups of four) under it.
    let heading = bo.text("h1").await;
    assert_eq!(
        heading, "Ann invites you to play Hide and Eeek! (2 of 3 seats free)",
        "the join page's invitation"
    );
    let panel = bo.text(".join-only").await.replace('-', "");
    assert!(
        panel.contains(&code),
        "the join page names the game code: {panel}"
    );
    bo.fill(".join-only #join-name", "Bo").await;
    bo.click(".join-only button[data-key=join-submit]").await;
    bo.wait_for(
        "Bo's lobby",
        "document.querySelector('.seats')?.innerText.includes('Bo')",
    )
    .await;
    // The seat fills live on Ann's screen.
    ann.wait_for(
        "Bo in Ann's lobby",
        "document.querySelector('.seats')?.innerText.includes('Bo')",
    )
    .await;
    shot(bo, "03-lobby-guest-phone").await;
    let bo_controls = bo.text(".controls").await;
    assert!(
        bo_controls.contains("Waiting for Ann"),
        "only the host starts: {bo_controls}"
    );

    // A spectator watches by code.
    if let Some(w) = watcher {
        w.client.goto(&format!("{base}/#watch={code}")).await.unwrap();
        w.wait_for(
            "the spectator's lobby",
            "document.querySelector('.seats')?.innerText.includes('Bo')",
        )
        .await;
    }

    // Ann adds a bot to the last seat and starts.
    ann.click("button[data-key=add-bot]").await;
    ann.wait_for(
        "the bot's seat",
        "document.querySelector('.seats')?.innerText.includes('Bot')",
    )
    .await;
    ann.wait_for(
        "start enabled",
        "!document.querySelector('[data-key=start]').disabled",
    )
    .await;
    ann.click("button[data-key=start]").await;
    let everyone: Vec<&Browser> = [Some(ann), Some(bo), watcher].into_iter().flatten().collect();
    for b in &everyone {
        b.wait_for(
            "the Hide and Eeek! grid",
            "document.querySelectorAll('.hee-grid button[data-cell]').length === 36",
        )
        .await;
        let players = b.text(".players").await;
        for name in ["Ann", "Bo", "Bot 3"] {
            assert!(
                players.contains(name),
                "{}: the players panel names {name}: {players}",
                b.name
            );
        }
        let headline = b.text("#headline").await;
        assert!(
            !headline.is_empty(),
            "{}: a headline says whose turn it is",
            b.name
        );
    }
    if let Some(w) = watcher {
        let meta = w.text(".game-meta").await;
        assert!(
            meta.contains("watching"),
            "the spectator is told they watch: {meta}"
        );
        let offered = w
            .js("return document.querySelectorAll('.hee button:not([disabled])').length")
            .await;
        assert_eq!(offered, json!(0), "a spectator is offered no move");
    }
    shot(ann, "04-game-start-desktop").await;
    shot(bo, "05-game-start-phone").await;

    // Play what the page offers. Until it has been done once, Ann's first move is made with the keyboard and Bo reloads
    // the page mid-game.
    let start = Instant::now();
    let mut steps: Vec<String> = Vec::new();
    loop {
        if start.elapsed() > MATCH_LIMIT {
            let mut states = Vec::new();
            for b in [ann, bo] {
                b.shot(&format!("stuck-{}", b.name)).await;
                states.push(b.js("const s = window.tabletop.state; return s && {version: s.version, status: s.status, legal: s.legal_actions, deadline: s.deadline, conn: window.tabletop.connection}").await);
            }
            panic!("the match did not end in time; last steps: {steps:?}; states: {states:?}");
        }
        let mut all_over = true;
        for b in [ann, bo] {
            if !checks.keyboard && b.name == "ann" {
                checks.keyboard = keyboard_move(b).await;
                if checks.keyboard {
                    steps.push("ann: keyboard move".into());
                    shot(b, "06-after-keyboard-move").await;
                }
            }
            let did = b.js(PLAY_ONE_STEP).await;
            let did = did.as_str().unwrap_or("?").to_string();
            if did != "over" {
                all_over = false;
            }
            // The claims' text as the page showed it with the button, read in the same script: read afterwards, the
            // race could already be over (the other player claimed, or its time ran out) and the text gone.
            if let Some(shown) = did.strip_prefix("eeek-showing:") {
                let (moved, race) = shown.split_once(':').unwrap_or(("0", shown));
                assert_eq!(
                    moved, "0",
                    "{}: the Eeek! banner moved the grid by {moved} px",
                    b.name
                );
                assert!(
                    race.contains("Eeek!"),
                    "{}: the claim button says what it does: {race}",
                    b.name
                );
                if !checks.eeek {
                    shot(b, &format!("07-eeek-button-{}", b.name)).await;
                }
                checks.eeek = true;
            }
            if did != "wait" && did != "over" {
                steps.push(format!("{}: {did}", b.name));
                if steps.len() > 40 {
                    steps.remove(0);
                }
            }
        }
        if all_over {
            break;
        }
        // Bo reloads the page: the stored seat token must bring back the same seat and the board.
        let version = bo
            .js("return window.tabletop.state ? window.tabletop.state.version : 0")
            .await;
        if !checks.reload && version.as_u64().unwrap_or(0) >= 4 {
            checks.reload = true;
            let log = bo.text(".log-list").await;
            assert!(log.contains("moved the mouse"), "the log tells the moves: {log}");
            bo.client.refresh().await.unwrap();
            bo.wait_for(
                "the board after a reload",
                "document.querySelectorAll('.hee-grid button[data-cell]').length === 36",
            )
            .await;
            let meta = bo.text(".game-meta").await;
            assert!(
                meta.contains("Bo"),
                "Bo has the same seat after the reload: {meta}"
            );
            let join_form = bo.js("return !!document.querySelector('#join-name')").await;
            assert_eq!(join_form, json!(false), "no join form after a reload");
            shot(bo, "08-after-reload-phone").await;
        }
        // An action chosen on an outdated state is refused with `stale_version`: the page says so in plain words
        // and brings itself up to date (here nothing newer is on its way, so it resynchronises by reconnecting).
        if checks.reload && !checks.stale {
            let version = ann.js(STALE_CLICK).await;
            if let Some(version) = version.as_u64() {
                checks.stale = true;
                ann.wait_for(
                    "the stale-version message",
                    "document.querySelector('#notice:not([hidden])')?.innerText.includes('moved on')",
                )
                .await;
                shot(ann, "09-stale-version-message").await;
                ann.wait_for(
                    "the page back in sync after a stale version",
                    &format!("window.tabletop.state.version >= {version} && window.tabletop.conn.ready"),
                )
                .await;
            }
        }
        // The server restarts: every page says so, reconnects by itself and takes its seat back.
        if checks.stale && !checks.restart {
            checks.restart = true;
            server.lock().await.stop().await;
            for b in [ann, bo] {
                b.wait_for(
                    "the restart message",
                    "document.querySelector('#notice:not([hidden])')?.innerText.match(/restarting|Reconnecting/) && document.querySelector('#conn').dataset.status !== 'open'",
                )
                .await;
            }
            shot(ann, "10-server-restarting").await;
            server.lock().await.start_again().await;
            for b in [ann, bo] {
                b.wait_for(
                    "the page reconnected after the restart",
                    "document.querySelector('#conn').dataset.status === 'open' && window.tabletop.state && document.querySelector('#notice').hidden && (document.querySelectorAll('.hee-grid button[data-cell]').length === 36)",
                )
                .await;
                let meta = b.text(".game-meta").await;
                let who = if b.name == "ann" { "Ann" } else { "Bo" };
                assert!(
                    meta.contains(who),
                    "{}: same seat after the restart: {meta}",
                    b.name
                );
            }
        }
        tokio::time::sleep(Duration::from_millis(60)).await;
    }

    // The result is on every screen and agrees.
    let mut results = Vec::new();
    for b in &everyone {
        b.wait_for("the result", "document.querySelector('#outcome')")
            .await;
        let outcome = b.text("#outcome table").await;
        for name in ["Ann", "Bo", "Bot 3"] {
            assert!(
                outcome.contains(name),
                "{}: the result lists {name}: {outcome}",
                b.name
            );
        }
        assert!(outcome.contains("1st"), "{}: someone is first: {outcome}", b.name);
        // The end is told once (issue 44: Hide and Eeek! logged it twice, its own line and the table's).
        let log = b.text(".log-list").await;
        let ends = b
            .js("return [...document.querySelectorAll('.log-list li')].filter(l => /game over|game is over/i.test(l.textContent)).length")
            .await;
        assert_eq!(ends, json!(1), "{}: the log tells the end once: {log}", b.name);
        results.push(
            b.js("return [...document.querySelectorAll('#outcome tbody tr')].map(r => [...r.cells].map(c => (c.querySelector('.seat-name') || c).textContent.trim()).join(' ')).join(' | ')")
                .await,
        );
    }
    assert!(
        results.windows(2).all(|w| w[0] == w[1]),
        "every screen shows the same result: {results:?}"
    );
    shot(ann, "11-result-desktop").await;
    shot(bo, "12-result-phone").await;
    if let Some(w) = watcher {
        // A spectator has nothing to do at the end: focus is on the result's heading (issue 44: it was in the chat
        // box).
        let focused = w
            .js("const a = document.activeElement; return a ? a.id || a.dataset.key || a.tagName : 'nothing';")
            .await;
        assert_eq!(focused, json!("outcome-h"), "the spectator's focus at the end");
        shot(w, "13-result-spectator").await;
    }
}

/// Plays one move with the keyboard if the page offers one now: focus the first playable card and press Enter.
async fn keyboard_move(b: &Browser) -> bool {
    let playable = b
        .js("return !window.tabletop.busy && !!document.querySelector('.hee-grid button[data-cell]:not([disabled])')")
        .await;
    if playable != json!(true) {
        return false;
    }
    let Ok(cell) = b
        .client
        .find(Locator::Css(".hee-grid button[data-cell]:not([disabled])"))
        .await
    else {
        return false;
    };
    let version = b.js("return window.tabletop.state.version").await;
    if cell.send_keys(&Key::Enter.to_string()).await.is_err() {
        return false;
    }
    b.wait_for(
        "the keyboard move to be played",
        &format!("window.tabletop.state.version > {version}"),
    )
    .await;
    true
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_game_is_played_to_the_end_in_chromium() {
    if !browsers_available("browser test") {
        return;
    }
    let server = TestServer::start_in(common::test_dir("browser"), |config| {
        config.bot_delay_ms = 250;
    })
    .await;
    let addr = server.addr;
    // The client is served at `/` by the same server.
    let base = server.base_url();
    let index = http_get(addr, "/").await;
    assert!(
        index.contains("<script type=\"module\" src=\"/js/app.js\">"),
        "the server does not serve the web client at `/`: mount `web::asset` as the router's fallback in \
         server/src/app.rs. It answered:\n{index}"
    );
    let server = Arc::new(tokio::sync::Mutex::new(server));
    with_chromedriver({
        let server = server.clone();
        |webdriver| async move { run_match(&webdriver, &base, &server).await }
    })
    .await;
    let server = Arc::try_unwrap(server).expect("the test holds the only handle to the server");
    server.into_inner().finish().await;
}

/// Quacks, while Ann buys: every chip in the shop shows its price and every purchase its cost, from the view's
/// `prices` (the engine's), with her coins in the heading; each pot's scoring line fits its brew (stopped or
/// exploded, never "stopping now" once buying); a chip in a pot tells what it is and does on keyboard focus and
/// on tap, not only on hover. Returns false, having checked nothing, when the shop is no longer drawn.
async fn quacks_shop_and_pot_tips(ann: &Browser) -> bool {
    // One script reads the view and the page as one render drew them; it answers null if that render has no shop.
    let shop = ann
        .js(r#"
if (!document.querySelector('.q-shop-chips')) return null;
const view = window.tabletop.state.view;
const me = view.players.find((p) => p.seat === window.tabletop.session.seat);
const price = (c) => view.prices.find((p) => p.chip.colour === c.colour && p.chip.value === c.value)?.price;
const problems = [];
if (!view.prices || view.prices.length !== 15) problems.push('prices in the view: ' + JSON.stringify(view.prices));
const heading = document.querySelector('.shop h4')?.textContent || '';
if (!heading.includes(String(me.coins))) problems.push('coins in the heading: ' + heading);
const labels = [...document.querySelectorAll('.q-shop-chips .q-price')].map((p) => p.textContent);
if (!labels.length || !labels.every((l) => /^\d+ coins?$/.test(l))) problems.push('chip prices: ' + JSON.stringify(labels));
for (const a of window.tabletop.state.legal_actions.filter((a) => a.type === 'buy')) {
  const cost = a.chips.map(price).reduce((x, y) => x + y, 0);
  const button = document.querySelector(`[data-key="${CSS.escape('q-' + JSON.stringify(a))}"]`);
  if (!button || !button.textContent.includes(`for ${cost} coins`)) problems.push(`cost ${cost}: ${button?.textContent}`);
}
// Each pot's scoring line fits how its brew ended: a stopped pot scores, an exploded one chooses.
const opening = { brewing: 'Stopping now scores', stopped: 'This pot scores', exploded: 'Exploded: ' };
for (const p of view.players) {
  const text = document.querySelector(`.quacks-board[data-seat="${p.seat}"] .pot-facts`)?.textContent || '';
  if (p.brew === 'brewing' || !text.startsWith(opening[p.brew])) problems.push(`pot facts of a ${p.brew} pot: ${text}`);
}
return problems;
"#)
        .await;
    if shop.is_null() {
        return false;
    }
    assert_eq!(shop, json!([]), "quacks: the shop shows prices and coins");
    let tip = ann
        .js(r#"
const trigger = document.querySelector('.q-pot-chip .info-tip-trigger');
if (!trigger) return 'no chip in any pot';
const tip = document.getElementById(trigger.getAttribute('aria-describedby'));
const shown = () => getComputedStyle(tip).display !== 'none';
const before = tip.closest('.info-tip').classList.contains('open');
trigger.focus();
const onFocus = document.activeElement === trigger && shown();
trigger.blur();
trigger.click();
const onTap = tip.closest('.info-tip').classList.contains('open') && shown();
trigger.click();
return [before, onFocus, onTap, /\d/.test(tip.textContent) && tip.textContent.length > 30];
"#)
        .await;
    assert_eq!(
        tip,
        json!([false, true, true, true]),
        "quacks: a chip in a pot explains itself on focus and tap"
    );
    true
}
