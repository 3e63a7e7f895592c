// A named thing on a board (an ingredient book, a fortune-teller card, a mouse, a token) that tells its effect on
// hover, on keyboard focus and on tap: the visible element is focusable, points at its tooltip with
// `aria-describedby`, and a tap (or Enter) toggles the tooltip open; Escape or a tap elsewhere closes it.
//
// Every tooltip on the page (these, and table_tips.js's `.ttip` and buttons holding a `.ttip-pop`) is opened and
// closed here (`watchTips`), never by CSS `:hover`: a tooltip closes on its own after `TIP_MS` (a pointer resting on
// the board does not keep it over the board) and when the pointer or focus leaves, and while open it lifts the
// board pieces it sits in above their neighbours, so the next mouse or space does not draw over it.

import { h } from "./ui.js";

let counter = 0;

/** How long a tooltip stays open once shown (it opens again when the pointer comes back or focus returns). */
export const TIP_MS = 3000;

/** Wraps `content` (a node or text) with a tooltip saying `tip`. `attrs` go on the focusable element. */
export function infoTip(content, tip, attrs = {}) {
  const id = `tip-${++counter}`;
  const cls = attrs.class ? ` ${attrs.class}` : "";
  const wrap = h("span", { class: `info-tip${cls}` });
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
        // A tap opens it through the pointer or focus just before the click: that click leaves it open.
        if (wrap.classList.contains("open") && performance.now() - openedAt > 400) closeTip(wrap);
        else openTip(wrap);
      },
      onkeydown: (event) => {
        if (event.key === "Enter" || event.key === " ") {
          event.preventDefault();
          trigger.click();
        }
      },
    },
    content,
  );
  wrap.append(trigger, h("span", { class: "info-tip-text", role: "tooltip", id }, tip));
  return wrap;
}

/** The element whose tooltip `node` belongs to: an info tip, a `.ttip`, or a button holding a `.ttip-pop`. */
function tipHost(node) {
  for (let el = node instanceof Element ? node : node?.parentElement; el; el = el.parentElement) {
    if (el.classList.contains("info-tip") || el.classList.contains("ttip")) return el;
    if (el.tagName === "BUTTON" && el.querySelector(":scope > .ttip-pop")) return el;
  }
  return null;
}

let shown = null;
let timer = null;
let hovered = null;
let openedAt = 0;
// The tooltip that closed by itself, until the pointer moves or a key is pressed: a redraw of the board (a push)
// puts a new element under the resting pointer or gives focus back to it, and that must not open it again.
let rested = null;
let pointer = { x: NaN, y: NaN };

/** What a tooltip's element is, across redraws (which build new elements). */
function signature(host) {
  return `${host.tagName}|${host.textContent}`;
}

function openTip(host) {
  if (shown && shown !== host) closeTip(shown);
  if (shown !== host) openedAt = performance.now();
  shown = host;
  host.classList.add("open");
  host.querySelector(":scope > .info-tip-trigger")?.setAttribute("aria-expanded", "true");
  // Lift every positioned box between the tooltip and the screen's main area above its siblings.
  for (let el = host; el && el.id !== "main" && el !== document.body; el = el.parentElement) {
    if (getComputedStyle(el).position !== "static") el.classList.add("tip-raised");
  }
  clearTimeout(timer);
  timer = setTimeout(() => {
    rested = signature(host);
    closeTip(host);
  }, TIP_MS);
}

function closeTip(host) {
  host.classList.remove("open");
  host.querySelector(":scope > .info-tip-trigger")?.setAttribute("aria-expanded", "false");
  for (const el of document.querySelectorAll(".tip-raised")) el.classList.remove("tip-raised");
  if (shown === host) {
    shown = null;
    clearTimeout(timer);
  }
}

/** Opens and closes the page's tooltips (once per page). */
export function watchTips(root = document) {
  // Only a real move of the pointer (not the boundary events a redraw under it fires) wakes a rested tooltip.
  root.addEventListener("pointermove", (e) => {
    if (e.clientX === pointer.x && e.clientY === pointer.y) return;
    pointer = { x: e.clientX, y: e.clientY };
    if (!hovered || !hovered.isConnected) rested = null;
  });
  root.addEventListener("pointerover", (e) => {
    const host = tipHost(e.target);
    if (host === hovered) return; // moving within the same thing does not reopen a tooltip that timed out
    hovered = host;
    if (host && !(rested && rested === signature(host))) openTip(host);
  });
  root.addEventListener("pointerout", (e) => {
    if (!hovered || hovered.contains(e.relatedTarget)) return;
    const left = hovered;
    hovered = null;
    if (shown === left && !left.contains(document.activeElement)) closeTip(left);
  });
  root.addEventListener("focusin", (e) => {
    const host = tipHost(e.target);
    if (host && !(rested && rested === signature(host))) openTip(host);
  });
  root.addEventListener("focusout", (e) => {
    if (shown && shown.contains(e.target) && !shown.contains(e.relatedTarget)) closeTip(shown);
  });
  root.addEventListener("keydown", (e) => {
    rested = null;
    if (e.key === "Escape" && shown) closeTip(shown);
  });
  // A tap elsewhere closes an open tooltip.
  root.addEventListener("click", (e) => {
    if (shown && !shown.contains(e.target)) closeTip(shown);
  });
}
