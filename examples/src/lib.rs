//! Shared bits of the examples: finding a CLI, deciding between online and
//! offline, and the offline setup (the real CLI against a loopback stand-in
//! for the model, with an empty temporary HOME and working directory).

use std::path::{Path, PathBuf};

use claude_proto_testkit::model_api::{ApiRequest, ModelApi};
use claude_proto_tokio::Options;
use serde_json::Value;

pub use claude_proto_testkit::model_api::Reply;

pub mod chat;

/// The CLI installed in this repository by `npm ci --prefix tests/peer`, if
/// it is there. The examples fall back to it so a fresh clone works
/// without a global install.
pub fn repo_cli() -> Option<PathBuf> {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/peer/node_modules/.bin/claude");
    path.is_file().then_some(path)
}

/// `true` if the environment or `~/.claude` holds credentials for the real
/// service.
pub fn has_credentials() -> bool {
    let set = |name: &str| std::env::var_os(name).is_some_and(|v| !v.is_empty());
    if set("ANTHROPIC_API_KEY") || set("CLAUDE_CODE_OAUTH_TOKEN") || set("ANTHROPIC_AUTH_TOKEN") {
        return true;
    }
    std::env::var_os("HOME")
        .map(|home| PathBuf::from(home).join(".claude/.credentials.json"))
        .is_some_and(|path| path.is_file())
}

/// Offline or not: `--offline` / `--online` if given (`forced`), else
/// offline exactly when no credentials are found.
pub fn want_offline(forced: Option<bool>) -> bool {
    forced.unwrap_or_else(|| !has_credentials())
}

/// Default options with the CLI to run: `explicit` if given; else, when
/// `CLAUDE_BIN` is not set, this repository's pinned install if present
/// (the usual search of `PATH` and install places happens otherwise).
pub fn base_options(explicit: Option<PathBuf>) -> Options {
    let cli = explicit.or_else(|| {
        std::env::var_os("CLAUDE_BIN")
            .is_none()
            .then(repo_cli)
            .flatten()
    });
    match cli {
        Some(cli) => Options::default().cli_path(cli),
        None => Options::default(),
    }
}

/// A temporary directory, removed with everything in it when dropped.
#[derive(Debug)]
pub struct ScratchDir(PathBuf);

impl ScratchDir {
    /// Creates `claude-proto-NAME-PID` in the system's temporary directory.
    pub fn new(name: &str) -> Result<Self, String> {
        let dir = std::env::temp_dir().join(format!("claude-proto-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        Ok(Self(dir))
    }

    /// Where it is.
    pub fn path(&self) -> &Path {
        &self.0
    }

    /// A directory `name` in it, created.
    pub fn subdir(&self, name: &str) -> Result<PathBuf, String> {
        let dir = self.0.join(name);
        std::fs::create_dir_all(&dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        Ok(dir)
    }
}

impl Drop for ScratchDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Keeps the offline setup alive: the model stand-in and the temporary
/// directory holding HOME and the working directory. Dropping it stops the
/// one and removes the other.
#[derive(Debug)]
pub struct OfflineGuard {
    // Stopped before the directory goes.
    server: ModelApi,
    work: PathBuf,
    root: ScratchDir,
}

impl OfflineGuard {
    /// The stand-in's address (`http://127.0.0.1:PORT`).
    pub fn base_url(&self) -> String {
        self.server.url()
    }

    /// The temporary working directory: the CLI's, unless the options
    /// given to [`offline_options`] named one.
    pub fn work_dir(&self) -> &Path {
        &self.work
    }

    /// The temporary directory holding HOME and the working directory,
    /// removed with the guard.
    pub fn root(&self) -> &Path {
        self.root.path()
    }
}

/// Sets `options` up to run the real CLI against a loopback stand-in for
/// the Messages API that answers with `script`, with an empty temporary
/// HOME and, unless `options` names one, an empty temporary working
/// directory (so that what the session writes stays out of your checkout),
/// and prints a one-line banner saying so. `name` names the temporary
/// directory. Keep the guard alive for the whole session.
pub fn offline_options(
    name: &str,
    options: Options,
    script: impl Fn(&ApiRequest) -> Reply + Send + Sync + 'static,
) -> Result<(Options, OfflineGuard), String> {
    offline_options_with(name, options, |_| script)
}

/// [`offline_options`] with a script made for the temporary working
/// directory (a stand-in that names files by their absolute path).
pub fn offline_options_with<S>(
    name: &str,
    options: Options,
    script: impl FnOnce(&Path) -> S,
) -> Result<(Options, OfflineGuard), String>
where
    S: Fn(&ApiRequest) -> Reply + Send + Sync + 'static,
{
    let root = ScratchDir::new(name)?;
    let home = root.subdir("home")?;
    let work = root.subdir("work")?;
    let server = ModelApi::start_with_limit(script(&work), 100_000)
        .map_err(|e| format!("cannot start the offline model: {e}"))?;
    println!(
        "── offline (no credentials or --offline): the real CLI, a canned model on 127.0.0.1:{}, temporary HOME{}",
        server.port(),
        if options.cwd.is_none() {
            " and working directory"
        } else {
            ""
        }
    );
    let mut options = options
        .env("ANTHROPIC_BASE_URL", server.url())
        .env("ANTHROPIC_API_KEY", "offline-stand-in")
        .env("HOME", &home)
        .env("DISABLE_TELEMETRY", "1")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1");
    if options.cwd.is_none() {
        options = options.cwd(&work);
    }
    Ok((options, OfflineGuard { server, work, root }))
}

/// For stand-in scripts: the last user message of the request (the CLI
/// appends system reminders after the user's words, so not simply the last
/// message).
pub fn last_user_message(request: &ApiRequest) -> Option<&Value> {
    request
        .messages()
        .iter()
        .rev()
        .find(|m| m["role"] == "user")
}

/// For stand-in scripts: the text of the tool result the last user message
/// carries, if it answers a tool call.
pub fn last_tool_result(request: &ApiRequest) -> Option<String> {
    let blocks = last_user_message(request)?["content"].as_array()?;
    let block = blocks.iter().find(|b| b["type"] == "tool_result")?;
    Some(match &block["content"] {
        Value::String(s) => s.clone(),
        Value::Array(items) => items
            .iter()
            .filter_map(|item| item["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    })
}

/// For stand-in scripts: what the user typed in the last user message,
/// without the system reminders (text blocks starting with a tag).
pub fn last_prompt(request: &ApiRequest) -> String {
    let Some(last_user) = last_user_message(request) else {
        return String::new();
    };
    match &last_user["content"] {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|b| b["text"].as_str())
            .filter(|text| !text.trim_start().starts_with('<'))
            .collect::<Vec<_>>()
            .join(" "),
        _ => String::new(),
    }
}

/// An error from starting the CLI, with the install hint when it was not
/// found.
pub fn start_error(error: claude_proto_tokio::SpawnError) -> String {
    spawn_error_text(&error)
}

/// [`start_error`] for an [`Error`](claude_proto_tokio::Error) from a call
/// that also starts the session (the one-shot `query`).
pub fn query_error(error: claude_proto_tokio::Error) -> String {
    match error {
        claude_proto_tokio::Error::Spawn(error) => spawn_error_text(&error),
        other => other.to_string(),
    }
}

fn spawn_error_text(error: &claude_proto_tokio::SpawnError) -> String {
    match error {
        claude_proto_tokio::SpawnError::NotFound(_) => format!(
            "{error}\n\nOr install the version this repository tests against:\n    npm ci --prefix tests/peer"
        ),
        other => other.to_string(),
    }
}

/// For stand-in scripts: the prompt of the turn a request belongs to (the
/// last user message with text of its own, reminders left out) and how
/// many tool results came after it.
pub fn turn_of(request: &ApiRequest) -> (String, usize) {
    let mut results = 0;
    for message in request.messages().iter().rev() {
        if message["role"] != "user" {
            continue;
        }
        let text = match &message["content"] {
            Value::String(s) => s.clone(),
            Value::Array(blocks) => {
                results += blocks.iter().filter(|b| b["type"] == "tool_result").count();
                blocks
                    .iter()
                    .filter_map(|b| b["text"].as_str())
                    .filter(|text| !text.trim_start().starts_with('<'))
                    .collect::<Vec<_>>()
                    .join(" ")
            }
            _ => String::new(),
        };
        if !text.trim().is_empty() {
            return (text, results);
        }
    }
    (String::new(), results)
}

/// The start of the long story the side-by-side's third turn streams.
pub const STORY_START: &str = "Once upon a time,";

/// The long story, whole: 80 deltas 200 ms apart (16 s), slow enough that
/// an interrupt cuts it short.
pub fn story() -> String {
    format!(
        "{STORY_START} {}",
        "there was a story that went on and on. ".repeat(10)
    )
}

/// The model of the side-by-side (`examples/examples/side_by_side.rs`, the
/// Python one, and `tests/tests/side_by_side.rs`), one step per request by
/// the turn's prompt and the tool results seen since: `add`, `rm -rf ~`
/// (the hook denies it), `sudo reboot` (the permission callback denies it)
/// and a note (`Write`, which the callback rewrites); another note (in
/// acceptEdits mode: no callback); a story slow enough to interrupt; a
/// summary; 42. `project` is where the notes go (`Write` needs an absolute
/// path). Requests without tools (the CLI's own side questions) get a
/// plain `none`.
pub fn side_by_side_model(project: &std::path::Path, request: &ApiRequest) -> Reply {
    use serde_json::json;
    if request.tools().is_empty() {
        return Reply::text("none");
    }
    let note = |name: &str, content: &str| {
        let path = project.join(name).to_string_lossy().into_owned();
        Reply::tool_use("Write", json!({"file_path": path, "content": content}))
    };
    let (prompt, step) = turn_of(request);
    if prompt.contains("Add 2 and 3") {
        match step {
            0 => Reply::tool_use("mcp__calc__add", json!({"a": 2, "b": 3})),
            1 => Reply::tool_use(
                "Bash",
                json!({"command": "rm -rf ~", "description": "Clean up"}),
            ),
            2 => Reply::tool_use(
                "Bash",
                json!({"command": "sudo reboot", "description": "Reboot"}),
            ),
            3 => note("note.txt", "2 + 3 = 5"),
            _ => Reply::text("2 + 3 = 5, and the note is written; the rest was refused."),
        }
    } else if prompt.contains("another note") {
        match step {
            0 => note("other.txt", "written without asking"),
            _ => Reply::text("Written."),
        }
    } else if prompt.contains("long story") {
        Reply::text(story()).slowly(80, std::time::Duration::from_millis(200))
    } else if prompt.contains("What did we do") {
        Reply::text("We added 2 and 3 and wrote two notes.")
    } else if prompt.contains("6 times 7") {
        Reply::text("6 times 7 is 42.")
    } else {
        Reply::text(format!("(offline stand-in) You said: {prompt}"))
    }
}
