// The Quacks of Quedlinburg: every player's pot (the spiral track drawn as rows of spaces, with the chips in it,
// the droplet, the rat stone and the scoring space), cherry bombs against the limit, flask, rubies, score, the
// fortune-teller card in force, the open ingredient books, and the bag. Each player draws at their own pace; the
// other pots update live as their chips land.
// The view is `rules::games::quacks::QuacksView`; actions `Action`; events `QuacksEvent` (docs/rules/quacks.md).

import { h } from "../ui.js";
import { listWords, describeValue } from "../words.js";

/** The pot track by space index: [coins, points, ruby]. A copy of `POT_TRACK` in rules/src/games/quacks/data.rs,
 * for drawing only; a test of the web crate checks that the two agree. */
export const POT_TRACK = [[0,0,0], [1,0,0], [2,0,0], [3,0,0], [4,0,0], [5,0,1], [6,1,0], [7,1,0], [8,1,0], [9,1,1], [10,2,0], [11,2,0], [12,2,0], [13,2,1], [14,3,0], [15,3,0], [15,3,1], [16,3,0], [16,4,0], [17,4,0], [17,4,1], [18,4,0], [18,5,0], [19,5,0], [19,5,1], [20,5,0], [20,6,0], [21,6,0], [21,6,1], [22,7,0], [22,7,1], [23,7,0], [23,8,0], [24,8,0], [24,8,1], [25,9,0], [25,9,1], [26,9,0], [26,10,0], [27,10,0], [27,10,1], [28,11,0], [28,11,1], [29,11,0], [29,12,0], [30,12,0], [30,12,1], [31,12,0], [31,13,0], [32,13,0], [32,13,1], [33,14,0], [33,14,1], [35,15,0]];

const INGREDIENT = {
  white: "cherry bomb",
  orange: "pumpkin",
  green: "garden spider",
  blue: "crow skull",
  red: "toadstool",
  yellow: "mandrake",
  purple: "ghost's breath",
  black: "moth",
};
/** A letter on each chip as well as its colour, so colours are not the only cue. */
const LETTER = { white: "W", orange: "O", green: "G", blue: "B", red: "R", yellow: "Y", purple: "P", black: "K" };

const CARD_NAMES = {
  roll_the_die: "Roll the Die",
  the_pot_is_filling_up: "The Pot Is Filling Up",
  charity: "Charity",
  beginners_bonus: "Beginner's Bonus",
  rat_infestation: "Rat Infestation",
  rats_are_your_friends: "Rats Are Your Friends",
  a_good_start: "A Good Start",
  just_in_time: "Just in Time",
  you_only_get_to_choose_one: "You Only Get to Choose One",
  choose_wisely: "Choose Wisely",
  wheel_and_deal: "Wheel and Deal",
  an_opportunistic_moment: "An Opportunistic Moment",
  less_is_more: "Less Is More",
  the_pot_is_full: "The Pot Is Full",
  pumpkin_patch_party: "Pumpkin Patch Party",
  lucky_devil: "Lucky Devil",
  its_shining_extra_bright: "It's Shining Extra Bright",
  magic_potion: "Magic Potion",
  seasoned_perfectly: "Seasoned Perfectly",
  living_in_luxury: "Living in Luxury",
  well_stirred: "Well Stirred",
  strong_ingredient: "Strong Ingredient",
  schadenfreude: "Schadenfreude",
  a_second_chance: "A Second Chance",
};

function cardName(card) {
  return CARD_NAMES[card] || String(card).replace(/_/g, " ");
}

function plural(n, one, many) {
  return `${n} ${n === 1 ? one : many}`;
}

export function chipWords(chip) {
  return `${chip.colour} ${chip.value}`;
}

function chip(c, extra = {}) {
  return h(
    "span",
    {
      class: `chip chip-${c.colour}`,
      title: `${chipWords(c)} (${INGREDIENT[c.colour]})`,
      "aria-label": chipWords(c),
      ...extra,
    },
    h("span", { class: "chip-value" }, String(c.value)),
    h("span", { class: "chip-letter", "aria-hidden": "true" }, LETTER[c.colour]),
  );
}

function chipCounts(list) {
  if (!list || !list.length) return h("span", { class: "hint" }, "none");
  return h(
    "span",
    { class: "chip-counts" },
    list.map((cc) => h("span", { class: "chip-count" }, chip(cc.chip), cc.count > 1 ? h("span", { class: "times" }, `×${cc.count}`) : null)),
  );
}

const BREW_WORDS = { brewing: "brewing", stopped: "stopped", exploded: "exploded!" };

/** One pot: spaces 0-53 in rows of nine, as the spiral is read from the centre outwards. */
function renderPot(p, view, { big }) {
  const bySpace = new Map(p.pot.map((pl) => [pl.space, pl.chip]));
  const last = p.pot.length ? p.pot[p.pot.length - 1].space : null;
  const cells = POT_TRACK.map(([coins, points, ruby], i) => {
    const placed = bySpace.get(i);
    const classes = ["space"];
    if (i === p.droplet) classes.push("droplet");
    if (i === p.rat_space && p.rat_space !== p.droplet) classes.push("rat");
    if (i === p.scoring_space) classes.push("scoring");
    if (ruby) classes.push("ruby");
    if (i === last) classes.push("last");
    return h(
      "span",
      { class: classes.join(" "), "data-space": i },
      h("span", { class: "coins", "aria-hidden": "true" }, String(coins)),
      placed ? chip(placed) : null,
      i === p.droplet ? h("span", { class: "marker drop", title: "the droplet" }, "drop") : null,
      i === p.rat_space && p.rat_space !== p.droplet ? h("span", { class: "marker rat-stone", title: "the rat stone" }, "rat") : null,
    );
  });
  const space = POT_TRACK[Math.min(p.scoring_space, POT_TRACK.length - 1)];
  return h(
    "div",
    { class: `pot${big ? " big" : ""} brew-${p.brew}` },
    h(
      "div",
      {
        class: "pot-track",
        role: "img",
        "aria-label": `Pot: ${p.pot.length} chips${p.pot.length ? `, last ${chipWords(p.pot[p.pot.length - 1].chip)} on space ${last}` : ""}; scoring space ${p.scoring_space} (${space[0]} coins, ${space[1]} points${space[2] ? ", a ruby" : ""})`,
      },
      cells,
    ),
    h(
      "p",
      { class: "pot-facts" },
      h("span", { class: `bombs${p.whites > view.white_limit - 2 ? " danger" : ""}` }, `Cherry bombs ${p.whites} / ${view.white_limit}`),
      " · ",
      h("span", {}, `scores ${space[0]} coins, ${space[1]} pt${space[2] ? " + ruby" : ""}`),
      " · ",
      h("span", { class: `brew ${p.brew}` }, BREW_WORDS[p.brew] || p.brew),
    ),
  );
}

function renderBoard(p, view, ctx, big) {
  const mine = p.seat === ctx.me;
  return h(
    "section",
    { class: `quacks-board${mine ? " mine" : ""}`, "data-seat": p.seat, "aria-label": `${ctx.name(p.seat)}'s board` },
    h(
      "h3",
      {},
      mine ? "Your pot" : `${ctx.names[p.seat] || `Seat ${p.seat + 1}`}'s pot`,
      h(
        "span",
        { class: "board-stats" },
        ` ${plural(p.score, "point", "points")} · ${plural(p.rubies, "ruby", "rubies")} · flask ${p.flask_full ? "full" : "empty"} · droplet ${p.droplet}${p.rat_tails ? ` · ${plural(p.rat_tails, "rat tail", "rat tails")}` : ""}`,
      ),
    ),
    renderPot(p, view, { big }),
    p.looking_at && p.looking_at.length
      ? h("p", { class: "looking" }, "You are looking at: ", p.looking_at.map((c) => chip(c)))
      : p.looking_at_count
        ? h("p", { class: "hint" }, `Looking at ${p.looking_at_count} chip${p.looking_at_count === 1 ? "" : "s"} in secret`)
        : null,
    mine && p.bag ? h("p", { class: "bag" }, h("strong", {}, "In your bag: "), chipCounts(p.bag)) : h("p", { class: "bag" }, "Not in the pot: ", chipCounts(p.not_in_pot)),
    p.committed ? h("p", { class: "tag" }, mine && p.commitment ? `You will ${p.commitment} at the stir` : "Committed for the stir") : null,
  );
}

/** Words for every action the engine lists. */
function actionLabel(a, view) {
  switch (a.type) {
    case "draw":
      return "Draw a chip";
    case "stop":
      return "Stop brewing";
    case "use_flask":
      return "Use the flask: put the white back";
    case "return_first_white":
      return "Put the first white back (Well Stirred)";
    case "return_white_before_mandrake":
      return "Mandrake: put the white before it back";
    case "decline_red_bonus":
      return "Toadstool: decline its bonus spaces";
    case "decline_droplet_step":
      return "Give back a droplet step";
    case "place":
      return `Place ${chipWords(a.chip)}`;
    case "place_none":
      return "Place none, put them all back";
    case "start_over":
      return "Start over (A Second Chance)";
    case "keep_potion":
      return "Keep this potion";
    case "fortune":
      return choiceWords(a.choice);
    case "take_points":
      return "Take the points";
    case "convert_coins":
      return "Convert coins to points";
    case "buy":
      return `Buy ${listWords(a.chips.map(chipWords))}`;
    case "buy_nothing":
      return "Buy nothing";
    case "move_droplet":
      return "Move the droplet (2 rubies)";
    case "refill_flask":
      return "Refill the flask (2 rubies)";
    case "finish_round":
      return "Finish the round";
    default:
      return describeValue(a);
  }
}

function choiceWords(c) {
  switch (c.option) {
    case "take_chip":
      return `Take ${chipWords(c.chip)}`;
    case "points_for_rat_tails":
      return "1 point per rat tail";
    case "keep_rat_tails":
      return "Keep the rat tails";
    case "trade_rat_tails":
      return `Give up ${c.tails} rat tail${c.tails === 1 ? "" : "s"} for rubies`;
    case "four_points":
      return "4 points";
    case "remove_white":
      return "Remove a white 1 for good";
    case "three_rubies":
      return "3 rubies";
    case "droplet_steps":
      return "Droplet +2";
    default:
      return describeValue(c);
  }
}

function renderActions(ctx) {
  const view = ctx.view;
  const legal = ctx.legal;
  if (!legal.length) return null;
  const main = legal.filter((a) => a.type === "draw" || a.type === "stop");
  const buys = legal.filter((a) => a.type === "buy");
  const rest = legal.filter((a) => !main.includes(a) && !buys.includes(a));
  const button = (a, cls = "") =>
    h(
      "button",
      {
        type: "button",
        class: `q-action ${cls}`,
        "data-key": `q-${JSON.stringify(a)}`,
        "data-act": a.type,
        "aria-keyshortcuts": a.type === "draw" ? "D" : a.type === "stop" ? "S" : null,
        onclick: () => ctx.act(a),
      },
      actionLabel(a, view),
      a.type === "draw" ? h("kbd", {}, "D") : a.type === "stop" ? h("kbd", {}, "S") : null,
    );
  return h(
    "section",
    { class: "q-actions", "aria-label": "Your moves" },
    main.length ? h("div", { class: "buttons" }, main.map((a) => button(a, a.type === "draw" ? "primary big" : ""))) : null,
    rest.length ? h("div", { class: "buttons" }, rest.map((a) => button(a))) : null,
    buys.length
      ? h(
          "details",
          { class: "shop", open: true },
          h("summary", {}, `Buy ingredients (${buys.length} choices)`),
          h("div", { class: "buttons" }, buys.map((a) => button(a, "small"))),
        )
      : null,
  );
}

function render(ctx) {
  const view = ctx.view;
  const me = view.players.find((p) => p.seat === ctx.me);
  const others = view.players.filter((p) => p.seat !== ctx.me);
  return h(
    "div",
    { class: "quacks" },
    h(
      "div",
      { class: "q-top" },
      h("p", {}, h("strong", {}, `Round ${view.round} of ${view.rounds}`), ` · ${view.phase.replace(/_/g, " ")}`),
      view.card ? h("p", { class: "fortune" }, "Fortune teller: ", h("strong", {}, cardName(view.card))) : null,
      h(
        "p",
        { class: "books" },
        "Books open: ",
        view.books.map((c) => h("span", { class: `book chip-${c}` }, `${c}`)),
      ),
      h("p", { class: "hint" }, `${view.cards_left} fortune cards left · explodes above ${view.white_limit} cherry bomb points${view.stirring ? " · this round is brewed in lockstep (Stir!)" : ""}`),
    ),
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
    h("span", { class: "score" }, plural(p.score, "point", "points")),
    h("span", { class: "hint" }, ` · ${plural(p.rubies, "ruby", "rubies")} · bombs ${p.whites}/${ctx.view.white_limit} · ${BREW_WORDS[p.brew] || p.brew}`),
  );
}

function headline(ctx) {
  const view = ctx.view;
  if (ctx.state.outcome || view.phase === "over") return "Game over";
  const me = view.players.find((p) => p.seat === ctx.me);
  const types = new Set(ctx.legal.map((a) => a.type));
  if (types.has("draw") && view.stirring) return "Stir: decide to draw or stop (everyone's choice is revealed together)";
  if (types.has("draw")) return "Brew: draw a chip or stop — at your own pace";
  if (types.has("buy") || types.has("buy_nothing")) return "Buy ingredients for your bag";
  if (types.has("move_droplet") || types.has("refill_flask") || types.has("finish_round")) return "Spend rubies, or finish the round";
  if (ctx.legal.length) return "Your decision";
  if (view.buying_in_order && me && (me.shop === "buying" || me.shop === "points_or_buying")) {
    const before = view.players.filter((p) => p.seat !== me.seat && (p.shop === "buying" || p.shop === "points_or_buying")).map((p) => ctx.name(p.seat));
    return `Buying goes in start-player order this round (a chip could run out): waiting for ${listWords(before)}`;
  }
  if (me && me.brew !== "brewing") {
    const still = view.players.filter((p) => p.brew === "brewing").map((p) => ctx.name(p.seat));
    if (still.length) return `Waiting for ${listWords(still)} to finish brewing`;
  }
  return `Round ${view.round}: ${view.phase.replace(/_/g, " ")}`;
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

function gainWords(g) {
  switch (g.kind) {
    case "points":
      return `${g.points} point${g.points === 1 ? "" : "s"}`;
    case "rubies":
      return `${g.rubies} rub${g.rubies === 1 ? "y" : "ies"}`;
    case "droplet_steps":
      return `droplet +${g.steps}`;
    case "chip":
      return chipWords(g.chip);
    case "chip_removed":
      return `removed ${chipWords(g.chip)}`;
    default:
      return describeValue(g);
  }
}

function describe(e, ctx) {
  const who = (s) => ctx.name(s);
  switch (e.type) {
    case "round_started":
      return `Round ${e.round} begins; ${who(e.start_player)} ${e.start_player === ctx.me ? "are" : "is"} the start player.`;
    case "book_opened":
      return `The ${e.colour} ingredient book opens.`;
    case "card_revealed":
      return `Fortune teller: ${cardName(e.card)}.`;
    case "die_rolled":
      return `${who(e.seat)} rolled the bonus die: ${String(e.face).replace(/_/g, " ")}.`;
    case "gained":
      return `${who(e.seat)} gained ${gainWords(e.gain)}.`;
    case "rat_tails":
      return `${who(e.seat)} ${e.seat === ctx.me ? "get" : "gets"} ${e.tails} rat tail${e.tails === 1 ? "" : "s"}.`;
    case "showed":
      return `${who(e.seat)} showed ${listWords(e.chips.map(chipWords))}.`;
    case "drew_to_look_at":
      return `${who(e.seat)} drew ${e.count} chip${e.count === 1 ? "" : "s"} to look at.`;
    case "looking_at":
      return `You look at ${listWords(e.chips.map(chipWords))}.`;
    case "put_back":
      return `${who(e.seat)} put ${e.count} chip${e.count === 1 ? "" : "s"} back in the bag.`;
    case "chose":
      return `${who(e.seat)} chose: ${choiceWords(e.choice)}.`;
    case "traded_up":
      return `${who(e.seat)} traded ${chipWords(e.from)} up for ${chipWords(e.to)}.`;
    case "placed":
      return `${who(e.seat)} drew ${chipWords(e.chip)} onto space ${e.space} (bombs ${e.whites}).`;
    case "exploded":
      return `${who(e.seat)}'s pot exploded!`;
    case "stopped":
      return `${who(e.seat)} stopped brewing.`;
    case "flask_used":
      return `${who(e.seat)} used the flask to put ${chipWords(e.chip)} back.`;
    case "white_returned":
      return `${who(e.seat)} put ${chipWords(e.chip)} back.`;
    case "red_bonus_declined":
      return `${who(e.seat)} declined the toadstool's bonus: it stays on space ${e.space}.`;
    case "droplet_step_declined":
      return `${who(e.seat)} gave back a droplet step (droplet on space ${e.space}).`;
    case "started_over":
      return `${who(e.seat)} started the potion over.`;
    case "kept_potion":
      return `${who(e.seat)} kept the potion.`;
    case "committed":
      return `${who(e.seat)} decided for the stir.`;
    case "committed_to":
      return `You will ${e.commitment} at the stir.`;
    case "stirred":
      return `Stir! ${e.draw.length ? `${listWords(e.draw.map(who))} draw` : "Nobody draws"}${e.stop.length ? `; ${listWords(e.stop.map(who))} stop` : ""}.`;
    case "scoring":
      return `${who(e.seat)} scores space ${e.space}: ${e.coins} coins${e.exploded ? " (exploded)" : `, ${e.points} points`}.`;
    case "bought":
      return `${who(e.seat)} bought ${listWords(e.chips.map(chipWords))}.`;
    case "bought_nothing":
      return `${who(e.seat)} bought nothing.`;
    case "droplet_moved":
      return `${who(e.seat)} moved the droplet to space ${e.space}.`;
    case "flask_refilled":
      return `${who(e.seat)} refilled the flask.`;
    case "converted":
      return `${who(e.seat)} converted ${e.coins} coins and ${e.rubies} rubies into ${e.points} points.`;
    case "finished_round":
      return `${who(e.seat)} finished the round.`;
    case "game_over":
      return "Game over.";
    default:
      return null;
  }
}

export default { id: "quacks", title: "The Quacks of Quedlinburg", render, describe, headline, playerInfo, onKey };
