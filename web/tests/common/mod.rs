//! What every Chromium test shares: finding the browser, starting chromedriver, a browser session with small
//! helpers (`js`, `wait_for`, `click`, `fill`, screenshots), and a real server in this process with a database of
//! its own (SQLite in a folder, or a fresh PostgreSQL database: [`backends`]), which can be stopped and started
//! again on the same port.
//!
//! Each test file is its own crate and uses only part of this module.
#![allow(dead_code)]

pub mod walk;

use std::{
    future::Future,
    net::SocketAddr,
    path::PathBuf,
    sync::Arc,
    time::{Duration, Instant},
};

use fantoccini::{Client, ClientBuilder, Locator};
use integration_tests::TestDb;
use serde_json::{Value, json};
use tokio::{net::TcpListener, process::Command, sync::oneshot};

/// Flags for headless Chromium on a machine without a network: the background-networking ones keep it from
/// trying (and failing) to reach its vendor's hosts.
pub const CHROMIUM_FLAGS: &[&str] = &[
    "--headless=new",
    "--no-sandbox",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
    "--disable-gpu",
    "--hide-scrollbars",
];

/// The longest wait for anything the page should show; only turns a hang into a failure.
pub const WAIT: Duration = Duration::from_secs(30);

/// The first file called `program` in a folder of PATH.
pub fn find_program(program: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join(program))
            .find(|p| p.is_file())
    })
}

pub fn chromium_binary() -> Option<PathBuf> {
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .find_map(|name| find_program(name))
}

/// Whether Chromium and chromedriver are installed. Without them a test says so and is skipped, unless `CI` is
/// set, where a missing browser is a failure.
pub fn browsers_available(test: &str) -> bool {
    if find_program("chromedriver").is_some() && chromium_binary().is_some() {
        return true;
    }
    let message = format!(
        "{test}: chromium and chromedriver are not installed (apt-get install chromium chromium-driver)"
    );
    assert!(std::env::var_os("CI").is_none(), "{message}");
    eprintln!("{message}: skipped");
    false
}

/// `target/browser-screenshots/`, where tests save screenshots as artefacts.
pub fn screenshot_dir() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target"));
    let dir = target.join("browser-screenshots");
    std::fs::create_dir_all(&dir).expect("the screenshot folder can be created");
    dir
}

pub fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

/// A fresh, empty folder for one test's files.
pub fn test_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tabletop-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Starts chromedriver, runs `test` with its URL, then ends chromedriver and every browser it started (also
/// when `test` panics, whose panic is then passed on); returns what `test` returned.
pub async fn with_chromedriver<F, Fut, T>(test: F) -> T
where
    F: FnOnce(String) -> Fut,
    Fut: Future<Output = T> + Send + 'static,
    T: Send + 'static,
{
    let port = free_port();
    let mut driver = Command::new("chromedriver")
        .arg(format!("--port={port}"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        // Its own process group, so that the browsers it starts can be ended with it even if a session was
        // left open by a failure.
        .process_group(0)
        .spawn()
        .expect("chromedriver starts");
    let driver_group = driver.id().expect("chromedriver has a process id");
    let start = Instant::now();
    while tokio::net::TcpStream::connect(("127.0.0.1", port)).await.is_err() {
        assert!(start.elapsed() < WAIT, "chromedriver listens");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let outcome = tokio::spawn(test(format!("http://127.0.0.1:{port}"))).await;
    let _ = std::process::Command::new("kill")
        .args(["-TERM", "--", &format!("-{driver_group}")])
        .status();
    let _ = driver.kill().await;
    match outcome {
        Ok(value) => value,
        Err(panic) => std::panic::resume_unwind(panic.into_panic()),
    }
}

/// The backends a test of the stored data runs on: SQLite always, PostgreSQL when `TEST_DATABASE_URL` is set
/// (`integration_tests::backends`). Without it PostgreSQL is skipped with a word, unless `CI` is set, where its
/// absence fails the test.
pub fn backends(test: &str) -> Vec<&'static str> {
    let backends = integration_tests::backends();
    if !backends.contains(&"postgres") {
        assert!(
            std::env::var_os("CI").is_none(),
            "{test}: set TEST_DATABASE_URL in CI (the test runs on PostgreSQL too)"
        );
        eprintln!("{test}: TEST_DATABASE_URL is not set: PostgreSQL skipped");
    }
    backends
}

/// The server under test, in this process with the system clock, on a fixed port once bound, with a database of
/// its own (a SQLite file in a folder, or a fresh PostgreSQL database) so that it can be stopped and started again
/// on the same data (as after a deployment).
#[derive(Debug)]
pub struct TestServer {
    pub addr: SocketAddr,
    db: TestDb,
    /// The backend of the store the server last started on, as the store says.
    backend: &'static str,
    config: server::Config,
    stop: Option<oneshot::Sender<()>>,
    task: Option<tokio::task::JoinHandle<()>>,
}

impl TestServer {
    /// Starts a server with the default configuration changed by `configure`, on a new SQLite database in `dir`
    /// (which a test may have filled beforehand through [`TestServer::db_url_in`]).
    pub async fn start_in(dir: PathBuf, configure: impl FnOnce(&mut server::Config)) -> TestServer {
        let url = Self::db_url_in(&dir);
        TestServer::start_on(TestDb::Sqlite { dir, url }, configure).await
    }

    /// Starts a server as [`TestServer::start_in`] does, on `db` (e.g. `TestDb::new(backend)`), which
    /// [`TestServer::finish`] removes.
    pub async fn start_on(db: TestDb, configure: impl FnOnce(&mut server::Config)) -> TestServer {
        let mut config = server::Config::defaults();
        configure(&mut config);
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let mut server = TestServer {
            addr: listener.local_addr().unwrap(),
            db,
            backend: "",
            config,
            stop: None,
            task: None,
        };
        server.serve(listener).await;
        server
    }

    pub fn db_url_in(dir: &std::path::Path) -> String {
        format!("sqlite://{}", dir.join("test.db").display())
    }

    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// `sqlite` or `postgres`: the backend of the store the server runs on.
    pub fn backend(&self) -> &'static str {
        self.backend
    }

    /// The server's database, opened directly (to look at what the server stored).
    pub async fn store(&self) -> server::Store {
        self.db.store().await
    }

    async fn serve(&mut self, listener: TcpListener) {
        // The tests' pool settings (a 10 s deadline): browsers, chromedriver and other tests share the machine
        // and PostgreSQL, and these tests are not about the store's deadline.
        let store = server::Store::connect_with(self.db.url(), integration_tests::test_pool())
            .await
            .unwrap();
        self.backend = store.backend();
        let config = self.config.clone();
        let (stop, stopped) = oneshot::channel::<()>();
        self.stop = Some(stop);
        self.task = Some(tokio::spawn(async move {
            server::run(listener, config, store, Arc::new(server::SystemClock), async {
                let _ = stopped.await;
            })
            .await
            .expect("the server runs");
        }));
    }

    /// Stops the server gracefully (clients are told it is shutting down) and waits until it has stopped.
    pub async fn stop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(task) = self.task.take() {
            let _ = task.await;
        }
    }

    /// Starts it again on the same port with the same database.
    pub async fn start_again(&mut self) {
        let start = Instant::now();
        let listener = loop {
            match TcpListener::bind(self.addr).await {
                Ok(listener) => break listener,
                Err(e) => {
                    assert!(
                        start.elapsed() < WAIT,
                        "the port is free again after the stop: {e}"
                    );
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            }
        };
        self.serve(listener).await;
    }

    /// Stops the server and removes its database (the SQLite folder, or the PostgreSQL database).
    pub async fn finish(mut self) {
        self.stop().await;
        self.db.drop_db().await;
    }
}

/// Checks that `server` keeps its data on `backend`: it runs on a store of that backend, and table `code` is in
/// its database, opened directly, with a match started. Returns what is stored of the table.
pub async fn assert_stored(server: &TestServer, backend: &str, code: &str) -> server::store::StoredLobby {
    assert_eq!(server.backend(), backend, "the server's store");
    let store = server.store().await;
    assert_eq!(store.backend(), backend, "the server's database");
    let stored = store
        .load_lobby(code)
        .await
        .unwrap()
        .unwrap_or_else(|| panic!("{backend}: table {code} is in the server's database"));
    assert!(stored.game.is_some(), "{backend}: table {code} has a match");
    store.close().await;
    stored
}

/// A plain HTTP/1.0 GET, for a check before any browser starts.
pub async fn http_get(addr: SocketAddr, path: &str) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream
        .write_all(format!("GET {path} HTTP/1.0\r\nHost: {addr}\r\n\r\n").as_bytes())
        .await
        .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).await.unwrap();
    response
}

/// One browser session (a window of its own, with its own storage).
#[derive(Debug)]
pub struct Browser {
    pub name: &'static str,
    pub client: Client,
}

impl Browser {
    /// A desktop window, or with `phone` a phone's viewport and touch (Chromium's mobile emulation).
    pub async fn open(webdriver: &str, name: &'static str, width: u32, height: u32, phone: bool) -> Browser {
        Browser::start(webdriver, name, width, height, phone, &[]).await
    }

    /// A desktop window whose Chromium gets `flags` besides [`CHROMIUM_FLAGS`].
    pub async fn open_with(
        webdriver: &str,
        name: &'static str,
        width: u32,
        height: u32,
        flags: &[&str],
    ) -> Browser {
        Browser::start(webdriver, name, width, height, false, flags).await
    }

    async fn start(
        webdriver: &str,
        name: &'static str,
        width: u32,
        height: u32,
        phone: bool,
        flags: &[&str],
    ) -> Browser {
        let mut args: Vec<String> = CHROMIUM_FLAGS
            .iter()
            .chain(flags)
            .map(|s| s.to_string())
            .collect();
        args.push(format!("--window-size={width},{height}"));
        let mut chrome = json!({ "args": args });
        if phone {
            chrome["mobileEmulation"] = json!({
                "deviceMetrics": { "width": width, "height": height, "pixelRatio": 2.0, "touch": true }
            });
        }
        if let Some(binary) = chromium_binary() {
            chrome["binary"] = json!(binary);
        }
        let mut caps = serde_json::Map::new();
        caps.insert("goog:chromeOptions".into(), chrome);
        let client = ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
            .capabilities(caps)
            .connect(webdriver)
            .await
            .unwrap_or_else(|e| panic!("{name}: chromedriver starts a session: {e}"));
        Browser { name, client }
    }

    pub async fn goto(&self, url: &str) {
        self.client
            .goto(url)
            .await
            .unwrap_or_else(|e| panic!("{}: opens {url}: {e}", self.name));
    }

    /// Runs a script (a function body: `return` gives the value).
    pub async fn js(&self, script: &str) -> Value {
        self.client
            .execute(script, vec![])
            .await
            .unwrap_or_else(|e| panic!("{}: script failed: {e}\n{script}", self.name))
    }

    /// Waits until `condition` (a JS expression) is truthy; returns its value. On time-out saves a screenshot
    /// and fails with the page's text.
    pub async fn wait_for(&self, what: &str, condition: &str) -> Value {
        let start = Instant::now();
        let script = format!("return ({condition}) || null;");
        loop {
            let v = self.js(&script).await;
            if !v.is_null() && v != json!(false) {
                return v;
            }
            if start.elapsed() > WAIT {
                self.shot(&format!("timeout-{}", self.name)).await;
                let page = self.text("body").await;
                panic!(
                    "{}: timed out waiting for {what}. The page shows:\n{page}",
                    self.name
                );
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// The rendered text of the first element matching `selector` (empty if none).
    pub async fn text(&self, selector: &str) -> String {
        self.js(&format!(
            "const e = document.querySelector({}); return e ? e.innerText : '';",
            json!(selector)
        ))
        .await
        .as_str()
        .unwrap_or_default()
        .to_string()
    }

    /// Types `value` into the field, as a person would (replacing what it held).
    pub async fn fill(&self, selector: &str, value: &str) {
        let field = self
            .client
            .find(Locator::Css(selector))
            .await
            .unwrap_or_else(|e| panic!("{}: {selector} is on the page: {e}", self.name));
        field.clear().await.unwrap();
        field.send_keys(value).await.unwrap();
    }

    /// Clicks the element as a person would (it must be visible and not covered).
    pub async fn click(&self, selector: &str) {
        self.client
            .find(Locator::Css(selector))
            .await
            .unwrap_or_else(|e| panic!("{}: {selector} is on the page: {e}", self.name))
            .click()
            .await
            .unwrap_or_else(|e| panic!("{}: {selector} can be clicked: {e}", self.name));
    }

    /// Saves a screenshot as `target/browser-screenshots/NAME.png`.
    pub async fn shot(&self, name: &str) {
        if let Ok(png) = self.client.screenshot().await {
            let _ = std::fs::write(screenshot_dir().join(format!("{name}.png")), png);
        }
    }

    pub async fn close(self) {
        let _ = self.client.close().await;
    }
}
