// The New Year picture puzzle: the 8 x 8 picture ("Midnight over the snowy market square") with its face-down
// and exposed cards, the reward pile (face down from rules version 2, face up in version 1), each player's
// points, collected reward cards and waiting conditions.
// The view is `rules::games::new_year_puzzle::PuzzleView`; actions `reveal {position}` and `stop` (decline an
// extra move, or pass a first move); events `PuzzleEvent` (docs/rules/new-year-puzzle.md, "Wire form").

import { h } from "../ui.js";
import { t, listOf } from "../i18n.js";
import { tip, say, rulesPanel } from "../table_tips.js";

const SIZE = 8;
const COLUMNS = "ABCDEFGH";
/** Rows 0-3 show the night sky, rows 4-7 the snowy town (the engine's SKY_LAST_ROW). */
const SKY_LAST_ROW = 3;
const CORNERS = [0, 7, 56, 63];
/** The picture (an 800 x 800 SVG); card k is the 100 x 100 window at row k / 8, column k % 8. */
const PICTURE = "/new-year.svg";

/** Every reward card's key, in the order of docs/rules/new-year-puzzle.md. */
export const REWARDS = [
  "confetti", "sparkler", "marzipan_pig", "fireworks", "champagne_toast", "midnight_kiss", "broken_glass", "overslept",
  "hangover", "snowed_in", "chimney_sweep", "starry_sky", "snowball_fight", "puzzle_master", "midnight_chime",
  "lucky_horseshoe", "hard_frost", "wax_fortune", "resolution",
];

function rewardName(key) {
  return REWARDS.includes(key) ? t(`new_year_puzzle.reward.${key}`) : t("new_year_puzzle.reward.unknown");
}

/** A collected or pending reward card by name, with what it did as a popover. */
function rewardTip(key, cls = "") {
  return tip(rewardName(key), REWARDS.includes(key) ? t(`new_year_puzzle.reward_tip.${key}`) : "", { cls: `ny-reward${cls ? ` ${cls}` : ""}` });
}

export function positionName(p) {
  return `${COLUMNS[p % SIZE]}${Math.floor(p / SIZE) + 1}`;
}

/** The picture's window for card `card`: the part of the scene it shows. */
function cardArt(card, cls = "ny-art") {
  const x = (card % SIZE) * 100;
  const y = Math.floor(card / SIZE) * 100;
  return h(
    "svg:svg",
    { class: cls, viewBox: `${x} ${y} 100 100`, preserveAspectRatio: "xMidYMid slice", "aria-hidden": "true" },
    h("svg:image", { href: PICTURE, x: "0", y: "0", width: "800", height: "800" }),
  );
}

function conditionWords(c) {
  const known = ["placed_on_border", "placed_in_sky", "placed_on_ground", "placed_touching", "completes_line", "lowest_score", "behind_someone", "next_reveal_succeeds"];
  return known.includes(c.kind) ? t(`new_year_puzzle.if.${c.kind}`, { n: c.at_least ?? 0 }) : t("new_year_puzzle.if.unknown");
}

function effectWords(e) {
  const known = ["gain", "others_lose", "leaders_lose"];
  return known.includes(e.kind) ? t(`new_year_puzzle.then.${e.kind}`, { n: e.points }) : t("new_year_puzzle.then.unknown", { n: e.points });
}

function signed(n) {
  return n > 0 ? `+${n}` : String(n);
}

/** The pile: its top card when it lies face up (rules version 1), else its back. */
function rewardPile(view) {
  if (view.pile_left === 0) {
    return h("div", { class: "reward-card empty" }, t("new_year_puzzle.pile.empty"));
  }
  if (view.pile_face_up) return rewardCard(view.pile_top);
  return h(
    "div",
    { class: "reward-card back", "aria-label": t("new_year_puzzle.pile.down_label", { n: view.pile_left }) },
    h("strong", { class: "reward-name" }, t("new_year_puzzle.pile.down")),
    h("span", { class: "reward-bonus" }, t("new_year_puzzle.pile.down_help")),
  );
}

function rewardCard(card) {
  return h(
    "div",
    { class: "reward-card", "aria-label": t("new_year_puzzle.pile.top") },
    h("span", { class: "reward-points" }, signed(card.points)),
    h("strong", { class: "reward-name" }, rewardName(card.reward)),
    card.bonus
      ? h("span", { class: "reward-bonus" }, t("new_year_puzzle.bonus", { condition: conditionWords(card.bonus.condition), effect: effectWords(card.bonus.effect) }))
      : null,
    card.ends_turn ? h("span", { class: "reward-ends" }, t("new_year_puzzle.ends_turn")) : null,
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

/** The label of a card that plays an action. */
export function tileVerb(action, view) {
  const exposed = new Set(view.exposed || []);
  if (action.type === "stop") return view.extra_move ? t("new_year_puzzle.act.stop") : t("new_year_puzzle.act.pass");
  const p = action.position;
  if (exposed.has(p)) return t("new_year_puzzle.act.take", { at: positionName(p), home: positionName(view.board[p]) });
  return t("new_year_puzzle.act.reveal", { at: positionName(p) });
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
          h("span", { class: "peek", "aria-hidden": "true" }, cardArt(shown, "ny-art peek-art"), h("span", { class: "peek-name" }, `→ ${positionName(shown)}`)),
        );
      }
      label = shown !== null ? t("new_year_puzzle.tile.down_shown", { at: name, home: positionName(shown) }) : t("new_year_puzzle.tile.down", { at: name });
      if (recent.moved.has(p)) {
        classes.push("just-moved");
        label = `${label} ${t("new_year_puzzle.tile.moved_here")}`;
      }
    } else if (exposed.has(p)) {
      // Face up, not in the picture: shown twice without fitting. It can be taken once it fits.
      classes.push("up", "exposed");
      if (recent.failed && recent.failed.position === p) classes.push("just-failed");
      if (recent.moved.has(p)) classes.push("just-moved");
      content = [cardArt(card), h("span", { class: "home-tag", "aria-hidden": "true" }, `→ ${positionName(card)}`)];
      label = t("new_year_puzzle.tile.exposed", { at: name, home: positionName(card) });
    } else {
      classes.push("up", "placed");
      if (CORNERS.includes(p)) classes.push("corner");
      if (recent.placed.has(p)) classes.push("just-placed");
      content = [cardArt(card), CORNERS.includes(p) ? h("span", { class: "star", "aria-hidden": "true" }, "★") : null];
      label = t("new_year_puzzle.tile.placed", { at: name });
    }
    return h(
      "button",
      {
        type: "button",
        class: classes.join(" "),
        role: "gridcell",
        disabled: !action,
        "aria-label": action ? tileVerb(action, view) : label,
        title: action ? tileVerb(action, view) : null,
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
  return h("div", { class: "ny-board", role: "grid", "aria-label": t("new_year_puzzle.board.label"), onkeydown: boardKeys }, rows);
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
  const failed = recent.failed;
  return h(
    "div",
    { class: "ny" },
    h(
      "div",
      { class: "ny-top" },
      h("div", { class: "pile" }, h("span", { class: "label" }, t("new_year_puzzle.pile", { n: view.pile_left })), rewardPile(view)),
      h("p", { class: "ny-count" }, t("new_year_puzzle.face_down", { n: view.face_down })),
    ),
    h(
      "p",
      { class: `ny-failed${failed ? "" : " idle"}`, role: "status" },
      failed
        ? say(ctx, failed.exposed ? "new_year_puzzle.failed.exposed" : "new_year_puzzle.failed", failed.seat, {
            at: positionName(failed.position),
            home: positionName(failed.card),
          })
        : t("new_year_puzzle.failed.idle"),
    ),
    renderBoard(ctx),
    mine && (stop || ctx.legal.length)
      ? h(
          "div",
          { class: "turn-bar" },
          stop
            ? h(
                "button",
                { type: "button", class: "primary stop", "data-key": "stop", "data-act": "stop", "aria-keyshortcuts": "S", onclick: () => ctx.act(stop) },
                tileVerb(stop, view),
                h("kbd", {}, "S"),
              )
            : null,
          h(
            "p",
            { class: "hint keys" },
            !view.extra_move && view.rules_version >= 2 && !stop ? t("new_year_puzzle.keys.must") : t("new_year_puzzle.keys"),
          ),
        )
      : null,
  );
}

/** Collected reward cards, each kind once with how many: [[key, count]] in the order first drawn. */
function countRewards(keys) {
  const counts = new Map();
  for (const k of keys) counts.set(k, (counts.get(k) || 0) + 1);
  return [...counts];
}

function playerInfo(seat, ctx) {
  const view = ctx.view;
  const rewards = view.rewards[seat] || [];
  const pending = view.pending.filter((p) => p.seat === seat);
  return h(
    "span",
    { class: "ny-player" },
    h("span", { class: "score" }, t("new_year_puzzle.points", { n: view.scores[seat] })),
    h("span", { class: "hint" }, ` · ${t("new_year_puzzle.placed", { n: view.placed[seat] })}`),
    rewards.length
      ? h("span", { class: "hint rewards" }, " · ", countRewards(rewards).map(([r, n], i) => [i ? ", " : null, rewardTip(r), n > 1 ? ` ×${n}` : null]))
      : null,
    pending.length
      ? h("span", { class: "tag" }, t("new_year_puzzle.waiting"), " ", pending.map((p, i) => [i ? ", " : null, rewardTip(p.reward)]))
      : null,
  );
}

export function headline(ctx) {
  const view = ctx.view;
  if (view.turn === null || ctx.state.outcome) return t("new_year_puzzle.head.over");
  if (view.turn === ctx.me) {
    if (view.extra_move) return t("new_year_puzzle.head.extra.you");
    const canPass = ctx.legal.some((a) => a.type === "stop");
    return canPass ? t("new_year_puzzle.head.turn_pass.you") : t("new_year_puzzle.head.turn.you");
  }
  return t(view.extra_move ? "new_year_puzzle.head.extra" : "new_year_puzzle.head.turn", { who: ctx.name(view.turn) });
}

function onKey(event, ctx) {
  const stop = ctx.legal.find((a) => a.type === "stop");
  if (event.key.toLowerCase() === "s" && stop) {
    ctx.act(stop);
    return true;
  }
  return false;
}

/** The log's plain words for one event. */
export function describe(e, ctx) {
  switch (e.type) {
    case "failed":
      return say(ctx, e.exposed ? "new_year_puzzle.log.failed_exposed" : "new_year_puzzle.log.failed", e.seat, {
        at: positionName(e.position),
        home: positionName(e.card),
      });
    case "placed":
      return e.swapped
        ? say(ctx, "new_year_puzzle.log.placed_swapped", e.seat, { at: positionName(e.from), home: positionName(e.card) })
        : say(ctx, "new_year_puzzle.log.placed", e.seat, { at: positionName(e.from), home: positionName(e.card) });
    case "reward_drawn":
      return say(ctx, "new_year_puzzle.log.reward", e.seat, { reward: rewardName(e.reward), points: signed(e.points) });
    case "pile_empty":
      return say(ctx, "new_year_puzzle.log.pile_empty", e.seat, { n: e.points });
    case "bonus": {
      if (!e.met) return t("new_year_puzzle.log.bonus_missed", { reward: rewardName(e.reward) });
      const changes = e.changes.map((c) => t("new_year_puzzle.log.change", { who: ctx.name(c.seat), points: signed(c.delta) }));
      return t("new_year_puzzle.log.bonus_met", { reward: rewardName(e.reward), changes: listOf(changes) });
    }
    case "bonus_pending":
      return say(ctx, "new_year_puzzle.log.bonus_pending", e.seat, { reward: rewardName(e.reward) });
    case "bonus_lapsed":
      return t("new_year_puzzle.log.bonus_lapsed", { reward: rewardName(e.reward) });
    case "extra_move":
      return say(ctx, "new_year_puzzle.log.extra_move", e.seat);
    case "stopped":
      return say(ctx, "new_year_puzzle.log.stopped", e.seat);
    case "passed":
      return say(ctx, "new_year_puzzle.log.passed", e.seat);
    case "turn_passed":
      return say(ctx, "new_year_puzzle.log.turn", e.seat);
    case "game_over":
      return t("new_year_puzzle.log.game_over");
    default:
      return null;
  }
}

/** "How to play": the rules as this server plays them, in a player's words. */
export function rules() {
  const panel = rulesPanel("new_year_puzzle", [
    ["new_year_puzzle.rules.goal.title", "new_year_puzzle.rules.goal"],
    ["new_year_puzzle.rules.turn.title", "new_year_puzzle.rules.turn"],
    ["new_year_puzzle.rules.rewards.title", "new_year_puzzle.rules.rewards"],
  ]);
  panel.append(
    h(
      "section",
      {},
      h("h3", {}, t("new_year_puzzle.rules.cards.title")),
      h("ul", { class: "ny-reward-list" }, REWARDS.map((key) => h("li", {}, h("strong", {}, rewardName(key)), ": ", t(`new_year_puzzle.reward_tip.${key}`)))),
    ),
  );
  return panel;
}

/** The game's picture for the start page: the whole New Year picture the cards fill in. */
export function picture() {
  return h("img", { src: "/new-year.svg", alt: "", width: "120", height: "120" });
}

export default { id: "new_year_puzzle", title: "New Year Picture Puzzle", render, describe, headline, playerInfo, onKey, rules, picture };
