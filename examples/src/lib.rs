//! Shared bits of the examples: finding a CLI, deciding between online and
//! offline, and the offline setup (the real CLI against a loopback stand-in
//! for the model, with an empty temporary HOME).

use std::path::PathBuf;

use claude_proto_testkit::model_api::{ApiRequest, ModelApi};
use claude_proto_tokio::Options;
use serde_json::Value;

pub use claude_proto_testkit::model_api::Reply;

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

/// Keeps the offline setup alive: the model stand-in and the temporary
/// directory holding HOME. Dropping it stops the one and removes the other.
#[derive(Debug)]
pub struct OfflineGuard {
    server: ModelApi,
    root: PathBuf,
}

impl OfflineGuard {
    /// The stand-in's address (`http://127.0.0.1:PORT`).
    pub fn base_url(&self) -> String {
        self.server.url()
    }
}

impl Drop for OfflineGuard {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

/// Sets `options` up to run the real CLI against a loopback stand-in for
/// the Messages API that answers with `script`, with an empty temporary
/// HOME, and prints a one-line banner saying so. `name` names the temporary
/// directory. Keep the guard alive for the whole session.
pub fn offline_options(
    name: &str,
    options: Options,
    script: impl Fn(&ApiRequest) -> Reply + Send + Sync + 'static,
) -> Result<(Options, OfflineGuard), String> {
    let root = std::env::temp_dir().join(format!("claude-proto-{name}-{}", std::process::id()));
    let home = root.join("home");
    std::fs::create_dir_all(&home).map_err(|e| format!("cannot create {}: {e}", home.display()))?;
    let server = ModelApi::start_with_limit(script, 100_000)
        .map_err(|e| format!("cannot start the offline model: {e}"))?;
    println!(
        "── offline (no credentials or --offline): the real CLI, a canned model on 127.0.0.1:{}, temporary HOME",
        server.port()
    );
    let options = options
        .env("ANTHROPIC_BASE_URL", server.url())
        .env("ANTHROPIC_API_KEY", "offline-stand-in")
        .env("HOME", &home)
        .env("DISABLE_TELEMETRY", "1")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1");
    Ok((options, OfflineGuard { server, root }))
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
