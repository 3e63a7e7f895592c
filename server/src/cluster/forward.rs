//! Forwarding between cluster nodes over NATS (issue 27, "any node serves any client").
//!
//! A client asking node B for a table that live node A owns is relayed: B opens a forward session with A (a
//! NATS request to `tt.fwd.<A>.open`), then relays every frame of the client's connection to A and every frame
//! of A back, unchanged. On A the session is served by the same connection loop as a local socket
//! (`connection::serve_remote`, handed to `Forwarder::listen` by `app.rs`), so replies, pushes, their order and
//! every view are those of a local connection by construction.
//!
//! - **Subjects.** Each node subscribes once to `tt.fwd.<its id in hex>.>`: `open` for new sessions, `m` for
//!   link messages. A node keeps one link per peer node: every session's frames for that peer, queued together,
//!   leave as one NATS message of (session id, sealed frame) pairs ([`put_link_frame`]), so the pushes of the
//!   tables one group commit answered cross as one message rather than one each.
//! - **Authentication.** The open request is sealed with AES-256-GCM under a key of the cluster secret (relay
//!   format 2: nothing in it is readable, the client's address included; a node of an older build is sent format
//!   1, signed with HMAC-SHA256: see [`RELAY_FORMAT`]), and the answer is signed; both carry a fresh random nonce. Every later frame carries a tag under a key of that session only (HMAC
//!   of the secret over the session id and both nonces): AES-256-GCM used as a MAC over the frame's kind, number
//!   and body, with its direction and number as the nonce. A frame with a bad tag (forged, or from another
//!   session or direction) or an old number (replayed) is refused, logged and counted
//!   (`tabletop_forward_refused_total`), and changes nothing: the session goes on, and the genuine frame with
//!   that number is still accepted. A replayed open only starts a session nobody can sign frames for.
//! - **Batches.** What one side has queued at once (a reply and the push behind it, several pushes) travels as one
//!   NATS message and reaches the client in one socket write.
//! - **Ordering.** Frames are numbered per session and direction and delivered strictly in order; a gap (a frame
//!   lost while NATS reconnected) ends the session: the client is told `closing` with `forward_unavailable`,
//!   reconnects and resumes (its seat token and last version tell the owner what it missed).
//! - **Liveness.** Each side sends a heartbeat every second while a session is open; a session that hears
//!   nothing from its peer for the lease length ends the same way (on the owner, like a dropped socket). Each link
//!   also asks its peer node four times a second whether it still listens ([`Forwarder::watch_peer`]): when NATS
//!   says nobody does (the node was killed or stopped), every session with it ends at once.
//! - **News.** Besides sessions, a node may say something to every node on a subject they all hear, signed with
//!   the secret: today only that a seat's notification endpoints changed ([`Forwarder::publish_endpoints_changed`]).
//! - **NATS down.** Local tables need no NATS. A request that would be relayed while this node's NATS connection
//!   is down is refused with `forward_unavailable` (nothing relayed); the client reconnects automatically
//!   (async-nats retries for ever), and new sessions work again once it is back.

use std::{
    collections::HashMap,
    convert::Infallible,
    net::IpAddr,
    pin::Pin,
    sync::{Arc, Mutex, atomic::Ordering::Relaxed},
    time::{Duration, Instant},
};

use axum::extract::ws::Message;
use bytes::{BufMut, Bytes, BytesMut};
use futures_util::{Stream, StreamExt};
use hmac::{Hmac, KeyInit, Mac};
use protocol::{ErrorBody, ErrorCode};
use ring::aead::{AES_256_GCM, Aad, LessSafeKey, NONCE_LEN, Nonce, UnboundKey};
use serde::{Deserialize, Serialize};
use sha2::Sha256;
use tokio::sync::{mpsc, watch};
use tokio_util::sync::PollSender;
use tracing::{debug, info, warn};

use crate::metrics::Metrics;

type HmacSha256 = Hmac<Sha256>;

/// The shared secret that signs node-to-node messages. Never logged (its `Debug` hides it).
#[derive(Clone)]
pub struct ClusterSecret(Arc<[u8]>);

impl std::fmt::Debug for ClusterSecret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ClusterSecret(hidden)")
    }
}

impl ClusterSecret {
    /// At least 32 characters (e.g. `openssl rand -hex 16`): the secret is the only thing a node on the NATS
    /// network cannot see.
    pub fn parse(text: &str) -> Result<ClusterSecret, String> {
        if text.len() < 32 {
            return Err(
                "the cluster secret must be at least 32 characters (`openssl rand -hex 16` makes one)".into(),
            );
        }
        Ok(ClusterSecret(text.as_bytes().into()))
    }

    /// A value that shows which secret a node holds without giving it: HMAC-SHA256 of a fixed label, in hex.
    /// Every node of a cluster must compute the same (`migrations/postgres/0012_cluster_secret_check.sql`).
    pub fn check_value(&self) -> String {
        let mut mac = self.mac();
        mac.update(b"tabletop cluster secret check v1");
        mac.finalize()
            .into_bytes()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }

    /// HMAC-SHA256 of `label` then `data` under the secret, in hex: the same on every node of the cluster, and
    /// no way back to `data` for a reader of the database (the lobby count per address keys its rows so).
    /// `label` names the use, so that one use's values say nothing of another's.
    pub fn keyed_hash(&self, label: &[u8], data: &[u8]) -> String {
        let mut mac = self.mac();
        mac.update(label);
        mac.update(data);
        mac.finalize()
            .into_bytes()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }

    fn mac(&self) -> HmacSha256 {
        <HmacSha256 as KeyInit>::new_from_slice(&self.0).expect("HMAC takes keys of any length")
    }

    /// The key that seals open requests of format 2: HMAC-SHA256 of a fixed label under the secret.
    fn open_key(&self) -> LessSafeKey {
        let mut mac = self.mac();
        mac.update(b"tabletop open request key v2");
        let key = UnboundKey::new(&AES_256_GCM, &mac.finalize().into_bytes()).expect("a 32-byte key");
        LessSafeKey::new(key)
    }
}

/// What labels a sealed open request (format 2) as one.
const OPEN_AAD: &[u8] = b"tabletop open v2";

/// An open request of format 2: a random nonce, then `body` sealed under `key` (its tag last).
fn seal_open(key: &LessSafeKey, body: &[u8]) -> Bytes {
    let mut nonce_bytes = [0u8; NONCE_LEN];
    getrandom::fill(&mut nonce_bytes).expect("the operating system's random generator is available");
    let mut out = BytesMut::with_capacity(NONCE_LEN + body.len() + TAG);
    out.put_slice(&nonce_bytes);
    out.put_slice(body);
    let tag = key
        .seal_in_place_separate_tag(
            Nonce::assume_unique_for_key(nonce_bytes),
            Aad::from(OPEN_AAD),
            &mut out[NONCE_LEN..],
        )
        .expect("an open request is far below GCM's length limit");
    out.put_slice(tag.as_ref());
    out.freeze()
}

/// The body of an open request sealed by [`seal_open`], if it is genuine.
fn unseal_open(key: &LessSafeKey, sealed: &[u8]) -> Option<Vec<u8>> {
    let (nonce_bytes, rest) = sealed.split_at_checked(NONCE_LEN)?;
    let nonce = Nonce::try_assume_unique_for_key(nonce_bytes).ok()?;
    let mut body = rest.to_vec();
    let plain = key
        .open_in_place(nonce, Aad::from(OPEN_AAD), &mut body)
        .ok()?
        .len();
    body.truncate(plain);
    Some(body)
}

/// Forwarding settings (from `Config`).
#[derive(Clone, Debug)]
pub struct ForwardSettings {
    pub nats_url: String,
    /// CA certificates (PEM) to check the NATS server's certificate against; with them, TLS is required.
    pub nats_ca_file: Option<std::path::PathBuf>,
    pub secret: ClusterSecret,
    /// A session whose peer is silent this long ends (the lease length, at least three heartbeats).
    pub dead_after: Duration,
}

/// A server URL (or a comma-separated list of them) with any user name, password or token in it replaced by
/// `***`, for the log.
fn without_credentials(urls: &str) -> String {
    urls.split(',')
        .map(|url| {
            let (scheme, rest) = url.split_once("://").unwrap_or(("", url));
            let host_end = rest.find('/').unwrap_or(rest.len());
            match rest[..host_end].rfind('@') {
                Some(at) if scheme.is_empty() => format!("***{}", &rest[at..]),
                Some(at) => format!("{scheme}://***{}", &rest[at..]),
                None => url.to_string(),
            }
        })
        .collect::<Vec<_>>()
        .join(",")
}

/// The user and password (or token: a user without a password) of the first URL in `urls` that carries any,
/// percent-decoded. async-nats 0.51 parses them out of a URL but never sends them: [`Forwarder::connect`] passes
/// them as options.
fn credentials(urls: &str) -> Option<(String, Option<String>)> {
    urls.split(',').find_map(|url| {
        let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
        let host_end = rest.find('/').unwrap_or(rest.len());
        let (userinfo, _) = rest[..host_end].rsplit_once('@')?;
        let (user, password) = match userinfo.split_once(':') {
            Some((user, password)) => (user, Some(percent_decoded(password))),
            None => (userinfo, None),
        };
        Some((percent_decoded(user), password))
    })
}

/// `text` with each `%XX` replaced by the byte it stands for (as a URL's user and password are written).
fn percent_decoded(text: &str) -> String {
    let (bytes, mut out, mut i) = (text.as_bytes(), Vec::with_capacity(text.len()), 0);
    while i < bytes.len() {
        let hex = bytes.get(i + 1..i + 3).and_then(|h| std::str::from_utf8(h).ok());
        match hex.map(|h| u8::from_str_radix(h, 16)) {
            Some(Ok(byte)) if bytes[i] == b'%' => {
                out.push(byte);
                i += 3;
            }
            _ => {
                out.push(bytes[i]);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// One frame kind on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
enum Kind {
    Text = 1,
    Binary = 2,
    Ping = 3,
    Pong = 4,
    /// The sender's side of the session ended normally (the owner's connection loop finished, or the client
    /// left the relaying node).
    Close = 5,
    /// The sender's side ended because the session broke (a gap, its peer silent).
    Abort = 6,
    Beat = 7,
    /// Several frames in one message: each is its kind (1 byte), its length (4 bytes, big-endian) and its body.
    /// What the sending side had queued at once (a reply and the push behind it) travels as one NATS message and
    /// reaches the client in one socket write, as from a local connection.
    Batch = 8,
}

impl Kind {
    fn of(byte: u8) -> Option<Kind> {
        Some(match byte {
            1 => Kind::Text,
            2 => Kind::Binary,
            3 => Kind::Ping,
            4 => Kind::Pong,
            5 => Kind::Close,
            6 => Kind::Abort,
            7 => Kind::Beat,
            8 => Kind::Batch,
            _ => return None,
        })
    }
}

/// What a session delivers to its local side.
#[derive(Debug)]
pub enum Relay {
    Frame(Message),
    /// The peer ended the session normally (what it had to say came before).
    End,
    /// The session broke: NATS lost a frame or the peer went silent.
    Broken,
}

/// Direction bytes signed into every frame: from the relaying node, from the owner.
const FROM_RELAY: u8 = b'r';
const FROM_OWNER: u8 = b'o';
/// A frame: tag (16 bytes), kind (1), sequence number (8, big-endian), body.
const TAG: usize = 16;
const HEADER: usize = TAG + 1 + 8;
/// Frames waiting for one session's task before it counts as stuck (and the session as broken).
const SESSION_QUEUE: usize = 512;
const BEAT: Duration = Duration::from_secs(1);
/// The most frames one batch carries (as the socket writer's `WRITE_BATCH`).
const BATCH: usize = 64;
/// Frames waiting for a link to a peer node, and the most bytes one link message carries.
const LINK_QUEUE: usize = 4096;
const LINK_BYTES: usize = 256 * 1024;
/// How long opening a session waits for the owner's answer.
const OPEN_TIMEOUT: Duration = Duration::from_secs(3);

/// The newest node-to-node format this build speaks; it speaks every older one too. Each node records its newest
/// in `nodes.relay_format` (a node of a build from before formats were numbered has 1 there), and a node opening a
/// session uses the older of its own and the owner's, so nodes of two builds relay to each other during a
/// rolling upgrade. A new format must keep this: an owner accepts every format up to its own.
/// - 1: the open request is JSON signed with HMAC-SHA256 on `<node>.open` (the client's address readable).
/// - 2: the open request is sealed with AES-256-GCM under a key of the cluster secret on `<node>.open2`
///   (nothing readable); links answer liveness probes on `<node>.ping`.
///
/// Session frames are the same in both.
pub const RELAY_FORMAT: i32 = 2;
/// How often a link asks its peer node whether it still listens (see [`Forwarder::watch_peer`]), and how long it
/// waits for the answer.
const PROBE_EVERY: Duration = Duration::from_millis(250);
const PROBE_TIMEOUT: Duration = Duration::from_secs(1);

/// The open request, signed with the cluster secret.
#[derive(Debug, Serialize, Deserialize)]
struct Open {
    sid: String,
    /// The relaying node's id (where the owner sends its frames).
    from: String,
    /// The owner node this request is meant for.
    to: String,
    nonce: String,
    /// The protocol version the client's connection speaks (its `hello` was answered by the relaying node).
    speaks: u32,
    ip: Option<IpAddr>,
    /// When the relaying node sent it (Unix milliseconds): an owner refuses an open older or newer than
    /// [`OPEN_FRESH`], and one it has seen within twice that, so that a replayed open starts nothing.
    sent_at: u64,
}

/// How far an open's `sent_at` may be from the owner's clock (clock skew between nodes included).
const OPEN_FRESH: Duration = Duration::from_secs(30);

/// The wall clock, in Unix milliseconds (opens are dated by it; the nodes' clocks are assumed NTP-synchronised).
fn unix_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// The owner's answer, signed with the cluster secret over the request's nonce too.
#[derive(Debug, Serialize, Deserialize)]
struct Accept {
    nonce: String,
    refused: Option<ErrorBody>,
}

/// Why a frame was refused.
#[derive(Debug, thiserror::Error)]
enum Refusal {
    #[error("malformed frame")]
    Malformed,
    #[error("bad signature (forged, or signed for another session or direction)")]
    BadSignature,
    #[error("replayed: sequence number {got}, expected {expected}")]
    Replayed { got: u64, expected: u64 },
    #[error("an open request for a session that is already open, or was seen before, or for another node")]
    Duplicate,
    #[error("an open request sent {0} ms from this node's clock (replayed, or clocks apart)")]
    Stale(i64),
}

/// This node's end of forwarding: its NATS connection and its open sessions.
#[derive(Debug)]
pub struct Forwarder {
    client: async_nats::Client,
    node: String,
    secret: ClusterSecret,
    /// Seals and opens open requests of format 2.
    open_key: LessSafeKey,
    dead_after: Duration,
    metrics: Arc<Metrics>,
    /// Open sessions (as relay or as owner) by id: where the router hands their incoming frames.
    sessions: Mutex<HashMap<String, mpsc::Sender<Bytes>>>,
    /// The link to each peer node: every session's frames for that node go through it (see [`Forwarder::link`]).
    links: Mutex<HashMap<String, Link>>,
    /// The sessions this node accepted as owner within the last `2 * OPEN_FRESH`, and when: a replayed open of
    /// one is refused even after the session ended.
    opened: Mutex<HashMap<String, Instant>>,
}

/// A link to a peer node as the map of links keeps it. Weak: a link's tasks end with the last session that uses it.
#[derive(Debug)]
struct Link {
    tx: mpsc::WeakSender<LinkFrame>,
    /// Turns true when NATS says nobody listens for the peer any more (see [`Forwarder::watch_peer`]).
    gone: watch::Receiver<bool>,
}

/// Why a forward session could not be opened.
#[derive(Debug)]
pub struct Unopened {
    /// What the client is told if the caller can do nothing better.
    pub error: ErrorBody,
    /// NATS answered that nobody listens for the owner node: its process is gone (killed, stopped, or cut off
    /// from NATS). The caller may take its table over (`Hub::take_from_gone`) rather than wait for the lease.
    pub owner_gone: bool,
}

impl From<ErrorBody> for Unopened {
    fn from(error: ErrorBody) -> Self {
        Unopened {
            error,
            owner_gone: false,
        }
    }
}

/// A forwarded connection as the relaying node holds it: frames to the owner, frames from it.
#[derive(Debug)]
pub struct Forward {
    pub to_owner: mpsc::Sender<Message>,
    pub from_owner: mpsc::Receiver<Relay>,
}

/// The subject prefix of node `node`: its id in hex (node ids may hold `.`, NATS's token separator).
pub fn node_subject(node: &str) -> String {
    let mut out = String::from("tt.fwd.");
    for b in node.as_bytes() {
        out.push_str(&format!("{b:02x}"));
    }
    out
}

fn random_hex<const N: usize>() -> String {
    let mut bytes = [0u8; N];
    getrandom::fill(&mut bytes).expect("the operating system's random generator is available");
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unavailable(message: impl Into<String>) -> ErrorBody {
    ErrorBody::new(ErrorCode::ForwardUnavailable, message)
}

/// The subject every node hears for [`Forwarder::publish_endpoints_changed`], and its signature's label.
const ENDPOINTS_CHANGED_SUBJECT: &str = "tt.notify.changed";
const ENDPOINTS_CHANGED_LABEL: &[u8] = b"tabletop endpoints changed v1";

/// A signed blob: 32 bytes of HMAC-SHA256 under `secret` over `label` and `body`, then `body`.
fn sign_blob(secret: &ClusterSecret, label: &[u8], body: &[u8]) -> Bytes {
    let mut mac = secret.mac();
    mac.update(label);
    mac.update(body);
    let mut out = BytesMut::with_capacity(32 + body.len());
    out.put_slice(&mac.finalize().into_bytes());
    out.put_slice(body);
    out.freeze()
}

/// The body of a blob signed by [`sign_blob`], if its signature holds (compared in constant time).
fn open_blob<'a>(secret: &ClusterSecret, label: &[u8], blob: &'a [u8]) -> Option<&'a [u8]> {
    let (tag, body) = blob.split_at_checked(32)?;
    let mut mac = secret.mac();
    mac.update(label);
    mac.update(body);
    mac.verify_slice(tag).ok().map(|()| body)
}

/// A session's key and counters: one per side.
struct SessionKeys {
    /// AES-256-GCM under the session's key: a frame's body is encrypted (seat tokens, private views and chat
    /// cross NATS unreadable), its kind and number are authenticated with it, and the nonce is the frame's
    /// direction and number, never used twice under one key.
    key: LessSafeKey,
    sid: String,
    /// The direction byte of frames this side sends, and of frames it accepts.
    send_dir: u8,
    recv_dir: u8,
    next_out: u64,
    next_in: u64,
}

impl std::fmt::Debug for SessionKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionKeys")
            .field("sid", &self.sid)
            .field("next_out", &self.next_out)
            .field("next_in", &self.next_in)
            .finish_non_exhaustive()
    }
}

/// The nonce of frame `seq` in direction `dir`.
fn nonce(dir: u8, seq: u64) -> Nonce {
    let mut n = [0u8; NONCE_LEN];
    n[0] = dir;
    n[4..].copy_from_slice(&seq.to_be_bytes());
    Nonce::assume_unique_for_key(n)
}

impl SessionKeys {
    fn new(
        secret: &ClusterSecret,
        sid: &str,
        relay_nonce: &str,
        owner_nonce: &str,
        owner: bool,
    ) -> SessionKeys {
        let mut mac = secret.mac();
        for part in ["session", sid, relay_nonce, owner_nonce] {
            mac.update(part.as_bytes());
            mac.update(&[0]);
        }
        let (send_dir, recv_dir) = if owner {
            (FROM_OWNER, FROM_RELAY)
        } else {
            (FROM_RELAY, FROM_OWNER)
        };
        let key = UnboundKey::new(&AES_256_GCM, &mac.finalize().into_bytes()).expect("a 32-byte key");
        SessionKeys {
            key: LessSafeKey::new(key),
            sid: sid.to_string(),
            send_dir,
            recv_dir,
            next_out: 1,
            next_in: 1,
        }
    }

    /// The next frame of kind `kind`, its body written by `body` straight into the frame.
    fn seal_with(&mut self, kind: Kind, body: impl FnOnce(&mut BytesMut)) -> Bytes {
        let seq = self.next_out;
        self.next_out += 1;
        let mut out = BytesMut::with_capacity(HEADER + 256);
        out.put_bytes(0, TAG);
        out.put_u8(kind as u8);
        out.put_u64(seq);
        body(&mut out);
        let (head, body) = out.split_at_mut(HEADER);
        let tag = self
            .key
            .seal_in_place_separate_tag(nonce(self.send_dir, seq), Aad::from(&head[TAG..]), body)
            .expect("a frame is far below GCM's length limit");
        out[..TAG].copy_from_slice(tag.as_ref());
        out.freeze()
    }

    fn seal(&mut self, kind: Kind, body: &[u8]) -> Bytes {
        self.seal_with(kind, |out| out.put_slice(body))
    }

    /// Checks a frame's tag and number; an accepted frame moves the expected number on. A number past the
    /// expected one is a gap (`Ok` with it, for the caller to end the session).
    fn open(&mut self, frame: Bytes) -> Result<(Kind, u64, Bytes), Refusal> {
        if frame.len() < HEADER {
            return Err(Refusal::Malformed);
        }
        let kind_byte = frame[TAG];
        let seq = u64::from_be_bytes(frame[TAG + 1..HEADER].try_into().expect("8 bytes"));
        // ring opens the ciphertext followed by its tag, in place.
        let mut body = BytesMut::with_capacity(frame.len() - HEADER + TAG);
        body.put_slice(&frame[HEADER..]);
        body.put_slice(&frame[..TAG]);
        let plain = self
            .key
            .open_in_place(
                nonce(self.recv_dir, seq),
                Aad::from(&frame[TAG..HEADER]),
                &mut body,
            )
            .map_err(|_| Refusal::BadSignature)?
            .len();
        body.truncate(plain);
        let kind = Kind::of(kind_byte).ok_or(Refusal::Malformed)?;
        if seq < self.next_in {
            return Err(Refusal::Replayed {
                got: seq,
                expected: self.next_in,
            });
        }
        if seq == self.next_in {
            self.next_in += 1;
        }
        Ok((kind, seq, body.freeze()))
    }
}

/// A frame's kind and body (the text of a text frame).
fn encode(message: &Message) -> (Kind, &[u8]) {
    match message {
        Message::Text(t) => (Kind::Text, t.as_str().as_bytes()),
        Message::Binary(b) => (Kind::Binary, b),
        Message::Ping(b) => (Kind::Ping, b),
        Message::Pong(b) => (Kind::Pong, b),
        Message::Close(_) => (Kind::Close, &[]),
    }
}

fn decode(kind: Kind, body: Bytes) -> Option<Message> {
    Some(match kind {
        Kind::Text => Message::Text(axum::extract::ws::Utf8Bytes::try_from(body).ok()?),
        Kind::Binary => Message::Binary(body),
        Kind::Ping => Message::Ping(body),
        Kind::Pong => Message::Pong(body),
        Kind::Close | Kind::Abort | Kind::Beat | Kind::Batch => return None,
    })
}

/// Writes the body of a [`Kind::Batch`] holding `frames` (none of them a close) into `out`.
fn encode_batch(frames: &[Message], out: &mut BytesMut) {
    for frame in frames {
        let (kind, body) = encode(frame);
        out.put_u8(kind as u8);
        out.put_u32(body.len() as u32);
        out.put_slice(body);
    }
}

/// The frames of a [`Kind::Batch`]'s body; `None` if it is malformed (a frame cut short, a kind that a batch does
/// not carry).
fn decode_batch(mut body: Bytes) -> Option<Vec<Message>> {
    let mut frames = Vec::new();
    while !body.is_empty() {
        let kind = Kind::of(*body.first()?)?;
        let len = u32::from_be_bytes(body.get(1..5)?.try_into().ok()?) as usize;
        if body.len() < 5 + len {
            return None;
        }
        let frame = body.slice(5..5 + len);
        body = body.split_off(5 + len);
        frames.push(decode(kind, frame)?);
    }
    Some(frames)
}

impl Forwarder {
    /// Connects to NATS (in the background: a node starts, and serves its own tables, with NATS down). A user and
    /// password come from the URL; a `tls://` URL, or a CA file, makes TLS required (a server that does not offer
    /// it, or whose certificate does not check, is not connected to, and the node forwards nothing meanwhile).
    pub async fn connect(
        node: &str,
        settings: &ForwardSettings,
        metrics: Arc<Metrics>,
    ) -> Result<Arc<Forwarder>, async_nats::ConnectError> {
        let mut options = async_nats::ConnectOptions::new();
        match credentials(&settings.nats_url) {
            Some((user, Some(password))) => options = options.user_and_password(user, password),
            Some((token, None)) => options = options.token(token),
            None => {}
        }
        if let Some(ca_file) = &settings.nats_ca_file {
            options = options.add_root_certificates(ca_file.clone()).require_tls(true);
        }
        let client = options
            .name(format!("tabletop {node}"))
            .retry_on_initial_connect()
            .max_reconnects(None)
            // Back within a quarter second of NATS returning, whatever the outage's length.
            .reconnect_delay_callback(|attempt| Duration::from_millis((attempt as u64 * 50).min(250)))
            .connection_timeout(Duration::from_secs(2))
            .request_timeout(Some(OPEN_TIMEOUT))
            .connect(settings.nats_url.as_str())
            .await?;
        // The first connection is made in the background; give it a moment, so that a node started with NATS up
        // forwards from its first request.
        let up = async {
            while client.connection_state() != async_nats::connection::State::Connected {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        };
        if tokio::time::timeout(Duration::from_secs(2), up).await.is_err() {
            let url = without_credentials(&settings.nats_url);
            warn!(%url, "NATS is not reachable yet; this node forwards once it is");
        }
        Ok(Arc::new(Forwarder {
            client,
            node: node.to_string(),
            secret: settings.secret.clone(),
            open_key: settings.secret.open_key(),
            dead_after: settings.dead_after,
            metrics,
            sessions: Mutex::default(),
            links: Mutex::default(),
            opened: Mutex::default(),
        }))
    }

    /// Whether this node's NATS connection is up.
    pub fn reachable(&self) -> bool {
        self.client.connection_state() == async_nats::connection::State::Connected
    }

    pub fn metrics(&self) -> &Metrics {
        &self.metrics
    }

    /// Counts a request refused, or a forwarded connection closed, with `forward_unavailable`.
    pub fn count_error(&self) {
        self.metrics.forward_errors.fetch_add(1, Relaxed);
    }

    fn refused(&self, sid: &str, why: &Refusal) {
        self.metrics.forward_refused.fetch_add(1, Relaxed);
        warn!(sid, reason = %why, "refused a node-to-node forward message");
    }

    /// Receives this node's forward traffic until the server stops: opens the sessions asked of it (each handed
    /// to `serve`, which serves it as a connection or says why not) and routes frames to sessions.
    pub async fn listen(
        self: Arc<Self>,
        serve: impl Fn(Remote) -> Result<(), ErrorBody> + Send + Sync + 'static,
        mut stop: watch::Receiver<bool>,
    ) {
        let prefix = node_subject(&self.node);
        let mut subscription = match self.client.subscribe(format!("{prefix}.>")).await {
            Ok(s) => s,
            Err(e) => {
                warn!(error = %e, "forwarding: cannot subscribe to NATS; this node will not serve forwarded clients");
                return;
            }
        };
        let open_subject = format!("{prefix}.open");
        let sealed_open_subject = format!("{prefix}.open2");
        let link_subject = format!("{prefix}.m");
        let ping_subject = format!("{prefix}.ping");
        loop {
            if *stop.borrow() {
                break;
            }
            let message = tokio::select! {
                m = subscription.next() => match m {
                    Some(m) => m,
                    None => break,
                },
                _ = stop.changed() => continue,
            };
            if message.subject.as_str() == open_subject {
                self.accept(&serve, message, 1).await;
            } else if message.subject.as_str() == sealed_open_subject {
                self.accept(&serve, message, 2).await;
            } else if message.subject.as_str() == ping_subject {
                // A peer's liveness probe (see `watch_peer`): the answer says only that this node listens.
                if let Some(reply_to) = message.reply {
                    let _ = self.client.publish(reply_to, Bytes::new()).await;
                }
            } else if message.subject.as_str() == link_subject {
                let Some(frames) = link_frames(message.payload) else {
                    self.refused("-", &Refusal::Malformed);
                    continue;
                };
                let sessions = self.sessions.lock().expect("sessions lock");
                for (sid, frame) in frames {
                    match sessions.get(&sid) {
                        // A full queue: the frame is dropped, which the session sees as a gap.
                        Some(tx) => {
                            let _ = tx.try_send(frame);
                        }
                        None => debug!(
                            sid,
                            "a forward frame for no open session (ended, or never opened)"
                        ),
                    }
                }
            }
        }
        let _ = subscription.unsubscribe().await;
    }

    /// Says to every node that the notification endpoints of seat `seat` of table `code` changed (committed
    /// already), for the node that serves the table to tell the seat (`notify/tell.rs`). Signed with the cluster
    /// secret; lost if NATS is down (logged).
    pub async fn publish_endpoints_changed(&self, code: &str, seat: u8) {
        let blob = sign_blob(
            &self.secret,
            ENDPOINTS_CHANGED_LABEL,
            format!("{seat}\n{code}").as_bytes(),
        );
        if let Err(e) = self.client.publish(ENDPOINTS_CHANGED_SUBJECT, blob).await {
            warn!(error = %e, "could not tell the other nodes that a seat's notification endpoints changed");
        }
    }

    /// Hears [`Forwarder::publish_endpoints_changed`] of every node until `stop`, and calls `heard` with each
    /// table code and seat whose signature holds (a message under another secret, from another cluster on the
    /// same NATS, is ignored).
    pub async fn listen_endpoints_changed(
        self: Arc<Self>,
        heard: impl Fn(&str, u8) + Send + 'static,
        mut stop: watch::Receiver<bool>,
    ) {
        let mut subscription = match self.client.subscribe(ENDPOINTS_CHANGED_SUBJECT).await {
            Ok(s) => s,
            Err(e) => {
                warn!(error = %e, "cannot subscribe to NATS; seats here will not hear of endpoints other nodes switch off");
                return;
            }
        };
        while !*stop.borrow() {
            let message = tokio::select! {
                m = subscription.next() => match m {
                    Some(m) => m,
                    None => break,
                },
                _ = stop.changed() => continue,
            };
            let news = open_blob(&self.secret, ENDPOINTS_CHANGED_LABEL, &message.payload)
                .and_then(|body| std::str::from_utf8(body).ok())
                .and_then(|body| body.split_once('\n'))
                .and_then(|(seat, code)| Some((code, seat.parse::<u8>().ok()?)));
            match news {
                Some((code, seat)) => heard(code, seat),
                None => debug!("a notice of changed endpoints that is not this cluster's"),
            }
        }
        let _ = subscription.unsubscribe().await;
    }

    /// The owner's side of an open request.
    async fn accept(
        self: &Arc<Self>,
        serve: &(impl Fn(Remote) -> Result<(), ErrorBody> + Send + Sync),
        message: async_nats::Message,
        format: i32,
    ) {
        let body = match format {
            1 => open_blob(&self.secret, b"open", &message.payload).map(<[u8]>::to_vec),
            _ => unseal_open(&self.open_key, &message.payload),
        };
        let Some(open) = body.and_then(|b| serde_json::from_slice::<Open>(&b).ok()) else {
            self.refused("-", &Refusal::BadSignature);
            return;
        };
        let Some(reply_to) = message.reply.clone() else {
            self.refused(&open.sid, &Refusal::Malformed);
            return;
        };
        let skew = open.sent_at as i64 - unix_ms() as i64;
        if skew.unsigned_abs() > OPEN_FRESH.as_millis() as u64 {
            self.refused(&open.sid, &Refusal::Stale(skew));
            return;
        }
        let seen = {
            let mut opened = self.opened.lock().expect("opened lock");
            let now = Instant::now();
            opened.retain(|_, at| now.duration_since(*at) < 2 * OPEN_FRESH);
            opened.insert(open.sid.clone(), now).is_some()
        };
        if seen
            || open.to != self.node
            || self
                .sessions
                .lock()
                .expect("sessions lock")
                .contains_key(&open.sid)
        {
            self.refused(&open.sid, &Refusal::Duplicate);
            return;
        }
        let nonce = random_hex::<16>();
        let answer = |refused: Option<ErrorBody>| {
            let accept = Accept {
                nonce: nonce.clone(),
                refused,
            };
            let body = serde_json::to_vec(&accept).expect("serialises");
            sign_blob(&self.secret, &accept_label(&open.sid, &open.nonce), &body)
        };
        let keys = SessionKeys::new(&self.secret, &open.sid, &open.nonce, &nonce, true);
        let (incoming_tx, incoming) = mpsc::channel(SESSION_QUEUE);
        let (sink_tx, local_out) = mpsc::channel::<Message>(64);
        let (local_in, stream_rx) = mpsc::channel::<Relay>(64);
        // Once the session has ended, every send fails, however often the connection tries. (A `sink::unfold`
        // here, and `sink_map_err` too, panic on the send after a failed one.)
        let sink = PollSender::new(sink_tx);
        let stream = Box::pin(futures_util::stream::unfold(stream_rx, |mut rx| async move {
            match rx.recv().await {
                Some(Relay::Frame(m)) => Some((Ok::<_, Infallible>(m), rx)),
                Some(Relay::End | Relay::Broken) | None => None,
            }
        }));
        let remote = Remote {
            sink,
            stream,
            speaks: open.speaks,
            ip: open.ip,
        };
        if let Err(reason) = serve(remote) {
            let _ = self.client.publish(reply_to, answer(Some(reason))).await;
            return;
        }
        self.sessions
            .lock()
            .expect("sessions lock")
            .insert(open.sid.clone(), incoming_tx);
        // Published or not, the session runs: unanswered, it ends when its peer stays silent.
        let _ = self.client.publish(reply_to, answer(None)).await;
        debug!(sid = %open.sid, from = %open.from, "serving a forwarded connection");
        let peer = self.link(&open.from, &open.sid);
        tokio::spawn(
            self.clone()
                .run_session(keys, peer, incoming, local_out, local_in),
        );
    }

    /// The relaying side: opens a session with `owner`, whose newest node-to-node format is `owner_format`, for a
    /// connection that speaks protocol `speaks`.
    pub async fn open(
        self: &Arc<Self>,
        owner: &str,
        owner_format: i32,
        speaks: u32,
        ip: Option<IpAddr>,
    ) -> Result<Forward, Unopened> {
        if !self.reachable() {
            return Err(unavailable(
                "this node cannot reach the node that serves this lobby now (node-to-node messaging is down); \
                 try again shortly",
            )
            .into());
        }
        let sid = random_hex::<12>();
        let nonce = random_hex::<16>();
        let open = Open {
            sid: sid.clone(),
            from: self.node.clone(),
            to: owner.to_string(),
            nonce: nonce.clone(),
            speaks,
            ip,
            sent_at: unix_ms(),
        };
        let (incoming_tx, incoming) = mpsc::channel(SESSION_QUEUE);
        // Registered before asking: the owner's first frames may come right behind its answer.
        self.sessions
            .lock()
            .expect("sessions lock")
            .insert(sid.clone(), incoming_tx);
        let body = serde_json::to_vec(&open).expect("serialises");
        let (request, subject) = if owner_format.min(RELAY_FORMAT) >= 2 {
            (
                seal_open(&self.open_key, &body),
                format!("{}.open2", node_subject(owner)),
            )
        } else {
            (
                sign_blob(&self.secret, b"open", &body),
                format!("{}.open", node_subject(owner)),
            )
        };
        let answer = match self.client.request(subject, request).await {
            Ok(answer) => answer,
            Err(e) => {
                self.sessions.lock().expect("sessions lock").remove(&sid);
                debug!(owner, error = %e, "opening a forward session failed");
                return Err(Unopened {
                    error: unavailable(format!(
                        "the node that serves this lobby ({owner}) does not answer; try again shortly"
                    )),
                    owner_gone: e.kind() == async_nats::RequestErrorKind::NoResponders,
                });
            }
        };
        let accept = open_blob(&self.secret, &accept_label(&sid, &nonce), &answer.payload)
            .and_then(|b| serde_json::from_slice::<Accept>(b).ok());
        let accept = match accept {
            Some(Accept { refused: None, nonce }) => nonce,
            Some(Accept {
                refused: Some(reason),
                ..
            }) => {
                self.sessions.lock().expect("sessions lock").remove(&sid);
                return Err(reason.into());
            }
            None => {
                self.sessions.lock().expect("sessions lock").remove(&sid);
                self.refused(&sid, &Refusal::BadSignature);
                return Err(
                    unavailable("the answer of the node that serves this lobby was not genuine").into(),
                );
            }
        };
        let keys = SessionKeys::new(&self.secret, &sid, &nonce, &accept, false);
        let (to_owner, local_out) = mpsc::channel::<Message>(64);
        let (local_in, from_owner) = mpsc::channel::<Relay>(256);
        let peer = self.link(owner, &sid);
        tokio::spawn(
            self.clone()
                .run_session(keys, peer, incoming, local_out, local_in),
        );
        Ok(Forward { to_owner, from_owner })
    }

    /// One session, on either side: signs and publishes what the local side sends, checks and delivers what the
    /// peer sends, keeps the heartbeat.
    async fn run_session(
        self: Arc<Self>,
        mut keys: SessionKeys,
        peer: Peer,
        mut incoming: mpsc::Receiver<Bytes>,
        mut local_out: mpsc::Receiver<Message>,
        local_in: mpsc::Sender<Relay>,
    ) {
        let sid = keys.sid.clone();
        let mut beat = tokio::time::interval(BEAT);
        beat.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut heard = Instant::now();
        let mut gone = peer.gone.clone();
        loop {
            tokio::select! {
                // (A watcher that ended without a word, at shutdown, says nothing.)
                () = async {
                    if gone.wait_for(|gone| *gone).await.is_err() {
                        std::future::pending::<()>().await;
                    }
                } => {
                    info!(%sid, "the peer node of a forward session is gone; ending the session");
                    let _ = local_in.send(Relay::Broken).await;
                    break;
                }
                frame = incoming.recv() => {
                    let Some(frame) = frame else { break };
                    if let Session::Ends = self.on_peer_frame(&mut keys, &peer, &local_in, frame, &mut heard).await {
                        break;
                    }
                }
                out = local_out.recv() => {
                    if let Session::Ends = self.send_local_frames(&mut keys, &peer, &mut local_out, out).await {
                        break;
                    }
                }
                _ = beat.tick() => {
                    if heard.elapsed() > self.dead_after {
                        info!(%sid, "the peer of a forward session is silent; ending the session");
                        peer.send(keys.seal(Kind::Abort, &[])).await;
                        let _ = local_in.send(Relay::Broken).await;
                        break;
                    }
                    peer.send(keys.seal(Kind::Beat, &[])).await;
                }
            }
        }
        self.sessions.lock().expect("sessions lock").remove(&sid);
    }

    /// One sealed `frame` from the peer of the session `keys` seals: checked (a forged or replayed one is refused
    /// and ignored; a lost one ends the session), then its frames handed to the local side through `local_in`, or
    /// the session's end (`close`, `abort`). `heard` is when the peer last sent a genuine frame.
    async fn on_peer_frame(
        &self,
        keys: &mut SessionKeys,
        peer: &Peer,
        local_in: &mpsc::Sender<Relay>,
        frame: Bytes,
        heard: &mut Instant,
    ) -> Session {
        let (kind, seq, body) = match keys.open(frame) {
            Ok(opened) => opened,
            Err(why) => {
                self.refused(&keys.sid, &why);
                return Session::Goes;
            }
        };
        *heard = Instant::now();
        if seq + 1 != keys.next_in {
            warn!(sid = %keys.sid, seq, expected = keys.next_in, "a forward frame was lost; ending the session");
            peer.send(keys.seal(Kind::Abort, &[])).await;
            let _ = local_in.send(Relay::Broken).await;
            return Session::Ends;
        }
        let frames = match kind {
            Kind::Beat => return Session::Goes,
            Kind::Close => {
                let _ = local_in.send(Relay::End).await;
                return Session::Ends;
            }
            Kind::Abort => {
                let _ = local_in.send(Relay::Broken).await;
                return Session::Ends;
            }
            Kind::Batch => decode_batch(body),
            _ => decode(kind, body).map(|m| vec![m]),
        };
        let Some(frames) = frames else {
            self.refused(&keys.sid, &Refusal::Malformed);
            return Session::Goes;
        };
        for message in frames {
            if local_in.send(Relay::Frame(message)).await.is_err() {
                peer.send(keys.seal(Kind::Close, &[])).await;
                return Session::Ends;
            }
        }
        Session::Goes
    }

    /// The local side's frame `out` and whatever else it has queued, up to a close, sealed in one message to the
    /// peer (at most [`BATCH`] frames); the session ends after a close, or once the local side is gone.
    async fn send_local_frames(
        &self,
        keys: &mut SessionKeys,
        peer: &Peer,
        local_out: &mut mpsc::Receiver<Message>,
        out: Option<Message>,
    ) -> Session {
        let mut frames = Vec::new();
        let mut close = true;
        let mut next = out;
        while let Some(m) = next {
            if matches!(m, Message::Close(_)) {
                break;
            }
            frames.push(m);
            if frames.len() == BATCH {
                close = false;
                break;
            }
            match local_out.try_recv() {
                Ok(m) => next = Some(m),
                Err(mpsc::error::TryRecvError::Empty) => {
                    close = false;
                    break;
                }
                Err(mpsc::error::TryRecvError::Disconnected) => break,
            }
        }
        let sealed = match frames.as_slice() {
            [] => None,
            [one] => {
                let (kind, body) = encode(one);
                Some(keys.seal(kind, body))
            }
            many => Some(keys.seal_with(Kind::Batch, |out| encode_batch(many, out))),
        };
        if let Some(sealed) = sealed {
            self.metrics
                .forward_frames
                .fetch_add(frames.len() as u64, Relaxed);
            peer.send(sealed).await;
        }
        if close {
            peer.send(keys.seal(Kind::Close, &[])).await;
            return Session::Ends;
        }
        Session::Goes
    }

    /// Session `sid`'s way to node `node`: the link to that node, started by the first session that needs it and
    /// ended with the last (a link whose peer is gone is replaced: a node may come back under its id).
    fn link(self: &Arc<Self>, node: &str, sid: &str) -> Peer {
        let mut links = self.links.lock().expect("links lock");
        let live = links
            .get(node)
            .filter(|link| !*link.gone.borrow())
            .and_then(|link| Some((link.tx.upgrade()?, link.gone.clone())));
        let (tx, gone) = match live {
            Some(live) => live,
            None => {
                links.retain(|_, link| link.tx.strong_count() > 0);
                let (tx, rx) = mpsc::channel(LINK_QUEUE);
                let (gone_tx, gone) = watch::channel(false);
                tokio::spawn(self.clone().run_link(format!("{}.m", node_subject(node)), rx));
                tokio::spawn(self.clone().watch_peer(node.to_string(), tx.downgrade(), gone_tx));
                links.insert(
                    node.to_string(),
                    Link {
                        tx: tx.downgrade(),
                        gone: gone.clone(),
                    },
                );
                (tx, gone)
            }
        };
        Peer {
            tx,
            sid: sid.into(),
            gone,
        }
    }

    /// While sessions use the link to `node`, asks it every [`PROBE_EVERY`] whether it still listens. NATS answers
    /// "no responders" at once for a node whose connection has dropped (its process killed or stopped): then
    /// `gone` turns true and every session with that node ends at once, its client told to reconnect, rather than
    /// after [`ForwardSettings::dead_after`] of silence. A probe that times out (a paused node, a slow network)
    /// proves nothing; the silence rule still applies.
    async fn watch_peer(
        self: Arc<Self>,
        node: String,
        link: mpsc::WeakSender<LinkFrame>,
        gone: watch::Sender<bool>,
    ) {
        let subject = async_nats::Subject::from(format!("{}.ping", node_subject(&node)));
        let mut every = tokio::time::interval(PROBE_EVERY);
        every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            every.tick().await;
            if link.strong_count() == 0 {
                return;
            }
            if !self.reachable() {
                continue;
            }
            let probe = self.client.request(subject.clone(), Bytes::new());
            if let Ok(Err(e)) = tokio::time::timeout(PROBE_TIMEOUT, probe).await
                && e.kind() == async_nats::RequestErrorKind::NoResponders
            {
                info!(%node, "a peer node no longer listens on NATS; ending its forward sessions");
                let _ = gone.send(true);
                return;
            }
        }
    }

    /// One peer node's link: publishes the frames every session has queued for it, in order, as few NATS messages
    /// (see [`Kind::Batch`] for one session's frames; a link carries many sessions' frames, each sealed by its
    /// own session). The tables a group commit answers push at once, so their frames leave together.
    async fn run_link(self: Arc<Self>, subject: String, mut rx: mpsc::Receiver<LinkFrame>) {
        let subject = async_nats::Subject::from(subject);
        while let Some(first) = rx.recv().await {
            // Let the tasks woken with this one queue their frames first.
            tokio::task::yield_now().await;
            let mut out = BytesMut::new();
            let mut next = Some(first);
            while let Some((sid, frame)) = next {
                put_link_frame(&mut out, &sid, &frame);
                next = if out.len() < LINK_BYTES {
                    rx.try_recv().ok()
                } else {
                    None
                };
            }
            self.metrics.forward_messages.fetch_add(1, Relaxed);
            let _ = self.client.publish(subject.clone(), out.freeze()).await;
        }
    }

    /// Sends what is queued for NATS (at shutdown, so the last `closing` frames reach the relaying nodes).
    pub async fn flush(&self) {
        let _ = tokio::time::timeout(Duration::from_secs(2), self.client.flush()).await;
    }
}

/// A sealed frame of a session (by id) on its way to the peer node.
type LinkFrame = (Arc<str>, Bytes);

/// Whether a forward session goes on after a frame (see [`Forwarder::run_session`]).
enum Session {
    Goes,
    Ends,
}

/// A session's way to its peer node.
#[derive(Debug)]
struct Peer {
    tx: mpsc::Sender<LinkFrame>,
    sid: Arc<str>,
    /// The link's peer node is gone (see [`Forwarder::watch_peer`]).
    gone: watch::Receiver<bool>,
}

impl Peer {
    /// Queues a sealed frame for the link (a link that is gone loses it, which the peer sees as a gap).
    async fn send(&self, frame: Bytes) {
        let _ = self.tx.send((self.sid.clone(), frame)).await;
    }
}

/// Appends session `sid`'s sealed `frame` to a link message: the id's length (1 byte), the id, the frame's length
/// (4 bytes, big-endian), the frame. The link message itself is not signed: each frame in it is.
pub fn put_link_frame(out: &mut BytesMut, sid: &str, frame: &[u8]) {
    out.put_u8(sid.len() as u8);
    out.put_slice(sid.as_bytes());
    out.put_u32(frame.len() as u32);
    out.put_slice(frame);
}

/// The frames of a link message, each with its session id; `None` if the message is malformed.
pub fn link_frames(mut message: Bytes) -> Option<Vec<(String, Bytes)>> {
    let mut frames = Vec::new();
    while !message.is_empty() {
        let sid_len = *message.first()? as usize;
        let sid = std::str::from_utf8(message.get(1..1 + sid_len)?)
            .ok()?
            .to_string();
        let at = 1 + sid_len;
        let len = u32::from_be_bytes(message.get(at..at + 4)?.try_into().ok()?) as usize;
        if message.len() < at + 4 + len {
            return None;
        }
        let frame = message.slice(at + 4..at + 4 + len);
        message = message.split_off(at + 4 + len);
        frames.push((sid, frame));
    }
    Some(frames)
}

fn accept_label(sid: &str, relay_nonce: &str) -> Vec<u8> {
    format!("accept\0{sid}\0{relay_nonce}").into_bytes()
}

/// A relayed connection as the owner serves it: the frames to the client, the client's frames (they end when the
/// session does), the protocol version its `hello` named at the relaying node, and the client's address there.
pub struct Remote {
    /// Fails every send once the forward session is gone.
    pub sink: PollSender<Message>,
    pub stream: Pin<Box<dyn Stream<Item = Result<Message, Infallible>> + Send>>,
    pub speaks: u32,
    pub ip: Option<IpAddr>,
}

impl std::fmt::Debug for Remote {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Remote")
            .field("speaks", &self.speaks)
            .field("ip", &self.ip)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secret() -> ClusterSecret {
        ClusterSecret::parse("0123456789abcdef0123456789abcdef").unwrap()
    }

    fn pair() -> (SessionKeys, SessionKeys) {
        let s = secret();
        (
            SessionKeys::new(&s, "sid1", "n1", "n2", false),
            SessionKeys::new(&s, "sid1", "n1", "n2", true),
        )
    }

    #[test]
    fn nats_urls_are_logged_without_credentials() {
        for (url, logged) in [
            ("nats://127.0.0.1:4222", "nats://127.0.0.1:4222"),
            ("nats://ann:pw@127.0.0.1:4222", "nats://***@127.0.0.1:4222"),
            (
                "nats://t0k3n@h:1,tls://a:b@c@h2:2/x",
                "nats://***@h:1,tls://***@h2:2/x",
            ),
            ("user:pw@host:4222", "***@host:4222"),
            ("nats://host/path@x", "nats://host/path@x"),
        ] {
            assert_eq!(without_credentials(url), logged);
        }
    }

    #[test]
    fn credentials_are_read_from_the_nats_url() {
        let pair =
            |user: &str, password: Option<&str>| Some((user.to_string(), password.map(str::to_string)));
        for (url, read) in [
            ("nats://127.0.0.1:4222", None),
            ("tls://tabletop:pw@127.0.0.1:4222", pair("tabletop", Some("pw"))),
            ("nats://t0k3n@h:1", pair("t0k3n", None)),
            ("nats://h:1,tls://a:b%40c%3A@h2:2/x", pair("a", Some("b@c:"))),
            ("user:pw@host:4222", pair("user", Some("pw"))),
            ("nats://host/path@x", None),
            ("nats://u:100%@h:1", pair("u", Some("100%"))),
        ] {
            assert_eq!(credentials(url), read, "{url}");
        }
    }

    #[test]
    fn frames_pass_in_order_and_forged_or_replayed_ones_are_refused() {
        let (mut relay, mut owner) = pair();
        let first = relay.seal(Kind::Text, b"{\"id\":1}");
        let second = relay.seal(Kind::Text, b"{\"id\":2}");
        let (kind, seq, body) = owner.open(first.clone()).unwrap();
        assert_eq!((kind, seq, &body[..]), (Kind::Text, 1, &b"{\"id\":1}"[..]));
        // Replayed.
        assert!(matches!(
            owner.open(first.clone()),
            Err(Refusal::Replayed { got: 1, expected: 2 })
        ));
        // Forged: the body changed under the same signature.
        let mut forged = BytesMut::from(&second[..]);
        let last = forged.len() - 2;
        forged[last] = b'9';
        assert!(matches!(owner.open(forged.freeze()), Err(Refusal::BadSignature)));
        // Reflected back to its sender (wrong direction).
        assert!(matches!(relay.open(second.clone()), Err(Refusal::BadSignature)));
        // Another session's key.
        let mut other = SessionKeys::new(&secret(), "sid2", "n1", "n2", true);
        assert!(matches!(other.open(second.clone()), Err(Refusal::BadSignature)));
        // The genuine frame is still accepted after all that.
        assert_eq!(owner.open(second).unwrap().1, 2);
        // A gap is reported with its number, for the session to end.
        relay.seal(Kind::Beat, &[]);
        let fourth = relay.seal(Kind::Beat, &[]);
        let (_, seq, _) = owner.open(fourth).unwrap();
        assert_eq!((seq, owner.next_in), (4, 3));
    }

    #[test]
    fn a_batch_carries_its_frames_in_order_and_a_cut_one_is_malformed() {
        let (mut relay, mut owner) = pair();
        let frames = vec![
            Message::Text("{\"re\":1}".into()),
            Message::Binary(Bytes::from_static(b"\x00\x01")),
            Message::Text("{\"type\":\"state\"}".into()),
        ];
        let sealed = relay.seal_with(Kind::Batch, |out| encode_batch(&frames, out));
        let (kind, _, body) = owner.open(sealed).unwrap();
        assert_eq!(kind, Kind::Batch);
        let back = decode_batch(body.clone()).unwrap();
        assert_eq!(back, frames);
        assert!(decode_batch(body.slice(..body.len() - 1)).is_none());
        // A close or a nested batch is not a frame a batch may carry.
        let mut nested = BytesMut::new();
        nested.put_u8(Kind::Batch as u8);
        nested.put_u32(0);
        assert!(decode_batch(nested.freeze()).is_none());
    }

    #[test]
    fn a_link_message_carries_frames_of_several_sessions_in_order() {
        let mut out = BytesMut::new();
        put_link_frame(&mut out, "s1", b"one");
        put_link_frame(&mut out, "s2", b"");
        put_link_frame(&mut out, "s1", b"three");
        let message = out.freeze();
        let frames = link_frames(message.clone()).unwrap();
        let got: Vec<(&str, &[u8])> = frames.iter().map(|(s, f)| (s.as_str(), &f[..])).collect();
        assert_eq!(got, [("s1", &b"one"[..]), ("s2", b""), ("s1", b"three")]);
        assert!(link_frames(message.slice(..message.len() - 1)).is_none());
        assert!(link_frames(Bytes::from_static(b"\x05ab")).is_none());
        assert_eq!(link_frames(Bytes::new()).unwrap(), []);
    }

    #[test]
    fn open_blobs_need_the_secret() {
        let blob = sign_blob(&secret(), b"open", b"body");
        assert_eq!(open_blob(&secret(), b"open", &blob), Some(&b"body"[..]));
        assert_eq!(open_blob(&secret(), b"accept", &blob), None);
        let other = ClusterSecret::parse("ffffffffffffffffffffffffffffffff").unwrap();
        assert_eq!(open_blob(&other, b"open", &blob), None);
        assert!(ClusterSecret::parse("short").is_err());
        assert_eq!(format!("{:?}", secret()), "ClusterSecret(hidden)");
    }
}
