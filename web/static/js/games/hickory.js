// Hickory Dickory: the clock drawn in SVG (12 numbers, each with an outer-ring space holding its action token, a cat
// paw, a tile and working mice, and an inner-ring space with waiting mice), the hour and minute hands with the mice
// riding the minute hand front (tip) to back, Itzy's web, the missions, the pine cone on the chain, and each
// player's mouse cards with their tiles, hunt board and score by source. Mice are figures in their player's colour
// with their seat number and an emblem of their kind; tiles are drawn items in their colour.
// Every choice is made on the table: a number of the clock (place a mouse, hop off, step out, scurry, call the
// scamp), a mouse (which one moves; stay on the hand), a token, a tile (keep, deliver, swap), a favour card or a
// hunt-board space. All moves are also listed as buttons, the keyboard path.
// The view is `rules::games::hickory::HickoryView`; actions `HickoryAction`; events `HickoryEvent`
// (docs/rules/hickory-dickory.md, §8).

import { h, SEAT_COLOURS } from "../ui.js";
import { t, listOf } from "../i18n.js";
import { infoTip } from "../info_tip.js";
import { say } from "../table_tips.js";

const A = "hickory_dickory";
const MICE = ["scurrier", "spotter", "scavenger", "scamp"];
const TOKENS = ["climb", "delivery", "cuckoo_door", "search", "exchange", "favour"];
const COLOURS = ["red", "yellow", "green", "blue", "purple"];
const ITEMS = ["acorn", "berry", "button", "thimble", "key"];
const FAVOURS = ["forage", "web_gift", "clamber"];
const TILE_FILL = { red: "#c62f2f", yellow: "#d9a400", green: "#2e7d3a", blue: "#2359b5", purple: "#7b3fb8" };

/** Choices made on the page before a move is sent: which mouse to place or move, which tile to give in a swap. */
const local = { mouse: null, give: null, version: -1 };

// ---- words (pure: view/action/event in, text out) ----------------------------------------------------------------

const known = (list, value, key, fallback) => (list.includes(value) ? t(`${A}.${key}.${value}`) : t(`${A}.${fallback}`));

export function mouseName(m) {
  return known(MICE, m, "mouse", "mouse.unknown");
}

function tokenName(token) {
  return known(TOKENS, token, "token", "token.unknown");
}

function colourName(c) {
  return known(COLOURS, c, "colour", "colour.unknown");
}

function itemName(i) {
  return known(ITEMS, i, "item", "item.unknown");
}

/** "a red acorn", "a wild", "a golden relic". */
export function tileWords(tile) {
  if (!tile) return t(`${A}.tile.none`);
  if (tile.kind === "item") return t(`${A}.tile.item`, { colour: colourName(tile.colour), item: itemName(tile.item) });
  if (tile.kind === "wild") return t(`${A}.tile.wild`);
  if (tile.kind === "relic") return t(`${A}.tile.relic`);
  return t(`${A}.tile.unknown`);
}

function tilesWords(list) {
  return list && list.length ? listOf(list.map(tileWords)) : t(`${A}.tile.nothing`);
}

function favourName(f) {
  if (!f) return t(`${A}.favour.card`);
  return t(`${A}.favour.named`, { effect: known(FAVOURS, f.effect, "favour", "favour.card"), colour: colourName(f.colour), item: itemName(f.item) });
}

function favourEffect(f) {
  return f && FAVOURS.includes(f.effect) ? t(`${A}.favour.${f.effect}.effect`) : "";
}

const REQUIREMENTS = ["same_colour", "same_item", "distinct_colours", "distinct_items", "tiles", "hunt_spaces"];

function requirementWords(r) {
  return r && REQUIREMENTS.includes(r.kind) ? t(`${A}.requirement.${r.kind}`, { n: r.n }) : "";
}

function missionName(m) {
  if (!m || !m.requirement || !REQUIREMENTS.includes(m.requirement.kind)) return t(`${A}.mission.unknown`);
  return t(`${A}.mission.${m.requirement.kind}.${m.points >= 7 ? "big" : "small"}`);
}

/** Every tile the view shows, by id, so actions naming tile ids can be put in words. */
function tilesById(view) {
  const map = new Map();
  const add = (tile) => tile && map.set(tile.id, tile);
  view.spaces.forEach((s) => add(s.tile));
  view.web_market.forEach(add);
  view.seats.forEach((p) => p.mice.forEach((m) => m.tiles.forEach(add)));
  if (view.decision && view.decision.drawn) view.decision.drawn.forEach(add);
  if (view.decision && view.decision.tiles) view.decision.tiles.forEach(add);
  return map;
}

function favoursById(view) {
  const map = new Map();
  view.seats.forEach((p) => (p.favours || []).forEach((f) => map.set(f.id, f)));
  view.favour_discard.forEach((f) => map.set(f.id, f));
  return map;
}

/** Words for every action the engine lists. */
export function actionLabel(a, view) {
  const tiles = tilesById(view);
  const favours = favoursById(view);
  const tw = (id) => tileWords(tiles.get(id));
  switch (a.type) {
    case "place":
      return t(`${A}.act.place`, { mouse: mouseName(a.mouse), n: a.space });
    case "stay":
      return t(`${A}.act.stay`);
    case "hop_off":
      return t(`${A}.act.hop_off`);
    case "step_out":
      return t(`${A}.act.step_out`, { mouse: mouseName(a.mouse) });
    case "board":
      return t(`${A}.act.board`, { mouse: mouseName(a.mouse) });
    case "scurry":
      return a.steps === 0 ? t(`${A}.act.scurry_none`) : t(`${A}.act.scurry`, { n: a.steps });
    case "climb":
      return t(`${A}.act.climb`);
    case "deliver":
      return t(`${A}.act.deliver`);
    case "add_tile":
      return t(`${A}.act.add_tile`, { tile: tw(a.tile) });
    case "search":
      return t(`${A}.act.search`);
    case "take_favour":
      return t(`${A}.act.take_favour`);
    case "swap":
      return t(`${A}.act.swap`, { give: tw(a.give), take: tw(a.take) });
    case "buy_wild":
      return t(`${A}.act.buy_wild`, { pay: listOf(a.pay.map(tw)) });
    case "call_scamp":
      return t(`${A}.act.call_scamp`, { n: a.space });
    case "play_favour":
      return t(`${A}.act.play_favour`, { card: favourName(favours.get(a.card)) });
    case "keep":
      return t(`${A}.act.keep`, { tile: tw(a.tile) });
    case "add_favour":
      return t(`${A}.act.add_favour`, { card: favourName(favours.get(a.card)) });
    case "finish_delivery":
      return t(`${A}.act.finish_delivery`);
    case "mark_hunt":
      return t(`${A}.act.mark_hunt`, { row: a.row + 1, col: a.col + 1 });
    case "done":
      return t(`${A}.act.done`);
    default:
      return t(`${A}.act.other`);
  }
}

/** One log line for an event, in the viewer's words. */
export function describe(e, ctx) {
  const mouse = (m) => mouseName(m);
  switch (e.type) {
    case "mouse_placed":
      return say(ctx, `${A}.log.mouse_placed`, e.seat, { mouse: mouse(e.mouse), n: e.number });
    case "minute_hand":
      return t(`${A}.log.minute_hand`, { n: e.minute });
    case "stayed":
      return say(ctx, `${A}.log.stayed`, e.seat, { mouse: mouse(e.mouse) });
    case "hopped_off":
      return say(ctx, `${A}.log.hopped_off`, e.seat, { mouse: mouse(e.mouse), n: e.number });
    case "stepped_out":
      return say(ctx, `${A}.log.stepped_out`, e.seat, { mouse: mouse(e.mouse), n: e.number });
    case "boarded":
      return say(ctx, `${A}.log.boarded`, e.seat, { mouse: mouse(e.mouse) });
    case "bumped":
      return say(ctx, `${A}.log.bumped`, e.seat, { mouse: mouse(e.mouse), n: e.number });
    case "paw_blocked":
      return t(`${A}.log.paw_blocked`, { n: e.number });
    case "scurried":
      return say(ctx, e.from === e.to ? `${A}.log.scurried_none` : `${A}.log.scurried`, e.seat, { from: e.from, to: e.to });
    case "scamp_called":
      return say(ctx, `${A}.log.scamp_called`, e.seat, { n: e.number });
    case "tile_collected":
      return say(ctx, `${A}.log.tile_collected`, e.seat, { mouse: mouse(e.mouse), tile: tileWords(e.tile), n: e.number });
    case "tile_left":
      return say(ctx, `${A}.log.tile_left`, e.seat, { mouse: mouse(e.mouse), n: e.number });
    case "climbed":
      return say(ctx, `${A}.log.climbed`, e.seat, { n: e.links, link: e.link });
    case "summit":
      return say(ctx, `${A}.log.summit`, e.seat, { n: e.points, pinecone: e.pinecone });
    case "search_drawn":
      return say(ctx, `${A}.log.search_drawn`, e.seat, { tiles: tilesWords(e.tiles) });
    case "search_kept":
      return say(ctx, `${A}.log.search_kept`, e.seat, { tiles: tilesWords(e.kept) });
    case "delivered":
      return say(ctx, e.favours && e.favours.length ? `${A}.log.delivered_favours` : `${A}.log.delivered`, e.seat, {
        mouse: mouse(e.mouse),
        tiles: tilesWords(e.tiles),
        favours: listOf((e.favours || []).map(favourName)),
        n: e.points + e.relic_points,
      });
    case "hunt_marked":
      return say(ctx, `${A}.log.hunt_marked`, e.seat, { row: e.row + 1, col: e.col + 1 });
    case "mission_completed":
      return say(ctx, `${A}.log.mission_completed`, e.seat, { mission: missionName(e.mission), n: e.mission.points });
    case "mission_revealed":
      return t(`${A}.log.mission_revealed`, { mission: missionName(e.mission), goal: requirementWords(e.mission.requirement) });
    case "swapped":
      return say(ctx, `${A}.log.swapped`, e.seat, { give: tileWords(e.gave), take: tileWords(e.took) });
    case "wild_bought":
      return say(ctx, `${A}.log.wild_bought`, e.seat, { tiles: tilesWords(e.paid) });
    case "favour_taken":
      return say(ctx, `${A}.log.favour_taken`, e.seat, {});
    case "favour_drawn":
      return t(`${A}.log.favour_drawn`, { card: favourName(e.card) });
    case "favour_played":
      return say(ctx, `${A}.log.favour_played`, e.seat, { card: favourName(e.card) });
    case "foraged":
      return say(ctx, `${A}.log.foraged`, e.seat, { mouse: mouse(e.mouse), tile: tileWords(e.tile) });
    case "wild_gifted":
      return say(ctx, `${A}.log.wild_gifted`, e.seat, { mouse: mouse(e.mouse) });
    case "bag_refilled":
      return t(`${A}.log.bag_refilled`, { n: e.tiles });
    case "mouse_done":
      return null;
    case "hour_struck":
      return t(`${A}.log.hour_struck`, { n: e.hour });
    case "priority_passed":
      return say(ctx, `${A}.log.priority_passed`, e.seat, {});
    case "mice_stepped_down":
      return t(`${A}.log.mice_stepped_down`, { n: (e.mice || []).length });
    case "paws_placed":
      return t(`${A}.log.paws_placed`, { numbers: listOf((e.numbers || []).map(String)) });
    case "clock_refilled":
      return t(`${A}.log.clock_refilled`, { numbers: listOf((e.tiles || []).map(([n]) => String(n))) });
    case "favours_revealed":
      return t(`${A}.log.favours_revealed`);
    case "game_over":
      return t(`${A}.log.game_over`);
    default:
      return null;
  }
}

function stepWords(d, ctx) {
  const mine = d.seat === ctx.me;
  const p = { who: ctx.name(d.seat), mouse: mouseName(d.mouse), n: d.number ?? ctx.view.minute };
  const steps = ["place", "hand_mouse", "inner_ring", "scurry", "act", "search_keep", "delivery", "hunt"];
  // Under a cat paw (rules version 3) the waiting mice can only board: say so instead of offering a step out.
  const step = d.step === "inner_ring" && d.must_board ? "inner_ring_paw" : steps.includes(d.step) ? d.step : "other";
  return t(`${A}.head.${step}.${mine ? "you" : "them"}`, p);
}

export function headline(ctx) {
  const view = ctx.view;
  if (view.game_over || ctx.state.outcome) return t(`${A}.head.over`);
  if (!view.decision) return t(`${A}.head.hour`, { n: view.hour });
  const words = stepWords(view.decision, ctx);
  return words.charAt(0).toUpperCase() + words.slice(1);
}

// ---- drawing -------------------------------------------------------------------------------------------------------

const SIZE = 400;
const C = SIZE / 2;
const R_OUTER = 152;
const R_INNER = 88;

function at(number, radius) {
  const angle = ((number % 12) / 12) * 2 * Math.PI;
  return { x: C + radius * Math.sin(angle), y: C - radius * Math.cos(angle) };
}

const pct = (v) => `${((v / SIZE) * 100).toFixed(2)}%`;

/** An item's picture, drawn in a 20×20 box centred on 0,0. */
function itemShape(item, fill) {
  const stroke = { stroke: "#1b1b1b", "stroke-width": 1 };
  switch (item) {
    case "acorn":
      return [
        h("svg:path", { d: "M-5 -1 Q-5 8 0 9 Q5 8 5 -1 Z", fill, ...stroke }),
        h("svg:path", { d: "M-6.5 -1 Q0 -8 6.5 -1 Z", fill: "#7a4f22", ...stroke }),
        h("svg:path", { d: "M0 -5.5 L1 -8.5", stroke: "#1b1b1b", "stroke-width": 1.4 }),
      ];
    case "berry":
      return [
        h("svg:circle", { cx: -3, cy: 2, r: 4.3, fill, ...stroke }),
        h("svg:circle", { cx: 3.2, cy: 2.5, r: 4.3, fill, ...stroke }),
        h("svg:circle", { cx: 0, cy: -3.4, r: 4.3, fill, ...stroke }),
        h("svg:path", { d: "M0 -7.5 L2 -9.5", stroke: "#2e5a1c", "stroke-width": 1.6 }),
      ];
    case "button":
      return [
        h("svg:circle", { r: 8, fill, ...stroke }),
        h("svg:circle", { r: 5.6, fill: "none", stroke: "rgba(0,0,0,0.45)", "stroke-width": 0.9 }),
        ...[[-2, -2], [2, -2], [-2, 2], [2, 2]].map(([x, y]) => h("svg:circle", { cx: x, cy: y, r: 1.1, fill: "#fff" })),
      ];
    case "thimble":
      return [
        h("svg:path", { d: "M-6 8 L-4.5 -5 Q0 -9.5 4.5 -5 L6 8 Z", fill, ...stroke }),
        h("svg:path", { d: "M-6.4 8 L6.4 8", stroke: "#1b1b1b", "stroke-width": 2.2 }),
        ...[-2.5, 0, 2.5].map((x) => h("svg:circle", { cx: x, cy: 0, r: 0.9, fill: "#fff" })),
      ];
    case "key":
      return [
        h("svg:circle", { cx: -4, cy: -3, r: 4.2, fill, ...stroke }),
        h("svg:circle", { cx: -4, cy: -3, r: 1.5, fill: "#fff" }),
        h("svg:path", { d: "M-1 0 L7 8 M3.5 4.5 L5.5 2.5 M5.5 6.5 L7.5 4.5", stroke: fill, "stroke-width": 2.6, "stroke-linecap": "round" }),
      ];
    default:
      return [h("svg:circle", { r: 6, fill })];
  }
}

/** A tile as a small picture (with its words for screen readers and on hover). */
export function tileSvg(tile, { size = 26 } = {}) {
  if (!tile) return null;
  const words = tileWords(tile);
  const kind = tile.kind === "item" ? `item t-${tile.colour}` : tile.kind;
  let picture;
  if (tile.kind === "item") picture = itemShape(tile.item, TILE_FILL[tile.colour] || "#888");
  else if (tile.kind === "wild")
    picture = [h("svg:path", { d: "M0 -9 L2.6 -2.8 9 -2.8 3.8 1.2 5.8 8 0 4 -5.8 8 -3.8 1.2 -9 -2.8 -2.6 -2.8 Z", fill: "url(#hd-rainbow)", stroke: "#1b1b1b", "stroke-width": 1 })];
  else picture = [h("svg:path", { d: "M-8 6 L-8 -4 -4 0 0 -7 4 0 8 -4 8 6 Z", fill: "#e6c200", stroke: "#5c4700", "stroke-width": 1.1 }), h("svg:circle", { cx: 0, cy: 2, r: 1.6, fill: "#c2185b" })];
  return h(
    "svg:svg",
    { class: `hd-tile-svg ${kind}`, viewBox: "-11 -11 22 22", width: size, height: size, role: "img", "aria-label": words },
    h("svg:title", {}, words),
    h(
      "svg:defs",
      {},
      h(
        "svg:linearGradient",
        { id: "hd-rainbow", x1: "0", y1: "0", x2: "1", y2: "1" },
        COLOURS.map((c, i) => h("svg:stop", { offset: String(i / 4), "stop-color": TILE_FILL[c] })),
      ),
    ),
    h("svg:rect", { x: -10.5, y: -10.5, width: 21, height: 21, rx: 3.5, class: "hd-tile-back" }),
    picture,
  );
}

/** The emblem of a mouse's kind, drawn over its head. */
function emblem(kind) {
  switch (kind) {
    case "scurrier":
      return h("svg:path", { d: "M-12 -3 L-7 -3 M-13 0 L-8 0 M-12 3 L-7 3", stroke: "#1b1b1b", "stroke-width": 1.3, "stroke-linecap": "round" });
    case "spotter":
      return [h("svg:ellipse", { cx: 7, cy: -8.5, rx: 3.6, ry: 2.3, fill: "#fff", stroke: "#1b1b1b", "stroke-width": 0.9 }), h("svg:circle", { cx: 7, cy: -8.5, r: 1.2, fill: "#1b1b1b" })];
    case "scavenger":
      return h("svg:path", { d: "M-6 -4 Q-9 -12 -2 -10 Q1 -9 -1 -4 Z", fill: "#b08850", stroke: "#1b1b1b", "stroke-width": 0.9 });
    case "scamp":
      return h("svg:path", { d: "M7 -13 L8.2 -10 11.3 -10 8.8 -8 9.8 -5 7 -6.8 4.2 -5 5.2 -8 2.7 -10 5.8 -10 Z", fill: "#ffd23f", stroke: "#1b1b1b", "stroke-width": 0.7 });
    default:
      return null;
  }
}

/** A mouse figure in its owner's colour, the seat number on its body and its kind's emblem. */
export function mouseSvg(ref, { size = 30 } = {}) {
  const colour = SEAT_COLOURS[ref.seat % SEAT_COLOURS.length];
  const big = ref.mouse === "scavenger";
  return h(
    "svg:svg",
    { class: `hd-mouse-svg m-${ref.mouse}`, viewBox: "-15 -15 30 30", width: big ? size * 1.2 : size, height: big ? size * 1.2 : size, "aria-hidden": "true" },
    h("svg:path", { d: "M-9 5 Q-15 8 -14 13", fill: "none", stroke: "#1b1b1b", "stroke-width": 1.4, "stroke-linecap": "round" }),
    h("svg:ellipse", { cx: -1, cy: 3, rx: 9, ry: 6.5, fill: colour, stroke: "#1b1b1b", "stroke-width": 1.2 }),
    h("svg:circle", { cx: 7, cy: -2, r: 5, fill: colour, stroke: "#1b1b1b", "stroke-width": 1.2 }),
    h("svg:circle", { cx: 5, cy: -7, r: 2.8, fill: "#f6c1c9", stroke: "#1b1b1b", "stroke-width": 1 }),
    h("svg:circle", { cx: 9, cy: -3, r: 0.9, fill: "#1b1b1b" }),
    h("svg:text", { x: -1.5, y: 6.8, "text-anchor": "middle", "font-size": 9, "font-weight": 800, fill: "#111" }, String(ref.seat + 1)),
    emblem(ref.mouse),
  );
}

function mouseWords(ref, ctx) {
  return ref.seat === ctx.me ? t(`${A}.mouse.yours`, { mouse: mouseName(ref.mouse) }) : t(`${A}.mouse.theirs`, { who: ctx.name(ref.seat), mouse: mouseName(ref.mouse) });
}

/** The mice and numbers the last update moved, highlighted on the board. */
const recent = { mice: new Set(), numbers: new Set() };

function noteRecent(ctx) {
  recent.mice.clear();
  recent.numbers.clear();
  for (const e of (ctx.state && ctx.state.events) || []) {
    if (typeof e.seat === "number" && e.mouse) recent.mice.add(`${e.seat}:${e.mouse}`);
    if (e.type === "scurried") recent.mice.add(`${e.seat}:scurrier`);
    if (e.type === "scamp_called") recent.mice.add(`${e.seat}:scamp`);
    for (const n of [e.number, e.to]) if (typeof n === "number") recent.numbers.add(n);
  }
}

/** A mouse shown on the table: the figure, with its kind's ability on hover, focus and tap. */
function mouseFigure(ref, ctx, { size = 30 } = {}) {
  return infoTip(mouseSvg(ref, { size }), `${mouseWords(ref, ctx)}: ${t(`${A}.mouse.${MICE.includes(ref.mouse) ? ref.mouse : "unknown"}.effect`)}`, {
    class: `hd-mouse${recent.mice.has(`${ref.seat}:${ref.mouse}`) ? " moved" : ""}`,
    role: "img",
    "aria-label": mouseWords(ref, ctx),
  });
}

/** A clickable element of the board that plays `action` (or, with `onPick`, makes a choice on the page). */
function playButton(ctx, action, content, { cls = "", label, key, onPick } = {}) {
  return h(
    "button",
    {
      type: "button",
      class: `hd-play legal ${cls}`,
      "data-act": action ? action.type : "choose",
      "data-local": onPick ? "1" : null,
      "data-key": key || `hd-${JSON.stringify(action)}`,
      "aria-label": label || (action ? actionLabel(action, ctx.view) : null),
      title: label || (action ? actionLabel(action, ctx.view) : null),
      onclick: () => (onPick ? onPick() : ctx.act(action)),
    },
    content,
  );
}

/** The mouse the page has chosen for the current decision (placing, stepping out or boarding). */
function chosenMouse(ctx, candidates) {
  if (local.version !== ctx.state.version) {
    local.version = ctx.state.version;
    local.mouse = null;
    local.give = null;
  }
  if (!candidates.length) return null;
  return candidates.includes(local.mouse) ? local.mouse : candidates[0];
}

/** What a click on outer-ring number `n` does now, if anything. */
function outerAction(ctx, n, mouse) {
  const view = ctx.view;
  return ctx.legal.find(
    (a) =>
      (a.type === "hop_off" && n === view.minute) ||
      (a.type === "step_out" && a.mouse === mouse && n === view.minute) ||
      (a.type === "call_scamp" && a.space === n) ||
      (a.type === "scurry" && view.decision && view.decision.step === "scurry" && ((view.decision.from + a.steps - 1) % 12) + 1 === n),
  );
}

function renderClock(ctx) {
  const view = ctx.view;
  const d = view.decision;
  const placing = ctx.legal.some((a) => a.type === "place");
  const inner = ctx.legal.some((a) => a.type === "step_out" || a.type === "board");
  const mouse = placing
    ? chosenMouse(ctx, [...new Set(ctx.legal.filter((a) => a.type === "place").map((a) => a.mouse))])
    : inner
      ? chosenMouse(ctx, [...new Set(ctx.legal.filter((a) => a.type === "step_out" || a.type === "board").map((a) => a.mouse))])
      : null;
  const minuteAngle = ((view.minute % 12) / 12) * 360;
  const hourAngle = ((view.hour % 12) / 12) * 360 + (view.minute % 12) * 2.5;
  const sweep = lastHands.minute !== null && lastHands.minute !== view.minute ? lastHands.minuteAngle : null;
  lastHands.minute = view.minute;
  lastHands.minuteAngle = minuteAngle;
  const handMice = view.hand.map((m, i) => {
    const r = 118 - i * 19;
    return h("svg:g", { transform: `translate(${C} ${C - r}) rotate(${-minuteAngle}) translate(-11 -11)` }, mouseSvg(m, { size: 22 }));
  });
  const svg = h(
    "svg:svg",
    { class: "hd-clock-svg", viewBox: `0 0 ${SIZE} ${SIZE}`, "aria-hidden": "true" },
    h("svg:circle", { cx: C, cy: C, r: 196, class: "hd-rim" }),
    h("svg:circle", { cx: C, cy: C, r: 186, class: "hd-face" }),
    h("svg:circle", { cx: C, cy: C, r: R_OUTER, class: "hd-ring outer" }),
    h("svg:circle", { cx: C, cy: C, r: R_INNER, class: "hd-ring inner" }),
    Array.from({ length: 60 }, (_, i) => {
      const a = (i / 60) * 2 * Math.PI;
      const r1 = i % 5 ? 180 : 174;
      return h("svg:line", { x1: C + r1 * Math.sin(a), y1: C - r1 * Math.cos(a), x2: C + 185 * Math.sin(a), y2: C - 185 * Math.cos(a), class: "hd-tick" });
    }),
    view.paws.map((n) => {
      const p = at(n, R_OUTER);
      return h("svg:g", { class: "hd-paw", transform: `translate(${p.x} ${p.y})` }, [[-12, -10], [0, -15], [12, -10]].map(([x, y]) => h("svg:circle", { cx: x, cy: y, r: 5 })), h("svg:ellipse", { cx: 0, cy: 4, rx: 12, ry: 9 }));
    }),
    h("svg:line", { x1: C, y1: C, x2: C, y2: C - 96, class: "hd-hand-hour", transform: `rotate(${hourAngle} ${C} ${C})` }),
    h(
      "svg:g",
      { class: "hd-minute", transform: `rotate(${minuteAngle} ${C} ${C})` },
      // The hand sweeps from where it was to its new number (not when motion is to be reduced).
      sweep !== null && !reducedMotion()
        ? h("svg:animateTransform", {
            attributeName: "transform",
            type: "rotate",
            from: `${sweep} ${C} ${C}`,
            to: `${minuteAngle < sweep ? minuteAngle + 360 : minuteAngle} ${C} ${C}`,
            dur: "0.6s",
            fill: "freeze",
          })
        : null,
      h("svg:path", { d: `M${C - 5} ${C} L${C} ${C - 140} L${C + 5} ${C} Z`, class: "hd-hand-minute" }),
      handMice,
    ),
    h("svg:circle", { cx: C, cy: C, r: 9, class: "hd-pin" }),
  );
  const spaces = view.spaces.map((s) => {
    const p = at(s.number, R_OUTER);
    const action = outerAction(ctx, s.number, mouse);
    const token = TOKENS.includes(s.token) ? s.token : "other";
    const content = [
      h("span", { class: "hd-num" }, String(s.number)),
      h("span", { class: `hd-token face-${s.face}` }, tokenName(s.token)),
      s.tile ? tileSvg(s.tile, { size: 24 }) : null,
    ];
    const mice = s.outer.length ? h("span", { class: "hd-mice" }, s.outer.map((m) => mouseFigure(m, ctx, { size: 22 }))) : null;
    const tip = `${s.number}, ${tokenName(s.token)}: ${t(`${A}.token.${token}.effect`)}${s.paw ? ` ${t(`${A}.paw`)}` : ""}`;
    const current = s.number === view.minute;
    const label = t(`${A}.space.label`, { n: s.number, token: tokenName(s.token), tile: tileWords(s.tile) });
    return h(
      "div",
      { class: `hd-outer${current ? " current" : ""}${s.paw ? " paw" : ""}${recent.numbers.has(s.number) ? " last" : ""}`, style: `left:${pct(p.x)};top:${pct(p.y)}`, "data-number": s.number },
      action
        ? playButton(ctx, action, content, { cls: "hd-space-button", key: `hd-outer-${s.number}`, label: `${label} — ${actionLabel(action, view)}` })
        : infoTip(h("span", { class: "hd-space-face" }, content), tip, { role: "group", "aria-label": label }),
      mice,
    );
  });
  const inners = view.spaces
    .filter((s) => s.number !== 12)
    .map((s) => {
      const p = at(s.number, R_INNER);
      const place = placing ? ctx.legal.find((a) => a.type === "place" && a.mouse === mouse && a.space === s.number) : null;
      const waiting = s.inner.map((m) => {
        const pick = inner && d && d.step === "inner_ring" && d.number === s.number && m.seat === ctx.me && ctx.legal.some((a) => (a.type === "step_out" || a.type === "board") && a.mouse === m.mouse);
        return pick
          ? playButton(ctx, null, mouseSvg(m, { size: 24 }), {
              cls: `hd-mouse-pick${m.mouse === mouse ? " chosen" : ""}`,
              key: `hd-pick-${m.mouse}`,
              label: t(`${A}.choose_mouse`, { mouse: mouseName(m.mouse) }),
              onPick: () => {
                local.mouse = m.mouse;
                ctx.rerender();
              },
            })
          : mouseFigure(m, ctx, { size: 20 });
      });
      return h(
        "div",
        { class: "hd-inner", style: `left:${pct(p.x)};top:${pct(p.y)}`, "data-number": s.number },
        place
          ? playButton(ctx, place, h("span", { class: "hd-inner-num" }, String(s.number)), { cls: "hd-inner-button", key: `hd-inner-${s.number}` })
          : null,
        waiting.length ? h("span", { class: "hd-mice" }, waiting) : null,
      );
    });
  const stay = ctx.legal.find((a) => a.type === "stay");
  const board = ctx.legal.find((a) => a.type === "board" && a.mouse === mouse);
  const hub = stay || board;
  return h(
    "div",
    { class: "hd-clock", role: "region", "aria-label": t(`${A}.clock.label`, { hour: view.hour, n: view.minute }) },
    svg,
    h("p", { class: "hd-time", "aria-hidden": "true" }, `${view.hour}:${String(view.minute === 12 ? 0 : view.minute * 5).padStart(2, "0")}`),
    spaces,
    inners,
    hub ? h("div", { class: "hd-hub" }, playButton(ctx, hub, t(stay ? `${A}.hub.stay` : `${A}.hub.board`), { cls: "hd-hub-button", key: "hd-hub" })) : null,
  );
}

function reducedMotion() {
  return typeof matchMedia === "function" && matchMedia("(prefers-reduced-motion: reduce)").matches;
}

/** Where the minute hand was at the last drawing, so a move of the hand sweeps. */
const lastHands = { minute: null, minuteAngle: 0 };

function renderHand(ctx) {
  const view = ctx.view;
  return h(
    "section",
    { class: "hd-handbox", "aria-label": t(`${A}.hand.label`) },
    h("h3", {}, t(`${A}.hand.title`, { n: view.hand_capacity })),
    view.hand.length
      ? h("ol", { class: "hd-hand-list" }, view.hand.map((m) => h("li", {}, mouseFigure(m, ctx, { size: 24 }), ` ${mouseWords(m, ctx)}`)))
      : h("p", { class: "hint" }, t(`${A}.hand.empty`)),
    view.blockers.length ? h("p", { class: "hint" }, t(`${A}.hand.blockers`, { n: view.blockers.length })) : null,
  );
}

function renderSide(ctx) {
  const view = ctx.view;
  const give = local.version === ctx.state.version ? local.give : null;
  const swaps = ctx.legal.filter((a) => a.type === "swap");
  return h(
    "div",
    { class: "hd-side" },
    h(
      "section",
      { class: "hd-web" },
      h("h3", {}, infoTip(t(`${A}.web.title`), t(`${A}.web.effect`))),
      h("p", {}, t(`${A}.web.wilds`, { n: view.web_wilds })),
      h(
        "div",
        { class: "hd-market" },
        view.web_market.length
          ? view.web_market.map((tile) => {
              const swap = swaps.find((a) => a.take === tile.id && (give === null || a.give === give));
              return swap ? playButton(ctx, swap, tileSvg(tile, { size: 32 }), { key: `hd-take-${tile.id}` }) : tileSvg(tile, { size: 32 });
            })
          : h("span", { class: "hint" }, t(`${A}.web.empty`)),
      ),
    ),
    h(
      "section",
      {},
      h("h3", {}, t(`${A}.missions.title`)),
      view.missions.length
        ? h("ul", { class: "hd-missions" }, view.missions.map((m) => h("li", {}, infoTip(h("strong", {}, missionName(m)), requirementWords(m.requirement)), ` ${t(`${A}.missions.points`, { n: m.points })}: ${requirementWords(m.requirement)}`)))
        : h("p", { class: "hint" }, t(`${A}.missions.none`)),
      h("p", { class: "hint" }, t(`${A}.missions.deck`, { n: view.mission_deck })),
    ),
    h(
      "section",
      {},
      h("h3", {}, infoTip(t(`${A}.chain.title`), t(`${A}.chain.effect`))),
      h("p", {}, t(`${A}.chain.pinecone`, { n: view.pinecone })),
      h("p", { class: "hint" }, t(`${A}.counts`, { bag: view.bag, pantry: view.pantry, favours: view.favour_deck })),
    ),
  );
}

function renderPlayer(p, ctx) {
  const mine = p.seat === ctx.me;
  const view = ctx.view;
  const d = view.decision;
  const swapping = mine && ctx.legal.some((a) => a.type === "swap");
  const give = local.version === ctx.state.version ? local.give : null;
  const name = ctx.names[p.seat] || t(`${A}.seat`, { n: p.seat + 1 });
  const tileOnCard = (tile) => {
    const add = mine && ctx.legal.find((a) => a.type === "add_tile" && a.tile === tile.id);
    if (add) return playButton(ctx, add, tileSvg(tile, { size: 30 }), { key: `hd-add-${tile.id}` });
    if (swapping && ctx.legal.some((a) => a.type === "swap" && a.give === tile.id))
      return playButton(ctx, null, tileSvg(tile, { size: 30 }), {
        cls: `hd-give${give === tile.id ? " chosen" : ""}`,
        key: `hd-give-${tile.id}`,
        label: t(`${A}.choose_give`, { tile: tileWords(tile) }),
        onPick: () => {
          chosenMouse(ctx, []);
          local.give = tile.id;
          ctx.rerender();
        },
      });
    return tileSvg(tile, { size: 28 });
  };
  const acting = d && d.seat === p.seat && d.mouse;
  return h(
    "section",
    { class: `hd-player${mine ? " mine" : ""}`, "data-seat": p.seat, "aria-label": mine ? t(`${A}.player.yours`) : t(`${A}.player.theirs`, { name }) },
    h(
      "h3",
      {},
      mine ? t(`${A}.player.yours`) : t(`${A}.player.theirs`, { name }),
      h("span", { class: "hint" }, ` · ${t(`${A}.points`, { n: p.score })} · ${t(`${A}.player.scaler`, { n: p.scaler_link })} · ${t(`${A}.player.favours`, { n: p.favour_count })}`),
    ),
    h(
      "div",
      { class: "hd-cards" },
      p.mice.map((m) =>
        h(
          "div",
          { class: `hd-card${acting === m.mouse ? " acting" : ""}` },
          h("div", { class: "hd-card-head" }, mouseFigure({ seat: p.seat, mouse: m.mouse }, ctx, { size: 26 }), h("strong", {}, mouseName(m.mouse))),
          h("span", { class: "hint" }, locWords(m.loc)),
          h(
            "div",
            { class: "hd-card-tiles" },
            m.tiles.map(tileOnCard),
            Array.from({ length: Math.max(0, m.capacity - m.tiles.length) }, () => h("span", { class: "hd-slot", "aria-hidden": "true" })),
          ),
        ),
      ),
    ),
    h(
      "div",
      { class: "hd-hunt", role: "group", "aria-label": t(`${A}.hunt.label`, { n: p.hunt_spaces_done }) },
      p.hunt.map((row, r) =>
        row.map((s, c) => {
          const mark = mine && ctx.legal.find((a) => a.type === "mark_hunt" && a.row === r && a.col === c);
          const wants = s.wants === "colour" ? colourName(s.value) : itemName(s.value);
          const picture =
            s.wants === "colour"
              ? h("span", { class: `hd-swatch t-${s.value}` })
              : h("svg:svg", { viewBox: "-11 -11 22 22", width: 22, height: 22, "aria-hidden": "true" }, itemShape(s.value, "#8a8a8a"));
          const label = t(s.done ? `${A}.hunt.done` : `${A}.hunt.space`, { row: r + 1, col: c + 1, wants });
          return mark
            ? playButton(ctx, mark, picture, { cls: "hd-hunt-space", key: `hd-hunt-${r}-${c}`, label })
            : h("span", { class: `hd-hunt-space${s.done ? " done" : ""}`, role: "img", "aria-label": label, title: label }, picture);
        }),
      ),
    ),
    mine && p.favours && p.favours.length
      ? h(
          "div",
          { class: "hd-favours" },
          h("span", {}, t(`${A}.player.your_favours`)),
          p.favours.map((f) => {
            const play = ctx.legal.find((a) => (a.type === "play_favour" || a.type === "add_favour") && a.card === f.id);
            const card = h("span", { class: "hd-favour-card" }, h("svg:svg", { viewBox: "-11 -11 22 22", width: 20, height: 20, "aria-hidden": "true" }, itemShape(f.item, TILE_FILL[f.colour])), favourName(f));
            return play ? playButton(ctx, play, card, { key: `hd-favour-${f.id}-${play.type}` }) : infoTip(card, favourEffect(f));
          }),
        )
      : null,
  );
}

function locWords(loc) {
  if (!loc) return "";
  switch (loc.at) {
    case "inner":
      return t(`${A}.loc.inner`, { n: loc.number });
    case "outer":
      return t(`${A}.loc.outer`, { n: loc.number });
    case "hand":
      return t(`${A}.loc.hand`);
    case "card":
      return t(`${A}.loc.card`);
    case "unplaced":
      return t(`${A}.loc.unplaced`);
    default:
      return "";
  }
}

/** The decision panel: what is asked, the pieces it is about, and every move as a button (the keyboard path). */
function renderActions(ctx) {
  if (!ctx.legal.length) return null;
  const view = ctx.view;
  const d = view.decision;
  const onBoard = new Set(["place", "scurry", "call_scamp", "swap", "mark_hunt", "keep", "add_tile"]);
  const main = ctx.legal.filter((a) => !onBoard.has(a.type));
  const listed = ctx.legal.filter((a) => onBoard.has(a.type));
  const button = (a) =>
    h(
      "button",
      { type: "button", class: a.type === "done" ? "quiet" : "", "data-key": `hd-btn-${JSON.stringify(a)}`, "data-act": a.type, onclick: () => ctx.act(a) },
      actionLabel(a, view),
    );
  const placing = ctx.legal.filter((a) => a.type === "place");
  const mouse = placing.length ? chosenMouse(ctx, [...new Set(placing.map((a) => a.mouse))]) : null;
  return h(
    "section",
    { class: "hd-actions", "aria-label": t(`${A}.decision`) },
    placing.length
      ? h(
          "p",
          { class: "hd-choose" },
          t(`${A}.place.choose`),
          " ",
          [...new Set(placing.map((a) => a.mouse))].map((m) =>
            playButton(ctx, null, [mouseSvg({ seat: ctx.me, mouse: m }, { size: 26 }), " ", mouseName(m)], {
              cls: `hd-mouse-pick${m === mouse ? " chosen" : ""}`,
              key: `hd-place-pick-${m}`,
              label: t(`${A}.choose_mouse`, { mouse: mouseName(m) }),
              onPick: () => {
                local.mouse = m;
                ctx.rerender();
              },
            }),
          ),
          " ",
          t(`${A}.place.then`, { mouse: mouseName(mouse) }),
        )
      : null,
    d && d.step === "search_keep"
      ? h(
          "p",
          { class: "hd-choose" },
          t(`${A}.search.drew`, { n: d.keep }),
          " ",
          d.drawn.map((tile) => {
            const keep = ctx.legal.find((a) => a.type === "keep" && a.tile === tile.id);
            return keep ? playButton(ctx, keep, tileSvg(tile, { size: 34 }), { key: `hd-keep-${tile.id}` }) : tileSvg(tile, { size: 30 });
          }),
        )
      : null,
    d && d.step === "delivery" && d.tiles && d.tiles.length ? h("p", {}, t(`${A}.delivery.so_far`), " ", d.tiles.map((tile) => tileSvg(tile, { size: 28 }))) : null,
    d && d.step === "delivery" && ctx.legal.some((a) => a.type === "add_tile") ? h("p", { class: "hint" }, t(`${A}.delivery.hint`)) : null,
    ctx.legal.some((a) => a.type === "swap") ? h("p", { class: "hint" }, t(`${A}.swap.hint`)) : null,
    ctx.legal.some((a) => a.type === "scurry" || a.type === "call_scamp" || a.type === "hop_off" || a.type === "step_out") ? h("p", { class: "hint" }, t(`${A}.clock.hint`)) : null,
    ctx.legal.some((a) => a.type === "mark_hunt") ? h("p", { class: "hint" }, t(`${A}.hunt.hint`)) : null,
    main.length ? h("div", { class: "buttons" }, main.map(button)) : null,
    listed.length
      ? h("details", { class: "hd-all-moves" }, h("summary", {}, t(`${A}.all_moves`, { n: listed.length })), h("div", { class: "buttons" }, listed.map(button)))
      : null,
  );
}

function render(ctx) {
  const view = ctx.view;
  noteRecent(ctx);
  const me = view.seats.find((p) => p.seat === ctx.me);
  const others = view.seats.filter((p) => p.seat !== ctx.me);
  return h(
    "div",
    { class: "hd" },
    renderActions(ctx),
    h("div", { class: "hd-main" }, renderClock(ctx), h("div", { class: "hd-right" }, renderHand(ctx), renderSide(ctx))),
    me ? renderPlayer(me, ctx) : null,
    others.map((p) => renderPlayer(p, ctx)),
  );
}

function playerInfo(seat, ctx) {
  const p = ctx.view.seats.find((x) => x.seat === seat);
  if (!p) return null;
  const b = p.points;
  return h(
    "span",
    { class: "hd-points" },
    h("strong", {}, t(`${A}.points`, { n: p.score })),
    h("span", { class: "hint" }, ` · ${t(`${A}.breakdown`, { deliveries: b.deliveries, relics: b.relics, missions: b.missions, chain: b.chain, hunt: b.hunt_lines, leftovers: b.leftovers || 0 })}`),
  );
}

/** How to play, in a player's words: the rules as the server plays them (docs/rules/hickory-dickory.md). */
export function rules() {
  const section = (key, ...rest) => h("section", {}, h("h4", {}, t(`${A}.rules.${key}.title`)), ...rest);
  const para = (key) => h("p", {}, t(key));
  return h(
    "div",
    { class: "rules-summary hd-rules" },
    para(`${A}.rules.goal`),
    section("tick", para(`${A}.rules.tick.text`), para(`${A}.rules.tick.hand`)),
    section("mice", h("ul", {}, MICE.map((m) => h("li", {}, h("strong", {}, mouseName(m)), ": ", t(`${A}.mouse.${m}.effect`))), h("li", {}, h("strong", {}, t(`${A}.scaler`)), ": ", t(`${A}.chain.effect`)))),
    section("tokens", h("ul", {}, TOKENS.map((tok) => h("li", {}, h("strong", {}, tokenName(tok)), ": ", t(`${A}.token.${tok}.effect`))))),
    section("deliver", para(`${A}.rules.deliver.text`), para(`${A}.rules.deliver.hunt`)),
    section("favours", h("ul", {}, FAVOURS.map((f) => h("li", {}, h("strong", {}, t(`${A}.favour.${f}`)), ": ", t(`${A}.favour.${f}.effect`))))),
    section("round", para(`${A}.rules.round.text`)),
    section("end", para(`${A}.rules.end.text`)),
  );
}

/** The game's picture for the start page: three players' mice. */
export function picture() {
  return h(
    "span",
    { class: "game-picture-mice" },
    [
      { seat: 0, mouse: "scurrier" },
      { seat: 1, mouse: "spotter" },
      { seat: 2, mouse: "scavenger" },
    ].map((ref) => mouseSvg(ref, { size: 44 })),
  );
}

export default { id: "hickory_dickory", title: "Hickory Dickory", render, describe, headline, playerInfo, rules, actionLabel, picture };
