//! Every `tracing` event of the test process, as text, so a test can check
//! what the library logs (the adapters' `tracing` features are on in this
//! crate's build).
//!
//! A hand-written subscriber: the few lines it takes are cheaper than a
//! dependency on a subscriber crate. Events of every thread are captured
//! (the async adapters log from runtime threads), so a test looks for what
//! must be absent, or for a line only it can have caused.

use std::fmt::Write as _;
use std::sync::{Mutex, MutexGuard, OnceLock};

use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Metadata, Subscriber};

static LINES: Mutex<Vec<String>> = Mutex::new(Vec::new());
static INSTALLED: OnceLock<bool> = OnceLock::new();

fn lines() -> MutexGuard<'static, Vec<String>> {
    LINES
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

struct Capture;

struct Line(String);

impl Visit for Line {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        let _ = write!(self.0, " {}={value:?}", field.name());
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        let _ = write!(self.0, " {}={value}", field.name());
    }
}

impl Subscriber for Capture {
    fn enabled(&self, _: &Metadata<'_>) -> bool {
        true
    }

    fn new_span(&self, _: &Attributes<'_>) -> Id {
        Id::from_u64(1)
    }

    fn record(&self, _: &Id, _: &Record<'_>) {}

    fn record_follows_from(&self, _: &Id, _: &Id) {}

    fn event(&self, event: &Event<'_>) {
        let metadata = event.metadata();
        let mut line = Line(format!("{} {}:", metadata.level(), metadata.target()));
        event.record(&mut line);
        lines().push(line.0);
    }

    fn enter(&self, _: &Id) {}

    fn exit(&self, _: &Id) {}
}

/// Starts capturing (once per process; later calls do nothing).
///
/// # Panics
///
/// If another global subscriber was installed first: then nothing could be
/// captured, and a test that relies on it would pass for the wrong reason.
pub fn capture() {
    let installed =
        INSTALLED.get_or_init(|| tracing::subscriber::set_global_default(Capture).is_ok());
    assert!(*installed, "another tracing subscriber was installed first");
}

/// Every line captured so far.
pub fn captured() -> Vec<String> {
    lines().clone()
}
