//! The corpus of malformed and hostile client frames (`tests/corpus/malformed.json`) against a real server over
//! real WebSockets. For every entry: the exact reply (error code, or reply type where the frame is legitimate);
//! the connection stays usable (a ping afterwards gets its pong) unless the entry says the server closes it, in
//! which case it must say why first; and the match is unchanged (same version and same view for a fresh
//! spectator, except for the actions the entry expects to be accepted). After the whole corpus the server is
//! restarted on the same database: every acknowledged action is still there.
//!
//! Setups (`setup` of an entry), each built fresh for the entry on one server:
//! - `connected`: a WebSocket without `hello`; `greeted`: after `hello`;
//! - `host_open_lobby`: the host of a new two-seat lobby with a free seat (`$CODE` is that lobby);
//! - `seat_to_move` / `seat_waiting`: a seat of a running two-player match (resumed on a new connection) that has /
//!   has not legal actions, at a state where exactly one seat may act and no deadline is pending;
//! - `spectator`: a spectator of that match; `seat_after_end`: seat 0 of a finished match.
//!
//! Placeholders (a JSON string equal to one of these is replaced): `$CODE` (the running match, or the setup's
//! lobby), `$FINISHED_CODE`, `$PEER_TOKEN` (the other seat's token), `$PEER_TOKEN_UPPER` (it in upper case),
//! `$FOREIGN_TOKEN` (a token of the finished match), `$MOVER_ACTION` (a legal action of the seat to move),
//! `$MOVER_TYPE` (its `type`), `$VERSION`, `$VERSION_OLD` (one less), `$VERSION_STRING` (as a string).
//! A JSON frame without an `id` gets one; the reply must echo it.

use integration_tests::*;
use serde_json::{Value, json};

const GAME: &str = "hide_and_eeek";

/// A two-player match between two human seats.
struct Table {
    code: String,
    tokens: Vec<String>,
    /// The watch token (`watch_link`): a finished private lobby is watched only with it.
    watch: String,
}

async fn new_table(addr: std::net::SocketAddr) -> Table {
    let (code, mut players) = start_match(addr, GAME, json!({}), 2, 2).await;
    let link = players[0].client.request(req::watch_link()).await;
    Table {
        code,
        tokens: players.into_iter().map(|p| p.token).collect(),
        watch: link["watch"].as_str().expect("a watch token").to_string(),
    }
}

/// Takes `seat` back on a new connection; returns the client with its first state read.
async fn resume(addr: std::net::SocketAddr, table: &Table, seat: usize) -> Client {
    let mut c = Client::hello(addr).await;
    let r = c.request(req::resume(&table.code, &table.tokens[seat])).await;
    assert_eq!(r["type"], "resumed", "{r}");
    c.wait_push("state", |_| true).await;
    c
}

/// What a fresh spectator sees: the version and the public view.
async fn public_state(addr: std::net::SocketAddr, table: &Table) -> (u64, Value) {
    let mut c = Client::hello(addr).await;
    let r = c.request(req::spectate_with(&table.code, &table.watch)).await;
    assert_eq!(r["type"], "spectating", "{r}");
    let s = c.wait_push("state", |_| true).await;
    (s["version"].as_u64().unwrap(), s["view"].clone())
}

fn legal(c: &Client) -> Vec<Value> {
    c.state.as_ref().unwrap()["legal_actions"]
        .as_array()
        .unwrap()
        .clone()
}

/// Both seats of `table` on new connections, moved on (with listed actions, and the clock for deadlines) to a
/// state where exactly one seat may act and nothing is due. Returns (seat to move, waiting seat, version).
async fn seats_at_a_turn(server: &TestServer, table: &Table) -> (Client, Client, u64) {
    let mut a = resume(server.addr, table, 0).await;
    let mut b = resume(server.addr, table, 1).await;
    for _ in 0..200 {
        let version = a.state.as_ref().unwrap()["version"].as_u64().unwrap();
        let v = b.wait_version(version).await["version"].as_u64().unwrap();
        let v = a.wait_version(v).await["version"].as_u64().unwrap();
        let state = a.state.clone().unwrap();
        assert_ne!(
            state["status"]["kind"], "over",
            "the match ended before the corpus was through"
        );
        let (la, lb) = (legal(&a), legal(&b));
        if v >= 1 && state["deadline"].is_null() && (la.is_empty() != lb.is_empty()) {
            return if la.is_empty() { (b, a, v) } else { (a, b, v) };
        }
        let mover = if !la.is_empty() {
            Some((&mut a, la[0].clone()))
        } else if !lb.is_empty() {
            Some((&mut b, lb[0].clone()))
        } else {
            None
        };
        match mover {
            Some((c, action)) => {
                let r = c.request(req::action(&action, v)).await;
                assert_eq!(r["type"], "accepted", "{r}");
            }
            None => {
                let at = state["deadline"]
                    .as_u64()
                    .expect("nobody can act: a deadline is pending");
                server.clock.set(at);
            }
        }
        a.wait_version(v + 1).await;
        b.wait_version(v + 1).await;
    }
    panic!("no state with exactly one seat to move within 200 actions");
}

struct Fixture {
    running: Table,
    finished: Table,
}

struct Context {
    code: String,
    peer_token: String,
    mover_action: Value,
    version: u64,
}

fn substitute(value: &mut Value, fx: &Fixture, cx: &Context) {
    match value {
        Value::String(s) => {
            let replacement = match s.as_str() {
                "$CODE" => json!(cx.code),
                "$FINISHED_CODE" => json!(fx.finished.code),
                "$PEER_TOKEN" => json!(cx.peer_token),
                "$PEER_TOKEN_UPPER" => json!(cx.peer_token.to_uppercase()),
                "$FOREIGN_TOKEN" => json!(fx.finished.tokens[1]),
                "$MOVER_ACTION" => cx.mover_action.clone(),
                "$MOVER_TYPE" => cx.mover_action["type"].clone(),
                "$VERSION" => json!(cx.version),
                "$VERSION_OLD" => json!(cx.version.saturating_sub(1)),
                "$VERSION_STRING" => json!(cx.version.to_string()),
                other => {
                    assert!(!other.starts_with('$'), "unknown placeholder {other}");
                    return;
                }
            };
            *value = replacement;
        }
        Value::Array(items) => items.iter_mut().for_each(|v| substitute(v, fx, cx)),
        Value::Object(map) => map.values_mut().for_each(|v| substitute(v, fx, cx)),
        _ => {}
    }
}

fn repeat_text(spec: &Value) -> String {
    let s = |k: &str| spec[k].as_str().unwrap().to_string();
    if spec.get("unit").is_some() {
        let count = spec["count"].as_u64().unwrap() as usize;
        format!("{}{}{}", s("prefix"), s("unit").repeat(count), s("suffix"))
    } else {
        let depth = spec["depth"].as_u64().unwrap() as usize;
        format!(
            "{}{}{}{}{}",
            s("prefix"),
            s("open").repeat(depth),
            s("inner"),
            s("close").repeat(depth),
            s("suffix")
        )
    }
}

/// The reply or push as the corpus names it: the error code, or the reply type.
fn outcome_name(m: &Value) -> String {
    match m["type"].as_str() {
        Some("error") | Some("closing") => m["code"].as_str().unwrap_or("?").to_string(),
        Some(t) => t.to_string(),
        None => "?".into(),
    }
}

/// Runs one corpus entry; returns a description of every way it failed.
async fn run_case(server: &TestServer, fx: &Fixture, case: &Value, next_id: &mut u64) -> Vec<String> {
    let addr = server.addr;
    let name = case["name"].as_str().unwrap();
    let mut failures = Vec::new();
    let running_before = public_state(addr, &fx.running).await;

    // The setup: the connection to send from, and the values its placeholders stand for.
    let mut cx = Context {
        code: fx.running.code.clone(),
        peer_token: fx.running.tokens[1].clone(),
        mover_action: json!({"type": "pass"}),
        version: running_before.0,
    };
    let mut kept = Vec::new();
    let setup = case["setup"].as_str().unwrap();
    let mut client = match setup {
        "connected" => Client::connect(addr).await,
        "greeted" => Client::hello(addr).await,
        "host_open_lobby" => {
            let mut c = Client::hello(addr).await;
            let r = c.request(req::create_lobby(GAME, 2, "Host")).await;
            assert_eq!(r["type"], "seated", "{r}");
            cx.code = r["code"].as_str().unwrap().to_string();
            c
        }
        "seat_to_move" | "seat_waiting" | "spectator" => {
            let (mover, waiting, version) = seats_at_a_turn(server, &fx.running).await;
            cx.version = version;
            cx.mover_action = legal(&mover)[0].clone();
            let mover_seat = mover.state.as_ref().unwrap()["seat"].as_u64().unwrap() as usize;
            cx.peer_token = fx.running.tokens[1 - mover_seat].clone();
            match setup {
                "seat_to_move" => {
                    kept.push(waiting);
                    mover
                }
                "seat_waiting" => {
                    cx.peer_token = fx.running.tokens[mover_seat].clone();
                    kept.push(mover);
                    waiting
                }
                _ => {
                    kept.push(mover);
                    kept.push(waiting);
                    let mut c = Client::hello(addr).await;
                    let r = c.request(req::spectate(&cx.code)).await;
                    assert_eq!(r["type"], "spectating", "{r}");
                    c.wait_push("state", |_| true).await;
                    c
                }
            }
        }
        "seat_after_end" => {
            cx.code = fx.finished.code.clone();
            resume(addr, &fx.finished, 0).await
        }
        other => panic!("{name}: unknown setup {other}"),
    };
    let before = public_state(addr, &fx.running).await;
    let finished_before = public_state(addr, &fx.finished).await;

    let closes = case["closes"].as_bool().unwrap_or(false);
    let mut accepted = 0;
    let mut closed = false;
    for frame in case["frames"].as_array().unwrap() {
        let expect = frame["expect"].as_str().unwrap();
        let re = if let Some(body) = frame.get("json") {
            let mut body = body.clone();
            substitute(&mut body, fx, &cx);
            if body.is_object() && body.get("id").is_none() {
                *next_id += 1;
                body["id"] = json!(*next_id);
            }
            client.send_text(body.to_string()).await;
            body["id"].clone()
        } else {
            if let Some(text) = frame.get("text") {
                client.send_text(text.as_str().unwrap().to_string()).await;
            } else if let Some(spec) = frame.get("text_repeat").or(frame.get("text_nested")) {
                // Sending may fail when the server closes before it has read the whole frame.
                client.try_send_text(repeat_text(spec)).await;
            } else if let Some(bytes) = frame.get("binary") {
                client.send_binary(bytes_of(bytes)).await;
            } else if let Some(bytes) = frame.get("invalid_utf8") {
                client.send_raw_text(bytes_of(bytes)).await;
            } else {
                panic!("{name}: a frame without content {frame}");
            }
            frame["re"].clone()
        };
        if closes {
            // The server must say why (a reply or a `closing` push with the code), then close.
            let mut said = None;
            while let Some(m) = client.read().await {
                if m["type"] == "error" || m["type"] == "closing" {
                    said = Some(m);
                }
            }
            // An entry may allow the client to see only the reset (a frame refused while it is still written).
            let reset_allowed = case["reset_allowed"].as_bool().unwrap_or(false);
            match said {
                Some(m) if outcome_name(&m) == expect => {}
                None if reset_allowed && client.close_status.is_none() => {
                    closed = true;
                    break;
                }
                other => failures.push(format!(
                    "{name}: expected {expect} before the close, got {other:?}"
                )),
            }
            // Then a close frame whose status follows the code.
            let status = match expect {
                "too_large" => Some(1009),
                "bad_message" => Some(1003),
                _ => None,
            };
            if status.is_some() && client.close_status != Some(status) {
                failures.push(format!(
                    "{name}: expected close status {status:?}, got {:?}",
                    client.close_status
                ));
            }
            closed = true;
            break;
        }
        let reply = loop {
            let m = client.read().await.expect("the connection stays open");
            if m.get("re").is_some() {
                break m;
            }
        };
        if reply["re"] != re {
            failures.push(format!("{name}: the reply should echo {re}: {reply}"));
        }
        let got = outcome_name(&reply);
        if got != expect {
            failures.push(format!("{name}: expected {expect}, got {reply}"));
        }
        if reply["type"] == "error" && reply["message"].as_str().is_none_or(str::is_empty) {
            failures.push(format!("{name}: an error without a message: {reply}"));
        }
        // In words for a person: none of Rust's type names that serde's messages carry.
        if let Some(word) = reply["message"].as_str().and_then(rust_word_in) {
            failures.push(format!("{name}: the message says {word}: {reply}"));
        }
        if reply["type"] == "accepted" {
            accepted += 1;
        }
    }
    if !closed {
        let pong = client.request(req::ping()).await;
        if pong["type"] != "pong" {
            failures.push(format!("{name}: the connection is not usable afterwards: {pong}"));
        }
    }

    let after = public_state(addr, &fx.running).await;
    if after.0 != before.0 + accepted {
        failures.push(format!(
            "{name}: the match moved from version {} to {} with {accepted} accepted",
            before.0, after.0
        ));
    } else if accepted == 0 && after.1 != before.1 {
        failures.push(format!("{name}: the view changed without an accepted action"));
    }
    if public_state(addr, &fx.finished).await != finished_before {
        failures.push(format!("{name}: the finished match changed"));
    }
    drop(kept);
    failures
}

fn bytes_of(v: &Value) -> Vec<u8> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|b| b.as_u64().unwrap() as u8)
        .collect()
}

fn corpus() -> Vec<Value> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/corpus/malformed.json");
    let text = std::fs::read_to_string(path).unwrap();
    let corpus: Value = serde_json::from_str(&text).unwrap();
    corpus["cases"].as_array().unwrap().clone()
}

#[test]
fn the_corpus_covers_the_issue_list() {
    let names: Vec<String> = corpus()
        .iter()
        .map(|c| c["name"].as_str().unwrap().to_lowercase())
        .collect();
    for topic in [
        "bad json",
        "wrong type",
        "overflow",
        "1e400",
        "negative seats",
        "10000 nested arrays",
        "unknown message type",
        "unknown game",
        "option",
        "another lobby",
        "made-up token",
        "spectator sends an action",
        "before the start",
        "after the end",
        "another seat's turn",
        "replay",
        "stale version",
        "second hello",
        "before hello",
        "oversized",
        "binary frame",
        "invalid utf-8",
    ] {
        assert!(
            names.iter().any(|n| n.contains(topic)),
            "no corpus entry about {topic}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_malformed_message_gets_its_error_and_changes_nothing() {
    for backend in backends() {
        let db = TestDb::new(backend).await;
        let mut config = test_config();
        // Room for the 10,000-deep nesting entry (about 20 KB); the oversized entries are 70 KB.
        config.max_message_bytes = 64 * 1024;
        let server = TestServer::start(&db, config.clone()).await;

        let finished = new_table(server.addr).await;
        {
            let mut players = Vec::new();
            for seat in 0..2 {
                let c = resume(server.addr, &finished, seat).await;
                players.push(Player {
                    client: c,
                    seat: seat as u8,
                    token: finished.tokens[seat].clone(),
                });
            }
            let played = play(&mut players, &Time::Manual(server.clock.clone()), 11, 5_000).await;
            assert_eq!(played.last_state["status"]["kind"], "over");
        }
        let running = new_table(server.addr).await;
        let fx = Fixture { running, finished };

        let mut failures = Vec::new();
        let mut next_id = 1_000;
        let cases = corpus();
        for case in &cases {
            failures.extend(run_case(&server, &fx, case, &mut next_id).await);
        }
        let (version, view) = public_state(server.addr, &fx.running).await;
        let finished_state = public_state(server.addr, &fx.finished).await;
        let clock = server.clock.clone();
        server.stop().await;

        // Nothing acknowledged was lost: a restarted server has both matches exactly as they were.
        let server = TestServer::start_with_clock(&db, config, clock).await;
        assert_eq!(
            public_state(server.addr, &fx.running).await,
            (version, view),
            "{backend}: the running match after a restart"
        );
        assert_eq!(
            public_state(server.addr, &fx.finished).await,
            finished_state,
            "{backend}: the finished match after a restart"
        );
        server.stop().await;
        db.drop_db().await;
        assert!(
            failures.is_empty(),
            "{backend}: {} of {} corpus entries failed:\n{}",
            failures.len(),
            cases.len(),
            failures.join("\n")
        );
    }
}
