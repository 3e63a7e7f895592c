// The page's words in English. Keys are grouped in one block per area; each block is owned by one part of the
// page. Every key here must also be in every other language (a test checks). See js/i18n.js for the format.

export default {
  // ---- common: words used on every screen (app.js, ui.js, net.js, index.html) ----

  // ---- end common ----

  // ---- lobby: start page, join form, lobby screen, options (lobby.js) ----

  // ---- end lobby ----

  // ---- friends: chat, presence, host settings, open games (friends.js) ----

  // ---- end friends ----

  // ---- state: connection, focus, the log kept across reloads, stand-ins, rematch for spectators ----
  "state.offline.cannot_act": "Not connected: your move can be played once the connection is back.",
  "state.presence.unknown": "unknown",
  "state.presence.unknown_hint": "Not known while this page is disconnected from the server",
  "state.log.current_position": "You are looking at the current position.",
  "state.log.resynced": "Back in sync with the server.",
  "state.log.over": "The game is over.",
  "state.away.summary": {
    one: "While you were away, 1 move was played for you:",
    other: "While you were away, {n} moves were played for you:",
  },
  "state.away.dismiss": "Got it",
  "state.outcome.you_win": "You win.",
  "state.outcome.wins": { one: "{names} wins.", other: "{names} share the victory." },
  "state.outcome.tie_broken": "Level on {score} points: the tie-break decided.",
  "state.tiebreak.generic": "The game's tie-break rule decided the winner.",
  "state.tiebreak.quacks": "The player whose last round reached the furthest scoring space wins the tie.",
  "state.tiebreak.molehills": "The tie goes to the player controlling more mountains of five pieces, then of four, three, two and one.",
  "state.tiebreak.new_year_puzzle": "The tie goes to the player who put more cards into the picture.",
  "state.tiebreak.hickory_dickory": "The tie goes to the player with more completed spaces on their hunt board.",
  "state.rematch.spectator_offer": "The players started a rematch (game {code}). You can watch it.",
  "state.rematch.watch": "Watch the rematch",
  "state.join.own_game": "Start your own game instead",
  "state.join.checking": "Looking up game {code}…",
  "state.join.missing": "There is no game {code}",
  "state.join.missing_hint": "Check the code with the friend who sent it: it may have a typing mistake, or the game was closed.",
  "state.join.started": "Game {code} ({game}) has already started",
  "state.join.started_hint": "Its seats are taken, so you cannot join it, but you can watch it.",
  "state.join.finished": "Game {code} ({game}) is over",
  "state.join.finished_hint": "You can still look at how it ended.",
  "state.join.watch": "Watch the game",
  "state.join.watch_finished": "See how it ended",

  // ---- end state ----

  // ---- errors: the server's error codes in plain words (words.js) ----

  // ---- end errors ----

  // ---- rules: the "How to play" panel's own words ----

  // ---- end rules ----

  // ---- hide_and_eeek ----

  // ---- end hide_and_eeek ----

  // ---- molehills ----

  // ---- end molehills ----

  // ---- new_year_puzzle ----

  // ---- end new_year_puzzle ----

  // ---- quacks ----

  // ---- end quacks ----

  // ---- hickory_dickory ----

  // ---- end hickory_dickory ----
};
