// Mountains out of Molehills: the surface grid with its mountains (stacks of coloured molehill pieces), the moles
// underground with the way they face, the rock, the shared display of movement cards, each player's drafted cards,
// the secret planning of a stack of four (others see only that a player is ready), and King of the Hill.
// The view is `rules::games::molehills::MolehillsView`; actions `MolehillsAction`; events `MolehillsEvent`
// (docs/rules/molehills.md, "Wire format").

import { h, seatMarker, SEAT_COLOURS } from "../ui.js";
import { t, listOf } from "../i18n.js";
import { tip, describedBy, say, rulesPanel } from "../table_tips.js";

const ARROWS = { north: "↑", east: "→", south: "↓", west: "←" };
const TURN_SIGNS = { left: "↶", right: "↷", about: "⟲" };
/** The way a mole faces, as a rotation of the figure drawn facing north. */
const ROTATION = { north: 0, east: 90, south: 180, west: 270 };

/**
 * Choices made on this page before they are sent: a corner for the mole, the order of the stack. They are kept in
 * the tab's sessionStorage per match and seat, so a half-built plan survives a reload; a new round or phase (a new
 * `key`) drops them.
 */
const local = { key: "", corner: null, order: [] };

function savedPlace(ctx) {
  return ctx.me === null || ctx.me === undefined ? null : `tabletop.molehills.plan.${ctx.state.match_id}.${ctx.me}`;
}

function readSaved(place) {
  try {
    return (place && JSON.parse(sessionStorage.getItem(place) || "null")) || null;
  } catch {
    return null;
  }
}

function resetLocal(ctx) {
  const key = `${ctx.state.match_id}:${ctx.view.round}:${ctx.view.phase.phase}`;
  const place = savedPlace(ctx);
  if (local.key !== key) {
    const saved = readSaved(place);
    const kept = saved && saved.key === key;
    local.key = key;
    local.corner = kept && saved.corner ? saved.corner : null;
    local.order = kept && Array.isArray(saved.order) ? saved.order : [];
  }
  if (!place) return;
  try {
    if (local.corner || local.order.length) sessionStorage.setItem(place, JSON.stringify(local));
    else sessionStorage.removeItem(place);
  } catch {
    // Not kept across a reload, but the page still works.
  }
}

function posName(p) {
  return `${String.fromCharCode(65 + p.col)}${p.row + 1}`;
}

function dirWords(dir) {
  return t(`molehills.dir.${dir}`);
}

/** A movement card in words: "Move 2", "Turn left", "Move 1 and turn right", "Rock". */
export function cardWords(card) {
  switch (card.kind) {
    case "move":
      return t("molehills.card.move", { n: card.steps });
    case "turn":
      return t(`molehills.card.turn_${card.turn}`);
    case "move_turn":
      return t(`molehills.card.move_turn_${card.turn}`, { n: card.steps });
    case "rock":
      return t("molehills.card.rock");
    default:
      return t("molehills.card.unknown");
  }
}

/** What a card does, for its popover. */
function cardEffect(card) {
  switch (card.kind) {
    case "move":
      return t("molehills.tip.move", { n: card.steps });
    case "turn":
      return t(`molehills.tip.turn_${card.turn}`);
    case "move_turn":
      return t("molehills.tip.move_turn", { n: card.steps, turn: t(`molehills.card.turn_${card.turn}`) });
    case "rock":
      return t("molehills.tip.rock");
    default:
      return "";
  }
}

function cardSign(card) {
  switch (card.kind) {
    case "move":
      return "↑".repeat(card.steps);
    case "turn":
      return TURN_SIGNS[card.turn];
    case "move_turn":
      return `${"↑".repeat(card.steps)}${TURN_SIGNS[card.turn]}`;
    case "rock":
      return "◆";
    default:
      return "?";
  }
}

/** A movement card; a clickable one carries its effect as a popover shown on hover and focus. */
function cardFace(card, attrs = {}, extra = null) {
  if (attrs.onclick) {
    const [described, pop] = describedBy(cardEffect(card));
    return h(
      "button",
      { type: "button", class: `mh-card ${card.kind}`, ...described, ...attrs },
      h("span", { class: "mh-sign", "aria-hidden": "true" }, cardSign(card)),
      h("span", { class: "mh-name" }, cardWords(card)),
      extra,
      pop,
    );
  }
  return tip(
    [h("span", { class: "mh-sign", "aria-hidden": "true" }, cardSign(card)), h("span", { class: "mh-name" }, cardWords(card)), extra],
    cardEffect(card),
    { cls: `mh-card ${card.kind}` },
  );
}

function phaseWords(view, ctx) {
  const p = view.phase;
  switch (p.phase) {
    case "place_moles":
      return t("molehills.phase.place_moles");
    case "draft":
      return t("molehills.phase.draft", { n: p.picks + 1, total: view.players.length * 4 });
    case "planning":
      return t("molehills.phase.planning");
    case "resolving":
      return t("molehills.phase.resolving", { n: p.card + 1, who: ctx.name(view.turn_order[p.turn]) });
    case "king_of_the_hill":
      return say(ctx, "molehills.phase.king", p.chooser);
    case "over":
      return t("molehills.phase.over");
    default:
      return "";
  }
}

/** Black or white, whichever reads better on a seat's colour. */
function inkOn(hex) {
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255).map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
  const lum = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  return (lum + 0.05) / 0.05 >= 1.05 / (lum + 0.05) ? "#111111" : "#ffffff";
}

/** Spaces and moles the latest update changed, to highlight them. */
function recentChanges(ctx) {
  const spaces = new Set();
  const moles = new Set();
  if (ctx.state.since >= ctx.state.version) return { spaces, moles };
  const key = (p) => `${p.row},${p.col}`;
  for (const e of ctx.state.events) {
    if (e.type === "piece_pushed") spaces.add(key(e.at));
    if (e.type === "toppled") {
      spaces.add(key(e.at));
      for (const f of e.falls) if (f.to) spaces.add(key(f.to));
    }
    if (e.type === "moved" || e.type === "turned" || e.type === "mole_placed") moles.add(e.seat);
    if (e.type === "rock_placed") spaces.add(key(e.at));
  }
  return { spaces, moles };
}

/**
 * One space drawn in SVG: grass on the surface with the mountain as a stack of layers in its pieces' colours (base
 * at the bottom, each layer with its owner's seat number), the round's height limit as a dashed line, the rock
 * and the mole underground (a figure turned the way it faces, ringed in its player's colour).
 */
function spaceArt(stack, limit, mole, rock) {
  // Layers are as tall as the round's limit allows, so mountains compare at a glance within a round.
  const ground = 70;
  const layer = Math.min(20, 56 / Math.max(1, limit));
  const shrink = 24 / Math.max(1, limit);
  const parts = [
    h("svg:rect", { x: "0", y: "0", width: "100", height: String(ground), fill: "#a7c97a" }),
    h("svg:rect", { x: "0", y: String(ground), width: "100", height: String(100 - ground), fill: "#7a5a32" }),
  ];
  const limitY = ground - limit * layer;
  parts.push(
    h("svg:line", { x1: "26", x2: "96", y1: String(limitY), y2: String(limitY), stroke: "#3d5a1e", "stroke-width": "1.5", "stroke-dasharray": "4 3" }),
  );
  stack.forEach((seat, i) => {
    const colour = SEAT_COLOURS[seat % SEAT_COLOURS.length];
    const bottom = ground - i * layer;
    const top = bottom - layer;
    const halfBottom = 40 - i * shrink;
    const halfTop = halfBottom - shrink;
    parts.push(
      h(
        "svg:g",
        { class: "mh-layer" },
        h("svg:path", {
          d: `M${55 - halfBottom} ${bottom} L${55 - halfTop} ${top} L${55 + halfTop} ${top} L${55 + halfBottom} ${bottom} Z`,
          fill: colour,
          stroke: "#1b1b1b",
          "stroke-width": "1.5",
          "stroke-linejoin": "round",
        }),
        h(
          "svg:text",
          { x: "55", y: String(bottom - layer * 0.25), "text-anchor": "middle", "font-size": String(Math.min(12, layer * 0.8)), "font-weight": "700", fill: inkOn(colour) },
          String(seat + 1),
        ),
      ),
    );
  });
  if (stack.length) {
    parts.push(
      h("svg:circle", { cx: "12", cy: "12", r: "10", fill: "#ffffff", stroke: "#1b1b1b", "stroke-width": "1.5" }),
      h("svg:text", { x: "12", y: "16.5", "text-anchor": "middle", "font-size": "13", "font-weight": "800", fill: "#111111" }, String(stack.length)),
    );
  }
  // Underground: the rock and the mole.
  if (rock) {
    parts.push(h("svg:path", { d: "M6 96 10 80 22 76 32 82 32 96Z", fill: "#9a9a9a", stroke: "#222222", "stroke-width": "2", class: "mh-rock" }));
  }
  if (mole) {
    const colour = SEAT_COLOURS[mole.seat % SEAT_COLOURS.length];
    parts.push(
      h(
        "svg:g",
        { class: "mh-mole", transform: `translate(72 85) scale(1.15) rotate(${ROTATION[mole.facing] || 0})` },
        h("svg:circle", { cx: "0", cy: "0", r: "12.5", fill: colour, stroke: "#1b1b1b", "stroke-width": "1.5" }),
        h("svg:ellipse", { cx: "0", cy: "1.5", rx: "7", ry: "8.5", fill: "#3d2a1e" }),
        h("svg:ellipse", { cx: "0", cy: "-7.5", rx: "3", ry: "3.5", fill: "#e59aa8" }),
        h("svg:path", { d: "M0 -19 5 -13 -5 -13Z", fill: "#ffffff", stroke: "#1b1b1b", "stroke-width": "1" }),
      ),
    );
  }
  return h("svg:svg", { class: "mh-space", viewBox: "0 0 100 100", "aria-hidden": "true" }, parts);
}

function renderGrid(ctx, acts) {
  const view = ctx.view;
  const n = view.grid;
  const moles = new Map();
  view.players.forEach((p) => {
    if (p.mole) moles.set(`${p.mole.at.row},${p.mole.at.col}`, { seat: p.seat, facing: p.mole.facing });
  });
  const rockSpaces = new Map(acts.placeRock.map((a) => [`${a.at.row},${a.at.col}`, a]));
  const corners = new Map();
  for (const a of acts.placeMole) corners.set(`${a.at.row},${a.at.col}`, a.at);
  const recent = recentChanges(ctx);
  const rows = [
    h(
      "div",
      { class: "mh-row head", role: "row", style: `grid-template-columns: 1.2rem repeat(${n}, minmax(0, 1fr))` },
      h("span", {}),
      Array.from({ length: n }, (_, c) => h("span", { class: "col-head", role: "columnheader" }, String.fromCharCode(65 + c))),
    ),
  ];
  for (let r = 0; r < n; r++) {
    const cells = [];
    for (let c = 0; c < n; c++) {
      const key = `${r},${c}`;
      const stack = view.surface[r * n + c] || [];
      const mole = moles.get(key);
      const rock = view.rock && view.rock.row === r && view.rock.col === c;
      const pos = { row: r, col: c };
      const rockAction = rockSpaces.get(key);
      const corner = corners.get(key);
      const selected = local.corner && local.corner.row === r && local.corner.col === c;
      const parts = [
        stack.length
          ? t("molehills.space.mountain", { n: stack.length, base: ctx.name(stack[0]), top: ctx.name(stack[stack.length - 1]) })
          : t("molehills.space.flat"),
      ];
      if (mole) parts.push(say(ctx, "molehills.space.mole", mole.seat, { dir: dirWords(mole.facing) }));
      if (rock) parts.push(t("molehills.space.rock"));
      let label = t("molehills.space.label", { space: posName(pos), what: parts.join("; ") });
      let onclick = null;
      if (rockAction) {
        onclick = () => ctx.act(rockAction);
        label = t("molehills.act.rock_here", { space: posName(pos), what: label });
      } else if (corner) {
        onclick = () => {
          local.corner = pos;
          ctx.rerender();
          // The next step is the way the mole faces: a keyboard user lands on it.
          document.querySelector('.mh-decision [data-key^="facing-"]')?.focus();
        };
        label = t("molehills.act.corner", { space: posName(pos) });
      }
      const changed = recent.spaces.has(key) || (mole && recent.moles.has(mole.seat));
      cells.push(
        h(
          "button",
          {
            type: "button",
            role: "gridcell",
            class: `mh-cell${rockAction ? " can-rock" : ""}${corner ? " can-corner" : ""}${selected ? " selected" : ""}${changed ? " recent" : ""}`,
            disabled: !onclick,
            "aria-label": label,
            "data-key": `mh-${key}`,
            "data-space": posName(pos),
            "data-act": onclick ? (rockAction ? "place_rock" : "corner") : null,
            "data-local": corner && !rockAction ? "true" : null,
            onclick,
          },
          spaceArt(stack, view.max_height, mole, rock),
        ),
      );
    }
    rows.push(
      h(
        "div",
        { class: "mh-row", role: "row", style: `grid-template-columns: 1.2rem repeat(${n}, minmax(0, 1fr))` },
        h("span", { class: "row-head", role: "rowheader" }, String(r + 1)),
        cells,
      ),
    );
  }
  return h("div", { class: "mh-grid", role: "grid", "aria-label": t("molehills.grid.label", { n }) }, rows);
}

/** What the drawings on the field mean: the circled height, the dashed limit, the seat numbers on the layers. */
function legend(view) {
  const sample = (...parts) => h("svg:svg", { class: "mh-legend-art", viewBox: "0 0 24 24", "aria-hidden": "true" }, parts);
  return h(
    "ul",
    { class: "mh-legend", "data-key": "mh-legend", "aria-label": t("molehills.legend.label") },
    h(
      "li",
      {},
      sample(
        h("svg:circle", { cx: "12", cy: "12", r: "10", fill: "#ffffff", stroke: "#1b1b1b", "stroke-width": "1.5" }),
        h("svg:text", { x: "12", y: "16.5", "text-anchor": "middle", "font-size": "13", "font-weight": "800", fill: "#111111" }, "3"),
      ),
      " ",
      t("molehills.legend.height"),
    ),
    h(
      "li",
      {},
      sample(h("svg:line", { x1: "1", x2: "23", y1: "12", y2: "12", stroke: "#3d5a1e", "stroke-width": "2", "stroke-dasharray": "4 3" })),
      " ",
      t("molehills.legend.limit", { n: view.max_height }),
    ),
    h(
      "li",
      {},
      sample(
        h("svg:path", { d: "M2 20 L5 6 L19 6 L22 20 Z", fill: SEAT_COLOURS[0], stroke: "#1b1b1b", "stroke-width": "1.5" }),
        h("svg:text", { x: "12", y: "17", "text-anchor": "middle", "font-size": "10", "font-weight": "700", fill: inkOn(SEAT_COLOURS[0]) }, "1"),
      ),
      " ",
      t("molehills.legend.layer"),
    ),
  );
}

function actionsOf(ctx) {
  const out = { placeMole: [], pick: new Map(), plan: [], moveTurn: [], placeRock: [], token: [] };
  for (const a of ctx.legal) {
    if (a.type === "place_mole") out.placeMole.push(a);
    else if (a.type === "pick") out.pick.set(a.card, a);
    else if (a.type === "plan") out.plan.push(a);
    else if (a.type === "move_then_turn" || a.type === "turn_then_move") out.moveTurn.push(a);
    else if (a.type === "place_rock") out.placeRock.push(a);
    else if (a.type === "choose_token") out.token.push(a);
  }
  return out;
}

function renderDecision(ctx, acts) {
  const view = ctx.view;
  const parts = [];
  if (acts.placeMole.length) {
    if (!local.corner) {
      parts.push(h("p", { class: "hint" }, t("molehills.decide.corner")));
    } else {
      const facings = acts.placeMole.filter((a) => a.at.row === local.corner.row && a.at.col === local.corner.col);
      parts.push(
        h("p", {}, t("molehills.decide.facing", { space: posName(local.corner) })),
        h(
          "div",
          { class: "buttons" },
          facings.map((a) =>
            h(
              "button",
              { type: "button", "data-key": `facing-${a.facing}`, "data-act": "place_mole", onclick: () => ctx.act(a) },
              `${ARROWS[a.facing]} ${dirWords(a.facing)}`,
            ),
          ),
        ),
      );
    }
  }
  if (acts.pick.size) {
    parts.push(h("p", {}, t("molehills.decide.pick")));
  }
  if (acts.plan.length) parts.push(renderPlanner(ctx, acts));
  if (acts.moveTurn.length) {
    parts.push(
      h("p", {}, t("molehills.decide.order")),
      h(
        "div",
        { class: "buttons" },
        acts.moveTurn.map((a) =>
          h(
            "button",
            { type: "button", class: "primary", "data-key": a.type, "data-act": a.type, onclick: () => ctx.act(a) },
            t(a.type === "move_then_turn" ? "molehills.act.move_then_turn" : "molehills.act.turn_then_move"),
          ),
        ),
      ),
    );
  }
  if (acts.placeRock.length) {
    const pending = view.phase.pending;
    parts.push(h("p", {}, t("molehills.decide.rock", { n: pending?.roll ?? 0 })));
  }
  if (acts.token.length) {
    parts.push(
      h("p", {}, t("molehills.decide.token")),
      h(
        "div",
        { class: "buttons" },
        acts.token.map((a) =>
          h(
            "button",
            { type: "button", "data-key": `token-${a.token}`, "data-act": "choose_token", onclick: () => ctx.act(a) },
            t("molehills.act.token", { n: a.token }),
          ),
        ),
      ),
    );
  }
  return parts.length ? h("section", { class: "mh-decision", "aria-label": t("molehills.decide.label") }, parts) : null;
}

/** Planning: click your cards in the order they are to be played; the matching listed plan is sent. */
function renderPlanner(ctx, acts) {
  const me = ctx.view.players.find((p) => p.seat === ctx.me);
  const cards = (me && me.cards) || [];
  const chosen = local.order.map((id) => cards.find((c) => c.id === id)).filter(Boolean);
  const full = chosen.length === cards.length && cards.length > 0;
  const plan = full ? acts.plan.find((a) => a.order.join(",") === local.order.join(",")) : null;
  return h(
    "div",
    { class: "planner" },
    h("p", {}, t("molehills.plan.help")),
    h(
      "div",
      { class: "mh-hand" },
      cards.map((c) => {
        const place = local.order.indexOf(c.id);
        return cardFace(
          c,
          {
            "aria-pressed": place >= 0 ? "true" : "false",
            "aria-label": place >= 0 ? t("molehills.plan.card_placed", { card: cardWords(c), n: place + 1 }) : cardWords(c),
            "data-key": `plan-${c.id}`,
            "data-plan": c.id,
            "data-act": place >= 0 ? null : "plan-card",
            "data-local": "true",
            onclick: () => {
              if (place >= 0) local.order.splice(place, 1);
              else local.order.push(c.id);
              ctx.rerender();
            },
          },
          place >= 0 ? h("span", { class: "order-badge" }, String(place + 1)) : null,
        );
      }),
    ),
    h(
      "div",
      { class: "buttons" },
      h(
        "button",
        { type: "button", class: "primary", disabled: !plan, "data-key": "plan-send", "data-act": plan ? "plan" : null, onclick: plan ? () => ctx.act(plan) : null },
        full ? t("molehills.plan.lock") : t("molehills.plan.more", { n: cards.length - chosen.length }),
      ),
      local.order.length
        ? h(
            "button",
            {
              type: "button",
              class: "quiet",
              "data-key": "plan-clear",
              onclick: () => {
                local.order = [];
                ctx.rerender();
              },
            },
            t("molehills.plan.clear"),
          )
        : null,
    ),
  );
}

function render(ctx) {
  const view = ctx.view;
  resetLocal(ctx);
  const acts = actionsOf(ctx);
  const order = view.turn_order.map((seat, i) =>
    h("li", {}, h("span", { class: "token" }, String(i + 1)), " ", ctx.names[seat] || t("molehills.seat", { n: seat + 1 })),
  );
  return h(
    "div",
    { class: "mh" },
    h(
      "div",
      { class: "mh-top" },
      h(
        "p",
        { class: "mh-round" },
        h("strong", {}, t("molehills.round", { n: Math.min(view.round, view.rounds), total: view.rounds })),
        " · ",
        tip(t("molehills.max_height", { n: view.max_height }), t("molehills.tip.max_height")),
      ),
      headline(ctx) === phaseWords(view, ctx) ? null : h("p", { class: "mh-phase" }, phaseWords(view, ctx)),
      h("div", { class: "mh-order" }, tip(t("molehills.tokens"), t("molehills.tip.tokens")), h("ol", {}, order)),
    ),
    renderDecision(ctx, acts),
    h(
      "div",
      { class: "mh-main" },
      h("div", { class: "mh-field" }, renderGrid(ctx, acts), legend(view)),
      view.display.length
        ? h(
            "section",
            { class: "mh-display", "aria-labelledby": "mh-display-h" },
            h("h3", { id: "mh-display-h" }, t("molehills.display", { n: view.display.length })),
            h(
              "div",
              { class: "mh-hand" },
              view.display.map((c) => {
                const pick = acts.pick.get(c.id);
                return cardFace(
                  c,
                  pick
                    ? { "data-key": `pick-${c.id}`, "data-act": "pick", "aria-label": t("molehills.act.pick", { card: cardWords(c) }), onclick: () => ctx.act(pick) }
                    : {},
                );
              }),
            ),
          )
        : null,
      view.your_stack && view.your_stack.length
        ? h(
            "section",
            { class: "mh-stack" },
            h("h3", {}, t("molehills.your_stack")),
            h("ol", {}, view.your_stack.map((c) => h("li", {}, cardWords(c)))),
          )
        : null,
    ),
    h("p", { class: "hint" }, t("molehills.deck", { n: view.deck_size, discard: view.discard_size })),
  );
}

function playerInfo(seat, ctx) {
  const p = ctx.view.players.find((x) => x.seat === seat);
  if (!p) return null;
  return h(
    "span",
    { class: "mh-player" },
    h("span", { class: "score" }, t("molehills.points", { n: p.score })),
    h("span", { class: "hint" }, ` · ${t("molehills.player.token", { n: p.token })} · ${t("molehills.player.supply", { n: p.supply })}`),
    p.mole ? h("span", { class: "hint" }, ` · ${t("molehills.player.mole", { space: posName(p.mole.at), arrow: ARROWS[p.mole.facing] })}`) : null,
    p.cards?.length
      ? h("span", { class: "hint" }, ` · ${t("molehills.player.cards", { cards: p.cards.map(cardWords).join(", ") })}`)
      : p.hand_size
        ? h("span", { class: "hint" }, ` · ${t("molehills.player.hand", { n: p.hand_size })}`)
        : null,
    p.revealed.length ? h("span", { class: "hint" }, ` · ${t("molehills.player.played", { cards: p.revealed.map(cardWords).join(", ") })}`) : null,
    ctx.view.phase.phase === "planning"
      ? h("span", { class: `tag${p.planned ? "" : " warn"}` }, t(p.planned ? "molehills.player.ready" : "molehills.player.planning"))
      : null,
  );
}

export function headline(ctx) {
  const view = ctx.view;
  if (view.phase.phase === "over" || ctx.state.outcome) return t("molehills.phase.over");
  const acts = actionsOf(ctx);
  if (acts.placeMole.length) return t("molehills.head.corner");
  if (acts.pick.size) return t("molehills.head.pick");
  if (acts.plan.length) return t("molehills.head.plan");
  if (acts.moveTurn.length) return t("molehills.head.order");
  if (acts.placeRock.length) return t("molehills.head.rock");
  if (acts.token.length) return t("molehills.head.token");
  if (view.phase.phase === "planning") {
    const waiting = view.players.filter((p) => !p.planned).map((p) => ctx.name(p.seat));
    return waiting.length ? t("molehills.head.waiting", { names: listOf(waiting) }) : t("molehills.head.all_ready");
  }
  return phaseWords(view, ctx);
}

/** The log's plain words for one event. */
export function describe(e, ctx) {
  switch (e.type) {
    case "turn_order":
      return t("molehills.log.turn_order", { n: e.round, names: listOf(e.order.map((s) => ctx.name(s))) });
    case "mole_placed":
      return say(ctx, "molehills.log.mole_placed", e.seat, { space: posName(e.at), dir: dirWords(e.facing) });
    case "round_started":
      return t("molehills.log.round_started", { n: e.round, height: e.max_height });
    case "dealt":
      return t("molehills.log.dealt", { n: e.cards.length });
    case "picked":
      return say(ctx, "molehills.log.picked", e.seat, { card: cardWords(e.card) });
    case "discarded":
      return t("molehills.log.discarded", { n: e.cards.length });
    case "ready":
      return say(ctx, "molehills.log.ready", e.seat);
    case "planned":
      return t("molehills.log.planned", { cards: e.order.map(cardWords).join(", ") });
    case "revealed":
      return say(ctx, "molehills.log.revealed", e.seat, { card: cardWords(e.card) });
    case "turned":
      return say(ctx, "molehills.log.turned", e.seat, { dir: dirWords(e.facing) });
    case "moved":
      return say(ctx, "molehills.log.moved", e.seat, { space: posName(e.to) });
    case "blocked": {
      let by;
      if (e.by.obstacle === "mole") by = say(ctx, "molehills.by.mole", e.by.seat);
      else if (e.by.obstacle === "rock") by = t("molehills.by.rock");
      else by = t("molehills.by.edge");
      return say(ctx, "molehills.log.blocked", e.seat, { by });
    }
    case "piece_pushed":
      return say(ctx, "molehills.log.piece_pushed", e.seat, { space: posName(e.at), n: e.height });
    case "out_of_pieces":
      return say(ctx, "molehills.log.out_of_pieces", e.seat);
    case "toppled": {
      const off = e.falls.filter((f) => f.to === null).length;
      const fell = t("molehills.log.toppled", { space: posName(e.at), dir: dirWords(e.toward), n: e.falls.length });
      return off ? `${fell} ${t("molehills.log.fell_off", { n: off })}` : fell;
    }
    case "rock_rolled":
      return say(ctx, "molehills.log.rock_rolled", e.seat, { n: e.roll });
    case "rock_placed":
      return say(ctx, "molehills.log.rock_placed", e.seat, { space: posName(e.at) });
    case "rock_out_of_reach":
      return say(ctx, "molehills.log.rock_out_of_reach", e.seat);
    case "round_scored":
      return t("molehills.log.round_scored", {
        n: e.round,
        points: listOf(e.points.map((p, s) => t("molehills.log.score_item", { who: ctx.name(s), n: p }))),
      });
    case "king_of_the_hill":
      return say(ctx, "molehills.log.king", e.seat);
    case "game_over":
      return t("molehills.log.game_over", { totals: listOf(e.totals.map((n, s) => t("molehills.log.total_item", { who: ctx.name(s), n }))) });
    default:
      return null;
  }
}

/** "How to play": the rules as this server plays them, in a player's words. */
export function rules() {
  return rulesPanel("molehills", [
    ["molehills.rules.goal.title", "molehills.rules.goal"],
    ["molehills.rules.round.title", "molehills.rules.round"],
    ["molehills.rules.cards.title", "molehills.rules.cards"],
    ["molehills.rules.earth.title", "molehills.rules.earth"],
  ]);
}

/** The game's picture for the start page: a mountain of three players' pieces over a mole facing north. */
export function picture() {
  return spaceArt([0, 1, 2, 0], 4, { seat: 1, facing: "north" }, true);
}

export default { id: "molehills", title: "Mountains out of Molehills", render, describe, headline, playerInfo, rules, picture };
