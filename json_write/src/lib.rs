//! JSON text written by generated code, for the server's hottest path: every viewer's view after every change.
//!
//! `#[derive(WriteJson)]` reads a type's `#[serde(...)]` attributes and generates [`WriteJson::write_json`], which
//! appends exactly the compact text `serde_json::to_vec` gives for the value (members in declaration order, the
//! same names, renames and tags), with each member name, separator and unit variant written as one constant
//! piece of text. serde's derive stays the definition: the derive refuses (at compile time) any serde attribute
//! it does not reproduce, and `rules` checks through random games of every game that every view's text is
//! byte for byte serde's. Why it exists: serde_json writes every member name through its escaping string
//! writer, a few bytes at a time, which made the 4-seat loads up to a third slower than the hand-kept writers
//! issue 29 deleted (`docs/performance.md`).
//!
//! Supported: structs with named fields, newtype, tuple and unit structs, `transparent`; enums externally
//! (default), internally (`tag`) and adjacently (`tag` + `content`) tagged, and `untagged`; `rename`,
//! `rename_all` (serde's rules), `skip`, `skip_serializing`, `skip_serializing_if`, and `flatten` of a struct or an
//! internally tagged enum after a member that is always written. Deserialize-only attributes (`default`,
//! `deny_unknown_fields`, `alias`) are ignored; anything else is a compile error.
//!
//! One attribute of its own, `#[json(shared)]` on a struct's member: the member is the same in every viewer's
//! view of one state, so [`WriteJson::write_json_shared`] writes it for the first viewer and copies its text for
//! the others ([`Shared`]). It changes no text, and `write_json` ignores it.
//!
//! `#[derive(TagFirst)]` is the reading side's one piece: serde's `Deserialize` for an internally tagged enum
//! that reads the tag first when it comes first, instead of buffering the whole object ([`tag_first`]).

pub use json_write_derive::{TagFirst, WriteJson};

pub mod plain;
pub mod tag_first;

use std::borrow::Cow;

/// A value that appends its JSON text to a buffer: serde_json's compact text of the same value.
pub trait WriteJson {
    fn write_json(&self, out: &mut String);

    /// [`WriteJson::write_json`] for one of several viewers' views of one change: a member marked
    /// `#[json(shared)]` takes its text from `shared` once another viewer's view wrote it there. The derive
    /// passes `shared` on to every member, and lists, options and references pass it on to what they hold;
    /// every other type writes itself as always.
    #[inline]
    fn write_json_shared(&self, out: &mut String, shared: &mut Shared) {
        let _ = shared;
        self.write_json(out);
    }

    /// The text in a new string (tests; the server sizes its buffers from the last text).
    fn to_json_string(&self) -> String {
        let mut out = String::new();
        self.write_json(&mut out);
        out
    }
}

/// `value`'s text as a `RawValue`, written straight into a buffer of `size_hint` bytes (then set from this
/// text's length, plus a margin: keep it from call to call, so that the buffer seldom grows by doubling) that
/// becomes the `RawValue` as it is: no copy, and no second parse as `RawValue::from_string` would spend (it
/// costs more than writing the text; callgrind, `docs/performance.md`). Debug builds, and so every test, parse
/// it anyway and panic on anything but JSON.
pub fn to_raw_value<T: WriteJson + ?Sized>(
    value: &T,
    size_hint: &mut usize,
) -> Box<serde_json::value::RawValue> {
    let mut out = String::with_capacity(*size_hint);
    value.write_json(&mut out);
    written_raw_value(out, size_hint)
}

/// [`to_raw_value`] of one of several viewers' views of one change, the members every viewer shares
/// (`#[json(shared)]`) copied from `shared` once written ([`Shared`]).
pub fn to_raw_value_shared<T: WriteJson + ?Sized>(
    value: &T,
    size_hint: &mut usize,
    shared: &mut Shared,
) -> Box<serde_json::value::RawValue> {
    let mut out = String::with_capacity(*size_hint);
    value.write_json_shared(&mut out, shared);
    written_raw_value(out, size_hint)
}

/// The end of [`to_raw_value`] and [`to_raw_value_shared`]: the next size hint, and `out` as a `RawValue`.
fn written_raw_value(out: String, size_hint: &mut usize) -> Box<serde_json::value::RawValue> {
    *size_hint = (out.len() + out.len() / 8 + 64).min(1 << 20);
    debug_assert!(
        serde_json::from_str::<serde::de::IgnoredAny>(&out).is_ok(),
        "not JSON: {out}"
    );
    // SAFETY: `from_string_unchecked` asks for valid JSON. `out` is what `write_json` wrote, which is the JSON
    // serde_json writes for the same value: every `WriteJson` impl here writes JSON, and the derive writes only
    // those impls' output and constant punctuation (`write_json_shared` writes what `write_json` writes, or a copy
    // of text that `write_json` wrote for the same member: `Shared::write`). `tests/derive.rs` and `rules`' random
    // games compare the texts with serde's, byte for byte.
    #[allow(unsafe_code)]
    unsafe {
        serde_json::value::RawValue::from_string_unchecked(out)
    }
}

/// The text of the view members that every viewer shares, kept by the writer of one change's views: a view is
/// built once per change and rebound from viewer to viewer in place (`rules::Game::rebind_view`), and a member
/// marked `#[json(shared)]` in its type is written for the first viewer and copied for the others. A member is
/// known by where it lies in the view, so one `Shared` serves the views of one state only, rebound in place:
/// make a new one for the next change. The engine promises that a shared member is the same for every viewer
/// (`rules`' random games check every rebound view's text against a view built afresh).
#[derive(Debug, Default)]
pub struct Shared {
    text: String,
    /// Each member written so far: its address and its text's place in `text`.
    kept: Vec<(usize, std::ops::Range<usize>)>,
}

impl Shared {
    /// Writes `member`, or copies its text if it was written before.
    pub fn write<T: WriteJson + ?Sized>(&mut self, member: &T, out: &mut String) {
        let at = (member as *const T).cast::<()>() as usize;
        if let Some((_, range)) = self.kept.iter().find(|(a, _)| *a == at) {
            out.push_str(&self.text[range.clone()]);
            return;
        }
        let start = out.len();
        member.write_json(out);
        let from = self.text.len();
        self.text.push_str(&out[start..]);
        self.kept.push((at, from..self.text.len()));
    }
}

/// A buffer kept from call to call for a text that is often the same as the last one (a seat's legal actions
/// after another seat's move): [`Buffer::write`] writes into it without allocating once it is large enough, the
/// caller compares, and [`Buffer::to_raw_value`] copies the text out only when it is needed.
#[derive(Debug, Default)]
pub struct Buffer(String);

impl Buffer {
    /// Writes `value`'s text in place of the last one and returns it.
    pub fn write<T: WriteJson + ?Sized>(&mut self, value: &T) -> &str {
        self.0.clear();
        value.write_json(&mut self.0);
        debug_assert!(
            serde_json::from_str::<serde::de::IgnoredAny>(&self.0).is_ok(),
            "not JSON: {}",
            self.0
        );
        &self.0
    }

    /// The text last written.
    pub fn text(&self) -> &str {
        &self.0
    }

    /// A copy of the text last written, as a `RawValue` (no second parse: see [`to_raw_value`]).
    pub fn to_raw_value(&self) -> Box<serde_json::value::RawValue> {
        // SAFETY: as in `to_raw_value`: the buffer only ever holds what a `WriteJson` impl wrote (or nothing, and
        // an empty buffer is never turned into a value: `write` is the only way in, and the caller asks after it).
        debug_assert!(!self.0.is_empty(), "nothing written");
        #[allow(unsafe_code)]
        unsafe {
            serde_json::value::RawValue::from_string_unchecked(self.0.clone())
        }
    }
}

/// A struct with named fields that can also write its members alone, each as `,"name":value`: what an
/// internally tagged enum's newtype variant writes after its tag (serde merges the struct's members into the
/// tagged object). Derived with [`WriteJson`] for every struct with named fields.
pub trait WriteJsonMembers {
    fn write_json_members(&self, out: &mut String);
}

impl<T: WriteJsonMembers + ?Sized> WriteJsonMembers for Box<T> {
    #[inline]
    fn write_json_members(&self, out: &mut String) {
        (**self).write_json_members(out);
    }
}

/// Which bytes a JSON string must escape: `"`, `\\` and the control characters (serde_json's set).
const NEEDS_ESCAPE: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 0x20 {
        table[b] = true;
        b += 1;
    }
    table[b'"' as usize] = true;
    table[b'\\' as usize] = true;
    table
};

/// Writes `s` as a JSON string, escaped exactly as serde_json escapes (`"`, `\`, and control characters; `/`
/// and non-ASCII characters as they are). Runs of bytes that need no escape are copied whole.
pub fn write_str(out: &mut String, s: &str) {
    out.push('"');
    let bytes = s.as_bytes();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        if !NEEDS_ESCAPE[usize::from(b)] {
            continue;
        }
        // `start..i` ends before an ASCII byte, so on a character boundary.
        out.push_str(&s[start..i]);
        match b {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            0x08 => out.push_str("\\b"),
            0x0c => out.push_str("\\f"),
            _ => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                out.push_str("\\u00");
                out.push(char::from(HEX[usize::from(b >> 4)]));
                out.push(char::from(HEX[usize::from(b & 0xf)]));
            }
        }
        start = i + 1;
    }
    out.push_str(&s[start..]);
    out.push('"');
}

/// Writes `n` (below 100) as its one or two digits, without the formatting buffer's copy.
#[inline]
fn push_small(out: &mut String, n: u8) {
    if n >= 10 {
        out.push(char::from(b'0' + n / 10));
    }
    out.push(char::from(b'0' + n % 10));
}

macro_rules! integers {
    ($($t:ty),*) => {$(
        impl WriteJson for $t {
            #[inline]
            fn write_json(&self, out: &mut String) {
                // Most numbers in a view are small (seats, ids, counts, coordinates).
                #[allow(unused_comparisons)]
                if *self >= 0 && *self < 100 {
                    push_small(out, *self as u8);
                } else {
                    out.push_str(itoa::Buffer::new().format(*self));
                }
            }
        }
    )*};
}
integers!(u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize);

macro_rules! through_serde_json {
    ($($t:ty),*) => {$(
        /// Written by serde_json itself (its float format and its `null` for non-finite values).
        impl WriteJson for $t {
            fn write_json(&self, out: &mut String) {
                out.push_str(&serde_json::to_string(self).expect("a number serialises"));
            }
        }
    )*};
}
through_serde_json!(f32, f64);

/// A JSON tree, written by serde_json itself.
impl WriteJson for serde_json::Value {
    fn write_json(&self, out: &mut String) {
        out.push_str(&serde_json::to_string(self).expect("a JSON value serialises"));
    }
}

impl WriteJson for bool {
    #[inline]
    fn write_json(&self, out: &mut String) {
        out.push_str(if *self { "true" } else { "false" });
    }
}

impl WriteJson for str {
    #[inline]
    fn write_json(&self, out: &mut String) {
        write_str(out, self);
    }
}

impl WriteJson for String {
    #[inline]
    fn write_json(&self, out: &mut String) {
        write_str(out, self);
    }
}

impl WriteJson for char {
    fn write_json(&self, out: &mut String) {
        write_str(out, self.encode_utf8(&mut [0; 4]));
    }
}

impl WriteJson for () {
    fn write_json(&self, out: &mut String) {
        out.push_str("null");
    }
}

impl<T: WriteJson + ?Sized> WriteJson for &T {
    #[inline]
    fn write_json(&self, out: &mut String) {
        (**self).write_json(out);
    }

    #[inline]
    fn write_json_shared(&self, out: &mut String, shared: &mut Shared) {
        (**self).write_json_shared(out, shared);
    }
}

impl<T: WriteJson + ?Sized> WriteJson for Box<T> {
    #[inline]
    fn write_json(&self, out: &mut String) {
        (**self).write_json(out);
    }

    #[inline]
    fn write_json_shared(&self, out: &mut String, shared: &mut Shared) {
        (**self).write_json_shared(out, shared);
    }
}

impl<T: WriteJson + ?Sized> WriteJson for std::sync::Arc<T> {
    fn write_json(&self, out: &mut String) {
        (**self).write_json(out);
    }
}

impl<T: WriteJson + ToOwned + ?Sized> WriteJson for Cow<'_, T> {
    #[inline]
    fn write_json(&self, out: &mut String) {
        (**self).write_json(out);
    }
}

impl<T: WriteJson> WriteJson for Option<T> {
    #[inline]
    fn write_json(&self, out: &mut String) {
        match self {
            Some(value) => value.write_json(out),
            None => out.push_str("null"),
        }
    }

    #[inline]
    fn write_json_shared(&self, out: &mut String, shared: &mut Shared) {
        match self {
            Some(value) => value.write_json_shared(out, shared),
            None => out.push_str("null"),
        }
    }
}

impl<T: WriteJson> WriteJson for [T] {
    fn write_json(&self, out: &mut String) {
        out.push('[');
        let mut items = self.iter();
        if let Some(first) = items.next() {
            first.write_json(out);
            for item in items {
                out.push(',');
                item.write_json(out);
            }
        }
        out.push(']');
    }

    fn write_json_shared(&self, out: &mut String, shared: &mut Shared) {
        out.push('[');
        let mut items = self.iter();
        if let Some(first) = items.next() {
            first.write_json_shared(out, shared);
            for item in items {
                out.push(',');
                item.write_json_shared(out, shared);
            }
        }
        out.push(']');
    }
}

impl<T: WriteJson, const N: usize> WriteJson for [T; N] {
    #[inline]
    fn write_json(&self, out: &mut String) {
        self.as_slice().write_json(out);
    }

    #[inline]
    fn write_json_shared(&self, out: &mut String, shared: &mut Shared) {
        self.as_slice().write_json_shared(out, shared);
    }
}

impl<T: WriteJson> WriteJson for Vec<T> {
    #[inline]
    fn write_json(&self, out: &mut String) {
        self.as_slice().write_json(out);
    }

    #[inline]
    fn write_json_shared(&self, out: &mut String, shared: &mut Shared) {
        self.as_slice().write_json_shared(out, shared);
    }
}

impl<T: WriteJson> WriteJson for std::collections::VecDeque<T> {
    fn write_json(&self, out: &mut String) {
        out.push('[');
        for (i, item) in self.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            item.write_json(out);
        }
        out.push(']');
    }
}

impl<T: WriteJson> WriteJson for std::collections::BTreeSet<T> {
    fn write_json(&self, out: &mut String) {
        out.push('[');
        for (i, item) in self.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            item.write_json(out);
        }
        out.push(']');
    }
}

/// A map key as serde_json writes it: strings as they are, integers quoted.
pub trait WriteJsonKey {
    fn write_json_key(&self, out: &mut String);
}

impl WriteJsonKey for str {
    fn write_json_key(&self, out: &mut String) {
        write_str(out, self);
    }
}

impl WriteJsonKey for String {
    fn write_json_key(&self, out: &mut String) {
        write_str(out, self);
    }
}

impl<T: WriteJsonKey + ?Sized> WriteJsonKey for &T {
    fn write_json_key(&self, out: &mut String) {
        (**self).write_json_key(out);
    }
}

macro_rules! integer_keys {
    ($($t:ty),*) => {$(
        impl WriteJsonKey for $t {
            fn write_json_key(&self, out: &mut String) {
                out.push('"');
                self.write_json(out);
                out.push('"');
            }
        }
    )*};
}
integer_keys!(u8, u16, u32, u64, usize, i8, i16, i32, i64, isize);

impl<K: WriteJsonKey, V: WriteJson> WriteJson for std::collections::BTreeMap<K, V> {
    fn write_json(&self, out: &mut String) {
        out.push('{');
        for (i, (key, value)) in self.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            key.write_json_key(out);
            out.push(':');
            value.write_json(out);
        }
        out.push('}');
    }
}

macro_rules! tuples {
    ($(($($n:tt $t:ident),+)),*) => {$(
        impl<$($t: WriteJson),+> WriteJson for ($($t,)+) {
            fn write_json(&self, out: &mut String) {
                out.push('[');
                let mut _first = true;
                $(
                    if !_first {
                        out.push(',');
                    }
                    _first = false;
                    self.$n.write_json(out);
                )+
                out.push(']');
            }
        }
    )*};
}
tuples!((0 A), (0 A, 1 B), (0 A, 1 B, 2 C), (0 A, 1 B, 2 C, 3 D));

/// A list written from a borrowed slice through a function, `[map(a, 0, ctx),map(b, 1, ctx),...]`, without
/// building it: what a borrowed view holds where the state keeps ids and the view shows what each id is (a hand
/// of card ids shown as cards), or one column of a table kept by rows (`ctx` is the column). `map` gets each item,
/// its index and `ctx`; what it returns may borrow from the items. serde writes the same sequence, and its JSON
/// Schema is that of `Vec<U>`.
pub struct Mapped<'a, T, U, C: Copy = ()> {
    pub items: &'a [T],
    pub ctx: C,
    pub map: fn(&'a T, usize, C) -> U,
}

impl<'a, T, U, C: Copy> Mapped<'a, T, U, C> {
    pub fn new(items: &'a [T], ctx: C, map: fn(&'a T, usize, C) -> U) -> Self {
        Mapped { items, ctx, map }
    }

    /// Each item as `map` gives it.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = U> + '_ {
        let (map, ctx) = (self.map, self.ctx);
        self.items
            .iter()
            .enumerate()
            .map(move |(i, item)| map(item, i, ctx))
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The list as built values (tests, and callers that look inside).
    pub fn to_vec(&self) -> Vec<U> {
        self.iter().collect()
    }
}

impl<T, U, C: Copy> Clone for Mapped<'_, T, U, C> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T, U, C: Copy> Copy for Mapped<'_, T, U, C> {}

impl<T, U: std::fmt::Debug, C: Copy> std::fmt::Debug for Mapped<'_, T, U, C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<T, U: PartialEq, C: Copy> PartialEq for Mapped<'_, T, U, C> {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().zip(other.iter()).all(|(a, b)| a == b)
    }
}

impl<T, U: Eq, C: Copy> Eq for Mapped<'_, T, U, C> {}

impl<T, U: WriteJson, C: Copy> WriteJson for Mapped<'_, T, U, C> {
    fn write_json(&self, out: &mut String) {
        out.push('[');
        let mut items = self.iter();
        if let Some(first) = items.next() {
            first.write_json(out);
            for item in items {
                out.push(',');
                item.write_json(out);
            }
        }
        out.push(']');
    }
}

impl<T, U: serde::Serialize, C: Copy> serde::Serialize for Mapped<'_, T, U, C> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
    }
}

impl<T, U: schemars::JsonSchema, C: Copy> schemars::JsonSchema for Mapped<'_, T, U, C> {
    fn inline_schema() -> bool {
        <Vec<U>>::inline_schema()
    }

    fn schema_name() -> Cow<'static, str> {
        <Vec<U>>::schema_name()
    }

    fn schema_id() -> Cow<'static, str> {
        <Vec<U>>::schema_id()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        <Vec<U>>::json_schema(generator)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn same<T: WriteJson + serde::Serialize + ?Sized>(value: &T) {
        let ours = value.to_json_string();
        assert_eq!(ours, serde_json::to_string(value).expect("serialises"));
    }

    #[test]
    fn strings_are_escaped_as_serde_json_escapes_them() {
        for s in [
            "",
            "plain",
            "quote \" backslash \\ slash / tab \t nl \n cr \r",
            "\u{0}\u{1}\u{8}\u{b}\u{c}\u{1f}\u{7f}",
            "żółw 🐭 \u{2028}",
        ] {
            same(s);
            same(&s.to_string());
        }
        same(&'"');
        same(&'x');
    }

    #[test]
    fn numbers_and_collections_are_serde_jsons_text() {
        same(&0u8);
        for n in [9u8, 10, 99, 100, 255] {
            same(&n);
            same(&i64::from(n));
            same(&-i64::from(n));
        }
        same(&u64::MAX);
        same(&i64::MIN);
        same(&-7i32);
        same(&1.5f64);
        same(&1.0f64);
        same(&f64::NAN);
        same(&true);
        same(&Some(3u8));
        same(&None::<u8>);
        same(&vec![1u8, 2, 3]);
        same(&Vec::<u8>::new());
        same(&[[1u8, 2], [3, 4]]);
        same(&(1u8, "two", false));
        same(&std::collections::BTreeMap::from([(1u8, "a"), (2, "b")]));
        same(&std::collections::BTreeMap::from([("k".to_string(), vec![1u8])]));
        same(&Cow::Borrowed("cow"));
        same(&Box::new(5u16));
    }

    #[test]
    fn a_shared_member_is_written_once_and_then_copied() {
        let members = [vec!["a\"b".to_string()], vec!["c".to_string()]];
        let mut shared = Shared::default();
        let mut out = String::from("[1,");
        shared.write(&members[0], &mut out);
        assert_eq!(out, r#"[1,["a\"b"]"#);
        // The second write of the same member copies the kept text; another member is written (and kept) anew.
        let mut again = String::new();
        shared.write(&members[0], &mut again);
        shared.write(&members[1], &mut again);
        shared.write(&members[1], &mut again);
        assert_eq!(again, r#"["a\"b"]["c"]["c"]"#);
        assert_eq!(shared.kept.len(), 2);
        assert_eq!(shared.text, r#"["a\"b"]["c"]"#);
        // What a shared write gives for anything that marks nothing: its own text.
        let mut plain = String::new();
        Some(&members[..]).write_json_shared(&mut plain, &mut shared);
        assert_eq!(plain, serde_json::to_string(&members).unwrap());
    }
}
