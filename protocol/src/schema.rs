//! The machine-readable description of the protocol: JSON Schemas (draft 2020-12) of every message in both
//! directions and of each game's options, actions, views and events, generated from the types themselves.
//!
//! The server serves [`document`] at `GET /api/schema`; copies of [`files`] are committed under `docs/schema/`,
//! and a test fails when they are stale. Regenerate them with:
//!
//! ```text
//! UPDATE_SCHEMA=1 cargo test -p protocol --test schema --test snapshots
//! ```

use schemars::generate::SchemaSettings;
use serde_json::{Map, Value, json};

use crate::{CatalogueEntry, ClientMessage, PROTOCOL_VERSION, SUPPORTED_VERSIONS, ServerMessage};

/// The command that rewrites the committed copies under `docs/schema/`.
pub const REGENERATE: &str = "UPDATE_SCHEMA=1 cargo test -p protocol --test schema --test snapshots";

/// Schema of one client frame (a request with its optional `id`), as the server accepts it.
pub fn client_message() -> Value {
    SchemaSettings::default()
        .for_deserialize()
        .into_generator()
        .into_root_schema_for::<ClientMessage>()
        .to_value()
}

/// Schema of one server frame (a reply with its `re`, or a push), as the server writes it: every field it always
/// writes is required, even when its value may be `null`.
pub fn server_message() -> Value {
    produced::<ServerMessage>()
}

/// Schema of the `GET /api/games` answer.
pub fn game_catalogue() -> Value {
    produced::<Vec<CatalogueEntry>>()
}

/// An AsyncAPI 3.0 description of the `/ws` channel: the client's requests (answered by one reply each) and the
/// server's frames. Its payload schemas are draft-07 (the AsyncAPI default schema format) with their definitions
/// under `components.schemas`; games' views and actions stay any JSON there (see the per-game JSON Schemas).
pub fn asyncapi() -> Value {
    let mut client = SchemaSettings::draft07()
        .with(|s| s.definitions_path = "/components/schemas".into())
        .for_deserialize()
        .into_generator();
    let client_payload = client.subschema_for::<ClientMessage>();
    let mut server = SchemaSettings::draft07()
        .with(|s| s.definitions_path = "/components/schemas".into())
        .for_serialize()
        .into_generator();
    let server_payload = server.subschema_for::<ServerMessage>();
    let mut schemas = client.take_definitions(true);
    for (name, schema) in server.take_definitions(true) {
        if let Some(existing) = schemas.get(&name) {
            // One name, one shape: both directions must agree on a shared type, or the names would collide.
            assert_eq!(
                existing, &schema,
                "{name} differs between requests and server messages"
            );
        }
        schemas.insert(name, schema);
    }
    json!({
        "asyncapi": "3.0.0",
        "info": {
            "title": "Tabletop game server",
            "version": PROTOCOL_VERSION.to_string(),
            "description": "Lobbies and authoritative matches of board games over one WebSocket. Each text frame \
                is one JSON object with a `type`. Requests may carry an `id`; each gets exactly one reply echoing it \
                as `re`; pushes have no `re`. See docs/protocol.md for the reference, and GET /api/schema for \
                JSON Schemas (2020-12) of each game's options, actions, views and events.",
        },
        "defaultContentType": "application/json",
        "servers": {
            "local": {
                "host": "127.0.0.1:8080",
                "protocol": "ws",
                "description": "A server started with its default settings.",
            },
        },
        "channels": {
            "play": {
                "address": "/ws",
                "description": "The only channel: requests from the client, replies and pushes from the server.",
                "messages": {
                    "clientMessage": {"$ref": "#/components/messages/clientMessage"},
                    "serverMessage": {"$ref": "#/components/messages/serverMessage"},
                },
            },
        },
        "operations": {
            "receiveRequest": {
                "action": "receive",
                "channel": {"$ref": "#/channels/play"},
                "summary": "A client's request; the first on a connection must be `hello`.",
                "messages": [{"$ref": "#/channels/play/messages/clientMessage"}],
                "reply": {
                    "channel": {"$ref": "#/channels/play"},
                    "messages": [{"$ref": "#/channels/play/messages/serverMessage"}],
                },
            },
            "sendServerMessage": {
                "action": "send",
                "channel": {"$ref": "#/channels/play"},
                "summary": "Replies (with `re`) and pushes (`lobby`, `state`, `closing`).",
                "messages": [{"$ref": "#/channels/play/messages/serverMessage"}],
            },
        },
        "components": {
            "messages": {
                "clientMessage": {
                    "name": "ClientMessage",
                    "title": "A request",
                    "payload": client_payload,
                },
                "serverMessage": {
                    "name": "ServerMessage",
                    "title": "A reply or a push",
                    "payload": server_payload,
                },
            },
            "schemas": schemas,
        },
    })
}

fn produced<T: schemars::JsonSchema>() -> Value {
    SchemaSettings::default()
        .for_serialize()
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value()
}

/// Everything at once, as `GET /api/schema` serves it:
/// `{"protocol_version", "supported_versions", "client_message", "server_message", "game_catalogue",
/// "games": {id: {"config", "action", "view", "event"}}}`. Each schema in it is a standalone root schema.
pub fn document() -> Value {
    let mut games = Map::new();
    for game in rules::schemas() {
        games.insert(
            game.id.to_string(),
            json!({
                "config": game.config,
                "action": game.action,
                "view": game.view,
                "event": game.event,
            }),
        );
    }
    json!({
        "protocol_version": PROTOCOL_VERSION,
        "supported_versions": SUPPORTED_VERSIONS,
        "client_message": client_message(),
        "server_message": server_message(),
        "game_catalogue": game_catalogue(),
        "games": games,
    })
}

/// The files committed under `docs/schema/`, as (path relative to that directory, content): one schema per
/// file, so that a client author can hand any of them to a validator.
pub fn files() -> Vec<(String, String)> {
    let doc = document();
    let mut files = vec![
        ("client_message.json".to_string(), pretty(&doc["client_message"])),
        ("server_message.json".to_string(), pretty(&doc["server_message"])),
        ("game_catalogue.json".to_string(), pretty(&doc["game_catalogue"])),
        ("asyncapi.json".to_string(), pretty(&asyncapi())),
    ];
    if let Some(games) = doc["games"].as_object() {
        for (id, schemas) in games {
            for part in ["config", "action", "view", "event"] {
                files.push((format!("games/{id}/{part}.json"), pretty(&schemas[part])));
            }
        }
    }
    files
}

fn pretty(value: &Value) -> String {
    let mut text = serde_json::to_string_pretty(value).expect("schemas serialise");
    text.push('\n');
    text
}
