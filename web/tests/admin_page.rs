//! Browser test of the admin page (`/admin.html`): a real server with an admin token (in this process, SQLite in
//! a file, the system clock) holding a match between a person and a bot, and headless Chromium through
//! chromedriver. A wrong token is refused; with the right one the page lists the match, inspects it (seats, the
//! step slider as a spectator, a seat and the complete state, the action log) and aborts it through the form, after
//! which the status and the audit log on the page say so. For each of the five games a match played a few steps
//! is replayed at its first, a middle and its last step as seat 0 and as a spectator: the game's own board is drawn
//! (its grid, picture, field, pot or clock, not empty), nothing is logged on the console, and the step's JSON is
//! one click away. In cluster mode (nodes on a PostgreSQL database of the test's own) the list and the inspector
//! show each table's owner node and lease epoch.
//!
//! Needs `chromium` and `chromedriver` on PATH (and the cluster test `TEST_DATABASE_URL`); without them a test
//! says so and passes, unless `CI` is set.

mod common;

use common::{Browser, TestServer, browsers_available, with_chromedriver};
use serde_json::{Value, json};

const ADMIN_TOKEN: &str = "admin-page-test-token-0123456789";
const CODE: &str = "ADMNPQ";

/// Stores a lobby with a person at seat 0 and a bot at seat 1, and its started match, as the server would.
async fn seed_match(url: &str) -> String {
    let store = server::Store::connect(url).await.unwrap();
    let game = "hide_and_eeek";
    let options = rules::normalise_config(game, &json!({})).unwrap();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    let lobby = server::store::LobbyRecord {
        code: CODE.into(),
        game: game.into(),
        options: options.clone(),
        seat_count: 2,
        host_seat: 0,
        turn_timer_ms: None,
        phase: server::store::Phase::Open,
        created_at: now,
        absent_policy: "wait".into(),
        absent_grace_ms: 0,
        rules_version: None,
        rematch_of: None,
        pace: Default::default(),
    };
    let human = server::store::SeatRecord {
        seat: 0,
        kind: server::store::SeatKind::Human,
        name: "Ann".into(),
        token_hash: Some(server::secrets::token_hash("not a real token")),
    };
    store.create_lobby(&lobby, &human).await.unwrap();
    let bot = server::store::SeatRecord {
        seat: 1,
        kind: server::store::SeatKind::Bot,
        name: "Bot 2".into(),
        token_hash: None,
    };
    store.insert_seat(CODE, &bot).await.unwrap();
    let info = rules::catalogue().into_iter().find(|g| g.id == game).unwrap();
    let match_id = server::secrets::match_id();
    let record = server::store::MatchRecord {
        id: match_id.clone(),
        game: game.into(),
        options,
        players: 2,
        seed: 7,
        rules_version: info.rules_version,
        started_at: now,
        finished: false,
        to_decide: None,
    };
    store.start_match(CODE, &record).await.unwrap();
    store.close().await;
    match_id
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_admin_page_lists_inspects_and_aborts_a_match() {
    if !browsers_available("admin page test") {
        return;
    }
    let dir = common::test_dir("admin-page");
    let match_id = seed_match(&TestServer::db_url_in(&dir)).await;
    let server = TestServer::start_in(dir, |config| {
        config.bot_delay_ms = 50;
        config.admin_token = Some(server::admin::AdminToken::parse(ADMIN_TOKEN).unwrap());
    })
    .await;
    let base = server.base_url();
    with_chromedriver(|webdriver| async move {
        let page = Browser::open(&webdriver, "admin", 1280, 1000, false).await;
        page.goto(&format!("{base}/admin.html")).await;
        // A wrong token is refused and asked for again.
        page.wait_for("the token form", "document.querySelector('#token')").await;
        page.fill("#token", "a-wrong-token-of-enough-length").await;
        page.js("document.querySelector('form button[type=submit]').click()").await;
        page.wait_for(
            "the refusal",
            "document.querySelector('#notice').innerText.includes('not the admin token')",
        )
        .await;
        // The right one shows the list with the match.
        page.fill("#token", ADMIN_TOKEN).await;
        page.js("document.querySelector('form button[type=submit]').click()").await;
        page.wait_for(
            "the match in the list",
            &format!("document.querySelector('#list table') && document.querySelector('#list').innerText.includes('{CODE}')"),
        )
        .await;
        // A single node has no owners to show.
        let header = page.js("return document.querySelector('#list thead').innerText").await;
        assert!(!header.as_str().unwrap().contains("Owner"), "{header}");
        // Filtering by a name nobody has empties the list.
        page.fill("#f-player", "nobody-has-this-name").await;
        page.js("document.querySelector('#list form button[type=submit]').click()").await;
        page.wait_for(
            "an empty list",
            "document.querySelector('#list').innerText.includes('Nothing matches')",
        )
        .await;
        page.fill("#f-player", "ann").await;
        page.js("document.querySelector('#list form button[type=submit]').click()").await;
        page.wait_for("the match again", "document.querySelector('#list table button')")
            .await;
        // Inspect it: seats, the step slider as a seat and as the complete state.
        page.js("document.querySelector('#list table button').click()").await;
        page.wait_for(
            "the inspector",
            &format!("document.querySelector('#inspector h2') && document.querySelector('#inspector h2').innerText.includes('{CODE}')"),
        )
        .await;
        let seats = page
            .js("return document.querySelector('#inspector').innerText")
            .await;
        let seats = seats.as_str().unwrap();
        assert!(seats.contains("Ann") && seats.contains("Bot 2"), "{seats}");
        assert!(seats.contains(&match_id), "{seats}");
        // The replay opens as a spectator saw the match, drawn by the game's own screen.
        page.wait_for(
            "the spectator's board",
            "document.querySelector('#inspector .replay-board[data-viewer=spectator] .hee')",
        )
        .await;
        page.js("const v = document.querySelector('#viewer'); v.value = 'full'; v.dispatchEvent(new Event('change'));")
            .await;
        page.wait_for(
            "the complete state",
            "document.querySelector('#inspector').innerText.includes('has no board') && document.querySelector('#inspector pre.json')",
        )
        .await;
        page.js("const v = document.querySelector('#viewer'); v.value = '0'; v.dispatchEvent(new Event('change'));")
            .await;
        page.wait_for(
            "seat 0's board",
            "document.querySelector('#inspector .replay-board[data-viewer=\"0\"] .hee')",
        )
        .await;
        page.js("const s = document.querySelector('#step'); s.value = '0'; s.dispatchEvent(new Event('input'));")
            .await;
        page.wait_for(
            "step 0",
            "document.querySelector('#inspector').innerText.includes('Step 0: the start')",
        )
        .await;
        // Abort it through the form.
        page.js("[...document.querySelectorAll('#inspector button')].find(b => b.innerText === 'Abort the match').click()")
            .await;
        page.wait_for("the action form", "document.querySelector('.act-form')").await;
        page.js(
            "const f = document.querySelector('.act-form'); const [by, why] = f.querySelectorAll('input'); \
             by.value = 'Root'; why.value = 'testing the page'; f.querySelector('button[type=submit]').click();",
        )
        .await;
        page.wait_for(
            "the aborted status",
            "document.querySelector('#inspector').innerText.includes('aborted: testing the page')",
        )
        .await;
        page.wait_for(
            "the audit entry",
            "document.querySelector('#audit-all').innerText.includes('Root') && document.querySelector('#audit-all').innerText.includes('abort')",
        )
        .await;
        page.close().await;
    })
    .await;
    server.finish().await;
}

/// Collects the page's console errors and uncaught errors in `window.__errors`.
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

/// What each game's screen draws as its board (the Hide and Eeek! card grid, the New Year picture, the Molehills
/// field, the Quacks pot, the Hickory Dickory clock), each holding drawn elements.
const BOARDS: &[(&str, &str)] = &[
    ("hide_and_eeek", ".hee-grid"),
    ("new_year_puzzle", ".ny-board"),
    ("molehills", ".mh-grid"),
    ("quacks", ".q-pot-svg"),
    ("hickory_dickory", ".hd-clock-svg"),
];

/// Shows `step` as `viewer` (a seat number or "spectator") and waits until the board of that step is drawn.
async fn show_step(page: &Browser, step: usize, viewer: &str) {
    page.js(&format!(
        "const v = document.querySelector('#viewer'); v.value = '{viewer}'; v.dispatchEvent(new Event('change')); \
         const s = document.querySelector('#step'); s.value = '{step}'; s.dispatchEvent(new Event('input'));"
    ))
    .await;
    page.wait_for(
        &format!("step {step} as {viewer}"),
        &format!(
            "document.querySelector('#inspector .replay-board[data-viewer=\"{viewer}\"]') && \
             document.querySelector('#inspector').innerText.includes('Step {step}:')"
        ),
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_admin_replay_draws_every_games_board_as_each_viewer_saw_it() {
    use integration_tests::{Time, play, start_match};
    if !browsers_available("admin replay test") {
        return;
    }
    let server = TestServer::start_in(common::test_dir("admin-replay"), |config| {
        config.bot_delay_ms = 20;
        config.admin_token = Some(server::admin::AdminToken::parse(ADMIN_TOKEN).unwrap());
    })
    .await;
    let games: Vec<String> = rules::catalogue().into_iter().map(|g| g.id.to_string()).collect();
    assert_eq!(
        games.len(),
        BOARDS.len(),
        "a board to look for in every game: {games:?}"
    );
    // A person at seat 0 and a bot at seat 1 play a few steps of every game; they stay seated while the admin looks.
    let mut tables = Vec::new();
    for (i, game) in games.iter().enumerate() {
        let (code, mut players) = start_match(server.addr, game, json!({}), 2, 1).await;
        let played = play(&mut players, &Time::Real, 40 + i as u64, 4).await;
        let steps = played.last_state["version"].as_u64().unwrap() as usize;
        assert!(
            steps >= 2,
            "{game}: a few steps were played: {}",
            played.last_state
        );
        tables.push((game.clone(), code, steps, players));
    }
    let shown: Vec<(String, String, usize)> = tables
        .iter()
        .map(|(game, code, steps, _)| (game.clone(), code.clone(), *steps))
        .collect();
    let base = server.base_url();
    with_chromedriver(|webdriver| async move {
        let page = Browser::open(&webdriver, "admin-replay", 1280, 1000, false).await;
        page.goto(&format!("{base}/admin.html")).await;
        page.js(ERRORS_HOOK).await;
        page.wait_for("the token form", "document.querySelector('#token')").await;
        page.fill("#token", ADMIN_TOKEN).await;
        page.js("document.querySelector('form button[type=submit]').click()").await;
        page.wait_for("the list", "document.querySelector('#list tbody')").await;
        let mut offered = 0;
        for (game, code, steps) in shown {
            let board = BOARDS.iter().find(|(g, _)| *g == game).map(|(_, b)| *b).unwrap();
            page.js(&format!(
                "[...document.querySelectorAll('#list tbody tr')].find(tr => tr.cells[0].innerText === '{code}')\
                 .querySelector('button').click()"
            ))
            .await;
            page.wait_for(
                &format!("the inspector of {game}"),
                &format!("document.querySelector('#inspector h2') && document.querySelector('#inspector h2').innerText.includes('{code}')"),
            )
            .await;
            for step in [0, steps / 2, steps] {
                for viewer in ["0", "spectator"] {
                    show_step(&page, step, viewer).await;
                    let drawn: Value = page
                        .js(&format!(
                            "const box = document.querySelector('#inspector .replay-board'); \
                             const b = box.querySelector({board:?}); \
                             return {{ board: !!b && b.children.length > 0 && b.getBoundingClientRect().height > 0, \
                               failed: box.innerText.includes('could not be drawn'), \
                               notice: document.querySelector('#notice').hidden ? '' : document.querySelector('#notice').innerText, \
                               errors: window.__errors }};"
                        ))
                        .await;
                    assert_eq!(
                        drawn,
                        json!({ "board": true, "failed": false, "notice": "", "errors": [] }),
                        "{game} at step {step} of {steps} as {viewer}"
                    );
                    // The JSON is folded away, one click from the board.
                    let folded = page
                        .js("const d = document.querySelector('#inspector details.replay-json'); \
                             return !!d && !d.open && !d.innerText.includes('legal_actions');")
                        .await;
                    assert_eq!(folded, json!(true), "{game} at step {step} as {viewer}: the JSON is folded");
                    page.click("#inspector details.replay-json > summary").await;
                    page.wait_for(
                        &format!("{game}'s JSON at step {step} as {viewer}"),
                        "document.querySelector('#inspector details.replay-json').innerText.includes('legal_actions')",
                    )
                    .await;
                    // Folded again, it stays folded at the next step.
                    page.click("#inspector details.replay-json > summary").await;
                    page.wait_for(
                        &format!("{game}'s JSON folded again at step {step} as {viewer}"),
                        "!document.querySelector('#inspector details.replay-json').open",
                    )
                    .await;
                }
            }
            // Opened, the JSON stays open from step to step.
            page.click("#inspector details.replay-json > summary").await;
            show_step(&page, steps / 2, "0").await;
            let open = page
                .js("const d = document.querySelector('#inspector details.replay-json'); \
                     return d.open && d.innerText.includes('legal_actions');")
                .await;
            assert_eq!(open, json!(true), "{game}: the JSON stays open at the next step");
            page.click("#inspector details.replay-json > summary").await;
            // A move offered on the seat's board plays nothing: the page says it is a replay, the board stays.
            show_step(&page, 0, "0").await;
            let clicked = page
                .js("const b = document.querySelector('#inspector .replay-board [data-act]:not([disabled]):not([data-local])'); \
                     if (!b) return false; b.click(); return true;")
                .await;
            if clicked == json!(true) {
                offered += 1;
                page.wait_for(
                    &format!("{game}: the replay's answer to a move"),
                    "!document.querySelector('#notice').hidden && document.querySelector('#notice').innerText.includes('nothing can be played')",
                )
                .await;
                let still = page
                    .js("return !!document.querySelector('#inspector .replay-board[data-viewer=\"0\"]') && document.querySelector('#step').value === '0'")
                    .await;
                assert_eq!(still, json!(true), "{game}: the replay stays at step 0");
                // Dismissed, as the admin would read and leave it.
                page.js("document.querySelector('#notice').hidden = true").await;
            }
            // A choice that stays on the board (a corner, a chip, a mouse picked) redraws it there.
            let redrawn = page
                .js(&format!(
                    "const b = document.querySelector('#inspector .replay-board [data-local]:not([disabled])'); \
                     if (!b) return null; b.click(); \
                     const box = document.querySelector('#inspector .replay-board[data-viewer=\"0\"]'); \
                     return !!box && !!box.querySelector({board:?}) && !box.innerText.includes('could not be drawn') \
                       && document.querySelector('#notice').hidden;"
                ))
                .await;
            assert!(redrawn != json!(false), "{game}: a choice on the replayed board redraws it");
            page.js("document.querySelector('#inspector .replay-board').scrollIntoView()").await;
            page.shot(&format!("admin-replay-{game}")).await;
        }
        assert!(offered > 0, "some seat was offered a move at the start of its match");
        let errors = page.js("return window.__errors").await;
        assert_eq!(errors, json!([]), "console errors on the admin page");
        page.close().await;
    })
    .await;
    drop(tables);
    server.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_admin_page_shows_each_tables_owner_node_and_epoch_in_cluster_mode() {
    use integration_tests::{Client as Ws, cluster, req, start_match};
    if !browsers_available("admin page cluster test") {
        return;
    }
    let Some(cl) = cluster::TestCluster::new().await else {
        return;
    };
    let a = cl.node("node-a", 60_000).await;
    let b = cl.node("node-b", 60_000).await;
    // A match of node A's own (epoch 1), and a lobby node B made and handed over on stopping, which node A then
    // claimed (epoch 2).
    let (first, _players) = start_match(a.addr, "hide_and_eeek", json!({}), 2, 1).await;
    let mut host = Ws::hello(b.addr).await;
    let created = host.request(req::create_lobby("molehills", 2, "Bea")).await;
    assert_eq!(created["type"], "seated", "{created}");
    let second = created["code"].as_str().unwrap().to_string();
    b.stop().await;
    let mut host = Ws::hello(a.addr).await;
    let resumed = host
        .request(req::resume(&second, created["seat_token"].as_str().unwrap()))
        .await;
    assert_eq!(resumed["type"], "resumed", "{resumed}");
    assert_eq!(cl.lease(&second).await, (cl.id("node-a"), 2));

    let base = format!("http://{}", a.addr);
    let owner = cl.id("node-a");
    with_chromedriver(|webdriver| async move {
        let page = Browser::open(&webdriver, "admin-cluster", 1280, 1000, false).await;
        page.goto(&format!("{base}/admin.html")).await;
        page.wait_for("the token form", "document.querySelector('#token')").await;
        page.fill("#token", cluster::ADMIN_TOKEN).await;
        page.js("document.querySelector('form button[type=submit]').click()").await;
        page.wait_for("the list", "document.querySelector('#list tbody')").await;
        // The Owner column: each row's node, epoch and lease.
        let rows = page
            .js(
                "const cols = [...document.querySelectorAll('#list thead th')].map(th => th.innerText); \
                 const at = cols.indexOf('Owner'); \
                 return [...document.querySelectorAll('#list tbody tr')].map(tr => \
                   [tr.cells[0].innerText, at < 0 ? null : tr.cells[at].innerText]);",
            )
            .await;
        let rows: Vec<(String, Option<String>)> = serde_json::from_value(rows).unwrap();
        let of = |code: &str| rows.iter().find(|(c, _)| c == code).and_then(|(_, o)| o.clone());
        assert_eq!(of(&first), Some(format!("{owner}, epoch 1, lease live")), "{rows:?}");
        assert_eq!(of(&second), Some(format!("{owner}, epoch 2, lease live")), "{rows:?}");
        // The inspector says it too.
        page.js(&format!(
            "[...document.querySelectorAll('#list tbody tr')].find(tr => tr.cells[0].innerText === '{first}')\
             .querySelector('button').click()"
        ))
        .await;
        page.wait_for(
            "the inspector's owner",
            &format!("document.querySelector('#inspector dl') && document.querySelector('#inspector dl').innerText.includes('{owner}, epoch 1, lease live')"),
        )
        .await;
        page.close().await;
    })
    .await;
    a.stop().await;
    cl.finish().await;
}
