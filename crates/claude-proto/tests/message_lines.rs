//! Feeding a line at a time (`Session::handle_input_line`) gives what one
//! `handle_input` gives, and `Message::session_id` (which reads only that
//! field) agrees with the full parse.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers fail loudly by design

use claude_proto::model::MessageType;
use claude_proto::{Config, Event, Message, Session};

fn messages(session: &mut Session) -> Vec<Message> {
    std::iter::from_fn(|| session.poll_event())
        .filter_map(|event| match event {
            Event::Message(message) => Some(message),
            _ => None,
        })
        .collect()
}

fn fixtures() -> Vec<u8> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures");
    let mut all = Vec::new();
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "ndjson"))
        .collect();
    paths.sort();
    for path in paths {
        all.extend(std::fs::read(path).unwrap());
    }
    all
}

#[test]
fn a_line_at_a_time_gives_the_same_messages() {
    let mut input = fixtures();
    // Lines longer than the arena's buffers, and one cut by the end.
    let big = format!(
        "{{\"type\":\"user\",\"text\":\"{}\"}}\n",
        "x".repeat(200_000)
    );
    input.extend(big.as_bytes());
    input.extend(b"{\"type\":\"assistant\",\"n\":1}\n\n{\"type\":\"user\"");
    let mut whole = Session::new(Config::default());
    whole.handle_input(&input);
    let expected = messages(&mut whole);
    for chunk in [1, 7, 4096, 64 * 1024] {
        let mut session = Session::new(Config::default());
        let mut got = Vec::new();
        for read in input.chunks(chunk) {
            let mut rest = read;
            while !rest.is_empty() {
                let taken = session.handle_input_line(rest);
                assert!(taken > 0);
                rest = &rest[taken..];
                got.extend(messages(&mut session));
            }
        }
        assert_eq!(got.len(), expected.len(), "chunk {chunk}");
        for (got, expected) in got.iter().zip(&expected) {
            assert_eq!(got.as_bytes(), expected.as_bytes(), "chunk {chunk}");
        }
    }
}

#[test]
fn session_id_agrees_with_the_full_parse() {
    let mut input = fixtures();
    for line in [
        r#"{"type":"result","subtype":"success","session_id":7}"#,
        r#"{"type":"result","subtype":"success","session_id":"a","session_id":"b"}"#,
        r#"{"type":"system","subtype":"init","session_id":"s\ud800x"}"#,
        r#"{"type":"system","subtype":"init"}"#,
        r#"{"type":"result","session_id":null}"#,
        r#"{"type":"user","session_id":"u"}"#,
    ] {
        input.extend(line.as_bytes());
        input.push(b'\n');
    }
    let mut session = Session::new(Config::default());
    session.handle_input(&input);
    let all = messages(&mut session);
    assert!(all.len() > 100);
    for message in all {
        if *message.message_type() == MessageType::KeepAlive {
            continue; // typed without its id
        }
        let parsed = message.parse().unwrap();
        assert_eq!(
            message.session_id().as_deref(),
            parsed.session_id(),
            "{}",
            String::from_utf8_lossy(message.as_bytes())
        );
    }
}

/// A detached message has the same bytes and type, in a buffer of its own.
#[test]
fn a_detached_message_is_the_same_message() {
    let mut session = Session::new(Config::default());
    session.handle_input(b"{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"s1\"}\n{\"type\":\"result\",\"session_id\":\"s1\"}\n");
    for message in messages(&mut session) {
        let detached = message.detached();
        assert_eq!(detached.as_bytes(), message.as_bytes());
        assert_eq!(detached.message_type(), message.message_type());
        assert_ne!(detached.as_bytes().as_ptr(), message.as_bytes().as_ptr());
        assert_eq!(detached.session_id().as_deref(), Some("s1"));
    }
}

#[test]
fn trim_gives_back_the_spare_room_and_changes_no_event() {
    let mut session = Session::new(Config::default());
    assert_eq!(session.spare_capacity(), 0, "nothing before any input");
    session.handle_input(b"{\"type\":\"assistant\",\"n\":1}\n");
    let first = messages(&mut session);
    assert_eq!(first.len(), 1);
    // The first buffer is the first line's size; the second, shared by
    // the lines after it, keeps its rest for more lines.
    assert_eq!(session.spare_capacity(), 0);
    session.handle_input(b"{\"type\":\"assistant\",\"n\":1}\n");
    assert_eq!(messages(&mut session).len(), 1);
    assert!(session.spare_capacity() > 0);
    session.trim();
    assert_eq!(session.spare_capacity(), 0);

    // A large line, arriving in pieces, trimmed between them: the line in
    // progress keeps its bytes, and the message is whole.
    let big = format!(
        "{{\"type\":\"user\",\"text\":\"{}\"}}\n",
        "x".repeat(1 << 20)
    );
    for piece in big.as_bytes().chunks(64 * 1024) {
        session.handle_input(piece);
        session.trim();
    }
    let got = messages(&mut session);
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].as_bytes(), big.trim_end().as_bytes());
    drop(got);
    // Nothing of the large line is held once it is read and trimmed.
    session.trim();
    assert_eq!(session.spare_capacity(), 0);
    // And the session goes on as before.
    session.handle_input(b"{\"type\":\"assistant\",\"n\":2}\n");
    assert_eq!(messages(&mut session).len(), 1);
    assert_eq!(first[0].as_bytes(), b"{\"type\":\"assistant\",\"n\":1}");
}

/// A slow stream of small lines: an adapter trims after each short read.
/// Each message then holds a buffer of its own line's size, so the
/// messages a consumer has not read yet hold their bytes (which the
/// read-ahead budget counts), not a 64 KiB buffer each.
#[test]
fn after_a_trim_a_line_gets_a_buffer_of_its_own_size() {
    let mut session = Session::new(Config::default());
    let line = b"{\"type\":\"stream_event\",\"event\":{},\"session_id\":\"s\"}\n";
    let mut unread = Vec::new();
    for _ in 0..1000 {
        session.handle_input(line);
        assert_eq!(session.spare_capacity(), 0, "a buffer larger than its line");
        unread.extend(messages(&mut session));
        session.trim();
    }
    assert_eq!(unread.len(), 1000);
    // Without trims the lines share buffers again.
    session.handle_input(line);
    session.handle_input(line);
    assert!(session.spare_capacity() > 0);
}
