// Hide and Eeek!: the 6 x 6 grid of elephant cards with the mouse figure, the two dice, every player's scoring pile,
// the cards set aside this turn and the Eeek! window that opens whenever cards turn face up.
// The view is `rules::games::hide_and_eeek::View`; actions and events are that engine's `Action` and `EventBody`.
//
// Rules version 2 shows a face-up card as a player sees it: its number and its picture. The picture of a mouse
// card hides a camouflaged mouse (where, how big and how turned is MOUSE_SPOTS below, per card); nothing else
// says it is there. Spotting it is the game.
//
// Rules version 3 lists a late claim on every face-up card between windows. The screen offers it behind an Eeek!
// button ("I spotted a mouse"): pressed, the face-up cards become the claim targets until one is clicked or the
// button is pressed again, so that no ordinary click on a card can cost a turn.

import { h, countdown } from "../ui.js";
import { t, listOf, lang } from "../i18n.js";
import { tip, say, rulesPanel } from "../table_tips.js";

const COLUMNS = "ABCDEF";

/** Version 3: whether this player has pressed the Eeek! button to claim a card left face up (kept across redraws). */
let spotting = false;

export function cellName(cell) {
  return `${COLUMNS[cell.col]}${cell.row + 1}`;
}

function sameCell(a, b) {
  return a && b && a.row === b.row && a.col === b.col;
}

/** What the category die asks of the cards: "higher than 42", "odd". */
function categoryTest(category, baseline) {
  if ((category === "higher" || category === "lower") && baseline !== null && baseline !== undefined) {
    return t(`hide_and_eeek.test.${category}_than`, { n: baseline });
  }
  return t(`hide_and_eeek.test.${category}`);
}

function arrowWords(arrow) {
  return t(arrow === "up" ? "hide_and_eeek.arrow.up" : "hide_and_eeek.arrow.down");
}

/** The mouse drawn as a small head: used for the figure and on mouse cards. */
function mouseIcon(cls, title) {
  return h(
    "svg:svg",
    { class: cls, viewBox: "0 0 40 40", "aria-hidden": title ? null : "true", role: title ? "img" : null },
    title ? h("svg:title", {}, title) : null,
    h("svg:circle", { cx: "10", cy: "12", r: "8", fill: "#b9b2a8", stroke: "#3b3631", "stroke-width": "2" }),
    h("svg:circle", { cx: "30", cy: "12", r: "8", fill: "#b9b2a8", stroke: "#3b3631", "stroke-width": "2" }),
    h("svg:circle", { cx: "10", cy: "12", r: "4", fill: "#e8a7b5" }),
    h("svg:circle", { cx: "30", cy: "12", r: "4", fill: "#e8a7b5" }),
    h("svg:ellipse", { cx: "20", cy: "24", rx: "13", ry: "12", fill: "#cfc8bd", stroke: "#3b3631", "stroke-width": "2" }),
    h("svg:circle", { cx: "15", cy: "22", r: "2.2", fill: "#1b1b1b" }),
    h("svg:circle", { cx: "25", cy: "22", r: "2.2", fill: "#1b1b1b" }),
    h("svg:circle", { cx: "20", cy: "30", r: "2.6", fill: "#d0566f" }),
    h("svg:path", { d: "M8 29 1 27M8 32 1 33M32 29 39 27M32 32 39 33", stroke: "#3b3631", "stroke-width": "1.3" }),
  );
}

/**
 * The cards that show the hidden mouse, and where it hides in each picture: x, y (centre, in % of the card), size
 * (% of the card's width), turn (degrees) and tint (how far its fur blends into the card: 0 plain grey, 1 the
 * card's own colour). The numbers are the engine's `EEEK_CARDS` (rules/src/games/hide_and_eeek/data.rs; a rules test
 * checks that both lists agree).
 */
export const MOUSE_SPOTS = {
  7: { x: 78, y: 80, size: 26, turn: -20, tint: 0.35 },
  18: { x: 22, y: 30, size: 22, turn: 35, tint: 0.5 },
  26: { x: 60, y: 22, size: 20, turn: 170, tint: 0.45 },
  33: { x: 30, y: 78, size: 24, turn: -75, tint: 0.4 },
  44: { x: 82, y: 45, size: 18, turn: 90, tint: 0.55 },
  51: { x: 48, y: 60, size: 21, turn: 15, tint: 0.6 },
  64: { x: 18, y: 55, size: 19, turn: -140, tint: 0.5 },
  72: { x: 70, y: 68, size: 23, turn: 60, tint: 0.45 },
  89: { x: 40, y: 18, size: 17, turn: -35, tint: 0.55 },
  96: { x: 85, y: 22, size: 20, turn: 120, tint: 0.6 },
};

/** A number's own small pseudo-random values in [0, 1), so that every card's picture differs. */
function cardNoise(number, k) {
  let x = (number * 2654435761 + k * 40503) >>> 0;
  x ^= x >>> 13;
  x = Math.imul(x, 1274126177) >>> 0;
  return ((x ^ (x >>> 16)) >>> 0) / 4294967296;
}

/**
 * Mixes two #rrggbb colours, `t` of the way from `a` to `b`, into a #rrggbb colour, so that a mix can be mixed
 * again (the pebbles are the card's grey mixed with its paper, both mixes themselves).
 */
function mix(a, b, t) {
  const pa = [1, 3, 5].map((i) => parseInt(a.slice(i, i + 2), 16));
  const pb = [1, 3, 5].map((i) => parseInt(b.slice(i, i + 2), 16));
  return `#${pa.map((v, i) => Math.round(v + (pb[i] - v) * t).toString(16).padStart(2, "0")).join("")}`;
}

/**
 * A face-up card's picture: an elephant among grass tufts and pebbles, placed and coloured from the number; on a
 * mouse card the mouse hides in it, small, turned and tinted like its surroundings.
 */
function cardArt(number, spot = MOUSE_SPOTS[number]) {
  const n = (k) => cardNoise(number, k);
  const paper = mix("#f3ead8", "#e4eed9", n(1));
  const grey = mix("#9d958b", "#b3a99c", n(2));
  const ex = 30 + n(3) * 40;
  const ey = 42 + n(4) * 22;
  const flip = n(5) < 0.5 ? -1 : 1;
  const parts = [h("svg:rect", { x: "0", y: "0", width: "100", height: "100", fill: paper })];
  // Grass tufts and pebbles: the clutter a mouse can hide in.
  for (let i = 0; i < 7; i += 1) {
    const x = (n(10 + i) * 90 + 5).toFixed(1);
    const y = (n(20 + i) * 85 + 10).toFixed(1);
    if (i % 2) {
      parts.push(h("svg:ellipse", { cx: x, cy: y, rx: "4", ry: "2.6", fill: mix(grey, paper, 0.35) }));
    } else {
      parts.push(h("svg:path", { d: `M${x} ${y} l-3 -7 M${x} ${y} l0 -8 M${x} ${y} l3 -7`, stroke: "#8aa46a", "stroke-width": "1.4", fill: "none" }));
    }
  }
  // The elephant.
  parts.push(
    h(
      "svg:g",
      { transform: `translate(${ex.toFixed(1)} ${ey.toFixed(1)}) scale(${flip} 1)` },
      h("svg:ellipse", { cx: "0", cy: "0", rx: "20", ry: "13", fill: grey }),
      h("svg:rect", { x: "-15", y: "8", width: "6", height: "12", fill: grey }),
      h("svg:rect", { x: "8", y: "8", width: "6", height: "12", fill: grey }),
      h("svg:circle", { cx: "20", cy: "-6", r: "9", fill: grey }),
      h("svg:ellipse", { cx: "15", cy: "-6", rx: "6", ry: "8", fill: mix(grey, "#7f776e", 0.4) }),
      h("svg:path", { d: "M27 -3 q6 10 -1 18", stroke: grey, "stroke-width": "4", fill: "none", "stroke-linecap": "round" }),
      h("svg:circle", { cx: "23", cy: "-9", r: "1.2", fill: "#2b2622" }),
    ),
  );
  if (spot) {
    const fur = mix("#b9b2a8", paper, spot.tint);
    const ear = mix("#cfc8bd", paper, spot.tint);
    const s = spot.size / 40;
    parts.push(
      h(
        "svg:g",
        { transform: `translate(${spot.x} ${spot.y}) rotate(${spot.turn}) scale(${s.toFixed(3)}) translate(-20 -20)`, opacity: "0.9" },
        h("svg:circle", { cx: "10", cy: "12", r: "8", fill: ear }),
        h("svg:circle", { cx: "30", cy: "12", r: "8", fill: ear }),
        h("svg:ellipse", { cx: "20", cy: "24", rx: "13", ry: "12", fill: fur }),
        h("svg:circle", { cx: "15", cy: "22", r: "2", fill: "#3b3631" }),
        h("svg:circle", { cx: "25", cy: "22", r: "2", fill: "#3b3631" }),
        h("svg:circle", { cx: "20", cy: "30", r: "2.2", fill: mix("#d0566f", paper, spot.tint) }),
      ),
    );
  }
  return h(
    "svg:svg",
    {
      class: "card-art",
      viewBox: "0 0 100 100",
      preserveAspectRatio: "none",
      "aria-hidden": "true",
      style: "position:absolute;inset:0;width:100%;height:100%;pointer-events:none",
    },
    parts,
  );
}

/** The legal actions sorted by what they touch. */
function actionsOf(ctx) {
  const out = { move: new Map(), choose: new Map(), eeek: new Map(), late: new Map(), stop: null, pass: null };
  // Version 1 flags mice and has no `skips`; later versions list a claim outside a window only as a late claim.
  const lateClaims = !ctx.view.look && ctx.view.skips !== undefined;
  for (const a of ctx.legal) {
    if (a.type === "move") out.move.set(cellName(a.to), a);
    else if (a.type === "choose") out.choose.set(cellName(a.cell), a);
    else if (a.type === "eeek" && lateClaims) out.late.set(cellName(a.cell), a);
    else if (a.type === "eeek") out.eeek.set(cellName(a.cell), a);
    else if (a.type === "stop") out.stop = a;
    else if (a.type === "pass") out.pass = a;
  }
  return out;
}

function collectedOf(view) {
  return view.step.step === "collect" ? view.step.collected : [];
}

/** Cells the latest update touched, to draw the eye there. */
function recentCells(ctx) {
  const cells = new Map();
  const events = ctx.state.since < ctx.state.version ? ctx.state.events : [];
  for (const e of events) {
    if (e.type === "moved") cells.set(cellName(e.to), "moved");
    if (e.type === "chosen") cells.set(cellName(e.cell), e.matched === false ? "missed" : "chosen");
    if (e.type === "refilled") cells.set(cellName(e.cell), "refilled");
    if (e.type === "judged") cells.set(cellName(e.cell), e.matched ? "chosen" : "missed");
  }
  return cells;
}

function cardFace(cell) {
  if (cell.card === "face_down") return h("span", { class: "card back" }, h("span", { class: "back-pattern" }));
  if (cell.card === "face_up" && cell.mouse === undefined) {
    // Version 2: the card as a player sees it; any mouse is hidden in the picture.
    return h(
      "span",
      { class: "card face" },
      cardArt(cell.number),
      h(
        "span",
        { class: "num", style: "position:absolute;top:3%;left:7%;font-size:clamp(0.8rem,2.6vw,1.15rem)" },
        String(cell.number),
      ),
    );
  }
  if (cell.card === "face_up") {
    // Version 1 matches flag their mouse cards.
    return h(
      "span",
      { class: `card face${cell.mouse ? " mouse-card" : ""}` },
      h("span", { class: "num" }, String(cell.number)),
      cell.mouse ? mouseIcon("card-mouse") : null,
      cell.mouse ? h("span", { class: "eeek-tag" }, t("hide_and_eeek.eeek")) : null,
    );
  }
  return h("span", { class: "card slot" });
}

/** What a cell holds, in words: "face-down card", "card 42", "empty". */
function cellWhat(cell, setAside) {
  if (cell.card === "face_down") return t("hide_and_eeek.cell.face_down");
  if (cell.card === "face_up") {
    return cell.mouse ? t("hide_and_eeek.cell.mouse_card", { n: cell.number }) : t("hide_and_eeek.cell.card", { n: cell.number });
  }
  if (setAside) return t("hide_and_eeek.cell.set_aside", { n: setAside });
  return t("hide_and_eeek.cell.empty");
}

function cellLabel(cell, name, isMouse, setAside) {
  const what = cellWhat(cell, setAside);
  return isMouse ? t("hide_and_eeek.cell.with_mouse", { cell: name, what }) : t("hide_and_eeek.cell.label", { cell: name, what });
}

/** The label of a card that plays an action, for the screen and a screen reader. */
export function cellVerb(action, cell, view) {
  const name = cellName(action.to || action.cell);
  if (action.type === "move") return t("hide_and_eeek.act.move", { cell: name });
  if (action.type === "choose") {
    return cell.card === "face_down"
      ? t("hide_and_eeek.act.turn_over", { cell: name })
      : t("hide_and_eeek.act.choose", { cell: name, n: cell.number });
  }
  if (action.type === "eeek") {
    return view.look || view.skips !== undefined
      ? t("hide_and_eeek.act.eeek_look", { cell: name, n: cell.number })
      : t("hide_and_eeek.act.eeek", { cell: name, n: cell.number });
  }
  if (action.type === "stop") return t("hide_and_eeek.act.stop");
  if (action.type === "pass") return t("hide_and_eeek.act.pass");
  return "";
}

function renderGrid(ctx, acts) {
  const view = ctx.view;
  const recent = recentCells(ctx);
  const setAside = new Map(collectedOf(view).map(([c, n]) => [cellName(c), n]));
  const raceCell = view.race ? cellName(view.race.cell) : null;
  const lookCells = new Set(view.look ? view.look.cells.map(cellName) : []);
  const rows = [];
  rows.push(
    h(
      "div",
      { class: "grid-row head", role: "row" },
      h("span", { class: "corner", role: "presentation" }),
      [...COLUMNS].map((c) => h("span", { class: "col-head", role: "columnheader" }, c)),
    ),
  );
  view.grid.forEach((row, r) => {
    const cells = row.map((cell, c) => {
      const pos = { row: r, col: c };
      const name = cellName(pos);
      const isMouse = sameCell(view.mouse, pos);
      const move = acts.move.get(name);
      const choose = acts.choose.get(name);
      const eeek = acts.eeek.get(name);
      const late = spotting ? acts.late.get(name) : null;
      // While spotting, only the face-up cards answer a click: with a late claim.
      const action = spotting ? late : move || choose || eeek;
      const verb = action ? cellVerb(action, cell, view) : "";
      const classes = ["cell"];
      if (move) classes.push("can-move");
      if (choose) classes.push("can-choose");
      if (eeek || late) classes.push("can-claim");
      if (name === raceCell || lookCells.has(name)) classes.push("race-cell");
      if (recent.has(name)) classes.push(`recent-${recent.get(name)}`);
      const content = [
        cardFace(cell),
        setAside.has(name) && cell.card === "empty"
          ? h("span", { class: "set-aside-ghost", "aria-hidden": "true" }, String(setAside.get(name)))
          : null,
        isMouse ? h("span", { class: "figure" }, mouseIcon("figure-icon")) : null,
        move ? h("span", { class: "badge move", "aria-hidden": "true" }, "→") : null,
        choose ? h("span", { class: "badge choose", "aria-hidden": "true" }, cell.card === "face_down" ? "?" : "✓") : null,
      ];
      const what = isMouse
        ? t("hide_and_eeek.cell.what_with_mouse", { what: cellWhat(cell, setAside.get(name)) })
        : cellWhat(cell, setAside.get(name));
      const label = action ? t("hide_and_eeek.cell.action_label", { verb, what }) : cellLabel(cell, name, isMouse, setAside.get(name));
      return h(
        "button",
        {
          type: "button",
          class: classes.join(" "),
          role: "gridcell",
          "aria-label": label,
          title: action ? verb : null,
          disabled: !action,
          "data-key": `cell-${name}`,
          "data-cell": name,
          "data-row": r,
          "data-col": c,
          "data-act": action ? action.type : null,
          onclick: action
            ? () => {
                spotting = false;
                ctx.act(action);
              }
            : null,
        },
        content,
      );
    });
    rows.push(
      h("div", { class: "grid-row", role: "row" }, h("span", { class: "row-head", role: "rowheader" }, String(r + 1)), cells),
    );
  });
  return h(
    "div",
    {
      class: "hee-grid",
      role: "grid",
      "aria-label": t("hide_and_eeek.grid.label"),
      onkeydown: (e) => gridKeys(e),
    },
    rows,
  );
}

/** Arrow keys move the focus to the nearest playable card in that direction. */
function gridKeys(event) {
  const steps = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
  const step = steps[event.key];
  const from = event.target.closest?.("[data-cell]");
  if (!step || !from) return;
  const enabled = [...event.currentTarget.querySelectorAll("button[data-cell]:not([disabled])")];
  const r0 = Number(from.dataset.row);
  const c0 = Number(from.dataset.col);
  let best = null;
  let bestScore = Infinity;
  for (const b of enabled) {
    const dr = Number(b.dataset.row) - r0;
    const dc = Number(b.dataset.col) - c0;
    const along = dr * step[0] + dc * step[1];
    if (along <= 0) continue;
    const across = Math.abs(dr * step[1]) + Math.abs(dc * step[0]);
    const score = along + 2 * across;
    if (score < bestScore) {
      bestScore = score;
      best = b;
    }
  }
  if (best) {
    best.focus();
    event.preventDefault();
  }
}

/** Pip positions on a 100 x 100 die face, for 1 to 6. */
const PIPS = {
  1: [[50, 50]],
  2: [[28, 28], [72, 72]],
  3: [[26, 26], [50, 50], [74, 74]],
  4: [[28, 28], [72, 28], [28, 72], [72, 72]],
  5: [[26, 26], [74, 26], [50, 50], [26, 74], [74, 74]],
  6: [[28, 24], [72, 24], [28, 50], [72, 50], [28, 76], [72, 76]],
};

/** The movement die as a die: its pips over the big arrow printed on the face (up: face up, down: face down). */
function movementDie(roll) {
  const up = roll.arrow === "up";
  return h(
    "svg:svg",
    { class: `die-svg movement ${roll.arrow}`, viewBox: "0 0 100 100", "aria-hidden": "true" },
    h("svg:rect", { x: "3", y: "3", width: "94", height: "94", rx: "16", fill: "#fffdf7", stroke: "#2b2b2b", "stroke-width": "4" }),
    h("svg:path", {
      d: up ? "M50 10 86 50H64V90H36V50H14Z" : "M50 90 86 50H64V10H36V50H14Z",
      fill: up ? "#cfe0f7" : "#f3dcc0",
      stroke: up ? "#1a5fb4" : "#8a4f00",
      "stroke-width": "3",
    }),
    (PIPS[roll.steps] || []).map(([x, y]) => h("svg:circle", { cx: String(x), cy: String(y), r: "8.5", fill: "#1b1b1b" })),
  );
}

/** The category die: a face with its sign (rising steps, falling steps, odd or even numbers). */
function categoryDie(category) {
  const face = [];
  if (category === "higher" || category === "lower") {
    const bars = [22, 42, 62];
    bars.forEach((x, i) => {
      const height = 18 + 18 * (category === "higher" ? i : 2 - i);
      face.push(h("svg:rect", { x: String(x), y: String(78 - height), width: "16", height: String(height), rx: "2", fill: "#7a3e00" }));
    });
    face.push(
      h("svg:path", {
        d: category === "higher" ? "M18 44 72 16M72 16h-12M72 16l-4 11" : "M28 16 82 44M82 44h-12M82 44l-4-11",
        fill: "none",
        stroke: "#7a3e00",
        "stroke-width": "4",
        "stroke-linecap": "round",
      }),
    );
  } else {
    face.push(
      h(
        "svg:text",
        { x: "50", y: "60", "text-anchor": "middle", "font-size": "26", "font-weight": "800", fill: "#7a3e00" },
        category === "odd" ? "1 3 5" : "2 4 6",
      ),
    );
  }
  return h(
    "svg:svg",
    { class: "die-svg category", viewBox: "0 0 100 100", "aria-hidden": "true" },
    h("svg:rect", { x: "3", y: "3", width: "94", height: "94", rx: "16", fill: "#fff4d6", stroke: "#2b2b2b", "stroke-width": "4" }),
    face,
  );
}

function renderDice(ctx) {
  const view = ctx.view;
  const roll = view.roll;
  const rolled = ctx.state.since < ctx.state.version && ctx.state.events.some((e) => e.type === "turn_started");
  const stepsText = t("hide_and_eeek.die.steps", { n: roll.steps });
  return h(
    "div",
    { class: `dice${rolled ? " just-rolled" : ""}`, role: "group", "aria-label": t("hide_and_eeek.dice.label") },
    tip(
      [movementDie(roll), h("span", { class: "die-caption" }, `${roll.steps} ${roll.arrow === "up" ? "↑" : "↓"}`)],
      t(`hide_and_eeek.tip.movement_${roll.arrow}`, { n: roll.steps, steps: stepsText }),
      { cls: "die movement" },
    ),
    tip(
      [categoryDie(roll.category), h("span", { class: "die-caption" }, t(`hide_and_eeek.cat.${roll.category}`))],
      t(`hide_and_eeek.tip.${roll.category}`),
      { cls: "die category" },
    ),
    h(
      "p",
      { class: "dice-words" },
      t("hide_and_eeek.dice.words", { steps: stepsText, arrow: arrowWords(roll.arrow) }),
      " ",
      t("hide_and_eeek.dice.must_be"),
      " ",
      h("strong", {}, categoryTest(roll.category, view.baseline)),
      ".",
    ),
  );
}

function renderLook(ctx, acts) {
  const view = ctx.view;
  const names = view.look.cells.map(cellName);
  const answered = view.look.responded.includes(ctx.me);
  const waiting = view.piles.map((_, s) => s).filter((s) => !view.look.responded.includes(s));
  return h(
    "div",
    { class: "race", role: "status" },
    h(
      "p",
      {},
      h("strong", {}, t("hide_and_eeek.look.title")),
      " ",
      // Version 3: a late window, opened by the claim of its first answer.
      view.look.late
        ? t("hide_and_eeek.look.late_text", { who: ctx.name(view.look.responded[0]), cell: names[0] })
        : t("hide_and_eeek.look.text", { cells: listOf(names), n: names.length }),
      " ",
      countdown(view.look.closes_at, { label: t("hide_and_eeek.look.time_left") }),
    ),
    answered ? h("p", { class: "hint" }, t("hide_and_eeek.look.answered", { names: listOf(waiting.map((s) => ctx.name(s))) })) : null,
    acts.pass
      ? h(
          "button",
          {
            type: "button",
            class: "pass-button",
            "data-key": "pass",
            "data-act": "pass",
            "aria-keyshortcuts": "N",
            onclick: () => ctx.act(acts.pass),
          },
          t("hide_and_eeek.act.pass"),
          h("kbd", {}, "N"),
        )
      : null,
  );
}

/**
 * The Eeek! banner. It lives in a slot of fixed size that also holds a quiet reminder when no window is open, so
 * the grid below never moves when a banner appears.
 */
function renderClaims(ctx, acts) {
  const view = ctx.view;
  const parts = [];
  if (view.look) {
    parts.push(renderLook(ctx, acts));
  } else if (view.race) {
    const name = cellName(view.race.cell);
    const claim = acts.eeek.get(name);
    parts.push(
      h(
        "div",
        { class: "race", role: "alert" },
        mouseIcon("race-mouse"),
        h(
          "p",
          {},
          h("strong", {}, t("hide_and_eeek.eeek")),
          " ",
          t("hide_and_eeek.race.text", { cell: name }),
          " ",
          countdown(view.race.closes_at, { label: t("hide_and_eeek.race.time_left") }),
        ),
        claim
          ? h(
              "button",
              {
                type: "button",
                class: "eeek-button",
                "data-key": "eeek",
                "data-act": "eeek",
                "aria-keyshortcuts": "E",
                onclick: () => ctx.act(claim),
              },
              t("hide_and_eeek.race.claim"),
              h("kbd", {}, "E"),
            )
          : null,
      ),
    );
  }
  // Late spotting (rules version 1): any face-up mouse card may be claimed at any time.
  if (!view.look) {
    for (const [name, action] of acts.eeek) {
      if (view.race && name === cellName(view.race.cell)) continue;
      parts.push(
        h(
          "button",
          {
            type: "button",
            class: "eeek-button late",
            "data-key": `eeek-${name}`,
            "data-act": "eeek",
            onclick: () => ctx.act(action),
          },
          t("hide_and_eeek.race.claim_at", { cell: name }),
        ),
      );
    }
  }
  const open = parts.length > 0;
  return h(
    "div",
    { class: `claims-slot${open ? " open" : ""}` },
    h("div", { class: "claims", "aria-live": view.race ? "assertive" : "polite" }, parts),
    open
      ? null
      : h(
          "p",
          { class: "claims-idle hint" },
          t(spotting ? "hide_and_eeek.spot.hint" : "hide_and_eeek.claims.idle"),
          acts.late.size ? [" ", spotButton(ctx)] : null,
        ),
  );
}

/** Version 3: the Eeek! button for a mouse spotted late on a card left face up; it toggles spotting. */
function spotButton(ctx) {
  return h(
    "button",
    {
      type: "button",
      class: `spot-button${spotting ? " active" : ""}`,
      "data-key": "spot",
      "aria-pressed": spotting ? "true" : "false",
      "aria-keyshortcuts": "E",
      onclick: () => toggleSpotting(ctx),
    },
    t(spotting ? "hide_and_eeek.spot.cancel" : "hide_and_eeek.spot"),
    h("kbd", {}, "E"),
  );
}

function toggleSpotting(ctx) {
  spotting = !spotting;
  ctx.rerender();
}

function renderTurnBar(ctx, acts) {
  const view = ctx.view;
  const collected = collectedOf(view);
  const mine = ctx.me === view.turn && !view.over;
  const items = [];
  if (collected.length) {
    items.push(
      h(
        "div",
        { class: "set-aside" },
        h("span", { class: "label" }, t("hide_and_eeek.set_aside", { n: collected.length })),
        collected.map(([cell, n]) =>
          h("span", { class: "mini-card", title: t("hide_and_eeek.set_aside.from", { cell: cellName(cell) }) }, String(n)),
        ),
      ),
    );
  }
  if (acts.stop) {
    items.push(
      h(
        "button",
        {
          type: "button",
          class: "primary stop",
          "data-key": "stop",
          "data-act": "stop",
          "aria-keyshortcuts": "S",
          onclick: () => ctx.act(acts.stop),
        },
        t("hide_and_eeek.stop_bank", { n: collected.length }),
        h("kbd", {}, "S"),
      ),
    );
  }
  if (mine && !view.race && !view.look && (acts.move.size || acts.choose.size)) {
    items.push(
      h(
        "p",
        { class: "hint keys" },
        t("hide_and_eeek.keys"),
        acts.stop ? ` ${t("hide_and_eeek.keys.stop")}` : "",
      ),
    );
  }
  return items.length ? h("div", { class: "turn-bar" }, items) : null;
}

function pileCard(pile) {
  return pile.top !== null && pile.top !== undefined
    ? h("span", { class: "mini-card", title: t("hide_and_eeek.pile.top") }, String(pile.top))
    : h("span", { class: "mini-card empty" }, "–");
}

function playerInfo(seat, ctx) {
  const view = ctx.view;
  const pile = view.piles[seat];
  if (!pile) return null;
  const owed = view.owed_turns.includes(seat);
  const skips = view.skips ? view.skips[seat] || 0 : 0;
  return h(
    "span",
    { class: "pile" },
    pileCard(pile),
    h(
      "span",
      { class: "pile-count", "aria-label": t("hide_and_eeek.pile.count", { n: pile.cards, target: view.target }) },
      `${pile.cards} / ${view.target}`,
    ),
    h("span", { class: "pile-bar", "aria-hidden": "true" }, h("span", { style: `width:${Math.min(100, (100 * pile.cards) / view.target)}%` })),
    owed ? h("span", { class: "tag" }, t("hide_and_eeek.player.owed")) : null,
    skips ? h("span", { class: "tag" }, t("hide_and_eeek.player.skips", { n: skips })) : null,
  );
}

export function headline(ctx) {
  const view = ctx.view;
  if (view.over || ctx.state.outcome) return t("hide_and_eeek.head.over");
  const mine = ctx.me === view.turn;
  if (view.race) return t("hide_and_eeek.head.race");
  if (view.look) return t(view.look.late ? "hide_and_eeek.head.late" : "hide_and_eeek.head.look");
  if (view.step.step === "move") {
    const n = view.roll.steps;
    return mine ? t("hide_and_eeek.head.move.you", { n }) : t("hide_and_eeek.head.move", { n, who: ctx.name(view.turn) });
  }
  const collected = collectedOf(view).length;
  const test = categoryTest(view.roll.category, view.baseline);
  if (mine) {
    return collected
      ? t("hide_and_eeek.head.choose_more.you", { test, n: collected })
      : t("hide_and_eeek.head.choose.you", { test });
  }
  return collected
    ? t("hide_and_eeek.head.choose_more", { who: ctx.name(view.turn), test, n: collected })
    : t("hide_and_eeek.head.choose", { who: ctx.name(view.turn), test });
}

function render(ctx) {
  const view = ctx.view;
  const acts = actionsOf(ctx);
  if (!acts.late.size) spotting = false;
  return h(
    "div",
    { class: "hee" },
    h(
      "div",
      { class: "hee-top" },
      renderDice(ctx),
      h(
        "div",
        { class: "draw-pile", "aria-label": t("hide_and_eeek.draw_pile.label", { n: view.draw_pile }) },
        h("span", { class: "card back small" }, h("span", { class: "back-pattern" })),
        h("span", {}, t("hide_and_eeek.draw_pile", { n: view.draw_pile })),
      ),
      h("div", { class: "target" }, t("hide_and_eeek.target", { n: view.target })),
    ),
    renderClaims(ctx, acts),
    renderGrid(ctx, acts),
    renderTurnBar(ctx, acts),
  );
}

function onKey(event, ctx) {
  const acts = actionsOf(ctx);
  const key = event.key.toLowerCase();
  if ((key === "e" && acts.late.size) || (key === "escape" && spotting)) {
    toggleSpotting(ctx);
    return true;
  }
  if (key === "n" && acts.pass) {
    ctx.act(acts.pass);
    return true;
  }
  if (key === "e" && acts.eeek.size && ctx.view.look) {
    // With several cards turned up, E claims only when one of them is left to choose from: click the card.
    if (acts.eeek.size === 1) {
      ctx.act(acts.eeek.values().next().value);
      return true;
    }
    return false;
  }
  if (key === "e" && acts.eeek.size) {
    const race = ctx.view.race ? acts.eeek.get(cellName(ctx.view.race.cell)) : null;
    ctx.act(race || acts.eeek.values().next().value);
    return true;
  }
  if (key === "s" && acts.stop) {
    ctx.act(acts.stop);
    return true;
  }
  return false;
}

/** The log's plain words for one event. */
export function describe(e, ctx) {
  const cards = (list) => listOf(list.map(String));
  switch (e.type) {
    case "turn_started": {
      const params = {
        steps: t("hide_and_eeek.die.steps", { n: e.roll.steps }),
        arrow: arrowWords(e.roll.arrow),
        category: t(`hide_and_eeek.test.${e.roll.category}`),
      };
      return say(ctx, e.extra ? "hide_and_eeek.log.extra_turn_started" : "hide_and_eeek.log.turn_started", e.seat, params);
    }
    case "moved":
      return say(ctx, "hide_and_eeek.log.moved", e.seat, { from: cellName(e.from), to: cellName(e.to) });
    case "chosen":
      if (e.matched === null || e.matched === undefined) {
        return say(ctx, "hide_and_eeek.log.turned_over", e.seat, { n: e.number, cell: cellName(e.cell) });
      }
      return say(ctx, e.matched ? "hide_and_eeek.log.chose_fit" : "hide_and_eeek.log.chose_miss", e.seat, {
        n: e.number,
        cell: cellName(e.cell),
      });
    case "race_opened":
      return t("hide_and_eeek.log.race_opened", { cell: cellName(e.cell), n: e.number });
    case "race_closed":
      return t("hide_and_eeek.log.race_closed", { cell: cellName(e.cell) });
    case "claimed":
      return say(ctx, "hide_and_eeek.log.claimed", e.seat, { n: e.number, cell: cellName(e.cell) });
    case "banked":
      return say(ctx, "hide_and_eeek.log.banked", e.seat, { cards: cards(e.cards), n: e.pile_size });
    case "lost":
      return say(ctx, "hide_and_eeek.log.lost", e.seat, { cards: cards(e.cards), n: e.cards.length });
    case "refilled":
      return e.face_up
        ? t("hide_and_eeek.log.refilled_up", { n: e.number, cell: cellName(e.cell) })
        : t("hide_and_eeek.log.refilled_down", { cell: cellName(e.cell) });
    case "left_in_grid":
      return t(e.face_up ? "hide_and_eeek.log.left_up" : "hide_and_eeek.log.left_down", { cell: cellName(e.cell) });
    case "extra_turn":
      return say(ctx, "hide_and_eeek.log.extra_turn", e.seat);
    case "look_opened":
      if (e.late_by !== undefined && e.late_by !== null) {
        return say(ctx, "hide_and_eeek.log.late_claim", e.late_by, { cell: cellName(e.cells[0]) });
      }
      return t("hide_and_eeek.log.look_opened", { cells: listOf(e.cells.map(cellName)), n: e.cells.length });
    case "responded":
      return say(ctx, "hide_and_eeek.log.responded", e.seat);
    case "look_closed": {
      if (!e.claims.length) return t("hide_and_eeek.log.nobody_claimed");
      return e.claims
        .map((c) => {
          // Version 3: the judged time (a reaction under the floor counts as the floor); equal times were drawn.
          const outcome = c.tied ? (c.won ? "won_draw" : "lost_draw") : c.won ? "won" : c.mouse ? "slow" : "wrong";
          const ms = c.judged_ms ?? c.reaction_ms;
          return say(ctx, `hide_and_eeek.log.claim_${outcome}`, c.seat, {
            n: c.number,
            time: (ms / 1000).toLocaleString(lang(), { minimumFractionDigits: 2, maximumFractionDigits: 2 }),
          });
        })
        .join(" ");
    }
    case "false_claim":
      return say(ctx, "hide_and_eeek.log.false_claim", e.seat, { n: e.skips });
    case "turn_missed":
      return say(ctx, "hide_and_eeek.log.turn_missed", e.seat);
    case "judged":
      return t(e.matched ? "hide_and_eeek.log.judged_fit" : "hide_and_eeek.log.judged_miss", { n: e.number, cell: cellName(e.cell) });
    case "game_over":
      // Its winners are the match's outcome, which the table logs itself ("The game is over. Ann wins."): a line
      // of its own here would say the end twice.
      return null;
    default:
      return null;
  }
}

/**
 * How the mouse looks on a card, for the rules: the screen's own card picture, on an example card that is none of
 * the hundred (so it gives no card away), with the mouse placed, sized and tinted as on the real ones.
 */
const EXAMPLE_CARD = 0;
const EXAMPLE_SPOT = { x: 70, y: 72, size: 24, turn: -25, tint: 0.4 };

function mouseExample() {
  return h(
    "figure",
    { class: "mouse-example" },
    h(
      "span",
      { class: "card face", style: "position:relative;display:inline-block;width:7rem;height:7rem" },
      cardArt(EXAMPLE_CARD, EXAMPLE_SPOT),
    ),
    h("figcaption", {}, t("hide_and_eeek.rules.mouse_example")),
  );
}

/** "How to play": the rules as this server plays them, in a player's words, with a drawn example of the mouse. */
export function rules() {
  const panel = rulesPanel("hide_and_eeek", [
    ["hide_and_eeek.rules.goal.title", "hide_and_eeek.rules.goal"],
    ["hide_and_eeek.rules.turn.title", "hide_and_eeek.rules.turn"],
    ["hide_and_eeek.rules.eeek.title", "hide_and_eeek.rules.eeek"],
    ["hide_and_eeek.rules.dice.title", "hide_and_eeek.rules.dice"],
  ]);
  panel.querySelectorAll("section")[2].append(mouseExample());
  return panel;
}

/** The game's picture for the start page: a face-up card with the mouse hidden in it (the rules' example). */
export function picture() {
  return h("span", { class: "card face game-picture-card" }, cardArt(EXAMPLE_CARD, EXAMPLE_SPOT));
}

export default { id: "hide_and_eeek", title: "Hide and Eeek!", render, describe, headline, playerInfo, onKey, rules, picture };
