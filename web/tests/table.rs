//! Issue 44, point 2 ("At the table") in Chromium: what a person meets at the table.
//!
//! - Every game's create form offers two seats by default (Hickory Dickory offered one), and a joiner who opens the
//!   link of a full lobby is told so before any form, with the choice to watch instead of a Join that is refused.
//!
//! - A tooltip on the board (a Hickory Dickory mouse) draws above the board pieces around it, and closes by itself
//!   under a resting pointer.
//!
//! - The log tells the viewer's own moves as sentences in every language ("Dobierasz …"), not "You:" and the
//!   verb of a third person ("Ty: dobiera …"), in Quacks and Hickory Dickory.
//!
//! - Molehills: a corner chosen with the keyboard moves focus to the facing buttons; the field has a legend for the
//!   circled heights; a half-built plan survives a reload.
//!
//! Needs `chromium` and `chromedriver` on PATH; without them the test says so and passes, unless `CI` is set.

mod common;

use std::time::Duration;

use common::{Browser, TestServer, browsers_available, with_chromedriver};
use fantoccini::Locator;
use fantoccini::actions::{InputSource, MouseActions, PointerAction};
use fantoccini::key::Key;
use serde_json::{Value, json};

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

/// Creates a lobby of `game` with the seats offered, fills it with a bot and starts it; returns the lobby code.
async fn start_against_a_bot(b: &Browser, base: &str, game: &str) -> String {
    b.goto(&format!("{base}/")).await;
    b.wait_for("the create form", "document.querySelector('#create-game option')")
        .await;
    choose_game(b, game).await;
    b.fill("#create-name", "Ann").await;
    b.click("button[data-key=create-submit]").await;
    let code = b
        .wait_for(
            "the lobby code",
            "document.querySelector('#lobby-code')?.innerText",
        )
        .await;
    b.click("button[data-key=add-bot]").await;
    b.wait_for(
        "the start button",
        "document.querySelector('button[data-key=start]:not([disabled])')",
    )
    .await;
    b.click("button[data-key=start]").await;
    code.as_str().unwrap().trim().replace('-', "")
}

/// Moves the mouse pointer onto the middle of the element matching `selector` (found again if a redraw replaced
/// it on the way).
async fn hover(b: &Browser, selector: &str) {
    let mut last = String::new();
    for _ in 0..10 {
        let element = b
            .client
            .find(Locator::Css(selector))
            .await
            .unwrap_or_else(|e| panic!("{}: {selector} is on the page: {e}", b.name));
        let moves = MouseActions::new("mouse".into()).then(PointerAction::MoveToElement {
            element,
            duration: None,
            x: 0.0,
            y: 0.0,
        });
        match b.client.perform_actions(moves).await {
            Ok(()) => return,
            Err(e) => last = e.to_string(),
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("{}: moves the pointer onto {selector}: {last}", b.name);
}

/// For the tooltip of `#tip-under-test`'s trigger: whether it shows, and the board pieces (spaces, mice) that
/// overlap it, each with whether the tooltip draws above it there.
const TIP_OVER_BOARD: &str = r#"
const trigger = document.querySelector('[data-test=tip-under-test]');
const tip = document.getElementById(trigger.getAttribute('aria-describedby'));
const shown = getComputedStyle(tip).display !== 'none';
if (!shown) return { shown, overlaps: [] };
const r = tip.getBoundingClientRect();
const overlaps = [];
for (const piece of document.querySelectorAll('.hd-outer, .hd-inner, .hd-hub')) {
  if (piece.contains(trigger)) continue;
  const p = piece.getBoundingClientRect();
  const x0 = Math.max(r.left, p.left), x1 = Math.min(r.right, p.right);
  const y0 = Math.max(r.top, p.top), y1 = Math.min(r.bottom, p.bottom);
  if (x1 - x0 < 4 || y1 - y0 < 4) continue;
  const top = document.elementFromPoint((x0 + x1) / 2, (y0 + y1) / 2);
  overlaps.push(tip.contains(top));
}
return { shown, overlaps };
"#;

/// Marks the clock's mouse whose tooltip, shown, overlaps the most board pieces that come after it on the page.
const PICK_MOUSE: &str = r#"
const pieces = [...document.querySelectorAll('.hd-outer, .hd-inner, .hd-hub')];
let best = null, most = -1;
for (const trigger of document.querySelectorAll('.hd-clock .hd-mouse > .info-tip-trigger')) {
  const wrap = trigger.parentElement;
  wrap.classList.add('open');
  const r = wrap.querySelector('.info-tip-text').getBoundingClientRect();
  wrap.classList.remove('open');
  const n = pieces.filter((p) => {
    if (p.contains(trigger) || !(trigger.compareDocumentPosition(p) & Node.DOCUMENT_POSITION_FOLLOWING)) return false;
    const q = p.getBoundingClientRect();
    return Math.min(r.right, q.right) - Math.max(r.left, q.left) > 4 && Math.min(r.bottom, q.bottom) - Math.max(r.top, q.top) > 4;
  }).length;
  if (n > most) { most = n; best = trigger; }
}
best.dataset.test = 'tip-under-test';
return most;
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_board_tooltip_draws_above_the_board_and_closes_under_a_resting_pointer() {
    if !browsers_available("table test") {
        return;
    }
    let server = TestServer::start_in(common::test_dir("table-tips"), |config| {
        config.bot_delay_ms = 50;
    })
    .await;
    let base = server.base_url();
    with_chromedriver(move |webdriver| async move {
        let ann = Browser::open(&webdriver, "table-tips", 1280, 1000, false).await;
        start_against_a_bot(&ann, &base, "hickory_dickory").await;
        ann.wait_for(
            "the clock",
            "document.querySelector('.hd-clock .hd-mouse > .info-tip-trigger')",
        )
        .await;
        // Ann's turn: the board stays as it is until she moves.
        ann.wait_for(
            "Ann's turn",
            "window.tabletop.state?.legal_actions?.length > 0 && document.querySelector('.hd-clock')",
        )
        .await;
        tokio::time::sleep(Duration::from_millis(300)).await;
        // The mouse whose tooltip lies over the most board pieces drawn after it (those drew over it).
        ann.js(PICK_MOUSE).await;
        hover(&ann, "[data-test=tip-under-test]").await;
        let seen: Value = ann
            .wait_for(
                "the mouse's tooltip",
                &format!("(() => {{ const v = (() => {{ {TIP_OVER_BOARD} }})(); return v.shown && v; }})()"),
            )
            .await;
        let overlaps = seen["overlaps"].as_array().unwrap();
        assert!(
            !overlaps.is_empty(),
            "the tooltip lies over other board pieces: {seen}"
        );
        assert!(
            overlaps.iter().all(|o| o == &json!(true)),
            "the tooltip draws above every board piece it overlaps: {seen}"
        );
        // The pointer rests: the tooltip closes by itself, and stays closed while the pointer stays.
        tokio::time::sleep(Duration::from_millis(4500)).await;
        let later = ann.js(TIP_OVER_BOARD).await;
        assert_eq!(
            later["shown"],
            json!(false),
            "the tooltip closed under the resting pointer"
        );
        // The board is drawn anew under the resting pointer (here after a dropped connection): the tooltip stays
        // closed.
        ann.js("document.querySelector('.hd-clock').dataset.old = '1'; window.tabletop.conn.socket.close(); return true")
            .await;
        ann.wait_for(
            "the board drawn again",
            "!document.querySelector('.hd-clock[data-old]') && window.tabletop.connection.status === 'open' && document.querySelector('.hd-clock')",
        )
        .await;
        tokio::time::sleep(Duration::from_millis(500)).await;
        let open = ann
            .js("return [...document.querySelectorAll('.info-tip-text, .ttip-pop')].filter(p => getComputedStyle(p).display !== 'none').map(p => p.textContent)")
            .await;
        assert_eq!(open, json!([]), "a redraw under the resting pointer opened no tooltip");
        ann.close().await;
    })
    .await;
    server.finish().await;
}

/// Each language's log lines for the viewer's own moves in Quacks and Hickory Dickory, as the log shows them
/// (`describe`, then `yourWords`), with the problems found: "You:" followed by a verb, a placeholder left, or the
/// same words as another player's line (outside English, where the two agree).
const OWN_LINES: &str = r#"
const { setLang, t } = await import('/js/i18n.js');
const { screenContext } = await import('/js/games/index.js');
const { yourWords } = await import('/js/app.js');
const quacks = (await import('/js/games/quacks.js')).default;
const hickory = (await import('/js/games/hickory.js')).default;
const chip = { colour: 'orange', value: 1 };
const events = [
  [quacks, { type: 'placed', seat: 0, chip, space: 5, whites: 2 }],
  [quacks, { type: 'exploded', seat: 0 }],
  [quacks, { type: 'stopped', seat: 0 }],
  [quacks, { type: 'scoring', seat: 0, space: 12, coins: 12, points: 2, exploded: false }],
  [quacks, { type: 'bought', seat: 0, chips: [chip] }],
  [quacks, { type: 'chose', seat: 0, choice: { option: 'four_points' } }],
  [hickory, { type: 'boarded', seat: 0, mouse: 'scurrier' }],
  [hickory, { type: 'hunt_marked', seat: 0, row: 0, col: 1 }],
  [hickory, { type: 'favour_taken', seat: 0 }],
];
const lines = {}, problems = [];
for (const lang of ['en', 'pl', 'es', 'it', 'ro']) {
  setLang(lang);
  const you = t('common.you');
  const mine = screenContext({ state: { view: {} }, names: ['Ann', 'Bo'], me: 0, act: () => {}, rerender: () => {} });
  const theirs = screenContext({ state: { view: {} }, names: ['Ann', 'Bo'], me: 1, act: () => {}, rerender: () => {} });
  lines[lang] = [];
  for (const [screen, e] of events) {
    const own = yourWords(screen.describe(e, mine));
    const other = yourWords(screen.describe(e, theirs));
    lines[lang].push(own);
    if (own.toLocaleLowerCase().includes(`${you.toLocaleLowerCase()}:`)) problems.push(`${lang} ${e.type}: "You:" in ${own}`);
    if (/[{}]/.test(own)) problems.push(`${lang} ${e.type}: a placeholder in ${own}`);
    if (lang !== 'en' && own === other.replace('Ann', you)) problems.push(`${lang} ${e.type}: worded as another player's line: ${own}`);
  }
}
setLang('en');
return { lines, problems };
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_log_words_the_viewers_own_moves_as_sentences_in_every_language() {
    if !browsers_available("table test") {
        return;
    }
    let server = TestServer::start_in(common::test_dir("table-log"), |_| {}).await;
    let base = server.base_url();
    with_chromedriver(move |webdriver| async move {
        let b = Browser::open(&webdriver, "table-log", 1000, 800, false).await;
        b.goto(&format!("{base}/")).await;
        b.wait_for("the start page", "document.querySelector('#create-game option')")
            .await;
        let seen = b.js(OWN_LINES).await;
        assert_eq!(seen["problems"], json!([]), "own log lines: {seen}");
        assert_eq!(
            seen["lines"]["pl"][0],
            json!("Dobierasz pomarańczowy 1 na pole 5 (wisienki-bomby: 2)."),
            "{seen}"
        );
        assert_eq!(seen["lines"]["en"][1], json!("Your pot exploded!"), "{seen}");
        b.close().await;
    })
    .await;
    server.finish().await;
}

/// Presses Enter on what has focus.
async fn press_enter(b: &Browser) {
    let el = b.client.active_element().await.unwrap();
    el.send_keys(&Key::Enter.to_string())
        .await
        .unwrap_or_else(|e| panic!("{}: presses Enter: {e}", b.name));
}

/// The plan being built: the ids of the cards chosen so far, in their order.
const PLAN: &str = "return [...document.querySelectorAll('.planner [data-plan][aria-pressed=true]')].map(c => [Number(c.querySelector('.order-badge')?.textContent), c.dataset.plan]).sort((a, b) => a[0] - b[0]).map(p => p[1])";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn molehills_focus_moves_to_facing_the_field_has_a_legend_and_a_plan_survives_a_reload() {
    if !browsers_available("table test") {
        return;
    }
    let server = TestServer::start_in(common::test_dir("table-molehills"), |config| {
        config.bot_delay_ms = 50;
    })
    .await;
    let base = server.base_url();
    with_chromedriver(move |webdriver| async move {
        let b = Browser::open(&webdriver, "table-molehills", 1280, 1000, false).await;
        start_against_a_bot(&b, &base, "molehills").await;

        // The legend says what the circled number, the dashed line and a layer's number mean.
        let legend = b
            .wait_for("the field's legend", "document.querySelector('[data-key=mh-legend]')?.innerText")
            .await;
        let legend = legend.as_str().unwrap();
        assert!(legend.contains("Circled number"), "the legend names the circled height: {legend}");
        assert!(legend.contains("height limit"), "the legend names the dashed line: {legend}");
        let circle = b.js("return !!document.querySelector('[data-key=mh-legend] svg circle')").await;
        assert_eq!(circle, json!(true), "the legend draws the circled number as the field does");

        // A corner chosen with the keyboard: focus moves to the way the mole faces, and Enter places it.
        b.wait_for("a free corner to choose", "document.querySelector('[data-act=corner]:not([disabled])')")
            .await;
        b.js("document.querySelector('[data-act=corner]:not([disabled])').focus(); return true").await;
        press_enter(&b).await;
        let focus = b
            .wait_for("focus after the corner", "document.querySelector('[data-key^=facing-]') && (document.activeElement?.dataset.key || document.activeElement?.tagName)")
            .await;
        assert!(focus.as_str().unwrap().starts_with("facing-"), "focus is on a facing button: {focus}");
        press_enter(&b).await;

        // The draft: pick whenever it is this seat's turn, until the planning.
        let start = std::time::Instant::now();
        while b.js("return !document.querySelector('.planner [data-plan]')").await == json!(true) {
            assert!(start.elapsed() < Duration::from_secs(90), "the planning comes");
            b.js("const p = document.querySelector('[data-act=pick]:not([disabled])'); if (p) p.click(); return true").await;
            tokio::time::sleep(Duration::from_millis(300)).await;
        }

        // Two cards of the plan chosen, then the page is reloaded: the half-built plan is still there.
        b.js("const cards = [...document.querySelectorAll('.planner [data-plan]')]; cards[2].click(); return true").await;
        b.wait_for("one card planned", "document.querySelectorAll('.planner [aria-pressed=true]').length === 1").await;
        b.js("document.querySelectorAll('.planner [data-plan]')[0].click(); return true").await;
        b.wait_for("two cards planned", "document.querySelectorAll('.planner [aria-pressed=true]').length === 2").await;
        let before = b.js(PLAN).await;
        b.client.refresh().await.unwrap();
        b.wait_for("the planner after the reload", "document.querySelector('.planner [data-plan]')").await;
        let after = b.js(PLAN).await;
        assert_eq!(after, before, "the half-built plan survived the reload");

        // The plan is finished and sent; once the round moves on to digging, the kept plan is dropped.
        b.js("for (const c of document.querySelectorAll('.planner [data-plan][aria-pressed=false]')) c.click(); return true").await;
        b.wait_for("the whole plan", "document.querySelector('[data-key=plan-send]:not([disabled])')").await;
        b.click("[data-key=plan-send]").await;
        b.wait_for(
            "the kept plan dropped after the planning",
            "!document.querySelector('.planner') && !Object.keys(sessionStorage).some(k => k.startsWith('tabletop.molehills.plan'))",
        )
        .await;
        b.close().await;
    })
    .await;
    server.finish().await;
}
