//! Browser test of the admin page (`/admin.html`): a real server with an admin token (in this process, SQLite in
//! a file, the system clock) holding a match between a person and a bot, and headless Chromium through
//! chromedriver. A wrong token is refused; with the right one the page lists the match, inspects it (seats, the
//! step slider as a seat and as the complete state, the action log) and aborts it through the form, after which
//! the status and the audit log on the page say so.
//!
//! Needs `chromium` and `chromedriver` on PATH; without them the test says so and passes, unless `CI` is set.

use std::{
    path::PathBuf,
    sync::Arc,
    time::{Duration, Instant},
};

use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{Value, json};
use tokio::{net::TcpListener, process::Command, sync::oneshot};

const WAIT: Duration = Duration::from_secs(30);
const ADMIN_TOKEN: &str = "admin-page-test-token-0123456789";
const CODE: &str = "ADMNPQ";

fn on_path(program: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join(program))
            .find(|p| p.is_file())
    })
}

struct Page {
    client: Client,
}

impl Page {
    async fn js(&self, script: &str) -> Value {
        self.client
            .execute(script, vec![])
            .await
            .unwrap_or_else(|e| panic!("script failed: {e}\n{script}"))
    }

    async fn wait_for(&self, what: &str, condition: &str) -> Value {
        let start = Instant::now();
        let script = format!("return ({condition}) || null;");
        loop {
            let v = self.js(&script).await;
            if !v.is_null() && v != json!(false) {
                return v;
            }
            if start.elapsed() > WAIT {
                let page = self
                    .js("return document.body.innerText")
                    .await
                    .as_str()
                    .unwrap_or_default()
                    .to_string();
                panic!("timed out waiting for {what}. The page shows:\n{page}");
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    async fn fill(&self, selector: &str, value: &str) {
        let field = self.client.find(Locator::Css(selector)).await.unwrap();
        field.clear().await.unwrap();
        field.send_keys(value).await.unwrap();
    }
}

/// Stores a lobby with a person at seat 0 and a bot at seat 1, and its started match, as the server would.
async fn seed_match(url: &str) -> String {
    let store = server::Store::connect(url).await.unwrap();
    let game = "hide_and_eeek";
    let options = rules::AnyGame::normalise_config(game, &json!({})).unwrap();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    let lobby = server::store::LobbyRecord {
        code: CODE.into(),
        game: game.into(),
        options: options.clone(),
        seat_count: 2,
        host_seat: 0,
        turn_timer_ms: None,
        phase: server::store::Phase::Open,
        created_at: now,
    };
    let human = server::store::SeatRecord {
        seat: 0,
        kind: server::store::SeatKind::Human,
        name: "Ann".into(),
        token_hash: Some(server::secrets::token_hash("not a real token")),
    };
    store.create_lobby(&lobby, &human).await.unwrap();
    let bot = server::store::SeatRecord {
        seat: 1,
        kind: server::store::SeatKind::Bot,
        name: "Bot 2".into(),
        token_hash: None,
    };
    store.insert_seat(CODE, &bot).await.unwrap();
    let info = rules::AnyGame::catalogue()
        .into_iter()
        .find(|g| g.id == game)
        .unwrap();
    let match_id = server::secrets::match_id();
    let record = server::store::MatchRecord {
        id: match_id.clone(),
        game: game.into(),
        options,
        players: 2,
        seed: 7,
        rules_version: info.rules_version,
        started_at: now,
        finished: false,
    };
    store.start_match(CODE, &record).await.unwrap();
    store.close().await;
    match_id
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_admin_page_lists_inspects_and_aborts_a_match() {
    let (Some(_), Some(chromium)) = (on_path("chromedriver"), on_path("chromium")) else {
        let message = "admin page test: chromium and chromedriver are not installed";
        assert!(std::env::var_os("CI").is_none(), "{message}");
        eprintln!("{message}: skipped");
        return;
    };
    let dir = std::env::temp_dir().join(format!("tabletop-admin-page-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let url = format!("sqlite://{}", dir.join("test.db").display());
    let match_id = seed_match(&url).await;
    let mut config = server::Config::defaults();
    config.bot_delay_ms = 50;
    config.admin_token = Some(server::admin::AdminToken::parse(ADMIN_TOKEN).unwrap());
    let store = server::Store::connect(&url).await.unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = oneshot::channel::<()>();
    let task = tokio::spawn(server::run(
        listener,
        config,
        store,
        Arc::new(server::SystemClock),
        async {
            let _ = stopped.await;
        },
    ));

    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut driver = Command::new("chromedriver")
        .arg(format!("--port={port}"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .process_group(0)
        .spawn()
        .expect("chromedriver starts");
    let driver_group = driver.id().expect("chromedriver has a process id");
    let start = Instant::now();
    while tokio::net::TcpStream::connect(("127.0.0.1", port)).await.is_err() {
        assert!(start.elapsed() < WAIT, "chromedriver listens");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let outcome = tokio::spawn(async move {
        let args = [
            "--headless=new",
            "--no-sandbox",
            "--disable-dev-shm-usage",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--disable-quic",
            "--disable-gpu",
            "--window-size=1280,1000",
        ];
        let mut caps = serde_json::Map::new();
        caps.insert(
            "goog:chromeOptions".into(),
            json!({"args": args, "binary": chromium}),
        );
        let client = ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
            .capabilities(caps)
            .connect(&format!("http://127.0.0.1:{port}"))
            .await
            .expect("a browser session");
        let page = Page { client };
        page.client
            .goto(&format!("http://{addr}/admin.html"))
            .await
            .unwrap();
        // A wrong token is refused and asked for again.
        page.wait_for("the token form", "document.querySelector('#token')").await;
        page.fill("#token", "a-wrong-token-of-enough-length").await;
        page.js("document.querySelector('form button[type=submit]').click()").await;
        page.wait_for(
            "the refusal",
            "document.querySelector('#notice').innerText.includes('not the admin token')",
        )
        .await;
        // The right one shows the list with the match.
        page.fill("#token", ADMIN_TOKEN).await;
        page.js("document.querySelector('form button[type=submit]').click()").await;
        page.wait_for(
            "the match in the list",
            &format!("document.querySelector('#list table') && document.querySelector('#list').innerText.includes('{CODE}')"),
        )
        .await;
        // Filtering by a name nobody has empties the list.
        page.fill("#f-player", "nobody-has-this-name").await;
        page.js("document.querySelector('#list form button[type=submit]').click()").await;
        page.wait_for(
            "an empty list",
            "document.querySelector('#list').innerText.includes('Nothing matches')",
        )
        .await;
        page.fill("#f-player", "ann").await;
        page.js("document.querySelector('#list form button[type=submit]').click()").await;
        page.wait_for("the match again", "document.querySelector('#list table button')")
            .await;
        // Inspect it: seats, the step slider as a seat and as the complete state.
        page.js("document.querySelector('#list table button').click()").await;
        page.wait_for(
            "the inspector",
            &format!("document.querySelector('#inspector h2') && document.querySelector('#inspector h2').innerText.includes('{CODE}')"),
        )
        .await;
        let seats = page
            .js("return document.querySelector('#inspector').innerText")
            .await;
        let seats = seats.as_str().unwrap();
        assert!(seats.contains("Ann") && seats.contains("Bot 2"), "{seats}");
        assert!(seats.contains(&match_id), "{seats}");
        page.wait_for("the complete state", "document.querySelector('#inspector pre.json')")
            .await;
        page.js("const v = document.querySelector('#viewer'); v.value = '0'; v.dispatchEvent(new Event('change'));")
            .await;
        page.wait_for(
            "seat 0's view",
            "document.querySelector('#inspector').innerText.includes('legal actions and events as shown')",
        )
        .await;
        page.js("const s = document.querySelector('#step'); s.value = '0'; s.dispatchEvent(new Event('input'));")
            .await;
        page.wait_for(
            "step 0",
            "document.querySelector('#inspector').innerText.includes('Step 0: the start')",
        )
        .await;
        // Abort it through the form.
        page.js("[...document.querySelectorAll('#inspector button')].find(b => b.innerText === 'Abort the match').click()")
            .await;
        page.wait_for("the action form", "document.querySelector('.act-form')").await;
        page.js(
            "const f = document.querySelector('.act-form'); const [by, why] = f.querySelectorAll('input'); \
             by.value = 'Root'; why.value = 'testing the page'; f.querySelector('button[type=submit]').click();",
        )
        .await;
        page.wait_for(
            "the aborted status",
            "document.querySelector('#inspector').innerText.includes('aborted: testing the page')",
        )
        .await;
        page.wait_for(
            "the audit entry",
            "document.querySelector('#audit-all').innerText.includes('Root') && document.querySelector('#audit-all').innerText.includes('abort')",
        )
        .await;
        let _ = page.client.close().await;
    })
    .await;
    let _ = std::process::Command::new("kill")
        .args(["-TERM", "--", &format!("-{driver_group}")])
        .status();
    let _ = driver.kill().await;
    let _ = stop.send(());
    let _ = task.await;
    let _ = std::fs::remove_dir_all(&dir);
    if let Err(panic) = outcome {
        std::panic::resume_unwind(panic.into_panic());
    }
}
