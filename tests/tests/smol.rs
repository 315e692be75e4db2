//! The conformance suite on `claude-proto-async-std` running on smol, plus
//! what an executor of one's own can show: dropping it leaves no process.
#![allow(clippy::unwrap_used)] // test helpers fail loudly by design

mod async_family;

use async_family::{Family, Smol};
use claude_proto_async_std::Runtime;

const CLI: &str = env!("CARGO_BIN_EXE_testkit-cli");

claude_proto_tests::conformance_suite!(Family<Smol>, CLI);

/// A session on an executor of one's own (`Runtime::custom`): dropping the
/// executor drops the session's tasks, and with the driver its process
/// handle, which kills the child (its exit watcher reaps it), so nothing
/// outlives the executor. (On the global
/// executors of async-std and smol, which live as long as the program,
/// `drop_without_close` covers this.)
#[test]
fn dropping_the_executor_kills_the_child() {
    let _isolation = claude_proto_tests::conformance::isolation("executor_drop");
    use std::sync::Arc;
    use std::time::Duration;

    use claude_proto_tests::conformance::Spec;

    let executor = Arc::new(smol::Executor::new());
    // Weak: the executor's own tasks must not keep it alive.
    let weak = Arc::downgrade(&executor);
    let runtime = Runtime::custom(move |task| {
        if let Some(executor) = weak.upgrade() {
            executor.spawn(task).detach();
        }
    });
    let claude = smol::block_on(
        async_family::builder::<Smol>(&Spec::new(
            CLI.into(),
            claude_proto_tests::conformance::never_reads(),
        ))
        .runtime(runtime)
        .spawn(),
    )
    .unwrap();
    let pid = claude.pid().unwrap();
    assert!(claude_proto_tests::process::is_running(pid));
    drop(executor);
    drop(claude);
    assert!(
        claude_proto_tests::process::wait_until_gone(pid, Duration::from_secs(20)),
        "process {pid} survived its executor"
    );
}

#[test]
fn a_controller_interrupts_from_another_task() {
    async_family::a_controller_interrupts_from_another_task::<Smol>(CLI);
}

#[test]
fn turn_streams_end_at_their_own_result() {
    async_family::turn_streams_end_at_their_own_result::<Smol>(CLI);
}

#[test]
fn the_one_shot_query_answers() {
    async_family::the_one_shot_query_answers::<Smol>(CLI);
}
