//! Cluster mode (issue 27): several server nodes on one PostgreSQL database, each table (a lobby and its match)
//! owned by one node under a lease with a fencing epoch.
//!
//! - A node registers in `nodes` with its id and a random incarnation (new at every start), and refreshes its
//!   heartbeat from the database's clock (`now()`); a second live process with the same id is refused at start.
//! - A table's lease is its row in `table_leases`: owner (node id and incarnation), expiry (database clock) and an
//!   epoch that grows by one at every change of owner. A new lobby's lease is taken before its row is written; a
//!   table whose lease has expired is claimed (compare-and-set in one statement) by the next node that loads it,
//!   and recovered from the database as after a restart.
//! - The fence is in the database (`migrations/postgres/0008_cluster.sql`): every connection of a cluster node's
//!   pool carries its incarnation as the setting `tabletop.owner`, and triggers on every table-owned row refuse a
//!   statement (SQLSTATE TL001, [`StoreError::Fenced`]) that writes for a table whose lease that incarnation does
//!   not hold, locking the lease rows `FOR SHARE` until the write commits. So a node that lost a lease (paused,
//!   partitioned, slow) cannot write for that table again, even before it learns of the loss.
//! - The owner renews every lease it holds in ONE statement per heartbeat (a third of the lease length, at most a
//!   second), with its node heartbeat. A lease the renewal does not return is lost: the table stops at once and
//!   its clients are told `closing` with `moved`. A node that cannot renew for a whole lease length stops all its
//!   tables itself.
//! - A node that is gone (NATS has no listener for it, and its heartbeat missed a renewal) loses its tables before
//!   their leases expire: the first node asked for one takes it over ([`Cluster::take_from_gone`]), so play goes
//!   on about a renewal period after a node is killed, not a lease length.
//! - A refused write ([`Cluster::lost`]) stops the table the same way.
//! - On graceful shutdown, once every table task has stopped, the node releases its leases (expires them now),
//!   so another node claims them at once instead of after the lease length.
//! - Time nobody served a table is charged to nobody (issue 47, point 2): each renewal, and the graceful release,
//!   writes the tables' clock into the lease (`served_ms`, with the epoch it was written at: a build that does not
//!   write it cannot leave an older owner's behind); a claim returns it ([`Claim::Held`]), and the table is
//!   credited with the time from then to its load as an outage (`table/downtime.rs`). A lease released because its
//!   table left memory forgets it: the cluster serves such a table (any node loads it when due).
//!
//! - A client may connect to any node: a node asked for a table another live node owns relays the connection
//!   to it over NATS ([`forward`]).

pub mod forward;

use std::{
    collections::HashMap,
    sync::{
        Arc, Mutex,
        atomic::{AtomicBool, AtomicU64, Ordering::Relaxed},
    },
    time::{Duration, Instant},
};

use rules::Millis;
use sqlx::{PgPool, Row, postgres::PgPoolOptions};
use tokio::sync::watch;
use tracing::{error, info, warn};

use crate::{
    clock::SharedClock,
    cluster::forward::ClusterSecret,
    store::{Db, Store, StoreError, classify},
};

/// Cluster settings (from `Config`).
#[derive(Clone, Debug)]
pub struct ClusterSettings {
    pub node_id: String,
    pub lease: Duration,
}

/// Why cluster mode could not start.
#[derive(Debug, thiserror::Error)]
pub enum ClusterError {
    #[error("cluster mode needs PostgreSQL (DATABASE_URL=postgres://...); SQLite serves a single node only")]
    NeedsPostgres,
    #[error(
        "another live node already uses the node id `{0}` (its heartbeat is younger than its lease); choose another \
         NODE_ID, or wait for its lease to pass if that node is gone"
    )]
    DuplicateNode(String),
    #[error(
        "cluster mode needs CLUSTER_SECRET (or --cluster-secret): the same secret of 32 or more characters on every \
         node, which signs node-to-node messages (`openssl rand -hex 16` makes one); without it a node could not \
         serve clients whose tables other nodes own"
    )]
    NoSecret,
    #[error(
        "this node's CLUSTER_SECRET is not the cluster's: the database holds the check value of another secret. \
         Every node of a cluster needs the same secret; to change it, stop every node, delete the row of \
         `cluster_secret_check`, and start them with the new one"
    )]
    WrongSecret,
    #[error(
        "another process took this node's id while this one's heartbeat had lapsed (paused or cut off): this \
         process stopped; start it again to rejoin under a new incarnation"
    )]
    Replaced,
    #[error("the node id must be 1 to 64 characters of [A-Za-z0-9._-], not `{0}`")]
    BadNodeId(String),
    #[error("{0}")]
    Store(#[from] StoreError),
}

/// Whether this node may take a table.
#[derive(Debug)]
pub enum Claim {
    /// This node holds the lease now, at `epoch`. `unserved_since`: the tables' clock when an earlier holder last
    /// served the table (its last renewal, or its graceful release), if one may have stopped serving it without
    /// handing it on; the table was not served from then until it is loaded here.
    Held {
        epoch: i64,
        unserved_since: Option<Millis>,
    },
    /// Another live node holds it; `format` is the newest node-to-node format that node speaks.
    Elsewhere { node: String, epoch: i64, format: i32 },
    /// No lobby has this code.
    NoTable,
}

/// Cluster counters, rendered on `/metrics`.
#[derive(Debug, Default)]
pub struct ClusterMetrics {
    pub renewals: AtomicU64,
    pub renewal_failures: AtomicU64,
    pub leases_lost: AtomicU64,
    pub claims: AtomicU64,
    pub takeovers: AtomicU64,
    pub fenced_writes: AtomicU64,
    /// Tables taken from a node that was gone before their lease expired ([`Cluster::take_from_gone`]).
    pub early_takeovers: AtomicU64,
}

/// How much later than its renewal period a node's heartbeat must be for the node to count as gone (with NATS's
/// word for it): a renewal statement's own time, and scheduling.
pub const GONE_MARGIN: Duration = Duration::from_millis(300);

/// The longest renewal period, whatever the lease: a node renews (and beats) at least once a second, so that a
/// gone node is known as such within a second and [`GONE_MARGIN`] (see [`Cluster::take_from_gone`]). One statement
/// per node whatever its tables; `nodes.lease_ms` keeps the lease, and the statements here compute the period
/// from it the same way (`LEAST(lease_ms / 3, 1000)`).
const RENEW_AT_LEAST_EVERY_MS: i64 = 1000;

/// A node's renewal period for a lease of `lease_ms`: a third of it, at most [`RENEW_AT_LEAST_EVERY_MS`], at least
/// 100 ms.
fn renewal_period(lease_ms: i64) -> Duration {
    Duration::from_millis((lease_ms / 3).clamp(100, RENEW_AT_LEAST_EVERY_MS) as u64)
}

#[derive(Debug)]
struct Held {
    epoch: i64,
    revoke: watch::Sender<bool>,
}

/// This node's membership of the cluster.
/// What a renewal came to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Renewal {
    Renewed,
    /// The database could not be reached in time.
    Failed,
    /// The node's row names another incarnation: another process holds this node id now.
    Replaced,
}

#[derive(Debug)]
pub struct Cluster {
    node_id: String,
    incarnation: String,
    lease_ms: i64,
    pool: PgPool,
    /// The same pool as a [`Store`]: claims and releases, which clients wait for, keep its deadline.
    store: Store,
    held: Mutex<HashMap<String, Held>>,
    pub metrics: ClusterMetrics,
    /// Another process took this node's id (see [`Cluster::run_heartbeat`]).
    replaced: AtomicBool,
    /// The tables' clock, written into the leases as the moment they were last served.
    clock: SharedClock,
}

/// A time of the tables' clock as the database stores it.
fn clock_ms(at: Millis) -> i64 {
    i64::try_from(at).unwrap_or(i64::MAX)
}

/// A random hex string of `bytes` random bytes.
fn random_hex(bytes: usize) -> String {
    let mut buf = vec![0u8; bytes];
    getrandom::fill(&mut buf).expect("the operating system's random source");
    buf.iter().map(|b| format!("{b:02x}")).collect()
}

/// A node id for a node started without one.
pub fn random_node_id() -> String {
    format!("node-{}", random_hex(4))
}

/// Stores the secret's check value if the cluster has none yet, and refuses a secret whose value differs.
async fn check_secret(pool: &PgPool, secret: &ClusterSecret) -> Result<(), ClusterError> {
    use subtle::ConstantTimeEq;
    let mine = secret.check_value();
    // One row: the value this statement inserted, or the one stored before it. (None when another node's first
    // insert committed while this statement ran: its snapshot sees neither. Then the next try sees it.)
    let mut stored = None;
    for _ in 0..3 {
        stored = sqlx::query_scalar::<_, String>(
            "WITH first AS (INSERT INTO cluster_secret_check (check_value) VALUES ($1) \
                 ON CONFLICT (id) DO NOTHING RETURNING check_value) \
             SELECT check_value FROM first UNION ALL SELECT check_value FROM cluster_secret_check",
        )
        .bind(&mine)
        .fetch_optional(pool)
        .await
        .map_err(|e| ClusterError::Store(classify(e)))?;
        if stored.is_some() {
            break;
        }
    }
    let stored = stored.unwrap_or_default();
    if bool::from(stored.as_bytes().ct_eq(mine.as_bytes())) {
        Ok(())
    } else {
        Err(ClusterError::WrongSecret)
    }
}

fn check_node_id(id: &str) -> Result<(), ClusterError> {
    let ok = !id.is_empty()
        && id.len() <= 64
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'));
    if ok {
        Ok(())
    } else {
        Err(ClusterError::BadNodeId(id.to_string()))
    }
}

impl Cluster {
    /// Joins the cluster: checks the database is PostgreSQL, opens a pool whose connections carry this node's
    /// incarnation (the fence's `tabletop.owner`), and registers the node. Returns the store every table of this
    /// node must write through (the fenced pool) and the cluster handle; call [`Cluster::run_heartbeat`] next.
    ///
    /// A node must hold the cluster's secret: the first node to join stores the secret's check value, and a node
    /// whose secret gives another is refused ([`ClusterError::WrongSecret`]) before it registers.
    pub async fn join(
        store: &Store,
        settings: &ClusterSettings,
        secret: &ClusterSecret,
        clock: SharedClock,
    ) -> Result<(Store, Arc<Cluster>), ClusterError> {
        let Db::Postgres(pool) = store.db() else {
            return Err(ClusterError::NeedsPostgres);
        };
        check_node_id(&settings.node_id)?;
        let incarnation = format!("{}#{}", settings.node_id, random_hex(8));
        let options = (*pool.connect_options())
            .clone()
            .options([("tabletop.owner", incarnation.as_str())]);
        let fenced = PgPoolOptions::new()
            .max_connections(pool.options().get_max_connections())
            .acquire_timeout(pool.options().get_acquire_timeout())
            .after_connect(|conn, _| {
                Box::pin(async move {
                    // As `Store::connect_with`: every statement finds its rows by key.
                    sqlx::Executor::execute(conn, "SET enable_seqscan = off").await?;
                    Ok(())
                })
            })
            .connect_with(options)
            .await
            .map_err(|e| ClusterError::Store(StoreError::Database(e)))?;
        if let Err(e) = check_secret(&fenced, secret).await {
            fenced.close().await;
            return Err(e);
        }
        let lease_ms = i64::try_from(settings.lease.as_millis())
            .unwrap_or(i64::MAX)
            .max(300);
        let registered = sqlx::query(
            "INSERT INTO nodes (id, incarnation, lease_ms, started_at, heartbeat_at, relay_format) \
             VALUES ($1, $2, $3, now(), now(), $4) \
             ON CONFLICT (id) DO UPDATE SET incarnation = EXCLUDED.incarnation, lease_ms = EXCLUDED.lease_ms, \
                 started_at = now(), heartbeat_at = now(), relay_format = EXCLUDED.relay_format \
             WHERE nodes.heartbeat_at + nodes.lease_ms * interval '1 millisecond' < now() \
             RETURNING id",
        )
        .bind(&settings.node_id)
        .bind(&incarnation)
        .bind(lease_ms)
        .bind(forward::RELAY_FORMAT)
        .fetch_optional(&fenced)
        .await
        .map_err(|e| ClusterError::Store(classify(e)))?;
        if registered.is_none() {
            fenced.close().await;
            return Err(ClusterError::DuplicateNode(settings.node_id.clone()));
        }
        info!(node = %settings.node_id, %incarnation, lease_ms, "joined the cluster");
        let fenced_store = store.with_postgres_pool(fenced.clone());
        let cluster = Arc::new(Cluster {
            node_id: settings.node_id.clone(),
            incarnation,
            lease_ms,
            pool: fenced,
            store: fenced_store.clone(),
            held: Mutex::default(),
            metrics: ClusterMetrics::default(),
            replaced: AtomicBool::new(false),
            clock,
        });
        Ok((fenced_store, cluster))
    }

    pub fn node_id(&self) -> &str {
        &self.node_id
    }

    pub fn lease(&self) -> Duration {
        Duration::from_millis(self.lease_ms as u64)
    }

    /// How long a node asked for a table of a gone node tries to take it over ([`Cluster::take_from_gone`]): the
    /// gone node's renewal period (the same as this node's: one setting for the cluster) and [`GONE_MARGIN`], and
    /// a second more. Past it, the client is told `forward_unavailable` as before.
    pub fn take_over_within(&self) -> Duration {
        renewal_period(self.lease_ms) + GONE_MARGIN + Duration::from_secs(1)
    }

    /// How many tables this node holds the lease of.
    pub fn tables_owned(&self) -> usize {
        self.held.lock().expect("lease map lock").len()
    }

    /// The epoch of this node's lease of `code`, if it holds it.
    pub fn epoch(&self, code: &str) -> Option<i64> {
        self.held
            .lock()
            .expect("lease map lock")
            .get(code)
            .map(|h| h.epoch)
    }

    /// Takes the lease of a table if nobody else holds it (no lease row, or an expired one), or adopts the one this
    /// incarnation holds (a lobby it just created: the fence takes a new lobby's lease in the statement that
    /// inserts it): compare-and-set in one statement, the epoch one more than the last owner's.
    /// Within the store's deadline (a client waits for it).
    pub async fn claim(&self, code: &str) -> Result<Claim, StoreError> {
        self.store.guarded(self.claim_now(code)).await
    }

    async fn claim_now(&self, code: &str) -> Result<Claim, StoreError> {
        let row = sqlx::query(
            "INSERT INTO table_leases AS l (code, owner_node, incarnation, epoch, expires_at) \
             SELECT $1, $2, $3, 1, now() + $4 * interval '1 millisecond' \
             WHERE EXISTS (SELECT 1 FROM lobbies WHERE code = $1) \
             ON CONFLICT (code) DO UPDATE SET owner_node = EXCLUDED.owner_node, \
                 incarnation = EXCLUDED.incarnation, expires_at = EXCLUDED.expires_at, \
                 epoch = CASE WHEN l.incarnation = EXCLUDED.incarnation THEN l.epoch ELSE l.epoch + 1 END \
             WHERE l.expires_at <= now() OR l.incarnation = EXCLUDED.incarnation \
             RETURNING epoch, served_ms, served_epoch",
        )
        .bind(code)
        .bind(&self.node_id)
        .bind(&self.incarnation)
        .bind(self.lease_ms)
        .fetch_optional(&self.pool)
        .await
        .map_err(classify)?;
        if let Some(row) = row {
            let epoch = row.try_get::<i64, _>(0).map_err(classify)?;
            let served = row.try_get::<Option<i64>, _>(1).map_err(classify)?;
            // Written by the owner before this claim (or by this node, re-claiming): not one of an owner before
            // that, which a build that writes no `served_ms` would have left behind.
            let served_epoch = row.try_get::<Option<i64>, _>(2).map_err(classify)?;
            let served = served.filter(|_| served_epoch.is_some_and(|e| e >= epoch - 1));
            self.hold(code, epoch);
            self.metrics.claims.fetch_add(1, Relaxed);
            if epoch > 1 {
                self.metrics.takeovers.fetch_add(1, Relaxed);
                info!(%code, epoch, "took the table over");
            }
            return Ok(Claim::Held {
                epoch,
                unserved_since: served.map(|ms| ms.max(0) as Millis),
            });
        }
        // With the owner's newest node-to-node format (1 when its row is gone, or from a build before formats).
        let row = sqlx::query(
            "SELECT l.owner_node, l.epoch, COALESCE(n.relay_format, 1) FROM table_leases l \
             LEFT JOIN nodes n ON n.id = l.owner_node WHERE l.code = $1",
        )
        .bind(code)
        .fetch_optional(&self.pool)
        .await
        .map_err(classify)?;
        match row {
            Some(row) => Ok(Claim::Elsewhere {
                node: row.try_get(0).map_err(classify)?,
                epoch: row.try_get(1).map_err(classify)?,
                format: row.try_get(2).map_err(classify)?,
            }),
            // No lobby has this code: no lease is written for it (unknown codes never fill the table).
            None => Ok(Claim::NoTable),
        }
    }

    /// Takes the lease of `code` from `node`, which held it at `epoch`, before the lease has expired, if `node` is
    /// gone: NATS has no listener for it (the caller's evidence, from [`forward::Unopened::owner_gone`]) and the
    /// database agrees: its heartbeat has missed a renewal (older than its renewal period, a third of its lease,
    /// and [`GONE_MARGIN`]), or another process holds its id now. A node merely cut off from NATS still renews
    /// and keeps its tables. Safe whatever the evidence: the fence refuses every later write of the old owner.
    /// Compare-and-set on the epoch seen, so of several nodes taking over at once one wins; the winner adopts
    /// the lease with [`Cluster::claim`] as it loads the table. Whether this node took it.
    pub async fn take_from_gone(&self, code: &str, node: &str, epoch: i64) -> Result<bool, StoreError> {
        self.store
            .guarded(async {
                let taken = sqlx::query(
                    "UPDATE table_leases l SET owner_node = $2, incarnation = $3, epoch = l.epoch + 1, \
                         expires_at = now() + $4 * interval '1 millisecond' \
                     WHERE l.code = $1 AND l.owner_node = $5 AND l.epoch = $6 AND l.incarnation <> $3 \
                       AND NOT EXISTS (SELECT 1 FROM nodes n WHERE n.id = l.owner_node \
                           AND n.incarnation = l.incarnation \
                           AND n.heartbeat_at > now() - (LEAST(n.lease_ms / 3, 1000) + $7) * interval '1 millisecond') \
                     RETURNING epoch",
                )
                .bind(code)
                .bind(&self.node_id)
                .bind(&self.incarnation)
                .bind(self.lease_ms)
                .bind(node)
                .bind(epoch)
                .bind(GONE_MARGIN.as_millis() as i64)
                .fetch_optional(&self.pool)
                .await
                .map_err(classify)?;
                if taken.is_some() {
                    self.metrics.early_takeovers.fetch_add(1, Relaxed);
                    info!(%code, from = %node, "took over the table of a node that is gone, before its lease expired");
                }
                Ok(taken.is_some())
            })
            .await
    }

    fn hold(&self, code: &str, epoch: i64) {
        let (revoke, _) = watch::channel(false);
        let old = self
            .held
            .lock()
            .expect("lease map lock")
            .insert(code.to_string(), Held { epoch, revoke });
        if let Some(old) = old {
            let _ = old.revoke.send(true);
        }
    }

    /// A receiver that turns true when this node loses the lease of `code` (the table must stop). `None` if this
    /// node does not hold it.
    pub fn watch(&self, code: &str) -> Option<watch::Receiver<bool>> {
        self.held
            .lock()
            .expect("lease map lock")
            .get(code)
            .map(|h| h.revoke.subscribe())
    }

    /// The database refused a write for `code` (or a renewal did not return it): the lease is gone; stop the
    /// table.
    pub fn lost(&self, code: &str) {
        let removed = self.held.lock().expect("lease map lock").remove(code);
        if let Some(held) = removed {
            self.metrics.leases_lost.fetch_add(1, Relaxed);
            warn!(%code, epoch = held.epoch, "lost the table's lease; stopping the table");
            let _ = held.revoke.send(true);
        }
    }

    /// A write for `code` was refused by the fence.
    pub fn fenced(&self, code: &str) {
        self.metrics.fenced_writes.fetch_add(1, Relaxed);
        self.lost(code);
    }

    /// Gives up the lease of `code` held for the task that watched `watched` (that task has ended: the table left
    /// memory, or has nothing left to do), unless the node has taken the lease again since for a new task. The
    /// lease forgets when it was last served: nobody owes the table the time until it is loaded again.
    pub async fn release_task(&self, code: &str, watched: &watch::Receiver<bool>) {
        let same = self
            .held
            .lock()
            .expect("lease map lock")
            .get(code)
            .is_some_and(|h| h.revoke.subscribe().same_channel(watched));
        if same {
            self.release_and_forget(code, true).await;
        }
    }

    /// Gives up the lease of `code` (no task of this node serves it; it could not be loaded): expired now, so any
    /// node may claim it at once. The lease keeps when the table was last served, for the next owner to credit.
    pub async fn release(&self, code: &str) {
        self.release_and_forget(code, false).await;
    }

    async fn release_and_forget(&self, code: &str, forget_served: bool) {
        let held = self.held.lock().expect("lease map lock").remove(code);
        if held.is_none() {
            return;
        }
        let released = self.store.guarded(async {
            sqlx::query(
                "UPDATE table_leases SET expires_at = now(), \
                     served_ms = CASE WHEN $3 THEN NULL ELSE served_ms END, \
                     served_epoch = CASE WHEN $3 THEN NULL ELSE served_epoch END \
                 WHERE code = $1 AND incarnation = $2",
            )
            .bind(code)
            .bind(&self.incarnation)
            .bind(forget_served)
            .execute(&self.pool)
            .await
            .map_err(classify)
        });
        if let Err(e) = released.await {
            warn!(%code, error = %e, "releasing a lease failed; it expires by itself");
        }
    }

    /// Gives up every lease of this incarnation and marks the node gone (graceful shutdown, after every table
    /// task has stopped). Each lease records the tables' clock now as its table's last served moment.
    pub async fn leave(&self) {
        let codes: Vec<String> = self
            .held
            .lock()
            .expect("lease map lock")
            .drain()
            .map(|(c, _)| c)
            .collect();
        let released = sqlx::query(
            "WITH gone AS (UPDATE nodes SET heartbeat_at = '-infinity' WHERE id = $1 AND incarnation = $2) \
             UPDATE table_leases SET expires_at = now(), served_ms = $3, served_epoch = epoch \
             WHERE incarnation = $2 AND expires_at > now()",
        )
        .bind(&self.node_id)
        .bind(&self.incarnation)
        .bind(clock_ms(self.clock.now()))
        .execute(&self.pool)
        .await;
        match released {
            Ok(done) => info!(
                leases = done.rows_affected(),
                held = codes.len(),
                "left the cluster; leases released"
            ),
            Err(e) => warn!(error = %e, "releasing the leases failed; they expire by themselves"),
        }
    }

    /// Renews every lease this node holds, with its heartbeat, in ONE statement, recording the tables' clock as
    /// the moment each table was last served; revokes the leases it did not return. Returns whether the statement
    /// ran within the renewal period (a database that never answers is one that cannot be reached: after a lease
    /// length of such renewals every table stops).
    pub async fn renew(&self) -> bool {
        self.renew_or_replaced().await == Renewal::Renewed
    }

    /// [`Cluster::renew`], telling apart a node whose row names another incarnation now ([`Renewal::Replaced`]:
    /// its heartbeat lapsed, a process started under the same id took the row; nothing was renewed).
    async fn renew_or_replaced(&self) -> Renewal {
        let codes: Vec<String> = self
            .held
            .lock()
            .expect("lease map lock")
            .keys()
            .cloned()
            .collect();
        // One row per lease renewed, and a row of NULLs when the heartbeat was: none means another process
        // holds this node id now, and then no lease is renewed either.
        let renewed = sqlx::query(
            "WITH beat AS (UPDATE nodes SET heartbeat_at = now() WHERE id = $1 AND incarnation = $2 RETURNING id), \
             renewed AS (UPDATE table_leases SET expires_at = now() + $3 * interval '1 millisecond', \
                 served_ms = $5, served_epoch = epoch \
                 WHERE incarnation = $2 AND code = ANY($4) AND EXISTS (SELECT 1 FROM beat) RETURNING code, epoch) \
             SELECT code, epoch FROM renewed UNION ALL SELECT NULL::text, NULL::bigint FROM beat",
        )
        .bind(&self.node_id)
        .bind(&self.incarnation)
        .bind(self.lease_ms)
        .bind(&codes)
        .bind(clock_ms(self.clock.now()))
        .fetch_all(&self.pool);
        let within = renewal_period(self.lease_ms);
        let rows = match tokio::time::timeout(within, renewed).await {
            Ok(Ok(rows)) => rows,
            Ok(Err(e)) => {
                self.metrics.renewal_failures.fetch_add(1, Relaxed);
                warn!(error = %e, "renewing the leases failed");
                return Renewal::Failed;
            }
            Err(_) => {
                self.metrics.renewal_failures.fetch_add(1, Relaxed);
                warn!(
                    within_ms = within.as_millis() as u64,
                    "renewing the leases got no answer in time"
                );
                return Renewal::Failed;
            }
        };
        let mut kept: HashMap<String, i64> = HashMap::with_capacity(rows.len());
        let mut beat = false;
        for row in rows {
            match (
                row.try_get::<Option<String>, _>(0),
                row.try_get::<Option<i64>, _>(1),
            ) {
                (Ok(Some(code)), Ok(Some(epoch))) => {
                    kept.insert(code, epoch);
                }
                (Ok(None), Ok(None)) => beat = true,
                _ => {}
            }
        }
        if !beat {
            return Renewal::Replaced;
        }
        self.metrics.renewals.fetch_add(1, Relaxed);
        for code in codes {
            let current = self.epoch(&code);
            // Not renewed (another node took it), or renewed at another epoch than this node's table runs at.
            if current.is_some() && kept.get(&code).copied() != current {
                self.lost(&code);
            }
        }
        Renewal::Renewed
    }

    /// Whether another process took this node's id (see [`Renewal::Replaced`]): the node stops serving.
    pub fn replaced(&self) -> bool {
        self.replaced.load(Relaxed)
    }

    /// Revokes every lease (the database could not be reached for a whole lease length: another node may hold
    /// them by now).
    fn lose_all(&self) {
        let codes: Vec<String> = self
            .held
            .lock()
            .expect("lease map lock")
            .keys()
            .cloned()
            .collect();
        for code in codes {
            self.lost(&code);
        }
    }

    /// Renews the leases every renewal period (a third of the lease length, at most a second) until `shutdown`; after a lease length without a
    /// successful renewal every table stops (its lease may have been taken). `orphans` is called after each
    /// successful renewal with the codes of live tables whose lease has expired, for the hub to take over.
    ///
    /// A node whose row another process took (its heartbeat had lapsed: paused, partitioned) stops every table
    /// (their clients are told `moved`), says not ready, and calls `replaced` to stop the server: it must not
    /// serve beside the process that holds its id now (same NATS subjects, no lease it could write under).
    pub async fn run_heartbeat<F, R>(
        self: Arc<Self>,
        mut shutdown: watch::Receiver<bool>,
        orphans: F,
        replaced: R,
    ) where
        F: Fn(Vec<String>) + Send + 'static,
        R: FnOnce() + Send + 'static,
    {
        let every = renewal_period(self.lease_ms);
        let mut last_ok = Instant::now();
        loop {
            tokio::select! {
                () = tokio::time::sleep(every) => {}
                _ = shutdown.wait_for(|s| *s) => return,
            }
            let renewal = self.renew_or_replaced().await;
            if renewal == Renewal::Replaced {
                error!(
                    node = %self.node_id,
                    incarnation = %self.incarnation,
                    "another process took this node's id (this one's heartbeat had lapsed): stopping every \
                     table and the server; start it again to rejoin"
                );
                self.replaced.store(true, Relaxed);
                self.lose_all();
                // The tables tell their clients `moved` (reconnect now, another node serves) before the server's
                // stop tells every connection `shutting_down`.
                tokio::time::sleep(Duration::from_millis(250)).await;
                replaced();
                return;
            }
            if renewal == Renewal::Renewed {
                last_ok = Instant::now();
                match self.orphans().await {
                    Ok(codes) if !codes.is_empty() => orphans(codes),
                    Ok(_) => {}
                    Err(e) => warn!(error = %e, "listing tables without an owner failed"),
                }
            } else if last_ok.elapsed() >= self.lease() {
                warn!("no lease renewal for a whole lease length: stopping every table of this node");
                self.lose_all();
            }
        }
    }

    /// Live tables (open or playing) whose lease has expired: their owner is gone. A table that left memory
    /// (`unloaded_until` set) released its lease on purpose: it is loaded when asked for or when due
    /// (`Hub`'s sweep), not taken over.
    async fn orphans(&self) -> Result<Vec<String>, StoreError> {
        let rows = sqlx::query(
            "SELECT l.code FROM table_leases l JOIN lobbies b ON b.code = l.code \
             WHERE l.expires_at <= now() AND b.phase IN ('open', 'playing') AND b.unloaded_until IS NULL LIMIT 64",
        )
        .fetch_all(&self.pool)
        .await
        .map_err(classify)?;
        rows.iter()
            .map(|r| r.try_get::<String, _>(0).map_err(classify))
            .collect()
    }

    /// Each table's lease (owner node, epoch, whether it is live), for the admin API.
    pub async fn leases(&self, codes: &[String]) -> Result<HashMap<String, (String, i64, bool)>, StoreError> {
        let rows = sqlx::query(
            "SELECT code, owner_node, epoch, expires_at > now() FROM table_leases WHERE code = ANY($1)",
        )
        .bind(codes)
        .fetch_all(&self.pool)
        .await
        .map_err(classify)?;
        let mut out = HashMap::with_capacity(rows.len());
        for row in rows {
            out.insert(
                row.try_get(0).map_err(classify)?,
                (
                    row.try_get(1).map_err(classify)?,
                    row.try_get(2).map_err(classify)?,
                    row.try_get(3).map_err(classify)?,
                ),
            );
        }
        Ok(out)
    }

    /// Renders the cluster's metrics (Prometheus text).
    pub fn render_metrics(&self, out: &mut String) {
        use std::fmt::Write;
        let _ = writeln!(
            out,
            "# HELP tabletop_cluster_tables_owned Tables whose lease this node holds.\n\
             # TYPE tabletop_cluster_tables_owned gauge\ntabletop_cluster_tables_owned {}",
            self.tables_owned()
        );
        for (name, help, value) in [
            (
                "tabletop_cluster_lease_renewals_total",
                "Lease renewal statements that ran.",
                &self.metrics.renewals,
            ),
            (
                "tabletop_cluster_lease_renewal_failures_total",
                "Lease renewal statements that failed.",
                &self.metrics.renewal_failures,
            ),
            (
                "tabletop_cluster_leases_lost_total",
                "Leases this node lost (its table stopped).",
                &self.metrics.leases_lost,
            ),
            (
                "tabletop_cluster_claims_total",
                "Leases this node took (new lobbies and takeovers).",
                &self.metrics.claims,
            ),
            (
                "tabletop_cluster_takeovers_total",
                "Tables this node took over from another owner.",
                &self.metrics.takeovers,
            ),
            (
                "tabletop_cluster_early_takeovers_total",
                "Tables this node took from a node that was gone (no NATS listener, a renewal missed) before their \
                 lease expired.",
                &self.metrics.early_takeovers,
            ),
            (
                "tabletop_cluster_fenced_writes_total",
                "Writes the database refused because this node no longer held the table's lease.",
                &self.metrics.fenced_writes,
            ),
        ] {
            let _ = writeln!(
                out,
                "# HELP {name} {help}\n# TYPE {name} counter\n{name} {}",
                value.load(Relaxed)
            );
        }
    }
}
