//! The harnesses of `claude-proto-async-std`, shared by its two runtimes:
//! the conformance suite (`async_std.rs`, `smol.rs`) and the real CLI
//! (`real_cli_async_std.rs`, `real_cli_smol.rs`, see [`real_cli`]) differ
//! only in their [`Exec`]. Each test binary uses one runtime and one suite.
#![allow(dead_code, reason = "each test binary uses one runtime and one suite")]

pub(crate) mod real_cli;

use std::future::Future;
use std::marker::PhantomData;
use std::time::Duration;

use claude_proto::ControlSuccess;
use claude_proto::model::control::ControlRequest;
use claude_proto::model::initialize::InitializeResponse;
use claude_proto_async_std::{Claude, ClaudeBuilder, Configure, Runtime};
use claude_proto_host::{Error, ExitReport, SpawnError, Turn};
use claude_proto_testkit::Behaviour;
use claude_proto_tests::conformance::{self, Driver, Harness, Observed, Spec, ToolChange};

/// One runtime: where sessions spawn their tasks, and how a test thread
/// waits on a future.
pub(crate) trait Exec: 'static {
    const NAME: &'static str;
    fn runtime() -> Runtime;
    fn block_on<T>(future: impl Future<Output = T>) -> T;
    /// Runs `future` as a task of its own; the returned future is its result.
    fn spawn<T: Send + 'static>(
        future: impl Future<Output = T> + Send + 'static,
    ) -> impl Future<Output = T>;
}

/// async-std's executor and `block_on`.
pub(crate) struct AsyncStd;

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

/// smol's global executor and `block_on`.
pub(crate) struct Smol;

impl Exec for Smol {
    const NAME: &'static str = "smol";

    fn runtime() -> Runtime {
        Runtime::smol()
    }

    fn block_on<T>(future: impl Future<Output = T>) -> T {
        smol::block_on(future)
    }

    fn spawn<T: Send + 'static>(
        future: impl Future<Output = T> + Send + 'static,
    ) -> impl Future<Output = T> {
        smol::spawn(future)
    }
}

/// A timer on the `async-io` reactor, which both runtimes share.
async fn async_io_timer(after: Duration) {
    smol::Timer::after(after).await;
}

/// The conformance harness on runtime `E`.
pub(crate) struct Family<E>(PhantomData<E>);

pub(crate) fn builder<E: Exec>(spec: &Spec) -> ClaudeBuilder {
    let builder = Claude::builder(spec.options())
        .runtime(E::runtime())
        .config(spec.config.clone())
        .limits(spec.limits.clone());
    claude_proto_tests::register_spec_handlers!(builder, spec)
}

impl<E: Exec> Harness for Family<E> {
    const NAME: &'static str = E::NAME;

    fn start(spec: Spec) -> Result<Box<dyn Driver>, SpawnError> {
        let claude = E::block_on(builder::<E>(&spec).spawn())?;
        Ok(Box::new(Session::<E> {
            claude: Some(claude),
            exec: PhantomData,
        }))
    }

    fn run_concurrently(specs: Vec<Spec>) -> Vec<Result<String, Error>> {
        E::block_on(async {
            let tasks: Vec<_> = specs
                .into_iter()
                .enumerate()
                .map(|(i, spec)| {
                    E::spawn(async move {
                        let mut claude = builder::<E>(&spec).spawn().await.expect("spawn");
                        let turn = claude.ask(format!("hello {i}")).await?;
                        claude.close().await?;
                        Ok(turn.text().unwrap_or_default().to_owned())
                    })
                })
                .collect();
            let mut results = Vec::new();
            for task in tasks {
                results.push(task.await);
            }
            results
        })
    }
}

pub(crate) struct Session<E> {
    claude: Option<Claude>,
    exec: PhantomData<fn() -> E>,
}

impl<E: Exec> Session<E> {
    fn claude(&mut self) -> &mut Claude {
        self.claude.as_mut().expect("open")
    }
}

impl<E: Exec> Driver for Session<E> {
    fn pid(&self) -> Option<u32> {
        self.claude.as_ref().and_then(Claude::pid)
    }

    fn initialization(&mut self) -> Result<InitializeResponse, Error> {
        E::block_on(self.claude().initialization()).map(|r| (*r).clone())
    }

    fn send_text(&mut self, text: &str) -> Result<(), Error> {
        E::block_on(self.claude().send_text(text))
    }

    fn next_event(&mut self) -> Option<Observed> {
        E::block_on(self.claude().next_event()).map(Observed::from)
    }

    fn control(
        &mut self,
        request: ControlRequest,
        timeout: Option<Duration>,
    ) -> Result<ControlSuccess, Error> {
        E::block_on(self.claude().control(request, timeout))
    }

    fn close(mut self: Box<Self>) -> Result<Option<ExitReport>, Error> {
        let claude = self.claude.take().expect("open");
        E::block_on(claude.close())
    }

    fn flush_mirror(&mut self) -> Option<Result<(), Error>> {
        let claude = self.claude();
        Some(E::block_on(claude.flush_mirror()))
    }

    fn change_tools(&mut self, change: ToolChange<'_>) -> Option<Result<(), Error>> {
        let claude = self.claude();
        Some(E::block_on(claude_proto_tests::handlers::change_tools(
            claude, change,
        )))
    }

    fn query(
        &mut self,
        prompt: &str,
        limit: Option<Duration>,
    ) -> Option<Result<Option<Turn>, Error>> {
        let claude = self.claude();
        Some(E::block_on(async {
            let Some(limit) = limit else {
                return claude.ask(prompt).await.map(Some);
            };
            // When the timer wins, the query future is dropped mid-turn.
            futures_lite::future::or(async { claude.ask(prompt).await.map(Some) }, async {
                async_io_timer(limit).await;
                Ok(None)
            })
            .await
        }))
    }

    fn abandon(mut self: Box<Self>) {
        // Drop the handle: the driver goes on on the runtime's global
        // executor (which lives as long as the program) and closes the
        // child in the background.
        drop(self.claude.take());
    }
}

/// A controller moved into another task interrupts while this task owns
/// the events and waits in the turn stream: in a held turn the CLI writes
/// nothing after its `system/init` until the interrupt reaches it, so the
/// turn ends only through the other task.
pub(crate) fn a_controller_interrupts_from_another_task<E: Exec>(cli: &str) {
    let _isolation = claude_proto_tests::conformance::isolation("controller_interrupt");
    E::block_on(async {
        let mut claude = builder::<E>(&Spec::new(cli.into(), conformance::held_turn()))
            .spawn()
            .await
            .unwrap();
        let controller = claude.controller();
        let mut turn = claude.query("hold").await.unwrap();
        loop {
            let event = turn
                .next()
                .await
                .expect("the turn ended before its system/init");
            if conformance::is_system_init(event.as_message().expect("a message")) {
                break;
            }
        }
        let interrupter = E::spawn(async move { controller.interrupt().await.map(drop) });
        // Blocked here until the other task's interrupt lets the CLI finish.
        let mut last = None;
        while let Some(event) = turn.next().await {
            last = Some(event);
        }
        assert!(
            last.as_ref()
                .and_then(|e| e.as_message())
                .unwrap()
                .is_result()
        );
        assert!(
            turn.finish().await.unwrap().is_error(),
            "ended by the interrupt"
        );
        interrupter.await.unwrap();
        claude.close().await.unwrap();
    });
}

/// A turn stream yields its own turn's events, the `result` last, then
/// nothing; a stream dropped mid-turn does not shift the next query; the
/// one-shot `query` answers in one call.
pub(crate) fn turn_streams_end_at_their_own_result<E: Exec>(cli: &str) {
    let _isolation = claude_proto_tests::conformance::isolation("turn_stream");
    E::block_on(async {
        let mut claude = builder::<E>(&Spec::new(cli.into(), Behaviour::default()))
            .spawn()
            .await
            .unwrap();
        let mut one = claude.query("one").await.unwrap();
        assert!(one.next().await.is_some());
        drop(one);

        let mut two = claude.query("two").await.unwrap();
        let mut last = None;
        while let Some(event) = two.next().await {
            last = Some(event);
        }
        assert!(two.next().await.is_none(), "nothing after the result");
        assert!(
            last.as_ref()
                .and_then(|e| e.as_message())
                .unwrap()
                .is_result()
        );
        assert_eq!(two.finish().await.unwrap().text(), Some("echo: two"));
        assert_eq!(
            claude.ask("three").await.unwrap().text(),
            Some("echo: three")
        );
        claude.close().await.unwrap();
    });
}

/// The one-call one-shot: spawn (on the default executor), ask, close.
pub(crate) fn the_one_shot_query_answers<E: Exec>(cli: &str) {
    let _isolation = claude_proto_tests::conformance::isolation("one_shot");
    E::block_on(async {
        let options = Spec::new(cli.into(), Behaviour::default()).options();
        let turn = claude_proto_async_std::query("hi", options).await.unwrap();
        assert_eq!(turn.text(), Some("echo: hi"));
    });
}
