//! A typed tool's arguments: deserialized from the model's JSON, with the
//! JSON Schema the model is shown derived from the same type.

use claude_proto::model::Json;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;

/// The arguments of a typed MCP tool: any type that is
/// `serde::Deserialize` and `schemars::JsonSchema`. The tool's arguments
/// are deserialized into it, and its schema is what the model is shown.
///
/// Derive both (add `serde` with its `derive` feature and `schemars` to
/// your Cargo.toml); doc comments on the fields become their descriptions
/// in the schema:
///
/// ```
/// use claude_proto_adapter::ToolArgs;
/// use schemars::JsonSchema;
/// use serde::Deserialize;
///
/// #[derive(Deserialize, JsonSchema)]
/// struct Add {
///     /// The first number.
///     a: f64,
///     b: f64,
/// }
///
/// let schema = Add::schema();
/// assert_eq!(schema["type"], "object");
/// assert_eq!(schema["required"], serde_json::json!(["a", "b"]));
/// assert_eq!(schema["properties"]["a"]["description"], "The first number.");
/// ```
///
/// For a schema written by hand, implement `JsonSchema` by hand; for no
/// type at all, take the arguments as [`Json`] (any object).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool's arguments: it is not `Deserialize` + `JsonSchema`",
    label = "the tool's arguments",
    note = "derive both on the type: `#[derive(serde::Deserialize, schemars::JsonSchema)]`",
    note = "or take the arguments as raw JSON: `async |args: Json| ...`"
)]
pub trait ToolArgs: DeserializeOwned {
    /// The JSON Schema of the arguments: an object schema, without the
    /// `$schema` and `title` keys (the type's Rust name means nothing to
    /// the model).
    fn schema() -> Json;
}

#[diagnostic::do_not_recommend]
impl<T: DeserializeOwned + JsonSchema> ToolArgs for T {
    fn schema() -> Json {
        let schema = schemars::SchemaGenerator::default().into_root_schema_for::<T>();
        let mut schema = Json::from(schema);
        match schema.as_object_mut() {
            Some(object) => {
                object.remove("$schema");
                object.remove("title");
                // `Json` (any value) derives the empty schema; a tool's
                // arguments are always an object.
                object
                    .entry("type")
                    .or_insert_with(|| Json::String("object".into()));
            }
            None => schema = serde_json::json!({"type": "object"}),
        }
        schema
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn raw_json_arguments_are_any_object() {
        assert_eq!(Json::schema(), json!({"type": "object"}));
    }

    #[derive(serde::Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Search {
        query: String,
        limit: Option<u32>,
    }

    #[test]
    fn optional_fields_are_not_required() {
        let schema = Search::schema();
        assert_eq!(schema["required"], json!(["query"]));
        assert!(schema.get("$schema").is_none() && schema.get("title").is_none());
    }
}
