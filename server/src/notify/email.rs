//! The email channel: one notification to one address through the operator's SMTP relay (`SMTP_URL`,
//! `SMTP_FROM`), with `lettre` over rustls. The message is plain text with a simple HTML alternative, in the
//! player's language, links to the table, and carries a one-click unsubscribe link (RFC 8058
//! `List-Unsubscribe` and `List-Unsubscribe-Post`) whose token is minted for this message and stored hashed
//! (`unsubscribe.rs`). Its `Message-ID` is built from the notification's id, so a repeat is recognisable.

use std::time::Duration;

use lettre::{
    AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor,
    message::{
        Mailbox, MultiPart,
        header::{HeaderName, HeaderValue},
    },
};
use rules::Millis;

use super::{Endpoint, Notification, SendError, unsubscribe, webpush::origin, words::escape_html};
use crate::{clock::SharedClock, secrets, store::Store};

/// How long one SMTP exchange may take (each command's answer).
pub const SMTP_TIMEOUT: Duration = Duration::from_secs(15);

/// The relay and the sender's address.
#[derive(Clone)]
pub struct Mailer {
    transport: AsyncSmtpTransport<Tokio1Executor>,
    from: Mailbox,
}

impl std::fmt::Debug for Mailer {
    /// The relay's URL may hold a password: not shown.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mailer").finish_non_exhaustive()
    }
}

#[derive(Debug, thiserror::Error)]
pub enum MailerError {
    /// The URL is not shown: it may hold a password.
    #[error("SMTP_URL is not a usable smtp:// or smtps:// URL")]
    BadUrl,
    #[error("SMTP_FROM is not an email address (`Name <games@example.org>` or `games@example.org`)")]
    BadFrom,
}

impl Mailer {
    /// `smtp://host:port` (plain, or STARTTLS with `?tls=required`), `smtps://user:pass@host` (TLS).
    pub fn new(smtp_url: &str, from: &str) -> Result<Mailer, MailerError> {
        let transport = AsyncSmtpTransport::<Tokio1Executor>::from_url(smtp_url)
            .map_err(|_| MailerError::BadUrl)?
            .timeout(Some(SMTP_TIMEOUT))
            .build();
        let from = from.parse().map_err(|_| MailerError::BadFrom)?;
        Ok(Mailer { transport, from })
    }
}

/// The email channel as the worker holds it.
#[derive(Clone, Debug)]
pub struct EmailSender {
    pub mailer: Mailer,
    pub store: Store,
    pub clock: SharedClock,
}

impl EmailSender {
    /// [`send`] to an [`Endpoint::Email`]; its unsubscribe links are keyed by [`address_key`], so one use
    /// switches that address off for every seat.
    pub async fn send(&self, endpoint: &Endpoint, n: &Notification) -> Result<(), SendError> {
        let Endpoint::Email { address } = endpoint else {
            return Err(SendError::Permanent("not an email endpoint".into()));
        };
        let key = address_key(address);
        send(&self.mailer, &self.store, &key, address, n, self.clock.now()).await
    }
}

/// The id under which an address's unsubscribe tokens are kept: the SHA-256 (hex) of the address, trimmed and
/// in lower case, so the table never holds the address.
pub fn address_key(address: &str) -> String {
    secrets::email_address_key(address)
}

/// Sends `n` to `address`, the email endpoint `endpoint_id`. An endpoint switched off by one of its unsubscribe
/// links is not written to (permanent failure). An address the relay refuses for good (5xx), or that is not an
/// address, is [`SendError::Permanent`]; a 4xx answer, a network failure or a timeout [`SendError::Temporary`].
/// Errors name the SMTP code only, never the address.
pub async fn send(
    mailer: &Mailer,
    store: &Store,
    endpoint_id: &str,
    address: &str,
    n: &Notification,
    now: Millis,
) -> Result<(), SendError> {
    let to: Mailbox = address
        .parse()
        .map_err(|_| SendError::Permanent("not an email address".into()))?;
    let store_failed = |e: crate::store::StoreError| SendError::Temporary(format!("store: {e}"));
    if store
        .email_unsubscribed(endpoint_id)
        .await
        .map_err(store_failed)?
    {
        return Err(SendError::Permanent("unsubscribed".into()));
    }
    let site = origin(&n.link).ok_or_else(|| SendError::Permanent("the link is not a URL".into()))?;
    let token = unsubscribe::mint(store, endpoint_id, n.language.code(), now)
        .await
        .map_err(store_failed)?;
    let unsubscribe_url = format!("{site}{}{token}", unsubscribe::PATH_PREFIX);
    let message = message(mailer, to, n, &unsubscribe_url)?;
    match mailer.transport.send(message).await {
        Ok(_) => Ok(()),
        Err(e) => {
            let code = e.status().map_or_else(String::new, |c| format!(" {c}"));
            if e.is_permanent() {
                Err(SendError::Permanent(format!("the SMTP relay refused it{code}")))
            } else {
                Err(SendError::Temporary(format!(
                    "the SMTP relay could not take it{code}{}",
                    if e.is_timeout() { " (timeout)" } else { "" }
                )))
            }
        }
    }
}

/// The message: headers, and the text and HTML parts.
pub fn message(
    mailer: &Mailer,
    to: Mailbox,
    n: &Notification,
    unsubscribe_url: &str,
) -> Result<Message, SendError> {
    let words = Words::of(n.language.code());
    let domain = mailer.from.email.domain().to_owned();
    let text = format!(
        "{}\n\n{}: {}\n\n-- \n{}\n{}\n",
        n.body, words.open, n.link, words.why, unsubscribe_url
    );
    let html = format!(
        "<!doctype html><html lang=\"{lang}\"><body><p>{body}</p><p><a href=\"{link}\">{open}</a></p>\
         <hr><p><small>{why} <a href=\"{unsub}\">{stop}</a></small></p></body></html>",
        lang = n.language.code(),
        body = escape_html(&n.body),
        link = escape_html(&n.link),
        open = words.open,
        why = words.why,
        unsub = escape_html(unsubscribe_url),
        stop = words.stop,
    );
    let mut message = Message::builder()
        .from(mailer.from.clone())
        .to(to)
        .subject(n.title.clone())
        .message_id(Some(format!("<{}@{domain}>", n.id)))
        .multipart(MultiPart::alternative_plain_html(text, html))
        .map_err(|e| SendError::Permanent(format!("the message cannot be built: {e}")))?;
    let headers = message.headers_mut();
    headers.insert_raw(HeaderValue::new(
        HeaderName::new_from_ascii_str("List-Unsubscribe"),
        format!("<{unsubscribe_url}>"),
    ));
    headers.insert_raw(HeaderValue::new(
        HeaderName::new_from_ascii_str("List-Unsubscribe-Post"),
        "List-Unsubscribe=One-Click".to_owned(),
    ));
    // RFC 3834: sent by a program, so that no vacation responder answers it.
    headers.insert_raw(HeaderValue::new(
        HeaderName::new_from_ascii_str("Auto-Submitted"),
        "auto-generated".to_owned(),
    ));
    Ok(message)
}

/// The message's own words in the page's languages (English for any other).
struct Words {
    open: &'static str,
    why: &'static str,
    stop: &'static str,
}

impl Words {
    fn of(language: &str) -> Words {
        let (open, why, stop) = match language {
            "es" => (
                "Abrir la mesa",
                "Recibes estos correos porque los pediste en esta mesa. Para no recibir más:",
                "darse de baja",
            ),
            "it" => (
                "Apri il tavolo",
                "Ricevi queste email perché le hai chieste a questo tavolo. Per non riceverne più:",
                "annulla l'iscrizione",
            ),
            "pl" => (
                "Otwórz stół",
                "Dostajesz te wiadomości, bo włączono je przy tym stole. Aby ich więcej nie dostawać:",
                "wypisz się",
            ),
            "ro" => (
                "Deschide masa",
                "Primești aceste emailuri pentru că le-ai cerut la această masă. Ca să nu le mai primești:",
                "dezabonează-te",
            ),
            _ => (
                "Open the table",
                "You get these emails because you asked for them at this table. To stop them:",
                "unsubscribe",
            ),
        };
        Words { open, why, stop }
    }
}
