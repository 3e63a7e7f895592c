// "How to play": a button on each game's lobby and table that opens the game's rules summary in a dialog. The
// summary is the game screen's own `rules()` (a DOM node written by the screen, in the page's language); a screen
// without one gets a short fallback from the catalogue (the game's description and player count).
//
// The dialog is the browser's modal <dialog>: it keeps keyboard focus inside while open, closes on Escape, and
// gives focus back to the button that opened it (found again by its `data-key` when the page was redrawn while the
// dialog was open). It lives outside #main, so the page's re-renders leave it alone. The start page has one button
// per game (`rules-open-<game>`), a lobby and a table one (`rules-open`).

import { h } from "./ui.js";
import { t, onLangChange } from "./i18n.js";
import { screenFor } from "./games/index.js";

let dialog = null;
/** The game shown and how to describe it, so a change of language can redraw an open dialog. */
let shown = null;
/** The `data-key` of the button that opened the dialog, to give focus back to. */
let opener = null;

function ensureDialog() {
  if (dialog) return dialog;
  dialog = h("dialog", { class: "rules-dialog", id: "rules-dialog", "aria-labelledby": "rules-h" });
  // A click on the backdrop (outside the dialog's box) closes it, as Escape does.
  dialog.addEventListener("click", (event) => {
    if (event.target !== dialog) return;
    const box = dialog.getBoundingClientRect();
    const inside =
      event.clientX >= box.left && event.clientX <= box.right && event.clientY >= box.top && event.clientY <= box.bottom;
    if (!inside) dialog.close();
  });
  dialog.addEventListener("close", () => {
    shown = null;
    const key = opener;
    opener = null;
    // The browser gives focus back to the opening button; a redraw meanwhile replaced it with one of the same key.
    const button = key ? document.querySelector(`[data-key="${key}"]`) : null;
    if (button && document.activeElement !== button) button.focus();
  });
  document.body.append(dialog);
  onLangChange(() => {
    if (shown && dialog.open) fill(shown);
  });
  return dialog;
}

/** The summary of a game: its screen's `rules()`, or the catalogue's description as a fallback. */
function summary(game, describe) {
  const screen = screenFor(game);
  if (typeof screen.rules === "function") {
    const node = screen.rules();
    if (node) return node;
  }
  const { about, facts } = describe(game);
  return h(
    "div",
    { class: "rules-fallback" },
    h("p", {}, t("rules.fallback")),
    about ? h("p", {}, about) : null,
    facts ? h("p", {}, t("rules.players", { facts })) : null,
  );
}

function fill(what) {
  const { game, describe } = what;
  const { title } = describe(game);
  dialog.replaceChildren(
    h(
      "div",
      { class: "rules-head" },
      h("h2", { id: "rules-h" }, t("rules.title", { game: title })),
      h(
        "button",
        { type: "button", class: "quiet", "data-key": "rules-close", onclick: () => dialog.close() },
        t("rules.close"),
      ),
    ),
    h("div", { class: "rules-body" }, summary(game, describe)),
  );
}

/**
 * Opens the rules of `game`; `describe(game)` gives `{ title, about, facts }` in the page's words; `from` is the
 * `data-key` of the button that opened it.
 */
export function openRules(game, describe, from = null) {
  ensureDialog();
  if (!dialog.open) opener = from;
  shown = { game, describe };
  fill(shown);
  if (!dialog.open) dialog.showModal();
  dialog.querySelector("[data-key=rules-close]").focus();
}

/**
 * The "How to play" button for `game`; `key` names it for focus (one per game where several games are listed).
 * The rules are the page's own: opening them asks nothing of the server, so the button works offline too.
 */
export function rulesButton(game, describe, key = "rules-open") {
  return h(
    "button",
    {
      type: "button",
      class: "rules-button small",
      "data-key": key,
      "data-stays-online": "",
      "aria-haspopup": "dialog",
      onclick: () => openRules(game, describe, key),
    },
    t("rules.button"),
  );
}
