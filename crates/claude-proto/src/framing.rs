//! Splitting the CLI's stdout into lines, whatever the chunking.
//!
//! Bytes are scanned once: the partial line kept between calls never holds a
//! newline, so only newly pushed bytes are searched. A line longer than the
//! limit is reported as soon as it crosses the limit and then skipped up to
//! its newline without being buffered, so memory stays below the limit.

/// What the splitter found in the pushed bytes.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Frame<'a> {
    /// One complete line without its `\n` (and without a trailing `\r`).
    Line(&'a [u8]),
    /// A line crossed the limit; `prefix` is its first bytes (at most
    /// `prefix_len`). The rest of it, up to its newline, is dropped.
    TooLong { prefix: &'a [u8] },
}

/// Incremental NDJSON line splitter with a per-line length limit.
#[derive(Debug)]
pub(crate) struct LineSplitter {
    partial: Vec<u8>,
    /// `true` while skipping the remainder of an over-long line.
    discarding: bool,
    max_line: usize,
    prefix_len: usize,
}

/// Capacity above which the partial-line buffer is released after use, so
/// one large line does not pin its memory for the rest of the session.
const RETAINED_CAPACITY: usize = 64 * 1024;

impl LineSplitter {
    pub(crate) fn new(max_line: usize, prefix_len: usize) -> Self {
        Self {
            partial: Vec::new(),
            discarding: false,
            max_line,
            // When a line crosses the limit, at least `max_line + 1` of its
            // bytes have been seen, whatever the chunking: capping the
            // prefix there makes the report independent of chunk sizes.
            prefix_len: prefix_len.min(max_line.saturating_add(1)),
        }
    }

    /// Bytes currently held for an unfinished line.
    pub(crate) fn buffered(&self) -> usize {
        self.partial.len()
    }

    /// Frees the partial-line buffer if no line is in progress (a line in
    /// progress keeps its room: shrinking it would make it grow again,
    /// copying, with every read).
    pub(crate) fn trim(&mut self) {
        if self.partial.is_empty() {
            self.partial = Vec::new();
        }
    }

    /// Capacity of the partial-line buffer not holding bytes.
    pub(crate) fn spare_capacity(&self) -> usize {
        self.partial.capacity() - self.partial.len()
    }

    /// Feeds bytes; calls `sink` for each complete line or over-long line.
    pub(crate) fn push(&mut self, mut input: &[u8], sink: &mut impl FnMut(Frame<'_>)) {
        while !input.is_empty() {
            let taken = self.push_line(input, sink);
            input = &input[taken..];
        }
    }

    /// Feeds `input` up to and including its first newline (all of it if
    /// it has none) and returns how many bytes that is: at least one unless
    /// `input` is empty. Calls `sink` at most once, for the line (or the
    /// over-long line) that newline ends. For callers that stop between
    /// lines, so each byte is still searched for a newline only once.
    pub(crate) fn push_line(&mut self, input: &[u8], sink: &mut impl FnMut(Frame<'_>)) -> usize {
        let newline = find_newline(input);
        if self.discarding {
            return match newline {
                Some(pos) => {
                    self.discarding = false;
                    pos + 1
                }
                None => input.len(),
            };
        }
        match newline {
            Some(pos) => {
                let head = &input[..pos];
                if self.partial.len() + head.len() > self.max_line {
                    // Crossed the limit in this chunk; its newline is
                    // here too, so there is nothing left to skip.
                    self.report_too_long(head, sink);
                    self.discarding = false;
                } else if self.partial.is_empty() {
                    emit_line(head, sink);
                } else {
                    self.partial.extend_from_slice(head);
                    emit_line(&self.partial, sink);
                    self.reset_partial();
                }
                pos + 1
            }
            None => {
                if self.partial.len() + input.len() > self.max_line {
                    self.report_too_long(input, sink);
                } else {
                    self.partial.extend_from_slice(input);
                }
                input.len()
            }
        }
    }

    /// Ends the input: returns what was left of an unterminated line, if
    /// anything but whitespace. The splitter is empty afterwards.
    pub(crate) fn finish(&mut self, sink: &mut impl FnMut(Frame<'_>)) -> bool {
        self.discarding = false;
        if self.partial.iter().all(u8::is_ascii_whitespace) {
            self.reset_partial();
            return false;
        }
        emit_line(&self.partial, sink);
        self.reset_partial();
        true
    }

    fn report_too_long(&mut self, tail: &[u8], sink: &mut impl FnMut(Frame<'_>)) {
        let mut prefix = std::mem::take(&mut self.partial);
        let room = self.prefix_len.saturating_sub(prefix.len());
        prefix.truncate(self.prefix_len);
        prefix.extend_from_slice(&tail[..room.min(tail.len())]);
        sink(Frame::TooLong { prefix: &prefix });
        self.discarding = true;
        self.reset_partial();
    }

    fn reset_partial(&mut self) {
        if self.partial.capacity() > RETAINED_CAPACITY {
            self.partial = Vec::new();
        } else {
            self.partial.clear();
        }
    }
}

fn emit_line(line: &[u8], sink: &mut impl FnMut(Frame<'_>)) {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return;
    }
    sink(Frame::Line(line));
}

const LO: u64 = 0x0101_0101_0101_0101;
const HI: u64 = 0x8080_8080_8080_8080;
const NL: u64 = LO * b'\n' as u64;

/// The high bit of each byte of `word` that is `\n` (exact for "is there
/// one": the borrow of the subtraction only ever runs past a zero byte).
fn newline_bits(word: u64) -> u64 {
    let x = word ^ NL;
    x.wrapping_sub(LO) & !x & HI
}

fn word(bytes: &[u8]) -> u64 {
    let mut word = [0u8; 8];
    word.copy_from_slice(bytes);
    u64::from_le_bytes(word)
}

/// Position of the first `\n` in `haystack`, 32 bytes at a time. (To
/// feed a session a line at a time, use
/// [`Session::handle_input_line`](crate::Session::handle_input_line): it
/// finds the line's end itself, so the bytes are searched once.)
///
/// A word-at-a-time scan instead of a per-byte loop: lines of tool output
/// are long, and this runs over every byte the CLI writes. Four words per
/// step, one branch for the four, took a third fewer instructions than a
/// word per step (callgrind, the benchmark transcript).
pub fn find_newline(haystack: &[u8]) -> Option<usize> {
    let mut chunks = haystack.chunks_exact(32);
    let mut offset = 0;
    for chunk in &mut chunks {
        let found = newline_bits(word(&chunk[..8]))
            | newline_bits(word(&chunk[8..16]))
            | newline_bits(word(&chunk[16..24]))
            | newline_bits(word(&chunk[24..]));
        if found != 0 {
            return chunk.iter().position(|&b| b == b'\n').map(|p| offset + p);
        }
        offset += 32;
    }
    chunks
        .remainder()
        .iter()
        .position(|&b| b == b'\n')
        .map(|p| offset + p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq, Eq)]
    enum Out {
        Line(Vec<u8>),
        TooLong(Vec<u8>),
    }

    #[test]
    fn find_newline_at_every_position() {
        for len in 0..100 {
            for at in 0..=len {
                let mut bytes = vec![b'a'; len];
                if at < len {
                    bytes[at] = b'\n';
                    // Bytes that differ from `\n` by one bit, around it.
                    for (i, b) in bytes.iter_mut().enumerate() {
                        if i != at && i % 3 == 0 {
                            *b = if i % 2 == 0 { 0x0B } else { 0x8A };
                        }
                    }
                }
                let newline = (at < len).then_some(at);
                assert_eq!(find_newline(&bytes), newline, "len {len} at {at}");
                let mut twice = bytes.clone();
                twice.extend_from_slice(&bytes);
                assert_eq!(find_newline(&twice), newline, "len {len} at {at}, twice");
            }
        }
    }

    fn run(max: usize, chunks: &[&[u8]]) -> (Vec<Out>, Vec<u8>) {
        let mut s = LineSplitter::new(max, 4);
        let mut out = Vec::new();
        let mut sink = |f: Frame<'_>| match f {
            Frame::Line(l) => out.push(Out::Line(l.to_vec())),
            Frame::TooLong { prefix } => out.push(Out::TooLong(prefix.to_vec())),
        };
        for c in chunks {
            s.push(c, &mut sink);
        }
        let mut rest = Vec::new();
        s.finish(&mut |f| {
            if let Frame::Line(l) = f {
                rest = l.to_vec();
            }
        });
        (out, rest)
    }

    fn line(s: &str) -> Out {
        Out::Line(s.as_bytes().to_vec())
    }

    #[test]
    fn splits_lines_and_skips_blank_ones() {
        let (out, rest) = run(100, &[b"a\n\n  \r\nbc\r\nd"]);
        assert_eq!(out, vec![line("a"), line("bc")]);
        assert_eq!(rest, b"d");
    }

    #[test]
    fn every_split_point_gives_the_same_lines() {
        let data = b"{\"x\":\"\xc3\xa9\"}\n{\"y\":2}\r\n\n{\"z\":3}\n";
        let (whole, _) = run(100, &[data]);
        for i in 0..=data.len() {
            for j in i..=data.len() {
                let (out, rest) = run(100, &[&data[..i], &data[i..j], &data[j..]]);
                assert_eq!(out, whole, "split at {i},{j}");
                assert!(rest.is_empty());
            }
        }
    }

    #[test]
    fn a_line_at_a_time_gives_the_same_frames() {
        let data: &[u8] = b"ok\n0123456789\r\n\n  \nnext\r\n012345678\nz";
        for split in 0..=data.len() {
            let (whole, whole_rest) = run(5, &[&data[..split], &data[split..]]);
            let mut s = LineSplitter::new(5, 4);
            let mut out = Vec::new();
            for chunk in [&data[..split], &data[split..]] {
                let mut rest = chunk;
                while !rest.is_empty() {
                    let mut frames = 0;
                    let taken = s.push_line(rest, &mut |f| {
                        frames += 1;
                        out.push(match f {
                            Frame::Line(l) => Out::Line(l.to_vec()),
                            Frame::TooLong { prefix } => Out::TooLong(prefix.to_vec()),
                        });
                    });
                    assert!(taken > 0 && frames <= 1);
                    // Only the bytes up to the first newline are taken.
                    assert_eq!(find_newline(&rest[..taken - 1]), None);
                    rest = &rest[taken..];
                }
            }
            let mut rest = Vec::new();
            s.finish(&mut |f| {
                if let Frame::Line(l) = f {
                    rest = l.to_vec();
                }
            });
            assert_eq!((out, rest), (whole, whole_rest), "split at {split}");
        }
    }

    #[test]
    fn over_long_line_is_reported_once_and_skipped() {
        let (out, _) = run(5, &[b"ok\n0123", b"456789", b"abc\nnext\n"]);
        assert_eq!(
            out,
            vec![line("ok"), Out::TooLong(b"0123".to_vec()), line("next")]
        );
        let (out, _) = run(5, &[b"0123456789\nnext\n"]);
        assert_eq!(out, vec![Out::TooLong(b"0123".to_vec()), line("next")]);
    }

    #[test]
    fn limit_is_inclusive() {
        let (out, _) = run(5, &[b"12345\n123456\n"]);
        assert_eq!(out, vec![line("12345"), Out::TooLong(b"1234".to_vec())]);
        let (out, _) = run(5, &[b"123", b"45\n", b"123", b"456\nz\n"]);
        assert_eq!(
            out,
            vec![line("12345"), Out::TooLong(b"1234".to_vec()), line("z")]
        );
    }

    #[test]
    fn buffer_never_exceeds_the_limit() {
        let mut s = LineSplitter::new(1000, 16);
        let mut reports = 0;
        for _ in 0..10_000 {
            s.push(&[b'x'; 997], &mut |_| reports += 1);
            assert!(s.buffered() <= 1000);
        }
        assert_eq!(reports, 1);
    }

    #[test]
    fn find_newline_matches_naive_search() {
        let mut data = vec![b'a'; 40];
        assert_eq!(find_newline(&data), None);
        for i in 0..40 {
            data[i] = b'\n';
            assert_eq!(find_newline(&data), Some(i));
            data[i] = 0x8a; // high bit set, low bits as '\n'
            assert_eq!(find_newline(&data), None);
            data[i] = b'a';
        }
    }
}
