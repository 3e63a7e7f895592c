//! The webhook channel: a JSON POST to a URL the player pasted, signed with HMAC-SHA256 under the endpoint's
//! secret (`docs/protocol.md`, "Webhooks").
//!
//! Sent by `http_post.rs` (addresses checked at every send, no redirect, a timeout, the answer read up to a cap).
//! 2xx is delivered, 410 Gone switches the endpoint off, anything else is tried again later.

use std::time::Duration;

use hmac::{KeyInit, Mac};
use serde::Serialize;

use super::{
    Endpoint, Notification, SendError,
    http_post::{self, PostError, PostSettings},
};

/// The longest a delivery may take, connection and answer included.
pub const WEBHOOK_TIMEOUT: Duration = Duration::from_secs(5);

/// The header with the notification's id.
pub const ID_HEADER: &str = "x-tabletop-id";
/// The header with the signature: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`.
pub const SIGNATURE_HEADER: &str = "x-tabletop-signature";

/// Sends webhooks.
#[derive(Debug, Default)]
pub struct WebhookSender {
    /// `NOTIFY_ALLOW_PRIVATE=1`: loopback, private, link-local and multicast addresses are allowed (tests).
    pub allow_private: bool,
}

/// The JSON body of a delivery.
#[derive(Serialize)]
struct Body<'a> {
    id: String,
    kind: &'static str,
    game: &'a str,
    table: &'a str,
    link: &'a str,
    title: &'a str,
    text: &'a str,
    /// When its cause happened, in Unix milliseconds.
    at: u64,
}

/// The body's signature: hex HMAC-SHA256 of `"<t>.<body>"` under `secret`.
pub fn signature(secret: &str, t: u64, body: &[u8]) -> String {
    let mut mac = hmac::Hmac::<sha2::Sha256>::new_from_slice(secret.as_bytes()).expect("HMAC takes any key");
    mac.update(t.to_string().as_bytes());
    mac.update(b".");
    mac.update(body);
    hex::encode(mac.finalize().into_bytes())
}

/// The JSON body a notification is delivered as.
pub fn body_of(notification: &Notification) -> Vec<u8> {
    serde_json::to_vec(&Body {
        id: notification.id.to_string(),
        kind: notification.kind.code(),
        game: &notification.game,
        table: &notification.lobby_code,
        link: &notification.link,
        title: &notification.title,
        text: &notification.body,
        at: notification.at_ms,
    })
    .expect("a webhook body serialises")
}

impl WebhookSender {
    pub async fn send(&self, endpoint: &Endpoint, notification: &Notification) -> Result<(), SendError> {
        let Endpoint::Webhook { url, secret } = endpoint else {
            return Err(SendError::Permanent("not a webhook".into()));
        };
        let body = body_of(notification);
        let t = (notification.at_ms / 1000).max(1);
        let headers = [
            ("content-type", "application/json".to_owned()),
            ("user-agent", "tabletop-notify/1".to_owned()),
            (ID_HEADER, notification.id.to_string()),
            (
                SIGNATURE_HEADER,
                format!("t={t},v1={}", signature(secret, t, &body)),
            ),
        ];
        let settings = PostSettings {
            timeout: WEBHOOK_TIMEOUT,
            allow_private: self.allow_private,
        };
        match http_post::post(url, &headers, body, settings).await {
            Ok(status) => classify(status),
            Err(PostError::Refused(why)) => {
                Err(SendError::Permanent(format!("the URL is not valid ({why})")))
            }
            Err(PostError::TimedOut(_)) => Err(SendError::Temporary(format!(
                "the webhook did not answer within {} s",
                WEBHOOK_TIMEOUT.as_secs()
            ))),
            Err(PostError::Failed(why)) => Err(SendError::Temporary(why)),
        }
    }
}

/// The webhook's answer as a delivery outcome.
fn classify(status: u16) -> Result<(), SendError> {
    match status {
        s if (200..300).contains(&s) => Ok(()),
        410 => Err(SendError::Permanent("the webhook answered 410 Gone".into())),
        s if (300..400).contains(&s) => Err(SendError::Temporary(format!(
            "the webhook answered with a redirect ({s}), which is not followed"
        ))),
        s => Err(SendError::Temporary(format!("the webhook answered {s}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_signature_is_hmac_sha256_of_the_time_and_body() {
        // echo -n '1700000000.{"a":1}' | openssl dgst -sha256 -hmac secret
        assert_eq!(
            signature("secret", 1_700_000_000, br#"{"a":1}"#),
            "49f24e537407743fa4a0242bb63b94b9a47ee99cbbe071ccd8a22550ae411686"
        );
    }
}
