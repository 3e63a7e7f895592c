//! Helpers of the cluster tests (issue 27): a PostgreSQL database of the test's own shared by several nodes
//! (in-process on port 0, or the real binary as child processes) and the NATS server they forward through,
//! direct reads of the leases and the action log, reconnection after a takeover, and the checks every takeover
//! test makes of the log.

use std::{
    net::SocketAddr,
    sync::atomic::{AtomicU64, Ordering},
    time::{Duration, Instant},
};

use serde_json::{Value, json};
use sqlx::{PgPool, Row};

use server::ManualClock;

use crate::{
    Client, Played, Player, ServerProcess, TestDb, TestServer, Time, backends, http_request, play, req,
    test_config,
};

/// The admin token every cluster node of the tests is given.
pub const ADMIN_TOKEN: &str = "admin-token-for-tests-0123456789";

/// The cluster secret every cluster node of the tests is given.
pub const SECRET: &str = "cluster-secret-for-tests-0123456789abcdef";

/// The NATS server the nodes forward through: `TEST_NATS_URL`, default `nats://127.0.0.1:4222`. A node starts
/// while it is down, so tests that do not forward do not need it.
pub fn nats_url() -> String {
    std::env::var("TEST_NATS_URL")
        .ok()
        .filter(|u| !u.is_empty())
        .unwrap_or_else(|| "nats://127.0.0.1:4222".to_string())
}

/// Whether PostgreSQL is there; in CI (`CI` set) its absence fails the test instead of skipping it.
pub fn postgres() -> bool {
    let set = backends().contains(&"postgres");
    if !set {
        assert!(
            std::env::var("CI").is_err(),
            "the cluster tests need PostgreSQL: set TEST_DATABASE_URL in CI"
        );
        eprintln!("skipped: TEST_DATABASE_URL is not set (cluster mode needs PostgreSQL)");
    }
    set
}

/// Whether NATS answers at [`nats_url`]; in CI (`CI` set) its absence fails the test instead of skipping it.
pub async fn nats() -> bool {
    let url = nats_url();
    let host = url.trim_start_matches("nats://").split('/').next().unwrap();
    let up = tokio::net::TcpStream::connect(host).await.is_ok();
    if !up {
        assert!(
            std::env::var("CI").is_err(),
            "the forwarding tests need NATS (TEST_NATS_URL, at {host}) in CI"
        );
        eprintln!("skipped: forwarding needs NATS (none at {host})");
    }
    up
}

/// The configuration of an in-process cluster node `id` with leases of `lease_ms`, forwarding through
/// [`nats_url`].
pub fn node_config(id: &str, lease_ms: u64) -> server::Config {
    let mut config = test_config();
    config.cluster = true;
    config.node_id = Some(id.to_string());
    config.lease_ms = lease_ms;
    config.nats_url = nats_url();
    config.cluster_secret = Some(server::cluster::forward::ClusterSecret::parse(SECRET).unwrap());
    config.admin_token = Some(server::admin::AdminToken::parse(ADMIN_TOKEN).unwrap());
    config
}

/// A test's cluster: one fresh PostgreSQL database that its nodes share, and a direct connection to it. Its
/// nodes' ids carry a tag of this cluster's own ([`TestCluster::id`]): tests running at once share the NATS
/// server, where a node's id is its address.
#[derive(Debug)]
pub struct TestCluster {
    pub db: TestDb,
    pub sql: PgPool,
    tag: String,
}

impl TestCluster {
    /// A fresh database, or `None` when PostgreSQL is not configured (the test then passes as skipped, except
    /// in CI, where it fails: see [`postgres`]).
    pub async fn new() -> Option<TestCluster> {
        if !postgres() {
            return None;
        }
        static N: AtomicU64 = AtomicU64::new(0);
        let tag = format!("{}-{}", std::process::id(), N.fetch_add(1, Ordering::Relaxed));
        let db = TestDb::new("postgres").await;
        let sql = PgPool::connect(db.url()).await.unwrap();
        Some(TestCluster { db, sql, tag })
    }

    /// As [`TestCluster::new`], for a test that forwards: also `None` without NATS (see [`nats`]).
    pub async fn forwarding() -> Option<TestCluster> {
        if !nats().await {
            return None;
        }
        TestCluster::new().await
    }

    /// The id of this cluster's node `name`.
    pub fn id(&self, name: &str) -> String {
        format!("{name}-{}", self.tag)
    }

    /// An in-process node (manual clock) on port 0 with leases of `lease_ms`, serving once this returns.
    pub async fn node(&self, name: &str, lease_ms: u64) -> TestServer {
        self.start(node_config(&self.id(name), lease_ms)).await
    }

    /// An in-process node (manual clock) on port 0 with `config` (see [`node_config`]), serving once this returns.
    pub async fn start(&self, config: server::Config) -> TestServer {
        self.start_with_clock(config, ManualClock::new(crate::CLOCK_START))
            .await
    }

    /// [`TestCluster::start`] with a clock that continues from `clock` (a node started later).
    pub async fn start_with_clock(&self, config: server::Config, clock: ManualClock) -> TestServer {
        let store = server::Store::connect_with(self.db.url(), crate::test_pool())
            .await
            .expect("database");
        let server = TestServer::start_with_store_and_clock(store, config, clock).await;
        let (status, _) = crate::http_get(server.addr, "/readyz").await;
        assert_eq!(status, 200);
        server
    }

    /// The server binary `binary` (a test's `env!("CARGO_BIN_EXE_server-under-test")`) as node `name` (wall
    /// clock, bots acting at once, no rate limit), with leases of `lease_ms` (`None`: the server's default).
    pub async fn process(&self, binary: &str, name: &str, lease_ms: Option<u64>) -> ServerProcess {
        self.process_with(binary, name, lease_ms, &[], None).await
    }

    /// [`TestCluster::process`] with more environment (later entries win) and, when `log` is given, the node's
    /// log (standard error, at `warn`) written to that file.
    pub async fn process_with(
        &self,
        binary: &str,
        name: &str,
        lease_ms: Option<u64>,
        extra_env: &[(&str, &str)],
        log: Option<&std::path::Path>,
    ) -> ServerProcess {
        let (id, lease, nats) = (self.id(name), lease_ms.map(|ms| ms.to_string()), nats_url());
        let mut env = vec![
            ("CLUSTER", "true"),
            ("NODE_ID", id.as_str()),
            ("NATS_URL", nats.as_str()),
            ("CLUSTER_SECRET", SECRET),
            ("BOT_DELAY_MS", "0"),
            ("RATE_LIMIT_PER_SEC", "1000"),
            ("ADMIN_TOKEN", ADMIN_TOKEN),
        ];
        if let Some(lease) = &lease {
            env.push(("LEASE_MS", lease));
        }
        env.extend_from_slice(extra_env);
        match log {
            Some(log) => ServerProcess::start_logging(binary, &self.db, &env, "warn", log).await,
            None => ServerProcess::start(binary, &self.db, &env).await,
        }
    }

    /// (owner node, epoch) of a table's lease.
    pub async fn lease(&self, code: &str) -> (String, i64) {
        let row = sqlx::query("SELECT owner_node, epoch FROM table_leases WHERE code = $1")
            .bind(code)
            .fetch_one(&self.sql)
            .await
            .unwrap();
        (row.get(0), row.get(1))
    }

    /// The match's logged actions: (seq, actor, action).
    pub async fn log(&self, code: &str) -> Vec<(i64, String, String)> {
        sqlx::query(
            "SELECT a.seq, a.actor, a.action FROM actions a JOIN matches m ON m.id = a.match_id \
             WHERE m.lobby_code = $1 ORDER BY a.seq",
        )
        .bind(code)
        .fetch_all(&self.sql)
        .await
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2)))
        .collect()
    }

    /// Checks the log of `code` after a match played to version `last`: every sequence number from 1 to `last`
    /// once, in order, and every action a client had acknowledged (seat, action, version) at its version.
    pub async fn assert_log_holds<'a>(
        &self,
        code: &str,
        last: u64,
        acknowledged: impl IntoIterator<Item = &'a (u8, Value, u64)>,
    ) -> Vec<(i64, String, String)> {
        let logged = self.log(code).await;
        let seqs: Vec<i64> = logged.iter().map(|(s, _, _)| *s).collect();
        assert_eq!(
            seqs,
            (1..=last as i64).collect::<Vec<_>>(),
            "each action once, in order"
        );
        for (seat, action, v) in acknowledged {
            let (_, actor, logged) = &logged[*v as usize - 1];
            assert_eq!(
                serde_json::from_str::<Value>(actor).unwrap(),
                json!({"seat": seat})
            );
            assert_eq!(&serde_json::from_str::<Value>(logged).unwrap(), action);
        }
        logged
    }

    /// Plays the match of `players` to its end (seeded by `seed`) and checks its log: every action once, in
    /// order, and every action acknowledged here or in `before` (the same match's earlier play) at its version.
    /// Returns the log.
    pub async fn finish_match(
        &self,
        code: &str,
        players: &mut [Player],
        time: &Time,
        seed: u64,
        before: &Played,
    ) -> Vec<(i64, String, String)> {
        let rest = play(players, time, seed, 10_000).await;
        assert_eq!(rest.last_state["status"]["kind"], "over", "{}", rest.last_state);
        let last = rest.last_state["version"].as_u64().unwrap();
        self.assert_log_holds(code, last, before.acknowledged.iter().chain(&rest.acknowledged))
            .await
    }

    /// Polls the leases of `codes` (all at epoch `epoch`) until each has a later epoch; returns each new owner
    /// and how long after the old lease expired the new owner claimed it, both instants read on the database's
    /// clock (the claim's expiry less the claimer's lease length, which its `nodes` row records). Fails after
    /// `within`.
    pub async fn wait_takeovers(
        &self,
        codes: &[String],
        epoch: i64,
        within: Duration,
    ) -> Vec<(String, Duration)> {
        let deadline = Instant::now() + within;
        let mut expired_at_ms: Vec<Option<f64>> = vec![None; codes.len()];
        let mut taken: Vec<Option<(String, Duration)>> = vec![None; codes.len()];
        while taken.iter().any(Option::is_none) {
            for (i, code) in codes.iter().enumerate() {
                if taken[i].is_some() {
                    continue;
                }
                let row = sqlx::query(
                    "SELECT l.owner_node, l.epoch, (extract(epoch FROM l.expires_at) * 1000)::float8, \
                         n.lease_ms::float8 \
                     FROM table_leases l JOIN nodes n ON n.id = l.owner_node WHERE l.code = $1",
                )
                .bind(code)
                .fetch_one(&self.sql)
                .await
                .unwrap();
                let (owner, now_epoch, expires, lease): (String, i64, f64, f64) =
                    (row.get(0), row.get(1), row.get(2), row.get(3));
                if now_epoch == epoch {
                    expired_at_ms[i] = Some(expires);
                    continue;
                }
                assert_eq!(now_epoch, epoch + 1, "one change of owner for {code}");
                let expired = expired_at_ms[i].expect("the old lease was seen before the takeover");
                let claimed = expires - lease;
                assert!(
                    claimed >= expired,
                    "{code} claimed at {claimed} ms before its old lease expired at {expired} ms"
                );
                taken[i] = Some((owner, Duration::from_secs_f64((claimed - expired) / 1000.0)));
            }
            assert!(
                Instant::now() < deadline,
                "no takeover of every table within {within:?}: {taken:?}"
            );
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        taken.into_iter().flatten().collect()
    }

    /// Drops the database.
    pub async fn finish(self) {
        self.sql.close().await;
        self.db.drop_db().await;
    }
}

/// A match for two created on `addr` with `create` (a `create_lobby` of two seats; both seats there) and started;
/// returns the code, the players and the host's first state.
pub async fn start_for_two(addr: SocketAddr, create: protocol::Request) -> (String, Vec<Player>, Value) {
    let mut host = Client::hello(addr).await;
    let created = host.request(create).await;
    assert_eq!(created["type"], "seated", "{created}");
    let code = created["code"].as_str().unwrap().to_string();
    let mut guest = Client::hello(addr).await;
    let joined = guest.request(req::join(&code, "Bob")).await;
    assert_eq!(joined["type"], "seated", "{joined}");
    assert_eq!(host.request(req::start()).await["type"], "ok");
    let first = host.wait_version(0).await;
    guest.wait_version(0).await;
    let players = [(host, created), (guest, joined)]
        .into_iter()
        .enumerate()
        .map(|(seat, (client, r))| Player {
            client,
            seat: seat as u8,
            token: r["seat_token"].as_str().unwrap().to_string(),
        })
        .collect();
    (code, players, first)
}

/// The admin API's `owner` of the table `code` (its lease), as node `addr` lists it.
pub async fn admin_owner(addr: SocketAddr, code: &str) -> Value {
    let auth = format!("Bearer {ADMIN_TOKEN}");
    let (status, _, text) = http_request(
        addr,
        "GET",
        "/api/admin/matches",
        &[("Authorization", auth.as_str())],
        None,
    )
    .await;
    assert_eq!(status, 200, "{text}");
    let listed: Value = serde_json::from_str(&text).unwrap();
    let item = listed["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["code"] == code)
        .expect("the table is listed")
        .clone();
    item["owner"].clone()
}

/// A legal action of whichever player may act now, with the index of that player and the version it is for.
pub fn a_legal_action(players: &[Player]) -> Option<(usize, Value, u64)> {
    players.iter().enumerate().find_map(|(i, p)| {
        let state = p.client.state.as_ref()?;
        let legal = state["legal_actions"].as_array()?;
        Some((i, legal.first()?.clone(), state["version"].as_u64()?))
    })
}

/// Resumes `token`'s seat on the node at `addr`, retrying while the table is between owners (`moved`, or
/// `forward_unavailable` while its lease still names an owner that does not answer); fails after 20 s.
pub async fn resume_when_taken_over(addr: SocketAddr, code: &str, token: &str) -> Client {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let mut c = Client::hello(addr).await;
        let r = c.request(req::resume(code, token)).await;
        if r["type"] == "resumed" {
            return c;
        }
        assert!(
            ["moved", "forward_unavailable"].contains(&r["code"].as_str().unwrap_or("")),
            "{r}"
        );
        assert!(Instant::now() < deadline, "no takeover within 20 s: {r}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Every player reconnects to the node at `addr` with its seat token (waiting for the takeover) and catches
/// up to `version`.
pub async fn reconnect_all(addr: SocketAddr, code: &str, players: Vec<Player>, version: u64) -> Vec<Player> {
    let mut moved = Vec::new();
    for p in players {
        let c = resume_when_taken_over(addr, code, &p.token).await;
        moved.push(caught_up(c, p, version).await);
    }
    moved
}

/// Every player reconnects to the node at `addr` with its seat token, resumes at the first attempt, and
/// catches up to `version`.
pub async fn resume_all(addr: SocketAddr, code: &str, players: Vec<Player>, version: u64) -> Vec<Player> {
    let mut moved = Vec::new();
    for p in players {
        let mut c = Client::hello(addr).await;
        let r = c.request(req::resume(code, &p.token)).await;
        assert_eq!(r["type"], "resumed", "{r}");
        moved.push(caught_up(c, p, version).await);
    }
    moved
}

async fn caught_up(mut client: Client, player: Player, version: u64) -> Player {
    client.wait_version(version).await;
    Player {
        client,
        seat: player.seat,
        token: player.token,
    }
}

/// Each client is sent `closing` with `code` (after whatever came before it) and its connection ends.
pub async fn assert_closed_with<'a>(clients: impl IntoIterator<Item = &'a mut Client>, code: &str) {
    for client in clients {
        let last = client.until_closed().await.expect("a closing message");
        assert_eq!(
            (last["type"].as_str(), last["code"].as_str()),
            (Some("closing"), Some(code)),
            "{last}"
        );
    }
}

/// Every frame `client` receives until its connection closes.
pub async fn drain(client: &mut Client) -> Vec<Value> {
    let mut frames = Vec::new();
    while let Some(frame) = client.read().await {
        frames.push(frame);
    }
    frames
}

impl ServerProcess {
    /// The process id (to send it signals).
    pub fn pid(&self) -> u32 {
        self.child.id().expect("running")
    }

    /// Sends `signal` (e.g. `STOP`, `CONT`) to the process.
    pub fn signal(&self, signal: &str) {
        let sent = std::process::Command::new("kill")
            .args([format!("-{signal}"), self.pid().to_string()])
            .status()
            .unwrap();
        assert!(sent.success(), "kill -{signal}");
    }

    /// Waits for the process to exit (after a signal the test sent); returns whether it exited successfully.
    pub async fn exited(mut self) -> bool {
        tokio::time::timeout(crate::TIMEOUT, self.child.wait())
            .await
            .expect("exits in time")
            .unwrap()
            .success()
    }
}

/// A gauge or counter of node `addr`'s `/metrics`.
pub async fn metric(addr: std::net::SocketAddr, name: &str) -> f64 {
    let (status, text) = crate::http_get(addr, "/metrics").await;
    assert_eq!(status, 200);
    text.lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.parse().ok())
        .unwrap_or_else(|| panic!("{name} is on /metrics"))
}
