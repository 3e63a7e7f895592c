// The application: one connection, one session (a seat or a spectator's place in one lobby), and the screen that
// matches where the session stands (home, joining, lobby, game). Every server push re-renders the current screen.

import { Connection, ServerError } from "./net.js";
import * as store from "./store.js";
import { h, keepFocus, focusDecision, focusLost, isTyping, announce, clock, countdown, seatLabel, serverNow } from "./ui.js";
import { errorWords, listWords } from "./words.js";
import { t, tParts, ordinal as ordinalWords, lang, setLang, onLangChange, LANGUAGES, hasKey, listOf } from "./i18n.js";
import {
  initLobby,
  renderHome,
  renderJoin,
  renderLobby,
  lobbyChanges,
  standInTag,
  forgetForms,
  gameAbout,
  gameFacts,
  watchersText,
  pageTitle,
  longDuration,
} from "./lobby.js";
import { rulesButton } from "./help.js";
import { watchTips } from "./info_tip.js";
import { screenFor, screenContext } from "./games/index.js";
import { answerServiceWorker, notifyPanel } from "./notify.js";
import { initFriends, onChatHistory, onChatMessage, resetChat, chatPanel, presenceTag, reportPresence } from "./friends.js";
import { standing, thenNowWords } from "./away.js";
import { watchInbox, badgedTitle } from "./inbox.js";

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
  adoptEarlyAway(code);
}

export const app = {
  conn: null,
  /** The games the server hosts, from GET /api/games. */
  catalogue: [],
  /** { code, seat, host, spectator } once in a lobby. */
  session: null,
  lobby: null,
  state: null,
  /** What happened, newest first: { say, seat, version, kind }, `say` being data put in words when shown
   * (see `logWords`), so that the log reads in the page's language whatever the language it was kept in. */
  log: [],
  notice: null,
  connection: { status: "connecting", detail: {} },
  /** What to do once connected, from the address: { kind: "join" | "watch", code }. */
  route: parseRoute(),
  busy: false,
  /** The open rematch offer of a finished lobby (the `rematch` push). */
  rematch: null,
  /** At a rematch's table: { code, seen }, the seats seen connected there since it began (see `lobbyChanges`). */
  arrivals: null,
  /** Set when a change gives the player a new decision: the next redraw of a lobby or game moves focus to it. */
  wantFocus: false,
  /** The lobby code being resumed: its next state tells what was played for this seat meanwhile. */
  returning: null,
  /** While a bot stands in for this seat with the player still here (their timer ran out): what it played. */
  standIn: null,
  /** What was played for this seat while the player was away, until dismissed: { game, seat, since, version,
   * actions: [{ seq, by, action, events }] oldest first, then, now } (see `onAway`). */
  awayReport: null,
  /** What happened since this seat's last look (the `away` push's `moves`), shown above the board until dismissed. */
  catchUp: null,
  /** Whether the player asked to see every line of a long away report. */
  awayOpen: false,
  /** A shared link's lobby looked at before the join form: { code, phase, game, host } or { code, missing }. */
  peek: null,
};

function parseRoute() {
  const hash = location.hash.replace(/^#/, "");
  const params = new URLSearchParams(hash);
  const join = params.get("join");
  const watch = params.get("watch");
  // A replay link carries the lobby's watch token: a finished private lobby is watched only with it.
  const key = params.get("key") || null;
  if (join) return { kind: "join", code: normaliseCode(join) };
  if (watch) return { kind: "watch", code: normaliseCode(watch), key };
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

/** A game's title, description and player count and time, for the "How to play" panel. */
function describeGame(id) {
  const info = gameInfo(id);
  return { title: gameTitle(id), about: gameAbout(id), facts: info ? gameFacts(info) : "" };
}

export function gameTitle(id) {
  const key = `lobby.game.${id}.name`;
  return hasKey(key) ? t(key) : gameInfo(id)?.name || id;
}

/** The display names of the seats, by seat index. */
export function seatNames() {
  const names = [];
  for (const s of app.lobby?.seats || []) {
    const o = s.occupant;
    names[s.seat] = o.kind === "empty" ? t("common.seat", { n: s.seat + 1 }) : o.name;
  }
  return names;
}

// ---- notices -------------------------------------------------------------------------------------------------

/**
 * Shows a message in plain words. Errors stay until dismissed or replaced; information fades by itself. `text` may
 * be a function giving the words, so that a change of language rewords a message still showing.
 */
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
  announce(noticeText(app.notice));
}

/** A notice's words in the page's language now. */
function noticeText(notice) {
  return typeof notice.text === "function" ? notice.text() : notice.text;
}

export function showError(error) {
  const e = error instanceof ServerError ? error : new ServerError("internal", String(error));
  if (servedElsewhere(e)) {
    reconnectElsewhere(e);
    return;
  }
  // A stale version is cured by the update already on its way: say so briefly.
  notify(() => errorWords(e), e.code === "stale_version" ? { timeout: 6000 } : {});
}

/**
 * Cluster mode: the server this page reached no longer serves the game (`moved`), or cannot reach the one that does
 * (`forward_unavailable`): either way, another connection (through the balancer, to any node) will.
 */
function servedElsewhere(e) {
  return e.code === "moved" || e.code === "forward_unavailable";
}

/**
 * Cluster mode: the server this page reached no longer serves the game (`moved`). As for a restarting server, say so
 * until the connection is back, then reconnect (through the balancer, waiting longer after each such refusal in a
 * row) and resume the seat or the watch.
 */
function reconnectElsewhere(e) {
  notify(() => errorWords(e), { kind: "connection", timeout: 24 * 3600 * 1000 });
  app.conn.reconnectElsewhere();
}

function clearNotice() {
  app.notice = null;
  renderNotice();
}

// ---- requests ------------------------------------------------------------------------------------------------

export async function createLobby({ game, options, seats, name, turnTimerMs, absent, pace }) {
  store.rememberName(name);
  const reply = await app.conn.request("create_lobby", {
    game,
    options,
    seats,
    name,
    turn_timer_ms: turnTimerMs || null,
    absent: absent || { policy: "wait", grace_ms: 0 },
    pace: pace || { kind: "live" },
  });
  seated(reply);
}

export async function joinLobby(code, name) {
  store.rememberName(name);
  const reply = await app.conn.request("join_lobby", { code, name });
  seated(reply);
}

/**
 * Watches lobby `code` (`key`: its watch token, from a replay link) under `name`, or the name last used (the players
 * see it); a spectator who was already watching, or whose log this browser kept, asks only for what it missed.
 */
export async function spectate(code, key = null, name = null) {
  if (name) store.rememberName(name);
  const reply = await app.conn.request("spectate", spectateFields(code, key, name || store.playerName() || null));
  app.conn.settled();
  const again = app.session?.spectator && app.session.code === reply.code;
  app.session = { code: reply.code, seat: null, host: false, spectator: true, key, name: name || store.playerName() || null };
  app.route = { kind: "watch", code: reply.code, key };
  if (!again) app.log = store.logFor(reply.code);
  app.peek = null;
  setHash(key ? `#watch=${reply.code}&key=${key}` : `#watch=${reply.code}`);
  adoptEarlyPushes();
  render();
}

/** A `spectate` request's fields: the last version seen (on screen, or in the kept log) brings only what was missed
 * since, none brings the match's history the server keeps. */
function spectateFields(code, key, name) {
  const fields = { code };
  if (key) fields.watch = key;
  if (name) fields.name = name;
  const versions = (app.state && app.state.code === code ? [app.state] : store.logFor(code)).map((e) => e.version);
  const seen = versions.filter((v) => typeof v === "number");
  if (seen.length) fields.last_version = Math.max(...seen);
  return fields;
}

function seated(reply) {
  app.conn.settled();
  store.rememberSeat(reply.code, reply.seat, reply.seat_token);
  app.session = { code: reply.code, seat: reply.seat, host: reply.host, spectator: false };
  app.route = { kind: "join", code: reply.code };
  app.log = store.logFor(reply.code);
  app.awayReport = store.awayFor(reply.code);
  app.wantFocus = true;
  app.peek = null;
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
  app.returning = null;
  app.standIn = null;
  app.awayReport = null;
  app.awayOpen = false;
  app.catchUp = null;
  app.notifyPanel = null;
  resetChat();
}

/** The seat's notification panel (notify.js): one element per lobby, kept across renders so that its state and
 * whether it is open survive them. */
function notifyElement() {
  const code = app.session?.code;
  if (!code) return null;
  if (app.notifyPanel?.code !== code) app.notifyPanel = { code, ...notifyPanel(request) };
  return app.notifyPanel.element;
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
  if (!app.conn.ready) {
    notify(t("state.offline.cannot_act"), { kind: "info" });
    return;
  }
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

/** Asks for the player's tables (inbox.js), once the connection is ready and every minute. */
let refreshTables = () => {};

async function onReady(welcome) {
  if (typeof welcome.server_time === "number") clock.offset = welcome.server_time - Date.now();
  clearNoticeIfConnection();
  try {
    if (app.session && app.session.spectator) {
      await app.conn.request("spectate", spectateFields(app.session.code, app.session.key, app.session.name));
      app.conn.settled();
    } else if (app.session) {
      await resume(app.session.code);
    } else if (app.route.kind === "join" && store.seatFor(app.route.code)) {
      await resume(app.route.code);
    } else if (app.route.kind === "join" && app.peek?.code !== app.route.code) {
      await peekLobby(app.route.code);
    } else if (app.route.kind === "watch") {
      await spectate(app.route.code, app.route.key);
    }
  } catch (e) {
    if (e instanceof ServerError && e.code === "connection_lost") return; // the next connection retries
    if (e instanceof ServerError && servedElsewhere(e)) {
      // Another server serves the game now (or cannot be reached from this one): keep the seat and resume it
      // through another connection.
      reconnectElsewhere(e);
      return;
    }
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
  refreshTables();
}

/**
 * A shared link to a lobby this browser holds no seat in: look at the lobby before showing the join form, so that a
 * started or finished game says so (and offers to watch) before anyone types a name. The look is a spectate and a
 * leave at once; the lobby's phase comes in the `lobby` push.
 */
async function peekLobby(code) {
  const peek = { code, checking: true };
  app.peek = peek;
  render();
  const seen = new Promise((resolve) => {
    peek.waiting = resolve;
    setTimeout(() => resolve(null), 4000);
  });
  if (early.lobby && early.lobby.code === code) early.lobby = null;
  try {
    await app.conn.request("spectate", { code });
    app.conn.settled();
    const lobby = early.lobby && early.lobby.code === code ? early.lobby : await seen;
    await app.conn.request("leave").catch(() => {});
    if (app.peek !== peek) return;
    const host = lobby?.seats.find((s) => s.seat === lobby.host)?.occupant;
    // A lobby that could not be seen is offered as it is (`unseen`: the form, and the join says what is wrong).
    // `full`: every seat is taken, so a join could only be refused; the page says so before the form.
    const full = lobby ? lobby.seats.every((s) => s.occupant.kind !== "empty") : false;
    // `free` and `seats` word the invitation ("1 of 2 seats free").
    const free = lobby ? lobby.seats.filter((s) => s.occupant.kind === "empty").length : 0;
    app.peek = lobby
      ? { code, phase: lobby.phase, game: lobby.game, host: host?.name || null, full, free, seats: lobby.seats.length }
      : { code, unseen: true };
  } catch (e) {
    if (app.peek !== peek) return;
    const lost = e instanceof ServerError && e.code === "connection_lost";
    const elsewhere = e instanceof ServerError && servedElsewhere(e);
    if (e instanceof ServerError && e.code === "unknown_lobby") app.peek = { code, missing: true };
    // Looked at again from the next connection (`onReady`); any other refusal offers the form as it is.
    else app.peek = lost || elsewhere ? null : { code, unseen: true };
    // Another server serves the lobby now: look again from there.
    if (elsewhere) reconnectElsewhere(e);
  } finally {
    if (early.state && early.state.code === code) early.state = null;
    if (early.lobby && early.lobby.code === code) early.lobby = null;
    if (!app.session) resetChat();
  }
}

async function resume(code) {
  const saved = store.seatFor(code);
  if (!saved) throw new ServerError("unauthorized", "no seat token");
  const lastVersion = app.state && app.state.code === code ? app.state.version : saved.lastVersion;
  // The state pushed on resuming carries what was played meanwhile (it may arrive before the reply).
  app.returning = code;
  returningFrom = typeof lastVersion === "number" ? lastVersion : null;
  let reply;
  try {
    reply = await app.conn.request("resume", {
      code,
      token: saved.token,
      last_version: lastVersion ?? null,
    });
  } catch (e) {
    app.returning = null;
    throw e;
  }
  app.conn.settled();
  const wasIn = app.session?.code === reply.code;
  app.session = { code: reply.code, seat: reply.seat, host: reply.host, spectator: false };
  if (!wasIn) {
    app.log = store.logFor(reply.code);
    app.awayReport = store.awayFor(reply.code);
    app.wantFocus = true;
  }
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
    app.notice = { text: () => errorWords({ code: "connection_lost" }), kind: "connection", id: "conn" };
    renderNotice();
  }
  if (status === "open") clearNoticeIfConnection();
  renderStatus();
  applyConnection();
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
    case "away":
      onAway(message);
      break;
    case "notify_changed":
      if (message.code === app.session?.code) app.notifyPanel?.update(message.endpoints);
      break;
    default:
      break;
  }
}

function onLobby(lobby) {
  early.lobby = lobby;
  if (app.peek && app.peek.waiting && lobby.code === app.peek.code) app.peek.waiting(lobby);
  if (!app.session || lobby.code !== app.session.code) return;
  // At a rematch's table, a player's first connection is an arrival, not a return ("Bo is back."): they never left.
  const arrivals = app.arrivals?.code === lobby.code ? app.arrivals.seen : null;
  const changes = lobbyChanges(app.lobby, lobby, app.session.seat, arrivals);
  if (arrivals) for (const s of lobby.seats) if (s.occupant.connected) arrivals.add(s.seat);
  for (const say of changes) addLog({ say, kind: "lobby", version: null });
  if (changes.length) announce(changes.map((say) => messageWords(say)).join(". "));
  const opened = !app.lobby || app.lobby.code !== lobby.code;
  app.lobby = lobby;
  if (app.session.seat !== null) app.session.host = lobby.host === app.session.seat;
  trackStandIn(lobby);
  if (opened) app.wantFocus = true;
  render();
}

/** A bot stands in for this seat while its player is still here (their turn timer ran out): collect what it plays,
 * one entry per change that shows this seat's own move, and tell the player when they have the seat back. (A
 * player who was away hears it from the server instead: `onAway`.) */
function trackStandIn(lobby) {
  const me = app.session?.spectator ? null : app.session?.seat;
  if (me === null || me === undefined) return;
  const occupant = lobby.seats.find((s) => s.seat === me)?.occupant;
  const stood = occupant?.kind === "human" && !!occupant.stand_in;
  if (stood && !app.standIn) {
    const state = app.state && app.state.code === lobby.code ? app.state : null;
    // The timer's move that started it came before (its state push precedes this lobby push): what follows is
    // the stand-in's, or the skip's.
    const by = lobby.absent?.policy === "skip" ? "skip" : "stand_in";
    app.standIn = { game: lobby.game, since: state?.version ?? 0, before: state?.view ?? null, by, actions: [] };
  }
  if (!stood && app.standIn) {
    const s = app.standIn;
    app.standIn = null;
    reportAway({
      game: s.game,
      seat: me,
      since: s.since,
      version: app.state?.version ?? s.since,
      actions: s.actions,
      then: standing(s.game, s.before, me),
      now: standing(s.game, app.state?.view, me),
    });
  }
}

/** Whether an event is something this seat did (its moves), as opposed to news about it (its turn starting). */
function playedBy(event, seat) {
  return event && event.seat === seat && !/(^|_)turn(_|$)|^game_over$/.test(String(event.type || ""));
}

/** The server's report of what was played for this seat after the version the player last saw (the `away` push
 * after `resumed`): the seat's own actions from the stored log, each with who made it, and the seat's view then. */
function onAway(report) {
  const session = app.session;
  if (!session || report.code !== session.code) {
    // It may come before the `resumed` reply has set the session up (`adoptEarlyPushes`).
    earlyAway = report;
    return;
  }
  if (session.spectator || report.seat !== session.seat) return;
  if (awayDue === report.code) {
    awayDue = null;
    if (app.state && app.state.code === report.code) store.rememberVersion(report.code, app.state.version);
  }
  const game = app.state?.game || app.lobby?.game;
  const now = app.state && app.state.match_id === report.match_id ? app.state.view : null;
  if (Array.isArray(report.moves) && report.moves.length) {
    app.catchUp = { game, since: report.since, version: report.version, moves: report.moves, leftOut: report.moves_left_out || 0 };
  }
  reportAway({
    game,
    seat: report.seat,
    since: report.since,
    version: report.version,
    actions: report.actions.map((a) => ({ seq: a.seq, by: a.by, action: a.action, events: a.events })),
    then: standing(game, report.before, report.seat),
    now: standing(game, now, report.seat),
  });
}

/** An `away` push that came before the session it belongs to was set up. */
let earlyAway = null;
/** The version a resume asked to be told about (its `last_version`), and the lobby whose `away` report is still
 * due: until it comes, the version kept for a reload is not moved on (see `onState`). */
let returningFrom = null;
let awayDue = null;

function adoptEarlyAway(code) {
  const report = earlyAway;
  earlyAway = null;
  if (report && report.code === code) onAway(report);
}

/** Shows a report of what was played for this seat (a panel above the board, and a line in the log); nothing when
 * nothing was played for it. */
function reportAway(report) {
  if (!report.actions.length) {
    render();
    return;
  }
  // A report not yet dismissed that ends where this one starts is continued.
  const old = app.awayReport;
  if (old && old.game === report.game && old.seat === report.seat && old.version <= report.since) {
    report = { ...report, since: old.since, actions: [...old.actions, ...report.actions], then: old.then };
  }
  app.awayReport = report;
  app.awayOpen = false;
  const summary = { key: "state.away.logged", params: { n: report.actions.length } };
  addLog({ say: summary, kind: "away", version: report.version });
  if (app.session?.code) store.rememberAway(app.session.code, app.awayReport);
  const change = thenNowWords(report.then, report.now);
  announce([...awayHeadings(report), change].filter(Boolean).join(" "));
  render();
}

/** Who played how many of the report's moves, in the order they first played: one sentence each. */
function awayHeadings(report) {
  const counts = new Map();
  for (const a of report.actions) counts.set(a.by, (counts.get(a.by) || 0) + 1);
  return [...counts].map(([by, n]) => t(hasKey(`state.away.by.${by}`) ? `state.away.by.${by}` : "state.away.summary", { n }));
}

/** One action of the report as a sentence: the events of this seat's own move (as the log says them), else the
 * game screen's label of the action, else any of its events. */
function awayLine(a, game, ctx) {
  const screen = screenFor(game);
  const described = (events) => (events || []).map((e) => yourWords(screen.describe(e, ctx))).filter(Boolean);
  let words = described((a.events || []).filter((e) => playedBy(e, ctx.me)));
  if (!words.length && a.action && screen.actionLabel) {
    const label = screen.actionLabel(a.action, ctx.view);
    if (typeof label === "string" && label) words = [t("state.away.chose", { action: label })];
  }
  if (!words.length) words = described(a.events);
  if (!words.length) words = [t("state.away.some_move")];
  return words.join(" ");
}

function onState(update) {
  early.state = update;
  if (!app.session || update.code !== app.session.code) return;
  const previous = app.state;
  if (previous && previous.match_id === update.match_id && update.version < previous.version) return;
  if (typeof update.server_time === "number") clock.offset = update.server_time - Date.now();
  // A correspondence clock's `left_ms` is as of this push: kept with the time it came, for the countdown.
  update.clocksAt = serverNow();
  app.state = update;
  // A resume from an older version is followed by the server's `away` report (`onAway`): the version kept for a
  // reload stays the one the player last saw until the report has come, so that a reload meanwhile (or a page
  // closed at once) asks for the same report again instead of losing it.
  if (app.returning === update.code && returningFrom !== null && returningFrom < update.version) awayDue = update.code;
  if (!app.session.spectator && awayDue !== update.code) store.rememberVersion(update.code, update.version);
  const screen = screenFor(update.game);
  const ctx = context();
  const texts = [];
  // What was played for this seat while the player was away comes in the `away` push after this state
  // (`onAway`); while a bot stands in with the player here, each change that shows its move is collected.
  if (app.returning === update.code) app.returning = null;
  const me = ctx.me;
  // A spectator arriving mid-match gets the moves the server still keeps: say where its log starts.
  if (!previous && app.session.spectator && update.since > 0 && update.since < update.version && !app.log.some((e) => e.kind === "game")) {
    addLog({ say: { key: "state.log.from_move", params: { n: update.since + 1 } }, kind: "info", version: update.since });
  }
  if (update.since < update.version) {
    for (const event of update.events) {
      const text = yourWords(screen.describe(event, ctx));
      if (text) {
        const say = { game: update.game, event };
        texts.push(text);
        addLog({ say, kind: "game", version: update.version, seat: event.seat });
      }
    }
    const s = app.standIn;
    if (s && me !== null && update.events.some((e) => playedBy(e, me))) {
      s.actions.push({ seq: update.version, by: s.by, action: null, events: update.events });
    }
  } else if (!previous) {
    addLog({ say: { key: "state.log.current_position" }, kind: "info", version: update.version });
  } else {
    addLog({ say: { key: "state.log.resynced" }, kind: "info", version: update.version });
  }
  // The end of the match is logged after its last moves (the lobby push that says so comes before them).
  const ended = update.outcome && !(previous && previous.match_id === update.match_id && previous.outcome);
  if (ended && update.since < update.version) {
    addLog({ say: { outcome: update.outcome }, kind: "lobby", version: update.version });
    texts.push(yourWords(outcomeWords(update.outcome, ctx)));
  }
  if (texts.length) announce(texts.slice(-3).join(" "));
  // A push that gives this seat a decision it did not have moves focus to it.
  const decision = update.legal_actions.length > 0;
  const hadDecision = !!previous && previous.match_id === update.match_id && previous.legal_actions.length > 0;
  if (decision && !hadDecision) app.wantFocus = true;
  if (ended) app.wantFocus = true;
  render();
}

/** "The game is over: Ann wins." (with the tie-break when the winner was level on points). */
function outcomeWords(outcome, ctx) {
  const winners = outcome.winners.map((s) => ctx.name(s));
  const tie = tieBroken(outcome);
  if (!winners.length) return t("state.log.over");
  const who = ctx.me !== null && outcome.winners.includes(ctx.me) && winners.length === 1 ? t("state.outcome.you_win") : t("state.outcome.wins", { names: listOf(winners), n: winners.length });
  return `${t("state.log.over")} ${who}${tie ? ` ${t("state.outcome.tie_broken", { score: tie.score })}` : ""}`;
}

/** When the winner's score is shared by a seat placed behind: { score }, the tie the game's rule broke. */
function tieBroken(outcome) {
  const scores = outcome.scores || [];
  for (const w of outcome.winners) {
    const level = scores.some((score, seat) => score === scores[w] && outcome.placings[seat] > outcome.placings[w]);
    if (level) return { score: scores[w] };
  }
  return null;
}

/** A rematch offer of this lobby, or an answer to it. */
function onRematch(offer) {
  if (!app.session || offer.code !== app.session.code) return;
  const before = app.rematch;
  app.rematch = offer;
  // An offer that arrives already started (at a finished table after a server restart) was asked for long ago.
  if (!before && !offer.new_code) {
    const say = { key: "common.rematch.asks", params: { name: seatNames()[offer.requested_by] || { key: "common.someone" } } };
    addLog({ say, kind: "lobby", version: null });
    announce(messageWords(say));
  }
  if (app.session.spectator && offer.new_code && !before?.new_code) {
    // Spectators stay on the finished table: offer them the rematch's.
    const say = { key: "state.rematch.spectator_offer", params: { code: offer.new_code } };
    addLog({ say, kind: "lobby", version: null });
    announce(messageWords(say));
    app.wantFocus = true;
  } else if (!app.session.spectator && offer.new_code && !before?.new_code) {
    // A player who is not in it (declined, or back after it started): offered to watch it, or to take the seat
    // this browser holds in it.
    const say = { key: "common.rematch.started", params: { code: offer.new_code } };
    addLog({ say, kind: "lobby", version: null });
    announce(messageWords(say));
    app.wantFocus = true;
  }
  render();
}

/** A spectator of a finished table moves on to watch its rematch. */
function watchRematch(code) {
  resetSession();
  app.arrivals = { code, seen: new Set() };
  app.route = { kind: "watch", code };
  setHash(`#watch=${code}`);
  render();
  if (app.conn.ready) spectate(code).catch(showError);
}

/** A player back at a finished table whose rematch started with a seat for them (its token is in this browser). */
function playRematch(code) {
  resetSession();
  app.route = { kind: "join", code };
  setHash(`#join=${code}`);
  render();
  if (app.conn.ready) resume(code).then(render, showError);
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
  app.arrivals = { code: message.code, seen: new Set() };
  try {
    await resume(message.code);
    addLog({ say: { key: "common.rematch.begun" }, kind: "lobby", version: null });
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
    notify(() => errorWords(message), { timeout: 60_000 });
    return;
  }
  if (message.code === "session_replaced") {
    app.conn.stop();
    app.notice = { text: () => errorWords(message), kind: "replaced", id: "replaced" };
    render();
    return;
  }
  // Stays until the connection is back (see onStatus).
  notify(() => errorWords(message), { kind: "connection", timeout: 24 * 3600 * 1000 });
}

/**
 * A log line's words in the page's language now. `say` is a game's event (`{ game, event }`, worded by its screen's
 * `describe`), a match's end (`{ outcome }`) or a catalogue message (`{ key, params }`).
 */
function logWords(say, ctx) {
  if (!say) return "";
  if (say.event) return yourWords(screenFor(say.game).describe(say.event, ctx)) || "";
  if (say.outcome) return yourWords(outcomeWords(say.outcome, ctx));
  return messageWords(say);
}

/** A catalogue message `{ key, params }` in words; a parameter that is itself such a message is worded first. */
function messageWords(m) {
  const params = {};
  for (const [name, value] of Object.entries(m.params || {})) {
    params[name] = value && typeof value === "object" && typeof value.key === "string" ? messageWords(value) : value;
  }
  return t(m.key, params);
}

function addLog(entry) {
  app.log.unshift(entry);
  if (app.log.length > LOG_LIMIT) app.log.length = LOG_LIMIT;
  // Kept per lobby in this browser, so that a reload shows it again.
  if (app.session?.code) store.rememberLog(app.session.code, app.log);
}

/** What a game screen gets: the state, names and the means to act. */
export function context() {
  return screenContext({
    state: app.state,
    names: seatNames(),
    me: app.session?.spectator ? null : (app.session?.seat ?? null),
    act,
    log: app.log,
    lobby: app.lobby,
    options: app.lobby?.options || {},
    /** Redraws the screen after a change that stays on this page (a choice not yet sent). */
    rerender: render,
  });
}

// ---- rendering -----------------------------------------------------------------------------------------------

export function render() {
  // A pending move of focus waits until the lobby or game it points to is on screen.
  const ready = !!(app.session && app.lobby && (app.lobby.phase === "open" || app.state));
  const decide = app.wantFocus && ready;
  if (decide) app.wantFocus = false;
  keepFocus(
    () => {
      renderStatus();
      renderNotice();
      const main = document.getElementById("main");
      main.replaceChildren(currentScreen());
      // A shared link's open lobby names itself in the tab: who invites to which game.
      // With a badge of the other tables waiting on the player ("(2) Tabletop").
      document.title = badgedTitle(pageTitle(app) || t("common.page_title"), app.session?.code);
      applyConnection();
    },
    { decide },
  );
}

/** The connection is not usable: from the first attempt until the handshake, and while reconnecting. */
export function offline() {
  return !app.conn || !app.conn.ready;
}

/**
 * While disconnected every control that asks something of the server is disabled (and enabled again on
 * reconnection), and the players' presence shows as unknown: what the server last said may no longer hold.
 * Leaving for the start page, dismissing a notice and typing stay possible.
 */
function applyConnection() {
  const main = document.getElementById("main");
  if (!main) return;
  const down = offline();
  const wasDown = document.body.dataset.connection === "offline";
  document.body.dataset.connection = down ? "offline" : "online";
  for (const el of main.querySelectorAll("[data-offline-disabled]")) {
    if (!down) {
      el.removeAttribute("data-offline-disabled");
      if ("disabled" in el) el.disabled = false;
      else el.removeAttribute("aria-disabled");
    }
  }
  if (down) {
    const controls = main.querySelectorAll("button, select, input[type=checkbox], input[type=radio], [data-act]");
    for (const el of controls) {
      if (el.matches("[data-key=home], [data-key=new-game], [data-key=leave], [data-stays-online]")) continue;
      if ("disabled" in el) {
        if (el.disabled) continue;
        el.disabled = true;
      } else {
        if (el.getAttribute("aria-disabled") === "true") continue;
        el.setAttribute("aria-disabled", "true");
      }
      el.setAttribute("data-offline-disabled", "");
    }
    for (const tag of main.querySelectorAll(".presence")) {
      tag.className = "tag presence presence-unknown";
      tag.dataset.presence = "unknown";
      tag.textContent = t("state.presence.unknown");
      tag.title = t("state.presence.unknown_hint");
    }
    // The control that had focus is disabled now: keep focus on the screen (its headline), not the page.
    const active = document.activeElement;
    if (app.lobby && (focusLost() || active?.hasAttribute("data-offline-disabled"))) focusDecision(main);
  } else if (wasDown && app.state && !isTyping()) {
    // Back online: a decision that waited gets focus again, unless the player moved on to something else.
    const active = document.activeElement;
    if (focusLost() || active === main || active?.id === "headline") focusDecision(main);
  }
}

function currentScreen() {
  if (app.session && app.lobby) {
    if (app.lobby.phase === "open") return markLobbyDecision(renderLobby(app));
    if (app.state) return renderGame();
    return h("section", { class: "panel" }, h("p", {}, t("common.loading_game")));
  }
  if (app.session) return h("section", { class: "panel" }, h("p", {}, t("common.loading")));
  if (app.route.kind === "join" && !store.seatFor(app.route.code)) return renderJoin(app, app.route.code, app.peek);
  if (app.route.kind === "watch" && app.connection.status !== "open") {
    return h("section", { class: "panel" }, h("p", {}, t("common.conn.connecting")));
  }
  return renderHome(app);
}

/** The lobby's next step for focus: start when everyone is there, else add a bot, else share the link. */
function markLobbyDecision(screen) {
  const next = ["[data-key=start]:not([disabled])", "[data-key=add-bot]", "[data-key=copy-link]"]
    .map((selector) => screen.querySelector(selector))
    .find(Boolean);
  if (next) next.setAttribute("data-decision", "");
  return screen;
}

function renderStatus() {
  const el = document.getElementById("conn");
  if (!el) return;
  const { status } = app.connection;
  el.dataset.status = status;
  el.textContent = t(`common.conn.${status}`);
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
  const children = [h("p", {}, noticeText(app.notice))];
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
        t("common.play_here"),
      ),
    );
  } else if (app.notice.kind !== "connection") {
    children.push(
      h("button", { type: "button", class: "quiet", "aria-label": t("common.dismiss"), onclick: clearNotice }, "×"),
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
    rulesButton(state.game, describeGame),
    h(
      "p",
      { class: "game-meta" },
      t("common.meta.game", { code: app.session.code }),
      " · ",
      ctx.spectator
        ? t("common.meta.watching")
        : h("span", {}, tParts("common.meta.you_are", { seat: seatLabel(ctx.me, ctx.names[ctx.me] || t("common.you_tag")) })),
      " · ",
      t("common.meta.move", { n: state.version }),
    ),
  );
  const parts = [header];
  if (app.catchUp && app.catchUp.game === state.game) parts.push(renderCatchUp());
  if (app.awayReport) parts.push(renderAwayReport());
  if (state.outcome) parts.push(renderOutcome(state, ctx));
  parts.push(h("p", { class: "headline", id: "headline", tabindex: "-1" }, yourWords(screen.headline ? screen.headline(ctx) : headline(ctx))));
  if (state.turn_deadline && !state.outcome) {
    parts.push(
      h(
        "p",
        { class: "turn-timer" },
        tParts("common.turn_timer", {
          time: countdown(state.turn_deadline, { label: t("common.turn_timer_label") }),
        }),
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
      !ctx.spectator && notifyElement(),
      renderLog(),
      h(
        "div",
        { class: "side-actions" },
        h("button", { type: "button", class: "quiet", onclick: goHome, "data-key": "home" }, t("common.home")),
      ),
    ),
  );
  parts.push(layout);
  return h("section", { class: "game", "data-game": state.game }, parts);
}

/**
 * Screens name the viewer "You" (`common.you`, in the page's language) where they would name another player; this
 * mends what that leaves: in English the possessive "You's" becomes "Your"/"your", and a verb agreeing with a third
 * person ("You scores", "You has") agrees with "you" ("You score", "You have"); in every language the word is in
 * small letters unless it starts a sentence ("Game over: Bo and you share the victory", "Ty i Bo").
 */
export function yourWords(text) {
  if (!text) return text;
  let mended = text.replace(/(^|[.!?:]\s+)You's\b/g, "$1Your").replace(/\bYou's\b/g, "your");
  if (lang() === "en") mended = mended.replace(/\bYou ([a-z]+s)\b/g, (whole, verb) => `You ${secondPerson(verb)}`);
  return youInSentence(mended);
}

/** The viewer's name in small letters where it does not start the text or a sentence. */
function youInSentence(text) {
  const you = t("common.you");
  const small = you.toLocaleLowerCase(lang());
  if (you === small) return text;
  const word = new RegExp(`(?<!\\p{L})${you.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?!\\p{L})`, "gu");
  return text.replace(word, (found, at) => (/(^|[.!?]\s+)$/.test(text.slice(0, at)) ? found : small));
}

const IRREGULAR = { has: "have", is: "are", was: "were", does: "do", goes: "go" };
const NOT_VERBS = new Set(["always", "perhaps", "thus", "sometimes", "plus", "less", "across", "towards", "afterwards", "as", "us", "yes"]);

/** "scores" → "score", "passes" → "pass", "carries" → "carry"; a word that is not such a verb stays. */
function secondPerson(verb) {
  if (IRREGULAR[verb]) return IRREGULAR[verb];
  if (NOT_VERBS.has(verb) || /(ss|us|is)$/.test(verb)) return verb;
  if (/[^aeiou]ies$/.test(verb)) return `${verb.slice(0, -3)}y`;
  if (/(sses|shes|ches|xes|zes|oes)$/.test(verb)) return verb.slice(0, -2);
  return verb.slice(0, -1);
}

/** "Your turn", "Ann's turn", "Waiting for Ann and Bo", "Game over". */
export function headline(ctx) {
  const status = ctx.state.status;
  switch (status.kind) {
    case "turn":
      return status.seat === ctx.me ? t("common.your_turn") : t("common.turn_of", { name: ctx.name(status.seat) });
    case "simultaneous": {
      const who = status.seats.map((s) => ctx.name(s));
      return who.length ? t("common.waiting_for", { names: listWords(who) }) : t("common.everyone_ready");
    }
    case "race":
      return t("common.race");
    case "over":
      return t("common.game_over");
    default:
      return "";
  }
}

/** What a seat is doing now, from the status alone. */
export function activity(ctx, seat) {
  const status = ctx.state.status;
  switch (status.kind) {
    case "turn":
      return status.seat === seat ? t("common.doing.to_play") : "";
    case "simultaneous":
      if (!status.seats.includes(seat)) return t("common.doing.ready");
      return status.secret ? t("common.doing.planning") : t("common.doing.deciding");
    case "race":
      return status.seats.includes(seat) ? t("common.doing.may_claim") : "";
    case "over": {
      const placing = ctx.state.outcome?.placings?.[seat];
      return placing ? ordinal(placing) : "";
    }
    default:
      return "";
  }
}

/** "1st", "2nd" in the page's language. */
export function ordinal(n) {
  return ordinalWords(n);
}

/** Whether a seat is the one expected to act now (its player row is highlighted). */
function isActive(ctx, seat) {
  const status = ctx.state.status;
  if (status.kind === "turn") return status.seat === seat;
  return status.kind === "simultaneous" && status.seats.includes(seat);
}

function renderPlayers(ctx, screen) {
  const seats = app.lobby?.seats || [];
  // Who is watching, during the match too (the players see the names spectators gave).
  const watchers = watchersText(app.lobby);
  return h(
    "section",
    { class: "players", "aria-labelledby": "players-h" },
    h("h2", { id: "players-h" }, t("common.players")),
    h(
      "ul",
      {},
      seats.map((s) => {
        const o = s.occupant;
        const doing = activity(ctx, s.seat);
        const extra = screen.playerInfo ? screen.playerInfo(s.seat, ctx) : null;
        return h(
          "li",
          { class: `player${isActive(ctx, s.seat) ? " active" : ""}`, "data-seat": s.seat },
          seatLabel(s.seat, ctx.names[s.seat], { you: s.seat === ctx.me }),
          o.kind === "bot" ? h("span", { class: "tag" }, t("common.bot")) : null,
          presenceTag(o),
          standInTag(s),
          doing ? h("span", { class: "doing" }, doing) : null,
          seatClock(s.seat, ctx),
          extra ? h("div", { class: "player-extra" }, extra) : null,
        );
      }),
    ),
    watchers ? h("p", { class: "hint watchers", "data-key": "watchers" }, watchers) : null,
  );
}

/** A correspondence seat's clock in the players panel: the time left (counting down while it runs), a vacation,
 * and for the player's own seat the button that pauses or resumes their clock. */
function seatClock(seat, ctx) {
  const clocks = app.state?.clocks;
  const c = Array.isArray(clocks) ? clocks.find((x) => x.seat === seat) : null;
  if (!c) return null;
  const deadline = c.running ? (app.state.clocksAt || serverNow()) + c.left_ms : null;
  const left = deadline ? deadline - serverNow() : c.left_ms;
  const parts = [
    h(
      "span",
      { class: "seat-clock", "data-key": `clock-${seat}`, "data-clock-deadline": deadline ?? null, "data-running": String(c.running) },
      t(c.running ? "state.clock.running" : "state.clock.left", { time: longDuration(left) }),
    ),
  ];
  if (c.vacation_until) parts.push(" ", h("span", { class: "tag" }, t("state.clock.vacation", { until: new Date(c.vacation_until).toLocaleString(lang()) })));
  if (seat === ctx.me && !ctx.spectator && !app.state.outcome) {
    parts.push(
      " ",
      c.vacation_until
        ? h("button", { type: "button", class: "quiet", "data-key": "end-vacation", onclick: () => request("end_vacation", {}) }, t("state.vacation.end"))
        : h("button", { type: "button", class: "quiet", "data-key": "vacation", onclick: () => request("vacation", { days: 1 }) }, t("state.vacation.take")),
    );
  }
  return h("div", { class: "seat-clock-line" }, parts);
}

// Running correspondence clocks count down between pushes (to the minute).
setInterval(() => {
  for (const el of document.querySelectorAll("[data-clock-deadline]")) {
    el.textContent = t("state.clock.running", { time: longDuration(Number(el.dataset.clockDeadline) - serverNow()) });
  }
}, 15_000);

function renderLog() {
  const ctx = context();
  return h(
    "section",
    { class: "log", "aria-labelledby": "log-h" },
    h("h2", { id: "log-h" }, t("common.log.title")),
    h(
      "ol",
      { class: "log-list", "aria-live": "off" },
      app.log.slice(0, 60).map((e) => h("li", { class: `log-${e.kind}`, "data-seat": e.seat ?? null }, logWords(e.say, ctx))),
    ),
  );
}

/** How many moves an away report lists before "Show all". */
const AWAY_SHOWN = 8;

/** What was played for this seat while its player was away, until they dismiss it: who played how many moves, the
 * standing then and now, and one line per move, newest first like the log. */
/** "Since your last look": every move after the version this seat last saw, oldest first, in the words its
 * events give this seat (another seat's action itself is never shown: the server sends only what this seat may
 * know). Shown before the board until dismissed. */
function renderCatchUp() {
  const report = app.catchUp;
  const ctx = context();
  const screen = screenFor(report.game);
  const who = (m) =>
    m.seat === null || m.seat === undefined ? t("state.catch_up.clock") : m.seat === ctx.me ? t("common.you") : ctx.names[m.seat] || t("common.seat", { n: m.seat + 1 });
  const line = (m) => {
    const words = (m.events || []).map((e) => yourWords(screen.describe(e, ctx))).filter(Boolean);
    return h(
      "li",
      { "data-seq": m.seq, "data-seat": m.seat ?? "" },
      t("state.catch_up.line", { n: m.seq, who: who(m), what: words.length ? words.join(" ") : t("state.away.some_move") }),
    );
  };
  return h(
    "section",
    { class: "away-report catch-up", role: "status", "aria-labelledby": "catch-up-h", "data-key": "catch-up" },
    h("h2", { id: "catch-up-h" }, t("state.catch_up.title", { n: report.moves.length + report.leftOut })),
    report.leftOut ? h("p", { class: "hint" }, t("state.catch_up.left_out", { n: report.leftOut })) : null,
    h("ol", { "data-key": "catch-up-list" }, report.moves.map(line)),
    h(
      "button",
      {
        type: "button",
        class: "quiet",
        "data-key": "catch-up-ok",
        "data-stays-online": "",
        onclick: () => {
          app.catchUp = null;
          render();
        },
      },
      t("state.away.dismiss"),
    ),
  );
}

function renderAwayReport() {
  const report = app.awayReport;
  const ctx = context();
  const newest = report.actions.slice().reverse();
  const shown = app.awayOpen ? newest : newest.slice(0, AWAY_SHOWN);
  const makers = new Set(report.actions.map((a) => a.by));
  const change = thenNowWords(report.then, report.now);
  const line = (a) => {
    const what = awayLine(a, report.game, ctx);
    const who = makers.size > 1 && hasKey(`state.away.who.${a.by}`) ? t(`state.away.who.${a.by}`) : null;
    return h(
      "li",
      { "data-seq": a.seq, "data-by": a.by },
      who ? t("state.away.line_by", { n: a.seq, who, what }) : t("state.away.line", { n: a.seq, what }),
    );
  };
  return h(
    "section",
    { class: "away-report", role: "status", "aria-labelledby": "away-h", "data-key": "away-report" },
    h("h2", { id: "away-h" }, t("state.away.title")),
    awayHeadings(report).map((text) => h("p", { "data-key": "away-by" }, text)),
    change ? h("p", { "data-key": "away-then-now" }, change) : null,
    h("ol", { "data-key": "away-list" }, shown.map(line)),
    newest.length > AWAY_SHOWN
      ? h(
          "button",
          {
            type: "button",
            class: "quiet",
            "data-key": "away-all",
            "data-stays-online": "",
            "aria-expanded": app.awayOpen ? "true" : "false",
            onclick: () => {
              app.awayOpen = !app.awayOpen;
              render();
            },
          },
          app.awayOpen ? t("state.away.show_fewer") : t("state.away.show_all", { n: newest.length }),
        )
      : null,
    h(
      "button",
      {
        type: "button",
        class: "quiet",
        "data-key": "away-ok",
        "data-stays-online": "",
        onclick: () => {
          app.awayReport = null;
          app.awayOpen = false;
          if (app.session?.code) store.rememberAway(app.session.code, null);
          render();
        },
      },
      t("state.away.dismiss"),
    ),
  );
}

function renderOutcome(state, ctx) {
  const o = state.outcome;
  const seats = o.placings.map((placing, seat) => ({ seat, placing, score: o.scores[seat] }));
  seats.sort((a, b) => a.placing - b.placing || a.seat - b.seat);
  const winners = o.winners.map((s) => ctx.name(s));
  const youWon = ctx.me !== null && o.winners.includes(ctx.me);
  // A spectator has nothing to do at the end (until a rematch is offered to watch): focus goes to the result.
  const resultIsNext = ctx.spectator && !app.rematch?.new_code;
  return h(
    "section",
    { class: "outcome", "aria-labelledby": "outcome-h", id: "outcome" },
    h(
      "h2",
      { id: "outcome-h", tabindex: "-1", "data-decision": resultIsNext ? "" : null },
      youWon
        ? winners.length > 1
          ? t("common.outcome.you_share")
          : t("common.outcome.you_win")
        : t("common.outcome.wins", { n: winners.length, names: listWords(winners) }),
    ),
    h(
      "table",
      {},
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          h("th", { scope: "col" }, t("common.outcome.place")),
          h("th", { scope: "col" }, t("common.outcome.player")),
          h("th", { scope: "col" }, t("common.outcome.score")),
        ),
      ),
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
    renderTieBreak(state, o),
    renderRematch(ctx),
    h("button", { type: "button", onclick: goHome, "data-key": "new-game" }, t("common.outcome.new_game")),
  );
}

/** A winner level on points with a seat placed behind: say that the game's tie-break decided, and how. */
function renderTieBreak(state, outcome) {
  const tie = tieBroken(outcome);
  if (!tie) return null;
  const key = `state.tiebreak.${state.game}`;
  const rule = hasKey(key) ? t(key) : t("state.tiebreak.generic");
  return h("p", { class: "tie-break", "data-key": "tie-break" }, t("state.outcome.tie_broken", { score: tie.score }), " ", rule);
}

/** "Play again": ask for (or accept) a rematch, and see who accepted. Spectators are offered the rematch's table. */
function renderRematch(ctx) {
  if (ctx.spectator) {
    const code = app.rematch?.new_code;
    if (!code) return null;
    return h(
      "div",
      { class: "rematch" },
      h("p", { class: "hint" }, t("state.rematch.spectator_offer", { code })),
      h(
        "button",
        { type: "button", class: "primary", "data-key": "watch-rematch", "data-decision": "", onclick: () => watchRematch(code) },
        t("state.rematch.watch"),
      ),
    );
  }
  if (app.lobby?.phase !== "finished") return null;
  const offer = app.rematch;
  const names = (seats) => listWords(seats.map((s) => ctx.name(s)));
  const me = ctx.me;
  const parts = [];
  if (!offer) {
    parts.push(
      h("button", { type: "button", class: "primary", "data-key": "play-again", "data-decision": "", onclick: () => answerRematch(true) }, t("common.rematch.play_again")),
    );
  } else if (offer.new_code) {
    const code = offer.new_code;
    const mine = !!store.seatFor(code);
    parts.push(
      h("p", { class: "hint" }, t("common.rematch.started", { code })),
      mine
        ? h("button", { type: "button", class: "primary", "data-key": "play-rematch", "data-decision": "", onclick: () => playRematch(code) }, t("state.rematch.play"))
        : h("button", { type: "button", "data-key": "watch-rematch", "data-decision": "", onclick: () => watchRematch(code) }, t("state.rematch.watch")),
    );
  } else {
    const answered = offer.accepted.includes(me) || offer.declined.includes(me);
    if (!answered) {
      parts.push(
        h("button", { type: "button", class: "primary", "data-key": "play-again", onclick: () => answerRematch(true) }, t("common.rematch.play_again")),
        h("button", { type: "button", "data-key": "no-rematch", onclick: () => answerRematch(false) }, t("common.rematch.no_thanks")),
      );
    }
    if (app.session?.host && offer.accepted.includes(me)) {
      parts.push(h("button", { type: "button", "data-key": "start-rematch", onclick: () => request("start", {}) }, t("common.rematch.start_now")));
    }
    parts.push(
      h(
        "p",
        { class: "hint", id: "rematch-status", "data-key": "rematch-status" },
        t("common.rematch.accepted", { names: names(offer.accepted) }),
        offer.declined.length ? ` ${t("common.rematch.declined", { names: names(offer.declined) })}` : "",
        " ",
        app.session?.host ? t("common.rematch.when_host") : t("common.rematch.when"),
      ),
    );
  }
  parts.push(
    h("button", { type: "button", "data-key": "copy-replay", onclick: copyReplayLink }, t("state.replay.copy")),
  );
  return h("div", { class: "rematch" }, parts);
}

/** Copies a link that lets anyone watch this finished game (a private one is closed to its code alone). */
async function copyReplayLink() {
  const reply = await request("watch_link", {});
  if (!reply) return;
  const link = `${location.origin}${location.pathname}#watch=${reply.code}&key=${reply.watch}`;
  try {
    await navigator.clipboard.writeText(link);
    notify(t("lobby.copied.link"), { kind: "info" });
  } catch {
    notify(t("lobby.copy_failed.link"), { kind: "info" });
  }
}

// ---- start-up ------------------------------------------------------------------------------------------------

/** The page's own words outside `main` (index.html is written in English and relabelled here). */
function labelPage() {
  document.title = t("common.page_title");
  const skip = document.querySelector("a.skip");
  if (skip) skip.textContent = t("common.skip");
  const brand = document.querySelector("a.brand");
  if (brand) brand.setAttribute("aria-label", t("common.brand_label"));
  const picker = document.getElementById("lang");
  if (picker) {
    picker.value = lang();
    picker.setAttribute("aria-label", t("common.language"));
    picker.title = t("common.language");
  }
}

/** The language switch of the top bar: each language in its own name; the choice is remembered (i18n.js). */
function languageSwitch() {
  const top = document.querySelector("header.top");
  if (!top || document.getElementById("lang")) return;
  const picker = h(
    "select",
    { id: "lang", class: "lang", "data-key": "lang", onchange: (e) => setLang(e.target.value) },
    LANGUAGES.map(([code, name]) => h("option", { value: code, lang: code }, name)),
  );
  top.insertBefore(picker, document.getElementById("conn"));
}

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
    notify(() => t("common.catalogue_failed"));
  }
}

function onKey(event) {
  const target = event.target;
  if (target && (target.isContentEditable || ["INPUT", "SELECT", "TEXTAREA"].includes(target.tagName))) return;
  // Keys pressed in the rules dialog are for the dialog, not the board behind it.
  if (target && target.closest && target.closest("dialog")) return;
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  if (!app.state || !app.session || app.lobby?.phase === "open") return;
  if (offline()) return;
  const screen = screenFor(app.state.game);
  if (screen.onKey && screen.onKey(event, context())) event.preventDefault();
}

export async function start() {
  window.addEventListener("hashchange", () => {
    const route = parseRoute();
    if (app.session && route.code === app.session.code) return;
    resetSession();
    app.route = route;
    app.peek = null;
    render();
    if (app.conn.ready && route.kind !== "home") onReady({});
  });
  document.addEventListener("keydown", onKey);
  watchTips();
  languageSwitch();
  labelPage();
  onLangChange(() => {
    labelPage();
    forgetForms();
    // Everything is drawn again in the new language (a notice too, when its words are looked up as it is drawn).
    render();
  });
  app.conn = new Connection({ onReady, onStatus, onPush, onOrphanError: showError });
  refreshTables = watchInbox(() => app.conn, () => render());
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
    render: () => render(),
    rulesButton: (game, key) => rulesButton(game, describeGame, key),
    gamePicture: (game) => screenFor(game).picture?.() || null,
  });
  initFriends({
    request,
    send: (type, fields) => app.conn.request(type, fields),
    inLobby: () => !!app.session && app.conn.ready,
  });
  answerServiceWorker(() => app.session?.code ?? null);
  render();
  await loadCatalogue();
  render();
  app.conn.connect();
}

// Tests and curious players can look at the state from the console.
window.tabletop = app;
start();
