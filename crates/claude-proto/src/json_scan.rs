//! A scan of JSON text that checks it as serde_json reads it, without
//! serde: valid syntax, valid UTF-8 inside strings (the only place JSON
//! allows non-ASCII bytes), escapes well formed. Strings are skipped eight
//! bytes at a time.
//!
//! The fast paths built on it ([`route`](crate::route), the transcript
//! probe) decide only the easy lines and send anything else the slow way
//! (serde_json), which stays the one authority on errors.

/// Nesting deeper than this goes the slow way (serde_json reads any depth
/// when it skips a value; this scan keeps one bit per level).
pub(crate) const MAX_DEPTH: usize = 64 * STACK_WORDS;
const STACK_WORDS: usize = 8;

pub(crate) struct Scanner<'a> {
    bytes: &'a [u8],
    pub(crate) at: usize,
}

impl<'a> Scanner<'a> {
    /// A scan of `bytes` from their start.
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        Self { bytes, at: 0 }
    }

    /// Whether the whole text was read.
    pub(crate) fn at_end(&self) -> bool {
        self.at == self.bytes.len()
    }

    pub(crate) fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    pub(crate) fn next(&mut self) -> Option<u8> {
        let byte = self.peek()?;
        self.at += 1;
        Some(byte)
    }

    pub(crate) fn expect(&mut self, byte: u8) -> Option<()> {
        (self.next()? == byte).then_some(())
    }

    /// JSON's whitespace, as serde_json reads it (no form feed).
    pub(crate) fn whitespace(&mut self) {
        while let Some(b' ' | b'\n' | b'\t' | b'\r') = self.peek() {
            self.at += 1;
        }
    }

    /// A string with no escape, as text; `None` for anything else.
    pub(crate) fn plain_string(&mut self) -> Option<&'a str> {
        self.expect(b'"')?;
        let start = self.at;
        if self.string()? {
            return None;
        }
        std::str::from_utf8(self.bytes.get(start..self.at - 1)?).ok()
    }

    /// The rest of a string whose opening quote was read: `Some(escaped)`
    /// once past its closing quote, `None` if it is not valid JSON or
    /// not valid UTF-8.
    pub(crate) fn string(&mut self) -> Option<bool> {
        // The position in a local, and one loop: a session's text has an
        // escape every ten bytes or so (newlines, quotes, `\u00e9`), so
        // the cost is per escape more than per byte.
        let bytes = self.bytes;
        let mut at = self.at;
        let mut escaped = false;
        loop {
            // Past the bytes that need no look: not `"`, `\`, a control
            // character or non-ASCII. Eight at a time while eight remain.
            let byte = loop {
                if let Some(chunk) = bytes.get(at..at + 8) {
                    let word = u64::from_le_bytes(<[u8; 8]>::try_from(chunk).ok()?);
                    let marks = special_bytes(word);
                    if marks == 0 {
                        at += 8;
                        continue;
                    }
                    at += (marks.trailing_zeros() / 8) as usize;
                    break *bytes.get(at)?;
                }
                let byte = *bytes.get(at)?;
                if byte == b'"' || byte == b'\\' || !(0x20..0x80).contains(&byte) {
                    break byte;
                }
                at += 1;
            };
            match byte {
                b'"' => {
                    self.at = at + 1;
                    return Some(escaped);
                }
                b'\\' => {
                    escaped = true;
                    match *bytes.get(at + 1)? {
                        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => at += 2,
                        b'u' => {
                            let digits = bytes.get(at + 2..at + 6)?;
                            if !digits.iter().all(u8::is_ascii_hexdigit) {
                                return None;
                            }
                            at += 6;
                        }
                        _ => return None,
                    }
                }
                lead if lead >= 0x80 => at += 1 + utf8_tail(lead, bytes.get(at + 1..)?)?,
                // A control character.
                _ => return None,
            }
        }
    }

    /// One JSON value of any kind, nested to at most [`MAX_DEPTH`].
    pub(crate) fn value(&mut self) -> Option<()> {
        self.value_within(MAX_DEPTH)
    }

    /// One JSON value of any kind, nested to at most `max_depth` levels
    /// (and [`MAX_DEPTH`]).
    pub(crate) fn value_within(&mut self, max_depth: usize) -> Option<()> {
        let max_depth = max_depth.min(MAX_DEPTH);
        // One bit per open container: set for an object.
        let mut stack = [0u64; STACK_WORDS];
        let mut depth = 0usize;
        loop {
            // A value is expected here.
            self.whitespace();
            let mut closed = true;
            match self.next()? {
                b'"' => {
                    self.string()?;
                }
                open @ (b'{' | b'[') => {
                    if depth >= max_depth {
                        return None;
                    }
                    let word = stack.get_mut(depth / 64)?;
                    let bit = 1u64 << (depth % 64);
                    if open == b'{' {
                        *word |= bit;
                    } else {
                        *word &= !bit;
                    }
                    depth += 1;
                    self.whitespace();
                    let close = if open == b'{' { b'}' } else { b']' };
                    if self.peek() == Some(close) {
                        self.at += 1;
                        depth -= 1;
                    } else if open == b'{' {
                        self.key()?;
                        closed = false;
                    } else {
                        closed = false;
                    }
                }
                b't' => self.literal(b"rue")?,
                b'f' => self.literal(b"alse")?,
                b'n' => self.literal(b"ull")?,
                b'-' => {
                    let first = self.next()?;
                    self.number(first)?;
                }
                first @ b'0'..=b'9' => self.number(first)?,
                _ => return None,
            }
            if !closed {
                continue;
            }
            // After a value: close containers until a comma asks for the
            // next value.
            loop {
                if depth == 0 {
                    return Some(());
                }
                let top = depth - 1;
                let in_object = stack.get(top / 64)? & (1u64 << (top % 64)) != 0;
                self.whitespace();
                match self.next()? {
                    b',' => {
                        if in_object {
                            self.whitespace();
                            self.key()?;
                        }
                        break;
                    }
                    b'}' if in_object => depth -= 1,
                    b']' if !in_object => depth -= 1,
                    _ => return None,
                }
            }
        }
    }

    /// An object's key and its colon.
    pub(crate) fn key(&mut self) -> Option<()> {
        self.expect(b'"')?;
        self.string()?;
        self.whitespace();
        self.expect(b':')
    }

    fn literal(&mut self, rest: &[u8]) -> Option<()> {
        let end = self.at + rest.len();
        (self.bytes.get(self.at..end)? == rest).then(|| self.at = end)
    }

    /// The rest of a number whose first digit was read (after any minus).
    fn number(&mut self, first: u8) -> Option<()> {
        match first {
            b'0' => {
                if let Some(b'0'..=b'9') = self.peek() {
                    return None;
                }
            }
            b'1'..=b'9' => {
                self.digits();
            }
            _ => return None,
        }
        if self.peek() == Some(b'.') {
            self.at += 1;
            if self.digits() == 0 {
                return None;
            }
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.at += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.at += 1;
            }
            if self.digits() == 0 {
                return None;
            }
        }
        Some(())
    }

    fn digits(&mut self) -> usize {
        let start = self.at;
        while let Some(b'0'..=b'9') = self.peek() {
            self.at += 1;
        }
        self.at - start
    }
}

/// Marks the high bit of each byte of `word` (little-endian) that is `"`,
/// `\`, below 0x20 or above 0x7F. A subtraction's borrow can mark a byte
/// falsely only above a byte that truly matches, so the lowest mark is
/// exact, which is all the caller reads.
pub(crate) fn special_bytes(word: u64) -> u64 {
    const ONES: u64 = u64::MAX / 255;
    // A byte of `x - ONES` has its high bit set when that byte of `x` was
    // 0 (it wrapped) or was above 0x80; the second case is a byte above
    // 0x7F in `word`, marked anyway by the last term.
    let quote = (word ^ (ONES * u64::from(b'"'))).wrapping_sub(ONES);
    let backslash = (word ^ (ONES * u64::from(b'\\'))).wrapping_sub(ONES);
    let control = word.wrapping_sub(ONES * 0x20);
    (quote | backslash | control | word) & (ONES << 7)
}

/// How many continuation bytes the character that starts with `lead`
/// takes from `rest`, if it is valid UTF-8: no overlong form, no
/// surrogate, nothing above U+10FFFF (the Unicode standard's table 3-7).
fn utf8_tail(lead: u8, rest: &[u8]) -> Option<usize> {
    let (tail, second) = match lead {
        0xC2..=0xDF => (1, 0x80..=0xBF),
        0xE0 => (2, 0xA0..=0xBF),
        0xE1..=0xEC | 0xEE..=0xEF => (2, 0x80..=0xBF),
        0xED => (2, 0x80..=0x9F),
        0xF0 => (3, 0x90..=0xBF),
        0xF1..=0xF3 => (3, 0x80..=0xBF),
        0xF4 => (3, 0x80..=0x8F),
        _ => return None,
    };
    let bytes = rest.get(..tail)?;
    let (first, others) = bytes.split_first()?;
    (second.contains(first) && others.iter().all(|b| (0x80..=0xBF).contains(b))).then_some(tail)
}
