// The page's words in Italian. Keys are grouped in one block per area; each block is owned by one part of the
// page. Every key here must also be in every other language (a test checks). See js/i18n.js for the format.

export default {
  // ---- common: words used on every screen (app.js, ui.js, net.js, index.html) ----

  // ---- end common ----

  // ---- lobby: start page, join form, lobby screen, options (lobby.js) ----

  // ---- end lobby ----

  // ---- friends: chat, presence, host settings, open games (friends.js) ----

  // ---- end friends ----

  // ---- state: connection, focus, the log kept across reloads, stand-ins, rematch for spectators ----

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
