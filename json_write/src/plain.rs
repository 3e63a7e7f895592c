//! serde_json's refusals in words for a person: which member, what was expected and what came instead, without
//! the Rust type names serde's messages carry ("invalid type: string \"two\", expected u8" becomes "`seats`:
//! expected a whole number from 0 to 255, got \"two\"").
//!
//! A value is read as usual; only when that fails is it read again, with the path to the failing member tracked
//! (`serde_path_to_error`), to say where: a good value costs nothing more.

use std::fmt;

use serde::Deserialize;
use serde::de::{DeserializeOwned, Deserializer};

/// Why a JSON value could not be read: the member it failed at (`cell.row`; empty for the value itself) and what
/// was wrong with it, in plain words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    pub path: String,
    pub what: String,
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.what)
        } else {
            write!(f, "`{}`: {}", self.path, self.what)
        }
    }
}

/// Reads `T` from the deserializer `make` returns; on a refusal, reads it again to say where and why.
pub fn read<'de, T, D, F>(make: F) -> Result<T, Refusal>
where
    T: Deserialize<'de>,
    D: Deserializer<'de, Error = serde_json::Error>,
    F: Fn() -> D,
{
    T::deserialize(make()).map_err(|e| explain_again::<T, _>(make(), &e))
}

/// Reads `T` from JSON text (the whole text, as `serde_json::from_str` does); on a refusal, says where and why.
pub fn from_str<T: DeserializeOwned>(text: &str) -> Result<T, Refusal> {
    serde_json::from_str(text).map_err(|e| {
        let mut reader = serde_json::Deserializer::from_str(text);
        explain_again::<T, _>(&mut reader, &e)
    })
}

/// The refusal `first` of a read of `T`, with the path found by reading `deserializer` again.
fn explain_again<'de, T: Deserialize<'de>, D: Deserializer<'de, Error = serde_json::Error>>(
    deserializer: D,
    first: &serde_json::Error,
) -> Refusal {
    match serde_path_to_error::deserialize::<_, T>(deserializer) {
        Err(e) => explain(e.inner(), &e.path().to_string()),
        // The second read failed only after the value (trailing text): the first refusal says it.
        Ok(_) => explain(first, ""),
    }
}

/// serde_json's refusal `e` of the member at `path` (as `serde_path_to_error` writes it: `.` for the value
/// itself, `?` for a part it cannot name) in plain words.
pub fn explain(e: &serde_json::Error, path: &str) -> Refusal {
    let path = path
        .split('.')
        .filter(|part| !part.is_empty() && *part != "?")
        .collect::<Vec<_>>()
        .join(".");
    let text = without_position(e);
    let member = |name: &str| {
        if path.is_empty() {
            name.to_owned()
        } else {
            format!("{path}.{name}")
        }
    };
    let quoted = |name: &str| format!("`{name}`");
    if let Some(name) = text
        .strip_prefix("missing field `")
        .and_then(|rest| rest.strip_suffix('`'))
    {
        return Refusal {
            path: member(name),
            what: "missing".into(),
        };
    }
    if let Some(rest) = text.strip_prefix("unknown field `")
        && let Some((name, expected)) = rest.split_once("`, ")
    {
        let known = names(expected);
        // The path of an unknown member already ends with it.
        let at_member = path == name || path.ends_with(&format!(".{name}"));
        return Refusal {
            path: if at_member { path } else { member(name) },
            what: if known.is_empty() {
                "not a member here (there are none)".into()
            } else {
                let known: Vec<String> = known.iter().map(|k| quoted(k)).collect();
                format!("not a member here (the members are {})", known.join(", "))
            },
        };
    }
    if let Some(rest) = text.strip_prefix("unknown variant `")
        && let Some((name, expected)) = rest.split_once("`, ")
    {
        let known: Vec<String> = names(expected).iter().map(|k| format!("\"{k}\"")).collect();
        return Refusal {
            path,
            what: format!("expected one of {}, got \"{name}\"", known.join(", ")),
        };
    }
    for prefix in ["invalid type: ", "invalid value: "] {
        if let Some(rest) = text.strip_prefix(prefix)
            && let Some((got, expected)) = rest.rsplit_once(", expected ")
        {
            return Refusal {
                path,
                what: format!("expected {}, got {}", expected_words(expected), got_words(got)),
            };
        }
    }
    if let Some(rest) = text.strip_prefix("invalid length ")
        && let Some((got, expected)) = rest.split_once(", expected ")
    {
        return Refusal {
            path,
            what: format!("expected {}, got {got} items", expected_words(expected)),
        };
    }
    if let Some(name) = text
        .strip_prefix("duplicate field `")
        .and_then(|rest| rest.strip_suffix('`'))
    {
        return Refusal {
            path: member(name),
            what: "given twice".into(),
        };
    }
    Refusal { path, what: text }
}

/// The names in serde's list of what it expected: "`a`", "`a` or `b`", "one of `a`, `b`, `c`", or none.
fn names(expected: &str) -> Vec<&str> {
    expected.split('`').skip(1).step_by(2).collect()
}

/// What serde says it expected (a visitor's `expecting`), in words: Rust's types become JSON's.
fn expected_words(expected: &str) -> String {
    let whole = |max: u64| format!("a whole number from 0 to {max}");
    match expected {
        "u8" => whole(u8::MAX.into()),
        "u16" => whole(u16::MAX.into()),
        "u32" => whole(u32::MAX.into()),
        "u64" | "usize" => "a whole number, 0 or more".into(),
        "i8" | "i16" | "i32" | "i64" | "isize" => "a whole number".into(),
        "f32" | "f64" => "a number".into(),
        "a boolean" => "true or false".into(),
        "a borrowed string" | "string or map" | "variant identifier" | "field identifier" => {
            "a string".into()
        }
        "a sequence" => "a list".into(),
        "a map" => "an object".into(),
        "unit" => "null".into(),
        other if other.starts_with("struct ") || other.starts_with("internally tagged enum ") => {
            "an object".into()
        }
        other if other.starts_with("tuple") || other.contains("array") => "a list".into(),
        other => other.to_owned(),
    }
}

/// What serde says it got (`serde::de::Unexpected`, as serde_json writes it), in JSON's words.
fn got_words(got: &str) -> String {
    let between_ticks = |prefix: &str| {
        got.strip_prefix(prefix)
            .and_then(|rest| rest.strip_prefix('`'))
            .and_then(|rest| rest.strip_suffix('`'))
            .map(str::to_owned)
    };
    if let Some(text) = got.strip_prefix("string ") {
        return text.to_owned();
    }
    for prefix in ["integer ", "floating point ", "boolean ", "character "] {
        if let Some(value) = between_ticks(prefix) {
            return value;
        }
    }
    match got {
        "sequence" => "a list".into(),
        "map" => "an object".into(),
        "unit value" | "null" => "null".into(),
        other => other.to_owned(),
    }
}

/// serde_json's message without the place it adds ("at line 1 column 9"), which for a member read on its own
/// would count from the member, not from the frame.
pub fn without_position(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let place = format!(" at line {} column {}", e.line(), e.column());
    match text.strip_suffix(&place) {
        Some(message) if e.line() != 0 => message.to_owned(),
        _ => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Cell {
        row: u8,
        col: u8,
    }

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Choose {
        cell: Cell,
    }

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Lobby {
        seats: u8,
        name: String,
        kind: Kind,
        version: Option<u64>,
    }

    #[derive(Debug, Deserialize)]
    #[serde(rename_all = "snake_case")]
    enum Kind {
        Wait,
        Bot,
    }

    fn message<T: DeserializeOwned + fmt::Debug>(text: &str) -> String {
        from_str::<T>(text).unwrap_err().to_string()
    }

    #[test]
    fn refusals_name_the_member_and_what_it_should_be() {
        let cases = [
            (
                message::<Lobby>(r#"{"seats": "two", "name": "a", "kind": "bot"}"#),
                "`seats`: expected a whole number from 0 to 255, got \"two\"",
            ),
            (
                message::<Lobby>(r#"{"seats": 300, "name": "a", "kind": "bot"}"#),
                "`seats`: expected a whole number from 0 to 255, got 300",
            ),
            (
                message::<Lobby>(r#"{"seats": 2, "kind": "bot"}"#),
                "`name`: missing",
            ),
            (
                message::<Lobby>(r#"{"seats": 2, "name": "a", "kind": "nap"}"#),
                "`kind`: expected one of \"wait\", \"bot\", got \"nap\"",
            ),
            (
                message::<Lobby>(r#"{"seats": 2, "name": "a", "kind": "bot", "version": "3"}"#),
                "`version`: expected a whole number, 0 or more, got \"3\"",
            ),
            (
                message::<Lobby>(r#"{"seats": 2, "name": [1], "kind": "bot"}"#),
                "`name`: expected a string, got a list",
            ),
            (message::<Lobby>("7"), "expected an object, got 7"),
            (
                message::<Choose>(r#"{"cell": {"row": 1, "column": 2}}"#),
                "`cell.column`: not a member here (the members are `row`, `col`)",
            ),
            (
                message::<Choose>(r#"{"cell": "b2"}"#),
                "`cell`: expected an object, got \"b2\"",
            ),
            (
                message::<Choose>(r#"{"cell": {"row": 1}}"#),
                "`cell.col`: missing",
            ),
        ];
        for (got, want) in cases {
            assert_eq!(got, want);
        }
    }

    #[test]
    fn a_good_value_is_read_once() {
        let lobby: Lobby = from_str(r#"{"seats": 2, "name": "a", "kind": "wait"}"#).unwrap();
        assert_eq!(lobby.seats, 2);
    }
}
