//! Small pieces for an engine that writes its view's JSON text by hand (`Game::view_text`): the text must be
//! exactly what serde's derived serialisation of the view writes (compact, members in declaration order), which
//! the registry's `json_text_is_the_same_value_as_the_value_path` checks through whole random games.

use serde::Serialize;

use crate::model::{Seat, Viewer};

/// Appends `n` in decimal.
pub(crate) fn push_number(out: &mut String, n: impl itoa::Integer) {
    out.push_str(itoa::Buffer::new().format(n));
}

/// Appends `n` in decimal, as [`push_number`] does: nearly all the numbers of a view (seats, spaces, counts)
/// are below 1,000, and their digits pushed one by one cost less than a formatted copy (a `memcpy` each).
#[inline]
pub(crate) fn push_small(out: &mut String, n: impl Into<u32>) {
    let n: u32 = n.into();
    if n >= 1000 {
        return push_number(out, n);
    }
    if n >= 100 {
        out.push(char::from(b'0' + (n / 100) as u8));
    }
    if n >= 10 {
        out.push(char::from(b'0' + (n / 10 % 10) as u8));
    }
    out.push(char::from(b'0' + (n % 10) as u8));
}

/// Appends a [`Seat`] as serde writes it: its number.
pub(crate) fn push_seat(out: &mut String, seat: Seat) {
    push_small(out, seat.0);
}

/// Appends `"name"`, for the `snake_case` names serde writes for unit variants and tags and the names in a
/// game's own data: text that never needs escaping (anything else goes through [`push_serde`]).
pub(crate) fn push_name(out: &mut String, name: &str) {
    out.push('"');
    out.push_str(name);
    out.push('"');
}

/// Appends a [`Viewer`] as serde writes it: `{"seat":n}` or `"spectator"`.
pub(crate) fn push_viewer(out: &mut String, viewer: Viewer) {
    match viewer {
        Viewer::Seat(seat) => {
            out.push_str(r#"{"seat":"#);
            push_small(out, seat.0);
            out.push('}');
        }
        Viewer::Spectator => out.push_str(r#""spectator""#),
    }
}

/// Appends `n` in decimal, or `null`.
pub(crate) fn push_optional(out: &mut String, n: Option<impl itoa::Integer>) {
    match n {
        Some(n) => push_number(out, n),
        None => out.push_str("null"),
    }
}

/// Appends `true` or `false`.
pub(crate) fn push_bool(out: &mut String, b: bool) {
    out.push_str(if b { "true" } else { "false" });
}

/// Appends serde's JSON text of a value (for the small or rarely present members a hand-written view leaves to
/// serde).
pub(crate) fn push_serde(out: &mut String, value: &impl Serialize) {
    out.push_str(&serde_json::to_string(value).expect("plain data serialises to JSON"));
}

/// Appends a JSON array of `items`, each written by `write`.
pub(crate) fn push_array<T>(
    out: &mut String,
    items: impl IntoIterator<Item = T>,
    mut write: impl FnMut(&mut String, T),
) {
    out.push('[');
    for (i, item) in items.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write(out, item);
    }
    out.push(']');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize)]
    struct Small {
        name: &'static str,
        n: Option<u8>,
    }

    #[test]
    fn pieces_write_what_serde_writes() {
        let mut out = String::new();
        push_number(&mut out, 42u16);
        out.push(',');
        push_number(&mut out, -7i64);
        out.push(',');
        push_optional(&mut out, None::<u8>);
        out.push(',');
        push_optional(&mut out, Some(3usize));
        out.push(',');
        push_bool(&mut out, true);
        out.push(',');
        push_serde(
            &mut out,
            &Small {
                name: "a\"b",
                n: Some(1),
            },
        );
        out.push(',');
        push_array(&mut out, [1u8, 2, 3], push_number);
        out.push(',');
        push_array(&mut out, Vec::<u8>::new(), push_number);
        out.push(',');
        push_viewer(&mut out, Viewer::Seat(crate::model::Seat(3)));
        out.push(',');
        push_viewer(&mut out, Viewer::Spectator);
        let expected = [
            serde_json::to_string(&42u16).unwrap(),
            serde_json::to_string(&-7i64).unwrap(),
            serde_json::to_string(&None::<u8>).unwrap(),
            serde_json::to_string(&Some(3usize)).unwrap(),
            serde_json::to_string(&true).unwrap(),
            serde_json::to_string(&Small {
                name: "a\"b",
                n: Some(1),
            })
            .unwrap(),
            serde_json::to_string(&[1u8, 2, 3]).unwrap(),
            serde_json::to_string(&Vec::<u8>::new()).unwrap(),
            serde_json::to_string(&Viewer::Seat(crate::model::Seat(3))).unwrap(),
            serde_json::to_string(&Viewer::Spectator).unwrap(),
        ]
        .join(",");
        assert_eq!(out, expected);
    }

    #[test]
    fn small_numbers_are_written_as_serde_writes_them() {
        for n in (0..=2_000u32).chain([65_535, u32::MAX]) {
            let mut out = String::new();
            push_small(&mut out, n);
            assert_eq!(out, serde_json::to_string(&n).unwrap());
        }
    }
}
