//! Cluster nodes reach NATS over TLS, with a user and password (issue 45, point 4: "TLS where it leaves the
//! host"), as the real binary and a real `nats-server` that requires both.
//!
//! - Two nodes given `tls://tabletop:PASSWORD@127.0.0.1:PORT` and `NATS_CA_FILE` (the test's own CA) relay a
//!   seat to the node that owns its table, and the relayed seat plays; so do two given
//!   `nats://tabletop:PASSWORD@...` to a server that requires the password without TLS.
//! - A node that cannot pass (a plain `nats://` URL and no CA file, a wrong password, or a CA that did not sign
//!   the server's certificate) relays nothing: a join through it answers `forward_unavailable`; it does not
//!   panic (it used to, at the first TLS handshake: async-nats was built without a crypto provider), and prints
//!   no password.
//! - A node whose `NATS_CA_FILE` cannot be read, or holds no certificate, refuses to start and says why.
//!
//! They need `TEST_DATABASE_URL`, `nats-server` and `openssl` on the path; without them they say so and pass,
//! unless `CI` is set (then they fail).

use std::{
    net::SocketAddr,
    path::{Path, PathBuf},
    process::Stdio,
    time::{Duration, Instant},
};

use integration_tests::{cluster::*, *};
use serde_json::Value;

const SERVER_BINARY: &str = env!("CARGO_BIN_EXE_server-under-test");

/// A folder of this test process's own for certificates, configurations and logs.
fn work_dir(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cluster-tls-{}-{test}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Whether `program` runs here; in CI (`CI` set) its absence fails the test instead of skipping it.
fn installed(program: &str) -> bool {
    let there = std::process::Command::new(program)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok();
    if !there {
        assert!(
            std::env::var("CI").is_err(),
            "the TLS tests need `{program}` in CI"
        );
        eprintln!("skipped: `{program}` is not installed");
    }
    there
}

/// Runs `openssl` with `args` in `dir`; fails the test with its output if it fails.
fn openssl(dir: &Path, args: &[&str]) {
    let out = std::process::Command::new("openssl")
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Makes a CA (`NAME.pem`, `NAME.key`) in `dir`, and returns the path of its certificate.
fn make_ca(dir: &Path, name: &str) -> PathBuf {
    let (key, pem) = (format!("{name}.key"), format!("{name}.pem"));
    openssl(
        dir,
        &[
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:P-256",
            "-nodes",
            "-keyout",
            &key,
            "-out",
            &pem,
            "-days",
            "2",
            "-subj",
            &format!("/CN=tabletop test {name}"),
        ],
    );
    dir.join(pem)
}

/// Makes the NATS server's key and certificate for 127.0.0.1 (`server.key`, `server.pem`), signed by CA `ca`.
fn make_server_certificate(dir: &Path, ca: &str) {
    std::fs::write(
        dir.join("server.ext"),
        "subjectAltName = IP:127.0.0.1\nextendedKeyUsage = serverAuth\nbasicConstraints = CA:FALSE\n",
    )
    .unwrap();
    openssl(
        dir,
        &[
            "req",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:P-256",
            "-nodes",
            "-keyout",
            "server.key",
            "-out",
            "server.csr",
            "-subj",
            "/CN=127.0.0.1",
        ],
    );
    openssl(
        dir,
        &[
            "x509",
            "-req",
            "-in",
            "server.csr",
            "-CA",
            &format!("{ca}.pem"),
            "-CAkey",
            &format!("{ca}.key"),
            "-CAcreateserial",
            "-out",
            "server.pem",
            "-days",
            "2",
            "-extfile",
            "server.ext",
        ],
    );
}

/// A `nats-server` of the test's own on a free port that requires the user `tabletop` with a password and, when
/// started so, TLS (its certificate signed by the test's CA); stopped when dropped.
struct OwnNats {
    port: u16,
    password: String,
    /// The CA that signed the server's certificate.
    ca: PathBuf,
    /// Another CA, which did not.
    other_ca: PathBuf,
    _child: tokio::process::Child,
}

impl OwnNats {
    async fn start(dir: &Path, tls: bool) -> OwnNats {
        let ca = make_ca(dir, "ca");
        let other_ca = make_ca(dir, "other-ca");
        make_server_certificate(dir, "ca");
        let port = {
            let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            l.local_addr().unwrap().port()
        };
        let password = format!("nats-pw-{}-{port}", std::process::id());
        let tls = match tls {
            true => format!(
                "tls {{\n  cert_file: \"{}\"\n  key_file: \"{}\"\n  timeout: 2\n}}\n",
                dir.join("server.pem").display(),
                dir.join("server.key").display(),
            ),
            false => String::new(),
        };
        let config = format!(
            "listen: \"127.0.0.1:{port}\"\n{tls}\
             authorization {{\n  user: tabletop\n  password: \"{password}\"\n}}\n"
        );
        let config_file = dir.join("nats.conf");
        std::fs::write(&config_file, config).unwrap();
        let child = tokio::process::Command::new("nats-server")
            .arg("-c")
            .arg(&config_file)
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(dir.join("nats.log")).unwrap())
            .kill_on_drop(true)
            .spawn()
            .expect("nats-server starts");
        let deadline = Instant::now() + TIMEOUT;
        while tokio::net::TcpStream::connect(("127.0.0.1", port)).await.is_err() {
            assert!(Instant::now() < deadline, "nats-server listens");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        OwnNats {
            port,
            password,
            ca,
            other_ca,
            _child: child,
        }
    }

    /// The URL a node is given: `scheme://tabletop:PASSWORD@127.0.0.1:PORT`.
    fn url(&self, scheme: &str, password: &str) -> String {
        format!("{scheme}://tabletop:{password}@127.0.0.1:{}", self.port)
    }
}

/// Whether everything these tests need is here: PostgreSQL (the cluster), `nats-server` and `openssl`.
async fn cluster() -> Option<TestCluster> {
    if !installed("nats-server") || !installed("openssl") {
        return None;
    }
    TestCluster::new().await
}

/// A node `name` of `cl` forwarding through `nats_url`, trusting `ca` when given, its log in `dir`.
async fn node(
    cl: &TestCluster,
    dir: &Path,
    name: &str,
    nats_url: &str,
    ca: Option<&Path>,
) -> (ServerProcess, PathBuf) {
    let log = dir.join(format!("{name}.log"));
    let ca = ca.map(|ca| ca.to_str().unwrap().to_string());
    let mut env = vec![("NATS_URL", nats_url)];
    if let Some(ca) = &ca {
        env.push(("NATS_CA_FILE", ca.as_str()));
    }
    let node = cl.process_with(SERVER_BINARY, name, None, &env, Some(&log)).await;
    (node, log)
}

/// The lines of a node's log that show a panic.
fn panics_in(log: &Path) -> Vec<String> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter(|l| l.contains("panicked"))
        .map(str::to_owned)
        .collect()
}

/// A lobby of molehills for two on `owner`; returns its code and its host.
async fn lobby_on(owner: SocketAddr) -> (String, Player) {
    let mut host = Client::hello(owner).await;
    let created = host.request(req::create_lobby("molehills", 2, "Ann")).await;
    assert_eq!(created["type"], "seated", "{created}");
    let code = created["code"].as_str().unwrap().to_string();
    let token = created["seat_token"].as_str().unwrap().to_string();
    (
        code,
        Player {
            client: host,
            seat: 0,
            token,
        },
    )
}

/// A join of `code` through `relay` by a new connection: the client and the answer.
async fn join_through(relay: SocketAddr, code: &str) -> (Client, Value) {
    let mut client = Client::hello(relay).await;
    let answer = client.request(req::join(code, "Bo")).await;
    (client, answer)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nodes_relay_over_tls_to_a_nats_server_that_requires_a_password_and_the_relayed_seat_plays() {
    let Some(cl) = cluster().await else {
        return;
    };
    let dir = work_dir("relay-tls");
    let nats = OwnNats::start(&dir, true).await;
    let url = nats.url("tls", &nats.password);
    relayed_seat_plays(&cl, &dir, &nats, &url, Some(&nats.ca)).await;
    cl.finish().await;
}

/// As deploy/three-nodes.sh and the compose profile run it: plain `nats://` with the password in the URL (which
/// async-nats 0.51 reads but does not send by itself: no node could relay through such a server before).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nodes_relay_through_a_nats_server_that_requires_a_password_given_in_the_url() {
    let Some(cl) = cluster().await else {
        return;
    };
    let dir = work_dir("relay-plain");
    let nats = OwnNats::start(&dir, false).await;
    let url = nats.url("nats", &nats.password);
    relayed_seat_plays(&cl, &dir, &nats, &url, None).await;
    cl.finish().await;
}

/// Nodes a and b of `cl` forward through `nats_url` (trusting `ca`); a seat joins a's table through b, is relayed,
/// and plays; neither node panics or prints the NATS password.
async fn relayed_seat_plays(cl: &TestCluster, dir: &Path, nats: &OwnNats, url: &str, ca: Option<&Path>) {
    let (a, a_log) = node(cl, dir, "a", url, ca).await;
    let (b, b_log) = node(cl, dir, "b", url, ca).await;

    // Bo joins a's table through b: relayed over NATS.
    let (code, host) = lobby_on(a.addr).await;
    let deadline = Instant::now() + TIMEOUT;
    let (far, joined) = loop {
        let (far, joined) = join_through(b.addr, &code).await;
        // Tolerated only while b's connection to NATS is still being made.
        if joined["code"] != "forward_unavailable" || Instant::now() > deadline {
            break (far, joined);
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(joined["type"], "seated", "{joined}");
    assert_eq!(joined["seat"], 1, "{joined}");
    let mut players = vec![
        host,
        Player {
            client: far,
            seat: 1,
            token: joined["seat_token"].as_str().unwrap().to_string(),
        },
    ];
    let r = players[0].client.request(req::start()).await;
    assert_eq!(r["type"], "ok", "{r}");
    for p in &mut players {
        p.client.wait_version(0).await;
    }
    // Both seats play, the relayed one among them: its actions are accepted.
    let played = play(&mut players, &Time::Real, 45, 12).await;
    assert!(
        played.acknowledged.iter().any(|(seat, _, _)| *seat == 1),
        "the relayed seat played: {:?}",
        played.acknowledged
    );
    assert!(metric(b.addr, "tabletop_forward_errors_total").await == 0.0);

    for log in [&a_log, &b_log] {
        assert_eq!(panics_in(log), Vec::<String>::new(), "{}", log.display());
        let text = std::fs::read_to_string(log).unwrap();
        assert!(
            !text.contains(&nats.password),
            "the NATS password was printed: {text}"
        );
    }
    drop(players);
    a.kill().await;
    b.kill().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_without_tls_the_password_or_the_right_ca_relays_nothing_and_does_not_panic() {
    let Some(cl) = cluster().await else {
        return;
    };
    let dir = work_dir("refused");
    let nats = OwnNats::start(&dir, true).await;
    let wrong_password = "not-the-nats-password";
    let (owner, owner_log) = node(
        &cl,
        &dir,
        "owner",
        &nats.url("tls", &nats.password),
        Some(&nats.ca),
    )
    .await;
    let (code, _host) = lobby_on(owner.addr).await;

    for (name, url, ca) in [
        // The right password, but plain `nats://` and no CA file: the server demands TLS, and its certificate
        // is not one the system trusts.
        ("plain", nats.url("nats", &nats.password), None),
        ("wrong-password", nats.url("tls", wrong_password), Some(&nats.ca)),
        ("wrong-ca", nats.url("tls", &nats.password), Some(&nats.other_ca)),
    ] {
        let (relay, log) = node(&cl, &dir, name, &url, ca.map(PathBuf::as_path)).await;
        // The node started (it serves its own tables), and says it cannot reach NATS.
        let deadline = Instant::now() + TIMEOUT;
        while !std::fs::read_to_string(&log)
            .unwrap()
            .contains("NATS is not reachable")
        {
            assert!(
                Instant::now() < deadline,
                "{name}: the node says NATS is not reachable"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        // A join of the owner's table through it is refused with the clear code, now and a moment later (the
        // client retrying in the background does not get through either).
        for _ in 0..2 {
            let (_client, joined) = join_through(relay.addr, &code).await;
            assert_eq!(
                (joined["type"].as_str(), joined["code"].as_str()),
                (Some("error"), Some("forward_unavailable")),
                "{name}: {joined}"
            );
            tokio::time::sleep(Duration::from_millis(1500)).await;
        }
        let mut own = Client::hello(relay.addr).await;
        let created = own.request(req::create_lobby("quacks", 2, "Cy")).await;
        assert_eq!(
            created["type"], "seated",
            "{name}: its own tables are served: {created}"
        );
        assert_eq!(panics_in(&log), Vec::<String>::new(), "{name}");
        let text = std::fs::read_to_string(&log).unwrap();
        assert!(
            !text.contains(&nats.password) && !text.contains(wrong_password),
            "{name}: a NATS password was printed: {text}"
        );
        relay.kill().await;
    }
    // The owner was never troubled.
    assert_eq!(panics_in(&owner_log), Vec::<String>::new());
    let (_far, joined) = join_through(owner.addr, &code).await;
    assert_eq!(joined["type"], "seated", "{joined}");
    owner.kill().await;
    cl.finish().await;
}

/// [`run_refused`](integration_tests::run_refused) of this test's server binary, on an SQLite database unless
/// `env` names another.
fn run_refused(env: &[(&str, &str)]) -> (Option<i32>, String) {
    let mut all = vec![("DATABASE_URL", "sqlite::memory:")];
    all.extend_from_slice(env);
    integration_tests::run_refused(SERVER_BINARY, &all, &[])
}

#[test]
fn a_node_whose_ca_file_cannot_be_read_or_holds_no_certificate_refuses_to_start() {
    let dir = work_dir("ca-file");
    // A private key given by mistake: PEM, but no certificate in it.
    let key = dir.join("given-a-key.pem");
    std::fs::write(
        &key,
        "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIHNlY3JldC1rZXktbm90LWEtY2VydGlmaWNhdGUtMTIz\n-----END PRIVATE KEY-----\n",
    )
    .unwrap();
    let missing = dir.join("no-such-ca.pem");
    let password = "nats-password-not-to-print";
    let url = format!("tls://tabletop:{password}@127.0.0.1:1");
    for (ca, why) in [(&missing, "cannot read it"), (&key, "holds no PEM certificate")] {
        let (status, text) = run_refused(&[
            ("CLUSTER", "true"),
            ("NATS_URL", &url),
            ("NATS_CA_FILE", ca.to_str().unwrap()),
            ("CLUSTER_SECRET", SECRET),
        ]);
        assert_eq!(status, Some(2), "{text}");
        assert!(text.contains("--nats-ca-file") && text.contains(why), "{text}");
        assert!(!text.contains(password), "the NATS password was printed: {text}");
        assert!(!text.contains(SECRET), "the cluster secret was printed: {text}");
    }
}
