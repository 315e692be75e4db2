//! The probe's fast path: one scan of a transcript line, without serde,
//! that checks it is a JSON object in valid UTF-8 and reads the fields
//! the conversation's shape depends on.
//!
//! Reading a 100 MB session is reading its lines' text, most of it in
//! message content the index skips; serde_json's read of a line (after
//! `str::from_utf8` over it) costs a dispatch per token and a string
//! allocation per field, and this scan skips strings eight bytes at a time
//! and checks their encoding as it goes.
//!
//! It decides only the easy lines, as the routing scan does: anything a
//! field is read from that is not a plain string or `true`, `false`,
//! `null` (a number, an escaped string, a nested value), an escaped key,
//! or nesting deeper than [`MAX_NESTING`] sends the line the slow way,
//! which stays the one authority. So the only promise is: when [`probe`]
//! answers `Some`, serde_json reads the same [`Probe`] from the line. The
//! tests below and the `transcript` fuzz target (`cfg(fuzzing)`) check it.

use serde_json::Value;

use super::probe::{Block, Probe};
use crate::json_scan::Scanner;

/// Deeper lines go the slow way: serde_json's recursion limit (128) then
/// decides, as it would.
pub(super) const MAX_NESTING: usize = 100;

/// The probe of `line`, if it is simple enough; `None` sends it the slow
/// way (which may still read it, or find it is not JSON).
pub(super) fn probe(line: &[u8]) -> Option<Probe> {
    let mut scan = Scanner::new(line);
    let mut probe = Probe::default();
    scan.whitespace();
    scan.expect(b'{')?;
    entries(&mut scan, |scan, key| {
        match key {
            b"type" => probe.kind = string(scan)?,
            b"uuid" => probe.uuid = string(scan)?,
            b"parentUuid" => probe.parent = string(scan)?,
            b"isSidechain" => probe.sidechain = truthy(scan)?,
            b"isMeta" => probe.meta = truthy(scan)?,
            b"teamName" => probe.team = truthy(scan)?,
            b"agentId" => probe.agent_id = Some(simple_value(scan)?),
            b"timestamp" => probe.timestamp = string(scan)?,
            b"sourceToolAssistantUUID" => probe.source_tool_assistant = string(scan)?,
            b"message" => {
                let (id, blocks) = message(scan)?;
                probe.message_id = id;
                probe.blocks = blocks;
            }
            _ => scan.value_within(MAX_NESTING - 1)?,
        }
        Some(())
    })?;
    scan.whitespace();
    scan.at_end().then_some(probe)
}

/// The entries of an object whose `{` was read, each key handed to `each`
/// with the scan at its value (which `each` must read); past the `}`.
/// `None` for an escaped key (it may spell a key `each` reads).
fn entries<'a>(
    scan: &mut Scanner<'a>,
    mut each: impl FnMut(&mut Scanner<'a>, &'a [u8]) -> Option<()>,
) -> Option<()> {
    scan.whitespace();
    if scan.peek() == Some(b'}') {
        scan.at += 1;
        return Some(());
    }
    loop {
        scan.whitespace();
        let key = plain_bytes(scan)?;
        scan.whitespace();
        scan.expect(b':')?;
        scan.whitespace();
        each(scan, key)?;
        scan.whitespace();
        match scan.next()? {
            b',' => {}
            b'}' => return Some(()),
            _ => return None,
        }
    }
}

/// The elements of an array whose `[` was read, each handed to `each`
/// with the scan at it; past the `]`.
fn elements<'a>(
    scan: &mut Scanner<'a>,
    mut each: impl FnMut(&mut Scanner<'a>) -> Option<()>,
) -> Option<()> {
    scan.whitespace();
    if scan.peek() == Some(b']') {
        scan.at += 1;
        return Some(());
    }
    loop {
        scan.whitespace();
        each(scan)?;
        scan.whitespace();
        match scan.next()? {
            b',' => {}
            b']' => return Some(()),
            _ => return None,
        }
    }
}

/// A string without escapes, as bytes (past its closing quote).
fn plain_bytes<'a>(scan: &mut Scanner<'a>) -> Option<&'a [u8]> {
    scan.plain_string().map(str::as_bytes)
}

/// A value read as a `serde_json::Value` would read it, when it is a plain
/// string or `true`, `false`, `null`.
fn simple_value(scan: &mut Scanner<'_>) -> Option<Value> {
    let value = match scan.peek()? {
        b'"' => return Some(Value::String(scan.plain_string()?.to_owned())),
        b't' => Value::Bool(true),
        b'f' => Value::Bool(false),
        b'n' => Value::Null,
        _ => return None,
    };
    // Checks the literal its first byte names; no nesting.
    scan.value_within(0)?;
    Some(value)
}

/// What the probe's `string(Value)` reads: the text of a string, nothing
/// for `true`, `false`, `null`.
fn string(scan: &mut Scanner<'_>) -> Option<Option<String>> {
    Some(match simple_value(scan)? {
        Value::String(text) => Some(text),
        _ => None,
    })
}

/// What the probe's `truthy(Value)` reads.
fn truthy(scan: &mut Scanner<'_>) -> Option<bool> {
    Some(super::probe::truthy(&simple_value(scan)?))
}

/// `message`: its non-empty `id` and its content's blocks when it is an
/// object; nothing for an array (skipped), a plain string or a literal.
fn message(scan: &mut Scanner<'_>) -> Option<(Option<String>, Vec<Block>)> {
    let mut id = None;
    let mut blocks = Vec::new();
    match scan.peek()? {
        b'{' => {
            scan.at += 1;
            entries(scan, |scan, key| {
                match key {
                    b"id" => id = string(scan)?.filter(|id| !id.is_empty()),
                    b"content" => blocks = content(scan)?,
                    _ => scan.value_within(MAX_NESTING - 2)?,
                }
                Some(())
            })?;
        }
        b'[' => scan.value_within(MAX_NESTING - 1)?,
        _ => {
            simple_value(scan)?;
        }
    }
    Some((id, blocks))
}

/// `message.content`: a block per element of an array but `null`; nothing
/// for an object (its entries skipped), a plain string or a literal.
fn content(scan: &mut Scanner<'_>) -> Option<Vec<Block>> {
    let mut blocks = Vec::new();
    match scan.peek()? {
        b'[' => {
            scan.at += 1;
            elements(scan, |scan| {
                if scan.peek()? == b'n' {
                    return simple_value(scan).map(drop);
                }
                blocks.push(block(scan)?);
                Some(())
            })?;
        }
        b'{' => {
            scan.at += 1;
            entries(scan, |scan, _| scan.value_within(MAX_NESTING - 3))?;
        }
        _ => {
            simple_value(scan)?;
        }
    }
    Some(blocks)
}

/// One content block: its `type`, `id` and `tool_use_id` when it is an
/// object; an empty block for an array (skipped), a plain string or a
/// literal.
fn block(scan: &mut Scanner<'_>) -> Option<Block> {
    let mut block = Block::default();
    match scan.peek()? {
        b'{' => {
            scan.at += 1;
            entries(scan, |scan, key| {
                match key {
                    b"type" => block.kind = string(scan)?,
                    b"id" => block.id = string(scan)?,
                    b"tool_use_id" => block.tool_use_id = string(scan)?,
                    _ => scan.value_within(MAX_NESTING - 4)?,
                }
                Some(())
            })?;
        }
        b'[' => scan.value_within(MAX_NESTING - 3)?,
        _ => {
            simple_value(scan)?;
        }
    }
    Some(block)
}

/// Panics if [`probe`] answers where serde_json would not, or answers
/// differently.
#[cfg(any(test, fuzzing))]
pub(crate) fn check_probe(line: &[u8]) {
    if let Some(fast) = probe(line) {
        let slow = std::str::from_utf8(line)
            .ok()
            .and_then(|_| super::probe::Probe::slowly(line));
        assert_eq!(
            Some(fast),
            slow,
            "the transcript probe's fast path disagrees on {:?}",
            String::from_utf8_lossy(line)
        );
    }
}

#[cfg(test)]
mod tests;
