// Which screen draws which game. A game without a dedicated screen is drawn by the generic one.

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
