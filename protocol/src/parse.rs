//! Reading client frames: [`parse_client_message`] for every frame, [`request_id_of`] for the id of one that is
//! refused before it is read.
//!
//! A frame is read by serde in one pass over its text, without a `Value` tree: split into its members, each kept
//! as the text it arrived as ([`RawValue`]), from which the request is read. Every member but an action is then
//! checked within the limits serde_json puts on a `Value` (127 levels of nesting in the frame, numbers within an
//! `f64`); an action stays the text it arrived as ([`RawJson`]), which the engine reads straight into its typed
//! action, checking what that action uses (fields it does not use are not checked: `docs/protocol.md`).

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, Visitor, value::MapDeserializer};
use serde_json::value::RawValue;

use crate::{ClientMessage, ErrorCode, REQUEST_TYPES, RawJson, Request, RequestId};

/// Why a client frame could not be read, with the request id when it could still be found.
#[derive(Clone, Debug, PartialEq)]
pub struct ParseError {
    pub re: Option<RequestId>,
    pub code: ErrorCode,
    pub message: String,
}

/// Reads one client text frame. Tells an unknown `type` (`unknown_message`) from a malformed frame
/// (`bad_message`), and recovers the request id where the JSON allows it so the error reply can echo it.
///
/// A frame means what the same text read as a `Value` and then as a [`ClientMessage`] means: a member given twice
/// counts as its last, unknown members are ignored, and a frame a `Value` could not hold is refused; except inside
/// an action, which is kept as its text for the engine to read (`protocol/tests/hostile.rs` compares the two on
/// generated frames).
pub fn parse_client_message(text: &str) -> Result<ClientMessage, ParseError> {
    if let Ok(ActionFrame(message)) = serde_json::from_str::<ActionFrame>(text) {
        return Ok(message);
    }
    let refuse = |re: Option<RequestId>, code, message: String| ParseError { re, code, message };
    let Ok(Members { members, actions }) = serde_json::from_str::<Members<'_>>(text) else {
        // Not a JSON object: say which (a refusal, so a second look costs nothing on the way of a good frame).
        return Err(match serde_json::from_str::<AnyJson>(text) {
            Err(e) => refuse(None, ErrorCode::BadMessage, format!("not JSON: {e}")),
            Ok(AnyJson) => refuse(None, ErrorCode::BadMessage, "a message is a JSON object".into()),
        });
    };
    let member = |name: &str| {
        members
            .iter()
            .find(|(key, _)| key == name)
            .map(|&(_, value)| value)
    };
    let kind = member("type").map(|kind| Key::deserialize(kind).map(|Key(kind)| kind));
    // An `action` member of any other frame is an unknown member like the rest: checked as a `Value` would.
    if !matches!(&kind, Some(Ok(kind)) if kind == "action")
        && let Some(e) = actions
            .iter()
            .find_map(|a| AnyJson::within(a, MEMBER_DEPTH).err())
    {
        return Err(refuse(None, ErrorCode::BadMessage, format!("not JSON: {e}")));
    }
    let re = member("id").and_then(|id| RequestId::deserialize(id).ok());
    let kind = match kind {
        Some(Ok(kind)) => kind,
        None | Some(Err(_)) => {
            return Err(refuse(
                re,
                ErrorCode::BadMessage,
                "a message needs a string field `type`".into(),
            ));
        }
    };
    if !REQUEST_TYPES.contains(&kind.as_ref()) {
        return Err(refuse(
            re,
            ErrorCode::UnknownMessage,
            format!("unknown message type `{kind}`"),
        ));
    }
    let malformed = |refusal: json_write::plain::Refusal| {
        refuse(
            re.clone(),
            ErrorCode::BadMessage,
            format!("malformed message: {refusal}"),
        )
    };
    let id = member("id")
        .map(|id| Option::<RequestId>::deserialize(id).map_err(|e| json_write::plain::explain(&e, "id")))
        .transpose()
        .map_err(malformed)?
        .flatten();
    // The `type` member first, so that the request is read with its tag first (`Request` derives `TagFirst`).
    let fields = || {
        let tag = members.iter().filter(|(key, _)| key == "type");
        let rest = members.iter().filter(|(key, _)| key != "type");
        MapDeserializer::new(tag.chain(rest).map(|(key, value)| (key.as_ref(), *value)))
    };
    let request = if kind == "action" {
        // Read here rather than by `Request`'s derived reader, which buffers every member as a tree first (an
        // internally tagged enum): the action is kept as its text.
        #[derive(Deserialize)]
        struct Action<'a> {
            #[serde(borrow)]
            action: &'a RawValue,
            #[serde(default)]
            version: Option<u64>,
        }
        let Action { action, version } = json_write::plain::read(fields).map_err(malformed)?;
        Request::Action {
            action: RawJson::from(action.to_owned()),
            version,
        }
    } else {
        json_write::plain::read(fields).map_err(malformed)?
    };
    Ok(ClientMessage { id, request })
}

/// The frame most clients send most often, a well-formed `action`, read in one pass: its known members typed, any
/// other member checked as the general path checks it. Anything else (another request, or any fault) is an error
/// here, and the general path reads the frame again to say what it is; so this path only ever accepts what the
/// general one accepts, as it would (`protocol/tests/hostile.rs` compares both with serde's `Value` reading).
struct ActionFrame(ClientMessage);

impl<'de> Deserialize<'de> for ActionFrame {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct FrameVisitor;
        impl<'de> Visitor<'de> for FrameVisitor {
            type Value = ActionFrame;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an action request")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ActionFrame, A::Error> {
                let (mut is_action, mut id, mut action, mut version) = (false, None, None, None);
                while let Some(Key(key)) = map.next_key()? {
                    match key.as_ref() {
                        "type" => is_action = map.next_value::<Key<'de>>()?.0 == "action",
                        "id" => id = map.next_value::<Option<RequestId>>()?,
                        "action" => action = Some(map.next_value::<&'de RawValue>()?),
                        "version" => version = map.next_value::<Option<u64>>()?,
                        _ => {
                            map.next_value_seed(Nested(MEMBER_DEPTH))?;
                        }
                    }
                }
                match (is_action, action) {
                    (true, Some(action)) => Ok(ActionFrame(ClientMessage {
                        id,
                        request: Request::Action {
                            action: RawJson::from(action.to_owned()),
                            version,
                        },
                    })),
                    _ => Err(de::Error::custom("not an action request")),
                }
            }
        }
        deserializer.deserialize_map(FrameVisitor)
    }
}

/// The request id of a frame, if it is a JSON object with a readable `id` (to echo it in a refusal that does
/// not otherwise read the frame). An `id` given twice counts as its last, as [`parse_client_message`] counts it.
pub fn request_id_of(text: &str) -> Option<RequestId> {
    let Members { members, .. } = serde_json::from_str(text).ok()?;
    let id = members.iter().find(|(key, _)| key == "id")?.1;
    RequestId::deserialize(id).ok()
}

/// A frame's members as the text of each value, in the order they first appear; a member given twice keeps its
/// last value (as a `Value` object would). Every value is checked as a `Value` would read it, except those of
/// `action` members, which are kept in `actions` to be checked only if the frame is not an action (the engine
/// reads an action).
struct Members<'a> {
    members: Vec<(Cow<'a, str>, &'a RawValue)>,
    actions: Vec<&'a RawValue>,
}

impl<'de> Deserialize<'de> for Members<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct MembersVisitor;
        impl<'de> Visitor<'de> for MembersVisitor {
            type Value = Members<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Members<'de>, A::Error> {
                let mut members: Vec<(Cow<'de, str>, &'de RawValue)> = Vec::new();
                let mut actions = Vec::new();
                while let Some(Key(key)) = map.next_key()? {
                    let value: &'de RawValue = map.next_value()?;
                    if key == "action" {
                        actions.push(value);
                    } else {
                        AnyJson::within(value, MEMBER_DEPTH).map_err(de::Error::custom)?;
                    }
                    match members.iter_mut().find(|(k, _)| *k == key) {
                        Some(member) => member.1 = value,
                        None => members.push((key, value)),
                    }
                }
                Ok(Members { members, actions })
            }
        }
        deserializer.deserialize_map(MembersVisitor)
    }
}

/// A string, borrowed from the frame unless it has escapes.
struct Key<'a>(Cow<'a, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: de::Error>(self, s: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(s)))
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(s.to_owned())))
            }
            fn visit_string<E: de::Error>(self, s: String) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(s)))
            }
        }
        deserializer.deserialize_str(KeyVisitor)
    }
}

/// The levels of nesting a member's value may have: a `Value` holds 127 (serde_json's limit of 128 is reached
/// on entering the 128th), and the frame's object takes one.
const MEMBER_DEPTH: u8 = 126;

/// Any JSON value, read as a `Value` would be (the same range of numbers, the same checks of strings) but kept
/// nowhere: it checks text without building a tree, with at most `depth` levels of nesting.
struct AnyJson;

impl AnyJson {
    /// Checks a member's text as part of a frame: the nesting it may use is what the frame leaves it.
    fn within(value: &RawValue, depth: u8) -> Result<AnyJson, serde_json::Error> {
        let mut reader = serde_json::Deserializer::from_str(value.get());
        Nested(depth).deserialize(&mut reader)
    }
}

impl<'de> Deserialize<'de> for AnyJson {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        // serde_json's own limit (128) applies to a whole frame.
        Nested(u8::MAX).deserialize(deserializer)
    }
}

/// [`AnyJson`] with `.0` levels of nesting left.
#[derive(Clone, Copy)]
struct Nested(u8);

impl<'de> de::DeserializeSeed<'de> for Nested {
    type Value = AnyJson;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<AnyJson, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl Nested {
    fn inner<E: de::Error>(self) -> Result<Nested, E> {
        match self.0.checked_sub(1) {
            Some(left) => Ok(Nested(left)),
            None => Err(E::custom("recursion limit exceeded")),
        }
    }
}

impl<'de> Visitor<'de> for Nested {
    type Value = AnyJson;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, _: bool) -> Result<AnyJson, E> {
        Ok(AnyJson)
    }
    fn visit_i64<E>(self, _: i64) -> Result<AnyJson, E> {
        Ok(AnyJson)
    }
    fn visit_u64<E>(self, _: u64) -> Result<AnyJson, E> {
        Ok(AnyJson)
    }
    fn visit_f64<E>(self, _: f64) -> Result<AnyJson, E> {
        Ok(AnyJson)
    }
    fn visit_str<E>(self, _: &str) -> Result<AnyJson, E> {
        Ok(AnyJson)
    }
    fn visit_unit<E>(self) -> Result<AnyJson, E> {
        Ok(AnyJson)
    }
    fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<AnyJson, A::Error> {
        let inner = self.inner()?;
        while seq.next_element_seed(inner)?.is_some() {}
        Ok(AnyJson)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<AnyJson, A::Error> {
        let inner = self.inner()?;
        while map.next_key_seed(inner)?.is_some() {
            map.next_value_seed(inner)?;
        }
        Ok(AnyJson)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn requests_read_from_their_documented_form() {
        let cases = [
            (json!({"type": "hello", "id": 1, "protocol": 1}), "hello"),
            (
                json!({"type": "create_lobby", "id": "a", "game": "hide_and_eeek", "seats": 3, "name": "Ann"}),
                "create_lobby",
            ),
            (
                json!({"type": "join_lobby", "code": "ABC234", "name": "Bo"}),
                "join_lobby",
            ),
            (json!({"type": "spectate", "code": "ABC234"}), "spectate"),
            (
                json!({"type": "resume", "code": "ABC234", "token": "ff", "last_version": 3}),
                "resume",
            ),
            (json!({"type": "leave"}), "leave"),
            (json!({"type": "add_bot"}), "add_bot"),
            (json!({"type": "start"}), "start"),
            (
                json!({"type": "action", "action": {"type": "roll"}, "version": 4}),
                "action",
            ),
            (json!({"type": "ping", "id": 9}), "ping"),
            (json!({"type": "chat", "text": "hi"}), "chat"),
            (json!({"type": "presence", "hidden": false}), "presence"),
            (
                json!({"type": "configure_lobby", "options": {"target": 4}, "seats": 3}),
                "configure_lobby",
            ),
            (json!({"type": "remove_player", "seat": 1}), "remove_player"),
            (json!({"type": "make_host", "seat": 1}), "make_host"),
            (json!({"type": "set_listed", "listed": true}), "set_listed"),
            (json!({"type": "rematch", "accept": false}), "rematch"),
        ];
        for (value, kind) in cases {
            let message = parse_client_message(&value.to_string()).unwrap();
            assert_eq!(message.request.kind(), kind);
            assert!(REQUEST_TYPES.contains(&kind));
            // What a client serialises reads back identically.
            let again = parse_client_message(&serde_json::to_string(&message).unwrap()).unwrap();
            assert_eq!(again, message);
        }
    }

    #[test]
    fn seat_tokens_never_show_in_debug_output() {
        let message =
            parse_client_message(r#"{"type": "resume", "code": "ABC234", "token": "s3cr3t"}"#).unwrap();
        assert!(!format!("{message:?}").contains("s3cr3t"));
        assert!(serde_json::to_string(&message).unwrap().contains("s3cr3t"));
    }

    #[test]
    fn bad_frames_are_told_apart_and_keep_their_id() {
        let cases = [
            ("{not json", ErrorCode::BadMessage, None),
            ("[1,2]", ErrorCode::BadMessage, None),
            (
                r#"{"id": 7, "protocol": 1}"#,
                ErrorCode::BadMessage,
                Some(RequestId::Number(7)),
            ),
            (
                r#"{"id": "x", "type": "fly"}"#,
                ErrorCode::UnknownMessage,
                Some(RequestId::Text("x".into())),
            ),
            (
                r#"{"id": 3, "type": "hello"}"#,
                ErrorCode::BadMessage,
                Some(RequestId::Number(3)),
            ),
            (
                r#"{"id": 4, "type": "join_lobby", "code": 5, "name": "a"}"#,
                ErrorCode::BadMessage,
                Some(RequestId::Number(4)),
            ),
        ];
        for (text, code, re) in cases {
            let err = parse_client_message(text).unwrap_err();
            assert_eq!((err.code, err.re), (code, re), "{text}");
        }
    }

    /// An action stays the text it arrived as (spacing, member order); a member given twice counts as its last, as
    /// in a `Value`; a refusal of a mistyped field keeps the frame's id and says what is wrong without a place
    /// inside the member.
    #[test]
    fn an_action_is_kept_as_the_text_it_arrived_as() {
        let text = r#"{"id": 3, "type": "action", "action": {"to": [1, 2], "type": "move"}, "version": 7}"#;
        let message = parse_client_message(text).unwrap();
        assert_eq!(message.id, Some(RequestId::Number(3)));
        let Request::Action { action, version } = &message.request else {
            panic!("not an action: {message:?}");
        };
        assert_eq!(action.get(), r#"{"to": [1, 2], "type": "move"}"#);
        assert_eq!(*version, Some(7));
        assert_eq!(
            parse_client_message(r#"{"type":"action","action":1,"action":[2],"id":1,"id":"x"}"#),
            Ok(ClientMessage {
                id: Some(RequestId::Text("x".into())),
                request: Request::Action {
                    action: RawJson::from(json!([2])),
                    version: None
                }
            })
        );
        assert_eq!(
            parse_client_message(r#"{"t\u0079pe":"acti\u006fn","action":null}"#).map(|m| m.request),
            Ok(Request::Action {
                action: RawJson::from(json!(null)),
                version: None
            })
        );
        let e = parse_client_message(r#"{"type":"action","version":"7","action":1,"id":4}"#).unwrap_err();
        assert_eq!(
            (e.re, e.code),
            (Some(RequestId::Number(4)), ErrorCode::BadMessage)
        );
        assert_eq!(
            e.message,
            r#"malformed message: `version`: expected a whole number, 0 or more, got "7""#
        );
        let e = parse_client_message(r#"{"type":"action","version":7}"#).unwrap_err();
        assert_eq!(e.message, "malformed message: `action`: missing");
    }
}
