//! Pre-serialised JSON: a game's view or a seat's legal actions, written once from the engine's typed values
//! and embedded verbatim in every frame that carries it (see `docs/performance.md`).

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;
use serde_json::value::RawValue;

/// JSON text that is already serialised, shared without copying (cloning is a reference count).
///
/// On the wire it is the JSON value itself, exactly as if the value had been serialised in place. Equality
/// compares the values, not the text (so `{"a":1,"b":2}` equals `{"b":2,"a":1}`).
#[derive(Clone)]
pub struct RawJson(Text);

/// Checked by serde_json, or written by an engine's own writer (see [`RawJson::written`]).
#[derive(Clone)]
enum Text {
    Raw(Arc<RawValue>),
    /// Kept in the `String` it was written into: sharing it costs a small allocation, not a copy of the text.
    Written(Arc<String>),
    /// Copied from a longer text (an action out of its frame).
    Read(Arc<str>),
}

impl RawJson {
    /// Serialises `value` once. Panics only if `value`'s `Serialize` fails, which the engines' plain data types
    /// never do.
    pub fn of<T: Serialize + ?Sized>(value: &T) -> RawJson {
        RawJson::from(serde_json::value::to_raw_value(value).expect("plain data serialises to JSON"))
    }

    /// The empty array `[]`.
    pub fn empty_array() -> RawJson {
        RawJson::from(RawValue::from_string("[]".to_owned()).expect("valid JSON"))
    }

    /// JSON text an engine wrote (`rules::AnyGame::view_text`, `legal_actions_json`, `apply_json`'s action and
    /// events: by the engine's own writer or by serde), taken as it is: the writer promises serde's exact text of
    /// a value, and the games' tests hold it to that; debug builds (every test) parse it again to be sure. Not for
    /// text from anywhere else.
    pub fn written(text: String) -> RawJson {
        debug_assert!(
            serde_json::from_str::<serde::de::IgnoredAny>(&text).is_ok(),
            "not JSON: {text}"
        );
        RawJson(Text::Written(Arc::new(text)))
    }

    /// JSON text that the protocol's own reader has read as JSON (an action as it arrived; see
    /// `action_frame`), kept as it is.
    pub(crate) fn read(text: &str) -> RawJson {
        debug_assert!(
            serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok(),
            "not JSON: {text}"
        );
        RawJson(Text::Read(Arc::from(text)))
    }

    /// The JSON text.
    pub fn get(&self) -> &str {
        match &self.0 {
            Text::Raw(raw) => raw.get(),
            Text::Written(text) => text,
            Text::Read(text) => text,
        }
    }

    /// The value, parsed (for tests and comparisons; the push path never parses).
    pub fn to_value(&self) -> Value {
        serde_json::from_str(self.get()).expect("RawJson always holds valid JSON")
    }
}

impl From<Box<RawValue>> for RawJson {
    fn from(raw: Box<RawValue>) -> Self {
        RawJson(Text::Raw(Arc::from(raw)))
    }
}

impl From<&Value> for RawJson {
    fn from(value: &Value) -> Self {
        RawJson::of(value)
    }
}

impl From<Value> for RawJson {
    fn from(value: Value) -> Self {
        RawJson::of(&value)
    }
}

impl PartialEq for RawJson {
    fn eq(&self, other: &Self) -> bool {
        self.get() == other.get() || self.to_value() == other.to_value()
    }
}

impl PartialEq<Value> for RawJson {
    fn eq(&self, other: &Value) -> bool {
        &self.to_value() == other
    }
}

impl fmt::Debug for RawJson {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.get())
    }
}

impl fmt::Display for RawJson {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.get())
    }
}

/// Through serde (replies other than state pushes, which `StateUpdate::write_push` writes as text), written text
/// is checked once more on the way: a rare path.
impl Serialize for RawJson {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match &self.0 {
            Text::Raw(raw) => raw.serialize(serializer),
            Text::Written(_) | Text::Read(_) => RawValue::from_string(self.get().to_owned())
                .map_err(serde::ser::Error::custom)?
                .serialize(serializer),
        }
    }
}

/// Read through a [`Value`], so that it also works inside the untagged and internally tagged enums of the
/// protocol (serde buffers their content, which `RawValue` cannot be read from).
impl<'de> Deserialize<'de> for RawJson {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(RawJson::of(&Value::deserialize(deserializer)?))
    }
}

/// Any JSON value, as for [`Value`].
impl JsonSchema for RawJson {
    fn inline_schema() -> bool {
        <Value as JsonSchema>::inline_schema()
    }
    fn schema_name() -> Cow<'static, str> {
        <Value as JsonSchema>::schema_name()
    }
    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        <Value as JsonSchema>::json_schema(generator)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn embeds_the_value_verbatim_and_reads_back_inside_tagged_enums() {
        #[derive(Serialize, Deserialize, PartialEq, Debug)]
        #[serde(tag = "type")]
        enum Tagged {
            A { view: RawJson, n: u8 },
        }
        let raw = RawJson::of(&json!({"b": [1, 2], "a": "x"}));
        let text = serde_json::to_string(&Tagged::A {
            view: raw.clone(),
            n: 3,
        })
        .unwrap();
        assert_eq!(text, r#"{"type":"A","view":{"a":"x","b":[1,2]},"n":3}"#);
        let back: Tagged = serde_json::from_str(&text).unwrap();
        assert_eq!(back, Tagged::A { view: raw, n: 3 });
        assert_eq!(
            RawJson::from(RawValue::from_string(r#"{"b":[1,2],"a":"x"}"#.into()).unwrap()),
            RawJson::of(&json!({"a": "x", "b": [1, 2]}))
        );
        assert_ne!(RawJson::of(&json!([1])), RawJson::empty_array());

        // Written text: the same on the wire and in comparisons as the value serialised.
        let written = RawJson::written(r#"{"b":[1,2],"a":"x"}"#.to_owned());
        assert_eq!(written.get(), r#"{"b":[1,2],"a":"x"}"#);
        assert_eq!(written, RawJson::of(&json!({"a": "x", "b": [1, 2]})));
        let text = serde_json::to_string(&Tagged::A {
            view: written.clone(),
            n: 4,
        })
        .unwrap();
        assert_eq!(text, r#"{"type":"A","view":{"b":[1,2],"a":"x"},"n":4}"#);
    }
}
