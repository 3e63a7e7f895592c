//! Notifications that reach a player away from the page (issue 47): a seat's endpoints (Web Push, a webhook,
//! email), the outbox rows a table writes in the transaction of their cause, and the worker that sends them.
//!
//! The channels' one interface: the worker turns an outbox row into a [`Notification`] and calls [`send`] with
//! one of the seat's [`Endpoint`]s; each channel is a sender with one
//! `async fn send(&self, endpoint, &Notification) -> Result<(), SendError>`. `webhook.rs` is the webhook
//! channel; `webpush.rs` and `email.rs` are the two others.

use protocol::{NotifyKind, NotifyLanguage};
use uuid::Uuid;

/// Where one notification goes: one endpoint of a seat, as stored.
#[derive(Clone, PartialEq, Eq)]
pub enum Endpoint {
    /// A browser's push subscription (the Push API's `endpoint` and its `keys`, base64url without padding).
    WebPush {
        endpoint: String,
        p256dh: String,
        auth: String,
    },
    /// A URL that gets a signed POST; `secret` is the endpoint's HMAC-SHA256 key, told once at subscription.
    Webhook { url: String, secret: String },
    /// An address mailed through the operator's SMTP relay.
    Email { address: String },
}

/// Never prints the URL, address, push endpoint or secret: they identify a player (or let one be impersonated).
impl std::fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.channel())
    }
}

impl Endpoint {
    /// The channel's name on the wire and in the store: `web_push`, `webhook` or `email`.
    pub fn channel(&self) -> &'static str {
        match self {
            Self::WebPush { .. } => "web_push",
            Self::Webhook { .. } => "webhook",
            Self::Email { .. } => "email",
        }
    }
}

/// One notification to one seat, in the seat's language. Nothing in it comes from a view: it names the game, the
/// table and what happened, never another seat's hidden information.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Notification {
    /// The same for every delivery (and every retry) of this notification: receivers drop a repeat by it.
    pub id: Uuid,
    pub kind: NotifyKind,
    /// The table's join code.
    pub lobby_code: String,
    /// The game's name, as the catalogue says it.
    pub game: String,
    pub seat: u8,
    pub language: NotifyLanguage,
    /// Opens the table in the web client (`PUBLIC_URL` and the table's link form).
    pub link: String,
    /// A short title in `language` ("Your turn in Quacks").
    pub title: String,
    /// A sentence in `language` naming the table and what happened.
    pub body: String,
    /// When its cause was committed, in milliseconds since the Unix epoch (the server's clock).
    pub at_ms: u64,
}

/// Why a delivery failed, in words shown to the seat (never the URL, address or secret), and whether to retry.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SendError {
    /// Try again later (a timeout, a refused connection, a 5xx or 429 answer).
    #[error("{0}")]
    Temporary(String),
    /// Trying again cannot help (the endpoint is gone: 404/410 from a push service, 410 from a webhook; a channel
    /// this server does not configure). The endpoint is switched off at once.
    #[error("{0}")]
    Permanent(String),
}

impl SendError {
    pub fn is_permanent(&self) -> bool {
        matches!(self, Self::Permanent(_))
    }
}

/// The senders of every channel, built once from the configuration and shared by the worker.
#[derive(Debug)]
pub struct Channels {
    pub webhook: webhook::WebhookSender,
    pub web_push: webpush::WebPushSender,
    /// `None` when the operator configured no SMTP relay (`SMTP_URL`).
    pub email: Option<email::EmailSender>,
}

impl Channels {
    /// The senders of a server: `key` signs Web Push requests (`vapid.rs`), `mailer` is the SMTP relay if any.
    pub fn new(
        config: &crate::Config,
        key: std::sync::Arc<vapid::VapidKey>,
        mailer: Option<email::Mailer>,
        store: crate::store::Store,
        clock: crate::clock::SharedClock,
    ) -> Channels {
        Channels {
            webhook: webhook::WebhookSender {
                allow_private: config.notify_allow_private,
            },
            web_push: webpush::WebPushSender {
                key,
                post: http_post::PostSettings {
                    allow_private: config.notify_allow_private,
                    ..webpush::DEFAULT_POST
                },
                clock: clock.clone(),
            },
            email: mailer.map(|mailer| email::EmailSender { mailer, store, clock }),
        }
    }
}

/// What the notification routes need (`/api/push/key`, the unsubscribe pages), taken from the app's state
/// (`app.rs` implements `FromRef`, so this module does not name the app).
#[derive(Clone)]
pub(crate) struct RouteState {
    pub(crate) store: crate::store::Store,
    pub(crate) clock: crate::clock::SharedClock,
    pub(crate) push_key: std::sync::Arc<vapid::VapidKey>,
    /// Tells a seat whose email endpoint an unsubscribe link switched off.
    pub(crate) tell: tell::Teller,
}

/// Sends one notification to one endpoint through its channel.
pub async fn send(
    channels: &Channels,
    endpoint: &Endpoint,
    notification: &Notification,
) -> Result<(), SendError> {
    match endpoint {
        Endpoint::Webhook { .. } => channels.webhook.send(endpoint, notification).await,
        Endpoint::WebPush { .. } => channels.web_push.send(endpoint, notification).await,
        Endpoint::Email { .. } => match &channels.email {
            Some(email) => email.send(endpoint, notification).await,
            None => Err(SendError::Permanent(
                "email is not configured on this server".into(),
            )),
        },
    }
}

pub mod check;
pub mod tell;
pub mod webhook;
pub mod words;
pub mod worker;

pub use check::check_target;

// The Web Push and email channels (branch i47-channels).
pub mod ece;
pub mod email;
pub mod http_post;
pub mod unsubscribe;
pub mod vapid;
pub mod webpush;
