//! Building blocks shared by every typed message: the bag of unknown fields,
//! the three-state optional field, and open string enums.

use serde::de::{Deserialize, Deserializer};
use serde::ser::{Serialize, Serializer};

/// JSON object fields this version of the crate does not model.
///
/// Every typed struct carries one (as `extra`), so a field the CLI adds
/// tomorrow is kept and written back unchanged instead of being dropped.
pub type Extra = serde_json::Map<String, serde_json::Value>;

/// A JSON value kept as it was received.
pub type Json = serde_json::Value;

/// A field that may be absent, explicitly `null`, or carry a value.
///
/// Used where the protocol says a field is both optional and nullable
/// (`field?: T | null`): `Option<T>` alone would turn `null` into "absent" and
/// break the lossless round trip. Pair it with
/// `#[serde(default, skip_serializing_if = "Maybe::is_absent")]`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub enum Maybe<T> {
    /// The key was not present.
    #[default]
    Absent,
    /// The key was present with the value `null`.
    Null,
    /// The key was present with a value.
    Value(T),
}

impl<T> Maybe<T> {
    /// `true` when the key was not present (used by `skip_serializing_if`).
    pub fn is_absent(&self) -> bool {
        matches!(self, Maybe::Absent)
    }

    /// The value, if there is one (absent and `null` both give `None`).
    pub fn as_option(&self) -> Option<&T> {
        match self {
            Maybe::Value(v) => Some(v),
            _ => None,
        }
    }

    /// Converts into an `Option`, folding absent and `null` together.
    pub fn into_option(self) -> Option<T> {
        match self {
            Maybe::Value(v) => Some(v),
            _ => None,
        }
    }
}

impl<T> From<Option<T>> for Maybe<T> {
    /// `None` becomes an explicit `null`, `Some` a value.
    fn from(value: Option<T>) -> Self {
        match value {
            Some(v) => Maybe::Value(v),
            None => Maybe::Null,
        }
    }
}

impl<T: Serialize> Serialize for Maybe<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Maybe::Value(v) => v.serialize(serializer),
            Maybe::Absent | Maybe::Null => serializer.serialize_none(),
        }
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Maybe<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(match Option::<T>::deserialize(deserializer)? {
            Some(v) => Maybe::Value(v),
            None => Maybe::Null,
        })
    }
}

/// Reads a field that must be present but may be `null` (`field: T | null`).
///
/// Used as `#[serde(deserialize_with = "nullable")]` on an `Option<T>`
/// that is always written back (`null` for `None`). With it, a missing key
/// is an error rather than `None`: the message then stays whole in an
/// `Unknown` variant instead of gaining a `null` key when re-encoded.
pub(crate) fn nullable<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(deserializer)
}

/// Declares an open string enum: the listed wire values become variants, and
/// any other string is kept in `Unknown(String)` so a value added by a newer
/// CLI survives a round trip.
///
/// Generates `as_str`, `Display`, `From<&str>`, `From<String>`, and serde
/// impls that read and write the plain string.
macro_rules! string_enum {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $( $(#[$vmeta:meta])* $variant:ident = $wire:literal, )+
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        $vis enum $name {
            $( $(#[$vmeta])* $variant, )+
            /// A value this version of the crate does not know, kept verbatim.
            Unknown(String),
        }

        impl $name {
            /// The value as it appears on the wire.
            pub fn as_str(&self) -> &str {
                match self {
                    $( $name::$variant => $wire, )+
                    $name::Unknown(s) => s.as_str(),
                }
            }
        }

        impl $crate::model::wire::WireValues for $name {
            const VALUES: &'static [&'static str] = &[$($wire,)+];
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl From<&str> for $name {
            fn from(s: &str) -> Self {
                match s {
                    $( $wire => $name::$variant, )+
                    other => $name::Unknown(other.to_owned()),
                }
            }
        }

        impl From<String> for $name {
            fn from(s: String) -> Self {
                match s.as_str() {
                    $( $wire => $name::$variant, )+
                    _ => $name::Unknown(s),
                }
            }
        }

        impl ::serde::Serialize for $name {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $name {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                // A known value costs no allocation; an unknown one is moved
                // in when the input owns it.
                struct Read;
                impl<'de> ::serde::de::Visitor<'de> for Read {
                    type Value = $name;
                    fn expecting(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                        f.write_str("a string")
                    }
                    fn visit_str<E: ::serde::de::Error>(self, s: &str) -> Result<$name, E> {
                        Ok($name::from(s))
                    }
                    fn visit_string<E: ::serde::de::Error>(self, s: String) -> Result<$name, E> {
                        Ok($name::from(s))
                    }
                }
                deserializer.deserialize_str(Read)
            }
        }
    };
}

pub(crate) use string_enum;

/// Declares a zero-sized marker for a fixed string field (usually `type`).
///
/// A struct that includes `#[serde(rename = "type")] pub kind: AssistantTag`
/// writes `"type":"assistant"` itself and refuses any other value when read,
/// so each top-level message serializes to its complete wire form alone.
macro_rules! wire_tag {
    ($(#[$meta:meta])* $vis:vis struct $name:ident = $wire:literal;) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
        $vis struct $name;

        impl $name {
            /// The fixed wire value.
            pub const VALUE: &'static str = $wire;
        }

        impl ::serde::Serialize for $name {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str($wire)
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $name {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                // Compared where it lies: no allocation.
                struct Read;
                impl<'de> ::serde::de::Visitor<'de> for Read {
                    type Value = $name;
                    fn expecting(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                        write!(f, "{:?}", $wire)
                    }
                    fn visit_str<E: ::serde::de::Error>(self, s: &str) -> Result<$name, E> {
                        if s == $wire {
                            Ok($name)
                        } else {
                            Err(E::invalid_value(::serde::de::Unexpected::Str(s), &self))
                        }
                    }
                }
                deserializer.deserialize_str(Read)
            }
        }
    };
}

pub(crate) use wire_tag;

#[cfg(test)]
#[allow(unreachable_pub, dead_code)] // macro-made items exist only to be tested
mod tests {
    use super::*;
    use serde::{Deserialize, Serialize};

    string_enum! {
        /// Test enum.
        pub enum Colour {
            /// Red.
            Red = "red",
            /// Dark blue.
            DarkBlue = "dark_blue",
        }
    }

    #[derive(Debug, Serialize, Deserialize, PartialEq)]
    struct Holder {
        #[serde(default, skip_serializing_if = "Maybe::is_absent")]
        field: Maybe<u32>,
        #[serde(flatten)]
        extra: Extra,
    }

    wire_tag! {
        /// Test tag.
        pub struct DemoTag = "demo";
    }

    #[derive(Debug, Serialize, Deserialize, PartialEq)]
    struct Tagged {
        #[serde(rename = "type")]
        kind: DemoTag,
        n: u8,
    }

    #[test]
    fn wire_tag_writes_and_checks_its_value() {
        let t: Tagged = serde_json::from_str(r#"{"n":1,"type":"demo"}"#).unwrap();
        assert_eq!(
            serde_json::to_string(&t).unwrap(),
            r#"{"type":"demo","n":1}"#
        );
        assert!(serde_json::from_str::<Tagged>(r#"{"n":1,"type":"other"}"#).is_err());
    }

    #[test]
    fn string_enum_keeps_unknown_values() {
        let c: Colour = serde_json::from_str("\"dark_blue\"").unwrap();
        assert_eq!(c, Colour::DarkBlue);
        let u: Colour = serde_json::from_str("\"ultraviolet\"").unwrap();
        assert_eq!(u, Colour::Unknown("ultraviolet".into()));
        assert_eq!(serde_json::to_string(&u).unwrap(), "\"ultraviolet\"");
        assert_eq!(Colour::Red.to_string(), "red");
    }

    #[test]
    fn maybe_distinguishes_absent_null_and_value() {
        for text in [r#"{}"#, r#"{"field":null}"#, r#"{"field":7,"other":[1]}"#] {
            let h: Holder = serde_json::from_str(text).unwrap();
            let back = serde_json::to_value(&h).unwrap();
            let orig: serde_json::Value = serde_json::from_str(text).unwrap();
            assert_eq!(back, orig, "{text}");
        }
        let h: Holder = serde_json::from_str(r#"{"field":null}"#).unwrap();
        assert_eq!(h.field, Maybe::Null);
    }
}
