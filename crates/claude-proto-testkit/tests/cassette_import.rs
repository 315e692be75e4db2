//! The repository's transcripts imported as cassettes, and the example
//! cassettes committed from them (rewritten with `UPDATE_CASSETTES=1`).

use std::io::Cursor;
use std::path::{Path, PathBuf};

use claude_proto_testkit::cassette::{
    CassetteReader, FrameKind, ImportError, ImportOptions, Replay, ReplayOptions, import_fixture,
};
use claude_proto_testkit::{Matcher, Outgoing, Step, Steps};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../claude-proto/tests/fixtures")
        .join(format!("{name}.ndjson"))
}

fn cassette(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/cassettes")
        .join(format!("{name}.cassette.ndjson"))
}

/// The committed examples: the transcript, and its exit code (the CLI
/// exits 0 once the program closes stdin after the last result).
const EXAMPLES: &[(&str, &str)] = &[
    ("e2e_single_turn", "single_turn"),
    ("e2e_permission_deny_bash", "permission_deny_bash"),
];

fn options() -> ImportOptions {
    ImportOptions {
        cli_version: Some("2.1.330".into()),
        program_end: true,
        exit_code: Some(0),
        ..ImportOptions::default()
    }
}

fn import(name: &str) -> Vec<u8> {
    let transcript = std::fs::read(fixture(name)).expect("the transcript");
    import_fixture(Cursor::new(transcript), Vec::new(), &options()).expect("imports")
}

#[test]
fn import_keeps_every_line_byte_for_byte_and_in_order() {
    let transcript = std::fs::read_to_string(fixture("e2e_permission_deny_bash")).expect("read");
    let bytes = import("e2e_permission_deny_bash");
    let mut reader = CassetteReader::new(Cursor::new(&bytes)).expect("a cassette");
    assert_eq!(reader.header().cli_version.as_deref(), Some("2.1.330"));
    let mut expected = transcript.lines().map(|l| {
        let v: serde_json::Value = serde_json::from_str(l).expect("JSON");
        (
            v["dir"].as_str().expect("dir").to_owned(),
            v["line"].as_str().expect("line").to_owned(),
        )
    });
    let mut tail = Vec::new();
    while let Some(frame) = reader.next_frame() {
        let frame = frame.expect("a frame");
        assert!(frame.at.is_zero());
        let cli = matches!(frame.kind, FrameKind::CliLine(_));
        match frame.kind {
            FrameKind::CliLine(line) | FrameKind::ProgramLine(line) => {
                let (dir, text) = expected.next().expect("as many lines");
                assert_eq!(cli, dir == "in");
                assert_eq!(line.as_bytes(), text.as_bytes());
            }
            other => tail.push(format!("{other:?}")),
        }
    }
    assert!(expected.next().is_none());
    assert_eq!(tail, ["ProgramEnd", "CliEnd", "Exit(0)"]);
}

#[test]
fn committed_example_cassettes_are_the_imported_transcripts() {
    for (transcript, name) in EXAMPLES {
        let fresh = import(transcript);
        let path = cassette(name);
        if std::env::var_os("UPDATE_CASSETTES").is_some_and(|v| v == "1") {
            std::fs::write(&path, &fresh).expect("written");
        }
        let committed = std::fs::read(&path).expect("the committed cassette");
        assert!(
            committed == fresh,
            "{} differs from its import; UPDATE_CASSETTES=1 rewrites it",
            path.display()
        );
    }
}

#[test]
fn a_committed_cassette_replays_as_the_recorded_cli() {
    let mut replay = Replay::open(
        cassette("permission_deny_bash"),
        ReplayOptions {
            require_cli_version: Some("2.1.330".into()),
            ..ReplayOptions::default()
        },
    )
    .expect("opens");
    let steps: Vec<Step> = std::iter::from_fn(|| replay.next_step())
        .map(|s| s.expect("a step"))
        .collect();
    let shape: Vec<String> = steps
        .iter()
        .map(|s| match s {
            Step::Expect {
                matcher: Matcher::Recorded(_),
                label: Some(label),
                ..
            } => format!("expect {label}"),
            Step::Send {
                line: Outgoing::Recorded(line),
                ..
            } => {
                let v: serde_json::Value = serde_json::from_str(line).expect("JSON");
                format!("send {}", v["type"].as_str().unwrap_or("?"))
            }
            Step::ExpectEnd => "expect end".into(),
            Step::Exit(code) => format!("exit {code}"),
            other => format!("{other:?}"),
        })
        .collect();
    assert_eq!(
        shape,
        [
            "expect cassette line 2: the program's control_request (initialize)",
            "expect cassette line 3: the program's user",
            "send control_response",
            "send system",
            "send system",
            "send assistant",
            "send system",
            "send control_request",
            "expect cassette line 10: the program's control_response (success)",
            "send system",
            "send user",
            "send assistant",
            "send result",
            "send system",
            "expect end",
            "exit 0",
        ]
    );
}

#[test]
fn a_bad_transcript_line_is_named() {
    let transcript = "{\"dir\":\"in\",\"line\":\"{}\"}\n\n{\"dir\":\"sideways\",\"line\":\"{}\"}\n";
    let error = import_fixture(
        Cursor::new(transcript),
        Vec::new(),
        &ImportOptions::default(),
    )
    .expect_err("refused");
    assert!(
        matches!(error, ImportError::Transcript { line: 3, .. }),
        "{error:?}"
    );
    assert_eq!(
        error.to_string(),
        "transcript line 3: `dir` is \"sideways\", expected \"in\" or \"out\""
    );
    let error = import_fixture(
        Cursor::new("{\"dir\":\"in\"}\n"),
        Vec::new(),
        &ImportOptions::default(),
    )
    .expect_err("refused");
    assert!(
        error.to_string().starts_with(
            "transcript line 1: not a {\"dir\",\"line\"} object: missing field `line`"
        ),
        "{error}"
    );
}
