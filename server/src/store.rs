//! Durable storage: lobbies, seats, matches, the append-only action log, snapshots and results, in SQLite (the
//! default, a file under `./data`) or PostgreSQL.
//!
//! Two typed sqlx backends behind one type of ours ([`Store`]) rather than sqlx's `Any` driver: every query is
//! written once (`$1` placeholders and a common SQL subset work on both) and expanded for each typed pool by the
//! `on_pool!` macro, so each backend gets sqlx's own type checking and its native types, and the migrations
//! for each backend (`migrations/sqlite`, `migrations/postgres`) can use that backend's column types.
//!
//! Architecture invariant: SQL takes values through bound parameters only; no SQL text is ever built from data.

use std::{path::Path, str::FromStr, time::Duration};

use protocol::RawJson;
use rules::{Actor, Millis, Outcome};
use serde_json::Value;
use sqlx::{
    PgPool, Row, SqlitePool,
    postgres::PgPoolOptions,
    sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous},
};
use tracing::warn;

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
}

impl StoreError {
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

fn classify(e: sqlx::Error) -> StoreError {
    match &e {
        sqlx::Error::Database(db) if db.is_unique_violation() => StoreError::Conflict,
        _ => StoreError::Database(e),
    }
}

fn corrupt(what: impl std::fmt::Display) -> StoreError {
    StoreError::Corrupt(what.to_string())
}

/// The lifecycle of a lobby, as stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Open,
    Playing,
    Finished,
    /// Everyone left before the start; the code no longer answers.
    Closed,
}

impl Phase {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Phase::Open => "open",
            Phase::Playing => "playing",
            Phase::Finished => "finished",
            Phase::Closed => "closed",
        }
    }
    fn parse(s: &str) -> Result<Phase, StoreError> {
        Ok(match s {
            "open" => Phase::Open,
            "playing" => Phase::Playing,
            "finished" => Phase::Finished,
            "closed" => Phase::Closed,
            other => return Err(corrupt(format!("lobby phase `{other}`"))),
        })
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SeatKind {
    Human,
    Bot,
}

impl SeatKind {
    /// As stored in `seats.kind`.
    pub fn as_str(&self) -> &'static str {
        match self {
            SeatKind::Human => "human",
            SeatKind::Bot => "bot",
        }
    }
}

#[derive(Clone, Debug)]
pub struct LobbyRecord {
    pub code: String,
    pub game: String,
    pub options: Value,
    pub seat_count: u8,
    pub host_seat: u8,
    pub turn_timer_ms: Option<u64>,
    pub phase: Phase,
    pub created_at: Millis,
}

#[derive(Clone, Debug)]
pub struct SeatRecord {
    pub seat: u8,
    pub kind: SeatKind,
    pub name: String,
    /// Hex SHA-256 of the seat token (humans only).
    pub token_hash: Option<String>,
}

#[derive(Clone, Debug)]
pub struct MatchRecord {
    pub id: String,
    pub game: String,
    pub options: Value,
    pub players: u8,
    pub seed: u64,
    pub rules_version: u32,
    pub started_at: Millis,
    pub finished: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct LogEntry {
    /// 1-based: the state version this action produced.
    pub seq: u64,
    pub actor: Actor,
    /// The action as JSON text (as the engine wrote it back when it was applied).
    pub action: RawJson,
    pub at: Millis,
}

#[derive(Clone, Debug)]
pub struct Snapshot {
    pub seq: u64,
    pub state: Value,
    pub at: Millis,
}

/// A stored match with what recovery needs: the latest snapshot and every action after it.
#[derive(Clone, Debug)]
pub struct StoredMatch {
    pub record: MatchRecord,
    pub snapshot: Option<Snapshot>,
    pub log_after_snapshot: Vec<LogEntry>,
}

#[derive(Clone, Debug)]
pub struct StoredLobby {
    pub lobby: LobbyRecord,
    pub seats: Vec<SeatRecord>,
    pub game: Option<StoredMatch>,
}

/// What is written with one action, in the same transaction.
#[derive(Clone, Debug)]
pub struct Append<'a> {
    pub match_id: &'a str,
    pub lobby_code: &'a str,
    pub entry: &'a LogEntry,
    /// The full state after this action, when a snapshot is due.
    pub snapshot: Option<&'a str>,
    /// The result, when this action ended the match.
    pub outcome: Option<&'a Outcome>,
}

/// A lobby's or match's row that a group commit carries beside the actions (docs/performance.md, section 12):
/// each used to be a transaction of its own, with its own commit and fsync, three per match played.
#[derive(Clone, Copy, Debug)]
pub enum Setup<'a> {
    /// [`Store::create_lobby`].
    CreateLobby {
        lobby: &'a LobbyRecord,
        host: &'a SeatRecord,
    },
    /// [`Store::insert_seat`].
    InsertSeat { code: &'a str, seat: &'a SeatRecord },
    /// [`Store::start_match`].
    StartMatch { code: &'a str, record: &'a MatchRecord },
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

fn to_i64(v: u64) -> i64 {
    v as i64
}

/// A SQLite group commit's text and its bound values, built together: the text is made of constant statements and
/// placeholders, never of data.
struct SqliteBatch {
    sql: String,
    args: sqlx::sqlite::SqliteArguments,
}

impl SqliteBatch {
    fn new(capacity: usize) -> Self {
        SqliteBatch {
            sql: String::with_capacity(capacity),
            args: Default::default(),
        }
    }

    fn sql(&mut self, text: &str) -> &mut Self {
        self.sql.push_str(text);
        self
    }

    /// Binds `value` as the next parameter and writes its placeholder: an anonymous `?`, which sqlx binds in
    /// order across the query's statements. Named ones (`$7`) cost SQLite a linear search of the statement's
    /// names, in its parser and again in every bind: quadratic in a 2,560-parameter INSERT (strncmp and
    /// `sqlite3_bind_parameter_name` took more of its thread than the writing).
    fn bind<'q, T>(&mut self, value: T) -> &mut Self
    where
        T: sqlx::Encode<'q, sqlx::Sqlite> + sqlx::Type<sqlx::Sqlite>,
    {
        sqlx::Arguments::add(&mut self.args, value).expect("text and integers always encode");
        self.sql.push('?');
        self
    }
}

/// SQLite: a whole group commit as ONE query of several statements, `BEGIN` to `COMMIT`, which sqlx's SQLite
/// worker thread runs in one go. Written statement by statement, a batch was ~25 round trips between the writer
/// task and that thread (`BEGIN`, the set-ups, the action inserts, every snapshot and result, `COMMIT`), each
/// waiting for a turn on the busy runtime: ~16 ms per commit of which the thread worked ~6 (docs/performance.md,
/// section 17). The text changes with the batch's shape, so it is not kept prepared.
///
/// A new lobby whose code is taken is skipped (`ON CONFLICT DO NOTHING`) and so is its host's seat (`changes()`
/// is 0 after a skipped insert); each written lobby returns its index in `setups`, so the caller learns which
/// were left out. On an error the statements after the failing one do not run and the transaction is still
/// open: the caller rolls it back.
fn sqlite_batch(setups: &[Setup<'_>], appends: &[Append<'_>]) -> SqliteBatch {
    let mut b = SqliteBatch::new(64 + setups.len() * 200 + appends.len() * 40);
    b.sql("BEGIN;\n");
    for (i, setup) in setups.iter().enumerate() {
        match *setup {
            Setup::CreateLobby { lobby, host } => {
                b.sql("INSERT INTO lobbies (code, game, options, seat_count, host_seat, turn_timer_ms, phase, created_at) VALUES (")
                    .bind(lobby.code.clone())
                    .sql(", ")
                    .bind(lobby.game.clone())
                    .sql(", ")
                    .bind(json_text(&lobby.options))
                    .sql(", ")
                    .bind(i64::from(lobby.seat_count))
                    .sql(", ")
                    .bind(i64::from(lobby.host_seat))
                    .sql(", ")
                    .bind(lobby.turn_timer_ms.map(to_i64))
                    .sql(", ")
                    .bind(lobby.phase.as_str())
                    .sql(", ")
                    .bind(to_i64(lobby.created_at))
                    .sql(") ON CONFLICT (code) DO NOTHING RETURNING ")
                    .bind(i as i64)
                    .sql(";\nINSERT INTO seats (lobby_code, seat, kind, name, token_hash) SELECT ");
                sqlite_seat(&mut b, &lobby.code, host);
                b.sql(" WHERE changes() = 1;\n");
            }
            Setup::InsertSeat { code, seat } => {
                b.sql("INSERT INTO seats (lobby_code, seat, kind, name, token_hash) VALUES (");
                sqlite_seat(&mut b, code, seat);
                b.sql(");\n");
            }
            Setup::StartMatch { code, record } => {
                b.sql("INSERT INTO matches (id, lobby_code, game, options, players, seed, rules_version, status, started_at) VALUES (")
                    .bind(record.id.clone())
                    .sql(", ")
                    .bind(code.to_owned())
                    .sql(", ")
                    .bind(record.game.clone())
                    .sql(", ")
                    .bind(json_text(&record.options))
                    .sql(", ")
                    .bind(i64::from(record.players))
                    .sql(", ")
                    .bind(record.seed as i64)
                    .sql(", ")
                    .bind(i64::from(record.rules_version))
                    .sql(", ")
                    .bind("playing")
                    .sql(", ")
                    .bind(to_i64(record.started_at))
                    .sql(");\nUPDATE lobbies SET phase = ")
                    .bind(Phase::Playing.as_str())
                    .sql(" WHERE code = ")
                    .bind(code.to_owned())
                    .sql(";\n");
            }
        }
    }
    // The actions in one multi-row INSERT (5 parameters a row: 2,560 for the largest batch, far below SQLite's
    // 32,766 per statement), then the rare snapshots and results.
    if !appends.is_empty() {
        b.sql("INSERT INTO actions (match_id, seq, actor, action, at) VALUES ");
        for (i, append) in appends.iter().enumerate() {
            let entry = append.entry;
            b.sql(if i == 0 { "(" } else { ", (" })
                .bind(append.match_id)
                .sql(", ")
                .bind(to_i64(entry.seq))
                .sql(", ")
                .bind(entry.actor.json_text())
                .sql(", ")
                .bind(entry.action.get())
                .sql(", ")
                .bind(to_i64(entry.at))
                .sql(")");
        }
        b.sql(";\n");
    }
    for append in appends {
        let entry = append.entry;
        if let Some(state) = append.snapshot {
            b.sql("INSERT INTO snapshots (match_id, seq, state, at) VALUES (")
                .bind(append.match_id)
                .sql(", ")
                .bind(to_i64(entry.seq))
                .sql(", ")
                .bind(state)
                .sql(", ")
                .bind(to_i64(entry.at))
                .sql(");\n");
        }
        if let Some(outcome) = append.outcome {
            b.sql("INSERT INTO results (match_id, outcome, finished_at) VALUES (")
                .bind(append.match_id)
                .sql(", ")
                .bind(serde_json::to_string(outcome).expect("outcomes serialise"))
                .sql(", ")
                .bind(to_i64(entry.at))
                .sql(");\nUPDATE matches SET status = ")
                .bind("finished")
                .sql(", finished_at = ")
                .bind(to_i64(entry.at))
                .sql(" WHERE id = ")
                .bind(append.match_id)
                .sql(";\nUPDATE lobbies SET phase = ")
                .bind(Phase::Finished.as_str())
                .sql(" WHERE code = ")
                .bind(append.lobby_code)
                .sql(";\n");
        }
    }
    b.sql("COMMIT;");
    b
}

/// A seat's five values, for [`sqlite_batch`].
fn sqlite_seat(b: &mut SqliteBatch, code: &str, seat: &SeatRecord) {
    b.bind(code.to_owned())
        .sql(", ")
        .bind(i64::from(seat.seat))
        .sql(", ")
        .bind(seat.kind.as_str())
        .sql(", ")
        .bind(seat.name.clone())
        .sql(", ")
        .bind(seat.token_hash.clone());
}

/// [`Store::write_batch`] on PostgreSQL: ONE statement, run outside an explicit transaction: one round trip
/// instead of BEGIN, the INSERTs, the snapshots' and results' statements and COMMIT (docs/performance.md, section
/// 10). A single statement is atomic in PostgreSQL, and with the default synchronous_commit durable when it
/// returns, so the batch is still all-or-nothing.
async fn write_batch_pg(
    pool: &PgPool,
    setups: &[Setup<'_>],
    appends: &[Append<'_>],
) -> Result<Vec<usize>, StoreError> {
    let rows = append_batch_pg(setups, appends)
        .fetch_all(pool)
        .await
        .map_err(classify)?;
    let mut taken = Vec::with_capacity(rows.len());
    for row in rows {
        taken.push(row.try_get::<String, _>(0).map_err(classify)?);
    }
    Ok(setups
        .iter()
        .enumerate()
        .filter(|(_, s)| matches!(s, Setup::CreateLobby { lobby, .. } if taken.contains(&lobby.code)))
        .map(|(i, _)| i)
        .collect())
}

/// [`Store::write_batch`] on SQLite: [`sqlite_batch`]'s one query, rolled back if a statement fails.
async fn write_batch_sqlite(
    pool: &SqlitePool,
    setups: &[Setup<'_>],
    appends: &[Append<'_>],
) -> Result<Vec<usize>, StoreError> {
    let batch = sqlite_batch(setups, appends);
    let mut conn = pool.acquire().await?;
    let written = sqlx::query_with(sqlx::AssertSqlSafe(batch.sql), batch.args)
        .persistent(false)
        .fetch_all(&mut *conn)
        .await;
    match written {
        Ok(rows) => {
            let mut kept = Vec::with_capacity(rows.len());
            for row in rows {
                kept.push(row.try_get::<i64, _>(0).map_err(classify)?);
            }
            Ok(setups
                .iter()
                .enumerate()
                .filter(|(i, s)| matches!(s, Setup::CreateLobby { .. }) && !kept.contains(&(*i as i64)))
                .map(|(i, _)| i)
                .collect())
        }
        Err(e) => {
            // The failing statement stopped the query with its transaction open (unless SQLite ended it itself,
            // as it does on some I/O errors): end it, or this connection would refuse every later BEGIN. If that
            // fails for any other reason, the connection is closed rather than reused.
            if let Err(rollback) = sqlx::query("ROLLBACK").execute(&mut *conn).await
                && !rollback.to_string().contains("no transaction is active")
            {
                warn!(error = %rollback, "closing the SQLite connection after a failed rollback");
                let _ = conn.close().await;
            }
            Err(classify(e))
        }
    }
}

/// PostgreSQL: a whole group commit as one statement of array parameters; it returns the codes of the new lobbies
/// it did not write because the code was taken (their hosts' seats are not written either), the same text whatever the batch holds
/// (one prepared statement per connection). Data-modifying `WITH` parts write the snapshots, the results and the
/// finished matches' and lobbies' rows, and the [`Setup`]s' new lobbies, seats and started matches; the main
/// `INSERT` writes the actions. The parts touch different rows (a table has one write in flight, so a lobby is
/// never both started and finished in one batch), so it does not matter that they do not see each other's
/// changes; the seats' foreign key is checked at the end of the statement, when a lobby created in the same batch
/// is there.
fn append_batch_pg<'q>(
    setups: &[Setup<'_>],
    appends: &[Append<'_>],
) -> sqlx::query::Query<'q, sqlx::Postgres, sqlx::postgres::PgArguments> {
    // Column by column, as the statement's array parameters want them.
    let (mut l_codes, mut l_games, mut l_options, mut l_seat_counts) = (vec![], vec![], vec![], vec![]);
    let (mut l_hosts, mut l_phases, mut l_created) = (vec![], vec![], vec![]);
    let mut l_timers: Vec<Option<i64>> = vec![];
    let (mut s_codes, mut s_seats, mut s_kinds, mut s_names) = (vec![], vec![], vec![], vec![]);
    let mut s_hashes: Vec<Option<String>> = vec![];
    let mut s_hosts: Vec<bool> = vec![];
    let (mut m_ids, mut m_codes, mut m_games, mut m_options) = (vec![], vec![], vec![], vec![]);
    let (mut m_players, mut m_seeds, mut m_versions, mut m_started) = (vec![], vec![], vec![], vec![]);
    let mut push_seat = |code: &str, seat: &SeatRecord, host: bool| {
        s_hosts.push(host);
        s_codes.push(code.to_owned());
        s_seats.push(i64::from(seat.seat));
        s_kinds.push(seat.kind.as_str());
        s_names.push(seat.name.clone());
        s_hashes.push(seat.token_hash.clone());
    };
    for setup in setups {
        match *setup {
            Setup::CreateLobby { lobby, host } => {
                l_codes.push(lobby.code.clone());
                l_games.push(lobby.game.clone());
                l_options.push(json_text(&lobby.options));
                l_seat_counts.push(i64::from(lobby.seat_count));
                l_hosts.push(i64::from(lobby.host_seat));
                l_timers.push(lobby.turn_timer_ms.map(to_i64));
                l_phases.push(lobby.phase.as_str());
                l_created.push(to_i64(lobby.created_at));
                push_seat(&lobby.code, host, true);
            }
            Setup::InsertSeat { code, seat } => push_seat(code, seat, false),
            Setup::StartMatch { code, record } => {
                m_ids.push(record.id.clone());
                m_codes.push(code.to_owned());
                m_games.push(record.game.clone());
                m_options.push(json_text(&record.options));
                m_players.push(i64::from(record.players));
                m_seeds.push(record.seed as i64);
                m_versions.push(i64::from(record.rules_version));
                m_started.push(to_i64(record.started_at));
            }
        }
    }
    let n = appends.len();
    let mut ids = Vec::with_capacity(n);
    let mut seqs = Vec::with_capacity(n);
    let mut actors = Vec::with_capacity(n);
    let mut actions = Vec::with_capacity(n);
    let mut ats = Vec::with_capacity(n);
    let (mut snap_ids, mut snap_seqs, mut snap_states, mut snap_ats) = (vec![], vec![], vec![], vec![]);
    let (mut done_ids, mut done_outcomes, mut done_ats, mut done_lobbies) = (vec![], vec![], vec![], vec![]);
    for append in appends {
        let entry = append.entry;
        // Borrowed, not copied: sqlx encodes every parameter as it is bound.
        ids.push(append.match_id);
        seqs.push(to_i64(entry.seq));
        actors.push(entry.actor.json_text());
        actions.push(entry.action.get());
        ats.push(to_i64(entry.at));
        if let Some(state) = append.snapshot {
            snap_ids.push(append.match_id.to_owned());
            snap_seqs.push(to_i64(entry.seq));
            snap_states.push(state);
            snap_ats.push(to_i64(entry.at));
        }
        if let Some(outcome) = append.outcome {
            done_ids.push(append.match_id.to_owned());
            done_outcomes.push(serde_json::to_string(outcome).expect("outcomes serialise"));
            done_ats.push(to_i64(entry.at));
            done_lobbies.push(append.lobby_code.to_owned());
        }
    }
    sqlx::query(
        "WITH new_lobby AS (INSERT INTO lobbies (code, game, options, seat_count, host_seat, turn_timer_ms, phase, \
             created_at) SELECT * FROM UNNEST($16::text[], $17::text[], $18::text[], $19::int8[], $20::int8[], \
             $21::int8[], $22::text[], $23::int8[]) ON CONFLICT (code) DO NOTHING RETURNING code), \
         new_seat AS (INSERT INTO seats (lobby_code, seat, kind, name, token_hash) \
             SELECT s.code, s.seat, s.kind, s.name, s.hash FROM UNNEST($24::text[], $25::int8[], $26::text[], \
             $27::text[], $28::text[], $39::bool[]) AS s (code, seat, kind, name, hash, host) \
             WHERE NOT s.host OR s.code IN (SELECT code FROM new_lobby)), \
         started AS (INSERT INTO matches (id, lobby_code, game, options, players, seed, rules_version, status, \
             started_at) SELECT id, code, game, options, players, seed, version, $37, at FROM UNNEST($29::text[], \
             $30::text[], $31::text[], $32::text[], $33::int8[], $34::int8[], $35::int8[], $36::int8[]) \
             AS m (id, code, game, options, players, seed, version, at)), \
         playing AS (UPDATE lobbies SET phase = $38 WHERE code = ANY($30::text[])), \
         snapshot AS (INSERT INTO snapshots (match_id, seq, state, at) \
             SELECT * FROM UNNEST($6::text[], $7::int8[], $8::text[], $9::int8[])), \
         result AS (INSERT INTO results (match_id, outcome, finished_at) \
             SELECT * FROM UNNEST($10::text[], $11::text[], $12::int8[])), \
         finished AS (UPDATE matches SET status = $14, finished_at = f.at \
             FROM UNNEST($10::text[], $12::int8[]) AS f (id, at) WHERE matches.id = f.id), \
         lobby AS (UPDATE lobbies SET phase = $15 WHERE code = ANY($13::text[])), \
         logged AS (INSERT INTO actions (match_id, seq, actor, action, at) \
             SELECT * FROM UNNEST($1::text[], $2::int8[], $3::text[], $4::text[], $5::int8[])) \
         SELECT code FROM UNNEST($16::text[]) AS c (code) WHERE code NOT IN (SELECT code FROM new_lobby)",
    )
    .bind(ids)
    .bind(seqs)
    .bind(actors)
    .bind(actions)
    .bind(ats)
    .bind(snap_ids)
    .bind(snap_seqs)
    .bind(snap_states)
    .bind(snap_ats)
    .bind(done_ids)
    .bind(done_outcomes)
    .bind(done_ats)
    .bind(done_lobbies)
    .bind("finished")
    .bind(Phase::Finished.as_str())
    .bind(l_codes)
    .bind(l_games)
    .bind(l_options)
    .bind(l_seat_counts)
    .bind(l_hosts)
    .bind(l_timers)
    .bind(l_phases)
    .bind(l_created)
    .bind(s_codes)
    .bind(s_seats)
    .bind(s_kinds)
    .bind(s_names)
    .bind(s_hashes)
    .bind(m_ids)
    .bind(m_codes)
    .bind(m_games)
    .bind(m_options)
    .bind(m_players)
    .bind(m_seeds)
    .bind(m_versions)
    .bind(m_started)
    .bind("playing")
    .bind(Phase::Playing.as_str())
    .bind(s_hosts)
}

fn json_text(v: &Value) -> String {
    v.to_string()
}

/// Stored JSON text, checked but not parsed into a tree.
fn raw_json(text: String) -> Result<RawJson, StoreError> {
    serde_json::value::RawValue::from_string(text)
        .map(RawJson::from)
        .map_err(corrupt)
}

fn parse_json(text: &str) -> Result<Value, StoreError> {
    serde_json::from_str(text).map_err(corrupt)
}

fn small(v: i64, what: &str) -> Result<u8, StoreError> {
    u8::try_from(v).map_err(|_| corrupt(format!("{what} out of range: {v}")))
}

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
                // commit, dearer with every match played (docs/performance.md, section 13). Statements with no
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
                // The group commit's cost is SQLite's system calls (docs/performance.md, section 17; counted
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
            // matter); docs/performance.md, section 8.
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

    /// Creates a lobby with its first seat. Fails with [`StoreError::Conflict`] if the code is taken.
    pub async fn create_lobby(&self, lobby: &LobbyRecord, host: &SeatRecord) -> Result<(), StoreError> {
        on_pool!(self, pool => {
            let mut tx = pool.begin().await?;
            insert_lobby_query(lobby, false).execute(&mut *tx).await.map_err(classify)?;
            insert_seat_query(&lobby.code, host).execute(&mut *tx).await.map_err(classify)?;
            tx.commit().await.map_err(classify)
        })
    }

    /// Seats someone (a human or a bot). Fails with [`StoreError::Conflict`] if the seat is taken.
    pub async fn insert_seat(&self, code: &str, seat: &SeatRecord) -> Result<(), StoreError> {
        on_pool!(self, pool => {
            insert_seat_query(code, seat).execute(pool).await.map(|_| ()).map_err(classify)
        })
    }

    /// Frees a seat of an open lobby, and records who hosts it now (or closes it when nobody is left).
    pub async fn free_seat(&self, code: &str, seat: u8, host: Option<u8>) -> Result<(), StoreError> {
        on_pool!(self, pool => {
            let mut tx = pool.begin().await?;
            sqlx::query("DELETE FROM seats WHERE lobby_code = $1 AND seat = $2")
                .bind(code)
                .bind(i64::from(seat))
                .execute(&mut *tx)
                .await
                .map_err(classify)?;
            match host {
                Some(host) => {
                    sqlx::query("UPDATE lobbies SET host_seat = $1 WHERE code = $2")
                        .bind(i64::from(host))
                        .bind(code)
                        .execute(&mut *tx)
                        .await
                        .map_err(classify)?;
                }
                None => {
                    sqlx::query("UPDATE lobbies SET phase = $1 WHERE code = $2")
                        .bind(Phase::Closed.as_str())
                        .bind(code)
                        .execute(&mut *tx)
                        .await
                        .map_err(classify)?;
                }
            }
            tx.commit().await.map_err(classify)
        })
    }

    /// Starts the match of an open lobby. Fails with [`StoreError::Conflict`] if it already has one.
    pub async fn start_match(&self, code: &str, record: &MatchRecord) -> Result<(), StoreError> {
        on_pool!(self, pool => {
            let mut tx = pool.begin().await?;
            insert_match_query(code, record).execute(&mut *tx).await.map_err(classify)?;
            lobby_phase_query(code, Phase::Playing).execute(&mut *tx).await.map_err(classify)?;
            tx.commit().await.map_err(classify)
        })
    }

    /// Appends one action to a match's log, with its snapshot and result when due, in one transaction. The
    /// primary key (match_id, seq) refuses a second writer of the same sequence number
    /// ([`StoreError::Conflict`]). Only after this returns `Ok` may anyone be told that the action happened.
    pub async fn append(&self, append: &Append<'_>) -> Result<(), StoreError> {
        self.append_batch(std::slice::from_ref(append)).await
    }

    /// Appends several actions (of any matches) in ONE transaction: all are committed or none is. Used by
    /// group commit ([`crate::commit`]); a failure says nothing about which append caused it.
    pub async fn append_batch(&self, appends: &[Append<'_>]) -> Result<(), StoreError> {
        self.write_batch(&[], appends).await.map(drop)
    }

    /// Writes one [`Setup`] alone, in its own transaction.
    pub async fn setup(&self, setup: &Setup<'_>) -> Result<(), StoreError> {
        match *setup {
            Setup::CreateLobby { lobby, host } => self.create_lobby(lobby, host).await,
            Setup::InsertSeat { code, seat } => self.insert_seat(code, seat).await,
            Setup::StartMatch { code, record } => self.start_match(code, record).await,
        }
    }

    /// [`Store::append_batch`] with lobbies' and matches' rows written in the same transaction, before the
    /// actions (in their order: a seat's lobby may be created earlier in the same batch). All are committed or
    /// none is, with one exception: a new lobby whose code is taken is left out (with its host's seat) and the
    /// rest is committed. The indexes (in `setups`) of the lobbies left out are returned: a taken code is
    /// expected now and then (codes are short and never reused) and must not refuse everyone else's writes.
    pub async fn write_batch(
        &self,
        setups: &[Setup<'_>],
        appends: &[Append<'_>],
    ) -> Result<Vec<usize>, StoreError> {
        match self {
            Store::Postgres(pool) => write_batch_pg(pool, setups, appends).await,
            Store::Sqlite(pool) => write_batch_sqlite(pool, setups, appends).await,
        }
    }

    /// The codes of lobbies that are open or playing: what must be running after a start.
    pub async fn live_lobby_codes(&self) -> Result<Vec<String>, StoreError> {
        on_pool!(self, pool => {
            let rows = sqlx::query("SELECT code FROM lobbies WHERE phase = $1 OR phase = $2 ORDER BY created_at")
                .bind(Phase::Open.as_str())
                .bind(Phase::Playing.as_str())
                .fetch_all(pool)
                .await
                .map_err(classify)?;
            rows.iter().map(|r| r.try_get::<String, _>("code").map_err(classify)).collect()
        })
    }

    /// Loads a lobby with its seats and, if it has started, its match ready for recovery. `None` if no such
    /// lobby exists or it was closed.
    pub async fn load_lobby(&self, code: &str) -> Result<Option<StoredLobby>, StoreError> {
        on_pool!(self, pool => {
            let Some(row) = sqlx::query(
                "SELECT code, game, options, seat_count, host_seat, turn_timer_ms, phase, created_at \
                 FROM lobbies WHERE code = $1",
            )
            .bind(code)
            .fetch_optional(pool)
            .await
            .map_err(classify)?
            else {
                return Ok(None);
            };
            let lobby = LobbyRecord {
                code: row.try_get("code")?,
                game: row.try_get("game")?,
                options: parse_json(&row.try_get::<String, _>("options")?)?,
                seat_count: small(row.try_get("seat_count")?, "seat count")?,
                host_seat: small(row.try_get("host_seat")?, "host seat")?,
                turn_timer_ms: row.try_get::<Option<i64>, _>("turn_timer_ms")?.map(|v| v as u64),
                phase: Phase::parse(&row.try_get::<String, _>("phase")?)?,
                created_at: row.try_get::<i64, _>("created_at")? as u64,
            };
            if lobby.phase == Phase::Closed {
                return Ok(None);
            }
            let mut seats = Vec::new();
            for row in sqlx::query("SELECT seat, kind, name, token_hash FROM seats WHERE lobby_code = $1 ORDER BY seat")
                .bind(code)
                .fetch_all(pool)
                .await
                .map_err(classify)?
            {
                seats.push(SeatRecord {
                    seat: small(row.try_get("seat")?, "seat")?,
                    kind: match row.try_get::<String, _>("kind")?.as_str() {
                        "human" => SeatKind::Human,
                        "bot" => SeatKind::Bot,
                        other => return Err(corrupt(format!("seat kind `{other}`"))),
                    },
                    name: row.try_get("name")?,
                    token_hash: row.try_get("token_hash")?,
                });
            }
            let Some(row) = sqlx::query(
                "SELECT id, game, options, players, seed, rules_version, status, started_at \
                 FROM matches WHERE lobby_code = $1",
            )
            .bind(code)
            .fetch_optional(pool)
            .await
            .map_err(classify)?
            else {
                return Ok(Some(StoredLobby { lobby, seats, game: None }));
            };
            let record = MatchRecord {
                id: row.try_get("id")?,
                game: row.try_get("game")?,
                options: parse_json(&row.try_get::<String, _>("options")?)?,
                players: small(row.try_get("players")?, "players")?,
                seed: row.try_get::<i64, _>("seed")? as u64,
                rules_version: u32::try_from(row.try_get::<i64, _>("rules_version")?).map_err(corrupt)?,
                started_at: row.try_get::<i64, _>("started_at")? as u64,
                finished: row.try_get::<String, _>("status")? == "finished",
            };
            let snapshot = match sqlx::query(
                "SELECT seq, state, at FROM snapshots WHERE match_id = $1 ORDER BY seq DESC LIMIT 1",
            )
            .bind(&record.id)
            .fetch_optional(pool)
            .await
            .map_err(classify)?
            {
                Some(row) => Some(Snapshot {
                    seq: row.try_get::<i64, _>("seq")? as u64,
                    state: parse_json(&row.try_get::<String, _>("state")?)?,
                    at: row.try_get::<i64, _>("at")? as u64,
                }),
                None => None,
            };
            let after = snapshot.as_ref().map_or(0, |s| s.seq);
            let mut log = Vec::new();
            for row in sqlx::query("SELECT seq, actor, action, at FROM actions WHERE match_id = $1 AND seq > $2 ORDER BY seq")
                .bind(&record.id)
                .bind(to_i64(after))
                .fetch_all(pool)
                .await
                .map_err(classify)?
            {
                log.push(LogEntry {
                    seq: row.try_get::<i64, _>("seq")? as u64,
                    actor: serde_json::from_str(&row.try_get::<String, _>("actor")?).map_err(corrupt)?,
                    action: raw_json(row.try_get::<String, _>("action")?)?,
                    at: row.try_get::<i64, _>("at")? as u64,
                });
            }
            Ok(Some(StoredLobby {
                lobby,
                seats,
                game: Some(StoredMatch { record, snapshot, log_after_snapshot: log }),
            }))
        })
    }

    /// The recorded result of a finished match, if it has finished.
    pub async fn result(&self, match_id: &str) -> Result<Option<Outcome>, StoreError> {
        on_pool!(self, pool => {
            let row = sqlx::query("SELECT outcome FROM results WHERE match_id = $1")
                .bind(match_id)
                .fetch_optional(pool)
                .await
                .map_err(classify)?;
            match row {
                None => Ok(None),
                Some(row) => Ok(Some(serde_json::from_str(&row.try_get::<String, _>("outcome")?).map_err(corrupt)?)),
            }
        })
    }

    /// The whole action log of a match, in order (for tests and audits).
    pub async fn action_log(&self, match_id: &str) -> Result<Vec<LogEntry>, StoreError> {
        on_pool!(self, pool => {
            let mut log = Vec::new();
            for row in sqlx::query("SELECT seq, actor, action, at FROM actions WHERE match_id = $1 ORDER BY seq")
                .bind(match_id)
                .fetch_all(pool)
                .await
                .map_err(classify)?
            {
                log.push(LogEntry {
                    seq: row.try_get::<i64, _>("seq")? as u64,
                    actor: serde_json::from_str(&row.try_get::<String, _>("actor")?).map_err(corrupt)?,
                    action: raw_json(row.try_get::<String, _>("action")?)?,
                    at: row.try_get::<i64, _>("at")? as u64,
                });
            }
            Ok(log)
        })
    }
}

mod admin;
mod friends;
pub use admin::{AuditEntry, MatchStatus, SeatSummary, TableFilter, TableSummary};

fn is_memory(file: &Path) -> bool {
    file.as_os_str() == ":memory:" || file.as_os_str().is_empty()
}

/// The new lobby's row. With `skip_taken`, a taken code writes nothing (no error; the caller reads how many rows
/// were written) instead of failing the transaction.
fn insert_lobby_query<'a, DB: sqlx::Database>(
    lobby: &'a LobbyRecord,
    skip_taken: bool,
) -> sqlx::query::Query<'a, DB, <DB as sqlx::Database>::Arguments>
where
    &'a str: sqlx::Encode<'a, DB> + sqlx::Type<DB>,
    String: sqlx::Encode<'a, DB> + sqlx::Type<DB>,
    i64: sqlx::Encode<'a, DB> + sqlx::Type<DB>,
    Option<i64>: sqlx::Encode<'a, DB> + sqlx::Type<DB>,
{
    sqlx::query(if skip_taken {
        "INSERT INTO lobbies (code, game, options, seat_count, host_seat, turn_timer_ms, phase, created_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (code) DO NOTHING"
    } else {
        "INSERT INTO lobbies (code, game, options, seat_count, host_seat, turn_timer_ms, phase, created_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)"
    })
    .bind(lobby.code.as_str())
    .bind(lobby.game.as_str())
    .bind(json_text(&lobby.options))
    .bind(i64::from(lobby.seat_count))
    .bind(i64::from(lobby.host_seat))
    .bind(lobby.turn_timer_ms.map(to_i64))
    .bind(lobby.phase.as_str())
    .bind(to_i64(lobby.created_at))
}

fn lobby_phase_query<'a, DB: sqlx::Database>(
    code: &'a str,
    phase: Phase,
) -> sqlx::query::Query<'a, DB, <DB as sqlx::Database>::Arguments>
where
    &'a str: sqlx::Encode<'a, DB> + sqlx::Type<DB>,
{
    sqlx::query("UPDATE lobbies SET phase = $1 WHERE code = $2")
        .bind(phase.as_str())
        .bind(code)
}

fn insert_seat_query<'a, DB: sqlx::Database>(
    code: &'a str,
    seat: &'a SeatRecord,
) -> sqlx::query::Query<'a, DB, <DB as sqlx::Database>::Arguments>
where
    &'a str: sqlx::Encode<'a, DB> + sqlx::Type<DB>,
    i64: sqlx::Encode<'a, DB> + sqlx::Type<DB>,
    Option<&'a str>: sqlx::Encode<'a, DB> + sqlx::Type<DB>,
{
    sqlx::query("INSERT INTO seats (lobby_code, seat, kind, name, token_hash) VALUES ($1, $2, $3, $4, $5)")
        .bind(code)
        .bind(i64::from(seat.seat))
        .bind(seat.kind.as_str())
        .bind(seat.name.as_str())
        .bind(seat.token_hash.as_deref())
}

/// The new match row of a lobby, playing from its start.
fn insert_match_query<'a, DB: sqlx::Database>(
    code: &'a str,
    record: &'a MatchRecord,
) -> sqlx::query::Query<'a, DB, <DB as sqlx::Database>::Arguments>
where
    &'a str: sqlx::Encode<'a, DB> + sqlx::Type<DB>,
    String: sqlx::Encode<'a, DB> + sqlx::Type<DB>,
    i64: sqlx::Encode<'a, DB> + sqlx::Type<DB>,
{
    sqlx::query(
        "INSERT INTO matches (id, lobby_code, game, options, players, seed, rules_version, status, started_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
    )
    .bind(record.id.as_str())
    .bind(code)
    .bind(record.game.as_str())
    .bind(json_text(&record.options))
    .bind(i64::from(record.players))
    .bind(record.seed as i64)
    .bind(i64::from(record.rules_version))
    .bind("playing")
    .bind(to_i64(record.started_at))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn lobby(code: &str) -> LobbyRecord {
        LobbyRecord {
            code: code.into(),
            game: "g".into(),
            options: json!({"a": 1}),
            seat_count: 2,
            host_seat: 0,
            turn_timer_ms: Some(5_000),
            phase: Phase::Open,
            created_at: 7,
        }
    }

    fn seat(n: u8, kind: SeatKind) -> SeatRecord {
        SeatRecord {
            seat: n,
            kind,
            name: format!("p{n}"),
            token_hash: Some("ab".repeat(32)),
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_in_memory_database_takes_concurrent_writes() {
        // `sqlite::memory:` is a shared-cache database: several connections to it refuse concurrent writers with
        // "database table is locked", which the busy timeout does not cover. One connection serialises them.
        let store = Store::connect("sqlite::memory:").await.unwrap();
        let writes = (0..32).map(|i| {
            let store = store.clone();
            tokio::spawn(async move {
                let code = format!("C{i:05}");
                store.create_lobby(&lobby(&code), &seat(0, SeatKind::Human)).await
            })
        });
        for write in writes.collect::<Vec<_>>() {
            write.await.unwrap().unwrap();
        }
    }

    #[tokio::test]
    async fn a_group_commit_writes_every_row_of_a_large_batch_or_none() {
        let store = Store::connect("sqlite::memory:").await.unwrap();
        for (code, id) in [("AAAAAA", "m1"), ("BBBBBB", "m2")] {
            store
                .create_lobby(&lobby(code), &seat(0, SeatKind::Human))
                .await
                .unwrap();
            let record = MatchRecord {
                id: id.into(),
                game: "g".into(),
                options: json!({}),
                players: 2,
                seed: 1,
                rules_version: 1,
                started_at: 10,
                finished: false,
            };
            store.start_match(code, &record).await.unwrap();
        }
        let entry = |seq: u64| LogEntry {
            seq,
            actor: Actor::Seat(rules::Seat((seq % 2) as u8)),
            action: json!({"n": seq, "s": "a \"quoted\" text"}).into(),
            at: 100 + seq,
        };
        // The largest batch the committer makes (one INSERT of 2,560 parameters), interleaving two matches, one
        // with a snapshot.
        let largest = crate::commit::MAX_BATCH as u64;
        let entries: Vec<LogEntry> = (1..=largest).map(entry).collect();
        let snapshot = json!({"after": 40}).to_string();
        let appends: Vec<Append<'_>> = entries
            .iter()
            .map(|e| Append {
                match_id: if e.seq % 3 == 0 { "m2" } else { "m1" },
                lobby_code: if e.seq % 3 == 0 { "BBBBBB" } else { "AAAAAA" },
                entry: e,
                snapshot: (e.seq == 40).then_some(snapshot.as_str()),
                outcome: None,
            })
            .collect();
        store.append_batch(&appends).await.unwrap();
        let of = |m: u64| -> Vec<LogEntry> {
            entries
                .iter()
                .filter(|e| (e.seq % 3 == 0) == (m == 2))
                .cloned()
                .collect()
        };
        assert_eq!(store.action_log("m1").await.unwrap(), of(1));
        assert_eq!(store.action_log("m2").await.unwrap(), of(2));
        // A batch with one conflicting row (m1 already has seq 1) leaves nothing of itself behind.
        let more: Vec<LogEntry> = (largest + 1..=largest + 13)
            .map(entry)
            .chain([entry(1)])
            .collect();
        let appends: Vec<Append<'_>> = more
            .iter()
            .map(|e| Append {
                match_id: "m1",
                lobby_code: "AAAAAA",
                entry: e,
                snapshot: None,
                outcome: None,
            })
            .collect();
        assert!(matches!(
            store.append_batch(&appends).await,
            Err(StoreError::Conflict)
        ));
        assert_eq!(store.action_log("m1").await.unwrap(), of(1));
        // A batch refused by a statement after its actions' INSERT (a second result for m1) leaves none of its
        // actions behind either, and the connection takes the next batch.
        let outcome = Outcome {
            scores: vec![1, 0],
            placings: vec![1, 2],
            winners: vec![rules::Seat(0)],
        };
        let ends = |seq: u64| vec![entry(seq)];
        for (seq, written) in [(largest + 20, true), (largest + 21, false), (largest + 22, true)] {
            let entries = ends(seq);
            let append = Append {
                match_id: "m1",
                lobby_code: "AAAAAA",
                entry: &entries[0],
                snapshot: None,
                outcome: (seq != largest + 22).then_some(&outcome),
            };
            let result = store.append_batch(&[append]).await;
            assert_eq!(result.is_ok(), written, "seq {seq}: {result:?}");
            let last = store.action_log("m1").await.unwrap().last().map(|e| e.seq);
            assert_eq!(last, Some(if written { seq } else { largest + 20 }), "seq {seq}");
        }
    }

    #[tokio::test]
    async fn the_log_refuses_a_second_writer_and_recovery_reads_after_the_snapshot() {
        let store = Store::connect("sqlite::memory:").await.unwrap();
        store
            .create_lobby(&lobby("AAAAAA"), &seat(0, SeatKind::Human))
            .await
            .unwrap();
        assert!(matches!(
            store
                .create_lobby(&lobby("AAAAAA"), &seat(0, SeatKind::Human))
                .await,
            Err(StoreError::Conflict)
        ));
        store
            .insert_seat("AAAAAA", &seat(1, SeatKind::Bot))
            .await
            .unwrap();
        assert!(matches!(
            store.insert_seat("AAAAAA", &seat(1, SeatKind::Human)).await,
            Err(StoreError::Conflict)
        ));
        let record = MatchRecord {
            id: "m1".into(),
            game: "g".into(),
            options: json!({"a": 1}),
            players: 2,
            seed: u64::MAX - 3,
            rules_version: 4,
            started_at: 10,
            finished: false,
        };
        store.start_match("AAAAAA", &record).await.unwrap();
        let entry = |seq: u64| LogEntry {
            seq,
            actor: if seq.is_multiple_of(2) {
                Actor::Clock
            } else {
                Actor::Seat(rules::Seat(1))
            },
            action: json!({"n": seq}).into(),
            at: 100 + seq,
        };
        for seq in 1..=5 {
            let snapshot = json!({"after": seq}).to_string();
            let e = entry(seq);
            store
                .append(&Append {
                    match_id: "m1",
                    lobby_code: "AAAAAA",
                    entry: &e,
                    snapshot: (seq == 3).then_some(snapshot.as_str()),
                    outcome: None,
                })
                .await
                .unwrap();
        }
        // A second writer of sequence number 5 is refused, and nothing of its transaction remains.
        let again = Append {
            match_id: "m1",
            lobby_code: "AAAAAA",
            entry: &LogEntry {
                action: json!("other").into(),
                ..entry(5)
            },
            snapshot: None,
            outcome: None,
        };
        assert!(matches!(store.append(&again).await, Err(StoreError::Conflict)));
        let loaded = store.load_lobby("aaaaaa").await.unwrap();
        assert!(loaded.is_none(), "codes are stored upper case; callers normalise");
        let loaded = store.load_lobby("AAAAAA").await.unwrap().unwrap();
        assert_eq!(loaded.lobby.phase, Phase::Playing);
        assert_eq!(loaded.lobby.turn_timer_ms, Some(5_000));
        assert_eq!(loaded.seats.len(), 2);
        assert_eq!(loaded.seats[1].kind, SeatKind::Bot);
        let m = loaded.game.unwrap();
        assert_eq!(m.record.seed, u64::MAX - 3, "all 64 bits of the seed survive");
        assert_eq!(m.record.rules_version, 4);
        let snapshot = m.snapshot.unwrap();
        assert_eq!((snapshot.seq, snapshot.state), (3, json!({"after": 3})));
        assert_eq!(m.log_after_snapshot, vec![entry(4), entry(5)]);
        assert_eq!(store.action_log("m1").await.unwrap().len(), 5);
        assert_eq!(
            store.live_lobby_codes().await.unwrap(),
            vec!["AAAAAA".to_string()]
        );

        // Finishing: the result is stored and the lobby is no longer live.
        let outcome = rules::Outcome::ranked(vec![1, 2], vec![1, 2]);
        store
            .append(&Append {
                match_id: "m1",
                lobby_code: "AAAAAA",
                entry: &entry(6),
                snapshot: None,
                outcome: Some(&outcome),
            })
            .await
            .unwrap();
        assert!(store.live_lobby_codes().await.unwrap().is_empty());
        let loaded = store.load_lobby("AAAAAA").await.unwrap().unwrap();
        assert_eq!(loaded.lobby.phase, Phase::Finished);
        assert!(loaded.game.unwrap().record.finished);

        // A lobby everyone left is closed and no longer found.
        store
            .create_lobby(&lobby("BBBBBB"), &seat(0, SeatKind::Human))
            .await
            .unwrap();
        store.free_seat("BBBBBB", 0, None).await.unwrap();
        assert!(store.load_lobby("BBBBBB").await.unwrap().is_none());
        store.ping().await.unwrap();
    }
}

/// A lobby's absence policy and each seat's stand-in time, as stored (`0004_absence.sql`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredAbsence {
    /// `wait`, `bot` or `skip`.
    pub policy: String,
    pub grace_ms: u64,
    /// `(seat, stand_in_from)` for every seat.
    pub stand_in_from: Vec<(u8, Option<Millis>)>,
}

/// A rematch to create: the new lobby (already playing), its seats and its match.
#[derive(Clone, Debug)]
pub struct RematchRecord<'a> {
    pub lobby: &'a LobbyRecord,
    pub seats: &'a [SeatRecord],
    pub record: &'a MatchRecord,
    pub previous: &'a str,
    pub policy: &'a str,
    pub grace_ms: u64,
}

/// Absent players and rematches (issue 13).
impl Store {
    /// Records a lobby's absence policy (a new lobby has `wait`).
    pub async fn set_absence_policy(
        &self,
        code: &str,
        policy: &str,
        grace_ms: u64,
    ) -> Result<(), StoreError> {
        on_pool!(self, pool => {
            sqlx::query("UPDATE lobbies SET absent_policy = $1, absent_grace_ms = $2 WHERE code = $3")
                .bind(policy)
                .bind(to_i64(grace_ms))
                .bind(code)
                .execute(pool)
                .await
                .map(|_| ())
                .map_err(classify)
        })
    }

    /// Sets (or clears) the time from which the server stands in for a seat's player.
    pub async fn set_stand_in_from(
        &self,
        code: &str,
        seat: u8,
        from: Option<Millis>,
    ) -> Result<(), StoreError> {
        on_pool!(self, pool => {
            sqlx::query("UPDATE seats SET stand_in_from = $1 WHERE lobby_code = $2 AND seat = $3")
                .bind(from.map(to_i64))
                .bind(code)
                .bind(i64::from(seat))
                .execute(pool)
                .await
                .map(|_| ())
                .map_err(classify)
        })
    }

    /// A lobby's absence policy and stand-in times; `None` if there is no such lobby.
    pub async fn load_absence(&self, code: &str) -> Result<Option<StoredAbsence>, StoreError> {
        on_pool!(self, pool => {
            let Some(row) = sqlx::query("SELECT absent_policy, absent_grace_ms FROM lobbies WHERE code = $1")
                .bind(code)
                .fetch_optional(pool)
                .await
                .map_err(classify)?
            else {
                return Ok(None);
            };
            let mut stand_in_from = Vec::new();
            for seat in sqlx::query("SELECT seat, stand_in_from FROM seats WHERE lobby_code = $1 ORDER BY seat")
                .bind(code)
                .fetch_all(pool)
                .await
                .map_err(classify)?
            {
                stand_in_from.push((
                    small(seat.try_get("seat")?, "seat")?,
                    seat.try_get::<Option<i64>, _>("stand_in_from")?.map(|v| v as u64),
                ));
            }
            Ok(Some(StoredAbsence {
                policy: row.try_get("absent_policy")?,
                grace_ms: row.try_get::<i64, _>("absent_grace_ms")? as u64,
                stand_in_from,
            }))
        })
    }

    /// The code of the rematch that follows lobby `code`, if one was started.
    pub async fn rematch_of(&self, code: &str) -> Result<Option<String>, StoreError> {
        on_pool!(self, pool => {
            let row = sqlx::query("SELECT code FROM lobbies WHERE rematch_of = $1 ORDER BY created_at LIMIT 1")
                .bind(code)
                .fetch_optional(pool)
                .await
                .map_err(classify)?;
            row.map(|r| r.try_get::<String, _>("code").map_err(classify)).transpose()
        })
    }

    /// Creates a rematch in one transaction: the new lobby with its seats and absence policy, naming the lobby it
    /// follows, and its match, already started. Fails with [`StoreError::Conflict`] if the code is taken.
    pub async fn create_rematch(&self, rematch: &RematchRecord<'_>) -> Result<(), StoreError> {
        let lobby = rematch.lobby;
        let record = rematch.record;
        on_pool!(self, pool => {
            let mut tx = pool.begin().await?;
            sqlx::query(
                "INSERT INTO lobbies (code, game, options, seat_count, host_seat, turn_timer_ms, phase, created_at, \
                 absent_policy, absent_grace_ms, rematch_of) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)",
            )
            .bind(&lobby.code)
            .bind(&lobby.game)
            .bind(json_text(&lobby.options))
            .bind(i64::from(lobby.seat_count))
            .bind(i64::from(lobby.host_seat))
            .bind(lobby.turn_timer_ms.map(to_i64))
            .bind(Phase::Playing.as_str())
            .bind(to_i64(lobby.created_at))
            .bind(rematch.policy)
            .bind(to_i64(rematch.grace_ms))
            .bind(rematch.previous)
            .execute(&mut *tx)
            .await
            .map_err(classify)?;
            for seat in rematch.seats {
                insert_seat_query(&lobby.code, seat).execute(&mut *tx).await.map_err(classify)?;
            }
            insert_match_query(&lobby.code, record)
                .execute(&mut *tx)
            .await
            .map_err(classify)?;
            tx.commit().await.map_err(classify)
        })
    }
}
