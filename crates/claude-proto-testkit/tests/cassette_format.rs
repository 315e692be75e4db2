//! The cassette format: what is written reads back byte for byte, and every
//! way a file can be wrong is reported with its line, never a panic.

use std::io::{self, Cursor, Read};
use std::time::Duration;

use claude_proto_testkit::cassette::{
    CassetteError, CassetteErrorKind, CassetteReader, CassetteWriter, FORMAT_VERSION, FrameKind,
    Line, Redactions, Truncation,
};
use proptest::prelude::*;

/// A frame as plain data, to compare with what was written.
#[derive(Clone, Debug, PartialEq)]
enum Owned {
    Cli(Form, Vec<u8>),
    Program(Form, Vec<u8>),
    ProgramEnd,
    CliEnd,
    Stderr(String),
    Exit(i32),
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Form {
    Json,
    Text,
    Bytes,
}

fn form(line: &Line<'_>) -> Form {
    match line {
        Line::Json(_) => Form::Json,
        Line::Text(_) => Form::Text,
        Line::Bytes(_) => Form::Bytes,
        _ => panic!("a line form this test does not know"),
    }
}

fn owned(kind: &FrameKind<'_>) -> Owned {
    match kind {
        FrameKind::CliLine(line) => Owned::Cli(form(line), line.as_bytes().to_vec()),
        FrameKind::ProgramLine(line) => Owned::Program(form(line), line.as_bytes().to_vec()),
        FrameKind::ProgramEnd => Owned::ProgramEnd,
        FrameKind::CliEnd => Owned::CliEnd,
        FrameKind::Stderr(text) => Owned::Stderr(text.to_string()),
        FrameKind::Exit(code) => Owned::Exit(*code),
        _ => panic!("a frame kind this test does not know"),
    }
}

/// Every frame of a cassette, or the first error.
fn read_all(bytes: &[u8]) -> Result<Vec<(usize, Duration, Owned)>, CassetteError> {
    let mut reader = CassetteReader::new(Cursor::new(bytes))?;
    let mut frames = Vec::new();
    while let Some(frame) = reader.next_frame() {
        let frame = frame?;
        frames.push((frame.line_number, frame.at, owned(&frame.kind)));
    }
    Ok(frames)
}

fn error_of(bytes: &[u8]) -> CassetteError {
    match read_all(bytes) {
        Ok(frames) => panic!("read without error: {frames:?}"),
        Err(error) => error,
    }
}

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

/// A cassette with every kind of frame and line form.
fn sample() -> (Vec<u8>, Vec<Owned>) {
    let mut w = CassetteWriter::new(Vec::new(), Some("2.1.330"), Redactions::none())
        .expect("header written");
    let lines: Vec<(bool, &[u8], Form)> = vec![
        (false, br#"{"type":"control_request","request_id":"req_1","request":{"subtype":"initialize"}}"#, Form::Json),
        (true, br#"{ "type" : "control_response",  "x":[1, 2.50, -0, 1e3], "s":"\u00e9\"\\\/" }"#, Form::Json),
        (true, "{\"t\":\"caf\u{e9} \u{1f600}\"}".as_bytes(), Form::Json),
        (true, b"not json at all", Form::Text),
        (true, b"{\"a\":1}\r", Form::Text),
        (true, b" {\"a\":1}", Form::Text),
        (true, b"null", Form::Text),
        (true, b"", Form::Text),
        (false, b"42", Form::Json),
        (false, b"\"a string\"", Form::Json),
        (false, b"[true,false,null]", Form::Json),
        (false, b"{\"unterminated\":", Form::Text),
        (false, b"tab\there \"quoted\" \\ back", Form::Text),
        (true, b"\xff\xfe not utf-8 \xc3", Form::Bytes),
    ];
    let mut expected = Vec::new();
    for (i, (cli, line, form)) in lines.iter().enumerate() {
        let at = ms(i as u64);
        if *cli {
            w.cli_line(at, line).expect("written");
            expected.push(Owned::Cli(*form, line.to_vec()));
        } else {
            w.program_line(at, line).expect("written");
            expected.push(Owned::Program(*form, line.to_vec()));
        }
    }
    w.stderr(ms(20), "warning: \"x\"\tdone").expect("written");
    expected.push(Owned::Stderr("warning: \"x\"\tdone".into()));
    w.program_end(ms(21)).expect("written");
    expected.push(Owned::ProgramEnd);
    w.cli_end(ms(22)).expect("written");
    expected.push(Owned::CliEnd);
    w.exit(ms(23), 137).expect("written");
    expected.push(Owned::Exit(137));
    assert_eq!(w.frames(), expected.len() as u64);
    (w.finish().expect("finished"), expected)
}

#[test]
fn round_trip_is_byte_exact() {
    let (bytes, expected) = sample();
    let frames = read_all(&bytes).expect("reads");
    let kinds: Vec<Owned> = frames.iter().map(|f| f.2.clone()).collect();
    assert_eq!(kinds, expected);
    // Lines counted from the header, times as written.
    for (i, (line, at, _)) in frames.iter().enumerate() {
        assert_eq!(*line, i + 2);
        if i < 14 {
            assert_eq!(*at, ms(i as u64));
        }
    }
    assert_eq!(frames.last().map(|f| f.1), Some(ms(23)));
}

#[test]
fn header_is_read() {
    let (bytes, _) = sample();
    let reader = CassetteReader::new(Cursor::new(&bytes)).expect("reads");
    let header = reader.header();
    assert_eq!(header.version, FORMAT_VERSION);
    assert_eq!(header.cli_version.as_deref(), Some("2.1.330"));
    assert!(header.recorded_with.starts_with("claude-proto-testkit "));
    assert!(header.redacted.is_empty());
    let first = bytes.split(|b| *b == b'\n').next().expect("a line");
    assert!(first.starts_with(b"{\"claude_proto_cassette\":1,"));
}

#[test]
fn frames_put_time_and_side_first() {
    let (bytes, _) = sample();
    let text = String::from_utf8(bytes).expect("UTF-8");
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[1].starts_with(r#"{"t":0,"from":"program","line":{"type":"control_request""#));
    assert_eq!(
        lines[4],
        r#"{"t":3000,"from":"cli","text":"not json at all"}"#
    );
    assert_eq!(
        lines[14],
        r#"{"t":13000,"from":"cli","bytes":"fffe206e6f74207574662d3820c3"}"#
    );
    assert_eq!(lines[18], r#"{"t":23000,"from":"cli","exit":137}"#);
    assert_eq!(
        *lines.last().expect("a trailer"),
        r#"{"end":{"frames":18}}"#
    );
}

#[test]
fn blank_lines_crlf_and_unknown_header_fields_are_accepted() {
    let text = "{\"claude_proto_cassette\":1,\"from_the_future\":[1]}\r\n\n{\"from\":\"cli\",\"exit\":0,\"t\":5}\r\n  \n{\"end\":{\"frames\":1}}\n\n";
    let frames = read_all(text.as_bytes()).expect("reads");
    assert_eq!(frames, vec![(3, Duration::from_micros(5), Owned::Exit(0))]);
}

#[test]
fn empty_file_is_truncated_at_line_1() {
    let e = error_of(b"");
    assert_eq!(e.line, 1);
    assert!(matches!(
        e.kind,
        CassetteErrorKind::Truncated(Truncation::Empty)
    ));
    assert_eq!(
        e.to_string(),
        "cassette line 1: truncated: the file is empty"
    );
}

#[test]
fn missing_trailer_is_truncated_after_the_last_line() {
    let (bytes, _) = sample();
    let text = String::from_utf8(bytes).expect("UTF-8");
    let without: String = text.lines().take(19).map(|l| format!("{l}\n")).collect();
    let e = error_of(without.as_bytes());
    assert_eq!(e.line, 20);
    assert!(matches!(
        e.kind,
        CassetteErrorKind::Truncated(Truncation::NoTrailer { frames: 18 })
    ));
    assert!(e.to_string().starts_with(
        "cassette line 20: truncated: the file ends after 18 frames without the trailer"
    ));
}

#[test]
fn partial_last_line_is_truncated_at_that_line() {
    let (bytes, _) = sample();
    let text = String::from_utf8(bytes).expect("UTF-8");
    let cut: String = text.lines().take(5).collect::<Vec<_>>().join("\n");
    let cut = &cut[..cut.len() - 3];
    let e = error_of(cut.as_bytes());
    assert_eq!(e.line, 5);
    assert!(matches!(
        e.kind,
        CassetteErrorKind::Truncated(Truncation::PartialLine)
    ));
}

#[test]
fn trailer_counting_other_frames_is_truncated() {
    let text = "{\"claude_proto_cassette\":1}\n{\"t\":0,\"from\":\"cli\",\"exit\":0}\n{\"end\":{\"frames\":3}}\n";
    let e = error_of(text.as_bytes());
    assert_eq!(e.line, 3);
    assert!(matches!(
        e.kind,
        CassetteErrorKind::Truncated(Truncation::FrameCount {
            trailer: 3,
            read: 1
        })
    ));
    assert_eq!(
        e.to_string(),
        "cassette line 3: truncated: the trailer counts 3 frames but 1 were read"
    );
}

fn corrupt(text: &str) -> (usize, String) {
    let e = error_of(text.as_bytes());
    match e.kind {
        CassetteErrorKind::Corrupt(ref what) => (e.line, what.clone()),
        other => panic!("not corrupt: {other:?}"),
    }
}

const HEADER: &str = "{\"claude_proto_cassette\":1,\"cli_version\":null}\n";

#[test]
fn corrupt_lines_say_what_and_where() {
    let frame = "{\"t\":1,\"from\":\"cli\",\"eof\":true}\n";
    let cases: &[(&str, &str)] = &[
        (
            "{\"t\":1,\"from\":\"cli\",\"line\":{\"a\":}}\n",
            "not a frame: expected value",
        ),
        ("garbage\n", "not a frame: expected value"),
        (
            "{\"t\":1,\"from\":\"cli\",\"note\":1}\n",
            "unknown field `note`",
        ),
        (
            "{\"t\":1,\"from\":\"server\",\"eof\":true}\n",
            "`from` is \"server\"",
        ),
        ("{\"t\":1,\"from\":\"cli\"}\n", "without a payload"),
        (
            "{\"t\":1,\"from\":\"cli\",\"exit\":1,\"eof\":true}\n",
            "more than one payload",
        ),
        ("{\"from\":\"cli\",\"exit\":1}\n", "without its time"),
        ("{\"t\":1,\"exit\":1}\n", "without `from`"),
        (
            "{\"t\":1,\"from\":\"program\",\"stderr\":\"x\"}\n",
            "`stderr` frame from the program",
        ),
        (
            "{\"t\":1,\"from\":\"program\",\"exit\":0}\n",
            "`exit` frame from the program",
        ),
        (
            "{\"t\":1,\"from\":\"cli\",\"eof\":false}\n",
            "`eof` is false",
        ),
        (
            "{\"t\":1,\"from\":\"cli\",\"bytes\":\"abc\"}\n",
            "odd number of hex digits",
        ),
        ("{\"t\":1,\"from\":\"cli\",\"bytes\":\"zz\"}\n", "not hex"),
        (
            "{\"t\":-1,\"from\":\"cli\",\"eof\":true}\n",
            "not a frame: invalid value",
        ),
        (
            "{\"t\":1,\"t\":2,\"from\":\"cli\",\"eof\":true}\n",
            "duplicate field `t`",
        ),
        (
            "{\"end\":{\"frames\":1},\"t\":1}\n",
            "a trailer (`end`) with frame fields",
        ),
        ("[1,2]\n", "not a frame: invalid type"),
    ];
    for (line, want) in cases {
        let text = format!("{HEADER}{frame}{line}{{\"end\":{{\"frames\":2}}}}\n");
        let (at, what) = corrupt(&text);
        assert_eq!(at, 3, "{line}");
        assert!(what.contains(want), "{line}: {what}");
    }
    let after = format!("{HEADER}{frame}{{\"end\":{{\"frames\":1}}}}\n{frame}");
    let (at, what) = corrupt(&after);
    assert_eq!(at, 4);
    assert!(what.contains("after the trailer"), "{what}");
    let e = error_of(format!("{HEADER}garbage\n").as_bytes());
    assert!(
        e.to_string()
            .starts_with("cassette line 2: corrupt: not a frame: expected value"),
        "{e}"
    );
}

#[test]
fn a_file_that_is_not_a_cassette_is_corrupt_at_line_1() {
    let (line, what) = corrupt("{\"dir\":\"in\",\"line\":\"{}\"}\n");
    assert_eq!(line, 1);
    assert!(
        what.contains("no `claude_proto_cassette` version"),
        "{what}"
    );
    let (line, what) = corrupt("#!/bin/sh\n");
    assert_eq!(line, 1);
    assert!(what.contains("not a cassette"), "{what}");
    let (line, what) = corrupt("{\"claude_proto_cassette\":1,\"redacted\":\"home\"}\n");
    assert_eq!(line, 1);
    assert!(what.contains("header field"), "{what}");
}

#[test]
fn other_format_versions_are_refused_at_line_1() {
    let e = error_of(b"{\"claude_proto_cassette\":2,\"whatever\":[]}\n{\"end\":{\"frames\":0}}\n");
    assert_eq!(e.line, 1);
    assert!(matches!(
        e.kind,
        CassetteErrorKind::UnsupportedVersion {
            found: Some(2),
            supported: 1
        }
    ));
    assert_eq!(
        e.to_string(),
        "cassette line 1: cassette format version 2, but this claude-proto-testkit reads version 1"
    );
    let e = error_of(b"{\"claude_proto_cassette\":\"1\"}\n");
    assert!(matches!(
        e.kind,
        CassetteErrorKind::UnsupportedVersion { found: None, .. }
    ));
}

#[test]
fn a_line_over_the_limit_is_refused_without_reading_it_whole() {
    let long = format!(
        "{{\"t\":1,\"from\":\"cli\",\"text\":\"{}\"}}\n",
        "x".repeat(10_000)
    );
    let text = format!("{HEADER}{long}{{\"end\":{{\"frames\":1}}}}\n");
    let mut reader =
        CassetteReader::with_max_line(Cursor::new(text.as_bytes()), 1000).expect("header fits");
    let e = reader.next_frame().expect("an item").expect_err("too long");
    assert_eq!(e.line, 2);
    assert!(matches!(
        e.kind,
        CassetteErrorKind::LineTooLong { limit: 1000 }
    ));
    assert!(
        reader.next_frame().is_none(),
        "reading stops at the first error"
    );
    // Exactly at the limit is fine.
    let limit = long.len() - 1;
    let mut reader =
        CassetteReader::with_max_line(Cursor::new(text.as_bytes()), limit).expect("header fits");
    assert!(reader.next_frame().expect("a frame").is_ok());
    assert!(reader.next_frame().is_none());
}

/// A reader that fails after some bytes.
struct FailAfter(Cursor<Vec<u8>>, usize);

impl Read for FailAfter {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.0.position() as usize >= self.1 {
            return Err(io::Error::other("disk on fire"));
        }
        let room = (self.1 - self.0.position() as usize).min(buf.len());
        self.0.read(&mut buf[..room])
    }
}

#[test]
fn read_errors_name_the_line_being_read() {
    let (bytes, _) = sample();
    let second_line_end = bytes
        .iter()
        .enumerate()
        .filter(|(_, b)| **b == b'\n')
        .nth(1)
        .map(|(i, _)| i)
        .expect("lines");
    let input =
        io::BufReader::with_capacity(16, FailAfter(Cursor::new(bytes), second_line_end + 5));
    let mut reader = CassetteReader::new(input).expect("header");
    assert!(reader.next_frame().expect("frame").is_ok());
    let e = reader.next_frame().expect("item").expect_err("fails");
    assert_eq!(e.line, 3);
    assert!(matches!(e.kind, CassetteErrorKind::Io(_)));
    assert!(
        e.to_string()
            .starts_with("cassette line 3: read failed: disk on fire")
    );
    assert!(std::error::Error::source(&e).is_some());
}

#[test]
fn missing_file_is_an_io_error_at_line_1() {
    let e = CassetteReader::open("/nonexistent/cassette.ndjson").expect_err("no file");
    assert_eq!(e.line, 1);
    assert!(matches!(e.kind, CassetteErrorKind::Io(_)));
}

#[test]
fn every_proper_prefix_is_truncated() {
    let (bytes, _) = sample();
    assert!(read_all(&bytes).is_ok());
    for cut in 0..bytes.len() {
        let e = error_of(&bytes[..cut]);
        assert!(
            matches!(e.kind, CassetteErrorKind::Truncated(_)),
            "cut at {cut}: {e}"
        );
        let lines_before = bytes[..cut].iter().filter(|b| **b == b'\n').count();
        assert!(
            e.line == lines_before + 1 || e.line == 1,
            "cut at {cut}: {e}"
        );
    }
}

#[test]
fn every_single_byte_removed_or_changed_reads_without_panic() {
    let (bytes, _) = sample();
    for at in 0..bytes.len() {
        let mut removed = bytes.clone();
        removed.remove(at);
        let _ = read_all(&removed);
        for replacement in [b'"', b'}', b'\n', b'\\', 0xff, b'0'] {
            let mut changed = bytes.clone();
            changed[at] = replacement;
            let _ = read_all(&changed);
        }
    }
}

/// Every frame of a cassette read through a one-byte buffer, where no line
/// lies whole in the reader's buffer: the general path for every line.
fn read_all_slowly(bytes: &[u8]) -> Result<Vec<(usize, Duration, Owned)>, CassetteError> {
    let mut reader = CassetteReader::new(io::BufReader::with_capacity(1, Cursor::new(bytes)))?;
    let mut frames = Vec::new();
    while let Some(frame) = reader.next_frame() {
        let frame = frame?;
        frames.push((frame.line_number, frame.at, owned(&frame.kind)));
    }
    Ok(frames)
}

/// The same frames, or the same error at the same line, by either path.
fn same_by_both_paths(bytes: &[u8]) {
    let shown = |r: Result<Vec<(usize, Duration, Owned)>, CassetteError>| match r {
        Ok(frames) => Ok(frames),
        Err(e) => Err((e.line, e.to_string())),
    };
    assert_eq!(
        shown(read_all(bytes)),
        shown(read_all_slowly(bytes)),
        "{}",
        String::from_utf8_lossy(bytes)
    );
}

/// Lines that lie whole in the reader's buffer are read in place, the rest
/// on the general path: both give the same frames and the same errors, for
/// every odd form of the usual frame shape and every one-byte change.
#[test]
fn lines_read_in_place_read_as_on_the_general_path() {
    let frame = "{\"t\":1,\"from\":\"cli\",\"eof\":true}\n";
    let lines = [
        "{\"t\":7,\"from\":\"cli\",\"line\":{\"a\":1}}\n",
        "{\"t\":7,\"from\":\"program\",\"line\":[1,\"x\"]}\r\n",
        "{\"t\":7,\"from\":\"cli\",\"line\": {\"a\":1} }\n",
        "{\"t\":7,\"from\":\"cli\",\"line\":\"text\"}\n",
        "{\"t\":0,\"from\":\"cli\",\"line\":3}\n",
        "{\"t\":7,\"from\":\"cli\",\"line\":null}\n",
        "{\"t\":7,\"from\":\"cli\",\"line\": null}\n",
        "{\"t\":07,\"from\":\"cli\",\"line\":{}}\n",
        "{\"t\":99999999999999999999,\"from\":\"cli\",\"line\":{}}\n",
        "{\"t\":7,\"from\":\"cli\",\"line\":{},\"eof\":true}\n",
        "{\"t\":7,\"from\":\"cli\",\"line\":{},\"end\":{\"frames\":1}}\n",
        "{\"t\":7,\"from\":\"cli\",\"line\":{\"a\":}}\n",
        "{\"t\":7,\"from\":\"cli\",\"line\":}\n",
        "{\"t\":7,\"from\":\"cli\",\"line\":{}}} \n",
        "{\"t\":7,\"from\":\"cli\",\"line\":\"\\ud800\"}\n",
        "{\"t\":7,\"from\":\"cli\",\"line\":{\"a\":\"\u{e9}\"}}\n",
    ];
    for line in lines {
        for frames in [1, 2] {
            let text = format!("{HEADER}{frame}{line}{{\"end\":{{\"frames\":{frames}}}}}\n");
            same_by_both_paths(text.as_bytes());
        }
    }
    let (bytes, _) = sample();
    same_by_both_paths(&bytes);
    for at in 0..bytes.len() {
        let mut removed = bytes.clone();
        removed.remove(at);
        same_by_both_paths(&removed);
        for replacement in [b'"', b'}', b'\n', b' ', 0xff, b'0', b'n'] {
            let mut changed = bytes.clone();
            changed[at] = replacement;
            same_by_both_paths(&changed);
        }
    }
}

proptest! {
    #[test]
    fn mutated_cassettes_never_panic(
        edits in proptest::collection::vec((any::<usize>(), any::<u8>(), 0u8..3), 1..8)
    ) {
        let (mut bytes, _) = sample();
        for (at, byte, op) in edits {
            let at = at % (bytes.len() + 1);
            match op {
                0 => bytes.insert(at, byte),
                1 if at < bytes.len() => { bytes.remove(at); }
                _ if at < bytes.len() => bytes[at] = byte,
                _ => {}
            }
        }
        if let Err(e) = read_all(&bytes) {
            let prefix = format!("cassette line {}: ", e.line);
            prop_assert!(e.to_string().starts_with(&prefix), "{}", e);
            prop_assert!(e.line >= 1);
        }
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
        let mut with_header = HEADER.as_bytes().to_vec();
        with_header.extend_from_slice(&bytes);
        let _ = read_all(&bytes);
        let _ = read_all(&with_header);
    }
}

#[test]
fn the_reader_streams_a_file_it_never_reaches_the_end_of() {
    // An endless input: frames come one at a time, without reading ahead
    // to the end (which would never come).
    struct Endless {
        header_sent: bool,
        line: Vec<u8>,
        at: usize,
    }
    impl Read for Endless {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if !self.header_sent {
                self.header_sent = true;
                let h = HEADER.as_bytes();
                buf[..h.len()].copy_from_slice(h);
                return Ok(h.len());
            }
            let n = (self.line.len() - self.at).min(buf.len());
            buf[..n].copy_from_slice(&self.line[self.at..self.at + n]);
            self.at = (self.at + n) % self.line.len();
            Ok(n)
        }
    }
    let input = io::BufReader::new(Endless {
        header_sent: false,
        line: b"{\"t\":1,\"from\":\"cli\",\"line\":{\"type\":\"x\"}}\n".to_vec(),
        at: 0,
    });
    let mut reader = CassetteReader::new(input).expect("header");
    for _ in 0..100_000 {
        assert!(reader.next_frame().expect("endless").is_ok());
    }
    assert_eq!(reader.line_number(), 100_001);
}

/// An output that counts its flushes and what had been written at each.
#[derive(Default)]
struct Flushes {
    written: usize,
    at_flush: Vec<usize>,
}

impl io::Write for Flushes {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.written += buf.len();
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        self.at_flush.push(self.written);
        Ok(())
    }
}

#[test]
fn writer_flushes_every_100ms_of_recorded_time_and_after_ends() {
    let mut w = CassetteWriter::new(Flushes::default(), None, Redactions::none()).expect("header");
    w.cli_line(ms(10), b"{}").expect("w");
    w.cli_line(ms(50), b"{}").expect("w");
    w.cli_line(ms(120), b"{}").expect("w"); // 100 ms since the start: flush 1
    w.cli_line(ms(150), b"{}").expect("w");
    w.stderr(ms(151), "x").expect("w"); // flush 2
    w.program_end(ms(152)).expect("w"); // flush 3
    w.cli_end(ms(153)).expect("w"); // flush 4
    w.exit(ms(154), 0).expect("w"); // flush 5
    let out = w.finish().expect("finished"); // flush 6, with the trailer
    assert_eq!(out.at_flush.len(), 6, "{:?}", out.at_flush);
    // Each flush wrote out everything up to its frame: the header and
    // three lines at the first, all of it at the last.
    let header_and_three = out.at_flush[0];
    assert!(header_and_three > 3 * "{\"t\":0,\"from\":\"cli\",\"line\":{}}".len());
    assert!(out.at_flush.windows(2).all(|w| w[0] < w[1]));
    assert_eq!(out.at_flush[5], out.written);
}

#[test]
fn a_writer_dropped_without_finish_leaves_a_truncated_cassette() {
    let mut out = Vec::new();
    {
        let mut w = CassetteWriter::new(&mut out, None, Redactions::none()).expect("header");
        w.cli_line(ms(0), b"{}").expect("w");
        w.exit(ms(1), 0).expect("w");
    }
    let e = error_of(&out);
    assert_eq!(e.line, 4);
    assert!(matches!(
        e.kind,
        CassetteErrorKind::Truncated(Truncation::NoTrailer { frames: 2 })
    ));
}
