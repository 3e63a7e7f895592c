//! One definition per row shape the store inserts: its table and columns, each with the PostgreSQL type of an
//! array of its values, and a Rust struct of its values in column order. Every INSERT of the row is generated from
//! that definition: the single-row statement (`$1, $2, ...`, the same text on both backends), a SQLite group
//! commit's `VALUES` rows (anonymous `?`) and a PostgreSQL group commit's `UNNEST` part (`$n::type[]`, numbered
//! from wherever the statement has got to). The generated text is made of these constants only: values are
//! always bound, in the order the definition lists the columns.

use std::fmt::Write;
use std::sync::LazyLock;

use sqlx::{Database, Encode, Type, query::Query};

use super::{Append, LobbyRecord, MatchRecord, SeatRecord, json_text, to_i64};
use rules::Outcome;

/// A column: its name and the PostgreSQL type of an array of its values (for `UNNEST`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Column {
    pub(crate) name: &'static str,
    pub(crate) pg_array: &'static str,
}

/// A table and the columns an INSERT of one row shape writes, in the order their values are bound.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RowShape {
    pub(crate) table: &'static str,
    pub(crate) columns: &'static [Column],
}

impl RowShape {
    /// `INSERT INTO table (a, b, c)`.
    pub(crate) fn write_head(&self, out: &mut String) {
        out.push_str("INSERT INTO ");
        out.push_str(self.table);
        out.push_str(" (");
        self.write_names(out);
        out.push(')');
    }

    fn write_names(&self, out: &mut String) {
        for (i, column) in self.columns.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            out.push_str(column.name);
        }
    }

    /// The single-row statement: `INSERT INTO table (a, b, c) VALUES ($1, $2, $3)`.
    pub(crate) fn single_insert(&self) -> String {
        let mut sql = String::new();
        self.write_head(&mut sql);
        sql.push_str(" VALUES (");
        for i in 1..=self.columns.len() {
            if i > 1 {
                sql.push_str(", ");
            }
            write!(sql, "${i}").expect("writing to a String");
        }
        sql.push(')');
        sql
    }

    /// A PostgreSQL batch's part for this shape, its columns bound as arrays numbered from `first`:
    /// `INSERT INTO table (a, b) SELECT * FROM UNNEST($first::text[], $next::int8[])`, keeping with a `filter` only
    /// the rows for which it holds (it names the columns as `r.a`, `r.b`).
    pub(crate) fn unnest_insert(&self, first: usize, filter: Option<&str>) -> String {
        let mut sql = String::new();
        self.write_head(&mut sql);
        sql.push_str(" SELECT * FROM UNNEST(");
        for (i, column) in self.columns.iter().enumerate() {
            if i > 0 {
                sql.push_str(", ");
            }
            write!(sql, "${}::{}", first + i, column.pg_array).expect("writing to a String");
        }
        sql.push(')');
        if let Some(filter) = filter {
            sql.push_str(" AS r (");
            self.write_names(&mut sql);
            sql.push_str(") WHERE ");
            sql.push_str(filter);
        }
        sql
    }

    /// The parameter (`$n::type[]`) that holds `column`'s array in a part numbered from `first`, for another part
    /// of the statement that reads it. Panics if the shape has no such column (when the statement is built).
    pub(crate) fn param(&self, first: usize, column: &str) -> String {
        let i = self
            .columns
            .iter()
            .position(|c| c.name == column)
            .unwrap_or_else(|| panic!("{} has no column {column}", self.table));
        format!("${}::{}", first + i, self.columns[i].pg_array)
    }
}

/// A row shape's values, bound in its columns' order.
pub(crate) trait ShapedRow: Sized {
    const SHAPE: RowShape;

    /// The single-row INSERT, built once from [`ShapedRow::SHAPE`].
    fn single_insert() -> &'static str;

    /// Binds the values to a SQLite batch and writes their placeholders: `?, ?, ?`.
    fn bind_sqlite(self, batch: &mut SqliteBatch);

    /// The single-row INSERT with this row's values bound.
    fn insert<'q, DB: Database>(self) -> Query<'q, DB, DB::Arguments>
    where
        Self: BindRow<DB>,
    {
        // A `&'static str` made of the shape's constants only (SqlSafeStr).
        self.bind(sqlx::query(Self::single_insert()))
    }
}

/// A row's values bound, in column order, to a statement of its shape on either backend.
pub(crate) trait BindRow<DB: Database> {
    fn bind<'q>(self, query: Query<'q, DB, DB::Arguments>) -> Query<'q, DB, DB::Arguments>;
}

/// Defines a row shape: a struct `$row<'a>` of its values (fields named as the columns, in their order) with
/// [`ShapedRow`] and [`BindRow`] for both backends; with `batch $columns`, also
/// `$columns<'a>`, the same values column by column for PostgreSQL's `UNNEST` (one array parameter each).
macro_rules! row_shape {
    (
        $(#[$doc:meta])*
        $row:ident: $table:literal { $($field:ident: $ty:ty => $pg:literal,)+ }
    ) => {
        $(#[$doc])*
        #[derive(Clone, Debug)]
        pub(crate) struct $row<'a> {
            $(pub(crate) $field: $ty,)+
        }

        impl ShapedRow for $row<'_> {
            const SHAPE: RowShape = RowShape {
                table: $table,
                columns: &[$(Column { name: stringify!($field), pg_array: $pg }),+],
            };

            fn single_insert() -> &'static str {
                static SQL: LazyLock<String> =
                    LazyLock::new(|| <$row<'static> as ShapedRow>::SHAPE.single_insert());
                SQL.as_str()
            }

            fn bind_sqlite(self, batch: &mut SqliteBatch) {
                batch.placeholders(<Self as ShapedRow>::SHAPE.columns.len());
                $(batch.add(self.$field);)+
            }
        }

        impl<'a, DB: Database> BindRow<DB> for $row<'a>
        where
            $($ty: Encode<'a, DB> + Type<DB>,)+
        {
            fn bind<'q>(self, query: Query<'q, DB, DB::Arguments>) -> Query<'q, DB, DB::Arguments> {
                query$(.bind(self.$field))+
            }
        }
    };
    (
        $(#[$doc:meta])*
        $row:ident, batch $columns:ident: $table:literal { $($field:ident: $ty:ty => $pg:literal,)+ }
    ) => {
        row_shape! { $(#[$doc])* $row: $table { $($field: $ty => $pg,)+ } }

        /// The rows of a PostgreSQL group commit, column by column: each column is one array parameter.
        #[derive(Debug, Default)]
        pub(crate) struct $columns<'a> {
            $($field: Vec<$ty>,)+
        }

        impl<'a> $columns<'a> {
            pub(crate) fn push(&mut self, row: $row<'a>) {
                $(self.$field.push(row.$field);)+
            }

            /// Binds the columns' arrays in the shape's order, as its `UNNEST` part numbers them.
            pub(crate) fn bind<'q>(self, query: PgQuery<'q>) -> PgQuery<'q> {
                query$(.bind(self.$field))+
            }
        }
    };
}

pub(crate) type PgQuery<'q> = sqlx::query::Query<'q, sqlx::Postgres, sqlx::postgres::PgArguments>;

row_shape! {
    /// A lobby with its absence policy and rules version, written whole in the statement that creates it
    /// (`Store::create_lobby`, a group commit's `Setup::CreateLobby`, `Store::create_rematch`).
    LobbyRow, batch LobbyColumns: "lobbies" {
        code: &'a str => "text[]",
        game: &'a str => "text[]",
        options: String => "text[]",
        seat_count: i64 => "int8[]",
        host_seat: i64 => "int8[]",
        turn_timer_ms: Option<i64> => "int8[]",
        phase: &'a str => "text[]",
        created_at: i64 => "int8[]",
        absent_policy: &'a str => "text[]",
        absent_grace_ms: i64 => "int8[]",
        rules_version: Option<i64> => "int8[]",
        rematch_of: Option<&'a str> => "text[]",
        pace: Option<String> => "text[]",
    }
}

row_shape! {
    /// A taken seat.
    SeatRow, batch SeatColumns: "seats" {
        lobby_code: &'a str => "text[]",
        seat: i64 => "int8[]",
        kind: &'a str => "text[]",
        name: &'a str => "text[]",
        token_hash: Option<&'a str> => "text[]",
    }
}

row_shape! {
    /// A started match.
    MatchRow, batch MatchColumns: "matches" {
        id: &'a str => "text[]",
        lobby_code: &'a str => "text[]",
        game: &'a str => "text[]",
        options: String => "text[]",
        players: i64 => "int8[]",
        seed: i64 => "int8[]",
        rules_version: i64 => "int8[]",
        status: &'a str => "text[]",
        started_at: i64 => "int8[]",
        to_decide: Option<&'a str> => "text[]",
    }
}

row_shape! {
    /// An action of the log.
    ActionRow, batch ActionColumns: "actions" {
        match_id: &'a str => "text[]",
        seq: i64 => "int8[]",
        actor: &'a str => "text[]",
        action: &'a str => "text[]",
        at: i64 => "int8[]",
        made_by: Option<&'a str> => "text[]",
        to_decide: Option<&'a str> => "text[]",
        clocks: Option<&'a str> => "text[]",
    }
}

row_shape! {
    /// The full state after an action.
    SnapshotRow, batch SnapshotColumns: "snapshots" {
        match_id: &'a str => "text[]",
        seq: i64 => "int8[]",
        state: &'a str => "text[]",
        at: i64 => "int8[]",
    }
}

row_shape! {
    /// A finished match's result.
    ResultRow, batch ResultColumns: "results" {
        match_id: &'a str => "text[]",
        outcome: String => "text[]",
        finished_at: i64 => "int8[]",
    }
}

impl<'a> LobbyRow<'a> {
    pub(crate) fn new(lobby: &'a LobbyRecord) -> Self {
        LobbyRow {
            code: &lobby.code,
            game: &lobby.game,
            options: json_text(&lobby.options),
            seat_count: i64::from(lobby.seat_count),
            host_seat: i64::from(lobby.host_seat),
            turn_timer_ms: lobby.turn_timer_ms.map(to_i64),
            phase: lobby.phase.as_str(),
            created_at: to_i64(lobby.created_at),
            absent_policy: &lobby.absent_policy,
            absent_grace_ms: to_i64(lobby.absent_grace_ms),
            rules_version: lobby.rules_version.map(i64::from),
            rematch_of: lobby.rematch_of.as_deref(),
            pace: super::records::pace_text(&lobby.pace),
        }
    }
}

impl<'a> SeatRow<'a> {
    pub(crate) fn new(code: &'a str, seat: &'a SeatRecord) -> Self {
        SeatRow {
            lobby_code: code,
            seat: i64::from(seat.seat),
            kind: seat.kind.as_str(),
            name: &seat.name,
            token_hash: seat.token_hash.as_deref(),
        }
    }
}

impl<'a> MatchRow<'a> {
    /// A lobby's match, playing from its start.
    pub(crate) fn new(code: &'a str, record: &'a MatchRecord) -> Self {
        MatchRow {
            id: &record.id,
            lobby_code: code,
            game: &record.game,
            options: json_text(&record.options),
            players: i64::from(record.players),
            // The u64's bits, as the migrations say.
            seed: record.seed as i64,
            rules_version: i64::from(record.rules_version),
            status: "playing",
            started_at: to_i64(record.started_at),
            to_decide: record.to_decide.as_deref(),
        }
    }
}

impl<'a> ActionRow<'a> {
    pub(crate) fn new(append: &Append<'a>) -> Self {
        let entry = append.entry;
        ActionRow {
            match_id: append.match_id,
            seq: to_i64(entry.seq),
            actor: entry.actor.json_text(),
            action: entry.action.get(),
            at: to_i64(entry.at),
            made_by: (entry.by != protocol::ActedBy::Unknown).then(|| entry.by.as_str()),
            to_decide: append.to_decide,
            clocks: append.clocks,
        }
    }
}

impl<'a> SnapshotRow<'a> {
    /// The snapshot an append carries, if it carries one.
    pub(crate) fn new(append: &Append<'a>) -> Option<Self> {
        append.snapshot.map(|state| SnapshotRow {
            match_id: append.match_id,
            seq: to_i64(append.entry.seq),
            state,
            at: to_i64(append.entry.at),
        })
    }
}

impl<'a> ResultRow<'a> {
    /// The result an append carries, if it ended its match.
    pub(crate) fn new(append: &Append<'a>) -> Option<Self> {
        append.outcome.map(|outcome: &Outcome| ResultRow {
            match_id: append.match_id,
            outcome: serde_json::to_string(outcome).expect("outcomes serialise"),
            finished_at: to_i64(append.entry.at),
        })
    }
}

/// A SQLite group commit's text and its bound values, built together: the text is made of constant statements and
/// placeholders, never of data.
pub(crate) struct SqliteBatch {
    pub(super) sql: String,
    pub(super) args: sqlx::sqlite::SqliteArguments,
}

impl SqliteBatch {
    pub(super) fn new(capacity: usize) -> Self {
        SqliteBatch {
            sql: String::with_capacity(capacity),
            args: Default::default(),
        }
    }

    pub(super) fn sql(&mut self, text: &str) -> &mut Self {
        self.sql.push_str(text);
        self
    }

    /// Binds `value` as the next parameter and writes its placeholder: an anonymous `?`, which sqlx binds in
    /// order across the query's statements. Named ones (`$7`) cost SQLite a linear search of the statement's
    /// names, in its parser and again in every bind: quadratic in a 2,560-parameter INSERT (strncmp and
    /// `sqlite3_bind_parameter_name` took more of its thread than the writing).
    pub(super) fn bind<'q, T>(&mut self, value: T) -> &mut Self
    where
        T: sqlx::Encode<'q, sqlx::Sqlite> + sqlx::Type<sqlx::Sqlite>,
    {
        self.add(value);
        self.sql.push('?');
        self
    }

    /// Writes `n` placeholders, `?, ?, ?`, for the next `n` values [`SqliteBatch::add`] binds (a row's values).
    pub(crate) fn placeholders(&mut self, n: usize) {
        for i in 0..n {
            self.sql.push_str(if i == 0 { "?" } else { ", ?" });
        }
    }

    /// Binds `value` as the next parameter, whose placeholder is written apart ([`SqliteBatch::placeholders`]).
    pub(crate) fn add<'q, T>(&mut self, value: T)
    where
        T: sqlx::Encode<'q, sqlx::Sqlite> + sqlx::Type<sqlx::Sqlite>,
    {
        sqlx::Arguments::add(&mut self.args, value).expect("text and integers always encode");
    }

    /// One multi-row INSERT of `rows` (nothing if there are none): `INSERT INTO table (a, b) VALUES (?, ?), (?, ?);`.
    pub(super) fn insert<R: ShapedRow>(&mut self, rows: impl IntoIterator<Item = R>) {
        let mut rows = rows.into_iter().peekable();
        if rows.peek().is_none() {
            return;
        }
        R::SHAPE.write_head(&mut self.sql);
        self.sql.push_str(" VALUES ");
        for (i, row) in rows.enumerate() {
            self.sql.push_str(if i == 0 { "(" } else { ", (" });
            row.bind_sqlite(self);
            self.sql.push(')');
        }
        self.sql.push_str(";\n");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statements_are_generated_from_the_column_list() {
        assert_eq!(
            <SeatRow<'_> as ShapedRow>::SHAPE.single_insert(),
            "INSERT INTO seats (lobby_code, seat, kind, name, token_hash) VALUES ($1, $2, $3, $4, $5)"
        );
        let results = <ResultRow<'_> as ShapedRow>::SHAPE;
        assert_eq!(
            results.unnest_insert(7, None),
            "INSERT INTO results (match_id, outcome, finished_at) \
             SELECT * FROM UNNEST($7::text[], $8::text[], $9::int8[])"
        );
        assert_eq!(
            results.unnest_insert(1, Some("r.match_id <> ''")),
            "INSERT INTO results (match_id, outcome, finished_at) \
             SELECT * FROM UNNEST($1::text[], $2::text[], $3::int8[]) AS r (match_id, outcome, finished_at) \
             WHERE r.match_id <> ''"
        );
        assert_eq!(results.param(7, "finished_at"), "$9::int8[]");
    }
}
