// The lobby screens: the start page (create a game, join by code, watch), the join form behind a shared link, and
// the lobby itself (share the code, seats filling live, bots, start).

import { h, seatLabel, seatMarker } from "./ui.js";
import * as store from "./store.js";
import { words } from "./words.js";
import { t } from "./i18n.js";
import { chatPanel, presenceTag, hostPanel, seatHostButtons, openGames } from "./friends.js";

/**
 * What this module needs of the application (app.js, which imports this module, so this one does not import it):
 * its requests (`createLobby`, `joinLobby`, `spectate`, `leave`, `request`), its notices (`notify`, `showError`),
 * `normaliseCode` and the game catalogue (`gameInfo`, `gameTitle`). Set once by `initLobby` before the first render.
 */
let hooks = null;

/** Wires the module to the application (see `hooks`). */
export function initLobby(app) {
  hooks = app;
}

const TURN_TIMERS = [
  ["", "No turn timer"],
  ["30000", "30 seconds"],
  ["60000", "1 minute"],
  ["120000", "2 minutes"],
  ["300000", "5 minutes"],
];

/** What happens to a player who is away: the lobby's absence policy (see docs/protocol.md, "Absent players"). */
const ABSENCE = [
  ["wait", 0, "Wait for them"],
  ["bot", 10000, "A bot plays for them after 10 seconds"],
  ["bot", 30000, "A bot plays for them after 30 seconds"],
  ["bot", 120000, "A bot plays for them after 2 minutes"],
  ["skip", 30000, "Skip their turns after 30 seconds"],
];

function absenceChoices(info, current) {
  const chosen = current ? `${current.policy}:${current.grace_ms}` : "wait:0";
  const choices = ABSENCE.filter(([policy]) => policy !== "skip" || info.can_skip).map(([policy, grace, label]) =>
    h("option", { value: `${policy}:${grace}`, selected: `${policy}:${grace}` === chosen }, label),
  );
  // A policy set by another client that the list does not offer stays shown as it is.
  if (current && !choices.some((o) => o.value === chosen)) {
    choices.push(h("option", { value: chosen, selected: true }, absenceWords(current) || "Wait for them"));
  }
  return choices;
}

function readAbsence(form) {
  const [policy, grace] = (form.elements.namedItem("absent")?.value || "wait:0").split(":");
  return { policy, grace_ms: Number(grace) || 0 };
}

/** Runs a form's request, keeping the form's button busy meanwhile and showing a refusal in plain words. */
async function submitting(form, work) {
  const button = form.querySelector("button[type=submit]");
  if (button) button.disabled = true;
  try {
    await work();
  } catch (e) {
    hooks.showError(e);
  } finally {
    if (button && button.isConnected) button.disabled = false;
  }
}

function nameField(id) {
  return h(
    "div",
    { class: "field" },
    h("label", { for: id }, "Your name"),
    h("input", {
      id,
      name: "name",
      required: true,
      maxlength: "24",
      autocomplete: "nickname",
      value: store.playerName(),
      "data-key": id,
    }),
  );
}

function optionField(spec) {
  const id = `opt-${spec.key}`;
  let control;
  if (spec.type === "integer") {
    control = h("input", {
      id,
      name: spec.key,
      type: "number",
      min: spec.min,
      max: spec.max,
      value: spec.default,
      required: true,
      inputmode: "numeric",
    });
  } else if (spec.type === "boolean") {
    return h(
      "div",
      { class: "field check" },
      h("input", { id, name: spec.key, type: "checkbox", checked: spec.default }),
      h("label", { for: id }, spec.label),
    );
  } else {
    control = h(
      "select",
      { id, name: spec.key },
      spec.values.map((v) => h("option", { value: v, selected: v === spec.default }, words(v))),
    );
  }
  const range = spec.type === "integer" ? h("span", { class: "hint" }, ` ${spec.min}–${spec.max}`) : null;
  return h("div", { class: "field" }, h("label", { for: id }, spec.label, range), control);
}

function readOptions(form, specs) {
  const options = {};
  for (const spec of specs) {
    const el = form.elements.namedItem(spec.key);
    if (!el) continue;
    if (spec.type === "integer") options[spec.key] = Number(el.value);
    else if (spec.type === "boolean") options[spec.key] = el.checked;
    else options[spec.key] = el.value;
  }
  return options;
}

/**
 * The home screen's forms, kept across re-renders: the page redraws when the open games arrive or the connection
 * opens, and a form built anew would forget the game the player had chosen and what they had typed.
 */
const kept = { create: null, createFor: null, join: new Map() };

function createForm(app) {
  if (kept.create && kept.createFor === app.catalogue) return kept.create;
  const form = buildCreateForm(app);
  if (!app.catalogue.length) return form;
  kept.create = form;
  kept.createFor = app.catalogue;
  return form;
}

function buildCreateForm(app) {
  const games = app.catalogue;
  if (!games.length) {
    return h("p", {}, "The list of games is not available yet.");
  }
  const form = h("form", { class: "create", "aria-labelledby": "create-h" });
  let selected = games[0].id;
  const optionsBox = h("fieldset", { class: "options" });
  const seatsInput = h("input", {
    id: "create-seats",
    name: "seats",
    type: "number",
    required: true,
    inputmode: "numeric",
  });
  const seatsHint = h("span", { class: "hint" });
  const absenceSelect = h("select", { id: "create-absent", name: "absent", "data-key": "create-absent" });
  const fillOptions = () => {
    const info = hooks.gameInfo(selected);
    optionsBox.replaceChildren(
      h("legend", {}, `${info.name} options`),
      ...(info.options.length ? info.options.map(optionField) : [h("p", { class: "hint" }, "This game has no options.")]),
    );
    seatsInput.min = info.min_players;
    seatsInput.max = info.max_players;
    seatsInput.value = info.min_players;
    seatsHint.textContent = ` ${info.min_players}–${info.max_players}`;
    absenceSelect.replaceChildren(...absenceChoices(info));
  };
  const select = h(
    "select",
    {
      id: "create-game",
      name: "game",
      "data-key": "create-game",
      onchange: (e) => {
        selected = e.target.value;
        fillOptions();
      },
    },
    games.map((g) => h("option", { value: g.id }, `${g.name} (${g.min_players}–${g.max_players} players)`)),
  );
  fillOptions();
  form.append(
    h("div", { class: "field" }, h("label", { for: "create-game" }, "Game"), select),
    h("div", { class: "field" }, h("label", { for: "create-seats" }, "Players", seatsHint), seatsInput),
    optionsBox,
    h(
      "div",
      { class: "field" },
      h("label", { for: "create-timer" }, "Turn timer"),
      h(
        "select",
        { id: "create-timer", name: "timer" },
        TURN_TIMERS.map(([v, label]) => h("option", { value: v }, label)),
      ),
    ),
    h("div", { class: "field" }, h("label", { for: "create-absent" }, "When a player is away"), absenceSelect),
    nameField("create-name"),
    h("button", { type: "submit", class: "primary", "data-key": "create-submit" }, "Create the game"),
  );
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const info = hooks.gameInfo(selected);
    submitting(form, () =>
      hooks.createLobby({
        game: selected,
        options: readOptions(form, info.options),
        seats: Number(seatsInput.value),
        name: form.elements.namedItem("name").value.trim(),
        turnTimerMs: Number(form.elements.namedItem("timer").value) || null,
        absent: readAbsence(form),
      }),
    );
  });
  return form;
}

function joinForm(code = "") {
  if (!kept.join.has(code)) kept.join.set(code, buildJoinForm(code));
  return kept.join.get(code);
}

function buildJoinForm(code) {
  const form = h(
    "form",
    { class: "join" },
    h(
      "div",
      { class: "field" },
      h("label", { for: "join-code" }, "Game code"),
      h("input", {
        id: "join-code",
        name: "code",
        required: true,
        autocomplete: "off",
        autocapitalize: "characters",
        spellcheck: "false",
        class: "code-input",
        value: code,
        "data-key": "join-code",
      }),
    ),
    nameField("join-name"),
    h(
      "div",
      { class: "buttons" },
      h("button", { type: "submit", class: "primary", "data-key": "join-submit" }, "Join"),
      h(
        "button",
        {
          type: "button",
          "data-key": "watch-submit",
          onclick: () => {
            const c = hooks.normaliseCode(form.elements.namedItem("code").value);
            if (!c) return form.elements.namedItem("code").focus();
            submitting(form, () => hooks.spectate(c));
          },
        },
        "Watch instead",
      ),
    ),
  );
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const c = hooks.normaliseCode(form.elements.namedItem("code").value);
    const name = form.elements.namedItem("name").value.trim();
    submitting(form, () => hooks.joinLobby(c, name));
  });
  return form;
}

export function renderHome(app) {
  return h(
    "div",
    { class: "home" },
    h(
      "section",
      { class: "panel intro" },
      h("h1", {}, "Play board games with friends"),
      h("p", {}, "Start a game and send the link, or join one with the code a friend gave you."),
    ),
    h("section", { class: "panel", "aria-labelledby": "create-h" }, h("h2", { id: "create-h" }, "Start a new game"), createForm(app)),
    h("section", { class: "panel", "aria-labelledby": "join-h" }, h("h2", { id: "join-h" }, "Join a game"), joinForm()),
    openGames(app.catalogue),
  );
}

export function renderJoin(app, code, peek = null) {
  const own = h("p", {}, h("a", { href: "#", onclick: () => (location.hash = "") }, t("state.join.own_game")));
  // The link's lobby was looked at first (app.js `peekLobby`): a started, finished or unknown game says so before
  // the form, and a started or finished one offers to watch instead.
  if (peek && peek.code === code && peek.checking) {
    return h(
      "section",
      { class: "panel join-only", "aria-labelledby": "join-h", "aria-busy": "true" },
      h("h1", { id: "join-h" }, t("state.join.checking", { code })),
    );
  }
  if (peek && peek.code === code && peek.missing) {
    return h(
      "section",
      { class: "panel join-only", "aria-labelledby": "join-h" },
      h("h1", { id: "join-h" }, t("state.join.missing", { code })),
      h("p", {}, t("state.join.missing_hint")),
      own,
    );
  }
  if (peek && peek.code === code && peek.phase && peek.phase !== "open") {
    const game = hooks.gameTitle(peek.game);
    const over = peek.phase === "finished";
    return h(
      "section",
      { class: "panel join-only started", "aria-labelledby": "join-h", "data-key": "started-link" },
      h("h1", { id: "join-h" }, t(over ? "state.join.finished" : "state.join.started", { code, game })),
      h("p", {}, t(over ? "state.join.finished_hint" : "state.join.started_hint")),
      h(
        "div",
        { class: "buttons" },
        h(
          "button",
          {
            type: "button",
            class: "primary",
            "data-key": "watch-started",
            "data-decision": "",
            onclick: () => hooks.spectate(code).catch(hooks.showError),
          },
          t(over ? "state.join.watch_finished" : "state.join.watch"),
        ),
      ),
      own,
    );
  }
  return h(
    "section",
    { class: "panel join-only", "aria-labelledby": "join-h" },
    h("h1", { id: "join-h" }, `Join game ${code}`),
    h("p", {}, "Type the name the other players will see."),
    joinForm(code),
    h("p", {}, h("a", { href: "#", onclick: () => (location.hash = "") }, "Start your own game instead")),
  );
}

function shareLink(code) {
  return `${location.origin}${location.pathname}#join=${code}`;
}

async function copy(text, what) {
  try {
    await navigator.clipboard.writeText(text);
    hooks.notify(`${what} copied.`, { kind: "info" });
  } catch {
    hooks.notify(`Copy did not work here: select the ${what.toLowerCase()} and copy it by hand.`, { kind: "info" });
  }
}

export function renderLobby(app) {
  const lobby = app.lobby;
  const me = app.session.seat;
  const host = app.session.host && !app.session.spectator;
  const free = lobby.seats.filter((s) => s.occupant.kind === "empty").length;
  const link = shareLink(lobby.code);
  const info = hooks.gameInfo(lobby.game);
  const optionText = info
    ? info.options.map((o) => `${o.label}: ${words(String(lobby.options?.[o.key] ?? o.default))}`)
    : Object.entries(lobby.options || {}).map(([k, v]) => `${words(k)}: ${v}`);
  if (lobby.turn_timer_ms) optionText.push(`Turn timer: ${Math.round(lobby.turn_timer_ms / 1000)} s`);
  const away = absenceWords(lobby.absent);
  if (away) optionText.push(away);

  const seats = h(
    "ol",
    { class: "seats", "aria-label": "Seats" },
    lobby.seats.map((s) => {
      const o = s.occupant;
      let who;
      if (o.kind === "empty") who = h("span", { class: "empty-seat" }, seatMarker(s.seat), "Waiting for a player…");
      else who = seatLabel(s.seat, o.name, { you: s.seat === me && !app.session.spectator });
      return h(
        "li",
        { class: `seat ${o.kind}`, "data-seat": s.seat },
        who,
        s.seat === lobby.host ? h("span", { class: "tag" }, "host") : null,
        o.kind === "bot" ? h("span", { class: "tag" }, "bot") : null,
        presenceTag(o),
        standInTag(s),
        host ? seatHostButtons(s, lobby, hooks.request) : null,
        host && o.kind === "empty"
          ? h(
              "button",
              {
                type: "button",
                class: "small",
                "data-key": `bot-${s.seat}`,
                onclick: () => hooks.request("add_bot", { seat: s.seat }),
              },
              "Add a bot here",
            )
          : null,
      );
    }),
  );

  const controls = [];
  if (host) {
    controls.push(
      h(
        "button",
        {
          type: "button",
          class: "primary",
          "data-key": "start",
          disabled: free > 0,
          "aria-describedby": "start-hint",
          onclick: () => hooks.request("start", {}),
        },
        "Start the game",
      ),
      h(
        "p",
        { id: "start-hint", class: "hint" },
        free > 0 ? `${free} seat${free > 1 ? "s" : ""} still empty: wait for friends or add bots.` : "Everyone is here.",
      ),
    );
    if (free > 0) {
      controls.push(
        h("button", { type: "button", "data-key": "add-bot", onclick: () => hooks.request("add_bot", {}) }, "Add a bot"),
      );
    }
  } else {
    const hostName = lobby.seats[lobby.host]?.occupant?.name || "the host";
    controls.push(h("p", { class: "hint" }, `Waiting for ${hostName} to start the game.`));
  }
  controls.push(
    h(
      "button",
      { type: "button", class: "quiet", "data-key": "leave", onclick: () => hooks.leave() },
      app.session.spectator ? "Stop watching" : "Leave",
    ),
  );

  return h(
    "section",
    { class: "panel lobby", "aria-labelledby": "lobby-h" },
    h("h1", { id: "lobby-h" }, hooks.gameTitle(lobby.game)),
    optionText.length ? h("p", { class: "hint" }, optionText.join(" · ")) : null,
    h(
      "div",
      { class: "share" },
      h("p", {}, "Game code"),
      h("p", { class: "code", id: "lobby-code", "aria-label": `Game code ${lobby.code.split("").join(" ")}` }, lobby.code),
      h(
        "div",
        { class: "buttons" },
        h("button", { type: "button", "data-key": "copy-link", onclick: () => copy(link, "Link") }, "Copy the link"),
        h("button", { type: "button", "data-key": "copy-code", onclick: () => copy(lobby.code, "Code") }, "Copy the code"),
      ),
      h("p", { class: "hint link" }, "Friends can open ", h("a", { href: link, id: "share-link" }, link), " to join."),
    ),
    h("h2", {}, `Seats (${lobby.seats.length - free} of ${lobby.seats.length} taken)`),
    seats,
    lobby.spectators ? h("p", { class: "hint" }, `${lobby.spectators} watching`) : null,
    app.session.spectator ? h("p", { class: "hint" }, "You are watching this game.") : null,
    h("div", { class: "controls" }, controls),
    host
      ? hostPanel(lobby, info, {
          request: hooks.request,
          optionField,
          readOptions,
          timers: TURN_TIMERS,
          absence: () => (info ? absenceChoices(info, lobby.absent) : []),
          readAbsence,
        })
      : null,
    chatPanel(app.session.spectator),
  );
}

/** The lobby's absence policy in words, or null for the default (wait). */
export function absenceWords(absent) {
  if (!absent || absent.policy === "wait") return null;
  const after = absent.grace_ms ? ` after ${Math.round(absent.grace_ms / 1000)} s` : " at once";
  return absent.policy === "bot" ? `Away players: a bot plays for them${after}` : `Away players: skipped${after}`;
}

/** The "a bot is playing for X" badge of a seat whose absent player the server stands in for. */
export function standInTag(seat) {
  const o = seat.occupant;
  if (o.kind !== "human" || !o.stand_in) return null;
  return h(
    "span",
    { class: "tag stand-in", "data-key": `stand-in-${seat.seat}`, title: `${o.name} is away; the server plays for them until they are back` },
    `a bot is playing for ${o.name}`,
  );
}

/** Plain words for what changed between two lobby pushes: joins, departures, bots, connections, the start. */
export function lobbyChanges(before, after, me) {
  if (!before || before.code !== after.code) return [];
  const out = [];
  const nameOf = (o) => o.name;
  for (const s of after.seats) {
    const was = before.seats.find((b) => b.seat === s.seat)?.occupant || { kind: "empty" };
    const now = s.occupant;
    const mine = s.seat === me;
    if (was.kind === "empty" && now.kind === "human" && !mine) out.push(`${nameOf(now)} sat down at seat ${s.seat + 1}.`);
    else if (was.kind === "empty" && now.kind === "bot") out.push(`A bot (${nameOf(now)}) sat down at seat ${s.seat + 1}.`);
    else if (was.kind !== "empty" && now.kind === "empty") out.push(`${nameOf(was)} left seat ${s.seat + 1}.`);
    else if (was.kind === "human" && now.kind === "human" && !mine) {
      if (was.connected && !now.connected) out.push(`${nameOf(now)} lost the connection.`);
      if (!was.connected && now.connected) out.push(`${nameOf(now)} is back.`);
    }
    if (was.kind === "human" && now.kind === "human") {
      if (!was.stand_in && now.stand_in) out.push(`A bot is playing for ${nameOf(now)} while they are away.`);
      if (was.stand_in && !now.stand_in) out.push(`${mine ? "You have" : `${nameOf(now)} has`} the seat back.`);
    }
  }
  if (before.host !== after.host) {
    const host = after.seats.find((s) => s.seat === after.host)?.occupant;
    out.push(after.host === me ? "You are now the host." : `${host?.name || "Someone"} is now the host.`);
  }
  const settings = (l) => JSON.stringify([l.options, l.turn_timer_ms, l.seats.length]);
  if (after.phase === "open" && settings(before) !== settings(after)) out.push("The host changed the game's settings.");
  if (after.phase === "open" && !before.listed && after.listed) out.push("The game is now listed on the start page.");
  if (after.phase === "open" && before.listed && !after.listed) out.push("The game is now private.");
  if (before.phase === "open" && after.phase === "playing") out.push("The game has started.");
  return out;
}
