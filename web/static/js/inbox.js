// "My tables" (issue 47): the tables whose seat tokens this browser keeps (store.js), asked of the server in one
// `my_tables` request, listed on the start page with those waiting on the player first, and counted in the tab's
// title ("(2) Tabletop"), also while a table is on screen (for the other tables). Refreshed when the page becomes
// visible and every minute. A table the server does not know (`unknown`) is forgotten; a finished one can be.

import { h, serverNow } from "./ui.js";
import * as store from "./store.js";
import { t, lang, listOf } from "./i18n.js";

const REFRESH_MS = 60_000;

/** The last answer: the `seated` entries, or null before the first. */
export const inbox = { tables: null };

/** Asks the server for the tables this browser holds seats of; calls `changed` after an answer. */
export async function refreshInbox(conn, changed) {
  if (!conn || !conn.ready) return;
  const seats = store.allSeats();
  const codes = Object.keys(seats);
  if (!codes.length) {
    if (inbox.tables?.length !== 0) {
      inbox.tables = [];
      changed();
    }
    return;
  }
  let reply;
  try {
    reply = await conn.request("my_tables", { tables: codes.map((code) => ({ code, token: seats[code].token })) });
  } catch {
    return; // the next refresh tries again
  }
  for (const entry of reply.tables) if (entry.status === "unknown") store.forgetSeat(entry.code);
  const tables = reply.tables.filter((entry) => entry.status === "seated");
  // Drawn again only when something changed (the start page's forms keep what is being typed).
  if (JSON.stringify(tables) === JSON.stringify(inbox.tables)) return;
  inbox.tables = tables;
  changed();
}

/** Refreshes now, every minute, and whenever the page becomes visible. */
export function watchInbox(conn, changed) {
  const refresh = () => refreshInbox(conn(), changed);
  setInterval(refresh, REFRESH_MS);
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") refresh();
  });
  return refresh;
}

/** How many tables wait on this player, but the one on screen (`exceptCode`). */
export function waitingCount(exceptCode) {
  return (inbox.tables || []).filter((e) => e.your_turn && e.code !== exceptCode).length;
}

/** The tab's title with the badge of tables waiting on the player. */
export function badgedTitle(title, exceptCode) {
  const n = waitingCount(exceptCode);
  return n ? `(${n}) ${title}` : title;
}

const ENDED = new Set(["finished", "aborted", "abandoned"]);

/** Tables waiting on the player first, then the others going on, then the ended; each by last move, newest first. */
export function sortedTables(tables) {
  const rank = (e) => (e.your_turn ? 0 : ENDED.has(e.phase) ? 2 : 1);
  return [...tables].sort((a, b) => rank(a) - rank(b) || (b.last_move_at || 0) - (a.last_move_at || 0));
}

/** "3 hours ago", "in 2 days", in the page's language. */
function relative(at) {
  const seconds = Math.round((at - serverNow()) / 1000);
  const units = [
    ["day", 86_400],
    ["hour", 3_600],
    ["minute", 60],
    ["second", 1],
  ];
  const [unit, size] = units.find(([, size]) => Math.abs(seconds) >= size) || units[3];
  return new Intl.RelativeTimeFormat(lang(), { numeric: "auto" }).format(Math.round(seconds / size), unit);
}

/** The start page's "My tables" section; null when this browser holds no seat. */
export function renderMyTables(gameTitle, changed) {
  const tables = inbox.tables;
  if (!tables || !tables.length) return null;
  return h(
    "section",
    { class: "panel my-tables", "aria-labelledby": "mine-h", "data-key": "my-tables" },
    h("h2", { id: "mine-h" }, t("lobby.mine.heading")),
    h("ul", { class: "my-tables-list" }, sortedTables(tables).map((e) => tableItem(e, gameTitle, changed))),
  );
}

function tableItem(e, gameTitle, changed) {
  const others = e.players.filter((p) => p.seat !== e.seat && p.name).map((p) => p.name);
  const names = listOf(others);
  const waitingOn = (e.to_decide || [])
    .filter((s) => s !== e.seat)
    .map((s) => e.players[s]?.name)
    .filter(Boolean);
  let status;
  if (e.your_turn) status = t("lobby.mine.your_turn");
  else if (ENDED.has(e.phase)) status = t("lobby.mine.over");
  else if (e.phase === "open") status = t("lobby.mine.open");
  else if (waitingOn.length) status = t("lobby.mine.waiting_on", { names: listOf(waitingOn) });
  else status = "";
  const game = gameTitle(e.game) || e.game_name;
  const lines = [
    h("a", { href: `#join=${encodeURIComponent(e.code)}`, class: "my-table-link", "data-key": "open-table" }, game),
    others.length ? h("span", { class: "my-table-with" }, " ", t("lobby.mine.with", { names })) : null,
    status ? h("strong", { class: "my-table-status" }, " · ", status) : null,
    e.clock_left_ms != null
      ? h("span", { class: "my-table-clock" }, " · ", t("lobby.mine.time_left", { when: relative(serverNow() + e.clock_left_ms) }))
      : null,
    e.last_move_at ? h("span", { class: "my-table-last" }, " · ", t("lobby.mine.last_move", { when: relative(e.last_move_at) })) : null,
  ];
  const forget = ENDED.has(e.phase)
    ? h(
        "button",
        {
          type: "button",
          class: "link-button",
          "data-key": "forget-table",
          "data-stays-online": "",
          "aria-label": t("lobby.mine.forget_label", { game, names }),
          onclick: () => {
            store.forgetSeat(e.code);
            inbox.tables = (inbox.tables || []).filter((x) => x.code !== e.code);
            changed();
          },
        },
        t("lobby.mine.forget"),
      )
    : null;
  return h(
    "li",
    { class: e.your_turn ? "my-table waiting" : "my-table", "data-code": e.code, "data-your-turn": String(e.your_turn) },
    ...lines.filter(Boolean),
    forget ? " " : null,
    forget,
  );
}
