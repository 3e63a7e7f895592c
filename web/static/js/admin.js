// The admin page: the match list with filters, a match inspector (seats and connections, deadlines, the complete
// state, a step slider replaying the match at any step as any seat or a spectator, drawn by the table's own game
// screen as that viewer saw it with the JSON behind a disclosure, the action log, the audit log) and the admin
// actions (abort, remove a player, give a seat to a bot, fire the pending deadline). It talks only to the admin
// API under /api/admin/ (docs/openapi.json), sending the admin token as `Authorization: Bearer ...`. The token is
// kept in this tab's sessionStorage only, never in the address or in localStorage.

import { h, seatLabel } from "./ui.js";
import { t } from "./i18n.js";
import { screenFor, screenContext } from "./games/index.js";
import { watchTips } from "./info_tip.js";

const TOKEN_KEY = "tabletop.admin.token";
const NAME_KEY = "tabletop.admin.name";
const main = document.getElementById("main");
const notice = document.getElementById("notice");

const state = {
  filters: { game: "", status: "", player: "", from: "", to: "", limit: 25, offset: 0 },
  games: [],
  selected: null, // match id
};

function token() {
  return sessionStorage.getItem(TOKEN_KEY) || "";
}

function say(text, kind = "error") {
  if (!text) {
    notice.hidden = true;
    return;
  }
  notice.hidden = false;
  notice.dataset.kind = kind;
  notice.replaceChildren(h("p", { text }));
}

/** Calls the admin API; resolves with the JSON body, or throws an Error whose message is the server's. */
async function api(path, { method = "GET", body } = {}) {
  // Signed out by an earlier refusal: ask nothing more, so a later 401 cannot replace that refusal's message.
  if (!token()) throw Object.assign(new Error("not signed in"), { silent: true });
  const response = await fetch(path, {
    method,
    headers: {
      Authorization: `Bearer ${token()}`,
      ...(body ? { "Content-Type": "application/json" } : {}),
    },
    body: body ? JSON.stringify(body) : undefined,
  });
  let data = null;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  if (response.status === 401 || response.status === 403) {
    sessionStorage.removeItem(TOKEN_KEY);
    renderLogin(response.status === 403 ? "That is not the admin token." : "Enter the admin token.");
    throw Object.assign(new Error("not signed in"), { silent: true });
  }
  if (response.status === 404 && data && data.code === "unauthorized") {
    renderLogin("The admin API is off on this server (it has no ADMIN_TOKEN).");
    throw Object.assign(new Error("admin API off"), { silent: true });
  }
  if (!response.ok) {
    throw new Error((data && data.message) || `HTTP ${response.status}`);
  }
  return data;
}

/** Shows a failed request's message, except when the page already asked for the token again. */
function report(e, prefix = "") {
  if (!e.silent) say(prefix + e.message);
}

const json = (value) => h("pre", { class: "json", text: JSON.stringify(value, null, 2) });
const time = (ms) => (ms === null || ms === undefined ? "—" : new Date(ms).toLocaleString());
const seatName = (seat) => (seat === null || seat === undefined ? "clock" : `seat ${seat}`);

function renderLogin(message) {
  say(message || "", "info");
  const input = h("input", { id: "token", type: "password", autocomplete: "off", required: true, minlength: 16 });
  main.replaceChildren(
    h(
      "form",
      {
        class: "panel join-only admin",
        onsubmit: (e) => {
          e.preventDefault();
          sessionStorage.setItem(TOKEN_KEY, input.value.trim());
          say("");
          start();
        },
      },
      h("h1", { text: "Administration" }),
      h("div", { class: "field" }, h("label", { for: "token", text: "Admin token" }), input,
        h("span", { class: "hint", text: "Kept in this tab only; it is sent with every admin request." })),
      h("div", { class: "buttons" }, h("button", { class: "primary", type: "submit", text: "Sign in" })),
    ),
  );
  input.focus();
}

async function start() {
  watchTips();
  if (!token()) {
    renderLogin();
    return;
  }
  try {
    state.games = await (await fetch("/api/games")).json();
  } catch {
    state.games = [];
  }
  main.replaceChildren(
    h("div", { class: "admin admin-grid" },
      h("section", { class: "panel", id: "list", "aria-labelledby": "list-title" }),
      h("section", { class: "panel", id: "inspector", "aria-live": "polite" }),
      h("section", { class: "panel", id: "audit-all" })),
  );
  await refreshList();
  await refreshAllAudit();
  if (state.selected) await inspect(state.selected);
}

function filterField(id, label, control) {
  control.id = id;
  return h("div", { class: "field" }, h("label", { for: id, text: label }), control);
}

async function refreshList() {
  const box = document.getElementById("list");
  const f = state.filters;
  const query = new URLSearchParams();
  if (f.game) query.set("game", f.game);
  if (f.status) query.set("status", f.status);
  if (f.player) query.set("player", f.player);
  if (f.from) query.set("from", String(new Date(f.from).getTime()));
  if (f.to) query.set("to", String(new Date(f.to).getTime()));
  query.set("limit", String(f.limit));
  query.set("offset", String(f.offset));
  let page;
  try {
    page = await api(`/api/admin/matches?${query}`);
  } catch (e) {
    report(e);
    return;
  }
  const game = h("select", {}, h("option", { value: "", text: "any" }),
    state.games.map((g) => h("option", { value: g.id, text: g.name, selected: g.id === f.game })));
  const status = h("select", {}, ["", "open", "playing", "finished", "aborted", "abandoned", "closed"].map((s) =>
    h("option", { value: s, text: s || "any", selected: s === f.status })));
  const player = h("input", { type: "search", value: f.player });
  const from = h("input", { type: "datetime-local", value: f.from });
  const to = h("input", { type: "datetime-local", value: f.to });
  const apply = (e) => {
    e.preventDefault();
    Object.assign(state.filters, { game: game.value, status: status.value, player: player.value.trim(), from: from.value, to: to.value, offset: 0 });
    refreshList();
  };
  // Cluster mode: every item has an owner (its lease, or null).
  const clustered = page.items.some((t) => "owner" in t);
  const rows = page.items.map((t) =>
    h("tr", { "aria-current": t.match_id && t.match_id === state.selected ? "true" : false },
      h("td", { text: t.code }),
      h("td", { text: t.game }),
      h("td", { text: t.status + (t.abort_reason ? ` (${t.abort_reason})` : "") }),
      h("td", { text: t.seats.map((s) => `${s.seat}: ${s.name}${s.kind === "bot" ? " (bot)" : ""}`).join(", ") }),
      clustered ? h("td", { text: ownerText(t.owner) }) : null,
      h("td", { text: time(t.created_at) }),
      h("td", {}, t.match_id
        ? h("button", { class: "small", type: "button", text: "Inspect", onclick: () => inspect(t.match_id) })
        : "no match yet")));
  box.replaceChildren(
    h("h1", { id: "list-title", text: "Lobbies and matches" }),
    h("form", { class: "filters", onsubmit: apply },
      filterField("f-game", "Game", game),
      filterField("f-status", "Status", status),
      filterField("f-player", "Player name contains", player),
      filterField("f-from", "Created from", from),
      filterField("f-to", "Created before", to),
      h("button", { class: "primary", type: "submit", text: "Filter" })),
    rows.length
      ? h("table", {},
        h("thead", {}, h("tr", {}, ["Code", "Game", "Status", "Seats", clustered ? "Owner" : null, "Created", ""]
          .filter((c) => c !== null).map((c) => h("th", { scope: "col", text: c })))),
        h("tbody", {}, rows))
      : h("p", { text: "Nothing matches these filters." }),
    h("div", { class: "buttons" },
      h("button", { type: "button", class: "small", text: "Previous page", disabled: f.offset === 0,
        onclick: () => { f.offset = Math.max(0, f.offset - f.limit); refreshList(); } }),
      h("button", { type: "button", class: "small", text: "Next page", disabled: page.items.length < f.limit,
        onclick: () => { f.offset += f.limit; refreshList(); } }),
      h("button", { type: "button", class: "small", text: "Refresh", onclick: () => refreshList() })),
  );
}

/** A table's owner in cluster mode: its node and lease epoch, and whether the lease is live. */
function ownerText(owner) {
  if (!owner) return "none (no lease)";
  return `${owner.node}, epoch ${owner.epoch}, ${owner.live ? "lease live" : "lease expired"}`;
}

function auditTable(items) {
  if (!items.length) return h("p", { text: "No admin action yet." });
  return h("table", {},
    h("thead", {}, h("tr", {}, ["When", "Who", "What", "Match", "Seat", "Why", "Detail"].map((c) => h("th", { scope: "col", text: c })))),
    h("tbody", {}, items.map((a) => h("tr", {},
      h("td", { text: time(a.at) }), h("td", { text: a.admin }), h("td", { text: a.action }),
      h("td", { text: a.match_id ? `${a.lobby_code} ${a.match_id.slice(0, 8)}…` : a.lobby_code }),
      h("td", { text: a.seat ?? "—" }), h("td", { text: a.reason }), h("td", { text: JSON.stringify(a.detail) })))));
}

async function refreshAllAudit() {
  const box = document.getElementById("audit-all");
  try {
    const page = await api("/api/admin/audit?limit=50");
    box.replaceChildren(h("h2", { text: "Latest admin actions" }), auditTable(page.items));
  } catch (e) {
    report(e);
  }
}

/** A small form asking who acts and why, then running the action. */
function actionForm(title, path, after) {
  const by = h("input", { type: "text", required: true, maxlength: 64, value: sessionStorage.getItem(NAME_KEY) || "" });
  const reason = h("input", { type: "text", required: true, maxlength: 1000 });
  const id = `act-${Math.random().toString(36).slice(2)}`;
  by.id = `${id}-by`;
  reason.id = `${id}-why`;
  const form = h("form", {
    class: "act-form",
    onsubmit: async (e) => {
      e.preventDefault();
      sessionStorage.setItem(NAME_KEY, by.value.trim());
      try {
        const result = await api(path, { method: "POST", body: { by: by.value.trim(), reason: reason.value.trim() } });
        say(`${title}: done (version ${result.version}).`, "info");
        form.remove();
        await after();
      } catch (e2) {
        report(e2, `${title}: `);
      }
    },
  },
  h("strong", { text: title }),
  h("div", { class: "field" }, h("label", { for: by.id, text: "Your name (for the audit log)" }), by),
  h("div", { class: "field" }, h("label", { for: reason.id, text: "Reason (players are told it on an abort or a removal)" }), reason),
  h("div", { class: "buttons" },
    h("button", { class: "primary", type: "submit", text: "Confirm" }),
    h("button", { type: "button", text: "Cancel", onclick: () => form.remove() })));
  return form;
}

/**
 * A replayed step's board, drawn by the table's own game screen from the `state` push the viewer got (`me`: their
 * seat, null for a spectator), with the screen's headline and the players' summaries as the table shows them.
 * Read-only: the page has no connection to the table, and a move offered on the board is only answered with a
 * notice; a choice that stays on the board (a selection) redraws it. Countdowns show their deadline's time.
 */
function replayBoard(m, push, me) {
  const screen = screenFor(push.game);
  const names = [];
  for (const s of m.seats) names[s.seat] = s.name || t("common.seat", { n: s.seat + 1 });
  const who = me === null ? "a spectator" : `seat ${me} (${names[me] || "empty"})`;
  const box = h("div", {
    class: "replay-board game",
    "data-game": push.game,
    "data-viewer": me === null ? "spectator" : String(me),
  });
  const draw = () => {
    const ctx = screenContext({
      state: push,
      names,
      me,
      act: () => say("This is a replay: nothing can be played from the admin page.", "info"),
      rerender: draw,
    });
    const status = push.status;
    const active = (seat) =>
      status.kind === "turn" ? status.seat === seat : status.kind === "simultaneous" && status.seats.includes(seat);
    try {
      box.replaceChildren(
        h("p", { class: "hint", text: `The table as ${who} saw it at this step (read-only).` }),
        screen.headline ? h("p", { class: "headline", text: screen.headline(ctx) }) : null,
        h("div", { class: "board-area" }, screen.render(ctx)),
        h("section", { class: "players" }, h("ul", {}, m.seats.map((s) => {
          const extra = screen.playerInfo ? screen.playerInfo(s.seat, ctx) : null;
          return h("li", { class: `player${active(s.seat) ? " active" : ""}`, "data-seat": s.seat },
            seatLabel(s.seat, names[s.seat], { you: s.seat === me }),
            s.kind === "bot" ? h("span", { class: "tag", text: t("common.bot") }) : null,
            extra ? h("div", { class: "player-extra" }, extra) : null);
        }))),
      );
      // A countdown on the table counts to now; in a replay it says when its deadline was instead.
      for (const el of box.querySelectorAll("[data-deadline]")) {
        const at = Number(el.dataset.deadline);
        el.removeAttribute("data-deadline");
        el.classList.remove("urgent", "expired");
        el.textContent = `until ${new Date(at).toLocaleTimeString()}`;
      }
    } catch (e) {
      // A view the screen cannot draw is a defect of the page: said on the console as well as here.
      console.error(e);
      box.replaceChildren(
        h("p", { class: "hint", text: `The board could not be drawn (${e.message}); the JSON below shows the step.` }));
    }
  };
  draw();
  return box;
}

async function inspect(matchId) {
  state.selected = matchId;
  const box = document.getElementById("inspector");
  let m;
  let log;
  let audit;
  let result;
  try {
    [m, log, audit, result] = await Promise.all([
      api(`/api/admin/matches/${matchId}`),
      api(`/api/admin/matches/${matchId}/log`),
      api(`/api/admin/matches/${matchId}/audit`),
      api(`/api/admin/matches/${matchId}/result`),
    ]);
  } catch (e) {
    report(e);
    return;
  }
  const base = `/api/admin/matches/${matchId}`;
  const reload = async () => { await inspect(matchId); await refreshList(); await refreshAllAudit(); };
  const playing = m.phase === "playing";
  const forms = h("div", {});
  const open = (title, path) => { forms.replaceChildren(actionForm(title, path, reload)); forms.querySelector("input").focus(); };

  const seats = h("table", {},
    h("thead", {}, h("tr", {}, ["Seat", "Who", "Connection", ""].map((c) => h("th", { scope: "col", text: c })))),
    h("tbody", {}, m.seats.map((s) => h("tr", {},
      h("td", { text: s.seat }),
      h("td", { text: `${s.name || "—"} (${s.kind}${s.removed ? ", removed" : ""})` }),
      h("td", { text: s.kind === "human" ? (s.connected ? "connected" : "not connected") : "—" }),
      h("td", {}, playing && s.kind === "human"
        ? h("div", { class: "buttons" },
          s.removed ? null : h("button", { class: "small", type: "button", text: "Remove player", onclick: () => open(`Remove seat ${s.seat}'s player`, `${base}/seats/${s.seat}/remove`) }),
          h("button", { class: "small", type: "button", text: "Replace with a bot", onclick: () => open(`Give seat ${s.seat} to a bot`, `${base}/seats/${s.seat}/bot`) }))
        : null)))));

  // The step slider: the match at step N, as any seat, a spectator, or complete.
  const steps = log.entries.length;
  const slider = h("input", { id: "step", type: "range", min: 0, max: steps, value: steps, step: 1 });
  const stepLabel = h("output", { for: "step", text: `${steps} / ${steps}` });
  const viewer = h("select", { id: "viewer" },
    h("option", { value: "spectator", text: "a spectator", selected: true }),
    h("option", { value: "full", text: "complete state (hidden information included)" }),
    m.seats.map((s) => h("option", { value: String(s.seat), text: `seat ${s.seat} (${s.name || s.kind})` })));
  const pane = h("div", {});
  let asked = 0;
  // The JSON stays open (or folded) from step to step once the admin has chosen.
  let jsonOpen = false;
  const showStep = async () => {
    // Only the latest request draws: a slider dragged fast asks for many steps, answered in any order.
    const ask = ++asked;
    const n = Number(slider.value);
    stepLabel.textContent = `${n} / ${steps}`;
    const seatQuery = viewer.value === "full" || viewer.value === "spectator" ? "" : `?seat=${viewer.value}`;
    let r;
    try {
      r = await api(`${base}/replay/${n}${seatQuery}`);
    } catch (e) {
      report(e);
      return;
    }
    if (ask !== asked) return;
    const entry = n > 0 ? log.entries[n - 1] : null;
    const caption = h("p", {
      text: entry ? `Step ${n}: ${seatName(entry.seat)} at ${time(entry.at)}` : `Step 0: the start, ${time(r.at)}`,
    });
    if (viewer.value === "full") {
      pane.replaceChildren(
        caption,
        h("p", { class: "hint", text: "The complete state is not anyone's view, so it has no board: "
          + "choose a seat or a spectator to see the board they saw." }),
        entry ? json(entry.action) : null,
        json(r.full_state),
      );
      return;
    }
    const me = viewer.value === "spectator" ? null : Number(viewer.value);
    const push = r.state;
    const details = h("details", { class: "replay-json", open: jsonOpen, ontoggle: () => { jsonOpen = details.open; } },
      h("summary", { text: "JSON: the action, then the status, legal actions, events and view sent to this viewer" }),
      entry ? json(entry.action) : null,
      json({ status: push.status, legal_actions: push.legal_actions, events: push.events, deadline: push.deadline,
        turn_deadline: push.turn_deadline, outcome: push.outcome }),
      json(push.view));
    pane.replaceChildren(caption, replayBoard(m, push, me), details);
  };
  slider.addEventListener("input", showStep);
  viewer.addEventListener("change", showStep);

  const logTable = steps
    ? h("table", {},
      h("thead", {}, h("tr", {}, ["#", "Who", "When", "Action", "Events (audience: body)"].map((c) => h("th", { scope: "col", text: c })))),
      h("tbody", {}, log.entries.map((e) => h("tr", {},
        h("td", {}, h("button", { class: "small quiet", type: "button", text: e.seq, "aria-label": `Show step ${e.seq}`,
          onclick: () => { slider.value = e.seq; showStep(); slider.focus(); } })),
        h("td", { text: seatName(e.seat) }),
        h("td", { text: time(e.at) }),
        h("td", { text: JSON.stringify(e.action) }),
        h("td", { text: e.events.map((ev) => `${ev.audience === "everyone" ? "everyone" : `seats ${ev.audience.seats.join(",")}`}: ${JSON.stringify(ev.body)}`).join("\n") })))))
    : h("p", { text: "No action yet." });

  box.replaceChildren(
    h("h2", { text: `Match ${m.code} (${m.game})` }),
    h("dl", { class: "facts" },
      h("dt", { text: "Match id" }), h("dd", { text: matchId }),
      "owner" in m ? [h("dt", { text: "Owner" }), h("dd", { text: ownerText(m.owner) })] : null,
      h("dt", { text: "Status" }), h("dd", { text: `${result.status}${result.abort_reason ? `: ${result.abort_reason}` : ""}` }),
      h("dt", { text: "Version" }), h("dd", { text: m.version }),
      h("dt", { text: "Options" }), h("dd", { text: JSON.stringify(m.options) }),
      h("dt", { text: "Turn timer" }), h("dd", { text: m.turn_timer_ms ? `${m.turn_timer_ms} ms` : "off" }),
      h("dt", { text: "Engine deadline" }), h("dd", { text: m.deadline ? `${time(m.deadline.at)} → ${JSON.stringify(m.deadline.action)}` : "none" }),
      h("dt", { text: "Turn deadline" }), h("dd", { text: time(m.turn_deadline) }),
      h("dt", { text: "Spectators" }), h("dd", { text: m.spectators }),
      h("dt", { text: "Result" }), h("dd", { text: result.outcome ? JSON.stringify(result.outcome) : "—" })),
    playing
      ? h("div", { class: "buttons" },
        h("button", { type: "button", text: "Fire the deadline now", disabled: !m.deadline && !m.turn_deadline,
          onclick: () => open("Fire the pending deadline", `${base}/fire-deadline`) }),
        h("button", { type: "button", text: "Abort the match", onclick: () => open("Abort the match", `${base}/abort`) }),
        h("button", { type: "button", class: "small", text: "Refresh", onclick: reload }))
      : null,
    forms,
    h("h3", { text: "Seats" }), seats,
    h("h3", { text: "Step by step" }),
    h("div", { class: "slider" },
      h("label", { for: "step", text: "Step" }), slider, stepLabel,
      h("label", { for: "viewer", text: "as" }), viewer),
    pane,
    h("h3", { text: "Action log" }), logTable,
    h("h3", { text: "Admin actions on this match" }), auditTable(audit.items),
  );
  await showStep();
}

start();
