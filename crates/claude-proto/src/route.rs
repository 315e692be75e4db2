//! The routing pass's fast path: one scan of a line that checks it is a
//! JSON object in valid UTF-8 and reads its top-level `type` and `subtype`,
//! without serde.
//!
//! Nearly every line the CLI writes is a plain message (a stream event, an
//! assistant or user message, a result), and all the session needs from one
//! is that it is valid and what it is. serde_json's envelope read (after
//! `str::from_utf8` over the whole line) costs a dispatch per token, a
//! string parse per key and a second pass over the bytes for the encoding;
//! this scan does both checks in one pass, and checks the encoding only
//! where JSON allows non-ASCII bytes: inside strings.
//!
//! It decides only the easy lines. [`route`] answers `None` for anything it
//! does not take on (an error of any kind, a key or routing string with an
//! escape, a routing field that is not a string or comes twice, nesting
//! deeper than [`MAX_DEPTH`]), and the caller reads the line the slow way,
//! which stays the one authority on errors. So the only promise this module
//! makes is: when it answers `Some`, serde_json would have read the same
//! envelope from the line without error, and the line is valid UTF-8. The
//! session checks that promise on every line when built for fuzzing
//! (`cfg(fuzzing)`), and the tests below check it on the recorded
//! transcripts and on generated lines.

/// Nesting deeper than this goes the slow way (serde_json reads any depth
/// when it skips a value; this scan keeps one bit per level).
pub(crate) const MAX_DEPTH: usize = 64 * STACK_WORDS;
const STACK_WORDS: usize = 8;

/// The routing fields of a plain line.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Route<'a> {
    pub(crate) ty: Option<&'a str>,
    pub(crate) subtype: Option<&'a str>,
}

/// The top-level keys the envelope reads: each may appear once, and the
/// first three are strings.
const ROUTING_KEYS: [&[u8]; 5] = [b"type", b"subtype", b"request_id", b"request", b"response"];

/// Reads `line` (without its newline) when it is simple enough; `None`
/// sends it the slow way.
pub(crate) fn route(line: &[u8]) -> Option<Route<'_>> {
    let [ty, subtype, ..] = top_level_strings(line, ROUTING_KEYS, 3)?;
    Some(Route { ty, subtype })
}

/// The top-level string `key` of a line known to be a JSON object in
/// UTF-8: `Some(None)` when it has no such key, `None` when it may have it
/// but not simply (escaped, not a string, twice, or an escaped key).
pub(crate) fn top_level_string<'a>(line: &'a [u8], key: &[u8]) -> Option<Option<&'a str>> {
    let [value] = top_level_strings(line, [key], 1)?;
    Some(value)
}

/// Checks that `line` is one JSON object in valid UTF-8 and reads the
/// values of `keys` at its top level: the first `strings` of them must be
/// strings without escapes, the others may be any value (and are not
/// returned). Every key may appear at most once and no key may be escaped.
fn top_level_strings<'a, const N: usize>(
    line: &'a [u8],
    keys: [&[u8]; N],
    strings: usize,
) -> Option<[Option<&'a str>; N]> {
    let mut scan = Scanner { bytes: line, at: 0 };
    scan.whitespace();
    scan.expect(b'{')?;
    let mut values = [None; N];
    let mut seen = [false; N];
    scan.whitespace();
    if scan.peek() == Some(b'}') {
        scan.at += 1;
    } else {
        loop {
            scan.whitespace();
            scan.expect(b'"')?;
            let key_start = scan.at;
            if scan.string()? {
                // An escaped key may spell one of `keys`.
                return None;
            }
            let key = line.get(key_start..scan.at - 1)?;
            scan.whitespace();
            scan.expect(b':')?;
            scan.whitespace();
            match keys.iter().position(|k| *k == key) {
                Some(index) => {
                    if std::mem::replace(seen.get_mut(index)?, true) {
                        return None;
                    }
                    if index < strings {
                        *values.get_mut(index)? = Some(scan.plain_string()?);
                    } else {
                        scan.value()?;
                    }
                }
                None => scan.value()?,
            }
            scan.whitespace();
            match scan.next()? {
                b',' => {}
                b'}' => break,
                _ => return None,
            }
        }
    }
    scan.whitespace();
    (scan.at == line.len()).then_some(values)
}

struct Scanner<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Scanner<'a> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn next(&mut self) -> Option<u8> {
        let byte = self.peek()?;
        self.at += 1;
        Some(byte)
    }

    fn expect(&mut self, byte: u8) -> Option<()> {
        (self.next()? == byte).then_some(())
    }

    /// JSON's whitespace, as serde_json reads it (no form feed).
    fn whitespace(&mut self) {
        while let Some(b' ' | b'\n' | b'\t' | b'\r') = self.peek() {
            self.at += 1;
        }
    }

    /// A string with no escape, as text; `None` for anything else.
    fn plain_string(&mut self) -> Option<&'a str> {
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
    fn string(&mut self) -> Option<bool> {
        let mut escaped = false;
        loop {
            self.skip_plain_bytes();
            match self.next()? {
                b'"' => return Some(escaped),
                b'\\' => {
                    escaped = true;
                    match self.next()? {
                        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => {}
                        b'u' => {
                            let digits = self.bytes.get(self.at..self.at + 4)?;
                            if !digits.iter().all(u8::is_ascii_hexdigit) {
                                return None;
                            }
                            self.at += 4;
                        }
                        _ => return None,
                    }
                }
                lead if lead >= 0x80 => {
                    self.at += utf8_tail(lead, self.bytes.get(self.at..)?)?;
                }
                // A control character.
                _ => return None,
            }
        }
    }

    /// Moves past bytes that need no look inside a string: not `"`, `\`,
    /// a control character or non-ASCII. Eight at a time.
    fn skip_plain_bytes(&mut self) {
        let rest = self.bytes.get(self.at..).unwrap_or_default();
        let mut skipped = 0;
        for chunk in rest.chunks_exact(8) {
            let Ok(word) = <[u8; 8]>::try_from(chunk) else {
                break;
            };
            let marks = special_bytes(u64::from_le_bytes(word));
            if marks != 0 {
                skipped += (marks.trailing_zeros() / 8) as usize;
                self.at += skipped;
                return;
            }
            skipped += 8;
        }
        self.at += skipped;
        while let Some(byte) = self.peek() {
            if byte == b'"' || byte == b'\\' || !(0x20..0x80).contains(&byte) {
                return;
            }
            self.at += 1;
        }
    }

    /// One JSON value of any kind, nested to at most [`MAX_DEPTH`].
    fn value(&mut self) -> Option<()> {
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
                    if depth == MAX_DEPTH {
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
    fn key(&mut self) -> Option<()> {
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
fn special_bytes(word: u64) -> u64 {
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

/// What the slow path reads from `line`: the same question [`route`]
/// answers, for checking it.
#[cfg(any(test, fuzzing))]
pub(crate) fn route_slowly(line: &[u8]) -> Option<(Option<String>, Option<String>)> {
    let text = std::str::from_utf8(line).ok()?;
    if line.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
        return None;
    }
    let envelope: crate::envelope::Envelope<'_> = serde_json::from_str(text).ok()?;
    Some((
        envelope.ty.map(|s| s.into_owned()),
        envelope.subtype.map(|s| s.into_owned()),
    ))
}

/// Panics if [`route`] answers where the slow path would not, or answers
/// differently.
#[cfg(any(test, fuzzing))]
pub(crate) fn check_route(line: &[u8]) {
    if let Some(fast) = route(line) {
        let fast = (fast.ty.map(str::to_owned), fast.subtype.map(str::to_owned));
        assert_eq!(
            Some(fast),
            route_slowly(line),
            "the fast routing pass disagrees on {:?}",
            String::from_utf8_lossy(line)
        );
    }
}

#[cfg(test)]
mod tests;
