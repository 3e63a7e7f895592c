//! The drawings: every card, board and tile the game screens draw holds valid SVG. The rules engines play every
//! game to its end at the smallest and the largest table (as seat 0 and as a spectator), and Hide and Eeek!'s
//! grid is also shown with each of its 100 cards face up (the ten mouse cards first), so that every card picture
//! and every camouflaged mouse is drawn. Chromium draws each state with the game's real screen (`render`) and reads
//! every attribute of every SVG element: none may hold `NaN`, `Infinity`, `undefined`, `null` or `[object`, and
//! each colour (`fill`, `stroke`, `stop-color`, `flood-color`, `lighting-color`, `color`, and the same in a
//! `style`) must be one the browser accepts, with any `url(#id)` naming an element on the page. A colour the
//! browser rejects is drawn black, as the pebbles and the hidden mouse were when `mix()` was handed `rgb(...)`.
//! The ten mouse cards are left on screen for `target/browser-screenshots/drawings-hide-and-eeek-mouse-cards.png`.

mod common;

use common::walk::walk;
use common::{Browser, TestServer, WAIT, browsers_available, test_dir, with_chromedriver};
use rules::games::hide_and_eeek::data::{EEEK_CARDS, FIRST_CARD, GRID_SIZE, LAST_CARD};
use serde_json::{Value, json};

/// Runs in the page: draws every frame with the game's screen and checks its SVG; returns the problems and counts.
/// With `keep`, the first frame's board is left on screen, in view.
const CHECK: &str = r#"
const [game, players, me, frames, keep] = arguments;
const done = arguments[arguments.length - 1];
(async () => {
  const { screenFor, screenContext } = await import("/js/games/index.js");
  const screen = screenFor(game);
  const names = ["Ann", "Bo", "Cy", "Di", "Ed", "Flo"].slice(0, players);
  const seats = names.map((name, seat) => ({ seat, occupant: { kind: "human", name, connected: true, presence: "connected" } }));
  const lobby = { code: "DRAWN", game, phase: "playing", host: 0, seats, options: {}, listed: false, spectators: 0 };
  const box = document.createElement("div");
  box.style.cssText = "position:absolute; left:-10000px; top:0; width:1000px;";
  document.body.append(box);
  const SVG = "http://www.w3.org/2000/svg";
  const RAW = /NaN|Infinity|undefined|null|\[object/;
  const SHAPES = ["circle", "ellipse", "rect"];
  const ANIMATION = ["animate", "animateMotion", "animateTransform", "set"];
  const COLOURS = ["fill", "stroke", "stop-color", "flood-color", "lighting-color", "color"];
  const problems = [];
  const seen = new Map();
  const counts = { frames: 0, svg_elements: 0, colours: 0, card_pictures: 0 };
  // One line per element, attribute and kind of fault (the first seen, and how often it recurs).
  const problem = (where, el, name, value, fault) => {
    const key = `${el.localName} ${name} ${fault}`;
    const known = seen.get(key);
    if (known) {
      known.times += 1;
      return;
    }
    const entry = { line: `${where}: <${el.localName} ${name}="${value}">: ${fault}`, times: 1 };
    seen.set(key, entry);
    problems.push(entry);
  };
  const checkColour = (where, el, property, value) => {
    counts.colours += 1;
    const v = value.trim();
    const url = /^url\(\s*["']?#([^"')]+)["']?\s*\)/.exec(v);
    if (url) {
      if (!document.getElementById(url[1])) problem(where, el, property, v, `no element #${url[1]}`);
      return;
    }
    if (!CSS.supports(property, v)) problem(where, el, property, v, "not a colour");
  };
  for (const f of frames) {
    const where = `move ${f.version}`;
    const state = { ...f, type: "state", code: "DRAWN", match_id: "drawn", game };
    const ctx = screenContext({ state, names, me, act: () => {}, rerender: () => {}, lobby });
    let board;
    try {
      board = screen.render(ctx);
    } catch (e) {
      problems.push({ line: `${where}: render threw ${e}`, times: 1 });
      continue;
    }
    if (!board) continue;
    counts.frames += 1;
    box.replaceChildren(board);
    counts.card_pictures += box.querySelectorAll("svg.card-art").length;
    for (const el of box.querySelectorAll("*")) {
      if (el.namespaceURI !== SVG) continue;
      counts.svg_elements += 1;
      for (const attr of el.attributes) {
        if (RAW.test(attr.value)) problem(where, el, attr.name, attr.value, "a raw value");
        // `fill` on an animation element says what stays after it ends, not a colour.
        if (COLOURS.includes(attr.name) && !ANIMATION.includes(el.localName)) checkColour(where, el, attr.name, attr.value);
      }
      for (const property of COLOURS) {
        const value = el.style.getPropertyValue(property);
        if (value) checkColour(where, el, property, value);
      }
      // No palette here paints a shape pure black: a disc, an oval or a box drawn black lost its colour (an
      // invalid value, or a class whose colour rule is missing) and fell back to SVG's default.
      if (SHAPES.includes(el.localName) && !el.closest("clipPath, mask") && getComputedStyle(el).fill === "rgb(0, 0, 0)") {
        problem(where, el, "fill", `${el.getAttribute("fill") ?? ""} (class "${el.getAttribute("class") ?? ""}")`, "drawn black");
      }
    }
  }
  if (keep && frames.length) {
    const state = { ...frames[0], type: "state", code: "DRAWN", match_id: "drawn", game };
    box.replaceChildren(screen.render(screenContext({ state, names, me, act: () => {}, rerender: () => {}, lobby })));
    box.style.cssText = "position:absolute; left:0; top:0; width:100vw; min-height:100vh; background:#fff; z-index:1000; zoom:2;";
    box.id = "drawn-board";
    window.scrollTo(0, 0);
  } else {
    box.remove();
  }
  return { problems: problems.map((p) => (p.times > 1 ? `${p.line} (and ${p.times - 1} more like it)` : p.line)), counts };
})().then(done, (e) => done({ problems: [`the check failed: ${e}`], counts: {} }));
"#;

/// Hide and Eeek! states whose grids show all its cards face up, the mouse cards first: one frame per grid,
/// built on a real state of the game.
fn every_card_face_up(template: &Value) -> Vec<Value> {
    let side = usize::from(GRID_SIZE);
    let mut numbers: Vec<u8> = EEEK_CARDS.to_vec();
    numbers.extend((FIRST_CARD..=LAST_CARD).filter(|n| !EEEK_CARDS.contains(n)));
    numbers
        .chunks(side * side)
        .enumerate()
        .map(|(i, grid)| {
            let mut frame = template.clone();
            frame["version"] = json!(10_000 + i);
            frame["since"] = json!(10_000 + i);
            frame["events"] = json!([]);
            frame["view"]["grid"] = (0..side)
                .map(|row| {
                    (0..side)
                        .map(|col| match grid.get(row * side + col) {
                            Some(n) => json!({ "card": "face_up", "number": n }),
                            None => json!({ "card": "face_down" }),
                        })
                        .collect::<Value>()
                })
                .collect();
            frame
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_drawing_holds_valid_svg() {
    if !browsers_available("drawings") {
        return;
    }
    let server = TestServer::start_in(test_dir("drawings"), |_| {}).await;
    let base = server.base_url();
    with_chromedriver(move |webdriver| async move {
        let page = Browser::open(&webdriver, "viewer", 1280, 900, false).await;
        page.goto(&format!("{base}/")).await;
        page.wait_for(
            "the page",
            "window.tabletop && window.tabletop.catalogue.length > 0",
        )
        .await;
        let run = |game: &'static str, players: u8, me: Option<u8>, frames: Vec<Value>, keep: bool| {
            let page = &page;
            async move {
                tokio::time::timeout(
                    WAIT * 4,
                    page.client.execute_async(
                        CHECK,
                        vec![
                            json!(game),
                            json!(players),
                            json!(me),
                            Value::Array(frames),
                            json!(keep),
                        ],
                    ),
                )
                .await
                .unwrap_or_else(|_| panic!("{game}: the check ends"))
                .unwrap_or_else(|e| panic!("{game}: the check runs: {e}"))
            }
        };
        let mut problems = Vec::new();
        let mut walked = Vec::new();
        let mut note = |what: String, found: &Value| {
            walked.push(format!("{what}: {}", found["counts"]));
            for p in found["problems"].as_array().expect("a list of problems") {
                problems.push(format!("{what}: {}", p.as_str().unwrap_or_default()));
            }
        };
        for info in rules::catalogue() {
            let mut sizes = vec![info.min_players, info.max_players];
            sizes.dedup();
            for (i, players) in sizes.into_iter().enumerate() {
                let walk = walk(info.id, players, 23 + i as u64);
                for (who, me, frames) in [
                    ("seat 0", Some(0), &walk.seat0),
                    ("spectator", None, &walk.spectator),
                ] {
                    let found = run(info.id, players, me, frames.clone(), false).await;
                    assert!(
                        found["counts"]["svg_elements"].as_u64().unwrap_or(0) > 0,
                        "{} ({players} players, {who}): the screens draw SVG: {}",
                        info.id,
                        found["counts"]
                    );
                    note(format!("{} ({players} players, {who})", info.id), &found);
                }
                if info.id == "hide_and_eeek" && i == 0 {
                    let faces = every_card_face_up(&walk.seat0[walk.seat0.len() / 2]);
                    let found = run(info.id, players, Some(0), faces, true).await;
                    // Every card's picture was drawn (100 cards on three grids).
                    assert_eq!(
                        found["counts"]["card_pictures"],
                        json!(usize::from(LAST_CARD - FIRST_CARD + 1)),
                        "every Hide and Eeek! card is drawn face up: {}",
                        found["counts"]
                    );
                    note("hide_and_eeek (every card face up)".into(), &found);
                    page.shot("drawings-hide-and-eeek-mouse-cards").await;
                }
            }
        }
        page.close().await;
        eprintln!("walked: {}", walked.join("\n"));
        assert!(walked.len() >= 19, "every game is walked: {walked:?}");
        assert!(
            problems.is_empty(),
            "{} drawn SVG attributes are not valid:\n{}",
            problems.len(),
            problems.join("\n")
        );
    })
    .await;
    server.finish().await;
}
