// A named thing on a board (an ingredient book, a fortune-teller card, a mouse, a token) that tells its effect on
// hover, on keyboard focus and on tap: the visible element is focusable, points at its tooltip with
// `aria-describedby`, and a tap (or Enter) toggles the tooltip open; Escape or a tap elsewhere closes it.

import { h } from "./ui.js";

let counter = 0;

/** Wraps `content` (a node or text) with a tooltip saying `tip`. `attrs` go on the focusable element. */
export function infoTip(content, tip, attrs = {}) {
  const id = `tip-${++counter}`;
  const cls = attrs.class ? ` ${attrs.class}` : "";
  const wrap = h("span", { class: `info-tip${cls}` });
  const toggle = (open) => wrap.classList.toggle("open", open);
  const trigger = h(
    "span",
    {
      ...attrs,
      class: "info-tip-trigger",
      tabindex: "0",
      role: attrs.role || "button",
      "aria-describedby": id,
      "aria-expanded": "false",
      onclick: (event) => {
        event.stopPropagation();
        const open = !wrap.classList.contains("open");
        toggle(open);
        trigger.setAttribute("aria-expanded", String(open));
      },
      onkeydown: (event) => {
        if (event.key === "Enter" || event.key === " ") {
          event.preventDefault();
          trigger.click();
        } else if (event.key === "Escape") {
          toggle(false);
          trigger.setAttribute("aria-expanded", "false");
        }
      },
      onblur: () => {
        toggle(false);
        trigger.setAttribute("aria-expanded", "false");
      },
    },
    content,
  );
  wrap.append(trigger, h("span", { class: "info-tip-text", role: "tooltip", id }, tip));
  return wrap;
}
