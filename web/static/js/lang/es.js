// The page's words in Spanish. Keys are grouped in one block per area; each block is owned by one part of the
// page. Every key here must also be in every other language (a test checks). See js/i18n.js for the format.

export default {
  // ---- common: words used on every screen (app.js, ui.js, net.js, index.html) ----

  // ---- end common ----

  // ---- lobby: start page, join form, lobby screen, options (lobby.js) ----

  // ---- end lobby ----

  // ---- friends: chat, presence, host settings, open games (friends.js) ----

  // ---- end friends ----

  // ---- state: connection, focus, the log kept across reloads, stand-ins, rematch for spectators ----
  "state.offline.cannot_act": "Sin conexión: podrás jugar tu movimiento cuando vuelva la conexión.",
  "state.presence.unknown": "desconocido",
  "state.presence.unknown_hint": "No se sabe mientras esta página está desconectada del servidor",
  "state.log.current_position": "Estás viendo la posición actual.",
  "state.log.resynced": "De nuevo sincronizado con el servidor.",
  "state.log.over": "La partida ha terminado.",
  "state.away.summary": {
    one: "Mientras no estabas, se jugó 1 movimiento por ti:",
    many: "Mientras no estabas, se jugaron {n} movimientos por ti:",
    other: "Mientras no estabas, se jugaron {n} movimientos por ti:",
  },
  "state.away.dismiss": "Entendido",
  "state.outcome.you_win": "Has ganado.",
  "state.outcome.wins": { one: "{names} gana.", many: "{names} comparten la victoria.", other: "{names} comparten la victoria." },
  "state.outcome.tie_broken": "Empate a {score} puntos: decidió el desempate.",
  "state.tiebreak.generic": "La regla de desempate del juego decidió quién gana.",
  "state.tiebreak.quacks": "En caso de empate gana quien llegó más lejos en el marcador en la última ronda.",
  "state.tiebreak.molehills": "En caso de empate gana quien controla más montañas de cinco piezas, luego de cuatro, tres, dos y una.",
  "state.tiebreak.new_year_puzzle": "En caso de empate gana quien colocó más cartas en la imagen.",
  "state.tiebreak.hickory_dickory": "En caso de empate gana quien tiene más casillas completadas en su tablero de caza.",
  "state.rematch.spectator_offer": "Los jugadores empezaron la revancha (partida {code}). Puedes verla.",
  "state.rematch.watch": "Ver la revancha",
  "state.join.own_game": "Mejor empieza tu propia partida",
  "state.join.checking": "Buscando la partida {code}…",
  "state.join.missing": "No existe la partida {code}",
  "state.join.missing_hint": "Comprueba el código con quien te lo envió: puede tener un error o la partida se cerró.",
  "state.join.started": "La partida {code} ({game}) ya ha empezado",
  "state.join.started_hint": "Sus asientos están ocupados, así que no puedes unirte, pero puedes verla.",
  "state.join.finished": "La partida {code} ({game}) ha terminado",
  "state.join.finished_hint": "Aún puedes ver cómo terminó.",
  "state.join.watch": "Ver la partida",
  "state.join.watch_finished": "Ver cómo terminó",

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
