//! Reading an internally tagged enum with its tag first: what `#[derive(TagFirst)]` generates calls
//! [`deserialize`].
//!
//! serde's derive reads an internally tagged enum (`#[serde(tag = "type")]`) whole into a private buffer before it
//! looks at the tag, then reads the variant again from the buffer. That buffering was half of what the server
//! spent reading an action (callgrind, `docs/performance.md`). When the object's first member is the tag, as in
//! every action the server lists and every client it knows sends, the variant can be read straight from the rest
//! of the object: [`deserialize`] reads the tag's value and hands the remaining members to serde's own derive of
//! the same enum written externally tagged (a `remote` twin the derive emits), so every rename, default and field
//! type is read by serde's code. Anything else (the tag later in the object, a sequence) is buffered as a
//! `serde_json::Value` and read by serde's own derive of the enum as written (a second twin): the same value, or
//! the same refusal, as serde's derive gives. `tests/tag_first.rs` compares the two on valid and invalid input.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::de::value::{
    BorrowedStrDeserializer, MapAccessDeserializer, MapDeserializer, SeqDeserializer, StrDeserializer,
    StringDeserializer, U64Deserializer,
};
use serde::de::{
    self, DeserializeSeed, Deserializer, EnumAccess, IgnoredAny, MapAccess, SeqAccess, VariantAccess, Visitor,
};

/// What `#[derive(TagFirst)]` implements: the tag's name and the enum's two serde reads.
pub trait TagFirst<'de>: Sized {
    /// The tag member's name (`#[serde(tag = "...")]`).
    const TAG: &'static str;
    /// What serde's derive says it expected, for refusals: `internally tagged enum <Name>`.
    const EXPECTING: &'static str;
    /// serde's derive of the enum written externally tagged: the variant named by the deserializer's enum access.
    fn by_name<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error>;
    /// serde's derive of the enum as written (internally tagged, buffered).
    fn tagged<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error>;
}

/// Reads `T` from `deserializer`, the tag first when it comes first (see the module's text).
pub fn deserialize<'de, T: TagFirst<'de>, D: Deserializer<'de>>(deserializer: D) -> Result<T, D::Error> {
    deserializer.deserialize_any(TagFirstVisitor(PhantomData))
}

struct TagFirstVisitor<T>(PhantomData<T>);

impl<'de, T: TagFirst<'de>> Visitor<'de> for TagFirstVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(T::EXPECTING)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<T, A::Error> {
        let first = map.next_key_seed(KeySeed { tag: T::TAG })?;
        match first {
            Some(Key::Tag) => {
                let variant = map.next_value_seed(VariantSeed)?;
                T::by_name(Rest {
                    variant,
                    rest: NoTag { map, tag: T::TAG },
                })
            }
            Some(Key::Other(key)) => {
                // Every member kept, in order (a member given twice is refused as serde refuses it).
                let mut members = vec![(key.into_owned(), map.next_value::<serde_json::Value>()?)];
                while let Some(member) = map.next_entry::<String, serde_json::Value>()? {
                    members.push(member);
                }
                T::tagged(MapDeserializer::<_, serde_json::Error>::new(members.into_iter()))
                    .map_err(de::Error::custom)
            }
            None => T::tagged(MapDeserializer::<_, serde_json::Error>::new(std::iter::empty::<(
                String,
                serde_json::Value,
            )>()))
            .map_err(de::Error::custom),
        }
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<T, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<serde_json::Value>()? {
            items.push(item);
        }
        T::tagged(SeqDeserializer::<_, serde_json::Error>::new(items.into_iter())).map_err(de::Error::custom)
    }
}

/// An object's first member name: the tag, or another (kept for the buffered read).
enum Key<'de> {
    Tag,
    Other(Cow<'de, str>),
}

struct KeySeed {
    tag: &'static str,
}

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Key<'de>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Key<'de>, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeySeed {
    type Value = Key<'de>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a member name")
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Key<'de>, E> {
        Ok(if v == self.tag {
            Key::Tag
        } else {
            Key::Other(Cow::Borrowed(v))
        })
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Key<'de>, E> {
        Ok(if v == self.tag {
            Key::Tag
        } else {
            Key::Other(Cow::Owned(v.to_owned()))
        })
    }
}

/// The tag's value: a variant's name, or (as serde's variant identifiers also take) its index.
enum Variant<'de> {
    Name(Cow<'de, str>),
    Index(u64),
}

struct VariantSeed;

impl<'de> DeserializeSeed<'de> for VariantSeed {
    type Value = Variant<'de>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Variant<'de>, D::Error> {
        deserializer.deserialize_identifier(self)
    }
}

impl<'de> Visitor<'de> for VariantSeed {
    type Value = Variant<'de>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        // serde's words for a variant identifier of the wrong type.
        f.write_str("variant identifier")
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Variant<'de>, E> {
        Ok(Variant::Name(Cow::Borrowed(v)))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Variant<'de>, E> {
        Ok(Variant::Name(Cow::Owned(v.to_owned())))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Variant<'de>, E> {
        Ok(Variant::Name(Cow::Owned(v)))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Variant<'de>, E> {
        Ok(Variant::Index(v))
    }
}

/// The object after its tag, as an externally tagged enum: the variant named by the tag, its content the rest of
/// the members.
struct Rest<'de, A> {
    variant: Variant<'de>,
    rest: NoTag<A>,
}

impl<'de, A: MapAccess<'de>> Deserializer<'de> for Rest<'de, A> {
    type Error = A::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, A::Error> {
        visitor.visit_enum(self)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option unit
        unit_struct newtype_struct seq tuple tuple_struct map struct enum identifier ignored_any
    }
}

impl<'de, A: MapAccess<'de>> EnumAccess<'de> for Rest<'de, A> {
    type Error = A::Error;
    type Variant = NoTag<A>;

    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, NoTag<A>), A::Error> {
        let variant = match self.variant {
            Variant::Name(Cow::Borrowed(name)) => seed.deserialize(BorrowedStrDeserializer::new(name))?,
            Variant::Name(Cow::Owned(name)) => seed.deserialize(StringDeserializer::new(name))?,
            Variant::Index(index) => seed.deserialize(U64Deserializer::new(index))?,
        };
        Ok((variant, self.rest))
    }
}

/// The members after the tag: the variant's content. The tag given again is refused, as serde refuses it.
struct NoTag<A> {
    map: A,
    tag: &'static str,
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for NoTag<A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, A::Error> {
        self.map.next_key_seed(NotTheTag { seed, tag: self.tag })
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, A::Error> {
        self.map.next_value_seed(seed)
    }

    fn size_hint(&self) -> Option<usize> {
        self.map.size_hint()
    }
}

/// A member name handed on to `seed`, unless it is the tag.
struct NotTheTag<K> {
    seed: K,
    tag: &'static str,
}

impl<'de, K: DeserializeSeed<'de>> DeserializeSeed<'de> for NotTheTag<K> {
    type Value = K::Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<K::Value, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de, K: DeserializeSeed<'de>> Visitor<'de> for NotTheTag<K> {
    type Value = K::Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a member name")
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<K::Value, E> {
        if v == self.tag {
            return Err(E::duplicate_field(self.tag));
        }
        self.seed.deserialize(BorrowedStrDeserializer::new(v))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<K::Value, E> {
        if v == self.tag {
            return Err(E::duplicate_field(self.tag));
        }
        self.seed.deserialize(StrDeserializer::new(v))
    }
}

impl<'de, A: MapAccess<'de>> VariantAccess<'de> for NoTag<A> {
    type Error = A::Error;

    /// serde's internally tagged unit variant ignores any other member.
    fn unit_variant(mut self) -> Result<(), A::Error> {
        while self.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(())
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, A::Error> {
        seed.deserialize(MapAccessDeserializer::new(self))
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value, A::Error> {
        // serde refuses an internally tagged tuple variant at compile time; the derive does too.
        Err(de::Error::invalid_type(de::Unexpected::Map, &visitor))
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, A::Error> {
        visitor.visit_map(self)
    }
}
