//! Browser test of Web Push in the page (issue 47, point 4): the real `notify.js` and `sw.js` in Chromium.
//!
//! Bob's page shows his table (a started Hickory Dickory match) with notifications allowed (CDP
//! `Browser.grantPermissions`). He clicks "Notify this browser": the page registers `/sw.js` and asks for a push
//! subscription. Headless Chromium has no push service it can reach (its host names are resolved to nothing, so the
//! run does not depend on the machine's network): `pushManager.subscribe` never settles, so the page gives up after
//! its wait and says so in words, and the server lists no endpoint for Bob's seat (`notify_list` over the
//! protocol).
//!
//! Then pushes are delivered to the page's registered worker through the Chrome DevTools Protocol
//! (`ServiceWorker.deliverPushMessage`, the registration's id from `ServiceWorker.workerRegistrationUpdated`), each
//! payload as the server writes it, and the notifications read back with `registration.getNotifications()`: a
//! "clock low" for Bob's table is shown with its title, body, tag and link; a newer one of the same table
//! replaces it; a push without a tag is shown too; a "your turn" for the table Bob's visible window shows is not
//! shown, while one for another table is (the page answers the worker's question which table it shows); once
//! another tab hides Bob's table, its "your turn" is shown. DevTools now and then loses the first push it
//! delivers, so that one is delivered again until it shows.
//!
//! Needs `chromium` and `chromedriver` on PATH; without them the test says so and passes, unless `CI` is set.

mod common;

use std::{net::SocketAddr, time::Instant};

use common::{Browser, TestServer, WAIT, browsers_available, test_dir, with_chromedriver};
use futures_util::{SinkExt, StreamExt};
use integration_tests::{Client, req};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;

/// A Chrome DevTools Protocol session on one page target, over the browser's own DevTools WebSocket (chromedriver's
/// `goog/cdp/execute` sends commands but hands over no events, and the registration id comes only in one).
struct Cdp {
    ws: tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>,
    next_id: u64,
    /// Events read while waiting for a command's answer, not yet asked for.
    events: Vec<Value>,
}

impl Cdp {
    /// Attaches to the page of `browser` whose address starts with `url`.
    async fn attach(browser: &Browser, url: &str) -> Cdp {
        let caps = browser.client.capabilities().expect("the session's capabilities");
        let debugger = caps["goog:chromeOptions"]["debuggerAddress"]
            .as_str()
            .expect("chromedriver says where Chromium's DevTools listen");
        let port: u16 = debugger.rsplit(':').next().unwrap().parse().unwrap();
        let targets = devtools_targets(port).await;
        let page = targets
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["type"] == "page" && t["url"].as_str().unwrap().starts_with(url))
            .unwrap_or_else(|| panic!("a page at {url}: {targets}"));
        let ws_url = page["webSocketDebuggerUrl"].as_str().unwrap();
        let (ws, _) = tokio_tungstenite::connect_async(ws_url)
            .await
            .expect("DevTools' WebSocket");
        Cdp {
            ws,
            next_id: 1,
            events: Vec::new(),
        }
    }

    async fn read(&mut self) -> Value {
        loop {
            let message = tokio::time::timeout(WAIT, self.ws.next())
                .await
                .expect("DevTools answer")
                .expect("DevTools' WebSocket open")
                .unwrap();
            if let Message::Text(text) = message {
                return serde_json::from_str(&text).unwrap();
            }
        }
    }

    /// Sends command `method` and returns its result (failing on an error).
    async fn call(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        let frame = json!({"id": id, "method": method, "params": params}).to_string();
        self.ws.send(Message::Text(frame.into())).await.unwrap();
        loop {
            let message = self.read().await;
            if message["id"] == id {
                assert!(message["error"].is_null(), "{method}: {message}");
                return message["result"].clone();
            }
            self.events.push(message);
        }
    }

    /// The params of the first event `method` (read before or after this call) that `wanted` accepts.
    async fn event(&mut self, method: &str, wanted: impl Fn(&Value) -> bool) -> Value {
        let start = Instant::now();
        loop {
            if let Some(i) = self
                .events
                .iter()
                .position(|e| e["method"] == method && wanted(&e["params"]))
            {
                return self.events.remove(i)["params"].clone();
            }
            assert!(start.elapsed() < WAIT, "no {method} event: {:?}", self.events);
            let message = self.read().await;
            self.events.push(message);
        }
    }
}

/// The targets Chromium's DevTools list (`GET /json/list`; it answers HTTP/1.1 only, and keeps the connection
/// open: the body is read by its length).
async fn devtools_targets(port: u16) -> Value {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", port)).await.unwrap();
    let request = format!("GET /json/list HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n");
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = Vec::new();
    let mut chunk = [0u8; 8192];
    let start = Instant::now();
    loop {
        assert!(
            start.elapsed() < WAIT,
            "DevTools' answer: {:?}",
            String::from_utf8_lossy(&response)
        );
        let n = tokio::time::timeout(WAIT, stream.read(&mut chunk))
            .await
            .expect("DevTools answer")
            .unwrap();
        assert!(
            n > 0,
            "DevTools' answer: {:?}",
            String::from_utf8_lossy(&response)
        );
        response.extend_from_slice(&chunk[..n]);
        let text = String::from_utf8_lossy(&response);
        let Some((head, body)) = text.split_once("\r\n\r\n") else {
            continue;
        };
        let length: usize = head
            .lines()
            .find_map(|l| {
                l.to_ascii_lowercase()
                    .strip_prefix("content-length:")
                    .map(|v| v.trim().to_string())
            })
            .expect("a Content-Length")
            .parse()
            .unwrap();
        if body.len() >= length {
            return serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {body}"));
        }
    }
}

/// A started two-seat Hickory Dickory match (Alice, Bob); returns Alice's connection (kept open), the code, and
/// Bob's seat and seat token (his connection is closed: his browser takes the seat).
async fn table(addr: SocketAddr) -> (Client, String, u64, String) {
    let mut alice = Client::hello(addr).await;
    let created = alice
        .request(req::create_lobby("hickory_dickory", 2, "Alice"))
        .await;
    assert_eq!(created["type"], "seated", "{created}");
    let code = created["code"].as_str().unwrap().to_string();
    let mut bob = Client::hello(addr).await;
    let joined = bob.request(req::join(&code, "Bob")).await;
    assert_eq!(joined["type"], "seated", "{joined}");
    assert_eq!(alice.request(req::start()).await["type"], "ok");
    alice.wait_version(0).await;
    bob.wait_version(0).await;
    bob.close().await;
    let seat = joined["seat"].as_u64().unwrap();
    (
        alice,
        code,
        seat,
        joined["seat_token"].as_str().unwrap().to_string(),
    )
}

/// The notifications the page's service worker registration shows: `{title, body, tag, data}`, by title.
async fn shown(page: &Browser) -> Vec<Value> {
    let script = "const done = arguments[arguments.length - 1];
        navigator.serviceWorker.getRegistration('/')
          .then((r) => (r ? r.getNotifications() : []))
          .then((ns) => done(ns.map((n) => ({ title: n.title, body: n.body, tag: n.tag, data: n.data }))))
          .catch((e) => done(String(e)));";
    let value = page.client.execute_async(script, vec![]).await.unwrap();
    let mut list = value
        .as_array()
        .unwrap_or_else(|| panic!("getNotifications: {value}"))
        .clone();
    list.sort_by(|a, b| a["title"].as_str().cmp(&b["title"].as_str()));
    list
}

/// Waits until the shown notifications satisfy `done`; returns them.
async fn wait_shown(page: &Browser, what: &str, done: impl Fn(&[Value]) -> bool) -> Vec<Value> {
    let start = Instant::now();
    loop {
        let list = shown(page).await;
        if done(&list) {
            return list;
        }
        assert!(start.elapsed() < WAIT, "{what}: the notifications are {list:?}");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}

/// A push's payload as the server writes it (docs/protocol.md, "Web Push and email"), for table `code` at `base`.
fn payload(id: &str, kind: &str, title: &str, base: &str, code: &str) -> Value {
    json!({"id": id, "kind": kind, "title": title, "body": format!("{title} at table {code}."),
        "link": format!("{base}/#join={code}"), "tag": code})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_service_worker_shows_pushes_and_the_page_says_it_cannot_subscribe_without_a_push_service() {
    if !browsers_available("service worker test") {
        return;
    }
    let server = TestServer::start_in(test_dir("service-worker"), |_| {}).await;
    let (addr, base) = (server.addr, server.base_url());
    let (alice, code, seat, token) = table(addr).await;
    let (page_code, page_token) = (code.clone(), token.clone());
    with_chromedriver(|webdriver| async move {
        let page = open_table(&webdriver, &base, &page_code, seat, &page_token).await;
        let mut cdp = Cdp::attach(&page, &base).await;
        cdp.call(
            "Browser.grantPermissions",
            json!({"origin": base, "permissions": ["notifications"]}),
        )
        .await;
        the_button_says_the_browser_cannot_subscribe(&page).await;
        pushes_are_shown(&page, &mut cdp, &base, &page_code).await;
        page.close().await;
    })
    .await;
    // Nothing was subscribed: the server lists no endpoint for Bob's seat.
    let mut bob = Client::hello(addr).await;
    let resumed = bob.request(req::resume(&code, &token)).await;
    assert_eq!(resumed["type"], "resumed", "{resumed}");
    let listed = bob.request(req::notify_list()).await;
    assert_eq!(listed["type"], "notify_endpoints", "{listed}");
    assert_eq!(listed["seat"], seat, "{listed}");
    assert_eq!(listed["endpoints"], json!([]), "no endpoint for Bob: {listed}");
    drop(alice);
    server.finish().await;
}

/// Bob's Chromium, with no host name resolving (no push service reachable), showing his table at
/// `base/#join=code` from the seat token it keeps; the notification panel is open.
async fn open_table(webdriver: &str, base: &str, code: &str, seat: u64, token: &str) -> Browser {
    let page = Browser::open_with(
        webdriver,
        "bob",
        1100,
        900,
        &["--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"],
    )
    .await;
    page.goto(&format!("{base}/")).await;
    let seats = json!({"name": "Bob", "seats": {
        code: {"seat": seat, "token": token, "lastVersion": 0, "savedAt": 1},
    }});
    page.js(&format!(
        "localStorage.setItem('tabletop.v1', {}); return true;",
        json!(seats.to_string())
    ))
    .await;
    page.goto(&format!("{base}/#join={code}")).await;
    page.wait_for(
        "Bob's table",
        "document.querySelector('details[data-key=notify] summary')",
    )
    .await;
    page.js("document.querySelector('details[data-key=notify]').open = true; return true;")
        .await;
    page.wait_for(
        "the server's list of Bob's endpoints",
        "document.querySelector('[data-key=notify-none]')",
    )
    .await;
    page
}

/// Clicking "Notify this browser" registers `/sw.js` and, with no push service answering, ends in words saying
/// so, with the button usable again and no endpoint listed.
async fn the_button_says_the_browser_cannot_subscribe(page: &Browser) {
    assert_eq!(page.js("return Notification.permission").await, "granted");
    page.click("[data-key=notify-add-push]").await;
    let asking = page
        .wait_for(
            "the page asking",
            "document.querySelector('[data-key=notify-message]')?.textContent",
        )
        .await;
    assert_eq!(asking, "Asking this browser for a subscription…");
    let said = page
        .wait_for(
            "the page's words on the failed subscription",
            "document.querySelector('[data-key=notify-message]')?.textContent !== 'Asking this browser for a subscription…' && document.querySelector('[data-key=notify-message]')?.textContent",
        )
        .await;
    assert_eq!(
        said,
        "The browser's push service did not answer. Try again later.",
        "{}",
        page.text("details[data-key=notify]").await
    );
    page.shot("service-worker-no-push-service").await;
    let panel = page
        .js("const p = document.querySelector('details[data-key=notify]');
             return { endpoints: p.querySelectorAll('[data-key=notify-endpoint]').length,
                      none: !!p.querySelector('[data-key=notify-none]'),
                      disabled: p.querySelector('[data-key=notify-add-push]').disabled };")
        .await;
    assert_eq!(panel, json!({"endpoints": 0, "none": true, "disabled": false}));
    // The worker the page registered, serving the whole site.
    page.wait_for(
        "the page's service worker active",
        "window.__sw || (navigator.serviceWorker.getRegistration('/').then((r) => { window.__sw = r && r.active \
         && r.active.state === 'activated' && { script: r.active.scriptURL, scope: r.scope }; }), false)",
    )
    .await;
    let sw = page.js("return window.__sw").await;
    let origin = page.js("return location.origin").await;
    let origin = origin.as_str().unwrap();
    assert_eq!(
        sw,
        json!({"script": format!("{origin}/sw.js"), "scope": format!("{origin}/")})
    );
}

/// The id of the service worker registration for `base/`, from CDP's `ServiceWorker.workerRegistrationUpdated`.
async fn registration_id(cdp: &mut Cdp, base: &str) -> Value {
    cdp.call("ServiceWorker.enable", json!({})).await;
    let scope = format!("{base}/");
    let ours = |r: &&Value| r["scopeURL"] == scope.as_str() && r["isDeleted"] == false;
    let updated = cdp
        .event("ServiceWorker.workerRegistrationUpdated", |p| {
            p["registrations"].as_array().unwrap().iter().any(|r| ours(&r))
        })
        .await;
    let registrations = updated["registrations"].as_array().unwrap();
    registrations.iter().find(ours).unwrap()["registrationId"].clone()
}

/// Delivers a push with `data` as its payload to the worker of registration `id` at `base`.
async fn push(cdp: &mut Cdp, base: &str, id: &Value, data: Value) {
    let params = json!({"origin": base, "registrationId": id, "data": data.to_string()});
    cdp.call("ServiceWorker.deliverPushMessage", params).await;
}

/// Pushes delivered to the page's worker through CDP, and the notifications it shows.
async fn pushes_are_shown(page: &Browser, cdp: &mut Cdp, base: &str, code: &str) {
    let id = registration_id(cdp, base).await;
    // A low clock for Bob's table is shown, even while his page shows it. DevTools now and then loses the first
    // push it delivers (about one run in three here), so that one is delivered again until it shows.
    let low = payload("n1", "clock_low", "Your clock runs low", base, code);
    let mut list = Vec::new();
    for _ in 0..5 {
        push(cdp, base, &id, low.clone()).await;
        let start = Instant::now();
        while list.is_empty() && start.elapsed() < std::time::Duration::from_secs(3) {
            list = shown(page).await;
        }
        if !list.is_empty() {
            break;
        }
    }
    assert_eq!(
        list,
        vec![
            json!({"title": "Your clock runs low", "body": format!("Your clock runs low at table {code}."),
            "tag": code, "data": {"link": format!("{base}/#join={code}"), "id": "n1"}})
        ]
    );
    // A newer one of the same table replaces it.
    push(
        cdp,
        base,
        &id,
        payload("n2", "match_over", "The match is over", base, code),
    )
    .await;
    let list = wait_shown(page, "the match's end", |l| {
        l.iter().any(|n| n["title"] == "The match is over")
    })
    .await;
    assert_eq!(list.len(), 1, "one notification per table: {list:?}");
    assert_eq!(list[0]["data"]["id"], "n2");
    // A push without a tag is shown too.
    let mut untagged = payload("n3", "match_over", "Untagged", base, "OTHER1");
    untagged.as_object_mut().unwrap().remove("tag");
    push(cdp, base, &id, untagged).await;
    let list = wait_shown(page, "the push without a tag", |l| l.len() == 2).await;
    assert_eq!(list[1]["title"], "Untagged", "{list:?}");
    assert_eq!(list[1]["tag"], "", "{list:?}");
    turns_are_shown_unless_the_page_shows_the_table(page, cdp, base, &id, code).await;
}

/// "Your turn" at the table Bob's visible window shows is not shown; at another table it is; once another tab
/// hides Bob's table, its "your turn" is shown.
async fn turns_are_shown_unless_the_page_shows_the_table(
    page: &Browser,
    cdp: &mut Cdp,
    base: &str,
    id: &Value,
    code: &str,
) {
    // The worker asks the page which table it shows; counting the questions proves both pushes reached it.
    page.js(
        "window.asked = 0; navigator.serviceWorker.addEventListener('message', (e) => {
           if (e.data?.type === 'shown_table') window.asked += 1; }); return true;",
    )
    .await;
    push(
        cdp,
        base,
        id,
        payload("n4", "your_turn", "Your turn here", base, code),
    )
    .await;
    push(
        cdp,
        base,
        id,
        payload("n5", "your_turn", "Your turn there", base, "OTHER2"),
    )
    .await;
    page.wait_for("the worker's two questions", "window.asked === 2")
        .await;
    let list = wait_shown(page, "the other table's turn", |l| l.len() == 3).await;
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    assert_eq!(list, shown(page).await);
    let titles: Vec<&str> = list.iter().map(|n| n["title"].as_str().unwrap()).collect();
    assert_eq!(
        titles,
        ["The match is over", "Untagged", "Your turn there"],
        "{list:?}"
    );

    // Another tab of the site hides Bob's table; the notifications are read from that tab.
    let other = page.client.new_window(true).await.unwrap();
    page.client.switch_to_window(other.handle).await.unwrap();
    page.goto(&format!("{base}/api/push/key")).await;
    let table_tab = cdp
        .call(
            "Runtime.evaluate",
            json!({"expression": "document.visibilityState"}),
        )
        .await;
    assert_eq!(table_tab["result"]["value"], "hidden", "{table_tab}");
    push(
        cdp,
        base,
        id,
        payload("n6", "your_turn", "Your turn here", base, code),
    )
    .await;
    let list = wait_shown(page, "the hidden table's turn", |l| {
        l.iter().any(|n| n["title"] == "Your turn here")
    })
    .await;
    assert_eq!(list.len(), 3, "it replaced the table's older one: {list:?}");
}
