//! The real Claude Code CLI, driven through `claude-proto-async-std` on smol,
//! against the loopback Messages API stand-in (see
//! `claude_proto_tests::real_cli` and `real_cli.rs` for how to install the
//! CLI).
#![allow(clippy::unwrap_used)] // test helpers fail loudly by design

mod async_family;

use async_family::Smol;
use async_family::real_cli::RealFamily;

claude_proto_tests::real_cli_suite!(RealFamily<Smol>);
claude_proto_tests::real_cli_replay_suite!(RealFamily<Smol>, env!("CARGO_BIN_EXE_testkit-cli"));

/// The ending scenarios once more, one at a time in a process of their
/// own, counting this process's fds and threads before and after each
/// session.
#[test]
fn endings_leave_no_fd_or_thread_behind() {
    claude_proto_tests::real_cli::ending::endings_leave_no_fd_or_thread_behind();
}
