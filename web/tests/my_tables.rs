//! Browser test of "my tables" (issue 47, point 3): Bo holds seats of two tables, one waiting on him and one on Ann,
//! and opens the start page in Chromium with the seat tokens his browser keeps. The page lists the table waiting on
//! him first, says it is his turn, links to it, and the tab's title carries the badge "(1) ". On SQLite and on
//! PostgreSQL (`common::backends`), each run checking that both tables are in that backend's database.
//!
//! Needs `chromium` and `chromedriver` on PATH; without them the test says so and passes, unless `CI` is set.

mod common;

use common::{Browser, TestServer, assert_stored, browsers_available, with_chromedriver};
use integration_tests::{Client, Player, TestDb, Time, play_until, req};
use serde_json::{Value, json};

/// Whether `seat` must decide in a `state` push.
fn decides(state: &Value, seat: u64) -> bool {
    let status = &state["status"];
    match status["kind"].as_str().unwrap() {
        "turn" => status["seat"] == seat,
        "simultaneous" => status["seats"].as_array().unwrap().contains(&json!(seat)),
        _ => false,
    }
}

/// A started two-seat table of `game` (Ann seat 0, Bo seat 1), played until `stop` holds.
async fn table(
    addr: std::net::SocketAddr,
    game: &str,
    seed: u64,
    stop: impl Fn(&Value) -> bool,
) -> (String, String) {
    let mut ann = Client::hello(addr).await;
    let created = ann.request(req::create_lobby(game, 2, "Ann")).await;
    let code = created["code"].as_str().unwrap().to_string();
    let mut bo = Client::hello(addr).await;
    let joined = bo.request(req::join(&code, "Bo")).await;
    assert_eq!(joined["type"], "seated", "{joined}");
    assert_eq!(ann.request(req::start()).await["type"], "ok");
    let token = joined["seat_token"].as_str().unwrap().to_string();
    let mut players = vec![
        Player {
            client: ann,
            seat: 0,
            token: created["seat_token"].as_str().unwrap().to_string(),
        },
        Player {
            client: bo,
            seat: 1,
            token: token.clone(),
        },
    ];
    for p in &mut players {
        p.client.wait_version(0).await;
    }
    let played = play_until(&mut players, &Time::Real, seed, 200, &stop).await;
    assert!(
        stop(&played.last_state),
        "{game}: {}",
        played.last_state["status"]
    );
    (code, token)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_start_page_lists_the_table_waiting_on_the_player_first_with_a_badge() {
    let test = "my tables test";
    if !browsers_available(test) {
        return;
    }
    for backend in common::backends(test) {
        eprintln!("{test}: on {backend}");
        run_on(backend).await;
    }
}

/// The run on a server whose database is a fresh one of `backend`.
async fn run_on(backend: &str) {
    let server = TestServer::start_on(TestDb::new(backend).await, |_| {}).await;
    let addr = server.addr;
    let base = server.base_url();
    // Ann's turn at one table (the older), Bo's at the other.
    let (theirs, theirs_token) = table(addr, "hickory_dickory", 1, |s| decides(s, 0) && !decides(s, 1)).await;
    let (mine, mine_token) = table(addr, "hickory_dickory", 2, |s| decides(s, 1)).await;
    for code in [&theirs, &mine] {
        assert_stored(&server, backend, code).await;
    }
    with_chromedriver(|webdriver| async move {
        let bo = Browser::open(&webdriver, "bo", 1100, 900, false).await;
        bo.goto(&format!("{base}/")).await;
        // What Bo's browser keeps of his seats (store.js), older first.
        let seats = json!({"seats": {
            theirs.clone(): {"seat": 1, "token": theirs_token, "lastVersion": null, "savedAt": 1},
            mine.clone(): {"seat": 1, "token": mine_token, "lastVersion": null, "savedAt": 2},
        }});
        bo.js(&format!(
            "localStorage.setItem('tabletop.v1', {}); return true;",
            json!(seats.to_string())
        ))
        .await;
        bo.goto(&format!("{base}/")).await;
        bo.wait_for(
            "the list of Bo's tables",
            "document.querySelectorAll('.my-tables li').length === 2",
        )
        .await;
        let listed = bo
            .js(
                "return [...document.querySelectorAll('.my-tables li')].map(li => \
                 ({code: li.dataset.code, mine: li.dataset.yourTurn, text: li.textContent, \
                   href: li.querySelector('a').getAttribute('href')}))",
            )
            .await;
        assert_eq!(
            listed[0]["code"],
            json!(mine),
            "the table waiting on Bo first: {listed}"
        );
        assert_eq!(listed[0]["mine"], "true");
        assert!(
            listed[0]["text"].as_str().unwrap().contains("Your turn"),
            "{listed}"
        );
        assert!(
            listed[0]["text"].as_str().unwrap().contains("with Ann"),
            "{listed}"
        );
        assert_eq!(listed[0]["href"], json!(format!("#join={mine}")));
        assert_eq!(listed[1]["code"], json!(theirs));
        assert!(
            listed[1]["text"].as_str().unwrap().contains("Waiting for Ann"),
            "{listed}"
        );
        let title = bo
            .wait_for("the badge", "document.title.startsWith('(1) ') && document.title")
            .await;
        assert!(title.as_str().unwrap().starts_with("(1) "), "{title}");

        // Opening the table waiting on him: the badge counts the other tables only (none waits on him).
        bo.click(".my-tables li a").await;
        bo.wait_for(
            "Bo's game screen",
            "document.querySelector('.game') && window.tabletop.state",
        )
        .await;
        bo.wait_for("no badge", "!document.title.startsWith('(')").await;
        bo.close().await;
    })
    .await;
    server.finish().await;
}
