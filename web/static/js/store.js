// What the browser remembers between visits: the player's name, per lobby code the seat token that takes the seat
// back after a reload or a dropped connection, and per lobby code its log. Tokens never leave this browser except in a `resume` request.

const KEY = "tabletop.v1";

function load() {
  try {
    const data = JSON.parse(localStorage.getItem(KEY) || "{}");
    return typeof data === "object" && data ? data : {};
  } catch {
    return {};
  }
}

function save(data) {
  try {
    localStorage.setItem(KEY, JSON.stringify(data));
  } catch {
    // Private browsing or a full store: the page still works, only a reload loses the seat.
  }
}

export function playerName() {
  return load().name || "";
}

export function rememberName(name) {
  const data = load();
  data.name = name;
  save(data);
}

/** The seat held in lobby `code`: { token, seat, lastVersion } or undefined. */
export function seatFor(code) {
  return (load().seats || {})[code];
}

/** Every seat this browser holds: { code: { token, seat, lastVersion } } (for "my tables", inbox.js). */
export function allSeats() {
  return { ...(load().seats || {}) };
}

export function rememberSeat(code, seat, token) {
  const data = load();
  data.seats = data.seats || {};
  data.seats[code] = { seat, token, lastVersion: null, savedAt: Date.now() };
  // Keep the twenty most recent seats.
  const codes = Object.keys(data.seats).sort((a, b) => data.seats[b].savedAt - data.seats[a].savedAt);
  for (const old of codes.slice(20)) delete data.seats[old];
  save(data);
}

export function rememberVersion(code, version) {
  const data = load();
  if (data.seats && data.seats[code]) {
    data.seats[code].lastVersion = version;
    save(data);
  }
}

export function forgetSeat(code) {
  const data = load();
  if (data.seats) delete data.seats[code];
  save(data);
}

// The log of each lobby (what happened, as data the page words in its language when it shows it) and the report of what was played for the player while away
// (until dismissed), so that a reload shows them again. Kept apart from the seats, for
// the ten most recent lobbies, at most LOG_KEEP entries each.
const LOG_KEY = "tabletop.logs.v2";
const LOG_KEEP = 120;
const LOG_LOBBIES = 10;

function loadLogs() {
  try {
    const data = JSON.parse(localStorage.getItem(LOG_KEY) || "{}");
    return typeof data === "object" && data ? data : {};
  } catch {
    return {};
  }
}

/** The log kept for lobby `code`, newest first (empty if none). */
export function logFor(code) {
  const entry = loadLogs()[code];
  return entry && Array.isArray(entry.entries) ? entry.entries : [];
}

/** What was played for this seat while its player was away, until they dismiss it (see `app.awayReport`), or null.
 * A report kept in an older form (`{ says }`, events counted as moves) is not shown again. */
export function awayFor(code) {
  const entry = loadLogs()[code];
  return entry && entry.away && Array.isArray(entry.away.actions) ? entry.away : null;
}

/** Keeps (or, with null, forgets) lobby `code`'s report of what was played for the player while away: its last
 * LOG_KEEP moves, each with only what its line is worded from. */
export function rememberAway(code, away) {
  const data = loadLogs();
  if (!data[code]) return;
  data[code].away = away ? { ...away, actions: away.actions.slice(-LOG_KEEP) } : null;
  saveLogs(data);
}

/** Keeps lobby `code`'s log (newest first), trimmed to the most recent entries. */
export function rememberLog(code, entries) {
  const data = loadLogs();
  data[code] = { entries: entries.slice(0, LOG_KEEP), away: data[code]?.away || null, savedAt: Date.now() };
  const codes = Object.keys(data).sort((a, b) => (data[b].savedAt || 0) - (data[a].savedAt || 0));
  for (const old of codes.slice(LOG_LOBBIES)) delete data[old];
  saveLogs(data);
}

function saveLogs(data) {
  try {
    localStorage.setItem(LOG_KEY, JSON.stringify(data));
  } catch {
    // A full store: the log is simply not kept across a reload.
  }
}
