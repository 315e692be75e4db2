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
//! | `Artifact` | [`ArtifactInput`] | raw |
//! | `ClaudeDesign` | [`ClaudeDesignInput`] | raw |
//! | `CronCreate` | [`CronCreateInput`] | raw |
//! | `CronDelete` | [`CronDeleteInput`] | raw |
//! | `EnterWorktree` | [`EnterWorktreeInput`] | raw |
//! | `ExitPlanMode` | [`ExitPlanModeInput`] | raw |
//! | `ExitWorktree` | [`ExitWorktreeInput`] | raw |
//! | `ListMcpResourcesTool` | [`ListMcpResourcesInput`] | raw |
//! | `Monitor` | [`MonitorInput`] | raw |
//! | `OfferChromeSetup` | [`OfferChromeSetupInput`] | raw |
//! | `Projects` | [`ProjectsInput`] | raw |
//! | `SetGoal` | [`ProposeGoalInput`] | raw |
//! | `propose_skills` | [`ProposeSkillsInput`] | raw |
//! | `PushNotification` | [`PushNotificationInput`] | raw |
//! | `ReadMcpResourceDirTool` | [`ReadMcpResourceDirInput`] | raw |
//! | `ReadMcpResourceTool` | [`ReadMcpResourceInput`] | raw |
//! | `RefreshMcpTools` | [`RefreshMcpToolsInput`] | raw |
//! | `RemoteTrigger` | [`RemoteTriggerInput`] | raw |
//! | `ReportFindings` | [`ReportFindingsInput`] | raw |
//! | `ScheduleWakeup` | [`ScheduleWakeupInput`] | raw |
//! | `SendFeedback` | [`SendFeedbackInput`] | raw |
//! | `TaskCreate` | [`TaskCreateInput`] | raw |
//! | `TaskGet` | [`TaskGetInput`] | raw |
//! | `TaskStop` | [`TaskStopInput`] | raw |
//! | `TaskUpdate` | [`TaskUpdateInput`] | raw |
//! | `Workflow` | [`WorkflowInput`] | raw |
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

// ---------------------------------------------------------------------------
// Inputs of the other built-in tools
// ---------------------------------------------------------------------------

wire_struct! {
    /// One entry of [`ExitPlanModeInput::allowed_prompts`]: an action the plan
    /// asked to be allowed.
    #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
    #[non_exhaustive]
    pub struct AllowedPrompt {
        /// The tool the entry is for (`Bash`).
        pub tool: String,
        /// The action in words ("run tests").
        pub prompt: String,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

impl AllowedPrompt {
    /// A value with the given required fields and no optional ones.
    pub fn new(tool: impl Into<String>, prompt: impl Into<String>) -> Self {
        Self {
            tool: tool.into(),
            prompt: prompt.into(),
            extra: Extra::new(),
        }
    }
}

wire_struct! {
    /// Input of `ExitPlanMode`: leave plan mode and present the plan.
    #[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
    #[non_exhaustive]
    pub struct ExitPlanModeInput {
        /// Deprecated and no longer read by the CLI: actions the plan asked to
        /// be allowed.
        #[serde(
            rename = "allowedPrompts",
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub allowed_prompts: Option<Vec<AllowedPrompt>>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// Input of `TaskStop`: stop a background task.
    #[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
    #[non_exhaustive]
    pub struct TaskStopInput {
        /// The background task to stop (a named background agent or teammate
        /// may be given by agent id or name).
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub task_id: Option<String>,
        /// Deprecated spelling of `task_id`.
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub shell_id: Option<String>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// Input of `ListMcpResourcesTool`: list the resources MCP servers offer.
    #[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
    #[non_exhaustive]
    pub struct ListMcpResourcesInput {
        /// Only this server's resources; every server's when absent.
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub server: Option<String>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// Input of `RefreshMcpTools`: query connected MCP servers for their tool
    /// lists again.
    #[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
    #[non_exhaustive]
    pub struct RefreshMcpToolsInput {
        /// Only this server; every connected server when absent.
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub server: Option<String>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// Input of `ReadMcpResourceDirTool`: list a directory resource of an MCP server.
    #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
    #[non_exhaustive]
    pub struct ReadMcpResourceDirInput {
        /// The MCP server's name.
        pub server: String,
        /// The directory resource's URI.
        pub uri: String,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

impl ReadMcpResourceDirInput {
    /// A value with the given required fields and no optional ones.
    pub fn new(server: impl Into<String>, uri: impl Into<String>) -> Self {
        Self {
            server: server.into(),
            uri: uri.into(),
            extra: Extra::new(),
        }
    }
}

wire_struct! {
    /// Input of `ReadMcpResourceTool`: read one resource of an MCP server.
    #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
    #[non_exhaustive]
    pub struct ReadMcpResourceInput {
        /// The MCP server's name.
        pub server: String,
        /// The resource's URI.
        pub uri: String,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

impl ReadMcpResourceInput {
    /// A value with the given required fields and no optional ones.
    pub fn new(server: impl Into<String>, uri: impl Into<String>) -> Self {
        Self {
            server: server.into(),
            uri: uri.into(),
            extra: Extra::new(),
        }
    }
}

wire_struct! {
    /// One finding of a [`ReportFindingsInput`].
    #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
    #[non_exhaustive]
    pub struct Finding {
        /// Path of the file, relative to the repository.
        pub file: String,
        /// The line it anchors to (counted from 1).
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub line: Option<FlexNumber>,
        /// What the defect is.
        pub summary: String,
        /// The claim alone, short enough for a compact view (60 characters at most).
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub short_summary: Option<String>,
        /// The inputs or state that lead to the wrong result or crash.
        pub failure_scenario: String,
        /// Kind of finding, as a short kebab-case slug (`correctness`,
        /// `efficiency`, ...).
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub category: Option<String>,
        /// `important` (the change adds or worsens a bug), `pre_existing` or `nit`.
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub severity: Option<String>,
        /// `CONFIRMED` or `PLAUSIBLE`, when a verification pass ran.
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub verdict: Option<String>,
        /// When reported again after fixing: `fixed`, `skipped` or
        /// `no_change_needed`.
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub outcome: Option<String>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

impl Finding {
    /// A value with the given required fields and no optional ones.
    pub fn new(
        file: impl Into<String>,
        summary: impl Into<String>,
        failure_scenario: impl Into<String>,
    ) -> Self {
        Self {
            file: file.into(),
            line: None,
            summary: summary.into(),
            short_summary: None,
            failure_scenario: failure_scenario.into(),
            category: None,
            severity: None,
            verdict: None,
            outcome: None,
            extra: Extra::new(),
        }
    }
}

wire_struct! {
    /// Input of `ReportFindings`: the verified findings of a code review.
    #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
    #[non_exhaustive]
    pub struct ReportFindingsInput {
        /// The effort level the review ran at (`low` ... `max`).
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub level: Option<String>,
        /// The findings, most severe first (empty when none held up).
        pub findings: Vec<Finding>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

impl ReportFindingsInput {
    /// A value with the given required fields and no optional ones.
    pub fn new(findings: Vec<Finding>) -> Self {
        Self {
            level: None,
            findings,
            extra: Extra::new(),
        }
    }
}

wire_struct! {
    /// Input of `SendFeedback`: file a bug report or idea about Claude Code.
    #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
    #[non_exhaustive]
    pub struct SendFeedbackInput {
        /// What kind of feedback: `bug`, `idea` or `missing_capability`.
        #[serde(rename = "type")]
        pub kind: String,
        /// A one-line summary.
        pub title: String,
        /// What happened, what the user said, how to reproduce it, evidence.
        pub details: String,
        /// The part of Claude Code it is about ("hooks config", "/help").
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub area: Option<String>,
        /// For a report about the model's behaviour, the closest failure mode
        /// (`instruction_following`, `overeager`, ..., `other`).
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub failure_mode: Option<String>,
        /// What kind of task the session was doing (`code_edit`, `debug`, ...,
        /// `other`).
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub task_category: Option<String>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

impl SendFeedbackInput {
    /// A value with the given required fields and no optional ones.
    pub fn new(
        kind: impl Into<String>,
        title: impl Into<String>,
        details: impl Into<String>,
    ) -> Self {
        Self {
            kind: kind.into(),
            title: title.into(),
            details: details.into(),
            area: None,
            failure_mode: None,
            task_category: None,
            extra: Extra::new(),
        }
    }
}

wire_struct! {
    /// Input of `ClaudeDesign`: run one Claude Design operation.
    #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
    #[non_exhaustive]
    pub struct ClaudeDesignInput {
        /// The operation (`list` names the others and their arguments).
        pub operation: String,
        /// The operation's arguments, an object checked by the server (`{}`
        /// when it takes none).
        pub arguments: Json,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

impl ClaudeDesignInput {
    /// A value with the given required fields and no optional ones.
    pub fn new(operation: impl Into<String>, arguments: Json) -> Self {
        Self {
            operation: operation.into(),
            arguments,
            extra: Extra::new(),
        }
    }
}

wire_struct! {
    /// Input of `Projects`: read, search or write the documents of a project.
    #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
    #[non_exhaustive]
    pub struct ProjectsInput {
        /// What to do: `project_info`, `project_read`, `project_search`,
        /// `project_write`, `project_delete`, `project_memory_list` or
        /// `project_memory_read`.
        pub method: String,
        /// The document's path (read, write, delete), or a memory file's path
        /// (memory read).
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub path: Option<String>,
        /// The document's text, for a write (instead of `local_path`).
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub content: Option<String>,
        /// A file in the working directory to upload, for a write (instead of
        /// `content`).
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub local_path: Option<String>,
        /// Marks the written document as the one the user needs to see.
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub present_to_user: Option<FlexBool>,
        /// What to search the knowledge base for.
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub query: Option<String>,
        /// How many hits a search returns (5 when absent).
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub n: Option<FlexNumber>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

impl ProjectsInput {
    /// A value with the given required fields and no optional ones.
    pub fn new(method: impl Into<String>) -> Self {
        Self {
            method: method.into(),
            path: None,
            content: None,
            local_path: None,
            present_to_user: None,
            query: None,
            n: None,
            extra: Extra::new(),
        }
    }
}

wire_struct! {
    /// Input of `TaskCreate`: add a task to the session's task list.
    #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
    #[non_exhaustive]
    pub struct TaskCreateInput {
        /// A short title.
        pub subject: String,
        /// What is to be done.
        pub description: String,
        /// The task phrased as ongoing work ("Running tests"), shown while it is
        /// in progress.
        #[serde(
            rename = "activeForm",
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub active_form: Option<String>,
        /// Any data to attach to the task (an object).
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

impl TaskCreateInput {
    /// A value with the given required fields and no optional ones.
    pub fn new(subject: impl Into<String>, description: impl Into<String>) -> Self {
        Self {
            subject: subject.into(),
            description: description.into(),
            active_form: None,
            metadata: None,
            extra: Extra::new(),
        }
    }
}

wire_struct! {
    /// Input of `TaskGet`: read one task of the task list.
    #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
    #[non_exhaustive]
    pub struct TaskGetInput {
        /// The task's id.
        #[serde(rename = "taskId")]
        pub task_id: String,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

impl TaskGetInput {
    /// A value with the given required fields and no optional ones.
    pub fn new(task_id: impl Into<String>) -> Self {
        Self {
            task_id: task_id.into(),
            extra: Extra::new(),
        }
    }
}

wire_struct! {
    /// Input of `TaskUpdate`: change a task of the task list.
    #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
    #[non_exhaustive]
    pub struct TaskUpdateInput {
        /// The task's id.
        #[serde(rename = "taskId")]
        pub task_id: String,
        /// Its new title.
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub subject: Option<String>,
        /// Its new description.
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub description: Option<String>,
        /// Its new phrasing as ongoing work.
        #[serde(
            rename = "activeForm",
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub active_form: Option<String>,
        /// Its new state: `pending`, `in_progress`, `completed`, or `deleted`
        /// to remove it.
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub status: Option<String>,
        /// Ids of tasks this task now blocks.
        #[serde(
            rename = "addBlocks",
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub add_blocks: Option<Vec<String>>,
        /// Ids of tasks that now block this one.
        #[serde(
            rename = "addBlockedBy",
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub add_blocked_by: Option<Vec<String>>,
        /// Its new owner.
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub owner: Option<String>,
        /// Metadata keys to merge into the task's (a key set to `null` is removed).
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

impl TaskUpdateInput {
    /// A value with the given required fields and no optional ones.
    pub fn new(task_id: impl Into<String>) -> Self {
        Self {
            task_id: task_id.into(),
            subject: None,
            description: None,
            active_form: None,
            status: None,
            add_blocks: None,
            add_blocked_by: None,
            owner: None,
            metadata: None,
            extra: Extra::new(),
        }
    }
}

wire_struct! {
    /// Input of `Workflow`: run a workflow script.
    #[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
    #[non_exhaustive]
    pub struct WorkflowInput {
        /// The script itself, starting with its `meta` declaration.
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub script: Option<String>,
        /// A predefined workflow to run (built in or from `.claude/workflows/`).
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub name: Option<String>,
        /// Ignored (the script's `meta` says it).
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub description: Option<String>,
        /// Ignored (the script's `meta` says it).
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub title: Option<String>,
        /// A value handed to the script as its `args`, as is.
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub args: Option<Json>,
        /// A script file on disk to run; wins over `script` and `name`.
        #[serde(
            rename = "scriptPath",
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub script_path: Option<String>,
        /// The run id of an earlier invocation in this session to resume,
        /// reusing its cached agent calls up to the first that changed.
        #[serde(
            rename = "resumeFromRunId",
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub resume_from_run_id: Option<String>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// Input of `CronCreate`: schedule a prompt on a cron expression.
    #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
    #[non_exhaustive]
    pub struct CronCreateInput {
        /// A five-field cron expression in local time (`M H DoM Mon DoW`).
        pub cron: String,
        /// The prompt queued at each firing.
        pub prompt: String,
        /// Fire at every match until deleted (the default), or once (`false`).
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub recurring: Option<FlexBool>,
        /// Keep the job across restarts (in `.claude/scheduled_tasks.json`)
        /// instead of for this session only (the default).
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub durable: Option<FlexBool>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

impl CronCreateInput {
    /// A value with the given required fields and no optional ones.
    pub fn new(cron: impl Into<String>, prompt: impl Into<String>) -> Self {
        Self {
            cron: cron.into(),
            prompt: prompt.into(),
            recurring: None,
            durable: None,
            extra: Extra::new(),
        }
    }
}

wire_struct! {
    /// Input of `CronDelete`: remove a scheduled job.
    #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
    #[non_exhaustive]
    pub struct CronDeleteInput {
        /// The job's id, as `CronCreate` returned it.
        pub id: String,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

impl CronDeleteInput {
    /// A value with the given required fields and no optional ones.
    pub fn new(id: impl Into<String>) -> Self {
        Self {
            id: id.into(),
            extra: Extra::new(),
        }
    }
}

wire_struct! {
    /// Input of `ScheduleWakeup`: schedule the next turn of a `/loop`, or end it.
    #[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
    #[non_exhaustive]
    pub struct ScheduleWakeupInput {
        /// Seconds until the wake-up (the CLI keeps it within 60 to 3600).
        #[serde(
            rename = "delaySeconds",
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub delay_seconds: Option<FlexNumber>,
        /// Why that delay, in one sentence shown to the user.
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub reason: Option<String>,
        /// The `/loop` input to run on waking up.
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub prompt: Option<String>,
        /// End the loop now; every other field is then ignored.
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub stop: Option<FlexBool>,
        /// Nothing changed this turn (consecutive ones are collapsed in the
        /// terminal).
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub noop: Option<FlexBool>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// Input of `RemoteTrigger`: manage and run remote triggers.
    #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
    #[non_exhaustive]
    pub struct RemoteTriggerInput {
        /// What to do: `list`, `get`, `create`, `update`, `run`,
        /// `create_webhook_trigger`, `list_runs` or `get_run_log`.
        pub action: String,
        /// The trigger (for `get`, `update`, `run` and `list_runs`).
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub trigger_id: Option<String>,
        /// The run's session id (for `get_run_log`).
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub session_id: Option<String>,
        /// The `next_cursor` of the previous page of the same listing.
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub cursor: Option<String>,
        /// The trigger's definition (for `create` and `update`; optional for
        /// `run`).
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub body: Option<Json>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

impl RemoteTriggerInput {
    /// A value with the given required fields and no optional ones.
    pub fn new(action: impl Into<String>) -> Self {
        Self {
            action: action.into(),
            trigger_id: None,
            session_id: None,
            cursor: None,
            body: None,
            extra: Extra::new(),
        }
    }
}

wire_struct! {
    /// Input of `OfferChromeSetup`: offer to connect the user's own browser.
    #[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
    #[non_exhaustive]
    pub struct OfferChromeSetupInput {
        /// What the task needs the user's browser for, in a few words.
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub reason: Option<String>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// The WebSocket a [`MonitorInput`] watches.
    #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
    #[non_exhaustive]
    pub struct MonitorSocket {
        /// The socket's URL.
        pub url: String,
        /// Subprotocols to ask for.
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub protocols: Option<Vec<String>>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

impl MonitorSocket {
    /// A value with the given required fields and no optional ones.
    pub fn new(url: impl Into<String>) -> Self {
        Self {
            url: url.into(),
            protocols: None,
            extra: Extra::new(),
        }
    }
}

wire_struct! {
    /// Input of `Monitor`: watch a command's output or a WebSocket, each line
    /// or frame an event.
    #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
    #[non_exhaustive]
    pub struct MonitorInput {
        /// What is watched, in words shown in notifications.
        pub description: String,
        /// When to stop watching, in milliseconds (the CLI caps it at 1800000).
        pub timeout_ms: FlexNumber,
        /// A shell command whose output lines are the events.
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub command: Option<String>,
        /// A WebSocket whose text frames are the events (not with `command`).
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub ws: Option<MonitorSocket>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

impl MonitorInput {
    /// A value with the given required fields and no optional ones.
    pub fn new(description: impl Into<String>, timeout_ms: impl Into<FlexNumber>) -> Self {
        Self {
            description: description.into(),
            timeout_ms: timeout_ms.into(),
            command: None,
            ws: None,
            extra: Extra::new(),
        }
    }
}

wire_struct! {
    /// One replacement of a [`SkillProposal`]'s `edits`.
    #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
    #[non_exhaustive]
    pub struct SkillEdit {
        /// The text to replace (it occurs exactly once in the `SKILL.md`).
        pub old_string: String,
        /// The text to put in its place.
        pub new_string: String,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

impl SkillEdit {
    /// A value with the given required fields and no optional ones.
    pub fn new(old_string: impl Into<String>, new_string: impl Into<String>) -> Self {
        Self {
            old_string: old_string.into(),
            new_string: new_string.into(),
            extra: Extra::new(),
        }
    }
}

wire_struct! {
    /// One skill of a [`ProposeSkillsInput`].
    #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
    #[non_exhaustive]
    pub struct SkillProposal {
        /// The skill's kebab-case name.
        pub name: String,
        /// `new`, or `improvement` of an existing skill.
        pub kind: String,
        /// The existing skill to change (for `improvement`).
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub target: Option<String>,
        /// When to use the skill, in one sentence.
        pub description: String,
        /// Memory files where the procedure was seen.
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub evidence: Option<Vec<String>>,
        /// For an improvement, the changes to its `SKILL.md`, in order.
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub edits: Option<Vec<SkillEdit>>,
        /// The complete `SKILL.md`, for a new skill or a full rewrite.
        #[serde(
            rename = "skillMd",
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub skill_md: Option<String>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

impl SkillProposal {
    /// A value with the given required fields and no optional ones.
    pub fn new(
        name: impl Into<String>,
        kind: impl Into<String>,
        description: impl Into<String>,
    ) -> Self {
        Self {
            name: name.into(),
            kind: kind.into(),
            target: None,
            description: description.into(),
            evidence: None,
            edits: None,
            skill_md: None,
            extra: Extra::new(),
        }
    }
}

wire_struct! {
    /// Input of `propose_skills`: propose new skills, or changes to existing
    /// ones, for the user to review.
    #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
    #[non_exhaustive]
    pub struct ProposeSkillsInput {
        /// The proposals (one to three).
        pub proposals: Vec<SkillProposal>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

impl ProposeSkillsInput {
    /// A value with the given required fields and no optional ones.
    pub fn new(proposals: Vec<SkillProposal>) -> Self {
        Self {
            proposals,
            extra: Extra::new(),
        }
    }
}

wire_struct! {
    /// Input of `SetGoal`: propose a completion condition for the session's goal.
    #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
    #[non_exhaustive]
    pub struct ProposeGoalInput {
        /// The condition, written so a separate evaluator can check it
        /// (500 characters at most).
        pub condition: String,
        /// Ask the user to approve it first (the default).
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub ask_user: Option<FlexBool>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

impl ProposeGoalInput {
    /// A value with the given required fields and no optional ones.
    pub fn new(condition: impl Into<String>) -> Self {
        Self {
            condition: condition.into(),
            ask_user: None,
            extra: Extra::new(),
        }
    }
}

wire_struct! {
    /// Input of `Artifact`: publish an HTML page as a claude.ai artifact, or
    /// list, read, pin or manage artifacts and their assets.
    #[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
    #[non_exhaustive]
    pub struct ArtifactInput {
        /// What to do: `publish` (the default), `list`, `read`, `list_types`,
        /// `watch`, `unwatch`, `status`, `upload_asset`, `list_assets`,
        /// `read_asset`, `delete_asset`, `pin` or `unpin`.
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub action: Option<String>,
        /// The `.html` file to publish, or the file to upload (`upload_asset`).
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub file_path: Option<String>,
        /// Deprecated: use `icon`.
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub favicon: Option<String>,
        /// One generic word for the page's tab icon (`chart`, `map`).
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub icon: Option<String>,
        /// How many artifacts `list` returns at most (25 when absent).
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub limit: Option<FlexNumber>,
        /// The `next_page_token` of the previous `list` page.
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub page_token: Option<String>,
        /// Whose artifacts `list` shows: `mine` (the default), `shared` or `all`.
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub scope: Option<String>,
        /// The artifact's title, used when the HTML has no `<title>`.
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub title: Option<String>,
        /// A one-sentence subtitle for the gallery card.
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub description: Option<String>,
        /// A short name for this publish (60 characters at most).
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub label: Option<String>,
        /// The existing artifact to update or act on (its claude.ai link).
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub url: Option<String>,
        /// For `read` of someone else's artifact: what to extract from it.
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub prompt: Option<String>,
        /// Overwrite a newer published version instead of failing on the conflict.
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub force: Option<FlexBool>,
        /// Also pin the published artifact to the user's sidebar.
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub pin: Option<FlexBool>,
        /// Where `read_asset` saves the asset.
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub out_dir: Option<String>,
        /// Several files to upload in one `upload_asset` call (1 to 25).
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub file_paths: Option<Vec<String>>,
        /// The asset (`read_asset`, `delete_asset`).
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub asset_id: Option<String>,
        /// The `next` value of the previous `list_assets` result.
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub after: Option<String>,
        /// Runtime capabilities the page declares, by name (`{}` clears them).
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub capabilities: Option<Json>,
        /// The artifact's runtime version: `latest`, or a version to pin.
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub contract: Option<String>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// Input of `PushNotification`: send the user a push notification.
    #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
    #[non_exhaustive]
    pub struct PushNotificationInput {
        /// The notification's text (under 200 characters).
        pub message: String,
        /// `proactive`, for a notification the user did not ask for.
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub status: Option<String>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

impl PushNotificationInput {
    /// A value with the given required fields and no optional ones.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            status: None,
            extra: Extra::new(),
        }
    }
}

wire_struct! {
    /// Input of `EnterWorktree`: move the session into a new or existing git worktree.
    #[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
    #[non_exhaustive]
    pub struct EnterWorktreeInput {
        /// A name for a new worktree (a random one when absent; not with `path`).
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub name: Option<String>,
        /// An existing worktree to switch into (not with `name`).
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

wire_struct! {
    /// Input of `ExitWorktree`: leave the session's worktree.
    #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
    #[non_exhaustive]
    pub struct ExitWorktreeInput {
        /// `keep` the worktree and branch on disk, or `remove` them.
        pub action: String,
        /// Confirms removing a worktree with uncommitted or unmerged work.
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub discard_changes: Option<FlexBool>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

impl ExitWorktreeInput {
    /// A value with the given required fields and no optional ones.
    pub fn new(action: impl Into<String>) -> Self {
        Self {
            action: action.into(),
            discard_changes: None,
            extra: Extra::new(),
        }
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
    ArtifactInput,
    ClaudeDesignInput,
    CronCreateInput,
    CronDeleteInput,
    EnterWorktreeInput,
    ExitPlanModeInput,
    ExitWorktreeInput,
    ListMcpResourcesInput,
    MonitorInput,
    OfferChromeSetupInput,
    ProjectsInput,
    ProposeGoalInput,
    ProposeSkillsInput,
    PushNotificationInput,
    ReadMcpResourceDirInput,
    ReadMcpResourceInput,
    RefreshMcpToolsInput,
    RemoteTriggerInput,
    ReportFindingsInput,
    ScheduleWakeupInput,
    SendFeedbackInput,
    TaskCreateInput,
    TaskGetInput,
    TaskStopInput,
    TaskUpdateInput,
    WorkflowInput,
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
    /// `Artifact`.
    Artifact(ArtifactInput),
    /// `ClaudeDesign`.
    ClaudeDesign(ClaudeDesignInput),
    /// `CronCreate`.
    CronCreate(CronCreateInput),
    /// `CronDelete`.
    CronDelete(CronDeleteInput),
    /// `EnterWorktree`.
    EnterWorktree(EnterWorktreeInput),
    /// `ExitPlanMode`.
    ExitPlanMode(ExitPlanModeInput),
    /// `ExitWorktree`.
    ExitWorktree(ExitWorktreeInput),
    /// `ListMcpResourcesTool`.
    ListMcpResources(ListMcpResourcesInput),
    /// `Monitor`.
    Monitor(MonitorInput),
    /// `OfferChromeSetup`.
    OfferChromeSetup(OfferChromeSetupInput),
    /// `Projects`.
    Projects(ProjectsInput),
    /// `SetGoal`.
    ProposeGoal(ProposeGoalInput),
    /// `propose_skills`.
    ProposeSkills(ProposeSkillsInput),
    /// `PushNotification`.
    PushNotification(PushNotificationInput),
    /// `ReadMcpResourceDirTool`.
    ReadMcpResourceDir(ReadMcpResourceDirInput),
    /// `ReadMcpResourceTool`.
    ReadMcpResource(ReadMcpResourceInput),
    /// `RefreshMcpTools`.
    RefreshMcpTools(RefreshMcpToolsInput),
    /// `RemoteTrigger`.
    RemoteTrigger(RemoteTriggerInput),
    /// `ReportFindings`.
    ReportFindings(ReportFindingsInput),
    /// `ScheduleWakeup`.
    ScheduleWakeup(ScheduleWakeupInput),
    /// `SendFeedback`.
    SendFeedback(SendFeedbackInput),
    /// `TaskCreate`.
    TaskCreate(TaskCreateInput),
    /// `TaskGet`.
    TaskGet(TaskGetInput),
    /// `TaskStop`.
    TaskStop(TaskStopInput),
    /// `TaskUpdate`.
    TaskUpdate(TaskUpdateInput),
    /// `Workflow`.
    Workflow(WorkflowInput),
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
            "Artifact" => typed(input).map(Self::Artifact),
            "ClaudeDesign" => typed(input).map(Self::ClaudeDesign),
            "CronCreate" => typed(input).map(Self::CronCreate),
            "CronDelete" => typed(input).map(Self::CronDelete),
            "EnterWorktree" => typed(input).map(Self::EnterWorktree),
            "ExitPlanMode" => typed(input).map(Self::ExitPlanMode),
            "ExitWorktree" => typed(input).map(Self::ExitWorktree),
            "ListMcpResourcesTool" => typed(input).map(Self::ListMcpResources),
            "Monitor" => typed(input).map(Self::Monitor),
            "OfferChromeSetup" => typed(input).map(Self::OfferChromeSetup),
            "Projects" => typed(input).map(Self::Projects),
            "SetGoal" => typed(input).map(Self::ProposeGoal),
            "propose_skills" => typed(input).map(Self::ProposeSkills),
            "PushNotification" => typed(input).map(Self::PushNotification),
            "ReadMcpResourceDirTool" => typed(input).map(Self::ReadMcpResourceDir),
            "ReadMcpResourceTool" => typed(input).map(Self::ReadMcpResource),
            "RefreshMcpTools" => typed(input).map(Self::RefreshMcpTools),
            "RemoteTrigger" => typed(input).map(Self::RemoteTrigger),
            "ReportFindings" => typed(input).map(Self::ReportFindings),
            "ScheduleWakeup" => typed(input).map(Self::ScheduleWakeup),
            "SendFeedback" => typed(input).map(Self::SendFeedback),
            "TaskCreate" => typed(input).map(Self::TaskCreate),
            "TaskGet" => typed(input).map(Self::TaskGet),
            "TaskStop" => typed(input).map(Self::TaskStop),
            "TaskUpdate" => typed(input).map(Self::TaskUpdate),
            "Workflow" => typed(input).map(Self::Workflow),
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
            Self::Artifact(_) => "Artifact",
            Self::ClaudeDesign(_) => "ClaudeDesign",
            Self::CronCreate(_) => "CronCreate",
            Self::CronDelete(_) => "CronDelete",
            Self::EnterWorktree(_) => "EnterWorktree",
            Self::ExitPlanMode(_) => "ExitPlanMode",
            Self::ExitWorktree(_) => "ExitWorktree",
            Self::ListMcpResources(_) => "ListMcpResourcesTool",
            Self::Monitor(_) => "Monitor",
            Self::OfferChromeSetup(_) => "OfferChromeSetup",
            Self::Projects(_) => "Projects",
            Self::ProposeGoal(_) => "SetGoal",
            Self::ProposeSkills(_) => "propose_skills",
            Self::PushNotification(_) => "PushNotification",
            Self::ReadMcpResourceDir(_) => "ReadMcpResourceDirTool",
            Self::ReadMcpResource(_) => "ReadMcpResourceTool",
            Self::RefreshMcpTools(_) => "RefreshMcpTools",
            Self::RemoteTrigger(_) => "RemoteTrigger",
            Self::ReportFindings(_) => "ReportFindings",
            Self::ScheduleWakeup(_) => "ScheduleWakeup",
            Self::SendFeedback(_) => "SendFeedback",
            Self::TaskCreate(_) => "TaskCreate",
            Self::TaskGet(_) => "TaskGet",
            Self::TaskStop(_) => "TaskStop",
            Self::TaskUpdate(_) => "TaskUpdate",
            Self::Workflow(_) => "Workflow",
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
            Self::Artifact(x) => x.serialize(serializer),
            Self::ClaudeDesign(x) => x.serialize(serializer),
            Self::CronCreate(x) => x.serialize(serializer),
            Self::CronDelete(x) => x.serialize(serializer),
            Self::EnterWorktree(x) => x.serialize(serializer),
            Self::ExitPlanMode(x) => x.serialize(serializer),
            Self::ExitWorktree(x) => x.serialize(serializer),
            Self::ListMcpResources(x) => x.serialize(serializer),
            Self::Monitor(x) => x.serialize(serializer),
            Self::OfferChromeSetup(x) => x.serialize(serializer),
            Self::Projects(x) => x.serialize(serializer),
            Self::ProposeGoal(x) => x.serialize(serializer),
            Self::ProposeSkills(x) => x.serialize(serializer),
            Self::PushNotification(x) => x.serialize(serializer),
            Self::ReadMcpResourceDir(x) => x.serialize(serializer),
            Self::ReadMcpResource(x) => x.serialize(serializer),
            Self::RefreshMcpTools(x) => x.serialize(serializer),
            Self::RemoteTrigger(x) => x.serialize(serializer),
            Self::ReportFindings(x) => x.serialize(serializer),
            Self::ScheduleWakeup(x) => x.serialize(serializer),
            Self::SendFeedback(x) => x.serialize(serializer),
            Self::TaskCreate(x) => x.serialize(serializer),
            Self::TaskGet(x) => x.serialize(serializer),
            Self::TaskStop(x) => x.serialize(serializer),
            Self::TaskUpdate(x) => x.serialize(serializer),
            Self::Workflow(x) => x.serialize(serializer),
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
        /// Where the raw output of a large MCP tool output was saved.
        #[serde(
            rename = "rawOutputPath",
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub raw_output_path: Option<String>,
        /// The user sent the command to the background (Ctrl+B).
        #[serde(
            rename = "backgroundedByUser",
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub backgrounded_by_user: Option<bool>,
        /// The command hit its time limit after this many milliseconds and was
        /// moved to the background.
        #[serde(
            rename = "timedOutAfterMs",
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub timed_out_after_ms: Option<serde_json::Number>,
        /// A note for the model that a backgrounded `cd` (or the like) did not
        /// change the session's working directory.
        #[serde(
            rename = "backgroundCwdHint",
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub background_cwd_hint: Option<String>,
        /// The backgrounded command ends with its caller's final response, so no
        /// completion notice will follow (always `true` when present).
        #[serde(
            rename = "backgroundEndsWithFinalResponse",
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub background_ends_with_final_response: Option<bool>,
        /// The subagent owning the backgrounded command waits for it and is woken
        /// when it ends (always `true` when present).
        #[serde(
            rename = "backgroundWakesOwner",
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub background_wakes_owner: Option<bool>,
        /// The command ran outside the sandbox.
        #[serde(
            rename = "dangerouslyDisableSandbox",
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub dangerously_disable_sandbox: Option<bool>,
        /// Structured content blocks of the output, kept raw.
        #[serde(
            rename = "structuredContent",
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub structured_content: Option<Vec<Json>>,
        /// Size of the whole output in bytes, when it was too large to inline.
        #[serde(
            rename = "persistedOutputSize",
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub persisted_output_size: Option<u64>,
        /// A note for the model listing files read earlier that the command
        /// changed.
        #[serde(
            rename = "staleReadFileStateHint",
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub stale_read_file_state_hint: Option<String>,
        /// A note for the model that a `gh` command hit GitHub's API rate limit.
        #[serde(
            rename = "ghRateLimitHint",
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub gh_rate_limit_hint: Option<String>,
        /// The git and gh operations the command performed (commit, push, merge,
        /// rebase, pull request), for clients to show; kept raw.
        #[serde(
            rename = "gitOperation",
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub git_operation: Option<Json>,
        /// Fields not modelled by this crate.
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
        /// The change as git reports it, kept raw.
        #[serde(
            rename = "gitDiff",
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub git_diff: Option<Json>,
        /// The write was held for the machine's owner to review instead of
        /// written; the file is unchanged.
        #[serde(
            rename = "staged",
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub staged: Option<bool>,
        /// Fields not modelled by this crate.
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
        /// The change as git reports it, kept raw.
        #[serde(
            rename = "gitDiff",
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub git_diff: Option<Json>,
        /// The edit was held for the machine's owner to review instead of
        /// written; the file is unchanged.
        #[serde(
            rename = "staged",
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub staged: Option<bool>,
        /// Fields not modelled by this crate.
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
        /// How many files matched before truncation (a lower bound when
        /// `count_is_complete` is `Some(false)`).
        #[serde(
            rename = "totalMatches",
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub total_matches: Option<u64>,
        /// `total_matches` is exact (`true`) or a lower bound (`false`).
        #[serde(
            rename = "countIsComplete",
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub count_is_complete: Option<bool>,
        /// The time limit stopped the search, so more files may match.
        #[serde(
            rename = "timedOut",
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub timed_out: Option<bool>,
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
        /// How many files matched in all, before the limit and offset.
        #[serde(
            rename = "totalFiles",
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub total_files: Option<u64>,
        /// How many lines matched in all, before the limit and offset.
        #[serde(
            rename = "totalLines",
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub total_lines: Option<u64>,
        /// The limit applied to the results.
        #[serde(
            rename = "appliedLimit",
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub applied_limit: Option<u64>,
        /// The offset applied to the results.
        #[serde(
            rename = "appliedOffset",
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub applied_offset: Option<u64>,
        /// The time limit stopped the search, so more may match.
        #[serde(
            rename = "timedOut",
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub timed_out: Option<bool>,
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
        /// Set when the URL was a claude.ai artifact read through the artifact
        /// service; kept raw.
        #[serde(
            rename = "artifactRead",
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub artifact_read: Option<Json>,
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
        /// How many web searches were run.
        #[serde(
            rename = "searchCount",
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub search_count: Option<u64>,
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
        /// The dialog answered itself after the user was idle this many
        /// milliseconds (absent when a person answered).
        #[serde(
            rename = "afkTimeoutMs",
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub afk_timeout_ms: Option<serde_json::Number>,
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

    #[test]
    fn the_other_built_in_tools_are_typed_and_round_trip() {
        let cases = [
            (
                "TaskCreate",
                json!({"subject":"s","description":"d","activeForm":"Doing","metadata":{"k":1}}),
            ),
            (
                "TaskUpdate",
                json!({"taskId":"1","status":"deleted","addBlocks":["2"]}),
            ),
            ("TaskStop", json!({"task_id":"b1"})),
            (
                "CronCreate",
                json!({"cron":"*/5 * * * *","prompt":"p","recurring":"false"}),
            ),
            (
                "Monitor",
                json!({"description":"d","timeout_ms":"300000","ws":{"url":"wss://x"}}),
            ),
            (
                "ReportFindings",
                json!({"findings":[{"file":"a.rs","line":3,"summary":"s","failure_scenario":"f"}]}),
            ),
            (
                "propose_skills",
                json!({"proposals":[{"name":"n","kind":"new","description":"d",
                "edits":[{"old_string":"a","new_string":"b"}]}]}),
            ),
            (
                "SendFeedback",
                json!({"type":"bug","title":"t","details":"d"}),
            ),
            (
                "ExitPlanMode",
                json!({"plan":"the plan","allowedPrompts":[{"tool":"Bash","prompt":"run tests"}]}),
            ),
            ("ListMcpResourcesTool", json!({})),
            (
                "Artifact",
                json!({"action":"list","limit":25,"force":false}),
            ),
        ];
        for (name, input) in &cases {
            let typed = ToolInput::parse(name, input);
            assert!(!typed.is_other(), "{name} not typed");
            assert_eq!(typed.name(), *name);
            assert_eq!(&typed.to_json(), input, "{name}");
        }
        let ToolInput::CronCreate(cron) = ToolInput::parse("CronCreate", &cases[3].1) else {
            unreachable!()
        };
        assert_eq!(cron.recurring.map(FlexBool::get), Some(false));
        // A required field missing: kept raw.
        assert!(ToolInput::parse("TaskGet", &json!({})).is_other());
    }
}
