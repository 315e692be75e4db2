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

#[cfg(test)]
use crate::json_scan::MAX_DEPTH;
use crate::json_scan::Scanner;

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
    let mut scan = Scanner::new(line);
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
