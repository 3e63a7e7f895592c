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
/// On the wire it is the JSON value itself, exactly as if the value had been serialised in place: it serialises
/// as serde_json's [`RawValue`], whose text serde_json copies into its output as it is (no parse, no tree).
/// Equality compares the values, not the text (so `{"a":1,"b":2}` equals `{"b":2,"a":1}`).
#[derive(Clone)]
// The text stays in the box it was written into: an `Arc<RawValue>` made from it would copy the text.
pub struct RawJson(Arc<Box<RawValue>>);

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

    /// The JSON text.
    pub fn get(&self) -> &str {
        self.0.get()
    }

    /// The value, parsed (for tests and comparisons; the push path never parses).
    pub fn to_value(&self) -> Value {
        serde_json::from_str(self.get()).expect("RawJson always holds valid JSON")
    }
}

/// The text as it is (the push path: `json_write` writes a state push around it).
impl json_write::WriteJson for RawJson {
    fn write_json(&self, out: &mut String) {
        out.push_str(self.get());
    }
}

impl From<Box<RawValue>> for RawJson {
    fn from(raw: Box<RawValue>) -> Self {
        RawJson(Arc::new(raw))
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

/// As serde_json's [`RawValue`]: its text, copied into the output as it is.
impl Serialize for RawJson {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
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

        // Text as an engine wrote it: the same on the wire and in comparisons as the value serialised.
        let written = RawJson::from(RawValue::from_string(r#"{"b":[1,2],"a":"x"}"#.to_owned()).unwrap());
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
