// Hide and Eeek!: the 6 x 6 grid of elephant cards with the mouse figure, the two dice, every player's scoring pile,
// the cards set aside this turn and the Eeek! claim button that appears the moment a hidden mouse shows.
// The view is `rules::games::hide_and_eeek::View`; actions and events are that engine's `Action` and `EventBody`.

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

/** The legal actions sorted by what they touch. */
function actionsOf(ctx) {
  const out = { move: new Map(), choose: new Map(), eeek: new Map(), stop: null };
  for (const a of ctx.legal) {
    if (a.type === "move") out.move.set(cellName(a.to), a);
    else if (a.type === "choose") out.choose.set(cellName(a.cell), a);
    else if (a.type === "eeek") out.eeek.set(cellName(a.cell), a);
    else if (a.type === "stop") out.stop = a;
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
  }
  return cells;
}

function cardFace(cell, view) {
  if (cell.card === "face_down") return h("span", { class: "card back" }, h("span", { class: "back-pattern" }));
  if (cell.card === "face_up") {
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
      else if (eeek) verb = `Eeek! Claim the mouse card ${cell.number} at ${name}`;
      const classes = ["cell"];
      if (move) classes.push("can-move");
      if (choose) classes.push("can-choose");
      if (eeek) classes.push("can-claim");
      if (name === raceCell) classes.push("race-cell");
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

function renderClaims(ctx, acts) {
  const view = ctx.view;
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
  if (mine && !view.race && (acts.move.size || acts.choose.size)) {
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
    owed ? h("span", { class: "tag" }, "plays next (claimed a mouse)") : null,
  );
}

function headline(ctx) {
  const view = ctx.view;
  if (view.over || ctx.state.outcome) return "Game over";
  const mine = ctx.me === view.turn;
  const who = ctx.name(view.turn);
  const cat = CATEGORY[view.roll.category];
  if (view.race) return "Eeek! A mouse is showing: grab it before the others!";
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
        return `${who(e.seat)} turned over ${e.number} at ${cellName(e.cell)}: a mouse card! Eeek!`;
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
    case "game_over":
      return e.winners.length
        ? `Game over: ${listWords(e.winners.map(who))} ${e.winners.length > 1 ? "share the victory" : e.winners[0] === ctx.me ? "win" : "wins"}.`
        : "Game over.";
    default:
      return null;
  }
}

export default { id: "hide_and_eeek", title: "Hide and Eeek!", render, describe, headline, playerInfo, onKey };
