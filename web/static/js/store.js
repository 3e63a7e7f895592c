// What the browser remembers between visits: the player's name and, per lobby code, the seat token that takes the
// seat back after a reload or a dropped connection. Tokens never leave this browser except in a `resume` request.

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
