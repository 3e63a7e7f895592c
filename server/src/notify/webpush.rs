//! The Web Push channel: one notification to one browser subscription, encrypted for it (RFC 8291, `ece.rs`),
//! signed with the server's VAPID key (RFC 8292, `vapid.rs`) and POSTed to its push service (RFC 8030).
//!
//! The payload is JSON, `{"id", "kind", "title", "body", "link", "tag"}` (`tag` is the table's code, for the
//! page's service worker to replace an older notification of the same table), at most
//! [`ece::MAX_PLAINTEXT`] bytes (the body is shortened to fit).

use std::time::Duration;

use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD as B64};
use serde::Serialize;

use std::sync::Arc;

use protocol::NotifyKind;

use super::{
    Endpoint, Notification, SendError, ece,
    http_post::{self, PostError, PostSettings},
    vapid::VapidKey,
};
use crate::clock::SharedClock;

/// How long a push service keeps a message for a device that is offline, in seconds: a turn waits for days in
/// correspondence play, but a week-old "your turn" is news no more.
pub const TTL_SECS: u64 = 4 * 24 * 3600;

/// What the page's service worker receives.
#[derive(Debug, Serialize)]
pub struct Payload<'a> {
    pub id: &'a str,
    pub kind: &'a str,
    pub title: &'a str,
    pub body: &'a str,
    pub link: &'a str,
    pub tag: &'a str,
}

/// The payload's JSON, the body shortened (at a character boundary, with an ellipsis) until it fits.
pub fn payload(n: &Notification) -> Vec<u8> {
    let mut keep = n.body.len();
    loop {
        let body = if keep == n.body.len() {
            n.body.clone()
        } else {
            format!("{}…", &n.body[..keep])
        };
        let id = n.id.to_string();
        let text = serde_json::to_vec(&Payload {
            id: &id,
            kind: n.kind.code(),
            title: &n.title,
            body: &body,
            link: &n.link,
            tag: &n.lobby_code,
        })
        .expect("strings serialize");
        if text.len() <= ece::MAX_PLAINTEXT || keep == 0 {
            return text;
        }
        let mut cut = keep.saturating_sub(text.len() - ece::MAX_PLAINTEXT);
        while !n.body.is_char_boundary(cut) {
            cut -= 1;
        }
        keep = cut;
    }
}

/// Sends `n` to the subscription (`endpoint`, `p256dh`, `auth` as the browser's `PushSubscription.toJSON()`
/// gives them). `now_secs` (Unix seconds, from the server's clock) dates the VAPID token.
///
/// 2xx is delivered. 404 and 410 (the subscription is gone), 400, 401, 403 and 413 (it can never be taken as
/// it is), a bad subscription key or a refused URL are [`SendError::Permanent`]; 429, 5xx, other answers,
/// network failures and timeouts are [`SendError::Temporary`].
pub async fn send(
    key: &VapidKey,
    endpoint: &str,
    p256dh: &str,
    auth: &str,
    n: &Notification,
    now_secs: u64,
    settings: PostSettings,
) -> Result<(), SendError> {
    let ua_public = B64
        .decode(p256dh.trim_end_matches('='))
        .map_err(|_| SendError::Permanent("p256dh is not base64url".into()))?;
    let auth = B64
        .decode(auth.trim_end_matches('='))
        .map_err(|_| SendError::Permanent("auth is not base64url".into()))?;
    let body = ece::encrypt(&ua_public, &auth, &payload(n), &ring::rand::SystemRandom::new())
        .map_err(|e| SendError::Permanent(e.to_string()))?;
    let origin = origin(endpoint).ok_or_else(|| SendError::Permanent("the endpoint is not a URL".into()))?;
    if !origin.starts_with("https://") && !settings.allow_private {
        return Err(SendError::Permanent("refused URL: not an https URL".into()));
    }
    let urgency = match n.kind {
        NotifyKind::YourTurn | NotifyKind::ClockLow => "high",
        NotifyKind::MatchOver => "normal",
    };
    let headers = [
        ("authorization", key.authorization(&origin, now_secs)),
        ("content-encoding", "aes128gcm".to_owned()),
        ("content-type", "application/octet-stream".to_owned()),
        ("ttl", TTL_SECS.to_string()),
        ("urgency", urgency.to_owned()),
    ];
    match http_post::post(endpoint, &headers, body, settings).await {
        Ok(status) => classify(status),
        Err(PostError::Refused(why)) => Err(SendError::Permanent(why.into())),
        Err(e) => Err(SendError::Temporary(e.to_string())),
    }
}

/// The push service's answer as a delivery outcome.
pub fn classify(status: u16) -> Result<(), SendError> {
    match status {
        200..=299 => Ok(()),
        400 | 401 | 403 | 404 | 410 | 413 => Err(SendError::Permanent(format!(
            "the push service answered {status}"
        ))),
        _ => Err(SendError::Temporary(format!(
            "the push service answered {status}"
        ))),
    }
}

/// `scheme://host[:port]` of a URL: the VAPID token's audience.
pub fn origin(url: &str) -> Option<String> {
    let uri: axum::http::Uri = url.parse().ok()?;
    Some(format!("{}://{}", uri.scheme_str()?, uri.authority()?.as_str()))
}

/// The Web Push channel as the worker holds it: the VAPID key, the POST's settings and the clock that dates
/// the VAPID token.
#[derive(Clone, Debug)]
pub struct WebPushSender {
    pub key: Arc<VapidKey>,
    pub post: PostSettings,
    pub clock: SharedClock,
}

impl WebPushSender {
    /// [`send`] to a [`Endpoint::WebPush`].
    pub async fn send(&self, endpoint: &Endpoint, n: &Notification) -> Result<(), SendError> {
        let Endpoint::WebPush {
            endpoint,
            p256dh,
            auth,
        } = endpoint
        else {
            return Err(SendError::Permanent("not a Web Push endpoint".into()));
        };
        let now_secs = self.clock.now() / 1000;
        send(&self.key, endpoint, p256dh, auth, n, now_secs, self.post).await
    }
}

/// The default settings of a push request: 10 s in all, public addresses only.
pub const DEFAULT_POST: PostSettings = PostSettings {
    timeout: Duration::from_secs(10),
    allow_private: false,
};

#[cfg(test)]
mod tests {
    use super::*;

    fn notification(body: String) -> Notification {
        Notification {
            id: uuid::Uuid::nil(),
            kind: NotifyKind::YourTurn,
            lobby_code: "ABCD-EFGH".into(),
            game: "quacks".into(),
            seat: 1,
            language: protocol::NotifyLanguage::En,
            at_ms: 0,
            link: "https://games.example.org/#ABCD-EFGH".into(),
            title: "Your turn".into(),
            body,
        }
    }

    #[test]
    fn the_payload_names_the_table_and_fits() {
        let text = payload(&notification("Alice moved.".into()));
        let json: serde_json::Value = serde_json::from_slice(&text).unwrap();
        assert_eq!(json["tag"], "ABCD-EFGH");
        assert_eq!(json["kind"], "your_turn");
        assert_eq!(json["body"], "Alice moved.");
        let long = payload(&notification("é".repeat(5000)));
        assert!(long.len() <= ece::MAX_PLAINTEXT, "{}", long.len());
        let json: serde_json::Value = serde_json::from_slice(&long).unwrap();
        assert!(json["body"].as_str().unwrap().ends_with('…'));
    }

    #[test]
    fn answers_are_classified() {
        assert!(classify(201).is_ok());
        assert!(matches!(classify(410), Err(SendError::Permanent(_))));
        assert!(matches!(classify(404), Err(SendError::Permanent(_))));
        assert!(matches!(classify(429), Err(SendError::Temporary(_))));
        assert!(matches!(classify(503), Err(SendError::Temporary(_))));
        assert_eq!(
            origin("https://push.example.net:8443/send/abc?x=1").as_deref(),
            Some("https://push.example.net:8443")
        );
    }
}
