//! The side-by-side of `docs/compared-with-sdks.md`: the same job written with this crate
//! (`examples/examples/side_by_side.rs`) and with the official Python SDK
//! (`examples/py/side_by_side.py`), both run here against the real CLI.
//!
//! Each program runs as its own process, as a user would run it, against
//! the pinned CLI (`CLAUDE_BIN`, else `tests/peer`) and a loopback
//! [`ModelApi`](claude_proto_testkit::ModelApi), with a fresh `HOME`, working directory and `TMPDIR`
//! and nothing inherited but `PATH`. The model calls the in-process `add`
//! tool (the permission callback allows it), asks for `rm -rf ~` (the hook
//! denies it), asks for `Write` (the permission callback denies it), then
//! streams a slow answer; once the program has printed the start of it,
//! the test sends it SIGINT, as Ctrl-C would, and the program's Ctrl-C
//! task interrupts the turn. Checked for both: what reached the model in
//! its last request, the text printed as it streamed, the interrupt (the
//! rest of the answer never printed, the program exited normally).
//!
//! The Rust program is built with `cargo build --example side_by_side`
//! (up to date after `cargo test --workspace`, which builds examples). The
//! Python one runs with `SIDE_BY_SIDE_PYTHON` (a Python with the SDK of
//! `examples/py/requirements.txt`; `.ci/run` makes one), else
//! `target/side-by-side-venv` or `target/bench-venv`. Without the CLI, or
//! without Python and the pinned SDK, a test says it was skipped and
//! passes, except under CI (`CI` set), where it fails.
//!
//! A third test checks that `docs/compared-with-sdks.md` quotes both
//! programs' marked portions exactly and states their line counts correctly.
#![allow(clippy::unwrap_used)] // test helpers fail loudly by design

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use claude_proto_testkit::model_api::{ApiRequest, ModelApi, Reply};
use claude_proto_tests::python::{python, root};
use claude_proto_tests::real_cli::{TempDir, WAIT, real_cli};
use serde_json::{Value, json};

const BEGIN: &str = "side-by-side: begin";
const END: &str = "side-by-side: end";

/// The last answer, streamed slowly enough to be interrupted: 80 deltas,
/// 200 ms apart (16 s in all; the interrupt lands within a second or two).
const ANSWER_START: &str = "2 + 3 = 5.";
fn answer() -> String {
    format!(
        "{ANSWER_START} I did not clean up your home directory or write the note: both were refused. {}",
        "Here is more text that should never be printed. ".repeat(8)
    )
}

/// The model: one step per request, by how many tool results it has seen.
fn script(request: &ApiRequest) -> Reply {
    match request.tool_results().len() {
        0 => Reply::tool_use("mcp__calc__add", json!({"a": 2, "b": 3})),
        1 => Reply::tool_use(
            "Bash",
            json!({"command": "rm -rf ~", "description": "Clean up the home directory"}),
        ),
        2 => Reply::tool_use(
            "Write",
            json!({"file_path": "note.txt", "content": "cleaned up"}),
        ),
        _ => Reply::text(answer()).slowly(80, Duration::from_millis(200)),
    }
}

// ----- the two programs -------------------------------------------------------

/// Builds the example and returns its executable.
fn rust_program() -> PathBuf {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(cargo)
        .current_dir(root())
        .args([
            "build",
            "--quiet",
            // The whole workspace, for the features `cargo test --workspace`
            // builds with: the example it built is then up to date.
            "--workspace",
            "--example",
            "side_by_side",
            "--message-format=json-render-diagnostics",
        ])
        .stderr(Stdio::inherit())
        .output()
        .expect("cargo runs");
    assert!(
        output.status.success(),
        "building the example failed: {}",
        output.status
    );
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|m| m["reason"] == "compiler-artifact" && m["target"]["name"] == "side_by_side")
        .find_map(|m| m["executable"].as_str().map(PathBuf::from))
        .expect("cargo names the example's executable")
}

// ----- one run ------------------------------------------------------------------

struct Run {
    status: ExitStatus,
    stdout: String,
    stderr: String,
    /// The last `POST /v1/messages` the model got.
    last_request: ApiRequest,
    messages_requests: usize,
}

/// Runs `command` offline against the real CLI and the scripted model,
/// sends it SIGINT once it has printed the start of the answer, and waits
/// for it to exit.
fn run(cli: &Path, mut command: Command) -> Run {
    let dir = TempDir::new().unwrap();
    for sub in ["home", "project", "tmp"] {
        std::fs::create_dir_all(dir.path().join(sub)).unwrap();
    }
    let server = ModelApi::start(script).unwrap();
    command
        .current_dir(dir.path().join("project"))
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("LANG", "C.UTF-8")
        .env("HOME", dir.path().join("home"))
        .env("TMPDIR", dir.path().join("tmp"))
        .env("CLAUDE_BIN", cli)
        .env("ANTHROPIC_BASE_URL", server.url())
        .env("ANTHROPIC_API_KEY", "dummy")
        .env("DISABLE_TELEMETRY", "1")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command.spawn().unwrap();
    let pid = child.id();

    let mut stdout_pipe = child.stdout.take().unwrap();
    let (chunks, chunk) = mpsc::channel::<Vec<u8>>();
    let reader = std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n @ 1..) = stdout_pipe.read(&mut buf) {
            if chunks.send(buf[..n].to_vec()).is_err() {
                break;
            }
        }
    });
    let mut stderr_pipe = child.stderr.take().unwrap();
    let stderr = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr_pipe.read_to_string(&mut text);
        text
    });

    // Ctrl-C once the answer is streaming.
    let deadline = Instant::now() + WAIT;
    let mut stdout = Vec::new();
    let mut interrupted = false;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match chunk.recv_timeout(left) {
            Ok(bytes) => stdout.extend_from_slice(&bytes),
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                let _ = child.kill();
                break;
            }
        }
        if !interrupted && String::from_utf8_lossy(&stdout).contains(ANSWER_START) {
            let sent = Command::new("kill")
                .args(["-INT", &pid.to_string()])
                .status()
                .unwrap();
            assert!(sent.success(), "kill -INT {pid}: {sent}");
            interrupted = true;
        }
    }
    reader.join().unwrap();
    let status = child.wait().unwrap();
    let stdout = String::from_utf8_lossy(&stdout).into_owned();
    let stderr = stderr.join().unwrap();
    assert!(
        interrupted,
        "the answer never started streaming\nstdout: {stdout}\nstderr: {stderr}"
    );
    let requests = server.messages_requests();
    Run {
        status,
        stdout,
        stderr,
        last_request: requests.last().cloned().expect("the model was asked"),
        messages_requests: requests.len(),
    }
}

/// The text of a `tool_result` block.
fn result_text(block: &Value) -> String {
    match &block["content"] {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| p["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// What both programs must have done.
fn check(program: &str, run: &Run) {
    let context = format!(
        "{program}\nstatus: {}\nstdout: {}\nstderr: {}",
        run.status, run.stdout, run.stderr
    );
    let results = run.last_request.tool_results();
    assert_eq!(results.len(), 3, "{context}\nresults: {results:?}");
    let (sum, bash, write) = (results[0], results[1], results[2]);
    // The in-process tool was allowed and ran; its result reached the model.
    assert_ne!(sum["is_error"], true, "{context}\n{sum}");
    assert!(result_text(sum).trim().starts_with('5'), "{context}\n{sum}");
    // The hook denied the Bash call.
    assert_eq!(bash["is_error"], true, "{context}\n{bash}");
    assert!(
        result_text(bash).contains("destructive command"),
        "{context}\n{bash}"
    );
    // The permission callback denied Write.
    assert_eq!(write["is_error"], true, "{context}\n{write}");
    assert!(
        result_text(write).contains("Write is not allowed here"),
        "{context}\n{write}"
    );
    // The answer was printed as it streamed, and the interrupt cut it short:
    // no further request, the rest never printed, a normal exit.
    assert_eq!(run.messages_requests, 4, "{context}");
    assert!(run.stdout.contains(ANSWER_START), "{context}");
    assert!(!run.stdout.contains(answer().trim_end()), "{context}");
    assert!(
        run.status.success(),
        "the program did not exit normally after Ctrl-C: {context}"
    );
}

#[test]
fn the_rust_program_does_the_job() {
    let Some(cli) = real_cli() else { return };
    let program = rust_program();
    let run = run(&cli, Command::new(&program));
    check("the Rust program", &run);
}

#[test]
fn the_python_program_does_the_job() {
    let Some(cli) = real_cli() else { return };
    let Some(python) = python() else { return };
    let mut command = Command::new(python);
    command.arg(root().join("examples/py/side_by_side.py"));
    let run = run(&cli, command);
    check("the Python program", &run);
}

// ----- docs/compared-with-sdks.md ------------------------------------------------

/// The lines strictly between the markers, as written.
fn portion(path: &str) -> String {
    let text = std::fs::read_to_string(root().join(path)).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let begin = lines.iter().position(|l| l.contains(BEGIN)).unwrap();
    let end = lines.iter().position(|l| l.contains(END)).unwrap();
    lines[begin + 1..end]
        .iter()
        .map(|line| format!("{line}\n"))
        .collect()
}

/// Lines that are neither blank nor only a comment.
fn count(portion: &str, comment: &str) -> usize {
    portion
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with(comment))
        .count()
}

#[test]
fn the_comparison_page_quotes_both_programs_and_counts_their_lines() {
    let page = std::fs::read_to_string(root().join("docs/compared-with-sdks.md")).unwrap();
    let rust = portion("examples/examples/side_by_side.rs");
    let python = portion("examples/py/side_by_side.py");
    assert!(
        page.contains(&format!("```rust,ignore\n{rust}```\n")),
        "docs/compared-with-sdks.md does not quote examples/examples/side_by_side.rs as it is; paste in:\n{rust}"
    );
    assert!(
        page.contains(&format!("```python\n{python}```\n")),
        "docs/compared-with-sdks.md does not quote examples/py/side_by_side.py as it is; paste in:\n{python}"
    );
    let rust_says = format!("Rust: {} lines", count(&rust, "//"));
    let python_says = format!("Python: {} lines", count(&python, "#"));
    assert!(
        page.contains(&rust_says) && page.contains(&python_says),
        "the line counts in docs/compared-with-sdks.md are stale; they are now \"{rust_says}\" and \"{python_says}\""
    );
}
