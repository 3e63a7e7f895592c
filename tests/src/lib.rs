//! Helpers shared by the end-to-end tests: a real server on port 0 (in this process with a manual clock, or the
//! real binary as a child process), a fresh database per test (SQLite, and PostgreSQL when
//! `TEST_DATABASE_URL` is set), WebSocket clients that speak the protocol, typed requests for them ([`req`]),
//! and a driver that plays a match to its end with random legal actions.
//!
//! Nothing here sleeps to synchronise: every wait is for a message, with a timeout that only turns a hang into
//! a failure.

use std::{
    collections::VecDeque,
    net::SocketAddr,
    path::PathBuf,
    process::Stdio,
    sync::{
        Arc,
        atomic::{AtomicU64, Ordering},
    },
    time::Duration,
};

use futures_util::{SinkExt, StreamExt};
use rules::Rng;
use serde_json::{Value, json};
use server::{Config, ManualClock, Store};
use sqlx::Connection;
use tokio::{
    io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader},
    net::TcpStream,
    sync::oneshot,
    task::JoinHandle,
};
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream, tungstenite::Message};

/// Longest wait for any one message before a test fails.
pub const TIMEOUT: Duration = Duration::from_secs(30);
/// Where the manual clock of in-process servers starts (a fixed, realistic Unix time).
pub const CLOCK_START: u64 = 1_800_000_000_000;

pub mod cluster;
pub mod push_receiver;
pub mod req;
pub mod smtp_sink;
pub mod webhook_receiver;
pub use req::{Body, LobbySettings};

static UNIQUE: AtomicU64 = AtomicU64::new(0);

fn unique_name(prefix: &str) -> String {
    let mut bytes = [0u8; 8];
    // Process id, a counter and the time make names unique across concurrent test binaries.
    let n = UNIQUE.fetch_add(1, Ordering::Relaxed);
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    bytes.copy_from_slice(&(t as u64 ^ (n << 48)).to_le_bytes());
    format!(
        "{prefix}_{}_{}_{:x}",
        std::process::id(),
        n,
        u64::from_le_bytes(bytes)
    )
}

/// A database of one test's own.
#[derive(Debug)]
pub enum TestDb {
    Sqlite {
        dir: PathBuf,
        url: String,
    },
    Postgres {
        admin_url: String,
        name: String,
        url: String,
    },
}

/// The seats a `state` push waits for: the turn's seat, or the seats still expected in a simultaneous step; nobody
/// in a race or once over (as `my_tables` reports them).
pub fn deciding(state: &Value) -> Vec<u64> {
    let status = &state["status"];
    match status["kind"].as_str() {
        Some("turn") => vec![status["seat"].as_u64().expect("a turn's seat")],
        Some("simultaneous") => status["seats"]
            .as_array()
            .expect("a simultaneous step's seats")
            .iter()
            .map(|s| s.as_u64().expect("a seat"))
            .collect(),
        _ => vec![],
    }
}

/// The backends every persistence test runs on: SQLite always, PostgreSQL when `TEST_DATABASE_URL` is set.
pub fn backends() -> Vec<&'static str> {
    let mut b = vec!["sqlite"];
    if std::env::var("TEST_DATABASE_URL").is_ok_and(|u| !u.is_empty()) {
        b.push("postgres");
    }
    b
}

impl TestDb {
    pub async fn new(backend: &str) -> TestDb {
        match backend {
            "sqlite" => {
                let dir = std::env::temp_dir().join(unique_name("tabletop_test"));
                std::fs::create_dir_all(&dir).unwrap();
                let url = format!("sqlite://{}", dir.join("data").join("tabletop.db").display());
                TestDb::Sqlite { dir, url }
            }
            "postgres" => {
                let admin_url = std::env::var("TEST_DATABASE_URL").expect("TEST_DATABASE_URL");
                let name = unique_name("tabletop_test");
                let mut conn = sqlx::PgConnection::connect(&admin_url).await.unwrap_or_else(|e| {
                    panic!("TEST_DATABASE_URL is set but PostgreSQL is unreachable: {e}")
                });
                // A database name cannot be a bound parameter; this one is made of [a-z0-9_] by `unique_name`.
                let create = format!("CREATE DATABASE {name}");
                sqlx::raw_sql(sqlx::AssertSqlSafe(create))
                    .execute(&mut conn)
                    .await
                    .unwrap();
                conn.close().await.unwrap();
                let base = admin_url.split('?').next().unwrap();
                let url = format!(
                    "{}/{name}",
                    &base[..base.rfind('/').expect("a database URL has a path")]
                );
                TestDb::Postgres { admin_url, name, url }
            }
            other => panic!("unknown backend {other}"),
        }
    }

    pub fn url(&self) -> &str {
        match self {
            TestDb::Sqlite { url, .. } | TestDb::Postgres { url, .. } => url,
        }
    }

    /// Opens the database directly (to read the action log a server wrote).
    pub async fn store(&self) -> Store {
        Store::connect(self.url()).await.unwrap()
    }

    /// Removes the database.
    pub async fn drop_db(self) {
        match self {
            TestDb::Sqlite { dir, .. } => {
                let _ = std::fs::remove_dir_all(dir);
            }
            TestDb::Postgres { admin_url, name, .. } => {
                if let Ok(mut conn) = sqlx::PgConnection::connect(&admin_url).await {
                    let drop = format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)");
                    let _ = sqlx::raw_sql(sqlx::AssertSqlSafe(drop)).execute(&mut conn).await;
                }
            }
        }
    }
}

/// A server running inside the test process, on port 0, with a manual clock.
#[derive(Debug)]
pub struct TestServer {
    pub addr: SocketAddr,
    pub clock: ManualClock,
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<Result<(), server::RunError>>>,
}

/// The configuration tests start from: the defaults with bots acting at once, and no rate limit, no per-address
/// limits and no limit on failed code look-ups (test clients play far faster than people, all from 127.0.0.1;
/// the limits have their own tests).
pub fn test_config() -> Config {
    let mut config = Config::defaults();
    config.bot_delay_ms = 0;
    config.rate_limit_per_sec = 1e9;
    config.rate_limit_burst = 1e9;
    config.max_connections_per_ip = 100_000;
    config.max_lobbies_per_ip = 1_000_000;
    config.code_guesses_per_ip_burst = 1e9;
    config.code_guesses_burst = 1e9;
    config
}

/// The pool settings of the tests' in-process servers: the server's defaults with 10 s, not 1.5 s, before a call of
/// the store is given up as `store_unavailable`. The tests share one PostgreSQL on a shared machine, and other tests
/// drop their databases meanwhile (each `DROP DATABASE` forces an immediate checkpoint): a commit has been seen to
/// wait longer than 1.5 s there (CI, `cluster_forward`: a listed action refused `store_unavailable`), and these
/// tests are not about that deadline. The tests that are (`tests/tests/faults.rs`) give their servers stores of
/// their own with the defaults.
pub fn test_pool() -> server::store::PoolSettings {
    server::store::PoolSettings {
        acquire_timeout: Duration::from_secs(10),
        deadline: Duration::from_secs(10),
    }
}

impl TestServer {
    pub async fn start(db: &TestDb, config: Config) -> TestServer {
        TestServer::start_with_clock(db, config, ManualClock::new(CLOCK_START)).await
    }

    /// Starts a server whose clock continues from `clock` (as after a restart).
    pub async fn start_with_clock(db: &TestDb, config: Config, clock: ManualClock) -> TestServer {
        let store = Store::connect_with(db.url(), test_pool())
            .await
            .expect("database");
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(server::run(
            listener,
            config,
            store,
            Arc::new(clock.clone()),
            async move {
                let _ = stopped.await;
            },
        ));
        TestServer {
            addr,
            clock,
            stop: Some(stop),
            task: Some(task),
        }
    }

    /// Graceful shutdown, as on SIGTERM; returns once the server has finished.
    pub async fn stop(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(task) = self.task.take() {
            tokio::time::timeout(TIMEOUT, task)
                .await
                .expect("server stops")
                .unwrap()
                .unwrap();
        }
    }

    pub async fn client(&self) -> Client {
        Client::hello(self.addr).await
    }
}

/// The real server binary as a child process (for the crash test).
#[derive(Debug)]
pub struct ServerProcess {
    pub addr: SocketAddr,
    child: tokio::process::Child,
}

impl ServerProcess {
    pub async fn start(binary: &str, db: &TestDb, extra_env: &[(&str, &str)]) -> ServerProcess {
        ServerProcess::spawn(binary, db, extra_env, "warn", Stdio::inherit(), None).await
    }

    /// Starts the binary with `RUST_LOG` and its standard error as given, and waits for its address.
    async fn spawn(
        binary: &str,
        db: &TestDb,
        extra_env: &[(&str, &str)],
        rust_log: &str,
        stderr: Stdio,
        soft_open_files: Option<u64>,
    ) -> ServerProcess {
        let mut command = match soft_open_files {
            None => tokio::process::Command::new(binary),
            // The shell sets the soft limit, then becomes the server (same process id).
            Some(soft) => {
                let mut command = tokio::process::Command::new("sh");
                command.args([
                    "-c",
                    r#"ulimit -Sn "$1" && shift && exec "$@""#,
                    "sh",
                    &soft.to_string(),
                    binary,
                ]);
                command
            }
        };
        command
            .env("BIND", "127.0.0.1:0")
            .env("DATABASE_URL", db.url())
            .env("RUST_LOG", rust_log)
            .stdout(Stdio::piped())
            .stderr(stderr)
            .kill_on_drop(true);
        for (k, v) in extra_env {
            command.env(k, v);
        }
        let mut child = command.spawn().expect("the server binary starts");
        let stdout = child.stdout.take().unwrap();
        let mut lines = BufReader::new(stdout).lines();
        let line = tokio::time::timeout(TIMEOUT, lines.next_line())
            .await
            .expect("the server prints its address")
            .unwrap()
            .expect("a line");
        let addr = line
            .strip_prefix("listening on http://")
            .expect("listening line")
            .parse()
            .unwrap();
        ServerProcess { addr, child }
    }

    /// The server's resident memory (`VmRSS` of /proc/PID/status), in bytes.
    pub fn rss_bytes(&self) -> u64 {
        let pid = self.child.id().expect("running");
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("/proc/PID/status");
        let kb: u64 = status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.trim().strip_suffix("kB"))
            .expect("a VmRSS line")
            .trim()
            .parse()
            .unwrap();
        kb * 1024
    }

    /// SIGKILL: no shutdown, no flushing, nothing.
    pub async fn kill(mut self) {
        self.child.kill().await.unwrap();
    }

    /// SIGTERM, then waits for the process to exit; returns whether it exited successfully.
    pub async fn terminate(mut self) -> bool {
        let pid = self.child.id().expect("running").to_string();
        let sent = std::process::Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .unwrap();
        assert!(sent.success());
        tokio::time::timeout(TIMEOUT, self.child.wait())
            .await
            .expect("exits in time")
            .unwrap()
            .success()
    }
}

/// An upgrade request the server answered with an HTTP status instead of a WebSocket.
#[derive(Debug)]
pub struct Refused {
    pub status: u16,
    pub retry_after: Option<String>,
    /// The JSON body (`Null` when there is none or it is not JSON).
    pub body: Value,
}

/// A WebSocket client speaking the protocol as a third-party program would: it sends typed requests ([`req`])
/// as their wire JSON and reads every frame as a JSON value (checked to be a protocol message).
#[derive(Debug)]
pub struct Client {
    ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
    next_id: u64,
    /// Pushes received while waiting for a reply, in order.
    pushes: VecDeque<Value>,
    /// The latest state push.
    pub state: Option<Value>,
    /// The latest lobby push.
    pub lobby: Option<Value>,
    /// Every state push received, in order.
    pub states: Vec<Value>,
    /// Every frame received (replies and pushes of every type), in order.
    pub received: Vec<Value>,
    /// The status of the server's close frame, once one came (`Some(None)`: a close frame without a status).
    pub close_status: Option<Option<u16>>,
}

impl Client {
    pub async fn connect(addr: SocketAddr) -> Client {
        Client::connect_with_headers(addr, &[]).await
    }

    /// Connects with these extra headers on the upgrade request (e.g. a proxy's `X-Forwarded-For`).
    pub async fn connect_with_headers(addr: SocketAddr, headers: &[(&'static str, &str)]) -> Client {
        match Client::try_connect_with_headers(addr, headers).await {
            Ok(client) => client,
            Err(refused) => panic!("WebSocket refused: {refused:?}"),
        }
    }

    /// Connects, or returns how the server refused the upgrade.
    pub async fn try_connect(addr: SocketAddr) -> Result<Client, Refused> {
        Client::try_connect_with_headers(addr, &[]).await
    }

    /// Connects with these extra headers, or returns how the server refused the upgrade.
    pub async fn try_connect_with_headers(
        addr: SocketAddr,
        headers: &[(&'static str, &str)],
    ) -> Result<Client, Refused> {
        use tokio_tungstenite::tungstenite::{self, client::IntoClientRequest};
        let mut request = format!("ws://{addr}/ws").into_client_request().unwrap();
        for (name, value) in headers {
            request
                .headers_mut()
                .append(*name, value.parse().expect("a header value"));
        }
        // No Nagle delay on the client side either, as a real-time client would set it.
        let connected = tokio::time::timeout(
            TIMEOUT,
            tokio_tungstenite::connect_async_with_config(request, None, true),
        )
        .await
        .expect("the server answers the upgrade request");
        let ws = match connected {
            Ok((ws, _)) => ws,
            Err(tungstenite::Error::Http(response)) => {
                let (parts, body) = response.into_parts();
                let header = |name: &str| {
                    parts
                        .headers
                        .get(name)
                        .map(|v| v.to_str().unwrap_or_default().to_string())
                };
                return Err(Refused {
                    status: parts.status.as_u16(),
                    retry_after: header("retry-after"),
                    body: body
                        .and_then(|b| serde_json::from_slice(&b).ok())
                        .unwrap_or(Value::Null),
                });
            }
            Err(e) => panic!("WebSocket connects: {e}"),
        };
        Ok(Client {
            ws,
            next_id: 1,
            pushes: VecDeque::new(),
            state: None,
            lobby: None,
            states: Vec::new(),
            received: Vec::new(),
            close_status: None,
        })
    }

    /// Connects and completes the handshake.
    pub async fn hello(addr: SocketAddr) -> Client {
        let mut c = Client::connect(addr).await;
        let welcome = c.request(req::hello()).await;
        assert_eq!(welcome["type"], "welcome", "{welcome}");
        c
    }

    pub async fn send_text(&mut self, text: String) {
        self.ws.send(Message::Text(text.into())).await.expect("send");
    }

    pub async fn send_binary(&mut self, bytes: Vec<u8>) {
        self.ws.send(Message::Binary(bytes.into())).await.expect("send");
    }

    /// Ends the connection with a WebSocket close frame (dropping a client instead ends it without one).
    pub async fn close(mut self) {
        let _ = self.ws.close(None).await;
    }

    /// Sends a WebSocket ping frame.
    pub async fn send_ping(&mut self, payload: Vec<u8>) {
        self.ws.send(Message::Ping(payload.into())).await.expect("send");
    }

    /// Sends a text frame and says whether it went (a server may close the connection while a big frame is still
    /// being written).
    pub async fn try_send_text(&mut self, text: String) -> bool {
        self.ws.send(Message::Text(text.into())).await.is_ok()
    }

    /// Sends a text frame whose payload is any bytes, valid UTF-8 or not (for the hostile-input corpus).
    pub async fn send_raw_text(&mut self, bytes: Vec<u8>) {
        use tokio_tungstenite::tungstenite::protocol::frame::{
            Frame,
            coding::{Data, OpCode},
        };
        let frame = Frame::message(bytes, OpCode::Data(Data::Text), true);
        self.ws.send(Message::Frame(frame)).await.expect("send");
    }

    /// The next frame from the server as JSON; `None` once the connection is closed.
    pub async fn read(&mut self) -> Option<Value> {
        loop {
            let frame = tokio::time::timeout(TIMEOUT, self.ws.next())
                .await
                .expect("a message in time");
            match frame {
                Some(Ok(Message::Text(text))) => {
                    let value: Value = serde_json::from_str(text.as_str()).expect("server frames are JSON");
                    // Every frame is a valid protocol message.
                    serde_json::from_value::<protocol::ServerMessage>(value.clone())
                        .unwrap_or_else(|e| panic!("not a protocol message: {e}: {value}"));
                    if value["type"] == "state" {
                        self.state = Some(value.clone());
                        self.states.push(value.clone());
                    }
                    if value["type"] == "lobby" {
                        self.lobby = Some(value.clone());
                    }
                    self.received.push(value.clone());
                    return Some(value);
                }
                Some(Ok(Message::Close(frame))) => {
                    self.close_status = Some(frame.map(|f| u16::from(f.code)));
                    return None;
                }
                None | Some(Err(_)) => return None,
                Some(Ok(_)) => continue,
            }
        }
    }

    /// Sends a request with a fresh id and returns its reply; pushes that arrive first are kept for
    /// [`Client::next_push`]. The request is typed ([`req`]) or, where a test sends something invalid on
    /// purpose, a raw JSON object.
    pub async fn request(&mut self, body: impl Body) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send_text(body.frame(id)).await;
        self.reply_to(json!(id)).await
    }

    /// Waits for the reply whose `re` is `re`.
    pub async fn reply_to(&mut self, re: Value) -> Value {
        loop {
            let message = self
                .read()
                .await
                .expect("connection open while waiting for a reply");
            if message.get("re").is_some() {
                assert_eq!(message["re"], re, "replies come in request order: {message}");
                return message;
            }
            self.pushes.push_back(message);
        }
    }

    /// The next push (buffered or from the socket); `None` once the connection is closed.
    pub async fn next_push(&mut self) -> Option<Value> {
        if let Some(p) = self.pushes.pop_front() {
            return Some(p);
        }
        let message = self.read().await?;
        assert!(message.get("re").is_none(), "unexpected reply {message}");
        Some(message)
    }

    /// Waits for a push of `type` that satisfies `pred`, dropping others.
    pub async fn wait_push(&mut self, kind: &str, pred: impl Fn(&Value) -> bool) -> Value {
        loop {
            let p = self
                .next_push()
                .await
                .unwrap_or_else(|| panic!("closed while waiting for {kind}"));
            if p["type"] == kind && pred(&p) {
                return p;
            }
        }
    }

    /// Waits until this client has seen state `version` (or later) and returns that state.
    pub async fn wait_version(&mut self, version: u64) -> Value {
        if let Some(s) = &self.state
            && s["version"].as_u64().unwrap() >= version
            && self.pushes.is_empty()
        {
            return s.clone();
        }
        self.wait_push("state", |s| s["version"].as_u64().unwrap() >= version)
            .await
    }

    /// Drains pushes until the connection closes; returns the last push.
    pub async fn until_closed(&mut self) -> Option<Value> {
        let mut last = None;
        while let Some(p) = self.next_push().await {
            last = Some(p);
        }
        last
    }
}

/// One seated player of a test.
#[derive(Debug)]
pub struct Player {
    pub client: Client,
    pub seat: u8,
    pub token: String,
}

/// Creates a lobby of `seats` seats with `humans` human players (the first is the host), fills the rest with
/// bots, starts it, and returns the code and the players once each has seen the first state.
pub async fn start_match(
    addr: SocketAddr,
    game: &str,
    options: Value,
    seats: u8,
    humans: u8,
) -> (String, Vec<Player>) {
    start_match_on(&[addr], game, options, seats, humans).await
}

/// As [`start_match`], with human player `i` connected to `addrs[i % addrs.len()]` (the host to `addrs[0]`):
/// servers sharing one database, such as cluster nodes.
pub async fn start_match_on(
    addrs: &[SocketAddr],
    game: &str,
    options: Value,
    seats: u8,
    humans: u8,
) -> (String, Vec<Player>) {
    let mut host = Client::hello(addrs[0]).await;
    let created = host
        .request(req::create_lobby(game, seats, "Host").options(options))
        .await;
    assert_eq!(created["type"], "seated", "{created}");
    let code = created["code"].as_str().unwrap().to_string();
    let mut players = vec![Player {
        client: host,
        seat: 0,
        token: created["seat_token"].as_str().unwrap().to_string(),
    }];
    for i in 1..humans {
        let mut c = Client::hello(addrs[usize::from(i) % addrs.len()]).await;
        let joined = c.request(req::join(&code.to_lowercase(), &format!("P{i}"))).await;
        assert_eq!(joined["type"], "seated", "{joined}");
        assert_eq!(joined["seat"], i);
        players.push(Player {
            client: c,
            seat: i,
            token: joined["seat_token"].as_str().unwrap().to_string(),
        });
    }
    for _ in humans..seats {
        let r = players[0].client.request(req::add_bot()).await;
        assert_eq!(r["type"], "ok", "{r}");
    }
    let r = players[0].client.request(req::start()).await;
    assert_eq!(r["type"], "ok", "{r}");
    for p in &mut players {
        p.client.wait_version(0).await;
    }
    (code, players)
}

/// What a driven match came to.
#[derive(Debug)]
pub struct Played {
    /// Actions the clients sent and the server acknowledged.
    pub acknowledged: Vec<(u8, Value, u64)>,
    /// The final state as the first player saw it.
    pub last_state: Value,
}

/// How a driver waits for the clock's own actions (claim windows closing, bots, turn timers).
#[derive(Debug, Clone)]
pub enum Time {
    /// An in-process server: move its manual clock to the next deadline.
    Manual(ManualClock),
    /// A real server: wait for the wall clock.
    Real,
}

/// Plays random legal actions from the clients until the match is over or `max_actions` actions have been
/// acknowledged. Checks on every step that each client's state version only grows, that every client sees the
/// same version, and that seats only ever receive legal actions that the server then accepts.
pub async fn play(players: &mut [Player], time: &Time, seed: u64, max_actions: usize) -> Played {
    play_until(players, time, seed, max_actions, |_| false).await
}

/// Like [`play`], but also stops (before acting) as soon as the state satisfies `stop`.
pub async fn play_until(
    players: &mut [Player],
    time: &Time,
    seed: u64,
    max_actions: usize,
    stop: impl Fn(&Value) -> bool,
) -> Played {
    let mut rng = Rng::from_seed(seed);
    let mut acknowledged = Vec::new();
    let mut version = players[0].client.state.as_ref().expect("a first state")["version"]
        .as_u64()
        .unwrap();
    for p in players.iter_mut() {
        version = version.max(p.client.wait_version(version).await["version"].as_u64().unwrap());
    }
    loop {
        // Everyone catches up with the latest version.
        let mut latest = version;
        for p in players.iter_mut() {
            let s = p.client.wait_version(version).await;
            latest = latest.max(s["version"].as_u64().unwrap());
        }
        if latest > version {
            version = latest;
            continue;
        }
        let state = players[0].client.state.clone().unwrap();
        if state["status"]["kind"] == "over" || acknowledged.len() >= max_actions || stop(&state) {
            return Played {
                acknowledged,
                last_state: state,
            };
        }
        // Hide and Eeek!'s late claims (rules version 3) are listed for every seat between windows: optional
        // interrupts that random players taking them at every chance would make a match run on for thousands of
        // actions. They are offered one time in ten (a bot late-spots seldom too).
        // (The generator is asked only when one is listed, so other games play the sequences they always did.)
        let late =
            |state: &Value, action: &Value| state["view"]["look"].is_null() && action["type"] == "eeek";
        let late_listed = players.iter().any(|p| {
            let state = p.client.state.as_ref().unwrap();
            state["legal_actions"]
                .as_array()
                .unwrap()
                .iter()
                .any(|a| late(state, a))
        });
        let offer_late = late_listed && rng.below(10) == 0;
        let choices = |state: &Value| -> Vec<Value> {
            let legal = state["legal_actions"].as_array().unwrap();
            legal
                .iter()
                .filter(|a| offer_late || !late(state, a))
                .cloned()
                .collect()
        };
        let movers: Vec<usize> = (0..players.len())
            .filter(|i| !choices(players[*i].client.state.as_ref().unwrap()).is_empty())
            .collect();
        let engine_deadline = state["deadline"].as_u64();
        // With a claim window open, sometimes let it close instead of claiming (on a manual clock only: on the
        // wall clock that would only slow the test down).
        let manual = matches!(time, Time::Manual(_));
        if movers.is_empty() || (manual && engine_deadline.is_some() && rng.below(3) == 0) {
            if let Time::Manual(clock) = time {
                match (engine_deadline, state["turn_deadline"].as_u64()) {
                    (Some(at), _) | (None, Some(at)) => clock.set(at),
                    // Only a bot can be due (bots act at once in tests): its move is on its way.
                    (None, None) => {}
                }
            }
            let next = version + 1;
            for p in players.iter_mut() {
                p.client.wait_version(next).await;
            }
            version = next;
            continue;
        }
        let i = movers[rng.index(movers.len())];
        let p = &mut players[i];
        let legal = choices(p.client.state.as_ref().unwrap());
        let action = legal[rng.index(legal.len())].clone();
        let reply = p.client.request(req::action(&action, version)).await;
        match reply["type"].as_str() {
            Some("accepted") => {
                // Later than the next version when a bot, stand-in or clock acted first without changing this
                // seat's options (an action is stale only when they changed).
                let v = reply["version"].as_u64().unwrap();
                assert!(v > version, "{reply}");
                acknowledged.push((p.seat, action, v));
                version = v;
            }
            // The wall clock may close a claim window, or a bot act, between our read and our action.
            Some("error") if matches!(time, Time::Real) || reply["code"] == "stale_version" => {
                let code = reply["code"].as_str().unwrap();
                assert!(
                    ["stale_version", "illegal_action", "not_your_turn"].contains(&code),
                    "unexpected refusal {reply}"
                );
                let next = version + 1;
                for p in players.iter_mut() {
                    p.client.wait_version(next).await;
                }
                version = next;
            }
            _ => panic!("a listed legal action was refused: {action} -> {reply}"),
        }
    }
}

/// A plain HTTP/1.1 GET; returns the status code and the body.
pub async fn http_get(addr: SocketAddr, path: &str) -> (u16, String) {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let request = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = Vec::new();
    tokio::time::timeout(TIMEOUT, stream.read_to_end(&mut response))
        .await
        .unwrap()
        .unwrap();
    let response = String::from_utf8(response).unwrap();
    let status = response[9..12].parse().unwrap();
    let body = response
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_string())
        .unwrap_or_default();
    let chunked = response
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked");
    (status, if chunked { dechunk(&body) } else { body })
}

fn dechunk(body: &str) -> String {
    let mut out = String::new();
    let mut rest = body;
    while let Some((size, tail)) = rest.split_once("\r\n") {
        let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if n == 0 {
            break;
        }
        out.push_str(&tail[..n]);
        rest = &tail[n + 2..];
    }
    out
}

/// A plain HTTP/1.1 request with extra headers and an optional JSON body; returns the status code, the response
/// headers (lower-case names) and the body.
pub async fn http_request(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<&str>,
) -> (u16, Vec<(String, String)>, String) {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let mut request = format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    if let Some(body) = body {
        request.push_str(&format!(
            "Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        ));
    } else {
        request.push_str("Content-Length: 0\r\n\r\n");
    }
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = Vec::new();
    tokio::time::timeout(TIMEOUT, stream.read_to_end(&mut response))
        .await
        .unwrap()
        .unwrap();
    let response = String::from_utf8(response).unwrap();
    let status = response[9..12].parse().unwrap();
    let (head, body) = response.split_once("\r\n\r\n").unwrap_or((&response, ""));
    let headers: Vec<(String, String)> = head
        .lines()
        .skip(1)
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let chunked = headers
        .iter()
        .any(|(n, v)| n == "transfer-encoding" && v.eq_ignore_ascii_case("chunked"));
    let body = if chunked { dechunk(body) } else { body.to_string() };
    (status, headers, body)
}

impl ServerProcess {
    /// Like [`ServerProcess::start`], with the server's standard error (its log) written to `log`, at the
    /// filter `rust_log`.
    pub async fn start_logging(
        binary: &str,
        db: &TestDb,
        extra_env: &[(&str, &str)],
        rust_log: &str,
        log: &std::path::Path,
    ) -> ServerProcess {
        let file = std::fs::File::create(log).expect("a log file");
        ServerProcess::spawn(binary, db, extra_env, rust_log, Stdio::from(file), None).await
    }

    /// Like [`ServerProcess::start_logging`], started with this soft open-file limit (RLIMIT_NOFILE), as on a
    /// machine whose default is 1024.
    pub async fn start_logging_with_open_files(
        binary: &str,
        db: &TestDb,
        extra_env: &[(&str, &str)],
        rust_log: &str,
        log: &std::path::Path,
        soft_open_files: u64,
    ) -> ServerProcess {
        let file = std::fs::File::create(log).expect("a log file");
        let stderr = Stdio::from(file);
        ServerProcess::spawn(binary, db, extra_env, rust_log, stderr, Some(soft_open_files)).await
    }
}

/// Every row of every table of a test database, each as one line of text (SQLite: the columns joined; PostgreSQL:
/// `row_to_json`), to search for what must not be stored.
pub async fn dump_tables(db: &TestDb) -> Vec<String> {
    use sqlx::Row;
    let mut out = Vec::new();
    match db {
        TestDb::Sqlite { .. } => {
            let mut conn = sqlx::SqliteConnection::connect(db.url()).await.unwrap();
            let tables: Vec<String> =
                sqlx::query_scalar("SELECT name FROM sqlite_master WHERE type = 'table'")
                    .fetch_all(&mut conn)
                    .await
                    .unwrap();
            for table in tables {
                // A table name cannot be a bound parameter; these come from the database's own catalogue.
                let select = format!("SELECT * FROM \"{}\"", table.replace('"', "\"\""));
                let rows = sqlx::query(sqlx::AssertSqlSafe(select))
                    .fetch_all(&mut conn)
                    .await
                    .unwrap();
                for row in rows {
                    let mut line = format!("{table}:");
                    for i in 0..row.len() {
                        let text = row
                            .try_get::<Option<String>, _>(i)
                            .ok()
                            .flatten()
                            .or_else(|| {
                                row.try_get::<Option<Vec<u8>>, _>(i)
                                    .ok()
                                    .flatten()
                                    .map(|b| String::from_utf8_lossy(&b).into_owned())
                            })
                            .or_else(|| {
                                row.try_get::<Option<i64>, _>(i)
                                    .ok()
                                    .flatten()
                                    .map(|n| n.to_string())
                            })
                            .unwrap_or_default();
                        line.push(' ');
                        line.push_str(&text);
                    }
                    out.push(line);
                }
            }
            conn.close().await.unwrap();
        }
        TestDb::Postgres { .. } => {
            let mut conn = sqlx::PgConnection::connect(db.url()).await.unwrap();
            let tables: Vec<String> = sqlx::query_scalar(
                "SELECT table_name::text FROM information_schema.tables WHERE table_schema = 'public'",
            )
            .fetch_all(&mut conn)
            .await
            .unwrap();
            for table in tables {
                // A table name cannot be a bound parameter; these come from the database's own catalogue.
                let select = format!(
                    "SELECT row_to_json(t)::text FROM \"{}\" t",
                    table.replace('"', "\"\"")
                );
                let rows: Vec<String> = sqlx::query_scalar(sqlx::AssertSqlSafe(select))
                    .fetch_all(&mut conn)
                    .await
                    .unwrap();
                out.extend(rows.into_iter().map(|r| format!("{table}: {r}")));
            }
            conn.close().await.unwrap();
        }
    }
    out
}

impl TestServer {
    /// Starts a server on a store the test opened itself (e.g. through a proxy it controls).
    pub async fn start_with_store(store: Store, config: Config) -> TestServer {
        TestServer::start_with_store_and_clock(store, config, ManualClock::new(CLOCK_START)).await
    }

    /// [`TestServer::start_with_store`] with a clock that continues from `clock` (as after a restart).
    pub async fn start_with_store_and_clock(store: Store, config: Config, clock: ManualClock) -> TestServer {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(server::run(
            listener,
            config,
            store,
            Arc::new(clock.clone()),
            async move {
                let _ = stopped.await;
            },
        ));
        TestServer {
            addr,
            clock,
            stop: Some(stop),
            task: Some(task),
        }
    }
}

/// A TCP proxy that delivers every chunk `delay` after it read it, in each direction (a slow link: WebSocket pings
/// and pongs take as long as everything else); returns its address.
pub async fn delaying_proxy(upstream: SocketAddr, delay: Duration) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((client, _)) = listener.accept().await {
            let server = TcpStream::connect(upstream).await.unwrap();
            client.set_nodelay(true).unwrap();
            server.set_nodelay(true).unwrap();
            let (cr, cw) = client.into_split();
            let (sr, sw) = server.into_split();
            delayed_pipe(cr, sw, delay);
            delayed_pipe(sr, cw, delay);
        }
    });
    addr
}

fn delayed_pipe(
    mut from: tokio::net::tcp::OwnedReadHalf,
    mut to: tokio::net::tcp::OwnedWriteHalf,
    delay: Duration,
) {
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<(tokio::time::Instant, Vec<u8>)>();
    tokio::spawn(async move {
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            match from.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    if tx
                        .send((tokio::time::Instant::now() + delay, buf[..n].to_vec()))
                        .is_err()
                    {
                        break;
                    }
                }
            }
        }
    });
    tokio::spawn(async move {
        while let Some((at, bytes)) = rx.recv().await {
            tokio::time::sleep_until(at).await;
            if to.write_all(&bytes).await.is_err() {
                break;
            }
        }
        let _ = to.shutdown().await;
    });
}

/// A TCP proxy the test controls, between the server and its database: [`TcpProxy::cut`] drops every
/// connection and refuses new ones (the database "goes away": a stopped server answers at once);
/// [`TcpProxy::black_hole`] stops forwarding on every connection and accepts new ones without ever answering (a
/// partition, a hung server: nothing comes back, not even a refusal); [`TcpProxy::restore`] lets connections
/// through again (the connections a black hole held are closed, as when the database restarted).
#[derive(Debug)]
pub struct TcpProxy {
    pub addr: SocketAddr,
    /// [`PROXY_OPEN`], [`PROXY_CUT`] or [`PROXY_BLACK_HOLE`].
    mode: Arc<std::sync::atomic::AtomicU8>,
    /// 0: forward everything; 1: armed (the next chunk sent upstream that holds `lose_after` mutes the
    /// answers); 2: answers muted.
    lose_answers: Arc<std::sync::atomic::AtomicU8>,
    lose_after: Arc<std::sync::Mutex<Vec<u8>>>,
    links: Arc<std::sync::Mutex<Vec<JoinHandle<()>>>>,
    /// Connections accepted in a black hole: held open, never read, never answered.
    held: Arc<std::sync::Mutex<Vec<TcpStream>>>,
    accept: JoinHandle<()>,
}

const PROXY_OPEN: u8 = 0;
const PROXY_CUT: u8 = 1;
const PROXY_BLACK_HOLE: u8 = 2;

impl TcpProxy {
    pub async fn start(upstream: SocketAddr) -> TcpProxy {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let mode = Arc::new(std::sync::atomic::AtomicU8::new(PROXY_OPEN));
        let lose_answers = Arc::new(std::sync::atomic::AtomicU8::new(0));
        let lose_after: Arc<std::sync::Mutex<Vec<u8>>> = Arc::default();
        let links: Arc<std::sync::Mutex<Vec<JoinHandle<()>>>> = Arc::default();
        let held: Arc<std::sync::Mutex<Vec<TcpStream>>> = Arc::default();
        let accept = {
            let mode = mode.clone();
            let links = links.clone();
            let held = held.clone();
            let lose_answers = lose_answers.clone();
            let lose_after = lose_after.clone();
            tokio::spawn(async move {
                while let Ok((inbound, _)) = listener.accept().await {
                    match mode.load(Ordering::SeqCst) {
                        PROXY_CUT => {
                            drop(inbound);
                            continue;
                        }
                        PROXY_BLACK_HOLE => {
                            held.lock().unwrap().push(inbound);
                            continue;
                        }
                        _ => {}
                    }
                    let lose = lose_answers.clone();
                    let lose_after = lose_after.clone();
                    let (mode_up, mode_down) = (mode.clone(), mode.clone());
                    let link = tokio::spawn(async move {
                        if let Ok(outbound) = TcpStream::connect(upstream).await {
                            let (mut from_client, mut to_client) = inbound.into_split();
                            let (mut from_db, mut to_db) = outbound.into_split();
                            let lose_up = lose.clone();
                            let up = async move {
                                let mut buf = vec![0u8; 16 * 1024];
                                loop {
                                    let n = match from_client.read(&mut buf).await {
                                        Ok(0) | Err(_) => break,
                                        Ok(n) => n,
                                    };
                                    if mode_up.load(Ordering::SeqCst) == PROXY_BLACK_HOLE {
                                        // Lost on the way; nothing is read or forwarded again.
                                        std::future::pending::<()>().await;
                                    }
                                    let chunk = &buf[..n];
                                    if lose_up.load(Ordering::SeqCst) == 1 && {
                                        let needle = lose_after.lock().unwrap();
                                        !needle.is_empty()
                                            && chunk.windows(needle.len()).any(|w| w == *needle)
                                    } {
                                        lose_up.store(2, Ordering::SeqCst);
                                    }
                                    if to_db.write_all(chunk).await.is_err() {
                                        break;
                                    }
                                }
                            };
                            let down = async move {
                                let mut buf = vec![0u8; 16 * 1024];
                                loop {
                                    let n = match from_db.read(&mut buf).await {
                                        Ok(0) | Err(_) => break,
                                        Ok(n) => n,
                                    };
                                    if mode_down.load(Ordering::SeqCst) == PROXY_BLACK_HOLE {
                                        std::future::pending::<()>().await;
                                    }
                                    if lose.load(Ordering::SeqCst) == 2 {
                                        continue;
                                    }
                                    if to_client.write_all(&buf[..n]).await.is_err() {
                                        break;
                                    }
                                }
                            };
                            tokio::select! {
                                () = up => {}
                                () = down => {}
                            }
                        }
                    });
                    links.lock().unwrap().push(link);
                }
            })
        };
        TcpProxy {
            addr,
            mode,
            lose_answers,
            lose_after,
            links,
            held,
            accept,
        }
    }

    /// Drops every proxied connection and refuses new ones.
    pub fn cut(&self) {
        self.mode.store(PROXY_CUT, Ordering::SeqCst);
        self.drop_connections();
    }

    /// Stops forwarding anything on the connections open now (they stay open), and accepts new ones without
    /// ever answering them.
    pub fn black_hole(&self) {
        self.mode.store(PROXY_BLACK_HOLE, Ordering::SeqCst);
    }

    /// Lets connections through again (and their answers); closes the connections a black hole held.
    pub fn restore(&self) {
        self.lose_answers.store(0, Ordering::SeqCst);
        if self.mode.swap(PROXY_OPEN, Ordering::SeqCst) == PROXY_BLACK_HOLE {
            self.drop_connections();
        }
    }

    fn drop_connections(&self) {
        for link in self.links.lock().unwrap().drain(..) {
            link.abort();
        }
        self.held.lock().unwrap().clear();
    }

    /// From the next chunk sent to the database that holds `needle` on, drops every answer of the database.
    /// With a needle only the write of interest carries (a match id: a group commit on PostgreSQL is one
    /// statement in autocommit, its parameters hold the match id), the write is committed and the server never
    /// hears that it was.
    pub fn lose_answers_after(&self, needle: &str) {
        *self.lose_after.lock().unwrap() = needle.as_bytes().to_vec();
        self.lose_answers.store(1, Ordering::SeqCst);
    }
}

impl Drop for TcpProxy {
    fn drop(&mut self) {
        self.accept.abort();
        self.cut();
    }
}

fn split_url(url: &str) -> (&str, &str, &str, &str) {
    let (scheme, rest) = url.split_once("://").expect("a URL");
    let (user, rest) = rest.split_once('@').unwrap_or(("", rest));
    let (host, path) = rest.split_once('/').unwrap_or((rest, ""));
    (scheme, user, host, path)
}

/// The address of a PostgreSQL URL's server (`postgres://user@host:port/db`, port 5432 by default).
pub fn database_host(url: &str) -> SocketAddr {
    let (_, _, host, _) = split_url(url);
    let host = if host.contains(':') {
        host.to_string()
    } else {
        format!("{host}:5432")
    };
    std::net::ToSocketAddrs::to_socket_addrs(&host)
        .expect("the database host resolves")
        .next()
        .unwrap()
}

/// `url` with its `host:port` replaced by `addr`.
pub fn url_through(url: &str, addr: SocketAddr) -> String {
    let (scheme, user, _, path) = split_url(url);
    let at = if user.is_empty() {
        String::new()
    } else {
        format!("{user}@")
    };
    format!("{scheme}://{at}{addr}/{path}")
}

/// The first word of Rust's types or of serde's messages in a refusal's `message`, which a person should not be
/// shown (serde's own messages read "invalid type: string \"two\", expected u8").
pub fn rust_word_in(message: &str) -> Option<&'static str> {
    const RUST_WORDS: &[&str] = &[
        "struct",
        "enum",
        "variant",
        "u8",
        "u16",
        "u32",
        "u64",
        "i64",
        "usize",
        "sequence",
        "invalid type",
        "invalid value",
        "unit value",
        "Option",
    ];
    RUST_WORDS.iter().copied().find(|word| message.contains(word))
}

/// Runs the server binary `binary` with `args` and `env` (on `BIND=127.0.0.1:0`; later entries win) until it exits,
/// which it must within 20 s (a refusal at start), and returns its exit status and everything it printed.
pub fn run_refused(binary: &str, env: &[(&str, &str)], args: &[&str]) -> (Option<i32>, String) {
    let mut command = std::process::Command::new(binary);
    command
        .args(args)
        .env("BIND", "127.0.0.1:0")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        command.env(k, v);
    }
    let mut child = command.spawn().unwrap();
    let started = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            panic!("{env:?} {args:?}: the server does not exit: it was not refused");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code(), text)
}
