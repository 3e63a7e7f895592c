// The lobby screens: the start page (create a game, join by code, watch), the join form behind a shared link, and
// the lobby itself (share the code, seats filling live, bots, start).

import { h, seatLabel, seatMarker } from "./ui.js";
import * as store from "./store.js";
import { words } from "./words.js";
import { t, tParts, hasKey } from "./i18n.js";
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

/** A length of time in words: "30 seconds", "2 minutes", "90 seconds". */
export function duration(ms) {
  const s = Math.round(ms / 1000);
  if (s >= 60 && s % 60 === 0) return t("common.minutes", { n: s / 60 });
  return t("common.seconds", { n: s });
}

/** The turn timers the page offers: [value in milliseconds as the server takes it, or "" for none]. */
const TURN_TIMERS = ["", "30000", "60000", "120000", "300000"];

/** The turn timer choices, in words: [value, label]. */
function turnTimers() {
  return TURN_TIMERS.map((v) => [v, v ? duration(Number(v)) : t("lobby.timer.none")]);
}

/** What happens to a player who is away: the lobby's absence policy (see docs/protocol.md, "Absent players"). */
const ABSENCE = [
  ["wait", 0],
  ["bot", 10000],
  ["bot", 30000],
  ["bot", 120000],
  ["skip", 30000],
];

function absenceLabel(policy, grace) {
  if (policy === "bot") return t("lobby.absent.bot", { time: duration(grace) });
  if (policy === "skip") return t("lobby.absent.skip", { time: duration(grace) });
  return t("lobby.absent.wait");
}

function absenceChoices(info, current) {
  const chosen = current ? `${current.policy}:${current.grace_ms}` : "wait:0";
  const choices = ABSENCE.filter(([policy]) => policy !== "skip" || info.can_skip).map(([policy, grace]) =>
    h("option", { value: `${policy}:${grace}`, selected: `${policy}:${grace}` === chosen }, absenceLabel(policy, grace)),
  );
  // A policy set by another client that the list does not offer stays shown as it is.
  if (current && !choices.some((o) => o.value === chosen)) {
    choices.push(h("option", { value: chosen, selected: true }, absenceWords(current) || t("lobby.absent.wait")));
  }
  return choices;
}

/**
 * Options the server counts in milliseconds (their key ends in `_ms`) are shown and typed in seconds; the page
 * converts both ways.
 */
function inSeconds(spec) {
  return spec.type === "integer" && /_ms$/.test(spec.key);
}

/** An option's name in the page's language (the server's English label for an option the catalogue lacks). */
export function optionLabel(game, spec) {
  const key = `lobby.option.${game}.${spec.key}`;
  return hasKey(key) ? t(key) : spec.label;
}

/** An option's value in the page's language: a choice by its own words, seconds for times, yes or no. */
export function optionValue(game, spec, value) {
  if (spec.type === "boolean") return value ? t("common.yes") : t("common.no");
  if (inSeconds(spec)) return t("common.seconds_short", { n: Number(value) / 1000 });
  const key = `lobby.option.${game}.${spec.key}.${value}`;
  return hasKey(key) ? t(key) : words(String(value));
}

/** The lobby's options as "name: value" lines. */
function optionLines(info, options) {
  if (!info) return Object.entries(options || {}).map(([k, v]) => `${words(k)}: ${words(String(v))}`);
  return info.options.map((o) => `${optionLabel(info.id, o)}: ${optionValue(info.id, o, options?.[o.key] ?? o.default)}`);
}
export { optionLines };

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
    h("label", { for: id }, t("lobby.your_name")),
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

/** One option's field; `game` names the game whose option it is (for its words). */
function optionField(spec, game) {
  const id = `opt-${spec.key}`;
  const label = optionLabel(game, spec);
  let control;
  let range = null;
  if (spec.type === "integer") {
    const scale = inSeconds(spec) ? 1000 : 1;
    control = h("input", {
      id,
      name: spec.key,
      type: "number",
      min: spec.min / scale,
      max: spec.max / scale,
      // Half seconds where the option's bounds and default allow (a value off the step blocks the form), else
      // hundredths (Hide and Eeek!'s reaction floor: 0.15 s).
      step: scale === 1 ? 1 : [spec.min, spec.max, spec.default].every((v) => v % 500 === 0) ? 0.5 : 0.01,
      value: spec.default / scale,
      required: true,
      inputmode: scale === 1 ? "numeric" : "decimal",
    });
    range = h(
      "span",
      { class: "hint" },
      " ",
      scale === 1
        ? `${spec.min}–${spec.max}`
        : t("lobby.seconds_range", { min: spec.min / scale, max: spec.max / scale }),
    );
  } else if (spec.type === "boolean") {
    return h(
      "div",
      { class: "field check" },
      h("input", { id, name: spec.key, type: "checkbox", checked: spec.default }),
      h("label", { for: id }, label),
    );
  } else {
    control = h(
      "select",
      { id, name: spec.key },
      spec.values.map((v) => h("option", { value: v, selected: v === spec.default }, optionValue(game, spec, v))),
    );
  }
  return h("div", { class: "field" }, h("label", { for: id }, label, range), control);
}

function readOptions(form, specs) {
  const options = {};
  for (const spec of specs) {
    const el = form.elements.namedItem(spec.key);
    if (!el) continue;
    if (inSeconds(spec)) options[spec.key] = Math.round(Number(el.value) * 1000);
    else if (spec.type === "integer") options[spec.key] = Number(el.value);
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

/**
 * Drops the kept forms so the next render builds them in the current language, carrying over what was chosen and
 * typed (by field id).
 */
export function forgetForms() {
  const carried = new Map();
  for (const form of [kept.create, ...kept.join.values()]) {
    if (!form) continue;
    for (const el of form.querySelectorAll("input, select")) {
      if (el.id) carried.set(el.id, el.type === "checkbox" ? el.checked : el.value);
    }
  }
  kept.create = null;
  kept.createFor = null;
  kept.join.clear();
  kept.carried = carried;
}

/** Puts back what `forgetForms` carried over into a form built anew. */
function restore(form) {
  const carried = kept.carried;
  if (!carried || !carried.size) return form;
  const game = form.querySelector("#create-game");
  if (game && carried.has("create-game") && game.value !== carried.get("create-game")) {
    game.value = carried.get("create-game");
    game.dispatchEvent(new Event("change"));
  }
  for (const el of form.querySelectorAll("input, select")) {
    if (!el.id || el.id === "create-game" || !carried.has(el.id)) continue;
    if (el.type === "checkbox") el.checked = carried.get(el.id);
    else el.value = carried.get(el.id);
    carried.delete(el.id);
  }
  return form;
}

function createForm(app) {
  if (kept.create && kept.createFor === app.catalogue) return kept.create;
  const form = buildCreateForm(app);
  if (!app.catalogue.length) return form;
  kept.create = restore(form);
  kept.createFor = app.catalogue;
  return form;
}

/** "2–4 players · about 45 minutes" for a game of the catalogue. */
export function gameFacts(info) {
  const players =
    info.min_players === info.max_players
      ? t("lobby.players_exact", { n: info.min_players })
      : t("lobby.players_range", { min: info.min_players, max: info.max_players });
  const timeKey = `lobby.game.${info.id}.time`;
  return hasKey(timeKey) ? `${players} · ${t(timeKey)}` : players;
}

/** A game's short description, when the catalogue has one. */
export function gameAbout(id) {
  const key = `lobby.game.${id}.about`;
  return hasKey(key) ? t(key) : "";
}

function buildCreateForm(app) {
  const games = app.catalogue;
  if (!games.length) {
    return h("p", {}, t("lobby.no_games_yet"));
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
  const about = h("p", { class: "game-about", id: "create-about" });
  const facts = h("p", { class: "game-facts hint", id: "create-facts" });
  const absenceSelect = h("select", { id: "create-absent", name: "absent", "data-key": "create-absent" });
  const fillOptions = () => {
    const info = hooks.gameInfo(selected);
    optionsBox.replaceChildren(
      h("legend", {}, t("lobby.options_legend", { game: hooks.gameTitle(selected) })),
      ...(info.options.length
        ? info.options.map((spec) => optionField(spec, info.id))
        : [h("p", { class: "hint" }, t("lobby.no_options"))]),
    );
    about.textContent = gameAbout(info.id);
    facts.textContent = gameFacts(info);
    seatsInput.min = info.min_players;
    seatsInput.max = info.max_players;
    // Two seats where the game allows them: a table for one is never what a host who shares a link means.
    seatsInput.value = Math.min(Math.max(2, info.min_players), info.max_players);
    seatsHint.textContent = ` ${info.min_players}–${info.max_players}`;
    absenceSelect.replaceChildren(...absenceChoices(info));
  };
  const select = h(
    "select",
    {
      id: "create-game",
      name: "game",
      "data-key": "create-game",
      "aria-describedby": "create-about create-facts",
      onchange: (e) => {
        selected = e.target.value;
        fillOptions();
      },
    },
    games.map((g) => h("option", { value: g.id }, hooks.gameTitle(g.id))),
  );
  fillOptions();
  form.append(
    h(
      "div",
      { class: "create-main" },
      h("div", { class: "field" }, h("label", { for: "create-game" }, t("lobby.game")), select),
      about,
      facts,
      h(
        "div",
        { class: "field-row" },
        h("div", { class: "field" }, h("label", { for: "create-seats" }, t("lobby.players"), seatsHint), seatsInput),
        nameField("create-name"),
      ),
      h("button", { type: "submit", class: "primary", "data-key": "create-submit" }, t("lobby.create")),
    ),
    h(
      "div",
      { class: "create-settings" },
      optionsBox,
      h(
        "div",
        { class: "field" },
        h("label", { for: "create-timer" }, t("lobby.turn_timer")),
        h(
          "select",
          { id: "create-timer", name: "timer" },
          turnTimers().map(([v, label]) => h("option", { value: v }, label)),
        ),
      ),
      h("div", { class: "field" }, h("label", { for: "create-absent" }, t("lobby.away")), absenceSelect),
      h("p", { class: "hint" }, t("lobby.settings_later")),
    ),
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
  if (!kept.join.has(code)) kept.join.set(code, restore(buildJoinForm(code)));
  return kept.join.get(code);
}

function buildJoinForm(code) {
  const form = h(
    "form",
    { class: "join" },
    h(
      "div",
      { class: "field" },
      h("label", { for: "join-code" }, t("lobby.code")),
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
      h("button", { type: "submit", class: "primary", "data-key": "join-submit" }, t("lobby.join")),
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
        t("lobby.watch"),
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
      { class: "panel create-panel", "aria-labelledby": "create-h" },
      h("h1", { id: "create-h" }, t("lobby.home.create_h")),
      h("p", { class: "intro-line" }, t("lobby.home.intro")),
      createForm(app),
    ),
    h(
      "div",
      { class: "home-side" },
      h("section", { class: "panel", "aria-labelledby": "join-h" }, h("h2", { id: "join-h" }, t("lobby.home.join_h")), joinForm()),
      openGames(app.catalogue, { gameTitle: hooks.gameTitle, optionLines, duration }),
    ),
  );
}

export function renderJoin(app, code, peek = null) {
  const own = h("p", {}, h("a", { href: "#", onclick: () => (location.hash = "") }, t("state.join.own_game")));
  // The link's lobby is looked at first (app.js `peekLobby`): a started, finished or unknown game says so before
  // the form, and a started or finished one offers to watch instead. Until the look has ended (no connection yet,
  // or the answer on its way) the page says it is checking: a form drawn before would be taken away under the
  // player's fingers when the look starts.
  if (!peek || peek.code !== code || peek.checking) {
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
  // A lobby with every seat taken says so before the form (no Join that can only be refused): the joiner can watch.
  if (peek && peek.code === code && ((peek.phase && peek.phase !== "open") || peek.full)) {
    const game = hooks.gameTitle(peek.game);
    const over = peek.phase === "finished";
    const which = over ? "finished" : peek.phase === "open" ? "full" : "started";
    const kind = which === "full" ? "full" : "started";
    return h(
      "section",
      { class: `panel join-only ${kind}`, "aria-labelledby": "join-h", "data-key": `${kind}-link` },
      h("h1", { id: "join-h" }, t(`state.join.${which}`, { code, game })),
      h("p", {}, t(`state.join.${which}_hint`)),
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
    h("h1", { id: "join-h" }, t("lobby.join_title", { code })),
    h("p", {}, t("lobby.join_hint")),
    joinForm(code),
    h("p", {}, h("a", { href: "#", onclick: () => (location.hash = "") }, t("lobby.own_game"))),
  );
}

/** A join code as people read it: groups of four joined by dashes (an old six-character code stays whole). */
function groupCode(code) {
  return code.length === 16 ? code.match(/.{4}/g).join("-") : code;
}

/** The code shown in groups of four, spaced by the style sheet: its text stays the code itself. */
function codeGroups(code) {
  return groupCode(code).split("-").map((g) => h("span", { class: "code-group" }, g));
}

function shareLink(code) {
  return `${location.origin}${location.pathname}#join=${code}`;
}

/** Copies the link or the code (`what`: "link" or "code"), saying whether it worked. */
async function copy(text, what) {
  try {
    await navigator.clipboard.writeText(text);
    hooks.notify(t(`lobby.copied.${what}`), { kind: "info" });
  } catch {
    hooks.notify(t(`lobby.copy_failed.${what}`), { kind: "info" });
  }
}

export function renderLobby(app) {
  const lobby = app.lobby;
  const me = app.session.seat;
  const host = app.session.host && !app.session.spectator;
  const free = lobby.seats.filter((s) => s.occupant.kind === "empty").length;
  const link = shareLink(lobby.code);
  const info = hooks.gameInfo(lobby.game);
  const optionText = optionLines(info, lobby.options);
  if (lobby.turn_timer_ms) optionText.push(t("lobby.timer_line", { time: duration(lobby.turn_timer_ms) }));
  const away = absenceWords(lobby.absent);
  if (away) optionText.push(away);

  const seats = h(
    "ol",
    { class: "seats", "aria-label": t("lobby.seats_label") },
    lobby.seats.map((s) => {
      const o = s.occupant;
      let who;
      if (o.kind === "empty") who = h("span", { class: "empty-seat" }, seatMarker(s.seat), t("lobby.waiting_player"));
      else who = seatLabel(s.seat, o.name, { you: s.seat === me && !app.session.spectator });
      return h(
        "li",
        { class: `seat ${o.kind}`, "data-seat": s.seat },
        who,
        s.seat === lobby.host ? h("span", { class: "tag" }, t("lobby.host_tag")) : null,
        o.kind === "bot" ? h("span", { class: "tag" }, t("common.bot")) : null,
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
              t("lobby.add_bot_here"),
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
        t("lobby.start"),
      ),
      h("p", { id: "start-hint", class: "hint" }, free > 0 ? t("lobby.seats_empty", { n: free }) : t("lobby.everyone_here")),
    );
    if (free > 0) {
      controls.push(
        h("button", { type: "button", "data-key": "add-bot", onclick: () => hooks.request("add_bot", {}) }, t("lobby.add_bot")),
      );
    }
  } else {
    const hostName = lobby.seats[lobby.host]?.occupant?.name || t("lobby.the_host");
    controls.push(h("p", { class: "hint" }, t("lobby.waiting_host", { name: hostName })));
  }
  controls.push(
    h(
      "button",
      { type: "button", class: "quiet", "data-key": "leave", onclick: () => hooks.leave() },
      app.session.spectator ? t("lobby.stop_watching") : t("lobby.leave"),
    ),
  );

  const about = gameAbout(lobby.game);
  return h(
    "section",
    { class: "panel lobby", "aria-labelledby": "lobby-h" },
    h("h1", { id: "lobby-h" }, hooks.gameTitle(lobby.game)),
    optionText.length ? h("p", { class: "hint" }, optionText.join(" · ")) : null,
    about ? h("p", { class: "game-about" }, about, info ? ` (${gameFacts(info)})` : "") : null,
    hooks.rulesButton ? hooks.rulesButton(lobby.game) : null,
    h(
      "div",
      { class: "share" },
      h("p", {}, t("lobby.code")),
      h("p", { class: "code", id: "lobby-code", "aria-label": t("lobby.code_spelt", { code: lobby.code.split("").join(" ") }) }, codeGroups(lobby.code)),
      h(
        "div",
        { class: "buttons" },
        h("button", { type: "button", "data-key": "copy-link", onclick: () => copy(link, "link") }, t("lobby.copy_link")),
        h("button", { type: "button", "data-key": "copy-code", onclick: () => copy(groupCode(lobby.code), "code") }, t("lobby.copy_code")),
      ),
      h("p", { class: "hint link" }, tParts("lobby.share", { link: h("a", { href: link, id: "share-link" }, link) })),
    ),
    h("h2", {}, t("lobby.seats_h", { taken: lobby.seats.length - free, n: lobby.seats.length })),
    seats,
    lobby.spectators ? h("p", { class: "hint" }, t("lobby.watching", { n: lobby.spectators })) : null,
    app.session.spectator ? h("p", { class: "hint" }, t("lobby.you_watch")) : null,
    h("div", { class: "controls" }, controls),
    host
      ? hostPanel(lobby, info, {
          request: hooks.request,
          optionField,
          readOptions,
          timers: turnTimers(),
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
  const seconds = Math.round(absent.grace_ms / 1000);
  if (absent.policy === "bot") {
    return absent.grace_ms ? t("lobby.away.bot_after", { n: seconds }) : t("lobby.away.bot_now");
  }
  return absent.grace_ms ? t("lobby.away.skip_after", { n: seconds }) : t("lobby.away.skip_now");
}

/** The "a bot is playing for X" badge of a seat whose absent player the server stands in for. */
export function standInTag(seat) {
  const o = seat.occupant;
  if (o.kind !== "human" || !o.stand_in) return null;
  return h(
    "span",
    { class: "tag stand-in", "data-key": `stand-in-${seat.seat}`, title: t("lobby.stand_in_title", { name: o.name }) },
    t("lobby.stand_in", { name: o.name }),
  );
}

/** Plain words for what changed between two lobby pushes: joins, departures, bots, connections, the start.
 * `seen` (at a rematch's table): the seats seen connected there so far; another seat's first connection is no
 * return, so it gets no "is back" line. */
export function lobbyChanges(before, after, me, seen = null) {
  if (!before || before.code !== after.code) return [];
  const out = [];
  for (const s of after.seats) {
    const was = before.seats.find((b) => b.seat === s.seat)?.occupant || { kind: "empty" };
    const now = s.occupant;
    const mine = s.seat === me;
    const n = s.seat + 1;
    if (was.kind === "empty" && now.kind === "human" && !mine) out.push(msg("lobby.change.sat", { name: now.name, n }));
    else if (was.kind === "empty" && now.kind === "bot") out.push(msg("lobby.change.bot_sat", { name: now.name, n }));
    else if (was.kind !== "empty" && now.kind === "empty") out.push(msg("lobby.change.left", { name: was.name, n }));
    else if (was.kind === "human" && now.kind === "human" && !mine) {
      if (was.connected && !now.connected) out.push(msg("lobby.change.lost", { name: now.name }));
      if (!was.connected && now.connected && (!seen || seen.has(s.seat))) out.push(msg("lobby.change.back", { name: now.name }));
    }
    if (was.kind === "human" && now.kind === "human") {
      if (!was.stand_in && now.stand_in) out.push(msg("lobby.change.stand_in", { name: now.name }));
      if (was.stand_in && !now.stand_in) {
        out.push(mine ? msg("lobby.change.seat_back_you") : msg("lobby.change.seat_back", { name: now.name }));
      }
    }
  }
  if (before.host !== after.host) {
    const host = after.seats.find((s) => s.seat === after.host)?.occupant;
    out.push(after.host === me ? msg("lobby.change.host_you") : msg("lobby.change.host", { name: host?.name || { key: "common.someone" } }));
  }
  const settings = (l) => JSON.stringify([l.options, l.turn_timer_ms, l.seats.length]);
  if (after.phase === "open" && settings(before) !== settings(after)) out.push(msg("lobby.change.settings"));
  if (after.phase === "open" && !before.listed && after.listed) out.push(msg("lobby.change.listed"));
  if (after.phase === "open" && before.listed && !after.listed) out.push(msg("lobby.change.private"));
  if (before.phase === "open" && after.phase === "playing") out.push(msg("lobby.change.started"));
  return out;
}

/** A log line as data: a catalogue key and its parameters (a parameter may itself be `{ key, params }`), put in
 * words in the page's language when shown. */
function msg(key, params) {
  return params ? { key, params } : { key };
}
