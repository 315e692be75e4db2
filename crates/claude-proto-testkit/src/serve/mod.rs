//! The scripted CLI serving by itself: after its last step, with
//! [`Settings::serve`](crate::Settings::serve), it answers every prompt
//! and control request as the real CLI would, as a [`Behaviour`] says.
//!
//! A script of no steps that serves is a whole CLI in a few words: each
//! `user` line starts (or queues) one turn, answered by `system/init`,
//! `assistant` and a `result` whose `result` text is `"echo: <prompt>"`
//! (error results carry `"interrupted: <prompt>"` in `errors`); control
//! requests are answered as CLI 2.1.330 answers them, and the hooks
//! `initialize` registered are called where the CLI calls them
//! (`UserPromptSubmit`, `PreToolUse` and `PostToolUse` by their matchers,
//! `Stop`). The behaviour's knobs add what a test needs: delays, streamed
//! deltas, tools with and without a permission prompt, hook and MCP calls,
//! any control request (sent, or sent and withdrawn), lines hard to decode,
//! floods of stdout or stderr, answers behind unread events, and
//! misbehaviour (not answering a subtype, answering late or only after
//! the program answered, not reading stdin, a full stdout pipe, ignoring
//! SIGTERM, crashing mid-turn, exiting early or never). A prompt can pick
//! its turn's extras itself (`#extras [...]`, see [`Extra::from_prompt`]).
//!
//! As a child process (`claude-proto-testkit-cli`) it also keeps the
//! session's transcript as the CLI does (resumed with `--resume`, mirrored
//! with `--session-mirror`), and can leave a grandchild behind; see
//! [`child`](crate::child).
//!
//! While it serves, [`ScriptedCli::serving_mut`](crate::ScriptedCli::serving_mut)
//! gives the [`Simulation`]: write any traffic at any time
//! ([`Simulation::emit`], [`Simulation::request`], ...) and see what the
//! program sent ([`Simulation::received`], [`Simulation::answer`], ...).
//! Like the rest of the scripted CLI, it is built from `serde_json` alone,
//! so a program cannot pass by sharing its encoder, and it reads no clock.
//!
//! ```
//! use std::time::Instant;
//! use claude_proto_testkit::{Behaviour, Script, ScriptedCli};
//!
//! let now = Instant::now();
//! let (steps, settings) = Script::new().serve(Behaviour::default()).into_parts();
//! let mut cli = ScriptedCli::new(steps, settings, now);
//! cli.handle_stdin(br#"{"type":"user","message":{"role":"user","content":"hi"}}"#, now);
//! cli.handle_stdin(b"\n", now);
//! cli.handle_stdin_end(now);
//! let mut out = Vec::new();
//! while let Some(bytes) = cli.poll_stdout() {
//!     out.extend(bytes);
//! }
//! let last = out.split(|&b| b == b'\n').filter(|l| !l.is_empty()).last().unwrap();
//! let result: serde_json::Value = serde_json::from_slice(last).unwrap();
//! assert_eq!(result["result"], "echo: hi");
//! assert_eq!(cli.exit_code(), Some(0));
//! assert!(cli.stdout_closed());
//! ```

mod behaviour;
pub(crate) mod json;
mod simulation;
pub(crate) mod transcript;
mod turn;
mod turn_state;
mod wire;

pub use behaviour::{BadLine, Behaviour, Extra, Policy};
pub use simulation::{Signal, Simulation};

#[cfg(test)]
mod tests;
