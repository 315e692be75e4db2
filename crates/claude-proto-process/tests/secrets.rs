//! Secrets off the command line: the MCP configuration (whose servers'
//! `env` and `headers` hold tokens) and inline settings reach the CLI in
//! private files passed by path, never in its argv, and the files go when
//! the process handle goes.
#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers fail loudly by design

use std::io::{BufRead as _, BufReader};
use std::os::unix::fs::PermissionsExt as _;
use std::path::PathBuf;

use claude_proto::options::Settings;
use claude_proto_process::{Options, spawn};
use serde_json::json;

const SENTINEL: &str = "sk-sentinel-7f3a9c41d2e8";

/// A stand-in CLI: writes its arguments, one a line, to `$OUT`, says
/// `ready` on stdout, and waits for its stdin to close.
const SCRIPT: &str = r#"#!/bin/sh
printf '%s\n' "$@" > "$OUT"
echo ready
cat > /dev/null
"#;

mod common;
use common::Scratch;

fn scratch(name: &str) -> Scratch {
    Scratch::with_cli("secrets", name, SCRIPT)
}

fn value_of<'a>(args: &'a [String], flag: &str) -> &'a str {
    args.iter()
        .find_map(|a| a.strip_prefix(flag))
        .unwrap_or_else(|| panic!("no {flag} in {args:?}"))
}

#[test]
fn mcp_config_and_settings_reach_the_cli_in_private_files_never_in_argv() {
    let scratch = scratch("files");
    let out = scratch.0.join("args");
    let options = Options::default()
        .cli_path(scratch.0.join("cli.sh"))
        .env("OUT", &out)
        .mcp_config(
            json!({"mcpServers": {"db": {"command": "db-mcp", "env": {"TOKEN": SENTINEL}}}}),
        )
        .settings(Settings::Inline(json!({"env": {"API_TOKEN": SENTINEL}})));
    let mut spawned = spawn(&options).expect("the stand-in starts");
    let mut ready = String::new();
    BufReader::new(&mut spawned.stdout)
        .read_line(&mut ready)
        .unwrap();
    assert_eq!(ready.trim(), "ready");

    let cmdline = std::fs::read(format!("/proc/{}/cmdline", spawned.process.id())).unwrap();
    assert!(
        !String::from_utf8_lossy(&cmdline).contains(SENTINEL),
        "the token is in the process table"
    );
    let args: Vec<String> = std::fs::read_to_string(&out)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    let files: Vec<PathBuf> = ["--mcp-config=", "--settings="]
        .iter()
        .map(|flag| PathBuf::from(value_of(&args, flag)))
        .collect();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        assert!(
            text.contains(SENTINEL),
            "the CLI gets the secret through the file"
        );
        assert_eq!(
            std::fs::metadata(file).unwrap().permissions().mode() & 0o777,
            0o600
        );
        let dir = file.parent().unwrap();
        assert_eq!(
            std::fs::metadata(dir).unwrap().permissions().mode() & 0o777,
            0o700
        );
    }
    let debug = format!("{options:?}");
    assert!(!debug.contains(SENTINEL), "Debug shows the secret: {debug}");

    drop(spawned);
    for file in &files {
        assert!(!file.exists(), "{} outlived the session", file.display());
        assert!(!file.parent().unwrap().exists());
    }
}

#[test]
fn a_settings_file_and_a_wrapped_cli_keep_their_arguments() {
    let scratch = scratch("kept");
    let out = scratch.0.join("args");
    // A settings file is passed as it is: nothing secret in its path.
    let options = Options::default()
        .cli_path(scratch.0.join("cli.sh"))
        .env("OUT", &out)
        .settings(Settings::Path("/etc/claude/settings.json".into()));
    let mut spawned = spawn(&options).expect("the stand-in starts");
    let mut ready = String::new();
    BufReader::new(&mut spawned.stdout)
        .read_line(&mut ready)
        .unwrap();
    let args: Vec<String> = std::fs::read_to_string(&out)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    assert_eq!(value_of(&args, "--settings="), "/etc/claude/settings.json");
    drop(spawned);

    // Behind a wrapper the CLI may run where our files are not: inline.
    let launch = claude_proto_process::build_command(
        &Options::default()
            .wrapper("ssh", ["build-host"])
            .mcp_config(json!({"mcpServers": {}})),
    )
    .unwrap();
    assert!(launch.private_files.is_none());
    let args: Vec<String> = launch
        .command
        .get_args()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    assert_eq!(value_of(&args, "--mcp-config="), r#"{"mcpServers":{}}"#);
    drop(scratch);
}

/// The `Debug` output of what starts the CLI shows no secret: not the
/// command ([`Launch`](claude_proto_process::Launch): its environment
/// values and, behind a wrapper, the inline MCP configuration and
/// settings), not the started process ([`Spawned`](claude_proto_process::Spawned)),
/// not the options. Values of `env` and `headers` objects are hidden
/// whatever their names; the names and everything else stay visible.
#[test]
fn debug_of_a_launch_or_a_started_cli_shows_no_secret() {
    let scratch = scratch("debug");
    let secrets = |options: Options| {
        options
            .env("ANTHROPIC_API_KEY", SENTINEL)
            .env("OUT", scratch.0.join("args"))
            .mcp_config(json!({"mcpServers": {"db": {
                "command": "db-mcp",
                "env": {"DATABASE_URL": format!("postgres://u:{SENTINEL}@db")},
                "headers": {"X-Tenant": SENTINEL},
            }}}))
            .settings(Settings::Inline(
                json!({"env": {"UPSTREAM": format!("https://u:{SENTINEL}@h")}}),
            ))
    };
    let direct = secrets(Options::default().cli_path(scratch.cli()));
    let wrapped = secrets(Options::default().wrapper(
        "docker",
        [
            std::ffi::OsString::from("exec"),
            "-e".into(),
            format!("API_KEY={SENTINEL}").into(),
        ],
    ));
    for options in [&direct, &wrapped] {
        let launch = claude_proto_process::build_command(options).expect("a command");
        let shown = format!("{launch:?} {launch:#?} {options:?}");
        assert!(!shown.contains(SENTINEL), "{shown}");
        assert!(shown.contains("ANTHROPIC_API_KEY"), "{shown}");
        assert!(shown.contains("DATABASE_URL"), "{shown}");
        assert!(shown.contains("--output-format"), "{shown}");
    }
    let mut spawned = spawn(&direct).expect("the stand-in starts");
    let mut ready = String::new();
    BufReader::new(&mut spawned.stdout)
        .read_line(&mut ready)
        .unwrap();
    let shown = format!("{spawned:?}");
    assert!(!shown.contains(SENTINEL), "{shown}");
    drop(spawned);
}
