//! The group commit's writes ([`Store::write_batch`]): a batch of [`Setup`]s and [`Append`]s written in one
//! transaction, as ONE statement of array parameters on PostgreSQL and ONE query of several statements on SQLite.
//! Both are generated from the row shapes of [`super::rows`].

use std::sync::LazyLock;

use sqlx::{PgPool, Row, SqlitePool};
use tracing::warn;

use super::notify::{Notice, NoticeColumns, bind_notice, notices_unnest};
use super::rows::{
    ActionColumns, ActionRow, LobbyColumns, LobbyRow, MatchColumns, MatchRow, PgQuery, ResultColumns,
    ResultRow, RowShape, SeatColumns, SeatRow, ShapedRow, SnapshotColumns, SnapshotRow, SqliteBatch,
};
use super::{Append, Db, Phase, Setup, Store, StoreError, classify, to_i64};

/// SQLite: a whole group commit as ONE query of several statements, `BEGIN` to `COMMIT`, which sqlx's SQLite
/// worker thread runs in one go. Written statement by statement, a batch was ~25 round trips between the writer
/// task and that thread (`BEGIN`, the set-ups, the action inserts, every snapshot and result, `COMMIT`), each
/// waiting for a turn on the busy runtime: ~16 ms per commit of which the thread worked ~6 (docs/performance.md,
/// "Measured reasons"). The text changes with the batch's shape, so it is not kept prepared.
///
/// A new lobby whose code is taken is skipped (`ON CONFLICT DO NOTHING`) and so is its host's seat (`changes()`
/// is 0 after a skipped insert); each written lobby returns its index in `setups`, so the caller learns which
/// were left out. On an error the statements after the failing one do not run and the transaction is still
/// open: the caller rolls it back.
fn sqlite_batch(setups: &[Setup<'_>], appends: &[Append<'_>], notices: &[Notice]) -> SqliteBatch {
    let mut b = SqliteBatch::new(64 + setups.len() * 200 + appends.len() * 40);
    b.sql("BEGIN;\n");
    for (i, setup) in setups.iter().enumerate() {
        match *setup {
            Setup::CreateLobby { lobby, host } => {
                LobbyRow::SHAPE.write_head(&mut b.sql);
                b.sql(" VALUES (");
                LobbyRow::new(lobby).bind_sqlite(&mut b);
                b.sql(") ON CONFLICT (code) DO NOTHING RETURNING ")
                    .bind(i as i64)
                    .sql(";\n");
                SeatRow::SHAPE.write_head(&mut b.sql);
                b.sql(" SELECT ");
                SeatRow::new(&lobby.code, host).bind_sqlite(&mut b);
                b.sql(" WHERE changes() = 1;\n");
            }
            Setup::InsertSeat { code, seat } => b.insert([SeatRow::new(code, seat)]),
            Setup::StartMatch { code, record } => {
                b.insert([MatchRow::new(code, record)]);
                b.sql("UPDATE lobbies SET phase = ")
                    .bind(Phase::Playing.as_str())
                    .sql(" WHERE code = ")
                    .bind(code)
                    .sql(";\n");
            }
        }
    }
    // The actions in one multi-row INSERT (6 parameters a row: 3,072 for the largest batch, far below SQLite's
    // 32,766 per statement), then the rare snapshots and results (a multi-row INSERT each) and the finished
    // matches' and lobbies' rows.
    b.insert(appends.iter().map(ActionRow::new));
    b.insert(appends.iter().filter_map(SnapshotRow::new));
    b.insert(appends.iter().filter_map(ResultRow::new));
    for append in appends.iter().filter(|a| a.outcome.is_some()) {
        b.sql("UPDATE matches SET status = ")
            .bind("finished")
            .sql(", finished_at = ")
            .bind(to_i64(append.entry.at))
            .sql(" WHERE id = ")
            .bind(append.match_id)
            .sql(";\nUPDATE lobbies SET phase = ")
            .bind(Phase::Finished.as_str())
            .sql(" WHERE code = ")
            .bind(append.lobby_code)
            .sql(";\n");
    }
    // Notifications caused by these actions, one row per active endpoint of each seat (`store/notify.rs`).
    for notice in notices {
        bind_notice(&mut b, notice);
    }
    b.sql("COMMIT;");
    b
}

/// [`Store::write_batch`] on PostgreSQL: ONE statement, run outside an explicit transaction: one round trip
/// instead of BEGIN, the INSERTs, the snapshots' and results' statements and COMMIT (+4.5 % actions/s;
/// docs/performance.md, "Measured reasons"). A single statement is atomic in PostgreSQL, and with the default
/// synchronous_commit durable when it returns, so the batch is still all-or-nothing.
async fn write_batch_pg(
    pool: &PgPool,
    setups: &[Setup<'_>],
    appends: &[Append<'_>],
    notices: &[Notice],
) -> Result<Vec<usize>, StoreError> {
    let rows = PgBatch::new(setups, appends, notices)
        .bind()
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
    notices: &[Notice],
) -> Result<Vec<usize>, StoreError> {
    let batch = sqlite_batch(setups, appends, notices);
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

/// PostgreSQL: a whole group commit as one statement of array parameters, the same text whatever the batch holds
/// (one prepared statement per connection). It returns the codes of the new lobbies it did not write because the
/// code was taken (their hosts' seats are not written either). Data-modifying `WITH` parts write the [`Setup`]s'
/// new lobbies, their hosts' seats, the other seats and the started matches, then the snapshots, the results, the
/// finished matches' and lobbies' rows and the actions; each INSERT is its row shape's `UNNEST` part. The parts
/// touch different rows (a table has one write in flight, so a lobby is never both started and finished in one
/// batch), so it does not matter that they do not see each other's changes; the seats' foreign key is checked at
/// the end of the statement, when a lobby created in the same batch is there.
///
/// The parameters are numbered here in the order [`PgBatch::bind`] binds them.
static PG_BATCH: LazyLock<String> = LazyLock::new(|| {
    let mut next = 1;
    let mut place = |shape: RowShape| {
        let first = next;
        next += shape.columns.len();
        (shape, first)
    };
    let lobbies = place(LobbyRow::SHAPE);
    let hosts = place(SeatRow::SHAPE);
    let seats = place(SeatRow::SHAPE);
    let matches = place(MatchRow::SHAPE);
    let snapshots = place(SnapshotRow::SHAPE);
    let results = place(ResultRow::SHAPE);
    let actions = place(ActionRow::SHAPE);
    let (playing, finished_status, finished_phase, finished_lobbies) = (next, next + 1, next + 2, next + 3);
    let notices = next + 4;
    let insert = |(shape, first): (RowShape, usize)| shape.unnest_insert(first, None);
    let column = |(shape, first): (RowShape, usize), name: &str| shape.param(first, name);
    format!(
        "WITH new_lobby AS ({} ON CONFLICT (code) DO NOTHING RETURNING code), \
         new_host AS ({}), \
         new_seat AS ({}), \
         started AS ({}), \
         playing AS (UPDATE lobbies SET phase = ${playing} WHERE code = ANY({})), \
         snapshot AS ({}), \
         result AS ({}), \
         finished AS (UPDATE matches SET status = ${finished_status}, finished_at = f.at \
             FROM UNNEST({}, {}) AS f (id, at) WHERE matches.id = f.id), \
         lobby AS (UPDATE lobbies SET phase = ${finished_phase} WHERE code = ANY(${finished_lobbies}::text[])), \
         logged AS ({}), \
         noticed AS ({}) \
         SELECT code FROM UNNEST({}) AS c (code) WHERE code NOT IN (SELECT code FROM new_lobby)",
        insert(lobbies),
        hosts
            .0
            .unnest_insert(hosts.1, Some("r.lobby_code IN (SELECT code FROM new_lobby)")),
        insert(seats),
        insert(matches),
        column(matches, "lobby_code"),
        insert(snapshots),
        insert(results),
        column(results, "match_id"),
        column(results, "finished_at"),
        insert(actions),
        notices_unnest(notices),
        column(lobbies, "code"),
    )
});

/// A PostgreSQL group commit's values, column by column, bound in [`PG_BATCH`]'s order.
#[derive(Debug, Default)]
struct PgBatch<'a> {
    lobbies: LobbyColumns<'a>,
    /// The new lobbies' hosts, written only with their lobby.
    hosts: SeatColumns<'a>,
    seats: SeatColumns<'a>,
    matches: MatchColumns<'a>,
    snapshots: SnapshotColumns<'a>,
    results: ResultColumns<'a>,
    actions: ActionColumns<'a>,
    finished_lobbies: Vec<&'a str>,
    notices: NoticeColumns<'a>,
}

impl<'a> PgBatch<'a> {
    fn new(setups: &[Setup<'a>], appends: &[Append<'a>], notices: &'a [Notice]) -> Self {
        let mut batch = PgBatch::default();
        for notice in notices {
            batch.notices.push(notice);
        }
        for setup in setups {
            match *setup {
                Setup::CreateLobby { lobby, host } => {
                    batch.lobbies.push(LobbyRow::new(lobby));
                    batch.hosts.push(SeatRow::new(&lobby.code, host));
                }
                Setup::InsertSeat { code, seat } => batch.seats.push(SeatRow::new(code, seat)),
                Setup::StartMatch { code, record } => batch.matches.push(MatchRow::new(code, record)),
            }
        }
        for append in appends {
            // Borrowed, not copied: sqlx encodes every parameter as it is bound.
            batch.actions.push(ActionRow::new(append));
            if let Some(snapshot) = SnapshotRow::new(append) {
                batch.snapshots.push(snapshot);
            }
            if let Some(result) = ResultRow::new(append) {
                batch.results.push(result);
                batch.finished_lobbies.push(append.lobby_code);
            }
        }
        batch
    }

    fn bind(self) -> PgQuery<'a> {
        let query = sqlx::query(PG_BATCH.as_str());
        let query = self.lobbies.bind(query);
        let query = self.hosts.bind(query);
        let query = self.seats.bind(query);
        let query = self.matches.bind(query);
        let query = self.snapshots.bind(query);
        let query = self.results.bind(query);
        let query = self.actions.bind(query);
        let query = query
            .bind(Phase::Playing.as_str())
            .bind("finished")
            .bind(Phase::Finished.as_str())
            .bind(self.finished_lobbies);
        self.notices.bind(query)
    }
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
        self.write_batch_with(setups, appends, &[]).await
    }

    /// [`Store::write_batch`] with the notifications these writes cause, in the same transaction: one outbox row
    /// per active endpoint of each notice's seat (`store/notify.rs`).
    pub async fn write_batch_with(
        &self,
        setups: &[Setup<'_>],
        appends: &[Append<'_>],
        notices: &[Notice],
    ) -> Result<Vec<usize>, StoreError> {
        self.guarded(async {
            match &self.db {
                Db::Postgres(pool) => write_batch_pg(pool, setups, appends, notices).await,
                Db::Sqlite(pool) => write_batch_sqlite(pool, setups, appends, notices).await,
            }
        })
        .await
    }
}

#[cfg(test)]
mod tests {
    use sqlx::{Arguments, Execute};

    use super::*;

    #[test]
    fn the_postgres_batch_binds_every_parameter_its_statement_numbers() {
        let mut numbers: Vec<usize> = PG_BATCH
            .split('$')
            .skip(1)
            .map(|after| {
                let digits: String = after.chars().take_while(char::is_ascii_digit).collect();
                digits.parse().expect("every `$` starts a parameter")
            })
            .collect();
        numbers.sort_unstable();
        numbers.dedup();
        let mut query = PgBatch::new(&[], &[], &[]).bind();
        let bound = query.take_arguments().unwrap().unwrap().len();
        assert_eq!(numbers, (1..=bound).collect::<Vec<_>>(), "{}", *PG_BATCH);
    }
}
