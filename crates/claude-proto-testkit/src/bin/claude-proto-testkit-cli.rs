//! `claude-proto-testkit-cli`: a stand-in for the `claude` executable that
//! serves a scripted CLI on its stdin and stdout, for tests that start the
//! CLI through an adapter's real `spawn` path.
//!
//! What it does is chosen by its environment (its arguments are the CLI's
//! flags the adapter passes; they are recorded, not obeyed):
//!
//! - `CLAUDE_PROTO_TESTKIT_SCRIPT=<file>`: runs the script saved in the
//!   file (`Script::save`, `Script::child`).
//!
//! It prints its verdict on stderr, writes it to the file named by
//! `CLAUDE_PROTO_TESTKIT_OUTCOME` if set, and exits 0 when the script
//! passed (or with the code of its `exit` step), else 70.

use std::path::PathBuf;
use std::process::ExitCode;

use claude_proto_testkit::child::{BINARY_NAME, SCRIPT_ENV, serve_stdio};
use claude_proto_testkit::{FAILURE_EXIT_CODE, Script};

/// What the binary is asked to do. A new mode is a variant, a line in
/// `from_env` and an arm in `main`.
enum Mode {
    /// Run a saved script.
    Script(PathBuf),
}

impl Mode {
    fn from_env() -> Result<Self, String> {
        if let Some(path) = std::env::var_os(SCRIPT_ENV) {
            return Ok(Self::Script(PathBuf::from(path)));
        }
        Err(format!(
            "nothing to do: set {SCRIPT_ENV} to a script file (this binary stands in for the \
             claude CLI in tests)"
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
        Err(why) => fail(&why),
    };
    ExitCode::from(u8::try_from(code & 0xff).unwrap_or(1))
}

fn fail(why: &str) -> i32 {
    eprintln!("{BINARY_NAME}: {why}");
    FAILURE_EXIT_CODE
}
