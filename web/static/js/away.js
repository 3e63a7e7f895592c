// The "while you were away" report's standing: a seat's score and round (or hour, or pile) read from a game view,
// and the sentence that says them then (the view at the version the player last saw, from the server's `away`
// push) and now. A game without a known standing gives none, and the report then says no "then and now".

import { t, listOf } from "./i18n.js";

/** One player's entry of a per-seat list: the one whose `seat` is `seat`, else the `seat`-th. */
function entryOf(list, seat) {
  if (!Array.isArray(list)) return undefined;
  return list.find((p) => p && p.seat === seat) ?? list[seat];
}

const number = (x) => (typeof x === "number" && Number.isFinite(x) ? x : null);

/** What the seat's standing is in `view` of `game`: { points?, cards?, target?, round?, rounds?, hour? }, or null. */
export function standing(game, view, seat) {
  if (!view || typeof view !== "object" || seat === null || seat === undefined) return null;
  switch (game) {
    case "quacks":
    case "molehills":
      return { points: number(entryOf(view.players, seat)?.score), round: number(view.round), rounds: number(view.rounds) };
    case "hickory_dickory":
      return { points: number(entryOf(view.seats, seat)?.score), hour: number(view.hour) };
    case "hide_and_eeek":
      return { cards: number(view.piles?.[seat]?.cards), target: number(view.target) };
    case "new_year_puzzle":
      return { points: number(view.scores?.[seat]) };
    default:
      // A game the page has no screen for: the usual names, if it has them.
      return { points: number(view.scores?.[seat] ?? entryOf(view.players, seat)?.score), round: number(view.round), rounds: number(view.rounds) };
  }
}

/** "Then and now: 12 → 18 points, round 2 → 4 of 9." from two standings; null when nothing can be compared. */
export function thenNowWords(then, now) {
  if (!then || !now) return null;
  const both = (key) => then[key] !== null && then[key] !== undefined && now[key] !== null && now[key] !== undefined;
  const parts = [];
  if (both("points")) parts.push(t("state.away.points", { then: then.points, now: now.points, n: now.points }));
  if (both("cards")) parts.push(t("state.away.cards", { then: then.cards, now: now.cards, n: now.cards, target: now.target ?? "?" }));
  if (both("round")) {
    const key = now.rounds ? "state.away.round_of" : "state.away.round";
    parts.push(t(key, { then: then.round, now: now.round, of: now.rounds }));
  }
  if (both("hour")) parts.push(t("state.away.hour", { then: then.hour, now: now.hour }));
  return parts.length ? t("state.away.then_now", { changes: listOf(parts) }) : null;
}
