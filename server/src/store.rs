//! Durable storage: lobbies, seats, matches, the append-only action log, snapshots and results, in SQLite (the
//! default, a file under `./data`) or PostgreSQL.
//!
//! Two typed sqlx backends behind one type of ours ([`Store`]) rather than sqlx's `Any` driver: every query is
//! written once (`$1` placeholders and a common SQL subset work on both) and expanded for each typed pool by the
//! `on_pool!` macro, so each backend gets sqlx's own type checking and its native types, and the migrations
//! for each backend (`migrations/sqlite`, `migrations/postgres`) can use that backend's column types.
//!
//! Architecture invariant: SQL takes values through bound parameters only; no SQL text is ever built from data.
//!
//! Each row shape the store inserts (a lobby, a seat, a match, an action, a snapshot, a result) is defined once in
//! `rows`, as its table and columns; its single-row INSERT and its parts of the group commit's statements are
//! generated from that definition.
//!
//! Layout: `records` (the rows as Rust values), `rows` (the row shapes and their generated INSERTs), `batches`
//! (the group commit's writes), `queries` (reads and single writes), `admin` and `friends` (the admin API's and
//! the lobby chat's queries), `inbox` (a player's list of tables), `allowance` (cluster mode's count of lobby
//! creations per address), `clocks` (correspondence clocks, vacations, timed-out matches), `downtime` (the heartbeat
//! and the tables' outages), `notify` (endpoints and the outbox), `channels` (the VAPID key, unsubscribe tokens).

use std::{
    future::Future,
    path::Path,
    str::FromStr,
    sync::{
        Arc,
        atomic::{AtomicU64, Ordering::Relaxed},
    },
    time::{Duration, Instant},
};

use sqlx::{
    PgPool, SqlitePool,
    postgres::PgPoolOptions,
    sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous},
};

/// A database error, with the one case callers act on told apart.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// A primary key or unique constraint refused the write (a second writer of the same row).
    #[error("conflict: the row already exists")]
    Conflict,
    #[error("database: {0}")]
    Database(#[from] sqlx::Error),
    #[error("stored data is corrupt: {0}")]
    Corrupt(String),
    #[error("migration: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    /// The database could not be reached for a write that shared its transaction with this one, or it could
    /// not be reached moments ago and was not tried again yet (see `Store::guarded`).
    #[error("database unreachable: {0}")]
    Unavailable(String),
    /// The database did not answer within the store's deadline. A write's outcome is unknown: it may have
    /// committed (the table reloads before it acts again, as after a lost answer).
    #[error("the database did not answer within {} ms", .0.as_millis())]
    TimedOut(Duration),
    /// Cluster mode: the database refused a write for a table whose lease this node does not hold (any more):
    /// another node owns the table now (the fence of `migrations/postgres/0008_cluster.sql`, SQLSTATE TL001).
    #[error("fenced: this node does not hold the table's lease")]
    Fenced,
}

impl StoreError {
    /// Whether the cluster's fence refused the write ([`StoreError::Fenced`], or the same SQLSTATE from a path
    /// that did not classify its error).
    pub fn is_fenced(&self) -> bool {
        match self {
            StoreError::Fenced => true,
            StoreError::Database(sqlx::Error::Database(db)) => db.code().as_deref() == Some(FENCED_SQLSTATE),
            _ => false,
        }
    }

    /// Whether the database could not be reached (connection lost or refused, no connection within the acquire
    /// timeout, no answer within the store's deadline, server shutting down, SQLite busy or locked by another
    /// process): the request may succeed later, unchanged.
    pub fn is_unavailable(&self) -> bool {
        match self {
            StoreError::Database(e) => match e {
                sqlx::Error::Io(_)
                | sqlx::Error::Tls(_)
                | sqlx::Error::PoolTimedOut
                | sqlx::Error::PoolClosed
                | sqlx::Error::WorkerCrashed
                | sqlx::Error::Protocol(_) => true,
                sqlx::Error::Database(db) => {
                    let code = db.code();
                    if db.try_downcast_ref::<sqlx::sqlite::SqliteError>().is_some() {
                        // SQLITE_BUSY (5) and SQLITE_LOCKED (6), with their extended codes (the primary code is
                        // the low byte): another connection held the lock past the busy timeout.
                        code.and_then(|c| c.parse::<u32>().ok())
                            .is_some_and(|c| matches!(c & 0xff, 5 | 6))
                    } else {
                        // SQLSTATE class 08 (connection exception) and 57P (operator intervention: shutdown).
                        code.is_some_and(|c| c.starts_with("08") || c.starts_with("57P"))
                    }
                }
                _ => false,
            },
            StoreError::Unavailable(_) | StoreError::TimedOut(_) => true,
            _ => false,
        }
    }
}

/// Connection pool settings.
#[derive(Clone, Copy, Debug)]
pub struct PoolSettings {
    /// Longest wait for a connection before a query fails (PostgreSQL).
    pub acquire_timeout: Duration,
    /// Longest any call of the store may take, connection included (see `Store::guarded`).
    pub deadline: Duration,
}

/// The default of [`PoolSettings::deadline`] and of `STORE_TIMEOUT_MS`: a request that needs the database is
/// answered within about this long while it is down; a healthy one's slowest group commits take 50-250 ms
/// (docs/performance.md, "What bounds the figures").
pub const DEFAULT_DEADLINE: Duration = Duration::from_millis(1500);

/// The longest `/readyz` waits for the database's answer ([`Store::ready`]).
pub const READY_DEADLINE: Duration = Duration::from_millis(800);

impl Default for PoolSettings {
    fn default() -> Self {
        PoolSettings {
            acquire_timeout: Duration::from_secs(1),
            deadline: DEFAULT_DEADLINE,
        }
    }
}

/// The SQLSTATE the cluster's fence raises (`migrations/postgres/0008_cluster.sql`).
pub(crate) const FENCED_SQLSTATE: &str = "TL001";

pub(crate) fn classify(e: sqlx::Error) -> StoreError {
    match &e {
        sqlx::Error::Database(db) if db.is_unique_violation() => StoreError::Conflict,
        sqlx::Error::Database(db) if db.code().as_deref() == Some(FENCED_SQLSTATE) => StoreError::Fenced,
        _ => StoreError::Database(e),
    }
}

/// The database (SQLite or PostgreSQL), with the deadline every call of the store keeps.
#[derive(Clone, Debug)]
pub struct Store {
    db: Db,
    health: Arc<Health>,
}

/// A pool of either backend.
#[derive(Clone, Debug)]
pub enum Db {
    Sqlite(SqlitePool),
    Postgres(PgPool),
}

/// The store's deadline, and when a call last failed to reach the database.
#[derive(Debug)]
struct Health {
    deadline: Duration,
    start: Instant,
    /// When a call last failed because the database could not be reached, in milliseconds after `start` plus
    /// one; 0 once a call has succeeded since.
    down_at: AtomicU64,
}

impl Health {
    fn new(deadline: Duration) -> Health {
        Health {
            deadline,
            start: Instant::now(),
            down_at: AtomicU64::new(0),
        }
    }

    fn now(&self) -> u64 {
        self.start.elapsed().as_millis() as u64 + 1
    }

    fn down(&self) {
        self.down_at.store(self.now(), Relaxed);
    }

    fn up(&self) {
        if self.down_at.load(Relaxed) != 0 {
            self.down_at.store(0, Relaxed);
        }
    }

    /// How long ago a call failed to reach the database, if one did within the last deadline.
    fn recently_down(&self) -> Option<u64> {
        let at = self.down_at.load(Relaxed);
        let ago = self.now().saturating_sub(at);
        (at != 0 && u128::from(ago) < self.deadline.as_millis()).then_some(ago)
    }
}

/// Runs `$body` with `$pool` bound to the typed pool of whichever backend `$store` is, within the store's
/// deadline ([`Store::guarded`]). The body is compiled once per backend, so each gets sqlx's typed encoding and
/// decoding.
macro_rules! on_pool {
    ($store:expr, $pool:ident => $body:expr) => {{
        let store: &Store = $store;
        store
            .guarded(async move {
                match &store.db {
                    Db::Sqlite($pool) => $body,
                    Db::Postgres($pool) => $body,
                }
            })
            .await
    }};
}

/// The INSERT of an admin action's audit entry, for a pool or a transaction.
macro_rules! insert_audit {
    ($entry:expr) => {{
        let e: &$crate::store::AuditEntry = $entry;
        sqlx::query(
            "INSERT INTO admin_audit (at, admin, action, lobby_code, match_id, seat, reason, detail) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
        )
        .bind($crate::store::to_i64(e.at))
        .bind(&e.admin)
        .bind(&e.action)
        .bind(&e.lobby_code)
        .bind(&e.match_id)
        .bind(e.seat.map(i64::from))
        .bind(&e.reason)
        .bind(e.detail.to_string())
    }};
}

mod admin;
mod allowance;
mod batches;
mod channels;
mod clocks;
mod downtime;
mod ending;
mod friends;
mod idle;
mod inbox;
mod notify;
mod queries;
mod records;
mod rows;
#[cfg(test)]
mod tests;

pub use admin::{AuditEntry, MatchStatus, SeatSummary, TableFilter, TableSummary};
pub use channels::Unsubscribed;
pub use clocks::{StoredClocks, StoredVacation};
pub use downtime::{Outage, ServerRun};
pub use ending::Unfinished;
pub use idle::{StoredIdleness, UNLOADED_FOR_GOOD};
pub use inbox::{InboxLobby, InboxMatch};
pub use notify::{Notice, OutboxRow, RateLimits, StoredEndpoint};
pub(crate) use records::pace_text;
pub use records::{
    Append, LobbyRecord, LogEntry, MatchRecord, Phase, RematchRecord, SeatKind, SeatRecord, Setup, Snapshot,
    StartedRematch, StoredAbsence, StoredLobby, StoredMatch, parse_to_decide, to_decide_text,
};
use records::{corrupt, json_text, parse_json, raw_json, small, to_i64};

impl Store {
    /// Connects to `url` (`sqlite://path` or `postgres://...`) and applies pending migrations. For SQLite the
    /// file and its folder are created on first start, and the journal is WAL with synchronous=FULL so that a
    /// committed action survives a crash of the process or the machine.
    pub async fn connect(url: &str) -> Result<Store, StoreError> {
        Store::connect_with(url, PoolSettings::default()).await
    }

    /// [`Store::connect`] with pool settings.
    pub async fn connect_with(url: &str, settings: PoolSettings) -> Result<Store, StoreError> {
        if url.starts_with("postgres:") || url.starts_with("postgresql:") {
            let pool = PgPoolOptions::new()
                .max_connections(8)
                .acquire_timeout(settings.acquire_timeout)
                // Every statement of the store finds its rows by key. PostgreSQL plans a prepared statement
                // on a connection's first runs and keeps that plan until the tables are analyzed (autovacuum: a
                // minute or more after they filled); on a new database that is while they are empty, where a
                // scan is cheapest, and the group commit then scanned `lobbies` twice and `matches` once per
                // commit, dearer with every match played (docs/performance.md, "Measured reasons"). Statements
                // with no index to use still scan.
                .after_connect(|conn, _| {
                    Box::pin(async move {
                        sqlx::Executor::execute(conn, "SET enable_seqscan = off").await?;
                        Ok(())
                    })
                })
                .connect(url)
                .await?;
            sqlx::migrate!("../migrations/postgres").run(&pool).await?;
            Ok(Store::new(Db::Postgres(pool), settings.deadline))
        } else if url.starts_with("sqlite:") {
            let options = SqliteConnectOptions::from_str(url)?
                .create_if_missing(true)
                .journal_mode(SqliteJournalMode::Wal)
                .synchronous(SqliteSynchronous::Full)
                .foreign_keys(true)
                .busy_timeout(Duration::from_secs(5))
                // The group commit's cost is SQLite's system calls (docs/performance.md, "Measured reasons";
                // counted for 500 matches of Hide and Eeek!, per commit of ~200 actions). A multi-row INSERT
                // inside a transaction keeps a statement journal, written to a temporary file once it passes
                // 64 KiB: in memory, 1,137 pwrite calls per commit became 676.
                .pragma("temp_store", "MEMORY")
                // A checkpoint copies every page changed since the last one into the database file, and the
                // pages of 500 matches' index are changed again and again: checkpointing after 10,000 WAL
                // pages (~40 MB of WAL file) instead of 1,000 writes each once per checkpoint (476 pwrite
                // calls and one fsync per commit instead of 676 and 1.6).
                .pragma("wal_autocheckpoint", "10000")
                // The pages a commit reads (the matches' index leaves, the foreign keys' lookups) outgrew the
                // default 2 MiB cache: 300 pread calls per commit; with 16 MiB, 33.
                .pragma("cache_size", "-16384");
            let file = options.get_filename();
            // `sqlite::memory:` becomes a shared-cache `file:...?mode=memory` name: in memory all the same.
            let memory = is_memory(file) || url.contains(":memory:") || url.contains("mode=memory");
            if let Some(dir) = file.parent().filter(|d| !d.as_os_str().is_empty())
                && !memory
            {
                std::fs::create_dir_all(dir).map_err(|e| StoreError::Database(sqlx::Error::Io(e)))?;
            }
            // One connection. SQLite lets one writer at a time in; with several connections, a writer that finds
            // the lock taken sleeps in SQLite's busy handler (1, 2, 5 ... 100 ms) instead of queueing, so under
            // load a lobby's insert could lose to the group commit again and again (1.0-1.4 s seen, and the busy
            // timeout ends in an error). Through one connection every statement waits its turn in sqlx's queue,
            // in order. Reads are short (WAL would let them run beside the writer, but none is long enough to
            // matter); docs/performance.md, "Measured reasons".
            let mut pool_options = SqlitePoolOptions::new().max_connections(1);
            if memory {
                // Every connection to a private `:memory:` is its own database, and a shared-cache one refuses
                // concurrent writers ("database table is locked"): keep the one connection forever.
                pool_options = pool_options.idle_timeout(None).max_lifetime(None);
            }
            let pool = pool_options.connect_with(options).await?;
            sqlx::migrate!("../migrations/sqlite").run(&pool).await?;
            Ok(Store::new(Db::Sqlite(pool), settings.deadline))
        } else {
            Err(StoreError::Database(sqlx::Error::Configuration(
                "DATABASE_URL must start with sqlite: or postgres:".into(),
            )))
        }
    }

    /// The backend a database URL names (`sqlite` or `postgres`), if any.
    pub fn backend_of(url: &str) -> Option<&'static str> {
        if url.starts_with("postgres:") || url.starts_with("postgresql:") {
            Some("postgres")
        } else if url.starts_with("sqlite:") {
            Some("sqlite")
        } else {
            None
        }
    }

    fn new(db: Db, deadline: Duration) -> Store {
        Store {
            db,
            health: Arc::new(Health::new(deadline)),
        }
    }

    /// The same database through another PostgreSQL pool (cluster mode's fenced pool), keeping this store's
    /// deadline and what it knows of the database's health.
    pub(crate) fn with_postgres_pool(&self, pool: PgPool) -> Store {
        Store {
            db: Db::Postgres(pool),
            health: self.health.clone(),
        }
    }

    /// The pool.
    pub fn db(&self) -> &Db {
        &self.db
    }

    /// The longest a call of the store may take.
    pub fn deadline(&self) -> Duration {
        self.health.deadline
    }

    pub fn backend(&self) -> &'static str {
        match self.db {
            Db::Sqlite(_) => "sqlite",
            Db::Postgres(_) => "postgres",
        }
    }

    /// Runs one call of the store (every query of this module goes through here) within the store's deadline.
    ///
    /// sqlx has no client-side statement timeout, and a database that accepts connections but never answers (a
    /// partition, a hung server) would hold a call, and the table that made it, until TCP gives up. Here a call
    /// that takes longer than the deadline fails with [`StoreError::TimedOut`]; its future is dropped, and sqlx
    /// checks the connection before it takes it back. A write that timed out may still have committed: callers
    /// treat it as a lost answer (a table reloads before it acts again).
    ///
    /// After a call failed to reach the database, the calls of the next deadline fail at once
    /// ([`StoreError::Unavailable`]) instead of each waiting for the deadline in turn: a table's queued requests,
    /// and the group commit's next batch, are then answered within one deadline, not one each. The first call
    /// after that tries again; one that succeeds clears the state.
    pub(crate) async fn guarded<T>(
        &self,
        work: impl Future<Output = Result<T, StoreError>>,
    ) -> Result<T, StoreError> {
        self.guarded_within(self.health.deadline, work).await
    }

    async fn guarded_within<T>(
        &self,
        deadline: Duration,
        work: impl Future<Output = Result<T, StoreError>>,
    ) -> Result<T, StoreError> {
        if let Some(ago) = self.health.recently_down() {
            return Err(StoreError::Unavailable(format!(
                "a call failed to reach it {ago} ms ago; it is tried again {} ms after that",
                self.health.deadline.as_millis()
            )));
        }
        match tokio::time::timeout(deadline, work).await {
            Ok(Ok(value)) => {
                self.health.up();
                Ok(value)
            }
            Ok(Err(e)) => {
                if e.is_unavailable() {
                    self.health.down();
                }
                Err(e)
            }
            Err(_) => {
                // A shorter wait than the store's own (`/readyz`) says nothing about the calls that wait longer.
                if deadline >= self.health.deadline {
                    self.health.down();
                }
                Err(StoreError::TimedOut(deadline))
            }
        }
    }

    /// Answers whether the database can be reached (for `/readyz`): at once when a call failed to reach it
    /// within the last deadline, otherwise by a `SELECT 1` that waits at most [`READY_DEADLINE`] (or the
    /// store's deadline if shorter).
    pub async fn ready(&self) -> Result<(), StoreError> {
        let deadline = READY_DEADLINE.min(self.health.deadline);
        self.guarded_within(deadline, async {
            match &self.db {
                Db::Sqlite(pool) => sqlx::query("SELECT 1").execute(pool).await.map(drop),
                Db::Postgres(pool) => sqlx::query("SELECT 1").execute(pool).await.map(drop),
            }
            .map_err(classify)
        })
        .await
    }

    /// Answers whether the database can be reached, within the store's deadline.
    pub async fn ping(&self) -> Result<(), StoreError> {
        on_pool!(self, pool => {
            sqlx::query("SELECT 1").execute(pool).await.map(|_| ()).map_err(classify)
        })
    }

    pub async fn close(&self) {
        match &self.db {
            Db::Sqlite(pool) => pool.close().await,
            Db::Postgres(pool) => pool.close().await,
        }
    }
}

fn is_memory(file: &Path) -> bool {
    file.as_os_str() == ":memory:" || file.as_os_str().is_empty()
}
