//! A Web Push service and browser in one, on loopback, for tests: [`PushReceiver::subscribe`] makes a
//! subscription as a browser would (a P-256 key pair and a 16-byte auth secret), and each POST to its endpoint
//! is checked as a push service checks it (the VAPID `Authorization` header: an ES256 JWT signed by the server's
//! public key, `aud` this receiver's origin, `exp` in the future and within 24 hours) and decrypted as the
//! browser would (RFC 8291 `aes128gcm`), written here independently of the server's code. A request that fails
//! a check is answered 403 (VAPID) or 400 (decryption); a good one with the status the test chose (201 unless
//! told otherwise), and handed to the test.

use std::{
    collections::HashMap,
    net::SocketAddr,
    sync::{
        Arc, Mutex,
        atomic::{AtomicU16, AtomicU64, Ordering},
    },
    time::{Duration, SystemTime, UNIX_EPOCH},
};

use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD as B64};
use p256::{PublicKey, SecretKey, elliptic_curve::sec1::ToEncodedPoint};
use ring::{aead, hkdf, signature};
use serde_json::Value;
use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::{TcpListener, TcpStream},
    sync::mpsc,
};

/// A browser's subscription: what `PushSubscription.toJSON()` gives the page.
#[derive(Clone, Debug)]
pub struct Subscription {
    pub endpoint: String,
    /// base64url of the uncompressed public point.
    pub p256dh: String,
    /// base64url of the 16-byte auth secret.
    pub auth: String,
}

/// The keys the "browser" keeps.
#[derive(Clone)]
struct Keys {
    secret: SecretKey,
    auth: [u8; 16],
}

/// One POST the receiver took.
#[derive(Debug)]
pub struct Delivery {
    /// The subscription's name (the endpoint's last path segment).
    pub name: String,
    /// The request's headers, names in lower case.
    pub headers: HashMap<String, String>,
    /// The VAPID token's claims.
    pub claims: Value,
    /// The decrypted payload.
    pub payload: Value,
    /// What the receiver answered.
    pub status: u16,
}

#[derive(Default)]
struct Shared {
    subscriptions: Mutex<HashMap<String, Keys>>,
    /// The status a good request is answered with.
    status: AtomicU16,
    /// Unix seconds for the `exp` check; 0: the system's time.
    now_secs: AtomicU64,
    /// Requests refused by a check, with why.
    refused: Mutex<Vec<String>>,
}

/// The receiver; its `Debug` shows its address.
pub struct PushReceiver {
    addr: SocketAddr,
    server_key: Vec<u8>,
    shared: Arc<Shared>,
    deliveries: mpsc::UnboundedReceiver<Delivery>,
}

impl PushReceiver {
    /// Serves on a loopback port; `server_key` is the server's VAPID public key (base64url, as `/api/push/key`
    /// gives it).
    pub async fn start(server_key: &str) -> PushReceiver {
        let server_key = B64.decode(server_key).expect("the server key is base64url");
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let shared = Arc::new(Shared::default());
        shared.status.store(201, Ordering::SeqCst);
        let (tx, deliveries) = mpsc::unbounded_channel();
        let (key, state) = (server_key.clone(), shared.clone());
        tokio::spawn(async move {
            while let Ok((socket, _)) = listener.accept().await {
                let (key, state, tx, origin) = (key.clone(), state.clone(), tx.clone(), origin_of(addr));
                tokio::spawn(async move {
                    let _ = serve(socket, &key, &origin, &state, &tx).await;
                });
            }
        });
        PushReceiver {
            addr,
            server_key,
            shared,
            deliveries,
        }
    }

    /// A new subscription, named `name`, as a browser makes one.
    pub fn subscribe(&self, name: &str) -> Subscription {
        let rng = ring::rand::SystemRandom::new();
        let secret = loop {
            let mut bytes = [0u8; 32];
            ring::rand::SecureRandom::fill(&rng, &mut bytes).unwrap();
            if let Ok(secret) = SecretKey::from_slice(&bytes) {
                break secret;
            }
        };
        let mut auth = [0u8; 16];
        ring::rand::SecureRandom::fill(&rng, &mut auth).unwrap();
        let public = secret.public_key().to_encoded_point(false);
        self.shared
            .subscriptions
            .lock()
            .unwrap()
            .insert(name.to_owned(), Keys { secret, auth });
        Subscription {
            endpoint: format!("{}/push/{name}", origin_of(self.addr)),
            p256dh: B64.encode(public.as_bytes()),
            auth: B64.encode(auth),
        }
    }

    /// Answers the next good requests with `status` (e.g. 410: the subscription is gone).
    pub fn answer_with(&self, status: u16) {
        self.shared.status.store(status, Ordering::SeqCst);
    }

    /// Checks `exp` against this Unix time instead of the system's (for a server on a manual clock).
    pub fn set_now_secs(&self, now: u64) {
        self.shared.now_secs.store(now, Ordering::SeqCst);
    }

    /// The next delivery, or `None` after `wait`.
    pub async fn next(&mut self, wait: Duration) -> Option<Delivery> {
        tokio::time::timeout(wait, self.deliveries.recv())
            .await
            .ok()
            .flatten()
    }

    /// Why requests were refused so far.
    pub fn refused(&self) -> Vec<String> {
        self.shared.refused.lock().unwrap().clone()
    }

    pub fn server_key(&self) -> &[u8] {
        &self.server_key
    }
}

impl std::fmt::Debug for PushReceiver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PushReceiver")
            .field("addr", &self.addr)
            .finish_non_exhaustive()
    }
}

fn origin_of(addr: SocketAddr) -> String {
    format!("http://{addr}")
}

async fn serve(
    mut socket: TcpStream,
    server_key: &[u8],
    origin: &str,
    state: &Shared,
    tx: &mpsc::UnboundedSender<Delivery>,
) -> std::io::Result<()> {
    let (path, headers, body) = read_request(&mut socket).await?;
    let name = path.rsplit('/').next().unwrap_or_default().to_owned();
    let now = match state.now_secs.load(Ordering::SeqCst) {
        0 => SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs(),
        set => set,
    };
    let keys = state.subscriptions.lock().unwrap().get(&name).cloned();
    let outcome = check_vapid(&headers, server_key, origin, now)
        .map_err(|e| (403, e))
        .and_then(|claims| {
            let keys = keys.ok_or((404, "no such subscription".to_owned()))?;
            if headers.get("content-encoding").map(String::as_str) != Some("aes128gcm") {
                return Err((400, "Content-Encoding is not aes128gcm".into()));
            }
            let plain = decrypt(&body, &keys).map_err(|e| (400, e))?;
            let payload = serde_json::from_slice(&plain).map_err(|e| (400, e.to_string()))?;
            Ok((claims, payload))
        });
    let status = match outcome {
        Ok((claims, payload)) => {
            let status = state.status.load(Ordering::SeqCst);
            let _ = tx.send(Delivery {
                name,
                headers,
                claims,
                payload,
                status,
            });
            status
        }
        Err((status, why)) => {
            state.refused.lock().unwrap().push(why);
            status
        }
    };
    let answer = format!("HTTP/1.1 {status} X\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
    socket.write_all(answer.as_bytes()).await?;
    socket.shutdown().await
}

/// A request's path, headers (lower-case names) and body (by `Content-Length`).
async fn read_request(socket: &mut TcpStream) -> std::io::Result<(String, HashMap<String, String>, Vec<u8>)> {
    let mut buf = Vec::new();
    let head_end = loop {
        let mut chunk = [0u8; 4096];
        let n = socket.read(&mut chunk).await?;
        if n == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        buf.extend_from_slice(&chunk[..n]);
        if let Some(at) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break at;
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let path = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .unwrap_or_default()
        .to_owned();
    let headers: HashMap<String, String> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let length: usize = headers
        .get("content-length")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let mut body = buf[head_end + 4..].to_vec();
    while body.len() < length {
        let mut chunk = vec![0u8; length - body.len()];
        let n = socket.read(&mut chunk).await?;
        if n == 0 {
            break;
        }
        body.extend_from_slice(&chunk[..n]);
    }
    Ok((path, headers, body))
}

/// The VAPID checks of a push service (RFC 8292): `vapid t=<JWT>, k=<key>` with the server's key, an ES256
/// signature by it, `aud` this origin, `exp` after `now` and at most 24 hours ahead. The claims.
pub fn check_vapid(
    headers: &HashMap<String, String>,
    server_key: &[u8],
    origin: &str,
    now: u64,
) -> Result<Value, String> {
    let value = headers.get("authorization").ok_or("no Authorization")?;
    let rest = value.strip_prefix("vapid ").ok_or("not the vapid scheme")?;
    let mut token = None;
    let mut key = None;
    for part in rest.split(',') {
        match part.trim().split_once('=') {
            Some(("t", v)) => token = Some(v),
            Some(("k", v)) => key = Some(v),
            _ => {}
        }
    }
    let (token, key) = (token.ok_or("no t=")?, key.ok_or("no k=")?);
    if B64.decode(key).map_err(|e| e.to_string())? != server_key {
        return Err("k= is not the server's key".into());
    }
    let (signed, sig) = token.rsplit_once('.').ok_or("not a JWT")?;
    signature::UnparsedPublicKey::new(&signature::ECDSA_P256_SHA256_FIXED, server_key)
        .verify(signed.as_bytes(), &B64.decode(sig).map_err(|e| e.to_string())?)
        .map_err(|_| "bad signature")?;
    let (header, claims) = signed.split_once('.').ok_or("not a JWT")?;
    let header: Value =
        serde_json::from_slice(&B64.decode(header).map_err(|e| e.to_string())?).map_err(|e| e.to_string())?;
    if header["alg"] != "ES256" {
        return Err("alg is not ES256".into());
    }
    let claims: Value =
        serde_json::from_slice(&B64.decode(claims).map_err(|e| e.to_string())?).map_err(|e| e.to_string())?;
    if claims["aud"] != origin {
        return Err(format!("aud is {}, not {origin}", claims["aud"]));
    }
    let exp = claims["exp"].as_u64().ok_or("no exp")?;
    if exp <= now || exp > now + 24 * 3600 {
        return Err(format!("exp {exp} is not within a day after {now}"));
    }
    Ok(claims)
}

struct Len(usize);

impl hkdf::KeyType for Len {
    fn len(&self) -> usize {
        self.0
    }
}

fn hkdf(salt: &[u8], ikm: &[u8], info: &[u8], out: &mut [u8]) {
    hkdf::Salt::new(hkdf::HKDF_SHA256, salt)
        .extract(ikm)
        .expand(&[info], Len(out.len()))
        .and_then(|okm| okm.fill(out))
        .unwrap();
}

/// [`decrypt`] with a raw private key (32 bytes) and auth secret (16 bytes), for known-answer tests.
pub fn decrypt_with(body: &[u8], ua_private: &[u8], auth: &[u8]) -> Result<Vec<u8>, String> {
    let keys = Keys {
        secret: SecretKey::from_slice(ua_private).map_err(|_| "not a P-256 private key")?,
        auth: auth.try_into().map_err(|_| "the auth secret is not 16 bytes")?,
    };
    decrypt(body, &keys)
}

/// The browser's decryption of an `aes128gcm` push message (RFC 8188 with RFC 8291's keys): the plaintext
/// without its padding. One record, as a push message has.
fn decrypt(body: &[u8], keys: &Keys) -> Result<Vec<u8>, String> {
    if body.len() < 21 {
        return Err("too short for the header".into());
    }
    let salt = &body[..16];
    let record_size = u32::from_be_bytes(body[16..20].try_into().unwrap()) as usize;
    let id_len = body[20] as usize;
    let as_public = body.get(21..21 + id_len).ok_or("too short for the key id")?;
    let ciphertext = &body[21 + id_len..];
    if ciphertext.len() > record_size {
        return Err("more than one record".into());
    }
    let sender = PublicKey::from_sec1_bytes(as_public).map_err(|_| "the key id is not a P-256 point")?;
    let shared = p256::ecdh::diffie_hellman(keys.secret.to_nonzero_scalar(), sender.as_affine());
    let ua_public = keys.secret.public_key().to_encoded_point(false);
    let mut info = b"WebPush: info\0".to_vec();
    info.extend_from_slice(ua_public.as_bytes());
    info.extend_from_slice(as_public);
    let mut ikm = [0u8; 32];
    hkdf(&keys.auth, shared.raw_secret_bytes(), &info, &mut ikm);
    let (mut cek, mut nonce) = ([0u8; 16], [0u8; 12]);
    hkdf(salt, &ikm, b"Content-Encoding: aes128gcm\0", &mut cek);
    hkdf(salt, &ikm, b"Content-Encoding: nonce\0", &mut nonce);
    let key = aead::LessSafeKey::new(aead::UnboundKey::new(&aead::AES_128_GCM, &cek).unwrap());
    let mut record = ciphertext.to_vec();
    let plain = key
        .open_in_place(
            aead::Nonce::assume_unique_for_key(nonce),
            aead::Aad::empty(),
            &mut record,
        )
        .map_err(|_| "the record does not decrypt")?;
    // The padding: zeros after the delimiter 2 (the last record's).
    let end = plain.iter().rposition(|&b| b != 0).ok_or("no delimiter")?;
    if plain[end] != 2 {
        return Err("the delimiter is not the last record's".into());
    }
    Ok(plain[..end].to_vec())
}
