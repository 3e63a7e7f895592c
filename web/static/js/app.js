// The application: one connection, one session (a seat or a spectator's place in one lobby), and the screen that
// matches where the session stands (home, joining, lobby, game). Every server push re-renders the current screen.

import { Connection, ServerError } from "./net.js";
import * as store from "./store.js";
import { h, keepFocus, announce, clock, countdown, seatLabel } from "./ui.js";
import { errorWords, listWords } from "./words.js";
import { t, tParts, ordinal as ordinalWords, lang, setLang, onLangChange, LANGUAGES, hasKey } from "./i18n.js";
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
} from "./lobby.js";
import { rulesButton } from "./help.js";
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
  // A stale version is cured by the update already on its way: say so briefly.
  notify(() => errorWords(e), e.code === "stale_version" ? { timeout: 6000 } : {});
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
    app.notice = { text: () => errorWords({ code: "connection_lost" }), kind: "connection", id: "conn" };
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
    addLog({ text: t("common.log.current"), kind: "info", version: update.version });
  } else {
    addLog({ text: t("common.log.resync"), kind: "info", version: update.version });
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
    const text = t("common.rematch.asks", { name: seatNames()[offer.requested_by] || t("common.someone") });
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
    addLog({ text: t("common.rematch.begun"), kind: "lobby", version: null });
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
    name: (seat) => (seat === me ? t("common.you") : names[seat] || t("common.seat", { n: seat + 1 })),
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
    return h("section", { class: "panel" }, h("p", {}, t("common.loading_game")));
  }
  if (app.session) return h("section", { class: "panel" }, h("p", {}, t("common.loading")));
  if (app.route.kind === "join" && !store.seatFor(app.route.code)) return renderJoin(app, app.route.code);
  if (app.route.kind === "watch" && app.connection.status !== "open") {
    return h("section", { class: "panel" }, h("p", {}, t("common.conn.connecting")));
  }
  return renderHome(app);
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
  if (state.outcome) parts.push(renderOutcome(state, ctx));
  parts.push(h("p", { class: "headline", id: "headline" }, yourWords(screen.headline ? screen.headline(ctx) : headline(ctx))));
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

/** Screens name the viewer "You"; in English this turns the possessive "You's" they build from it into "Your"/"your". */
export function yourWords(text) {
  if (!text || lang() !== "en") return text;
  return text.replace(/(^|[.!?:]\s+)You's\b/g, "$1Your").replace(/\bYou's\b/g, "your");
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
    h("h2", { id: "log-h" }, t("common.log.title")),
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
    renderRematch(ctx),
    h("button", { type: "button", onclick: goHome, "data-key": "new-game" }, t("common.outcome.new_game")),
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
    parts.push(h("button", { type: "button", class: "primary", "data-key": "play-again", onclick: () => answerRematch(true) }, t("common.rematch.play_again")));
  } else if (offer.new_code) {
    parts.push(h("p", { class: "hint" }, t("common.rematch.started", { code: offer.new_code })));
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
  return h("div", { class: "rematch" }, parts);
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
  languageSwitch();
  labelPage();
  onLangChange(() => {
    labelPage();
    forgetForms();
    // The notice keeps its words until replaced; everything else is drawn again in the new language.
    render();
  });
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
    rulesButton: (game) => rulesButton(game, describeGame),
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
