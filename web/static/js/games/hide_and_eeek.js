// Hide and Eeek!: the 6 x 6 grid of elephant cards with the mouse figure, the two dice, every player's scoring pile,
// the cards set aside this turn and the Eeek! window that opens whenever cards turn face up.
// The view is `rules::games::hide_and_eeek::View`; actions and events are that engine's `Action` and `EventBody`.
//
// Rules version 2 shows a face-up card as a player sees it: its number and its picture. The picture of a mouse
// card hides a camouflaged mouse (where, how big and how turned is MOUSE_SPOTS below, per card); nothing else
// says it is there. Spotting it is the game.

import { h, countdown } from "../ui.js";
import { listWords } from "../words.js";

const COLUMNS = "ABCDEF";

export function cellName(cell) {
  return `${COLUMNS[cell.col]}${cell.row + 1}`;
}

function sameCell(a, b) {
  return a && b && a.row === b.row && a.col === b.col;
}

const CATEGORY = {
  higher: { label: "Higher", symbol: ">", test: (b) => (b ? `higher than ${b}` : "higher") },
  lower: { label: "Lower", symbol: "<", test: (b) => (b ? `lower than ${b}` : "lower") },
  odd: { label: "Odd", symbol: "1 3 5", test: () => "odd" },
  even: { label: "Even", symbol: "2 4 6", test: () => "even" },
};

function arrowWords(arrow) {
  return arrow === "up" ? "face up" : "face down";
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

/** Mixes two #rrggbb colours. */
function mix(a, b, t) {
  const pa = [1, 3, 5].map((i) => parseInt(a.slice(i, i + 2), 16));
  const pb = [1, 3, 5].map((i) => parseInt(b.slice(i, i + 2), 16));
  return `rgb(${pa.map((v, i) => Math.round(v + (pb[i] - v) * t)).join(",")})`;
}

/**
 * A face-up card's picture: an elephant among grass tufts and pebbles, placed and coloured from the number; on a
 * mouse card the mouse hides in it, small, turned and tinted like its surroundings.
 */
function cardArt(number) {
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
  const spot = MOUSE_SPOTS[number];
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
  const out = { move: new Map(), choose: new Map(), eeek: new Map(), stop: null, pass: null };
  for (const a of ctx.legal) {
    if (a.type === "move") out.move.set(cellName(a.to), a);
    else if (a.type === "choose") out.choose.set(cellName(a.cell), a);
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

function cardFace(cell, view) {
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
      cell.mouse ? h("span", { class: "eeek-tag" }, "Eeek!") : null,
    );
  }
  return h("span", { class: "card slot" });
}

function cellLabel(cell, name, isMouse, setAside) {
  let what;
  if (cell.card === "face_down") what = "face-down card";
  else if (cell.card === "face_up") what = cell.mouse ? `${cell.number}, a mouse card` : `card ${cell.number}`;
  else if (setAside) what = `empty, ${setAside} set aside this turn`;
  else what = "empty";
  return `${name}: ${what}${isMouse ? ", the mouse figure is here" : ""}`;
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
      const action = move || choose || eeek;
      let verb = "";
      if (move) verb = `Move the mouse to ${name}`;
      else if (choose) verb = cell.card === "face_down" ? `Turn over the card at ${name}` : `Choose the ${cell.number} at ${name}`;
      else if (eeek && view.look) verb = `Eeek! Claim a mouse on the ${cell.number} at ${name}`;
      else if (eeek) verb = `Eeek! Claim the mouse card ${cell.number} at ${name}`;
      const classes = ["cell"];
      if (move) classes.push("can-move");
      if (choose) classes.push("can-choose");
      if (eeek) classes.push("can-claim");
      if (name === raceCell || lookCells.has(name)) classes.push("race-cell");
      if (recent.has(name)) classes.push(`recent-${recent.get(name)}`);
      const content = [
        cardFace(cell, view),
        setAside.has(name) && cell.card === "empty"
          ? h("span", { class: "set-aside-ghost", "aria-hidden": "true" }, String(setAside.get(name)))
          : null,
        isMouse ? h("span", { class: "figure" }, mouseIcon("figure-icon")) : null,
        move ? h("span", { class: "badge move", "aria-hidden": "true" }, "→") : null,
        choose ? h("span", { class: "badge choose", "aria-hidden": "true" }, cell.card === "face_down" ? "?" : "✓") : null,
      ];
      const label = action
        ? `${verb} (${cellLabel(cell, name, isMouse, setAside.get(name)).replace(`${name}: `, "")})`
        : cellLabel(cell, name, isMouse, setAside.get(name));
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
          onclick: action ? () => ctx.act(action) : null,
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
      "aria-label": "The grid of elephant cards. Columns A to F, rows 1 to 6.",
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

function renderDice(ctx) {
  const view = ctx.view;
  const roll = view.roll;
  const cat = CATEGORY[roll.category];
  return h(
    "div",
    { class: "dice", "aria-label": "The dice" },
    h(
      "div",
      {
        class: "die movement",
        role: "img",
        "aria-label": `Movement die: ${roll.steps} step${roll.steps > 1 ? "s" : ""}, arrow ${roll.arrow} (cards go ${arrowWords(roll.arrow)})`,
      },
      h("span", { class: "pips" }, String(roll.steps)),
      h("span", { class: `arrow ${roll.arrow}` }, roll.arrow === "up" ? "↑" : "↓"),
    ),
    h(
      "div",
      { class: "die category", role: "img", "aria-label": `Category die: ${cat.label}` },
      h("span", { class: "cat-symbol" }, cat.symbol),
      h("span", { class: "cat-label" }, cat.label),
    ),
    h(
      "p",
      { class: "dice-words" },
      `${roll.steps} step${roll.steps > 1 ? "s" : ""}; gaps are refilled ${arrowWords(roll.arrow)}. Cards must be `,
      h("strong", {}, cat.test(view.baseline)),
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
    { class: "claims", "aria-live": "polite" },
    h(
      "div",
      { class: "race", role: "status" },
      h(
        "p",
        {},
        h("strong", {}, "Look! "),
        `${listWords(names)} just turned up. Spot a hidden mouse? Click the card to shout Eeek! (E). `,
        "The quickest right claim wins the card and the next turn; a wrong one costs your next turn. ",
        countdown(view.look.closes_at, { label: "time left to look" }),
      ),
      answered
        ? h("p", { class: "hint" }, `Answered. Waiting for ${listWords(waiting.map((s) => ctx.name(s)))}.`)
        : null,
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
            "No mouse",
            h("kbd", {}, "N"),
          )
        : null,
    ),
  );
}

function renderClaims(ctx, acts) {
  const view = ctx.view;
  if (view.look) return renderLook(ctx, acts);
  const parts = [];
  if (view.race) {
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
          h("strong", {}, "Eeek! "),
          `A mouse is showing at ${name}. First to claim it wins the card. `,
          countdown(view.race.closes_at, { label: "time left to claim" }),
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
              "Eeek! Claim it",
              h("kbd", {}, "E"),
            )
          : null,
      ),
    );
  }
  // Late spotting: any face-up mouse card may be claimed at any time.
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
        `Eeek! Claim the mouse at ${name}`,
      ),
    );
  }
  return h("div", { class: "claims", "aria-live": "assertive" }, parts);
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
        h("span", { class: "label" }, `Set aside this turn (${collected.length}):`),
        collected.map(([cell, n]) => h("span", { class: "mini-card", title: `from ${cellName(cell)}` }, String(n))),
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
        `Stop and bank ${collected.length} card${collected.length === 1 ? "" : "s"}`,
        h("kbd", {}, "S"),
      ),
    );
  }
  if (mine && !view.race && !view.look && (acts.move.size || acts.choose.size)) {
    items.push(
      h(
        "p",
        { class: "hint keys" },
        "Click a highlighted card, or use Tab / the arrow keys and Enter.",
        acts.stop ? " S stops." : "",
      ),
    );
  }
  return items.length ? h("div", { class: "turn-bar" }, items) : null;
}

function pileCard(pile) {
  return pile.top !== null && pile.top !== undefined
    ? h("span", { class: "mini-card", title: "top of the scoring pile" }, String(pile.top))
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
      { class: "pile-count", "aria-label": `${pile.cards} of ${view.target} cards` },
      `${pile.cards} / ${view.target}`,
    ),
    h("span", { class: "pile-bar", "aria-hidden": "true" }, h("span", { style: `width:${Math.min(100, (100 * pile.cards) / view.target)}%` })),
    owed ? h("span", { class: "tag" }, "plays out of turn (a claimed mouse or an extra turn)") : null,
    skips ? h("span", { class: "tag" }, `misses ${skips} turn${skips > 1 ? "s" : ""} (false Eeek!)`) : null,
  );
}

function headline(ctx) {
  const view = ctx.view;
  if (view.over || ctx.state.outcome) return "Game over";
  const mine = ctx.me === view.turn;
  const who = ctx.name(view.turn);
  const cat = CATEGORY[view.roll.category];
  if (view.race) return "Eeek! A mouse is showing: grab it before the others!";
  if (view.look) return "Cards turned up: is a mouse hiding on one? Shout Eeek! or say No mouse";
  if (view.step.step === "move") {
    const n = view.roll.steps;
    return mine
      ? `Your turn: move the mouse exactly ${n} step${n > 1 ? "s" : ""}`
      : `${who} is moving the mouse ${n} step${n > 1 ? "s" : ""}`;
  }
  const collected = collectedOf(view).length;
  const test = cat.test(view.baseline);
  if (mine) {
    return collected
      ? `Your turn: choose another card (${test}) or stop and bank ${collected}`
      : `Your turn: choose a card next to the mouse (${test})`;
  }
  return `${who} is choosing cards (${test})${collected ? `, ${collected} set aside` : ""}`;
}

function render(ctx) {
  const view = ctx.view;
  const acts = actionsOf(ctx);
  return h(
    "div",
    { class: "hee" },
    h(
      "div",
      { class: "hee-top" },
      renderDice(ctx),
      h(
        "div",
        { class: "draw-pile", "aria-label": `Draw pile: ${view.draw_pile} cards` },
        h("span", { class: "card back small" }, h("span", { class: "back-pattern" })),
        h("span", {}, `Draw pile: ${view.draw_pile}`),
      ),
      h("div", { class: "target" }, `First to ${view.target} cards wins`),
    ),
    renderClaims(ctx, acts),
    renderGrid(ctx, acts),
    renderTurnBar(ctx, acts),
  );
}

function onKey(event, ctx) {
  const acts = actionsOf(ctx);
  const key = event.key.toLowerCase();
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

function describe(e, ctx) {
  const who = (seat) => ctx.name(seat);
  switch (e.type) {
    case "turn_started": {
      const cat = CATEGORY[e.roll.category].label.toLowerCase();
      const start = e.extra ? `${who(e.seat)} take${e.seat === ctx.me ? "" : "s"} an extra turn` : `${who(e.seat)}'s turn`;
      return `${start}: rolled ${e.roll.steps} ${e.roll.arrow === "up" ? "↑" : "↓"} (${arrowWords(e.roll.arrow)}) and ${cat}.`;
    }
    case "moved":
      return `${who(e.seat)} moved the mouse from ${cellName(e.from)} to ${cellName(e.to)}.`;
    case "chosen":
      if (e.matched === null || e.matched === undefined) {
        return `${who(e.seat)} turned over ${e.number} at ${cellName(e.cell)}.`;
      }
      return `${who(e.seat)} chose ${e.number} at ${cellName(e.cell)}: ${e.matched ? "it fits, set aside" : "it does not fit, the turn is over"}.`;
    case "race_opened":
      return `A mouse is showing at ${cellName(e.cell)} (${e.number}): first to shout Eeek! takes it.`;
    case "race_closed":
      return `Nobody claimed the mouse at ${cellName(e.cell)} in time; it stays face up.`;
    case "claimed":
      return `${who(e.seat)} shouted Eeek! and took the mouse card ${e.number} from ${cellName(e.cell)}.`;
    case "banked":
      return `${who(e.seat)} banked ${listWords(e.cards.map(String))}: ${e.pile_size} card${e.pile_size === 1 ? "" : "s"} in the pile.`;
    case "lost":
      return `${who(e.seat)} lost ${listWords(e.cards.map(String))} to the bottom of the draw pile.`;
    case "refilled":
      return e.face_up
        ? `${e.number} was dealt face up at ${cellName(e.cell)}.`
        : `A card was dealt face down at ${cellName(e.cell)}.`;
    case "left_in_grid":
      return `The missed card stays at ${cellName(e.cell)}, ${e.face_up ? "face up" : "face down"}.`;
    case "extra_turn":
      return `${who(e.seat)} took every card around the mouse: an extra turn!`;
    case "look_opened":
      return `${listWords(e.cells.map(cellName))} turned up: everyone looks for a hidden mouse.`;
    case "responded":
      return `${who(e.seat)} answered.`;
    case "look_closed": {
      if (!e.claims.length) return "Nobody shouted Eeek!.";
      return e.claims
        .map(
          (c) =>
            `${who(c.seat)} shouted Eeek! for ${c.number} after ${(c.reaction_ms / 1000).toFixed(2)} s: ${
              c.won ? "a mouse, and first!" : c.mouse ? "a mouse, but too slow." : "no mouse there."
            }`,
        )
        .join(" ");
    }
    case "false_claim":
      return `${who(e.seat)} shouted Eeek! for nothing and misses ${e.skips > 1 ? `${e.skips} turns` : "the next turn"}.`;
    case "turn_missed":
      return `${who(e.seat)} misses this turn (a false Eeek!).`;
    case "judged":
      return `${e.number} at ${cellName(e.cell)} ${e.matched ? "fits: set aside" : "does not fit: the turn is over"}.`;
    case "game_over":
      return e.winners.length
        ? `Game over: ${listWords(e.winners.map(who))} ${e.winners.length > 1 ? "share the victory" : e.winners[0] === ctx.me ? "win" : "wins"}.`
        : "Game over.";
    default:
      return null;
  }
}

export default { id: "hide_and_eeek", title: "Hide and Eeek!", render, describe, headline, playerInfo, onKey };
