//! The derive writes serde's text for every shape and attribute it accepts.

use std::borrow::Cow;

use json_write::WriteJson;
use serde::Serialize;

fn same<T: WriteJson + Serialize>(value: &T) {
    let ours = value.to_json_string();
    assert_eq!(ours, serde_json::to_string(value).expect("serialises"));
}

#[derive(Serialize, WriteJson)]
struct Plain {
    a: u8,
    r#type: &'static str,
    nested: Vec<Inner>,
    maybe: Option<Inner>,
    #[serde(rename = "re\"named")]
    renamed: bool,
    #[serde(skip)]
    #[allow(dead_code)]
    hidden: u8,
}

#[derive(Serialize, WriteJson, Clone)]
#[serde(rename_all = "camelCase")]
struct Inner {
    long_name: i64,
    other_long_name: Cow<'static, str>,
}

#[derive(Serialize, WriteJson)]
struct Empty {}

fn is_zero(n: &u8) -> bool {
    *n == 0
}

#[derive(Serialize, WriteJson)]
struct Skipping {
    #[serde(skip_serializing_if = "is_zero")]
    a: u8,
    #[serde(skip_serializing_if = "Option::is_none")]
    b: Option<u8>,
    c: u8,
    #[serde(skip_serializing_if = "is_zero")]
    d: u8,
}

#[derive(Serialize, WriteJson)]
struct SkippingAfter {
    c: u8,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    d: Vec<u8>,
}

#[derive(Serialize, WriteJson)]
struct AllSkippable {
    #[serde(skip_serializing_if = "is_zero")]
    a: u8,
    #[serde(skip_serializing_if = "is_zero")]
    b: u8,
}

#[derive(Serialize, WriteJson)]
struct Unit;

#[derive(Serialize, WriteJson)]
struct Newtype(u32);

#[derive(Serialize, WriteJson)]
struct Pair(u8, &'static str);

#[derive(Serialize, WriteJson)]
#[serde(transparent)]
struct Transparent {
    inner: Inner,
}

#[derive(Serialize, WriteJson)]
struct Borrowed<'a, T> {
    items: &'a [T],
}

#[derive(Serialize, WriteJson)]
#[serde(rename_all = "snake_case")]
enum External {
    UnitOne,
    NewType(Inner),
    Tuple(u8, u8),
    Struct {
        some_field: u8,
        other: bool,
    },
    #[serde(rename = "6x6")]
    Renamed,
}

#[derive(Serialize, WriteJson)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Internal {
    UnitOne,
    NewType(Inner),
    Struct { some_field: u8 },
}

#[derive(Serialize, WriteJson)]
#[serde(tag = "t", content = "c", rename_all = "SCREAMING_SNAKE_CASE")]
enum Adjacent {
    UnitOne,
    NewType(u8),
    Tuple(u8, bool),
    Struct { some_field: u8 },
}

#[derive(Serialize, WriteJson)]
#[serde(untagged)]
enum Untagged {
    UnitOne,
    NewType(u8),
    Struct { some_field: u8 },
}

#[derive(Serialize, WriteJson)]
#[serde(rename_all = "kebab-case")]
enum Kebab {
    TwoWords,
}

#[derive(Serialize, WriteJson)]
#[serde(rename_all = "PascalCase")]
struct PascalFields {
    two_words: u8,
}

#[test]
fn every_shape_is_serdes_text() {
    let inner = Inner {
        long_name: -3,
        other_long_name: Cow::Borrowed("x\"y"),
    };
    same(&Plain {
        a: 1,
        r#type: "t",
        nested: vec![inner.clone(), inner.clone()],
        maybe: None,
        renamed: true,
        hidden: 9,
    });
    same(&Empty {});
    for a in [0, 1] {
        for b in [None, Some(2)] {
            for d in [0, 3] {
                same(&Skipping { a, b, c: 9, d });
                same(&AllSkippable { a, b: d });
            }
        }
    }
    same(&SkippingAfter { c: 1, d: vec![] });
    same(&SkippingAfter { c: 1, d: vec![2] });
    same(&Unit);
    same(&Newtype(7));
    same(&Pair(1, "b"));
    same(&Transparent { inner: inner.clone() });
    same(&Borrowed { items: &[1u8, 2] });
    for e in [
        External::UnitOne,
        External::NewType(inner.clone()),
        External::Tuple(1, 2),
        External::Struct {
            some_field: 1,
            other: false,
        },
        External::Renamed,
    ] {
        same(&e);
    }
    for e in [
        Internal::UnitOne,
        Internal::NewType(inner.clone()),
        Internal::Struct { some_field: 4 },
    ] {
        same(&e);
    }
    for e in [
        Adjacent::UnitOne,
        Adjacent::NewType(1),
        Adjacent::Tuple(1, true),
        Adjacent::Struct { some_field: 2 },
    ] {
        same(&e);
    }
    for e in [
        Untagged::UnitOne,
        Untagged::NewType(3),
        Untagged::Struct { some_field: 5 },
    ] {
        same(&e);
    }
    same(&Kebab::TwoWords);
    same(&PascalFields { two_words: 1 });
}

/// An internally tagged enum flattened into a struct and into a struct variant (as a Hickory Dickory event does).
#[derive(Serialize, WriteJson, Clone, Copy)]
#[serde(tag = "piece", rename_all = "snake_case")]
enum Piece {
    Tile { colour: u8 },
    Favour { card: u8, worth: i64 },
    Nothing,
}

#[derive(Serialize, WriteJson)]
struct Flattening {
    seat: u8,
    #[serde(flatten)]
    piece: Piece,
    #[serde(flatten)]
    inner: Inner,
    after: bool,
}

#[derive(Serialize, WriteJson)]
#[serde(tag = "type", rename_all = "snake_case")]
enum FlatEvent {
    Marked {
        seat: u8,
        #[serde(flatten)]
        piece: Piece,
    },
    Other,
}

#[test]
fn flattened_members_are_serdes_text() {
    let inner = Inner {
        long_name: 7,
        other_long_name: Cow::Borrowed("x"),
    };
    for piece in [
        Piece::Tile { colour: 2 },
        Piece::Favour { card: 1, worth: -4 },
        Piece::Nothing,
    ] {
        same(&Flattening {
            seat: 1,
            piece,
            inner: inner.clone(),
            after: true,
        });
        same(&FlatEvent::Marked { seat: 3, piece });
    }
    same(&FlatEvent::Other);
}

#[derive(Serialize, WriteJson)]
struct Seen {
    viewer: u8,
    #[json(shared)]
    board: Vec<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[json(shared)]
    note: Option<&'static str>,
    hands: Vec<Hand>,
}

#[derive(Serialize, WriteJson)]
struct Hand {
    #[json(shared)]
    shown: Vec<u8>,
    own: Option<Vec<u8>>,
}

#[test]
fn shared_members_are_written_once_for_every_viewer() {
    let mut view = Seen {
        viewer: 0,
        board: vec![1, 2, 3],
        note: Some("\"x\""),
        hands: vec![
            Hand {
                shown: vec![4],
                own: Some(vec![5]),
            },
            Hand {
                shown: vec![6],
                own: None,
            },
        ],
    };
    same(&view);
    let mut shared = json_write::Shared::default();
    let mut first = String::new();
    view.write_json_shared(&mut first, &mut shared);
    assert_eq!(first, serde_json::to_string(&view).unwrap());
    // Rebound in place for the next viewer: its own members change, the shared ones keep their text.
    view.viewer = 1;
    view.hands[0].own = None;
    view.hands[1].own = Some(vec![7, 8]);
    let mut second = String::new();
    view.write_json_shared(&mut second, &mut shared);
    assert_eq!(second, serde_json::to_string(&view).unwrap());
    // The kept text is what is copied: a shared member changed against the promise shows its first text, which is
    // how the copy (and not a second write) is seen.
    view.board.truncate(0);
    let mut third = String::new();
    view.write_json_shared(&mut third, &mut shared);
    assert!(third.contains(r#""board":[1,2,3]"#), "{third}");
    assert!(view.to_json_string().contains(r#""board":[]"#));
}
