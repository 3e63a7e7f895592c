//! Stand-in for the notify interface of branch i47-outbox (its `notify/mod.rs`), with the names its brief gives,
//! so that the senders compile here; at the merge these definitions give way to that branch's.

use std::fmt;

/// Where a seat's notifications go.
#[derive(Clone, PartialEq, Eq)]
pub enum Endpoint {
    /// A browser's push subscription (`PushSubscription.toJSON()`): the push service's URL and the keys, base64url.
    WebPush {
        endpoint: String,
        p256dh: String,
        auth: String,
    },
    Webhook {
        url: String,
        secret: String,
    },
    Email {
        address: String,
    },
}

impl fmt::Debug for Endpoint {
    /// Names the kind only: endpoints, URLs and addresses are personal data, kept out of logs.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Endpoint::WebPush { .. } => "WebPush",
            Endpoint::Webhook { .. } => "Webhook",
            Endpoint::Email { .. } => "Email",
        })
    }
}

/// What happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NotificationKind {
    YourTurn,
    ClockLow,
    MatchEnded,
}

impl NotificationKind {
    pub fn as_str(self) -> &'static str {
        match self {
            NotificationKind::YourTurn => "your_turn",
            NotificationKind::ClockLow => "clock_low",
            NotificationKind::MatchEnded => "match_ended",
        }
    }
}

/// One notification for one seat, written in that player's language.
#[derive(Clone, Debug)]
pub struct Notification {
    /// Unique per notification (a UUID's text); receivers drop a repeat by it.
    pub id: String,
    pub kind: NotificationKind,
    pub lobby_code: String,
    pub game: String,
    pub seat: u32,
    /// The page's language code (`en`, `es`, `it`, `pl`, `ro`).
    pub language: String,
    /// The table's address, absolute.
    pub link: String,
    pub title: String,
    pub body: String,
}

/// Why a send failed: `Temporary` is tried again later, `Permanent` switches the endpoint off.
#[derive(Debug, thiserror::Error)]
pub enum SendError {
    #[error("temporary failure: {0}")]
    Temporary(String),
    #[error("permanent failure: {0}")]
    Permanent(String),
}
