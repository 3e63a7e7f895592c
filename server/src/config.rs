//! Every setting is a command-line flag with an environment variable; `server --help` lists them all.

use std::{net::SocketAddr, path::PathBuf, time::Duration};

use clap::Parser;

use crate::{
    admin::AdminToken,
    cluster::{
        ClusterError,
        forward::{ClusterSecret, ForwardSettings},
    },
    connection::ConnectionLimits,
    guesses::GuessLimits,
    proxy::TrustedProxies,
    table::{FriendsSettings, TableSettings},
};

/// The authoritative tabletop game server: lobbies and matches over WebSocket at /ws, every accepted action
/// stored in SQLite (default) or PostgreSQL before anyone hears of it.
#[derive(Clone, Debug, Parser)]
#[command(name = "server", version)]
pub struct Config {
    /// Address and port to listen on (port 0 picks a free port).
    #[arg(long, env = "BIND", default_value = "127.0.0.1:8080")]
    pub bind: SocketAddr,

    /// Database: `sqlite://PATH` (created on first start, with its folder) or `postgres://USER@HOST/DB`.
    #[arg(
        long,
        env = "DATABASE_URL",
        hide_env_values = true,
        default_value = "sqlite://data/tabletop.db"
    )]
    pub database_url: String,

    /// Most WebSocket connections served at once; one more is refused before the upgrade with HTTP 503, a
    /// `Retry-After` and the JSON error `too_many_connections`.
    #[arg(long, env = "MAX_CONNECTIONS", default_value_t = 1024)]
    pub max_connections: usize,

    /// Most WebSocket connections served at once from one IP address (an IPv6 address counts as its /64); one
    /// more is refused like one over `--max-connections` (HTTP 503, `too_many_connections`).
    #[arg(long, env = "MAX_CONNECTIONS_PER_IP", default_value_t = 64)]
    pub max_connections_per_ip: usize,

    /// Seconds a connection has to send a complete HTTP request head (after connecting, or between requests on a
    /// kept-alive connection); a silent or trickling one is closed.
    #[arg(long, env = "HEADER_TIMEOUT_SECS", default_value_t = 5)]
    pub header_timeout_secs: u64,

    /// Most TCP connections held at once before they become WebSockets (at most half the open-file limit). Past
    /// it, the oldest one with no request in progress is closed to make room; when all are busy, the new one is
    /// answered 503.
    #[arg(long, env = "MAX_HTTP_CONNECTIONS", default_value_t = 1024)]
    pub max_http_connections: usize,

    /// Serve `/metrics` on this address (e.g. `127.0.0.1:9090`) instead of the public one. Unset, `/metrics` is
    /// on `--bind`, and a warning is logged at start when that address is not a loopback one.
    #[arg(long, env = "METRICS_BIND")]
    pub metrics_bind: Option<SocketAddr>,

    /// Reverse proxies (load balancers) whose `X-Forwarded-For` header is believed: a comma-separated list of
    /// addresses and networks, e.g. `127.0.0.1,10.0.0.0/8`; empty (the default) for none. A connection from one
    /// of them counts, for the per-address limits, as coming from the header's last address that is not itself
    /// a trusted proxy; any other connection as its TCP peer (what it sends in the header is ignored).
    #[arg(long, env = "TRUSTED_PROXIES", default_value = "", value_parser = TrustedProxies::parse)]
    pub trusted_proxies: TrustedProxies,

    /// Most lobbies one IP address may create within `--lobby-window-secs` (each lobby holds at most one
    /// match); one more `create_lobby` is refused with `create_limited`.
    #[arg(long, env = "MAX_LOBBIES_PER_IP", default_value_t = 30)]
    pub max_lobbies_per_ip: usize,

    /// The window, in seconds, over which `--max-lobbies-per-ip` counts lobby creations.
    #[arg(long, env = "LOBBY_WINDOW_SECS", default_value_t = 600)]
    pub lobby_window_secs: u64,

    /// Failed look-ups of join codes (`unknown_lobby`, a wrong seat or watch token) one IP address may make at
    /// once; past them a look-up by code alone is refused with `rate_limited` until the allowance refills.
    #[arg(long, env = "CODE_GUESSES_PER_IP_BURST", default_value_t = 20.0)]
    pub code_guesses_per_ip_burst: f64,

    /// Failed look-ups of join codes one IP address gets back per minute.
    #[arg(long, env = "CODE_GUESSES_PER_IP_PER_MIN", default_value_t = 10.0)]
    pub code_guesses_per_ip_per_min: f64,

    /// Failed look-ups of join codes this server (node) allows at once, from all addresses together.
    #[arg(long, env = "CODE_GUESSES_BURST", default_value_t = 100.0)]
    pub code_guesses_burst: f64,

    /// Failed look-ups of join codes per second this server (node) allows from all addresses together: what
    /// bounds guessing (docs/reliability.md has the arithmetic).
    #[arg(long, env = "CODE_GUESSES_PER_SEC", default_value_t = 10.0)]
    pub code_guesses_per_sec: f64,

    /// Seconds a connection may stay silent (not even a `ping`) before it is told `idle_timeout` and closed.
    #[arg(long, env = "IDLE_TIMEOUT_SECS", default_value_t = 300)]
    pub idle_timeout_secs: u64,

    /// Seconds a new connection has to complete `hello` before it is told `handshake_timeout` and closed.
    #[arg(long, env = "HANDSHAKE_TIMEOUT_SECS", default_value_t = 10)]
    pub handshake_timeout_secs: u64,

    /// Seconds the server waits for a client's socket to take one outgoing message; a client that does not
    /// read for this long is disconnected.
    #[arg(long, env = "WRITE_TIMEOUT_SECS", default_value_t = 10)]
    pub write_timeout_secs: u64,

    /// Milliseconds to wait for a database connection before a request is answered `store_unavailable`
    /// (PostgreSQL pool acquire timeout; `--store-timeout-ms` bounds it too).
    #[arg(long, env = "DB_ACQUIRE_TIMEOUT_MS", default_value_t = 1000)]
    pub db_acquire_timeout_ms: u64,

    /// Milliseconds any one call to the database may take, connection included; a request that needs the
    /// database is answered `store_unavailable` when it takes longer (an action whose write timed out is
    /// found again from the database before the next one). After such a failure, calls fail at once for this
    /// long before the database is tried again. Keep it well above the slowest healthy group commit.
    #[arg(long, env = "STORE_TIMEOUT_MS", default_value_t = 1500, value_parser = clap::value_parser!(u64).range(100..))]
    pub store_timeout_ms: u64,

    /// Largest client message (and WebSocket frame), in bytes. A larger frame is refused from its header, without
    /// being read: the connection is told `closing` with `too_large` and closed (close status 1009).
    #[arg(long, env = "MAX_MESSAGE_BYTES", default_value_t = 16 * 1024)]
    pub max_message_bytes: usize,

    /// Sustained client frames per second per connection (requests, binary frames, pings, pongs); an excess
    /// request is refused with `rate_limited`, an excess ping or pong makes the server stop reading the connection
    /// until the rate allows the next frame.
    #[arg(long, env = "RATE_LIMIT_PER_SEC", default_value_t = 20.0)]
    pub rate_limit_per_sec: f64,

    /// Client frames a connection may send in one burst.
    #[arg(long, env = "RATE_LIMIT_BURST", default_value_t = 40.0)]
    pub rate_limit_burst: f64,

    /// Milliseconds a server-side bot waits after the last change before it acts.
    #[arg(long, env = "BOT_DELAY_MS", default_value_t = 800)]
    pub bot_delay_ms: u64,

    /// Store a full snapshot of a match every this many actions (recovery replays at most this many).
    #[arg(long, env = "SNAPSHOT_EVERY", default_value_t = 50)]
    pub snapshot_every: u64,

    /// Messages queued for one client before it counts as too slow and is disconnected.
    #[arg(long, env = "OUTBOX_SIZE", default_value_t = 256)]
    pub outbox_size: usize,

    /// Bytes of outgoing frames one connection may hold for a client that does not read them (half in the
    /// WebSocket write buffer, pongs included, half waiting to be written); past it the client is told `closing`
    /// with `overloaded` and closed. The default holds the largest state push (about 11 KB: Hickory Dickory at 4
    /// seats) over 20 times.
    #[arg(long, env = "MAX_OUTBOX_BYTES", default_value_t = 256 * 1024)]
    pub max_outbox_bytes: usize,

    /// Turns on the admin API under /api/admin/: requests must carry this token as `Authorization: Bearer
    /// TOKEN`. It must carry at least 128 random bits: 32+ hex digits, 22+ base64/base64url characters (or 39+
    /// decimal digits, 20+ other printable ASCII characters); `openssl rand -hex 16` makes one. Prefer the
    /// environment variable: flags show in process lists.
    #[arg(long, env = "ADMIN_TOKEN", hide_env_values = true, value_parser = AdminToken::parse)]
    pub admin_token: Option<AdminToken>,

    /// Chat messages one writer (a seat, or a spectator's connection) may send per second, sustained; excess
    /// ones are refused with `rate_limited`.
    #[arg(long, env = "CHAT_RATE_PER_SEC", default_value_t = 0.5)]
    pub chat_rate_per_sec: f64,

    /// Chat messages one writer may send in one burst.
    #[arg(long, env = "CHAT_BURST", default_value_t = 5.0)]
    pub chat_burst: f64,

    /// A connected player who sends nothing for this many milliseconds (or whose page is hidden) shows as
    /// `idle`.
    #[arg(long, env = "IDLE_AFTER_MS", default_value_t = 60_000)]
    pub idle_after_ms: u64,

    /// A finished match's table leaves memory once nobody has been connected to it for this many seconds; it is
    /// loaded again from the database when someone asks for it (results, spectating, the admin API).
    #[arg(long, env = "UNLOAD_FINISHED_AFTER_SECS", default_value_t = 30)]
    pub unload_finished_after_secs: u64,

    /// An open lobby or a playing match leaves memory once nobody (no seat, no spectator) has been connected to it
    /// for this many seconds and it has nothing to do by itself before that long again (a bot's move, a turn
    /// timer, a stand-in, an engine deadline); it stays in the database, is loaded again when a seat returns or
    /// someone asks for it, and is loaded by itself when its next wake-up is due.
    #[arg(long, env = "IDLE_UNLOAD_SECS", default_value_t = 300)]
    pub idle_unload_secs: u64,

    /// A single node records that it is serving every this many milliseconds (and when it stops): the time between
    /// its last record and the next start is given back to every table's clocks (docs/reliability.md, "When the
    /// server was down"). A crash loses at most this much served time, which is given back too.
    #[arg(long, env = "HEARTBEAT_MS", default_value_t = 5_000, value_parser = clap::value_parser!(u64).range(100..=60_000))]
    pub heartbeat_ms: u64,

    /// A playing match nobody has been connected to for this many seconds (28 days by default) ends as
    /// abandoned: over without a result, its final state still viewable.
    #[arg(long, env = "ABANDON_AFTER_SECS", default_value_t = 28 * 24 * 60 * 60)]
    pub abandon_after_secs: u64,

    /// How many days a month (calendar months, UTC) each player of a correspondence match may pause their own
    /// clock with `vacation`.
    #[arg(long, env = "VACATION_DAYS_PER_MONTH", default_value_t = 7)]
    pub vacation_days_per_month: u32,

    /// Tests and documentation runs only (no flag, no environment variable): every match's seed is this one
    /// instead of a fresh random one, and the bots' choices follow from it, so that a scripted run deals the same
    /// cards and its bots play the same moves every time.
    #[arg(skip)]
    pub match_seed: Option<u64>,

    /// Cluster mode (issue 27): several server nodes share one PostgreSQL database, each table owned by one node
    /// under a lease with a fencing epoch (ARCHITECTURE.md, "Cluster mode"). Needs a `postgres://` database URL;
    /// refused at start with SQLite.
    #[arg(long, env = "CLUSTER", default_value_t = false)]
    pub cluster: bool,

    /// Notifications (issue 47): webhook and push endpoints may resolve to loopback, private, link-local or
    /// multicast addresses (`1`: for tests and closed networks only; off by default).
    #[arg(long, env = "NOTIFY_ALLOW_PRIVATE", default_value_t = false, action = clap::ArgAction::Set,
          value_parser = clap::builder::BoolishValueParser::new())]
    pub notify_allow_private: bool,

    /// Notifications: run the worker that sends the outbox on this node (`0`: this node only writes the outbox;
    /// another node, or this one restarted with it on, sends).
    #[arg(long, env = "NOTIFY_WORKER", default_value_t = true, action = clap::ArgAction::Set,
          value_parser = clap::builder::BoolishValueParser::new())]
    pub notify_worker: bool,

    /// Notifications: the web client's public address, for the link to a table (`https://play.example.org`);
    /// unset: `http://` and the listening address.
    #[arg(long, env = "PUBLIC_URL")]
    pub public_url: Option<String>,

    /// Notifications: the first retry of a failed delivery waits this long (ms); each next one twice as long, up
    /// to `NOTIFY_RETRY_MAX_MS`.
    #[arg(long, env = "NOTIFY_RETRY_BASE_MS", default_value_t = 2_000)]
    pub notify_retry_base_ms: u64,

    /// Notifications: the longest wait between two tries of a delivery (ms).
    #[arg(long, env = "NOTIFY_RETRY_MAX_MS", default_value_t = 600_000)]
    pub notify_retry_max_ms: u64,

    /// Notifications: an endpoint that fails this many deliveries in a row is switched off for its seat.
    #[arg(long, env = "NOTIFY_SWITCH_OFF_AFTER", default_value_t = 5)]
    pub notify_switch_off_after: u32,

    /// Notifications: deliveries to one endpoint within `NOTIFY_RATE_WINDOW_MS`, for the whole cluster; more wait.
    #[arg(long, env = "NOTIFY_PER_ENDPOINT", default_value_t = 10)]
    pub notify_per_endpoint: usize,

    /// Notifications: deliveries to one seat (all its endpoints) within `NOTIFY_RATE_WINDOW_MS`; more wait.
    #[arg(long, env = "NOTIFY_PER_SEAT", default_value_t = 20)]
    pub notify_per_seat: usize,

    /// Notifications: the window of the rate limits (ms).
    #[arg(long, env = "NOTIFY_RATE_WINDOW_MS", default_value_t = 60_000)]
    pub notify_rate_window_ms: u64,

    /// This node's id in cluster mode (1-64 characters of [A-Za-z0-9._-]); a random `node-XXXXXXXX` when unset. A
    /// second live node with the same id is refused at start.
    #[arg(long, env = "NODE_ID")]
    pub node_id: Option<String>,

    /// Cluster mode: a table lease's length in milliseconds (renewed every third of it, at least once a second). A node that stops
    /// renewing loses its tables this long after its last renewal; another node then takes them over.
    #[arg(long, env = "LEASE_MS", default_value_t = 5000)]
    pub lease_ms: u64,

    /// Cluster mode: the NATS server that carries node-to-node forwarding (a client may connect to any node; a node
    /// relays it to the node that owns its table). Unused on a single node. A user and password go in the URL
    /// (`nats://tabletop:PASSWORD@nats:4222`; never logged). Where NATS is reached over a network other hosts share,
    /// use `tls://HOST:PORT`: the node then speaks only TLS to it and checks its certificate (see --nats-ca-file).
    #[arg(
        long,
        env = "NATS_URL",
        hide_env_values = true,
        default_value = "nats://127.0.0.1:4222"
    )]
    pub nats_url: String,

    /// Cluster mode: a PEM file of the CA certificates that signed the NATS server's certificate (a private CA).
    /// When set, the node speaks only TLS to NATS, whatever the URL's scheme, and trusts these CAs instead of the
    /// system's; a node whose file cannot be read, or holds no certificate, refuses to start. Unset, a `tls://`
    /// URL is checked against the system's CAs.
    #[arg(long, env = "NATS_CA_FILE", value_parser = ca_file)]
    pub nats_ca_file: Option<PathBuf>,

    /// Cluster mode (required there): the secret that signs every node-to-node message (at least 32 characters,
    /// the same on every node; `openssl rand -hex 16` makes one). Never logged; prefer the environment variable
    /// (flags show in process lists).
    #[arg(long, env = "CLUSTER_SECRET", hide_env_values = true, value_parser = ClusterSecret::parse)]
    pub cluster_secret: Option<ClusterSecret>,

    /// Web Push: the server's VAPID private key, base64url of the raw P-256 scalar, given with
    /// `--vapid-public-key` (as `npx web-push generate-vapid-keys` prints them). Unset (both), a key pair is
    /// generated by the first start and kept in the database, so every node and restart uses the same.
    #[arg(long, env = "VAPID_PRIVATE_KEY", hide_env_values = true, value_parser = Redacted::parse)]
    pub vapid_private_key: Option<Redacted>,

    /// Web Push: the VAPID public key (base64url, 65 bytes) that goes with `--vapid-private-key`.
    #[arg(long, env = "VAPID_PUBLIC_KEY")]
    pub vapid_public_key: Option<String>,

    /// Web Push: the operator's contact given to push services, `mailto:` or `https:` (the VAPID token's `sub`).
    #[arg(long, env = "VAPID_SUBJECT")]
    pub vapid_subject: Option<String>,

    /// Email notifications: the SMTP relay, `smtp://host:port` (add `?tls=required` for STARTTLS) or
    /// `smtps://user:password@host:465`. Unset, no email is offered. Never logged.
    #[arg(long, env = "SMTP_URL", hide_env_values = true, value_parser = Redacted::parse)]
    pub smtp_url: Option<Redacted>,

    /// Email notifications: the sender, `Name <games@example.org>` or `games@example.org`.
    #[arg(long, env = "SMTP_FROM")]
    pub smtp_from: Option<String>,

    /// Log filter, e.g. `info` or `info,server=debug,sqlx=warn`.
    #[arg(long, env = "RUST_LOG", default_value = "info,sqlx=warn")]
    pub log: String,
}

/// A setting that is a secret (a private key, a URL with a password): its `Debug` does not show it.
#[derive(Clone)]
pub struct Redacted(pub String);

impl Redacted {
    fn parse(text: &str) -> Result<Redacted, String> {
        Ok(Redacted(text.trim().to_owned()))
    }
}

impl std::fmt::Debug for Redacted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("<redacted>")
    }
}

/// `--nats-ca-file`: a file that can be read and holds at least one PEM certificate, checked at start (async-nats
/// reads it only when it connects, in the background, where a bad file would only be logged, again and again).
fn ca_file(path: &str) -> Result<PathBuf, String> {
    use rustls_pki_types::{CertificateDer, pem::PemObject};
    let certificates = CertificateDer::pem_file_iter(path)
        .and_then(|certs| certs.collect::<Result<Vec<_>, _>>())
        .map_err(|e| match e {
            rustls_pki_types::pem::Error::Io(e) => format!("cannot read it: {e}"),
            e => format!("it is not a PEM file of certificates: {e}"),
        })?;
    if certificates.is_empty() {
        return Err("it holds no PEM certificate (-----BEGIN CERTIFICATE-----)".to_string());
    }
    Ok(PathBuf::from(path))
}

/// The settings whose values are secrets: a refusal of one says why without repeating the value.
const SECRET_SETTINGS: [&str; 2] = ["--admin-token", "--cluster-secret"];

impl Config {
    /// The process's configuration from its flags and environment, or the error that stops it (exit status 2, as
    /// clap's own). clap's message for a refused value repeats the value; for a secret setting the message is
    /// made here instead, without it.
    pub fn from_args() -> Config {
        use clap::error::{ContextKind, ContextValue, ErrorKind};
        let e = match Config::try_parse() {
            Ok(config) => return config,
            Err(e) => e,
        };
        let arg = match e.get(ContextKind::InvalidArg) {
            Some(ContextValue::String(arg)) => arg.clone(),
            _ => String::new(),
        };
        let secret = SECRET_SETTINGS
            .iter()
            .any(|name| arg.split(' ').next() == Some(*name));
        if !secret || e.kind() != ErrorKind::ValueValidation {
            e.exit();
        }
        let why = std::error::Error::source(&e).map_or_else(String::new, |why| format!(": {why}"));
        eprintln!("error: invalid value for '{arg}' (not shown: it is a secret){why}");
        std::process::exit(2);
    }

    /// The configuration of a server started without flags (environment variables still apply), for tests.
    pub fn defaults() -> Config {
        Config::parse_from(["server"])
    }

    pub fn limits(&self) -> ConnectionLimits {
        ConnectionLimits {
            max_message_bytes: self.max_message_bytes,
            rate_per_sec: self.rate_limit_per_sec,
            rate_burst: self.rate_limit_burst,
            outbox: self.outbox_size.max(8),
            max_outbox_bytes: self.max_outbox_bytes,
            max_connections: self.max_connections,
            max_connections_per_ip: self.max_connections_per_ip,
            max_lobbies_per_ip: self.max_lobbies_per_ip,
            lobby_window: Duration::from_secs(self.lobby_window_secs),
            idle_timeout: Duration::from_secs(self.idle_timeout_secs),
            handshake_timeout: Duration::from_secs(self.handshake_timeout_secs),
            write_timeout: Duration::from_secs(self.write_timeout_secs.max(1)),
            notify_allow_private: self.notify_allow_private,
            guesses: GuessLimits {
                per_ip_burst: self.code_guesses_per_ip_burst.max(1.0),
                per_ip_per_min: self.code_guesses_per_ip_per_min,
                total_burst: self.code_guesses_burst.max(1.0),
                total_per_sec: self.code_guesses_per_sec,
            },
        }
    }

    /// The notification worker's settings (`notify/worker.rs`); `addr` is where this server listens (the links'
    /// address without `PUBLIC_URL`).
    pub fn notify_settings_at(&self, addr: SocketAddr) -> crate::notify::worker::WorkerSettings {
        crate::notify::worker::WorkerSettings {
            public_url: self
                .public_url
                .clone()
                .unwrap_or_else(|| format!("http://{addr}")),
            retry_base_ms: self.notify_retry_base_ms.max(1),
            retry_max_ms: self.notify_retry_max_ms.max(1),
            switch_off_after: self.notify_switch_off_after.max(1),
            limits: crate::store::RateLimits {
                per_endpoint: self.notify_per_endpoint.max(1),
                per_seat: self.notify_per_seat.max(1),
                window_ms: self.notify_rate_window_ms.max(1),
            },
            poll: Duration::from_millis(200),
        }
    }

    /// The cluster settings, when cluster mode is on.
    pub fn cluster_settings(&self) -> Option<crate::cluster::ClusterSettings> {
        self.cluster.then(|| crate::cluster::ClusterSettings {
            node_id: self
                .node_id
                .clone()
                .unwrap_or_else(crate::cluster::random_node_id),
            lease: Duration::from_millis(self.lease_ms.max(300)),
        })
    }

    /// The forwarding settings of cluster mode; refused without a cluster secret (a node that cannot forward
    /// cannot serve every client).
    pub fn forward_settings(&self) -> Result<ForwardSettings, ClusterError> {
        let secret = self.cluster_secret.clone().ok_or(ClusterError::NoSecret)?;
        Ok(ForwardSettings {
            nats_url: self.nats_url.clone(),
            nats_ca_file: self.nats_ca_file.clone(),
            secret,
            // At least three heartbeats (one a second), however short the lease.
            dead_after: Duration::from_millis(self.lease_ms.max(3000)),
        })
    }

    /// The email relay of `--smtp-url` and `--smtp-from` (`None` without a relay).
    pub fn mailer(&self) -> Result<Option<crate::notify::email::Mailer>, crate::notify::email::MailerError> {
        let Some(url) = &self.smtp_url else {
            return Ok(None);
        };
        let from = self.smtp_from.as_deref().unwrap_or_default();
        crate::notify::email::Mailer::new(&url.0, from).map(Some)
    }

    pub fn table_settings(&self) -> TableSettings {
        TableSettings {
            bot_delay_ms: self.bot_delay_ms,
            snapshot_every: self.snapshot_every,
            history: 256,
            unload_finished_after_ms: self.unload_finished_after_secs.saturating_mul(1000),
            idle_unload_ms: self.idle_unload_secs.saturating_mul(1000),
            abandon_after_ms: self.abandon_after_secs.saturating_mul(1000),
            match_seed: self.match_seed,
            vacation_days_per_month: self.vacation_days_per_month,
            friends: FriendsSettings {
                chat_rate_per_sec: self.chat_rate_per_sec,
                chat_burst: self.chat_burst,
                idle_after_ms: self.idle_after_ms,
            },
        }
    }
}
