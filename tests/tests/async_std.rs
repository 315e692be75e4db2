//! The conformance suite on `claude-proto-async-std` running on async-std.
#![allow(clippy::unwrap_used)] // test helpers fail loudly by design

mod async_family;

use async_family::{AsyncStd, Family};

const CLI: &str = env!("CARGO_BIN_EXE_testkit-cli");

claude_proto_tests::conformance_suite!(Family<AsyncStd>, CLI);

#[test]
fn a_controller_interrupts_from_another_task() {
    async_family::a_controller_interrupts_from_another_task::<AsyncStd>(CLI);
}

#[test]
fn turn_streams_end_at_their_own_result() {
    async_family::turn_streams_end_at_their_own_result::<AsyncStd>(CLI);
}

#[test]
fn the_one_shot_query_answers() {
    async_family::the_one_shot_query_answers::<AsyncStd>(CLI);
}
