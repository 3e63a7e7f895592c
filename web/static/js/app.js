// The application: one connection, one session (a seat or a spectator's place in one lobby), and the screen that
// matches where the session stands (home, joining, lobby, game). Every server push re-renders the current screen.

import { Connection, ServerError } from "./net.js";
import * as store from "./store.js";
import { h, keepFocus, announce, clock, countdown, seatLabel } from "./ui.js";
import { errorWords, listWords } from "./words.js";
import { initLobby, renderHome, renderJoin, renderLobby, lobbyChanges, standInTag } from "./lobby.js";
import { screenFor } from "./games/index.js";
import { initFriends, onChatHistory, onChatMessage, resetChat, chatPanel, presenceTag, reportPresence } from "./friends.js";

const LOG_LIMIT = 200;

/** The latest pushes, kept even before the reply that seats us arrives (the server may push first). */
const early = { lobby: null, state: null };

/** Takes over pushes that arrived before the session was set up. */
function adoptEarlyPushes() {
  const code = app.session?.code;
  // A hidden tab says so as soon as it holds a seat (a visible one is active by arriving).
  if (document.hidden) reportPresence();
  if (early.lobby && early.lobby.code === code && !app.lobby) onLobby(early.lobby);
  if (early.state && early.state.code === code && !app.state) onState(early.state);
}

export const app = {
  conn: null,
  /** The games the server hosts, from GET /api/games. */
  catalogue: [],
  /** { code, seat, host, spectator } once in a lobby. */
  session: null,
  lobby: null,
  state: null,
  /** What happened, newest first: { text, seat, version, kind }. */
  log: [],
  notice: null,
  connection: { status: "connecting", detail: {} },
  /** What to do once connected, from the address: { kind: "join" | "watch", code }. */
  route: parseRoute(),
  busy: false,
  /** The open rematch offer of a finished lobby (the `rematch` push). */
  rematch: null,
};

function parseRoute() {
  const hash = location.hash.replace(/^#/, "");
  const params = new URLSearchParams(hash);
  const join = params.get("join");
  const watch = params.get("watch");
  if (join) return { kind: "join", code: normaliseCode(join) };
  if (watch) return { kind: "watch", code: normaliseCode(watch) };
  return { kind: "home" };
}

export function normaliseCode(code) {
  return String(code || "")
    .trim()
    .toUpperCase()
    .replace(/[^A-Z0-9]/g, "");
}

function setHash(hash) {
  if (location.hash !== hash) history.replaceState(null, "", hash ? hash : location.pathname);
}

export function gameInfo(id) {
  return app.catalogue.find((g) => g.id === id);
}

export function gameTitle(id) {
  return gameInfo(id)?.name || id;
}

/** The display names of the seats, by seat index. */
export function seatNames() {
  const names = [];
  for (const s of app.lobby?.seats || []) {
    const o = s.occupant;
    names[s.seat] = o.kind === "empty" ? `Seat ${s.seat + 1}` : o.name;
  }
  return names;
}

// ---- notices -------------------------------------------------------------------------------------------------

/** Shows a message in plain words. Errors stay until dismissed or replaced; information fades by itself. */
export function notify(text, { kind = "error", timeout } = {}) {
  app.notice = { text, kind, id: Math.random() };
  const id = app.notice.id;
  const ms = timeout ?? (kind === "error" ? 12_000 : 5_000);
  setTimeout(() => {
    if (app.notice && app.notice.id === id) {
      app.notice = null;
      renderNotice();
    }
  }, ms);
  renderNotice();
  announce(text);
}

export function showError(error) {
  const e = error instanceof ServerError ? error : new ServerError("internal", String(error));
  // A stale version is cured by the update already on its way: say so briefly.
  notify(errorWords(e), e.code === "stale_version" ? { timeout: 6000 } : {});
}

function clearNotice() {
  app.notice = null;
  renderNotice();
}

// ---- requests ------------------------------------------------------------------------------------------------

export async function createLobby({ game, options, seats, name, turnTimerMs, absent }) {
  store.rememberName(name);
  const reply = await app.conn.request("create_lobby", {
    game,
    options,
    seats,
    name,
    turn_timer_ms: turnTimerMs || null,
    absent: absent || { policy: "wait", grace_ms: 0 },
  });
  seated(reply);
}

export async function joinLobby(code, name) {
  store.rememberName(name);
  const reply = await app.conn.request("join_lobby", { code, name });
  seated(reply);
}

export async function spectate(code) {
  const reply = await app.conn.request("spectate", { code });
  app.session = { code: reply.code, seat: null, host: false, spectator: true };
  app.route = { kind: "watch", code: reply.code };
  setHash(`#watch=${reply.code}`);
  adoptEarlyPushes();
  render();
}

function seated(reply) {
  store.rememberSeat(reply.code, reply.seat, reply.seat_token);
  app.session = { code: reply.code, seat: reply.seat, host: reply.host, spectator: false };
  app.route = { kind: "join", code: reply.code };
  app.log = [];
  setHash(`#join=${reply.code}`);
  adoptEarlyPushes();
  render();
}

/** Leaves the lobby. While it is open the seat is freed; after the start the seat stays ours on the server, and
 * the stored token still brings the player back through the game's link. */
export async function leave() {
  const code = app.session?.code;
  const open = app.lobby?.phase === "open";
  await detach();
  app.session = null;
  if (code && open) store.forgetSeat(code);
  goHome();
}

async function detach() {
  if (!app.session || !app.conn.ready) return;
  try {
    await app.conn.request("leave");
  } catch (e) {
    // Leaving a lobby we are no longer in is still leaving; anything else is worth saying.
    if (!(e instanceof ServerError && ["not_in_lobby", "connection_lost"].includes(e.code))) showError(e);
  }
}

export function goHome() {
  resetSession();
  app.route = { kind: "home" };
  setHash("");
  render();
}

function resetSession() {
  // Free this connection for the next lobby; the seat token (if any) stays stored.
  if (app.session) detach();
  app.session = null;
  app.lobby = null;
  app.state = null;
  app.rematch = null;
  app.log = [];
  resetChat();
}

export async function request(type, fields) {
  try {
    return await app.conn.request(type, fields);
  } catch (e) {
    showError(e);
    return null;
  }
}

/** Plays a game action exactly as listed in legal_actions, against the version on screen. */
export async function act(action) {
  if (app.busy || !app.state) return;
  app.busy = true;
  const version = app.state.version;
  try {
    await app.conn.request("action", { action, version });
  } catch (e) {
    showError(e);
    if (e instanceof ServerError && e.code === "stale_version") resyncUnlessUpdated(version);
  } finally {
    app.busy = false;
  }
}

/** A stale version means a newer state is on its way; if none arrives soon, reconnect, which resumes the seat and
 * brings the whole current state. */
function resyncUnlessUpdated(version) {
  setTimeout(() => {
    if (app.state && app.state.version === version && app.conn.ready) app.conn.socket?.close();
  }, 1500);
}

// ---- connection ----------------------------------------------------------------------------------------------

async function onReady(welcome) {
  if (typeof welcome.server_time === "number") clock.offset = welcome.server_time - Date.now();
  clearNoticeIfConnection();
  try {
    if (app.session && app.session.spectator) {
      await app.conn.request("spectate", { code: app.session.code });
    } else if (app.session) {
      await resume(app.session.code);
    } else if (app.route.kind === "join" && store.seatFor(app.route.code)) {
      await resume(app.route.code);
    } else if (app.route.kind === "watch") {
      await spectate(app.route.code);
    }
  } catch (e) {
    if (e instanceof ServerError && e.code === "connection_lost") return; // the next connection retries
    const code = app.session?.code || app.route.code;
    if (e instanceof ServerError && ["unknown_lobby", "unauthorized"].includes(e.code) && code) {
      store.forgetSeat(code);
    }
    app.session = null;
    app.lobby = null;
    app.state = null;
    showError(e);
  }
  render();
}

async function resume(code) {
  const saved = store.seatFor(code);
  if (!saved) throw new ServerError("unauthorized", "no seat token");
  const lastVersion = app.state && app.state.code === code ? app.state.version : saved.lastVersion;
  const reply = await app.conn.request("resume", {
    code,
    token: saved.token,
    last_version: lastVersion ?? null,
  });
  const wasIn = app.session?.code === reply.code;
  app.session = { code: reply.code, seat: reply.seat, host: reply.host, spectator: false };
  if (!wasIn) app.log = [];
  setHash(`#join=${reply.code}`);
  adoptEarlyPushes();
}

function clearNoticeIfConnection() {
  if (app.notice && app.notice.kind === "connection") clearNotice();
}

function onStatus(status, detail) {
  app.connection = { status, detail };
  // Keep a more precise connection message (the server said it is restarting) while reconnecting.
  if (status === "lost" && app.session && app.notice?.kind !== "connection") {
    app.notice = { text: errorWords({ code: "connection_lost" }), kind: "connection", id: "conn" };
    renderNotice();
  }
  if (status === "open") clearNoticeIfConnection();
  renderStatus();
}

function onPush(message) {
  switch (message.type) {
    case "lobby":
      onLobby(message);
      break;
    case "state":
      onState(message);
      break;
    case "closing":
      onClosing(message);
      break;
    case "chat_history":
      onChatHistory(message);
      render();
      break;
    case "chat_message":
      onChatMessage(message);
      break;
    case "rematch":
      onRematch(message);
      break;
    case "rematched":
      onRematched(message);
      break;
    default:
      break;
  }
}

function onLobby(lobby) {
  early.lobby = lobby;
  if (!app.session || lobby.code !== app.session.code) return;
  const changes = lobbyChanges(app.lobby, lobby, app.session.seat);
  for (const text of changes) addLog({ text, kind: "lobby", version: null });
  if (changes.length) announce(changes.join(". "));
  app.lobby = lobby;
  if (app.session.seat !== null) app.session.host = lobby.host === app.session.seat;
  render();
}

function onState(update) {
  early.state = update;
  if (!app.session || update.code !== app.session.code) return;
  const previous = app.state;
  if (previous && previous.match_id === update.match_id && update.version < previous.version) return;
  if (typeof update.server_time === "number") clock.offset = update.server_time - Date.now();
  app.state = update;
  if (!app.session.spectator) store.rememberVersion(update.code, update.version);
  const screen = screenFor(update.game);
  const ctx = context();
  const texts = [];
  if (update.since < update.version) {
    for (const event of update.events) {
      const text = yourWords(screen.describe(event, ctx));
      if (text) {
        texts.push(text);
        addLog({ text, kind: "game", version: update.version, seat: event.seat });
      }
    }
  } else if (!previous) {
    addLog({ text: "You are looking at the current position.", kind: "info", version: update.version });
  } else {
    addLog({ text: "Back in sync with the server.", kind: "info", version: update.version });
  }
  if (texts.length) announce(texts.slice(-3).join(" "));
  render();
}

/** A rematch offer of this lobby, or an answer to it. */
function onRematch(offer) {
  if (!app.session || offer.code !== app.session.code) return;
  const before = app.rematch;
  app.rematch = offer;
  if (!before) {
    const text = `${seatNames()[offer.requested_by] || "Someone"} asks for a rematch.`;
    addLog({ text, kind: "lobby", version: null });
    announce(text);
  }
  render();
}

/** The rematch started and we accepted: take the new seat with its new token. */
async function onRematched(message) {
  store.rememberSeat(message.code, message.seat, message.seat_token);
  if (!app.session || app.session.code !== message.previous) return;
  await detach();
  app.session = null;
  app.lobby = null;
  app.state = null;
  app.rematch = null;
  try {
    await resume(message.code);
    addLog({ text: "The rematch has started.", kind: "lobby", version: null });
  } catch (e) {
    showError(e);
  }
  render();
}

/** Asks for a rematch, or answers one. */
export function answerRematch(accept) {
  return request("rematch", { accept });
}

function onClosing(message) {
  if (message.code === "removed") {
    // The seat is gone for good: forget its token and go back to the start page, saying why.
    const code = app.session?.code;
    if (code) store.forgetSeat(code);
    app.session = null;
    goHome();
    notify(errorWords(message), { timeout: 60_000 });
    return;
  }
  if (message.code === "session_replaced") {
    app.conn.stop();
    app.notice = { text: errorWords(message), kind: "replaced", id: "replaced" };
    render();
    return;
  }
  // Stays until the connection is back (see onStatus).
  notify(errorWords(message), { kind: "connection", timeout: 24 * 3600 * 1000 });
}

function addLog(entry) {
  app.log.unshift(entry);
  if (app.log.length > LOG_LIMIT) app.log.length = LOG_LIMIT;
}

/** What a game screen gets: the state, names and the means to act. */
export function context() {
  const state = app.state;
  const names = seatNames();
  const me = app.session?.spectator ? null : (app.session?.seat ?? null);
  return {
    state,
    view: state?.view,
    lobby: app.lobby,
    me,
    spectator: !!app.session?.spectator,
    names,
    name: (seat) => (seat === me ? "You" : names[seat] || `Seat ${seat + 1}`),
    legal: state?.legal_actions || [],
    act,
    log: app.log,
    options: app.lobby?.options || {},
    /** Redraws the screen after a change that stays on this page (a choice not yet sent). */
    rerender: render,
  };
}

// ---- rendering -----------------------------------------------------------------------------------------------

export function render() {
  keepFocus(() => {
    renderStatus();
    renderNotice();
    const main = document.getElementById("main");
    main.replaceChildren(currentScreen());
  });
}

function currentScreen() {
  if (app.session && app.lobby) {
    if (app.lobby.phase === "open") return renderLobby(app);
    if (app.state) return renderGame();
    return h("section", { class: "panel" }, h("p", {}, "Loading the game…"));
  }
  if (app.session) return h("section", { class: "panel" }, h("p", {}, "Loading…"));
  if (app.route.kind === "join" && !store.seatFor(app.route.code)) return renderJoin(app, app.route.code);
  if (app.route.kind === "watch" && app.connection.status !== "open") {
    return h("section", { class: "panel" }, h("p", {}, "Connecting…"));
  }
  return renderHome(app);
}

function renderStatus() {
  const el = document.getElementById("conn");
  if (!el) return;
  const { status } = app.connection;
  const text = {
    connecting: "Connecting…",
    open: "Connected",
    lost: "Reconnecting…",
    stopped: "Disconnected",
  }[status];
  el.dataset.status = status;
  el.textContent = text;
}

function renderNotice() {
  const el = document.getElementById("notice");
  if (!el) return;
  if (!app.notice) {
    el.hidden = true;
    el.replaceChildren();
    return;
  }
  el.hidden = false;
  el.dataset.kind = app.notice.kind;
  const children = [h("p", {}, app.notice.text)];
  if (app.notice.kind === "replaced") {
    children.push(
      h(
        "button",
        {
          type: "button",
          "data-key": "play-here",
          onclick: () => {
            app.notice = null;
            app.conn.connect();
            render();
          },
        },
        "Play in this tab instead",
      ),
    );
  } else if (app.notice.kind !== "connection") {
    children.push(
      h("button", { type: "button", class: "quiet", "aria-label": "Dismiss message", onclick: clearNotice }, "×"),
    );
  }
  el.replaceChildren(...children);
}

function renderGame() {
  const ctx = context();
  const state = app.state;
  const screen = screenFor(state.game);
  const header = h(
    "header",
    { class: "game-head" },
    h("h1", {}, gameTitle(state.game)),
    h(
      "p",
      { class: "game-meta" },
      `Game ${app.session.code} · `,
      ctx.spectator ? "You are watching" : h("span", {}, "You are ", seatLabel(ctx.me, ctx.names[ctx.me] || "you")),
      ` · move ${state.version}`,
    ),
  );
  const parts = [header];
  if (state.outcome) parts.push(renderOutcome(state, ctx));
  parts.push(h("p", { class: "headline", id: "headline" }, yourWords(screen.headline ? screen.headline(ctx) : headline(ctx))));
  if (state.turn_deadline && !state.outcome) {
    parts.push(
      h(
        "p",
        { class: "turn-timer" },
        "Turn timer: ",
        countdown(state.turn_deadline, { label: "time left before a move is played automatically" }),
        " (then a move is played automatically)",
      ),
    );
  }
  const layout = h(
    "div",
    { class: "game-layout" },
    h("div", { class: "board-area" }, screen.render(ctx)),
    h(
      "aside",
      { class: "side" },
      renderPlayers(ctx, screen),
      chatPanel(ctx.spectator),
      renderLog(),
      h(
        "div",
        { class: "side-actions" },
        h("button", { type: "button", class: "quiet", onclick: goHome, "data-key": "home" }, "Back to the start page"),
      ),
    ),
  );
  parts.push(layout);
  return h("section", { class: "game", "data-game": state.game }, parts);
}

/** Screens name the viewer "You"; this turns the possessive "You's" they build from it into "Your"/"your". */
export function yourWords(text) {
  if (!text) return text;
  return text.replace(/(^|[.!?:]\s+)You's\b/g, "$1Your").replace(/\bYou's\b/g, "your");
}

/** "Your turn", "Ann's turn", "Waiting for Ann and Bo", "Game over". */
export function headline(ctx) {
  const status = ctx.state.status;
  switch (status.kind) {
    case "turn":
      return status.seat === ctx.me ? "Your turn" : `${ctx.name(status.seat)}'s turn`;
    case "simultaneous": {
      const who = status.seats.map((s) => ctx.name(s));
      return who.length ? `Waiting for ${listWords(who)}` : "Everyone is ready";
    }
    case "race":
      return "A race is on: the first to act wins";
    case "over":
      return "Game over";
    default:
      return "";
  }
}

/** What a seat is doing now, from the status alone. */
export function activity(ctx, seat) {
  const status = ctx.state.status;
  switch (status.kind) {
    case "turn":
      return status.seat === seat ? "to play" : "";
    case "simultaneous":
      return status.seats.includes(seat) ? (status.secret ? "planning" : "deciding") : "ready";
    case "race":
      return status.seats.includes(seat) ? "may claim" : "";
    case "over": {
      const placing = ctx.state.outcome?.placings?.[seat];
      return placing ? ordinal(placing) : "";
    }
    default:
      return "";
  }
}

export function ordinal(n) {
  const s = ["th", "st", "nd", "rd"];
  const v = n % 100;
  return n + (s[(v - 20) % 10] || s[v] || s[0]);
}

function renderPlayers(ctx, screen) {
  const seats = app.lobby?.seats || [];
  return h(
    "section",
    { class: "players", "aria-labelledby": "players-h" },
    h("h2", { id: "players-h" }, "Players"),
    h(
      "ul",
      {},
      seats.map((s) => {
        const o = s.occupant;
        const doing = activity(ctx, s.seat);
        const extra = screen.playerInfo ? screen.playerInfo(s.seat, ctx) : null;
        return h(
          "li",
          { class: `player${doing === "to play" || doing === "deciding" ? " active" : ""}`, "data-seat": s.seat },
          seatLabel(s.seat, ctx.names[s.seat], { you: s.seat === ctx.me }),
          o.kind === "bot" ? h("span", { class: "tag" }, "bot") : null,
          presenceTag(o),
          standInTag(s),
          doing ? h("span", { class: "doing" }, doing) : null,
          extra ? h("div", { class: "player-extra" }, extra) : null,
        );
      }),
    ),
  );
}

function renderLog() {
  return h(
    "section",
    { class: "log", "aria-labelledby": "log-h" },
    h("h2", { id: "log-h" }, "What happened"),
    h(
      "ol",
      { class: "log-list", "aria-live": "off" },
      app.log.slice(0, 60).map((e) => h("li", { class: `log-${e.kind}`, "data-seat": e.seat ?? null }, e.text)),
    ),
  );
}

function renderOutcome(state, ctx) {
  const o = state.outcome;
  const seats = o.placings.map((placing, seat) => ({ seat, placing, score: o.scores[seat] }));
  seats.sort((a, b) => a.placing - b.placing || a.seat - b.seat);
  const winners = o.winners.map((s) => ctx.name(s));
  const youWon = ctx.me !== null && o.winners.includes(ctx.me);
  return h(
    "section",
    { class: "outcome", "aria-labelledby": "outcome-h", id: "outcome" },
    h(
      "h2",
      { id: "outcome-h" },
      youWon ? (winners.length > 1 ? "You share the victory!" : "You win!") : `${listWords(winners)} ${winners.length > 1 ? "share the victory" : "wins"}`,
    ),
    h(
      "table",
      {},
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Place"), h("th", { scope: "col" }, "Player"), h("th", { scope: "col" }, "Score"))),
      h(
        "tbody",
        {},
        seats.map((r) =>
          h(
            "tr",
            { class: r.placing === 1 ? "winner" : "" },
            h("td", {}, ordinal(r.placing)),
            h("td", {}, seatLabel(r.seat, ctx.names[r.seat], { you: r.seat === ctx.me })),
            h("td", {}, String(r.score)),
          ),
        ),
      ),
    ),
    renderRematch(ctx),
    h("button", { type: "button", onclick: goHome, "data-key": "new-game" }, "Play another game"),
  );
}

/** "Play again": ask for (or accept) a rematch, and see who accepted. */
function renderRematch(ctx) {
  if (ctx.spectator || app.lobby?.phase !== "finished") return null;
  const offer = app.rematch;
  const names = (seats) => listWords(seats.map((s) => ctx.name(s)));
  const me = ctx.me;
  const parts = [];
  if (!offer) {
    parts.push(h("button", { type: "button", class: "primary", "data-key": "play-again", onclick: () => answerRematch(true) }, "Play again"));
  } else if (offer.new_code) {
    parts.push(h("p", { class: "hint" }, `The rematch has started (game ${offer.new_code}).`));
  } else {
    const answered = offer.accepted.includes(me) || offer.declined.includes(me);
    if (!answered) {
      parts.push(
        h("button", { type: "button", class: "primary", "data-key": "play-again", onclick: () => answerRematch(true) }, "Play again"),
        h("button", { type: "button", "data-key": "no-rematch", onclick: () => answerRematch(false) }, "No thanks"),
      );
    }
    if (app.session?.host && offer.accepted.includes(me)) {
      parts.push(h("button", { type: "button", "data-key": "start-rematch", onclick: () => request("start", {}) }, "Start the rematch now"));
    }
    parts.push(
      h(
        "p",
        { class: "hint", id: "rematch-status", "data-key": "rematch-status" },
        `Play again: ${names(offer.accepted)} accepted`,
        offer.declined.length ? `; ${names(offer.declined)} declined` : "",
        ". It starts when everyone has answered",
        app.session?.host ? " or when you start it." : ".",
      ),
    );
  }
  return h("div", { class: "rematch" }, parts);
}

// ---- start-up ------------------------------------------------------------------------------------------------

async function loadCatalogue() {
  try {
    const response = await fetch("/api/games", { cache: "no-store" });
    const date = response.headers.get("date");
    if (date) {
      // A coarse correction only (the header has whole seconds): trust it when the clocks differ a lot.
      const skew = new Date(date).getTime() + 500 - Date.now();
      if (Math.abs(skew) > 2000 && clock.offset === 0) clock.offset = skew;
    }
    const body = await response.json();
    app.catalogue = Array.isArray(body) ? body : body.games || [];
  } catch (e) {
    app.catalogue = [];
    notify("Could not load the list of games from the server. Reload the page to try again.");
  }
}

function onKey(event) {
  const target = event.target;
  if (target && (target.isContentEditable || ["INPUT", "SELECT", "TEXTAREA"].includes(target.tagName))) return;
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  if (!app.state || !app.session || app.lobby?.phase === "open") return;
  const screen = screenFor(app.state.game);
  if (screen.onKey && screen.onKey(event, context())) event.preventDefault();
}

export async function start() {
  window.addEventListener("hashchange", () => {
    const route = parseRoute();
    if (app.session && route.code === app.session.code) return;
    resetSession();
    app.route = route;
    render();
    if (app.conn.ready && route.kind !== "home") onReady({});
  });
  document.addEventListener("keydown", onKey);
  app.conn = new Connection({ onReady, onStatus, onPush, onOrphanError: showError });
  initLobby({
    createLobby,
    joinLobby,
    spectate,
    leave,
    request,
    showError,
    notify,
    normaliseCode,
    gameInfo,
    gameTitle,
  });
  initFriends({
    request,
    send: (type, fields) => app.conn.request(type, fields),
    inLobby: () => !!app.session && app.conn.ready,
  });
  render();
  await loadCatalogue();
  render();
  app.conn.connect();
}

// Tests and curious players can look at the state from the console.
window.tabletop = app;
start();
