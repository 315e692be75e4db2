//! `claude-proto-testkit-cli`: a stand-in for the `claude` executable that
//! serves a scripted CLI on its stdin and stdout, for tests that start the
//! CLI through an adapter's real `spawn` path.
//!
//! What it does is chosen by its environment (its arguments are the CLI's
//! flags the adapter passes; they are recorded, not obeyed):
//!
//! - `CLAUDE_PROTO_TESTKIT_SCRIPT=<file>`: runs the script saved in the
//!   file (`Script::save`, `Script::child`).
//! - `CLAUDE_PROTO_TESTKIT_SERVE=<behaviour as JSON>`: serves the
//!   behaviour by itself, a whole CLI with no file (`child::serve_options`).
//!   Its stdout is a pipe: while the program leaves it unread, the CLI is
//!   blocked writing and reads nothing.
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

use std::process::ExitCode;

fn main() -> ExitCode {
    let code = claude_proto_testkit::child::main_from_env();
    ExitCode::from(u8::try_from(code & 0xff).unwrap_or(1))
}
