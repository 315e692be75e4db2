//! `claude-proto-testkit-cli`: a stand-in for the `claude` executable that
//! serves a scripted CLI on its stdin and stdout, for tests that start the
//! CLI through an adapter's real `spawn` path.
//!
//! What it does is chosen by its environment (its arguments are the CLI's
//! flags the adapter passes; they are recorded, not obeyed):
//!
//! - `CLAUDE_PROTO_TESTKIT_SCRIPT=<file>`: runs the script saved in the
//!   file (`Script::save`, `Script::child`).
//! - `CLAUDE_PROTO_TESTKIT_REPLAY=<cassette>`: replays the cassette as the
//!   CLI, as fast as possible, or at recorded speed with
//!   `CLAUDE_PROTO_TESTKIT_SPEED=recorded`; with
//!   `CLAUDE_PROTO_TESTKIT_CLI_VERSION=<version>` a cassette recorded with
//!   another CLI version is refused. The placeholders of the recording's
//!   path rules (`$CWD`, `$HOME`, `$TMPDIR`) become this process's
//!   directories, which are the session's.
//! - `CLAUDE_PROTO_TESTKIT_RECORD=<cassette>` with
//!   `CLAUDE_PROTO_TESTKIT_REAL_CLI=<claude>`: runs the real CLI with the
//!   same arguments and records the session to the cassette, redacted by
//!   the default rules.
//!
//! It prints its verdict on stderr, writes it to the file named by
//! `CLAUDE_PROTO_TESTKIT_OUTCOME` if set, and exits 0 when the script
//! passed (or with the code of its `exit` step), else 70.

use std::path::PathBuf;
use std::process::ExitCode;

use claude_proto_testkit::cassette::{
    CLI_VERSION_ENV, ProcessFacts, REAL_CLI_ENV, RECORD_ENV, REPLAY_ENV, Redactions, Replay,
    ReplayOptions, SPEED_ENV, Speed, run_wrapper,
};
use claude_proto_testkit::child::{BINARY_NAME, SCRIPT_ENV, serve_stdio};
use claude_proto_testkit::{FAILURE_EXIT_CODE, Script, Settings};

/// What the binary is asked to do. A new mode is a variant, a line in
/// `from_env` and an arm in `main`.
enum Mode {
    /// Run a saved script.
    Script(PathBuf),
    /// Replay a cassette.
    Replay(PathBuf, ReplayOptions),
    /// Run the real CLI (the first path) and record to the cassette.
    Record(PathBuf, PathBuf),
}

impl Mode {
    fn from_env() -> Result<Self, String> {
        if let Some(path) = std::env::var_os(SCRIPT_ENV) {
            return Ok(Self::Script(PathBuf::from(path)));
        }
        if let Some(path) = std::env::var_os(REPLAY_ENV) {
            let speed = match std::env::var(SPEED_ENV).as_deref() {
                Ok("recorded") => Speed::Recorded,
                Ok("fast") | Err(_) => Speed::AsFastAsPossible,
                Ok(other) => {
                    return Err(format!(
                        "{SPEED_ENV}={other}: expected `recorded` or `fast`"
                    ));
                }
            };
            let options = ReplayOptions {
                speed,
                require_cli_version: std::env::var(CLI_VERSION_ENV).ok(),
                // Spawned as the CLI was: in the session's directory, with
                // its environment, so these are the session's paths.
                restore: Some(ProcessFacts::of_this_process()),
            };
            return Ok(Self::Replay(PathBuf::from(path), options));
        }
        if let Some(cassette) = std::env::var_os(RECORD_ENV) {
            let Some(cli) = std::env::var_os(REAL_CLI_ENV) else {
                return Err(format!(
                    "{RECORD_ENV} is set but {REAL_CLI_ENV} is not: name the real CLI to record"
                ));
            };
            return Ok(Self::Record(PathBuf::from(cli), PathBuf::from(cassette)));
        }
        Err(format!(
            "nothing to do: set {SCRIPT_ENV} to a script file, {REPLAY_ENV} to a cassette, or \
             {RECORD_ENV} and {REAL_CLI_ENV} (this binary stands in for the claude CLI in tests)"
        ))
    }
}

fn main() -> ExitCode {
    let code = match Mode::from_env() {
        Ok(Mode::Script(path)) => match Script::load(&path) {
            Ok(script) => {
                let (steps, settings) = script.into_parts();
                serve_stdio(steps, settings)
            }
            Err(e) => fail(&e.to_string()),
        },
        Ok(Mode::Replay(path, options)) => match Replay::open(&path, options) {
            Ok(replay) => serve_stdio(replay, Settings::replay()),
            Err(e) => fail(&format!("{}: {e}", path.display())),
        },
        Ok(Mode::Record(cli, cassette)) => {
            let args = std::env::args_os().skip(1);
            match run_wrapper(
                &cli,
                args,
                &cassette,
                Redactions::default_for_this_process(),
            ) {
                Ok(code) => code,
                Err(e) => fail(&format!("recording {}: {e}", cli.display())),
            }
        }
        Err(why) => fail(&why),
    };
    ExitCode::from(u8::try_from(code & 0xff).unwrap_or(1))
}

fn fail(why: &str) -> i32 {
    eprintln!("{BINARY_NAME}: {why}");
    FAILURE_EXIT_CODE
}
