// The lobby screens: the start page (create a game, join by code, watch), the join form behind a shared link, and
// the lobby itself (share the code, seats filling live, bots, start).

import { h, seatLabel, seatMarker } from "./ui.js";
import * as store from "./store.js";
import { renderMyTables } from "./inbox.js";
import { words } from "./words.js";
import { t, tParts, hasKey, listOf } from "./i18n.js";
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

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** A long time in words: "2 days 3 hours", "5 hours", "40 minutes" (correspondence clocks). */
export function longDuration(ms) {
  const minutes = Math.max(0, Math.floor(ms / 60_000));
  const days = Math.floor(minutes / 1440);
  const hours = Math.floor((minutes % 1440) / 60);
  if (days) return hours ? `${t("common.days", { n: days })} ${t("common.hours", { n: hours })}` : t("common.days", { n: days });
  if (hours) return minutes % 60 ? `${t("common.hours", { n: hours })} ${t("common.minutes", { n: minutes % 60 })}` : t("common.hours", { n: hours });
  return t("common.minutes", { n: minutes });
}

/** The correspondence paces the page offers: the time each move adds (1 hour to 14 days, docs/protocol.md). */
const MOVE_TIMES = [HOUR_MS, 6 * HOUR_MS, 12 * HOUR_MS, DAY_MS, 2 * DAY_MS, 3 * DAY_MS, 7 * DAY_MS, 14 * DAY_MS];

/** A correspondence bank's cap for a time per move: three moves' worth, within the server's 30 days. */
function bankCap(moveMs) {
  return Math.min(Math.max(3 * moveMs, moveMs), 30 * DAY_MS);
}

/** The pace choices: live, or a time per move by correspondence. */
function paceChoices() {
  return [
    h("option", { value: "" }, t("lobby.pace.live")),
    ...MOVE_TIMES.map((ms) => h("option", { value: String(ms) }, t("lobby.pace.per_move", { time: longDuration(ms) }))),
  ];
}

/** What happens when a correspondence clock runs out: the stall policies a game allows. */
function stallChoices(info) {
  return ["bot", "skip", "end"]
    .filter((policy) => policy !== "skip" || info.can_skip)
    .map((policy) => h("option", { value: policy }, t(`lobby.stall.${policy}`)));
}

/** The form's pace: `{ kind: "live" }` or a correspondence pace. */
function readPace(form) {
  const move = Number(form.elements.namedItem("pace")?.value) || 0;
  if (!move) return { kind: "live" };
  return { kind: "correspondence", move_ms: move, bank_cap_ms: bankCap(move), stall: form.elements.namedItem("stall")?.value || "bot" };
}

/** A lobby's pace in words, for its settings line ("Correspondence: 1 day a turn, up to 3 days"). */
export function paceWords(pace) {
  if (!pace || pace.kind !== "correspondence") return null;
  return t("lobby.pace.line", { time: longDuration(pace.move_ms), cap: longDuration(pace.bank_cap_ms), stall: t(`lobby.stall.${pace.stall}`) });
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

/**
 * Whether an option changes anything at a table of `seats` (the catalogue's `players` range, absent when it always
 * does: Molehills' grid for three players matters at three only). Unknown seats: it may.
 */
export function optionApplies(spec, seats) {
  if (!spec.players || !Number.isFinite(seats)) return true;
  return seats >= spec.players.min && seats <= spec.players.max;
}

/** The lobby's options as "name: value" lines, leaving out those that change nothing at a table of `seats`. */
function optionLines(info, options, seats) {
  if (!info) return Object.entries(options || {}).map(([k, v]) => `${words(k)}: ${words(String(v))}`);
  return info.options
    .filter((o) => optionApplies(o, seats))
    .map((o) => `${optionLabel(info.id, o)}: ${optionValue(info.id, o, options?.[o.key] ?? o.default)}`);
}
export { optionLines };

/** Hides the option fields of `box` (marked `data-option`) that change nothing at a table of `seats`. */
function showApplicable(box, specs, seats) {
  for (const spec of specs) {
    const field = box.querySelector(`[data-option="${spec.key}"]`);
    if (field) field.hidden = !optionApplies(spec, seats);
  }
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

function nameField(id, value = store.playerName(), required = true) {
  return h(
    "div",
    { class: "field" },
    h("label", { for: id }, t("lobby.your_name")),
    h("input", {
      id,
      name: "name",
      required,
      maxlength: "24",
      autocomplete: "nickname",
      value,
      "data-key": id,
    }),
  );
}

/** Who is watching: the names spectators gave and how many more watch without one ("Watching: Cy and 1 other");
 * null when nobody is. */
export function watchersText(lobby) {
  const n = lobby?.spectators || 0;
  if (!n) return null;
  const names = (lobby.watchers || []).slice(0, n);
  if (!names.length) return t("lobby.watching", { n });
  const more = n - names.length;
  return t("lobby.watchers", { names: listOf(more > 0 ? [...names, t("lobby.watchers_more", { n: more })] : names) });
}

/** The forms of a spectator's choices, kept across re-renders (a push redraws the page under the typing):
 * the name to watch under on a started game's link, and the name to play under when taking a free seat. */
const keptWatch = { watch: new Map(), seat: new Map() };

/** Watching a started, full or finished game from its link: under a name (remembered, as joining does). */
function watchForm(code, label) {
  if (keptWatch.watch.has(code)) return keptWatch.watch.get(code);
  const form = h(
    "form",
    { class: "watch", "data-key": "watch-form" },
    // Optional: a spectator without a name is counted, not named.
    nameField("watch-name", store.playerName(), false),
    h("p", { class: "hint" }, t("lobby.watch_name_hint")),
    h(
      "div",
      { class: "buttons" },
      h("button", { type: "submit", class: "primary", "data-key": "watch-started", "data-decision": "" }, label),
    ),
  );
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const name = form.elements.namedItem("name").value.trim();
    submitting(form, () => hooks.spectate(code, null, name));
  });
  keptWatch.watch.set(code, restore(form));
  return form;
}

/** A spectator of an open lobby with a free seat takes it without leaving first. */
function takeSeatForm(code, name) {
  if (keptWatch.seat.has(code)) return keptWatch.seat.get(code);
  const form = h(
    "form",
    { class: "take-seat", "data-key": "take-seat-form" },
    h("p", { class: "hint" }, t("lobby.take_seat_hint")),
    nameField("seat-name", name || store.playerName()),
    h("div", { class: "buttons" }, h("button", { type: "submit", class: "primary", "data-key": "take-seat" }, t("lobby.take_seat"))),
  );
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const chosen = form.elements.namedItem("name").value.trim();
    submitting(form, () => hooks.joinLobby(code, chosen));
  });
  keptWatch.seat.set(code, restore(form));
  return form;
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
      { class: "field check", "data-option": spec.key },
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
  return h("div", { class: "field", "data-option": spec.key }, h("label", { for: id }, label, range), control);
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
  for (const form of [kept.create, ...kept.join.values(), ...keptWatch.watch.values(), ...keptWatch.seat.values()]) {
    if (!form) continue;
    for (const el of form.querySelectorAll("input, select")) {
      if (el.id) carried.set(el.id, el.type === "checkbox" ? el.checked : el.value);
    }
  }
  kept.create = null;
  kept.createFor = null;
  kept.join.clear();
  keptWatch.watch.clear();
  keptWatch.seat.clear();
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
  const stallSelect = h("select", { id: "create-stall", name: "stall", "data-key": "create-stall" });
  const timerSelect = h(
    "select",
    { id: "create-timer", name: "timer" },
    turnTimers().map(([v, label]) => h("option", { value: v }, label)),
  );
  // A correspondence table has no turn timer and waits for an absent player until their clock runs out.
  const paceChanged = () => {
    const correspondence = Boolean(Number(paceSelect.value));
    stallSelect.closest(".field").hidden = !correspondence;
    timerSelect.closest(".field").hidden = correspondence;
    absenceSelect.closest(".field").hidden = correspondence;
  };
  const paceSelect = h("select", { id: "create-pace", name: "pace", "data-key": "create-pace", onchange: paceChanged }, paceChoices());
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
    stallSelect.replaceChildren(...stallChoices(info));
    showApplicable(optionsBox, info.options, Number(seatsInput.value));
  };
  // An option that changes nothing at the chosen table size is hidden (and shown again when the size changes).
  seatsInput.addEventListener("input", () => {
    showApplicable(optionsBox, hooks.gameInfo(selected).options, Number(seatsInput.value));
  });
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
      h("div", { class: "field" }, h("label", { for: "create-pace" }, t("lobby.pace")), paceSelect),
      h("div", { class: "field", hidden: true }, h("label", { for: "create-stall" }, t("lobby.stall")), stallSelect),
      h("div", { class: "field" }, h("label", { for: "create-timer" }, t("lobby.turn_timer")), timerSelect),
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
        ...(readPace(form).kind === "live"
          ? { turnTimerMs: Number(form.elements.namedItem("timer").value) || null, absent: readAbsence(form) }
          : { turnTimerMs: null, absent: null }),
        pace: readPace(form),
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
            // Watched under the name typed for joining, when there is one.
            const name = form.elements.namedItem("name").value.trim();
            submitting(form, () => hooks.spectate(c, null, name || null));
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

/**
 * Chooses `game` in the create form and brings the form into view, focus on the name (a game card's "Create a
 * table"): the card's choice is the form's, and the rest of the form is as the player left it.
 */
function chooseGame(game) {
  const select = document.getElementById("create-game");
  if (!select) return;
  if (select.value !== game) {
    select.value = game;
    select.dispatchEvent(new Event("change"));
  }
  const panel = document.getElementById("create-panel");
  panel?.scrollIntoView({ block: "start" });
  const name = document.getElementById("create-name");
  (name && !name.value ? name : document.querySelector("[data-key=create-submit]"))?.focus({ preventScroll: true });
}

/** One game of the start page: its picture (drawn by its screen), name, players and time, a few lines, "How to
 * play" (the rules dialog, nothing created) and "Create a table" (the form below, with this game chosen). */
function gameCard(info) {
  const title = hooks.gameTitle(info.id);
  const picture = hooks.gamePicture ? hooks.gamePicture(info.id) : null;
  return h(
    "li",
    { class: "game-card", "data-game": info.id },
    picture ? h("div", { class: "game-picture", "aria-hidden": "true" }, picture) : null,
    h(
      "div",
      { class: "game-card-text" },
      h("h2", { id: `game-h-${info.id}` }, title),
      h("p", { class: "game-facts hint" }, gameFacts(info)),
      h("p", { class: "game-about" }, gameAbout(info.id)),
      h(
        "div",
        { class: "buttons" },
        hooks.rulesButton ? hooks.rulesButton(info.id, `rules-open-${info.id}`) : null,
        h(
          "button",
          {
            type: "button",
            class: "primary small",
            "data-key": `create-${info.id}`,
            "aria-label": t("lobby.home.create_table_for", { game: title }),
            onclick: () => chooseGame(info.id),
          },
          t("lobby.home.create_table"),
        ),
      ),
    ),
  );
}

export function renderHome(app) {
  const games = app.catalogue.length
    ? h("ul", { class: "game-cards", id: "game-cards" }, app.catalogue.map(gameCard))
    : h("p", {}, t("lobby.no_games_yet"));
  return h(
    "div",
    { class: "home" },
    renderMyTables(hooks.gameTitle, () => hooks.render()),
    h(
      "section",
      { class: "panel games-panel", "aria-labelledby": "games-h" },
      h("h1", { id: "games-h" }, t("lobby.home.games_h")),
      h("p", { class: "intro-line" }, t("lobby.home.intro")),
      h(
        "p",
        { class: "home-jump" },
        h("a", { href: "#create-panel", "data-key": "jump-create", onclick: jumpTo("create-panel") }, t("lobby.home.jump_create")),
        " · ",
        h("a", { href: "#join-h", "data-key": "jump-join", onclick: jumpTo("join-h") }, t("lobby.home.jump_join")),
        " · ",
        h("a", { href: "#open-h", "data-key": "jump-open", onclick: jumpTo("open-h") }, t("lobby.home.jump_open")),
      ),
      games,
    ),
    h(
      "section",
      { class: "panel create-panel", id: "create-panel", "aria-labelledby": "create-h" },
      h("h2", { id: "create-h" }, t("lobby.home.create_h")),
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

/** A link within the start page that scrolls to a section without changing the address (the address routes). */
function jumpTo(id) {
  return (event) => {
    event.preventDefault();
    const target = document.getElementById(id);
    if (!target) return;
    target.scrollIntoView({ block: "start" });
    const field = target.closest("section")?.querySelector("input, select, button, a[href]");
    field?.focus({ preventScroll: true });
  };
}

/**
 * The invitation a lobby's link carries, in the page's language: who invites, to which game, how many seats are
 * free ("Ann invites you to play Mountains out of Molehills (1 of 2 seats free)"). `host` may be unknown.
 */
export function invitation({ game, host, free, seats }) {
  const params = { game: hooks.gameTitle(game), free, n: seats };
  return host ? t("lobby.invite.text", { ...params, name: host }) : t("lobby.invite.text_anon", params);
}

/** What the open lobby `lobby` invites to (for its share text and copy). */
function lobbyInvitation(lobby) {
  const host = lobby.seats.find((s) => s.seat === lobby.host)?.occupant;
  const free = lobby.seats.filter((s) => s.occupant.kind === "empty").length;
  return invitation({ game: lobby.game, host: host?.kind === "human" ? host.name : null, free, seats: lobby.seats.length });
}

/**
 * The page's title while it shows an open lobby's link to someone not seated there: the invitation, so that the
 * tab (and a bookmark) says what it is. Null elsewhere (the page's own title).
 */
export function pageTitle(app) {
  const peek = app.peek;
  if (app.session || app.route.kind !== "join" || !peek || peek.code !== app.route.code) return null;
  if (!peek.game || peek.phase !== "open" || peek.full) return null;
  return invitation(peek);
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
      watchForm(code, t(over ? "state.join.watch_finished" : "state.join.watch")),
      own,
    );
  }
  // An open lobby that could be seen says who invites to which game; one that could not keeps its code alone.
  const invited = peek.game && peek.phase === "open";
  return h(
    "section",
    { class: "panel join-only", "aria-labelledby": "join-h" },
    h("h1", { id: "join-h", "data-key": "invitation" }, invited ? invitation(peek) : t("lobby.join_title", { code })),
    invited ? h("p", { class: "hint" }, t("lobby.invite.code_line", { code: groupCode(code) })) : null,
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
  const invite = lobbyInvitation(lobby);
  const info = hooks.gameInfo(lobby.game);
  const optionText = optionLines(info, lobby.options, lobby.seats.length);
  if (lobby.turn_timer_ms) optionText.push(t("lobby.timer_line", { time: duration(lobby.turn_timer_ms) }));
  const pace = paceWords(lobby.pace);
  if (pace) optionText.push(pace);
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
        h(
          "button",
          { type: "button", "data-key": "copy-link", onclick: () => copy(`${invite}: ${link}`, "invite") },
          t("lobby.copy_invite"),
        ),
        typeof navigator.share === "function"
          ? h(
              "button",
              {
                type: "button",
                "data-key": "share-link",
                onclick: () => navigator.share({ title: invite, text: invite, url: link }).catch(() => {}),
              },
              t("lobby.share_button"),
            )
          : null,
        h("button", { type: "button", "data-key": "copy-code", onclick: () => copy(groupCode(lobby.code), "code") }, t("lobby.copy_code")),
      ),
      h("p", { class: "invitation", id: "invitation" }, invite),
      h("p", { class: "hint link" }, tParts("lobby.share", { link: h("a", { href: link, id: "share-link" }, link) })),
    ),
    h("h2", {}, t("lobby.seats_h", { taken: lobby.seats.length - free, n: lobby.seats.length })),
    seats,
    lobby.spectators ? h("p", { class: "hint watchers", "data-key": "watchers" }, watchersText(lobby)) : null,
    app.session.spectator ? h("p", { class: "hint" }, t("lobby.you_watch")) : null,
    app.session.spectator && free > 0 ? takeSeatForm(lobby.code, app.session.name) : null,
    h("div", { class: "controls" }, controls),
    host
      ? hostPanel(lobby, info, {
          request: hooks.request,
          optionField,
          showApplicable,
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
