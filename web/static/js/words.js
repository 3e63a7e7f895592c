// Plain words for everything the server may say, and readable labels for raw JSON values.

/** What each error code means for the person at the screen, and what happens next. */
const ERROR_WORDS = {
  bad_message: "The server could not accept that request.",
  unknown_message: "This page sent something the server does not know. Reload the page to get the current version.",
  too_large: "A message was too large for the server.",
  rate_limited: "Slow down a little: the server dropped a message because too many arrived at once.",
  handshake_required: "The connection was not ready yet. Reconnecting…",
  unsupported_version: "This page is out of date for the server. Reload the page.",
  unknown_game: "The server does not host that game.",
  bad_options: "Those options do not set up this game.",
  unknown_lobby: "There is no game with that code. Check the code and try again.",
  lobby_full: "Every seat in that game is taken. You can still watch it.",
  already_started: "That game has already started, so no seat can be taken. You can still watch it.",
  not_started: "The game has not started yet.",
  seats_empty: "Some seats are still empty: wait for more players or add bots.",
  already_in_lobby: "You are already in a game on this page.",
  not_in_lobby: "You are not in a game any more.",
  not_host: "Only the host can do that.",
  unauthorized: "This browser no longer holds that seat.",
  not_your_turn: "It is not your turn.",
  illegal_action: "That move is not allowed right now.",
  stale_version: "The game moved on before your move arrived. The board now shows the current position: try again.",
  game_over: "The game is over.",
  session_replaced: "This seat was opened in another tab or window, so this one has stopped.",
  overloaded: "The server is busy. Reconnecting…",
  shutting_down: "The server is restarting. This page reconnects by itself and keeps your seat.",
  internal: "Something went wrong on the server; nothing was changed. Try again.",
  connection_lost: "The connection to the server was lost. Reconnecting…",
  removed: "You were removed from this game (by its host or an administrator), so this seat is no longer yours.",
};

export function errorWords(error) {
  if (!error) return "";
  const base = ERROR_WORDS[error.code] || "The server refused that.";
  // The server's own message adds the detail (which card, whose turn) for refusals of a move.
  const detailed = ["illegal_action", "not_your_turn", "bad_options", "game_over", "bad_message"];
  if (error.message && detailed.includes(error.code)) return `${base} (${error.message})`;
  return base;
}

/** "snake_case" → "snake case". */
export function words(key) {
  return String(key).replace(/_/g, " ");
}

/** A readable one-line label for any JSON value, used by the generic screen for actions and values. */
export function describeValue(value) {
  if (value === null || value === undefined) return "nothing";
  if (Array.isArray(value)) return value.map(describeValue).join(", ");
  if (typeof value === "object") {
    const keys = Object.keys(value);
    if (keys.length === 2 && "row" in value && "col" in value) {
      return `row ${value.row + 1} column ${value.col + 1}`;
    }
    const parts = [];
    if (typeof value.type === "string") parts.push(words(value.type));
    for (const k of keys) {
      if (k === "type") continue;
      parts.push(`${words(k)} ${describeValue(value[k])}`);
    }
    return parts.join(" · ");
  }
  if (typeof value === "boolean") return value ? "yes" : "no";
  return words(value);
}

/** "Ann", "Ann and Bo", "Ann, Bo and Cy". */
export function listWords(items) {
  if (items.length <= 1) return items.join("");
  return `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}`;
}
