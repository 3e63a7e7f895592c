//! One HTTPS POST to a URL a client gave (a push service's endpoint): HTTP/1.1 with hyper over tokio-rustls (the
//! system's roots), no redirect followed, a whole-request timeout, the answer's body never read. Unless allowed
//! (`allow_private`, for tests on loopback), a host that resolves to a loopback, private, link-local, multicast
//! or otherwise non-public address is refused, and so is plain `http`.

use std::{
    net::{IpAddr, SocketAddr},
    sync::{Arc, OnceLock},
    time::Duration,
};

use axum::http::{Request, Uri, header};
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;
use tokio_rustls::rustls;

/// How a POST is made.
#[derive(Clone, Copy, Debug)]
pub struct PostSettings {
    /// For the whole request: resolving, connecting, TLS, sending and the answer's head.
    pub timeout: Duration,
    /// Allows `http://` and non-public addresses (tests' receivers on loopback).
    pub allow_private: bool,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum PostError {
    /// The URL cannot be used at all (not https, no host, a non-public address): permanent.
    #[error("refused URL: {0}")]
    Refused(&'static str),
    /// The host could not be reached or answered badly: worth another try.
    #[error("{0}")]
    Failed(String),
    #[error("no answer within the timeout")]
    TimedOut,
}

/// POSTs `body` with `headers` and returns the answer's status code.
pub async fn post(
    url: &str,
    headers: &[(&str, String)],
    body: Vec<u8>,
    settings: PostSettings,
) -> Result<u16, PostError> {
    let uri: Uri = url.parse().map_err(|_| PostError::Refused("not a URL"))?;
    let tls = match uri.scheme_str() {
        Some("https") => true,
        Some("http") if settings.allow_private => false,
        _ => return Err(PostError::Refused("not an https URL")),
    };
    let host = uri.host().ok_or(PostError::Refused("no host"))?;
    let host = host.trim_start_matches('[').trim_end_matches(']').to_owned();
    let port = uri.port_u16().unwrap_or(if tls { 443 } else { 80 });
    let mut request = Request::post(uri.path_and_query().map_or("/", |p| p.as_str()).to_owned())
        .header(header::HOST, authority(&uri))
        .header(header::CONTENT_LENGTH, body.len());
    for (name, value) in headers {
        request = request.header(*name, value);
    }
    let request = request
        .body(axum::body::Body::from(body))
        .map_err(|_| PostError::Refused("a header value is not valid"))?;
    let exchange = async {
        let addr = resolve(&host, port, settings.allow_private).await?;
        let tcp = TcpStream::connect(addr)
            .await
            .map_err(|e| PostError::Failed(format!("connect: {}", e.kind())))?;
        if tls {
            let name = rustls_pki_types::ServerName::try_from(host.clone())
                .map_err(|_| PostError::Refused("not a host name"))?;
            let stream = tokio_rustls::TlsConnector::from(tls_config())
                .connect(name, tcp)
                .await
                .map_err(|e| PostError::Failed(format!("TLS: {e}")))?;
            send(stream, request).await
        } else {
            send(tcp, request).await
        }
    };
    tokio::time::timeout(settings.timeout, exchange)
        .await
        .map_err(|_| PostError::TimedOut)?
}

fn authority(uri: &Uri) -> String {
    uri.authority()
        .map_or_else(String::new, |a| a.as_str().to_owned())
}

async fn send<S>(stream: S, request: Request<axum::body::Body>) -> Result<u16, PostError>
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(|e| PostError::Failed(format!("HTTP: {e}")))?;
    // The connection is driven until the answer's head is in; dropped with this future otherwise.
    let driver = tokio::spawn(connection);
    let answer = sender.send_request(request).await;
    driver.abort();
    let answer = answer.map_err(|e| PostError::Failed(format!("HTTP: {e}")))?;
    Ok(answer.status().as_u16())
}

/// The host's first address, refused when any of its addresses is not public (unless allowed).
async fn resolve(host: &str, port: u16, allow_private: bool) -> Result<SocketAddr, PostError> {
    let addrs: Vec<SocketAddr> = tokio::net::lookup_host((host, port))
        .await
        .map_err(|_| PostError::Failed("the host name does not resolve".into()))?
        .collect();
    if !allow_private && addrs.iter().any(|a| !is_public(a.ip())) {
        return Err(PostError::Refused("the host has a non-public address"));
    }
    addrs
        .first()
        .copied()
        .ok_or_else(|| PostError::Failed("the host name has no address".into()))
}

/// Whether an address is on the public Internet (not loopback, private, link-local, multicast, shared, reserved
/// or documentation space).
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => {
            let [a, b, ..] = v4.octets();
            !(v4.is_unspecified()
                || v4.is_loopback()
                || v4.is_private()
                || v4.is_link_local()
                || v4.is_multicast()
                || v4.is_broadcast()
                || v4.is_documentation()
                || a == 0
                || (a == 100 && (64..128).contains(&b))
                || a >= 240)
        }
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return is_public(IpAddr::V4(v4));
            }
            let first = v6.segments()[0];
            !(v6.is_unspecified()
                || v6.is_loopback()
                || v6.is_multicast()
                || (first & 0xfe00) == 0xfc00
                || (first & 0xffc0) == 0xfe80
                || first == 0x2001 && v6.segments()[1] == 0x0db8)
        }
    }
}

fn tls_config() -> Arc<rustls::ClientConfig> {
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
            .expect("ring's provider supports TLS 1.2 and 1.3")
            .with_root_certificates(roots)
            .with_no_client_auth();
            Arc::new(config)
        })
        .clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_public_addresses_are_public() {
        for ip in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "0.0.0.0",
            "224.0.0.1",
            "::1",
            "fe80::1",
            "fd00::1",
            "::ffff:127.0.0.1",
            "ff02::1",
        ] {
            assert!(!is_public(ip.parse().unwrap()), "{ip}");
        }
        for ip in ["8.8.8.8", "2a00:1450::1", "::ffff:8.8.8.8"] {
            assert!(is_public(ip.parse().unwrap()), "{ip}");
        }
    }

    #[tokio::test]
    async fn plain_http_and_loopback_are_refused_unless_allowed() {
        let strict = PostSettings {
            timeout: Duration::from_secs(2),
            allow_private: false,
        };
        assert_eq!(
            post("http://example.org/x", &[], Vec::new(), strict).await,
            Err(PostError::Refused("not an https URL"))
        );
        assert_eq!(
            post("https://127.0.0.1:9/x", &[], Vec::new(), strict).await,
            Err(PostError::Refused("the host has a non-public address"))
        );
        assert_eq!(
            post("ftp://example.org/x", &[], Vec::new(), strict).await,
            Err(PostError::Refused("not an https URL"))
        );
    }
}
