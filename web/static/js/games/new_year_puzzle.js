// The New Year picture puzzle: the 8 x 8 picture ("Midnight over the snowy market square") with its face-down
// and exposed cards, the reward pile (face down from rules version 2, face up in version 1), each player's
// points, collected reward cards and waiting conditions.
// The view is `rules::games::new_year_puzzle::PuzzleView`; actions `reveal {position}` and `stop` (decline an
// extra move, or pass a first move); events `PuzzleEvent` (docs/rules/new-year-puzzle.md, "Wire form").

import { h } from "../ui.js";
import { listWords } from "../words.js";

const SIZE = 8;
const COLUMNS = "ABCDEFGH";
/** Rows 0-3 show the night sky, rows 4-7 the snowy town (the engine's SKY_LAST_ROW). */
const SKY_LAST_ROW = 3;
const CORNERS = [0, 7, 56, 63];

/** What each card of the picture shows, by position (the scene in docs/rules/new-year-puzzle.md). */
const SCENE = [
  "crescent moon", "stars", "red rocket burst", "the weathercock", "a star by the weathercock", "gold rocket burst", "stars", "shooting star",
  "falling red sparks", "the red burst's tail", "a rising rocket", "the spire, left", "the spire, right", "the gold burst's tail", "green rocket burst", "the Plough",
  "stars", "a rocket trail", "silver fountain of sparks", "the clock at midnight, left", "the clock at midnight, right", "a rocket trail", "green sparks", "a drifting paper lantern",
  "snowy hills", "a distant church spire", "tops of snowy pines", "the belfry bell, left", "the belfry bell, right", "chimney smoke", "tenement gables", "snowy hills",
  "a snowy roof", "chimney with the chimney sweep", "roof with a lit attic window", "town-hall roof, left", "town-hall roof, right", "roof with a stork's nest", "chimney with smoke", "icicles on a gutter",
  "windows of a party", "a couple toasting with champagne", "a garland of lights", "town-hall door, left, with a wreath", "town-hall door, right", "a balcony of onlookers", "a window with a cat", "a lit shop window",
  "a street lamp in the snow", "children with sparklers", "a couple dancing", "the town-hall steps, left", "the town-hall steps, right", "the brass band", "a crowd counting down", "a snowball fight",
  "a snowman", "a sledge", "confetti in the snow", "the frozen fountain, left", "the frozen fountain, right", "a marzipan-pig stall", "a horse-drawn sleigh", "a horseshoe in the snow",
];

/** A small picture sign per card, so the board reads as a picture and not a table of numbers. Only signs that
 * the fonts of a plain Debian desktop draw (no emoji). */
const GLYPH = [
  "☾", "✦", "✺", "⚑", "✧", "✺", "✦", "☄",
  "⁂", "∿", "↑", "▲", "▲", "∿", "✺", "✶",
  "✦", "⋰", "✹", "◷", "◶", "⋱", "⁂", "◈",
  "⌒", "♜", "♣", "♪", "♪", "∿", "⌂", "⌒",
  "⌂", "♜", "▣", "⌂", "⌂", "⌂", "♜", "⋱",
  "▦", "♡", "∿", "◙", "◙", "▤", "◙", "▦",
  "♆", "✧", "♫", "▭", "▭", "♪", "◷", "●",
  "☃", "▭", "⁘", "◎", "◎", "▥", "♞", "∩",
];

const REWARD_NAMES = {
  confetti: "Confetti",
  sparkler: "Sparkler",
  marzipan_pig: "Marzipan pig",
  fireworks: "Fireworks",
  champagne_toast: "Champagne toast",
  midnight_kiss: "Midnight kiss",
  broken_glass: "Broken glass",
  overslept: "Overslept the countdown",
  hangover: "Hangover",
  snowed_in: "Snowed in",
  chimney_sweep: "Chimney sweep",
  starry_sky: "Starry sky",
  snowball_fight: "Snowball fight",
  puzzle_master: "Puzzle master",
  midnight_chime: "Midnight chime",
  lucky_horseshoe: "Lucky horseshoe",
  hard_frost: "Hard frost",
  wax_fortune: "Wax fortune",
  resolution: "New Year's resolution",
};

function rewardName(key) {
  return REWARD_NAMES[key] || String(key).replace(/_/g, " ");
}

export function positionName(p) {
  return `${COLUMNS[p % SIZE]}${Math.floor(p / SIZE) + 1}`;
}

/** A square card by what it shows and where it belongs in the picture. */
function cardWords(card) {
  return `“${SCENE[card]}” (it belongs at ${positionName(card)})`;
}

function conditionWords(c) {
  switch (c.kind) {
    case "placed_on_border":
      return "if the card you placed lies on the picture's border";
    case "placed_in_sky":
      return "if the card you placed lies in the sky";
    case "placed_on_ground":
      return "if the card you placed lies on the ground";
    case "placed_touching":
      return `if the card you placed touches ${c.at_least} or more face-up cards`;
    case "completes_line":
      return "if the card you placed completed its row or column";
    case "lowest_score":
      return "if your score is the lowest at the table";
    case "behind_someone":
      return "if another player has more points than you";
    case "next_reveal_succeeds":
      return "if your next reveal is a success";
    default:
      return String(c.kind).replace(/_/g, " ");
  }
}

function effectWords(e) {
  switch (e.kind) {
    case "gain":
      return `you gain ${e.points}`;
    case "others_lose":
      return `every other player loses ${e.points}`;
    case "leaders_lose":
      return `the leaders lose ${e.points}`;
    default:
      return `${String(e.kind).replace(/_/g, " ")} ${e.points}`;
  }
}

function signed(n) {
  return n > 0 ? `+${n}` : String(n);
}

/** The pile: its top card when it lies face up (rules version 1), else its back. */
function rewardPile(view) {
  if (view.pile_left === 0) {
    return h("div", { class: "reward-card empty" }, "The reward pile is empty: a success scores 1 and ends the turn.");
  }
  if (view.pile_face_up) return rewardCard(view.pile_top);
  return h(
    "div",
    { class: "reward-card", "aria-label": `The reward pile, face down: ${view.pile_left} cards` },
    h("strong", { class: "reward-name" }, "Face down"),
    h("span", { class: "reward-bonus" }, "A success draws the top card: nobody knows it before."),
  );
}

function rewardCard(card) {
  return h(
    "div",
    { class: "reward-card", "aria-label": "Top card of the reward pile" },
    h("span", { class: "reward-points" }, signed(card.points)),
    h("strong", { class: "reward-name" }, card.name),
    card.bonus
      ? h("span", { class: "reward-bonus" }, `${conditionWords(card.bonus.condition)}: ${effectWords(card.bonus.effect)}`)
      : null,
    card.ends_turn ? h("span", { class: "reward-ends" }, "No further move") : null,
  );
}

/** What the latest update showed: the failed card (to remember) and the placed ones. */
function latest(ctx) {
  const out = { failed: null, placed: new Set(), moved: new Set() };
  if (ctx.state.since >= ctx.state.version) return out;
  for (const e of ctx.state.events) {
    if (e.type === "failed") out.failed = e;
    if (e.type === "placed") {
      out.placed.add(e.card);
      if (e.swapped) out.moved.add(e.from);
    }
  }
  return out;
}

function renderBoard(ctx) {
  const view = ctx.view;
  const reveals = new Map();
  for (const a of ctx.legal) if (a.type === "reveal") reveals.set(a.position, a);
  const recent = latest(ctx);
  const exposed = new Set(view.exposed || []);
  const tiles = view.board.map((card, p) => {
    const row = Math.floor(p / SIZE);
    const name = positionName(p);
    const action = reveals.get(p);
    const classes = ["tile", row <= SKY_LAST_ROW ? "sky" : "ground"];
    let content;
    let label;
    if (card === null) {
      classes.push("down");
      const shown = recent.failed && recent.failed.position === p ? recent.failed.card : null;
      content = [h("span", { class: "tile-back", "aria-hidden": "true" })];
      if (shown !== null) {
        classes.push("just-failed");
        content.push(
          h(
            "span",
            { class: "peek", "aria-hidden": "true" },
            h("span", { class: "glyph" }, GLYPH[shown]),
            h("span", { class: "peek-name" }, `→ ${positionName(shown)}`),
          ),
        );
      }
      label = `${name}: face-down card${shown !== null ? `, just shown: ${cardWords(shown)}` : ""}${recent.moved.has(p) ? ", a face-down card just moved here" : ""}`;
      if (recent.moved.has(p)) classes.push("just-moved");
    } else if (exposed.has(p)) {
      // Face up, not in the picture: shown twice without fitting. It can be taken once it fits.
      classes.push("up", "exposed");
      if (recent.failed && recent.failed.position === p) classes.push("just-failed");
      if (recent.moved.has(p)) classes.push("just-moved");
      content = [
        h("span", { class: "glyph", "aria-hidden": "true" }, GLYPH[card]),
        h("span", { class: "scene", "aria-hidden": "true" }, `→ ${positionName(card)}`),
      ];
      label = `${name}: exposed card ${cardWords(card)}, face up, not in the picture yet`;
    } else {
      classes.push("up");
      if (CORNERS.includes(p)) classes.push("corner");
      if (recent.placed.has(p)) classes.push("just-placed");
      content = [
        h("span", { class: "glyph", "aria-hidden": "true" }, GLYPH[card]),
        h("span", { class: "scene", "aria-hidden": "true" }, SCENE[card]),
        CORNERS.includes(p) ? h("span", { class: "star", "aria-hidden": "true" }, "★") : null,
      ];
      label = `${name}: ${SCENE[card]}, in the picture`;
    }
    return h(
      "button",
      {
        type: "button",
        class: classes.join(" "),
        style: exposed.has(p) ? "outline: 3px dashed #e6b800; outline-offset: -4px; opacity: 0.85" : null,
        role: "gridcell",
        disabled: !action,
        "aria-label": action ? (exposed.has(p) ? `Take the exposed card at ${name}: ${cardWords(card)}` : `Reveal the card at ${name}`) : label,
        title: action ? (exposed.has(p) ? `Take ${cardWords(card)}` : `Reveal ${name}`) : null,
        "data-key": `tile-${p}`,
        "data-position": p,
        "data-act": action ? "reveal" : null,
        onclick: action ? () => ctx.act(action) : null,
      },
      content,
    );
  });
  const rows = [];
  rows.push(
    h("div", { class: "ny-row head", role: "row" }, h("span", {}), [...COLUMNS].map((c) => h("span", { class: "col-head", role: "columnheader" }, c))),
  );
  for (let r = 0; r < SIZE; r++) {
    rows.push(
      h(
        "div",
        { class: "ny-row", role: "row" },
        h("span", { class: "row-head", role: "rowheader" }, String(r + 1)),
        tiles.slice(r * SIZE, (r + 1) * SIZE),
      ),
    );
  }
  return h(
    "div",
    {
      class: "ny-board",
      role: "grid",
      "aria-label": "The picture: columns A to H, rows 1 to 8. Rows 1 to 4 are the sky, 5 to 8 the town.",
      onkeydown: boardKeys,
    },
    rows,
  );
}

/** Arrow keys walk the focus over the face-down cards that can be revealed. */
function boardKeys(event) {
  const steps = { ArrowUp: -SIZE, ArrowDown: SIZE, ArrowLeft: -1, ArrowRight: 1 };
  const step = steps[event.key];
  const from = event.target.closest?.("[data-position]");
  if (!step || !from) return;
  let p = Number(from.dataset.position);
  for (let i = 0; i < SIZE * SIZE; i++) {
    const next = p + step;
    if (next < 0 || next >= SIZE * SIZE) break;
    if (Math.abs(step) === 1 && Math.floor(next / SIZE) !== Math.floor(p / SIZE)) break;
    p = next;
    const el = event.currentTarget.querySelector(`[data-position="${p}"]:not([disabled])`);
    if (el) {
      el.focus();
      event.preventDefault();
      return;
    }
  }
}

function render(ctx) {
  const view = ctx.view;
  const stop = ctx.legal.find((a) => a.type === "stop");
  const recent = latest(ctx);
  const mine = view.turn !== null && view.turn === ctx.me;
  return h(
    "div",
    { class: "ny" },
    h(
      "div",
      { class: "ny-top" },
      h("div", { class: "pile" }, h("span", { class: "label" }, `Reward pile (${view.pile_left})`), rewardPile(view)),
      h("p", { class: "ny-count" }, `${view.face_down} card${view.face_down === 1 ? "" : "s"} still face down`),
    ),
    recent.failed
      ? h(
          "p",
          { class: "ny-failed", role: "status" },
          recent.failed.exposed
            ? `${ctx.name(recent.failed.seat)} turned over ${cardWords(recent.failed.card)} at ${positionName(recent.failed.position)} again: everyone had seen it, so it stays face up. Anyone may take it once it fits.`
            : `${ctx.name(recent.failed.seat)} turned over ${cardWords(recent.failed.card)} at ${positionName(recent.failed.position)}: it does not fit yet and lies face down again. Remember where it is!`,
        )
      : null,
    renderBoard(ctx),
    mine && (stop || ctx.legal.length)
      ? h(
          "div",
          { class: "turn-bar" },
          stop
            ? h(
                "button",
                { type: "button", class: "primary stop", "data-key": "stop", "data-act": "stop", "aria-keyshortcuts": "S", onclick: () => ctx.act(stop) },
                view.extra_move ? "Stop and pass the turn" : "Pass",
                h("kbd", {}, "S"),
              )
            : null,
          h(
            "p",
            { class: "hint keys" },
            !view.extra_move && view.rules_version >= 2 && !stop
              ? "Everyone else has passed: you must reveal a card. Click a face-down card, or use Tab / the arrow keys and Enter."
              : "Click a face-down card, or use Tab / the arrow keys and Enter.",
          ),
        )
      : null,
  );
}

function playerInfo(seat, ctx) {
  const view = ctx.view;
  const rewards = view.rewards[seat] || [];
  const pending = view.pending.filter((p) => p.seat === seat);
  return h(
    "span",
    { class: "ny-player" },
    h("span", { class: "score" }, `${view.scores[seat]} point${Math.abs(view.scores[seat]) === 1 ? "" : "s"}`),
    h("span", { class: "hint" }, ` · ${view.placed[seat]} placed`),
    rewards.length ? h("span", { class: "hint rewards" }, ` · ${rewards.map(rewardName).join(", ")}`) : null,
    pending.length ? h("span", { class: "tag" }, `waiting: ${pending.map((p) => rewardName(p.reward)).join(", ")}`) : null,
  );
}

function headline(ctx) {
  const view = ctx.view;
  if (view.turn === null || ctx.state.outcome) return "The picture is complete";
  if (view.turn === ctx.me) {
    if (view.extra_move) return "Extra move: reveal another card, or stop";
    const canPass = ctx.legal.some((a) => a.type === "stop");
    return canPass ? "Your turn: reveal a face-down card, or pass" : "Your turn: reveal a face-down card";
  }
  return `${ctx.name(view.turn)} is revealing${view.extra_move ? " (extra move)" : ""}`;
}

function onKey(event, ctx) {
  const stop = ctx.legal.find((a) => a.type === "stop");
  if (event.key.toLowerCase() === "s" && stop) {
    ctx.act(stop);
    return true;
  }
  return false;
}

function describe(e, ctx) {
  const who = (s) => ctx.name(s);
  switch (e.type) {
    case "failed":
      return e.exposed
        ? `${who(e.seat)} turned over ${cardWords(e.card)} at ${positionName(e.position)}: no fit, and everyone had seen it, so it stays face up.`
        : `${who(e.seat)} turned over ${cardWords(e.card)} at ${positionName(e.position)}: no fit, face down again.`;
    case "placed":
      return `${who(e.seat)} found ${cardWords(e.card)} at ${positionName(e.from)} and put it in the picture${e.swapped ? `; the face-down card from ${positionName(e.card)} moved to ${positionName(e.from)}` : ""}.`;
    case "reward_drawn":
      return `${who(e.seat)} took ${rewardName(e.reward)} (${signed(e.points)}).`;
    case "pile_empty":
      return `The reward pile is empty: ${who(e.seat)} scores ${e.points} and the turn ends.`;
    case "bonus": {
      if (!e.met) return `${rewardName(e.reward)}: the condition was not met.`;
      const changes = e.changes.map((c) => `${who(c.seat)} ${signed(c.delta)}`);
      return `${rewardName(e.reward)}: met! ${listWords(changes)}.`;
    }
    case "bonus_pending":
      return `${rewardName(e.reward)} waits for ${who(e.seat) === "You" ? "your" : `${who(e.seat)}'s`} next reveal.`;
    case "bonus_lapsed":
      return `${rewardName(e.reward)} lapsed: the game ended first.`;
    case "extra_move":
      return `${who(e.seat)} may move again.`;
    case "stopped":
      return `${who(e.seat)} stopped.`;
    case "passed":
      return `${who(e.seat)} passed.`;
    case "turn_passed":
      return `${who(e.seat)}'s turn.`;
    case "game_over":
      return "The picture is complete: game over.";
    default:
      return null;
  }
}

export default { id: "new_year_puzzle", title: "New Year Picture Puzzle", render, describe, headline, playerInfo, onKey };
