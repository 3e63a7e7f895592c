// Mountains out of Molehills: the surface grid with its mountains (stacks of coloured molehill pieces), the moles
// underground with the way they face, the rock, the shared display of movement cards, each player's drafted cards,
// the secret planning of a stack of four (others see only that a player is ready), and King of the Hill.
// The view is `rules::games::molehills::MolehillsView`; actions `MolehillsAction`; events `MolehillsEvent`
// (docs/rules/molehills.md, "Wire format").

import { h, seatMarker, SEAT_COLOURS } from "../ui.js";
import { listWords } from "../words.js";

const ARROWS = { north: "↑", east: "→", south: "↓", west: "←" };
const TURN_WORDS = { left: "turn left", right: "turn right", about: "turn about" };
const TURN_SIGNS = { left: "↶", right: "↷", about: "⟲" };

/** Choices made on this page before they are sent: a corner for the mole, the order of the stack. */
const local = { key: "", corner: null, order: [] };

function resetLocal(ctx) {
  const key = `${ctx.state.match_id}:${ctx.view.round}:${ctx.view.phase.phase}`;
  if (local.key !== key) {
    local.key = key;
    local.corner = null;
    local.order = [];
  }
}

function posName(p) {
  return `${String.fromCharCode(65 + p.col)}${p.row + 1}`;
}

export function cardWords(card) {
  switch (card.kind) {
    case "move":
      return `Move ${card.steps}`;
    case "turn":
      return TURN_WORDS[card.turn].replace(/^t/, "T");
    case "move_turn":
      return `Move ${card.steps} and ${TURN_WORDS[card.turn]}`;
    case "rock":
      return "Rock";
    default:
      return card.kind;
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

function cardFace(card, attrs = {}, extra = null) {
  const tag = attrs.onclick ? "button" : "span";
  return h(
    tag,
    { type: tag === "button" ? "button" : null, class: `mh-card ${card.kind}`, ...attrs },
    h("span", { class: "mh-sign", "aria-hidden": "true" }, cardSign(card)),
    h("span", { class: "mh-name" }, cardWords(card)),
    extra,
  );
}

function phaseWords(view, ctx) {
  const p = view.phase;
  switch (p.phase) {
    case "place_moles":
      return "Setup: each player puts their mole on a free corner";
    case "draft":
      return `Card selection: pick ${p.picks + 1} of ${view.players.length * 4}`;
    case "planning":
      return "Planning: everyone secretly stacks their four cards";
    case "resolving":
      return `Digging: card ${p.card + 1} of 4, ${ctx.name(view.turn_order[p.turn])}`;
    case "king_of_the_hill":
      return `King of the Hill: ${ctx.name(p.chooser)} chooses a token`;
    case "over":
      return "Game over";
    default:
      return p.phase;
  }
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
      let label = `${posName(pos)}: `;
      label += stack.length ? `mountain of ${stack.length} (base ${ctx.name(stack[0])}, top ${ctx.name(stack[stack.length - 1])})` : "flat";
      if (mole) label += `; ${ctx.name(mole.seat)}'s mole facing ${mole.facing}`;
      if (rock) label += "; the rock";
      let onclick = null;
      if (rockAction) {
        onclick = () => ctx.act(rockAction);
        label = `Put the rock on ${posName(pos)} (${label})`;
      } else if (corner) {
        onclick = () => {
          local.corner = pos;
          ctx.rerender();
        };
        label = `Put your mole on ${posName(pos)} (then choose the way it faces)`;
      }
      cells.push(
        h(
          "button",
          {
            type: "button",
            role: "gridcell",
            class: `mh-cell${rockAction ? " can-rock" : ""}${corner ? " can-corner" : ""}${selected ? " selected" : ""}`,
            disabled: !onclick,
            "aria-label": label,
            "data-key": `mh-${key}`,
            "data-act": onclick ? (rockAction ? "place_rock" : "corner") : null,
            "data-local": corner && !rockAction ? "true" : null,
            onclick,
          },
          h(
            "span",
            { class: "mountain", "aria-hidden": "true" },
            stack.map((seat) =>
              h("span", { class: "piece", style: `background:${SEAT_COLOURS[seat % SEAT_COLOURS.length]}` }, String(seat + 1)),
            ),
          ),
          stack.length ? h("span", { class: "height", "aria-hidden": "true" }, String(stack.length)) : null,
          mole
            ? h(
                "span",
                { class: `mole facing-${mole.facing}`, "aria-hidden": "true" },
                seatMarker(mole.seat, { size: 16 }),
                h("span", { class: "mole-arrow" }, ARROWS[mole.facing]),
              )
            : null,
          rock ? h("span", { class: "rock", "aria-hidden": "true" }, "◆") : null,
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
  return h(
    "div",
    { class: "mh-grid", role: "grid", "aria-label": `The field, ${n} by ${n}: mountains on the surface, moles underground` },
    rows,
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
      parts.push(h("p", { class: "hint" }, "Click a free corner of the field for your mole."));
    } else {
      const facings = acts.placeMole.filter((a) => a.at.row === local.corner.row && a.at.col === local.corner.col);
      parts.push(
        h("p", {}, `Your mole on ${posName(local.corner)} faces:`),
        h(
          "div",
          { class: "buttons" },
          facings.map((a) =>
            h(
              "button",
              { type: "button", "data-key": `facing-${a.facing}`, "data-act": "place_mole", onclick: () => ctx.act(a) },
              `${ARROWS[a.facing]} ${a.facing}`,
            ),
          ),
        ),
      );
    }
  }
  if (acts.pick.size) {
    parts.push(h("p", {}, "Your pick: take a card from the display."));
  }
  if (acts.plan.length) parts.push(renderPlanner(ctx, acts));
  if (acts.moveTurn.length) {
    parts.push(
      h("p", {}, "Your move-and-turn card: in which order?"),
      h(
        "div",
        { class: "buttons" },
        acts.moveTurn.map((a) =>
          h(
            "button",
            { type: "button", class: "primary", "data-key": a.type, "data-act": a.type, onclick: () => ctx.act(a) },
            a.type === "move_then_turn" ? "Move, then turn" : "Turn, then move",
          ),
        ),
      ),
    );
  }
  if (acts.placeRock.length) {
    const pending = view.phase.pending;
    parts.push(h("p", {}, `You rolled ${pending?.roll ?? "?"} for the rock: click a highlighted space to put it there.`));
  }
  if (acts.token.length) {
    parts.push(
      h("p", {}, "You are King of the Hill: choose your token for the next round (1 plays first)."),
      h(
        "div",
        { class: "buttons" },
        acts.token.map((a) =>
          h("button", { type: "button", "data-key": `token-${a.token}`, "data-act": "choose_token", onclick: () => ctx.act(a) }, `Token ${a.token}`),
        ),
      ),
    );
  }
  return parts.length ? h("section", { class: "mh-decision", "aria-label": "Your decision" }, parts) : null;
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
    h("p", {}, "Plan your stack in secret: click your cards in the order they will be played (first on top)."),
    h(
      "div",
      { class: "mh-hand" },
      cards.map((c) => {
        const place = local.order.indexOf(c.id);
        return cardFace(
          c,
          {
            "aria-pressed": place >= 0 ? "true" : "false",
            "aria-label": `${cardWords(c)}${place >= 0 ? `, played ${place + 1}` : ""}`,
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
        full ? "Lock in this stack" : `Choose ${cards.length - chosen.length} more`,
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
            "Start again",
          )
        : null,
    ),
  );
}

function render(ctx) {
  const view = ctx.view;
  resetLocal(ctx);
  const acts = actionsOf(ctx);
  const order = view.turn_order.map((seat, i) => h("li", {}, h("span", { class: "token" }, String(i + 1)), " ", ctx.names[seat] || `Seat ${seat + 1}`));
  return h(
    "div",
    { class: "mh" },
    h(
      "div",
      { class: "mh-top" },
      h("p", { class: "mh-round" }, h("strong", {}, `Round ${Math.min(view.round, view.rounds)} of ${view.rounds}`), ` · mountains may be ${view.max_height} high`),
      headline(ctx) === phaseWords(view, ctx) ? null : h("p", { class: "mh-phase" }, phaseWords(view, ctx)),
      h("div", { class: "mh-order" }, h("span", {}, "King of the Hill tokens:"), h("ol", {}, order)),
    ),
    renderDecision(ctx, acts),
    h(
      "div",
      { class: "mh-main" },
      renderGrid(ctx, acts),
      view.display.length
        ? h(
            "section",
            { class: "mh-display", "aria-labelledby": "mh-display-h" },
            h("h3", { id: "mh-display-h" }, `Display (${view.display.length})`),
            h(
              "div",
              { class: "mh-hand" },
              view.display.map((c) => {
                const pick = acts.pick.get(c.id);
                return cardFace(
                  c,
                  pick ? { "data-key": `pick-${c.id}`, "data-act": "pick", "aria-label": `Take ${cardWords(c)}`, onclick: () => ctx.act(pick) } : {},
                );
              }),
            ),
          )
        : null,
      view.your_stack && view.your_stack.length
        ? h(
            "section",
            { class: "mh-stack" },
            h("h3", {}, "Your stack (secret)"),
            h("ol", {}, view.your_stack.map((c) => h("li", {}, cardWords(c)))),
          )
        : null,
    ),
    h("p", { class: "hint" }, `Deck ${view.deck_size} · discard ${view.discard_size}`),
  );
}

function playerInfo(seat, ctx) {
  const p = ctx.view.players.find((x) => x.seat === seat);
  if (!p) return null;
  return h(
    "span",
    { class: "mh-player" },
    h("span", { class: "score" }, `${p.score} points`),
    h("span", { class: "hint" }, ` · token ${p.token} · ${p.supply} pieces left`),
    p.mole ? h("span", { class: "hint" }, ` · mole ${posName(p.mole.at)} ${ARROWS[p.mole.facing]}`) : null,
    p.cards?.length
      ? h("span", { class: "hint" }, ` · cards: ${p.cards.map(cardWords).join(", ")}`)
      : p.hand_size
        ? h("span", { class: "hint" }, ` · ${p.hand_size} card${p.hand_size === 1 ? "" : "s"} in hand`)
        : null,
    p.revealed.length ? h("span", { class: "hint" }, ` · played: ${p.revealed.map(cardWords).join(", ")}`) : null,
    ctx.view.phase.phase === "planning" ? h("span", { class: `tag${p.planned ? "" : " warn"}` }, p.planned ? "ready" : "planning…") : null,
  );
}

function headline(ctx) {
  const view = ctx.view;
  if (view.phase.phase === "over" || ctx.state.outcome) return "Game over";
  const acts = actionsOf(ctx);
  if (acts.placeMole.length) return "Your turn: put your mole on a corner";
  if (acts.pick.size) return "Your turn: take a card from the display";
  if (acts.plan.length) return "Plan your stack of four cards";
  if (acts.moveTurn.length) return "Your card: move first or turn first?";
  if (acts.placeRock.length) return "Your rock: put it on a highlighted space";
  if (acts.token.length) return "King of the Hill: choose your token";
  if (view.phase.phase === "planning") {
    const waiting = view.players.filter((p) => !p.planned).map((p) => ctx.name(p.seat));
    return waiting.length ? `Waiting for ${listWords(waiting)} to plan` : "Everyone is ready";
  }
  return phaseWords(view, ctx);
}

function describe(e, ctx) {
  const who = (s) => ctx.name(s);
  switch (e.type) {
    case "turn_order":
      return `Round ${e.round} order: ${listWords(e.order.map(who))}.`;
    case "mole_placed":
      return `${who(e.seat)} put their mole on ${posName(e.at)}, facing ${e.facing}.`;
    case "round_started":
      return `Round ${e.round}: mountains may be ${e.max_height} high.`;
    case "dealt":
      return `${e.cards.length} cards dealt to the display.`;
    case "picked":
      return `${who(e.seat)} took ${cardWords(e.card)}.`;
    case "discarded":
      return `${e.cards.length} card${e.cards.length === 1 ? "" : "s"} left the display.`;
    case "ready":
      return `${who(e.seat)} ${e.seat === ctx.me ? "are" : "is"} ready.`;
    case "planned":
      return `Your stack: ${e.order.map(cardWords).join(", ")}.`;
    case "revealed":
      return `${who(e.seat)} revealed ${cardWords(e.card)}.`;
    case "turned":
      return `${who(e.seat)}'s mole turned to face ${e.facing}.`;
    case "moved":
      return `${who(e.seat)}'s mole dug to ${posName(e.to)}.`;
    case "blocked": {
      const by = e.by.obstacle === "mole" ? `${who(e.by.seat)}'s mole` : e.by.obstacle === "rock" ? "the rock" : "the edge";
      return `${who(e.seat)}'s mole was stopped by ${by}.`;
    }
    case "piece_pushed":
      return `${who(e.seat)} pushed up a piece at ${posName(e.at)}: ${e.height} high.`;
    case "out_of_pieces":
      return `${who(e.seat)} has no pieces left to push up.`;
    case "toppled": {
      const off = e.falls.filter((f) => f.to === null).length;
      return `The mountain at ${posName(e.at)} toppled ${e.toward}: ${e.falls.length} piece${e.falls.length === 1 ? "" : "s"} fell${off ? `, ${off} off the field` : ""}.`;
    }
    case "rock_rolled":
      return `${who(e.seat)} rolled ${e.roll} for the rock.`;
    case "rock_placed":
      return `${who(e.seat)} put the rock on ${posName(e.at)}.`;
    case "rock_out_of_reach":
      return `${who(e.seat)} could not place the rock anywhere.`;
    case "round_scored":
      return `Round ${e.round} scored: ${e.points.map((p, s) => `${who(s)} +${p}`).join(", ")}.`;
    case "king_of_the_hill":
      return `${who(e.seat)} ${e.seat === ctx.me ? "are" : "is"} King of the Hill.`;
    case "game_over":
      return `Game over: ${e.totals.map((t, s) => `${who(s)} ${t}`).join(", ")}.`;
    default:
      return null;
  }
}

export default { id: "molehills", title: "Mountains out of Molehills", render, describe, headline, playerInfo };
