//! `fake-claude`: a scripted stand-in for the Claude Code CLI in
//! `--input-format stream-json --output-format stream-json` mode.
//!
//! It reads NDJSON from stdin and writes NDJSON to stdout shaped like the
//! lines CLI 2.1.330 wrote in the recorded transcripts, so adapters can be
//! tested without the real CLI. It is written against the wire format
//! only (serde_json, no `claude-proto`), so an adapter cannot pass merely
//! by agreeing with its own encoder.
//!
//! Command-line arguments are accepted and ignored. The scenario comes
//! from `FAKE_CLAUDE_SCENARIO` (default `echo`); see `tests/README.md` for
//! every scenario and environment variable.
//!
//! Threads: one thread reads and parses stdin; the main thread owns stdout
//! and flushes after every line (the `flood` scenario flushes in batches).
//! A non-JSON stdin line is fatal, as for the real CLI: a message on stderr
//! and exit code 1.
//!
//! Limitation of `ignore_stdin` with `FAKE_CLAUDE_IGNORE_SIGTERM=1`: std
//! cannot install a signal handler without `unsafe`, so on Unix the process
//! `exec`s `sh -c "trap '' TERM; exec sleep 100000"` (same pid, SIGTERM
//! ignored, only SIGKILL ends it). Elsewhere it spawns that command as a
//! child, waits for it, and appends the child's pid to the pid file.

use std::io::{self, BufRead, Write};
use std::sync::mpsc;
use std::time::Duration;

#[path = "../fake/cli.rs"]
mod cli;
#[path = "../fake/ids.rs"]
mod ids;
#[path = "../fake/scenarios.rs"]
mod scenarios;
#[path = "../fake/templates.rs"]
mod templates;

use cli::{Cli, Input, Options, Wait};
use scenarios::{Kind, Scenario};
use serde_json::{Value, json};

fn main() {
    std::process::exit(run());
}

fn env_flag(name: &str) -> bool {
    matches!(
        std::env::var(name).as_deref(),
        Ok("1" | "true" | "yes" | "on")
    )
}

fn env_number(name: &str, default: u64) -> u64 {
    match std::env::var(name) {
        Ok(v) => v.trim().parse().unwrap_or_else(|_| {
            eprintln!("fake-claude: {name}={v:?} is not a number; using {default}");
            default
        }),
        Err(_) => default,
    }
}

/// Writes `FAKE_CLAUDE_RECORD_FILE` (a JSON object), if set.
fn write_record(record: &Value) {
    if let Ok(path) = std::env::var("FAKE_CLAUDE_RECORD_FILE") {
        if let Err(e) = std::fs::write(&path, format!("{record}\n")) {
            eprintln!("fake-claude: cannot write {path}: {e}");
        }
    }
}

/// Appends one pid line to `FAKE_CLAUDE_PID_FILE`, if set.
fn record_pid(pid: u32, append: bool) {
    let Ok(path) = std::env::var("FAKE_CLAUDE_PID_FILE") else {
        return;
    };
    let result = std::fs::OpenOptions::new()
        .create(true)
        .write(true)
        .append(append)
        .truncate(!append)
        .open(&path)
        .and_then(|mut f| writeln!(f, "{pid}"));
    if let Err(e) = result {
        eprintln!("fake-claude: cannot write {path}: {e}");
    }
}

/// The value after `flag` (`--flag value` or `--flag=value`).
fn flag_value(argv: &[String], flag: &str) -> Option<String> {
    let prefix = format!("{flag}=");
    argv.iter().enumerate().find_map(|(i, arg)| {
        if arg == flag {
            argv.get(i + 1).cloned()
        } else {
            arg.strip_prefix(&prefix).map(str::to_owned)
        }
    })
}

fn run() -> i32 {
    let argv: Vec<String> = std::env::args().collect();
    let name = std::env::var("FAKE_CLAUDE_SCENARIO").unwrap_or_else(|_| "echo".to_owned());
    record_pid(std::process::id(), false);
    write_record(&json!({"argv": argv, "scenario": name}));

    let Some(kind) = Kind::parse(&name) else {
        eprintln!("fake-claude: unknown FAKE_CLAUDE_SCENARIO {name:?}");
        return 64;
    };
    match kind {
        Kind::ExitMidTurn if env_flag("FAKE_CLAUDE_EXIT_BEFORE_INIT") => {
            eprintln!("startup failed");
            return 2;
        }
        Kind::IgnoreStdin => return ignore_stdin(),
        Kind::Grandchild => {
            // It inherits our stdin, stdout and stderr and outlives us.
            match std::process::Command::new("sleep").arg("1000").spawn() {
                Ok(child) => record_pid(child.id(), true),
                Err(e) => {
                    eprintln!("fake-claude: cannot spawn sleep: {e}");
                    return 1;
                }
            }
        }
        Kind::StderrFlood => {
            if let Err(e) = flood_stderr() {
                eprintln!("fake-claude: stderr: {e}");
                return 1;
            }
        }
        _ => {}
    }

    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || read_stdin(&tx));

    let options = Options {
        init_delay: env_flag("FAKE_CLAUDE_INIT_DELAY_LINES"),
        silent: kind == Kind::Silent,
        burst: env_number("FAKE_CLAUDE_BURST", 0),
        hold_mcp_status: kind == Kind::PermissionBehindEvents,
        bom: env_flag("FAKE_CLAUDE_BOM"),
        session_mirror: argv.iter().any(|a| a == "--session-mirror"),
        resume: flag_value(&argv, "--resume"),
    };
    let mut cli = Cli::new(rx, options);
    let mut scenario = Scenario::new(
        kind,
        env_number("FAKE_CLAUDE_TICKS", 500),
        Duration::from_millis(env_number("FAKE_CLAUDE_TICK_MS", 20)),
        env_number("FAKE_CLAUDE_FLOOD_COUNT", 100_000),
        (
            env_number("FAKE_CLAUDE_BIG_LINES", 6),
            usize::try_from(env_number("FAKE_CLAUDE_BIG_LINE_BYTES", 8 << 20)).unwrap_or(8 << 20),
            env_number("FAKE_CLAUDE_POLL_AFTER_LINES", 3),
        ),
    );
    let stderr_lines = env_number("FAKE_CLAUDE_STDERR_LINES", 0);
    if let Err(e) = serve(&mut cli, &mut scenario, stderr_lines) {
        // Most likely the host closed our stdout.
        eprintln!("fake-claude: {e}");
        return 1;
    }

    if kind == Kind::Cancel {
        eprintln!(
            "late answers for cancelled requests: {}",
            cli.late_answers()
        );
    }
    write_record(&json!({
        "argv": argv,
        "scenario": name,
        "config_dir": std::env::var("CLAUDE_CONFIG_DIR").ok(),
        "host_cancels": cli.host_cancels,
        "ignored_responses": cli.ignored_responses,
        "late_answers": cli.late_answers(),
    }));
    // Like the real CLI: 1 when the last turn ended in an error result.
    i32::from(cli.last_result_error)
}

/// Runs turns until stdin is closed and no user message is left.
fn serve(cli: &mut Cli, scenario: &mut Scenario, stderr_lines: u64) -> io::Result<()> {
    loop {
        if let Some(message) = cli.next_user_message() {
            for n in 0..stderr_lines {
                eprintln!("fake-claude: log line {n}");
            }
            cli.begin_turn(&message)?;
            if cli.history > 0 {
                // A resumed session says how much it remembers.
                let history = std::mem::take(&mut cli.history);
                cli.emit_text(&format!("history: {history} lines"))?;
            }
            scenario.run_turn(cli, &message)?;
            cli.end_turn()?;
            continue;
        }
        if cli.eof {
            return cli.flush();
        }
        cli.next_input(Wait::Block)?;
    }
}

/// The stdin thread: parses lines and hands them to the main thread.
fn read_stdin(tx: &mpsc::Sender<Input>) {
    let mut stdin = io::stdin().lock();
    let mut buf = Vec::new();
    loop {
        buf.clear();
        match stdin.read_until(b'\n', &mut buf) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        let line = buf.trim_ascii();
        if line.is_empty() {
            continue;
        }
        match serde_json::from_slice::<Value>(line) {
            Ok(value @ Value::Object(_)) => {
                if tx.send(Input::Line(value)).is_err() {
                    return;
                }
            }
            // Valid JSON that is not an object carries no `type`: ignored.
            Ok(_) => {}
            Err(e) => {
                eprintln!(
                    "Error parsing streaming input line (type=unknown, {} chars): SyntaxError: {e}",
                    line.len()
                );
                std::process::exit(1);
            }
        }
    }
    let _ = tx.send(Input::Eof);
}

/// `stderr_flood`: 4 MiB of log lines before anything else.
fn flood_stderr() -> io::Result<()> {
    let mut err = io::stderr().lock();
    let mut line = vec![b'x'; 1023];
    line.push(b'\n');
    for _ in 0..4096 {
        err.write_all(&line)?;
    }
    err.flush()
}

/// `ignore_stdin`: never reads stdin and never exits on its own.
fn ignore_stdin() -> i32 {
    const SCRIPT: &str = "trap '' TERM; exec sleep 100000";
    if env_flag("FAKE_CLAUDE_IGNORE_SIGTERM") {
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            // Only returns on failure.
            let e = std::process::Command::new("sh").args(["-c", SCRIPT]).exec();
            eprintln!("fake-claude: cannot exec sh: {e}");
            return 1;
        }
        #[cfg(not(unix))]
        {
            match std::process::Command::new("sh")
                .args(["-c", SCRIPT])
                .spawn()
            {
                Ok(mut child) => {
                    record_pid(child.id(), true);
                    let _ = child.wait();
                }
                Err(e) => {
                    eprintln!("fake-claude: cannot spawn sh: {e}");
                    return 1;
                }
            }
        }
    }
    loop {
        std::thread::sleep(Duration::from_secs(3600));
    }
}
