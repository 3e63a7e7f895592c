//! The load generator: M lobbies of N seats, each seat a WebSocket client that plays a random legal action as
//! soon as it may; optionally K idle connections beside them. It measures accepted actions per second, the
//! round trip from sending an action to receiving the state push that contains it, refusals and errors, and
//! (when it started the server itself) the server's resident memory.
//!
//! It only ever talks to 127.0.0.1: either a server binary it starts on a free port with its own fresh database
//! (a SQLite file in a temporary folder, or a new PostgreSQL database created for the run and dropped after it),
//! or a server given by `--url` on the loopback interface. Given several URLs (the nodes of a cluster), each
//! client connects to one of them at random, seeded.
//!
//! Each lobby is driven by one task: it creates the lobby with its first client, the others join, the host
//! starts, and then every client plays on its own until the match is over; the lobby is then played again with
//! the same connections until the measurement ends. Nothing is counted during the warm-up.

use std::{
    borrow::Cow,
    path::PathBuf,
    process::Stdio,
    sync::{
        Arc, Mutex,
        atomic::{AtomicBool, AtomicU64, Ordering},
    },
    time::{Duration, Instant},
};

use clap::Parser;
use futures_util::{SinkExt, StreamExt};
use rules::Rng;
use serde::Deserialize;
use serde_json::{Value, json};
use sqlx::Connection;
use tokio::{
    io::{AsyncBufReadExt, BufReader},
    net::TcpStream,
    sync::watch,
    task::JoinSet,
};
use tokio_tungstenite::{
    WebSocketStream,
    tungstenite::{Message, Utf8Bytes, protocol::WebSocketConfig},
};

mod scan;
mod stamped;
use scan::Head;
use stamped::Stamped;

/// Longest wait for any one message before a client counts an error.
const TIMEOUT: Duration = Duration::from_secs(30);

/// Runs M lobbies of N WebSocket clients playing random legal actions against a tabletop server on 127.0.0.1,
/// and reports accepted actions per second, action round-trip latency, errors and the server's memory.
#[derive(Clone, Debug, Parser)]
#[command(name = "loadgen", version)]
pub struct Options {
    /// A running server's WebSocket URL (host 127.0.0.1 or localhost only), e.g. ws://127.0.0.1:8080/ws. Its rate
    /// limit must allow the load (RATE_LIMIT_PER_SEC). Without it, loadgen starts `--server-bin` itself. Several
    /// URLs (repeat `--url`, or separate them with commas), e.g. the nodes of a cluster: each client (every seat
    /// and idle connection) connects to one of them chosen at random from `--seed`; a lobby's table is on its
    /// host's node, so with N nodes each other seat is elsewhere with probability (N-1)/N. The report counts the
    /// clients per URL.
    #[arg(long, value_delimiter = ',')]
    pub url: Vec<String>,

    /// With several `--url`s: every seat of a lobby connects to the node chosen for the lobby (its host's), so
    /// the tables are spread over the nodes but no request is relayed: the baseline that isolates what relaying
    /// costs from what spreading the tables costs.
    #[arg(long)]
    pub lobby_on_one_node: bool,

    /// The server binary to start (default: `server` next to this executable, e.g. target/release/server).
    #[arg(long)]
    pub server_bin: Option<PathBuf>,

    /// Database of the started server: `postgres://USER@127.0.0.1:5432/DB` (a fresh database is created from this
    /// URL's server for the run and dropped afterwards) or `sqlite` (a fresh file in a temporary folder).
    #[arg(long, default_value = "sqlite")]
    pub database: String,

    /// Extra environment for the started server, e.g. `--server-env SNAPSHOT_EVERY=100` (repeatable).
    #[arg(long = "server-env", value_parser = parse_env)]
    pub server_env: Vec<(String, String)>,

    /// Game id, as `GET /api/games` lists it.
    #[arg(long, default_value = "hide_and_eeek")]
    pub game: String,

    /// Game options as a JSON object (missing ones take their defaults).
    #[arg(long, default_value = "{}")]
    pub options: String,

    /// The version of the game's rules every lobby plays (`rules_version` of `create_lobby`); the newest when
    /// not given.
    #[arg(long)]
    pub rules_version: Option<u32>,

    /// Seats per lobby; every seat is a loadgen client.
    #[arg(long, default_value_t = 2)]
    pub seats: u8,

    /// Lobbies played at the same time (each is played again when its match ends).
    #[arg(long, default_value_t = 10)]
    pub lobbies: usize,

    /// Idle connections (connected and past the handshake, doing nothing) opened before the lobbies.
    #[arg(long, default_value_t = 0)]
    pub idle: usize,

    /// Seconds of play after every lobby has started, before measuring.
    #[arg(long, default_value_t = 2.0)]
    pub warmup: f64,

    /// Seconds measured.
    #[arg(long, default_value_t = 10.0)]
    pub duration: f64,

    /// Keep measuring past `--duration` until at least this many actions were accepted (at most 120 s more), so
    /// that a short smoke run proves something even on a slow machine.
    #[arg(long, default_value_t = 0)]
    pub min_actions: u64,

    /// Seed of the clients' random choices.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,

    /// Print the report as one JSON object instead of text.
    #[arg(long)]
    pub json: bool,

    /// Threads of loadgen's own runtime. With 1 (a current-thread runtime) every client waits behind all the
    /// others whenever the one thread is not running, and that queue is part of every round trip it times; 2 (the
    /// default) shortens it: in 11 alternating pairs on a 2-core machine, ~1 ms less of loadgen's own queue at
    /// the p99 in every pair, more actions/s and a lower p99 in 10. On other machines one thread did as well or
    /// better (on one ~10 % less CPU per action; on another two threads −6 to +2 % actions/s). docs/performance.md,
    /// "Measured reasons".
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u16).range(1..=256))]
    pub threads: u16,
}

fn parse_env(s: &str) -> Result<(String, String), String> {
    s.split_once('=')
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .ok_or_else(|| format!("expected KEY=VALUE, got `{s}`"))
}

/// What a run measured.
#[derive(Clone, Debug, Default)]
pub struct Report {
    pub game: String,
    pub seats: u8,
    pub lobbies: usize,
    pub idle: usize,
    pub database: String,
    pub measured_secs: f64,
    /// Actions the server acknowledged (`accepted`) during the measurement.
    pub accepted: u64,
    /// Actions refused as the normal outcome of racing others (`stale_version`, `not_your_turn`,
    /// `illegal_action` after someone else's change): lost Eeek! claims and the like.
    pub lost_races: u64,
    /// Anything else that went wrong: unexpected refusals, timeouts, closed connections.
    pub errors: u64,
    /// The first few error messages.
    pub error_samples: Vec<String>,
    /// Matches played to their end during the measurement.
    pub matches_finished: u64,
    /// Each URL the clients connected to, with how many clients (seats and idle connections) connected to it.
    pub clients_per_url: Vec<(String, u64)>,
    /// Round trip from sending an action to receiving the state push with its version, in microseconds: until
    /// the client's task reads the push.
    pub latency_us: Percentiles,
    /// The same round trips until the kernel received the push on the client's socket (`SO_TIMESTAMPNS`): without
    /// the time the push then waited for loadgen's own thread.
    pub socket_latency_us: Percentiles,
    /// Server memory (KiB), when loadgen started the server: after start-up, after the idle connections were
    /// open, peak (VmHWM) and current at the end.
    pub server_rss_start_kib: Option<u64>,
    pub server_rss_idle_kib: Option<u64>,
    pub server_hwm_kib: Option<u64>,
    pub server_rss_end_kib: Option<u64>,
    /// CPU time (user + system) the server used during the measurement, when loadgen started it.
    pub server_cpu_secs: Option<f64>,
    /// CPU time the load generator itself used during the measurement.
    pub loadgen_cpu_secs: Option<f64>,
    /// Busy CPU time of the whole machine during the measurement (every core, every process, the kernel's
    /// interrupt work), from /proc/stat; minus the two above it is the database's share plus everything else
    /// running on the machine.
    pub machine_cpu_secs: Option<f64>,
    /// The system (kernel) part of `server_cpu_secs` and of `loadgen_cpu_secs`.
    pub server_kernel_cpu_secs: Option<f64>,
    pub loadgen_kernel_cpu_secs: Option<f64>,
    /// The kernel's part of `machine_cpu_secs` (system, irq and softirq time of every core).
    pub machine_kernel_cpu_secs: Option<f64>,
    /// Cores the machine has (the most `machine_cpu_secs` can be per second).
    pub machine_cores: Option<usize>,
}

impl Report {
    pub fn accepted_per_sec(&self) -> f64 {
        if self.measured_secs > 0.0 {
            self.accepted as f64 / self.measured_secs
        } else {
            0.0
        }
    }

    pub fn to_json(&self) -> Value {
        json!({
            "game": self.game,
            "seats": self.seats,
            "lobbies": self.lobbies,
            "idle": self.idle,
            "database": self.database,
            "measured_secs": self.measured_secs,
            "accepted": self.accepted,
            "accepted_per_sec": self.accepted_per_sec(),
            "lost_races": self.lost_races,
            "errors": self.errors,
            "error_samples": self.error_samples,
            "matches_finished": self.matches_finished,
            "clients_per_url": self.clients_per_url.iter().map(|(u, n)| (u.clone(), json!(n))).collect::<serde_json::Map<_, _>>(),
            "latency_ms": self.latency_us.json_ms(),
            "socket_latency_ms": self.socket_latency_us.json_ms(),
            "server_rss_start_kib": self.server_rss_start_kib,
            "server_rss_idle_kib": self.server_rss_idle_kib,
            "server_hwm_kib": self.server_hwm_kib,
            "server_rss_end_kib": self.server_rss_end_kib,
            "server_cpu_secs": self.server_cpu_secs,
            "loadgen_cpu_secs": self.loadgen_cpu_secs,
            "accepted_per_server_cpu_sec": self.server_cpu_secs.filter(|c| *c > 0.0).map(|c| self.accepted as f64 / c),
            "machine_cpu_secs": self.machine_cpu_secs,
            "server_kernel_cpu_secs": self.server_kernel_cpu_secs,
            "loadgen_kernel_cpu_secs": self.loadgen_kernel_cpu_secs,
            "machine_kernel_cpu_secs": self.machine_kernel_cpu_secs,
            "machine_cores": self.machine_cores,
        })
    }
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mib = |k: Option<u64>| k.map_or("-".to_string(), |k| format!("{:.1} MiB", k as f64 / 1024.0));
        writeln!(
            f,
            "{} x {}-seat {} ({} idle connections), {}, measured {:.1} s",
            self.lobbies, self.seats, self.game, self.idle, self.database, self.measured_secs
        )?;
        writeln!(
            f,
            "accepted {} ({:.0}/s), lost races {}, errors {}, matches finished {}",
            self.accepted,
            self.accepted_per_sec(),
            self.lost_races,
            self.errors,
            self.matches_finished
        )?;
        if self.clients_per_url.len() > 1 {
            let spread: Vec<String> = self
                .clients_per_url
                .iter()
                .map(|(u, n)| format!("{u} {n}"))
                .collect();
            writeln!(f, "clients per URL: {}", spread.join(", "))?;
        }
        writeln!(f, "round trip ms: {}", self.latency_us.in_ms())?;
        writeln!(f, "  at the socket: {}", self.socket_latency_us.in_ms())?;
        writeln!(
            f,
            "server memory: start {}, with idle {}, peak (VmHWM) {}, end {}",
            mib(self.server_rss_start_kib),
            mib(self.server_rss_idle_kib),
            mib(self.server_hwm_kib),
            mib(self.server_rss_end_kib)
        )?;
        if let Some(cpu) = self.server_cpu_secs {
            writeln!(
                f,
                "server CPU {:.2} s ({:.0} % of one core, {:.0} accepted actions per server CPU second); loadgen CPU {:.2} s",
                cpu,
                100.0 * cpu / self.measured_secs.max(1e-9),
                self.accepted as f64 / cpu.max(1e-9),
                self.loadgen_cpu_secs.unwrap_or(0.0)
            )?;
        }
        if let (Some(busy), Some(cores)) = (self.machine_cpu_secs, self.machine_cores) {
            let known = self.server_cpu_secs.unwrap_or(0.0) + self.loadgen_cpu_secs.unwrap_or(0.0);
            writeln!(
                f,
                "machine CPU {:.2} s busy of {:.2} s ({} cores); other than server and loadgen (database, kernel, the rest): {:.2} s",
                busy,
                self.measured_secs * cores as f64,
                cores,
                (busy - known).max(0.0)
            )?;
            if self.accepted > 0 {
                writeln!(
                    f,
                    "CPU per accepted action, us: server {:.1}, loadgen {:.1}, everything else {:.1}, whole machine {:.1}",
                    1e6 * self.server_cpu_secs.unwrap_or(0.0) / self.accepted as f64,
                    1e6 * self.loadgen_cpu_secs.unwrap_or(0.0) / self.accepted as f64,
                    1e6 * (busy - known).max(0.0) / self.accepted as f64,
                    1e6 * busy / self.accepted as f64
                )?;
                if let Some(kernel) = self.machine_kernel_cpu_secs {
                    writeln!(
                        f,
                        "  of which in the kernel, us: server {:.1}, loadgen {:.1}, whole machine {:.1}",
                        1e6 * self.server_kernel_cpu_secs.unwrap_or(0.0) / self.accepted as f64,
                        1e6 * self.loadgen_kernel_cpu_secs.unwrap_or(0.0) / self.accepted as f64,
                        1e6 * kernel / self.accepted as f64
                    )?;
                }
            }
        }
        for e in &self.error_samples {
            writeln!(f, "error: {e}")?;
        }
        Ok(())
    }
}

/// Latency percentiles (nearest rank).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Percentiles {
    pub samples: usize,
    pub p50: u64,
    pub p90: u64,
    pub p99: u64,
    pub max: u64,
}

impl Percentiles {
    /// In milliseconds, as the JSON report has them.
    fn json_ms(&self) -> Value {
        let ms = |us: u64| us as f64 / 1000.0;
        json!({
            "samples": self.samples,
            "p50": ms(self.p50),
            "p90": ms(self.p90),
            "p99": ms(self.p99),
            "max": ms(self.max),
        })
    }

    /// In milliseconds, as the text report has them.
    fn in_ms(&self) -> String {
        let ms = |us: u64| us as f64 / 1000.0;
        format!(
            "p50 {:.2} p90 {:.2} p99 {:.2} max {:.2} ({} samples)",
            ms(self.p50),
            ms(self.p90),
            ms(self.p99),
            ms(self.max),
            self.samples
        )
    }

    pub fn of(mut samples: Vec<u64>) -> Percentiles {
        if samples.is_empty() {
            return Percentiles::default();
        }
        samples.sort_unstable();
        let n = samples.len();
        let rank = |p: f64| samples[((p * n as f64).ceil() as usize).clamp(1, n) - 1];
        Percentiles {
            samples: n,
            p50: rank(0.50),
            p90: rank(0.90),
            p99: rank(0.99),
            max: samples[n - 1],
        }
    }
}

/// The URLs the clients connect to, and how many chose each.
struct Urls {
    list: Vec<String>,
    seed: u64,
    chosen: Vec<AtomicU64>,
    /// `--lobby-on-one-node`: a seat client gets its lobby's URL.
    by_lobby: bool,
}

impl Urls {
    fn new(list: Vec<String>, seed: u64, by_lobby: bool) -> Urls {
        let chosen = list.iter().map(|_| AtomicU64::new(0)).collect();
        Urls {
            list,
            seed,
            chosen,
            by_lobby,
        }
    }

    /// The URL of client number `client` (a number of its own for every client of the run): one at random from
    /// the seed and that number, so a run with the same seed puts each client on the same node.
    fn pick(&self, client: u64) -> &str {
        let client = if self.by_lobby && client >> 63 == 0 {
            seat_client((client >> 16) as usize, 0)
        } else {
            client
        };
        let i = if self.list.len() == 1 {
            0
        } else {
            Rng::from_seed(self.seed ^ client.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 0x0a11_0000_0000_0000)
                .index(self.list.len())
        };
        self.chosen[i].fetch_add(1, Ordering::Relaxed);
        &self.list[i]
    }

    fn counts(&self) -> Vec<(String, u64)> {
        self.list
            .iter()
            .zip(&self.chosen)
            .map(|(u, n)| (u.clone(), n.load(Ordering::Relaxed)))
            .collect()
    }
}

/// The number [`Urls::pick`] is given for seat `seat` of lobby `lobby`, and for idle connection `idle`.
fn seat_client(lobby: usize, seat: usize) -> u64 {
    ((lobby as u64) << 16) | seat as u64
}
fn idle_client(idle: usize) -> u64 {
    (1 << 63) | idle as u64
}

/// Counters shared by every client.
#[derive(Debug, Default)]
struct Tally {
    measuring: AtomicBool,
    accepted: AtomicU64,
    lost: AtomicU64,
    errors: AtomicU64,
    matches: AtomicU64,
    /// Lobbies whose first match has started.
    started: AtomicU64,
    latencies: Mutex<Vec<u64>>,
    /// The same round trips, ended when the kernel received the state push instead of when the client's task got
    /// to it.
    socket_latencies: Mutex<Vec<u64>>,
    error_samples: Mutex<Vec<String>>,
}

impl Tally {
    fn measuring(&self) -> bool {
        self.measuring.load(Ordering::Relaxed)
    }
    fn error(&self, message: String) {
        self.errors.fetch_add(1, Ordering::Relaxed);
        let mut samples = self.error_samples.lock().expect("not poisoned");
        if samples.len() < 10 {
            samples.push(message);
        }
    }
}

type Ws = WebSocketStream<Stamped>;

#[derive(Debug, Deserialize)]
struct StatusHead<'a> {
    #[serde(borrow)]
    kind: Cow<'a, str>,
}

/// The kinds of server message loadgen tells apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    State,
    Accepted,
    Error,
    Closing,
    Other,
}

/// A message as loadgen keeps it: its text and what its head said, read once when it arrived.
#[derive(Debug)]
struct Received {
    text: Utf8Bytes,
    kind: Kind,
    re: Option<u64>,
    version: Option<u64>,
    /// An error's code.
    code: Option<String>,
}

impl Received {
    /// What `head` says (the text is filled in by the caller, which owns it).
    fn of(head: &Head<'_>) -> Received {
        let kind = match head.kind {
            "state" => Kind::State,
            "accepted" => Kind::Accepted,
            "error" => Kind::Error,
            "closing" => Kind::Closing,
            _ => Kind::Other,
        };
        Received {
            text: Utf8Bytes::default(),
            kind,
            re: head.re(),
            version: head.version(),
            code: if kind == Kind::Error {
                head.code().map(str::to_owned)
            } else {
                None
            },
        }
    }
}

/// The latest state push of a client: what loadgen needs to act on it, its legal actions as the text of their
/// array and each one's byte range in it, sent back verbatim. The array is copied out of the frame: a kept frame
/// would pin the WebSocket read buffer it points into, so that every refill allocated a new one (allocation
/// and the buffer's `reserve` were ~10 % of loadgen's samples).
#[derive(Debug, Default)]
struct Seen {
    actions: String,
    version: u64,
    over: bool,
    simultaneous: bool,
    legal: Vec<std::ops::Range<usize>>,
}

impl Seen {
    /// Remembers a `state` push.
    fn read(&mut self, head: &Head<'_>) -> Result<(), String> {
        let status: StatusHead<'_> = match head.status {
            Some(raw) => serde_json::from_str(raw).map_err(|e| format!("state status: {e}"))?,
            None => return Err("state without status".into()),
        };
        self.legal.clear();
        self.actions.clear();
        if let Some(raw) = head.legal_actions {
            let elements = scan::array_elements(raw).map_err(|e| format!("state legal_actions: {e}"))?;
            self.actions.push_str(raw);
            self.legal.extend(elements);
        }
        self.version = head.version().ok_or("state without version")?;
        self.over = status.kind == "over";
        self.simultaneous = status.kind == "simultaneous";
        Ok(())
    }

    fn action(&self, i: usize) -> &str {
        &self.actions[self.legal[i].clone()]
    }
}

/// One WebSocket client. Requests are written as text; replies and pushes are read through [`Head`].
struct Client {
    ws: Ws,
    next_id: u64,
    /// The latest state push seen (`None` until the first after joining a lobby).
    state: Option<Seen>,
    /// A spare for the next state push, so that its buffers are reused.
    spare: Option<Seen>,
    /// One timer for the client's life, for [`TIMEOUT`]: a new `timeout` per frame registered and removed a
    /// timer for every message (as the server's connections once did).
    quiet: std::pin::Pin<Box<tokio::time::Sleep>>,
}

impl Client {
    async fn connect(url: &str) -> Result<Client, String> {
        check_local(url)?;
        let authority = url
            .strip_prefix("ws://")
            .and_then(|rest| rest.split('/').next())
            .ok_or("only ws:// URLs")?;
        let tcp = TcpStream::connect(authority)
            .await
            .map_err(|e| format!("connect: {e}"))?;
        tcp.set_nodelay(true).map_err(|e| format!("connect: {e}"))?;
        let stream = Stamped::new(tcp).map_err(|e| format!("SO_TIMESTAMPNS: {e}"))?;
        // tungstenite zeroes the free part of its read buffer, up to this size, before every read: at its
        // default of 128 KiB that was ~4 us per read once the buffer is reused (a state push is 1-20 KB; a
        // larger frame is read in several steps).
        let config = WebSocketConfig::default().read_buffer_size(8 * 1024);
        let (ws, _) = tokio_tungstenite::client_async_with_config(url, stream, Some(config))
            .await
            .map_err(|e| format!("connect: {e}"))?;
        let mut c = Client {
            ws,
            next_id: 1,
            state: None,
            spare: None,
            quiet: Box::pin(tokio::time::sleep(TIMEOUT)),
        };
        let welcome = c
            .request(json!({"type": "hello", "protocol": 2, "client": "loadgen"}))
            .await?;
        if welcome["type"] != "welcome" {
            return Err(format!("hello refused: {welcome}"));
        }
        Ok(c)
    }

    /// Sends a request made by `body(id)` (a JSON object's text) and returns its id.
    async fn send_text(&mut self, body: impl FnOnce(u64) -> String) -> Result<u64, String> {
        let id = self.next_id;
        self.next_id += 1;
        self.ws
            .send(Message::Text(body(id).into()))
            .await
            .map_err(|e| format!("send: {e}"))?;
        Ok(id)
    }

    async fn send(&mut self, mut body: Value) -> Result<u64, String> {
        self.send_text(|id| {
            body["id"] = json!(id);
            body.to_string()
        })
        .await
    }

    /// The next text frame, its head read once; state pushes are remembered.
    async fn recv(&mut self) -> Result<Received, String> {
        let deadline = tokio::time::Instant::now() + TIMEOUT;
        loop {
            let frame = loop {
                tokio::select! {
                    biased;
                    frame = self.ws.next() => break frame,
                    () = self.quiet.as_mut() => {
                        // The timer was set for an earlier call: move it to this one's deadline.
                        if tokio::time::Instant::now() >= deadline {
                            return Err("no message for 30 s".to_string());
                        }
                        self.quiet.as_mut().reset(deadline);
                    }
                }
            };
            match frame {
                Some(Ok(Message::Text(text))) => {
                    let head = Head::scan(text.as_str()).map_err(|e| format!("bad JSON from server: {e}"))?;
                    let received = Received::of(&head);
                    if received.kind == Kind::State {
                        let mut seen = self.spare.take().unwrap_or_default();
                        seen.read(&head)?;
                        self.spare = self.state.replace(seen);
                    }
                    return Ok(Received { text, ..received });
                }
                Some(Ok(Message::Close(_))) | None => return Err("connection closed".into()),
                Some(Err(e)) => return Err(format!("receive: {e}")),
                Some(Ok(_)) => continue,
            }
        }
    }

    /// Sends a request and returns its reply as a JSON value (pushes before it are consumed, the state ones
    /// remembered). Only used to set lobbies up, not on the play path.
    async fn request(&mut self, body: Value) -> Result<Value, String> {
        let id = self.send(body).await?;
        loop {
            let text = self.recv().await?.text;
            let m: Value =
                serde_json::from_str(text.as_str()).map_err(|e| format!("bad JSON from server: {e}"))?;
            if m.get("re").is_some() {
                if m["re"] != json!(id) {
                    return Err(format!("reply out of order: {m}"));
                }
                return Ok(m);
            }
            if m["type"] == "closing" {
                return Err(format!("closed by the server: {m}"));
            }
        }
    }

    /// Forgets the state of the previous match.
    fn forget_state(&mut self) {
        if let Some(s) = self.state.take() {
            self.spare = Some(s);
        }
    }
}

/// When an action was sent: on the monotonic clock, and on the realtime clock that the kernel's receive
/// timestamps use.
#[derive(Clone, Copy, Debug)]
struct Sent {
    at: Instant,
    wall: std::time::SystemTime,
}

impl Sent {
    fn now() -> Sent {
        Sent {
            at: Instant::now(),
            wall: std::time::SystemTime::now(),
        }
    }
}

/// Refusals that are the normal outcome of playing against others at full speed.
fn lost_race(code: &str) -> bool {
    matches!(code, "stale_version" | "not_your_turn" | "illegal_action")
}

/// Plays one seat until its match is over (true) or `stop` is raised (false).
async fn play_seat(
    client: &mut Client,
    tally: &Tally,
    rng: &mut Rng,
    stop: watch::Receiver<bool>,
) -> Result<bool, String> {
    // (request id, sent at, version acted on, version accepted)
    let mut pending: Option<(u64, Sent, u64, Option<u64>)> = None;
    // After a lost race, act again only on a newer state than this.
    let mut wait_past: Option<u64> = None;
    // One wait for `stop` for the whole match (a new `changed()` per message registered and removed a waiter
    // each time).
    let mut raised = stop.clone();
    let stopped = async move {
        // Without a sender, `stop` is never raised.
        if raised.wait_for(|s| *s).await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    tokio::pin!(stopped);
    loop {
        let stopping = *stop.borrow();
        if pending.is_none() {
            if stopping {
                return Ok(false);
            }
            if let Some(s) = &client.state {
                if s.over {
                    return Ok(true);
                }
                let version = s.version;
                if !s.legal.is_empty() && wait_past.is_none_or(|v| version > v) {
                    let action = s.action(rng.index(s.legal.len()));
                    // In a simultaneous step each seat decides independently of the others' progress: no version,
                    // or every other seat's choice would make this one stale.
                    let body = |id: u64| {
                        if s.simultaneous {
                            format!(r#"{{"type":"action","action":{action},"id":{id}}}"#)
                        } else {
                            format!(r#"{{"type":"action","action":{action},"version":{version},"id":{id}}}"#)
                        }
                    };
                    let body = body(client.next_id);
                    // Timed from before the send: a send that waits for room in the socket counts.
                    let sent = Sent::now();
                    let id = client.send_text(|_| body).await?;
                    pending = Some((id, sent, version, None));
                    wait_past = None;
                }
            }
        }
        let message = tokio::select! {
            m = client.recv() => m?,
            () = &mut stopped, if !stopping => continue,
        };
        match message.kind {
            Kind::State => {
                let version = message.version.unwrap_or(0);
                if let Some((_, sent, _, Some(accepted))) = pending
                    && version >= accepted
                {
                    if tally.measuring() {
                        tally
                            .latencies
                            .lock()
                            .expect("not poisoned")
                            .push(sent.at.elapsed().as_micros() as u64);
                        // The kernel's time of the read that brought the push (never before the send).
                        if let Some(received) = client.ws.get_ref().received() {
                            let trip = received.duration_since(sent.wall).unwrap_or_default();
                            tally
                                .socket_latencies
                                .lock()
                                .expect("not poisoned")
                                .push(trip.as_micros() as u64);
                        }
                    }
                    pending = None;
                }
            }
            Kind::Accepted => {
                let Some((id, sent, on, None)) = pending else {
                    return Err(format!("unexpected reply {}", message.text.as_str()));
                };
                if message.re != Some(id) {
                    return Err(format!("reply out of order: {}", message.text.as_str()));
                }
                if tally.measuring() {
                    tally.accepted.fetch_add(1, Ordering::Relaxed);
                }
                let accepted = message.version.ok_or("accepted without version")?;
                pending = Some((id, sent, on, Some(accepted)));
            }
            Kind::Error if message.re.is_some() => {
                let Some((_, _, on, None)) = pending else {
                    return Err(format!("unexpected reply {}", message.text.as_str()));
                };
                if message.code.as_deref().is_some_and(lost_race) {
                    if tally.measuring() {
                        tally.lost.fetch_add(1, Ordering::Relaxed);
                    }
                    wait_past = Some(on);
                } else {
                    return Err(format!("action refused: {}", message.text.as_str()));
                }
                pending = None;
            }
            Kind::Closing => return Err(format!("closed by the server: {}", message.text.as_str())),
            _ => {}
        }
    }
}

/// Creates a lobby with `clients[0]` as host, seats the others, starts it. Returns the code.
async fn open_lobby(
    clients: &mut [Client],
    game: &str,
    options: &Value,
    rules_version: Option<u32>,
) -> Result<String, String> {
    let seats = clients.len();
    let (host, guests) = clients.split_first_mut().ok_or("no clients")?;
    host.forget_state();
    let created = host
        .request(json!({
            "type": "create_lobby", "game": game, "options": options, "seats": seats, "name": "host",
            "rules_version": rules_version,
        }))
        .await?;
    if created["type"] != "seated" {
        return Err(format!("create_lobby refused: {created}"));
    }
    let code = created["code"].as_str().ok_or("no code")?.to_string();
    for (i, g) in guests.iter_mut().enumerate() {
        g.forget_state();
        let joined = g
            .request(json!({"type": "join_lobby", "code": code, "name": format!("p{}", i + 1)}))
            .await?;
        if joined["type"] != "seated" {
            return Err(format!("join_lobby refused: {joined}"));
        }
    }
    let started = host.request(json!({"type": "start"})).await?;
    if started["type"] != "ok" {
        return Err(format!("start refused: {started}"));
    }
    Ok(code)
}

/// Drives one lobby until `stop`: open, play to the end, leave, again.
async fn drive_lobby(
    urls: Arc<Urls>,
    opts: Arc<Options>,
    options: Value,
    index: usize,
    tally: Arc<Tally>,
    stop: watch::Receiver<bool>,
) {
    let mut clients = Vec::new();
    for seat in 0..opts.seats as usize {
        match Client::connect(urls.pick(seat_client(index, seat))).await {
            Ok(c) => clients.push(c),
            Err(e) => return tally.error(format!("lobby {index}: {e}")),
        }
    }
    let mut first = true;
    let mut round = 0u64;
    while !*stop.borrow() {
        if let Err(e) = open_lobby(&mut clients, &opts.game, &options, opts.rules_version).await {
            return tally.error(format!("lobby {index}: {e}"));
        }
        if first {
            tally.started.fetch_add(1, Ordering::Relaxed);
            first = false;
        }
        let mut seats = JoinSet::new();
        for (seat, mut client) in clients.drain(..).enumerate() {
            let tally = tally.clone();
            let stop = stop.clone();
            let mut rng = Rng::from_seed(
                opts.seed ^ ((index as u64) << 32) ^ (round << 8) ^ seat as u64 ^ 0x5eed_0000_0000_0000,
            );
            seats.spawn(async move {
                let result = play_seat(&mut client, &tally, &mut rng, stop).await;
                (seat, client, result)
            });
        }
        let mut back: Vec<(usize, Client)> = Vec::new();
        let mut finished = true;
        let mut failed = false;
        while let Some(joined) = seats.join_next().await {
            match joined {
                Ok((seat, client, Ok(over))) => {
                    finished &= over;
                    back.push((seat, client));
                }
                Ok((_, _, Err(e))) => {
                    failed = true;
                    tally.error(format!("lobby {index}: {e}"));
                }
                Err(e) => {
                    failed = true;
                    tally.error(format!("lobby {index}: client task: {e}"));
                }
            }
        }
        if failed {
            return;
        }
        if finished && tally.measuring() {
            tally.matches.fetch_add(1, Ordering::Relaxed);
        }
        back.sort_by_key(|(seat, _)| *seat);
        clients = back.into_iter().map(|(_, c)| c).collect();
        for c in &mut clients {
            match c.request(json!({"type": "leave"})).await {
                Ok(r) if r["type"] == "ok" => {}
                Ok(r) => return tally.error(format!("lobby {index}: leave refused: {r}")),
                Err(e) => return tally.error(format!("lobby {index}: {e}")),
            }
        }
        round += 1;
    }
}

/// A server process started for the run.
struct Started {
    child: tokio::process::Child,
    pid: u32,
    url: String,
}

/// Reads a `Vm*:` line of /proc/PID/status, in KiB.
pub fn proc_status_kib(pid: u32, field: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

/// CPU time (user + system) of a process so far, from /proc/PID/stat (in USER_HZ = 100 ticks per second, as
/// Linux reports it to user space on every common architecture).
pub fn proc_cpu_secs(pid: &str) -> Option<f64> {
    proc_cpu_split(pid).map(|(user, system)| user + system)
}

/// A process's CPU time so far as (user, system) seconds: the system part is the kernel working for it (its
/// system calls, and on loopback the receiving side's TCP work that a send does).
pub fn proc_cpu_split(pid: &str) -> Option<(f64, f64)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let fields: Vec<&str> = stat.get(stat.rfind(')')? + 1..)?.split_whitespace().collect();
    let utime: u64 = fields.get(11)?.parse().ok()?;
    let stime: u64 = fields.get(12)?.parse().ok()?;
    Some((utime as f64 / 100.0, stime as f64 / 100.0))
}

/// Busy, total and kernel CPU time of the whole machine so far, in seconds, from the first line of /proc/stat
/// (user, nice, system, irq, softirq and steal count as busy; idle and iowait do not; system, irq and softirq
/// are the kernel's).
pub fn machine_cpu_secs() -> Option<(f64, f64, f64)> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    let ticks: Vec<u64> = stat
        .lines()
        .next()?
        .strip_prefix("cpu ")?
        .split_whitespace()
        .map(|t| t.parse().ok())
        .collect::<Option<_>>()?;
    let at = |i: usize| ticks.get(i).copied().unwrap_or(0);
    let busy = at(0) + at(1) + at(2) + at(5) + at(6) + at(7);
    let total = busy + at(3) + at(4);
    let kernel = at(2) + at(5) + at(6);
    Some((busy as f64 / 100.0, total as f64 / 100.0, kernel as f64 / 100.0))
}

fn default_server_bin() -> Result<PathBuf, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    Ok(exe.with_file_name("server"))
}

async fn start_server(opts: &Options, database_url: &str, max_connections: usize) -> Result<Started, String> {
    let bin = match &opts.server_bin {
        Some(b) => b.clone(),
        None => default_server_bin()?,
    };
    let mut command = tokio::process::Command::new(&bin);
    command
        .env("BIND", "127.0.0.1:0")
        .env("DATABASE_URL", database_url)
        .env("RUST_LOG", "warn")
        .env("MAX_CONNECTIONS", max_connections.to_string())
        // Every load client connects from 127.0.0.1: lift the per-address limits.
        .env("MAX_CONNECTIONS_PER_IP", max_connections.to_string())
        .env("MAX_LOBBIES_PER_IP", "1000000000")
        .env("RATE_LIMIT_PER_SEC", "1000000000")
        .env("RATE_LIMIT_BURST", "1000000000")
        // Every lobby is joined by its code from this one address at once: each join holds a look-up.
        .env("CODE_GUESSES_PER_IP_BURST", "1000000000")
        .env("CODE_GUESSES_BURST", "1000000000")
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true);
    for (k, v) in &opts.server_env {
        command.env(k, v);
    }
    let mut child = command
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", bin.display()))?;
    let pid = child.id().ok_or("server exited at once")?;
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let mut lines = BufReader::new(stdout).lines();
    let line = tokio::time::timeout(TIMEOUT, lines.next_line())
        .await
        .map_err(|_| "the server did not print its address")?
        .map_err(|e| e.to_string())?
        .ok_or("the server exited before listening")?;
    let addr = line
        .strip_prefix("listening on http://")
        .ok_or_else(|| format!("unexpected first line `{line}`"))?
        .to_string();
    // Keep draining stdout so the server never blocks on it.
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    Ok(Started {
        child,
        pid,
        url: format!("ws://{addr}/ws"),
    })
}

/// Only the loopback interface.
fn check_local(url: &str) -> Result<(), String> {
    let rest = url
        .strip_prefix("ws://")
        .ok_or("only ws:// URLs on 127.0.0.1 are supported")?;
    let host = rest.split('/').next().unwrap_or("");
    let host = host.rsplit_once(':').map_or(host, |(h, _)| h);
    if matches!(host, "127.0.0.1" | "localhost" | "[::1]") {
        Ok(())
    } else {
        Err(format!(
            "refusing to load `{host}`: loadgen only targets 127.0.0.1"
        ))
    }
}

/// A database made for one run.
enum RunDb {
    Sqlite(PathBuf),
    Postgres { admin_url: String, name: String },
}

impl RunDb {
    async fn create(spec: &str) -> Result<(RunDb, String), String> {
        let tag = format!(
            "loadgen_{}_{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_millis())
        );
        if spec == "sqlite" {
            let dir = std::env::temp_dir().join(&tag);
            std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
            let url = format!("sqlite://{}", dir.join("tabletop.db").display());
            return Ok((RunDb::Sqlite(dir), url));
        }
        if spec.starts_with("postgres://") || spec.starts_with("postgresql://") {
            let base = spec.split('?').next().unwrap_or(spec);
            let host = base.split('@').nth(1).unwrap_or(base);
            if !(host.starts_with("127.0.0.1") || host.starts_with("localhost")) {
                return Err("loadgen only uses a PostgreSQL server on 127.0.0.1".into());
            }
            let mut conn = sqlx::PgConnection::connect(spec)
                .await
                .map_err(|e| format!("PostgreSQL: {e}"))?;
            // A database name cannot be a bound parameter; this one is made of [a-z0-9_] above.
            sqlx::raw_sql(sqlx::AssertSqlSafe(format!("CREATE DATABASE {tag}")))
                .execute(&mut conn)
                .await
                .map_err(|e| format!("CREATE DATABASE: {e}"))?;
            let _ = conn.close().await;
            let slash = base
                .rfind('/')
                .filter(|i| *i > "postgres://".len())
                .ok_or("no database in URL")?;
            let url = format!("{}/{tag}", &base[..slash]);
            return Ok((
                RunDb::Postgres {
                    admin_url: spec.to_string(),
                    name: tag,
                },
                url,
            ));
        }
        Err(format!(
            "--database must be `sqlite` or a postgres:// URL, not `{spec}`"
        ))
    }

    async fn drop_db(self) {
        match self {
            RunDb::Sqlite(dir) => {
                let _ = std::fs::remove_dir_all(dir);
            }
            RunDb::Postgres { admin_url, name } => {
                if let Ok(mut conn) = sqlx::PgConnection::connect(&admin_url).await {
                    let _ = sqlx::raw_sql(sqlx::AssertSqlSafe(format!(
                        "DROP DATABASE IF EXISTS {name} WITH (FORCE)"
                    )))
                    .execute(&mut conn)
                    .await;
                }
            }
        }
    }
}

/// Opens `n` idle connections, 200 at a time.
async fn open_idle(urls: &Urls, n: usize, tally: &Tally) -> Vec<Client> {
    let mut idle = Vec::with_capacity(n);
    let mut pending = JoinSet::new();
    let mut launched = 0;
    while launched < n || !pending.is_empty() {
        while launched < n && pending.len() < 200 {
            let url = urls.pick(idle_client(launched)).to_string();
            pending.spawn(async move { Client::connect(&url).await });
            launched += 1;
        }
        match pending.join_next().await {
            Some(Ok(Ok(c))) => idle.push(c),
            Some(Ok(Err(e))) => tally.error(format!("idle connection: {e}")),
            Some(Err(e)) => tally.error(format!("idle connection task: {e}")),
            None => {}
        }
    }
    idle
}

/// Runs the load described by `opts` and returns what it measured.
pub async fn run(opts: Options) -> Result<Report, String> {
    let options: Value = serde_json::from_str(&opts.options).map_err(|e| format!("--options: {e}"))?;
    if opts.seats == 0 {
        return Err("--seats must be at least 1".into());
    }
    let opts = Arc::new(opts);
    for url in &opts.url {
        check_local(url)?;
    }
    let (server, db, database) = match opts.url.as_slice() {
        [url] => (None, None, format!("server at {url}")),
        [_, _, ..] => (None, None, format!("{} servers", opts.url.len())),
        [] => {
            let (db, db_url) = RunDb::create(&opts.database).await?;
            let max = opts.idle + opts.lobbies * opts.seats as usize + 64;
            match start_server(&opts, &db_url, max).await {
                Ok(s) => (
                    Some(s),
                    Some(db),
                    if opts.database == "sqlite" {
                        "sqlite".into()
                    } else {
                        "postgres".into()
                    },
                ),
                Err(e) => {
                    db.drop_db().await;
                    return Err(e);
                }
            }
        }
    };
    let urls = match &server {
        Some(s) => vec![s.url.clone()],
        None => opts.url.clone(),
    };
    let urls = Arc::new(Urls::new(urls, opts.seed, opts.lobby_on_one_node));
    let pid = server.as_ref().map(|s| s.pid);
    let rss = |field: &str| pid.and_then(|p| proc_status_kib(p, field));

    let result = run_load(&opts, &urls, &options, &rss, pid).await;

    let hwm = rss("VmHWM");
    let end = rss("VmRSS");
    if let Some(mut s) = server {
        // SIGTERM, as an operator would stop it; the child is killed on drop if it does not exit.
        let _ = tokio::process::Command::new("kill")
            .args(["-TERM", &s.pid.to_string()])
            .status()
            .await;
        let _ = tokio::time::timeout(TIMEOUT, s.child.wait()).await;
    }
    if let Some(db) = db {
        db.drop_db().await;
    }
    let mut report = result?;
    report.database = database;
    report.server_hwm_kib = hwm;
    report.server_rss_end_kib = end;
    Ok(report)
}

async fn run_load(
    opts: &Arc<Options>,
    urls: &Arc<Urls>,
    options: &Value,
    rss: &impl Fn(&str) -> Option<u64>,
    pid: Option<u32>,
) -> Result<Report, String> {
    let server_cpu = || pid.and_then(|p| proc_cpu_split(&p.to_string()));
    let tally = Arc::new(Tally::default());
    let rss_start = rss("VmRSS");
    let idle = open_idle(urls, opts.idle, &tally).await;
    let rss_idle = (opts.idle > 0).then(|| rss("VmRSS")).flatten();
    let (stop_tx, stop_rx) = watch::channel(false);
    let mut lobbies = JoinSet::new();
    for i in 0..opts.lobbies {
        lobbies.spawn(drive_lobby(
            urls.clone(),
            opts.clone(),
            options.clone(),
            i,
            tally.clone(),
            stop_rx.clone(),
        ));
    }
    // Wait until every lobby has started (or given up), then warm up.
    let setup_deadline = Instant::now() + Duration::from_secs(120);
    while (tally.started.load(Ordering::Relaxed) as usize) + (tally.errors.load(Ordering::Relaxed) as usize)
        < opts.lobbies
        && Instant::now() < setup_deadline
    {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    tokio::time::sleep(Duration::from_secs_f64(opts.warmup)).await;
    let cpu_before = (server_cpu(), proc_cpu_split("self"), machine_cpu_secs());
    tally.measuring.store(true, Ordering::Relaxed);
    let began = Instant::now();
    tokio::time::sleep(Duration::from_secs_f64(opts.duration)).await;
    let extra_deadline = Instant::now() + Duration::from_secs(120);
    while tally.accepted.load(Ordering::Relaxed) < opts.min_actions && Instant::now() < extra_deadline {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    tally.measuring.store(false, Ordering::Relaxed);
    let measured = began.elapsed().as_secs_f64();
    let cpu_after = (server_cpu(), proc_cpu_split("self"), machine_cpu_secs());
    let _ = stop_tx.send(true);
    while lobbies.join_next().await.is_some() {}
    let open_idle_left = idle.len();
    drop(idle);
    let latencies = std::mem::take(&mut *tally.latencies.lock().expect("not poisoned"));
    let socket_latencies = std::mem::take(&mut *tally.socket_latencies.lock().expect("not poisoned"));
    let error_samples = tally.error_samples.lock().expect("not poisoned").clone();
    Ok(Report {
        game: opts.game.clone(),
        seats: opts.seats,
        lobbies: opts.lobbies,
        idle: open_idle_left,
        database: String::new(),
        measured_secs: measured,
        accepted: tally.accepted.load(Ordering::Relaxed),
        lost_races: tally.lost.load(Ordering::Relaxed),
        errors: tally.errors.load(Ordering::Relaxed),
        error_samples,
        matches_finished: tally.matches.load(Ordering::Relaxed),
        clients_per_url: urls.counts(),
        latency_us: Percentiles::of(latencies),
        socket_latency_us: Percentiles::of(socket_latencies),
        server_rss_start_kib: rss_start,
        server_rss_idle_kib: rss_idle,
        server_hwm_kib: None,
        server_rss_end_kib: None,
        server_cpu_secs: cpu_before.0.zip(cpu_after.0).map(|(a, b)| b.0 + b.1 - a.0 - a.1),
        server_kernel_cpu_secs: cpu_before.0.zip(cpu_after.0).map(|(a, b)| b.1 - a.1),
        loadgen_cpu_secs: cpu_before.1.zip(cpu_after.1).map(|(a, b)| b.0 + b.1 - a.0 - a.1),
        loadgen_kernel_cpu_secs: cpu_before.1.zip(cpu_after.1).map(|(a, b)| b.1 - a.1),
        machine_cpu_secs: cpu_before.2.zip(cpu_after.2).map(|(a, b)| b.0 - a.0),
        machine_kernel_cpu_secs: cpu_before.2.zip(cpu_after.2).map(|(a, b)| b.2 - a.2),
        machine_cores: std::thread::available_parallelism().ok().map(usize::from),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_use_the_nearest_rank() {
        let p = Percentiles::of((1..=100).rev().collect());
        assert_eq!((p.samples, p.p50, p.p90, p.p99, p.max), (100, 50, 90, 99, 100));
        assert_eq!(Percentiles::of(vec![]), Percentiles::default());
        assert_eq!(Percentiles::of(vec![7]).p99, 7);
    }

    #[test]
    fn a_state_push_is_read_without_building_its_view() {
        let text: Utf8Bytes = r#"{"type":"state","code":"ABCDEF","version":12,"view":{"cells":[[1,2],[3,{"x":"a \"b\""}]]},
            "status":{"kind":"simultaneous","seats":[0,1]},"legal_actions":[{"type":"move","to":[1,2]}, "pass" ,{"type":"eeek","mouse":3}]}"#
            .into();
        let head = Head::scan(text.as_str()).unwrap();
        assert_eq!((head.kind, head.re(), head.version()), ("state", None, Some(12)));
        assert_eq!(Received::of(&head).kind, Kind::State);
        let mut seen = Seen::default();
        seen.read(&head).unwrap();
        assert_eq!((seen.version, seen.over, seen.simultaneous), (12, false, true));
        let actions: Vec<&str> = (0..seen.legal.len()).map(|i| seen.action(i)).collect();
        assert_eq!(
            actions,
            [
                r#"{"type":"move","to":[1,2]}"#,
                r#""pass""#,
                r#"{"type":"eeek","mouse":3}"#
            ]
        );

        let over: Utf8Bytes =
            r#"{"type":"state","version":3,"status":{"kind":"over"},"legal_actions":[]}"#.into();
        let head = Head::scan(over.as_str()).unwrap();
        seen.read(&head).unwrap();
        assert!(seen.over && !seen.simultaneous && seen.legal.is_empty());

        let refused =
            r#"{"code":"stale_version","message":"the state is at version 4","re":9,"type":"error"}"#;
        let head = Head::scan(refused).unwrap();
        assert_eq!((head.kind, head.re()), ("error", Some(9)));
        let r = Received::of(&head);
        assert_eq!(
            (r.kind, r.re, r.code.as_deref()),
            (Kind::Error, Some(9), Some("stale_version"))
        );
        let accepted = Head::scan(r#"{"type":"accepted","re":4,"version":7}"#).unwrap();
        let r = Received::of(&accepted);
        assert_eq!(
            (r.kind, r.re, r.version, r.code),
            (Kind::Accepted, Some(4), Some(7), None)
        );
        let no_id = Head::scan(r#"{"code":"bad_message","message":"x","re":null,"type":"error"}"#).unwrap();
        assert_eq!(no_id.re(), None);
    }

    #[test]
    fn clients_are_spread_over_the_urls_by_the_seed() {
        let list = vec![
            "ws://127.0.0.1:1/ws".to_string(),
            "ws://127.0.0.1:2/ws".to_string(),
            "ws://127.0.0.1:3/ws".to_string(),
        ];
        let picks = |seed: u64| {
            let urls = Urls::new(list.clone(), seed, false);
            let chosen: Vec<String> = (0..300)
                .map(|c| urls.pick(seat_client(c / 3, c % 3)).to_string())
                .collect();
            (chosen, urls.counts())
        };
        let (first, counts) = picks(7);
        // The same seed places every client on the same URL again; another seed places them differently.
        assert_eq!(picks(7).0, first);
        assert_ne!(picks(8).0, first);
        // Roughly evenly: each of three URLs gets a hundred of 300 clients, give or take.
        assert_eq!(counts.iter().map(|(_, n)| n).sum::<u64>(), 300);
        for (url, n) in &counts {
            assert!((60..=140).contains(n), "{url}: {n} of 300");
        }
        // One URL: everyone there.
        let one = Urls::new(list[..1].to_vec(), 7, false);
        assert!((0..10).all(|c| one.pick(idle_client(c)) == list[0]));
        assert_eq!(one.counts()[0].1, 10);
    }

    #[test]
    fn lobby_on_one_node_puts_every_seat_with_its_host_and_spreads_the_lobbies() {
        let list: Vec<String> = (1..=3).map(|p| format!("ws://127.0.0.1:{p}/ws")).collect();
        let urls = Urls::new(list.clone(), 7, true);
        let mut hosts = std::collections::HashSet::new();
        for lobby in 0..60 {
            let host = urls.pick(seat_client(lobby, 0)).to_string();
            assert!((1..4).all(|seat| urls.pick(seat_client(lobby, seat)) == host));
            hosts.insert(host);
        }
        assert_eq!(hosts.len(), 3, "the lobbies are spread over every URL");
    }

    #[test]
    fn only_loopback_urls_are_accepted() {
        assert!(check_local("ws://127.0.0.1:8080/ws").is_ok());
        assert!(check_local("ws://localhost:1/ws").is_ok());
        assert!(check_local("ws://10.0.0.1:8080/ws").is_err());
        assert!(check_local("ws://example.com/ws").is_err());
        assert!(check_local("wss://127.0.0.1/ws").is_err());
    }

    #[test]
    fn proc_status_is_read_in_kib() {
        let me = std::process::id();
        assert!(proc_status_kib(me, "VmHWM").is_some_and(|k| k > 0));
        assert!(proc_status_kib(me, "NoSuchField").is_none());
        assert!(proc_cpu_secs("self").is_some_and(|s| s >= 0.0));
        assert!(proc_cpu_secs(&me.to_string()).is_some());
        let (busy, total, kernel) = machine_cpu_secs().expect("/proc/stat is readable");
        assert!(
            busy > 0.0 && total >= busy && busy >= kernel,
            "{busy} of {total}, {kernel} in the kernel"
        );
        let (user, system) = proc_cpu_split("self").expect("/proc/self/stat is readable");
        assert!(user >= 0.0 && system >= 0.0);
    }
}
