//! A bounded tail of the child's stderr, plus an optional line callback.

use std::collections::VecDeque;
use std::fmt;
use std::sync::Arc;

/// Called with each line the CLI writes to stderr (without the newline,
/// lossy UTF-8, lines longer than the tail's capacity cut).
pub type StderrCallback = Arc<dyn Fn(&str) + Send + Sync>;

/// Keeps the last bytes the CLI wrote to stderr, for error reports.
///
/// Memory is bounded by the capacity (twice, with the line being assembled
/// for the callback). Adapters must drain stderr continuously: a CLI whose
/// stderr pipe fills up blocks.
pub struct StderrTail {
    tail: VecDeque<u8>,
    capacity: usize,
    line: Vec<u8>,
    callback: Option<StderrCallback>,
}

impl fmt::Debug for StderrTail {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StderrTail")
            .field("len", &self.tail.len())
            .field("capacity", &self.capacity)
            .field("callback", &self.callback.is_some())
            .finish()
    }
}

impl StderrTail {
    /// A tail keeping at most `capacity` bytes.
    pub fn new(capacity: usize, callback: Option<StderrCallback>) -> Self {
        Self {
            tail: VecDeque::with_capacity(capacity.min(64 * 1024)),
            capacity,
            line: Vec::new(),
            callback,
        }
    }

    /// Records bytes read from stderr.
    pub fn push(&mut self, bytes: &[u8]) {
        let keep = bytes.len().min(self.capacity);
        let overflow = (self.tail.len() + keep).saturating_sub(self.capacity);
        self.tail.drain(..overflow);
        self.tail.extend(&bytes[bytes.len() - keep..]);
        let Some(callback) = self.callback.clone() else {
            return;
        };
        for &b in bytes {
            if b == b'\n' {
                callback(String::from_utf8_lossy(&self.line).trim_end_matches('\r'));
                self.line.clear();
            } else if self.line.len() < self.capacity {
                self.line.push(b);
            }
        }
    }

    /// Delivers an unterminated last line to the callback (at end of stream).
    pub fn finish(&mut self) {
        if let Some(callback) = &self.callback {
            if !self.line.is_empty() {
                callback(&String::from_utf8_lossy(&self.line));
                self.line.clear();
            }
        }
    }

    /// The kept bytes as text.
    pub fn text(&self) -> String {
        let (a, b) = self.tail.as_slices();
        let mut bytes = Vec::with_capacity(a.len() + b.len());
        bytes.extend_from_slice(a);
        bytes.extend_from_slice(b);
        String::from_utf8_lossy(&bytes).into_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    #[test]
    fn keeps_only_the_last_bytes() {
        let mut tail = StderrTail::new(8, None);
        tail.push(b"hello ");
        tail.push(b"world\n");
        assert_eq!(tail.text(), "o world\n");
        tail.push(&[b'x'; 100]);
        assert_eq!(tail.text(), "xxxxxxxx");
    }

    #[test]
    fn calls_back_per_line_across_chunks() {
        let lines = Arc::new(Mutex::new(Vec::new()));
        let sink = lines.clone();
        let mut tail = StderrTail::new(
            1024,
            Some(Arc::new(move |l: &str| {
                sink.lock().unwrap().push(l.to_owned())
            })),
        );
        tail.push(b"first li");
        tail.push(b"ne\r\nsecond\nthi");
        tail.finish();
        assert_eq!(*lines.lock().unwrap(), vec!["first line", "second", "thi"]);
    }
}
