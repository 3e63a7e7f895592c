//! Snapshot tests: the JSON form of every message type, in both directions, is pinned by a committed example
//! under `docs/schema/examples/`. An accidental change of a field name, a tag, an optional field's presence or
//! a number's type fails here or in `tests/tests/examples.rs`; a deliberate one is made by regenerating the
//! examples and following the versioning policy in `docs/protocol.md`.
//!
//! The examples of match states, of the `action` request and of its `accepted` and `error` replies are made here,
//! from matches the engines play from fixed seeds (`UPDATE_SCHEMA=1 cargo test -p protocol --test schema --test
//! snapshots` rewrites them). Every other example is a frame of a real server run, written by
//! `tests/tests/examples.rs` (`UPDATE_EXAMPLES=1 cargo test -p integration-tests --test examples`). The tests
//! below read every committed example, whoever made it: each reads back as the same message, is written back
//! identically (pushes by their generated writer too) and validates against the schemas, the game's included.

use rules::testkit::Parsed;
use std::path::PathBuf;

use protocol::{
    ClientMessage, ErrorBody, NotifyEndpoint, NotifyLanguage, Push, RawJson, Reply, ReplyMessage, Request,
    RequestId, Seat, ServerMessage, StateUpdate, Status,
};
use rules::{Actor, AnyGame, Viewer};
use serde_json::{Value, json};

fn reply(re: RequestId, reply: Reply) -> ServerMessage {
    ServerMessage::Reply(ReplyMessage { re: Some(re), reply })
}

/// The `action` request: seat 0 plays one of its legal actions of `push.state_turn.json` on its version.
fn requests() -> Vec<ClientMessage> {
    let turn = turn_example();
    let with_id = |id, request| ClientMessage {
        id: Some(RequestId::Number(id)),
        request,
    };
    vec![with_id(
        9,
        Request::Action {
            action: RawJson::of(&turn.legal_actions.to_value()[1]),
            version: Some(turn.version),
        },
    )]
}

/// A seat's notification endpoints: its webhook, and an address switched off after failing.
fn endpoints() -> Vec<NotifyEndpoint> {
    vec![
        NotifyEndpoint {
            id: 3,
            channel: "webhook".into(),
            label: "chat.example.org".into(),
            language: NotifyLanguage::Es,
            active: true,
            last_error: None,
        },
        NotifyEndpoint {
            id: 4,
            channel: "email".into(),
            label: "…@example.org".into(),
            language: NotifyLanguage::Es,
            active: false,
            last_error: Some("the SMTP relay refused the address".into()),
        },
    ]
}

/// The replies to the `action` request: accepted, and refused when seat 1 sends it instead.
fn replies() -> Vec<(&'static str, ServerMessage)> {
    let n = RequestId::Number(9);
    vec![
        (
            "accepted",
            reply(
                n.clone(),
                Reply::Accepted {
                    version: turn_example().version + 1,
                },
            ),
        ),
        ("error", reply(n, Reply::Error(out_of_turn_error()))),
    ]
}

/// A real match played by the engine from a fixed seed up to a point, with what the server would push there.
/// Seats take turns to play the first of their legal actions that keeps the run going (a deterministic choice; the
/// clock plays at a deadline when nobody else may act), a second apart.
struct Played {
    game: AnyGame,
    game_id: &'static str,
    version: u64,
    /// The last action's events with their audiences.
    events: Vec<rules::Event<Value>>,
    last_change: u64,
}

/// Seat 0's turn in a two-seat Hide and Eeek! match: the state the `action` and `accepted` examples answer.
fn turn_example() -> StateUpdate {
    turn_played().state(Viewer::Seat(Seat(0)))
}

fn turn_played() -> Played {
    Played::until("hide_and_eeek", json!({"target": 3}), 2, 1, |g| {
        matches!(g.status(), Status::Turn { seat: Seat(0) }) && g.legal_values(Seat(0)).len() > 1
    })
}

/// The refusal the server answers when seat 1 sends the action of the `action` example on seat 0's turn: the
/// engine's own rejection, as the server turns it into an error.
fn out_of_turn_error() -> ErrorBody {
    let mut played = turn_played();
    let action = played.game.legal_values(Seat(0))[1].clone();
    let rejection = played
        .game
        .apply_value(Actor::Seat(Seat(1)), &action, played.last_change + 1000)
        .expect_err("seat 1 may not play on seat 0's turn");
    ErrorBody::new(rejection.kind.into(), rejection.message)
}

/// The turn timer of the example lobby.
const TURN_TIMER_MS: u64 = 60_000;

impl Played {
    fn until(
        game_id: &'static str,
        options: Value,
        players: u8,
        seed: u64,
        done: impl Fn(&AnyGame) -> bool,
    ) -> Played {
        let options = rules::normalise_config(game_id, &options).unwrap();
        let mut game = AnyGame::new(game_id, None, &options, players, seed).unwrap();
        let (mut version, mut events, mut now) = (0, Vec::new(), 1_800_000_000_000u64);
        let mut last_change = now;
        // At least one action, so that the state has events to show.
        while version == 0 || !done(&game) {
            assert!(version < 5000, "{game_id}: the point is never reached");
            assert_ne!(game.status(), Status::Over, "{game_id}: over before the point");
            now += 1000;
            let mover = (0..players)
                .map(|i| Seat((i + (version % u64::from(players)) as u8) % players))
                .find_map(|seat| {
                    let actions = game.legal_values(seat);
                    let pick = actions.len().saturating_sub(1).min(version as usize % 3);
                    actions.get(pick).cloned().map(|a| (Actor::Seat(seat), a))
                });
            let (actor, action) = mover.unwrap_or_else(|| {
                let deadline = game.deadline_value().expect("a deadline when nobody may act");
                now = now.max(deadline.at);
                (Actor::Clock, deadline.action)
            });
            events = game.apply_value(actor, &action, now).unwrap();
            version += 1;
            last_change = now;
        }
        Played {
            game,
            game_id,
            version,
            events,
            last_change,
        }
    }

    /// The `state` push `viewer` gets after the last action (in a lobby with a one-minute turn timer and human
    /// seats).
    fn state(&self, viewer: Viewer) -> StateUpdate {
        let g = &self.game;
        let seat = match viewer {
            Viewer::Seat(s) => Some(s),
            Viewer::Spectator => None,
        };
        let waiting = Seat::all(g.players()).any(|s| !g.legal_values(s).is_empty());
        StateUpdate {
            code: "RKPYM3HQ7WXN4CTD".into(),
            match_id: "817b39b86140b05df21e4184906c4fa3".into(),
            game: self.game_id.into(),
            version: self.version,
            since: self.version - 1,
            seat,
            view: RawJson::of(&g.view_value(viewer)),
            legal_actions: seat.map_or_else(RawJson::empty_array, |s| RawJson::of(&g.legal_values(s))),
            events: self
                .events
                .iter()
                .filter(|e| e.audience.includes(viewer))
                .map(|e| RawJson::of(&e.body))
                .collect(),
            status: g.status(),
            deadline: g.deadline().map(|d| d.at),
            turn_deadline: waiting.then_some(self.last_change + TURN_TIMER_MS),
            outcome: g.outcome(),
            clocks: None,
        }
    }
}

/// The state pushes: each is what the server pushes to its viewer at one point of a real match, played by the
/// engine itself from a fixed seed (see `Played`).
fn pushes() -> Vec<(&'static str, ServerMessage)> {
    let state = Played::until(
        "hide_and_eeek",
        json!({"claim_window_ms": 4000, "target": 5}),
        3,
        2,
        |g| matches!(g.status(), Status::Race { .. }),
    )
    .state(Viewer::Seat(Seat(0)));
    let turn = turn_example();
    let simultaneous = Played::until(
        "molehills",
        Value::Null,
        3,
        3,
        |g| matches!(&g.status(), Status::Simultaneous { seats, secret: true } if seats.len() == 2),
    )
    .state(Viewer::Seat(Seat(1)));
    let over = Played::until("hide_and_eeek", json!({"target": 3}), 3, 4, |g| {
        g.status() == Status::Over
    })
    .state(Viewer::Spectator);
    vec![
        ("state", ServerMessage::Push(Push::State(Box::new(state)))),
        ("state_turn", ServerMessage::Push(Push::State(Box::new(turn)))),
        (
            "state_simultaneous",
            ServerMessage::Push(Push::State(Box::new(simultaneous))),
        ),
        (
            "state_over_spectator",
            ServerMessage::Push(Push::State(Box::new(over))),
        ),
        (
            "notify_changed",
            ServerMessage::Push(Push::NotifyChanged {
                code: "K7QM2X".into(),
                seat: Seat(1),
                endpoints: endpoints(),
            }),
        ),
    ]
}

/// The examples `tests/tests/examples.rs` writes from a real server run (`captured_examples.txt`, which that
/// test reads too).
fn captured() -> impl Iterator<Item = &'static str> {
    include_str!("captured_examples.txt")
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
}

/// The `type` of each reply and push; the exhaustive matches make a new variant fail to compile here until it
/// has a fixture.
fn server_kind(message: &ServerMessage) -> &'static str {
    match message {
        ServerMessage::Reply(r) => match r.reply {
            Reply::Welcome { .. } => "welcome",
            Reply::Seated { .. } => "seated",
            Reply::Resumed { .. } => "resumed",
            Reply::Spectating { .. } => "spectating",
            Reply::WatchLink { .. } => "watch_link",
            Reply::NotifyEndpoints { .. } => "notify_endpoints",
            Reply::Accepted { .. } => "accepted",
            Reply::Ok {} => "ok",
            Reply::Pong {} => "pong",
            Reply::MyTables { .. } => "my_tables",
            Reply::Error(_) => "error",
        },
        ServerMessage::Push(p) => match p {
            Push::Lobby(_) => "lobby",
            Push::State(_) => "state",
            Push::Closing(_) => "closing",
            Push::Aborted { .. } => "aborted",
            Push::ChatMessage { .. } => "chat_message",
            Push::ChatHistory { .. } => "chat_history",
            Push::Rematch(_) => "rematch",
            Push::Rematched { .. } => "rematched",
            Push::Away(_) => "away",
            Push::NotifyChanged { .. } => "notify_changed",
        },
    }
}

const SERVER_KINDS: &[&str] = &[
    "welcome",
    "seated",
    "resumed",
    "spectating",
    "watch_link",
    "accepted",
    "ok",
    "pong",
    "my_tables",
    "error",
    "lobby",
    "state",
    "closing",
    "aborted",
    "chat_message",
    "chat_history",
    "rematch",
    "rematched",
    "away",
    "notify_endpoints",
    "notify_changed",
];

fn examples() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../docs/schema/examples")
}

fn compare(name: &str, value: &Value, mismatches: &mut Vec<String>) {
    let path = examples().join(format!("{name}.json"));
    let mut text = serde_json::to_string_pretty(value).unwrap();
    text.push('\n');
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    if committed == text {
        return;
    }
    if std::env::var_os("UPDATE_SCHEMA").is_some() {
        std::fs::create_dir_all(examples()).unwrap();
        std::fs::write(&path, text).unwrap();
    } else {
        mismatches.push(format!("{name}.json:\n--- committed\n{committed}+++ now\n{text}"));
    }
}

#[test]
fn every_message_keeps_its_json_form() {
    let client_schema = jsonschema::validator_for(&protocol::schema::client_message()).unwrap();
    let server_schema = jsonschema::validator_for(&protocol::schema::server_message()).unwrap();
    let mut mismatches = Vec::new();

    for message in &requests() {
        let value = serde_json::to_value(message).unwrap();
        client_schema
            .validate(&value)
            .unwrap_or_else(|e| panic!("{value} does not match the client schema: {e}"));
        let back = protocol::parse_client_message(&value.to_string()).unwrap();
        assert_eq!(&back, message);
        compare(
            &format!("request.{}", message.request.kind()),
            &value,
            &mut mismatches,
        );
    }

    let server: Vec<(&str, ServerMessage)> = replies().into_iter().chain(pushes()).collect();
    for (name, message) in &server {
        let value = serde_json::to_value(message).unwrap();
        server_schema
            .validate(&value)
            .unwrap_or_else(|e| panic!("{value} does not match the server schema: {e}"));
        let back: ServerMessage = serde_json::from_value(value.clone()).unwrap();
        assert_eq!(&back, message);
        let prefix = if matches!(message, ServerMessage::Reply(_)) {
            "reply"
        } else {
            "push"
        };
        compare(&format!("{prefix}.{name}"), &value, &mut mismatches);
    }

    assert!(
        mismatches.is_empty(),
        "the JSON form of these messages changed (a protocol change: see the versioning policy in \
         docs/protocol.md; if it is intended, regenerate with\n    \
         {}\n):\n{}",
        protocol::schema::REGENERATE,
        mismatches.join("\n")
    );
}

/// Every request type, reply and push has a committed example; none is left over from a message that no longer
/// exists, and every example made by the server run is there.
#[test]
fn every_message_type_has_an_example_and_none_is_left_over() {
    let mut expected: Vec<String> = requests()
        .iter()
        .map(|m| format!("request.{}.json", m.request.kind()))
        .collect();
    expected.extend(replies().iter().map(|(n, _)| format!("reply.{n}.json")));
    expected.extend(pushes().iter().map(|(n, _)| format!("push.{n}.json")));
    expected.extend(captured().map(|n| format!("{n}.json")));
    let (mut requests, mut server) = (Vec::new(), Vec::new());
    for entry in std::fs::read_dir(examples()).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        assert!(
            expected.contains(&name),
            "docs/schema/examples/{name} is made by no test: remove it"
        );
        let text = std::fs::read_to_string(entry.path()).unwrap();
        if name.starts_with("request.") {
            requests.push(protocol::parse_client_message(&text).unwrap().request.kind());
        } else {
            server.push(server_kind(&serde_json::from_str(&text).unwrap()));
        }
    }
    for name in &expected {
        assert!(
            examples().join(name).exists(),
            "docs/schema/examples/{name} is missing"
        );
    }
    for kind in protocol::REQUEST_TYPES {
        assert!(requests.contains(kind), "no example of the request {kind}");
    }
    for kind in SERVER_KINDS {
        assert!(server.contains(kind), "no example of the reply or push {kind}");
    }
}

/// Every committed example, read from its file as the server (a request) or a client (a reply or push) reads it,
/// is accepted by its schema and written back by serde, as the server writes every frame, as the same JSON value.
#[test]
fn every_committed_example_reads_and_writes_back() {
    let client_schema = jsonschema::validator_for(&protocol::schema::client_message()).unwrap();
    let server_schema = jsonschema::validator_for(&protocol::schema::server_message()).unwrap();
    let mut read = 0;
    for entry in std::fs::read_dir(examples()).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(entry.path()).unwrap();
        let value: Value = serde_json::from_str(&text).unwrap();
        if name.starts_with("request.") {
            client_schema
                .validate(&value)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            let message = protocol::parse_client_message(&text).unwrap_or_else(|e| panic!("{name}: {e:?}"));
            let written = serde_json::to_string(&message).unwrap();
            assert_eq!(serde_json::from_str::<Value>(&written).unwrap(), value, "{name}");
            assert_eq!(protocol::parse_client_message(&written), Ok(message), "{name}");
        } else {
            server_schema
                .validate(&value)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            let message: ServerMessage =
                serde_json::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
            // Replies, and only replies, carry `re`.
            assert_eq!(
                value.get("re").is_some(),
                matches!(message, ServerMessage::Reply(_)),
                "{name}"
            );
            let written = message.to_json();
            assert_eq!(serde_json::from_str::<Value>(&written).unwrap(), value, "{name}");
            assert_eq!(
                serde_json::from_str::<ServerMessage>(&written).unwrap(),
                message,
                "{name}"
            );
        }
        read += 1;
    }
    assert!(
        read >= protocol::REQUEST_TYPES.len() + SERVER_KINDS.len(),
        "only {read} examples"
    );
}

/// The schema refuses what the server would refuse: an unknown request type and a request missing a field.
#[test]
fn the_client_schema_is_not_vacuous() {
    let schema = jsonschema::validator_for(&protocol::schema::client_message()).unwrap();
    assert!(schema.is_valid(&json!({"type": "hello", "id": 1, "protocol": 1})));
    assert!(!schema.is_valid(&json!({"type": "fly", "id": 1})));
    assert!(!schema.is_valid(&json!({"type": "join_lobby", "code": "RKPYM3HQ7WXN4CTD"})));
    assert!(!schema.is_valid(&json!({"type": "action", "version": 1})));
}

/// The transcript in docs/protocol.md is made of real messages of the current protocol, in their exact form: each
/// sent frame reads as a request, each received frame reads as a server message and writes back identically,
/// and the match it shows ends with a result.
#[test]
fn the_documented_transcript_is_current() {
    let doc = include_str!("../../docs/protocol.md");
    let section = doc
        .split("## Transcript of a short match")
        .nth(1)
        .expect("docs/protocol.md has a transcript");
    let block = section
        .split("```text\n")
        .nth(1)
        .and_then(|b| b.split("```").next())
        .expect("the transcript is a text block");
    let server_schema = jsonschema::validator_for(&protocol::schema::server_message()).unwrap();
    let (mut sent, mut received, mut last_state) = (0, 0, None);
    for line in block.lines() {
        if let Some(text) = line.strip_prefix("> ") {
            protocol::parse_client_message(text).unwrap_or_else(|e| panic!("{e:?}: {text}"));
            sent += 1;
        } else if let Some(text) = line.strip_prefix("< ") {
            let value: Value = serde_json::from_str(text).unwrap();
            server_schema
                .validate(&value)
                .unwrap_or_else(|e| panic!("{e}: {text}"));
            let message: ServerMessage = serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"));
            assert_eq!(
                serde_json::to_value(&message).unwrap(),
                value,
                "not in today's form: {text}"
            );
            if let ServerMessage::Push(Push::State(state)) = message {
                last_state = Some(state);
            }
            received += 1;
        } else {
            panic!("a transcript line starts with `> ` or `< `: {line}");
        }
    }
    assert!(sent >= 5 && received >= 10, "{sent} sent, {received} received");
    let last = last_state.expect("the transcript shows states");
    assert_eq!(last.status, Status::Over);
    assert!(last.outcome.is_some());
}

/// Every push is written by its generated writer (`json_write`, what the server's socket adapter sends), and the
/// text is serde's, byte for byte, for every committed push example.
#[test]
fn pushes_written_by_the_generated_writer_are_serdes_text() {
    let mut checked = 0;
    for entry in std::fs::read_dir(examples()).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if !name.starts_with("push.") {
            continue;
        }
        let message: ServerMessage =
            serde_json::from_str(&std::fs::read_to_string(entry.path()).unwrap()).unwrap();
        let ServerMessage::Push(push) = &message else {
            panic!("{name} is not a push");
        };
        let written = json_write::WriteJson::to_json_string(push);
        assert_eq!(written, serde_json::to_string(&message).unwrap(), "{name}");
        checked += 1;
    }
    assert!(checked >= 8, "{checked} pushes");
}

fn read_example(name: &str) -> Value {
    let path = examples().join(name);
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{name}: {e}"))).unwrap()
}

/// Every game value in the committed examples matches its game's own schemas (`docs/schema/games/<game>/`): the
/// options of each lobby and `create_lobby`/`configure_lobby` request, and each state's view, legal actions and
/// events. The `action` request plays one of the legal actions of `push.state_turn.json` on its version, and the
/// `accepted` reply answers it with the next version.
#[test]
fn every_example_matches_its_games_schemas() {
    let games: std::collections::BTreeMap<&str, rules::GameSchemas> =
        rules::schemas().into_iter().map(|g| (g.id, g)).collect();
    let check = |schema: &schemars::Schema, value: &Value, what: String| {
        let validator = jsonschema::validator_for(schema.as_value()).unwrap();
        if let Err(e) = validator.validate(value) {
            panic!("{what} does not match its game's schema: {e}\n{value}");
        }
    };
    let schemas_of = |game: &Value, what: &str| {
        games
            .get(game.as_str().unwrap_or_default())
            .unwrap_or_else(|| panic!("{what}: no game {game}"))
    };
    let lobby_game = read_example("request.create_lobby.json")["game"].clone();
    let (mut states, mut options) = (0, 0);
    for entry in std::fs::read_dir(examples()).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let value = read_example(&name);
        match value["type"].as_str().unwrap() {
            "state" => {
                let game = schemas_of(&value["game"], &name);
                check(&game.view, &value["view"], format!("{name}: the view"));
                for action in value["legal_actions"].as_array().unwrap() {
                    check(&game.action, action, format!("{name}: a legal action"));
                }
                for event in value["events"].as_array().unwrap() {
                    check(&game.event, event, format!("{name}: an event"));
                }
                if value["seat"].is_null() {
                    assert_eq!(
                        value["legal_actions"],
                        json!([]),
                        "{name}: a spectator has no actions"
                    );
                }
                assert!(
                    value["since"].as_u64() <= value["version"].as_u64(),
                    "{name}: since after version"
                );
                states += 1;
            }
            "lobby" => {
                check(
                    &schemas_of(&value["game"], &name).config,
                    &value["options"],
                    format!("{name}: the options"),
                );
                options += 1;
            }
            "create_lobby" | "configure_lobby" => {
                check(
                    &schemas_of(&lobby_game, &name).config,
                    &value["options"],
                    format!("{name}: the options"),
                );
                options += 1;
            }
            _ => {}
        }
    }
    assert!(
        states >= 4 && options >= 4,
        "{states} states and {options} options checked"
    );
    let turn = read_example("push.state_turn.json");
    let action = read_example("request.action.json");
    assert_eq!(action["version"], turn["version"]);
    assert!(
        turn["legal_actions"]
            .as_array()
            .unwrap()
            .contains(&action["action"]),
        "request.action.json plays an action push.state_turn.json lists"
    );
    assert_eq!(
        read_example("reply.accepted.json")["version"],
        turn["version"].as_u64().unwrap() + 1
    );
    assert_eq!(read_example("reply.accepted.json")["re"], action["id"]);
}
