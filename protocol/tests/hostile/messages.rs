//! Hostile client frames against the protocol's reader (shared by `protocol/tests/hostile.rs`, which feeds it
//! proptest's inputs, and the `client_message` fuzz target in `fuzz/`, which feeds it libFuzzer's).
//!
//! [`check_text`] states the reader's contract for any text: it never panics; a refusal is `bad_message` or
//! `unknown_message` with an explanation, and echoes only an id the frame really carries; anything accepted
//! round-trips (written back out and read again it is the same message, and writing it is stable).

#![allow(dead_code)]

use protocol::{
    ClientMessage, ErrorCode, REQUEST_TYPES, RawJson, Request, RequestId, parse_client_message, request_id_of,
};
use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

pub fn check_text(text: &str) {
    let id = request_id_of(text);
    // A frame means what serde's general reading of it (a `Value`, then the message) means, and is refused where
    // that refuses: the reader reads no tree, but takes repeated members, nesting and numbers as a `Value` does.
    // Except inside an action, which the reader keeps as its text for the engine to read (fields an action does
    // not use are not checked): the general path reads the frame with each action set aside. (A `type` must be
    // a request's name: serde alone would also take a variant's index, `"type":5`.)
    let general = set_aside(text).and_then(|(frame, action)| {
        frame["type"].as_str().filter(|t| REQUEST_TYPES.contains(t))?;
        let mut message = serde_json::from_value::<ClientMessage>(frame).ok()?;
        if let (Request::Action { action: kept, .. }, Some(action)) = (&mut message.request, action) {
            *kept = RawJson::from(action);
        }
        Some(message)
    });
    match parse_client_message(text) {
        Ok(message) => {
            assert_eq!(
                general.as_ref(),
                Some(&message),
                "{text:?} is read otherwise than serde's general path reads it"
            );
            let written = serde_json::to_string(&message).expect("requests serialise");
            let again = parse_client_message(&written).unwrap_or_else(|e| {
                panic!("{text:?} was accepted but its own form {written} is refused: {e:?}")
            });
            assert_eq!(again, message, "{text:?} does not round-trip through {written}");
            assert_eq!(
                serde_json::to_string(&again).unwrap(),
                written,
                "writing {text:?} is not stable"
            );
            assert_eq!(
                message.id, id,
                "{text:?}: the id read differs from the id echoed in refusals"
            );
            assert!(REQUEST_TYPES.contains(&message.request.kind()));
        }
        Err(e) => {
            assert_eq!(
                general, None,
                "{text:?} is refused but serde's general path reads it"
            );
            assert!(
                matches!(e.code, ErrorCode::BadMessage | ErrorCode::UnknownMessage),
                "{text:?}: unexpected code {:?}",
                e.code
            );
            assert!(!e.message.is_empty(), "{text:?}: a refusal explains itself");
            if let Some(re) = &e.re {
                let (value, _) =
                    set_aside(text).unwrap_or_else(|| panic!("{text:?}: an id is only echoed from JSON"));
                let carried: RequestId = serde_json::from_value(value["id"].clone()).expect("a readable id");
                assert_eq!(&carried, re, "{text:?}: echoed an id the frame does not carry");
            }
        }
    }
}

/// The frame as a `Value`, if it can be one; but for an action request (a JSON object whose last `type` is
/// `action`), with each `action` member's value replaced by `null`, and the text of the last one (the one a
/// `Value` keeps), if a `Value` can hold the other members.
fn set_aside(text: &str) -> Option<(Value, Option<Box<RawValue>>)> {
    struct Members(Vec<(String, Box<RawValue>)>);
    impl<'de> Deserialize<'de> for Members {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct V;
            impl<'de> Visitor<'de> for V {
                type Value = Members;
                fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                    f.write_str("an object")
                }
                fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Members, A::Error> {
                    let mut members = Vec::new();
                    while let Some(member) = map.next_entry()? {
                        members.push(member);
                    }
                    Ok(Members(members))
                }
            }
            d.deserialize_map(V)
        }
    }
    let Members(members) = serde_json::from_str(text).ok()?;
    let kind = members.iter().rev().find(|(key, _)| key == "type");
    if kind.is_none_or(|(_, kind)| {
        kind.get() != r#""action""#
            && serde_json::from_str::<String>(kind.get()).ok().as_deref() != Some("action")
    }) {
        return Some((serde_json::from_str(text).ok()?, None));
    }
    let mut rebuilt = String::from("{");
    let mut action = None;
    for (i, (key, value)) in members.into_iter().enumerate() {
        if i > 0 {
            rebuilt.push(',');
        }
        rebuilt.push_str(&serde_json::to_string(&key).unwrap());
        rebuilt.push(':');
        if key == "action" {
            rebuilt.push_str("null");
            action = Some(value);
        } else {
            rebuilt.push_str(value.get());
        }
    }
    rebuilt.push('}');
    Some((serde_json::from_str(&rebuilt).ok()?, action))
}

/// Reads choices from the input; past its end every read is zero.
pub struct Bytes<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Bytes<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Bytes { data, pos: 0 }
    }
    fn byte(&mut self) -> u8 {
        let b = self.data.get(self.pos).copied().unwrap_or(0);
        self.pos += 1;
        b
    }
    fn is_empty(&self) -> bool {
        self.pos >= self.data.len()
    }
    fn below(&mut self, n: usize) -> usize {
        self.byte() as usize % n
    }
    fn u64(&mut self) -> u64 {
        (0..8).fold(0, |acc, _| (acc << 8) | self.byte() as u64)
    }
}

const FIELDS: &[&str] = &[
    "id",
    "type",
    "protocol",
    "client",
    "game",
    "options",
    "seats",
    "name",
    "turn_timer_ms",
    "code",
    "token",
    "last_version",
    "seat",
    "action",
    "version",
];

fn scalar(b: &mut Bytes) -> Value {
    match b.byte() % 22 {
        0 => json!(u64::MAX),
        1 => json!(i64::MIN),
        2 => json!(-1),
        3 => json!(0),
        4 => json!(1.5),
        5 => json!(1e300),
        6 => json!(256),
        7 => json!(4_294_967_296u64),
        8 => json!(""),
        9 => json!("\u{0}é☃\u{10ffff}"),
        10 => Value::Null,
        11 => json!(true),
        12 => json!([]),
        13 => json!({}),
        14 => json!(b.u64()),
        15 => json!(REQUEST_TYPES[b.below(REQUEST_TYPES.len())]),
        16 => json!("hide_and_eeek"),
        17 => json!("ABC234"),
        18 => json!(b.byte() % 8),
        19 => json!(-(b.byte() as i64)),
        20 => json!(format!("{:x}", b.u64())),
        _ => json!(1),
    }
}

fn value(b: &mut Bytes, depth: usize) -> Value {
    if depth > 6 || b.is_empty() {
        return scalar(b);
    }
    match b.byte() % 6 {
        0 => Value::Array((0..b.below(4)).map(|_| value(b, depth + 1)).collect()),
        1 => {
            let mut m = Map::new();
            for _ in 0..b.below(4) {
                m.insert(FIELDS[b.below(FIELDS.len())].into(), value(b, depth + 1));
            }
            Value::Object(m)
        }
        _ => scalar(b),
    }
}

/// A frame that looks like a request: an object with a (usually known) type and fields of the protocol's names
/// holding arbitrary values, written out with random textual damage now and then.
pub fn structured(data: &[u8]) -> String {
    let mut b = Bytes::new(data);
    let mut m = Map::new();
    if !b.byte().is_multiple_of(8) {
        m.insert("type".into(), json!(REQUEST_TYPES[b.below(REQUEST_TYPES.len())]));
    }
    for _ in 0..b.below(6) {
        m.insert(FIELDS[b.below(FIELDS.len())].into(), value(&mut b, 0));
    }
    let mut text = Value::Object(m).to_string();
    match b.byte() % 8 {
        0 if !text.is_empty() => {
            let mut cut = b.byte() as usize % text.len();
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            text.truncate(cut);
        }
        1 => {
            text = format!(
                "{}{}{}",
                "[".repeat(b.below(200) * 60),
                text,
                "]".repeat(b.below(200) * 60)
            )
        }
        2 => text.push_str(" trailing"),
        3 => text = text.replace("1", "1e400"),
        _ => {}
    }
    text
}

/// JSON whitespace, or none.
fn space(b: &mut Bytes) -> &'static str {
    [" ", "", "", "\n\t ", "\r\n", ""][b.below(6)]
}

/// A member value written as text, in the forms a reader that keeps the action's text could get wrong: escapes,
/// fractions, exponents, signs, leading zeros, numbers near the integer limits, nesting at serde_json's limit,
/// whitespace.
fn action_value(b: &mut Bytes, depth: usize, out: &mut String) {
    const SCALARS: &[&str] = &[
        "0",
        "7",
        "-0",
        "-12",
        "0.5",
        "1e2",
        "1E400",
        "-",
        "01",
        "123456789012345678",
        "1234567890123456789",
        "18446744073709551616",
        "true",
        "false",
        "null",
        "nul",
        "\"\"",
        "\"move\"",
        "\"a\\\"b\"",
        "\"\\u0041\"",
        "\"é☃\"",
        "\"tab\there\"",
        "\"\\n\"",
        "[]",
        "{}",
    ];
    match b.byte() % 8 {
        0 if depth < 80 => {
            out.push('[');
            let n = b.below(3);
            for i in 0..n {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(space(b));
                action_value(b, depth + 1, out);
                out.push_str(space(b));
            }
            out.push(']');
        }
        1 if depth < 80 => {
            out.push('{');
            let n = b.below(3);
            for i in 0..n {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(space(b));
                out.push_str(["\"type\"", "\"to\"", "\"t\\u0079pe\"", "\"a\""][b.below(4)]);
                out.push(':');
                out.push_str(space(b));
                action_value(b, depth + 1, out);
            }
            out.push('}');
        }
        2 => {
            // Around serde_json's nesting limit for the whole frame (127 levels), which an action's text also keeps.
            let n = [63, 125, 126, 127, 128][b.below(5)];
            out.push_str(&"[".repeat(n));
            out.push('1');
            out.push_str(&"]".repeat(n));
        }
        _ => out.push_str(SCALARS[b.below(SCALARS.len())]),
    }
}

/// A frame that looks like an `action` request, written as text by hand (not through `Value`): its members in any
/// order, some given twice or missing, each in several forms, with whitespace between tokens and now and then
/// trailing text or a cut.
pub fn action_frame(data: &[u8]) -> String {
    const TYPES: &[&str] = &[
        "\"action\"",
        "\"action\"",
        "\"action\"",
        "\"acti\\u006fn\"",
        "\"ping\"",
        "5",
        "null",
    ];
    const IDS: &[&str] = &[
        "7",
        "0",
        "\"x\"",
        "\"a\\\"b\"",
        "null",
        "-1",
        "1.5",
        "18446744073709551615",
        "18446744073709551616",
        "01",
        "\"é\"",
        "{}",
        "123456789012345678",
    ];
    const VERSIONS: &[&str] = &[
        "3",
        "0",
        "null",
        "-1",
        "2.0",
        "1e2",
        "99999999999999999999",
        "\"7\"",
        "007",
    ];
    let mut b = Bytes::new(data);
    let mut text = String::new();
    text.push_str(space(&mut b));
    text.push('{');
    let members = 1 + b.below(5);
    for i in 0..members {
        if i > 0 {
            text.push(',');
        }
        text.push_str(space(&mut b));
        match b.byte() % 6 {
            0 => {
                text.push_str("\"type\":");
                text.push_str(TYPES[b.below(TYPES.len())]);
            }
            1 => {
                text.push_str("\"id\":");
                text.push_str(IDS[b.below(IDS.len())]);
            }
            2 => {
                text.push_str("\"version\":");
                text.push_str(VERSIONS[b.below(VERSIONS.len())]);
            }
            3 => {
                text.push_str("\"extra\":");
                action_value(&mut b, 1, &mut text);
            }
            _ => {
                text.push_str(["\"action\"", "\"action\"", "\"acti\\u006fn\""][b.below(3)]);
                text.push_str(space(&mut b));
                text.push(':');
                text.push_str(space(&mut b));
                action_value(&mut b, 1, &mut text);
            }
        }
        text.push_str(space(&mut b));
    }
    text.push('}');
    text.push_str(space(&mut b));
    match b.byte() % 16 {
        0 => text.push_str(" x"),
        1 => text.push(','),
        2 if !text.is_empty() => {
            let mut cut = b.byte() as usize % text.len();
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            text.truncate(cut);
        }
        _ => {}
    }
    text
}
