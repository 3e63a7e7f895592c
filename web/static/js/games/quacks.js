// The Quacks of Quedlinburg: every player's pot drawn as the board's spiral track (coins, points and ruby spaces,
// the droplet, the rat stone, the chips as coloured tokens with their value), cherry bombs against the limit, the
// flask, rubies, rat tails and score, the fortune-teller card in force and the open ingredient books (each tells
// its effect on hover, focus and tap), and the bag. Each player draws at their own pace; the other pots update live
// as their chips land. Choices are made on the board (the bag draws, the flask puts a white back, chips looked at
// are placed, purchases are chips to click); the buttons stay as the keyboard path.
// The view is `rules::games::quacks::QuacksView`; actions `Action`; events `QuacksEvent` (docs/rules/quacks.md).

import { h } from "../ui.js";
import { t, listOf } from "../i18n.js";
import { infoTip } from "../info_tip.js";
import { say } from "../table_tips.js";

/** The pot track by space index: [coins, points, ruby]. A copy of `POT_TRACK` in rules/src/games/quacks/data.rs,
 * for drawing only; a test of the web crate checks that the two agree. */
export const POT_TRACK = [[0,0,0], [1,0,0], [2,0,0], [3,0,0], [4,0,0], [5,0,1], [6,1,0], [7,1,0], [8,1,0], [9,1,1], [10,2,0], [11,2,0], [12,2,0], [13,2,1], [14,3,0], [15,3,0], [15,3,1], [16,3,0], [16,4,0], [17,4,0], [17,4,1], [18,4,0], [18,5,0], [19,5,0], [19,5,1], [20,5,0], [20,6,0], [21,6,0], [21,6,1], [22,7,0], [22,7,1], [23,7,0], [23,8,0], [24,8,0], [24,8,1], [25,9,0], [25,9,1], [26,9,0], [26,10,0], [27,10,0], [27,10,1], [28,11,0], [28,11,1], [29,11,0], [29,12,0], [30,12,0], [30,12,1], [31,12,0], [31,13,0], [32,13,0], [32,13,1], [33,14,0], [33,14,1], [35,15,0]];

const COLOURS = ["white", "orange", "green", "blue", "red", "yellow", "purple", "black"];

/** The fortune-teller cards, by the engine's names (their words are `quacks.card.<name>` and `.effect`). */
export const CARDS = [
  "roll_the_die", "the_pot_is_filling_up", "charity", "beginners_bonus", "rat_infestation", "rats_are_your_friends",
  "a_good_start", "just_in_time", "you_only_get_to_choose_one", "choose_wisely", "wheel_and_deal",
  "an_opportunistic_moment", "less_is_more", "the_pot_is_full", "pumpkin_patch_party", "lucky_devil",
  "its_shining_extra_bright", "magic_potion", "seasoned_perfectly", "living_in_luxury", "well_stirred",
  "strong_ingredient", "schadenfreude", "a_second_chance",
];

// ---- words (pure: view/action/event in, text out) ----------------------------------------------------------------

function cardName(card) {
  return CARDS.includes(card) ? t(`quacks.card.${card}`) : t("quacks.card.unknown");
}

function cardEffect(card) {
  return CARDS.includes(card) ? t(`quacks.card.${card}.effect`) : "";
}

function ingredient(colour) {
  return COLOURS.includes(colour) ? t(`quacks.ingredient.${colour}`) : t("quacks.ingredient.unknown");
}

/** "a green 2 (garden spider)" without the article: "green 2". */
export function chipWords(chip) {
  if (!chip || !COLOURS.includes(chip.colour)) return t("quacks.chip.unknown");
  return t(`quacks.chip.${chip.colour}`, { value: chip.value });
}

/** A chip with the article English needs ("an orange 1"); the other languages put theirs in the sentence. */
function chipA(chip) {
  if (!chip || !COLOURS.includes(chip.colour)) return t("quacks.chip_a.unknown");
  return t(`quacks.chip_a.${chip.colour}`, { value: chip.value });
}

function chipList(chips) {
  return listOf((chips || []).map(chipWords));
}

/** The price of `chip` in coins, from the view's `prices` (the engine's `PRICES`), or null when it is not sold. */
function priceOf(view, chip) {
  const found = (view?.prices || []).find((p) => p.chip.colour === chip.colour && p.chip.value === chip.value);
  return found ? found.price : null;
}

/** "10 coins". */
function priceWords(n) {
  return t("quacks.price", { n });
}

/** "1 coin", "2 coins": a count of coins in a sentence (its `{coins}`), in the number the count needs. */
function coinWords(n) {
  return t("quacks.coins", { n });
}

/** A purchase's label with what it costs: "Buy green 1 and red 2 for 10 coins". */
function buyLabel(a, view) {
  if (a.type !== "buy") return actionLabel(a);
  const prices = a.chips.map((c) => priceOf(view, c));
  if (prices.some((p) => p === null)) return actionLabel(a);
  return t("quacks.buy_cost", { what: actionLabel(a), price: priceWords(prices.reduce((x, y) => x + y, 0)) });
}

/** An ingredient book's effect and the prices of its chips. */
function bookWords(colour, view) {
  const sold = (view?.prices || []).filter((p) => p.chip.colour === colour);
  const effect = t(`quacks.book.${colour}`);
  if (!sold.length) return effect;
  const list = listOf(sold.map((p) => t("quacks.book.price_item", { chip: chipWords(p.chip), price: priceWords(p.price) })));
  return `${effect} ${t("quacks.book.prices", { list })}`;
}

/** Words for every action the engine lists. */
export function actionLabel(a) {
  switch (a.type) {
    case "draw":
      return t("quacks.act.draw");
    case "stop":
      return t("quacks.act.stop");
    case "use_flask":
      return t("quacks.act.use_flask");
    case "return_first_white":
      return t("quacks.act.return_first_white");
    case "return_white_before_mandrake":
      return t("quacks.act.return_white_before_mandrake");
    case "decline_red_bonus":
      return t("quacks.act.decline_red_bonus");
    case "decline_droplet_step":
      return t("quacks.act.decline_droplet_step");
    case "place":
      return t("quacks.act.place", { chip: chipWords(a.chip) });
    case "place_none":
      return t("quacks.act.place_none");
    case "start_over":
      return t("quacks.act.start_over");
    case "keep_potion":
      return t("quacks.act.keep_potion");
    case "fortune":
      return choiceWords(a.choice);
    case "take_points":
      return t("quacks.act.take_points");
    case "convert_coins":
      return t("quacks.act.convert_coins");
    case "buy":
      return t("quacks.act.buy", { chips: chipList(a.chips) });
    case "buy_nothing":
      return t("quacks.act.buy_nothing");
    case "move_droplet":
      return t("quacks.act.move_droplet");
    case "refill_flask":
      return t("quacks.act.refill_flask");
    case "finish_round":
      return t("quacks.act.finish_round");
    default:
      return t("quacks.act.other");
  }
}

/** A fortune-card choice as a button says it. */
function choiceWords(c) {
  switch (c && c.option) {
    case "take_chip":
      return t("quacks.choice.take_chip", { chip: chipA(c.chip) });
    case "points_for_rat_tails":
      return t("quacks.choice.points_for_rat_tails");
    case "keep_rat_tails":
      return t("quacks.choice.keep_rat_tails");
    case "trade_rat_tails":
      return t("quacks.choice.trade_rat_tails", { n: c.tails });
    case "four_points":
      return t("quacks.choice.four_points");
    case "remove_white":
      return t("quacks.choice.remove_white");
    case "three_rubies":
      return t("quacks.choice.three_rubies");
    case "droplet_steps":
      return t("quacks.choice.droplet_steps");
    case "trade_up":
      return t("quacks.choice.trade_up", { chip: chipWords(c.chip) });
    case "decline":
      return t("quacks.choice.decline");
    default:
      return t("quacks.choice.other");
  }
}

/** A fortune-card choice as the log tells it: "Bob took a green 1", "Bob traded a green 1 up". */
function choseWords(ctx, seat, c) {
  switch (c && c.option) {
    case "take_chip":
      return say(ctx, "quacks.log.chose.take_chip", seat, { chip: chipA(c.chip) });
    case "points_for_rat_tails":
      return say(ctx, "quacks.log.chose.points_for_rat_tails", seat, {});
    case "keep_rat_tails":
      return say(ctx, "quacks.log.chose.keep_rat_tails", seat, {});
    case "trade_rat_tails":
      return say(ctx, "quacks.log.chose.trade_rat_tails", seat, { n: c.tails });
    case "four_points":
      return say(ctx, "quacks.log.chose.four_points", seat, {});
    case "remove_white":
      return say(ctx, "quacks.log.chose.remove_white", seat, {});
    case "three_rubies":
      return say(ctx, "quacks.log.chose.three_rubies", seat, {});
    case "droplet_steps":
      return say(ctx, "quacks.log.chose.droplet_steps", seat, {});
    case "trade_up":
      return say(ctx, "quacks.log.chose.trade_up", seat, { chip: chipA(c.chip) });
    case "decline":
      return say(ctx, "quacks.log.chose.decline", seat, {});
    default:
      return say(ctx, "quacks.log.chose.other", seat, {});
  }
}

function gainWords(g) {
  switch (g && g.kind) {
    case "points":
      return t("quacks.gain.points", { n: g.points });
    case "rubies":
      return t("quacks.gain.rubies", { n: g.rubies });
    case "droplet_steps":
      return t("quacks.gain.droplet_steps", { n: g.steps });
    case "chip":
      return t("quacks.gain.chip", { chip: chipA(g.chip) });
    case "chip_removed":
      return t("quacks.gain.chip_removed", { chip: chipA(g.chip) });
    default:
      return t("quacks.gain.other");
  }
}

const REASONS = ["bonus_die", "moth", "spider", "ghosts_breath", "ruby_space", "scoring_space", "extra_white"];

function reasonWords(r) {
  if (!r) return "";
  if (r.source === "fortune") return t("quacks.reason.fortune", { card: cardName(r.card) });
  return REASONS.includes(r.source) ? t(`quacks.reason.${r.source}`) : "";
}

const DIE_FACES = ["one_point", "two_points", "ruby", "droplet", "pumpkin"];

function dieWords(face) {
  return DIE_FACES.includes(face) ? t(`quacks.die.${face}`) : t("quacks.die.other");
}

function phaseWords(phase) {
  return ["brewing", "after_brewing", "evaluation", "over"].includes(phase) ? t(`quacks.phase.${phase}`) : "";
}

/** What the pot's scoring space gives: if it stopped now while brewing, what it scores once stopped, and the
 * choice an exploded pot has (points or buying, not both; a ruby either way). */
function scoresKey(brew, ruby) {
  const key = brew === "exploded" ? "quacks.scores_exploded" : brew === "stopped" ? "quacks.scores_stopped" : "quacks.scores";
  return ruby ? `${key}_ruby` : key;
}

function brewWords(brew) {
  return ["brewing", "stopped", "exploded"].includes(brew) ? t(`quacks.brew.${brew}`) : "";
}

/** One log line for an event, in the viewer's words. */
export function describe(e, ctx) {
  const who = (s) => ctx.name(s);
  switch (e.type) {
    case "round_started":
      return t("quacks.log.round_started", { round: e.round, who: who(e.start_player) });
    case "book_opened":
      return t("quacks.log.book_opened", { ingredient: ingredient(e.colour) });
    case "card_revealed":
      return t("quacks.log.card_revealed", { card: cardName(e.card), effect: cardEffect(e.card) });
    case "die_rolled":
      return say(ctx, "quacks.log.die_rolled", e.seat, { face: dieWords(e.face) });
    case "gained": {
      const why = reasonWords(e.reason);
      if (e.gain && e.gain.kind === "chip_removed") return say(ctx, "quacks.log.chip_removed", e.seat, { chip: chipA(e.gain.chip), why });
      return say(ctx, why ? "quacks.log.gained_because" : "quacks.log.gained", e.seat, { gain: gainWords(e.gain), why });
    }
    case "rat_tails":
      return say(ctx, "quacks.log.rat_tails", e.seat, { n: e.tails });
    case "showed":
      return say(ctx, "quacks.log.showed", e.seat, { chips: chipList(e.chips) });
    case "drew_to_look_at":
      return say(ctx, "quacks.log.drew_to_look_at", e.seat, { n: e.count });
    case "looking_at":
      return t("quacks.log.looking_at", { chips: chipList(e.chips) });
    case "put_back":
      return say(ctx, "quacks.log.put_back", e.seat, { n: e.count });
    case "chose":
      return choseWords(ctx, e.seat, e.choice);
    case "traded_up":
      return say(ctx, "quacks.log.traded_up", e.seat, { from: chipA(e.from), to: chipA(e.to) });
    case "placed":
      return say(ctx, "quacks.log.placed", e.seat, { chip: chipA(e.chip), space: e.space, n: e.whites });
    case "exploded":
      return say(ctx, "quacks.log.exploded", e.seat, {});
    case "stopped":
      return say(ctx, "quacks.log.stopped", e.seat, {});
    case "flask_used":
      return say(ctx, "quacks.log.flask_used", e.seat, { chip: chipA(e.chip) });
    case "white_returned":
      return say(ctx, "quacks.log.white_returned", e.seat, { chip: chipA(e.chip) });
    case "red_bonus_declined":
      return say(ctx, "quacks.log.red_bonus_declined", e.seat, { space: e.space });
    case "droplet_step_declined":
      return say(ctx, "quacks.log.droplet_step_declined", e.seat, { space: e.space });
    case "started_over":
      return say(ctx, "quacks.log.started_over", e.seat, {});
    case "kept_potion":
      return say(ctx, "quacks.log.kept_potion", e.seat, {});
    case "committed":
      return say(ctx, "quacks.log.committed", e.seat, {});
    case "committed_to":
      return t(e.commitment === "draw" ? "quacks.log.committed_to_draw" : "quacks.log.committed_to_stop");
    case "stirred": {
      const draw = listOf((e.draw || []).map(who));
      const stop = listOf((e.stop || []).map(who));
      if (!e.draw.length) return t("quacks.log.stirred_nobody", { stop });
      return t(e.stop.length ? "quacks.log.stirred_both" : "quacks.log.stirred", { draw, stop });
    }
    case "scoring":
      return e.exploded
        ? say(ctx, "quacks.log.scoring_exploded", e.seat, { space: e.space, coins: coinWords(e.coins) })
        : say(ctx, "quacks.log.scoring", e.seat, { space: e.space, coins: coinWords(e.coins), n: e.points });
    case "bought":
      return say(ctx, "quacks.log.bought", e.seat, { chips: chipList(e.chips) });
    case "bought_nothing":
      return say(ctx, "quacks.log.bought_nothing", e.seat, {});
    case "droplet_moved":
      return say(ctx, "quacks.log.droplet_moved", e.seat, { space: e.space });
    case "flask_refilled":
      return say(ctx, "quacks.log.flask_refilled", e.seat, {});
    case "converted":
      return say(ctx, "quacks.log.converted", e.seat, {
        coins: coinWords(e.coins),
        rubies: t("quacks.rubies", { n: e.rubies }),
        n: e.points,
      });
    case "finished_round":
      return say(ctx, "quacks.log.finished_round", e.seat, {});
    case "game_over":
      return t("quacks.log.game_over");
    default:
      return null;
  }
}

// ---- drawing -------------------------------------------------------------------------------------------------------

/** Where each space of the spiral lies: an Archimedean spiral from the centre outwards, spaces evenly along it. */
const SIZE = 210;
const CENTRE = SIZE / 2;
const SPIRAL = (() => {
  const r0 = 17;
  const k = 23 / (2 * Math.PI);
  const step = 20.4;
  return POT_TRACK.map((_, i) => {
    const s = i * step;
    const theta = (-r0 + Math.sqrt(r0 * r0 + 2 * k * s)) / k;
    const r = r0 + k * theta;
    return { x: CENTRE + r * Math.sin(theta), y: CENTRE - r * Math.cos(theta), angle: theta };
  });
})();

const R = 9.2;
/** The pot each seat had at the last drawing, so only a newly placed chip is animated. */
const lastSeen = new Map();
const round1 = (v) => Math.round(v * 10) / 10;

/** A chip token: a coloured disc with its value and the first letter of its colour (colour is not the only cue). */
function chipSvg(c, x, y, r, extra = {}) {
  return h(
    "svg:g",
    { class: `q-chip chip-${c.colour}`, transform: `translate(${round1(x)} ${round1(y)})`, ...extra },
    h(
      "svg:g",
      { class: "q-chip-body" },
      h("svg:circle", { r, class: "q-chip-disc" }),
      h("svg:circle", { r: r * 0.72, class: "q-chip-ring" }),
      h("svg:text", { class: "q-chip-value", y: r * 0.36, "font-size": r * 1.05, "text-anchor": "middle" }, String(c.value)),
    ),
  );
}

/** A chip as a small stand-alone picture (in buttons, the bag, chips looked at). */
export function chipToken(c, { size = 26, label = true } = {}) {
  return h(
    "svg:svg",
    {
      class: `q-token chip-${c.colour}`,
      viewBox: "-10 -10 20 20",
      width: size,
      height: size,
      role: label ? "img" : null,
      "aria-label": label ? `${chipWords(c)} (${ingredient(c.colour)})` : null,
      "aria-hidden": label ? null : "true",
    },
    label ? h("svg:title", {}, `${chipWords(c)} (${ingredient(c.colour)})`) : null,
    chipSvg(c, 0, 0, 9.3),
  );
}

const DROP_PATH = "M0 -8 C 3 -3 6 0 6 3 A 6 6 0 0 1 -6 3 C -6 0 -3 -3 0 -8 Z";
const RAT_PATH = "M-7 2 C -7 -3 -2 -5 2 -4 L 5 -6 L 5 -3 C 7 -2 8 0 7 2 Z";

/** One pot: the spiral of 54 spaces with its chips, droplet, rat stone and scoring space. */
function potSvg(p, view, { big }) {
  const bySpace = new Map(p.pot.map((pl) => [pl.space, pl.chip]));
  const last = p.pot.length ? p.pot[p.pot.length - 1].space : null;
  // The last chip is always outlined; it drops in (animated) only on the update that brought it.
  const stamp = `${view.round}:${p.pot.length}`;
  const fresh = lastSeen.get(p.seat) !== stamp;
  lastSeen.set(p.seat, stamp);
  const path = SPIRAL.map((pt, i) => `${i ? "L" : "M"}${round1(pt.x)} ${round1(pt.y)}`).join(" ");
  const spaces = POT_TRACK.map(([coins, points, ruby], i) => {
    const { x, y, angle } = SPIRAL[i];
    const placed = bySpace.get(i);
    const classes = ["q-space"];
    if (ruby) classes.push("ruby");
    if (i === p.scoring_space) classes.push("scoring");
    if (i === p.droplet) classes.push("droplet");
    if (i === p.rat_space && p.rat_space !== p.droplet) classes.push("rat");
    if (i === last) classes.push("last");
    const out = { x: Math.sin(angle), y: -Math.cos(angle) };
    return h(
      "svg:g",
      { class: classes.join(" "), "data-space": i },
      h("svg:title", {}, t(ruby ? "quacks.space.tip_ruby" : "quacks.space.tip", {
          space: i,
          coins: coinWords(coins),
          points: t("quacks.points", { n: points }),
        })),
      h("svg:circle", { cx: round1(x), cy: round1(y), r: R, class: "q-space-disc" }),
      placed
        ? null
        : [
            h("svg:text", { x: round1(x), y: round1(y - 0.6), class: "q-coins", "text-anchor": "middle" }, String(coins)),
            points ? h("svg:text", { x: round1(x), y: round1(y + 5.6), class: "q-points", "text-anchor": "middle" }, String(points)) : null,
          ],
      ruby
        ? h("svg:path", {
            class: "q-ruby",
            d: `M0 -2.6 L2.2 0 L0 2.6 L-2.2 0 Z`,
            transform: `translate(${round1(x + out.x * (R - 1))} ${round1(y + out.y * (R - 1))})`,
          })
        : null,
      i === p.droplet ? h("svg:path", { class: "q-drop", d: DROP_PATH, transform: `translate(${round1(x)} ${round1(y)}) scale(0.85)` }) : null,
      i === p.rat_space && p.rat_space !== p.droplet
        ? h("svg:path", { class: "q-rat", d: RAT_PATH, transform: `translate(${round1(x)} ${round1(y)})` })
        : null,
      placed ? chipSvg(placed, x, y, R - 0.6, { class: `q-chip chip-${placed.colour}${i === last ? " last" : ""}${i === last && fresh ? " fresh" : ""}` }) : null,
    );
  });
  const space = POT_TRACK[Math.min(p.scoring_space, POT_TRACK.length - 1)];
  const label = t("quacks.pot.label", {
    n: p.pot.length,
    last: p.pot.length ? t("quacks.pot.label_last", { chip: chipA(p.pot[p.pot.length - 1].chip), space: last }) : "",
    space: p.scoring_space,
    coins: coinWords(space[0]),
    points: t("quacks.points", { n: space[1] }),
    ruby: space[2] ? t("quacks.pot.label_ruby") : "",
  });
  return h(
    "svg:svg",
    { class: `q-pot-svg${big ? " big" : ""}`, viewBox: `0 0 ${SIZE} ${SIZE}`, role: "img", "aria-label": label },
    h("svg:circle", { cx: CENTRE, cy: CENTRE, r: CENTRE - 1, class: "q-cauldron" }),
    h("svg:path", { d: path, class: "q-spiral" }),
    spaces,
  );
}

/** Each chip in a pot tells what it is and does on hover, focus and tap, as the ingredient books do: a focusable
 * spot laid over the chip (an `infoTip`), placed in percent of the pot's drawing so it follows its size. */
function potChipTips(p) {
  const size = (2 * R * 100) / SIZE;
  return p.pot.map((pl) => {
    const { x, y } = SPIRAL[pl.space];
    const chip = chipWords(pl.chip);
    const tip = infoTip(
      h("span", { class: "q-pot-chip-spot" }),
      t("quacks.pot.chip_tip", { chip, ingredient: ingredient(pl.chip.colour), space: pl.space, effect: t(`quacks.book.${pl.chip.colour}`) }),
      { class: "q-pot-chip", role: "img", "aria-label": chip, "data-key": `q-pot-${p.seat}-${pl.space}`, "data-space": pl.space },
    );
    // A chip in the right half opens its tip leftwards, so that it stays on a phone's screen.
    if (x > CENTRE) tip.classList.add("right");
    tip.style.left = `${round1(((x - R) * 100) / SIZE)}%`;
    tip.style.top = `${round1(((y - R) * 100) / SIZE)}%`;
    tip.style.width = `${round1(size)}%`;
    tip.style.height = `${round1(size)}%`;
    return tip;
  });
}

/** The flask: full or empty; when it may put the last white back, clicking it does. */
function flaskSvg(p, ctx) {
  const use = p.seat === ctx.me ? ctx.legal.find((a) => a.type === "use_flask") : null;
  const label = p.flask_full ? t("quacks.flask.full") : t("quacks.flask.empty");
  const svg = h(
    "svg:svg",
    { viewBox: "0 0 24 32", width: 24, height: 32, "aria-hidden": "true", class: `q-flask${p.flask_full ? " full" : ""}` },
    h("svg:path", { class: "q-flask-glass", d: "M9 2h6v8l7 14a4 4 0 0 1-4 6H6a4 4 0 0 1-4-6l7-14z" }),
    p.flask_full ? h("svg:path", { class: "q-flask-liquid", d: "M5.5 19h13l2.2 5a2.6 2.6 0 0 1-2.6 3.7H5.9a2.6 2.6 0 0 1-2.6-3.7z" }) : null,
  );
  if (use) {
    return h(
      "button",
      { type: "button", class: "q-flask-button legal", "data-act": "use_flask", "data-key": "q-flask", "aria-label": actionLabel(use), title: actionLabel(use), onclick: () => ctx.act(use) },
      svg,
    );
  }
  return infoTip(svg, label, { class: "q-flask-wrap", role: "img", "aria-label": label });
}

/** The bag: clicking it draws a chip when drawing is legal. */
function bagSvg(ctx) {
  const draw = ctx.legal.find((a) => a.type === "draw");
  const svg = h(
    "svg:svg",
    { viewBox: "0 0 40 44", width: 46, height: 50, "aria-hidden": "true", class: "q-bag" },
    h("svg:path", { class: "q-bag-cloth", d: "M13 8 Q20 14 27 8 L25 14 Q38 22 36 34 Q34 42 20 42 Q6 42 4 34 Q2 22 15 14 Z" }),
    h("svg:path", { class: "q-bag-string", d: "M13 13 Q20 17 27 13" }),
  );
  if (!draw) return null;
  return h(
    "button",
    { type: "button", class: "q-bag-button legal", "data-act": "draw", "data-key": "q-bag", "aria-label": actionLabel(draw), title: actionLabel(draw), onclick: () => ctx.act(draw) },
    svg,
  );
}

function chipCounts(list) {
  if (!list || !list.length) return h("span", { class: "hint" }, t("quacks.none"));
  return h(
    "span",
    { class: "chip-counts" },
    list.map((cc) => h("span", { class: "chip-count" }, chipToken(cc.chip, { size: 22 }), cc.count > 1 ? h("span", { class: "times" }, `×${cc.count}`) : null)),
  );
}

function renderBoard(p, view, ctx, big) {
  const mine = p.seat === ctx.me;
  const name = mine ? null : ctx.names[p.seat] || t("quacks.seat", { n: p.seat + 1 });
  const space = POT_TRACK[Math.min(p.scoring_space, POT_TRACK.length - 1)];
  const places = mine ? ctx.legal.filter((a) => a.type === "place") : [];
  const danger = p.whites > view.white_limit - 2;
  return h(
    "section",
    { class: `quacks-board${mine ? " mine" : ""} brew-${p.brew}`, "data-seat": p.seat, "aria-label": mine ? t("quacks.board.yours") : t("quacks.board.theirs", { name }) },
    h(
      "h3",
      {},
      mine ? t("quacks.pot.yours") : t("quacks.pot.theirs", { name }),
      h(
        "span",
        { class: "board-stats" },
        ` ${t("quacks.stats", { points: t("quacks.points", { n: p.score }), rubies: t("quacks.rubies", { n: p.rubies }) })}`,
      ),
    ),
    h(
      "div",
      { class: "q-pot-row" },
      h("div", { class: `q-pot-wrap${big ? " big" : ""}` }, potSvg(p, view, { big }), potChipTips(p)),
      h(
        "div",
        { class: "q-pot-side" },
        flaskSvg(p, ctx),
        infoTip(h("span", { class: "q-tails" }, t("quacks.tails", { n: p.rat_tails })), t("quacks.tails.tip")),
        h("span", { class: `bombs${danger ? " danger" : ""}` }, t("quacks.bombs", { n: p.whites, limit: view.white_limit })),
        h("span", { class: `brew ${p.brew}` }, brewWords(p.brew)),
        mine ? bagSvg(ctx) : null,
      ),
    ),
    h("p", { class: "pot-facts" }, t(scoresKey(p.brew, space[2]), { coins: coinWords(space[0]), n: space[1] })),
    p.looking_at && p.looking_at.length
      ? h(
          "div",
          { class: "looking" },
          h("span", {}, t("quacks.looking")),
          p.looking_at.map((c) => {
            const place = places.find((a) => a.chip.colour === c.colour && a.chip.value === c.value);
            return place
              ? h(
                  "button",
                  { type: "button", class: "q-chip-button legal", "data-act": "place", "data-key": `q-look-${c.colour}-${c.value}`, "aria-label": actionLabel(place), title: actionLabel(place), onclick: () => ctx.act(place) },
                  chipToken(c, { size: 34, label: false }),
                )
              : chipToken(c, { size: 30 });
          }),
        )
      : p.looking_at_count
        ? h("p", { class: "hint" }, t("quacks.looking_secret", { n: p.looking_at_count }))
        : null,
    mine && p.bag
      ? h("p", { class: "bag" }, h("strong", {}, t("quacks.in_bag")), " ", chipCounts(p.bag))
      : h("p", { class: "bag" }, t("quacks.not_in_pot"), " ", chipCounts(p.not_in_pot)),
    p.committed
      ? h("p", { class: "tag" }, mine && p.commitment ? t(p.commitment === "draw" ? "quacks.commit.draw" : "quacks.commit.stop") : t("quacks.commit.secret"))
      : null,
  );
}

function actionButton(a, ctx, cls = "") {
  const chips = a.type === "buy" ? a.chips : a.type === "place" ? [a.chip] : a.type === "fortune" && a.choice.chip ? [a.choice.chip] : [];
  return h(
    "button",
    {
      type: "button",
      class: `q-action ${cls}`,
      "data-key": `q-${JSON.stringify(a)}`,
      "data-act": a.type,
      "aria-keyshortcuts": a.type === "draw" ? "D" : a.type === "stop" ? "S" : null,
      onclick: () => ctx.act(a),
    },
    chips.map((c) => chipToken(c, { size: 22, label: false })),
    " ",
    buyLabel(a, ctx.view),
    a.type === "draw" ? h("kbd", {}, "D") : a.type === "stop" ? h("kbd", {}, "S") : null,
  );
}

function renderActions(ctx) {
  const legal = ctx.legal;
  if (!legal.length) return null;
  const me = ctx.view.players.find((p) => p.seat === ctx.me);
  const main = legal.filter((a) => a.type === "draw" || a.type === "stop");
  const buys = legal.filter((a) => a.type === "buy");
  const rest = legal.filter((a) => !main.includes(a) && !buys.includes(a));
  return h(
    "section",
    { class: "q-actions", "aria-label": t("quacks.your_moves") },
    main.length ? h("div", { class: "buttons" }, main.map((a) => actionButton(a, ctx, a.type === "draw" ? "primary big" : ""))) : null,
    rest.length ? h("div", { class: "buttons" }, rest.map((a) => actionButton(a, ctx))) : null,
    buys.length ? renderShop(ctx, buys, me) : null,
  );
}

const chipKey = (c) => `${c.colour}-${c.value}`;
/** The first chip picked for a purchase of two, kept on the page until the second is clicked. */
const shopPick = { key: null, version: -1 };

/** Buying by clicking chips: each chip that can be bought is a token; a chip that can be paired with another is
 * picked first (then the chips it pairs with are offered, or "only this one"), otherwise it is bought at once.
 * Every purchase is also a button in the list below (the keyboard path). */
function renderShop(ctx, buys, me) {
  if (shopPick.version !== ctx.state.version) {
    shopPick.version = ctx.state.version;
    shopPick.key = null;
  }
  const chips = new Map();
  for (const a of buys) for (const c of a.chips) chips.set(chipKey(c), c);
  const single = (key) => buys.find((a) => a.chips.length === 1 && chipKey(a.chips[0]) === key);
  const pair = (k1, k2) => buys.find((a) => a.chips.length === 2 && a.chips.map(chipKey).sort().join() === [k1, k2].sort().join());
  const pairsWith = (key) => buys.some((a) => a.chips.length === 2 && a.chips.some((c) => chipKey(c) === key));
  const picked = shopPick.key && chips.has(shopPick.key) ? shopPick.key : null;
  const view = ctx.view;
  // Each chip shows its price under it.
  const priced = (c, token) => [token, h("span", { class: "q-price" }, priceWords(priceOf(view, c) ?? 0))];
  const tokens = [...chips.entries()].map(([key, c]) => {
    if (picked) {
      if (key === picked) {
        return h(
          "button",
          { type: "button", class: "q-chip-button chosen", "data-act": "choose", "data-local": "1", "data-key": `q-shop-${key}`, "aria-pressed": "true", "aria-label": t("quacks.shop.unpick", { chip: chipWords(c) }), onclick: () => { shopPick.key = null; ctx.rerender(); } },
          priced(c, chipToken(c, { size: 34, label: false })),
        );
      }
      const both = pair(picked, key);
      return both
        ? h("button", { type: "button", class: "q-chip-button legal", "data-act": "buy", "data-key": `q-shop-${key}`, "aria-label": buyLabel(both, view), title: buyLabel(both, view), onclick: () => ctx.act(both) }, priced(c, chipToken(c, { size: 34, label: false })))
        : h("span", { class: "q-chip-off" }, priced(c, chipToken(c, { size: 30 })));
    }
    const alone = single(key);
    if (pairsWith(key)) {
      return h(
        "button",
        { type: "button", class: "q-chip-button legal", "data-act": "choose", "data-local": "1", "data-key": `q-shop-${key}`, "aria-label": t("quacks.shop.pick", { chip: chipWords(c), price: priceWords(priceOf(view, c) ?? 0) }), title: t("quacks.shop.pick", { chip: chipWords(c), price: priceWords(priceOf(view, c) ?? 0) }), onclick: () => { shopPick.key = key; ctx.rerender(); } },
        priced(c, chipToken(c, { size: 34, label: false })),
      );
    }
    return alone
      ? h("button", { type: "button", class: "q-chip-button legal", "data-act": "buy", "data-key": `q-shop-${key}`, "aria-label": buyLabel(alone, view), title: buyLabel(alone, view), onclick: () => ctx.act(alone) }, priced(c, chipToken(c, { size: 34, label: false })))
      : h("span", { class: "q-chip-off" }, priced(c, chipToken(c, { size: 30 })));
  });
  const onlyThis = picked && single(picked);
  return h(
    "div",
    { class: "shop" },
    h("h4", {}, t("quacks.shop", { coins: coinWords(me ? me.coins : 0) })),
    h("p", { class: "hint" }, picked ? t("quacks.shop.second", { chip: chipWords(chips.get(picked)) }) : t("quacks.shop.first")),
    h("div", { class: "q-shop-chips" }, tokens, onlyThis ? actionButton(onlyThis, ctx, "small") : null),
    h(
      "details",
      { class: "q-buy-list" },
      h("summary", {}, t("quacks.shop.list", { n: buys.length })),
      h("div", { class: "buttons q-buys" }, buys.map((a) => actionButton(a, ctx, "small q-buy"))),
    ),
  );
}

function renderTop(ctx) {
  const view = ctx.view;
  return h(
    "div",
    { class: "q-top" },
    h("p", {}, h("strong", {}, t("quacks.round", { round: view.round, rounds: view.rounds })), ` · ${phaseWords(view.phase)}`),
    view.card
      ? h("p", { class: "fortune" }, t("quacks.fortune"), " ", infoTip(h("strong", {}, cardName(view.card)), cardEffect(view.card), { class: "q-card" }))
      : null,
    h(
      "p",
      { class: "books" },
      t("quacks.books"),
      " ",
      view.books.map((c) =>
        infoTip(
          h("span", { class: `book chip-${c}` }, ingredient(c)),
          bookWords(c, view),
          { class: "q-book", "data-colour": c },
        ),
      ),
    ),
    h(
      "p",
      { class: "hint" },
      t("quacks.top_hint", { n: view.cards_left, limit: view.white_limit }),
      view.stirring ? ` · ${t("quacks.stirring")}` : "",
    ),
  );
}

function render(ctx) {
  const view = ctx.view;
  const me = view.players.find((p) => p.seat === ctx.me);
  const others = view.players.filter((p) => p.seat !== ctx.me);
  return h(
    "div",
    { class: "quacks" },
    renderTop(ctx),
    me ? renderActions(ctx) : null,
    me ? renderBoard(me, view, ctx, true) : null,
    h("div", { class: "q-others" }, others.map((p) => renderBoard(p, view, ctx, false))),
  );
}

function playerInfo(seat, ctx) {
  const p = ctx.view.players.find((x) => x.seat === seat);
  if (!p) return null;
  return h(
    "span",
    { class: "q-player" },
    h("span", { class: "score" }, t("quacks.points", { n: p.score })),
    h("span", { class: "hint" }, ` · ${t("quacks.rubies", { n: p.rubies })} · ${t("quacks.bombs", { n: p.whites, limit: ctx.view.white_limit })} · ${brewWords(p.brew)}`),
  );
}

export function headline(ctx) {
  const view = ctx.view;
  if (ctx.state.outcome || view.phase === "over") return t("quacks.head.over");
  const me = view.players.find((p) => p.seat === ctx.me);
  const types = new Set(ctx.legal.map((a) => a.type));
  if (types.has("draw") && view.stirring) return t("quacks.head.stir");
  if (types.has("draw")) return t("quacks.head.brew");
  if (types.has("buy") || types.has("buy_nothing")) return t("quacks.head.buy");
  if (types.has("move_droplet") || types.has("refill_flask") || types.has("finish_round")) return t("quacks.head.spend");
  if (types.has("fortune")) return t("quacks.head.fortune", { card: cardName(view.card) });
  if (types.has("place") || types.has("place_none")) return t("quacks.head.place");
  if (ctx.legal.length) return t("quacks.head.decide");
  if (view.buying_in_order && me && (me.shop === "buying" || me.shop === "points_or_buying")) {
    const before = view.players.filter((p) => p.seat !== me.seat && (p.shop === "buying" || p.shop === "points_or_buying")).map((p) => ctx.name(p.seat));
    return t("quacks.head.buy_order", { who: listOf(before) });
  }
  if (me && me.brew !== "brewing") {
    const still = view.players.filter((p) => p.brew === "brewing").map((p) => ctx.name(p.seat));
    if (still.length) return t("quacks.head.waiting", { who: listOf(still) });
  }
  return t("quacks.head.round", { round: view.round, phase: phaseWords(view.phase) });
}

function onKey(event, ctx) {
  const key = event.key.toLowerCase();
  const want = key === "d" ? "draw" : key === "s" ? "stop" : null;
  const action = want && ctx.legal.find((a) => a.type === want);
  if (action) {
    ctx.act(action);
    return true;
  }
  return false;
}

/** How to play, in a player's words: the rules as the server plays them (docs/rules/quacks.md). */
export function rules() {
  const section = (key, ...rest) => h("section", {}, h("h4", {}, t(`quacks.rules.${key}.title`)), ...rest);
  const para = (key, params) => h("p", {}, t(key, params));
  return h(
    "div",
    { class: "rules-summary quacks-rules" },
    para("quacks.rules.goal"),
    section("brew", para("quacks.rules.brew.text"), para("quacks.rules.brew.flask")),
    section("score", para("quacks.rules.score.text"), para("quacks.rules.score.buy")),
    section("rats", para("quacks.rules.rats.text")),
    section(
      "books",
      h(
        "ul",
        {},
        COLOURS.map((c) => h("li", {}, h("strong", {}, ingredient(c)), ": ", t(`quacks.book.${c}`))),
      ),
    ),
    section("cards", para("quacks.rules.cards.text")),
    section("end", para("quacks.rules.end.text")),
  );
}

/** The game's picture for the start page: a few ingredients as chips. */
export function picture() {
  const chips = [
    { colour: "orange", value: 1 },
    { colour: "white", value: 3 },
    { colour: "red", value: 2 },
    { colour: "blue", value: 4 },
  ];
  return h("span", { class: "game-picture-chips" }, chips.map((c) => chipToken(c, { size: 44, label: false })));
}

export default { id: "quacks", title: "The Quacks of Quedlinburg", render, describe, headline, playerInfo, onKey, rules, actionLabel, picture };
