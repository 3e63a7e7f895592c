// Playing with friends: the chat panel (lobby and game screens), presence badges, the host's controls of an open
// lobby, the page's own presence (hidden tab, activity), and the public list of open games on the start page.
//
// Chat text is only ever put on the page as text (text nodes through `h`, or `textContent`), never as markup.

import { h } from "./ui.js";
import { t, tParts } from "./i18n.js";

/** The chat of the current lobby, oldest first: { code, messages }. */
const chat = { code: null, messages: [], unread: 0 };
/** The chat panel is built once and moved into each new screen, so a message being typed survives re-renders. */
let panel = null;
let list = null;
let hooks = null;

/** Wires the module to the application (its request function, session and re-render). */
export function initFriends(app) {
  hooks = app;
  document.addEventListener("visibilitychange", () => reportPresence());
  // Interaction shows the player is there; at most one report every 20 s.
  let last = 0;
  const active = () => {
    const now = Date.now();
    if (now - last < 20_000 || document.hidden) return;
    last = now;
    reportPresence();
  };
  document.addEventListener("pointerdown", active, { passive: true });
  document.addEventListener("keydown", active, { passive: true });
}

/** Tells the server whether this page is hidden (a seat then shows as idle). */
export function reportPresence() {
  if (!hooks?.inLobby()) return;
  hooks.send("presence", { hidden: document.hidden }).catch(() => {});
}

// ---- chat ----------------------------------------------------------------------------------------------------

/** The recent chat, sent after joining, watching or resuming (possibly just before the reply that seats us). */
export function onChatHistory(message) {
  chat.code = message.code;
  chat.messages = message.messages.slice();
  fillList();
}

export function onChatMessage(message) {
  if (chat.code !== message.code) {
    chat.code = message.code;
    chat.messages = [];
    fillList();
  }
  if (chat.messages.some((m) => m.id === message.message.id)) return;
  chat.messages.push(message.message);
  if (chat.messages.length > 200) chat.messages.shift();
  if (list) list.append(messageItem(message.message));
  scrollDown();
}

/** Forgets the chat (the session ended). */
export function resetChat() {
  chat.code = null;
  chat.messages = [];
  if (list) list.replaceChildren();
  if (panel) panel.querySelector("input").value = "";
}

function time(at) {
  const d = new Date(at);
  return `${String(d.getHours()).padStart(2, "0")}:${String(d.getMinutes()).padStart(2, "0")}`;
}

function messageItem(m) {
  const who = m.channel === "spectators" ? t("friends.watcher", { name: m.name }) : m.name;
  // Every part is a text node: a message reading "<img src=x onerror=...>" shows exactly that.
  return h(
    "li",
    { class: `chat-line chat-${m.channel}`, "data-id": m.id },
    h("span", { class: "chat-time" }, time(m.at)),
    " ",
    h("span", { class: "chat-who" }, t("friends.said", { name: who })),
    " ",
    h("span", { class: "chat-text" }, m.text),
  );
}

function fillList() {
  if (!list) return;
  list.replaceChildren(...chat.messages.map(messageItem));
  scrollDown();
}

function scrollDown() {
  if (list) list.scrollTop = list.scrollHeight;
}

/** The chat panel, for the lobby and the game screens. */
export function chatPanel(spectator) {
  if (!panel) {
    list = h("ol", { class: "chat-list", id: "chat-list", "aria-live": "polite", "aria-relevant": "additions" });
    const input = h("input", {
      id: "chat-input",
      name: "text",
      maxlength: "500",
      autocomplete: "off",
      required: true,
      "data-key": "chat-input",
    });
    const form = h(
      "form",
      { class: "chat-form" },
      h("label", { for: "chat-input", class: "visually-hidden" }),
      input,
      h("button", { type: "submit", class: "small", "data-key": "chat-send" }),
    );
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      const text = input.value.trim();
      if (!text) return;
      const reply = await hooks.request("chat", { text });
      if (reply) input.value = "";
      input.focus();
    });
    panel = h(
      "section",
      { class: "chat", "aria-labelledby": "chat-h" },
      h("h2", { id: "chat-h" }),
      list,
      form,
      h("p", { class: "hint chat-note" }),
    );
    fillList();
  }
  // Labelled on every render, so a change of language reaches the panel that is kept across renders.
  panel.querySelector("#chat-h").textContent = t("friends.chat");
  panel.querySelector("label[for=chat-input]").textContent = t("friends.message");
  panel.querySelector("[data-key=chat-send]").textContent = t("friends.send");
  panel.querySelector(".chat-note").textContent = spectator ? t("friends.note_watching") : t("friends.note_playing");
  return panel;
}

// ---- presence ------------------------------------------------------------------------------------------------


/** A badge saying whether a human seat's player is there. */
export function presenceTag(occupant) {
  if (occupant.kind !== "human") return null;
  const presence = occupant.presence || (occupant.connected ? "connected" : "away");
  return h(
    "span",
    { class: `tag presence presence-${presence}${presence === "away" ? " warn" : ""}`, "data-presence": presence },
    ["connected", "idle", "away"].includes(presence) ? t(`friends.presence.${presence}`) : presence,
  );
}

// ---- host controls -------------------------------------------------------------------------------------------

/** The host's controls of an open lobby: options, seats, timer, visibility. */
export function hostPanel(lobby, info, { request, optionField, showApplicable, readOptions, timers, absence, readAbsence }) {
  const form = h("form", { class: "host-settings", "aria-labelledby": "host-h" });
  const specs = info ? info.options : [];
  const fields = specs.map((spec) => {
    const field = optionField({ ...spec, default: lobby.options?.[spec.key] ?? spec.default }, info.id);
    for (const el of field.querySelectorAll("input, select")) el.id = `host-${el.id}`;
    for (const el of field.querySelectorAll("label")) el.htmlFor = `host-${el.htmlFor}`;
    return field;
  });
  const seats = h("input", {
    id: "host-seats",
    name: "seats",
    type: "number",
    min: info?.min_players ?? 1,
    max: info?.max_players ?? 8,
    value: lobby.seats.length,
    required: true,
    inputmode: "numeric",
  });
  const optionsBox = h(
    "fieldset",
    { class: "options" },
    h("legend", {}, t("friends.host.options")),
    fields.length ? fields : h("p", { class: "hint" }, t("lobby.no_options")),
  );
  // An option that changes nothing at this table size is hidden, and shown again when the size changes.
  showApplicable(optionsBox, specs, lobby.seats.length);
  seats.addEventListener("input", () => showApplicable(optionsBox, specs, Number(seats.value)));
  const timer = h(
    "select",
    { id: "host-timer", name: "timer" },
    timers.map(([v, label]) =>
      h("option", { value: v, selected: String(lobby.turn_timer_ms ?? "") === v }, label),
    ),
  );
  if (lobby.turn_timer_ms && !timers.some(([v]) => v === String(lobby.turn_timer_ms))) {
    timer.append(
      h("option", { value: String(lobby.turn_timer_ms), selected: true }, t("common.seconds", { n: lobby.turn_timer_ms / 1000 })),
    );
  }
  form.append(
    h("h2", { id: "host-h" }, t("friends.host.title")),
    optionsBox,
    h(
      "div",
      { class: "field" },
      h("label", { for: "host-seats" }, t("lobby.players"), h("span", { class: "hint" }, info ? ` ${info.min_players}–${info.max_players}` : "")),
      seats,
    ),
    h("div", { class: "field" }, h("label", { for: "host-timer" }, t("lobby.turn_timer")), timer),
    h(
      "div",
      { class: "field" },
      h("label", { for: "host-absent" }, t("lobby.away")),
      h("select", { id: "host-absent", name: "absent", "data-key": "host-absent" }, absence()),
    ),
    h("button", { type: "submit", "data-key": "host-save" }, t("friends.host.save")),
  );
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    request("configure_lobby", {
      options: readOptions(form, specs),
      seats: Number(seats.value),
      turn_timer_ms: Number(timer.value) || null,
      absent: readAbsence(form),
    });
  });
  const listed = h("input", {
    id: "host-listed",
    type: "checkbox",
    checked: !!lobby.listed,
    "data-key": "host-listed",
    onchange: (e) => request("set_listed", { listed: e.target.checked }),
  });
  return h(
    "div",
    { class: "host-panel" },
    form,
    h(
      "div",
      { class: "field check" },
      listed,
      h("label", { for: "host-listed" }, t("friends.host.list")),
    ),
    h(
      "p",
      { class: "hint" },
      lobby.listed ? t("friends.host.listed") : t("friends.host.private"),
    ),
  );
}

/** The host's buttons on one seat: remove its occupant, or hand them the host role. */
export function seatHostButtons(seat, lobby, request) {
  const o = seat.occupant;
  if (o.kind === "empty" || seat.seat === lobby.host) return null;
  const who = o.name;
  const out = [
    h(
      "button",
      {
        type: "button",
        class: "small quiet",
        "data-key": `remove-${seat.seat}`,
        "aria-label": t("friends.remove_label", { name: who, n: seat.seat + 1 }),
        onclick: () => request("remove_player", { seat: seat.seat }),
      },
      t("friends.remove"),
    ),
  ];
  if (o.kind === "human") {
    out.push(
      h(
        "button",
        {
          type: "button",
          class: "small quiet",
          "data-key": `make-host-${seat.seat}`,
          "aria-label": t("friends.make_host_label", { name: who }),
          onclick: () => request("make_host", { seat: seat.seat }),
        },
        t("friends.make_host"),
      ),
    );
  }
  return h("span", { class: "seat-actions" }, out);
}

// ---- the public list -----------------------------------------------------------------------------------------

/** The "join an open game" section of the start page; fills itself from GET /api/lobbies. */
export function openGames(catalogue, { gameTitle, optionLines, duration }) {
  const body = h("div", { class: "open-games-body" }, h("p", { class: "hint" }, t("friends.open.looking")));
  const load = async () => {
    try {
      const response = await fetch("/api/lobbies", { cache: "no-store" });
      const lobbies = await response.json();
      if (!Array.isArray(lobbies) || !lobbies.length) {
        body.replaceChildren(h("p", { class: "hint" }, t("friends.open.none")));
        return;
      }
      body.replaceChildren(
        h(
          "ul",
          { class: "open-games", id: "open-games" },
          lobbies.map((l) => {
            const info = catalogue.find((g) => g.id === l.game);
            // Only the options that change anything at this table's size (`players` in GET /api/games).
            const options = optionLines(info, l.options, l.seats);
            if (l.turn_timer_ms) options.push(t("lobby.timer_line", { time: duration(l.turn_timer_ms) }));
            return h(
              "li",
              { class: "open-game", "data-code": l.code },
              h("strong", {}, gameTitle(l.game)),
              " · ",
              tParts("friends.open.hosted", { name: h("span", { class: "open-host" }, l.host_name) }),
              " · ",
              t("friends.open.seats", { taken: l.seats_taken, n: l.seats }),
              options.length ? h("span", { class: "hint" }, ` · ${options.join(" · ")}`) : null,
              " ",
              h(
                "a",
                { href: `#join=${l.code}`, class: "button small", "data-key": `open-join-${l.code}` },
                t("friends.open.join", { code: l.code }),
              ),
            );
          }),
        ),
      );
    } catch {
      body.replaceChildren(h("p", { class: "hint" }, t("friends.open.failed")));
    }
  };
  load();
  return h(
    "section",
    { class: "panel", "aria-labelledby": "open-h" },
    h("h2", { id: "open-h" }, t("friends.open.title")),
    body,
    h("button", { type: "button", class: "small", "data-key": "open-refresh", onclick: load }, t("friends.open.refresh")),
  );
}
