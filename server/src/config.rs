//! Every setting is a command-line flag with an environment variable; `server --help` lists them all.

use std::net::SocketAddr;

use clap::Parser;

use crate::{
    admin::AdminToken,
    connection::ConnectionLimits,
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
    #[arg(long, env = "DATABASE_URL", default_value = "sqlite://data/tabletop.db")]
    pub database_url: String,

    /// Most WebSocket connections served at once; further upgrades get HTTP 503.
    #[arg(long, env = "MAX_CONNECTIONS", default_value_t = 1024)]
    pub max_connections: usize,

    /// Largest client message, in bytes; a larger one is refused with `too_large`.
    #[arg(long, env = "MAX_MESSAGE_BYTES", default_value_t = 16 * 1024)]
    pub max_message_bytes: usize,

    /// Sustained client messages per second per connection; excess ones are refused with `rate_limited`.
    #[arg(long, env = "RATE_LIMIT_PER_SEC", default_value_t = 20.0)]
    pub rate_limit_per_sec: f64,

    /// Client messages a connection may send in one burst.
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

    /// Turns on the admin API under /api/admin/: requests must carry this token as `Authorization: Bearer
    /// TOKEN` (at least 16 characters). Prefer the environment variable: flags show in process lists.
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

    /// Log filter, e.g. `info` or `info,server=debug,sqlx=warn`.
    #[arg(long, env = "RUST_LOG", default_value = "info,sqlx=warn")]
    pub log: String,
}

impl Config {
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
        }
    }

    pub fn table_settings(&self) -> TableSettings {
        TableSettings {
            bot_delay_ms: self.bot_delay_ms,
            snapshot_every: self.snapshot_every,
            history: 256,
            friends: FriendsSettings {
                chat_rate_per_sec: self.chat_rate_per_sec,
                chat_burst: self.chat_burst,
                idle_after_ms: self.idle_after_ms,
            },
        }
    }
}
