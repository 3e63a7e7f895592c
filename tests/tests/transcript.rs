//! The transcript in docs/protocol.md ("Transcript of a short match") is a real run, made here: a server in this
//! process (manual clock, a fixed match seed) and two clients playing a short Hide and Eeek! match. Every frame the
//! host's connection sends and receives is written down as it went over the wire; only the join code, the seat
//! token and the match id (fresh random values in every run) are replaced by fixed ones. The run includes a chat
//! message, a connection cut right after an action, and the resumption that follows.
//!
//! The test fails when the documented transcript differs from today's run (the protocol, the server's order of
//! messages or the game changed); `UPDATE_EXAMPLES=1 cargo test -p integration-tests --test transcript` writes
//! today's run into docs/protocol.md.

use std::path::PathBuf;

use futures_util::{SinkExt, StreamExt};
use integration_tests::{Client, LobbySettings, TIMEOUT, TestDb, TestServer, req, test_config};
use protocol::{Request, RequestId};
use serde_json::{Value, json};
use tokio::net::TcpStream;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream, tungstenite::Message};

/// The match seed of the documented run (any seed plays a whole match; this one ends within a few turns).
const SEED: u64 = 7;
/// The host's connection is cut right after its this-many-th action.
const CUT_AFTER: usize = 2;

/// The fixed values that stand in for the run's random ones.
const CODE: &str = "RKPYM3HQ7WXN4CTD";
const TOKEN: &str = "f0aeaa89d41d00144b967015527b5fb1e5dc58e9744aeda21c6a615683ed9335";
const MATCH_ID: &str = "817b39b86140b05df21e4184906c4fa3";

/// One connection of the host, writing down every frame in both directions, in the order they went.
struct Recorder {
    ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
    next_id: u64,
    lines: Vec<String>,
    /// The latest state push.
    state: Option<Value>,
}

impl Recorder {
    async fn connect(server: &TestServer) -> Recorder {
        let (ws, _) =
            tokio_tungstenite::connect_async_with_config(format!("ws://{}/ws", server.addr), None, true)
                .await
                .expect("WebSocket connects");
        Recorder {
            ws,
            next_id: 1,
            lines: Vec::new(),
            state: None,
        }
    }

    async fn send(&mut self, request: Request) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        let text = req::frame(request, RequestId::Number(id));
        self.lines.push(format!("> {text}"));
        self.ws.send(Message::Text(text.into())).await.expect("send");
        id
    }

    async fn receive(&mut self) -> Value {
        loop {
            let frame = tokio::time::timeout(TIMEOUT, self.ws.next())
                .await
                .expect("a frame in time")
                .expect("the connection is open")
                .expect("a readable frame");
            if let Message::Text(text) = frame {
                self.lines.push(format!("< {}", text.as_str()));
                let value: Value = serde_json::from_str(text.as_str()).unwrap();
                if value["type"] == "state" {
                    self.state = Some(value.clone());
                }
                return value;
            }
        }
    }

    /// Reads frames until one of each kind in `kinds` (a reply's or a push's `type`) has come; returns them in
    /// the order of `kinds`.
    async fn expect(&mut self, kinds: &[&str]) -> Vec<Value> {
        let mut got: Vec<Option<Value>> = vec![None; kinds.len()];
        while got.iter().any(Option::is_none) {
            let frame = self.receive().await;
            let kind = frame["type"].as_str().unwrap();
            let slot = kinds
                .iter()
                .zip(&got)
                .position(|(k, g)| *k == kind && g.is_none())
                .unwrap_or_else(|| panic!("unexpected frame, waiting for {kinds:?}: {frame}"));
            got[slot] = Some(frame);
        }
        got.into_iter().map(Option::unwrap).collect()
    }

    /// Reads what an action brings: its `accepted` reply if it was the host's, the new state, and the `lobby`
    /// push (`finished`) of an action that ends the match.
    async fn after_change(&mut self, reply: bool) {
        let (mut accepted, mut state, mut lobby) = (!reply, None, false);
        while !accepted || state.is_none() {
            let frame = self.receive().await;
            match frame["type"].as_str().unwrap() {
                "accepted" if !accepted => accepted = true,
                "state" if state.is_none() => state = Some(frame),
                "lobby" if !lobby => lobby = true,
                _ => panic!("unexpected frame after an action: {frame}"),
            }
        }
        let over = state.unwrap()["status"]["kind"] == "over";
        if over && !lobby {
            self.expect(&["lobby"]).await;
        }
        assert!(over || !lobby, "a lobby push in the middle of the match");
    }

    fn version(&self) -> u64 {
        self.state.as_ref().map_or(0, |s| s["version"].as_u64().unwrap())
    }
}

/// Plays the documented match and returns the transcript's lines.
async fn run() -> Vec<String> {
    let db = TestDb::new("sqlite").await;
    let mut config = test_config();
    config.match_seed = Some(SEED);
    let server = TestServer::start(&db, config).await;

    let mut host = Recorder::connect(&server).await;
    host.send(req::hello_as(protocol::PROTOCOL_VERSION, Some("transcript 1.0")))
        .await;
    host.expect(&["welcome"]).await;
    host.send(req::create_lobby("hide_and_eeek", 2, "Ann").options(json!({"target": 3})))
        .await;
    let [seated, _] = <[Value; 2]>::try_from(host.expect(&["seated", "lobby"]).await).unwrap();
    let code = seated["code"].as_str().unwrap().to_string();
    let token = seated["seat_token"].as_str().unwrap().to_string();

    let mut guest = Client::hello(server.addr).await;
    let joined = guest.request(req::join(&code, "Bob")).await;
    assert_eq!(joined["type"], "seated", "{joined}");
    host.expect(&["lobby"]).await;

    host.send(req::chat("good luck, have fun")).await;
    host.expect(&["ok", "chat_message"]).await;
    host.send(req::start()).await;
    host.expect(&["ok", "lobby", "state"]).await;

    let mut host_actions = 0;
    let mut cut = false;
    let mut match_id: String;
    loop {
        let state = host.state.clone().unwrap();
        match_id = state["match_id"].as_str().unwrap().to_string();
        // In an Eeek! window (a race) both players pass, the host first, so that no reaction time decides.
        let race = state["status"]["kind"] == "race";
        if state["status"]["kind"] == "over" {
            break;
        }
        let version = host.version();
        let legal = state["legal_actions"].as_array().unwrap().clone();
        if let Some(action) = choose(&legal, race) {
            host_actions += 1;
            host.send(req::action(action, version)).await;
            if host_actions == CUT_AFTER && !cut {
                // The connection is cut before any answer: the server commits the action all the same.
                cut = true;
                drop(host.ws);
                guest.wait_version(version + 1).await;
                // Wait for the server to notice the cut (the guest hears that the host left) so that the new
                // connection's frames do not depend on when it does.
                let mut noticed = guest.lobby.as_ref().is_some_and(|l| !host_connected(l));
                while !noticed {
                    let push = guest.next_push().await.expect("the guest stays connected");
                    noticed = push["type"] == "lobby" && !host_connected(&push);
                }
                let lines = std::mem::take(&mut host.lines);
                host = Recorder::connect(&server).await;
                host.lines = lines;
                host.send(req::hello_as(protocol::PROTOCOL_VERSION, Some("transcript 1.0")))
                    .await;
                host.expect(&["welcome"]).await;
                host.send(req::resume_from(&code, &token, version)).await;
                host.expect(&["resumed", "lobby", "state", "chat_history"]).await;
                // Then what was played for the seat after the version it sent: its own action, which the
                // server committed although the answer never came.
                let [away] = <[Value; 1]>::try_from(host.expect(&["away"]).await).unwrap();
                assert_eq!(away["actions"][0]["by"], "player", "{away}");
                continue;
            }
            host.after_change(true).await;
        } else {
            // The guest's move, on the same version.
            let seen = guest.wait_version(version).await;
            assert_eq!(seen["version"], version, "the guest sees the host's version");
            let race = seen["status"]["kind"] == "race";
            let action = choose(seen["legal_actions"].as_array().unwrap(), race)
                .expect("the guest may act")
                .clone();
            let answer = guest.request(req::action(&action, version)).await;
            assert_eq!(answer["type"], "accepted", "{answer}");
            host.after_change(false).await;
        }
    }
    assert!(cut, "the match ended before the host's connection was cut");
    let lines = host.lines;
    drop(guest);
    server.stop().await;
    db.drop_db().await;
    lines
        .into_iter()
        .map(|line| {
            line.replace(&code, CODE)
                .replace(&token, TOKEN)
                .replace(&match_id, MATCH_ID)
        })
        .collect()
}

/// The action a player takes: the first listed, or in an Eeek! window, `pass`.
fn choose(legal: &[Value], race: bool) -> Option<&Value> {
    if race {
        legal.iter().find(|a| a["type"] == "pass")
    } else {
        legal.first()
    }
}

fn host_connected(lobby: &Value) -> bool {
    lobby["seats"]
        .as_array()
        .unwrap()
        .iter()
        .any(|s| s["seat"] == 0 && s["occupant"]["connected"] == true)
}

fn protocol_md() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../docs/protocol.md")
}

/// The documented transcript: the text block of its section, and where it is in the page.
fn documented(doc: &str) -> (usize, usize) {
    let section = doc
        .find("## Transcript of a short match")
        .expect("docs/protocol.md has a transcript section");
    let start = section
        + doc[section..]
            .find("```text\n")
            .expect("the transcript is a text block")
        + "```text\n".len();
    let end = start + doc[start..].find("```").expect("the block ends");
    (start, end)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_documented_transcript_is_todays_run() {
    let lines = run().await;
    let text = lines.join("\n") + "\n";
    // What the documentation says of the run holds: a chat message, a cut after an action, the resumption with
    // the missed events and the chat history, and an end with the outcome.
    let find = |needle: &str| {
        lines
            .iter()
            .position(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("the run has no {needle}"))
    };
    let resumed = find(r#""type":"resumed""#);
    assert!(find(r#""type":"chat_message""#) < resumed);
    assert!(
        lines[resumed + 1..]
            .iter()
            .take(3)
            .any(|l| l.contains(r#""type":"chat_history""#))
    );
    assert!(lines.last().unwrap().contains(r#""kind":"over""#));

    let path = protocol_md();
    let doc = std::fs::read_to_string(&path).unwrap();
    let (start, end) = documented(&doc);
    if doc[start..end] == text {
        return;
    }
    if std::env::var_os("UPDATE_EXAMPLES").is_some() {
        let updated = format!("{}{}{}", &doc[..start], text, &doc[end..]);
        std::fs::write(&path, updated).unwrap();
        return;
    }
    let committed: Vec<&str> = doc[start..end].lines().collect();
    let first_difference = committed
        .iter()
        .zip(&lines)
        .position(|(a, b)| a != b)
        .unwrap_or(committed.len().min(lines.len()));
    panic!(
        "the transcript in docs/protocol.md is not today's run (first difference at line {}):\n--- documented\n{}\n\
         +++ today\n{}\nif the change is intended, rewrite it with\n    \
         UPDATE_EXAMPLES=1 cargo test -p integration-tests --test transcript\n",
        first_difference + 1,
        committed.get(first_difference).unwrap_or(&"(nothing)"),
        lines.get(first_difference).map_or("(nothing)", String::as_str),
    );
}
