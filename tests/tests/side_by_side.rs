//! The side-by-side of `docs/compared-with-sdks.md`: the same agent written
//! with this crate (`examples/examples/side_by_side.rs`) and with the
//! official Python SDK (`examples/py/side_by_side.py`), both run here
//! against the real CLI.
//!
//! Each program runs as its own process, as a user would run it, against
//! the pinned CLI (`CLAUDE_BIN`, else `tests/peer`) and a loopback
//! [`ModelApi`](claude_proto_testkit::ModelApi) playing one scripted model
//! (`claude_proto_examples::side_by_side_model`), with a fresh `HOME`,
//! working directory and `TMPDIR` and nothing inherited but `PATH`. In the
//! first turn the model calls the in-process `add` tool, asks for
//! `rm -rf ~` (the hook denies it), for `sudo reboot` (the permission
//! callback denies it) and writes a note (the callback rewrites it); the
//! program switches the model and the permission mode; in the second turn
//! the model writes another note (acceptEdits: no callback); the third
//! streams a slow story, and once the program has printed its start the
//! test sends it SIGINT, as Ctrl-C would; the program's Ctrl-C task
//! interrupts the turn. Then the program resumes the session in a new CLI
//! process and asks what was done, and asks a one-shot question. Checked
//! for both: what reached the model, the files written, the model each
//! request named, the resumed history, what was printed, a normal exit.
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
use std::time::Instant;

use claude_proto_examples::{STORY_START, side_by_side_model, story, turn_of};
use claude_proto_testkit::model_api::{ApiRequest, ModelApi};
use claude_proto_tests::python::{python, root};
use claude_proto_tests::real_cli::{TempDir, WAIT, real_cli};
use serde_json::Value;

const BEGIN: &str = "side-by-side: begin";
const END: &str = "side-by-side: end";

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
    /// Every `POST /v1/messages` the model got, in order.
    requests: Vec<ApiRequest>,
    /// The program's working directory, where the notes go.
    project: PathBuf,
    _dir: TempDir,
}

/// Runs `command` offline against the real CLI and the scripted model,
/// sends it SIGINT once it has printed the start of the story, and waits
/// for it to exit.
fn run(cli: &Path, mut command: Command) -> Run {
    let dir = TempDir::new().unwrap();
    for sub in ["home", "project", "tmp"] {
        std::fs::create_dir_all(dir.path().join(sub)).unwrap();
    }
    let project = dir.path().join("project");
    let notes = project.clone();
    let server =
        ModelApi::start(move |request: &ApiRequest| side_by_side_model(&notes, request)).unwrap();
    command
        .current_dir(&project)
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

    // Ctrl-C once the story is streaming.
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
        if !interrupted && String::from_utf8_lossy(&stdout).contains(STORY_START) {
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
        "the story never started streaming\nstdout: {stdout}\nstderr: {stderr}"
    );
    Run {
        status,
        stdout,
        stderr,
        requests: server.messages_requests(),
        project,
        _dir: dir,
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

/// The main loop's requests of the turn whose prompt contains `prompt`
/// (the CLI's side questions, without tools, left out).
fn turn<'a>(run: &'a Run, prompt: &str) -> Vec<&'a ApiRequest> {
    run.requests
        .iter()
        .filter(|r| !r.tools().is_empty() && turn_of(r).0.contains(prompt))
        .collect()
}

/// What both programs must have done.
fn check(program: &str, run: &Run) {
    let context = format!(
        "{program}\nstatus: {}\nstdout: {}\nstderr: {}",
        run.status, run.stdout, run.stderr
    );
    // Turn 1: the tool ran, the hook and the callback each denied a
    // command, the callback rewrote the note.
    let first = turn(run, "Add 2 and 3");
    let results = first
        .last()
        .expect("turn 1 reached the model")
        .tool_results();
    assert_eq!(results.len(), 4, "{context}\nresults: {results:?}");
    let (sum, rm, sudo, note) = (results[0], results[1], results[2], results[3]);
    assert_ne!(sum["is_error"], true, "{context}\n{sum}");
    assert!(result_text(sum).trim().starts_with('5'), "{context}\n{sum}");
    assert_eq!(rm["is_error"], true, "{context}\n{rm}");
    assert!(
        result_text(rm).contains("destructive command"),
        "{context}\n{rm}"
    );
    assert_eq!(sudo["is_error"], true, "{context}\n{sudo}");
    assert!(
        result_text(sudo).contains("no sudo here"),
        "{context}\n{sudo}"
    );
    assert_ne!(note["is_error"], true, "{context}\n{note}");
    let written = std::fs::read_to_string(run.project.join("note.txt")).unwrap_or_default();
    assert_eq!(written, "[reviewed] 2 + 3 = 5", "{context}");
    // Between the turns: the model and the mode switched. In acceptEdits the
    // CLI writes without asking, so the callback did not rewrite the note.
    assert!(
        first.iter().all(|r| r.model() != Some("claude-haiku-4-5")),
        "{context}"
    );
    let second = turn(run, "another note");
    assert!(!second.is_empty(), "{context}");
    for request in &second {
        assert_eq!(request.model(), Some("claude-haiku-4-5"), "{context}");
    }
    let other = std::fs::read_to_string(run.project.join("other.txt")).unwrap_or_default();
    assert_eq!(other, "written without asking", "{context}");
    // Turn 3: the story streamed and Ctrl-C cut it short.
    assert_eq!(turn(run, "long story").len(), 1, "{context}");
    assert!(run.stdout.contains(STORY_START), "{context}");
    assert!(!run.stdout.contains(story().trim_end()), "{context}");
    // The resumed session's CLI sent the whole history.
    let resumed = turn(run, "What did we do");
    let resumed = resumed.first().expect("the resumed turn reached the model");
    assert!(resumed.all_text().contains("Add 2 and 3"), "{context}");
    assert!(
        run.stdout.contains("We added 2 and 3 and wrote two notes."),
        "{context}"
    );
    // The one-shot's answer, and each turn's cost.
    assert!(run.stdout.contains("6 times 7 is 42."), "{context}");
    assert_eq!(run.stdout.matches("[cost] $").count(), 4, "{context}");
    assert!(
        run.status.success(),
        "the program did not exit normally: {context}"
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
    let (rust_lines, python_lines) = (count(&rust, "//"), count(&python, "#"));
    let rust_says = format!("Rust: {rust_lines} lines");
    let python_says = format!("Python: {python_lines} lines");
    assert!(
        page.contains(&rust_says) && page.contains(&python_says),
        "the line counts in docs/compared-with-sdks.md are stale; they are now \"{rust_says}\" and \"{python_says}\""
    );
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let readme_says = format!("{rust_lines} lines of Rust against {python_lines} of Python");
    assert!(
        readme.contains(&readme_says),
        "the README's line counts are stale; they are now \"{readme_says}\""
    );
    // The issue's bound: the Rust program at most 10% longer than Python's.
    assert!(
        rust_lines * 10 <= python_lines * 11,
        "the Rust program ({rust_lines} lines) is more than 10% longer than the Python one ({python_lines})"
    );
}
