// Which screen draws which game. A game without a dedicated screen is drawn by the generic one.

import generic from "./generic.js";
import hideAndEeek from "./hide_and_eeek.js";

const SCREENS = new Map([[hideAndEeek.id, hideAndEeek]]);

export function screenFor(gameId) {
  return SCREENS.get(gameId) || generic;
}

export function hasDedicatedScreen(gameId) {
  return SCREENS.has(gameId);
}
