//! Plain words: every game screen's action labels, headlines, player notes and log lines, fed with the real
//! views, legal actions and events of whole games, read as a person would say them.
//!
//! For every game and table size (the smallest and the largest) the rules engine plays a game to its end: the
//! server's bot chooses most moves and a random legal action the rest, the clock acts when nobody can. After
//! every change the state of the seat-0 player and of a spectator (view, legal actions, status, outcome and the
//! events each may see) is recorded as the server would send it. The page then runs in Chromium and, through
//! the real ES modules of `web/static/js/games/`, describes every event, draws every position (`render`), and
//! collects every label: the text, `aria-label` and `title` of each element that plays an action (`data-act`),
//! every `aria-label` and `title` on the board, the headline and each player's note. It fails on any text that
//! shows an identifier (a word with an underscore, camelCase, PascalCase), raw JSON (braces, brackets,
//! `undefined`, `null`), the word "option", a catalogue key with no text (`t` reports it on the console), or an
//! exception thrown by a screen. The smallest table is read as seat 0 in English and in Polish (so words
//! missing from a language show too), the largest as seat 0 and as a spectator, in English.

mod common;

use common::walk::walk;
use common::{Browser, TestServer, WAIT, browsers_available, test_dir, with_chromedriver};
use serde_json::{Value, json};

/// Runs in the page: describes, draws and labels every frame with the game's screen; returns the problems.
const CHECK: &str = r#"
const [game, players, lang, me, frames] = arguments;
const done = arguments[arguments.length - 1];
(async () => {
  const { screenFor } = await import("/js/games/index.js");
  const i18n = await import("/js/i18n.js");
  i18n.setLang(lang);
  const problems = [];
  const missing = [];
  const consoleError = console.error;
  console.error = (...args) => {
    const text = args.map(String).join(" ");
    if (text.startsWith("i18n: no text for")) missing.push(text);
    consoleError(...args);
  };
  const BAD = [
    [/[A-Za-z0-9]_[A-Za-z0-9]/, "an identifier (underscore)"],
    [/\b[a-z]+[A-Z][a-z]+/, "an identifier (camelCase)"],
    [/\b[A-Z][a-z]+[A-Z][a-z]+/, "an enum name (PascalCase)"],
    [/[{}\[\]]/, "raw JSON (braces or brackets)"],
    [/\b(undefined|null|NaN)\b/, "a raw value"],
    [/\boption\b/i, "the word option"],
  ];
  const screen = screenFor(game);
  const names = ["Ann", "Bo", "Cy", "Di", "Ed", "Flo"].slice(0, players);
  const seats = names.map((name, seat) => ({ seat, occupant: { kind: "human", name, connected: true, presence: "connected" } }));
  const lobby = { code: "WORDS", game, phase: "playing", host: 0, seats, options: {}, listed: false, spectators: 0 };
  const box = document.createElement("div");
  box.style.cssText = "position:absolute; left:-10000px; top:0; width:1000px;";
  document.body.append(box);
  const seen = new Set();
  const counts = { log: 0, action: 0, label: 0, headline: 0, player: 0 };
  const check = (where, text, kind) => {
    if (text === null || text === undefined || text === "") return;
    const value = String(text).replace(/\s+/g, " ").trim();
    if (kind) counts[kind] += 1;
    for (const [pattern, what] of BAD) {
      if (pattern.test(value)) {
        const key = `${what}|${value}`;
        if (!seen.has(key)) {
          seen.add(key);
          problems.push(`${where}: ${what}: "${value}"`);
        }
      }
    }
  };
  // Each piece of text of a node on its own: a label and its tooltip are separate elements, and their texts run
  // together in textContent ("Wax fortune" + "No points" would read as "fortuneNo").
  const pieces = (node) => {
    const out = [];
    const walker = document.createTreeWalker(node, NodeFilter.SHOW_TEXT);
    while (walker.nextNode()) out.push(walker.currentNode.nodeValue);
    return out;
  };
  const guarded = (where, work) => {
    try {
      return work();
    } catch (e) {
      const key = `throw|${where}|${e}`;
      if (!seen.has(key)) {
        seen.add(key);
        problems.push(`${where}: threw ${e && e.stack ? e.stack.split("\n").slice(0, 3).join(" | ") : e}`);
      }
      return null;
    }
  };
  for (const f of frames) {
    const state = { ...f, type: "state", code: "WORDS", match_id: "words", game };
    const ctx = {
      state,
      view: state.view,
      lobby,
      me,
      spectator: me === null,
      names,
      name: (seat) => (seat === me ? i18n.t("common.you") : names[seat] || i18n.t("common.seat", { n: seat + 1 })),
      legal: state.legal_actions || [],
      act: () => {},
      log: [],
      options: {},
      rerender: () => {},
    };
    for (const event of state.events) {
      const line = guarded(`describe(${JSON.stringify(event)})`, () => screen.describe(event, ctx));
      check(`log line of ${JSON.stringify(event)}`, line, "log");
    }
    if (screen.headline) {
      check(`headline at move ${f.version}`, guarded(`headline at move ${f.version}`, () => screen.headline(ctx)), "headline");
    }
    if (screen.playerInfo) {
      for (let seat = 0; seat < players; seat++) {
        const info = guarded(`playerInfo(${seat}) at move ${f.version}`, () => screen.playerInfo(seat, ctx));
        if (info instanceof Node) for (const text of pieces(info)) check(`player note at move ${f.version}`, text, "player");
        else if (info) check(`player note at move ${f.version}`, info, "player");
      }
    }
    const board = guarded(`render at move ${f.version}`, () => screen.render(ctx));
    if (!board) continue;
    box.replaceChildren(board);
    for (const el of box.querySelectorAll("[data-act]")) {
      counts.action += 1;
      for (const text of pieces(el)) check(`action label at move ${f.version}`, text);
    }
    for (const el of box.querySelectorAll("[aria-label], [title]")) {
      check(`label at move ${f.version}`, el.getAttribute("aria-label"), "label");
      check(`title at move ${f.version}`, el.getAttribute("title"), "label");
    }
    for (const el of box.querySelectorAll("svg title")) check(`svg title at move ${f.version}`, el.textContent, "label");
  }
  box.remove();
  console.error = consoleError;
  for (const m of new Set(missing)) problems.push(`${lang}: ${m}`);
  return { problems, counts };
})().then(done, (e) => done({ problems: [`the check failed: ${e}`], counts: {} }));
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_label_and_log_line_reads_as_words() {
    if !browsers_available("plain_words") {
        return;
    }
    let server = TestServer::start_in(test_dir("plain-words"), |_| {}).await;
    let base = server.base_url();
    with_chromedriver(move |webdriver| async move {
        let page = Browser::open(&webdriver, "reader", 1280, 900, false).await;
        page.goto(&format!("{base}/")).await;
        page.wait_for(
            "the page",
            "window.tabletop && window.tabletop.catalogue.length > 0",
        )
        .await;
        let mut problems = Vec::new();
        let mut walked = Vec::new();
        for info in rules::catalogue() {
            let mut sizes = vec![info.min_players, info.max_players];
            sizes.dedup();
            for (i, players) in sizes.into_iter().enumerate() {
                let walk = walk(info.id, players, 11 + i as u64);
                walked.push(format!(
                    "{} ({players} players, {} changes)",
                    info.id,
                    walk.seat0.len()
                ));
                // The smallest table as seat 0 in English and in Polish; the largest as seat 0 and as a
                // spectator, in English.
                let runs = if i == 0 {
                    [("en", Some(0)), ("pl", Some(0))]
                } else {
                    [("en", Some(0)), ("en", None)]
                };
                for (lang, me) in runs {
                    let frames = if me.is_some() { &walk.seat0 } else { &walk.spectator };
                    let who = if me.is_some() { "seat 0" } else { "spectator" };
                    let found = tokio::time::timeout(
                        WAIT * 4,
                        page.client.execute_async(
                            CHECK,
                            vec![
                                json!(info.id),
                                json!(players),
                                json!(lang),
                                json!(me),
                                Value::Array(frames.clone()),
                            ],
                        ),
                    )
                    .await
                    .unwrap_or_else(|_| panic!("{}: the check ends", info.id))
                    .unwrap_or_else(|e| panic!("{}: the check runs: {e}", info.id));
                    let counts = &found["counts"];
                    // The walk reached the screen: log lines (and a seat's action labels) were read.
                    assert!(
                        counts["log"].as_u64().unwrap_or(0) > 0
                            && (me.is_none() || counts["action"].as_u64().unwrap_or(0) > 0),
                        "{} ({players} players, {lang}, {who}): log lines and action labels are read: {counts}",
                        info.id
                    );
                    walked.push(format!("{} {players} {lang} {who}: {counts}", info.id));
                    for p in found["problems"].as_array().expect("a list of problems") {
                        problems.push(format!(
                            "{} ({players} players, {lang}, {who}): {}",
                            info.id,
                            p.as_str().unwrap_or_default()
                        ));
                    }
                }
            }
        }
        page.close().await;
        eprintln!("walked: {}", walked.join(", "));
        assert!(walked.len() >= 15, "every game is walked: {walked:?}");
        assert!(
            problems.is_empty(),
            "{} labels or log lines do not read as words:\n{}",
            problems.len(),
            problems.join("\n")
        );
    })
    .await;
    server.finish().await;
}

/// Runs in the page: Hide and Eeek!'s "How to play" in `lang`: its text, and whether it draws the mouse on a card.
const EEEK_RULES: &str = r#"
const [lang] = arguments;
const done = arguments[arguments.length - 1];
(async () => {
  const { screenFor } = await import("/js/games/index.js");
  const i18n = await import("/js/i18n.js");
  i18n.setLang(lang);
  const node = screenFor("hide_and_eeek").rules();
  const drawn = node.querySelector(".mouse-example svg.card-art g") !== null;
  return { text: node.textContent, drawn };
})().then(done, (e) => done({ text: `the check failed: ${e}`, drawn: false }));
"#;

/// Hide and Eeek!'s rules help must not hand out the answer (issue 43 point 3): it shows the mouse as it looks on a
/// card, drawn by the screen's own card picture, and names none of the mouse cards, in every language.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_eeek_rules_help_draws_the_mouse_and_names_no_mouse_card() {
    if !browsers_available("plain_words") {
        return;
    }
    let server = TestServer::start_in(test_dir("plain-words-eeek"), |_| {}).await;
    let base = server.base_url();
    with_chromedriver(move |webdriver| async move {
        let page = Browser::open(&webdriver, "reader", 1280, 900, false).await;
        page.goto(&format!("{base}/")).await;
        page.wait_for(
            "the page",
            "window.tabletop && window.tabletop.catalogue.length > 0",
        )
        .await;
        for lang in ["en", "ro", "pl", "es", "it"] {
            let found = page
                .client
                .execute_async(EEEK_RULES, vec![json!(lang)])
                .await
                .unwrap_or_else(|e| panic!("{lang}: the check runs: {e}"));
            let text = found["text"].as_str().unwrap_or_default().to_string();
            assert_eq!(
                found["drawn"], true,
                "{lang}: the mouse is drawn on a card: {text}"
            );
            let numbers: Vec<u8> = text
                .split(|c: char| !c.is_ascii_digit())
                .filter_map(|n| n.parse().ok())
                .collect();
            for card in rules::games::hide_and_eeek::data::EEEK_CARDS {
                assert!(
                    !numbers.contains(&card),
                    "{lang}: the rules name the mouse card {card}: {text}"
                );
            }
        }
        page.close().await;
    })
    .await;
    server.finish().await;
}

/// Runs in the page: every text the Quacks screen shows seat 0 over a whole game in `lang` (log lines, the
/// board's texts, labels and tooltips, headline and player notes); returns each count of coins, rubies or points
/// whose word is not in the number the count needs (`words`: each thing's forms by plural category), and which
/// counts were seen.
const QUACKS_COUNTS: &str = r#"
const [lang, frames, words] = arguments;
const done = arguments[arguments.length - 1];
(async () => {
  const { screenFor } = await import("/js/games/index.js");
  const i18n = await import("/js/i18n.js");
  i18n.setLang(lang);
  const screen = screenFor("quacks");
  const names = ["Ann", "Bo"];
  const seats = names.map((name, seat) => ({ seat, occupant: { kind: "human", name, connected: true, presence: "connected" } }));
  const lobby = { code: "COUNT", game: "quacks", phase: "playing", host: 0, seats, options: {}, listed: false, spectators: 0 };
  const box = document.createElement("div");
  box.style.cssText = "position:absolute; left:-10000px; top:0; width:1000px;";
  document.body.append(box);
  const texts = new Set();
  const keep = (text) => {
    if (typeof text === "string" && text.trim()) texts.add(text.replace(/\s+/g, " ").trim());
  };
  for (const f of frames) {
    const state = { ...f, type: "state", code: "COUNT", match_id: "count", game: "quacks" };
    const ctx = {
      state, view: state.view, lobby, me: 0, spectator: false, names,
      name: (seat) => (seat === 0 ? i18n.t("common.you") : names[seat]),
      legal: state.legal_actions || [], act: () => {}, log: [], options: {}, rerender: () => {},
    };
    for (const event of state.events) keep(screen.describe(event, ctx));
    keep(screen.headline(ctx));
    for (let seat = 0; seat < names.length; seat++) {
      const info = screen.playerInfo(seat, ctx);
      keep(info instanceof Node ? info.textContent : info);
    }
    box.replaceChildren(screen.render(ctx));
    const walker = document.createTreeWalker(box, NodeFilter.SHOW_TEXT);
    while (walker.nextNode()) keep(walker.currentNode.nodeValue);
    for (const el of box.querySelectorAll("[aria-label], [title]")) {
      keep(el.getAttribute("aria-label"));
      keep(el.getAttribute("title"));
    }
    for (const el of box.querySelectorAll("h4, p, li, svg title")) keep(el.textContent);
  }
  box.remove();
  const plural = new Intl.PluralRules(lang);
  const problems = new Set();
  const seen = new Set();
  const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  for (const [thing, forms] of Object.entries(words)) {
    const all = [...new Set(Object.values(forms))].sort((a, b) => b.length - a.length).map(escape);
    const count = new RegExp(`(?<![\\d.,])(\\d+) (${all.join("|")})(?!\\p{L})`, "gu");
    for (const text of texts) {
      for (const m of text.matchAll(count)) {
        const n = Number(m[1]);
        const wanted = forms[plural.select(n)] ?? forms.other;
        seen.add(`${thing}:${n}`);
        if (m[2] !== wanted) problems.add(`"${m[0]}" (${n} wants "${wanted}") in: ${text}`);
      }
    }
  }
  return { problems: [...problems], seen: [...seen], texts: texts.size };
})().then(done, (e) => done({ problems: [`the check failed: ${e}`], seen: [], texts: 0 }));
"#;

/// Quacks counts coins, rubies and points in the number each count needs (issue 44: "1 coins"), in every
/// language: each count the screen shows over a whole game (the pot track's tooltips give every count of coins
/// from 0 to 35, the singular among them) must be followed by its word's form for that number.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn quacks_counts_coins_in_the_number_each_count_needs() {
    if !browsers_available("plain_words") {
        return;
    }
    let words = [
        (
            "en",
            json!({
                "coins": { "one": "coin", "other": "coins" },
                "rubies": { "one": "ruby", "other": "rubies" },
                "points": { "one": "point", "other": "points" },
            }),
        ),
        (
            "es",
            json!({
                "coins": { "one": "moneda", "other": "monedas" },
                "rubies": { "one": "rubí", "other": "rubíes" },
                "points": { "one": "punto", "other": "puntos" },
            }),
        ),
        (
            "it",
            json!({
                "coins": { "one": "moneta", "other": "monete" },
                "rubies": { "one": "rubino", "other": "rubini" },
                "points": { "one": "punto", "other": "punti" },
            }),
        ),
        (
            "ro",
            json!({
                "coins": { "one": "monedă", "few": "monede", "other": "de monede" },
                "rubies": { "one": "rubin", "few": "rubine", "other": "de rubine" },
                "points": { "one": "punct", "few": "puncte", "other": "de puncte" },
            }),
        ),
        (
            "pl",
            json!({
                "coins": { "one": "moneta", "few": "monety", "many": "monet", "other": "monety" },
                "rubies": { "one": "rubin", "few": "rubiny", "many": "rubinów", "other": "rubinu" },
                "points": { "one": "punkt", "few": "punkty", "many": "punktów", "other": "punktu" },
            }),
        ),
    ];
    let server = TestServer::start_in(test_dir("plain-words-quacks"), |_| {}).await;
    let base = server.base_url();
    with_chromedriver(move |webdriver| async move {
        let page = Browser::open(&webdriver, "reader", 1280, 900, false).await;
        page.goto(&format!("{base}/")).await;
        page.wait_for(
            "the page",
            "window.tabletop && window.tabletop.catalogue.length > 0",
        )
        .await;
        let frames = Value::Array(walk("quacks", 2, 11).seat0);
        let mut problems = Vec::new();
        for (lang, forms) in words {
            let found = tokio::time::timeout(
                WAIT * 4,
                page.client
                    .execute_async(QUACKS_COUNTS, vec![json!(lang), frames.clone(), forms]),
            )
            .await
            .unwrap_or_else(|_| panic!("{lang}: the check ends"))
            .unwrap_or_else(|e| panic!("{lang}: the check runs: {e}"));
            let seen: Vec<&str> = found["seen"]
                .as_array()
                .expect("the counts seen")
                .iter()
                .filter_map(Value::as_str)
                .collect();
            assert!(
                seen.contains(&"coins:1") && seen.contains(&"coins:2") && seen.contains(&"points:1"),
                "{lang}: the walk showed one coin, two coins and one point: {seen:?}"
            );
            for p in found["problems"].as_array().expect("a list of problems") {
                problems.push(format!("{lang}: {}", p.as_str().unwrap_or_default()));
            }
            eprintln!("{lang}: {} texts read", found["texts"]);
        }
        page.close().await;
        assert!(
            problems.is_empty(),
            "{} counts in the wrong number:\n{}",
            problems.len(),
            problems.join("\n")
        );
    })
    .await;
    server.finish().await;
}
