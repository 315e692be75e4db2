//! Transcripts: arbitrary bytes read as a session's JSONL never panic,
//! and what comes out holds together: the thread names only lines that
//! were fed, each once, and every one of them is a message; the listing
//! of the bytes as head and tail never panics; and a fork of them writes
//! only JSON objects whose uuids are fresh and whose parents are in the
//! fork.
#![no_main]

use std::collections::HashSet;

use claude_proto::transcript::{
    ArchiveMark, Fork, ForkSource, Lite, SessionInfo, SessionMessage, Span, TranscriptIndex,
    first_prompt_of, parse_iso_millis, project_key,
};
use libfuzzer_sys::fuzz_target;

fn lines(data: &[u8]) -> Vec<(Span, &[u8])> {
    let mut out = Vec::new();
    let mut start = 0u64;
    for line in data.split(|&b| b == b'\n') {
        out.push((
            Span {
                start,
                len: line.len() as u64,
            },
            line,
        ));
        start += line.len() as u64 + 1;
    }
    out
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = parse_iso_millis(&text);
    let _ = project_key(&text);
    let _ = first_prompt_of(&text);
    let _ = ArchiveMark::parse(data).map(|m| m.is_archived(&text, &text));
    let half = text.len() / 2;
    let cut = (0..=half).rev().find(|&i| text.is_char_boundary(i)).unwrap_or(0);
    let lite = Lite {
        head: &text[..cut],
        tail: &text[cut..],
        mtime: 0,
        size: Some(data.len() as u64),
    };
    let _ = SessionInfo::from_lite("s", lite, None);

    let lines = lines(data);
    let mut index = TranscriptIndex::new();
    let mut source = ForkSource::new("s");
    for &(span, line) in &lines {
        index.handle_line(span, line);
        source.handle_line(span, line);
    }
    let fed: HashSet<Span> = lines.iter().map(|(s, _)| *s).collect();
    let line_at = |span: Span| {
        lines
            .iter()
            .find(|(s, _)| *s == span)
            .map(|(_, l)| *l)
            .unwrap_or_default()
    };
    for thread in [index.conversation(), index.subagent_conversation()] {
        let unique: HashSet<Span> = thread.iter().copied().collect();
        assert_eq!(unique.len(), thread.len(), "a line twice in the thread");
        for span in thread {
            assert!(fed.contains(&span), "a span that was never fed");
            assert!(
                SessionMessage::from_line(line_at(span)).is_some(),
                "a thread line that is not a message"
            );
        }
    }

    let mut n = 0u64;
    let mut uuid = || {
        n += 1;
        format!("fresh-{n}")
    };
    let Ok(fork) = Fork::plan(source, None, 0, &mut uuid) else {
        return;
    };
    let mut written = Vec::new();
    let spans: Vec<Span> = fork.spans().collect();
    for (i, span) in spans.into_iter().enumerate() {
        let line = fork
            .rewrite(i, line_at(span))
            .expect("a planned line rewrites");
        written.push(line);
    }
    written.extend(fork.closing_lines(None, None, &mut uuid));
    let mut uuids = HashSet::new();
    for line in &written {
        let value: serde_json::Value = serde_json::from_str(line).expect("the fork writes JSON");
        let uuid = value["uuid"].as_str().expect("a uuid").to_owned();
        assert!(uuid.starts_with("fresh-"), "an old uuid in the fork");
        uuids.insert(uuid);
    }
    for line in &written {
        let value: serde_json::Value = serde_json::from_str(line).expect("JSON");
        if let Some(parent) = value.get("parentUuid").and_then(|p| p.as_str()) {
            assert!(uuids.contains(parent), "a parent outside the fork");
        }
    }
});
