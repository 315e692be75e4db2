//! Content blocks: the pieces a message's `content` array is made of.
//!
//! One [`ContentBlock`] enum serves both directions: the blocks the model
//! writes (text, thinking, tool calls, server tool results, ...) and the
//! blocks a user sends (text, images, documents, tool results, ...). A block
//! type this crate does not know, or a known type whose fields changed shape,
//! is kept verbatim in [`ContentBlock::Unknown`].

use super::open_enum::open_enum;
use super::wire::wire_struct;
use std::fmt;

use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};

use super::common::{Extra, Json, Maybe};

open_enum! {
    /// One block of message content.
    ///
    /// Build the common ones with the constructors ([`ContentBlock::text`],
    /// [`ContentBlock::image_base64`], [`ContentBlock::tool_result`], ...), or
    /// fill in a block struct and wrap it in its variant.
    #[derive(Debug, Clone, PartialEq)]
    #[non_exhaustive]
    pub enum ContentBlock tagged "type" {
        /// A block of a type this crate does not know (or whose shape changed), kept verbatim.
        Unknown;
        /// Plain text.
        Text(TextBlock) = "text",
        /// An image, inline (base64), by URL, or by uploaded file id.
        Image(ImageBlock) = "image",
        /// A document (PDF, plain text, ...) given to the model.
        Document(DocumentBlock) = "document",
        /// A search result the model may cite.
        SearchResult(SearchResultBlock) = "search_result",
        /// The model asks to call a client-side tool.
        ToolUse(ToolUseBlock) = "tool_use",
        /// The output of a tool call, sent back to the model.
        ToolResult(ToolResultBlock) = "tool_result",
        /// The model's visible reasoning.
        Thinking(ThinkingBlock) = "thinking",
        /// Reasoning the API returned encrypted.
        RedactedThinking(RedactedThinkingBlock) = "redacted_thinking",
        /// The model calls a tool that runs on the API side (web search, code execution, ...).
        ServerToolUse(ServerToolUseBlock) = "server_tool_use",
        /// Result of a server-side web search.
        WebSearchToolResult(ServerToolResultBlock) = "web_search_tool_result",
        /// Result of a server-side web fetch.
        WebFetchToolResult(ServerToolResultBlock) = "web_fetch_tool_result",
        /// Result of a call to the advisor tool.
        AdvisorToolResult(ServerToolResultBlock) = "advisor_tool_result",
        /// Result of server-side code execution.
        CodeExecutionToolResult(ServerToolResultBlock) = "code_execution_tool_result",
        /// Result of a server-side bash command.
        BashCodeExecutionToolResult(ServerToolResultBlock) = "bash_code_execution_tool_result",
        /// Result of a server-side text editor command.
        TextEditorCodeExecutionToolResult(ServerToolResultBlock) = "text_editor_code_execution_tool_result",
        /// Result of a server-side tool search.
        ToolSearchToolResult(ServerToolResultBlock) = "tool_search_tool_result",
        /// The model calls a tool of a remote MCP server (run by the API).
        McpToolUse(McpToolUseBlock) = "mcp_tool_use",
        /// The result of a remote MCP tool call.
        McpToolResult(McpToolResultBlock) = "mcp_tool_result",
        /// A file was uploaded into the code execution container.
        ContainerUpload(ContainerUploadBlock) = "container_upload",
        /// A summary that replaces earlier context after compaction.
        Compaction(CompactionBlock) = "compaction",
        /// The API switched models mid-response.
        Fallback(FallbackBlock) = "fallback",
        /// A reference to a tool, found inside tool results of tool searches.
        ToolReference(ToolReferenceBlock) = "tool_reference",
    }
}

impl ContentBlock {
    /// A plain text block.
    pub fn text(text: impl Into<String>) -> Self {
        ContentBlock::Text(TextBlock::new(text))
    }

    /// An inline image, e.g. `image_base64("image/png", data)` where `data` is
    /// the base64-encoded file.
    pub fn image_base64(media_type: impl Into<String>, data: impl Into<String>) -> Self {
        ContentBlock::Image(ImageBlock::new(ImageSource::base64(media_type, data)))
    }

    /// An image the API fetches from a URL.
    pub fn image_url(url: impl Into<String>) -> Self {
        ContentBlock::Image(ImageBlock::new(ImageSource::url(url)))
    }

    /// An inline document, e.g. `document_base64("application/pdf", data)`.
    pub fn document_base64(media_type: impl Into<String>, data: impl Into<String>) -> Self {
        ContentBlock::Document(DocumentBlock::new(DocumentSource::Base64(
            Base64Source::new(media_type, data),
        )))
    }

    /// A plain-text document.
    pub fn document_text(text: impl Into<String>) -> Self {
        ContentBlock::Document(DocumentBlock::new(DocumentSource::Text(PlainTextSource {
            media_type: "text/plain".to_owned(),
            data: text.into(),
            extra: Extra::new(),
        })))
    }

    /// A successful tool result; `content` is a string or a list of blocks.
    pub fn tool_result(tool_use_id: impl Into<String>, content: impl Into<MessageContent>) -> Self {
        ContentBlock::ToolResult(ToolResultBlock::new(tool_use_id, content))
    }

    /// A failed tool result (`is_error: true`) carrying an error description.
    pub fn tool_result_error(
        tool_use_id: impl Into<String>,
        content: impl Into<MessageContent>,
    ) -> Self {
        ContentBlock::ToolResult(ToolResultBlock::new(tool_use_id, content).with_is_error(true))
    }

    /// A tool call block (mostly useful for replaying history or for tests).
    pub fn tool_use(id: impl Into<String>, name: impl Into<String>, input: Json) -> Self {
        ContentBlock::ToolUse(ToolUseBlock {
            id: id.into(),
            name: name.into(),
            input,
            caller: Maybe::Absent,
            extra: Extra::new(),
        })
    }

    /// The block's `type` as written on the wire (`"text"`, `"tool_use"`, ...).
    ///
    /// For an unknown block it is read from the kept JSON (empty if missing).
    pub fn block_type(&self) -> &str {
        match self {
            ContentBlock::Text(_) => "text",
            ContentBlock::Image(_) => "image",
            ContentBlock::Document(_) => "document",
            ContentBlock::SearchResult(_) => "search_result",
            ContentBlock::ToolUse(_) => "tool_use",
            ContentBlock::ToolResult(_) => "tool_result",
            ContentBlock::Thinking(_) => "thinking",
            ContentBlock::RedactedThinking(_) => "redacted_thinking",
            ContentBlock::ServerToolUse(_) => "server_tool_use",
            ContentBlock::WebSearchToolResult(_) => "web_search_tool_result",
            ContentBlock::WebFetchToolResult(_) => "web_fetch_tool_result",
            ContentBlock::AdvisorToolResult(_) => "advisor_tool_result",
            ContentBlock::CodeExecutionToolResult(_) => "code_execution_tool_result",
            ContentBlock::BashCodeExecutionToolResult(_) => "bash_code_execution_tool_result",
            ContentBlock::TextEditorCodeExecutionToolResult(_) => {
                "text_editor_code_execution_tool_result"
            }
            ContentBlock::ToolSearchToolResult(_) => "tool_search_tool_result",
            ContentBlock::McpToolUse(_) => "mcp_tool_use",
            ContentBlock::McpToolResult(_) => "mcp_tool_result",
            ContentBlock::ContainerUpload(_) => "container_upload",
            ContentBlock::Compaction(_) => "compaction",
            ContentBlock::Fallback(_) => "fallback",
            ContentBlock::ToolReference(_) => "tool_reference",
            ContentBlock::Unknown(v) => v.get("type").and_then(Json::as_str).unwrap_or(""),
        }
    }

    /// The text of a text block, `None` for any other block.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            ContentBlock::Text(b) => Some(&b.text),
            _ => None,
        }
    }

    /// The tool call, if this is a `tool_use` block.
    pub fn as_tool_use(&self) -> Option<&ToolUseBlock> {
        match self {
            ContentBlock::ToolUse(b) => Some(b),
            _ => None,
        }
    }

    /// The tool result, if this is a `tool_result` block.
    pub fn as_tool_result(&self) -> Option<&ToolResultBlock> {
        match self {
            ContentBlock::ToolResult(b) => Some(b),
            _ => None,
        }
    }
}

impl From<TextBlock> for ContentBlock {
    fn from(b: TextBlock) -> Self {
        ContentBlock::Text(b)
    }
}

impl From<ImageBlock> for ContentBlock {
    fn from(b: ImageBlock) -> Self {
        ContentBlock::Image(b)
    }
}

impl From<DocumentBlock> for ContentBlock {
    fn from(b: DocumentBlock) -> Self {
        ContentBlock::Document(b)
    }
}

impl From<ToolResultBlock> for ContentBlock {
    fn from(b: ToolResultBlock) -> Self {
        ContentBlock::ToolResult(b)
    }
}

/// Content that is either a plain string or a list of blocks.
///
/// Used for a user message's `content`, a tool result's `content` and
/// similar places where the API accepts both forms. The form received is the
/// form written back.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum MessageContent {
    /// A bare string.
    Text(String),
    /// A list of content blocks.
    Blocks(Vec<ContentBlock>),
}

/// Read in one pass: a string, or a list of blocks read straight from the
/// input (serde's untagged enums buffer the whole value first).
impl<'de> Deserialize<'de> for MessageContent {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ContentVisitor;
        impl<'de> Visitor<'de> for ContentVisitor {
            type Value = MessageContent;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string or a list of content blocks")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<MessageContent, E> {
                Ok(MessageContent::Text(v.to_owned()))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<MessageContent, E> {
                Ok(MessageContent::Text(v))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<MessageContent, A::Error> {
                // A hint from the input is not trusted beyond a small start.
                let mut blocks = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(16));
                while let Some(block) = seq.next_element::<ContentBlock>()? {
                    blocks.push(block);
                }
                Ok(MessageContent::Blocks(blocks))
            }
        }
        deserializer.deserialize_any(ContentVisitor)
    }
}

impl Default for MessageContent {
    /// An empty block list.
    fn default() -> Self {
        MessageContent::Blocks(Vec::new())
    }
}

impl MessageContent {
    /// The blocks, if the content is a list (a bare string gives `None`).
    pub fn blocks(&self) -> Option<&[ContentBlock]> {
        match self {
            MessageContent::Blocks(b) => Some(b),
            MessageContent::Text(_) => None,
        }
    }

    /// All the text in the content: the string itself, or the text blocks
    /// joined with no separator.
    pub fn text(&self) -> String {
        match self {
            MessageContent::Text(s) => s.clone(),
            MessageContent::Blocks(blocks) => {
                blocks.iter().filter_map(ContentBlock::as_text).collect()
            }
        }
    }

    /// `true` for an empty string or an empty block list.
    pub fn is_empty(&self) -> bool {
        match self {
            MessageContent::Text(s) => s.is_empty(),
            MessageContent::Blocks(b) => b.is_empty(),
        }
    }
}

impl From<String> for MessageContent {
    fn from(s: String) -> Self {
        MessageContent::Text(s)
    }
}

impl From<&str> for MessageContent {
    fn from(s: &str) -> Self {
        MessageContent::Text(s.to_owned())
    }
}

impl From<Vec<ContentBlock>> for MessageContent {
    fn from(blocks: Vec<ContentBlock>) -> Self {
        MessageContent::Blocks(blocks)
    }
}

wire_struct! {
    /// Prompt caching marker on a request block (`{"type":"ephemeral","ttl":"1h"}`).
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    pub struct CacheControl {
        /// Cache kind; `"ephemeral"` is the only one the API defines today.
        #[serde(rename = "type")]
        pub kind: String,
        /// How long the cache entry lives (`"5m"` or `"1h"`); API default when absent.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub ttl: Option<String>,
        /// Fields not modelled here, kept verbatim.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

impl CacheControl {
    /// An ephemeral cache breakpoint with the default lifetime.
    pub fn ephemeral() -> Self {
        CacheControl {
            kind: "ephemeral".to_owned(),
            ttl: None,
            extra: Extra::new(),
        }
    }
}

wire_struct! {
    /// A `text` block.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct TextBlock {
        /// The text.
        pub text: String,
        /// Citations backing this text (the model's blocks carry `null` when there are none).
        #[serde(default, skip_serializing_if = "Maybe::is_absent")]
        pub citations: Maybe<Vec<Json>>,
        /// Prompt caching marker (request blocks only).
        #[serde(default, skip_serializing_if = "Maybe::is_absent")]
        pub cache_control: Maybe<CacheControl>,
        /// Fields not modelled here, kept verbatim.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

impl TextBlock {
    /// A text block with no citations or caching.
    pub fn new(text: impl Into<String>) -> Self {
        TextBlock {
            text: text.into(),
            ..Default::default()
        }
    }
}

wire_struct! {
    /// An `image` block.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    pub struct ImageBlock {
        /// Where the image data comes from.
        pub source: ImageSource,
        /// Prompt caching marker.
        #[serde(default, skip_serializing_if = "Maybe::is_absent")]
        pub cache_control: Maybe<CacheControl>,
        /// Fields not modelled here, kept verbatim.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

impl ImageBlock {
    /// An image block from a source.
    pub fn new(source: ImageSource) -> Self {
        ImageBlock {
            source,
            cache_control: Maybe::Absent,
            extra: Extra::new(),
        }
    }
}

open_enum! {
    /// Where an image comes from.
    #[derive(Debug, Clone, PartialEq)]
    #[non_exhaustive]
    pub enum ImageSource tagged "type" {
        /// A source kind this crate does not know, kept verbatim.
        Unknown;
        /// Inline base64 data.
        Base64(Base64Source) = "base64",
        /// A URL the API downloads.
        Url(UrlSource) = "url",
        /// A file uploaded earlier through the Files API.
        File(FileSource) = "file",
    }
}

impl ImageSource {
    /// Inline data: `media_type` such as `"image/png"`, `data` base64-encoded.
    pub fn base64(media_type: impl Into<String>, data: impl Into<String>) -> Self {
        ImageSource::Base64(Base64Source::new(media_type, data))
    }

    /// An image at a URL.
    pub fn url(url: impl Into<String>) -> Self {
        ImageSource::Url(UrlSource {
            url: url.into(),
            extra: Extra::new(),
        })
    }

    /// A file uploaded through the Files API.
    pub fn file(file_id: impl Into<String>) -> Self {
        ImageSource::File(FileSource {
            file_id: file_id.into(),
            extra: Extra::new(),
        })
    }
}

wire_struct! {
    /// Inline base64-encoded data (`{"type":"base64","media_type":..,"data":..}`).
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct Base64Source {
        /// MIME type of the decoded data, e.g. `image/jpeg` or `application/pdf`.
        pub media_type: String,
        /// The base64-encoded bytes.
        pub data: String,
        /// Fields not modelled here, kept verbatim.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

impl Base64Source {
    /// Inline data with its MIME type.
    pub fn new(media_type: impl Into<String>, data: impl Into<String>) -> Self {
        Base64Source {
            media_type: media_type.into(),
            data: data.into(),
            extra: Extra::new(),
        }
    }
}

wire_struct! {
    /// Data the API downloads from a URL.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct UrlSource {
        /// The address to fetch.
        pub url: String,
        /// Fields not modelled here, kept verbatim.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// A file uploaded earlier through the Files API.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct FileSource {
        /// The uploaded file's id.
        pub file_id: String,
        /// Fields not modelled here, kept verbatim.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// Plain text given as a document source.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct PlainTextSource {
        /// MIME type of the text (normally `text/plain`).
        pub media_type: String,
        /// The text itself.
        pub data: String,
        /// Fields not modelled here, kept verbatim.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// A document made of content blocks (or one string).
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct ContentDocumentSource {
        /// The document's content.
        pub content: MessageContent,
        /// Fields not modelled here, kept verbatim.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// A `document` block.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    pub struct DocumentBlock {
        /// Where the document comes from.
        pub source: DocumentSource,
        /// Optional title shown to the model.
        #[serde(default, skip_serializing_if = "Maybe::is_absent")]
        pub title: Maybe<String>,
        /// Optional extra context about the document for the model.
        #[serde(default, skip_serializing_if = "Maybe::is_absent")]
        pub context: Maybe<String>,
        /// Citation settings (`{"enabled":true}`).
        #[serde(default, skip_serializing_if = "Maybe::is_absent")]
        pub citations: Maybe<Json>,
        /// Prompt caching marker.
        #[serde(default, skip_serializing_if = "Maybe::is_absent")]
        pub cache_control: Maybe<CacheControl>,
        /// Fields not modelled here, kept verbatim.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

impl DocumentBlock {
    /// A document block from a source, with no title or caching.
    pub fn new(source: DocumentSource) -> Self {
        DocumentBlock {
            source,
            title: Maybe::Absent,
            context: Maybe::Absent,
            citations: Maybe::Absent,
            cache_control: Maybe::Absent,
            extra: Extra::new(),
        }
    }
}

open_enum! {
    /// Where a document comes from.
    #[derive(Debug, Clone, PartialEq)]
    #[non_exhaustive]
    pub enum DocumentSource tagged "type" {
        /// A source kind this crate does not know, kept verbatim.
        Unknown;
        /// Inline base64 data (PDF).
        Base64(Base64Source) = "base64",
        /// Inline plain text.
        Text(PlainTextSource) = "text",
        /// Content blocks making up the document.
        Content(ContentDocumentSource) = "content",
        /// A URL the API downloads.
        Url(UrlSource) = "url",
        /// A file uploaded through the Files API.
        File(FileSource) = "file",
    }
}

wire_struct! {
    /// A `search_result` block: a result the model may cite.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct SearchResultBlock {
        /// Where the result comes from (URL or other identifier).
        pub source: String,
        /// Result title.
        pub title: String,
        /// The result's text blocks.
        pub content: Vec<ContentBlock>,
        /// Citation settings.
        #[serde(default, skip_serializing_if = "Maybe::is_absent")]
        pub citations: Maybe<Json>,
        /// Prompt caching marker.
        #[serde(default, skip_serializing_if = "Maybe::is_absent")]
        pub cache_control: Maybe<CacheControl>,
        /// Fields not modelled here, kept verbatim.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// A `tool_use` block: the model asks to run a tool.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct ToolUseBlock {
        /// Id of this call; the matching tool result quotes it.
        pub id: String,
        /// Tool name (e.g. `Bash`, `mcp__server__tool`).
        pub name: String,
        /// Tool arguments, shaped by the tool's input schema.
        pub input: Json,
        /// What issued the call, when it was not the model directly.
        #[serde(default, skip_serializing_if = "Maybe::is_absent")]
        pub caller: Maybe<Json>,
        /// Fields not modelled here, kept verbatim.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// A `tool_result` block: the output of a tool call.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct ToolResultBlock {
        /// Id of the `tool_use` block this answers.
        pub tool_use_id: String,
        /// The output, as a string or as blocks (text, images, ...).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub content: Option<MessageContent>,
        /// `true` when the tool failed and `content` describes the error.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub is_error: Option<bool>,
        /// Prompt caching marker.
        #[serde(default, skip_serializing_if = "Maybe::is_absent")]
        pub cache_control: Maybe<CacheControl>,
        /// Fields not modelled here, kept verbatim.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

impl ToolResultBlock {
    /// The output's text: the string itself, or its text blocks joined
    /// (images and other blocks left out); empty when there is no content.
    pub fn text(&self) -> String {
        self.content
            .as_ref()
            .map(MessageContent::text)
            .unwrap_or_default()
    }

    /// A result for `tool_use_id` with the given content.
    pub fn new(tool_use_id: impl Into<String>, content: impl Into<MessageContent>) -> Self {
        ToolResultBlock {
            tool_use_id: tool_use_id.into(),
            content: Some(content.into()),
            ..Default::default()
        }
    }

    /// Sets `is_error`.
    pub fn with_is_error(mut self, is_error: bool) -> Self {
        self.is_error = Some(is_error);
        self
    }

    /// `true` when the result is marked as an error.
    pub fn is_error(&self) -> bool {
        self.is_error.unwrap_or(false)
    }
}

wire_struct! {
    /// A `thinking` block: reasoning the model shows.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct ThinkingBlock {
        /// The reasoning text (may be empty when display is turned off).
        pub thinking: String,
        /// Opaque signature that must be sent back unchanged with the block.
        pub signature: String,
        /// Fields not modelled here, kept verbatim.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// A `redacted_thinking` block: reasoning the API returned encrypted.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct RedactedThinkingBlock {
        /// Opaque encrypted data.
        pub data: String,
        /// Fields not modelled here, kept verbatim.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// A `server_tool_use` block: a tool the API runs itself.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct ServerToolUseBlock {
        /// Id of this call; the matching result block quotes it.
        pub id: String,
        /// Server tool name (`web_search`, `web_fetch`, `code_execution`, ...).
        pub name: String,
        /// Tool arguments.
        pub input: Json,
        /// What issued the call, when it was not the model directly.
        #[serde(default, skip_serializing_if = "Maybe::is_absent")]
        pub caller: Maybe<Json>,
        /// Fields not modelled here, kept verbatim.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// The result of a server-side tool (web search, web fetch, code execution, ...).
    ///
    /// The shape of `content` depends on the tool and may be an error object.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct ServerToolResultBlock {
        /// Id of the `server_tool_use` block this answers.
        pub tool_use_id: String,
        /// The tool's output (or an error object), as the API sent it.
        pub content: Json,
        /// What issued the call, when it was not the model directly.
        #[serde(default, skip_serializing_if = "Maybe::is_absent")]
        pub caller: Maybe<Json>,
        /// Fields not modelled here, kept verbatim.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// An `mcp_tool_use` block: a remote MCP tool call made by the API.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct McpToolUseBlock {
        /// Id of this call.
        pub id: String,
        /// Tool name on the MCP server.
        pub name: String,
        /// Name of the MCP server.
        pub server_name: String,
        /// Tool arguments.
        pub input: Json,
        /// Fields not modelled here, kept verbatim.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// An `mcp_tool_result` block: the result of a remote MCP tool call.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct McpToolResultBlock {
        /// Id of the `mcp_tool_use` block this answers.
        pub tool_use_id: String,
        /// `true` when the call failed.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub is_error: Option<bool>,
        /// The output, as a string or text blocks.
        pub content: MessageContent,
        /// Fields not modelled here, kept verbatim.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// A `container_upload` block: a file placed into the code execution container.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct ContainerUploadBlock {
        /// The uploaded file's id.
        pub file_id: String,
        /// Fields not modelled here, kept verbatim.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// A `compaction` block: a summary standing in for earlier context.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct CompactionBlock {
        /// Readable summary, if any.
        #[serde(deserialize_with = "crate::model::common::nullable")]
        pub content: Option<String>,
        /// Encrypted summary, if any.
        #[serde(deserialize_with = "crate::model::common::nullable")]
        pub encrypted_content: Option<String>,
        /// Opaque signature to send back with the block.
        #[serde(default, skip_serializing_if = "Maybe::is_absent")]
        pub signature: Maybe<String>,
        /// Tool set changes recorded with the compaction.
        #[serde(default, skip_serializing_if = "Maybe::is_absent")]
        pub tool_changes: Maybe<Json>,
        /// Fields not modelled here, kept verbatim.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// A `fallback` block: the API switched from one model to another.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct FallbackBlock {
        /// The model (or model descriptor) switched away from.
        pub from: Json,
        /// The model (or model descriptor) switched to.
        pub to: Json,
        /// Why the switch happened.
        pub trigger: Json,
        /// Fields not modelled here, kept verbatim.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// A `tool_reference` block: names a tool (in tool search results).
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct ToolReferenceBlock {
        /// The tool's name.
        pub tool_name: String,
        /// Fields not modelled here, kept verbatim.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn round_trip(v: Json) -> ContentBlock {
        let block: ContentBlock = crate::model::from_value(&v).expect("decode");
        assert_eq!(serde_json::to_value(&block).expect("encode"), v);
        block
    }

    #[test]
    fn assistant_blocks_round_trip() {
        let b = round_trip(json!({"type":"text","text":"hi","citations":null,"future":1}));
        assert_eq!(b.as_text(), Some("hi"));
        let b = round_trip(json!({"type":"thinking","thinking":"hmm","signature":"sig"}));
        assert!(matches!(b, ContentBlock::Thinking(_)));
        round_trip(json!({"type":"redacted_thinking","data":"xx"}));
        let b = round_trip(
            json!({"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls"},"caller":null}),
        );
        assert_eq!(b.as_tool_use().map(|t| t.name.as_str()), Some("Bash"));
        round_trip(
            json!({"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{"query":"rust"}}),
        );
        let b = round_trip(
            json!({"type":"web_search_tool_result","tool_use_id":"srvtoolu_1","content":[{"type":"web_search_result","url":"https://x","title":"x","encrypted_content":"e","page_age":null}]}),
        );
        assert!(matches!(b, ContentBlock::WebSearchToolResult(_)));
        round_trip(
            json!({"type":"web_fetch_tool_result","tool_use_id":"s","content":{"type":"web_fetch_tool_error","error_code":"url_not_accessible"}}),
        );
        round_trip(
            json!({"type":"mcp_tool_use","id":"m","name":"t","server_name":"srv","input":{}}),
        );
        round_trip(
            json!({"type":"mcp_tool_result","tool_use_id":"m","is_error":false,"content":[{"type":"text","text":"ok","citations":null}]}),
        );
        round_trip(json!({"type":"container_upload","file_id":"file_1"}));
        let b = round_trip(json!({"type":"compaction","content":null,"encrypted_content":"abc"}));
        assert!(matches!(b, ContentBlock::Compaction(_)));
        round_trip(
            json!({"type":"fallback","from":"claude-a","to":"claude-b","trigger":"refusal"}),
        );
        round_trip(
            json!({"type":"code_execution_tool_result","tool_use_id":"x","content":{"type":"code_execution_result","stdout":"","stderr":"","return_code":0,"content":[]}}),
        );
    }

    #[test]
    fn request_blocks_round_trip() {
        let b = round_trip(
            json!({"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBOR"},"cache_control":{"type":"ephemeral","ttl":"1h"}}),
        );
        assert!(matches!(
            b,
            ContentBlock::Image(ImageBlock {
                source: ImageSource::Base64(_),
                ..
            })
        ));
        round_trip(json!({"type":"image","source":{"type":"url","url":"https://e.com/a.png"}}));
        round_trip(
            json!({"type":"image","source":{"type":"file","file_id":"f"},"cache_control":null}),
        );
        let b = round_trip(json!({"type":"image","source":{"type":"hologram","beam":1}}));
        assert!(matches!(
            b,
            ContentBlock::Image(ImageBlock {
                source: ImageSource::Unknown(_),
                ..
            })
        ));
        round_trip(
            json!({"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"JVBER"},"title":"t","citations":{"enabled":true}}),
        );
        round_trip(
            json!({"type":"document","source":{"type":"text","media_type":"text/plain","data":"hello"},"context":null}),
        );
        round_trip(
            json!({"type":"document","source":{"type":"content","content":[{"type":"text","text":"a"}]}}),
        );
        round_trip(
            json!({"type":"search_result","source":"https://s","title":"S","content":[{"type":"text","text":"r"}],"citations":{"enabled":true}}),
        );
        let b = round_trip(
            json!({"type":"tool_result","tool_use_id":"toolu_1","content":"hi","is_error":false}),
        );
        assert_eq!(
            b.as_tool_result().map(ToolResultBlock::is_error),
            Some(false)
        );
        let b = round_trip(
            json!({"type":"tool_result","tool_use_id":"toolu_1","content":[{"type":"text","text":"a"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"x"}},{"type":"tool_reference","tool_name":"Grep"}]}),
        );
        let content = b
            .as_tool_result()
            .and_then(|r| r.content.as_ref())
            .map(MessageContent::text);
        assert_eq!(content.as_deref(), Some("a"));
        round_trip(json!({"type":"tool_result","tool_use_id":"toolu_2"}));
    }

    #[test]
    fn unknown_block_survives() {
        let b = round_trip(json!({"type":"hologram","beams":[1,2],"x":null}));
        assert!(matches!(b, ContentBlock::Unknown(_)));
        assert_eq!(b.block_type(), "hologram");
        let b = round_trip(json!({"type":"mid_conv_system","content":"x"}));
        assert!(matches!(b, ContentBlock::Unknown(_)));
        // A known type whose fields changed shape is kept too.
        let b = round_trip(json!({"type":"text","text":42}));
        assert!(matches!(b, ContentBlock::Unknown(_)));
        assert_eq!(b.block_type(), "text");
    }

    #[test]
    fn constructors_serialize_as_expected() {
        assert_eq!(
            serde_json::to_value(ContentBlock::text("hi")).expect("encode"),
            json!({"type":"text","text":"hi"})
        );
        assert_eq!(
            serde_json::to_value(ContentBlock::image_base64("image/png", "AAA")).expect("encode"),
            json!({"type":"image","source":{"type":"base64","media_type":"image/png","data":"AAA"}})
        );
        assert_eq!(
            serde_json::to_value(ContentBlock::image_url("https://x/y.png")).expect("encode"),
            json!({"type":"image","source":{"type":"url","url":"https://x/y.png"}})
        );
        assert_eq!(
            serde_json::to_value(ContentBlock::tool_result("t1", "out")).expect("encode"),
            json!({"type":"tool_result","tool_use_id":"t1","content":"out"})
        );
        assert_eq!(
            serde_json::to_value(ContentBlock::tool_result_error(
                "t1",
                vec![ContentBlock::text("boom")]
            ))
            .expect("encode"),
            json!({"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"boom"}],"is_error":true})
        );
        assert_eq!(
            serde_json::to_value(ContentBlock::document_text("doc")).expect("encode"),
            json!({"type":"document","source":{"type":"text","media_type":"text/plain","data":"doc"}})
        );
    }
}
