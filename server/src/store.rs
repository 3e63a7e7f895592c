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
//! the lobby chat's queries).

use std::{path::Path, str::FromStr, time::Duration};

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
    /// The database could not be reached for a write that shared its transaction with this one.
    #[error("database unreachable: {0}")]
    Unavailable(String),
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
    /// timeout, server shutting down): the request may succeed later, unchanged.
    pub fn is_unavailable(&self) -> bool {
        match self {
            StoreError::Database(e) => match e {
                sqlx::Error::Io(_)
                | sqlx::Error::Tls(_)
                | sqlx::Error::PoolTimedOut
                | sqlx::Error::PoolClosed
                | sqlx::Error::WorkerCrashed
                | sqlx::Error::Protocol(_) => true,
                // SQLSTATE class 08 (connection exception) and 57P (operator intervention: shutdown).
                sqlx::Error::Database(db) => db
                    .code()
                    .is_some_and(|c| c.starts_with("08") || c.starts_with("57P")),
                _ => false,
            },
            StoreError::Unavailable(_) => true,
            _ => false,
        }
    }
}

/// Connection pool settings.
#[derive(Clone, Copy, Debug)]
pub struct PoolSettings {
    /// Longest wait for a connection before a query fails (PostgreSQL).
    pub acquire_timeout: Duration,
}

impl Default for PoolSettings {
    fn default() -> Self {
        PoolSettings {
            acquire_timeout: Duration::from_secs(10),
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

/// The database: SQLite or PostgreSQL.
#[derive(Clone, Debug)]
pub enum Store {
    Sqlite(SqlitePool),
    Postgres(PgPool),
}

/// Runs `$body` with `$pool` bound to the typed pool of whichever backend `$store` is. The body is compiled once
/// per backend, so each gets sqlx's typed encoding and decoding.
macro_rules! on_pool {
    ($store:expr, $pool:ident => $body:expr) => {
        match $store {
            Store::Sqlite($pool) => $body,
            Store::Postgres($pool) => $body,
        }
    };
}

mod admin;
mod batches;
mod friends;
mod idle;
mod queries;
mod records;
mod rows;
#[cfg(test)]
mod tests;

pub use admin::{AuditEntry, MatchStatus, SeatSummary, TableFilter, TableSummary};
pub use idle::{StoredIdleness, UNLOADED_FOR_GOOD};
pub use records::{
    Append, LobbyRecord, LogEntry, MatchRecord, Phase, RematchRecord, SeatKind, SeatRecord, Setup, Snapshot,
    StartedRematch, StoredAbsence, StoredLobby, StoredMatch,
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
                // commit, dearer with every match played (docs/perf/journal.md, section 13). Statements with no
                // index to use still scan.
                .after_connect(|conn, _| {
                    Box::pin(async move {
                        sqlx::Executor::execute(conn, "SET enable_seqscan = off").await?;
                        Ok(())
                    })
                })
                .connect(url)
                .await?;
            sqlx::migrate!("../migrations/postgres").run(&pool).await?;
            Ok(Store::Postgres(pool))
        } else if url.starts_with("sqlite:") {
            let options = SqliteConnectOptions::from_str(url)?
                .create_if_missing(true)
                .journal_mode(SqliteJournalMode::Wal)
                .synchronous(SqliteSynchronous::Full)
                .foreign_keys(true)
                .busy_timeout(Duration::from_secs(5))
                // The group commit's cost is SQLite's system calls (docs/perf/journal.md, section 17; counted
                // for 500 matches of Hide and Eeek!, per commit of ~200 actions). A multi-row INSERT inside a
                // transaction keeps a statement journal, written to a temporary file once it passes 64 KiB:
                // in memory, 1,137 pwrite calls per commit became 676.
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
            // matter); docs/perf/journal.md, section 8.
            let mut pool_options = SqlitePoolOptions::new().max_connections(1);
            if memory {
                // Every connection to a private `:memory:` is its own database, and a shared-cache one refuses
                // concurrent writers ("database table is locked"): keep the one connection forever.
                pool_options = pool_options.idle_timeout(None).max_lifetime(None);
            }
            let pool = pool_options.connect_with(options).await?;
            sqlx::migrate!("../migrations/sqlite").run(&pool).await?;
            Ok(Store::Sqlite(pool))
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

    pub fn backend(&self) -> &'static str {
        match self {
            Store::Sqlite(_) => "sqlite",
            Store::Postgres(_) => "postgres",
        }
    }

    /// Answers whether the database can be reached (for `/readyz`).
    pub async fn ping(&self) -> Result<(), StoreError> {
        on_pool!(self, pool => {
            sqlx::query("SELECT 1").execute(pool).await.map(|_| ()).map_err(classify)
        })
    }

    pub async fn close(&self) {
        on_pool!(self, pool => pool.close().await)
    }
}

fn is_memory(file: &Path) -> bool {
    file.as_os_str() == ":memory:" || file.as_os_str().is_empty()
}
