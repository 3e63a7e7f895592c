//! What the server sends: a [`ServerMessage`] is the one [`ReplyMessage`] to a request or a [`Push`].

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::{ErrorBody, ErrorCode, MyTable, NotifyEndpoint, Push, RequestId, Seat, SeatToken};

/// One server frame.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum ServerMessage {
    /// The one reply to a request, echoing its id.
    Reply(ReplyMessage),
    /// Something the client did not ask for: lobby and state changes, being replaced, shutdown.
    Push(Push),
}

/// A reply: the id of the request it answers (absent when the request had none or could not be read) and the
/// result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ReplyMessage {
    #[serde(default)]
    pub re: Option<RequestId>,
    #[serde(flatten)]
    pub reply: Reply,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Reply {
    /// The handshake succeeded.
    Welcome {
        protocol: u32,
        server: String,
    },
    /// The sender now holds `seat` of lobby `code`. `seat_token` is the secret for [`Request::Resume`]: it is
    /// sent once, here, and the server keeps only its hash.
    Seated {
        code: String,
        seat: Seat,
        seat_token: SeatToken,
        host: bool,
    },
    /// The sender has its seat back.
    Resumed {
        code: String,
        seat: Seat,
        host: bool,
    },
    /// The sender watches lobby `code`.
    Spectating {
        code: String,
    },
    /// The lobby's watch token: `spectate` with it and the code watches the lobby, finished and private
    /// included. The same for every seat, as long as the lobby's seats stay the same.
    WatchLink {
        code: String,
        watch: String,
    },
    /// The seat's notification endpoints (to that seat only). `secret` is a new webhook's signing key, sent once,
    /// here: the server signs each delivery with it (see `docs/protocol.md`, "Webhooks").
    NotifyEndpoints {
        code: String,
        seat: Seat,
        endpoints: Vec<NotifyEndpoint>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        secret: Option<String>,
    },
    /// The action was committed to the database as state `version`.
    Accepted {
        version: u64,
    },
    /// The request succeeded and has nothing more to say (leave, add_bot, start).
    Ok {},
    Pong {},
    /// The answer to `my_tables`: one entry per table named, in the request's order.
    MyTables {
        tables: Vec<MyTable>,
    },
    /// The request was refused; nothing changed.
    Error(ErrorBody),
}

impl ServerMessage {
    pub fn reply(re: Option<RequestId>, reply: Reply) -> Self {
        ServerMessage::Reply(ReplyMessage { re, reply })
    }

    pub fn error(re: Option<RequestId>, code: ErrorCode, message: impl Into<String>) -> Self {
        ServerMessage::reply(re, Reply::Error(ErrorBody::new(code, message)))
    }

    /// This message as the JSON text of one frame (serde's: members in declaration order, engine texts as they
    /// are).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("protocol messages serialise")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    #[test]
    fn server_messages_have_a_type_and_echo_the_request_id() {
        let reply = ServerMessage::error(Some(RequestId::Number(5)), ErrorCode::NotYourTurn, "wait");
        let value: Value = serde_json::from_str(&reply.to_json()).unwrap();
        assert_eq!(
            value,
            json!({"re": 5, "type": "error", "code": "not_your_turn", "message": "wait"})
        );
        let accepted = ServerMessage::reply(None, Reply::Accepted { version: 3 });
        assert_eq!(
            serde_json::from_str::<Value>(&accepted.to_json()).unwrap(),
            json!({"re": null, "type": "accepted", "version": 3})
        );
        let closing = ServerMessage::Push(Push::Closing(ErrorBody::new(ErrorCode::ShuttingDown, "bye")));
        assert_eq!(
            serde_json::from_str::<Value>(&closing.to_json()).unwrap(),
            json!({"type": "closing", "code": "shutting_down", "message": "bye"})
        );
        // Clients can read back what the server writes, replies and pushes alike.
        for message in [reply, accepted, closing] {
            let back: ServerMessage = serde_json::from_str(&message.to_json()).unwrap();
            assert_eq!(back, message);
        }
    }
}
