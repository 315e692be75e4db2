//! One request the stand-in received, and what a script asks of it.

use serde_json::Value;

/// One HTTP request the stand-in received, as recorded
/// ([`ModelApi::requests`](super::ModelApi::requests)) and as a script sees
/// it before it answers (`status` is then not yet known: 0).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ApiRequest {
    /// `GET`, `POST`, ...
    pub method: String,
    /// The request target, query included (`/v1/messages?beta=true`).
    pub path: String,
    /// Header names (lower case) and values, in order.
    pub headers: Vec<(String, String)>,
    /// The body as JSON (`Value::Null` if empty, not JSON, or refused as
    /// too large).
    pub body: Value,
    /// The HTTP status the stand-in answered with (0 while a script is
    /// deciding).
    pub status: u16,
}

impl ApiRequest {
    /// `true` for `POST /v1/messages` (any query): a model call.
    pub fn is_messages(&self) -> bool {
        self.method == "POST" && self.path.split('?').next() == Some("/v1/messages")
    }

    /// `true` when the body asks for a stream (`"stream": true`).
    pub fn is_streaming(&self) -> bool {
        self.body["stream"] == Value::Bool(true)
    }

    /// The `model` field of the body.
    pub fn model(&self) -> Option<&str> {
        self.body["model"].as_str()
    }

    /// The conversation sent (`messages`), oldest first.
    pub fn messages(&self) -> &[Value] {
        self.body["messages"]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or_default()
    }

    /// The names of the tools offered to the model (`tools[].name`), in
    /// order: the CLI's built-in tools and the MCP tools
    /// (`mcp__<server>__<tool>`) it could call.
    pub fn tools(&self) -> Vec<&str> {
        self.body["tools"]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or_default()
            .iter()
            .filter_map(|tool| tool["name"].as_str())
            .collect()
    }

    /// Every `tool_result` block in the conversation, oldest first.
    pub fn tool_results(&self) -> Vec<&Value> {
        self.messages()
            .iter()
            .filter_map(|m| m["content"].as_array())
            .flatten()
            .filter(|block| block["type"] == "tool_result")
            .collect()
    }

    /// The text of every `tool_result` block in the conversation, oldest
    /// first: its string content, or its text parts joined with newlines.
    pub fn tool_result_texts(&self) -> Vec<String> {
        self.tool_results()
            .into_iter()
            .map(|block| match &block["content"] {
                Value::String(text) => text.clone(),
                Value::Array(parts) => parts
                    .iter()
                    .filter_map(|part| part["text"].as_str())
                    .collect::<Vec<_>>()
                    .join("\n"),
                _ => String::new(),
            })
            .collect()
    }

    /// The text of every text block (or string content) in the
    /// conversation, tool results' text included, joined with newlines:
    /// for "has the model been told X" checks.
    pub fn all_text(&self) -> String {
        let mut out = Vec::new();
        for message in self.messages() {
            match &message["content"] {
                Value::String(s) => out.push(s.clone()),
                Value::Array(blocks) => {
                    for block in blocks {
                        if let Some(text) = block["text"].as_str() {
                            out.push(text.to_owned());
                        }
                        if let Some(text) = block["content"].as_str() {
                            out.push(text.to_owned());
                        }
                        if let Some(parts) = block["content"].as_array() {
                            out.extend(
                                parts
                                    .iter()
                                    .filter_map(|p| p["text"].as_str().map(str::to_owned)),
                            );
                        }
                    }
                }
                _ => {}
            }
        }
        out.join("\n")
    }

    /// `true` when the last message holds a `tool_result`. Careful: the
    /// real CLI may append more after it (a `role: "system"` message, hook
    /// context), so [`tool_results`](Self::tool_results) is the safer test
    /// for "the model has seen its tool's result".
    pub fn ends_with_tool_result(&self) -> bool {
        self.messages().last().is_some_and(|m| {
            m["content"]
                .as_array()
                .is_some_and(|blocks| blocks.iter().any(|b| b["type"] == "tool_result"))
        })
    }

    /// A header's value (name in any case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}
