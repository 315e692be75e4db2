//! The Rust side of the session benchmarks (`bench/sessions.sh`): lists
//! every session of a project, or reads one session's messages, and prints
//! the time taken and how many came back, as `bench/py/sessions_bench.py`
//! does for the Python SDK. Peak RSS is measured around the process by the
//! caller.
//!
//! `bench-sessions list PROJECT_DIR` or
//! `bench-sessions read SESSION_ID PROJECT_DIR`, with `CLAUDE_CONFIG_DIR`
//! naming the config directory (`bench/py/gen_sessions.py` writes one).

use std::process::ExitCode;
use std::time::Instant;

use claude_proto_sessions::{Page, Sessions};

const USAGE: &str = "usage: bench-sessions list PROJECT_DIR | read SESSION_ID PROJECT_DIR \
                     (CLAUDE_CONFIG_DIR set)";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(config) = std::env::var_os("CLAUDE_CONFIG_DIR").filter(|c| !c.is_empty()) else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    let start = Instant::now();
    let (what, n) = match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["list", project] => {
            let sessions = Sessions::at(config).in_project(project).without_worktrees();
            ("list", sessions.list(Page::all()).len())
        }
        ["read", session_id, project] => {
            let sessions = Sessions::at(config).in_project(project).without_worktrees();
            match sessions.messages(session_id, Page::all()) {
                Ok(messages) => ("read", messages.len()),
                Err(e) => {
                    eprintln!("bench-sessions: {e}");
                    return ExitCode::FAILURE;
                }
            }
        }
        _ => {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    println!(
        "rust {what}: {n} items in {:.3} s",
        start.elapsed().as_secs_f64()
    );
    ExitCode::SUCCESS
}
