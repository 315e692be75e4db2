//! Framing: arbitrary bytes in arbitrary chunks give the same events as the
//! same bytes in one chunk, never panic, and never buffer more than
//! `max_line_bytes`.
//!
//! Input layout: `[config] [n] [n chunk-length bytes] [payload...]`.
//! - `config & 3` picks `max_line_bytes` (1024 most of the time; 32, 200 or
//!   8192 to reach the over-long-line paths with small inputs);
//! - `n = byte % 16` chunk lengths are cycled over the payload; a length of
//!   0 feeds an empty chunk, then one byte.
#![no_main]

use claude_proto::{Config, Event, Session};
use libfuzzer_sys::fuzz_target;

const LIMITS: [usize; 4] = [1024, 32, 200, 8192];

/// A stable description of an event: everything a caller could observe that
/// must not depend on the chunking.
fn describe(event: &Event) -> String {
    match event {
        Event::Message(m) => {
            // A delivered message is valid UTF-8 and begins with `{`; when
            // serde_json can build a `Value` from it, it is an object and
            // its typed view never fails (documented on `Message::parse`).
            let bytes = m.as_bytes();
            assert!(std::str::from_utf8(bytes).is_ok(), "message is not UTF-8");
            match serde_json::from_slice::<serde_json::Value>(bytes) {
                Ok(serde_json::Value::Object(_)) => {
                    if let Err(e) = m.parse() {
                        panic!(
                            "Message::parse failed on a delivered line: {e}: {:?}",
                            String::from_utf8_lossy(bytes)
                        );
                    }
                }
                Ok(_) => panic!("delivered a message that is not an object"),
                // See `value_artifact` for the lines this allows.
                Err(e) => value_artifact(&e, bytes),
            }
            format!(
                "message type={} subtype={:?} bytes={:?}",
                m.message_type().as_str(),
                m.subtype(),
                bytes
            )
        }
        Event::Request(r) => format!(
            "request id={} wire={:?} subtype={:?}",
            r.id(),
            r.request_id(),
            r.subtype()
        ),
        Event::ProtocolError(e) => {
            format!("error kind={:?} prefix={:?}", e.kind, e.line_prefix)
        }
        other => format!("{other:?}"),
    }
}

/// serde_json's skipping pass (used to route a line) accepts a few things
/// its `Value` builder rejects: numbers out of `f64` range (`1e400`) and
/// escapes of lone UTF-16 surrogates (`"\ud800"`) in fields that are only
/// skipped. Such a line is still delivered (relays forward it verbatim);
/// only its typed view (`Message::parse`) fails. Known and reported, not
/// fixed here: Node's `JSON.stringify` writes a lone surrogate exactly so,
/// e.g. when tool output is cut inside an emoji. Anything else is a bug.
fn value_artifact(e: &serde_json::Error, bytes: &[u8]) {
    let msg = e.to_string();
    assert!(
        msg.contains("number out of range")
            || msg.contains("surrogate")
            || msg.contains("end of hex escape"),
        "delivered a line serde_json cannot read ({msg}): {:?}",
        String::from_utf8_lossy(bytes)
    );
}

struct Run {
    events: Vec<String>,
    transmit: Vec<u8>,
}

fn run(payload: &[u8], lengths: &[u8], max_line: usize) -> Run {
    let mut config = Config::default();
    config.max_line_bytes = max_line;
    let mut session = Session::new(config);
    let mut events = Vec::new();
    let mut transmit = Vec::new();
    let mut drain = |session: &mut Session| {
        assert!(
            session.buffered_input() <= max_line,
            "buffered {} > limit {max_line}",
            session.buffered_input()
        );
        session.poll_transmit(&mut transmit);
        while let Some(event) = session.poll_event() {
            events.push(describe(&event));
        }
    };
    let mut rest = payload;
    let mut i = 0;
    while !rest.is_empty() {
        let mut len = if lengths.is_empty() {
            rest.len()
        } else {
            lengths[i % lengths.len()] as usize
        };
        i += 1;
        if len == 0 {
            session.handle_input(&[]);
            drain(&mut session);
            len = 1;
        }
        let (chunk, tail) = rest.split_at(len.min(rest.len()));
        rest = tail;
        session.handle_input(chunk);
        drain(&mut session);
    }
    session.handle_eof();
    drain(&mut session);
    assert_eq!(session.buffered_input(), 0, "input left buffered after EOF");
    assert_eq!(session.pending_incoming(), 0);
    assert_eq!(session.pending_requests(), 0);
    // Input after EOF is ignored.
    session.handle_input(b"{\"type\":\"keep_alive\"}\n");
    session.handle_eof();
    assert!(session.poll_event().is_none(), "event after EOF");
    Run { events, transmit }
}

fuzz_target!(|data: &[u8]| {
    let Some((&config, data)) = data.split_first() else {
        return;
    };
    let Some((&n, data)) = data.split_first() else {
        return;
    };
    let n = usize::from(n % 16).min(data.len());
    let (lengths, payload) = data.split_at(n);
    let max_line = LIMITS[usize::from(config & 3)];

    let whole = run(payload, &[], max_line);
    let chunked = run(payload, lengths, max_line);
    assert_eq!(whole.events, chunked.events, "chunking changed the events");
    assert_eq!(
        whole.transmit, chunked.transmit,
        "chunking changed what was written"
    );
    // Whatever was written (automatic refusals) is whole lines of JSON
    // objects.
    if !whole.transmit.is_empty() {
        assert_eq!(whole.transmit.last(), Some(&b'\n'));
    }
    for line in whole
        .transmit
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
    {
        assert!(
            matches!(
                serde_json::from_slice::<serde_json::Value>(line),
                Ok(serde_json::Value::Object(_))
            ),
            "wrote a line that is not a JSON object: {:?}",
            String::from_utf8_lossy(line)
        );
    }
});
