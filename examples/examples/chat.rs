//! `chat`: an interactive terminal session with Claude Code.
//!
//! ```text
//! cargo run --example chat               # real service if you have credentials, else offline
//! cargo run --example chat -- --offline  # a loopback stand-in for the model, no account needed
//! ```
//!
//! Streams the answer as it is written, shows tool calls and their results,
//! asks you y/n when the CLI asks for permission, and prints cost and usage
//! per turn. The CLI asks only for a tool its permission mode and rules do
//! not already allow: a read-only command such as `ls` runs without a
//! question. A lone `y` or `n` typed when no question is pending is not
//! sent to the model (you are told so; type it again to send it).
//! Commands: `/model NAME`, `/mode MODE` (default, acceptEdits, plan,
//! bypassPermissions), `/quit`. Ctrl-C interrupts the running turn (and
//! quits at the prompt).
//!
//! Offline, the CLI talks to a stand-in for the Messages API on 127.0.0.1
//! (from this repository's test package) with an empty temporary HOME and
//! working directory, both removed at the end: ask it to "list the files"
//! to see a tool call the CLI allows by itself, to "write a note" to get a
//! permission prompt, or to "ask me" something to get a question (the
//! model's `AskUserQuestion` tool, answered from the permission callback).

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use claude_proto::model::tools::AskUserQuestionInput;
use claude_proto_examples::chat::{Input, is_yes, read_input};
use claude_proto_examples::{base_options, offline_options, start_error, want_offline};
use claude_proto_tokio::prelude::*;
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
    let offline = want_offline(args.offline);

    // An interactive coding assistant: Claude Code's own system prompt (the
    // library's default, as the official SDKs', is an empty one).
    let mut options = base_options(args.cli.clone())
        .include_partial_messages(true)
        .claude_code_system_prompt();
    if let Some(model) = &args.model {
        options = options.model(model);
    }

    // Kept alive for the whole session.
    let mut _offline = None;
    if offline {
        let (offline_options, guard) =
            offline_options("chat", options, claude_proto_examples::chat::model)?;
        println!(
            "   Answers are canned; tools and permissions are real. Try \"list the files\" (runs without asking) or \"write a note\" (asks permission)."
        );
        options = offline_options;
        _offline = Some(guard);
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
        .map_err(start_error)?;

    let init = claude
        .initialization()
        .await
        .map_err(|e| format!("the CLI did not start: {e}"))?;
    println!(
        "Claude Code {} · {} models · type /quit to leave, Ctrl-C to interrupt a turn\n",
        init.claude_code_version.as_deref().unwrap_or("?"),
        init.models.len()
    );

    // A lone y/n typed with no question pending, held back once.
    let mut held: Option<String> = None;
    loop {
        print!("> ");
        let _ = std::io::stdout().flush();
        let line = tokio::select! {
            line = async { lines.lock().await.recv().await } => line,
            _ = tokio::signal::ctrl_c() => None,
        };
        let Some(line) = line else { break };
        let input = read_input(&line, held.as_deref());
        held = None;
        match input {
            Input::Nothing => continue,
            Input::Quit => break,
            Input::StrayAnswer(answer) => {
                println!(
                    "No permission question is pending, so {answer:?} was not sent to the model: \
                     the CLI asks only for tools its permission mode and rules do not already \
                     allow (a read-only command such as `ls` runs without asking). Type it again \
                     to send it anyway."
                );
                held = Some(answer.to_owned());
            }
            Input::Model(name) => {
                let switched = if name.is_empty() {
                    claude.reset_model().await
                } else {
                    claude.set_model(name).await
                };
                match switched {
                    Ok(()) if name.is_empty() => println!("model: default"),
                    Ok(()) => println!("model: {name}"),
                    Err(e) => println!("could not switch model: {e}"),
                }
            }
            Input::Mode(mode) => match claude.set_permission_mode(PermissionMode::from(mode)).await
            {
                Ok(()) => println!("permission mode: {mode}"),
                Err(e) => println!("could not switch mode: {e}"),
            },
            Input::UnknownCommand => println!("commands: /model NAME, /mode MODE, /quit"),
            Input::Prompt(prompt) => run_turn(&mut claude, prompt).await?,
        }
    }

    match claude.close().await {
        Ok(Some(report)) if !report.success() => println!("\n{report}"),
        Ok(_) => println!("bye"),
        Err(e) => println!("closing failed: {e}"),
    }
    Ok(())
}

/// Sends one prompt and prints the turn as it streams. Ctrl-C meanwhile
/// interrupts it through a [`Controller`](claude_proto_tokio::Controller)
/// held by a task of its own, while this one keeps reading the turn.
async fn run_turn(claude: &mut Claude, prompt: &str) -> Result<(), String> {
    let controller = claude.controller();
    let interrupter = tokio::spawn(async move {
        while tokio::signal::ctrl_c().await.is_ok() {
            match controller.interrupt().await {
                Ok(_) => println!("\n[interrupting…]"),
                Err(e) => println!("\n[interrupt failed: {e}]"),
            }
        }
    });
    let result = print_turn(claude, prompt).await;
    interrupter.abort();
    result
}

/// Prints the turn as it streams: its text, each tool call and result,
/// warnings, and a line about the result with the turn's own cost.
async fn print_turn(claude: &mut Claude, prompt: &str) -> Result<(), String> {
    let mut turn = claude.query(prompt).await.map_err(|e| e.to_string())?;
    let mut streamed_text = false;
    while let Some(item) = turn.next_item().await {
        match item {
            TurnItem::TextDelta(text) => {
                print!("{text}");
                let _ = std::io::stdout().flush();
                streamed_text = true;
            }
            // Partial messages were off or lost: print the whole block.
            TurnItem::Text(text) if !streamed_text => print!("{text}"),
            TurnItem::ToolUse(tool) => println!("\n[tool] {} {}", tool.name, tool.input),
            TurnItem::ToolResult(result) => {
                let text = result.text();
                let first = text.lines().next().unwrap_or("");
                let more = match text.lines().count().saturating_sub(1) {
                    0 => String::new(),
                    more => format!(" … (+{more} lines)"),
                };
                let error = if result.is_error() { " (error)" } else { "" };
                println!("[result{error}] {first}{more}");
            }
            TurnItem::Other(Event::ProtocolError(e)) => eprintln!("\n[warning: {e}]"),
            TurnItem::Other(Event::HandlerFailed { subtype, message }) => {
                eprintln!("\n[{subtype} handler failed: {message}]");
            }
            _ => {}
        }
    }
    // The turn ended at its `result`, or the session ended first.
    let turn = turn.finish().await.map_err(|e| e.to_string())?;
    if let Some(error) = turn.error_message() {
        println!("\n[turn failed: {error}]");
    }
    let result = &turn.result;
    println!(
        "\n── {} · {} turns · {:.1}s · ${:.4} (session ${:.4}) · {} in / {} out tokens",
        result.subtype,
        result.num_turns,
        Duration::from_millis(result.duration_ms).as_secs_f64(),
        turn.cost_usd(),
        turn.total_cost_usd(),
        result.usage.uncached_input_tokens(),
        result.usage.generated_tokens(),
    );
    Ok(())
}

/// Shows the tool call and asks y/n on the terminal.
async fn ask_permission(ask: CanUseTool, lines: Lines) -> Result<PermissionResult, HandlerError> {
    // The model asking you questions comes as a permission prompt too: the
    // answers go back in the tool's input.
    if let ToolInput::AskUserQuestion(questions) = ask.typed_input() {
        return Ok(answer_questions(questions, &lines).await);
    }
    let what = ask.display_name.as_deref().unwrap_or(&ask.tool_name);
    println!("\n[permission] {what} wants to run with {}", ask.input);
    print!("allow? [y/N] ");
    let _ = std::io::stdout().flush();
    let answer = lines.lock().await.recv().await.unwrap_or_default();
    Ok(if is_yes(&answer) {
        PermissionResult::allow()
    } else {
        PermissionResult::deny("The user declined this tool call.")
    })
}

/// Shows each question with its options and reads a number or free text.
async fn answer_questions(ask: AskUserQuestionInput, lines: &Lines) -> PermissionResult {
    let mut answers = Vec::new();
    for question in &ask.questions {
        println!("\n[question] {}", question.question);
        for (n, option) in question.options().iter().enumerate() {
            println!("  {}. {}", n + 1, option.label);
        }
        print!("answer (a number or your own words): ");
        let _ = std::io::stdout().flush();
        let line = lines.lock().await.recv().await.unwrap_or_default();
        let line = line.trim();
        let chosen = line
            .parse::<usize>()
            .ok()
            .and_then(|n| question.options().get(n.checked_sub(1)?));
        let answer = chosen.map_or_else(|| line.to_owned(), |option| option.label.clone());
        answers.push((question.question.clone(), answer));
    }
    ask.answer(answers)
}
