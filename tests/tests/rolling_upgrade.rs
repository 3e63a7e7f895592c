//! A rolling upgrade of a three-node cluster under play (issue 45, point 9), with two real builds: the previous
//! one (the commit [`PREVIOUS`], built by this test from the repository's history into
//! `target/previous/`, once) and this one.
//!
//! Three nodes of the previous build serve three matches, each with a seat relayed from another node. The nodes
//! are upgraded one at a time, as an operator does it: SIGTERM, then this build under the same node id. After
//! each step every seat reconnects and resumes, spread so that relays cross between the builds in both
//! directions (a seat on a node of one build whose table a node of the other build owns), and each match plays
//! on. Clients see nothing but reconnects: every connection that closes is told `shutting_down`, `moved` or
//! `forward_unavailable`; every `resume` is answered `resumed` (after `moved` or `forward_unavailable` at most,
//! while a table changes hands); every listed action is accepted; and at the end every acknowledged action is in
//! the log once, in order, and the matches finish.
//!
//! Needs `TEST_DATABASE_URL`, NATS (`TEST_NATS_URL`), git and cargo (the previous build; offline, from the
//! registry cache the workspace's own build filled); without the services it says so and passes, unless `CI` is
//! set (then it fails).

use std::{
    net::SocketAddr,
    path::{Path, PathBuf},
    process::Command,
};

use integration_tests::{cluster::*, *};
use serde_json::{Value, json};

const SERVER_BINARY: &str = env!("CARGO_BIN_EXE_server-under-test");

/// The build before node-to-node formats were versioned: the last main that CI passed before this change. Its
/// nodes speak relay format 1 only and do not know the `nodes.relay_format` column.
const PREVIOUS: &str = "f09392b013acaacbe14ac2bbae11beb15c18b469";

/// The workspace's root.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn run(command: &mut Command, what: &str) {
    let status = command.status().unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(status.success(), "{what}: {status}");
}

/// The previous build's server binary: the sources of [`PREVIOUS`] from git, built with cargo into
/// `target/previous/` (its own target directory: a build in this workspace's would wait for the lock that the
/// running `cargo test` holds). Built once; later runs find it there.
fn previous_build() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root().join("target"), PathBuf::from);
    let dir = target.join("previous");
    let binary = dir.join(format!("server-{}", &PREVIOUS[..12]));
    if binary.exists() {
        return binary;
    }
    let src = dir.join(format!("src-{}", &PREVIOUS[..12]));
    let _ = std::fs::remove_dir_all(&src);
    std::fs::create_dir_all(&src).unwrap();
    let archive = dir.join("previous.tar");
    run(
        Command::new("git")
            .current_dir(root())
            .args(["archive", "--format=tar", "-o"])
            .arg(&archive)
            .arg(PREVIOUS),
        "git archive of the previous build (a clone with its history is needed)",
    );
    run(
        Command::new("tar").arg("-xf").arg(&archive).arg("-C").arg(&src),
        "unpacking the previous build's sources",
    );
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    eprintln!("building the previous server ({PREVIOUS}) into {}", dir.display());
    let mut build = Command::new(cargo);
    build
        .current_dir(&src)
        .args(["build", "--offline", "--quiet", "-p", "server", "--bin", "server"])
        .env("CARGO_TARGET_DIR", dir.join("target"));
    // What cargo set for this test, not for a build of another workspace.
    for (key, _) in std::env::vars_os() {
        if let Some(key) = key.to_str()
            && (key.starts_with("CARGO_") && key != "CARGO_HOME")
        {
            build.env_remove(key);
        }
    }
    build.env("CARGO_TARGET_DIR", dir.join("target"));
    run(&mut build, "building the previous server");
    std::fs::copy(dir.join("target/debug/server"), &binary).unwrap();
    let _ = std::fs::remove_dir_all(&src);
    let _ = std::fs::remove_file(&archive);
    binary
}

/// One match of the test: its code, its players, and every action acknowledged so far.
struct Match {
    code: String,
    players: Vec<Player>,
    acknowledged: Vec<(u8, Value, u64)>,
}

impl Match {
    /// Plays up to `actions` actions (wall clock, random legal actions).
    async fn play(&mut self, actions: usize, seed: u64) {
        let played = play(&mut self.players, &Time::Real, seed, actions).await;
        self.acknowledged.extend(played.acknowledged);
    }

    fn version(&self) -> u64 {
        self.players
            .iter()
            .filter_map(|p| p.client.state.as_ref()?["version"].as_u64())
            .max()
            .unwrap()
    }
}

/// The three nodes, each of one build or the other.
struct Nodes {
    procs: Vec<Option<ServerProcess>>,
    /// Whether node i runs this build.
    upgraded: Vec<bool>,
}

impl Nodes {
    fn addr(&self, i: usize) -> SocketAddr {
        self.procs[i].as_ref().expect("running").addr
    }
}

/// Reads what `client` was sent until 300 ms pass without a frame: a connection that ended must have been told
/// to reconnect (`closing` with `shutting_down`, `moved` or `forward_unavailable`), and any error reply must be
/// one of those too.
async fn left_with_a_reconnect(client: &mut Client) {
    let wait = std::time::Duration::from_millis(300);
    while let Ok(frame) = tokio::time::timeout(wait, client.read()).await {
        let Some(frame) = frame else { return };
        if frame["type"] == "closing" || frame["type"] == "error" {
            assert!(
                ["shutting_down", "moved", "forward_unavailable"]
                    .contains(&frame["code"].as_str().unwrap_or("")),
                "a client saw more than a reconnect: {frame}"
            );
        }
    }
}

/// Every seat of `m` resumes on the nodes `pick` chooses from the table's owner (after the first seat's resume,
/// which claims a table whose owner stopped), and catches up. Every refusal on the way must be one that says
/// "reconnect" (`moved`, `forward_unavailable`).
async fn resume_spread(
    cl: &TestCluster,
    nodes: &Nodes,
    ids: &[String],
    m: &mut Match,
    first: usize,
    pick: impl Fn(usize) -> usize,
) {
    let version = m.version();
    let mut players = std::mem::take(&mut m.players);
    // Each old connection either is still open (its nodes run on) or was told to reconnect.
    for p in &mut players {
        left_with_a_reconnect(&mut p.client).await;
    }
    let mut resumed = Vec::new();
    for (i, p) in players.into_iter().enumerate() {
        let node = if i == 0 {
            first
        } else {
            let (owner, _) = cl.lease(&m.code).await;
            let owner = ids
                .iter()
                .position(|id| *id == owner)
                .expect("a node of ours owns it");
            pick(owner)
        };
        let mut client = resume_when_taken_over(nodes.addr(node), &m.code, &p.token).await;
        client.wait_version(version).await;
        resumed.push(Player {
            client,
            seat: p.seat,
            token: p.token,
        });
    }
    m.players = resumed;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rolling_upgrade_under_play_costs_clients_nothing_but_reconnects() {
    let Some(cl) = TestCluster::forwarding().await else {
        return;
    };
    let previous = tokio::task::spawn_blocking(previous_build).await.unwrap();
    let previous = previous.to_str().unwrap().to_string();
    let names = ["n0", "n1", "n2"];
    let ids: Vec<String> = names.iter().map(|n| cl.id(n)).collect();
    let mut nodes = Nodes {
        procs: Vec::new(),
        upgraded: vec![false; 3],
    };
    for name in names {
        nodes
            .procs
            .push(Some(cl.process(&previous, name, Some(3000)).await));
    }

    // Three matches: the host on node m, the second seat relayed from node m + 1.
    let mut matches = Vec::new();
    for m in 0..3 {
        let (code, players) = start_match_on(
            &[nodes.addr(m), nodes.addr((m + 1) % 3)],
            "quacks",
            json!({}),
            2,
            2,
        )
        .await;
        let mut game = Match {
            code,
            players,
            acknowledged: Vec::new(),
        };
        game.play(3, 10 + m as u64).await;
        matches.push(game);
    }

    for (step, name) in names.iter().enumerate() {
        // Upgrade node `step`: a graceful stop, then this build under the same id.
        let old = nodes.procs[step].take().unwrap();
        assert!(old.terminate().await, "the previous build stops cleanly");
        nodes.procs[step] = Some(cl.process(SERVER_BINARY, name, Some(3000)).await);
        nodes.upgraded[step] = true;

        for (m, game) in matches.iter_mut().enumerate() {
            // The first seat on any node; the second on a node of the other build than the table's owner while
            // both builds run, so that relays cross between them (both ways over the three matches), else on
            // another node than the owner.
            let upgraded = nodes.upgraded.clone();
            let first = (m + step) % 3;
            resume_spread(&cl, &nodes, &ids, game, first, |owner| {
                (1..3)
                    .map(|d| (owner + d) % 3)
                    .find(|&n| upgraded[n] != upgraded[owner])
                    .unwrap_or((owner + 1) % 3)
            })
            .await;
            game.play(3, 100 * (step as u64 + 1) + m as u64).await;
        }
    }

    // Every node runs this build now: the matches finish, and every acknowledged action is in the log.
    for (m, game) in matches.iter_mut().enumerate() {
        let before = Played {
            acknowledged: std::mem::take(&mut game.acknowledged),
            last_state: Value::Null,
        };
        cl.finish_match(
            &game.code,
            &mut game.players,
            &Time::Real,
            1000 + m as u64,
            &before,
        )
        .await;
    }
    for proc in nodes.procs.into_iter().flatten() {
        proc.kill().await;
    }
    cl.finish().await;
}
