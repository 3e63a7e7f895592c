// Small DOM helpers shared by every screen: element building, seat markers, countdowns, notices.

import { t } from "./i18n.js";

/** Builds an element. `attrs`: attributes, plus `class`, `on<event>` handlers, `dataset` and `text`. */
export function h(tag, attrs = {}, ...children) {
  const svg = tag.startsWith("svg:");
  const el = svg
    ? document.createElementNS("http://www.w3.org/2000/svg", tag.slice(4))
    : document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") {
      el.addEventListener(key.slice(2).toLowerCase(), value);
    } else if (key === "dataset") {
      Object.assign(el.dataset, value);
    } else if (key === "text") {
      el.textContent = value;
    } else if (key === "class" && !svg) {
      el.className = value;
    } else {
      el.setAttribute(key, value === true ? "" : String(value));
    }
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child === undefined || child === null || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

// Seat markers: the Okabe-Ito palette (distinguishable with the common colour-vision deficiencies) and, as well,
// a distinct shape and the seat number, so no player is told apart by colour alone.
export const SEAT_COLOURS = ["#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7", "#999999"];
export const SEAT_SHAPES = ["circle", "square", "triangle", "diamond", "star", "hexagon", "pentagon", "cross"];

const SHAPE_PATHS = {
  circle: "M12 3a9 9 0 1 0 0.001 0z",
  square: "M4 4h16v16H4z",
  triangle: "M12 2.5 22 20.5H2z",
  diamond: "M12 1.5 22.5 12 12 22.5 1.5 12z",
  star: "M12 1.8l2.9 6.6 7.1.6-5.4 4.7 1.6 7-6.2-3.7-6.2 3.7 1.6-7L1.9 9l7.2-.6z",
  hexagon: "M6.5 2.5h11L23 12l-5.5 9.5h-11L1 12z",
  pentagon: "M12 1.8 22.5 9.4l-4 12.3h-13l-4-12.3z",
  cross: "M8.5 2h7v6.5H22v7h-6.5V22h-7v-6.5H2v-7h6.5z",
};

/** An inline marker for a seat: coloured shape with the seat number inside. */
export function seatMarker(seat, { size = 24 } = {}) {
  const shape = SEAT_SHAPES[seat % SEAT_SHAPES.length];
  const colour = SEAT_COLOURS[seat % SEAT_COLOURS.length];
  return h(
    "svg:svg",
    {
      class: "seat-marker",
      viewBox: "0 0 24 24",
      width: size,
      height: size,
      "aria-hidden": "true",
      "data-shape": shape,
    },
    h("svg:path", { d: SHAPE_PATHS[shape], fill: colour, stroke: "#1b1b1b", "stroke-width": "1.4" }),
    h(
      "svg:text",
      {
        x: "12",
        y: shape === "triangle" ? "17.5" : "16",
        "text-anchor": "middle",
        "font-size": "10",
        "font-weight": "700",
        fill: "#111",
      },
      String(seat + 1),
    ),
  );
}

export function shapeName(seat) {
  return SEAT_SHAPES[seat % SEAT_SHAPES.length];
}

/** A seat's marker followed by its name. */
export function seatLabel(seat, name, { you = false } = {}) {
  return h(
    "span",
    { class: "seat-label", "data-seat": seat },
    seatMarker(seat),
    h("span", { class: "seat-name" }, name),
    you ? h("span", { class: "you-tag" }, t("common.you_tag")) : null,
  );
}

// Countdowns: any element with data-deadline (Unix ms, server clock) shows the time left and is refreshed by one
// shared ticker. `clock.offset` is the server clock minus ours.
export const clock = { offset: 0 };

export function serverNow() {
  return Date.now() + clock.offset;
}

export function countdown(deadline, { label = "" } = {}) {
  const el = h("time", {
    class: "countdown",
    dataset: { deadline: String(deadline) },
    "aria-label": label || null,
  });
  refreshCountdown(el);
  return el;
}

function formatLeft(ms) {
  if (ms <= 0) return t("common.seconds_short", { n: (0).toFixed(1) });
  if (ms < 10_000) return t("common.seconds_short", { n: (ms / 1000).toFixed(1) });
  const s = Math.ceil(ms / 1000);
  if (s < 60) return t("common.seconds_short", { n: s });
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

function refreshCountdown(el) {
  const left = Number(el.dataset.deadline) - serverNow();
  el.textContent = formatLeft(left);
  el.classList.toggle("urgent", left < 3000);
  el.classList.toggle("expired", left <= 0);
}

setInterval(() => {
  for (const el of document.querySelectorAll("[data-deadline]")) refreshCountdown(el);
}, 100);

/** What identifies a focused element across re-renders: its data-key, else its id. */
function focusKey(el) {
  if (!el || el === document.body) return null;
  if (el.dataset && el.dataset.key) return `[data-key="${CSS.escape(el.dataset.key)}"]`;
  if (el.id) return `#${CSS.escape(el.id)}`;
  return null;
}

/** Whether the player is typing (a chat message, a name): such focus is never taken away. */
export function isTyping(el = document.activeElement) {
  return !!el && (el.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(el.tagName));
}

function focusable(el) {
  return !!el && el.isConnected && !el.disabled && el.getAttribute("aria-disabled") !== "true" && el.getClientRects().length > 0;
}

/**
 * Moves keyboard focus to the screen's current decision: the first enabled control that plays an action
 * (`[data-act]`), else a control the screen marks as its next step (`[data-decision]`), else the headline or the
 * screen's heading (made focusable for this), so that focus never falls back to the page. Returns the element.
 */
export function focusDecision(root = document.getElementById("main")) {
  if (!root) return null;
  const candidates = [
    ...root.querySelectorAll(".board-area [data-act]"),
    ...root.querySelectorAll("[data-decision]"),
    ...root.querySelectorAll("[data-act]"),
  ];
  for (const el of candidates) {
    if (!focusable(el)) continue;
    el.focus({ preventScroll: !isOffscreen(el) });
    if (document.activeElement === el) return el;
  }
  const target = [root.querySelector("#headline"), root.querySelector("h1"), root].find((el) => el && el.isConnected);
  if (!target) return null;
  if (!target.hasAttribute("tabindex") && !target.matches("a[href], button, input, select, textarea")) {
    target.setAttribute("tabindex", "-1");
  }
  target.focus({ preventScroll: true });
  return target;
}

function isOffscreen(el) {
  const r = el.getBoundingClientRect();
  return r.bottom < 0 || r.top > window.innerHeight;
}

/** Whether focus has fallen to the page (nothing focused, or an element that the last redraw removed). */
export function focusLost() {
  const active = document.activeElement;
  return !active || active === document.body || active === document.documentElement || !active.isConnected;
}

/**
 * Redraws with `render()` and keeps keyboard focus sensible: with `decide` (a change that gives the player a new
 * decision) focus moves to that decision unless the player is typing; otherwise the element that had focus gets
 * it back (found again by its data-key or id); and if that element is gone, focus moves to the decision rather
 * than dropping to the page.
 */
export function keepFocus(render, { decide = false } = {}) {
  const active = document.activeElement;
  const hadFocus = !focusLost();
  const key = focusKey(active);
  const typing = isTyping(active);
  render();
  if (decide && !typing && focusDecision()) return;
  if (key) {
    const again = document.querySelector(key);
    if (focusable(again)) {
      // A heading focused by focusDecision is drawn anew without its tabindex: give it one again.
      if (!again.matches("a[href], button, input, select, textarea, [tabindex]")) again.setAttribute("tabindex", "-1");
      if (again !== document.activeElement) again.focus({ preventScroll: true });
      if (document.activeElement === again) return;
    }
  }
  // Focus was on something this redraw replaced (or nowhere after a move): put it on the decision. A page that
  // nobody has interacted with yet keeps its natural order.
  if (focusLost() && (hadFocus || decide)) focusDecision();
}

/** Writes a message into the polite live region so screen readers announce it. */
export function announce(text) {
  const region = document.getElementById("announcer");
  if (!region) return;
  region.textContent = "";
  // A fresh text node after a tick makes repeated messages announce again.
  setTimeout(() => {
    region.textContent = text;
  }, 30);
}
