//! The user's stderr callback, fed line by line, with its panics contained.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use claude_proto_host::LineSplitter;

use crate::log;
use crate::unwind::panic_message;

/// Called with each line the CLI writes to stderr.
pub type StderrCallback = Arc<dyn Fn(&str) + Send + Sync>;

/// The longest stderr line given to the callback; the rest of a longer
/// line is dropped.
pub const MAX_STDERR_LINE: usize = 64 * 1024;

/// Feeds a [`StderrCallback`] line by line. If the callback panics, the
/// panic is contained (logged, and the callback is not called again); the
/// session goes on.
pub struct StderrLines {
    splitter: LineSplitter,
    callback: Option<StderrCallback>,
}

impl std::fmt::Debug for StderrLines {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StderrLines")
            .field("callback", &self.callback.is_some())
            .finish()
    }
}

impl StderrLines {
    /// Lines for `callback` (none is called if it is `None`).
    pub fn new(callback: Option<StderrCallback>) -> Self {
        Self {
            splitter: LineSplitter::new(MAX_STDERR_LINE),
            callback,
        }
    }

    /// Bytes read from stderr.
    pub fn push(&mut self, bytes: &[u8]) {
        let Some(callback) = self.callback.clone() else {
            return;
        };
        let mut panicked = None;
        self.splitter.push(bytes, &mut |line| {
            if panicked.is_none() {
                if let Err(payload) = catch_unwind(AssertUnwindSafe(|| callback(line))) {
                    panicked = Some(panic_message(&*payload));
                }
            }
        });
        self.contain(panicked);
    }

    /// stderr ended: a last line without a newline is still given.
    pub fn finish(&mut self) {
        let Some(callback) = self.callback.clone() else {
            return;
        };
        let mut panicked = None;
        self.splitter.finish(&mut |line| {
            if let Err(payload) = catch_unwind(AssertUnwindSafe(|| callback(line))) {
                panicked = Some(panic_message(&*payload));
            }
        });
        self.contain(panicked);
    }

    fn contain(&mut self, panicked: Option<String>) {
        if let Some(message) = panicked {
            log::warn(format_args!(
                "the stderr callback panicked and is no longer called: {message}"
            ));
            self.callback = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    #[test]
    fn lines_reach_the_callback_and_a_panic_is_contained() {
        let lines = Arc::new(Mutex::new(Vec::new()));
        let sink = lines.clone();
        let mut stderr = StderrLines::new(Some(Arc::new(move |l: &str| {
            assert_ne!(l, "boom", "the callback panics on this line");
            sink.lock().expect("lock").push(l.to_owned());
        })));
        stderr.push(b"one\ntw");
        stderr.push(b"o\nboom\nthree\n");
        stderr.finish();
        assert_eq!(*lines.lock().expect("lock"), vec!["one", "two"]);
    }
}
