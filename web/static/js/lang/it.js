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
  "state.offline.cannot_act": "Non connesso: potrai giocare la tua mossa quando la connessione torna.",
  "state.presence.unknown": "sconosciuto",
  "state.presence.unknown_hint": "Non si sa finché questa pagina è scollegata dal server",
  "state.log.current_position": "Stai guardando la posizione attuale.",
  "state.log.resynced": "Di nuovo sincronizzato con il server.",
  "state.log.over": "La partita è finita.",
  "state.away.summary": {
    one: "Mentre eri via, è stata giocata 1 mossa per te:",
    many: "Mentre eri via, sono state giocate {n} mosse per te:",
    other: "Mentre eri via, sono state giocate {n} mosse per te:",
  },
  "state.away.dismiss": "Ho capito",
  "state.outcome.you_win": "Hai vinto.",
  "state.outcome.wins": { one: "{names} vince.", many: "{names} condividono la vittoria.", other: "{names} condividono la vittoria." },
  "state.outcome.tie_broken": "Pari a {score} punti: ha deciso lo spareggio.",
  "state.tiebreak.generic": "La regola di spareggio del gioco ha deciso chi vince.",
  "state.tiebreak.quacks": "In caso di parità vince chi nell'ultimo turno è arrivato più lontano sul percorso dei punti.",
  "state.tiebreak.molehills": "In caso di parità vince chi controlla più montagne di cinque pezzi, poi di quattro, tre, due e uno.",
  "state.tiebreak.new_year_puzzle": "In caso di parità vince chi ha messo più carte nel quadro.",
  "state.tiebreak.hickory_dickory": "In caso di parità vince chi ha più caselle completate sulla propria plancia di caccia.",
  "state.rematch.spectator_offer": "I giocatori hanno iniziato la rivincita (partita {code}). Puoi guardarla.",
  "state.rematch.watch": "Guarda la rivincita",
  "state.join.own_game": "Inizia piuttosto una tua partita",
  "state.join.checking": "Cerco la partita {code}…",
  "state.join.missing": "La partita {code} non esiste",
  "state.join.missing_hint": "Controlla il codice con chi te l'ha mandato: forse c'è un errore di battitura, o la partita è stata chiusa.",
  "state.join.started": "La partita {code} ({game}) è già iniziata",
  "state.join.started_hint": "I posti sono occupati, quindi non puoi unirti, ma puoi guardarla.",
  "state.join.finished": "La partita {code} ({game}) è finita",
  "state.join.finished_hint": "Puoi ancora vedere com'è finita.",
  "state.join.watch": "Guarda la partita",
  "state.join.watch_finished": "Guarda com'è finita",

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
