//! The conformance suite on `claude-proto-async-std` running on async-std.
#![allow(clippy::unwrap_used)] // test helpers fail loudly by design

mod async_family;

use std::future::Future;

use async_family::{Exec, Family};
use claude_proto_async_std::Runtime;

const FAKE: &str = env!("CARGO_BIN_EXE_fake-claude");

struct AsyncStd;

impl Exec for AsyncStd {
    const NAME: &'static str = "async-std";

    fn runtime() -> Runtime {
        Runtime::async_std()
    }

    fn block_on<T>(future: impl Future<Output = T>) -> T {
        async_std::task::block_on(future)
    }

    fn spawn<T: Send + 'static>(
        future: impl Future<Output = T> + Send + 'static,
    ) -> impl Future<Output = T> {
        async_std::task::spawn(future)
    }
}

claude_proto_tests::conformance_suite!(Family<AsyncStd>, FAKE);
