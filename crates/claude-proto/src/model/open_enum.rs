//! Enums chosen by one key of an object (`type`, `subtype`, ...) with a
//! last `Unknown(Json)` variant, read in one pass.
//!
//! serde's internally tagged enums buffer the whole object into a private
//! tree to find the tag, and the untagged fallback buffers it again: most
//! of the cost of typing a message. Here the object's keys are read in
//! order; those before the tag are kept as JSON values (the CLI writes the
//! tag first, so usually none), and once the tag is known the variant's
//! struct reads the kept entries and then the rest of the object straight
//! from the input. An unknown tag (or none, or one that is not a string)
//! gives `Unknown` with the whole object.
//!
//! A known tag whose body does not fit fails the read: the input is a
//! stream and cannot be read twice. The caller that owns the bytes (the
//! message decoders) then parses them into a `Value` and reads that again
//! through [`Tolerant`], where each open enum that does not fit becomes its
//! own `Unknown` instead, so the message is still typed around it.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::de::value::{BorrowedStrDeserializer, MapAccessDeserializer, StringDeserializer};
use serde::de::{
    self, Deserialize, DeserializeSeed, Deserializer, EnumAccess, Error as _, MapAccess, SeqAccess,
    VariantAccess, Visitor,
};

use super::common::Json;

/// How an open enum's newtype name starts (the rest is its tag key):
/// [`Tolerant`] answers such a name with the value itself, to be tried and
/// copied only if it does not fit; every other deserializer treats it as a
/// plain newtype.
const PROBE_PREFIX: &str = "$claude_proto::tolerant:";

/// What the `open_enum!` macro generates per enum.
pub(crate) trait OpenEnum: Sized {
    /// The key whose value picks the variant.
    const TAG: &'static str;
    /// [`PROBE_PREFIX`] followed by [`OpenEnum::TAG`].
    const PROBE: &'static str;
    /// The tag values with a typed variant.
    const KNOWN: &'static [&'static str];
    /// Reads the variant for a known `tag` from the rest of the object.
    fn read_variant<'de, A: MapAccess<'de>>(tag: &str, map: A) -> Result<Self, A::Error>;
    /// The fallback variant, with the whole object.
    fn unknown(value: Json) -> Self;
}

/// The `Deserialize` of every open enum.
pub(crate) fn deserialize<'de, E: OpenEnum, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<E, D::Error> {
    deserializer.deserialize_newtype_struct(E::PROBE, OpenVisitor::<E>(PhantomData))
}

/// Reads `T` from a parsed value; every open enum inside that does not fit
/// becomes its own `Unknown` instead of failing the whole value.
///
/// Use this (or [`from_slice`]) rather than `serde_json::from_value` to
/// read a model type the way the crate's own decoders do: through serde
/// directly, a known tag whose body does not fit is an error.
pub fn from_value<T: de::DeserializeOwned>(value: &Json) -> Result<T, serde_json::Error> {
    T::deserialize(Tolerant(value))
}

/// The one pass alone: `T` read from JSON text. One check of the whole
/// text's encoding is cheaper than serde_json's check of each string it
/// reads from bytes; from a `str` it checks none.
pub(crate) fn read_once<T: de::DeserializeOwned>(text: &[u8]) -> Result<T, serde_json::Error> {
    match std::str::from_utf8(text) {
        Ok(checked) => serde_json::from_str::<T>(checked),
        Err(_) => serde_json::from_slice::<T>(text),
    }
}

/// Reads `T` from JSON text: in one pass, and if that fails (a known tag
/// with a body that does not fit), again from the parsed value through
/// [`from_value`]. The error is the second read's, or the parse error when
/// the text is not JSON.
///
/// Every decoder of the crate reads this way (`Message::parse`,
/// `StdoutMessage::from_slice`, control requests and answers).
pub fn from_slice<T: de::DeserializeOwned>(text: &[u8]) -> Result<T, serde_json::Error> {
    match read_once::<T>(text) {
        Ok(typed) => Ok(typed),
        Err(_) => from_value(&serde_json::from_slice::<Json>(text)?),
    }
}

struct OpenVisitor<E>(PhantomData<E>);

impl<'de, E: OpenEnum> Visitor<'de> for OpenVisitor<E> {
    type Value = E;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a JSON object with a `{}`", E::TAG)
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, deserializer: D) -> Result<E, D::Error> {
        deserializer.deserialize_any(self)
    }

    /// [`Tolerant`]'s answer to the probe: the value, read tag first and
    /// copied whole only if it does not fit. Each part that ends up
    /// `Unknown` is copied once, by the open enum nearest to it.
    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<E, A::Error> {
        let (attempt, value) = data.variant_seed(TryRead::<E>(PhantomData))?;
        match attempt {
            Some(typed) => Ok(typed),
            None => value.newtype_variant::<Json>().map(E::unknown),
        }
    }

    // Anything but an object is kept whole, as serde's untagged fallback did.
    fn visit_bool<Er: de::Error>(self, v: bool) -> Result<E, Er> {
        Ok(E::unknown(Json::Bool(v)))
    }
    fn visit_i64<Er: de::Error>(self, v: i64) -> Result<E, Er> {
        Ok(E::unknown(Json::from(v)))
    }
    fn visit_u64<Er: de::Error>(self, v: u64) -> Result<E, Er> {
        Ok(E::unknown(Json::from(v)))
    }
    fn visit_f64<Er: de::Error>(self, v: f64) -> Result<E, Er> {
        Ok(E::unknown(Json::from(v)))
    }
    fn visit_str<Er: de::Error>(self, v: &str) -> Result<E, Er> {
        Ok(E::unknown(Json::String(v.to_owned())))
    }
    fn visit_string<Er: de::Error>(self, v: String) -> Result<E, Er> {
        Ok(E::unknown(Json::String(v)))
    }
    fn visit_unit<Er: de::Error>(self) -> Result<E, Er> {
        Ok(E::unknown(Json::Null))
    }
    fn visit_none<Er: de::Error>(self) -> Result<E, Er> {
        Ok(E::unknown(Json::Null))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<E, A::Error> {
        Json::deserialize(de::value::SeqAccessDeserializer::new(seq)).map(E::unknown)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<E, A::Error> {
        read_map(map)
    }
}

/// The one pass: keys in order, the entries before the tag kept as
/// values, the variant's struct reading the rest.
fn read_map<'de, E: OpenEnum, A: MapAccess<'de>>(mut map: A) -> Result<E, A::Error> {
    let mut before: Vec<(String, Json)> = Vec::new();
    while let Some(key) = map.next_key::<Key<'de>>()? {
        if key.0 != E::TAG {
            let value = map.next_value::<Json>()?;
            before.push((key.0.into_owned(), value));
            continue;
        }
        let tag = map.next_value::<TagValue<'de>>()?;
        if let TagValue::Str(name) = &tag {
            if E::KNOWN.contains(&name.as_ref()) {
                let rest = Prefixed {
                    before: before.into_iter(),
                    pending: None,
                    map,
                    tag: E::TAG,
                    _input: PhantomData,
                };
                return E::read_variant(name, rest);
            }
        }
        let mut object: serde_json::Map<String, Json> = before.into_iter().collect();
        object.insert(E::TAG.to_owned(), tag.into_json());
        while let Some(Key(key)) = map.next_key::<Key<'de>>()? {
            // Kept whole, a second tag would decide what the value
            // reads as next time; the second read takes the last.
            if key == E::TAG {
                return Err(de::Error::custom(format_args!(
                    "duplicate field `{}`",
                    E::TAG
                )));
            }
            object.insert(key.into_owned(), map.next_value::<Json>()?);
        }
        return Ok(E::unknown(Json::Object(object)));
    }
    Ok(E::unknown(Json::Object(before.into_iter().collect())))
}

/// The first read under [`Tolerant`]: the variant if the value fits it,
/// `None` (nothing copied) if it does not.
struct TryRead<E>(PhantomData<E>);

impl<'de, E: OpenEnum> DeserializeSeed<'de> for TryRead<E> {
    type Value = Option<E>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Option<E>, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de, E: OpenEnum> Visitor<'de> for TryRead<E> {
    type Value = Option<E>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a JSON object with a `{}`", E::TAG)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Option<E>, A::Error> {
        Ok(read_map(map).ok())
    }

    // Anything else is copied whole into `Unknown` by the caller.
    fn visit_bool<Er: de::Error>(self, _: bool) -> Result<Option<E>, Er> {
        Ok(None)
    }
    fn visit_i64<Er: de::Error>(self, _: i64) -> Result<Option<E>, Er> {
        Ok(None)
    }
    fn visit_u64<Er: de::Error>(self, _: u64) -> Result<Option<E>, Er> {
        Ok(None)
    }
    fn visit_f64<Er: de::Error>(self, _: f64) -> Result<Option<E>, Er> {
        Ok(None)
    }
    fn visit_str<Er: de::Error>(self, _: &str) -> Result<Option<E>, Er> {
        Ok(None)
    }
    fn visit_unit<Er: de::Error>(self) -> Result<Option<E>, Er> {
        Ok(None)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, _: A) -> Result<Option<E>, A::Error> {
        Ok(None)
    }
}

/// What [`Tolerant`] hands an open enum: the value, tried first (tag
/// first, nothing copied), then read as a plain value if that failed.
struct Probe<'a> {
    value: &'a Json,
    tag: &'static str,
}

impl<'a> EnumAccess<'a> for Probe<'a> {
    type Error = serde_json::Error;
    type Variant = Self;

    fn variant_seed<V: DeserializeSeed<'a>>(
        self,
        seed: V,
    ) -> Result<(V::Value, Self), Self::Error> {
        let tag_first = TagFirst {
            value: self.value,
            tag: self.tag,
        };
        Ok((seed.deserialize(tag_first)?, self))
    }
}

impl<'a> VariantAccess<'a> for Probe<'a> {
    type Error = serde_json::Error;

    fn unit_variant(self) -> Result<(), Self::Error> {
        Ok(())
    }

    fn newtype_variant_seed<T: DeserializeSeed<'a>>(
        self,
        seed: T,
    ) -> Result<T::Value, Self::Error> {
        seed.deserialize(self.value)
    }

    fn tuple_variant<V: Visitor<'a>>(self, _: usize, _: V) -> Result<V::Value, Self::Error> {
        Err(serde_json::Error::custom(
            "an open enum has no tuple variants",
        ))
    }

    fn struct_variant<V: Visitor<'a>>(
        self,
        _: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, Self::Error> {
        Err(serde_json::Error::custom(
            "an open enum has no struct variants",
        ))
    }
}

/// An object read with its tag entry first, so the one pass keeps nothing
/// before it; anything else reads as under [`Tolerant`].
struct TagFirst<'a> {
    value: &'a Json,
    tag: &'static str,
}

impl<'de> Deserializer<'de> for TagFirst<'de> {
    type Error = serde_json::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        match self.value {
            Json::Object(map) => visitor.visit_map(TolerantMap {
                first: map.get_key_value(self.tag),
                entries: map.iter(),
                pending: None,
                skip: Some(self.tag),
            }),
            other => Tolerant(other).deserialize_any(visitor),
        }
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

/// A key, borrowed from the input when it can be.
struct Key<'de>(Cow<'de, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string key")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v)))
            }
        }
        deserializer.deserialize_str(KeyVisitor)
    }
}

/// The tag's value: a string (borrowed when it can be) or anything else,
/// kept for the `Unknown` variant.
enum TagValue<'de> {
    Str(Cow<'de, str>),
    Other(Json),
}

impl TagValue<'_> {
    fn into_json(self) -> Json {
        match self {
            TagValue::Str(s) => Json::String(s.into_owned()),
            TagValue::Other(v) => v,
        }
    }
}

impl<'de> Deserialize<'de> for TagValue<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct TagVisitor;
        impl<'de> Visitor<'de> for TagVisitor {
            type Value = TagValue<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(TagValue::Str(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(TagValue::Str(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(TagValue::Str(Cow::Owned(v)))
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
                Ok(TagValue::Other(Json::Bool(v)))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
                Ok(TagValue::Other(Json::from(v)))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
                Ok(TagValue::Other(Json::from(v)))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
                Ok(TagValue::Other(Json::from(v)))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(TagValue::Other(Json::Null))
            }
            fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(TagValue::Other(Json::Null))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                Json::deserialize(MapAccessDeserializer::new(map)).map(TagValue::Other)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
                Json::deserialize(de::value::SeqAccessDeserializer::new(seq)).map(TagValue::Other)
            }
        }
        deserializer.deserialize_any(TagVisitor)
    }
}

/// The object without its tag: the entries read before the tag, then the
/// rest of the input. A second tag key is refused (the variant could not
/// write both back).
struct Prefixed<'de, A> {
    before: std::vec::IntoIter<(String, Json)>,
    pending: Option<Json>,
    map: A,
    tag: &'static str,
    _input: PhantomData<&'de ()>,
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for Prefixed<'de, A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        if let Some((key, value)) = self.before.next() {
            self.pending = Some(value);
            return seed.deserialize(StringDeserializer::new(key)).map(Some);
        }
        match self.map.next_key::<Key<'de>>()? {
            None => Ok(None),
            Some(Key(key)) if key == self.tag => Err(A::Error::custom(format_args!(
                "duplicate field `{}`",
                self.tag
            ))),
            Some(Key(Cow::Borrowed(key))) => seed
                .deserialize(BorrowedStrDeserializer::new(key))
                .map(Some),
            Some(Key(Cow::Owned(key))) => seed.deserialize(StringDeserializer::new(key)).map(Some),
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, A::Error> {
        match self.pending.take() {
            Some(value) => seed.deserialize(value).map_err(A::Error::custom),
            None => self.map.next_value_seed(seed),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        self.map.size_hint().map(|n| n + self.before.len())
    }
}

/// A parsed value read so that each open enum inside that does not fit is
/// kept whole in its `Unknown` variant (see the module docs). Everything
/// else reads exactly as from the value itself.
#[derive(Clone, Copy)]
pub(crate) struct Tolerant<'a>(pub(crate) &'a Json);

impl<'de> Deserializer<'de> for Tolerant<'de> {
    type Error = serde_json::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        match self.0 {
            Json::Object(map) => visitor.visit_map(TolerantMap {
                first: None,
                entries: map.iter(),
                pending: None,
                skip: None,
            }),
            Json::Array(items) => visitor.visit_seq(TolerantSeq(items.iter())),
            other => other.deserialize_any(visitor),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        match self.0 {
            Json::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        if let Some(tag) = name.strip_prefix(PROBE_PREFIX) {
            visitor.visit_enum(Probe { value: self.0, tag })
        } else if name.starts_with("$serde_json") {
            // serde_json's private protocols (raw values) need the value itself.
            self.0.deserialize_newtype_struct(name, visitor)
        } else {
            visitor.visit_newtype_struct(self)
        }
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        match self.0 {
            Json::Object(_) => self.deserialize_any(visitor),
            other => other.deserialize_map(visitor),
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        match self.0 {
            Json::Object(_) | Json::Array(_) => self.deserialize_any(visitor),
            other => other.deserialize_struct(name, fields, visitor),
        }
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        match self.0 {
            Json::Array(_) => self.deserialize_any(visitor),
            other => other.deserialize_seq(visitor),
        }
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        match self.0 {
            Json::Array(_) => self.deserialize_any(visitor),
            other => other.deserialize_tuple(len, visitor),
        }
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        match self.0 {
            Json::Array(_) => self.deserialize_any(visitor),
            other => other.deserialize_tuple_struct(name, len, visitor),
        }
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        self.0.deserialize_enum(name, variants, visitor)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct identifier ignored_any
    }
}

struct TolerantMap<'a> {
    /// An entry read before the others (the tag).
    first: Option<(&'a String, &'a Json)>,
    entries: serde_json::map::Iter<'a>,
    pending: Option<&'a Json>,
    /// A key left out of `entries` (the tag, read first).
    skip: Option<&'static str>,
}

impl<'a> MapAccess<'a> for TolerantMap<'a> {
    type Error = serde_json::Error;

    fn next_key_seed<K: DeserializeSeed<'a>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Self::Error> {
        let next = match self.first.take() {
            Some(first) => Some(first),
            None => loop {
                match self.entries.next() {
                    Some((key, _)) if Some(key.as_str()) == self.skip => continue,
                    other => break other,
                }
            },
        };
        match next {
            Some((key, value)) => {
                self.pending = Some(value);
                seed.deserialize(BorrowedStrDeserializer::new(key.as_str()))
                    .map(Some)
            }
            None => Ok(None),
        }
    }

    fn next_value_seed<V: DeserializeSeed<'a>>(
        &mut self,
        seed: V,
    ) -> Result<V::Value, Self::Error> {
        match self.pending.take() {
            Some(value) => seed.deserialize(Tolerant(value)),
            None => Err(serde_json::Error::custom(
                "a value was asked for before its key",
            )),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.entries.len() + usize::from(self.first.is_some()))
    }
}

struct TolerantSeq<'a>(std::slice::Iter<'a, Json>);

impl<'a> SeqAccess<'a> for TolerantSeq<'a> {
    type Error = serde_json::Error;

    fn next_element_seed<T: DeserializeSeed<'a>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Self::Error> {
        self.0
            .next()
            .map(|value| seed.deserialize(Tolerant(value)))
            .transpose()
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.0.len())
    }
}

/// Declares an open enum: the enum (serialized by serde's internal
/// tagging, which writes the tag first and buffers nothing), its one-pass
/// `Deserialize` and its [`WireVariants`](super::wire::WireVariants).
///
/// `Unknown;` comes first (with its docs) and is declared last, with its
/// `Json` payload; every other variant carries a struct (or a map) read
/// from the object without its tag.
macro_rules! open_enum {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident tagged $tag:literal {
            $(#[$umeta:meta])* Unknown;
            $( $(#[$vmeta:meta])* $variant:ident($ty:ty) = $wire:literal, )+
        }
    ) => {
        $(#[$meta])*
        #[derive(::serde::Serialize)]
        #[serde(tag = $tag)]
        $vis enum $name {
            $( $(#[$vmeta])* #[serde(rename = $wire)] $variant($ty), )+
            $(#[$umeta])*
            #[serde(untagged)]
            Unknown($crate::model::Json),
        }

        impl $crate::model::wire::WireVariants for $name {
            const TAG: &'static str = $tag;
            const VARIANTS: &'static [&'static str] = &[$($wire,)+];
        }

        impl $crate::model::open_enum::OpenEnum for $name {
            const TAG: &'static str = $tag;
            const PROBE: &'static str = concat!("$claude_proto::tolerant:", $tag);
            const KNOWN: &'static [&'static str] = &[$($wire,)+];

            fn read_variant<'de, A: ::serde::de::MapAccess<'de>>(
                tag: &str,
                map: A,
            ) -> Result<Self, A::Error> {
                let body = ::serde::de::value::MapAccessDeserializer::new(map);
                match tag {
                    $( $wire => <$ty as ::serde::Deserialize>::deserialize(body).map($name::$variant), )+
                    other => Err(<A::Error as ::serde::de::Error>::unknown_variant(
                        other,
                        &[$($wire,)+],
                    )),
                }
            }

            fn unknown(value: $crate::model::Json) -> Self {
                $name::Unknown(value)
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $name {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                $crate::model::open_enum::deserialize(deserializer)
            }
        }
    };
}

pub(crate) use open_enum;

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::model::Json;
    use crate::model::content::ContentBlock;
    use crate::model::stdout::StdoutMessage;
    use crate::model::stream::{ContentDelta, StreamEvent};

    fn strict<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, serde_json::Error> {
        serde_json::from_str(text)
    }

    #[test]
    fn the_tag_may_come_first_last_or_in_between() {
        let first = r#"{"type":"text","text":"hi","citations":null}"#;
        let last = r#"{"citations":null,"text":"hi","type":"text"}"#;
        let between = r#"{"text":"hi","type":"text","citations":null}"#;
        let a: ContentBlock = strict(first).unwrap();
        assert!(matches!(a, ContentBlock::Text(_)), "{a:?}");
        assert_eq!(strict::<ContentBlock>(last).unwrap(), a);
        assert_eq!(strict::<ContentBlock>(between).unwrap(), a);
        assert_eq!(
            serde_json::to_value(&a).unwrap(),
            serde_json::from_str::<Json>(first).unwrap()
        );
    }

    #[test]
    fn what_has_no_known_tag_is_kept_whole() {
        for text in [
            r#"{"type":"hologram","depth":3}"#,
            r#"{"depth":3,"type":"hologram","more":[1]}"#,
            r#"{"text":"no tag at all"}"#,
            r#"{"type":7,"text":"a number for a tag"}"#,
            r#"{"type":null}"#,
            r#""a bare string""#,
            r#"[1,2]"#,
            r#"42"#,
            r#"null"#,
        ] {
            let block: ContentBlock = strict(text).unwrap();
            let ContentBlock::Unknown(kept) = &block else {
                panic!("{text} gave {block:?}");
            };
            assert_eq!(kept, &serde_json::from_str::<Json>(text).unwrap(), "{text}");
            assert_eq!(
                serde_json::to_string(&block).unwrap(),
                serde_json::to_string(kept).unwrap()
            );
        }
    }

    #[test]
    fn a_known_tag_that_does_not_fit_fails_one_pass_and_is_kept_by_the_second() {
        // `text` must be a string.
        for text in [r#"{"type":"text","text":5}"#, r#"{"text":5,"type":"text"}"#] {
            assert!(strict::<ContentBlock>(text).is_err(), "{text}");
            let block: ContentBlock = crate::model::from_slice(text.as_bytes()).unwrap();
            assert_eq!(
                block,
                ContentBlock::Unknown(serde_json::from_str(text).unwrap())
            );
        }
    }

    /// The second read copies only what ends up `Unknown`, once, at the
    /// open enum nearest to it (it used to copy each enclosing open enum's
    /// whole subtree first: depth times the line's size).
    #[test]
    fn a_bad_part_deep_inside_is_kept_alone() {
        let leaf = json!({"type":"text","text":5});
        let mut content = json!([{"type":"text","text":"fits"}, leaf.clone()]);
        for i in 0..30 {
            content =
                json!([{"type":"tool_result","tool_use_id":format!("t{i}"),"content":content}]);
        }
        let line = json!({"type":"user","uuid":"u","session_id":"s","parent_tool_use_id":null,
            "message":{"role":"user","content":content}});
        let message = StdoutMessage::from_slice(&serde_json::to_vec(&line).unwrap()).unwrap();
        let StdoutMessage::User(user) = &message else {
            panic!("{message:?}");
        };
        let mut blocks = user.message.content.blocks().unwrap();
        for _ in 0..30 {
            let ContentBlock::ToolResult(result) = &blocks[0] else {
                panic!("{:?}", blocks[0]);
            };
            blocks = result.content.as_ref().unwrap().blocks().unwrap();
        }
        assert!(matches!(blocks[0], ContentBlock::Text(_)));
        assert_eq!(blocks[1], ContentBlock::Unknown(leaf));
        assert_eq!(serde_json::to_value(&message).unwrap(), line);
    }

    #[test]
    fn a_second_tag_is_refused_in_one_pass() {
        let text = r#"{"type":"text","text":"a","type":"text"}"#;
        assert!(strict::<ContentBlock>(text).is_err());
        // Also after an unknown first tag: kept whole, the second would
        // make the kept value read as another variant.
        let text = r#"{"type":"txet","text":"a","type":"text"}"#;
        assert!(strict::<ContentBlock>(text).is_err());
        // The parsed value keeps the last of the duplicate keys.
        let block: ContentBlock = crate::model::from_slice(text.as_bytes()).unwrap();
        assert!(matches!(block, ContentBlock::Text(_)));
    }

    #[test]
    fn a_part_that_does_not_fit_leaves_the_message_typed_in_either_key_order() {
        let bad_block = json!({"type":"tool_use","id":"t1","name":7,"input":{}});
        let line = json!({
            "type": "assistant",
            "message": {"id":"m","type":"message","role":"assistant","model":"claude",
                "content":[{"type":"text","text":"ok"}, bad_block],
                "stop_reason":null,"stop_sequence":null,
                "usage":{"input_tokens":1,"output_tokens":2}},
            "parent_tool_use_id": null,
            "uuid": "u",
            "session_id": "s",
        });
        // serde_json's map sorts keys, so `type` comes after `message`.
        let sorted = serde_json::to_vec(&line).unwrap();
        let message = StdoutMessage::from_slice(&sorted).unwrap();
        let StdoutMessage::Assistant(m) = &message else {
            panic!("{message:?}");
        };
        assert!(matches!(m.message.content[0], ContentBlock::Text(_)));
        assert_eq!(
            m.message.content[1],
            ContentBlock::Unknown(bad_block.clone())
        );
        assert_eq!(serde_json::to_value(&message).unwrap(), line);

        let tag_first = br#"{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":9}},"parent_tool_use_id":null,"uuid":"u","session_id":"s"}"#;
        let StdoutMessage::StreamEvent(e) = StdoutMessage::from_slice(tag_first).unwrap() else {
            panic!("not a stream event");
        };
        let StreamEvent::ContentBlockDelta(d) = &e.event else {
            panic!("{:?}", e.event);
        };
        assert_eq!(
            d.delta,
            ContentDelta::Unknown(json!({"type":"text_delta","text":9}))
        );
    }
}
