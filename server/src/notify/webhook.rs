//! The webhook channel: a signed JSON POST to a URL the player pasted.

use super::{Endpoint, Notification, SendError};

/// Sends webhooks (the HTTP client, its limits and whether private addresses are allowed).
#[derive(Debug, Default)]
pub struct WebhookSender {
    /// `NOTIFY_ALLOW_PRIVATE=1`: loopback, private, link-local and multicast addresses are allowed (tests).
    pub allow_private: bool,
}

impl WebhookSender {
    pub async fn send(&self, endpoint: &Endpoint, notification: &Notification) -> Result<(), SendError> {
        let Endpoint::Webhook { .. } = endpoint else {
            return Err(SendError::Permanent("not a webhook".into()));
        };
        let _ = notification;
        Err(SendError::Temporary("webhooks are not sent yet".into()))
    }
}
