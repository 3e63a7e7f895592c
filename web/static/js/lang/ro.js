// The page's words in Romanian. Keys are grouped in one block per area; each block is owned by one part of the
// page. Every key here must also be in every other language (a test checks). See js/i18n.js for the format.

export default {
  // ---- common: words used on every screen (app.js, ui.js, net.js, index.html) ----

  // ---- end common ----

  // ---- lobby: start page, join form, lobby screen, options (lobby.js) ----

  // ---- end lobby ----

  // ---- friends: chat, presence, host settings, open games (friends.js) ----

  // ---- end friends ----

  // ---- state: connection, focus, the log kept across reloads, stand-ins, rematch for spectators ----
  "state.offline.cannot_act": "Nu există conexiune: mutarea ta poate fi jucată când conexiunea revine.",
  "state.presence.unknown": "necunoscut",
  "state.presence.unknown_hint": "Nu se știe cât timp pagina nu este conectată la server",
  "state.log.current_position": "Vezi poziția actuală.",
  "state.log.resynced": "Din nou sincronizat cu serverul.",
  "state.log.over": "Jocul s-a încheiat.",
  "state.away.summary": {
    one: "Cât ai lipsit, s-a jucat o mutare pentru tine:",
    few: "Cât ai lipsit, s-au jucat {n} mutări pentru tine:",
    other: "Cât ai lipsit, s-au jucat {n} de mutări pentru tine:",
  },
  "state.away.dismiss": "Am înțeles",
  "state.outcome.you_win": "Ai câștigat.",
  "state.outcome.wins": { one: "{names} câștigă.", few: "{names} împart victoria.", other: "{names} împart victoria." },
  "state.outcome.tie_broken": "Egalitate la {score} puncte: a decis departajarea.",
  "state.tiebreak.generic": "Regula de departajare a jocului a decis câștigătorul.",
  "state.tiebreak.quacks": "La egalitate câștigă jucătorul care a ajuns, în ultima rundă, cel mai departe pe traseul de punctaj.",
  "state.tiebreak.molehills": "La egalitate câștigă cine controlează mai mulți munți de cinci piese, apoi de patru, trei, două și una.",
  "state.tiebreak.new_year_puzzle": "La egalitate câștigă cine a pus mai multe cărți în imagine.",
  "state.tiebreak.hickory_dickory": "La egalitate câștigă cine are mai multe spații completate pe tabla de vânătoare.",
  "state.rematch.spectator_offer": "Jucătorii au început o revanșă (jocul {code}). O poți urmări.",
  "state.rematch.watch": "Urmărește revanșa",
  "state.join.own_game": "Începe mai bine propriul tău joc",
  "state.join.checking": "Se caută jocul {code}…",
  "state.join.missing": "Nu există jocul {code}",
  "state.join.missing_hint": "Verifică codul cu prietenul care ți l-a trimis: poate are o greșeală de tastare sau jocul a fost închis.",
  "state.join.started": "Jocul {code} ({game}) a început deja",
  "state.join.started_hint": "Locurile sunt ocupate, deci nu te mai poți alătura, dar îl poți urmări.",
  "state.join.finished": "Jocul {code} ({game}) s-a încheiat",
  "state.join.finished_hint": "Poți vedea totuși cum s-a terminat.",
  "state.join.watch": "Urmărește jocul",
  "state.join.watch_finished": "Vezi cum s-a terminat",

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
