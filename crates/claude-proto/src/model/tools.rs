//! Typed inputs and outputs of the CLI's built-in tools.
//!
//! The CLI reports tool calls with a tool name and the input as raw JSON (in
//! [`CanUseTool`], in the tool hook inputs and in assistant `tool_use`
//! blocks). [`ToolInput::parse`] turns that pair into a typed value for the
//! built-in tools below, and [`ToolOutput::parse`] does the same for what a
//! tool returned (`PostToolUse`'s `tool_response`). Every other tool,
//! including MCP tools, stays raw in the `Other` variant.
//!
//! | tool name | input | output |
//! |---|---|---|
//! | `Agent` (also `Task`, its older name) | [`AgentInput`] | raw |
//! | `AskUserQuestion` | [`AskUserQuestionInput`] | [`AskUserQuestionOutput`] |
//! | `Bash` | [`BashInput`] | [`BashOutput`] |
//! | `Edit` | [`EditInput`] | [`EditOutput`] |
//! | `Glob` | [`GlobInput`] | [`GlobOutput`] |
//! | `Grep` | [`GrepInput`] | [`GrepOutput`] |
//! | `NotebookEdit` | [`NotebookEditInput`] | raw |
//! | `Read` | [`ReadInput`] | [`ReadOutput`] |
//! | `TodoWrite` | [`TodoWriteInput`] | [`TodoWriteOutput`] |
//! | `WebFetch` | [`WebFetchInput`] | [`WebFetchOutput`] |
//! | `WebSearch` | [`WebSearchInput`] | [`WebSearchOutput`] |
//! | `Write` | [`WriteInput`] | [`WriteOutput`] |
//!
//! Parsing never fails and never loses anything: a value that does not fit
//! its type (a missing required field, a field of the wrong type, an explicit
//! `null` where the tool expects a value) is kept whole in `Other`, and every
//! typed struct keeps fields it does not model in `extra`, so
//! [`ToolInput::to_json`] gives back the JSON value that was parsed.
//!
//! The CLI is lenient about scalars the model writes as strings: it reads
//! `"true"`/`"false"` as booleans and numeric strings such as `"5000"` as
//! numbers. It converts them before it asks `can_use_tool` (CLI 2.1.330
//! sends `"timeout":5000` for the model's `"timeout":"5000"`), but an
//! assistant `tool_use` block carries the model's own spelling. Boolean and
//! numeric fields of tool inputs are therefore [`FlexBool`] and
//! [`FlexNumber`], which accept both spellings and write back the one they
//! read, so a call the CLI would run is typed wherever it is seen.
//!
//! Answering `AskUserQuestion` from a permission callback:
//!
//! ```
//! use claude_proto::model::incoming::CanUseTool;
//! use claude_proto::model::permission::PermissionResult;
//! use claude_proto::model::tools::ToolInput;
//!
//! fn on_permission(req: &CanUseTool) -> PermissionResult {
//!     match req.typed_input() {
//!         ToolInput::AskUserQuestion(ask) => {
//!             // Pick the first option of every question.
//!             let picks: Vec<(String, String)> = ask
//!                 .questions
//!                 .iter()
//!                 .filter_map(|q| Some((q.question.clone(), q.options().first()?.label.clone())))
//!                 .collect();
//!             ask.answer(picks)
//!         }
//!         ToolInput::Bash(bash) if bash.command.contains("rm ") => PermissionResult::deny("no rm"),
//!         _ => PermissionResult::allow(),
//!     }
//! }
//! # let req: CanUseTool = serde_json::from_value(serde_json::json!({
//! #     "tool_name": "AskUserQuestion",
//! #     "input": {"questions": [{"question": "Which?", "header": "Pick",
//! #         "options": [{"label": "A", "description": "a"}, {"label": "B", "description": "b"}],
//! #         "multiSelect": false}]}
//! # })).unwrap();
//! # let answer = serde_json::to_value(on_permission(&req)).unwrap();
//! # assert_eq!(answer["updatedInput"]["answers"], serde_json::json!({"Which?": "A"}));
//! ```

use super::wire::wire_struct;
use std::collections::BTreeMap;
use std::fmt;

use serde::de::{self, Deserialize, DeserializeOwned, Deserializer, Visitor};
use serde::ser::{Serialize, Serializer};

use super::common::{Extra, Json, nullable, string_enum};
use super::content::ToolUseBlock;
use super::hooks::{
    HookInput, PermissionDeniedInput, PermissionRequestInput, PostToolUseFailureInput,
    PostToolUseInput, PreToolUseInput, ToolCallSummary,
};
use super::incoming::CanUseTool;
use super::permission::{PermissionMode, PermissionResult, deserialize_some};

// ---------------------------------------------------------------------------
// Lenient scalars
// ---------------------------------------------------------------------------

/// A boolean tool argument, which the CLI also accepts as the string
/// `"true"` or `"false"`.
///
/// Reads either spelling and writes back the one it read; build one from a
/// `bool` with `From`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FlexBool {
    value: bool,
    quoted: bool,
}

impl FlexBool {
    /// The boolean value, whichever way it was spelled.
    pub fn get(self) -> bool {
        self.value
    }

    /// `true` when the value was written as a string (`"true"`/`"false"`).
    pub fn is_quoted(self) -> bool {
        self.quoted
    }
}

impl From<bool> for FlexBool {
    fn from(value: bool) -> Self {
        Self {
            value,
            quoted: false,
        }
    }
}

impl Serialize for FlexBool {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match (self.quoted, self.value) {
            (false, v) => serializer.serialize_bool(v),
            (true, true) => serializer.serialize_str("true"),
            (true, false) => serializer.serialize_str("false"),
        }
    }
}

impl<'de> Deserialize<'de> for FlexBool {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = FlexBool;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(r#"a boolean, or "true" or "false""#)
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<FlexBool, E> {
                Ok(FlexBool::from(v))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<FlexBool, E> {
                match v {
                    "true" => Ok(FlexBool {
                        value: true,
                        quoted: true,
                    }),
                    "false" => Ok(FlexBool {
                        value: false,
                        quoted: true,
                    }),
                    _ => Err(E::invalid_value(de::Unexpected::Str(v), &self)),
                }
            }
        }
        deserializer.deserialize_any(V)
    }
}

/// A numeric tool argument, which the CLI also accepts as a string of
/// decimal digits (`"5000"`, `" -3 "`, `"1.5"`).
///
/// Reads either spelling and writes back exactly what it read; build one
/// from an integer with `From`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FlexNumber {
    value: serde_json::Number,
    text: Option<String>,
}

impl FlexNumber {
    /// The value as a JSON number.
    pub fn number(&self) -> &serde_json::Number {
        &self.value
    }

    /// The value, if it is a non-negative integer that fits a `u64`.
    pub fn as_u64(&self) -> Option<u64> {
        self.value.as_u64()
    }

    /// The value, if it is an integer that fits an `i64`.
    pub fn as_i64(&self) -> Option<i64> {
        self.value.as_i64()
    }

    /// The value as a float (possibly rounded).
    pub fn as_f64(&self) -> Option<f64> {
        self.value.as_f64()
    }

    /// The string the value was written as, when it was written as one.
    pub fn text(&self) -> Option<&str> {
        self.text.as_deref()
    }

    /// Reads a numeric string the way the CLI does: surrounding whitespace,
    /// an optional sign, digits, and optionally a dot and more digits.
    fn from_text(text: &str) -> Option<Self> {
        let t = text.trim();
        let digits = t.strip_prefix(['-', '+']).unwrap_or(t);
        let (int, frac) = match digits.split_once('.') {
            Some((i, f)) => (i, Some(f)),
            None => (digits, None),
        };
        let all_digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        if !all_digits(int) || !frac.is_none_or(all_digits) {
            return None;
        }
        let unsigned = t.strip_prefix('+').unwrap_or(t);
        let value = if frac.is_none() {
            if let Ok(u) = unsigned.parse::<u64>() {
                serde_json::Number::from(u)
            } else if let Ok(i) = unsigned.parse::<i64>() {
                serde_json::Number::from(i)
            } else {
                serde_json::Number::from_f64(unsigned.parse::<f64>().ok()?)?
            }
        } else {
            serde_json::Number::from_f64(unsigned.parse::<f64>().ok()?)?
        };
        Some(Self {
            value,
            text: Some(text.to_owned()),
        })
    }
}

impl From<u64> for FlexNumber {
    fn from(v: u64) -> Self {
        Self {
            value: v.into(),
            text: None,
        }
    }
}

impl From<i64> for FlexNumber {
    fn from(v: i64) -> Self {
        Self {
            value: v.into(),
            text: None,
        }
    }
}

impl From<serde_json::Number> for FlexNumber {
    fn from(value: serde_json::Number) -> Self {
        Self { value, text: None }
    }
}

impl Serialize for FlexNumber {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match &self.text {
            Some(t) => serializer.serialize_str(t),
            None => self.value.serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for FlexNumber {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = FlexNumber;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a number, or a string of decimal digits")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<FlexNumber, E> {
                Ok(FlexNumber::from(v))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<FlexNumber, E> {
                Ok(FlexNumber::from(v))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<FlexNumber, E> {
                serde_json::Number::from_f64(v)
                    .map(FlexNumber::from)
                    .ok_or_else(|| E::invalid_value(de::Unexpected::Float(v), &self))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<FlexNumber, E> {
                FlexNumber::from_text(v)
                    .ok_or_else(|| E::invalid_value(de::Unexpected::Str(v), &self))
            }
        }
        deserializer.deserialize_any(V)
    }
}

/// `true` when an optional flag is present and true.
fn flag(f: Option<FlexBool>) -> bool {
    f.is_some_and(FlexBool::get)
}

/// Serializes a value this module defines into JSON. None of them contains a
/// map with non-string keys or a float that JSON cannot hold, so this cannot
/// fail; `null` stands in should that ever change.
fn to_json<T: Serialize>(value: &T) -> Json {
    serde_json::to_value(value).unwrap_or(Json::Null)
}

/// Adds `to_json` to each listed type.
macro_rules! impl_to_json {
    ($($ty:ty),* $(,)?) => {$(
        impl $ty {
            /// This value as JSON, in its wire shape (the same JSON value it
            /// was parsed from, unknown fields included).
            pub fn to_json(&self) -> Json {
                to_json(self)
            }
        }
    )*};
}

// ---------------------------------------------------------------------------
// Inputs
// ---------------------------------------------------------------------------

wire_struct! {
    /// Input of `Bash`: run a shell command.
    #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
    #[non_exhaustive]
    pub struct BashInput {
        /// The command line.
        pub command: String,
        /// Time limit in milliseconds.
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub timeout: Option<FlexNumber>,
        /// What the command does, in words for the user.
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub description: Option<String>,
        /// Run the command as a background task.
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub run_in_background: Option<FlexBool>,
        /// Run outside the sandbox.
        #[serde(
            rename = "dangerouslyDisableSandbox",
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub dangerously_disable_sandbox: Option<FlexBool>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

impl BashInput {
    /// A call of `command` with no options.
    pub fn new(command: impl Into<String>) -> Self {
        Self {
            command: command.into(),
            timeout: None,
            description: None,
            run_in_background: None,
            dangerously_disable_sandbox: None,
            extra: Extra::new(),
        }
    }

    /// `true` when the command is to run in the background.
    pub fn runs_in_background(&self) -> bool {
        flag(self.run_in_background)
    }

    /// `true` when the call asks to run outside the sandbox.
    pub fn disables_sandbox(&self) -> bool {
        flag(self.dangerously_disable_sandbox)
    }
}

wire_struct! {
    /// Input of `Read`: read a file (text, image, PDF or notebook).
    #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
    #[non_exhaustive]
    pub struct ReadInput {
        /// Absolute path of the file.
        pub file_path: String,
        /// First line to read.
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub offset: Option<FlexNumber>,
        /// How many lines to read.
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub limit: Option<FlexNumber>,
        /// Page range, for PDF files (`"1-5"`).
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub pages: Option<String>,
        /// Read a text file past the usual size limit.
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub allow_large: Option<FlexBool>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

impl ReadInput {
    /// A read of the whole file at `file_path`.
    pub fn new(file_path: impl Into<String>) -> Self {
        Self {
            file_path: file_path.into(),
            offset: None,
            limit: None,
            pages: None,
            allow_large: None,
            extra: Extra::new(),
        }
    }
}

wire_struct! {
    /// Input of `Write`: create or overwrite a file.
    #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
    #[non_exhaustive]
    pub struct WriteInput {
        /// Absolute path of the file.
        pub file_path: String,
        /// The whole new content.
        pub content: String,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

impl WriteInput {
    /// Writes `content` to `file_path`.
    pub fn new(file_path: impl Into<String>, content: impl Into<String>) -> Self {
        Self {
            file_path: file_path.into(),
            content: content.into(),
            extra: Extra::new(),
        }
    }
}

wire_struct! {
    /// Input of `Edit`: replace a string in a file.
    #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
    #[non_exhaustive]
    pub struct EditInput {
        /// Absolute path of the file.
        pub file_path: String,
        /// The text to find.
        pub old_string: String,
        /// The text to put in its place.
        pub new_string: String,
        /// Replace every occurrence instead of exactly one.
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub replace_all: Option<FlexBool>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

impl EditInput {
    /// Replaces `old_string` by `new_string` in `file_path`.
    pub fn new(
        file_path: impl Into<String>,
        old_string: impl Into<String>,
        new_string: impl Into<String>,
    ) -> Self {
        Self {
            file_path: file_path.into(),
            old_string: old_string.into(),
            new_string: new_string.into(),
            replace_all: None,
            extra: Extra::new(),
        }
    }

    /// `true` when every occurrence is to be replaced.
    pub fn replaces_all(&self) -> bool {
        flag(self.replace_all)
    }
}

wire_struct! {
    /// Input of `Glob`: find files by name pattern.
    #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
    #[non_exhaustive]
    pub struct GlobInput {
        /// The glob pattern (`**/*.rs`).
        pub pattern: String,
        /// Directory to search; the working directory when absent.
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub path: Option<String>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

impl GlobInput {
    /// Searches the working directory for `pattern`.
    pub fn new(pattern: impl Into<String>) -> Self {
        Self {
            pattern: pattern.into(),
            path: None,
            extra: Extra::new(),
        }
    }
}

string_enum! {
    /// What `Grep` reports.
    pub enum GrepOutputMode {
        /// The matching lines.
        Content = "content",
        /// The paths of files that match (the default).
        FilesWithMatches = "files_with_matches",
        /// Match counts per file.
        Count = "count",
    }
}

wire_struct! {
    /// Input of `Grep`: search file contents with a regular expression (ripgrep).
    ///
    /// The single-letter ripgrep flags (`-A`, `-B`, `-C`, `-i`, `-n`, `-o`) have
    /// descriptive field names here; they keep their names on the wire.
    #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
    #[non_exhaustive]
    pub struct GrepInput {
        /// The regular expression.
        pub pattern: String,
        /// File or directory to search; the working directory when absent.
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub path: Option<String>,
        /// Only files matching this glob.
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub glob: Option<String>,
        /// What to report.
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub output_mode: Option<GrepOutputMode>,
        /// Lines of context before each match (`-B`).
        #[serde(
            rename = "-B",
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub before: Option<FlexNumber>,
        /// Lines of context after each match (`-A`).
        #[serde(
            rename = "-A",
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub after: Option<FlexNumber>,
        /// Lines of context around each match (`-C`, the short form of `context`).
        #[serde(
            rename = "-C",
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub around: Option<FlexNumber>,
        /// Lines of context around each match.
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub context: Option<FlexNumber>,
        /// Show line numbers (`-n`).
        #[serde(
            rename = "-n",
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub line_numbers: Option<FlexBool>,
        /// Ignore case (`-i`).
        #[serde(
            rename = "-i",
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub case_insensitive: Option<FlexBool>,
        /// Print only the matched parts of lines (`-o`).
        #[serde(
            rename = "-o",
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub only_matching: Option<FlexBool>,
        /// Only files of this ripgrep type (`rust`, `py`).
        #[serde(
            rename = "type",
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub file_type: Option<String>,
        /// At most this many lines or entries.
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub head_limit: Option<FlexNumber>,
        /// Skip this many lines or entries first.
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub offset: Option<FlexNumber>,
        /// Let patterns span lines.
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub multiline: Option<FlexBool>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

impl GrepInput {
    /// Searches the working directory for `pattern`.
    pub fn new(pattern: impl Into<String>) -> Self {
        Self {
            pattern: pattern.into(),
            path: None,
            glob: None,
            output_mode: None,
            before: None,
            after: None,
            around: None,
            context: None,
            line_numbers: None,
            case_insensitive: None,
            only_matching: None,
            file_type: None,
            head_limit: None,
            offset: None,
            multiline: None,
            extra: Extra::new(),
        }
    }
}

wire_struct! {
    /// Input of `WebFetch`: fetch a URL and run a prompt over its content.
    #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
    #[non_exhaustive]
    pub struct WebFetchInput {
        /// The URL.
        pub url: String,
        /// What to extract from the page.
        pub prompt: String,
        /// Character position to continue reading a long page from.
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub offset: Option<FlexNumber>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

impl WebFetchInput {
    /// Fetches `url` and applies `prompt`.
    pub fn new(url: impl Into<String>, prompt: impl Into<String>) -> Self {
        Self {
            url: url.into(),
            prompt: prompt.into(),
            offset: None,
            extra: Extra::new(),
        }
    }
}

wire_struct! {
    /// Input of `WebSearch`: search the web.
    #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
    #[non_exhaustive]
    pub struct WebSearchInput {
        /// The query.
        pub query: String,
        /// Only results from these domains.
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub allowed_domains: Option<Vec<String>>,
        /// No results from these domains.
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub blocked_domains: Option<Vec<String>>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

impl WebSearchInput {
    /// Searches for `query`.
    pub fn new(query: impl Into<String>) -> Self {
        Self {
            query: query.into(),
            allowed_domains: None,
            blocked_domains: None,
            extra: Extra::new(),
        }
    }
}

string_enum! {
    /// State of a [`Todo`] item.
    pub enum TodoStatus {
        /// Not started.
        Pending = "pending",
        /// Being worked on.
        InProgress = "in_progress",
        /// Done.
        Completed = "completed",
    }
}

wire_struct! {
    /// One item of a `TodoWrite` list.
    #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
    #[non_exhaustive]
    pub struct Todo {
        /// What is to be done.
        pub content: String,
        /// Its state.
        pub status: TodoStatus,
        /// The same task phrased as ongoing work ("Running the tests"), shown
        /// while it is in progress. Absent from lists written by older CLIs.
        #[serde(
            rename = "activeForm",
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub active_form: Option<String>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

impl Todo {
    /// An item with `content` in state `status`.
    pub fn new(content: impl Into<String>, status: TodoStatus) -> Self {
        Self {
            content: content.into(),
            status,
            active_form: None,
            extra: Extra::new(),
        }
    }
}

wire_struct! {
    /// Input of `TodoWrite`: replace the session's todo list.
    #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
    #[non_exhaustive]
    pub struct TodoWriteInput {
        /// The whole new list.
        pub todos: Vec<Todo>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

impl TodoWriteInput {
    /// Sets the list to `todos`.
    pub fn new(todos: Vec<Todo>) -> Self {
        Self {
            todos,
            extra: Extra::new(),
        }
    }
}

wire_struct! {
    /// Input of `Agent` (called `Task` in older CLIs and in `system/init`'s tool
    /// list): hand a task to a subagent.
    #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
    #[non_exhaustive]
    pub struct AgentInput {
        /// A few words saying what the task is.
        pub description: String,
        /// The task itself.
        pub prompt: String,
        /// Which kind of agent runs it (an agent definition's name).
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub subagent_type: Option<String>,
        /// Model alias for the agent (`sonnet`, `opus`, `haiku`, ...).
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub model: Option<String>,
        /// Reasoning effort for the agent (`low` ... `max`).
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub effort: Option<String>,
        /// Run the agent in the background.
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub run_in_background: Option<FlexBool>,
        /// A name to address the running agent by.
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub name: Option<String>,
        /// Deprecated and ignored by CLI 2.1.330.
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub team_name: Option<String>,
        /// Deprecated and ignored by CLI 2.1.330 (subagents inherit the mode).
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub mode: Option<PermissionMode>,
        /// Where the agent works (`worktree`, `remote`).
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub isolation: Option<String>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

impl AgentInput {
    /// A task described by `description`, asking `prompt`.
    pub fn new(description: impl Into<String>, prompt: impl Into<String>) -> Self {
        Self {
            description: description.into(),
            prompt: prompt.into(),
            subagent_type: None,
            model: None,
            effort: None,
            run_in_background: None,
            name: None,
            team_name: None,
            mode: None,
            isolation: None,
            extra: Extra::new(),
        }
    }
}

wire_struct! {
    /// Input of `NotebookEdit`: change one cell of a Jupyter notebook.
    #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
    #[non_exhaustive]
    pub struct NotebookEditInput {
        /// Absolute path of the notebook.
        pub notebook_path: String,
        /// The cell to change (or to insert after).
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub cell_id: Option<String>,
        /// The cell's new source.
        pub new_source: String,
        /// `code` or `markdown`.
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub cell_type: Option<String>,
        /// `replace` (the default), `insert` or `delete`.
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub edit_mode: Option<String>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

impl NotebookEditInput {
    /// Replaces the source of a cell of `notebook_path` by `new_source`.
    pub fn new(notebook_path: impl Into<String>, new_source: impl Into<String>) -> Self {
        Self {
            notebook_path: notebook_path.into(),
            cell_id: None,
            new_source: new_source.into(),
            cell_type: None,
            edit_mode: None,
            extra: Extra::new(),
        }
    }
}

wire_struct! {
    /// One choice offered by a [`Question`].
    #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
    #[non_exhaustive]
    pub struct QuestionOption {
        /// The text of the choice; an answer names the choice by it.
        pub label: String,
        /// What choosing it means.
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub description: Option<String>,
        /// Content to show while the choice has focus (a mockup, a snippet).
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub preview: Option<String>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

impl QuestionOption {
    /// A choice labelled `label`.
    pub fn new(label: impl Into<String>) -> Self {
        Self {
            label: label.into(),
            description: None,
            preview: None,
            extra: Extra::new(),
        }
    }
}

wire_struct! {
    /// One question of an `AskUserQuestion` call.
    #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
    #[non_exhaustive]
    pub struct Question {
        /// The full question; answers are keyed by this text.
        pub question: String,
        /// A very short label for it ("Library").
        pub header: String,
        /// The choices (2 to 4). Absent only for free-text questions, which the
        /// CLI offers when started with extended questions enabled.
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub options: Option<Vec<QuestionOption>>,
        /// Several choices may be picked; the CLI treats absent as `false`.
        #[serde(
            rename = "multiSelect",
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub multi_select: Option<bool>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

impl Question {
    /// Asks `question`, labelled `header`, with these choices.
    pub fn new(
        question: impl Into<String>,
        header: impl Into<String>,
        options: Vec<QuestionOption>,
    ) -> Self {
        Self {
            question: question.into(),
            header: header.into(),
            options: Some(options),
            multi_select: None,
            extra: Extra::new(),
        }
    }

    /// The choices (empty for a free-text question).
    pub fn options(&self) -> &[QuestionOption] {
        self.options.as_deref().unwrap_or_default()
    }

    /// `true` when several choices may be picked.
    pub fn is_multi_select(&self) -> bool {
        self.multi_select == Some(true)
    }
}

string_enum! {
    /// Why a question of `AskUserQuestion` went unanswered.
    ///
    /// Send it only to a CLI that lists `ask_user_question_unanswered_v1`
    /// among its capabilities; an older CLI may refuse the whole answer.
    pub enum UnansweredReason {
        /// The user skipped the question.
        Skipped = "skipped",
        /// The user wrote a chat message instead.
        RepliedInChat = "replied_in_chat",
        /// The user closed the question.
        Dismissed = "dismissed",
    }
}

wire_struct! {
    /// Extra information about the answer to one question, keyed by the
    /// question's text in `annotations`.
    #[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
    #[non_exhaustive]
    pub struct QuestionAnnotation {
        /// The preview of the chosen option, when the question had previews.
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub preview: Option<String>,
        /// Notes the user added to the choice.
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub notes: Option<String>,
        /// Why the question was not answered, when it was not.
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub unanswered: Option<UnansweredReason>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

impl QuestionAnnotation {
    /// Notes the user added to the choice.
    pub fn notes(notes: impl Into<String>) -> Self {
        Self {
            notes: Some(notes.into()),
            ..Self::default()
        }
    }

    /// The question went unanswered, for `reason`.
    pub fn unanswered(reason: UnansweredReason) -> Self {
        Self {
            unanswered: Some(reason),
            ..Self::default()
        }
    }
}

wire_struct! {
    /// Input of `AskUserQuestion`: the model asks the user one to four
    /// multiple-choice questions.
    ///
    /// The tool runs only once a permission callback allows it with the
    /// answers filled in: `updatedInput` is this same input plus `answers`
    /// (question text to the chosen label; several labels of a multi-select
    /// question are joined with `", "`). [`AskUserQuestionInput::answer`] does
    /// that in one call; see the [module documentation](self) for an example.
    #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
    #[non_exhaustive]
    pub struct AskUserQuestionInput {
        /// The questions.
        pub questions: Vec<Question>,
        /// The answers, by question text. Set by whoever answers, not by the
        /// model.
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub answers: Option<BTreeMap<String, String>>,
        /// Notes on answers, by question text.
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub annotations: Option<BTreeMap<String, QuestionAnnotation>>,
        /// Bookkeeping about where the questions come from (not shown to the
        /// user), e.g. `{"source": "remember"}`.
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub metadata: Option<Json>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

impl AskUserQuestionInput {
    /// Asks `questions`.
    pub fn new(questions: Vec<Question>) -> Self {
        Self {
            questions,
            answers: None,
            annotations: None,
            metadata: None,
            extra: Extra::new(),
        }
    }

    /// Records `answer` (a chosen label, or free text) for the question
    /// whose text is `question`.
    pub fn with_answer(mut self, question: impl Into<String>, answer: impl Into<String>) -> Self {
        self.answers
            .get_or_insert_with(BTreeMap::new)
            .insert(question.into(), answer.into());
        self
    }

    /// Records several chosen labels for a multi-select question, joined
    /// with `", "` as the CLI expects.
    pub fn with_choices<I, S>(self, question: impl Into<String>, labels: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let joined = labels
            .into_iter()
            .map(|s| s.as_ref().to_owned())
            .collect::<Vec<_>>()
            .join(", ");
        self.with_answer(question, joined)
    }

    /// Records a note on the answer to `question`.
    pub fn with_annotation(
        mut self,
        question: impl Into<String>,
        annotation: QuestionAnnotation,
    ) -> Self {
        self.annotations
            .get_or_insert_with(BTreeMap::new)
            .insert(question.into(), annotation);
        self
    }

    /// Allows the call with these answers recorded: the permission answer
    /// that makes the CLI hand them to the model.
    pub fn allow(self) -> PermissionResult {
        PermissionResult::allow().with_updated_input(self.to_json())
    }

    /// Records `answers` (question text, chosen label) and allows the call:
    /// `ask.answer([(question, label)])` is a complete permission answer.
    pub fn answer<I, K, V>(mut self, answers: I) -> PermissionResult
    where
        I: IntoIterator<Item = (K, V)>,
        K: Into<String>,
        V: Into<String>,
    {
        for (q, a) in answers {
            self = self.with_answer(q, a);
        }
        self.allow()
    }
}

impl_to_json!(
    BashInput,
    ReadInput,
    WriteInput,
    EditInput,
    GlobInput,
    GrepInput,
    WebFetchInput,
    WebSearchInput,
    TodoWriteInput,
    AgentInput,
    NotebookEditInput,
    AskUserQuestionInput,
);

/// The input of a tool call, typed for the CLI's built-in tools.
///
/// Build it with [`ToolInput::parse`] (or the `typed_input` accessors on the
/// types that carry a tool call). Any tool not listed, and any input that
/// does not fit its tool's type, is `Other` with the input unchanged.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ToolInput {
    /// `Agent`, or `Task` (its older name).
    Agent(AgentInput),
    /// `AskUserQuestion`.
    AskUserQuestion(AskUserQuestionInput),
    /// `Bash`.
    Bash(BashInput),
    /// `Edit`.
    Edit(EditInput),
    /// `Glob`.
    Glob(GlobInput),
    /// `Grep`.
    Grep(GrepInput),
    /// `NotebookEdit`.
    NotebookEdit(NotebookEditInput),
    /// `Read`.
    Read(ReadInput),
    /// `TodoWrite`.
    TodoWrite(TodoWriteInput),
    /// `WebFetch`.
    WebFetch(WebFetchInput),
    /// `WebSearch`.
    WebSearch(WebSearchInput),
    /// `Write`.
    Write(WriteInput),
    /// Any other tool (MCP tools, built-in tools this crate does not type),
    /// or a built-in tool whose input did not fit its type.
    Other {
        /// The tool name, as given.
        name: String,
        /// The input, unchanged.
        input: Json,
    },
}

fn typed<T: DeserializeOwned>(input: &Json) -> Option<T> {
    T::deserialize(input).ok()
}

impl ToolInput {
    /// Types `input` by `tool_name`. Never fails: an unknown tool, or an
    /// input that does not fit its tool's type, gives [`ToolInput::Other`].
    pub fn parse(tool_name: &str, input: &Json) -> Self {
        let parsed = match tool_name {
            "Agent" | "Task" => typed(input).map(Self::Agent),
            "AskUserQuestion" => typed(input).map(Self::AskUserQuestion),
            "Bash" => typed(input).map(Self::Bash),
            "Edit" => typed(input).map(Self::Edit),
            "Glob" => typed(input).map(Self::Glob),
            "Grep" => typed(input).map(Self::Grep),
            "NotebookEdit" => typed(input).map(Self::NotebookEdit),
            "Read" => typed(input).map(Self::Read),
            "TodoWrite" => typed(input).map(Self::TodoWrite),
            "WebFetch" => typed(input).map(Self::WebFetch),
            "WebSearch" => typed(input).map(Self::WebSearch),
            "Write" => typed(input).map(Self::Write),
            _ => None,
        };
        parsed.unwrap_or_else(|| Self::Other {
            name: tool_name.to_owned(),
            input: input.clone(),
        })
    }

    /// The tool's name: the CLI 2.1.330 name for a typed input (`Agent` for
    /// both `Agent` and `Task`), the name as given for `Other`.
    pub fn name(&self) -> &str {
        match self {
            Self::Agent(_) => "Agent",
            Self::AskUserQuestion(_) => "AskUserQuestion",
            Self::Bash(_) => "Bash",
            Self::Edit(_) => "Edit",
            Self::Glob(_) => "Glob",
            Self::Grep(_) => "Grep",
            Self::NotebookEdit(_) => "NotebookEdit",
            Self::Read(_) => "Read",
            Self::TodoWrite(_) => "TodoWrite",
            Self::WebFetch(_) => "WebFetch",
            Self::WebSearch(_) => "WebSearch",
            Self::Write(_) => "Write",
            Self::Other { name, .. } => name,
        }
    }

    /// `true` for [`ToolInput::Other`].
    pub fn is_other(&self) -> bool {
        matches!(self, Self::Other { .. })
    }

    /// The file the call reads or changes, for `Read`, `Write`, `Edit` and
    /// `NotebookEdit`.
    pub fn file_path(&self) -> Option<&str> {
        match self {
            Self::Read(x) => Some(&x.file_path),
            Self::Write(x) => Some(&x.file_path),
            Self::Edit(x) => Some(&x.file_path),
            Self::NotebookEdit(x) => Some(&x.notebook_path),
            _ => None,
        }
    }

    /// The input as JSON, in its wire shape: for a parsed value, the value
    /// it was parsed from. Use it (changed or not) as a permission answer's
    /// `updatedInput`.
    pub fn to_json(&self) -> Json {
        match self {
            Self::Other { input, .. } => input.clone(),
            other => to_json(other),
        }
    }
}

impl Serialize for ToolInput {
    /// Writes the input object alone (the tool name is not part of it).
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Agent(x) => x.serialize(serializer),
            Self::AskUserQuestion(x) => x.serialize(serializer),
            Self::Bash(x) => x.serialize(serializer),
            Self::Edit(x) => x.serialize(serializer),
            Self::Glob(x) => x.serialize(serializer),
            Self::Grep(x) => x.serialize(serializer),
            Self::NotebookEdit(x) => x.serialize(serializer),
            Self::Read(x) => x.serialize(serializer),
            Self::TodoWrite(x) => x.serialize(serializer),
            Self::WebFetch(x) => x.serialize(serializer),
            Self::WebSearch(x) => x.serialize(serializer),
            Self::Write(x) => x.serialize(serializer),
            Self::Other { input, .. } => input.serialize(serializer),
        }
    }
}

// ---------------------------------------------------------------------------
// Outputs
// ---------------------------------------------------------------------------

wire_struct! {
    /// What `Bash` returned.
    #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
    #[non_exhaustive]
    pub struct BashOutput {
        /// Standard output.
        pub stdout: String,
        /// Standard error.
        pub stderr: String,
        /// The command was interrupted.
        pub interrupted: bool,
        /// `stdout` holds image data.
        #[serde(
            rename = "isImage",
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub is_image: Option<bool>,
        /// Id of the background task, when the command runs in the background.
        #[serde(
            rename = "backgroundTaskId",
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub background_task_id: Option<String>,
        /// What a non-zero exit code means for this command, when it is not
        /// an error (`grep` finding nothing).
        #[serde(
            rename = "returnCodeInterpretation",
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub return_code_interpretation: Option<String>,
        /// The command is expected to print nothing when it succeeds.
        #[serde(
            rename = "noOutputExpected",
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub no_output_expected: Option<bool>,
        /// Where the full output was saved, when it was too large to inline.
        #[serde(
            rename = "persistedOutputPath",
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub persisted_output_path: Option<String>,
        /// Fields not modelled by this crate (among them `gitOperation`, the
        /// git and gh operations the command performed).
        #[serde(flatten)]
        pub extra: Extra,
    }
}

string_enum! {
    /// What kind of content `Read` returned.
    pub enum ReadOutputKind {
        /// A text file ([`ReadTextFile`]).
        Text = "text",
        /// An image.
        Image = "image",
        /// A Jupyter notebook.
        Notebook = "notebook",
        /// A PDF file.
        Pdf = "pdf",
        /// Pages extracted from a PDF as images.
        Parts = "parts",
    }
}

wire_struct! {
    /// What `Read` returned. The shape of `file` depends on `kind`;
    /// [`ReadOutput::text_file`] types it for text files.
    #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
    #[non_exhaustive]
    pub struct ReadOutput {
        /// What kind of content it is.
        #[serde(rename = "type")]
        pub kind: ReadOutputKind,
        /// The content and facts about it.
        pub file: Json,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

impl ReadOutput {
    /// The text file read, for `kind` `text`.
    pub fn text_file(&self) -> Option<ReadTextFile> {
        match self.kind {
            ReadOutputKind::Text => typed(&self.file),
            _ => None,
        }
    }
}

wire_struct! {
    /// The `file` of a [`ReadOutput`] of kind `text`.
    #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
    #[non_exhaustive]
    pub struct ReadTextFile {
        /// The path read.
        #[serde(rename = "filePath")]
        pub file_path: String,
        /// The lines read.
        pub content: String,
        /// How many lines `content` holds.
        #[serde(rename = "numLines")]
        pub num_lines: u64,
        /// Line number of the first line of `content`.
        #[serde(rename = "startLine")]
        pub start_line: u64,
        /// How many lines the file has.
        #[serde(rename = "totalLines")]
        pub total_lines: u64,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// One hunk of a [`WriteOutput`] or [`EditOutput`] diff.
    #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
    #[non_exhaustive]
    pub struct PatchHunk {
        /// First line in the old file.
        #[serde(rename = "oldStart")]
        pub old_start: u64,
        /// Lines of the old file in the hunk.
        #[serde(rename = "oldLines")]
        pub old_lines: u64,
        /// First line in the new file.
        #[serde(rename = "newStart")]
        pub new_start: u64,
        /// Lines of the new file in the hunk.
        #[serde(rename = "newLines")]
        pub new_lines: u64,
        /// The hunk's lines, each starting with ` `, `-` or `+`.
        pub lines: Vec<String>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

string_enum! {
    /// Whether `Write` created a file or replaced one.
    pub enum WriteKind {
        /// A new file.
        Create = "create",
        /// An existing file, overwritten.
        Update = "update",
    }
}

wire_struct! {
    /// What `Write` returned.
    #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
    #[non_exhaustive]
    pub struct WriteOutput {
        /// Created or replaced.
        #[serde(rename = "type")]
        pub kind: WriteKind,
        /// The path written.
        #[serde(rename = "filePath")]
        pub file_path: String,
        /// The content written.
        pub content: String,
        /// The change as diff hunks (empty for a new file).
        #[serde(rename = "structuredPatch")]
        pub structured_patch: Vec<PatchHunk>,
        /// The previous content (`None` for a new file, or when it was too
        /// large to include).
        #[serde(rename = "originalFile", deserialize_with = "nullable")]
        pub original_file: Option<String>,
        /// The user changed the content before accepting it.
        #[serde(
            rename = "userModified",
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub user_modified: Option<bool>,
        /// Fields not modelled by this crate (among them `gitDiff`).
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// What `Edit` returned.
    #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
    #[non_exhaustive]
    pub struct EditOutput {
        /// The path edited.
        #[serde(rename = "filePath")]
        pub file_path: String,
        /// The text replaced.
        #[serde(rename = "oldString")]
        pub old_string: String,
        /// The text put in its place.
        #[serde(rename = "newString")]
        pub new_string: String,
        /// The content before the edit, when it was small enough to include.
        #[serde(rename = "originalFile", deserialize_with = "nullable")]
        pub original_file: Option<String>,
        /// The change as diff hunks.
        #[serde(rename = "structuredPatch")]
        pub structured_patch: Vec<PatchHunk>,
        /// The user changed the edit before accepting it.
        #[serde(rename = "userModified")]
        pub user_modified: bool,
        /// Every occurrence was replaced.
        #[serde(rename = "replaceAll")]
        pub replace_all: bool,
        /// Fields not modelled by this crate (among them `gitDiff`).
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// What `Glob` returned.
    #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
    #[non_exhaustive]
    pub struct GlobOutput {
        /// How long the search took, in milliseconds.
        #[serde(rename = "durationMs")]
        pub duration_ms: serde_json::Number,
        /// How many paths `filenames` holds.
        #[serde(rename = "numFiles")]
        pub num_files: u64,
        /// The matching paths.
        pub filenames: Vec<String>,
        /// More files matched than were returned.
        pub truncated: bool,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// What `Grep` returned.
    #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
    #[non_exhaustive]
    pub struct GrepOutput {
        /// What was reported.
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub mode: Option<GrepOutputMode>,
        /// How many files are listed.
        #[serde(rename = "numFiles")]
        pub num_files: u64,
        /// The files listed.
        pub filenames: Vec<String>,
        /// The matching lines (mode `content`) or counts (mode `count`).
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub content: Option<String>,
        /// How many lines `content` holds.
        #[serde(
            rename = "numLines",
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub num_lines: Option<u64>,
        /// How many matches were counted (mode `count`).
        #[serde(
            rename = "numMatches",
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub num_matches: Option<u64>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// What `WebFetch` returned.
    #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
    #[non_exhaustive]
    pub struct WebFetchOutput {
        /// Size of the fetched content in bytes.
        pub bytes: u64,
        /// HTTP status code.
        pub code: u64,
        /// HTTP status text.
        #[serde(rename = "codeText")]
        pub code_text: String,
        /// What the prompt made of the content.
        pub result: String,
        /// How long fetching and processing took, in milliseconds.
        #[serde(rename = "durationMs")]
        pub duration_ms: serde_json::Number,
        /// The URL fetched.
        pub url: String,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// What `WebSearch` returned.
    #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
    #[non_exhaustive]
    pub struct WebSearchOutput {
        /// The query run.
        pub query: String,
        /// Search hits (objects with `tool_use_id` and `content`) and the
        /// model's commentary (strings), in order; kept raw.
        pub results: Vec<Json>,
        /// How long the search took, in seconds.
        #[serde(rename = "durationSeconds")]
        pub duration_seconds: serde_json::Number,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// What `TodoWrite` returned.
    #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
    #[non_exhaustive]
    pub struct TodoWriteOutput {
        /// The list before.
        #[serde(rename = "oldTodos")]
        pub old_todos: Vec<Todo>,
        /// The list after.
        #[serde(rename = "newTodos")]
        pub new_todos: Vec<Todo>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// What `AskUserQuestion` returned.
    #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
    #[non_exhaustive]
    pub struct AskUserQuestionOutput {
        /// The questions asked.
        pub questions: Vec<Question>,
        /// The answers, by question text.
        pub answers: BTreeMap<String, String>,
        /// Free text the user typed instead of choosing.
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub response: Option<String>,
        /// Notes on answers, by question text.
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub annotations: Option<BTreeMap<String, QuestionAnnotation>>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

impl_to_json!(
    BashOutput,
    ReadOutput,
    WriteOutput,
    EditOutput,
    GlobOutput,
    GrepOutput,
    WebFetchOutput,
    WebSearchOutput,
    TodoWriteOutput,
    AskUserQuestionOutput,
);

/// What a tool call returned, typed for the CLI's built-in tools whose
/// result has a stable shape.
///
/// Build it with [`ToolOutput::parse`] (or `typed_output` on
/// [`PostToolUseInput`]). Any other tool, and any output that does not fit
/// its tool's type (a `Read` of an image, an error string), is `Other`.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ToolOutput {
    /// `AskUserQuestion`.
    AskUserQuestion(AskUserQuestionOutput),
    /// `Bash`.
    Bash(BashOutput),
    /// `Edit`.
    Edit(EditOutput),
    /// `Glob`.
    Glob(GlobOutput),
    /// `Grep`.
    Grep(GrepOutput),
    /// `Read`.
    Read(ReadOutput),
    /// `TodoWrite`.
    TodoWrite(TodoWriteOutput),
    /// `WebFetch`.
    WebFetch(WebFetchOutput),
    /// `WebSearch`.
    WebSearch(WebSearchOutput),
    /// `Write`.
    Write(WriteOutput),
    /// Any other tool, or an output that did not fit its tool's type.
    Other {
        /// The tool name, as given.
        name: String,
        /// The output, unchanged.
        output: Json,
    },
}

impl ToolOutput {
    /// Types `output` by `tool_name`. Never fails: an unknown tool, or an
    /// output that does not fit its tool's type, gives
    /// [`ToolOutput::Other`].
    pub fn parse(tool_name: &str, output: &Json) -> Self {
        let parsed = match tool_name {
            "AskUserQuestion" => typed(output).map(Self::AskUserQuestion),
            "Bash" => typed(output).map(Self::Bash),
            "Edit" => typed(output).map(Self::Edit),
            "Glob" => typed(output).map(Self::Glob),
            "Grep" => typed(output).map(Self::Grep),
            "Read" => typed(output).map(Self::Read),
            "TodoWrite" => typed(output).map(Self::TodoWrite),
            "WebFetch" => typed(output).map(Self::WebFetch),
            "WebSearch" => typed(output).map(Self::WebSearch),
            "Write" => typed(output).map(Self::Write),
            _ => None,
        };
        parsed.unwrap_or_else(|| Self::Other {
            name: tool_name.to_owned(),
            output: output.clone(),
        })
    }

    /// The tool's name.
    pub fn name(&self) -> &str {
        match self {
            Self::AskUserQuestion(_) => "AskUserQuestion",
            Self::Bash(_) => "Bash",
            Self::Edit(_) => "Edit",
            Self::Glob(_) => "Glob",
            Self::Grep(_) => "Grep",
            Self::Read(_) => "Read",
            Self::TodoWrite(_) => "TodoWrite",
            Self::WebFetch(_) => "WebFetch",
            Self::WebSearch(_) => "WebSearch",
            Self::Write(_) => "Write",
            Self::Other { name, .. } => name,
        }
    }

    /// `true` for [`ToolOutput::Other`].
    pub fn is_other(&self) -> bool {
        matches!(self, Self::Other { .. })
    }

    /// The output as JSON: for a parsed value, the value it was parsed from.
    pub fn to_json(&self) -> Json {
        match self {
            Self::Other { output, .. } => output.clone(),
            other => to_json(other),
        }
    }
}

impl Serialize for ToolOutput {
    /// Writes the output value alone.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::AskUserQuestion(x) => x.serialize(serializer),
            Self::Bash(x) => x.serialize(serializer),
            Self::Edit(x) => x.serialize(serializer),
            Self::Glob(x) => x.serialize(serializer),
            Self::Grep(x) => x.serialize(serializer),
            Self::Read(x) => x.serialize(serializer),
            Self::TodoWrite(x) => x.serialize(serializer),
            Self::WebFetch(x) => x.serialize(serializer),
            Self::WebSearch(x) => x.serialize(serializer),
            Self::Write(x) => x.serialize(serializer),
            Self::Other { output, .. } => output.serialize(serializer),
        }
    }
}

// ---------------------------------------------------------------------------
// Accessors on the types that carry a tool call
// ---------------------------------------------------------------------------

impl CanUseTool {
    /// The tool input, typed by tool name (see [`ToolInput::parse`]).
    pub fn typed_input(&self) -> ToolInput {
        ToolInput::parse(&self.tool_name, &self.input)
    }
}

impl ToolUseBlock {
    /// The tool input, typed by tool name (see [`ToolInput::parse`]).
    pub fn typed_input(&self) -> ToolInput {
        ToolInput::parse(&self.name, &self.input)
    }
}

/// Adds `typed_input` to hook inputs with `tool_name` and `tool_input`.
macro_rules! impl_typed_input {
    ($($ty:ty),* $(,)?) => {$(
        impl $ty {
            /// The tool input, typed by tool name (see [`ToolInput::parse`]).
            pub fn typed_input(&self) -> ToolInput {
                ToolInput::parse(&self.tool_name, &self.tool_input)
            }
        }
    )*};
}

impl_typed_input!(
    PreToolUseInput,
    PostToolUseInput,
    PostToolUseFailureInput,
    PermissionRequestInput,
    PermissionDeniedInput,
    ToolCallSummary,
);

impl PostToolUseInput {
    /// What the tool returned, typed by tool name (see
    /// [`ToolOutput::parse`]).
    pub fn typed_output(&self) -> ToolOutput {
        ToolOutput::parse(&self.tool_name, &self.tool_response)
    }
}

impl ToolCallSummary {
    /// What the tool returned, typed by tool name, if it returned anything.
    pub fn typed_output(&self) -> Option<ToolOutput> {
        self.tool_response
            .as_ref()
            .map(|r| ToolOutput::parse(&self.tool_name, r))
    }
}

impl HookInput {
    /// The tool input, typed by tool name, for events about one tool call
    /// (also read from an unknown event that has `tool_name` and
    /// `tool_input`).
    pub fn tool_input(&self) -> Option<ToolInput> {
        match self {
            Self::PreToolUse(x) => Some(x.typed_input()),
            Self::PostToolUse(x) => Some(x.typed_input()),
            Self::PostToolUseFailure(x) => Some(x.typed_input()),
            Self::PermissionRequest(x) => Some(x.typed_input()),
            Self::PermissionDenied(x) => Some(x.typed_input()),
            Self::Unknown(v) => {
                let name = v.get("tool_name")?.as_str()?;
                Some(ToolInput::parse(name, v.get("tool_input")?))
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Every tool this module types, with an input shaped like the
    /// TypeScript SDK's declarations (every declared field set).
    fn examples() -> Vec<(&'static str, Json)> {
        vec![
            (
                "Agent",
                json!({"description":"Find the bug","prompt":"Look for the off-by-one",
                       "subagent_type":"general-purpose","model":"haiku","effort":"low",
                       "run_in_background":false,"name":"finder","team_name":"t",
                       "mode":"plan","isolation":"worktree"}),
            ),
            (
                "AskUserQuestion",
                json!({"questions":[{"question":"Which library?","header":"Library",
                        "options":[{"label":"chrono","description":"Full featured","preview":"use chrono;"},
                                   {"label":"time","description":"Smaller"}],
                        "multiSelect":false}],
                       "answers":{"Which library?":"chrono"},
                       "annotations":{"Which library?":{"preview":"use chrono;","notes":"fine","unanswered":"skipped"}},
                       "metadata":{"source":"remember"}}),
            ),
            (
                "Bash",
                json!({"command":"cargo test","timeout":120000,"description":"Run the tests",
                       "run_in_background":false,"dangerouslyDisableSandbox":true}),
            ),
            (
                "Edit",
                json!({"file_path":"/p/a.rs","old_string":"a","new_string":"b","replace_all":true}),
            ),
            ("Glob", json!({"pattern":"**/*.rs","path":"/p"})),
            (
                "Grep",
                json!({"pattern":"fn main","path":"/p","glob":"*.rs","output_mode":"content",
                       "-B":1,"-A":2,"-C":3,"context":4,"-n":true,"-i":false,"-o":true,
                       "type":"rust","head_limit":10,"offset":5,"multiline":false}),
            ),
            (
                "NotebookEdit",
                json!({"notebook_path":"/p/n.ipynb","cell_id":"c1","new_source":"print(1)",
                       "cell_type":"code","edit_mode":"insert"}),
            ),
            (
                "Read",
                json!({"file_path":"/p/a.pdf","offset":10,"limit":20,"pages":"1-5","allow_large":true}),
            ),
            (
                "TodoWrite",
                json!({"todos":[{"content":"Run tests","status":"in_progress","activeForm":"Running tests"},
                                {"content":"Ship","status":"pending","activeForm":"Shipping"}]}),
            ),
            (
                "WebFetch",
                json!({"url":"https://example.com","prompt":"Summarize","offset":4000}),
            ),
            (
                "WebSearch",
                json!({"query":"rust serde","allowed_domains":["docs.rs"],"blocked_domains":["x.com"]}),
            ),
            ("Write", json!({"file_path":"/p/b.txt","content":"hello\n"})),
        ]
    }

    fn with_unknown(mut v: Json) -> Json {
        if let Some(o) = v.as_object_mut() {
            o.insert("future_field".into(), json!({"nested":[1, null, "x"]}));
        }
        v
    }

    #[test]
    fn every_typed_tool_round_trips_with_unknown_fields() {
        for (name, input) in examples() {
            for input in [input.clone(), with_unknown(input)] {
                let typed = ToolInput::parse(name, &input);
                assert!(!typed.is_other(), "{name} fell back to Other: {input}");
                assert_eq!(typed.name(), name);
                assert_eq!(typed.to_json(), input, "{name}");
                assert_eq!(serde_json::to_value(&typed).unwrap(), input, "{name}");
            }
        }
    }

    #[test]
    fn minimal_inputs_round_trip() {
        let minimal = [
            ("Agent", json!({"description":"d","prompt":"p"})),
            (
                "AskUserQuestion",
                json!({"questions":[{"question":"Q?","header":"H","options":[{"label":"a","description":"x"},{"label":"b","description":"y"}],"multiSelect":true}]}),
            ),
            ("Bash", json!({"command":"ls"})),
            (
                "Edit",
                json!({"file_path":"/a","old_string":"x","new_string":"y"}),
            ),
            ("Glob", json!({"pattern":"*"})),
            ("Grep", json!({"pattern":"x"})),
            (
                "NotebookEdit",
                json!({"notebook_path":"/n","new_source":""}),
            ),
            ("Read", json!({"file_path":"/a"})),
            ("TodoWrite", json!({"todos":[]})),
            ("WebFetch", json!({"url":"u","prompt":"p"})),
            ("WebSearch", json!({"query":"q"})),
            ("Write", json!({"file_path":"/a","content":""})),
        ];
        for (name, input) in minimal {
            let typed = ToolInput::parse(name, &input);
            assert!(!typed.is_other(), "{name}");
            assert_eq!(typed.to_json(), input, "{name}");
        }
    }

    #[test]
    fn fields_are_typed() {
        let ToolInput::Bash(b) = ToolInput::parse("Bash", &examples()[2].1) else {
            panic!("not Bash");
        };
        assert_eq!(b.command, "cargo test");
        assert_eq!(
            b.timeout.as_ref().and_then(FlexNumber::as_u64),
            Some(120_000)
        );
        assert!(!b.runs_in_background());
        assert!(b.disables_sandbox());

        let ToolInput::Grep(g) = ToolInput::parse("Grep", &examples()[5].1) else {
            panic!("not Grep");
        };
        assert_eq!(g.output_mode, Some(GrepOutputMode::Content));
        assert_eq!(g.before.as_ref().and_then(FlexNumber::as_u64), Some(1));
        assert_eq!(g.after.as_ref().and_then(FlexNumber::as_u64), Some(2));
        assert_eq!(g.around.as_ref().and_then(FlexNumber::as_u64), Some(3));
        assert_eq!(g.case_insensitive.map(FlexBool::get), Some(false));
        assert_eq!(g.file_type.as_deref(), Some("rust"));

        let ToolInput::Agent(a) = ToolInput::parse("Agent", &examples()[0].1) else {
            panic!("not Agent");
        };
        assert_eq!(a.mode, Some(PermissionMode::Plan));

        let ToolInput::TodoWrite(t) = ToolInput::parse("TodoWrite", &examples()[8].1) else {
            panic!("not TodoWrite");
        };
        assert_eq!(t.todos[0].status, TodoStatus::InProgress);
        assert_eq!(t.todos[0].active_form.as_deref(), Some("Running tests"));

        let write = ToolInput::parse("Write", &json!({"file_path":"/x","content":"c"}));
        assert_eq!(write.file_path(), Some("/x"));
    }

    #[test]
    fn task_is_the_agent_tool_under_its_older_name() {
        let input = json!({"description":"d","prompt":"p","subagent_type":"Explore"});
        let typed = ToolInput::parse("Task", &input);
        assert!(
            matches!(&typed, ToolInput::Agent(a) if a.subagent_type.as_deref() == Some("Explore"))
        );
        assert_eq!(typed.name(), "Agent");
        assert_eq!(typed.to_json(), input);
    }

    #[test]
    fn scalars_written_as_strings_are_read_as_the_cli_reads_them() {
        let input = json!({"command":"sleep 9","timeout":" 5000 ","run_in_background":"true",
                           "dangerouslyDisableSandbox":"false"});
        let ToolInput::Bash(b) = ToolInput::parse("Bash", &input) else {
            panic!("not Bash");
        };
        assert_eq!(b.timeout.as_ref().and_then(FlexNumber::as_u64), Some(5000));
        assert_eq!(
            b.timeout.as_ref().and_then(FlexNumber::text),
            Some(" 5000 ")
        );
        assert!(b.runs_in_background());
        assert!(!b.disables_sandbox());
        assert!(b.run_in_background.is_some_and(FlexBool::is_quoted));
        assert_eq!(b.to_json(), input, "written back as read");

        for (text, value) in [
            ("-3", json!(-3)),
            ("+7", json!(7)),
            ("1.5", json!(1.5)),
            (
                "18446744073709551616",
                json!(18_446_744_073_709_551_616.0_f64),
            ),
        ] {
            let n: FlexNumber = serde_json::from_value(json!(text)).unwrap();
            assert_eq!(serde_json::to_value(n.number()).unwrap(), value, "{text}");
            assert_eq!(serde_json::to_value(&n).unwrap(), json!(text));
        }
        for bad in ["", "1.", ".5", "1e3", "0x10", "ten", "--1", "1.2.3", "TRUE"] {
            assert!(
                serde_json::from_value::<FlexNumber>(json!(bad)).is_err(),
                "{bad}"
            );
            assert!(
                serde_json::from_value::<FlexBool>(json!(bad)).is_err(),
                "{bad}"
            );
        }
        assert_eq!(
            serde_json::to_value(FlexNumber::from(3u64)).unwrap(),
            json!(3)
        );
        assert_eq!(
            serde_json::to_value(FlexBool::from(true)).unwrap(),
            json!(true)
        );
    }

    #[test]
    fn inputs_that_do_not_fit_stay_raw() {
        let cases = [
            ("Bash", json!({"command": 5})),
            ("Bash", json!({"description":"no command"})),
            ("Bash", json!({"command":"ls","timeout":null})),
            ("Bash", json!({"command":"ls","timeout":"soon"})),
            ("Bash", json!({"command":"ls","run_in_background":"yes"})),
            ("Bash", json!("ls")),
            ("Bash", json!(null)),
            ("Bash", json!([1, 2])),
            ("Read", json!({"file_path":"/a","limit":[10]})),
            ("Write", json!({"file_path":"/a"})),
            ("Glob", json!({"pattern":"*","path":null})),
            ("TodoWrite", json!({"todos":[{"content":"x"}]})),
            ("AskUserQuestion", json!({"questions":[{"question":"q"}]})),
            (
                "AskUserQuestion",
                json!({"questions":[],"answers":{"q":["a","b"]}}),
            ),
            (
                "WebSearch",
                json!({"query":"q","allowed_domains":"docs.rs"}),
            ),
            ("mcp__calc__add", json!({"a":2,"b":3})),
            ("SomeFutureTool", json!({"command":"ls"})),
            ("bash", json!({"command":"ls"})),
        ];
        for (name, input) in cases {
            let typed = ToolInput::parse(name, &input);
            assert_eq!(
                typed,
                ToolInput::Other {
                    name: name.into(),
                    input: input.clone()
                },
                "{name}: {input}"
            );
            assert_eq!(typed.name(), name);
            assert_eq!(typed.to_json(), input);
            assert_eq!(serde_json::to_value(&typed).unwrap(), input);
        }
    }

    fn ask() -> AskUserQuestionInput {
        let input = json!({"questions":[
            {"question":"Which library?","header":"Library","multiSelect":false,
             "options":[{"label":"chrono","description":"Full featured"},{"label":"time","description":"Smaller"}]},
            {"question":"Which features?","header":"Features","multiSelect":true,"hint":"kept",
             "options":[{"label":"serde","description":"s"},{"label":"tz","description":"t"},{"label":"fmt","description":"f"}]}
        ]});
        match ToolInput::parse("AskUserQuestion", &input) {
            ToolInput::AskUserQuestion(a) => a,
            other => panic!("not typed: {other:?}"),
        }
    }

    #[test]
    fn ask_user_question_is_answered_through_updated_input() {
        let a = ask();
        assert_eq!(a.questions[1].options().len(), 3);
        assert!(a.questions[1].is_multi_select());
        let result = a
            .with_choices("Which features?", ["serde", "tz"])
            .answer([("Which library?", "chrono")])
            .with_tool_use_id("toolu_1");
        assert_eq!(
            serde_json::to_value(&result).unwrap(),
            json!({"behavior":"allow","toolUseID":"toolu_1","updatedInput":{
                "questions":[
                    {"question":"Which library?","header":"Library","multiSelect":false,
                     "options":[{"label":"chrono","description":"Full featured"},{"label":"time","description":"Smaller"}]},
                    {"question":"Which features?","header":"Features","multiSelect":true,"hint":"kept",
                     "options":[{"label":"serde","description":"s"},{"label":"tz","description":"t"},{"label":"fmt","description":"f"}]}
                ],
                "answers":{"Which library?":"chrono","Which features?":"serde, tz"}
            }})
        );
    }

    #[test]
    fn ask_user_question_annotations() {
        let result = ask()
            .with_answer("Which library?", "I'll decide later")
            .with_annotation(
                "Which library?",
                QuestionAnnotation::unanswered(UnansweredReason::RepliedInChat),
            )
            .with_annotation("Which features?", QuestionAnnotation::notes("none yet"))
            .allow();
        let v = serde_json::to_value(&result).unwrap();
        assert_eq!(
            v["updatedInput"]["annotations"],
            json!({"Which library?":{"unanswered":"replied_in_chat"},"Which features?":{"notes":"none yet"}})
        );
        assert_eq!(
            v["updatedInput"]["answers"],
            json!({"Which library?":"I'll decide later"})
        );
    }

    #[test]
    fn ask_user_question_from_a_permission_request() {
        let req: CanUseTool = serde_json::from_value(json!({
            "tool_name":"AskUserQuestion","tool_use_id":"toolu_9",
            "input":{"questions":[{"question":"Go?","header":"Go","multiSelect":false,
                "options":[{"label":"Yes","description":"y"},{"label":"No","description":"n"}]}]}
        }))
        .unwrap();
        let ToolInput::AskUserQuestion(ask) = req.typed_input() else {
            panic!("not typed");
        };
        let answer = ask.answer([("Go?", "Yes")]);
        let v = serde_json::to_value(&answer).unwrap();
        assert_eq!(v["behavior"], "allow");
        assert_eq!(v["updatedInput"]["answers"], json!({"Go?":"Yes"}));
        assert_eq!(v["updatedInput"]["questions"], req.input["questions"]);
    }

    /// The request and the tool's result as CLI 2.1.330 sent them when
    /// answered this way (recorded offline against a stand-in model).
    #[test]
    fn ask_user_question_answer_matches_what_the_cli_accepted() {
        let request = json!({"subtype":"can_use_tool","tool_name":"AskUserQuestion","display_name":"AskUserQuestion",
            "input":{"questions":[
                {"question":"Which library?","header":"Library","options":[{"label":"chrono","description":"Full"},{"label":"time","description":"Small"}],"multiSelect":false},
                {"question":"Which features?","header":"Features","options":[{"label":"serde","description":"s"},{"label":"tz","description":"t"},{"label":"fmt","description":"f"}],"multiSelect":true}]},
            "tool_use_id":"toolu_ask1","requires_user_interaction":true});
        let tool_use_result = json!({"questions":[
                {"question":"Which library?","header":"Library","options":[{"label":"chrono","description":"Full"},{"label":"time","description":"Small"}],"multiSelect":false},
                {"question":"Which features?","header":"Features","options":[{"label":"serde","description":"s"},{"label":"tz","description":"t"},{"label":"fmt","description":"f"}],"multiSelect":true}],
            "answers":{"Which library?":"chrono","Which features?":"serde, tz"}});
        let req: CanUseTool = serde_json::from_value(request).unwrap();
        let ToolInput::AskUserQuestion(ask) = req.typed_input() else {
            panic!("not typed");
        };
        let answer = ask
            .with_choices("Which features?", ["serde", "tz"])
            .answer([("Which library?", "chrono")]);
        let PermissionResult::Allow(allow) = &answer else {
            panic!("not allow");
        };
        assert_eq!(allow.updated_input.as_ref(), Some(&tool_use_result));
        let ToolOutput::AskUserQuestion(out) =
            ToolOutput::parse("AskUserQuestion", &tool_use_result)
        else {
            panic!("output not typed");
        };
        assert_eq!(out.answers["Which features?"], "serde, tz");
    }

    fn output_examples() -> Vec<(&'static str, Json)> {
        let hunk = json!({"oldStart":1,"oldLines":1,"newStart":1,"newLines":1,"lines":["-a","+b"]});
        vec![
            (
                "Bash",
                json!({"stdout":"hi","stderr":"","interrupted":false,"isImage":false,
                       "backgroundTaskId":"b1","returnCodeInterpretation":"no matches",
                       "noOutputExpected":false,"persistedOutputPath":"/tmp/o",
                       "gitOperation":{"push":{"branch":"main"}}}),
            ),
            (
                "Read",
                json!({"type":"text","file":{"filePath":"/a","content":"x\n","numLines":1,"startLine":1,"totalLines":1}}),
            ),
            (
                "Read",
                json!({"type":"image","file":{"base64":"AAAA","type":"image/png","originalSize":3}}),
            ),
            (
                "Write",
                json!({"type":"update","filePath":"/a","content":"b","structuredPatch":[hunk],
                       "originalFile":"a","userModified":false,
                       "gitDiff":{"filename":"a","status":"modified","additions":1,"deletions":1,"changes":2,"patch":"@@"}}),
            ),
            (
                "Edit",
                json!({"filePath":"/a","oldString":"a","newString":"b","originalFile":null,
                       "structuredPatch":[hunk],"userModified":false,"replaceAll":false}),
            ),
            (
                "Glob",
                json!({"durationMs":12,"numFiles":1,"filenames":["/a"],"truncated":false,"totalMatches":1}),
            ),
            (
                "Grep",
                json!({"mode":"content","numFiles":0,"filenames":[],"content":"a:1:x","numLines":1,
                       "appliedLimit":250}),
            ),
            (
                "WebFetch",
                json!({"bytes":100,"code":200,"codeText":"OK","result":"r","durationMs":1.5,"url":"u"}),
            ),
            (
                "WebSearch",
                json!({"query":"q","results":["text",{"tool_use_id":"s","content":[{"title":"t","url":"u"}]}],
                       "durationSeconds":0.7}),
            ),
            (
                "TodoWrite",
                json!({"oldTodos":[],"newTodos":[{"content":"x","status":"completed","activeForm":"Xing"}]}),
            ),
            (
                "AskUserQuestion",
                json!({"questions":[{"question":"Q?","header":"H","options":[{"label":"a","description":"x"},{"label":"b","description":"y"}],"multiSelect":false}],
                       "answers":{"Q?":"a"},"response":"free","annotations":{"Q?":{"notes":"n"}},"afkTimeoutMs":5}),
            ),
        ]
    }

    #[test]
    fn outputs_round_trip() {
        for (name, output) in output_examples() {
            for output in [output.clone(), with_unknown(output)] {
                let typed = ToolOutput::parse(name, &output);
                assert!(!typed.is_other(), "{name} fell back to Other: {output}");
                assert_eq!(typed.name(), name);
                assert_eq!(typed.to_json(), output, "{name}");
                assert_eq!(serde_json::to_value(&typed).unwrap(), output, "{name}");
            }
        }
        let ToolOutput::Read(r) = ToolOutput::parse("Read", &output_examples()[1].1) else {
            panic!("not Read");
        };
        assert_eq!(r.text_file().map(|f| f.total_lines), Some(1));
        let ToolOutput::Read(img) = ToolOutput::parse("Read", &output_examples()[2].1) else {
            panic!("not Read");
        };
        assert_eq!(img.kind, ReadOutputKind::Image);
        assert_eq!(img.text_file(), None);
    }

    #[test]
    fn outputs_that_do_not_fit_stay_raw() {
        for (name, output) in [
            ("Bash", json!("Error: not in this test")),
            ("Bash", json!({"stdout":"x"})),
            (
                "Edit",
                json!({"filePath":"/a","oldString":"a","newString":"b","structuredPatch":[],"userModified":false,"replaceAll":false}),
            ),
            ("Agent", json!({"status":"completed"})),
            ("mcp__calc__add", json!([{"type":"text","text":"5"}])),
        ] {
            let typed = ToolOutput::parse(name, &output);
            assert!(typed.is_other(), "{name}: {output}");
            assert_eq!(typed.to_json(), output);
        }
    }

    #[test]
    fn hook_inputs_give_typed_tool_calls() {
        let base = json!({"session_id":"s","transcript_path":"/t","cwd":"/c"});
        let mut pre = base.clone();
        pre.as_object_mut().unwrap().extend(
            json!({"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"tool_use_id":"t"})
                .as_object()
                .unwrap()
                .clone(),
        );
        let input: HookInput = serde_json::from_value(pre).unwrap();
        let Some(ToolInput::Bash(b)) = input.tool_input() else {
            panic!("not Bash: {input:?}");
        };
        assert_eq!(b.command, "ls");
        if let HookInput::PreToolUse(p) = &input {
            assert!(matches!(p.typed_input(), ToolInput::Bash(_)));
        } else {
            panic!("not PreToolUse");
        }

        let mut post = base.clone();
        post.as_object_mut().unwrap().extend(
            json!({"hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"echo hi"},
                   "tool_response":{"stdout":"hi","stderr":"","interrupted":false,"isImage":false,"noOutputExpected":false},
                   "tool_use_id":"t"})
                .as_object()
                .unwrap()
                .clone(),
        );
        let HookInput::PostToolUse(p) = serde_json::from_value(post).unwrap() else {
            panic!("not PostToolUse");
        };
        let ToolOutput::Bash(out) = p.typed_output() else {
            panic!("not Bash output");
        };
        assert_eq!(out.stdout, "hi");

        let unknown: HookInput = crate::model::from_value(&
            json!({"hook_event_name":"FutureToolEvent","tool_name":"Write","tool_input":{"file_path":"/a","content":"x"}}),
        )
        .unwrap();
        assert!(matches!(unknown.tool_input(), Some(ToolInput::Write(_))));
        let notification: HookInput = crate::model::from_value(&
            json!({"hook_event_name":"Notification","session_id":"s","transcript_path":"/t","cwd":"/c","message":"m"}),
        )
        .unwrap();
        assert_eq!(notification.tool_input(), None);
    }

    /// Every tool call and tool result in the recorded real-CLI transcripts
    /// (compiled in: the core's sources do no IO, tests included).
    #[test]
    fn recorded_tool_calls_are_typed_and_round_trip() {
        let fixtures: &[&str] = &[
            include_str!("../../tests/fixtures/e2e_interrupt_pending_permission.ndjson"),
            include_str!("../../tests/fixtures/e2e_permission_allow_write.ndjson"),
            include_str!("../../tests/fixtures/e2e_permission_deny_bash.ndjson"),
            include_str!("../../tests/fixtures/e2e_post_tool_use_hook.ndjson"),
            include_str!("../../tests/fixtures/e2e_pre_tool_use_hook_deny.ndjson"),
            include_str!("../../tests/fixtures/e2e_sdk_mcp_tool.ndjson"),
            include_str!("../../tests/fixtures/hooks.ndjson"),
            include_str!("../../tests/fixtures/interrupt_pending_permission.ndjson"),
            include_str!("../../tests/fixtures/sdk_env_session_state.ndjson"),
            include_str!("../../tests/fixtures/sdk_mcp.ndjson"),
            include_str!("../../tests/fixtures/stdin_close_mid_turn.ndjson"),
            include_str!("../../tests/fixtures/tool_permission_allow.ndjson"),
            include_str!("../../tests/fixtures/tool_permission_deny.ndjson"),
        ];
        let mut seen = BTreeMap::<String, usize>::new();
        let mut check_input = |name: &str, input: &Json| {
            let typed = ToolInput::parse(name, input);
            assert_eq!(typed.to_json(), *input, "{name}");
            let builtin = !name.starts_with("mcp__");
            assert_eq!(!typed.is_other(), builtin, "{name}: {input}");
            *seen.entry(format!("input {name}")).or_default() += 1;
        };
        let mut names = BTreeMap::<String, String>::new();
        let mut outputs = 0;
        for fixture in fixtures {
            for record in fixture.lines() {
                let record: Json = serde_json::from_str(record).unwrap();
                let line: Json = serde_json::from_str(record["line"].as_str().unwrap()).unwrap();
                // can_use_tool
                let req = &line["request"];
                if req["subtype"] == "can_use_tool" {
                    let req: CanUseTool = serde_json::from_value(req.clone()).unwrap();
                    check_input(&req.tool_name, &req.input);
                    assert_eq!(req.typed_input().to_json(), req.input);
                }
                // hook callbacks about a tool call
                if req["subtype"] == "hook_callback" {
                    let input: HookInput = serde_json::from_value(req["input"].clone()).unwrap();
                    if let (Some(name), Some(typed)) = (input.tool_name(), input.tool_input()) {
                        check_input(name, &typed.to_json());
                        assert!(!typed.is_other(), "{name}");
                    }
                }
                // tool_use blocks of assistant messages
                if line["type"] == "assistant" {
                    for block in line["message"]["content"].as_array().into_iter().flatten() {
                        if block["type"] == "tool_use" {
                            let block: ToolUseBlock =
                                serde_json::from_value(block.clone()).unwrap();
                            check_input(&block.name, &block.input);
                            assert_eq!(block.typed_input().to_json(), block.input);
                            names.insert(block.id.clone(), block.name.clone());
                        }
                    }
                }
                // tool results, named by the call they answer
                if line["type"] == "user" {
                    let result = &line["tool_use_result"];
                    let id = line["message"]["content"][0]["tool_use_id"].as_str();
                    if let (false, Some(name)) = (result.is_null(), id.and_then(|id| names.get(id)))
                    {
                        let typed = ToolOutput::parse(name, result);
                        assert_eq!(typed.to_json(), *result);
                        // Objects from built-in tools are typed; error strings
                        // and MCP content stay raw.
                        assert_eq!(
                            !typed.is_other(),
                            result.is_object() && !name.starts_with("mcp__"),
                            "{name}: {result}"
                        );
                        outputs += 1;
                    }
                }
            }
        }
        assert!(
            seen.get("input Bash").copied().unwrap_or(0) >= 10,
            "{seen:?}"
        );
        assert!(
            seen.get("input Write").copied().unwrap_or(0) >= 2,
            "{seen:?}"
        );
        assert!(outputs >= 10, "{outputs}");
    }

    mod properties {
        use super::*;
        use proptest::prelude::*;

        fn scalar() -> impl Strategy<Value = Json> {
            prop_oneof![
                Just(Json::Null),
                any::<bool>().prop_map(Json::from),
                any::<u64>().prop_map(Json::from),
                any::<i64>().prop_map(Json::from),
                any::<f64>().prop_map(Json::from),
                prop::sample::select(vec!["true", "false", "5", " -7 ", "1.5", "x", "", "1e3"])
                    .prop_map(Json::from),
                ".{0,8}".prop_map(Json::from),
            ]
        }

        fn value() -> impl Strategy<Value = Json> {
            scalar().prop_recursive(3, 24, 4, |inner| {
                prop_oneof![
                    prop::collection::vec(inner.clone(), 0..4).prop_map(Json::from),
                    prop::collection::btree_map(key(), inner, 0..4)
                        .prop_map(|m| Json::Object(m.into_iter().collect())),
                ]
            })
        }

        fn key() -> impl Strategy<Value = String> {
            prop::sample::select(vec![
                "command",
                "timeout",
                "description",
                "run_in_background",
                "dangerouslyDisableSandbox",
                "file_path",
                "offset",
                "limit",
                "pages",
                "allow_large",
                "content",
                "old_string",
                "new_string",
                "replace_all",
                "pattern",
                "path",
                "glob",
                "output_mode",
                "-A",
                "-B",
                "-C",
                "-n",
                "-i",
                "-o",
                "type",
                "head_limit",
                "multiline",
                "url",
                "prompt",
                "query",
                "allowed_domains",
                "todos",
                "status",
                "activeForm",
                "questions",
                "question",
                "header",
                "options",
                "label",
                "multiSelect",
                "answers",
                "annotations",
                "metadata",
                "stdout",
                "stderr",
                "interrupted",
                "filePath",
                "file",
                "other",
            ])
            .prop_map(str::to_owned)
        }

        const TOOLS: &[&str] = &[
            "Agent",
            "Task",
            "AskUserQuestion",
            "Bash",
            "Edit",
            "Glob",
            "Grep",
            "NotebookEdit",
            "Read",
            "TodoWrite",
            "WebFetch",
            "WebSearch",
            "Write",
            "Other",
        ];

        proptest! {
            /// Whatever the JSON, parsing gives back exactly what it was given.
            #[test]
            fn parsing_any_input_or_output_is_lossless(
                tool in prop::sample::select(TOOLS),
                fields in prop::collection::btree_map(key(), value(), 0..8),
                raw in value(),
            ) {
                let object = Json::Object(fields.into_iter().collect());
                for v in [&object, &raw] {
                    prop_assert_eq!(&ToolInput::parse(tool, v).to_json(), v);
                    prop_assert_eq!(&ToolOutput::parse(tool, v).to_json(), v);
                }
            }

            /// A Bash call is typed exactly when every field has a shape the
            /// CLI accepts, and written back as read either way.
            #[test]
            fn bash_calls_are_typed_when_the_cli_would_take_them(
                command in ".{0,10}",
                timeout in prop::option::of(prop::sample::select(vec![
                    (json!(5000), true), (json!("5000"), true), (json!(" 7 "), true),
                    (json!(1.5), true), (json!("x"), false), (json!(null), false), (json!([1]), false),
                ])),
                background in prop::option::of(prop::sample::select(vec![
                    (json!(true), true), (json!("false"), true), (json!("yes"), false),
                    (json!(null), false), (json!(0), false),
                ])),
                extra in prop::option::of(value()),
            ) {
                let mut input = json!({"command": command});
                let mut valid = true;
                if let Some((v, ok)) = timeout {
                    input["timeout"] = v;
                    valid &= ok;
                }
                if let Some((v, ok)) = background {
                    input["run_in_background"] = v;
                    valid &= ok;
                }
                if let Some(v) = extra {
                    input["some_new_field"] = v;
                }
                let typed = ToolInput::parse("Bash", &input);
                prop_assert_eq!(matches!(typed, ToolInput::Bash(_)), valid, "{}", input);
                prop_assert_eq!(typed.to_json(), input);
            }

            /// Scalars spelled as strings never panic and always write back as read.
            #[test]
            fn flex_scalars_write_back_what_they_read(s in "\\PC{0,12}|[-+ ]?[0-9]{0,25}(\\.[0-9]{0,3})? ?") {
                if let Ok(n) = serde_json::from_value::<FlexNumber>(Json::from(s.clone())) {
                    prop_assert_eq!(serde_json::to_value(&n).unwrap(), Json::from(s.clone()));
                }
                if let Ok(b) = serde_json::from_value::<FlexBool>(Json::from(s.clone())) {
                    prop_assert_eq!(serde_json::to_value(b).unwrap(), Json::from(s));
                }
            }
        }
    }
}
