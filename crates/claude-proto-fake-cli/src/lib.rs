//! A sans-IO fake of the Claude Code CLI in
//! `--input-format stream-json --output-format stream-json` mode.
//!
//! [`FakeCli`] is the child process without the process: the test hands it
//! the bytes the host wrote to the CLI's stdin, closes that stdin, sends
//! signals and advances a virtual clock; it hands back stdout and stderr
//! bytes, the next deadline and, once it "exited", an exit code. It does no
//! IO, reads no clock and starts no thread, so a host state machine and
//! this fake can be stepped together in memory, deterministically (the way
//! quinn-proto pairs two endpoints). It depends on serde_json only and
//! knows the protocol from the wire shapes of CLI 2.1.330 transcripts, so
//! it is an oracle independent of the `claude-proto` crates.
//!
//! What it does on its own is set by a [`Script`]: `Script::default()` is a
//! well-behaved CLI; knobs add delays, tool permission prompts, hook and
//! MCP calls, hard-to-decode lines, floods and misbehaviour (not answering,
//! not reading stdin, ignoring SIGTERM, exiting early). Tests can also write
//! arbitrary traffic at any time ([`FakeCli::emit`], [`FakeCli::emit_raw`],
//! [`FakeCli::request`]) and observe what the host sent
//! ([`FakeCli::received`], [`FakeCli::answer`], ...).
//!
//! Each `user` line starts (or queues) one turn, answered by `system/init`,
//! `assistant` and a `result` whose `result` text is `"echo: <prompt>"`
//! (error results carry `"interrupted: <prompt>"` in `errors`).
//!
//! ```
//! use std::time::Instant;
//! use claude_proto_fake_cli::{FakeCli, Script};
//!
//! let now = Instant::now();
//! let mut cli = FakeCli::new(Script::default(), now);
//! cli.handle_stdin(br#"{"type":"user","message":{"role":"user","content":"hi"}}"#, now);
//! cli.handle_stdin(b"\n", now);
//! cli.handle_stdin_end(now);
//! let mut out = Vec::new();
//! while let Some(bytes) = cli.poll_stdout(4096) {
//!     out.extend(bytes);
//! }
//! let last = out.split(|&b| b == b'\n').filter(|l| !l.is_empty()).last().unwrap();
//! let result: serde_json::Value = serde_json::from_slice(last).unwrap();
//! assert_eq!(result["result"], "echo: hi");
//! assert_eq!(cli.exit_code(), Some(0));
//! assert!(cli.stdout_closed());
//! ```
#![deny(missing_docs)]

mod cli;
mod script;
mod turn;
mod turn_state;
mod wire;

pub use cli::{FakeCli, Signal};
pub use script::{BadLine, Extra, Policy, Script};

#[cfg(test)]
mod tests;
