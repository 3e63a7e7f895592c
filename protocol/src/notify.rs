//! Notifications a seat opts into (issue 47): the language its words are written in and what they are about.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The language of a seat's notifications: the page's own (`en es it pl ro`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
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
