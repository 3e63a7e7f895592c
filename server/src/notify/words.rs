//! What a notification says, in the seat's language: a title and a sentence naming the game and the table, and
//! the link that opens the table. Nothing else: never anything from a view.

use protocol::{NotifyKind, NotifyLanguage};

/// The title and the sentence of a notification of `kind` in `game` at table `code`.
pub fn words(language: NotifyLanguage, kind: NotifyKind, game: &str, code: &str) -> (String, String) {
    use NotifyKind::{ClockLow, MatchOver, YourTurn};
    use NotifyLanguage::{En, Es, It, Pl, Ro};
    let (title, body) = match (language, kind) {
        (En, YourTurn) => ("Your turn in {game}", "It is your turn at table {code}."),
        (En, ClockLow) => (
            "Your clock is running low in {game}",
            "You have used over 80 % of your time to move at table {code}.",
        ),
        (En, MatchOver) => (
            "{game}: the match is over",
            "The match at table {code} has ended.",
        ),
        (Es, YourTurn) => ("Tu turno en {game}", "Te toca jugar en la mesa {code}."),
        (Es, ClockLow) => (
            "Se te acaba el tiempo en {game}",
            "Has usado más del 80 % de tu tiempo para jugar en la mesa {code}.",
        ),
        (Es, MatchOver) => (
            "{game}: la partida ha terminado",
            "La partida de la mesa {code} ha terminado.",
        ),
        (It, YourTurn) => ("Tocca a te in {game}", "È il tuo turno al tavolo {code}."),
        (It, ClockLow) => (
            "Il tuo tempo sta per scadere in {game}",
            "Hai usato oltre l'80 % del tuo tempo per muovere al tavolo {code}.",
        ),
        (It, MatchOver) => (
            "{game}: la partita è finita",
            "La partita al tavolo {code} è finita.",
        ),
        (Pl, YourTurn) => ("Twój ruch w {game}", "Twoja kolej przy stole {code}."),
        (Pl, ClockLow) => (
            "Kończy ci się czas w {game}",
            "Wykorzystano ponad 80 % twojego czasu na ruch przy stole {code}.",
        ),
        (Pl, MatchOver) => (
            "{game}: partia zakończona",
            "Partia przy stole {code} dobiegła końca.",
        ),
        (Ro, YourTurn) => ("Este rândul tău în {game}", "Este rândul tău la masa {code}."),
        (Ro, ClockLow) => (
            "Timpul tău se termină în {game}",
            "Ai folosit peste 80 % din timpul de mutare la masa {code}.",
        ),
        (Ro, MatchOver) => (
            "{game}: partida s-a încheiat",
            "Partida de la masa {code} s-a încheiat.",
        ),
    };
    let fill = |s: &str| s.replace("{game}", game).replace("{code}", code);
    (fill(title), fill(body))
}

/// The link that opens table `code` in the web client (its `#join=` form: a page that holds the seat's token
/// resumes it) under `public_url`.
pub fn link(public_url: &str, code: &str) -> String {
    format!("{}/#join={code}", public_url.trim_end_matches('/'))
}

/// Text made safe inside HTML (an email's HTML part, the unsubscribe pages).
pub(crate) fn escape_html(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_language_names_the_game_and_the_table() {
        for language in NotifyLanguage::ALL {
            for kind in [NotifyKind::YourTurn, NotifyKind::ClockLow, NotifyKind::MatchOver] {
                let (title, body) = words(language, kind, "Quacks", "ABCD12");
                assert!(title.contains("Quacks"), "{language:?} {kind:?}: {title}");
                assert!(body.contains("ABCD12"), "{language:?} {kind:?}: {body}");
            }
        }
        assert_eq!(
            link("https://play.example.org/", "ABCD12"),
            "https://play.example.org/#join=ABCD12"
        );
    }
}
