// The page's words in Polish. Keys are grouped in one block per area; each block is owned by one part of the
// page. Every key here must also be in every other language (a test checks). See js/i18n.js for the format.

export default {
  // ---- common: words used on every screen (app.js, ui.js, net.js, index.html) ----

  // ---- end common ----

  // ---- lobby: start page, join form, lobby screen, options (lobby.js) ----

  // ---- end lobby ----

  // ---- friends: chat, presence, host settings, open games (friends.js) ----

  // ---- end friends ----

  // ---- state: connection, focus, the log kept across reloads, stand-ins, rematch for spectators ----
  "state.offline.cannot_act": "Brak połączenia: ruch będzie można wykonać, gdy połączenie wróci.",
  "state.presence.unknown": "nieznany",
  "state.presence.unknown_hint": "Nieznane, dopóki strona nie jest połączona z serwerem",
  "state.log.current_position": "Widzisz aktualną sytuację w grze.",
  "state.log.resynced": "Ponownie zsynchronizowano z serwerem.",
  "state.log.over": "Gra się zakończyła.",
  "state.away.summary": {
    one: "Podczas twojej nieobecności wykonano za ciebie 1 ruch:",
    few: "Podczas twojej nieobecności wykonano za ciebie {n} ruchy:",
    many: "Podczas twojej nieobecności wykonano za ciebie {n} ruchów:",
    other: "Podczas twojej nieobecności wykonano za ciebie {n} ruchu:",
  },
  "state.away.dismiss": "Rozumiem",
  "state.outcome.you_win": "Wygrywasz.",
  "state.outcome.wins": { one: "{names} wygrywa.", few: "{names} dzielą zwycięstwo.", many: "{names} dzielą zwycięstwo.", other: "{names} dzielą zwycięstwo." },
  "state.outcome.tie_broken": "Remis po {score} punktów: o zwycięstwie zdecydowała zasada rozstrzygania remisów.",
  "state.tiebreak.generic": "Zwycięzcę wyłoniła zasada rozstrzygania remisów tej gry.",
  "state.tiebreak.quacks": "Przy remisie wygrywa gracz, którego ostatnia runda dotarła najdalej na torze punktacji.",
  "state.tiebreak.molehills": "Przy remisie wygrywa ten, kto kontroluje więcej gór z pięciu elementów, potem z czterech, trzech, dwóch i jednego.",
  "state.tiebreak.new_year_puzzle": "Przy remisie wygrywa ten, kto włożył więcej kart do obrazka.",
  "state.tiebreak.hickory_dickory": "Przy remisie wygrywa ten, kto ma więcej ukończonych pól na swojej planszy łowów.",
  "state.rematch.spectator_offer": "Gracze zaczęli rewanż (gra {code}). Możesz go oglądać.",
  "state.rematch.watch": "Oglądaj rewanż",
  "state.join.own_game": "Załóż lepiej własną grę",
  "state.join.checking": "Szukam gry {code}…",
  "state.join.missing": "Nie ma gry {code}",
  "state.join.missing_hint": "Sprawdź kod z osobą, która go wysłała: może zawiera literówkę albo gra została zamknięta.",
  "state.join.started": "Gra {code} ({game}) już się zaczęła",
  "state.join.started_hint": "Miejsca są zajęte, więc nie możesz dołączyć, ale możesz oglądać.",
  "state.join.finished": "Gra {code} ({game}) się zakończyła",
  "state.join.finished_hint": "Możesz zobaczyć, jak się skończyła.",
  "state.join.watch": "Oglądaj grę",
  "state.join.watch_finished": "Zobacz, jak się skończyła",

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
