//! The routing pass over a line that [`route`](crate::route) leaves to
//! serde_json (control messages, and anything unusual): read the few fields
//! that route it (`type`, `subtype`, `request_id`) and borrow the control
//! bodies as raw JSON, skipping everything else without building any value.

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

/// The routing fields of one stdout line.
#[derive(Debug, Deserialize)]
pub(crate) struct Envelope<'a> {
    #[serde(rename = "type", default, borrow, deserialize_with = "lenient_str")]
    pub(crate) ty: Option<Cow<'a, str>>,
    #[serde(default, borrow, deserialize_with = "lenient_str")]
    pub(crate) subtype: Option<Cow<'a, str>>,
    #[serde(default, borrow, deserialize_with = "lenient_str")]
    pub(crate) request_id: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    pub(crate) request: Option<&'a RawValue>,
    #[serde(default, borrow)]
    pub(crate) response: Option<&'a RawValue>,
}

/// The routing fields of a `control_response`'s `response` object.
#[derive(Debug, Deserialize)]
pub(crate) struct ResponseHead<'a> {
    #[serde(default, borrow, deserialize_with = "lenient_str")]
    pub(crate) subtype: Option<Cow<'a, str>>,
    #[serde(default, borrow, deserialize_with = "lenient_str")]
    pub(crate) request_id: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    pub(crate) response: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "lenient_str")]
    pub(crate) error: Option<Cow<'a, str>>,
    #[serde(default, borrow, deserialize_with = "lenient_str")]
    pub(crate) error_code: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    pub(crate) pending_permission_requests: Option<&'a RawValue>,
    #[serde(default, borrow)]
    pub(crate) pending_user_dialog_requests: Option<&'a RawValue>,
    #[serde(default, borrow)]
    pub(crate) pending_elicitation_requests: Option<&'a RawValue>,
}

/// The `subtype` of a control request body.
#[derive(Debug, Deserialize)]
pub(crate) struct RequestHead<'a> {
    #[serde(default, borrow, deserialize_with = "lenient_str")]
    pub(crate) subtype: Option<Cow<'a, str>>,
}

/// Reads a string field, treating any other JSON value as "no string": a
/// routing field of the wrong type makes the line unroutable, not invalid.
fn lenient_str<'de, D>(deserializer: D) -> Result<Option<Cow<'de, str>>, D::Error>
where
    D: Deserializer<'de>,
{
    struct LenientStr;

    impl<'de> Visitor<'de> for LenientStr {
        type Value = Option<Cow<'de, str>>;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("any JSON value")
        }
        fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
            Ok(Some(Cow::Borrowed(v)))
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
            Ok(Some(Cow::Owned(v.to_owned())))
        }
        fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
            Ok(Some(Cow::Owned(v)))
        }
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            Ok(None)
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
            Ok(None)
        }
    }

    deserializer.deserialize_any(LenientStr)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_routing_fields_in_any_key_order() {
        let line = br#"{"session_id":"s","subtype":"init","x":[1,{"type":"no"}],"type":"system"}"#;
        let env: Envelope<'_> = serde_json::from_slice(line).unwrap();
        assert_eq!(env.ty.as_deref(), Some("system"));
        assert_eq!(env.subtype.as_deref(), Some("init"));
        assert!(env.request.is_none());
    }

    #[test]
    fn wrong_typed_routing_fields_are_not_errors() {
        let env: Envelope<'_> =
            serde_json::from_slice(br#"{"type":5,"subtype":{"a":[1]},"request_id":null}"#).unwrap();
        assert!(env.ty.is_none() && env.subtype.is_none() && env.request_id.is_none());
    }

    #[test]
    fn borrows_control_bodies_raw() {
        let line = br#"{"type":"control_response","response":{"subtype":"success","request_id":"r\"1","response":{"a":1}}}"#;
        let env: Envelope<'_> = serde_json::from_slice(line).unwrap();
        let head: ResponseHead<'_> = serde_json::from_str(env.response.unwrap().get()).unwrap();
        assert_eq!(head.request_id.as_deref(), Some("r\"1"));
        assert_eq!(head.response.unwrap().get(), r#"{"a":1}"#);
    }
}
