//! A short run of the load generator against an in-process server (SQLite in a temporary folder), so that it
//! cannot rot. It asserts that matches are played without errors, never how fast.

use std::sync::Arc;

use clap::Parser;

/// An in-process server on a SQLite file in a temporary folder, with no rate or per-address limits: its address,
/// a sender that stops it, its task and the folder.
async fn start_server(
    tag: &str,
) -> (
    std::net::SocketAddr,
    tokio::sync::oneshot::Sender<()>,
    tokio::task::JoinHandle<Result<(), server::RunError>>,
    std::path::PathBuf,
) {
    let dir = std::env::temp_dir().join(format!("loadgen_{tag}_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let url = format!("sqlite://{}", dir.join("tabletop.db").display());
    let store = server::Store::connect(&url).await.unwrap();
    let mut config = server::Config::defaults();
    config.rate_limit_per_sec = 1e9;
    config.rate_limit_burst = 1e9;
    config.bot_delay_ms = 0;
    // Every client comes from 127.0.0.1, and each finished match is followed by a new lobby.
    config.max_connections_per_ip = 100_000;
    config.max_lobbies_per_ip = 1_000_000;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let task = tokio::spawn(server::run(
        listener,
        config,
        store,
        Arc::new(server::SystemClock),
        async move {
            let _ = stopped.await;
        },
    ));
    (addr, stop, task, dir)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn loadgen_plays_lobbies_of_every_game_without_errors() {
    let (addr, stop, task, dir) = start_server("smoke").await;
    // Every registered game, at three seats (or the nearest count it allows), with every timed window (an option
    // `..._ms`) at its shortest so that, say, an Eeek! race nobody wins does not hold a match for long.
    for info in rules::catalogue() {
        let game = info.id;
        let seats = 3.clamp(info.min_players, info.max_players).to_string();
        let options: serde_json::Map<String, serde_json::Value> = info
            .options
            .iter()
            .filter_map(|option| match option.kind {
                rules::OptionKind::Integer { min, .. } if option.key.ends_with("_ms") => {
                    Some((option.key.to_owned(), min.into()))
                }
                _ => None,
            })
            .collect();
        let options = serde_json::Value::Object(options).to_string();
        let opts = loadgen::Options::parse_from([
            "loadgen",
            "--url",
            &format!("ws://{addr}/ws"),
            "--game",
            game,
            "--seats",
            &seats,
            "--options",
            &options,
            "--lobbies",
            "3",
            "--idle",
            "5",
            "--warmup",
            "0.2",
            "--duration",
            "1",
            "--min-actions",
            "20",
        ]);
        let report = loadgen::run(opts).await.unwrap();
        assert_eq!(report.errors, 0, "{game}: {report}");
        assert!(
            report.accepted >= 20,
            "{game}: too few actions accepted: {report}"
        );
        assert!(
            report.latency_us.samples > 0,
            "{game}: no round trip measured: {report}"
        );
        assert_eq!(report.idle, 5);
        // Each round trip again, ended when the kernel received the push (Linux): one per round trip, never
        // after the task read it, and after the send.
        let (task, socket) = (&report.latency_us, &report.socket_latency_us);
        if cfg!(target_os = "linux") {
            assert_eq!(socket.samples, task.samples, "{game}: {report}");
            assert!(
                socket.p50 <= task.p50 && socket.p99 <= task.p99 && socket.max <= task.max,
                "{game}: the socket saw pushes after the task did: {report}"
            );
            assert!(socket.p50 > 0, "{game}: a round trip of no time: {report}");
        }
    }
    // `--rules-version` reaches `create_lobby`: a version the game keeps plays, one it does not is refused.
    for (version, refused) in [("1", false), ("99", true)] {
        let opts = loadgen::Options::parse_from([
            "loadgen",
            "--url",
            &format!("ws://{addr}/ws"),
            "--game",
            "hide_and_eeek",
            "--options",
            r#"{"claim_window_ms": 1000}"#,
            "--rules-version",
            version,
            "--lobbies",
            "1",
            "--warmup",
            "0.1",
            "--duration",
            "0.5",
        ]);
        let report = loadgen::run(opts).await.unwrap();
        assert_eq!(report.errors > 0, refused, "rules version {version}: {report}");
    }
    let _ = stop.send(());
    task.await.unwrap().unwrap();
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn loadgen_spreads_its_clients_over_several_urls() {
    // Two URLs of one server (as two nodes would be): every client connects to one of them at random, and the
    // lobbies are played as over one.
    let (addr, stop, task, dir) = start_server("urls").await;
    let urls = [
        format!("ws://127.0.0.1:{}/ws", addr.port()),
        format!("ws://localhost:{}/ws", addr.port()),
    ];
    let run = |seed: &str| {
        loadgen::Options::parse_from([
            "loadgen",
            "--url",
            &urls[0],
            "--url",
            &urls[1],
            "--lobbies",
            "6",
            "--seats",
            "3",
            "--idle",
            "4",
            "--warmup",
            "0.2",
            "--duration",
            "1",
            "--min-actions",
            "20",
            "--seed",
            seed,
        ])
    };
    let report = loadgen::run(run("5")).await.unwrap();
    assert_eq!(report.errors, 0, "{report}");
    assert!(report.accepted >= 20, "{report}");
    let counts: Vec<u64> = report.clients_per_url.iter().map(|(_, n)| *n).collect();
    assert_eq!(
        report
            .clients_per_url
            .iter()
            .map(|(u, _)| u.as_str())
            .collect::<Vec<_>>(),
        urls.iter().map(String::as_str).collect::<Vec<_>>()
    );
    assert_eq!(counts.iter().sum::<u64>(), 6 * 3 + 4, "{report}");
    assert!(counts.iter().all(|n| *n > 0), "both URLs get clients: {report}");
    assert!(report.to_string().contains("clients per URL:"), "{report}");
    assert_eq!(report.to_json()["clients_per_url"][urls[1].as_str()], counts[1]);
    // The same seed puts every client on the same URL again.
    let again = loadgen::run(run("5")).await.unwrap();
    assert_eq!(again.clients_per_url, report.clients_per_url);
    // A URL off the loopback interface is refused, as a single one is.
    let mut far = run("5");
    far.url.push("ws://10.0.0.1:8080/ws".into());
    assert!(loadgen::run(far).await.is_err());
    let _ = stop.send(());
    task.await.unwrap().unwrap();
    let _ = std::fs::remove_dir_all(dir);
}
