// Shared by the Hide and Eeek!, Molehills and New Year screens: an accessible tooltip for a named thing on the
// table (shown on hover, on keyboard focus and on tap, since a tap focuses it), a "How to play" section builder,
// and the log's subject wording (a line about the viewer has its own "you" form in every language).

import { h } from "./ui.js";
import { t, hasKey } from "./i18n.js";

let serial = 0;

/**
 * A named thing with its effect: `content` (text or nodes) stays visible; `text` shows in a popover on hover, focus
 * and tap, and is the element's accessible description. Use on things that are not themselves buttons.
 */
export function tip(content, text, { cls = "", tag = "span" } = {}) {
  serial += 1;
  const id = `tt-${serial}`;
  return h(
    tag,
    { class: `ttip${cls ? ` ${cls}` : ""}`, tabindex: "0", "aria-describedby": id },
    content,
    h("span", { class: "ttip-pop", role: "tooltip", id }, text),
  );
}

/**
 * For an element that is itself a button or card: a popover inside it, linked by `aria-describedby`, shown on hover
 * and focus. Returns [attributes to add to the element, the popover node].
 */
export function describedBy(text) {
  serial += 1;
  const id = `tt-${serial}`;
  return [{ "aria-describedby": id }, h("span", { class: "ttip-pop", role: "tooltip", id }, text)];
}

/**
 * A log or status line whose subject is a seat: `<key>.you` when it is the viewer (so every language can use its
 * own "you" grammar), otherwise `<key>` with the seat's name as `{who}`.
 */
export function say(ctx, key, seat, params = {}) {
  if (seat === ctx.me && seat !== null && seat !== undefined && hasKey(`${key}.you`)) return t(`${key}.you`, params);
  return t(key, { ...params, who: ctx.name(seat) });
}

/** "How to play": a title and paragraphs or lists from catalogue keys (`prefix.1`, `prefix.2`, ... while present). */
export function rulesPanel(area, sections) {
  return h(
    "div",
    { class: `rules-summary rules-${area}` },
    sections.map(([heading, prefix]) => {
      const items = [];
      for (let i = 1; hasKey(`${prefix}.${i}`); i += 1) items.push(h("li", {}, t(`${prefix}.${i}`)));
      return h("section", {}, h("h3", {}, t(heading)), h("ul", {}, items));
    }),
  );
}
