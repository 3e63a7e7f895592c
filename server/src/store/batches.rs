//! The group commit's writes ([`Store::write_batch`]): a batch of [`Setup`]s and [`Append`]s written in one
//! transaction, as ONE statement of array parameters on PostgreSQL and ONE query of several statements on SQLite.

use sqlx::{PgPool, Row, SqlitePool};
use tracing::warn;

use super::{Append, Phase, SeatRecord, Setup, Store, StoreError, classify, json_text, to_i64};

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

impl Store {
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
}
