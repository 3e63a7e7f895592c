//! The SQLite and PostgreSQL schemas match after all migrations (`migrations/README.md`): the same tables, the same
//! columns in the same order with equivalent types (INTEGER and BIGINT are one integer, BLOB and BYTEA one byte
//! string), the same nullability, primary keys, unique constraints, indexes (name, columns, uniqueness, partial
//! predicate) and foreign keys, except the deliberate differences listed in [`ALLOWED`]. And the two migration
//! folders are numbered alike from now on.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use integration_tests::{TestDb, backends};
use server::store::Db;
use sqlx::{PgPool, Row, SqlitePool};

/// The last number at which the folders' numbering diverged (`postgres/0005_actions_without_fk.sql` has no SQLite
/// counterpart; `sqlite/0007` is empty to level them). Every later migration exists in both with the same name.
const LEVELLED_AT: u32 = 7;

/// A deliberate difference: something one backend's schema has and the other's has not.
struct Allowed {
    only_in: &'static str,
    table: &'static str,
    thing: Thing,
    why: &'static str,
}

/// Every deliberate difference between the schemas. Each must still be there (a stale entry fails too).
const ALLOWED: &[Allowed] = &[
    Allowed {
        only_in: "sqlite",
        table: "actions",
        thing: Thing::ForeignKey {
            columns: &["match_id"],
            references: "matches",
            to: &["id"],
        },
        why: "postgres/0005_actions_without_fk.sql: PostgreSQL would lock the match's row for every action inserted",
    },
    Allowed {
        only_in: "postgres",
        table: "nodes",
        thing: Thing::Table,
        why: "postgres/0008_cluster.sql: cluster mode's node registry; cluster mode needs PostgreSQL",
    },
    Allowed {
        only_in: "postgres",
        table: "table_leases",
        thing: Thing::Table,
        why: "postgres/0008_cluster.sql: cluster mode's leases with fencing epochs; cluster mode needs PostgreSQL",
    },
    Allowed {
        only_in: "postgres",
        table: "cluster_secret_check",
        thing: Thing::Table,
        why: "postgres/0012_cluster_secret_check.sql: the cluster secret's check value; cluster mode needs PostgreSQL",
    },
    Allowed {
        only_in: "postgres",
        table: "lobby_creations",
        thing: Thing::Table,
        why: "postgres/0013_lobby_creations.sql: cluster mode's count of lobby creations per address; a single node \
              counts in memory",
    },
];

enum Thing {
    /// A whole table.
    Table,
    ForeignKey {
        columns: &'static [&'static str],
        references: &'static str,
        to: &'static [&'static str],
    },
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Column {
    name: String,
    /// Normalised: `integer`, `text`, `real` or `bytes`.
    kind: &'static str,
    not_null: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Index {
    columns: Vec<String>,
    unique: bool,
    /// The `WHERE` of a partial index, normalised (lower case, no parentheses, single spaces).
    predicate: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct ForeignKey {
    columns: Vec<String>,
    references: String,
    to: Vec<String>,
}

#[derive(Debug, Default, PartialEq, Eq)]
struct Table {
    columns: Vec<Column>,
    primary_key: Vec<String>,
    /// The column lists of UNIQUE constraints (other than the primary key).
    unique: BTreeSet<Vec<String>>,
    /// Indexes made by CREATE INDEX, by name.
    indexes: BTreeMap<String, Index>,
    foreign_keys: BTreeSet<ForeignKey>,
}

type Schema = BTreeMap<String, Table>;

/// One name for each backend's spelling of a type; a type not listed here fails the test until it is added.
fn kind(declared: &str) -> &'static str {
    match declared.to_ascii_lowercase().as_str() {
        "integer" | "int" | "bigint" | "int8" | "smallint" => "integer",
        "text" => "text",
        "real" | "double precision" | "float8" => "real",
        "blob" | "bytea" => "bytes",
        // Only in PostgreSQL-only tables (cluster mode's leases, on the database's clock).
        "timestamp with time zone" => "time",
        other => panic!("column type `{other}`: add it to schema_match.rs's normalisation"),
    }
}

fn predicate(text: &str) -> String {
    let text = text.replace(['(', ')'], " ").to_ascii_lowercase();
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

async fn sqlite_schema(pool: &SqlitePool) -> Schema {
    let mut schema = Schema::new();
    let tables: Vec<String> = sqlx::query_scalar(
        "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' \
         AND name <> '_sqlx_migrations' ORDER BY name",
    )
    .fetch_all(pool)
    .await
    .unwrap();
    for name in tables {
        let mut table = Table::default();
        let mut key = Vec::new();
        for row in sqlx::query(r#"SELECT name, type, "notnull", pk FROM pragma_table_info($1) ORDER BY cid"#)
            .bind(&name)
            .fetch_all(pool)
            .await
            .unwrap()
        {
            let column: String = row.get("name");
            let pk: i64 = row.get("pk");
            if pk > 0 {
                key.push((pk, column.clone()));
            }
            table.columns.push(Column {
                kind: kind(row.get("type")),
                // PostgreSQL makes every primary key column NOT NULL; SQLite does so only where it is declared
                // (or for an INTEGER PRIMARY KEY). The store never writes a NULL key, so both count as NOT NULL.
                not_null: row.get::<i64, _>("notnull") == 1 || pk > 0,
                name: column,
            });
        }
        key.sort();
        table.primary_key = key.into_iter().map(|(_, c)| c).collect();
        for index in sqlx::query(r#"SELECT name, "unique", origin FROM pragma_index_list($1)"#)
            .bind(&name)
            .fetch_all(pool)
            .await
            .unwrap()
        {
            let index_name: String = index.get("name");
            let columns: Vec<String> =
                sqlx::query_scalar("SELECT name FROM pragma_index_info($1) ORDER BY seqno")
                    .bind(&index_name)
                    .fetch_all(pool)
                    .await
                    .unwrap();
            match index.get::<String, _>("origin").as_str() {
                "pk" => assert_eq!(columns, table.primary_key, "{name}: primary key index"),
                "u" => {
                    table.unique.insert(columns);
                }
                _ => {
                    let sql: String = sqlx::query_scalar("SELECT sql FROM sqlite_schema WHERE name = $1")
                        .bind(&index_name)
                        .fetch_one(pool)
                        .await
                        .unwrap();
                    let upper = sql.to_ascii_uppercase();
                    table.indexes.insert(
                        index_name,
                        Index {
                            columns,
                            unique: index.get::<i64, _>("unique") == 1,
                            predicate: upper.find(" WHERE ").map(|at| predicate(&sql[at + 7..])),
                        },
                    );
                }
            }
        }
        let mut keys: BTreeMap<i64, ForeignKey> = BTreeMap::new();
        for row in sqlx::query(
            r#"SELECT id, "table", "from", "to" FROM pragma_foreign_key_list($1) ORDER BY id, seq"#,
        )
        .bind(&name)
        .fetch_all(pool)
        .await
        .unwrap()
        {
            let key = keys.entry(row.get("id")).or_insert_with(|| ForeignKey {
                columns: vec![],
                references: row.get("table"),
                to: vec![],
            });
            key.columns.push(row.get("from"));
            key.to.push(row.get("to"));
        }
        table.foreign_keys = keys.into_values().collect();
        schema.insert(name, table);
    }
    schema
}

/// A constraint's or index's columns, in order, by name.
const COLUMNS_OF: &str = "ARRAY(SELECT a.attname::text FROM unnest(KEYS) WITH ORDINALITY AS k (n, i) \
                          JOIN pg_attribute a ON a.attrelid = REL AND a.attnum = k.n ORDER BY k.i)";

async fn postgres_schema(pool: &PgPool) -> Schema {
    let mut schema = Schema::new();
    let tables: Vec<String> = sqlx::query_scalar(
        "SELECT table_name::text FROM information_schema.tables WHERE table_schema = 'public' \
         AND table_type = 'BASE TABLE' AND table_name <> '_sqlx_migrations' ORDER BY table_name",
    )
    .fetch_all(pool)
    .await
    .unwrap();
    let constraint_columns = COLUMNS_OF
        .replace("KEYS", "c.conkey")
        .replace("REL", "c.conrelid");
    let referenced_columns = COLUMNS_OF
        .replace("KEYS", "c.confkey")
        .replace("REL", "c.confrelid");
    let index_columns = COLUMNS_OF
        .replace("KEYS", "ix.indkey::int2[]")
        .replace("REL", "ix.indrelid");
    // The statements are made of the constants above; the table names are bound.
    let constraints = format!(
        "SELECT c.contype::text AS kind, {constraint_columns} AS columns, c.confrelid::regclass::text AS refers, \
         {referenced_columns} AS to_columns FROM pg_constraint c WHERE c.conrelid = $1::regclass \
         AND c.contype IN ('p', 'u', 'f')"
    );
    let indexes = format!(
        "SELECT i.relname::text AS name, ix.indisunique AS is_unique, \
         pg_get_expr(ix.indpred, ix.indrelid) AS predicate, {index_columns} AS columns \
         FROM pg_index ix JOIN pg_class i ON i.oid = ix.indexrelid WHERE ix.indrelid = $1::regclass \
         AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = ix.indexrelid)"
    );
    for name in tables {
        let mut table = Table::default();
        for row in sqlx::query(
            "SELECT column_name::text AS name, data_type::text AS type, is_nullable::text AS nullable \
             FROM information_schema.columns WHERE table_schema = 'public' AND table_name = $1 \
             ORDER BY ordinal_position",
        )
        .bind(&name)
        .fetch_all(pool)
        .await
        .unwrap()
        {
            table.columns.push(Column {
                name: row.get("name"),
                kind: kind(row.get("type")),
                not_null: row.get::<String, _>("nullable") == "NO",
            });
        }
        for row in sqlx::query(sqlx::AssertSqlSafe(constraints.as_str()))
            .bind(&name)
            .fetch_all(pool)
            .await
            .unwrap()
        {
            let columns: Vec<String> = row.get("columns");
            match row.get::<String, _>("kind").as_str() {
                "p" => table.primary_key = columns,
                "u" => {
                    table.unique.insert(columns);
                }
                _ => {
                    table.foreign_keys.insert(ForeignKey {
                        columns,
                        references: row.get("refers"),
                        to: row.get("to_columns"),
                    });
                }
            }
        }
        for row in sqlx::query(sqlx::AssertSqlSafe(indexes.as_str()))
            .bind(&name)
            .fetch_all(pool)
            .await
            .unwrap()
        {
            table.indexes.insert(
                row.get("name"),
                Index {
                    columns: row.get("columns"),
                    unique: row.get("is_unique"),
                    predicate: row.get::<Option<String>, _>("predicate").map(|p| predicate(&p)),
                },
            );
        }
        schema.insert(name, table);
    }
    schema
}

/// Every difference between the two schemas, one line each.
fn differences(sqlite: &Schema, postgres: &Schema) -> Vec<String> {
    let mut out = Vec::new();
    let names: BTreeSet<&String> = sqlite.keys().chain(postgres.keys()).collect();
    for name in names {
        let (Some(s), Some(p)) = (sqlite.get(name), postgres.get(name)) else {
            let only = if sqlite.contains_key(name) {
                "SQLite"
            } else {
                "PostgreSQL"
            };
            out.push(format!("table {name}: only in {only}"));
            continue;
        };
        if s.columns != p.columns {
            out.push(format!(
                "{name} columns:\n  SQLite     {:?}\n  PostgreSQL {:?}",
                s.columns, p.columns
            ));
        }
        if s.primary_key != p.primary_key {
            out.push(format!(
                "{name} primary key: SQLite {:?}, PostgreSQL {:?}",
                s.primary_key, p.primary_key
            ));
        }
        if s.unique != p.unique {
            out.push(format!(
                "{name} unique: SQLite {:?}, PostgreSQL {:?}",
                s.unique, p.unique
            ));
        }
        if s.indexes != p.indexes {
            out.push(format!(
                "{name} indexes: SQLite {:?}, PostgreSQL {:?}",
                s.indexes, p.indexes
            ));
        }
        if s.foreign_keys != p.foreign_keys {
            out.push(format!(
                "{name} foreign keys: SQLite {:?}, PostgreSQL {:?}",
                s.foreign_keys, p.foreign_keys
            ));
        }
    }
    out
}

/// Takes each allowed difference out of the schema that has it, after checking that it is still there and that
/// the other schema still has it not.
fn remove_allowed(sqlite: &mut Schema, postgres: &mut Schema) {
    for allowed in ALLOWED {
        let (has, lacks) = match allowed.only_in {
            "sqlite" => (&mut *sqlite, &*postgres),
            "postgres" => (&mut *postgres, &*sqlite),
            other => panic!("unknown backend {other}"),
        };
        let stale = format!(
            "the allowed difference ({}) is gone: remove it from ALLOWED",
            allowed.why
        );
        let Thing::ForeignKey {
            columns,
            references,
            to,
        } = allowed.thing
        else {
            assert!(!lacks.contains_key(allowed.table), "{stale}");
            assert!(has.remove(allowed.table).is_some(), "{stale}");
            continue;
        };
        let key = ForeignKey {
            columns: columns.iter().map(|c| c.to_string()).collect(),
            references: references.to_string(),
            to: to.iter().map(|c| c.to_string()).collect(),
        };
        assert!(!lacks[allowed.table].foreign_keys.contains(&key), "{stale}");
        let table = has.get_mut(allowed.table).expect(&stale);
        assert!(table.foreign_keys.remove(&key), "{stale}");
    }
}

#[tokio::test]
async fn sqlite_and_postgres_schemas_match_after_all_migrations() {
    if !backends().contains(&"postgres") {
        assert!(
            std::env::var("CI").is_err(),
            "this test needs PostgreSQL: set TEST_DATABASE_URL in CI"
        );
        eprintln!("skipped: TEST_DATABASE_URL is not set (compares with PostgreSQL)");
        return;
    }
    let (sqlite_db, postgres_db) = (TestDb::new("sqlite").await, TestDb::new("postgres").await);
    let (sqlite_store, postgres_store) = (sqlite_db.store().await, postgres_db.store().await);
    let (Db::Sqlite(sqlite), Db::Postgres(postgres)) =
        (sqlite_store.db().clone(), postgres_store.db().clone())
    else {
        panic!("each test database opens as its own backend");
    };
    let mut sqlite_schema = sqlite_schema(&sqlite).await;
    let mut postgres_schema = postgres_schema(&postgres).await;
    // The test sees what it compares: the store's tables, with their keys and indexes.
    for table in [
        "lobbies",
        "seats",
        "matches",
        "actions",
        "snapshots",
        "results",
        "admin_audit",
        "chat_messages",
    ] {
        assert!(sqlite_schema.contains_key(table), "{table}: {sqlite_schema:?}");
    }
    assert_eq!(
        sqlite_schema["matches"].unique,
        BTreeSet::from([vec!["lobby_code".to_string()]])
    );
    assert!(
        sqlite_schema["lobbies"].indexes["lobbies_by_rematch_of"]
            .predicate
            .is_some()
    );
    remove_allowed(&mut sqlite_schema, &mut postgres_schema);
    let differences = differences(&sqlite_schema, &postgres_schema);
    assert!(
        differences.is_empty(),
        "the schemas differ (make the migrations match, or list a deliberate difference in ALLOWED):\n{}",
        differences.join("\n")
    );
    // Both applied every migration of their folder.
    let applied = "SELECT COUNT(*) FROM _sqlx_migrations WHERE success";
    let sqlite_applied: i64 = sqlx::query_scalar(applied).fetch_one(&sqlite).await.unwrap();
    let postgres_applied: i64 = sqlx::query_scalar(applied).fetch_one(&postgres).await.unwrap();
    assert_eq!(sqlite_applied, i64::from(last_number(&migrations("sqlite"))));
    assert_eq!(postgres_applied, i64::from(last_number(&migrations("postgres"))));
    sqlite.close().await;
    postgres.close().await;
    sqlite_db.drop_db().await;
    postgres_db.drop_db().await;
}

/// A folder's migrations as (number, file name), sorted.
fn migrations(backend: &str) -> Vec<(u32, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../migrations")
        .join(backend);
    let mut files: Vec<(u32, String)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .filter(|name| name.ends_with(".sql"))
        .map(|name| {
            let number = name
                .split('_')
                .next()
                .and_then(|n| n.parse().ok())
                .unwrap_or_else(|| panic!("{backend}/{name}: a migration's name starts with its number"));
            (number, name)
        })
        .collect();
    files.sort();
    files
}

fn last_number(files: &[(u32, String)]) -> u32 {
    files.last().map_or(0, |(n, _)| *n)
}

#[test]
fn both_migration_folders_are_numbered_alike_after_they_were_levelled() {
    let (sqlite, postgres) = (migrations("sqlite"), migrations("postgres"));
    for (backend, files) in [("sqlite", &sqlite), ("postgres", &postgres)] {
        let numbers: Vec<u32> = files.iter().map(|(n, _)| *n).collect();
        assert_eq!(
            numbers,
            (1..=last_number(files)).collect::<Vec<_>>(),
            "{backend}: migrations are numbered 1, 2, 3 ... without gaps or repeats"
        );
    }
    assert_eq!(
        last_number(&sqlite),
        last_number(&postgres),
        "both folders end at the same number: add the missing migration (an empty, comment-only one where a \
         backend has nothing to do)"
    );
    assert!(last_number(&sqlite) >= LEVELLED_AT);
    let later = |files: &[(u32, String)]| -> Vec<String> {
        files
            .iter()
            .filter(|(n, _)| *n > LEVELLED_AT)
            .map(|(_, name)| name.clone())
            .collect()
    };
    assert_eq!(
        later(&sqlite),
        later(&postgres),
        "after {LEVELLED_AT:04}, each migration exists in both folders with the same number and name"
    );
}
