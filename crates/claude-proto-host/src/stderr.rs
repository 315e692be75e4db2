//! The CLI's stderr: a bounded tail for exit reports, and lines for a
//! user's callback.

use std::collections::VecDeque;

/// The last bytes of a stream, at most a fixed number.
#[derive(Debug, Clone)]
pub struct StderrTail {
    tail: VecDeque<u8>,
    capacity: usize,
}

impl StderrTail {
    /// Keeps at most `capacity` bytes. Nothing is allocated until bytes
    /// come (most sessions' stderr stays empty, and a byte stream has
    /// none).
    pub fn new(capacity: usize) -> Self {
        Self {
            tail: VecDeque::new(),
            capacity,
        }
    }

    /// Appends `bytes`, dropping the oldest beyond the capacity.
    pub fn push(&mut self, bytes: &[u8]) {
        let keep = bytes.len().min(self.capacity);
        let overflow = (self.tail.len() + keep).saturating_sub(self.capacity);
        self.tail.drain(..overflow);
        self.tail.extend(&bytes[bytes.len() - keep..]);
    }

    /// The tail as text (lossy UTF-8).
    pub fn text(&self) -> String {
        let (a, b) = self.tail.as_slices();
        let mut bytes = Vec::with_capacity(a.len() + b.len());
        bytes.extend_from_slice(a);
        bytes.extend_from_slice(b);
        String::from_utf8_lossy(&bytes).into_owned()
    }
}

/// Splits a byte stream into lines for a callback, in any chunking. A line
/// longer than the bound is cut at the bound (the rest of it is dropped).
#[derive(Debug, Clone)]
pub struct LineSplitter {
    line: Vec<u8>,
    max_line: usize,
}

impl LineSplitter {
    /// Lines of at most `max_line` bytes.
    pub fn new(max_line: usize) -> Self {
        Self {
            line: Vec::new(),
            max_line,
        }
    }

    /// Feeds `bytes`; calls `on_line` with each complete line (without its
    /// `\r\n` or `\n`).
    pub fn push(&mut self, bytes: &[u8], on_line: &mut dyn FnMut(&str)) {
        for &b in bytes {
            if b == b'\n' {
                on_line(String::from_utf8_lossy(&self.line).trim_end_matches('\r'));
                self.line.clear();
            } else if self.line.len() < self.max_line {
                self.line.push(b);
            }
        }
    }

    /// The stream ended: a last line without a newline is still given.
    pub fn finish(&mut self, on_line: &mut dyn FnMut(&str)) {
        if !self.line.is_empty() {
            on_line(&String::from_utf8_lossy(&self.line));
            self.line.clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_only_the_last_bytes() {
        let mut tail = StderrTail::new(8);
        tail.push(b"hello ");
        tail.push(b"world\n");
        assert_eq!(tail.text(), "o world\n");
        tail.push(&[b'x'; 100]);
        assert_eq!(tail.text(), "xxxxxxxx");
    }

    #[test]
    fn splits_lines_across_chunks() {
        let mut lines = Vec::new();
        let mut splitter = LineSplitter::new(1024);
        let mut sink = |l: &str| lines.push(l.to_owned());
        splitter.push(b"first li", &mut sink);
        splitter.push(b"ne\r\nsecond\nthi", &mut sink);
        splitter.finish(&mut sink);
        assert_eq!(lines, vec!["first line", "second", "thi"]);
    }
}
