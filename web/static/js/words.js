// Plain words for everything the server may say, and readable labels for raw JSON values.

import { t, listOf } from "./i18n.js";

/** The error codes the page has words for (each is `errors.<code>` in the catalogues). */
const ERROR_CODES = new Set([
  "bad_message",
  "bad_name",
  "bad_chat",
  "unknown_message",
  "too_large",
  "rate_limited",
  "handshake_required",
  "unsupported_version",
  "unknown_game",
  "bad_options",
  "unknown_lobby",
  "lobby_full",
  "already_started",
  "not_started",
  "seats_empty",
  "already_in_lobby",
  "not_in_lobby",
  "not_host",
  "unauthorized",
  "not_your_turn",
  "illegal_action",
  "stale_version",
  "game_over",
  "session_replaced",
  "overloaded",
  "shutting_down",
  "internal",
  "connection_lost",
  "removed",
  "too_many_connections",
  "create_limited",
  "idle_timeout",
  "handshake_timeout",
  "store_unavailable",
  "moved",
  "forward_unavailable",
  "too_many_tables",
  "bad_endpoint",
  "too_many_endpoints",
  "unknown_endpoint",
  "not_over",
]);

export function errorWords(error) {
  if (!error) return "";
  const base = ERROR_CODES.has(error.code) ? t(`errors.${error.code}`) : t("errors.other");
  // The server's own message adds the detail (which card, whose turn) for refusals of a move, and which character
  // of a name or chat message was refused.
  const detailed = ["illegal_action", "not_your_turn", "bad_options", "game_over", "bad_message", "bad_name", "bad_chat"];
  // The detail is the server's English: it follows the page's words, in brackets.
  if (error.message && detailed.includes(error.code)) return `${base} (${error.message})`;
  return base;
}

/** "snake_case" → "snake case". */
export function words(key) {
  return String(key).replace(/_/g, " ");
}

/** A readable one-line label for any JSON value, used by the generic screen for actions and values. */
export function describeValue(value) {
  if (value === null || value === undefined) return t("common.nothing");
  if (Array.isArray(value)) return value.map(describeValue).join(", ");
  if (typeof value === "object") {
    const keys = Object.keys(value);
    if (keys.length === 2 && "row" in value && "col" in value) {
      return t("common.row_column", { row: value.row + 1, col: value.col + 1 });
    }
    const parts = [];
    if (typeof value.type === "string") parts.push(words(value.type));
    for (const k of keys) {
      if (k === "type") continue;
      parts.push(`${words(k)} ${describeValue(value[k])}`);
    }
    return parts.join(" · ");
  }
  if (typeof value === "boolean") return value ? t("common.yes") : t("common.no");
  return words(value);
}

/** "Ann", "Ann and Bo", "Ann, Bo and Cy", in the page's language. */
export function listWords(items) {
  return listOf(items);
}
