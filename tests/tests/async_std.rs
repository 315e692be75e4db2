//! The conformance suite on `claude-proto-async-std` running on async-std.
#![allow(clippy::unwrap_used)] // test helpers fail loudly by design

mod async_family;

use async_family::{AsyncStd, Family};

const FAKE: &str = env!("CARGO_BIN_EXE_fake-claude");

claude_proto_tests::conformance_suite!(Family<AsyncStd>, FAKE);
