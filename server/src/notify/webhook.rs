//! The webhook channel: a JSON POST to a URL the player pasted, signed with HMAC-SHA256 under the endpoint's
//! secret (`docs/protocol.md`, "Webhooks").
//!
//! The URL's host is resolved and checked again at every send, and the connection goes to a checked address (no
//! second look-up that could answer differently); redirects are not followed; the whole exchange has a timeout
//! and the answer's body is read up to a cap. 2xx is delivered, 410 Gone switches the endpoint off, anything
//! else is tried again later.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use bytes::Bytes;
use hmac::{KeyInit, Mac};
use http_body_util::{BodyExt, Full, Limited};
use hyper_util::rt::TokioIo;
use serde::Serialize;
use tokio::net::TcpStream;
use tokio_rustls::rustls;

use super::{Endpoint, Notification, SendError, check};

/// The longest a delivery may take, connection and answer included.
pub const WEBHOOK_TIMEOUT: Duration = Duration::from_secs(5);
/// The most of an answer's body that is read (the rest is dropped).
pub const WEBHOOK_RESPONSE_CAP: usize = 16 * 1024;

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

fn tls() -> Arc<rustls::ClientConfig> {
    static CONFIG: OnceLock<Arc<rustls::ClientConfig>> = OnceLock::new();
    CONFIG
        .get_or_init(|| {
            let mut roots = rustls::RootCertStore::empty();
            for cert in rustls_native_certs::load_native_certs().certs {
                let _ = roots.add(cert);
            }
            let config = rustls::ClientConfig::builder_with_provider(Arc::new(
                rustls::crypto::ring::default_provider(),
            ))
            .with_safe_default_protocol_versions()
            .expect("ring supports the default TLS versions")
            .with_root_certificates(roots)
            .with_no_client_auth();
            Arc::new(config)
        })
        .clone()
}

impl WebhookSender {
    pub async fn send(&self, endpoint: &Endpoint, notification: &Notification) -> Result<(), SendError> {
        let Endpoint::Webhook { url, secret } = endpoint else {
            return Err(SendError::Permanent("not a webhook".into()));
        };
        match tokio::time::timeout(WEBHOOK_TIMEOUT, self.post(url, secret, notification)).await {
            Ok(result) => result,
            Err(_) => Err(SendError::Temporary(format!(
                "the webhook did not answer within {} s",
                WEBHOOK_TIMEOUT.as_secs()
            ))),
        }
    }

    async fn post(&self, url: &str, secret: &str, notification: &Notification) -> Result<(), SendError> {
        let url = url::Url::parse(url).map_err(|_| SendError::Permanent("the URL is not valid".into()))?;
        let addrs = check::resolve(&url, self.allow_private)
            .await
            .map_err(|e| SendError::Temporary(e.message))?;
        let mut stream = None;
        for addr in addrs {
            if let Ok(s) = TcpStream::connect(addr).await {
                stream = Some(s);
                break;
            }
        }
        let stream = stream
            .ok_or_else(|| SendError::Temporary("the webhook's server refused the connection".into()))?;
        let host = url.host_str().unwrap_or_default().to_owned();
        let body = body_of(notification);
        let t = notification.at_ms / 1000;
        let t = t.max(1);
        let path = match url.query() {
            Some(q) => format!("{}?{q}", url.path()),
            None => url.path().to_owned(),
        };
        let host_header = match url.port() {
            Some(port) => format!("{host}:{port}"),
            None => host.clone(),
        };
        let request = hyper::Request::post(path)
            .header(hyper::header::HOST, host_header)
            .header(hyper::header::CONTENT_TYPE, "application/json")
            .header(hyper::header::USER_AGENT, "tabletop-notify/1")
            .header(ID_HEADER, notification.id.to_string())
            .header(
                SIGNATURE_HEADER,
                format!("t={t},v1={}", signature(secret, t, &body)),
            )
            .body(Full::new(Bytes::from(body)))
            .map_err(|_| SendError::Permanent("the URL is not valid".into()))?;
        let status = if url.scheme() == "https" {
            let name = rustls::pki_types::ServerName::try_from(host)
                .map_err(|_| SendError::Permanent("the URL's host is not a valid TLS name".into()))?;
            let tls = tokio_rustls::TlsConnector::from(tls())
                .connect(name, stream)
                .await
                .map_err(|_| SendError::Temporary("the TLS handshake with the webhook failed".into()))?;
            exchange(TokioIo::new(tls), request).await?
        } else {
            exchange(TokioIo::new(stream), request).await?
        };
        match status {
            s if (200..300).contains(&s) => Ok(()),
            410 => Err(SendError::Permanent("the webhook answered 410 Gone".into())),
            s if (300..400).contains(&s) => Err(SendError::Temporary(format!(
                "the webhook answered with a redirect ({s}), which is not followed"
            ))),
            s => Err(SendError::Temporary(format!("the webhook answered {s}"))),
        }
    }
}

/// One request on a new HTTP/1 connection: the answer's status, once its body (up to the cap) is read.
async fn exchange<I>(io: I, request: hyper::Request<Full<Bytes>>) -> Result<u16, SendError>
where
    I: hyper::rt::Read + hyper::rt::Write + Unpin + Send + 'static,
{
    let unreachable = |_| SendError::Temporary("the webhook's server closed the connection".into());
    let (mut sender, connection) = hyper::client::conn::http1::handshake(io)
        .await
        .map_err(unreachable)?;
    let driver = tokio::spawn(async move {
        let _ = connection.await;
    });
    let answer = sender.send_request(request).await.map_err(unreachable)?;
    let status = answer.status().as_u16();
    // The body is read (to the cap) so that the exchange completes; what it says is not used.
    let _ = Limited::new(answer.into_body(), WEBHOOK_RESPONSE_CAP)
        .collect()
        .await;
    driver.abort();
    Ok(status)
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
