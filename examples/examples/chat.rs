//! `chat`: an interactive terminal session with Claude Code.
//!
//! ```text
//! cargo run --example chat               # real service if you have credentials, else offline
//! cargo run --example chat -- --offline  # a loopback stand-in for the model, no account needed
//! ```
//!
//! Streams the answer as it is written, shows tool calls and their results,
//! asks you y/n before any tool runs, and prints cost and usage per turn.
//! Commands: `/model NAME`, `/mode MODE` (default, acceptEdits, plan,
//! bypassPermissions), `/quit`. Ctrl-C interrupts the running turn (and
//! quits at the prompt).
//!
//! Offline, the CLI talks to a stand-in for the Messages API on 127.0.0.1
//! (from this repository's test package) with an empty temporary HOME: ask
//! it to "list the files" to see a tool call, or to "write a note" to get a
//! permission prompt.

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use claude_proto::model::incoming::CanUseTool;
use claude_proto::model::permission::{PermissionMode, PermissionResult};
use claude_proto::model::stdout::StdoutMessage;
use claude_proto_examples::{has_credentials, repo_cli};
use claude_proto_tests::model_server::{ApiRequest, ModelServer, Reply};
use claude_proto_tokio::{Claude, Error, Event, HandlerError, Options};
use serde_json::json;
use tokio::io::AsyncBufReadExt;
use tokio::sync::{Mutex, mpsc};

type Lines = Arc<Mutex<mpsc::Receiver<String>>>;

struct Args {
    offline: Option<bool>,
    model: Option<String>,
    cli: Option<PathBuf>,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        offline: None,
        model: None,
        cli: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--offline" => args.offline = Some(true),
            "--online" => args.offline = Some(false),
            "--model" => args.model = Some(it.next().ok_or("--model needs a value")?),
            "--cli" => args.cli = Some(it.next().ok_or("--cli needs a path")?.into()),
            "-h" | "--help" => {
                println!(
                    "usage: chat [--offline | --online] [--model NAME] [--cli PATH]\n\
                     Without --offline or --online: online if credentials are found, else offline."
                );
                std::process::exit(0);
            }
            other => return Err(format!("unknown argument {other:?} (try --help)")),
        }
    }
    Ok(args)
}

#[tokio::main]
async fn main() -> ExitCode {
    match run().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("\nchat: {message}");
            ExitCode::FAILURE
        }
    }
}

async fn run() -> Result<(), String> {
    let args = parse_args()?;
    let offline = args.offline.unwrap_or_else(|| !has_credentials());

    let mut options = Options::default().include_partial_messages(true);
    if let Some(model) = &args.model {
        options = options.model(model);
    }
    if let Some(cli) = args.cli.clone().or_else(|| {
        // Prefer CLAUDE_BIN and the usual places; the repository's own
        // pinned install is the fallback for a fresh clone.
        std::env::var_os("CLAUDE_BIN")
            .is_none()
            .then(repo_cli)
            .flatten()
    }) {
        options = options.cli_path(cli);
    }

    // Kept alive for the whole session.
    let mut _offline_model = None;
    let mut _offline_home = None;
    if offline {
        let home = std::env::temp_dir().join(format!("claude-proto-chat-{}", std::process::id()));
        std::fs::create_dir_all(&home)
            .map_err(|e| format!("cannot create {}: {e}", home.display()))?;
        let server = ModelServer::start_with_limit(offline_model, 100_000)
            .map_err(|e| format!("cannot start the offline model: {e}"))?;
        println!(
            "── offline mode ─────────────────────────────────────────────────────\n\
             No credentials found (or --offline): the real Claude Code CLI runs\n\
             against a stand-in for the model on {}, with an empty\n\
             temporary HOME. Answers are canned; tools and permissions are real.\n\
             Try \"list the files\" or \"write a note\" (asks permission).\n\
             ─────────────────────────────────────────────────────────────────────",
            server.base_url()
        );
        options = options
            .env("ANTHROPIC_BASE_URL", server.base_url())
            .env("ANTHROPIC_API_KEY", "offline-stand-in")
            .env("HOME", &home)
            .env("DISABLE_TELEMETRY", "1")
            .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1");
        _offline_model = Some(server);
        _offline_home = Some(TempDir(home));
    }

    // One reader of stdin; the prompt loop and the permission prompts take
    // turns on it (a permission prompt only comes while a turn runs).
    let (line_tx, line_rx) = mpsc::channel::<String>(16);
    tokio::spawn(async move {
        let mut stdin = tokio::io::BufReader::new(tokio::io::stdin()).lines();
        while let Ok(Some(line)) = stdin.next_line().await {
            if line_tx.send(line).await.is_err() {
                break;
            }
        }
    });
    let lines: Lines = Arc::new(Mutex::new(line_rx));

    let ask_lines = lines.clone();
    let mut claude = Claude::builder(options)
        .on_permission(move |ask| ask_permission(ask, ask_lines.clone()))
        .spawn()
        .await
        .map_err(|e| match e {
            Error::NotFound(_) => format!(
                "{e}\n\nOr install the version this repository tests against:\n    npm ci --prefix tests/peer"
            ),
            other => other.to_string(),
        })?;

    let init = claude
        .initialization()
        .await
        .map_err(|e| format!("the CLI did not start: {e}"))?;
    println!(
        "Claude Code {} · {} models · type /quit to leave, Ctrl-C to interrupt a turn\n",
        init.claude_code_version.as_deref().unwrap_or("?"),
        init.models.len()
    );

    loop {
        print!("> ");
        let _ = std::io::stdout().flush();
        let line = tokio::select! {
            line = async { lines.lock().await.recv().await } => line,
            _ = tokio::signal::ctrl_c() => None,
        };
        let Some(line) = line else { break };
        let line = line.trim();
        match line.split_once(' ').unwrap_or((line, "")) {
            ("", _) => continue,
            ("/quit" | "/exit", _) => break,
            ("/model", name) => {
                let name = name.trim();
                let model = (!name.is_empty()).then_some(name);
                match claude.set_model(model).await {
                    Ok(()) => println!("model: {}", model.unwrap_or("default")),
                    Err(e) => println!("could not switch model: {e}"),
                }
            }
            ("/mode", mode) => match claude
                .set_permission_mode(PermissionMode::from(mode.trim()))
                .await
            {
                Ok(()) => println!("permission mode: {}", mode.trim()),
                Err(e) => println!("could not switch mode: {e}"),
            },
            (command, _) if command.starts_with('/') => {
                println!("commands: /model NAME, /mode MODE, /quit");
            }
            _ => run_turn(&mut claude, line).await?,
        }
    }

    match claude.close().await {
        Ok(Some(report)) if !report.success() => println!("\n{report}"),
        Ok(_) => println!("bye"),
        Err(e) => println!("closing failed: {e}"),
    }
    Ok(())
}

/// Sends one prompt and prints the turn as it streams.
async fn run_turn(claude: &mut Claude, prompt: &str) -> Result<(), String> {
    claude.send_text(prompt).await.map_err(|e| e.to_string())?;
    let mut streamed_text = false;
    loop {
        let event = tokio::select! {
            event = claude.next_event() => event,
            _ = tokio::signal::ctrl_c() => {
                match claude.interrupt().await {
                    Ok(_) => println!("\n[interrupting…]"),
                    Err(e) => println!("\n[interrupt failed: {e}]"),
                }
                continue;
            }
        };
        let Some(event) = event else {
            return Err("the CLI's output ended".into());
        };
        let message = match event {
            Event::Message(message) => message,
            Event::ProtocolError(e) => {
                eprintln!("\n[warning: {e}]");
                continue;
            }
            Event::HandlerFailed { subtype, message } => {
                eprintln!("\n[{subtype} handler failed: {message}]");
                continue;
            }
            _ => continue,
        };
        match message.parse().map_err(|e| e.to_string())? {
            StdoutMessage::StreamEvent(stream) => {
                if let Some(text) = stream.event.text_delta() {
                    print!("{text}");
                    let _ = std::io::stdout().flush();
                    streamed_text = true;
                }
            }
            StdoutMessage::Assistant(assistant) => {
                if !streamed_text {
                    // Partial messages were off or lost: print the block.
                    let text = assistant.message.text();
                    if !text.is_empty() {
                        print!("{text}");
                    }
                }
                for tool in assistant.message.tool_uses() {
                    println!("\n[tool] {} {}", tool.name, tool.input);
                }
            }
            StdoutMessage::User(user) => {
                for result in user.tool_results() {
                    let text = result
                        .content
                        .as_ref()
                        .map(|c| c.text())
                        .unwrap_or_default();
                    let first = text.lines().next().unwrap_or("");
                    let more = text.lines().count().saturating_sub(1);
                    let error = if result.is_error == Some(true) {
                        " (error)"
                    } else {
                        ""
                    };
                    println!(
                        "[result{error}] {first}{}",
                        if more > 0 {
                            format!(" … (+{more} lines)")
                        } else {
                            String::new()
                        }
                    );
                }
            }
            StdoutMessage::Result(result) => {
                if let Some(error) = result.error_message().filter(|_| result.is_error) {
                    println!("\n[turn failed: {error}]");
                }
                println!(
                    "\n── {} · {} turns · {:.1}s · ${:.4} · {} in / {} out tokens",
                    result.subtype,
                    result.num_turns,
                    Duration::from_millis(result.duration_ms).as_secs_f64(),
                    result.cost_usd(),
                    result.usage.input_tokens,
                    result.usage.output_tokens,
                );
                return Ok(());
            }
            _ => {}
        }
    }
}

/// Shows the tool call and asks y/n on the terminal.
async fn ask_permission(ask: CanUseTool, lines: Lines) -> Result<PermissionResult, HandlerError> {
    let what = ask.display_name.as_deref().unwrap_or(&ask.tool_name);
    println!("\n[permission] {what} wants to run with {}", ask.input);
    print!("allow? [y/N] ");
    let _ = std::io::stdout().flush();
    let answer = lines.lock().await.recv().await.unwrap_or_default();
    Ok(if matches!(answer.trim(), "y" | "Y" | "yes") {
        PermissionResult::allow()
    } else {
        PermissionResult::deny("The user declined this tool call.")
    })
}

/// The offline stand-in's script: lists files when asked, else chats.
fn offline_model(request: &ApiRequest) -> Reply {
    // The CLI appends system messages (environment, reminders) after the
    // user's: look at the last user message only.
    let Some(last_user) = request
        .messages()
        .iter()
        .rev()
        .find(|m| m["role"] == "user")
    else {
        return Reply::text("(offline stand-in) I received no user message.");
    };
    let blocks = last_user["content"].as_array().cloned().unwrap_or_default();
    if blocks.iter().any(|b| b["type"] == "tool_result") {
        return Reply::text("Done: that is what the tool returned. (offline stand-in)")
            .slowly(6, Duration::from_millis(40));
    }
    // The user's words; system reminders come as text blocks starting
    // with a tag.
    let prompt = match &last_user["content"] {
        serde_json::Value::String(s) => s.clone(),
        _ => blocks
            .iter()
            .filter_map(|b| b["text"].as_str())
            .filter(|text| !text.trim_start().starts_with('<'))
            .collect::<Vec<_>>()
            .join(" "),
    };
    let lower = prompt.to_lowercase();
    if lower.contains("note") {
        Reply::tool_use(
            "Bash",
            json!({"command": "echo 'hello from the offline stand-in' > offline-note.txt",
                   "description": "Write a note"}),
        )
        .with_text("I will write a note into offline-note.txt.")
    } else if lower.contains("file") || lower.contains(" ls") || lower.starts_with("ls") {
        Reply::tool_use(
            "Bash",
            json!({"command": "ls -la", "description": "List the files"}),
        )
        .with_text("Let me look at the files here.")
    } else {
        Reply::text(format!(
            "This is the offline stand-in for the model, so I can only echo: \"{}\". \
             Ask me to list the files (a tool call) or to write a note (a permission prompt).",
            prompt.trim()
        ))
        .slowly(12, Duration::from_millis(40))
    }
}

/// Removes the offline HOME at the end.
struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
