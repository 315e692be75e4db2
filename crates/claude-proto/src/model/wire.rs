//! What each wire type says about itself: the keys a struct types, the tag
//! values an enum types, the values an open string enum knows.
//!
//! Every type of the model is declared once, through `wire_struct!`,
//! `string_enum!` or an open tagged enum, and these traits come with the
//! declaration. The drift test compares them with the declarations the
//! CLI's own SDK ships, so a field, message type or value the CLI adds shows
//! up as a failing test that names it.

/// A JSON object type: the keys it reads into typed fields.
pub trait WireFields {
    /// The keys of this type's own typed fields, spelled as on the wire (a
    /// tag key such as `type` included). Keys of flattened members are in
    /// [`WireFields::FLATTENED`]; every other key lands in `extra`.
    const FIELDS: &'static [&'static str];

    /// The [`WireFields::all_fields`] of each flattened member (for example
    /// the fields every hook input shares).
    const FLATTENED: &'static [fn() -> Vec<&'static str>] = &[];

    /// Every key typed by this struct, its flattened members' included.
    fn all_fields() -> Vec<&'static str> {
        let mut all = Self::FIELDS.to_vec();
        for member in Self::FLATTENED {
            all.extend(member());
        }
        all
    }
}

/// An enum chosen by the value of one key (`type`, `subtype`,
/// `hook_event_name`, ...).
pub trait WireVariants {
    /// The key whose value picks the variant.
    const TAG: &'static str;
    /// The tag values that have a typed variant; any other value is kept
    /// whole in the enum's `Unknown` variant.
    const VARIANTS: &'static [&'static str];
}

/// An open string enum: the values it has variants for (any other string is
/// kept in its `Unknown` variant).
pub trait WireValues {
    /// The known values, as spelled on the wire.
    const VALUES: &'static [&'static str];
}

/// Declares a struct of the model: the struct as written (derives and serde
/// attributes included) and its [`WireFields`].
///
/// A field's wire key is its `#[serde(rename = "...")]` when that is the
/// first item of a `serde` attribute, else its name. A `#[serde(flatten)]`
/// field named `extra` is the bag of unknown keys; any other flattened field
/// contributes its own type's fields through [`WireFields::FLATTENED`].
macro_rules! wire_struct {
    (
        $(#[$($sattr:tt)*])*
        $vis:vis struct $name:ident {
            $( $(#[$($fattr:tt)*])* $fvis:vis $field:ident : $ty:ty ),* $(,)?
        }
    ) => {
        $(#[$($sattr)*])*
        $vis struct $name {
            $( $(#[$($fattr)*])* $fvis $field : $ty, )*
        }

        $crate::model::wire::wire_struct!(@impl $name [] []
            $( { [$(#[$($fattr)*])*] $field : $ty } )*
        );
    };

    // Every field seen: emit the impl.
    (@impl $name:ident [$($key:expr,)*] [$($flat:ty,)*]) => {
        impl $crate::model::wire::WireFields for $name {
            const FIELDS: &'static [&'static str] = &[$($key,)*];
            const FLATTENED: &'static [fn() -> Vec<&'static str>] =
                &[$(<$flat as $crate::model::wire::WireFields>::all_fields,)*];
        }
    };
    // The bag of unknown keys.
    (@impl $name:ident $keys:tt $flats:tt
        { [#[serde(flatten)] $($attr:tt)*] extra : $ty:ty } $($rest:tt)*) => {
        $crate::model::wire::wire_struct!(@impl $name $keys $flats $($rest)*);
    };
    // A flattened member.
    (@impl $name:ident $keys:tt [$($flat:ty,)*]
        { [#[serde(flatten)] $($attr:tt)*] $field:ident : $ty:ty } $($rest:tt)*) => {
        $crate::model::wire::wire_struct!(@impl $name $keys [$($flat,)* $ty,] $($rest)*);
    };
    // A renamed field.
    (@impl $name:ident [$($key:expr,)*] $flats:tt
        { [#[serde(rename = $wire:literal $($more:tt)*)] $($attr:tt)*] $field:ident : $ty:ty }
        $($rest:tt)*) => {
        $crate::model::wire::wire_struct!(@impl $name [$($key,)* $wire,] $flats $($rest)*);
    };
    // Any other attribute says nothing about the key: look at the next one.
    (@impl $name:ident $keys:tt $flats:tt
        { [#[$($other:tt)*] $($attr:tt)*] $field:ident : $ty:ty } $($rest:tt)*) => {
        $crate::model::wire::wire_struct!(@impl $name $keys $flats
            { [$($attr)*] $field : $ty } $($rest)*);
    };
    // No attribute left: the key is the field's name.
    (@impl $name:ident [$($key:expr,)*] $flats:tt
        { [] $field:ident : $ty:ty } $($rest:tt)*) => {
        $crate::model::wire::wire_struct!(@impl $name [$($key,)* stringify!($field),] $flats $($rest)*);
    };
}

pub(crate) use wire_struct;

#[allow(dead_code, unreachable_pub)] // the declared types exist to be inspected
#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::common::Extra;
    use serde::{Deserialize, Serialize};

    wire_struct! {
        /// Shared fields.
        #[derive(Debug, Serialize, Deserialize)]
        pub struct Base {
            /// An id.
            pub id: String,
        }
    }

    wire_struct! {
        /// A demo.
        #[derive(Debug, Serialize, Deserialize)]
        pub struct Demo {
            /// The tag.
            #[serde(rename = "type")]
            pub kind: String,
            /// Flattened.
            #[serde(flatten)]
            pub base: Base,
            /// Optional.
            #[serde(rename = "camelCase", default, skip_serializing_if = "Option::is_none")]
            pub camel_case: Option<u8>,
            #[serde(default)]
            pub plain: u8,
            /// Unknown keys.
            #[serde(flatten)]
            pub extra: Extra,
        }
    }

    #[test]
    fn a_struct_lists_its_wire_keys_and_its_flattened_members() {
        assert_eq!(Demo::FIELDS, &["type", "camelCase", "plain"]);
        assert_eq!(Demo::all_fields(), vec!["type", "camelCase", "plain", "id"]);
    }
}
