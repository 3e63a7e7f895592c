//! The examples under `docs/schema/examples/` of every request, and of every reply and push that is not a match
//! state, are frames of a real run made here: a server in this process (manual clock, a fixed match seed, an admin
//! token) and a few clients going through a lobby's life, a match with a stand-in, an administrator's abort and a
//! rematch. Each example is the frame as it went over the wire, sent or received, pretty-printed. The run's
//! random values (join codes, seat tokens, match ids) are replaced by fixed ones in one place, [`Fixed`]; every
//! other value (times from the manual clock, names, ids of requests) is the run's own.
//!
//! The state pushes, the `action` request and its `accepted` and `error` replies come from matches the engines
//! play in `protocol/tests/snapshots.rs`, which also validates every committed example against the published
//! schemas (the message schemas and each game's own).
//!
//! The test fails when a committed example differs from today's run; `UPDATE_EXAMPLES=1 cargo test -p
//! integration-tests --test examples` writes today's run.

use std::{collections::BTreeMap, path::PathBuf};

use integration_tests::*;
use protocol::{AbsenceKind, AbsencePolicy, Request, RequestId};
use serde_json::{Value, json};

const ADMIN_TOKEN: &str = "admin-token-for-examples-0123456789";
const SEED: u64 = 11;

/// The examples this run writes (the others are the engine-made ones of `protocol/tests/snapshots.rs`, which
/// reads this list too).
fn captured() -> Vec<&'static str> {
    include_str!("../../protocol/tests/captured_examples.txt")
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect()
}

/// The examples `protocol/tests/snapshots.rs` makes from engine runs.
const ENGINE_MADE: &[&str] = &[
    "request.action",
    "reply.accepted",
    "reply.error",
    "push.state",
    "push.state_turn",
    "push.state_simultaneous",
    "push.state_over_spectator",
    "push.notify_changed",
];

/// The fixed values that stand in for the run's random ones, in the order the kept examples show them: the first
/// join code is `RKPYM3HQ7WXN4CTD`, the second `W7QZK2BVJ8MF5SEA`, the third `C4TN8XHQ2MDP6RVB`; seat tokens, match ids and watch tokens are
/// numbered alike.
#[derive(Default)]
struct Fixed {
    replacements: Vec<(String, String)>,
}

impl Fixed {
    const CODES: &[&str] = &["RKPYM3HQ7WXN4CTD", "W7QZK2BVJ8MF5SEA", "C4TN8XHQ2MDP6RVB"];
    const WATCH_TOKENS: &[&str] = &["5c0f3a9e71d24b86a0e39f4d2b7c6e18"];
    const TOKENS: &[&str] = &[
        "f0aeaa89d41d00144b967015527b5fb1e5dc58e9744aeda21c6a615683ed9335",
        "9c1e6f0b2a7d4e38c5b1a0f9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9",
        "3b7d19e5a2c84f60d1e9b3a7c5f2e8d4b6a0c9f1e3d5b7a9c2e4f6a8b0d1c3e5",
    ];
    const MATCH_IDS: &[&str] = &[
        "817b39b86140b05df21e4184906c4fa3",
        "5d2a9c41e7b04f16a3c8e02b9d7f5a61",
        "a93e07c2d15b48f6e0b7c3a9d2f18e54",
    ];

    fn note(&mut self, real: &str, table: &[&str]) {
        if self.replacements.iter().any(|(r, _)| r == real) {
            return;
        }
        let taken = self
            .replacements
            .iter()
            .filter(|(_, f)| table.contains(&f.as_str()))
            .count();
        let fixed = table.get(taken).expect("a fixed value for every random one");
        self.replacements.push((real.to_string(), fixed.to_string()));
    }

    /// Learns the random values a frame carries.
    fn learn(&mut self, frame: &Value) {
        // (An error's or a closing's `code` is an error code, not a join code.)
        let is_join_code =
            |c: &&str| c.len() == 16 && c.bytes().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit());
        for key in ["code", "new_code", "previous"] {
            if let Some(code) = frame[key].as_str().filter(is_join_code) {
                self.note(code, Self::CODES);
            }
        }
        for key in ["seat_token", "token"] {
            if let Some(token) = frame[key].as_str() {
                self.note(token, Self::TOKENS);
            }
        }
        if let Some(id) = frame["match_id"].as_str() {
            self.note(id, Self::MATCH_IDS);
        }
        if let Some(watch) = frame["watch"].as_str() {
            self.note(watch, Self::WATCH_TOKENS);
        }
    }

    fn apply(&self, frame: &Value) -> Value {
        let mut text = frame.to_string();
        for (real, fixed) in &self.replacements {
            text = text.replace(real.as_str(), fixed);
        }
        serde_json::from_str(&text).unwrap()
    }
}

/// The run: clients with one request-id counter between them (so every `re` in the examples answers the id of
/// the request it follows), and the frames kept as examples.
struct Run {
    server: TestServer,
    next_id: u64,
    fixed: Fixed,
    examples: BTreeMap<String, Value>,
}

impl Run {
    fn keep(&mut self, name: &str, frame: &Value) {
        assert!(
            captured().contains(&name),
            "{name} is not listed in protocol/tests/captured_examples.txt"
        );
        assert!(!self.examples.contains_key(name), "{name} is kept twice");
        self.fixed.learn(frame);
        self.examples.insert(name.to_string(), frame.clone());
    }

    /// Sends `request` from `client` and returns its reply; with `name`, keeps the request as
    /// `request.<type>` and the reply as `reply.<name>`.
    async fn ask(&mut self, client: &mut Client, request: Request, name: Option<&str>) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        let kind = request.kind();
        let text = req::frame(request, RequestId::Number(id));
        client.send_text(text.clone()).await;
        let reply = client.reply_to(json!(id)).await;
        assert_ne!(reply["type"], "error", "{text}: {reply}");
        let sent: Value = serde_json::from_str(&text).unwrap();
        if let Some(name) = name {
            self.keep(&format!("request.{kind}"), &sent);
            if !name.is_empty() {
                self.keep(&format!("reply.{name}"), &reply);
            }
        }
        reply
    }

    async fn connect(&mut self) -> Client {
        let mut client = Client::connect(self.server.addr).await;
        self.ask(&mut client, req::hello(), None).await;
        client
    }

    /// Waits for a push of `kind` satisfying `pred` on `client`, and keeps it as `push.<name>`.
    async fn push(
        &mut self,
        client: &mut Client,
        name: &str,
        kind: &str,
        pred: impl Fn(&Value) -> bool,
    ) -> Value {
        let push = client.wait_push(kind, pred).await;
        self.keep(&format!("push.{name}"), &push);
        push
    }
}

/// Waits until the match's log has not grown for 300 ms: the table has played what is due at the clock's time.
async fn settle(addr: std::net::SocketAddr, match_id: &str) {
    let length = || async {
        let (status, _, body) = http_request(
            addr,
            "GET",
            &format!("/api/admin/matches/{match_id}/log"),
            &[("Authorization", &format!("Bearer {ADMIN_TOKEN}"))],
            None,
        )
        .await;
        assert_eq!(status, 200, "{body}");
        body.len()
    };
    let mut last = length().await;
    loop {
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        let now = length().await;
        if now == last {
            return;
        }
        last = now;
    }
}

fn seat(lobby: &Value, seat: usize) -> &Value {
    &lobby["seats"][seat]["occupant"]
}

async fn run() -> BTreeMap<String, Value> {
    let db = TestDb::new("sqlite").await;
    let mut config = test_config();
    config.match_seed = Some(SEED);
    config.admin_token = Some(server::admin::AdminToken::parse(ADMIN_TOKEN).unwrap());
    let server = TestServer::start(&db, config).await;
    let mut run = Run {
        server,
        next_id: 1,
        fixed: Fixed::default(),
        examples: BTreeMap::new(),
    };

    // Ann says hello and creates a lobby with every setting given.
    let mut ann = Client::connect(run.server.addr).await;
    run.ask(
        &mut ann,
        req::hello_as(protocol::PROTOCOL_VERSION, Some("example-client 1.0")),
        Some("welcome"),
    )
    .await;
    let created = req::create_lobby("hide_and_eeek", 3, "Ann")
        .options(json!({"target": 4}))
        .turn_timer_ms(30_000)
        .absent(req::wait())
        .rules_version(1);
    let seated = run.ask(&mut ann, created, Some("seated")).await;
    let code = seated["code"].as_str().unwrap().to_string();

    // The host makes it a four-seat lobby to five cards with a minute's turn timer, where bots stand in, playing
    // by the newest rules.
    let configured = req::configure_lobby(json!({"target": 5}), 4)
        .turn_timer_ms(60_000)
        .absent(AbsencePolicy {
            policy: AbsenceKind::Bot,
            grace_ms: 30_000,
        })
        .rules_version(2);
    run.ask(&mut ann, configured, Some("")).await;
    run.ask(&mut ann, req::add_bot_at(1), Some("")).await;
    run.ask(&mut ann, req::add_bot_at(2), None).await;

    // Bob joins (seat 3), Cy joins the seat the host frees and is removed in turn.
    let mut bob = run.connect().await;
    let joined = run.ask(&mut bob, req::join(&code, "Bob"), Some("")).await;
    assert_eq!(joined["seat"], 3, "{joined}");
    let bob_token = joined["seat_token"].as_str().unwrap().to_string();
    run.ask(&mut ann, req::remove_player(2), None).await;
    let mut cy = run.connect().await;
    run.ask(&mut cy, req::join(&code, "Cy"), None).await;
    run.ask(&mut ann, req::remove_player(2), Some("")).await;
    run.push(&mut cy, "closing_removed", "closing", |_| true).await;

    // The host hands the role to Bob and Bob hands it back.
    run.ask(&mut ann, req::make_host(3), Some("")).await;
    run.ask(&mut bob, req::make_host(0), None).await;

    // A spectator who stays and one who leaves; the lobby is listed; Ann pings and chats.
    let mut dee = run.connect().await;
    run.ask(&mut dee, req::spectate(&code), Some("spectating")).await;
    let mut eve = run.connect().await;
    run.ask(&mut eve, req::spectate(&code), None).await;
    run.ask(&mut eve, req::leave(), Some("ok")).await;
    run.ask(&mut ann, req::set_listed(true), Some("")).await;
    let id = run.next_id;
    run.next_id += 1;
    let ping = req::frame(req::ping(), RequestId::Text(format!("ping-{id}")));
    ann.send_text(ping.clone()).await;
    let pong = ann.reply_to(json!(format!("ping-{id}"))).await;
    run.keep("request.ping", &serde_json::from_str(&ping).unwrap());
    run.keep("reply.pong", &pong);
    run.ask(&mut ann, req::chat("<b>not bold</b>, just text"), Some(""))
        .await;
    run.push(&mut bob, "chat_message", "chat_message", |_| true).await;

    // Bob's page goes to the background: the lobby shows him idle.
    run.ask(&mut bob, req::presence(true), Some("")).await;
    run.push(&mut ann, "lobby", "lobby", |l| {
        seat(l, 3)["presence"] == "idle" && l["spectators"] == 1 && l["listed"] == true
    })
    .await;

    // Something that is not JSON is answered without an id.
    ann.send_text("hello?".to_string()).await;
    let refused = ann.reply_to(Value::Null).await;
    assert_eq!(refused["code"], "bad_message", "{refused}");
    run.keep("reply.error_without_id", &refused);

    // The match starts; Bob resumes his seat from a second connection, which closes the first.
    run.ask(&mut ann, req::add_bot_at(2), None).await;
    run.ask(&mut ann, req::start(), Some("")).await;
    let first = ann.wait_push("state", |_| true).await;
    let version = first["version"].as_u64().unwrap();
    let mut bob2 = run.connect().await;
    run.ask(
        &mut bob2,
        req::resume_from(&code, &bob_token, version),
        Some("resumed"),
    )
    .await;
    run.push(&mut bob2, "chat_history", "chat_history", |_| true)
        .await;
    run.push(&mut bob, "closing", "closing", |_| true).await;
    drop(bob);

    // Bob's connection drops; after the grace period a bot plays for him.
    drop(bob2);
    ann.wait_push("lobby", |l| seat(l, 3)["connected"] == false).await;
    run.server.clock.advance(30_000);
    run.push(&mut ann, "lobby_stand_in", "lobby", |l| {
        seat(l, 3)["stand_in"] == true
    })
    .await;
    // Whatever is due now is played before the clock moves on (so that every run plays it at the same time);
    // then Ann's turn timer runs out: it plays for her, the bots play, and the stand-in plays Bob's part.
    let match_id = first["match_id"].as_str().unwrap().to_string();
    settle(run.server.addr, &match_id).await;
    run.server.clock.advance(60_000);
    ann.wait_push("state", |s| {
        s["events"].as_array().unwrap().iter().any(|e| e["seat"] == 3)
    })
    .await;
    settle(run.server.addr, &match_id).await;

    // An administrator aborts the match.
    let (status, _, body) = http_request(
        run.server.addr,
        "POST",
        &format!("/api/admin/matches/{match_id}/abort"),
        &[("Authorization", &format!("Bearer {ADMIN_TOKEN}"))],
        Some(&json!({"by": "carol", "reason": "server maintenance"}).to_string()),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    run.push(&mut ann, "aborted", "aborted", |_| true).await;
    run.push(&mut ann, "lobby_finished", "lobby", |l| l["phase"] == "finished")
        .await;

    // Bob comes back from the version he last saw and is told what the stand-in played for him; he asks for the
    // replay link; Ann asks for a rematch and Bob accepts: both are seated in the new lobby.
    let mut bob = run.connect().await;
    run.ask(&mut bob, req::resume_from(&code, &bob_token, version), None)
        .await;
    let away = run.push(&mut bob, "away", "away", |_| true).await;
    assert!(
        away["actions"]
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a["by"] == "stand_in"),
        "{away}"
    );
    run.ask(&mut bob, req::watch_link(), Some("watch_link")).await;
    // His page lists his tables: this one, and one whose code it mistyped.
    let tables = [
        (code.as_str(), bob_token.as_str()),
        ("ABCD-EFGH-JKMN-PQRS", bob_token.as_str()),
    ];
    run.ask(&mut bob, req::my_tables(&tables), Some("my_tables"))
        .await;
    // He asks to be told by email when it is his turn, looks at his endpoints, and takes the address back.
    let subscribe = Request::NotifySubscribe {
        target: protocol::NotifyTarget::Email {
            address: "bob@example.org".into(),
        },
        language: protocol::NotifyLanguage::En,
    };
    let endpoints = run.ask(&mut bob, subscribe, Some("notify_endpoints")).await;
    run.ask(&mut bob, Request::NotifyList {}, Some("")).await;
    let endpoint = endpoints["endpoints"][0]["id"].as_u64().unwrap();
    run.ask(&mut bob, Request::NotifyUnsubscribe { endpoint }, Some(""))
        .await;
    run.ask(&mut ann, req::rematch(true), None).await;
    run.push(&mut bob, "rematch", "rematch", |_| true).await;
    run.ask(&mut bob, req::rematch(true), Some("")).await;
    run.push(&mut bob, "rematched", "rematched", |_| true).await;
    ann.wait_push("rematched", |_| true).await;

    // Fay plays a bot by correspondence: an hour a move, up to a day, the bot moving for a seat out of time; she
    // pauses her clock for two days, and comes back early.
    let mut fay = run.connect().await;
    let corr = req::create_lobby("hickory_dickory", 2, "Fay").pace(req::correspondence(
        3_600_000,
        86_400_000,
        protocol::StallPolicy::Bot,
    ));
    run.ask(&mut fay, corr, None).await;
    run.ask(&mut fay, req::add_bot(), None).await;
    run.ask(&mut fay, req::start(), None).await;
    let first = fay.wait_push("state", |_| true).await;
    settle(run.server.addr, first["match_id"].as_str().unwrap()).await;
    run.ask(&mut fay, req::vacation(2), Some("")).await;
    run.push(&mut fay, "state_correspondence", "state", |s| {
        s["clocks"][0]["vacation_until"].is_number()
    })
    .await;
    run.ask(&mut fay, req::end_vacation(), Some("")).await;

    let Run {
        server,
        fixed,
        examples,
        ..
    } = run;
    drop((ann, bob, dee, eve, cy, fay));
    server.stop().await;
    db.drop_db().await;
    examples
        .into_iter()
        .map(|(name, frame)| {
            let frame = fixed.apply(&frame);
            (name, frame)
        })
        .collect()
}

fn examples_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../docs/schema/examples")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_examples_are_frames_of_a_real_run() {
    let examples = run().await;
    let names: Vec<&str> = examples.keys().map(String::as_str).collect();
    let mut listed = captured();
    listed.sort_unstable();
    assert_eq!(
        names, listed,
        "the run keeps every example of captured_examples.txt"
    );

    let updating = std::env::var_os("UPDATE_EXAMPLES").is_some();
    let mut differ = Vec::new();
    for (name, frame) in &examples {
        // Every frame reads as the protocol's message of its direction.
        if name.starts_with("request.") {
            protocol::parse_client_message(&frame.to_string()).unwrap_or_else(|e| panic!("{name}: {e:?}"));
        } else {
            serde_json::from_value::<protocol::ServerMessage>(frame.clone())
                .unwrap_or_else(|e| panic!("{name}: {e}"));
        }
        let path = examples_dir().join(format!("{name}.json"));
        let text = serde_json::to_string_pretty(frame).unwrap() + "\n";
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        if committed == text {
            continue;
        }
        if updating {
            std::fs::write(&path, text).unwrap();
        } else {
            differ.push(format!(
                "{name}.json:\n--- committed\n{committed}+++ today\n{text}"
            ));
        }
    }
    assert!(
        differ.is_empty(),
        "these examples are not today's run (if the change is intended, rewrite them with\n    \
         UPDATE_EXAMPLES=1 cargo test -p integration-tests --test examples\n):\n{}",
        differ.join("\n")
    );

    // Nothing else lies in the directory: every file is this run's or an engine-made one.
    for entry in std::fs::read_dir(examples_dir()).unwrap().flatten() {
        let file = entry.file_name().to_string_lossy().into_owned();
        let name = file.trim_end_matches(".json");
        assert!(
            captured().contains(&name) || ENGINE_MADE.contains(&name),
            "docs/schema/examples/{file} is made by no test"
        );
    }
}
