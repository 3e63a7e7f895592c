//! One-click unsubscribe from email notifications (RFC 8058). Every email carries a link
//! `/notify/unsubscribe/{token}` with a token of its own (256 random bits, stored as its SHA-256 beside the email
//! endpoint's id, `email_unsubscribes`). `GET` shows a page with one button (mail scanners open links, so a `GET`
//! changes nothing); `POST` (the button, or the mail client's one-click `List-Unsubscribe-Post`) switches the
//! endpoint off (the address, for every seat:
//! `email::address_key`): at once, every email endpoint of that address is switched off and its seat told
//! (`tell.rs`), wherever its table is served. Only the first use of any of an endpoint's links does; later ones
//! say it is already done. The pages never show the address.

use axum::{
    extract::{Path, State},
    http::{StatusCode, header},
    response::{IntoResponse, Response},
};
use rules::Millis;

use super::RouteState;
use super::words::escape_html;
use crate::{
    secrets,
    store::{Store, StoreError, Unsubscribed},
};

/// The route's path before the token.
pub const PATH_PREFIX: &str = "/notify/unsubscribe/";

/// A new token for one email to `endpoint_id`; only its hash is kept.
pub async fn mint(
    store: &Store,
    endpoint_id: &str,
    language: &str,
    now: Millis,
) -> Result<String, StoreError> {
    let token = secrets::seat_token();
    store
        .add_unsubscribe_token(&secrets::token_hash(&token), endpoint_id, language, now)
        .await?;
    Ok(token)
}

/// What a use of a link did: on its first use, the address's email endpoints are switched off (see
/// `Store::use_unsubscribe_token`).
pub async fn unsubscribe(store: &Store, token: &str, now: Millis) -> Result<Unsubscribed, StoreError> {
    if !is_token_shaped(token) {
        return Ok(Unsubscribed::Unknown);
    }
    store
        .use_unsubscribe_token(&secrets::token_hash(token), now)
        .await
}

fn is_token_shaped(token: &str) -> bool {
    token.len() == 64 && token.bytes().all(|b| b.is_ascii_hexdigit())
}

/// `GET /notify/unsubscribe/{token}`: the page with the button, or that it is done already.
pub(crate) async fn page(State(state): State<RouteState>, Path(token): Path<String>) -> Response {
    let peeked = if is_token_shaped(&token) {
        state
            .store
            .peek_unsubscribe_token(&secrets::token_hash(&token))
            .await
    } else {
        Ok(None)
    };
    match peeked {
        Ok(Some((false, language))) => {
            let words = Words::of(&language);
            let form = format!(
                "<form method=\"post\"><button type=\"submit\">{}</button></form>",
                words.button
            );
            html(StatusCode::OK, &language, words.ask, &form)
        }
        Ok(Some((true, language))) => html(StatusCode::OK, &language, Words::of(&language).already, ""),
        Ok(None) => html(StatusCode::NOT_FOUND, "en", Words::of("en").unknown, ""),
        Err(_) => unavailable(),
    }
}

/// `POST /notify/unsubscribe/{token}`: switches the email endpoint off, once.
pub(crate) async fn confirm(State(state): State<RouteState>, Path(token): Path<String>) -> Response {
    match unsubscribe(&state.store, &token, state.clock.now()).await {
        Ok(Unsubscribed::Now { language, seats, .. }) => {
            for (code, seat) in seats {
                state.tell.endpoints_changed(&code, seat).await;
            }
            html(StatusCode::OK, &language, Words::of(&language).done, "")
        }
        Ok(Unsubscribed::Already { language }) => {
            html(StatusCode::OK, &language, Words::of(&language).already, "")
        }
        Ok(Unsubscribed::Unknown) => html(StatusCode::NOT_FOUND, "en", Words::of("en").unknown, ""),
        Err(_) => unavailable(),
    }
}

fn unavailable() -> Response {
    html(
        StatusCode::SERVICE_UNAVAILABLE,
        "en",
        "The server cannot do this right now. Please try again in a minute.",
        "",
    )
}

fn html(status: StatusCode, language: &str, text: &str, extra: &str) -> Response {
    let page = format!(
        "<!doctype html><html lang=\"{}\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width\"><title>{text}</title></head>\
         <body><p>{text}</p>{extra}</body></html>",
        escape_html(language)
    );
    (
        status,
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CACHE_CONTROL, "no-store"),
        ],
        page,
    )
        .into_response()
}

/// The pages' words in the page's languages (English for any other).
struct Words {
    ask: &'static str,
    button: &'static str,
    done: &'static str,
    already: &'static str,
    unknown: &'static str,
}

impl Words {
    fn of(language: &str) -> Words {
        let [ask, button, done, already, unknown] = match language {
            "es" => [
                "¿Dejar de recibir correos de este servidor?",
                "Darse de baja",
                "Hecho: no recibirás más correos de este servidor.",
                "Ya estaba hecho: no recibirás más correos de este servidor.",
                "Este enlace no es válido.",
            ],
            "it" => [
                "Non ricevere più email da questo server?",
                "Annulla l'iscrizione",
                "Fatto: non riceverai più email da questo server.",
                "Era già fatto: non riceverai più email da questo server.",
                "Questo link non è valido.",
            ],
            "pl" => [
                "Nie dostawać już wiadomości z tego serwera?",
                "Wypisz się",
                "Gotowe: nie dostaniesz już wiadomości z tego serwera.",
                "To już zrobione: nie dostaniesz już wiadomości z tego serwera.",
                "Ten link jest nieważny.",
            ],
            "ro" => [
                "Nu mai vrei emailuri de la acest server?",
                "Dezabonează-te",
                "Gata: nu vei mai primi emailuri de la acest server.",
                "Era deja făcut: nu vei mai primi emailuri de la acest server.",
                "Acest link nu este valid.",
            ],
            _ => [
                "Stop the emails from this server?",
                "Unsubscribe",
                "Done: you will get no more emails from this server.",
                "Already done: you will get no more emails from this server.",
                "This link is not valid.",
            ],
        };
        Words {
            ask,
            button,
            done,
            already,
            unknown,
        }
    }
}
