//! One POST to a URL a client gave (a webhook, a push service's endpoint), the one way notifications leave the
//! server over HTTP: HTTP/1.1 with hyper over tokio-rustls (the system's roots) for `https`, plain for `http`.
//!
//! The host is resolved and checked at every send (`check::resolve`: public addresses only unless
//! `allow_private`), and the connection goes to a checked address (no second look-up that could answer
//! differently); no redirect is followed; the whole exchange has a timeout, and the answer's body is read up to
//! [`RESPONSE_CAP`] (the rest is dropped). Which schemes a channel accepts, and what a status means, is the
//! channel's.

use std::{
    sync::{Arc, OnceLock},
    time::Duration,
};

use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::{Request, header};
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;
use tokio_rustls::rustls;

use super::check;

/// The most of an answer's body that is read.
pub const RESPONSE_CAP: usize = 16 * 1024;

/// How a POST is made.
#[derive(Clone, Copy, Debug)]
pub struct PostSettings {
    /// For the whole request: resolving, connecting, TLS, sending and the answer (its body up to the cap).
    pub timeout: Duration,
    /// Allows non-public addresses (tests' receivers on loopback).
    pub allow_private: bool,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum PostError {
    /// The URL cannot be used at all (not an http(s) URL, no host, not a TLS name): permanent.
    #[error("refused URL: {0}")]
    Refused(&'static str),
    /// The host could not be resolved to allowed addresses, reached, or answered badly: worth another try. Its
    /// words never name the URL or an address (they are shown to the seat).
    #[error("{0}")]
    Failed(String),
    #[error("no answer within {} s", .0.as_secs())]
    TimedOut(Duration),
}

/// POSTs `body` with `headers` (besides `host` and `content-length`) and returns the answer's status code.
pub async fn post(
    url: &str,
    headers: &[(&str, String)],
    body: Vec<u8>,
    settings: PostSettings,
) -> Result<u16, PostError> {
    let url = url::Url::parse(url).map_err(|_| PostError::Refused("not a URL"))?;
    let tls = match url.scheme() {
        "https" => true,
        "http" => false,
        _ => return Err(PostError::Refused("not an http(s) URL")),
    };
    let host = url.host_str().ok_or(PostError::Refused("no host"))?.to_owned();
    let host_header = match url.port() {
        Some(port) => format!("{host}:{port}"),
        None => host.clone(),
    };
    let path = match url.query() {
        Some(q) => format!("{}?{q}", url.path()),
        None => url.path().to_owned(),
    };
    let mut request = Request::post(path)
        .header(header::HOST, host_header)
        .header(header::CONTENT_LENGTH, body.len());
    for (name, value) in headers {
        request = request.header(*name, value);
    }
    let request = request
        .body(Full::new(Bytes::from(body)))
        .map_err(|_| PostError::Refused("a header value is not valid"))?;
    let exchange = async {
        let tcp = connect(&url, settings.allow_private).await?;
        if tls {
            let name = rustls::pki_types::ServerName::try_from(
                host.trim_start_matches('[').trim_end_matches(']').to_owned(),
            )
            .map_err(|_| PostError::Refused("not a TLS host name"))?;
            let stream = tokio_rustls::TlsConnector::from(tls_config())
                .connect(name, tcp)
                .await
                // Not its details: they may name the host, and the message is shown to the seat.
                .map_err(|_| PostError::Failed("the TLS handshake failed".into()))?;
            send(stream, request).await
        } else {
            send(tcp, request).await
        }
    };
    tokio::time::timeout(settings.timeout, exchange)
        .await
        .map_err(|_| PostError::TimedOut(settings.timeout))?
}

/// A connection to the first of the URL's checked addresses that accepts one.
async fn connect(url: &url::Url, allow_private: bool) -> Result<TcpStream, PostError> {
    let addrs = check::resolve(url, allow_private)
        .await
        .map_err(|e| PostError::Failed(e.message))?;
    for addr in addrs {
        if let Ok(stream) = TcpStream::connect(addr).await {
            return Ok(stream);
        }
    }
    Err(PostError::Failed("the server refused the connection".into()))
}

/// One request on a new HTTP/1 connection: the answer's status, once its body (up to the cap) is read.
async fn send<S>(stream: S, request: Request<Full<Bytes>>) -> Result<u16, PostError>
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(|e| PostError::Failed(format!("HTTP: {e}")))?;
    let driver = tokio::spawn(connection);
    let answer = sender.send_request(request).await;
    let status = match answer {
        Ok(answer) => {
            let status = answer.status().as_u16();
            // Read (to the cap) so that the exchange completes; what it says is not used.
            let _ = Limited::new(answer.into_body(), RESPONSE_CAP).collect().await;
            Ok(status)
        }
        Err(e) => Err(PostError::Failed(format!("HTTP: {e}"))),
    };
    driver.abort();
    status
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

    #[tokio::test]
    async fn other_schemes_and_loopback_are_refused_unless_allowed() {
        let strict = PostSettings {
            timeout: Duration::from_secs(2),
            allow_private: false,
        };
        assert_eq!(
            post("ftp://example.org/x", &[], Vec::new(), strict).await,
            Err(PostError::Refused("not an http(s) URL"))
        );
        assert_eq!(
            post("not a url", &[], Vec::new(), strict).await,
            Err(PostError::Refused("not a URL"))
        );
        let loopback = post("https://127.0.0.1:9/x", &[], Vec::new(), strict).await;
        assert!(
            matches!(&loopback, Err(PostError::Failed(m)) if m.contains("loopback")),
            "{loopback:?}"
        );
        let allowed = PostSettings {
            allow_private: true,
            ..strict
        };
        // Allowed, it is tried: nothing listens on port 9.
        assert_eq!(
            post("http://127.0.0.1:9/x", &[], Vec::new(), allowed).await,
            Err(PostError::Failed("the server refused the connection".into()))
        );
    }

    #[tokio::test]
    async fn the_answer_is_read_up_to_the_cap_and_redirects_are_not_followed() {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let server = tokio::spawn(async move {
            let (mut socket, _) = listener.accept().await.unwrap();
            let mut head = vec![0u8; 4096];
            let _ = socket.read(&mut head).await.unwrap();
            // A redirect whose body runs to the connection's end (no length), far over the cap, and the
            // connection stays open: only the cap ends the read before the timeout.
            let answer = format!(
                "HTTP/1.1 302 Found\r\nlocation: http://{addr}/elsewhere\r\n\r\n{}",
                "x".repeat(RESPONSE_CAP * 4)
            );
            let _ = socket.write_all(answer.as_bytes()).await;
            tokio::time::sleep(Duration::from_secs(30)).await;
        });
        let settings = PostSettings {
            timeout: Duration::from_secs(5),
            allow_private: true,
        };
        let url = format!("http://{addr}/hook?x=1");
        let status = post(&url, &[("x-test", "1".into())], b"{}".to_vec(), settings).await;
        assert_eq!(status, Ok(302));
        server.abort();
    }
}
