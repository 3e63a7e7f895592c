// Which screen draws which game, and what a screen is handed to draw from. A game without a dedicated screen is
// drawn by the generic one.

import { t } from "../i18n.js";
import generic from "./generic.js";
import hideAndEeek from "./hide_and_eeek.js";
import newYearPuzzle from "./new_year_puzzle.js";
import molehills from "./molehills.js";
import quacks from "./quacks.js";
import hickory from "./hickory.js";

const SCREENS = new Map(
  [hideAndEeek, newYearPuzzle, molehills, quacks, hickory].map((screen) => [screen.id, screen]),
);

export function screenFor(gameId) {
  return SCREENS.get(gameId) || generic;
}

export function hasDedicatedScreen(gameId) {
  return SCREENS.has(gameId);
}

/**
 * What a game screen draws from (`render(ctx)`, `headline(ctx)`, `describe(event, ctx)`, `playerInfo(seat, ctx)`):
 * a `state` push, the seats' names, the viewer's seat (`me`, null for a spectator), `act(action)` to play one of
 * the state's legal actions, and `rerender()` to redraw after a choice that stays on the page. The table builds it
 * for the live match, the admin page for a replayed step.
 */
export function screenContext({ state, names, me, act, rerender, lobby = null, log = [], options = {} }) {
  return {
    state,
    view: state?.view,
    lobby,
    me,
    spectator: me === null,
    names,
    name: (seat) => (seat === me ? t("common.you") : names[seat] || t("common.seat", { n: seat + 1 })),
    legal: state?.legal_actions || [],
    act,
    log,
    options,
    rerender,
  };
}
