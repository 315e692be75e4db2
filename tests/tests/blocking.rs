//! The conformance suite on the blocking adapter, plus what only it needs
//! to show (backpressure over a plain pipe, cancellation of a blocking
//! handler).
#![allow(clippy::unwrap_used)] // test helpers fail loudly by design

use std::sync::atomic::Ordering;
use std::time::Duration;

use claude_proto::ControlSuccess;
use claude_proto::dispatch::ToolOutput;
use claude_proto::model::control::ControlRequest;
use claude_proto::model::hooks::{HookEvent, HookOutput};
use claude_proto::model::initialize::InitializeResponse;
use claude_proto::model::permission::PermissionResult;
use claude_proto_blocking::{CancelToken, Claude, ClaudeBuilder, Event, HookOptions, McpServer};
use claude_proto_process::{Error, ExitReport};
use claude_proto_tests::conformance::{
    Driver, DropFlag, Harness, HookBehaviour, Observed, Permission, Spec,
};

const FAKE: &str = env!("CARGO_BIN_EXE_fake-claude");

struct Blocking;

struct BlockingDriver {
    claude: Option<Claude>,
}

fn builder(spec: &Spec) -> ClaudeBuilder {
    let mut builder = Claude::builder(spec.options())
        .config(spec.config.clone())
        .shutdown_policy(spec.shutdown);
    if let Some(permission) = spec.permission.clone() {
        builder = builder.on_permission(move |_ask| match &permission {
            Permission::Allow => Ok(PermissionResult::allow()),
            Permission::AllowWithInput(input) => {
                Ok(PermissionResult::allow().with_updated_input(input.clone()))
            }
            Permission::Deny(message) => Ok(PermissionResult::deny(message)),
            Permission::DenyAndInterrupt(message) => {
                Ok(PermissionResult::deny(message).with_interrupt(true))
            }
            Permission::Fail(message) => Err(message.clone().into()),
            Permission::Panic => panic!("permission handler panicked on purpose"),
            // A blocking closure cannot be dropped mid-call as a future
            // can. Its equivalent: the first call blocks until the CLI
            // cancels the request; the flag goes with the cancellation
            // itself (an `on_cancel` callback, run by the driver when the
            // cancel arrives, so before the turn's result is delivered),
            // and the answer returned afterwards must be dropped, not sent
            // (the fake counts late answers).
            Permission::FirstWaitsForever(probe) => {
                if probe.calls.fetch_add(1, Ordering::SeqCst) == 0 {
                    let flag = DropFlag(probe.clone());
                    let token = CancelToken::current().unwrap();
                    token.on_cancel(move || drop(flag));
                    token.wait();
                }
                Ok(PermissionResult::allow())
            }
        });
    }
    for hook in &spec.hooks {
        let options = match hook.matcher {
            Some(m) => HookOptions::matching(m),
            None => HookOptions::default(),
        };
        let behaviour = hook.behaviour.clone();
        builder = builder.hook(HookEvent::from(hook.event), options, move |_input, _id| {
            Ok(match &behaviour {
                HookBehaviour::NoOpinion => HookOutput::default(),
                HookBehaviour::Deny(reason) => HookOutput::pre_tool_use_deny(reason.clone()),
                HookBehaviour::Context(text) => {
                    HookOutput::additional_context(HookEvent::PostToolUse, text.clone())
                }
                HookBehaviour::Panic => panic!("hook panicked on purpose"),
            })
        });
    }
    if spec.mcp_calc {
        builder = builder.mcp_server(McpServer::new("calc", "1.0.0").tool(
            "add",
            "Adds a and b",
            Spec::calc_schema(),
            |args| {
                Ok(match Spec::calc_add(&args) {
                    Ok(sum) => ToolOutput::text(sum),
                    Err(e) => ToolOutput::error(e),
                })
            },
        ));
    }
    builder
}

impl Harness for Blocking {
    const NAME: &'static str = "blocking";

    fn start(spec: Spec) -> Result<Box<dyn Driver>, Error> {
        let claude = builder(&spec).spawn()?;
        Ok(Box::new(BlockingDriver {
            claude: Some(claude),
        }))
    }

    fn run_concurrently(specs: Vec<Spec>) -> Vec<Result<String, Error>> {
        // One user thread per session (each session has its own driver).
        let threads: Vec<_> = specs
            .into_iter()
            .enumerate()
            .map(|(i, spec)| {
                std::thread::spawn(move || {
                    let mut claude = builder(&spec).spawn()?;
                    let turn = claude.query(format!("hello {i}"))?;
                    claude.close()?;
                    Ok(turn.text().unwrap_or_default().to_owned())
                })
            })
            .collect();
        threads.into_iter().map(|t| t.join().unwrap()).collect()
    }
}

impl BlockingDriver {
    fn claude(&mut self) -> &mut Claude {
        self.claude.as_mut().unwrap()
    }
}

impl Driver for BlockingDriver {
    fn pid(&self) -> Option<u32> {
        self.claude.as_ref().and_then(Claude::pid)
    }

    fn initialization(&mut self) -> Result<InitializeResponse, Error> {
        self.claude().initialization().map(|r| (*r).clone())
    }

    fn send_text(&mut self, text: &str) -> Result<(), Error> {
        self.claude().send_text(text)
    }

    fn next_event(&mut self) -> Option<Observed> {
        Some(match self.claude().next_event()? {
            Event::Message(m) => Observed::Message(m),
            Event::ProtocolError(e) => Observed::ProtocolError(e.kind),
            Event::HandlerFailed { subtype, .. } => Observed::HandlerFailed(subtype),
            other => Observed::Other(format!("{other:?}")),
        })
    }

    fn control(
        &mut self,
        request: ControlRequest,
        timeout: Option<Duration>,
    ) -> Result<ControlSuccess, Error> {
        self.claude().control(request, timeout)
    }

    fn close(mut self: Box<Self>) -> Result<Option<ExitReport>, Error> {
        self.claude.take().unwrap().close()
    }

    fn abandon(mut self: Box<Self>) {
        // The driver thread closes the child in the background.
        drop(self.claude.take());
    }
}

claude_proto_tests::conformance_suite!(Blocking, FAKE);

mod backpressure {
    use super::*;
    use std::io::Read;
    use std::sync::Arc;
    use std::sync::atomic::AtomicUsize;

    const LINE: &[u8] = br#"{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"tick"}},"parent_tool_use_id":null,"session_id":"s","uuid":"u"}
"#;

    /// The CLI's stdout: `total` lines, made only when read, recording how
    /// far ahead of the consumer reading ever got.
    struct Lines {
        total: usize,
        made: usize,
        consumed: Arc<AtomicUsize>,
        max_ahead: Arc<AtomicUsize>,
    }

    impl Read for Lines {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = (buf.len() / LINE.len()).min(self.total - self.made);
            for chunk in buf.chunks_mut(LINE.len()).take(n) {
                chunk.copy_from_slice(LINE);
            }
            self.made += n;
            let ahead = self.made - self.consumed.load(Ordering::SeqCst).min(self.made);
            self.max_ahead.fetch_max(ahead, Ordering::SeqCst);
            Ok(n * LINE.len())
        }
    }

    /// A consumer slower than the CLI holds it back: at no time was more
    /// read than the event queue, the core's events of one chunk and one
    /// chunk read ahead, whatever the threads' timing. Then everything
    /// arrives, in order.
    #[test]
    fn reading_never_gets_more_than_a_bounded_amount_ahead() {
        const TOTAL: usize = 100_000;
        const EVENT_CAPACITY: usize = 16;
        let consumed = Arc::new(AtomicUsize::new(0));
        let max_ahead = Arc::new(AtomicUsize::new(0));
        let lines = Lines {
            total: TOTAL,
            made: 0,
            consumed: consumed.clone(),
            max_ahead: max_ahead.clone(),
        };
        let mut claude = Claude::builder(claude_proto::options::Options::default())
            .event_capacity(EVENT_CAPACITY)
            .connect(lines, std::io::sink())
            .unwrap();
        let mut seen = 0;
        while seen < TOTAL {
            match claude.next_event() {
                Some(Event::Message(_)) => seen += 1,
                Some(other) => panic!("{other:?}"),
                None => panic!("ended after {seen}"),
            }
            consumed.store(seen, Ordering::SeqCst);
            if seen % 64 == 0 {
                std::thread::yield_now();
            }
        }
        // Three 64 KiB chunks (one in the core as events, two read ahead:
        // the reader double-buffers), the event queue, the batch the driver
        // holds and the batch the consumer is reading (events travel in
        // batches of up to min(capacity, 64)).
        let per_chunk = 64 * 1024 / LINE.len() + 1;
        let batch = EVENT_CAPACITY.min(64);
        let bound = 3 * per_chunk + EVENT_CAPACITY + 2 * batch;
        let ahead = max_ahead.load(Ordering::SeqCst);
        assert!(
            ahead <= bound,
            "reading got {ahead} lines ahead (bound {bound})"
        );
        assert!(claude.close().unwrap().is_none(), "no process over connect");
    }

    /// A reader that never yields anything: waiting with a timeout gives up,
    /// and closing still ends the session (after the close grace).
    #[test]
    fn next_event_timeout_gives_up_on_a_silent_peer() {
        struct Silent(std::sync::mpsc::Receiver<()>);
        impl Read for Silent {
            fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
                let _ = self.0.recv();
                Ok(0)
            }
        }
        let (hang_up, rx) = std::sync::mpsc::channel();
        let mut claude = Claude::builder(claude_proto::options::Options::default())
            .shutdown_policy(claude_proto_process::ShutdownPolicy::new(
                Duration::ZERO,
                Duration::ZERO,
            ))
            .connect(Silent(rx), std::io::sink())
            .unwrap();
        assert!(
            claude
                .next_event_timeout(Duration::from_millis(20))
                .is_err()
        );
        assert!(claude.close().unwrap().is_none());
        drop(hang_up);
    }
}
