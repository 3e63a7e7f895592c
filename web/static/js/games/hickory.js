// Hickory Dickory: the clock (12 numbers, each with an outer-ring space holding its action token, a cat paw, a
// tile and working mice, and an inner-ring space with waiting mice), the minute hand with the mice riding it front
// to back, the hour, Itzy's web, the missions, the pine cone on the chain, and each player's mouse cards with their
// tiles, hunt board and score by source.
// The view is `rules::games::hickory::HickoryView`; actions `HickoryAction`; events `HickoryEvent`
// (docs/rules/hickory-dickory.md, §8).

import { h, seatMarker } from "../ui.js";
import { listWords, describeValue } from "../words.js";

/** "Your" for the viewer's own pieces, "Ann's" for anyone else's. */
const whose = (ctx, seat) => (seat === ctx.me ? "Your" : `${ctx.name(seat)}'s`);

const TOKEN_WORDS = {
  climb: "Climb",
  delivery: "Delivery",
  cuckoo_door: "Lord Cuckoo's door",
  search: "Search",
  exchange: "Exchange",
  favour: "Favour",
};
const FACE_SIGN = { numbered: "", sun: "☀", moon: "☾" };
const MOUSE_LETTER = { scurrier: "Sc", spotter: "Sp", scavenger: "Sv", scamp: "Sa", scaler: "Sl" };
const COLOUR_LETTER = { red: "R", yellow: "Y", green: "G", blue: "B", purple: "P" };
const ITEM_SIGN = { acorn: "♣", berry: "●", button: "◎", thimble: "▲", key: "⚷" };

function mouseName(m) {
  return m;
}

export function tileWords(t) {
  if (!t) return "nothing";
  if (t.kind === "item") return `${t.colour} ${t.item}`;
  if (t.kind === "wild") return "a wild";
  if (t.kind === "relic") return "a golden relic";
  return describeValue(t);
}

function tile(t, extra = {}) {
  if (!t) return null;
  const cls = t.kind === "item" ? `hd-tile item t-${t.colour}` : `hd-tile ${t.kind}`;
  const text = t.kind === "item" ? `${ITEM_SIGN[t.item] || "?"}${COLOUR_LETTER[t.colour] || ""}` : t.kind === "wild" ? "★" : "♛";
  return h("span", { class: cls, title: tileWords(t), "aria-label": tileWords(t), ...extra }, text);
}

function mouseToken(ref, ctx) {
  return h(
    "span",
    { class: "hd-mouse", title: `${whose(ctx, ref.seat)} ${ref.mouse}`, "aria-label": `${whose(ctx, ref.seat)} ${ref.mouse}` },
    seatMarker(ref.seat, { size: 14 }),
    h("span", { class: "hd-mouse-kind", "aria-hidden": "true" }, MOUSE_LETTER[ref.mouse] || ref.mouse),
  );
}

/** Every tile the view shows, by id, so actions naming tile ids can be put in words. */
function tilesById(view) {
  const map = new Map();
  const add = (t) => t && map.set(t.id, t);
  view.spaces.forEach((s) => add(s.tile));
  view.web_market.forEach(add);
  view.seats.forEach((p) => p.mice.forEach((m) => m.tiles.forEach(add)));
  if (view.decision && view.decision.drawn) view.decision.drawn.forEach(add);
  return map;
}

function favoursById(view) {
  const map = new Map();
  view.seats.forEach((p) => (p.favours || []).forEach((f) => map.set(f.id, f)));
  view.favour_discard.forEach((f) => map.set(f.id, f));
  return map;
}

function requirementWords(r) {
  const n = r.n ?? r.value ?? "";
  switch (r.kind) {
    case "same_colour":
      return `deliver ${n} tiles of one colour`;
    case "same_item":
      return `deliver ${n} of one item`;
    case "distinct_colours":
      return `deliver ${n} different colours`;
    case "distinct_items":
      return `deliver ${n} different items`;
    case "tiles":
      return `deliver ${n} tiles`;
    case "hunt_spaces":
      return `fill ${n} hunt spaces`;
    default:
      return describeValue(r);
  }
}

function favourWords(f) {
  if (!f) return "a favour card";
  return `${String(f.effect).replace(/_/g, " ")} (${f.colour} ${f.item})`;
}

function actionLabel(a, view) {
  const tiles = tilesById(view);
  const favours = favoursById(view);
  const t = (id) => tileWords(tiles.get(id));
  switch (a.type) {
    case "place":
      return `Place your ${mouseName(a.mouse)} at ${a.space}`;
    case "stay":
      return "Stay on the minute hand";
    case "hop_off":
      return "Hop off here";
    case "step_out":
      return `Step out: ${mouseName(a.mouse)}`;
    case "board":
      return `Board the minute hand: ${mouseName(a.mouse)}`;
    case "scurry":
      return a.steps === 0 ? "Stay here" : `Scurry ${a.steps} number${a.steps === 1 ? "" : "s"} on`;
    case "climb":
      return "Climb the chain";
    case "deliver":
      return view.rules_version >= 2 ? "Deliver (choose the tiles)" : "Deliver";
    case "add_tile":
      return `Deliver ${t(a.tile)}`;
    case "search":
      return "Search the bag";
    case "take_favour":
      return "Take a favour card";
    case "swap":
      return `Swap ${t(a.give)} for ${t(a.take)}`;
    case "buy_wild":
      return `Buy a wild with ${listWords(a.pay.map(t))}`;
    case "call_scamp":
      return `Call the scamp to ${a.space}`;
    case "play_favour":
      return `Play favour: ${favourWords(favours.get(a.card))}`;
    case "keep":
      return `Keep ${t(a.tile)}`;
    case "add_favour":
      return `Add favour ${favourWords(favours.get(a.card))}`;
    case "finish_delivery":
      return "Finish the delivery";
    case "mark_hunt":
      return `Mark hunt space row ${a.row + 1}, column ${a.col + 1}`;
    case "done":
      return "Done with this mouse";
    default:
      return describeValue(a);
  }
}

function renderClock(ctx) {
  const view = ctx.view;
  const spaces = view.spaces.map((s) => {
    const angle = ((s.number % 12) / 12) * 2 * Math.PI;
    const x = 50 + 40 * Math.sin(angle);
    const y = 50 - 40 * Math.cos(angle);
    const xi = 50 + 22 * Math.sin(angle);
    const yi = 50 - 22 * Math.cos(angle);
    const current = s.number === view.minute;
    return [
      h(
        "div",
        {
          class: `hd-outer${current ? " current" : ""}${s.paw ? " paw" : ""}`,
          style: `left:${x}%;top:${y}%`,
          "aria-label": `${s.number}: ${TOKEN_WORDS[s.token] || s.token}${s.paw ? " (covered by a cat paw)" : ""}; tile ${tileWords(s.tile)}; ${s.outer.length ? `working: ${s.outer.map((m) => `${whose(ctx, m.seat)} ${m.mouse}`).join(", ")}` : "no mouse working"}`,
          role: "group",
        },
        h("span", { class: "hd-num" }, String(s.number)),
        h("span", { class: "hd-token" }, `${FACE_SIGN[s.face] || ""}${TOKEN_WORDS[s.token] || s.token}`),
        s.paw ? h("span", { class: "hd-paw", title: "cat paw" }, "paw") : null,
        h("span", { class: "hd-space-tile" }, tile(s.tile)),
        h("span", { class: "hd-mice" }, s.outer.map((m) => mouseToken(m, ctx))),
      ),
      s.inner.length
        ? h(
            "div",
            { class: "hd-inner", style: `left:${xi}%;top:${yi}%`, "aria-label": `inner ring at ${s.number}: ${s.inner.map((m) => `${whose(ctx, m.seat)} ${m.mouse}`).join(", ")}`, role: "group" },
            s.inner.map((m) => mouseToken(m, ctx)),
          )
        : null,
    ];
  });
  const minuteAngle = ((view.minute % 12) / 12) * 360;
  const hourAngle = ((view.hour % 12) / 12) * 360;
  return h(
    "div",
    { class: "hd-clock", role: "region", "aria-label": `The clock: hour ${view.hour}, the minute hand at ${view.minute}` },
    h("div", { class: "hd-face" }),
    h("div", { class: "hd-hand minute", style: `transform: rotate(${minuteAngle}deg)`, "aria-hidden": "true" }),
    h("div", { class: "hd-hand hour", style: `transform: rotate(${hourAngle}deg)`, "aria-hidden": "true" }),
    h("div", { class: "hd-centre" }, h("strong", {}, `${view.hour}:${String(view.minute === 12 ? 0 : view.minute * 5).padStart(2, "0")}`)),
    spaces,
  );
}

function renderHand(ctx) {
  const view = ctx.view;
  return h(
    "section",
    { class: "hd-handbox", "aria-label": "Mice on the minute hand, front first" },
    h("h3", {}, `Minute hand (${view.hand.length ? "front → back" : "empty"}) · ${view.hand_capacity} places${view.blockers.length ? ` · blockers: ${view.blockers.join(", ")}` : ""}`),
    view.hand.length ? h("ol", { class: "hd-hand-list" }, view.hand.map((m) => h("li", {}, mouseToken(m, ctx), ` ${whose(ctx, m.seat)} ${m.mouse}`))) : null,
  );
}

function renderSide(ctx) {
  const view = ctx.view;
  return h(
    "div",
    { class: "hd-side" },
    h(
      "section",
      {},
      h("h3", {}, "Itzy's web"),
      h("p", {}, `${view.web_wilds} wild${view.web_wilds === 1 ? "" : "s"} · market: `, view.web_market.length ? view.web_market.map((t) => tile(t)) : "empty"),
    ),
    h(
      "section",
      {},
      h("h3", {}, "Missions"),
      view.missions.length
        ? h("ul", {}, view.missions.map((m) => h("li", {}, h("strong", {}, m.name), ` (${m.points} points): ${requirementWords(m.requirement)}`)))
        : h("p", { class: "hint" }, "none face up"),
      h("p", { class: "hint" }, `${view.mission_deck} in the deck`),
    ),
    h("p", {}, `Pine cone at ${view.pinecone} · bag ${view.bag} · pantry ${view.pantry} · favour deck ${view.favour_deck}`),
  );
}

function renderPlayer(p, ctx) {
  const mine = p.seat === ctx.me;
  return h(
    "section",
    { class: `hd-player${mine ? " mine" : ""}`, "aria-label": `${whose(ctx, p.seat)} mice and hunt board` },
    h("h3", {}, mine ? "Your mice" : `${ctx.names[p.seat] || `Seat ${p.seat + 1}`}'s mice`, h("span", { class: "hint" }, ` · ${p.score} points · scaler on link ${p.scaler_link} · ${p.favour_count} favour${p.favour_count === 1 ? "" : "s"}`)),
    h(
      "div",
      { class: "hd-cards" },
      p.mice.map((m) =>
        h(
          "div",
          { class: "hd-card" },
          h("strong", {}, m.mouse),
          h("span", { class: "hint" }, ` ${m.loc.at === "inner" || m.loc.at === "outer" ? `${m.loc.at} ${m.loc.number}` : m.loc.at}`),
          h("div", { class: "hd-card-tiles" }, m.tiles.map((t) => tile(t)), Array.from({ length: Math.max(0, m.capacity - m.tiles.length) }, () => h("span", { class: "hd-tile empty" }, ""))),
        ),
      ),
    ),
    h(
      "div",
      { class: "hd-hunt", role: "img", "aria-label": `Hunt board: ${p.hunt_spaces_done} of 16 spaces done` },
      p.hunt.flat().map((s) =>
        h(
          "span",
          { class: `hd-hunt-space${s.done ? " done" : ""}${s.wants === "colour" ? ` t-${s.value}` : ""}` },
          s.wants === "colour" ? COLOUR_LETTER[s.value] : ITEM_SIGN[s.value] || "?",
        ),
      ),
    ),
    mine && p.favours && p.favours.length ? h("p", { class: "hint" }, `Your favours: ${p.favours.map(favourWords).join(", ")}`) : null,
  );
}

function renderActions(ctx) {
  if (!ctx.legal.length) return null;
  const view = ctx.view;
  return h(
    "section",
    { class: "hd-actions", "aria-label": "Your decision" },
    view.decision && view.decision.step === "search_keep"
      ? h("p", {}, "You drew: ", view.decision.drawn.map((t) => tile(t)), ` (keep up to ${view.decision.keep})`)
      : null,
    view.decision && view.decision.step === "delivery" && view.decision.tiles && view.decision.tiles.length
      ? h("p", {}, "Delivering: ", view.decision.tiles.map((t) => tile(t)))
      : null,
    h(
      "div",
      { class: "buttons" },
      ctx.legal.map((a) =>
        h(
          "button",
          { type: "button", class: a.type === "done" ? "quiet" : "", "data-key": `hd-${JSON.stringify(a)}`, "data-act": a.type, onclick: () => ctx.act(a) },
          actionLabel(a, view),
        ),
      ),
    ),
  );
}

function render(ctx) {
  const view = ctx.view;
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

function stepWords(d, ctx) {
  const who = ctx.name(d.seat);
  switch (d.step) {
    case "place":
      return `${who}: place a mouse on the inner ring`;
    case "hand_mouse":
      return `${who}: the ${d.mouse} on the minute hand stays or hops off`;
    case "inner_ring":
      return `${who}: mice at ${d.number} step out or board`;
    case "scurry":
      return `${who}: the scurrier may run on`;
    case "act":
      return `${who}'s ${d.mouse} works at ${d.number}`;
    case "search_keep":
      return `${who} keeps tiles from a search`;
    case "delivery":
      return `${who} is choosing what to deliver`;
    case "hunt":
      return `${who} marks the hunt board`;
    default:
      return `${who} decides`;
  }
}

function headline(ctx) {
  const view = ctx.view;
  if (view.game_over || ctx.state.outcome) return "Game over";
  if (!view.decision) return `Hour ${view.hour}`;
  const d = view.decision;
  if (d.seat === ctx.me) return `Your decision: ${stepWords(d, ctx).replace(/^You: /, "").replace(/^You's /, "your ")}`;
  return stepWords(d, ctx);
}

function playerInfo(seat, ctx) {
  const p = ctx.view.seats.find((x) => x.seat === seat);
  if (!p) return null;
  const b = p.points;
  return h(
    "span",
    { class: "hd-points" },
    h("strong", {}, `${p.score} points`),
    h("span", { class: "hint" }, ` · deliveries ${b.deliveries}, relics ${b.relics}, missions ${b.missions}, chain ${b.chain}, hunt ${b.hunt_lines}${b.leftovers ? `, leftovers ${b.leftovers}` : ""}`),
  );
}

function describe(e, ctx) {
  const who = (s) => ctx.name(s);
  switch (e.type) {
    case "mouse_placed":
      return `${who(e.seat)} placed the ${e.mouse} at ${e.number}.`;
    case "minute_hand":
      return `Tick: the minute hand moves to ${e.minute}.`;
    case "stayed":
      return `${who(e.seat)}'s ${e.mouse} stays on the hand.`;
    case "hopped_off":
      return `${who(e.seat)}'s ${e.mouse} hopped off at ${e.number}.`;
    case "stepped_out":
      return `${who(e.seat)}'s ${e.mouse} stepped out at ${e.number}.`;
    case "boarded":
      return `${who(e.seat)}'s ${e.mouse} boarded the minute hand.`;
    case "bumped":
      return `${who(e.seat)}'s ${e.mouse} was bumped off the minute hand at ${e.number}.`;
    case "paw_blocked":
      return `The cat's paw blocks ${e.number}: no mouse goes there.`;
    case "scurried":
      return `${who(e.seat)}'s scurrier ran from ${e.from} to ${e.to}.`;
    case "scamp_called":
      return `${who(e.seat)} called the scamp to ${e.number}.`;
    case "tile_collected":
      return `${who(e.seat)}'s ${e.mouse} collected ${tileWords(e.tile)} at ${e.number}.`;
    case "tile_left":
      return `${who(e.seat)}'s ${e.mouse} left the tile at ${e.number} (${e.reason}).`;
    case "climbed":
      return `${who(e.seat)}'s scaler climbed ${e.links} link${e.links === 1 ? "" : "s"} to link ${e.link}.`;
    case "summit":
      return `${who(e.seat)} reached the summit: ${e.points} points; the pine cone drops to ${e.pinecone}.`;
    case "search_drawn":
      return `${who(e.seat)} searched: ${listWords(e.tiles.map(tileWords))}.`;
    case "search_kept":
      return `${who(e.seat)} kept ${e.kept.length ? listWords(e.kept.map(tileWords)) : "nothing"}.`;
    case "delivered":
      return `${who(e.seat)} delivered ${e.tiles.length} tile${e.tiles.length === 1 ? "" : "s"}${e.favours.length ? ` and ${e.favours.length} favour${e.favours.length === 1 ? "" : "s"}` : ""}: ${e.points + e.relic_points} points.`;
    case "hunt_marked":
      return `${who(e.seat)} marked the hunt board at row ${e.row + 1}, column ${e.col + 1}.`;
    case "mission_completed":
      return `${who(e.seat)} completed the mission ${e.mission.name} (${e.mission.points} points).`;
    case "mission_revealed":
      return `New mission: ${e.mission.name}.`;
    case "swapped":
      return `${who(e.seat)} swapped ${tileWords(e.gave)} for ${tileWords(e.took)} at Itzy's web.`;
    case "wild_bought":
      return `${who(e.seat)} bought a wild with ${listWords(e.paid.map(tileWords))}.`;
    case "favour_taken":
      return `${who(e.seat)} took a favour card.`;
    case "favour_drawn":
      return `You drew the favour ${favourWords(e.card)}.`;
    case "favour_played":
      return `${who(e.seat)} played the favour ${favourWords(e.card)}.`;
    case "foraged":
      return `${who(e.seat)}'s ${e.mouse} foraged ${tileWords(e.tile)}.`;
    case "wild_gifted":
      return `${who(e.seat)}'s ${e.mouse} got a wild from Itzy's web.`;
    case "bag_refilled":
      return `The bag was refilled with ${e.tiles} tiles.`;
    case "mouse_done":
      return null;
    case "hour_struck":
      return `The clock strikes ${e.hour}.`;
    case "priority_passed":
      return `${who(e.seat)} ${e.seat === ctx.me ? "have" : "has"} priority now.`;
    case "mice_stepped_down":
      return `${e.mice.length} mice stepped down to the inner ring.`;
    case "paws_placed":
      return `The cat's paws cover ${listWords(e.numbers.map(String))}.`;
    case "clock_refilled":
      return `New tiles on the clock at ${listWords(e.tiles.map(([n]) => String(n)))}.`;
    case "favours_revealed":
      return "The remaining favour cards are revealed.";
    case "game_over":
      return "Game over.";
    default: {
      const { type, seat, ...rest } = e;
      return `${typeof seat === "number" ? `${who(seat)}: ` : ""}${String(type).replace(/_/g, " ")}${Object.keys(rest).length ? ` (${describeValue(rest)})` : ""}.`;
    }
  }
}

export default { id: "hickory_dickory", title: "Hickory Dickory", render, describe, headline, playerInfo };
