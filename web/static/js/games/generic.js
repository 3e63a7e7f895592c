// The generic game screen, for any game that has no dedicated screen yet: it shows the view the server sends as
// readable nested lists and tables, and offers every legal action as a button labelled from its JSON. It is plainly
// titled as the generic screen so nobody mistakes it for the game's real board.

import { h, countdown, seatLabel } from "../ui.js";
import { describeValue, words } from "../words.js";
import { t, tParts } from "../i18n.js";

const SEAT_KEYS = new Set(["seat", "turn", "player", "winner", "active", "current", "starting_player", "first_player"]);

function isPlain(v) {
  return v === null || ["string", "number", "boolean"].includes(typeof v);
}

function renderValue(value, key, ctx, depth = 0) {
  if (typeof value === "number" && SEAT_KEYS.has(key) && value < ctx.names.length) {
    return seatLabel(value, ctx.names[value] || t("common.seat", { n: value + 1 }), { you: value === ctx.me });
  }
  if (isPlain(value)) return h("span", { class: "value" }, value === null ? "—" : describeValue(value));
  if (Array.isArray(value)) {
    if (value.length === 0) return h("span", { class: "value" }, t("common.none"));
    if (value.every(isPlain)) return h("span", { class: "value" }, value.map((v) => describeValue(v)).join(", "));
    if (value.every((row) => Array.isArray(row))) {
      return h(
        "table",
        { class: "generic-grid" },
        h(
          "tbody",
          {},
          value.map((row) => h("tr", {}, row.map((cell) => h("td", {}, renderValue(cell, "", ctx, depth + 1))))),
        ),
      );
    }
    // Arrays indexed by seat (one entry per player) get the seat's marker.
    const bySeat = key !== "" && value.length === ctx.names.length && /s$/.test(key);
    return h(
      "ol",
      { class: "generic-list" },
      value.map((item, i) =>
        h(
          "li",
          {},
          bySeat ? seatLabel(i, ctx.names[i] || t("common.seat", { n: i + 1 }), { you: i === ctx.me }) : null,
          renderValue(item, "", ctx, depth + 1),
        ),
      ),
    );
  }
  const entries = Object.entries(value);
  if (entries.length === 0) return h("span", { class: "value" }, "—");
  if (entries.every(([, v]) => isPlain(v)) && entries.length <= 4 && depth > 0) {
    return h("span", { class: "value" }, describeValue(value));
  }
  return h(
    "dl",
    { class: "generic-object" },
    entries.map(([k, v]) => [h("dt", {}, words(k)), h("dd", {}, renderValue(v, k, ctx, depth + 1))]),
  );
}

function render(ctx) {
  const state = ctx.state;
  const actions = ctx.legal;
  const groups = new Map();
  actions.forEach((action, i) => {
    const type = typeof action === "object" && action && typeof action.type === "string" ? action.type : "action";
    if (!groups.has(type)) groups.set(type, []);
    groups.get(type).push({ action, i });
  });
  return h(
    "div",
    { class: "generic" },
    h(
      "p",
      { class: "generic-notice", role: "note" },
      t("common.generic.notice"),
    ),
    state.deadline && !state.outcome
      ? h("p", {}, tParts("common.generic.clock", { time: countdown(state.deadline, { label: t("common.generic.clock_label") }) }))
      : null,
    h(
      "section",
      { class: "generic-actions", "aria-labelledby": "generic-actions-h" },
      h("h2", { id: "generic-actions-h" }, ctx.spectator ? t("common.generic.moves") : t("common.generic.your_moves")),
      actions.length === 0
        ? h("p", { class: "hint" }, ctx.spectator ? t("common.generic.watch_only") : t("common.generic.nothing_to_do"))
        : [...groups.entries()].map(([type, items]) =>
            h(
              "div",
              { class: "action-group" },
              h("h3", {}, words(type)),
              h(
                "div",
                { class: "buttons" },
                items.map(({ action, i }) =>
                  h(
                    "button",
                    {
                      type: "button",
                      class: "action",
                      "data-key": `action-${JSON.stringify(action)}`,
                      "data-act": JSON.stringify(action),
                      onclick: () => ctx.act(action),
                    },
                    describeValue(action),
                  ),
                ),
              ),
            ),
          ),
    ),
    h(
      "section",
      { class: "generic-view", "aria-labelledby": "generic-view-h" },
      h("h2", { id: "generic-view-h" }, t("common.generic.view")),
      renderValue(state.view, "", ctx),
    ),
  );
}

function describe(event, ctx) {
  if (event === null || typeof event !== "object") return describeValue(event);
  const { seat, type, ...rest } = event;
  const what = type ? words(type) : "";
  const details = Object.keys(rest).length ? ` (${describeValue(rest)})` : "";
  if (typeof seat === "number") return t("common.generic.event_by", { name: ctx.name(seat), what: `${what}${details}` });
  return `${what}${details}`;
}

export default { id: "generic", title: "Generic screen", render, describe };
