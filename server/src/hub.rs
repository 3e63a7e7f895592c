//! The directory of tables: creates lobbies, finds a table by join code (loading one that is out of memory from
//! the database on demand), restores at start-up every open or playing table that was in memory, and loads the
//! tables out of memory whose wake-up is due (`table/idle.rs` says when a table leaves memory).

use std::{
    collections::HashMap,
    sync::{Arc, Mutex, OnceLock},
};

use protocol::{AbsencePolicy, ErrorBody, ErrorCode};
use rules::{AnyGame, Millis, Seat};
use serde_json::Value;
use std::sync::atomic::Ordering::Relaxed;
use tokio::sync::{Notify, mpsc, watch};
use tracing::{debug, error, info, warn};

use crate::{
    clock::SharedClock,
    cluster::{Claim, Cluster},
    commit::Committer,
    downtime::Downtime,
    metrics::Metrics,
    secrets,
    store::{LobbyRecord, Outage, Phase, SeatKind, SeatRecord, Store, StoreError},
    table::{
        Conn, MAX_TURN_TIMER_MS, MIN_TURN_TIMER_MS, RecoverError, Seated, Table, TableDeps, TableHandle,
        TableSettings, check_absence, check_rules_version, setup_error, store_unavailable,
    },
    text::check_name,
};

/// Commands waiting for one table.
const TABLE_QUEUE: usize = 64;

/// The sweep of due tables out of memory looks at the database at least this often (clock time), and loads at
/// most this many at a time.
const SWEEP_EVERY_MS: u64 = 60_000;
const SWEEP_BATCH: u32 = 64;
/// After a due table could not be loaded (another node has it, or it cannot be recovered), the sweep looks again
/// this much later.
const RETRY_MISSED_MS: u64 = 1_000;

#[derive(Clone, Debug)]
pub struct Hub {
    tables: Arc<Mutex<HashMap<String, TableHandle>>>,
    /// Serialises loading a table from the database, so one code never gets two tasks.
    loading: Arc<tokio::sync::Mutex<()>>,
    /// Tables ask for a lobby they created (a rematch) to be started at once: its bots and deadlines run without
    /// waiting for a player to resume it.
    to_load: mpsc::UnboundedSender<String>,
    store: Store,
    /// Group commit of every table's actions.
    commits: Committer,
    clock: SharedClock,
    metrics: Arc<Metrics>,
    settings: TableSettings,
    shutdown: watch::Receiver<bool>,
    /// Each table task holds a clone; the server waits for all of them to be dropped at shutdown.
    done: mpsc::Sender<()>,
    /// Cluster mode: this node's leases (see `cluster/`); unset on a single node.
    cluster: Arc<OnceLock<Arc<Cluster>>>,
    /// Told when a table left memory, so the sweep of due tables looks at its time (see [`Hub::sweep`]).
    unloaded: Arc<Notify>,
    /// The gaps in which the server did not run, credited to each table as it loads (`downtime.rs`).
    downtime: Arc<OnceLock<Arc<Downtime>>>,
}

/// Where a table is served (see [`Hub::locate`]).
#[derive(Debug)]
pub enum Located {
    Here(TableHandle),
    /// Cluster mode: by this other node, which holds the table's lease at this epoch and speaks node-to-node
    /// formats up to `format`.
    Elsewhere {
        node: String,
        epoch: i64,
        format: i32,
    },
}

/// Why a table could not be loaded.
#[derive(Debug, thiserror::Error)]
enum LoadError {
    #[error("{0}")]
    Recover(#[from] RecoverError),
    /// Cluster mode: another live node holds the table's lease.
    #[error("the table is served by node `{node}` (epoch {epoch})")]
    Elsewhere { node: String, epoch: i64, format: i32 },
}

impl From<StoreError> for LoadError {
    fn from(e: StoreError) -> Self {
        LoadError::Recover(RecoverError::Store(e))
    }
}

impl Hub {
    pub fn new(
        store: Store,
        clock: SharedClock,
        metrics: Arc<Metrics>,
        settings: TableSettings,
        shutdown: watch::Receiver<bool>,
        done: mpsc::Sender<()>,
    ) -> Hub {
        let (to_load, mut load_requests) = mpsc::unbounded_channel::<String>();
        let hub = Hub {
            tables: Arc::default(),
            loading: Arc::default(),
            to_load,
            commits: Committer::new(store.clone(), metrics.clone()),
            store,
            clock,
            metrics,
            settings,
            shutdown,
            done,
            cluster: Arc::default(),
            unloaded: Arc::default(),
            downtime: Arc::default(),
        };
        // Loads the lobbies tables ask for, until the server shuts down (it holds a clone of `done` meanwhile).
        let loader = hub.clone();
        tokio::spawn(async move {
            let mut shutdown = loader.shutdown.clone();
            loop {
                if *shutdown.borrow() {
                    break;
                }
                tokio::select! {
                    code = load_requests.recv() => match code {
                        Some(code) => {
                            match loader.load(&code).await {
                                // Another node's sweep claimed it first: a lost race, not a fault.
                                Err(LoadError::Elsewhere { node, .. }) => {
                                    debug!(%code, %node, "another node took the table first");
                                }
                                Err(e) => error!(%code, error = %e, "starting a table failed"),
                                Ok(_) => {}
                            }
                        }
                        None => break,
                    },
                    _ = shutdown.changed() => break,
                }
            }
        });
        let sweeper = hub.clone();
        tokio::spawn(async move { sweeper.sweep().await });
        hub
    }

    /// Loads the tables out of memory whose next wake-up (a bot's move, a turn timer, a stand-in, an engine
    /// deadline) or abandonment is due, at their time, until the server shuts down: an idle table keeps its
    /// timed behaviour while out of memory. In cluster mode every node sweeps; the lease decides which loads it.
    async fn sweep(&self) {
        let mut shutdown = self.shutdown.clone();
        loop {
            if *shutdown.borrow() {
                break;
            }
            let now = self.clock.now();
            let mut next = now.saturating_add(SWEEP_EVERY_MS);
            match self.store.due_unloaded(now, SWEEP_BATCH).await {
                Ok(codes) => {
                    let mut missed = false;
                    for code in &codes {
                        // Loaded already, and about to clear its mark: not again at once.
                        if self
                            .tables
                            .lock()
                            .expect("table map lock")
                            .get(code)
                            .is_some_and(|h| !h.tx.is_closed())
                        {
                            missed = true;
                            continue;
                        }
                        match self.load(code).await {
                            Ok(_) => {}
                            Err(LoadError::Elsewhere { .. }) => missed = true,
                            Err(e) => {
                                missed = true;
                                error!(%code, error = %e, "loading a table whose wake-up is due failed");
                            }
                        }
                    }
                    if codes.len() as u32 == SWEEP_BATCH && !missed {
                        continue;
                    }
                    if missed {
                        // Not again at once: another node may be loading it, or it cannot be recovered.
                        next = now.saturating_add(RETRY_MISSED_MS);
                    } else {
                        match self.store.next_unloaded_due().await {
                            Ok(Some(due)) => next = next.min(due),
                            Ok(None) => {}
                            Err(e) => warn!(error = %e, "reading the next due table failed"),
                        }
                    }
                }
                Err(e) => {
                    warn!(error = %e, "listing the due tables failed");
                    next = now.saturating_add(RETRY_MISSED_MS);
                }
            }
            let sleep = self.clock.sleep_until(next);
            tokio::select! {
                () = sleep => {}
                () = self.unloaded.notified() => {}
                changed = shutdown.changed() => if changed.is_err() {
                    break;
                },
            }
        }
    }

    fn deps(&self) -> TableDeps {
        TableDeps {
            store: self.store.clone(),
            commits: self.commits.clone(),
            clock: self.clock.clone(),
            metrics: self.metrics.clone(),
            settings: self.settings.clone(),
            load: self.to_load.clone(),
        }
    }

    pub fn store(&self) -> &Store {
        &self.store
    }

    /// Turns on cluster mode (before any table starts): tables take and hold leases, and stop when they lose them.
    pub fn set_cluster(&self, cluster: Arc<Cluster>) {
        self.commits.set_cluster(cluster.clone());
        let _ = self.cluster.set(cluster);
    }

    /// Sets the server's gaps (before any table starts): each table loaded is credited with those after its last
    /// action.
    pub fn set_downtime(&self, downtime: Arc<Downtime>) {
        let _ = self.downtime.set(downtime);
    }

    pub fn cluster(&self) -> Option<&Arc<Cluster>> {
        self.cluster.get()
    }

    /// Cluster mode: starts the tables of `codes` (live tables whose owner is gone) if this node can claim them.
    pub fn take_over(&self, codes: Vec<String>) {
        for code in codes {
            let _ = self.to_load.send(code);
        }
    }

    fn spawn(&self, mut table: Table) -> TableHandle {
        let (tx, rx) = mpsc::channel(TABLE_QUEUE);
        table.set_self_handle(tx.downgrade());
        let code = table_code(&table);
        let handle = TableHandle {
            code: code.clone(),
            tx,
        };
        self.tables
            .lock()
            .expect("table map lock")
            .insert(code.clone(), handle.clone());
        let tables = self.tables.clone();
        let shutdown = self.shutdown.clone();
        let done = self.done.clone();
        let cluster = self.cluster.get().cloned();
        let moved = cluster.as_ref().map(|c| c.watch(&code));
        let unloaded = self.unloaded.clone();
        tokio::spawn(async move {
            let _done = done;
            let closed_code = code.clone();
            let global = shutdown.clone();
            let watched = moved.clone().flatten();
            let open_tables = tables.clone();
            let on_close = move || {
                open_tables.lock().expect("table map lock").remove(&closed_code);
                // A table out of memory may have a wake-up due before the sweep's next look.
                unloaded.notify_one();
            };
            match moved {
                // Cluster mode with the lease held: the table stops when it loses the lease.
                Some(Some(moved)) => table.run_leased(rx, shutdown, moved, on_close).await,
                // Cluster mode, lease already lost before the task started: it never runs.
                Some(None) => {
                    drop(rx);
                }
                None => table.run(rx, shutdown, on_close).await,
            }
            // The task is over (closed, unloaded or moved): give the lease up at once, unless the node is
            // stopping (it then releases all its leases in one statement).
            if let Some(cluster) = cluster {
                {
                    let mut map = tables.lock().expect("table map lock");
                    // Unless a new task already serves the code.
                    if map.get(&code).is_some_and(|h| h.tx.is_closed()) {
                        map.remove(&code);
                    }
                }
                if let Some(watched) = watched
                    && !*global.borrow()
                {
                    cluster.release_task(&code, &watched).await;
                }
            }
        });
        handle
    }

    /// Starts a task for every lobby that is open or playing and was in memory when the server stopped,
    /// re-arming their deadlines (those that had left memory load when asked for or when due: [`Hub::sweep`]). A
    /// match that cannot be recovered is logged and left out; the others still start. In cluster mode, only the
    /// tables no live node owns (this node claims them).
    pub async fn restore_all(&self) -> Result<usize, StoreError> {
        let codes = self.store.live_lobby_codes().await?;
        let mut restored = 0;
        for code in codes {
            match self.load(&code).await {
                Ok(Some(_)) => restored += 1,
                Ok(None) | Err(LoadError::Elsewhere { .. }) => {}
                Err(e) => error!(%code, error = %e, "table not restored"),
            }
        }
        info!(restored, "tables restored from the database");
        Ok(restored)
    }

    async fn load(&self, code: &str) -> Result<Option<TableHandle>, LoadError> {
        let _guard = self.loading.lock().await;
        if let Some(handle) = self.tables.lock().expect("table map lock").get(code)
            && !handle.tx.is_closed()
        {
            return Ok(Some(handle.clone()));
        }
        // Cluster mode: the lease first (compare-and-set), then the table is read: every write of an earlier
        // owner has committed by then, or will be refused by the fence.
        let mut unserved_since = None;
        if let Some(cluster) = self.cluster.get() {
            match cluster.claim(code).await? {
                Claim::Held {
                    unserved_since: since,
                    ..
                } => unserved_since = since,
                Claim::Elsewhere { node, epoch, format } => {
                    return Err(LoadError::Elsewhere { node, epoch, format });
                }
                Claim::NoTable => return Ok(None),
            }
        }
        let loaded = Box::pin(self.load_claimed(code, unserved_since)).await;
        if let (Some(cluster), Ok(None) | Err(_)) = (self.cluster.get(), &loaded) {
            cluster.release(code).await;
        }
        loaded
    }

    /// Loads a table this node may serve; `unserved_since`: since when nobody has served it (cluster mode: the
    /// last moment its earlier owner is known to have served it).
    async fn load_claimed(
        &self,
        code: &str,
        unserved_since: Option<Millis>,
    ) -> Result<Option<TableHandle>, LoadError> {
        let Some(stored) = self.store.load_lobby(code).await? else {
            return Ok(None);
        };
        let mut table = Table::recover(stored, self.deps())?;
        let listed = self.store.is_listed(code).await?;
        let chat = self.store.recent_chat(code, protocol::CHAT_HISTORY).await?;
        table.restore_friends(listed, chat);
        if let Some(absence) = self.store.load_absence(code).await? {
            table = table.with_stored_absence(absence);
        }
        if let Some(idleness) = self.store.load_idleness(code).await? {
            if idleness.unloaded {
                self.metrics.tables_reloaded.fetch_add(1, Relaxed);
            }
            table = table.with_stored_idleness(idleness);
        }
        // The time nobody served the table: the gaps between the server's runs (of every node in a cluster), and
        // after a takeover the time since the table's earlier owner last served it.
        let mut unserved: Vec<Outage> = self.downtime.get().map(|d| d.gaps().to_vec()).unwrap_or_default();
        unserved.extend(unserved_since.map(|since| (since, self.clock.now())));
        table.credit_downtime(&unserved).await?;
        if let Some(clocks) = table.clocks_to_load() {
            let (code, match_id) = clocks;
            table = table.with_stored_clocks(self.store.load_clocks(&code, &match_id).await?);
        }
        Ok(Some(self.spawn(table)))
    }

    /// The table with this join code if it is in memory here (never loads it).
    pub fn loaded(&self, code: &str) -> Option<TableHandle> {
        let tables = self.tables.lock().expect("table map lock");
        tables.get(code).filter(|h| !h.tx.is_closed()).cloned()
    }

    /// The table with this join code, from memory or from the database; `moved` if another live node serves it.
    pub async fn find(&self, code: &str) -> Result<TableHandle, ErrorBody> {
        match self.locate(code).await? {
            Located::Here(handle) => Ok(handle),
            Located::Elsewhere { node, .. } => Err(ErrorBody::new(
                ErrorCode::Moved,
                format!(
                    "the lobby `{}` is served by another node ({node}); reconnect and try again",
                    secrets::normalise_code(code)
                ),
            )),
        }
    }

    /// Cluster mode: takes the table with this join code from `node`, which held it at `epoch` and which NATS says
    /// is gone, without waiting for its lease to expire (see [`Cluster::take_from_gone`]): tries until the
    /// database agrees that the node is gone (at most a renewal period after it went), the lease changes hands, or
    /// [`Cluster::take_over_within`] has passed; then locates the table again: here if this node took it, or
    /// wherever it is served now.
    pub async fn take_from_gone(&self, code: &str, node: &str, epoch: i64) -> Result<Located, ErrorBody> {
        let code = secrets::normalise_code(code);
        let Some(cluster) = self.cluster.get() else {
            return self.locate(&code).await;
        };
        let until = tokio::time::Instant::now() + cluster.take_over_within();
        loop {
            match cluster.take_from_gone(&code, node, epoch).await {
                Ok(true) => break,
                Ok(false) => {}
                Err(e) if e.is_unavailable() => return Err(store_unavailable()),
                Err(e) => {
                    error!(%code, error = %e, "taking a table over failed");
                    return Err(ErrorBody::new(ErrorCode::Internal, "this lobby cannot be loaded"));
                }
            }
            match self.locate(&code).await? {
                Located::Elsewhere {
                    node: now, epoch: at, ..
                } if now == node && at == epoch => {}
                moved => return Ok(moved),
            }
            if tokio::time::Instant::now() >= until {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
        self.locate(&code).await
    }

    /// Where the table with this join code is served: here (from memory, or loaded from the database and claimed
    /// in cluster mode), or by another live node (cluster mode), whose id this gives.
    pub async fn locate(&self, code: &str) -> Result<Located, ErrorBody> {
        let code = secrets::normalise_code(code);
        if let Some(handle) = self.tables.lock().expect("table map lock").get(&code)
            && !handle.tx.is_closed()
        {
            return Ok(Located::Here(handle.clone()));
        }
        let unknown = || crate::table::unknown_lobby(&code);
        if !secrets::is_code_shaped(&code) {
            return Err(unknown());
        }
        match self.load(&code).await {
            Ok(Some(handle)) => Ok(Located::Here(handle)),
            Ok(None) => Err(unknown()),
            Err(LoadError::Elsewhere { node, epoch, format }) => {
                Ok(Located::Elsewhere { node, epoch, format })
            }
            Err(LoadError::Recover(RecoverError::Store(e))) if e.is_unavailable() => {
                warn!(%code, error = %e, "loading a table failed: the database cannot be reached");
                Err(store_unavailable())
            }
            Err(e) => {
                error!(%code, error = %e, "loading a table failed");
                Err(ErrorBody::new(ErrorCode::Internal, "this lobby cannot be loaded"))
            }
        }
    }

    /// Creates a lobby with the creator at seat 0 as host, stores it and starts its task.
    // One argument per field of `create_lobby`; other lobby settings are being added in parallel (issue 13), and
    // a settings struct is best introduced once they have landed.
    #[allow(clippy::too_many_arguments)]
    pub async fn create(
        &self,
        game: &str,
        options: &Value,
        seat_count: u8,
        name: &str,
        turn_timer_ms: Option<u64>,
        absent: AbsencePolicy,
        rules_version: Option<u32>,
        pace: protocol::Pace,
        conn: Conn,
    ) -> Result<(TableHandle, Seated), ErrorBody> {
        let name = check_name(name)?;
        let info = rules::catalogue()
            .into_iter()
            .find(|g| g.id == game)
            .ok_or_else(|| ErrorBody::new(ErrorCode::UnknownGame, format!("no game has the id `{game}`")))?;
        let options = rules::normalise_config(game, options).map_err(setup_error)?;
        // Set the game up once with a throwaway seed to check the seat count and the options together.
        AnyGame::new(game, None, &options, seat_count, 0).map_err(setup_error)?;
        debug_assert!((info.min_players..=info.max_players).contains(&seat_count));
        if let Some(ms) = turn_timer_ms
            && !(MIN_TURN_TIMER_MS..=MAX_TURN_TIMER_MS).contains(&ms)
        {
            return Err(ErrorBody::new(
                ErrorCode::BadOptions,
                format!("the turn timer must be between {MIN_TURN_TIMER_MS} and {MAX_TURN_TIMER_MS} ms"),
            ));
        }
        check_absence(info.can_skip, absent)?;
        crate::table::check_pace(&pace, info.can_skip, turn_timer_ms, absent)?;
        let rules_version = check_rules_version(game, rules_version)?;
        let token = secrets::seat_token();
        let token_hash = secrets::token_hash(&token);
        let host = SeatRecord {
            seat: 0,
            kind: SeatKind::Human,
            name: name.clone(),
            token_hash: Some(token_hash.clone()),
        };
        // A fresh code is rarely taken; the primary key tells us when it is (a group commit leaves such a lobby
        // out and answers it with a conflict, without refusing the rest of its batch).
        let mut attempts = 0;
        let lobby = loop {
            let lobby = LobbyRecord {
                code: secrets::join_code(),
                game: game.to_string(),
                options: options.clone(),
                seat_count,
                host_seat: 0,
                turn_timer_ms,
                phase: Phase::Open,
                created_at: self.clock.now(),
                absent_policy: crate::table::absence::kind_name(absent.policy).to_owned(),
                absent_grace_ms: absent.grace_ms,
                rules_version: Some(rules_version),
                rematch_of: None,
                pace,
            };
            match self.commits.create_lobby(&lobby, &host).await {
                Ok(()) => break lobby,
                Err(StoreError::Conflict) if attempts < 8 => attempts += 1,
                Err(e) if e.is_unavailable() => {
                    warn!(error = %e, "creating a lobby failed: the database cannot be reached");
                    return Err(store_unavailable());
                }
                Err(e) => {
                    error!(error = %e, "creating a lobby failed");
                    return Err(ErrorBody::new(
                        ErrorCode::Internal,
                        "the lobby could not be created",
                    ));
                }
            }
        };
        // Cluster mode: the fence took the new lobby's lease in the statement that inserted it; hold it.
        if let Some(cluster) = self.cluster.get() {
            match cluster.claim(&lobby.code).await {
                Ok(Claim::Held { .. }) => {}
                Err(e) if e.is_unavailable() => {
                    warn!(code = %lobby.code, error = %e, "a new lobby's lease could not be read");
                    return Err(store_unavailable());
                }
                other => {
                    error!(code = %lobby.code, ?other, "a new lobby's lease is not this node's");
                    return Err(ErrorBody::new(
                        ErrorCode::Internal,
                        "the lobby could not be created",
                    ));
                }
            }
        }
        info!(code = %lobby.code, game, seat_count, "lobby created");
        let table = Table::new_lobby(&lobby, name, token_hash, conn, self.deps())
            .with_absence_policy(absent)
            .with_rules_version(rules_version);
        let handle = self.spawn(table);
        Ok((
            handle,
            Seated {
                seat: Seat(0),
                seat_token: protocol::SeatToken::new(token),
                host: true,
            },
        ))
    }
}

fn table_code(table: &Table) -> String {
    table.code().to_string()
}

impl Hub {
    /// The tables' clock: connections stamp what they receive and write with it (`connection.rs`).
    pub fn clock(&self) -> &SharedClock {
        &self.clock
    }

    /// The public list of open, listed lobbies with a free seat, of one game or of all (issue 13).
    pub async fn open_lobbies(&self, game: Option<&str>) -> Result<Vec<protocol::ListedLobby>, ErrorBody> {
        if let Some(game) = game
            && !rules::catalogue().iter().any(|g| g.id == game)
        {
            return Err(ErrorBody::new(
                ErrorCode::UnknownGame,
                format!("no game has the id `{game}`"),
            ));
        }
        self.store.listed_lobbies(game).await.map_err(|e| {
            if e.is_unavailable() {
                warn!(error = %e, "listing open lobbies failed: the database cannot be reached");
                return store_unavailable();
            }
            error!(error = %e, "listing open lobbies failed");
            ErrorBody::new(ErrorCode::Internal, "the list of open lobbies is not available")
        })
    }
}
