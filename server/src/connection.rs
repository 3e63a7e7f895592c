//! One WebSocket connection: a thin adapter between JSON text frames and the tables. It reads and checks
//! frames (size, rate, shape), keeps the handshake and which table it is bound to, forwards requests to that
//! table and writes back the one reply to each request, and the table's pushes in between.
//!
//! The loop is generic over the frame `Sink`/`Stream`, as in axum's testing-websockets example, so it can be
//! driven by channels in unit tests as well as by a real socket.

use std::{
    collections::{HashMap, VecDeque},
    net::IpAddr,
    pin::Pin,
    sync::{
        Arc, Mutex, OnceLock,
        atomic::{AtomicU64, Ordering::Relaxed},
    },
    task::Poll,
    time::Duration,
};

use axum::extract::ws::{CloseFrame, Message, Utf8Bytes};
use futures_util::{Sink, SinkExt, Stream, StreamExt};
use protocol::{
    ClientMessage, ErrorBody, ErrorCode, Push, Reply, Request, SUPPORTED_VERSIONS, ServerMessage,
    parse_client_message,
};
use tokio::{
    sync::{mpsc, oneshot, watch},
    time::{Instant, Sleep},
};
use tracing::{Instrument, debug, info_span, warn};

use crate::{
    clock::SharedClock,
    cluster::forward::{Forward, Forwarder, Relay, Unopened},
    guesses::{GuessLimits, Guesses},
    hub::{Hub, Located},
    metrics::Metrics,
    table::{Closer, Command, Conn, HostOp, NotifyOp, RaceShown, Respond, Seated, TableHandle, Timing},
};

/// Limits applied to every connection.
#[derive(Clone, Debug)]
pub struct ConnectionLimits {
    /// Largest client message (and frame), in bytes: the WebSocket layer refuses a larger frame from its header,
    /// without buffering it, and the connection is closed with `too_large` (close status 1009).
    pub max_message_bytes: usize,
    /// Sustained frames per second (requests, pings, pongs, binary frames).
    pub rate_per_sec: f64,
    /// Frames allowed in a burst.
    pub rate_burst: f64,
    /// Messages queued for a client before it counts as too slow and is disconnected.
    pub outbox: usize,
    /// Bytes of outgoing frames one connection may hold for a client that does not read them (see
    /// [`ConnectionLimits::socket_write_buffer`]); past it the client is told `overloaded` and closed.
    pub max_outbox_bytes: usize,
    /// Connections served at once; one more is refused `too_many_connections` (HTTP 503 before the upgrade).
    pub max_connections: usize,
    /// Connections served at once from one IP address (an IPv6 /64); one more is refused the same way.
    pub max_connections_per_ip: usize,
    /// Lobbies one IP address may create within `lobby_window`; one more is refused with `create_limited`.
    /// (A lobby holds at most one match, so this also bounds the matches a client can start.)
    pub max_lobbies_per_ip: usize,
    pub lobby_window: Duration,
    /// A connection that sends nothing for this long is told `idle_timeout` and closed.
    pub idle_timeout: Duration,
    /// A connection that has not completed `hello` this long after connecting is told `handshake_timeout`
    /// and closed.
    pub handshake_timeout: Duration,
    /// Longest wait for the socket to take one outgoing frame; a client that does not read for this long is
    /// disconnected (its unread messages are dropped with it).
    pub write_timeout: Duration,
    /// Failed look-ups of join codes allowed per address and in total (`guesses.rs`).
    pub guesses: GuessLimits,
    /// Notification endpoints may resolve to private addresses (`NOTIFY_ALLOW_PRIVATE`, tests).
    pub notify_allow_private: bool,
}

impl ConnectionLimits {
    /// The WebSocket layer's write buffer (frames handed to the socket, and the pongs it queues itself for the
    /// client's pings): half of [`ConnectionLimits::max_outbox_bytes`]. The other half is for serialised frames
    /// waiting in the connection for the socket to take them ([`Backlog`]).
    pub fn socket_write_buffer(&self) -> usize {
        (self.max_outbox_bytes / 2).max(SOCKET_WRITE_BUFFER + 1024)
    }

    fn backlog_bytes(&self) -> usize {
        self.max_outbox_bytes - self.max_outbox_bytes / 2
    }
}

/// What the WebSocket layer buffers before it writes to the socket (`write_buffer_size`; tungstenite's default
/// is 128 KiB, kept by a connection once it has filled it). The connection flushes after each burst anyway.
pub const SOCKET_WRITE_BUFFER: usize = 16 * 1024;

/// What one IP address uses: its open connections and when it created its recent lobbies.
#[derive(Debug, Default)]
struct IpUsage {
    connections: usize,
    lobbies: VecDeque<Instant>,
}

/// Connection and lobby counts, in total and per IP address.
#[derive(Debug, Default)]
struct Usage {
    connections: usize,
    per_ip: HashMap<IpAddr, IpUsage>,
}

/// A connection's place under the connection limits, given back when dropped.
#[derive(Debug)]
pub struct Admission {
    shared: Arc<Shared>,
    ip: Option<IpAddr>,
    /// Whether it takes a place under its address's cap too (not a relayed connection: see
    /// [`Shared::admit_relayed`]).
    per_address: bool,
}

impl Drop for Admission {
    fn drop(&mut self) {
        let mut usage = self.shared.usage.lock().expect("usage lock");
        usage.connections -= 1;
        if self.per_address
            && let Some(ip) = self.ip
            && let Some(entry) = usage.per_ip.get_mut(&ip)
        {
            entry.connections -= 1;
            let window = self.shared.limits.lobby_window;
            prune(&mut entry.lobbies, window);
            if entry.connections == 0 && entry.lobbies.is_empty() {
                usage.per_ip.remove(&ip);
            }
        }
    }
}

/// A lobby creation counted against its address's allowance before the lobby is made
/// ([`Shared::take_lobby_slot`]), and given back if it is not made.
#[derive(Debug)]
enum LobbySlot {
    /// A connection without an address (driven by channels in unit tests): nothing is counted.
    Uncounted,
    /// Counted in this node's memory (a single node), at this instant.
    Here(IpAddr, Instant),
    /// Counted in the database the cluster's nodes share: the row's id.
    Cluster(i64),
}

/// Forgets lobby creations older than the window.
fn prune(lobbies: &mut VecDeque<Instant>, window: Duration) {
    let now = Instant::now();
    while lobbies.front().is_some_and(|t| now.duration_since(*t) >= window) {
        lobbies.pop_front();
    }
}

/// What a connection needs from the server.
#[derive(Debug)]
pub struct Shared {
    pub hub: Hub,
    pub metrics: Arc<Metrics>,
    pub limits: ConnectionLimits,
    pub shutdown: watch::Receiver<bool>,
    pub server_name: String,
    next_id: AtomicU64,
    usage: Mutex<Usage>,
    /// Failed look-ups of join codes, per address and in total.
    guesses: Guesses,
    /// Cluster mode: relays connections to the nodes that own their tables (unset on a single node).
    forwarder: OnceLock<Arc<Forwarder>>,
    /// Cluster mode: lobby creations per address are counted in the database, keyed by this secret
    /// ([`Shared::count_lobbies_in_database`]; unset on a single node, which counts in memory).
    lobby_count_key: OnceLock<crate::cluster::forward::ClusterSecret>,
}

impl Shared {
    pub fn new(
        hub: Hub,
        metrics: Arc<Metrics>,
        limits: ConnectionLimits,
        shutdown: watch::Receiver<bool>,
    ) -> Shared {
        let guesses = Guesses::new(limits.guesses.clone());
        Shared {
            hub,
            metrics,
            limits,
            shutdown,
            server_name: format!("tabletop-server {}", env!("CARGO_PKG_VERSION")),
            next_id: AtomicU64::new(1),
            usage: Mutex::default(),
            guesses,
            forwarder: OnceLock::new(),
            lobby_count_key: OnceLock::new(),
        }
    }

    /// Cluster mode: a connection asking for a table another node owns is relayed to it by `forwarder`.
    pub fn set_forwarder(&self, forwarder: Arc<Forwarder>) {
        let _ = self.forwarder.set(forwarder);
    }

    /// Cluster mode: lobby creations per address are counted in the database the nodes share, under a keyed
    /// hash of the address (`secret` is the cluster's), so the allowance holds for the cluster as a whole.
    pub fn count_lobbies_in_database(&self, secret: crate::cluster::forward::ClusterSecret) {
        let _ = self.lobby_count_key.set(secret);
    }

    /// Takes a place for a new connection from `ip`, or says why there is none (`too_many_connections`). The
    /// per-address counts (connections here, lobbies later) are kept under [`crate::proxy::limit_key`] of `ip`
    /// (an IPv6 address counts as its /64), and so is the admission's address.
    pub fn admit(self: &Arc<Self>, ip: Option<IpAddr>) -> Result<Admission, ErrorBody> {
        self.admit_as(ip, true)
    }

    /// Cluster mode: takes a place for a connection another node relays here, under the total cap only. The
    /// relaying node counted it under its address's cap already (and the balancer bounds the address's
    /// connections across the cluster), so it takes no second place there. Its address is kept for the rest.
    pub fn admit_relayed(self: &Arc<Self>, ip: Option<IpAddr>) -> Result<Admission, ErrorBody> {
        self.admit_as(ip, false)
    }

    fn admit_as(self: &Arc<Self>, ip: Option<IpAddr>, per_address: bool) -> Result<Admission, ErrorBody> {
        let ip = ip.map(crate::proxy::limit_key);
        let mut usage = self.usage.lock().expect("usage lock");
        if usage.connections >= self.limits.max_connections {
            return Err(ErrorBody::new(
                ErrorCode::TooManyConnections,
                "the server is serving as many connections as it can; try again later",
            ));
        }
        if let Some(ip) = ip.filter(|_| per_address) {
            let entry = usage.per_ip.entry(ip).or_default();
            if entry.connections >= self.limits.max_connections_per_ip {
                if entry.connections == 0 && entry.lobbies.is_empty() {
                    usage.per_ip.remove(&ip);
                }
                return Err(ErrorBody::new(
                    ErrorCode::TooManyConnections,
                    format!(
                        "at most {} connections from one address; close one first",
                        self.limits.max_connections_per_ip
                    ),
                ));
            }
            entry.connections += 1;
        }
        usage.connections += 1;
        Ok(Admission {
            shared: self.clone(),
            ip,
            per_address,
        })
    }

    /// Counts a lobby creation from `ip` against its allowance, before the lobby is made; refuses it
    /// (`create_limited`) if the address created its allowance within the window already. A single node counts
    /// in memory; a cluster node in the database ([`Shared::count_lobbies_in_database`]), where a failure is
    /// answered `store_unavailable`. Give the slot back ([`Shared::give_back_lobby_slot`]) if no lobby is made.
    async fn take_lobby_slot(&self, ip: Option<IpAddr>) -> Result<LobbySlot, ErrorBody> {
        let Some(ip) = ip else {
            return Ok(LobbySlot::Uncounted);
        };
        let limited = || {
            ErrorBody::new(
                ErrorCode::CreateLimited,
                format!(
                    "at most {} new lobbies per {} seconds from one address; try again later",
                    self.limits.max_lobbies_per_ip,
                    self.limits.lobby_window.as_secs()
                ),
            )
        };
        if let Some(secret) = self.lobby_count_key.get() {
            let key = secret.keyed_hash(b"tabletop lobby creations v1\0", ip.to_string().as_bytes());
            let counted = self
                .hub
                .store()
                .count_lobby_creation(&key, self.limits.max_lobbies_per_ip, self.limits.lobby_window)
                .await;
            return match counted {
                Ok(Some(id)) => Ok(LobbySlot::Cluster(id)),
                Ok(None) => Err(limited()),
                Err(e) => {
                    warn!(error = %e, "counting a lobby creation");
                    Err(crate::table::store_unavailable())
                }
            };
        }
        let mut usage = self.usage.lock().expect("usage lock");
        let entry = usage.per_ip.entry(ip).or_default();
        prune(&mut entry.lobbies, self.limits.lobby_window);
        if entry.lobbies.len() >= self.limits.max_lobbies_per_ip {
            return Err(limited());
        }
        let now = Instant::now();
        entry.lobbies.push_back(now);
        Ok(LobbySlot::Here(ip, now))
    }

    /// Takes back a lobby creation counted by [`Shared::take_lobby_slot`] whose lobby was not made.
    async fn give_back_lobby_slot(&self, slot: LobbySlot) {
        match slot {
            LobbySlot::Uncounted => {}
            LobbySlot::Here(ip, at) => {
                let mut usage = self.usage.lock().expect("usage lock");
                if let Some(entry) = usage.per_ip.get_mut(&ip)
                    && let Some(i) = entry.lobbies.iter().position(|t| *t == at)
                {
                    entry.lobbies.remove(i);
                }
            }
            LobbySlot::Cluster(id) => {
                // Left counted if this fails: the allowance is then one short until the row is a window old.
                if let Err(e) = self.hub.store().forget_lobby_creation(id).await {
                    warn!(error = %e, "taking back a lobby creation that made no lobby");
                }
            }
        }
    }
}

/// A token bucket: `burst` frames at once, refilled at `rate` per second. Every frame a client sends takes a token
/// (text, binary, ping, and pongs that do not answer our own ping). A request without a token is answered
/// `rate_limited`, as is a binary frame; a ping or pong without one makes the connection stop reading its socket
/// until a token is back ([`RateLimit::refill`]). That backpressure makes a control-frame flood cost the server
/// nothing: the frames wait in the kernel's receive buffer, TCP flow control then stops the sender, and the
/// connection ends at the idle timeout unless it sends requests. (Closing on a sustained excess would end a
/// flood sooner, but a browser's own keep-alive pings can come in bursts, and backpressure already bounds the
/// cost at zero.)
#[derive(Debug)]
struct RateLimit {
    tokens: f64,
    rate: f64,
    burst: f64,
    last: Instant,
}

impl RateLimit {
    fn new(rate: f64, burst: f64) -> Self {
        RateLimit {
            tokens: burst,
            rate,
            burst,
            last: Instant::now(),
        }
    }

    fn allow(&mut self) -> bool {
        let now = Instant::now();
        self.tokens = (self.tokens + now.duration_since(self.last).as_secs_f64() * self.rate).min(self.burst);
        self.last = now;
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }

    /// How long until the next token.
    fn refill(&self) -> Duration {
        let missing = (1.0 - self.tokens).max(0.0);
        Duration::try_from_secs_f64(missing / self.rate).unwrap_or(Duration::from_secs(3600))
    }
}

/// `my_tables` requests one connection may send at once, and how many it gets back per second: a page asks on
/// load, when it becomes visible and every minute.
const MY_TABLES_BURST: f64 = 10.0;
const MY_TABLES_PER_SEC: f64 = 0.2;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Seat,
    Spectator,
}

#[derive(Debug, Clone)]
struct Bound {
    table: TableHandle,
    role: Role,
}

/// The per-connection state the loop keeps.
#[derive(Debug)]
struct Session {
    shared: Arc<Shared>,
    conn: Conn,
    greeted: bool,
    /// The protocol version the connection's `welcome` named (once greeted); a later `hello` may not change it.
    speaks: Option<u32>,
    bound: Option<Bound>,
    /// The client's IP address, for the per-address limits (`None` in unit tests driven by channels).
    ip: Option<IpAddr>,
    /// The round trip measured with WebSocket ping frames, sent to the table with each action.
    rtt: RoundTrip,
    /// When the frame being handled was received (the tables' clock), and the last race shown to this connection
    /// (see [`Framing`]): sent to the table with each action, which times a race claim from them.
    received_at: rules::Millis,
    race_shown: Option<RaceShown>,
    /// Served for a relaying node (cluster mode): never relayed further.
    remote: bool,
    /// Cluster mode: this connection is relayed to the node that owns its table.
    forward: Option<Forwarding>,
    /// The owner's frames of a forward just opened, for the connection loop to take.
    opened: Option<mpsc::Receiver<Relay>>,
    /// The table a forwarding check found here, for the request that asked for it.
    located: Option<TableHandle>,
    /// `my_tables` requests allowed (each reads the database once per table it names).
    my_tables_rate: RateLimit,
}

/// What became of a request for a table another node serves (see [`Session::start_forward`]).
enum Reached {
    /// Relayed (the reply comes from the owner), or refused by the forwarding itself: what to answer now.
    Relayed(Option<ServerMessage>),
    /// The owner was gone and this node took the table over: serve the request here.
    Here(TableHandle),
    /// Taking the table over failed (the database): the request is answered with this.
    Refused(ErrorBody),
}

/// A connection relayed to the node that owns its table: the client's frames go to `to_owner`; the owner's
/// frames come back through the connection loop.
#[derive(Debug)]
struct Forwarding {
    forwarder: Arc<Forwarder>,
    to_owner: mpsc::Sender<Message>,
    /// When each relayed request left, in order: replies come back in request order.
    sent: VecDeque<std::time::Instant>,
    /// The id of a relayed `leave` not answered yet: once the owner says `ok`, the relay ends and the connection
    /// is this node's again (any other table, and `create_lobby`, are served as from a fresh connection).
    leaving: Option<Option<protocol::RequestId>>,
}

impl Forwarding {
    /// Relays one client frame. A request that cannot be relayed now (NATS down) is refused with
    /// `forward_unavailable`, with its id.
    async fn relay(&mut self, frame: Message) -> Option<ServerMessage> {
        if let Message::Text(text) = &frame {
            if !self.forwarder.reachable() {
                self.forwarder.count_error();
                return Some(ServerMessage::error(
                    protocol::request_id_of(text.as_str()),
                    ErrorCode::ForwardUnavailable,
                    "this node cannot reach the node that serves your table now (node-to-node messaging is down); \
                     nothing was sent: try again shortly",
                ));
            }
            self.sent.push_back(std::time::Instant::now());
            self.forwarder.metrics().forwarded_requests.fetch_add(1, Relaxed);
            if text.contains("leave")
                && let Ok(message) = protocol::parse_client_message(text.as_str())
                && matches!(message.request, protocol::Request::Leave {})
            {
                self.leaving = Some(message.id);
            }
        }
        // A session already ended says so through the loop's relay branch.
        let _ = self.to_owner.send(frame).await;
        None
    }

    /// The owner's text frame `text` is on its way to the client: a reply ends its request's forwarding time.
    /// Returns whether it is the `ok` to a relayed `leave` (the relay ends with it).
    fn came_back(&mut self, text: &str) -> bool {
        if !text.starts_with("{\"re\":") {
            return false;
        }
        if let Some(sent) = self.sent.pop_front() {
            self.forwarder.metrics().forward_latency.observe(sent.elapsed());
        }
        let Some(leaving) = &self.leaving else {
            return false;
        };
        #[derive(serde::Deserialize)]
        struct Reply {
            re: Option<protocol::RequestId>,
            #[serde(rename = "type")]
            kind: String,
        }
        match serde_json::from_str::<Reply>(text) {
            Ok(reply) if reply.re == *leaving => {
                self.leaving = None;
                reply.kind == "ok"
            }
            _ => false,
        }
    }
}

/// The next frame from the owner of a forwarded connection (never, while it is not forwarded).
async fn relayed(relay: &mut Option<mpsc::Receiver<Relay>>) -> Option<Relay> {
    match relay {
        Some(rx) => rx.recv().await,
        None => std::future::pending().await,
    }
}

/// The reply to a request that took a seat at the table of `code`.
fn seated_reply(code: String, seated: Seated) -> Reply {
    Reply::Seated {
        code,
        seat: seated.seat,
        seat_token: seated.seat_token,
        host: seated.host,
    }
}

/// How often a connection bound to a table is sent a WebSocket ping to measure its round trip, until it has
/// [`RoundTrip::KEEP`] samples: a first estimate within seconds of sitting down.
const PING_EVERY: Duration = Duration::from_secs(2);
/// How often afterwards: each ping costs a write and a wake-up on both sides, and a round trip changes slowly
/// (the estimate is the least of the last samples, so it covers the last minute or so).
const PING_EVERY_SETTLED: Duration = Duration::from_secs(15);

/// A connection's round trip, measured with WebSocket ping/pong frames (browsers answer pings themselves): the
/// least of the last few samples, which jitter cannot inflate, and which a client could only inflate by answering
/// every ping late (the table caps what it makes of it: `play.rs`).
#[derive(Debug, Default)]
struct RoundTrip {
    samples: VecDeque<u64>,
    /// The ping awaiting its pong: its payload and when it was sent.
    pending: Option<(u64, Instant)>,
    sent: u64,
}

impl RoundTrip {
    const KEEP: usize = 5;

    /// The next ping's payload.
    fn ping(&mut self) -> Vec<u8> {
        self.sent += 1;
        self.pending = Some((self.sent, Instant::now()));
        self.sent.to_be_bytes().to_vec()
    }

    /// Whether `payload` answers our ping; if so, records the sample.
    fn pong(&mut self, payload: &[u8]) -> bool {
        match self.pending {
            Some((n, sent)) if payload == n.to_be_bytes() => {
                self.pending = None;
                if self.samples.len() == Self::KEEP {
                    self.samples.pop_front();
                }
                self.samples.push_back(sent.elapsed().as_millis() as u64);
                true
            }
            _ => false,
        }
    }

    fn estimate(&self) -> Option<u64> {
        self.samples.iter().min().copied()
    }

    /// The wait until the next ping.
    fn next_ping(&self) -> Duration {
        if self.samples.len() < Self::KEEP {
            PING_EVERY
        } else {
            PING_EVERY_SETTLED
        }
    }
}

/// The WebSocket close status (RFC 6455, section 7.4.1) that follows a `closing` push with `code`, or ends a
/// connection without one (`None`: the client left, or a table ended it normally). The one place that maps them;
/// docs/protocol.md lists the mapping.
pub fn close_status(code: Option<ErrorCode>) -> u16 {
    match code {
        // Normal closure: nothing went wrong, the connection has no more to do.
        None
        | Some(
            ErrorCode::SessionReplaced | ErrorCode::Removed | ErrorCode::Moved | ErrorCode::UnknownLobby,
        ) => 1000,
        // Going away: the server stops, or the node serving the table cannot be reached from this one.
        Some(ErrorCode::ShuttingDown | ErrorCode::ForwardUnavailable) => 1001,
        // Unsupported data: a binary frame or a frame that is not readable text.
        Some(ErrorCode::BadMessage) => 1003,
        // Message too big.
        Some(ErrorCode::TooLarge) => 1009,
        // Internal error.
        Some(ErrorCode::Internal | ErrorCode::StoreUnavailable) => 1011,
        // Policy violation: a limit (rate, size of the unread queue, idle, handshake, connections) or a refusal.
        Some(_) => 1008,
    }
}

/// The close frame after a `closing` push with `code` (see [`close_status`]); its reason is the code's name.
fn close_frame(code: Option<ErrorCode>) -> Message {
    Message::Close(Some(CloseFrame {
        code: close_status(code),
        reason: code.map_or("", ErrorCode::as_str).into(),
    }))
}

/// The `closing` push for a frame the WebSocket layer could not read: `too_large` for a frame over the size limit
/// (refused from its header, before it is buffered), `bad_message` for anything else (such as invalid UTF-8 in a
/// text frame).
fn unreadable_frame(e: &(dyn std::error::Error + 'static)) -> ErrorBody {
    let mut cause = Some(e);
    let mut code = ErrorCode::BadMessage;
    while let Some(c) = cause {
        if let Some(tungstenite::Error::Capacity(_)) = c.downcast_ref::<tungstenite::Error>() {
            code = ErrorCode::TooLarge;
        }
        cause = c.source();
    }
    ErrorBody::new(code, format!("unreadable frame: {e}"))
}

/// Serves one connection until the client leaves, the table drops it, it idles or stops reading, or the server
/// shuts down. `admission` is its place under the connection limits (see [`Shared::admit`]).
pub async fn serve<S, R, E>(sink: S, stream: R, shared: Arc<Shared>, admission: Admission)
where
    S: Sink<Message> + Unpin,
    R: Stream<Item = Result<Message, E>> + Unpin,
    E: std::error::Error + 'static,
{
    serve_with(sink, stream, shared, admission, None).await
}

/// Serves a connection relayed by another cluster node (`cluster::forward`) exactly as a local one, except that
/// its `hello` was answered by the relaying node (it speaks `speaks`), which also applies the rate limit.
pub async fn serve_remote<S, R, E>(sink: S, stream: R, shared: Arc<Shared>, admission: Admission, speaks: u32)
where
    S: Sink<Message> + Unpin,
    R: Stream<Item = Result<Message, E>> + Unpin,
    E: std::error::Error + 'static,
{
    serve_with(sink, stream, shared, admission, Some(speaks)).await
}

/// The body of [`serve`] and [`serve_remote`]: one `select!` over the client's frames, the table's pushes, the
/// owner's relayed frames (cluster mode) and the connection's timers, each handled by a [`Connection`] method.
async fn serve_with<S, R, E>(
    sink: S,
    mut stream: R,
    shared: Arc<Shared>,
    admission: Admission,
    remote: Option<u32>,
) where
    S: Sink<Message> + Unpin,
    R: Stream<Item = Result<Message, E>> + Unpin,
    E: std::error::Error + 'static,
{
    let id = shared.next_id.fetch_add(1, Relaxed);
    let mut c = Connection::new(sink, &shared, id, admission.ip, remote);
    let closer = c.session.conn.closer.clone();
    // The next round-trip ping, once the connection is bound to a table (the first one at once).
    let pings = tokio::time::sleep(Duration::ZERO);
    tokio::pin!(pings);
    // One timer for the connection's life: a frame only moves `quiet_until`; when the timer fires early (the
    // deadline moved meanwhile) it is re-armed at the new deadline. (A fresh `sleep_until` per frame cost a timer
    // registration and removal for every message.)
    let quiet = tokio::time::sleep_until(c.quiet_until);
    tokio::pin!(quiet);
    // Likewise one wait for the table's `close` (`notify_one` keeps a permit if nobody waits yet).
    let dropped = closer.notify.notified();
    tokio::pin!(dropped);
    let shutdown = shared.shutdown.clone();
    // One wait for shutdown for the connection's life, like `quiet` and `dropped` (a new `changed()` per frame
    // registered and removed a waiter each time). If the sender is gone, shutdown never comes.
    let mut stop = shutdown.clone();
    let stopping = async move {
        if stop.wait_for(|s| *s).await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    tokio::pin!(stopping);
    // Control frames over the rate: the socket is not read until this fires (see [`RateLimit`]).
    let resume = tokio::time::sleep(Duration::ZERO);
    tokio::pin!(resume);
    // Counted while this function runs, and given back on any way out (a panic in a task unwinds past the end).
    let _open = OpenConnection::count(&shared.metrics);
    shared.metrics.connections_total.fetch_add(1, Relaxed);
    async {
        debug!("connected");
        loop {
            if *shutdown.borrow() {
                c.out.say_closing(closing(ErrorCode::ShuttingDown)).await;
                break;
            }
            let step = tokio::select! {
                frame = stream.next(), if !c.throttled => match frame {
                    Some(Ok(frame)) => c.on_frame(frame, quiet.as_mut(), resume.as_mut()).await,
                    // A frame the WebSocket layer cannot read (invalid UTF-8 in a text frame, over the size limit,
                    // a protocol violation) fails the connection (RFC 6455): say why.
                    Some(Err(e)) => c.out.end_with(unreadable_frame(&e)).await,
                    None => Ok(Flow::Stop),
                },
                () = &mut resume, if c.throttled => {
                    c.throttled = false;
                    Ok(Flow::Go)
                }
                () = &mut pings, if c.session.bound.is_some() => {
                    pings.as_mut().reset(Instant::now() + c.session.rtt.next_ping());
                    c.out.backlog.push(Message::Ping(c.session.rtt.ping().into()));
                    c.out.flush().await
                }
                from_owner = relayed(&mut c.relay) => c.on_relayed(from_owner).await,
                // The session holds a sender, so the outbox never ends while we are here.
                pushed = c.out.outbox.recv() => match pushed {
                    Some(message) => c.out.write(&message).await,
                    None => Ok(Flow::Stop),
                },
                () = &mut quiet => c.on_quiet(quiet.as_mut()).await,
                () = &mut dropped => c.on_dropped().await,
                // The loop's first check says goodbye.
                () = &mut stopping => Ok(Flow::Go),
            };
            match step {
                Ok(Flow::Go) => {}
                Ok(Flow::Stop) => break,
                Err(failed) => {
                    c.out.write_failed(failed).await;
                    break;
                }
            }
        }
        c.out.close().await;
        c.session.disconnect().await;
        debug!("disconnected");
    }
    .instrument(info_span!("conn", id))
    .await;
    drop(admission);
}

/// What the connection loop does after an event.
enum Flow {
    /// Goes on.
    Go,
    /// Ends the connection (after its last words, if any were said).
    Stop,
}

/// One connection's state in [`serve_with`]'s loop: the session (handshake, binding, forwarding), the writing side,
/// the rate limit and the quiet deadline.
struct Connection<S> {
    session: Session,
    out: Outgoing<S>,
    rate: RateLimit,
    /// Control frames over the rate: the socket is not read until the loop's `resume` timer fires.
    throttled: bool,
    /// Until `hello`, the handshake deadline; afterwards the idle timeout from the last request received.
    quiet_until: Instant,
    /// Cluster mode: the owner's frames while this connection is relayed to it.
    relay: Option<mpsc::Receiver<Relay>>,
}

impl<S: Sink<Message> + Unpin> Connection<S> {
    /// A new connection, number `id`, from `ip`; `remote` is the protocol version of a connection another node
    /// relays here (its `hello` answered there), `None` for a client of this node.
    fn new(sink: S, shared: &Arc<Shared>, id: u64, ip: Option<IpAddr>, remote: Option<u32>) -> Self {
        let (tx, outbox) = mpsc::channel(shared.limits.outbox);
        let session = Session {
            shared: shared.clone(),
            conn: Conn {
                id,
                tx,
                closer: Arc::new(Closer::default()),
            },
            greeted: remote.is_some(),
            speaks: remote,
            bound: None,
            ip,
            rtt: RoundTrip::default(),
            received_at: 0,
            race_shown: None,
            remote: remote.is_some(),
            forward: None,
            opened: None,
            located: None,
            my_tables_rate: RateLimit::new(MY_TABLES_PER_SEC, MY_TABLES_BURST),
        };
        let out = Outgoing {
            sink,
            backlog: Backlog::default(),
            outbox,
            framing: Framing {
                speaks: remote.unwrap_or(protocol::PROTOCOL_VERSION),
                ..Framing::default()
            },
            clock: shared.hub.clock().clone(),
            limit: shared.limits.backlog_bytes(),
            timeout: shared.limits.write_timeout,
            ended: None,
            writable: true,
        };
        let limits = &shared.limits;
        Connection {
            session,
            out,
            // A relayed connection was rate-limited by the node that relays it.
            rate: match remote {
                Some(_) => RateLimit::new(f64::INFINITY, f64::INFINITY),
                None => RateLimit::new(limits.rate_per_sec, limits.rate_burst),
            },
            throttled: false,
            quiet_until: Instant::now()
                + if remote.is_some() {
                    limits.idle_timeout
                } else {
                    limits.handshake_timeout
                },
            relay: None,
        }
    }

    /// One frame from the client: a request is answered (or relayed), a pong answering our ping measured, a frame
    /// over the rate refused or, for a control frame, throttled (`resume` fires when a token is back). The reply
    /// goes out first, then whatever the table pushed meanwhile, in one socket write.
    async fn on_frame(
        &mut self,
        frame: Message,
        quiet: Pin<&mut Sleep>,
        resume: Pin<&mut Sleep>,
    ) -> Result<Flow, WriteFailed> {
        let session = &mut self.session;
        // A race claim is timed from here, not from when the table gets to it.
        session.received_at = self.out.clock.now();
        session.race_shown = self.out.framing.race_shown;
        let greeted_before = session.greeted;
        // A pong answering our own ping is measured, and is not the client's activity.
        let our_pong = matches!(&frame, Message::Pong(payload) if session.rtt.pong(payload));
        let request = matches!(frame, Message::Text(_));
        // Every frame the client sends takes a token (see `RateLimit`), except its close.
        let allowed = our_pong || matches!(frame, Message::Close(_)) || self.rate.allow();
        let reply = match frame {
            Message::Text(text) => self.on_text(text, allowed).await,
            Message::Binary(_) if !allowed => Some(ServerMessage::error(
                None,
                ErrorCode::RateLimited,
                "slow down: too many messages",
            )),
            Message::Binary(bytes) => match &mut self.session.forward {
                // The owner closes it, as below.
                Some(forward) => forward.relay(Message::Binary(bytes)).await,
                None => {
                    let reason = ErrorBody::new(
                        ErrorCode::BadMessage,
                        "only JSON text frames are read; a binary frame ends the connection",
                    );
                    return self.out.end_with(reason).await;
                }
            },
            Message::Close(_) => return Ok(Flow::Stop),
            Message::Ping(_) | Message::Pong(_) if !allowed => {
                self.throttled = true;
                resume.reset(Instant::now() + self.rate.refill());
                None
            }
            // The owner's round-trip pings are answered by the client through us.
            Message::Pong(payload) if !our_pong => match &mut self.session.forward {
                Some(forward) => forward.relay(Message::Pong(payload)).await,
                None => None,
            },
            Message::Ping(_) | Message::Pong(_) => None,
        };
        self.after_frame(greeted_before, request, quiet);
        match reply {
            Some(reply) => self.out.write(&reply).await,
            None => Ok(Flow::Go),
        }
    }

    /// The reply to a text frame: refused over the rate or the size limit, relayed to the node that owns the table
    /// (cluster mode: the owner replies), or handled here.
    async fn on_text(&mut self, text: Utf8Bytes, allowed: bool) -> Option<ServerMessage> {
        let max = self.session.shared.limits.max_message_bytes;
        if !allowed {
            let re = protocol::request_id_of(text.as_str());
            Some(ServerMessage::error(
                re,
                ErrorCode::RateLimited,
                "slow down: too many messages",
            ))
        } else if text.len() > max {
            // The WebSocket layer refuses such a frame first; this covers relayed ones.
            Some(ServerMessage::error(
                None,
                ErrorCode::TooLarge,
                format!("messages are limited to {max} bytes"),
            ))
        } else if let Some(forward) = &mut self.session.forward {
            forward.relay(Message::Text(text)).await
        } else {
            // Boxed: what a request awaits (a table's answer) is only alive while it is handled, so it is not kept
            // inline in every idle connection's task.
            Box::pin(self.session.handle_text(text.as_str())).await
        }
    }

    /// What a frame changed for the loop: the version the connection speaks, a forward it opened, and the quiet
    /// deadline. Only requests keep a greeted connection alive (pings and pongs do not); before `hello`, only
    /// `hello` moves the deadline.
    fn after_frame(&mut self, greeted_before: bool, request: bool, quiet: Pin<&mut Sleep>) {
        if let Some(speaks) = self.session.speaks {
            self.out.framing.speaks = speaks;
        }
        if let Some(opened) = self.session.opened.take() {
            self.relay = Some(opened);
        }
        if self.session.greeted && request {
            self.quiet_until = Instant::now() + self.session.shared.limits.idle_timeout;
            // The timer only moves itself later when it fires; the first idle deadline may be earlier than the
            // handshake's.
            if !greeted_before {
                quiet.reset(self.quiet_until);
            }
        }
    }

    /// Frames from the owner of a forwarded connection (cluster mode), from `first` on: those already here go out
    /// in one socket write, as a local table's would. The relay ends after the owner's `ok` to a relayed `leave`;
    /// the connection ends with the owner's session.
    async fn on_relayed(&mut self, first: Option<Relay>) -> Result<Flow, WriteFailed> {
        let (end, left) = self.take_relayed(first.unwrap_or(Relay::Broken));
        let written = self.out.flush().await;
        if left {
            // Dropping the sender ends the forward session (the owner's connection ends with it); whatever the
            // owner still sends for the table left is not this client's any more.
            self.session.forward = None;
            self.relay = None;
        }
        written?;
        match end {
            None | Some(Relay::Frame(_)) => Ok(Flow::Go),
            // The owner ended the connection, after its last words (e.g. `closing` with `moved`).
            Some(Relay::End) => Ok(Flow::Stop),
            Some(Relay::Broken) => {
                if let Some(forward) = &self.session.forward {
                    forward.forwarder.count_error();
                }
                let reason = ErrorBody::new(
                    ErrorCode::ForwardUnavailable,
                    "the node that serves your table cannot be reached from this node any more; \
                     reconnect and resume with your seat token",
                );
                self.out.end_with(reason).await
            }
        }
    }

    /// Moves the owner's frames already here, from `last` on, into the backlog (at most [`WRITE_BATCH`]). Returns
    /// what stopped the batch (nothing: the connection goes on; or the session's end, `End`, or `Broken` for a
    /// session whose channel is gone) and whether the owner said `ok` to a relayed `leave` (the batch stops there).
    fn take_relayed(&mut self, mut last: Relay) -> (Option<Relay>, bool) {
        let mut count = 0;
        let mut left = false;
        let end = loop {
            match last {
                Relay::Frame(frame) => {
                    if let Message::Text(text) = &frame {
                        if let Some(forward) = &mut self.session.forward {
                            left = forward.came_back(text.as_str());
                        }
                        // The owner's `closing` names the close status this node sends.
                        if let Some(code) = closing_code(text.as_str()) {
                            self.out.ended = Some(code);
                        }
                    }
                    self.out.backlog.push(frame);
                    count += 1;
                    if count == WRITE_BATCH || left {
                        break None;
                    }
                    match self.relay.as_mut().map(|rx| rx.try_recv()) {
                        Some(Ok(r)) => last = r,
                        Some(Err(mpsc::error::TryRecvError::Empty)) => break None,
                        Some(Err(mpsc::error::TryRecvError::Disconnected)) | None => {
                            break Some(Relay::Broken);
                        }
                    }
                }
                other => break Some(other),
            }
        };
        (end, left)
    }

    /// The quiet timer fired: re-armed if a request moved the deadline meanwhile, or the connection is told
    /// `idle_timeout` (`handshake_timeout` before `hello`) and ends.
    async fn on_quiet(&mut self, quiet: Pin<&mut Sleep>) -> Result<Flow, WriteFailed> {
        if Instant::now() < self.quiet_until {
            quiet.reset(self.quiet_until);
            return Ok(Flow::Go);
        }
        let code = if self.session.greeted {
            ErrorCode::IdleTimeout
        } else {
            ErrorCode::HandshakeTimeout
        };
        debug!(code = code.as_str(), "closing a quiet connection");
        self.out.end_with(closing(code)).await
    }

    /// The table dropped this connection: what it queued is delivered, then the reason, and the connection ends.
    async fn on_dropped(&mut self) -> Result<Flow, WriteFailed> {
        self.session.bound = None;
        self.out.flush().await?;
        if let Some(reason) = self.session.conn.closer.reason() {
            self.out.say_closing(reason.clone()).await;
        }
        Ok(Flow::Stop)
    }
}

/// The writing side of a connection: the socket, the frames serialised for it that it has not taken yet, the
/// table's queue of messages for it, and how the connection ended.
struct Outgoing<S> {
    sink: S,
    backlog: Backlog,
    outbox: mpsc::Receiver<Box<ServerMessage>>,
    framing: Framing,
    clock: SharedClock,
    /// The most bytes `backlog` may hold ([`ConnectionLimits::backlog_bytes`]).
    limit: usize,
    /// The write timeout ([`ConnectionLimits::write_timeout`]).
    timeout: Duration,
    /// The code of the `closing` push said last (`None`: none was), for the close frame's status.
    ended: Option<ErrorCode>,
    /// Whether the socket still takes frames (if not, the close frame is tried once, not waited for).
    writable: bool,
}

impl<S: Sink<Message> + Unpin> Outgoing<S> {
    /// Writes the backlog and whatever the table queued meanwhile (see [`write_out`]).
    async fn flush(&mut self) -> Result<Flow, WriteFailed> {
        let Outgoing {
            sink,
            backlog,
            outbox,
            framing,
            clock,
            limit,
            timeout,
            ..
        } = self;
        write_out(sink, backlog, outbox, framing, clock, *limit, *timeout).await?;
        Ok(Flow::Go)
    }

    /// Writes `message` after whatever waits.
    async fn write(&mut self, message: &ServerMessage) -> Result<Flow, WriteFailed> {
        self.backlog.push(frame(message, &mut self.framing));
        self.flush().await
    }

    /// Says why the connection ends (a `closing` push with `reason`), at once: the last words before the close
    /// frame.
    async fn say_closing(&mut self, reason: ErrorBody) {
        self.ended = Some(reason.code);
        let message = ServerMessage::Push(Push::Closing(reason));
        self.writable = send(&mut self.sink, &message, self.timeout).await.is_ok();
    }

    /// [`Outgoing::say_closing`], then the connection ends.
    async fn end_with(&mut self, reason: ErrorBody) -> Result<Flow, WriteFailed> {
        self.say_closing(reason).await;
        Ok(Flow::Stop)
    }

    /// After a write that failed, before the connection ends: a client that does not read its frames (past the
    /// backlog's bound) loses them and is told `overloaded` if the socket takes that at once.
    async fn write_failed(&mut self, failed: WriteFailed) {
        self.writable = false;
        if let WriteFailed::Overloaded = failed {
            // What waits for the client is dropped, and the connection ends now (not after the write timeout): the
            // reason and the close frame are tried once, in case the socket takes them.
            warn!("the client does not read its messages; closing it");
            self.backlog = Backlog::default();
            self.ended = Some(ErrorCode::Overloaded);
            let message = ServerMessage::Push(Push::Closing(closing(ErrorCode::Overloaded)));
            let text = Message::Text(message.to_json().into());
            let _ = tokio::time::timeout(Duration::ZERO, self.sink.send(text)).await;
        }
    }

    /// A close frame with the status of the last `closing` (see [`close_status`]): waited for if the socket still
    /// takes frames, tried once otherwise. What still waits for the client is dropped.
    async fn close(&mut self) {
        let wait = if self.writable {
            self.timeout
        } else {
            Duration::ZERO
        };
        let _ = tokio::time::timeout(wait, self.sink.send(close_frame(self.ended))).await;
        self.backlog = Backlog::default();
    }
}

/// One open connection in the `tabletop_connections` gauge, for as long as this lives.
struct OpenConnection<'a>(&'a Metrics);

impl<'a> OpenConnection<'a> {
    fn count(metrics: &'a Metrics) -> Self {
        metrics.connections.fetch_add(1, Relaxed);
        OpenConnection(metrics)
    }
}

impl Drop for OpenConnection<'_> {
    fn drop(&mut self) {
        self.0.connections.fetch_sub(1, Relaxed);
    }
}

/// The reason a connection the server ends for `code` is told, in its `closing` push.
fn closing(code: ErrorCode) -> ErrorBody {
    let message = match code {
        ErrorCode::ShuttingDown => {
            "the server is shutting down; reconnect later and resume with your seat token"
        }
        ErrorCode::IdleTimeout => "no message for too long; send `ping` to keep a quiet connection open",
        ErrorCode::HandshakeTimeout => "no `hello` in time",
        ErrorCode::Overloaded => {
            "too much unread data waits for this client (MAX_OUTBOX_BYTES): read your socket; reconnect and resume"
        }
        _ => "closing",
    };
    ErrorBody::new(code, message)
}

/// Writes one frame, waiting at most `timeout` for the socket to take it: a client that does not read is not
/// waited for (what the server holds for it stays bounded by its outbox and the socket's buffers).
async fn send<S: Sink<Message> + Unpin>(
    sink: &mut S,
    message: &ServerMessage,
    timeout: Duration,
) -> Result<(), ()> {
    match tokio::time::timeout(timeout, sink.send(Message::Text(message.to_json().into()))).await {
        Ok(Ok(())) => Ok(()),
        Ok(Err(_)) => Err(()),
        Err(_) => {
            warn!("the client did not read for too long; disconnecting it");
            Err(())
        }
    }
}

/// Most relayed frames (cluster mode) written before the socket is flushed.
const WRITE_BATCH: usize = 64;
/// The largest first guess of a frame's size (a larger frame still grows its buffer as it is written).
const SIZE_HINT_MAX: usize = 64 * 1024;

/// How a connection's frames are written: the protocol version it speaks; the sizes of its last frames, a `state`
/// push and any other message apart, the first guess of its next frame's size of the same kind (one guess for both
/// made a push after a short `accepted` reply grow by doubling; docs/performance.md, "Measured reasons"); and the
/// race its `state` pushes show, with when the first push showing it was written to the socket ([`write_out`]
/// stamps it).
#[derive(Debug, Default)]
struct Framing {
    speaks: u32,
    state_push: usize,
    other: usize,
    /// The deadline of the race the last `state` push framed shows (`None`: it shows none).
    race: Option<rules::Millis>,
    /// Set when a push showing a new race was framed and has not been written yet.
    race_unwritten: bool,
    race_shown: Option<RaceShown>,
}

impl Framing {
    fn note_state(&mut self, update: &protocol::StateUpdate) {
        let race = match update.status {
            protocol::Status::Race { .. } => update.deadline,
            _ => None,
        };
        if race != self.race {
            self.race = race;
            self.race_unwritten = race.is_some();
        }
    }

    /// The frames framed so far are written (the socket has taken them) at `now`.
    fn written(&mut self, now: rules::Millis) {
        if std::mem::take(&mut self.race_unwritten)
            && let Some(deadline) = self.race
        {
            self.race_shown = Some(RaceShown {
                deadline,
                written_at: now,
            });
        }
    }
}

/// One text frame, written by serde (a push by its generated writer, `json_write`) into a buffer of the size this connection's previous frame of the same kind
/// had (plus a margin), which becomes the frame's payload as it is: no copy, and no growing by doubling for a
/// frame of the usual size. (Writing into one reused buffer and then copying it into a frame of its exact size
/// cost ~1 % of the server's CPU under load; docs/performance.md, "Measured reasons".) The same text as
/// [`ServerMessage::to_json`].
fn frame(message: &ServerMessage, framing: &mut Framing) -> Message {
    // A state push as an older protocol version writes it (a copy only for a connection that speaks one).
    let older;
    let message = match message {
        ServerMessage::Push(Push::State(update)) => match update.for_version(framing.speaks) {
            Some(update) => {
                older = ServerMessage::Push(Push::State(Box::new(update)));
                &older
            }
            None => message,
        },
        ServerMessage::Push(Push::Away(report)) => match report.for_version(framing.speaks) {
            Some(report) => {
                older = ServerMessage::Push(Push::Away(Box::new(report)));
                &older
            }
            None => message,
        },
        _ => message,
    };
    let size = match message {
        ServerMessage::Push(Push::State(update)) => {
            framing.note_state(update);
            &mut framing.state_push
        }
        _ => &mut framing.other,
    };
    let text = match message {
        // Every push (a state push after every change, to every viewer) by its generated writer, the same text,
        // into a string: no UTF-8 check of the frame.
        ServerMessage::Push(push) => {
            let mut text = String::with_capacity(*size);
            json_write::WriteJson::write_json(push, &mut text);
            text
        }
        _ => {
            let mut bytes = Vec::with_capacity(*size);
            serde_json::to_writer(&mut bytes, message).expect("protocol messages serialise");
            String::from_utf8(bytes).expect("serde_json writes UTF-8")
        }
    };
    *size = (text.len() + text.len() / 8 + 64).min(SIZE_HINT_MAX);
    Message::Text(text.into())
}

/// The code of a `closing` push, if `text` is one (an owner's frame relayed to the client, cluster mode).
fn closing_code(text: &str) -> Option<ErrorCode> {
    if !text.contains("\"closing\"") {
        return None;
    }
    match serde_json::from_str::<ServerMessage>(text) {
        Ok(ServerMessage::Push(Push::Closing(body))) => Some(body.code),
        _ => None,
    }
}

/// Frames serialised for the client that the socket has not taken yet, and their size in bytes.
#[derive(Debug, Default)]
struct Backlog {
    frames: VecDeque<Message>,
    bytes: usize,
}

impl Backlog {
    fn push(&mut self, frame: Message) {
        self.bytes += frame_bytes(&frame);
        self.frames.push_back(frame);
    }

    fn pop(&mut self) -> Option<Message> {
        let frame = self.frames.pop_front()?;
        self.bytes -= frame_bytes(&frame);
        Some(frame)
    }
}

fn frame_bytes(frame: &Message) -> usize {
    match frame {
        Message::Text(text) => text.len(),
        Message::Binary(b) | Message::Ping(b) | Message::Pong(b) => b.len(),
        Message::Close(_) => 0,
    }
}

/// Why a write stopped short.
#[derive(Debug)]
enum WriteFailed {
    /// The socket failed, or took nothing for the write timeout.
    Gone,
    /// The frames waiting for the client passed the connection's bound in bytes (or the WebSocket layer's write
    /// buffer, full of unread data, refused one).
    Overloaded,
}

/// Hands the `backlog` to the socket and flushes it once: a burst (a reply and the state push that follows it)
/// costs one write system call. While the socket does not take frames, the messages the table queues in `outbox`
/// are serialised into the backlog, so what waits for a client that does not read is counted in bytes: past
/// `limit` the write fails with `Overloaded`. The time limit covers the whole write.
async fn write_out<S: Sink<Message> + Unpin>(
    sink: &mut S,
    backlog: &mut Backlog,
    outbox: &mut mpsc::Receiver<Box<ServerMessage>>,
    framing: &mut Framing,
    clock: &SharedClock,
    limit: usize,
    timeout: Duration,
) -> Result<(), WriteFailed> {
    let write = std::future::poll_fn(|cx| {
        loop {
            while let Poll::Ready(Some(message)) = outbox.poll_recv(cx) {
                backlog.push(frame(&message, framing));
                if backlog.bytes > limit {
                    return Poll::Ready(Err(WriteFailed::Overloaded));
                }
            }
            if backlog.frames.is_empty() {
                break;
            }
            match sink.poll_ready_unpin(cx) {
                Poll::Ready(Ok(())) => {
                    let frame = backlog.pop().expect("a frame");
                    if sink.start_send_unpin(frame).is_err() {
                        return Poll::Ready(Err(WriteFailed::Overloaded));
                    }
                }
                Poll::Ready(Err(_)) => return Poll::Ready(Err(WriteFailed::Gone)),
                Poll::Pending => return Poll::Pending,
            }
        }
        sink.poll_flush_unpin(cx)
            .map(|r| r.map_err(|_| WriteFailed::Gone))
    });
    match tokio::time::timeout(timeout, write).await {
        Ok(result) => {
            if result.is_ok() {
                framing.written(clock.now());
            }
            result
        }
        Err(_) => {
            warn!("the client did not read for too long; disconnecting it");
            Err(WriteFailed::Gone)
        }
    }
}

impl Session {
    async fn disconnect(&mut self) {
        // A relayed connection: dropping the sender ends the forward session, and the owner's connection.
        self.forward = None;
        if let Some(bound) = self.bound.take() {
            let _ = bound
                .table
                .tx
                .send(Command::Disconnect {
                    conn_id: self.conn.id,
                })
                .await;
        }
    }

    /// The reply to one text frame; none when the frame opened a forward (the owner node replies).
    async fn handle_text(&mut self, text: &str) -> Option<ServerMessage> {
        let ClientMessage { id, request } = match parse_client_message(text) {
            Ok(message) => message,
            Err(e) => return Some(ServerMessage::error(e.re, e.code, e.message)),
        };
        let kind = request.kind();
        // A look-up by join code counts against the limits on guessing codes (`guesses.rs`).
        let carries_secret = match &request {
            Request::JoinLobby { .. } => Some(false),
            Request::Spectate { watch, .. } => Some(watch.is_some()),
            Request::Resume { .. } => Some(true),
            _ => None,
        }
        .filter(|_| self.greeted && self.bound.is_none());
        let mut guess = match carries_secret.map(|secret| self.shared.guesses.check(self.ip, secret)) {
            Some(Err(refused)) => return Some(ServerMessage::reply(id, Reply::Error(refused))),
            Some(Ok(guess)) => Some(guess),
            None => None,
        };
        // Cluster mode: a table another node owns is served by relaying this connection to that node.
        let mut located = Ok(());
        if let Request::JoinLobby { code, .. } | Request::Spectate { code, .. } | Request::Resume { code, .. } =
            &request
            && self.greeted
            && self.bound.is_none()
            && !self.remote
            && let Some(forwarder) = self.shared.forwarder.get().cloned()
        {
            match self.shared.hub.locate(code).await {
                Ok(Located::Here(table)) => self.located = Some(table),
                Ok(Located::Elsewhere { node, epoch, format }) => {
                    // Not a failure here: the node that serves the table counts the look-up.
                    if let Some(guess) = guess.take() {
                        let _ = self.shared.guesses.settle(self.ip, guess, Ok(()));
                    }
                    match self
                        .start_forward(forwarder, code, (node, epoch, format), id.clone(), text)
                        .await
                    {
                        Reached::Relayed(reply) => return reply,
                        Reached::Here(table) => self.located = Some(table),
                        Reached::Refused(error) => located = Err(error),
                    }
                }
                Err(error) => located = Err(error),
            }
        }
        let result = match located {
            Ok(()) => self.handle(request).await,
            Err(error) => Err(error),
        };
        let result = match guess {
            Some(guess) => self.shared.guesses.settle(self.ip, guess, result),
            None => result,
        };
        Some(match result {
            Ok(reply) => ServerMessage::reply(id, reply),
            Err(error) => {
                debug!(request = kind, code = error.code.as_str(), "request refused");
                ServerMessage::reply(id, Reply::Error(error))
            }
        })
    }

    /// Opens a forward to `owner` (a node, the epoch of its lease of table `code`, and the newest node-to-node
    /// format it speaks) and relays `text` (the
    /// request that asked for the table) as its first frame. If NATS says the owner is gone (killed, stopped),
    /// this node takes the table over rather than refuse (`Hub::take_from_gone`), and serves it if it got it, or relays
    /// to the node that did.
    async fn start_forward(
        &mut self,
        forwarder: Arc<Forwarder>,
        code: &str,
        owner: (String, i64, i32),
        id: Option<protocol::RequestId>,
        text: &str,
    ) -> Reached {
        let speaks = self.speaks.unwrap_or(protocol::PROTOCOL_VERSION);
        let mut opened = forwarder.open(&owner.0, owner.2, speaks, self.ip).await;
        if let Err(Unopened { owner_gone: true, .. }) = &opened {
            match self.shared.hub.take_from_gone(code, &owner.0, owner.1).await {
                Ok(Located::Here(table)) => return Reached::Here(table),
                Ok(Located::Elsewhere { node, format, .. }) if node != owner.0 => {
                    opened = forwarder.open(&node, format, speaks, self.ip).await;
                }
                Ok(Located::Elsewhere { .. }) => {}
                Err(error) => return Reached::Refused(error),
            }
        }
        match opened {
            Ok(Forward { to_owner, from_owner }) => {
                debug!(
                    owner = owner.0,
                    "relaying this connection to the node that owns its table"
                );
                let mut forward = Forwarding {
                    forwarder,
                    to_owner,
                    sent: VecDeque::new(),
                    leaving: None,
                };
                let refused = forward.relay(Message::Text(text.into())).await;
                self.forward = Some(forward);
                self.opened = Some(from_owner);
                Reached::Relayed(refused)
            }
            Err(Unopened { error, .. }) => {
                if error.code == ErrorCode::ForwardUnavailable {
                    forwarder.count_error();
                }
                Reached::Relayed(Some(ServerMessage::reply(id, Reply::Error(error))))
            }
        }
    }

    /// The table a request names: the one the forwarding check just found, or found now.
    async fn find(&mut self, code: &str) -> Result<TableHandle, ErrorBody> {
        match self.located.take() {
            Some(table) => Ok(table),
            None => self.shared.hub.find(code).await,
        }
    }

    /// The reply to one request that passed [`Session::handle_text`]'s checks: the one translation of the protocol's
    /// requests into what this connection does and the table command that carries each, one arm a request. The hot
    /// path (an action) is awaited inline; every other request's work is boxed in its arm (inline, their futures
    /// together were ~10 KB, moved into a new box for every message, actions included: docs/performance.md,
    /// "Measured reasons").
    async fn handle(&mut self, request: Request) -> Result<Reply, ErrorBody> {
        match request {
            Request::Hello { protocol, .. } => self.hello(protocol),
            Request::Ping {} => Ok(Reply::Pong {}),
            _ if !self.greeted => Self::refused(ErrorCode::HandshakeRequired, "say hello first"),
            Request::Action { action, version } => self.action(action, version).await,
            Request::CreateLobby {
                game,
                options,
                seats,
                name,
                turn_timer_ms,
                absent,
                rules_version,
                pace,
            } => {
                let settings = (seats, turn_timer_ms, absent, rules_version, pace);
                Box::pin(self.create_lobby(&game, &options, &name, settings)).await
            }
            Request::JoinLobby { code, name } => Box::pin(self.join_lobby(&code, name)).await,
            Request::Spectate {
                code,
                watch,
                name,
                last_version,
            } => Box::pin(self.spectate(&code, watch, name, last_version)).await,
            Request::Resume {
                code,
                token,
                last_version,
            } => Box::pin(self.resume(&code, token, last_version)).await,
            Request::Leave {} => {
                let left = self
                    .tell(|conn_id, reply| Command::Leave { conn_id, reply })
                    .await;
                if left.is_ok() {
                    self.bound = None;
                }
                left
            }
            Request::WatchLink {} => {
                let table = self.require_bound()?;
                let conn_id = self.conn.id;
                let watch = Box::pin(self.ask(&table, |reply| Command::WatchLink { conn_id, reply })).await?;
                Ok(Reply::WatchLink {
                    code: table.code.clone(),
                    watch,
                })
            }
            Request::NotifySubscribe { target, language } => {
                let checked =
                    crate::notify::check_target(target, self.shared.limits.notify_allow_private).await?;
                let op = NotifyOp::Subscribe(checked.into_new(language));
                self.notify_op(op).await
            }
            Request::NotifyUnsubscribe { endpoint } => self.notify_op(NotifyOp::Unsubscribe(endpoint)).await,
            Request::NotifyList {} => self.notify_op(NotifyOp::List).await,
            Request::AddBot { seat } => {
                self.tell(|conn_id, reply| Command::AddBot { conn_id, seat, reply })
                    .await
            }
            Request::Start {} => {
                self.tell(|conn_id, reply| Command::Start { conn_id, reply })
                    .await
            }
            Request::Chat { text } => {
                self.tell(|conn_id, reply| Command::Chat { conn_id, text, reply })
                    .await
            }
            Request::Presence { hidden } => {
                self.tell(|conn_id, reply| Command::Presence {
                    conn_id,
                    hidden,
                    reply,
                })
                .await
            }
            Request::Rematch { accept } => {
                self.tell(|conn_id, reply| Command::Rematch {
                    conn_id,
                    accept,
                    reply,
                })
                .await
            }
            Request::ConfigureLobby {
                options,
                seats,
                turn_timer_ms,
                absent,
                rules_version,
                pace,
            } => {
                let op = HostOp::Configure {
                    options,
                    seats,
                    turn_timer_ms,
                    absent,
                    rules_version,
                    pace,
                };
                self.tell_host(op).await
            }
            Request::Vacation { days } => self.vacation(Some(days)).await,
            Request::EndVacation {} => self.vacation(None).await,
            Request::RemovePlayer { seat } => self.tell_host(HostOp::Remove { seat }).await,
            Request::MakeHost { seat } => self.tell_host(HostOp::MakeHost { seat }).await,
            Request::SetListed { listed } => self.tell_host(HostOp::SetListed { listed }).await,
            Request::MyTables { tables } => Box::pin(self.my_tables(tables)).await,
        }
    }

    /// `my_tables`: answered from the database (`inbox.rs`), at most [`MY_TABLES_BURST`] at once per connection,
    /// then one every `1 / MY_TABLES_PER_SEC` seconds.
    async fn my_tables(&mut self, tables: Vec<protocol::TableRef>) -> Result<Reply, ErrorBody> {
        if !self.my_tables_rate.allow() {
            let secs = self.my_tables_rate.refill().as_secs_f64().ceil().max(1.0);
            return Err(ErrorBody::new(
                ErrorCode::RateLimited,
                format!("too many my_tables requests on this connection; try again in {secs} s"),
            ));
        }
        let (store, guesses) = (self.shared.hub.store(), &self.shared.guesses);
        let tables = crate::inbox::my_tables(store, guesses, self.ip, &tables, self.received_at).await?;
        Ok(Reply::MyTables { tables })
    }

    /// `hello`: a second one is answered like the first and changes nothing, as long as it names the version the
    /// connection already speaks: the version is fixed for the connection's life.
    fn hello(&mut self, protocol: u32) -> Result<Reply, ErrorBody> {
        if let Some(speaks) = self.speaks
            && speaks != protocol
        {
            return Err(ErrorBody::new(
                ErrorCode::UnsupportedVersion,
                format!(
                    "this connection already speaks protocol version {speaks}; open a new connection to speak {protocol}"
                ),
            ));
        }
        if !SUPPORTED_VERSIONS.contains(&protocol) {
            return Err(ErrorBody::new(
                ErrorCode::UnsupportedVersion,
                format!("this server speaks protocol versions {SUPPORTED_VERSIONS:?}, not {protocol}"),
            ));
        }
        self.greeted = true;
        self.speaks = Some(protocol);
        Ok(Reply::Welcome {
            protocol,
            server: self.shared.server_name.clone(),
        })
    }

    /// An action for the bound table: the hot path. A spectator's is refused here, where its role is known (the
    /// table never hears of it).
    async fn action(&mut self, action: protocol::RawJson, version: Option<u64>) -> Result<Reply, ErrorBody> {
        let table = self.require_bound()?;
        if let Some(Bound {
            role: Role::Spectator,
            ..
        }) = &self.bound
        {
            return Self::refused(ErrorCode::Unauthorized, "spectators cannot act");
        }
        let conn_id = self.conn.id;
        let timing = Timing {
            received_at: self.received_at,
            rtt_ms: self.rtt.estimate(),
            race_shown: self.race_shown,
        };
        let version = self
            .ask(&table, |reply| Command::Act {
                conn_id,
                action,
                version,
                timing,
                reply,
            })
            .await?;
        Ok(Reply::Accepted { version })
    }

    /// `vacation` (`Some(days)`) and `end_vacation` (`None`): for the sender's seat of the bound table.
    async fn vacation(&mut self, days: Option<u32>) -> Result<Reply, ErrorBody> {
        Box::pin(self.tell(|conn_id, reply| Command::Vacation { conn_id, days, reply })).await
    }

    fn refused(code: ErrorCode, message: &str) -> Result<Reply, ErrorBody> {
        Err(ErrorBody::new(code, message))
    }

    /// `create_lobby`, counted against the address's lobby allowance (given back if no lobby is made); `settings`
    /// are the seats, turn timer, absence policy and rules version asked for.
    async fn create_lobby(
        &mut self,
        game: &str,
        options: &serde_json::Value,
        name: &str,
        settings: (
            u8,
            Option<u64>,
            protocol::AbsencePolicy,
            Option<u32>,
            protocol::Pace,
        ),
    ) -> Result<Reply, ErrorBody> {
        self.require_unbound()?;
        let (seats, turn_timer_ms, absent, rules_version, pace) = settings;
        let slot = self.shared.take_lobby_slot(self.ip).await?;
        let created = self
            .shared
            .hub
            .create(
                game,
                options,
                seats,
                name,
                turn_timer_ms,
                absent,
                rules_version,
                pace,
                self.conn.clone(),
            )
            .await;
        let (table, seated) = match created {
            Ok(created) => created,
            Err(refused) => {
                self.shared.give_back_lobby_slot(slot).await;
                return Err(refused);
            }
        };
        Ok(seated_reply(self.bind(table, Role::Seat), seated))
    }

    /// `join_lobby`. A spectator of this lobby takes a free seat without leaving first (the table moves it from
    /// its spectators to the seat); any other bound connection must leave first.
    async fn join_lobby(&mut self, code: &str, name: String) -> Result<Reply, ErrorBody> {
        let conn = self.conn.clone();
        let join = |reply| Command::Join {
            name: name.clone(),
            conn: conn.clone(),
            reply,
        };
        let (code, seated) = match self.watching(code) {
            Some(table) => {
                let seated = self.ask(&table, join).await?;
                (self.bind(table, Role::Seat), seated)
            }
            None => self.sit_down(code, Role::Seat, join).await?,
        };
        Ok(seated_reply(code, seated))
    }

    /// `spectate`: binds this unbound connection to the table of `code` as a spectator.
    async fn spectate(
        &mut self,
        code: &str,
        watch: Option<String>,
        name: Option<String>,
        last_version: Option<u64>,
    ) -> Result<Reply, ErrorBody> {
        let conn = self.conn.clone();
        let spectate = |reply| Command::Spectate {
            conn: conn.clone(),
            watch: watch.clone(),
            name: name.clone(),
            last_version,
            reply,
        };
        let (code, ()) = self.sit_down(code, Role::Spectator, spectate).await?;
        Ok(Reply::Spectating { code })
    }

    /// `resume`: binds this unbound connection to its seat at the table of `code`, by the seat's token.
    async fn resume(
        &mut self,
        code: &str,
        token: protocol::SeatToken,
        last_version: Option<u64>,
    ) -> Result<Reply, ErrorBody> {
        let conn = self.conn.clone();
        let resume = |reply| Command::Resume {
            token: token.clone(),
            last_version,
            conn: conn.clone(),
            reply,
        };
        let (code, (seat, host)) = self.sit_down(code, Role::Seat, resume).await?;
        Ok(Reply::Resumed { code, seat, host })
    }

    /// Binds this unbound connection to the table of `code` in `role` by sending it `command` (see
    /// [`Session::ask_found`]): the table's code and its answer.
    async fn sit_down<T>(
        &mut self,
        code: &str,
        role: Role,
        command: impl Fn(Respond<T>) -> Command,
    ) -> Result<(String, T), ErrorBody> {
        self.require_unbound()?;
        let (table, answer) = self.ask_found(code, command).await?;
        Ok((self.bind(table, role), answer))
    }

    /// This connection is `table`'s now, in `role`: the table's code.
    fn bind(&mut self, table: TableHandle, role: Role) -> String {
        let code = table.code.clone();
        self.bound = Some(Bound { table, role });
        code
    }

    /// Sends the bound table the command `command` makes of this connection's id and a reply channel, for a
    /// request answered `ok` once the table has done it.
    /// A seat's request about its notification endpoints (`table/notify.rs`).
    async fn notify_op(&mut self, op: NotifyOp) -> Result<Reply, ErrorBody> {
        let table = self.require_bound()?;
        let conn_id = self.conn.id;
        Box::pin(self.ask(&table, |reply| Command::Notify { conn_id, op, reply })).await
    }

    async fn tell(&mut self, command: impl FnOnce(u64, Respond<()>) -> Command) -> Result<Reply, ErrorBody> {
        let table = self.require_bound()?;
        let conn_id = self.conn.id;
        Box::pin(self.ask(&table, |reply| command(conn_id, reply))).await?;
        Ok(Reply::Ok {})
    }

    /// Sends a host control to the bound table.
    async fn tell_host(&mut self, op: HostOp) -> Result<Reply, ErrorBody> {
        self.tell(|conn_id, reply| Command::Host { conn_id, op, reply })
            .await
    }

    fn require_unbound(&self) -> Result<(), ErrorBody> {
        match &self.bound {
            Some(b) => Err(ErrorBody::new(
                ErrorCode::AlreadyInLobby,
                format!(
                    "this connection is already in lobby {}; leave it first",
                    b.table.code
                ),
            )),
            None => Ok(()),
        }
    }

    /// The table this connection spectates, when `code` names it.
    fn watching(&self, code: &str) -> Option<TableHandle> {
        match &self.bound {
            Some(Bound {
                table,
                role: Role::Spectator,
            }) if *table.code == crate::secrets::normalise_code(code) => Some(table.clone()),
            _ => None,
        }
    }

    fn require_bound(&self) -> Result<TableHandle, ErrorBody> {
        self.bound
            .as_ref()
            .map(|b| b.table.clone())
            .ok_or_else(|| ErrorBody::new(ErrorCode::NotInLobby, "join, resume or spectate a lobby first"))
    }

    /// Finds the table of `code` and sends it a command; once more if the table left memory between the two
    /// (`table/idle.rs`): it is loaded again, so that leaving memory is invisible to the client. A table that
    /// takes a command answers it, so a command whose answer never came was never served.
    async fn ask_found<T>(
        &mut self,
        code: &str,
        command: impl Fn(Respond<T>) -> Command,
    ) -> Result<(TableHandle, T), ErrorBody> {
        let mut again = true;
        loop {
            let table = self.find(code).await?;
            let (reply, answer) = oneshot::channel();
            if table.tx.send(command(reply)).await.is_ok()
                && let Ok(result) = answer.await
            {
                return result.map(|answer| (table, answer));
            }
            if !again || *self.shared.shutdown.borrow() {
                return self.ask(&table, command).await.map(|answer| (table, answer));
            }
            again = false;
        }
    }

    /// Sends a command to a table and waits for its answer. A table that is gone means the server is shutting
    /// down or the lobby closed.
    async fn ask<T>(
        &mut self,
        table: &TableHandle,
        command: impl FnOnce(Respond<T>) -> Command,
    ) -> Result<T, ErrorBody> {
        let (reply, answer) = oneshot::channel();
        // The reason the table gave this connection when it let it go (`moved` when another node took the table
        // over) beats a guess: the request may have been read before the connection heard of it.
        let gone = |session: &Session| match session.conn.closer.reason() {
            Some(reason) => reason.clone(),
            None if *session.shared.shutdown.borrow() => {
                ErrorBody::new(ErrorCode::ShuttingDown, "the server is shutting down")
            }
            None => ErrorBody::new(ErrorCode::UnknownLobby, "this lobby is closed"),
        };
        if table.tx.send(command(reply)).await.is_err() {
            self.bound = None;
            return Err(gone(self));
        }
        match answer.await {
            Ok(result) => result,
            Err(_) => {
                self.bound = None;
                Err(gone(self))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::convert::Infallible;

    use futures_channel::mpsc as channel;
    use serde_json::{Value, json};

    use super::*;
    use crate::{clock::ManualClock, config::Config, store::Store};

    async fn next(rx: &mut channel::UnboundedReceiver<Message>) -> Value {
        loop {
            match rx.next().await.expect("a frame") {
                Message::Text(text) => return serde_json::from_str(text.as_str()).unwrap(),
                // The round-trip pings of a connection bound to a table.
                Message::Ping(_) => continue,
                other => panic!("not a text frame: {other:?}"),
            }
        }
    }

    /// A connection is pinged often until its round trip is known, then seldom; only its own pongs count.
    #[test]
    fn round_trip_pings_often_until_it_has_its_samples_then_seldom() {
        let mut rtt = RoundTrip::default();
        assert_eq!(rtt.estimate(), None);
        for i in 0..RoundTrip::KEEP {
            assert_eq!(rtt.next_ping(), PING_EVERY, "after {i} samples");
            let payload = rtt.ping();
            assert!(!rtt.pong(b"not ours"));
            assert!(rtt.pong(&payload));
            assert!(!rtt.pong(&payload), "a pong counts once");
        }
        assert!(rtt.estimate().is_some());
        assert_eq!(rtt.next_ping(), PING_EVERY_SETTLED);
        // An unanswered ping adds no sample, and the pace stays settled.
        rtt.ping();
        assert_eq!(rtt.next_ping(), PING_EVERY_SETTLED);
    }

    /// A race is shown to a connection when the first `state` push showing it is written, not when it is framed;
    /// later pushes of the same race do not move that time, and a new race (another deadline) does.
    #[test]
    fn the_first_push_of_a_race_is_stamped_when_written() {
        let push = |status: protocol::Status, deadline: Option<u64>| {
            ServerMessage::Push(Push::State(Box::new(protocol::StateUpdate {
                code: "ABCD".into(),
                match_id: "m".into(),
                game: "hide_and_eeek".into(),
                version: 1,
                since: 0,
                seat: None,
                legal_actions: protocol::RawJson::empty_array(),
                status,
                deadline,
                turn_deadline: None,
                outcome: None,
                clocks: None,
                events: Vec::new(),
                view: protocol::RawJson::empty_array(),
            })))
        };
        let race = || protocol::Status::Race {
            seats: vec![rules::Seat(0)],
        };
        let turn = || protocol::Status::Turn { seat: rules::Seat(0) };
        let shown = |deadline, written_at| Some(RaceShown { deadline, written_at });
        let mut framing = Framing::default();
        frame(&push(turn(), None), &mut framing);
        framing.written(100);
        assert_eq!(framing.race_shown, None);
        frame(&push(race(), Some(9_000)), &mut framing);
        assert_eq!(framing.race_shown, None, "framed, not written yet");
        framing.written(1_010);
        assert_eq!(framing.race_shown, shown(9_000, 1_010));
        frame(&push(race(), Some(9_000)), &mut framing);
        framing.written(1_500);
        assert_eq!(framing.race_shown, shown(9_000, 1_010), "the same race");
        frame(&push(turn(), Some(9_000)), &mut framing);
        frame(&push(race(), Some(9_800)), &mut framing);
        framing.written(2_000);
        assert_eq!(framing.race_shown, shown(9_800, 2_000), "a new race");
    }

    /// The connection loop driven by plain channels instead of a socket.
    #[tokio::test]
    async fn the_loop_answers_each_frame_and_closes_on_shutdown() {
        let store = Store::connect("sqlite::memory:").await.unwrap();
        let (stop, stopped) = watch::channel(false);
        let (done, _) = mpsc::channel(1);
        let metrics = Arc::new(Metrics::default());
        let config = Config::defaults();
        let hub = Hub::new(
            store,
            Arc::new(ManualClock::new(0)),
            metrics.clone(),
            config.table_settings(),
            stopped.clone(),
            done,
        );
        let shared = Arc::new(Shared::new(hub, metrics.clone(), config.limits(), stopped));
        let (to_server, from_client) = channel::unbounded::<Result<Message, Infallible>>();
        let (to_client, mut from_server) = channel::unbounded::<Message>();
        let admission = shared.admit(None).unwrap();
        let task = tokio::spawn(serve(to_client, from_client, shared, admission));
        let send = |v: Value| {
            to_server
                .unbounded_send(Ok(Message::Text(v.to_string().into())))
                .unwrap()
        };

        send(json!({"id": 1, "type": "start"}));
        assert_eq!(next(&mut from_server).await["code"], "handshake_required");
        send(json!({"id": 2, "type": "hello", "protocol": protocol::PROTOCOL_VERSION}));
        assert_eq!(next(&mut from_server).await["type"], "welcome");
        to_server
            .unbounded_send(Ok(Message::Text("nonsense".into())))
            .unwrap();
        assert_eq!(next(&mut from_server).await["code"], "bad_message");
        let game = rules::catalogue()[0].clone();
        send(
            json!({"id": 3, "type": "create_lobby", "game": game.id, "seats": game.min_players, "name": "Ann"}),
        );
        let seated = next(&mut from_server).await;
        assert_eq!(
            (seated["re"].as_u64(), seated["type"].as_str()),
            (Some(3), Some("seated")),
            "{seated}"
        );
        assert_eq!(next(&mut from_server).await["type"], "lobby");
        assert_eq!(metrics.connections.load(Relaxed), 1);

        stop.send(true).unwrap();
        let closing = next(&mut from_server).await;
        assert_eq!(
            (closing["type"].as_str(), closing["code"].as_str()),
            (Some("closing"), Some("shutting_down"))
        );
        assert!(matches!(from_server.next().await, Some(Message::Close(_))));
        task.await.unwrap();
        assert_eq!(metrics.connections.load(Relaxed), 0);
    }

    /// A server's connection state with adjusted limits, and the sender of its shutdown signal (kept alive).
    async fn shared_with(limits: impl FnOnce(&mut ConnectionLimits)) -> (Arc<Shared>, watch::Sender<bool>) {
        let (stop, stopped) = watch::channel(false);
        let (done, _) = mpsc::channel(1);
        let metrics = Arc::new(Metrics::default());
        let config = Config::defaults();
        let store = Store::connect("sqlite::memory:").await.unwrap();
        let hub = Hub::new(
            store,
            Arc::new(ManualClock::new(0)),
            metrics.clone(),
            config.table_settings(),
            stopped.clone(),
            done,
        );
        let mut l = config.limits();
        limits(&mut l);
        (Arc::new(Shared::new(hub, metrics, l, stopped)), stop)
    }

    /// A sink that never takes a frame: a client that does not read its socket.
    struct Stuck;

    impl Sink<Message> for Stuck {
        type Error = Infallible;
        fn poll_ready(
            self: std::pin::Pin<&mut Self>,
            _: &mut std::task::Context<'_>,
        ) -> std::task::Poll<Result<(), Infallible>> {
            std::task::Poll::Pending
        }
        fn start_send(self: std::pin::Pin<&mut Self>, _: Message) -> Result<(), Infallible> {
            unreachable!("never ready")
        }
        fn poll_flush(
            self: std::pin::Pin<&mut Self>,
            _: &mut std::task::Context<'_>,
        ) -> std::task::Poll<Result<(), Infallible>> {
            std::task::Poll::Pending
        }
        fn poll_close(
            self: std::pin::Pin<&mut Self>,
            _: &mut std::task::Context<'_>,
        ) -> std::task::Poll<Result<(), Infallible>> {
            std::task::Poll::Pending
        }
    }

    /// A client that sends a flood of requests and never reads: the connection stops reading once one reply
    /// cannot be written (so nothing piles up on the server), gives up after the write timeout and ends, and
    /// gives back its place under the connection limits. Paused time: the timeout passes without waiting.
    #[tokio::test]
    async fn a_client_that_never_reads_is_dropped_without_reading_more() {
        let (shared, _stop) = shared_with(|l| l.write_timeout = Duration::from_secs(10)).await;
        tokio::time::pause();
        let read = Arc::new(AtomicU64::new(0));
        let counter = read.clone();
        let hello = json!({"id": 0, "type": "hello", "protocol": protocol::PROTOCOL_VERSION}).to_string();
        let frames = std::iter::once(hello)
            .chain((1..10_000).map(|i| json!({"id": i, "type": "ping"}).to_string()))
            .map(|t| Ok::<_, Infallible>(Message::Text(t.into())));
        let stream = futures_util::stream::iter(frames).inspect(move |_| {
            counter.fetch_add(1, Relaxed);
        });
        let admission = shared.admit(None).unwrap();
        tokio::time::timeout(
            Duration::from_secs(60),
            serve(Stuck, stream, shared.clone(), admission),
        )
        .await
        .expect("the connection ends by itself");
        assert_eq!(read.load(Relaxed), 1, "nothing is read while a reply waits");
        assert_eq!(shared.usage.lock().unwrap().connections, 0);
    }

    /// A connection served by `serve` over in-memory channels: what the client sends, what it receives, the
    /// connection's task.
    fn open(
        shared: &Arc<Shared>,
    ) -> (
        channel::UnboundedSender<Result<Message, Infallible>>,
        channel::UnboundedReceiver<Message>,
        tokio::task::JoinHandle<()>,
    ) {
        let (to_server, from_client) = channel::unbounded::<Result<Message, Infallible>>();
        let (to_client, from_server) = channel::unbounded::<Message>();
        let task = tokio::spawn(serve(
            to_client,
            from_client,
            shared.clone(),
            shared.admit(None).unwrap(),
        ));
        (to_server, from_server, task)
    }

    /// Silence before `hello` ends the connection with `handshake_timeout`; after it, with `idle_timeout`; a
    /// `ping` keeps it open.
    #[tokio::test]
    async fn quiet_connections_are_told_why_and_closed() {
        let (shared, _stop) = shared_with(|l| {
            l.handshake_timeout = Duration::from_secs(5);
            l.idle_timeout = Duration::from_secs(30);
        })
        .await;
        tokio::time::pause();
        // No hello.
        let (_to_server, mut from_server, task) = open(&shared);
        let closing = next(&mut from_server).await;
        assert_eq!(
            (closing["type"].as_str(), closing["code"].as_str()),
            (Some("closing"), Some("handshake_timeout"))
        );
        task.await.unwrap();

        // Hello, then pings for longer than the idle timeout, then silence.
        let (to_server, mut from_server, task) = open(&shared);
        let send = |v: Value| {
            to_server
                .unbounded_send(Ok(Message::Text(v.to_string().into())))
                .unwrap()
        };
        send(json!({"id": 1, "type": "hello", "protocol": protocol::PROTOCOL_VERSION}));
        assert_eq!(next(&mut from_server).await["type"], "welcome");
        for i in 0..5 {
            tokio::time::sleep(Duration::from_secs(20)).await;
            send(json!({"id": 2 + i, "type": "ping"}));
            assert_eq!(
                next(&mut from_server).await["type"],
                "pong",
                "still open after {} s",
                20 * (i + 1)
            );
        }
        let closing = next(&mut from_server).await;
        assert_eq!(
            (closing["type"].as_str(), closing["code"].as_str()),
            (Some("closing"), Some("idle_timeout"))
        );
        task.await.unwrap();
        assert_eq!(shared.usage.lock().unwrap().connections, 0);
    }

    /// An idle timeout shorter than the handshake's closes a quiet greeted connection on time, not when the
    /// handshake's deadline would have passed.
    #[tokio::test]
    async fn a_short_idle_timeout_is_kept_after_a_long_handshake_timeout() {
        let (shared, _stop) = shared_with(|l| {
            l.handshake_timeout = Duration::from_secs(60);
            l.idle_timeout = Duration::from_secs(5);
        })
        .await;
        tokio::time::pause();
        let (to_server, mut from_server, task) = open(&shared);
        let hello = json!({"id": 1, "type": "hello", "protocol": protocol::PROTOCOL_VERSION});
        to_server
            .unbounded_send(Ok(Message::Text(hello.to_string().into())))
            .unwrap();
        assert_eq!(next(&mut from_server).await["type"], "welcome");
        let greeted = Instant::now();
        let closing = next(&mut from_server).await;
        assert_eq!(closing["code"], "idle_timeout");
        // Paused time jumps to each timer, so this is the deadline the connection kept (to the timer's
        // millisecond), not a measured duration: 60 s if the handshake's deadline were kept.
        let quiet_for = Instant::now() - greeted;
        assert!(
            (Duration::from_secs(5)..Duration::from_secs(6)).contains(&quiet_for),
            "closed after {quiet_for:?}"
        );
        drop(to_server);
        task.await.unwrap();
    }

    /// Per-address and total connection limits, and the lobby allowance per address.
    #[tokio::test]
    async fn connection_and_lobby_limits_count_per_address() {
        let (shared, _stop) = shared_with(|l| {
            l.max_connections = 3;
            l.max_connections_per_ip = 2;
            l.max_lobbies_per_ip = 1;
        })
        .await;
        let a: IpAddr = "192.0.2.1".parse().unwrap();
        let b: IpAddr = "192.0.2.2".parse().unwrap();
        let a1 = shared.admit(Some(a)).unwrap();
        let _a2 = shared.admit(Some(a)).unwrap();
        assert_eq!(
            shared.admit(Some(a)).unwrap_err().code,
            ErrorCode::TooManyConnections
        );
        let _b1 = shared.admit(Some(b)).unwrap();
        assert_eq!(
            shared.admit(Some(b)).unwrap_err().code,
            ErrorCode::TooManyConnections,
            "in total"
        );
        drop(a1);
        let _a3 = shared.admit(Some(a)).unwrap();
        shared.take_lobby_slot(Some(a)).await.unwrap();
        assert_eq!(
            shared.take_lobby_slot(Some(a)).await.unwrap_err().code,
            ErrorCode::CreateLimited
        );
        // A place given back (its lobby was not made) is free again.
        let slot = shared.take_lobby_slot(Some(b)).await.unwrap();
        shared.give_back_lobby_slot(slot).await;
        shared.take_lobby_slot(Some(b)).await.unwrap();
        assert_eq!(
            shared.take_lobby_slot(Some(b)).await.unwrap_err().code,
            ErrorCode::CreateLimited
        );
    }

    /// A relayed connection takes a place under the total cap only: the relaying node counted it under its
    /// address's cap. Its end gives no place of its address back.
    #[tokio::test]
    async fn a_relayed_connection_takes_no_place_under_its_address_cap() {
        let (shared, _stop) = shared_with(|l| {
            l.max_connections = 3;
            l.max_connections_per_ip = 1;
        })
        .await;
        let a: IpAddr = "192.0.2.1".parse().unwrap();
        let b: IpAddr = "192.0.2.2".parse().unwrap();
        let _direct = shared.admit(Some(a)).unwrap();
        let relayed = shared.admit_relayed(Some(a)).unwrap();
        assert_eq!(
            relayed.ip,
            Some(a),
            "its address is kept (for the lobby allowance)"
        );
        let _relayed_too = shared.admit_relayed(Some(a)).unwrap();
        assert_eq!(
            shared.admit(Some(b)).unwrap_err().code,
            ErrorCode::TooManyConnections,
            "in total"
        );
        drop(relayed);
        assert_eq!(
            shared.admit(Some(a)).unwrap_err().code,
            ErrorCode::TooManyConnections,
            "the direct connection still holds the address's place"
        );
        shared.admit(Some(b)).unwrap();
    }

    /// IPv6 addresses of one /64 share one allowance (connections and lobbies); an IPv4-mapped address counts
    /// as its IPv4 address.
    #[tokio::test]
    async fn ipv6_addresses_of_one_64_share_the_per_address_limits() {
        let (shared, _stop) = shared_with(|l| {
            l.max_connections = 10;
            l.max_connections_per_ip = 2;
            l.max_lobbies_per_ip = 1;
        })
        .await;
        let ip = |text: &str| Some(text.parse::<IpAddr>().unwrap());
        let first = shared.admit(ip("2001:db8:0:1::1")).unwrap();
        let _second = shared.admit(ip("2001:db8:0:1:ffff::2")).unwrap();
        assert_eq!(
            shared
                .admit(ip("2001:db8:0:1:1234:5678:9abc:def0"))
                .unwrap_err()
                .code,
            ErrorCode::TooManyConnections,
            "a third address of the same /64"
        );
        let _other = shared.admit(ip("2001:db8:0:2::1")).unwrap();
        // The lobby allowance counts under the admission's address: the /64's key.
        assert_eq!(first.ip, ip("2001:db8:0:1::"));
        shared.take_lobby_slot(first.ip).await.unwrap();
        assert_eq!(
            shared
                .take_lobby_slot(ip("2001:db8:0:1::9").map(crate::proxy::limit_key))
                .await
                .unwrap_err()
                .code,
            ErrorCode::CreateLimited
        );
        // IPv4 through an IPv6 socket is the IPv4 address.
        let _v4 = shared.admit(ip("192.0.2.1")).unwrap();
        let _v4_mapped = shared.admit(ip("::ffff:192.0.2.1")).unwrap();
        assert_eq!(
            shared.admit(ip("192.0.2.1")).unwrap_err().code,
            ErrorCode::TooManyConnections
        );
    }
}
