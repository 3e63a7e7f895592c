//! `#[derive(TagFirst)]` reads what serde's derive reads, and refuses what it refuses with the same words: the
//! same enum is defined twice, once with each derive, and both read every input below.

use serde::Deserialize;

#[derive(Debug, PartialEq, Deserialize)]
pub struct Cell {
    pub row: u8,
    pub col: u8,
}

#[derive(Debug, PartialEq, Deserialize)]
pub struct Inner {
    pub a: u8,
    #[serde(default)]
    pub b: Option<String>,
}

/// The enum, with the derive that reads it.
macro_rules! action {
    ($derive:path) => {
        #[derive(Debug, PartialEq, $derive)]
        #[serde(tag = "type", rename_all = "snake_case")]
        pub enum Action {
            /// A doc comment, dropped by the twins.
            Move {
                to: Cell,
            },
            Choose {
                cell: Cell,
                #[serde(default)]
                fast: bool,
            },
            Stop,
            #[serde(rename = "eek!")]
            Eeek {
                cell: Cell,
            },
            Wrapped(Inner),
            Many {
                #[serde(rename = "items")]
                list: Vec<u8>,
                #[serde(alias = "label")]
                name: String,
            },
            CloseRace,
        }
    };
}

/// The same enum read by serde's derive ...
mod by_serde {
    use super::{Cell, Inner};
    use serde::Deserialize;
    action!(Deserialize);
}

/// ... and by `TagFirst`.
mod by_tag_first {
    use super::{Cell, Inner};
    action!(json_write::TagFirst);
}

/// serde_json's message without its position: the two reads may notice a fault at different points of the text.
fn words(e: serde_json::Error) -> String {
    let text = e.to_string();
    match text.rfind(" at line ") {
        Some(at) => text[..at].to_owned(),
        None => text,
    }
}

fn read_both(text: &str) -> (Result<String, String>, Result<String, String>) {
    let theirs = serde_json::from_str::<by_serde::Action>(text)
        .map(|a| format!("{a:?}"))
        .map_err(words);
    let ours = serde_json::from_str::<by_tag_first::Action>(text)
        .map(|a| format!("{a:?}"))
        .map_err(words);
    (theirs, ours)
}

const CASES: &[&str] = &[
    // The tag first: read straight.
    r#"{"type":"move","to":{"row":1,"col":2}}"#,
    r#"{"type":"choose","cell":{"row":0,"col":9}}"#,
    r#"{"type":"choose","cell":{"row":0,"col":9},"fast":true}"#,
    r#"{"type":"stop"}"#,
    r#"{"type":"stop","extra":[1,{"x":null}]}"#,
    r#"{"type":"close_race"}"#,
    r#"{"type":"eek!","cell":{"row":3,"col":4}}"#,
    r#"{"type":"wrapped","a":7}"#,
    r#"{"type":"wrapped","a":7,"b":"x"}"#,
    r#"{"type":"wrapped","b":"x"}"#,
    r#"{"type":"many","items":[1,2,3],"name":"n"}"#,
    r#"{"type":"many","items":[1,2,3],"label":"n"}"#,
    r#"{"type":"m\u0061ny","items":[],"name":"escaped tag"}"#,
    r#"{"ty\u0070e":"stop"}"#,
    r#"{ "type" : "move" , "to" : { "col" : 2 , "row" : 1 } , "unknown" : 5 }"#,
    // Refused with the tag first.
    r#"{"type":"fly"}"#,
    r#"{"type":"eeek","cell":{"row":3,"col":4}}"#,
    r#"{"type":"move"}"#,
    r#"{"type":"move","to":{"row":1}}"#,
    r#"{"type":"move","to":{"row":1,"col":256}}"#,
    r#"{"type":"move","to":{"row":-1,"col":2}}"#,
    r#"{"type":"move","to":[1,2]}"#,
    r#"{"type":"move","to":"a1"}"#,
    r#"{"type":"move","to":{"row":1,"col":2},"to":{"row":1,"col":2}}"#,
    r#"{"type":"stop","type":"move"}"#,
    r#"{"type":"move","type":"move","to":{"row":1,"col":2}}"#,
    r#"{"type":"move","to":{"row":1,"col":2},"type":"stop"}"#,
    r#"{"type":"many","items":[1,2,3]}"#,
    r#"{"type":"many","items":[1,2,3],"name":"a","label":"b"}"#,
    r#"{"type":true}"#,
    r#"{"type":null}"#,
    r#"{"type":{"a":1}}"#,
    r#"{"type":["stop"]}"#,
    r#"{"type":1.5}"#,
    r#"{"type":-1}"#,
    // A variant's index, which serde's variant identifiers take as well.
    r#"{"type":2}"#,
    r#"{"type":0,"to":{"row":1,"col":2}}"#,
    r#"{"type":99}"#,
    // The tag later, or missing: buffered.
    r#"{"to":{"row":1,"col":2},"type":"move"}"#,
    r#"{"cell":{"row":0,"col":9},"fast":false,"type":"choose"}"#,
    r#"{"extra":1,"type":"stop"}"#,
    r#"{"a":7,"type":"wrapped"}"#,
    r#"{"to":{"row":1,"col":2}}"#,
    r#"{"to":{"row":1,"col":2},"type":"fly"}"#,
    r#"{"to":{"row":1,"col":2},"type":"move","type":"stop"}"#,
    r#"{"to":{"row":1,"col":2},"to":{"row":1,"col":3},"type":"move"}"#,
    r#"{"x":1,"type":7}"#,
    r#"{"x":1,"type":1}"#,
    r#"{}"#,
    // Not an object.
    r#"["stop"]"#,
    r#"["move",{"row":1,"col":2}]"#,
    r#"["fly"]"#,
    r#"[]"#,
    r#""stop""#,
    r#"null"#,
    r#"7"#,
    r#"true"#,
];

#[test]
fn reads_and_refuses_as_serde_does() {
    for text in CASES {
        let (theirs, ours) = read_both(text);
        assert_eq!(ours, theirs, "{text}");
    }
}

#[test]
fn the_cases_cover_both_outcomes_and_both_reads() {
    let read: Vec<bool> = CASES.iter().map(|t| read_both(t).0.is_ok()).collect();
    assert!(
        read.iter().filter(|&&ok| ok).count() >= 15,
        "enough accepted cases"
    );
    assert!(
        read.iter().filter(|&&ok| !ok).count() >= 20,
        "enough refused cases"
    );
}

/// From a `serde_json::Value` (the other way the rules read an action) as from text.
#[test]
fn reads_from_a_value_as_serde_does() {
    for text in CASES {
        let Ok(value) = serde_json::from_str::<serde_json::Value>(text) else {
            continue;
        };
        let theirs = by_serde::Action::deserialize(&value)
            .map(|a| format!("{a:?}"))
            .map_err(words);
        let ours = by_tag_first::Action::deserialize(&value)
            .map(|a| format!("{a:?}"))
            .map_err(words);
        assert_eq!(ours, theirs, "{text}");
    }
}
