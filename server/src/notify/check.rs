//! The checks of a new endpoint (`notify_subscribe`) and of the address a delivery connects to: a webhook or push
//! endpoint must be http(s), at most [`NOTIFY_TARGET_MAX_BYTES`], and resolve only to public addresses unless the
//! operator allows private ones (`NOTIFY_ALLOW_PRIVATE`); an email address must look like one; push keys must
//! be base64url of the right lengths.

use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use base64::Engine;
use protocol::{ErrorBody, ErrorCode, NOTIFY_TARGET_MAX_BYTES, NotifyLanguage, NotifyTarget};

use crate::table::NewEndpoint;

/// The longest wait for a host name's addresses.
const RESOLVE_TIMEOUT: Duration = Duration::from_secs(3);

fn bad(message: impl Into<String>) -> ErrorBody {
    ErrorBody::new(ErrorCode::BadEndpoint, message)
}

/// A target that passed the checks, with the secret a webhook signs with.
#[derive(PartialEq, Eq)]
pub struct Checked {
    channel: &'static str,
    target: String,
    secret: Option<String>,
    auth: Option<String>,
    reveal: Option<String>,
}

impl std::fmt::Debug for Checked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.channel)
    }
}

impl Checked {
    pub fn into_new(self, language: NotifyLanguage) -> NewEndpoint {
        NewEndpoint {
            channel: self.channel,
            target: self.target,
            secret: self.secret,
            auth: self.auth,
            language,
            reveal: self.reveal,
        }
    }
}

/// Checks a new endpoint; for a webhook, draws its signing secret.
pub async fn check_target(target: NotifyTarget, allow_private: bool) -> Result<Checked, ErrorBody> {
    match target {
        NotifyTarget::Webhook { url } => {
            check_url(&url, allow_private).await?;
            let secret = new_secret();
            Ok(Checked {
                channel: "webhook",
                target: url,
                secret: Some(secret.clone()),
                auth: None,
                reveal: Some(secret),
            })
        }
        NotifyTarget::Email { address } => {
            let address = address.trim().to_owned();
            check_email(&address)?;
            Ok(Checked {
                channel: "email",
                target: address,
                secret: None,
                auth: None,
                reveal: None,
            })
        }
        NotifyTarget::WebPush {
            endpoint,
            p256dh,
            auth,
        } => {
            let url = check_url(&endpoint, allow_private).await?;
            if url.scheme() != "https" && !allow_private {
                return Err(bad("a push endpoint must be an https URL"));
            }
            key(&p256dh, 65, "p256dh")?;
            key(&auth, 16, "auth")?;
            Ok(Checked {
                channel: "web_push",
                target: endpoint,
                secret: Some(p256dh),
                auth: Some(auth),
                reveal: None,
            })
        }
    }
}

/// 32 random bytes in hex: a webhook's signing secret.
fn new_secret() -> String {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).expect("the system's random source");
    hex::encode(bytes)
}

fn key(text: &str, len: usize, name: &str) -> Result<(), ErrorBody> {
    let decoded = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(text.trim_end_matches('='))
        .map_err(|_| bad(format!("the push subscription's `{name}` key is not base64url")))?;
    if decoded.len() != len || (len == 65 && decoded[0] != 4) {
        return Err(bad(format!(
            "the push subscription's `{name}` key is not {len} bytes long{}",
            if len == 65 {
                " (an uncompressed P-256 point)"
            } else {
                ""
            }
        )));
    }
    Ok(())
}

/// An email address: one `@`, a local part of 1-64 and a domain of 1-253 characters with a dot, no spaces,
/// controls or characters that would change the message's headers; 254 at most in all.
pub fn check_email(address: &str) -> Result<(), ErrorBody> {
    let refuse = || bad("that is not an email address this server can write to");
    if address.len() > 254 || address.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(refuse());
    }
    let (local, domain) = address.rsplit_once('@').ok_or_else(refuse)?;
    let local_ok = !local.is_empty()
        && local.len() <= 64
        && !local.contains(['@', '<', '>', '(', ')', ',', ';', ':', '\\', '"', '[', ']']);
    let domain_ok = !domain.is_empty()
        && domain.len() <= 253
        && domain.contains('.')
        && domain
            .split('.')
            .all(|l| !l.is_empty() && !l.starts_with('-') && !l.ends_with('-'))
        && domain
            .chars()
            .all(|c| c.is_alphanumeric() || c == '-' || c == '.');
    if local_ok && domain_ok {
        Ok(())
    } else {
        Err(refuse())
    }
}

/// An http(s) URL of at most [`NOTIFY_TARGET_MAX_BYTES`], without user or password, whose host resolves to
/// public addresses only (any, with `allow_private`).
async fn check_url(text: &str, allow_private: bool) -> Result<url::Url, ErrorBody> {
    if text.len() > NOTIFY_TARGET_MAX_BYTES {
        return Err(bad(format!(
            "the URL is longer than {NOTIFY_TARGET_MAX_BYTES} bytes"
        )));
    }
    let url = url::Url::parse(text).map_err(|_| bad("that is not a URL"))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(bad("the URL must start with https:// (or http://)"));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(bad("the URL must not carry a user name or password"));
    }
    resolve(&url, allow_private).await?;
    Ok(url)
}

/// The addresses to connect to for `url`, all checked: refused if any is loopback, private, link-local,
/// multicast or otherwise not public (unless `allow_private`), or if there are none. At send time the
/// connection goes to these addresses only, so the name cannot resolve elsewhere in between.
pub async fn resolve(url: &url::Url, allow_private: bool) -> Result<Vec<SocketAddr>, ErrorBody> {
    let host = url.host().ok_or_else(|| bad("the URL has no host"))?;
    let port = url
        .port_or_known_default()
        .ok_or_else(|| bad("the URL has no port"))?;
    let addrs: Vec<SocketAddr> = match host {
        url::Host::Ipv4(ip) => vec![SocketAddr::new(IpAddr::V4(ip), port)],
        url::Host::Ipv6(ip) => vec![SocketAddr::new(IpAddr::V6(ip), port)],
        url::Host::Domain(name) => {
            let found = tokio::time::timeout(RESOLVE_TIMEOUT, tokio::net::lookup_host((name, port)))
                .await
                .map_err(|_| bad("the URL's host name could not be resolved in time"))?
                .map_err(|_| bad("the URL's host name does not resolve"))?;
            found.collect()
        }
    };
    if addrs.is_empty() {
        return Err(bad("the URL's host name does not resolve"));
    }
    if !allow_private && addrs.iter().any(|a| !is_public(a.ip())) {
        return Err(bad(
            "the URL leads to a loopback, private, link-local or multicast address, which this server does not call",
        ));
    }
    Ok(addrs)
}

/// Whether an address is on the public internet: not loopback, private, shared (CGNAT), link-local, multicast,
/// broadcast, documentation or unspecified (an IPv4-mapped IPv6 address as its IPv4 address).
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => {
            let [a, b, ..] = v4.octets();
            !(v4.is_loopback()
                || v4.is_private()
                || v4.is_link_local()
                || v4.is_multicast()
                || v4.is_broadcast()
                || v4.is_unspecified()
                || v4.is_documentation()
                || a == 0
                || (a == 100 && (64..128).contains(&b))
                || (a == 198 && (b == 18 || b == 19))
                || a >= 240)
        }
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return is_public(IpAddr::V4(v4));
            }
            let first = v6.segments()[0];
            !(v6.is_loopback()
                || v6.is_unspecified()
                || v6.is_multicast()
                || (first & 0xfe00) == 0xfc00
                || (first & 0xffc0) == 0xfe80
                || first == 0x2001 && v6.segments()[1] == 0x0db8)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_public_addresses_are_public() {
        for private in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "224.0.0.1",
            "100.64.0.1",
            "0.0.0.0",
            "::1",
            "fe80::1",
            "fd00::1",
            "ff02::1",
            "::ffff:127.0.0.1",
        ] {
            assert!(!is_public(private.parse().unwrap()), "{private}");
        }
        for public in ["93.184.216.34", "8.8.8.8", "2606:4700::1111"] {
            assert!(is_public(public.parse().unwrap()), "{public}");
        }
    }

    #[test]
    fn email_addresses_are_checked() {
        assert!(check_email("bob@example.org").is_ok());
        for bad in [
            "bob",
            "bob@",
            "@example.org",
            "bob@localhost",
            "bob smith@example.org",
            "bob@exa mple.org",
            "bob@example.org\r\nBcc: x@y.z",
            "<bob>@example.org",
        ] {
            assert!(check_email(bad).is_err(), "{bad}");
        }
        assert!(check_email(&format!("{}@example.org", "a".repeat(65))).is_err());
    }

    #[tokio::test]
    async fn a_private_webhook_is_refused_without_the_flag() {
        let url = NotifyTarget::Webhook {
            url: "http://127.0.0.1:9/hook".into(),
        };
        let refused = check_target(url.clone(), false).await.unwrap_err();
        assert_eq!(refused.code, ErrorCode::BadEndpoint);
        assert!(check_target(url, true).await.is_ok());
        for bad in ["ftp://example.org/x", "not a url", "https://user:pw@127.0.0.1/"] {
            let target = NotifyTarget::Webhook { url: bad.into() };
            assert_eq!(
                check_target(target, true).await.unwrap_err().code,
                ErrorCode::BadEndpoint,
                "{bad}"
            );
        }
    }

    #[tokio::test]
    async fn push_keys_must_have_their_lengths() {
        let b64 = |bytes: &[u8]| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes);
        let mut point = vec![4u8];
        point.extend([7u8; 64]);
        let good = NotifyTarget::WebPush {
            endpoint: "https://127.0.0.1/push/1".into(),
            p256dh: b64(&point),
            auth: b64(&[1u8; 16]),
        };
        assert!(check_target(good, true).await.is_ok());
        let short = NotifyTarget::WebPush {
            endpoint: "https://127.0.0.1/push/1".into(),
            p256dh: b64(&point[..10]),
            auth: b64(&[1u8; 16]),
        };
        assert_eq!(
            check_target(short, true).await.unwrap_err().code,
            ErrorCode::BadEndpoint
        );
    }
}
