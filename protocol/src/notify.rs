//! Notifications a seat opts into (issue 47): the language its words are written in and what they are about.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The language of a seat's notifications: the page's own (`en es it pl ro`).
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    Hash,
    Serialize,
    Deserialize,
    JsonSchema,
    json_write::WriteJson,
)]
#[serde(rename_all = "snake_case")]
pub enum NotifyLanguage {
    #[default]
    En,
    Es,
    It,
    Pl,
    Ro,
}

impl NotifyLanguage {
    /// Every language, in the order above.
    pub const ALL: [NotifyLanguage; 5] = [Self::En, Self::Es, Self::It, Self::Pl, Self::Ro];

    /// The code on the wire and in the store (`"en"`).
    pub fn code(self) -> &'static str {
        match self {
            Self::En => "en",
            Self::Es => "es",
            Self::It => "it",
            Self::Pl => "pl",
            Self::Ro => "ro",
        }
    }

    /// The language of a code, if it is one of ours.
    pub fn from_code(code: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|l| l.code() == code)
    }
}

/// What a notification says happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum NotifyKind {
    /// The seat must decide now (and did not before), and its player is not at the table.
    YourTurn,
    /// The seat's correspondence clock passed 80 % of its time.
    ClockLow,
    /// The match ended.
    MatchOver,
}

impl NotifyKind {
    /// The code on the wire and in the store (`"your_turn"`).
    pub fn code(self) -> &'static str {
        match self {
            Self::YourTurn => "your_turn",
            Self::ClockLow => "clock_low",
            Self::MatchOver => "match_over",
        }
    }

    /// The kind of a code, if it is one of ours.
    pub fn from_code(code: &str) -> Option<Self> {
        [Self::YourTurn, Self::ClockLow, Self::MatchOver]
            .into_iter()
            .find(|k| k.code() == code)
    }
}

/// The longest webhook URL, email address or push endpoint accepted, in bytes.
pub const NOTIFY_TARGET_MAX_BYTES: usize = 2048;
/// The most endpoints one seat may have.
pub const NOTIFY_ENDPOINTS_PER_SEAT: usize = 5;

/// An endpoint a seat subscribes, by channel (`{"channel": "webhook", "url": "https://..."}`).
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "channel", rename_all = "snake_case")]
pub enum NotifyTarget {
    /// A browser's push subscription (`PushSubscription.toJSON()`: `endpoint` and `keys.p256dh`, `keys.auth`),
    /// base64url keys.
    WebPush {
        endpoint: String,
        p256dh: String,
        auth: String,
    },
    /// An http or https URL that gets a signed POST per notification (see `docs/protocol.md`, "Webhooks").
    Webhook { url: String },
    /// An address mailed through the operator's SMTP relay.
    Email { address: String },
}

/// Never prints the URL, address or keys: they identify a player.
impl std::fmt::Debug for NotifyTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::WebPush { .. } => "WebPush",
            Self::Webhook { .. } => "Webhook",
            Self::Email { .. } => "Email",
        })
    }
}

/// One endpoint of the seat, as shown to that seat only.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, json_write::WriteJson)]
pub struct NotifyEndpoint {
    /// For `notify_unsubscribe`.
    pub id: u64,
    /// `web_push`, `webhook` or `email`.
    pub channel: String,
    /// A hint of where it goes (a webhook's or push service's host, an address with its name hidden).
    pub label: String,
    pub language: NotifyLanguage,
    /// False once it was switched off after failing (see `last_error`); subscribe again to turn it back on.
    pub active: bool,
    /// Why its last delivery failed, in words.
    pub last_error: Option<String>,
}
