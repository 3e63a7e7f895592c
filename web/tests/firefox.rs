//! Firefox check: a real server (in this process, SQLite in a temporary file) and Firefox driven over WebDriver
//! BiDi by `web/tests/firefox/firefox.mjs` (Node.js with puppeteer-core): for every game the server lists, its
//! start-page card is checked (its picture drawn at its size, "Create a table" choosing it in the form with the
//! create button in view), a two-seat lobby is created on the page, a bot fills the other seat, and the whole match
//! is played by clicking what the page offers, with no console error nor uncaught error on the page (as in
//! Chromium). Screenshots go to `target/browser-screenshots/firefox-*.png`.
//!
//! Needs `node`, Firefox (`/usr/bin/firefox-esr`, or `FIREFOX`) and `npm ci --prefix web/tests/firefox`. Without
//! them the test says so and passes, unless `CI` is set, where anything missing is a failure (`.ci/run` installs
//! them).

use std::{path::PathBuf, sync::Arc};

use tokio::{net::TcpListener, process::Command, sync::oneshot};

fn missing(what: &str) {
    assert!(
        std::env::var_os("CI").is_none(),
        "CI must provide {what} for the Firefox test"
    );
    eprintln!("skipping the Firefox test: {what} is missing");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_game_plays_to_the_end_in_firefox() {
    let here = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let script_dir = here.join("tests/firefox");
    let firefox = std::env::var("FIREFOX").unwrap_or_else(|_| "/usr/bin/firefox-esr".into());
    if !PathBuf::from(&firefox).is_file() {
        return missing("Firefox");
    }
    if !script_dir.join("node_modules/puppeteer-core").is_dir() {
        return missing("puppeteer-core (npm ci --prefix web/tests/firefox)");
    }
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| here.join("../target"));
    let shots = target.join("browser-screenshots");
    std::fs::create_dir_all(&shots).unwrap();

    let dir = std::env::temp_dir().join(format!("tabletop-firefox-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut config = server::Config::defaults();
    config.bot_delay_ms = 50;
    let store = server::Store::connect(&format!("sqlite://{}", dir.join("test.db").display()))
        .await
        .unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = oneshot::channel::<()>();
    let task = tokio::spawn(async move {
        server::run(listener, config, store, Arc::new(server::SystemClock), async {
            let _ = stopped.await;
        })
        .await
        .expect("the server runs");
    });

    let games: Vec<String> = rules::catalogue().into_iter().map(|g| g.id.to_string()).collect();
    let output = Command::new("node")
        .arg(script_dir.join("firefox.mjs"))
        .arg(format!("http://{addr}"))
        .arg(&shots)
        .args(&games)
        .env("FIREFOX", &firefox)
        .kill_on_drop(true)
        .output()
        .await
        .expect("node runs");
    let _ = stop.send(());
    task.await.unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    println!("{stdout}");
    assert!(output.status.success(), "Firefox run failed:\n{stdout}\n{stderr}");
    for game in &games {
        let line = stdout
            .lines()
            .find(|l| l.starts_with(&format!("{game}: ")))
            .unwrap_or_else(|| panic!("{game} not played: {stdout}"));
        assert!(
            line.contains(" over after "),
            "{game} not played to the end: {line}"
        );
        assert!(
            line.ends_with(", 0 console errors"),
            "{game}: the page logged errors in Firefox: {line}\n{stderr}"
        );
    }
}
