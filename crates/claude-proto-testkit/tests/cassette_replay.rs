//! Replay: a cassette becomes the scripted CLI's steps, at recorded speed
//! or as fast as possible, refusing other CLI versions and reporting a
//! broken file as a step error naming its line.

use std::io::Cursor;
use std::time::Duration;

use claude_proto_testkit::cassette::{
    CassetteErrorKind, CassetteWriter, Redactions, Replay, ReplayOptions, Speed,
};
use claude_proto_testkit::{Matcher, Outgoing, Step, Steps};
use serde_json::json;

const INIT_REQ: &str =
    r#"{"type":"control_request","request_id":"req_1_ab","request":{"subtype":"initialize"}}"#;
const INIT_RESP: &str = r#"{"type":"control_response","response":{"subtype":"success","request_id":"req_1_ab","response":{"pid":1}}}"#;
const SYSTEM_INIT: &str =
    r#"{"type":"system","subtype":"init","session_id":"s1","claude_code_version":"2.1.330"}"#;
const USER: &str = r#"{"type":"user","message":{"role":"user","content":"hi"}}"#;
const RESULT: &str = r#"{ "type":"result", "subtype":"success" }"#;

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

/// A session as a wrapper records it: initialize, one turn, stdin closed,
/// stdout closed, exit.
fn session(cli_version: Option<&str>) -> Vec<u8> {
    let mut w = CassetteWriter::new(Vec::new(), cli_version, Redactions::none()).expect("header");
    w.program_line(ms(0), INIT_REQ.as_bytes()).expect("w");
    w.program_line(ms(1), USER.as_bytes()).expect("w");
    w.cli_line(ms(250), INIT_RESP.as_bytes()).expect("w");
    w.cli_line(ms(300), SYSTEM_INIT.as_bytes()).expect("w");
    w.stderr(ms(310), "a warning").expect("w");
    w.cli_line(ms(900), RESULT.as_bytes()).expect("w");
    w.cli_line(ms(901), b"garbage, not JSON").expect("w");
    w.program_line(ms(950), b"the program's garbage")
        .expect("w");
    w.program_end(ms(1000)).expect("w");
    w.cli_end(ms(1030)).expect("w");
    w.program_line(ms(1031), USER.as_bytes()).expect("w");
    w.exit(ms(1040), 0).expect("w");
    w.finish().expect("finished")
}

fn steps(bytes: &[u8], options: ReplayOptions) -> Vec<Result<Step, String>> {
    let mut replay = Replay::from_reader(Cursor::new(bytes), options).expect("opens");
    let mut out = Vec::new();
    while let Some(step) = replay.next_step() {
        out.push(step);
    }
    assert!(replay.next_step().is_none(), "steps end for good");
    out
}

fn ok(steps: Vec<Result<Step, String>>) -> Vec<Step> {
    steps.into_iter().map(|s| s.expect("a step")).collect()
}

fn assert_expect(step: &Step, value: &str, label: &str) {
    match step {
        Step::Expect {
            matcher: Matcher::Recorded(v),
            reply: None,
            label: Some(l),
        } => {
            assert_eq!(
                v,
                &serde_json::from_str::<serde_json::Value>(value).expect("JSON")
            );
            assert_eq!(l, label);
        }
        other => panic!("not the expectation of {value}: {other:?}"),
    }
}

fn assert_send(step: &Step, text: &str, want_delay: Duration) {
    match step {
        Step::Send {
            line: Outgoing::Recorded(line),
            delay,
        } => {
            assert_eq!(line, text, "byte-exact");
            assert_eq!(*delay, want_delay);
        }
        other => panic!("not the sending of {text}: {other:?}"),
    }
}

#[test]
fn as_fast_as_possible_turns_frames_into_steps_without_delays() {
    let steps = ok(steps(&session(None), ReplayOptions::default()));
    assert_eq!(steps.len(), 10, "{steps:#?}");
    assert_expect(
        &steps[0],
        INIT_REQ,
        "cassette line 2: the program's control_request (initialize)",
    );
    assert_expect(&steps[1], USER, "cassette line 3: the program's user");
    assert_send(&steps[2], INIT_RESP, Duration::ZERO);
    assert_send(&steps[3], SYSTEM_INIT, Duration::ZERO);
    assert!(matches!(&steps[4], Step::Stderr(t) if t == "a warning"));
    assert_send(&steps[5], RESULT, Duration::ZERO);
    assert!(
        matches!(&steps[6], Step::Send { line: Outgoing::Raw(t), delay } if t == "garbage, not JSON" && delay.is_zero())
    );
    assert!(matches!(
        &steps[7],
        Step::Expect { matcher: Matcher::Any, reply: None, label: Some(l) }
            if l.starts_with("cassette line 9: the program's line, which was not JSON")
    ));
    assert!(matches!(steps[8], Step::ExpectEnd));
    // The program's line after the CLI closed stdout is not replayed.
    assert!(matches!(steps[9], Step::Exit(0)));
}

#[test]
fn recorded_speed_keeps_the_gaps() {
    let options = ReplayOptions {
        speed: Speed::Recorded,
        require_cli_version: None,
        ..Default::default()
    };
    let steps = ok(steps(&session(None), options));
    assert_eq!(steps.len(), 12, "{steps:#?}");
    assert!(matches!(steps[0], Step::Expect { .. }));
    assert!(matches!(steps[1], Step::Expect { .. }));
    assert_send(&steps[2], INIT_RESP, ms(249));
    assert_send(&steps[3], SYSTEM_INIT, ms(50));
    assert!(matches!(steps[4], Step::Pause(d) if d == ms(10)));
    assert!(matches!(&steps[5], Step::Stderr(t) if t == "a warning"));
    assert_send(&steps[6], RESULT, ms(590));
    assert!(matches!(&steps[7], Step::Send { delay, .. } if *delay == ms(1)));
    assert!(matches!(steps[8], Step::Expect { .. }));
    assert!(matches!(steps[9], Step::ExpectEnd));
    // Gap since the program's last (unreplayed) line.
    assert!(matches!(steps[10], Step::Pause(d) if d == ms(9)));
    assert!(matches!(steps[11], Step::Exit(0)));
}

#[test]
fn a_tee_recording_without_exit_ends_with_exit_0() {
    let mut w = CassetteWriter::new(Vec::new(), None, Redactions::none()).expect("header");
    w.cli_line(ms(0), RESULT.as_bytes()).expect("w");
    w.cli_end(ms(1)).expect("w");
    let bytes = w.finish().expect("finished");
    let steps = ok(steps(&bytes, ReplayOptions::default()));
    assert_eq!(steps.len(), 2);
    assert!(matches!(steps[1], Step::Exit(0)));
}

#[test]
fn a_recording_without_end_or_exit_just_ends() {
    let mut w = CassetteWriter::new(Vec::new(), None, Redactions::none()).expect("header");
    w.program_line(ms(0), USER.as_bytes()).expect("w");
    w.cli_line(ms(1), RESULT.as_bytes()).expect("w");
    let steps = ok(steps(
        &w.finish().expect("finished"),
        ReplayOptions::default(),
    ));
    assert_eq!(steps.len(), 2);
}

#[test]
fn exit_codes_are_replayed() {
    let mut w = CassetteWriter::new(Vec::new(), None, Redactions::none()).expect("header");
    w.cli_line(ms(0), RESULT.as_bytes()).expect("w");
    w.exit(ms(0), 1).expect("w");
    w.stderr(ms(0), "after exit: not replayed").expect("w");
    let steps = ok(steps(
        &w.finish().expect("finished"),
        ReplayOptions::default(),
    ));
    assert_eq!(steps.len(), 2);
    assert!(matches!(steps[1], Step::Exit(1)));
}

fn require(version: &str) -> ReplayOptions {
    ReplayOptions {
        speed: Speed::AsFastAsPossible,
        require_cli_version: Some(version.to_owned()),
        ..Default::default()
    }
}

#[test]
fn another_cli_version_in_the_header_is_refused_at_line_1() {
    let bytes = session(Some("2.1.330"));
    let e = Replay::from_reader(Cursor::new(&bytes), require("2.2.0")).expect_err("refused");
    assert_eq!(e.line, 1);
    assert!(matches!(
        &e.kind,
        CassetteErrorKind::CliVersion { recorded, expected } if recorded == "2.1.330" && expected == "2.2.0"
    ));
    assert_eq!(
        e.to_string(),
        "cassette line 1: recorded with CLI 2.1.330, but the replay requires CLI 2.2.0"
    );
    assert_eq!(ok(steps(&bytes, require("2.1.330"))).len(), 10);
}

#[test]
fn another_cli_version_in_the_recorded_init_fails_at_its_line() {
    let bytes = session(None);
    let steps = steps(&bytes, require("2.2.0"));
    assert_eq!(steps.len(), 4);
    assert!(steps[..3].iter().all(Result::is_ok));
    assert_eq!(
        steps[3].as_ref().expect_err("refused"),
        "cassette line 5: recorded with CLI 2.1.330, but the replay requires CLI 2.2.0"
    );
    assert_eq!(ok(self::steps(&bytes, require("2.1.330"))).len(), 10);
}

#[test]
fn a_broken_cassette_ends_the_steps_with_an_error_naming_the_line() {
    let bytes = session(None);
    let text = String::from_utf8(bytes).expect("UTF-8");
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    lines[4] = "{\"t\":1,\"from\":\"cli\",\"line\":{\"broken\"}}".into();
    let broken = lines.join("\n") + "\n";
    let steps = steps(broken.as_bytes(), ReplayOptions::default());
    assert_eq!(steps.len(), 4);
    let error = steps[3].as_ref().expect_err("an error");
    assert!(
        error.starts_with("cassette line 5: corrupt: not a frame"),
        "{error}"
    );

    let cut = &text.as_bytes()[..text.len() - 10];
    let steps = self::steps(cut, ReplayOptions::default());
    let error = steps.last().expect("steps").as_ref().expect_err("an error");
    assert!(error.starts_with("cassette line 14: truncated"), "{error}");
}

#[test]
fn open_names_the_file_in_step_errors() {
    let dir = std::env::temp_dir().join(format!("cassette-replay-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let path = dir.join("cut.cassette.ndjson");
    let bytes = session(None);
    std::fs::write(&path, &bytes[..bytes.len() - 1]).expect("written");
    let mut replay = Replay::open(&path, ReplayOptions::default()).expect("opens");
    assert_eq!(replay.header().cli_version, None);
    let last = std::iter::from_fn(|| replay.next_step())
        .last()
        .expect("steps");
    let error = last.expect_err("truncated");
    assert!(
        error.starts_with(&format!("{}: cassette line 14: truncated", path.display())),
        "{error}"
    );
    // Closed first: Windows keeps a file that is open in its directory.
    drop(replay);
    std::fs::remove_dir_all(&dir).expect("removed");
}

#[test]
fn program_lines_are_expected_as_recorded_values() {
    let mut w = CassetteWriter::new(Vec::new(), None, Redactions::none()).expect("header");
    let answer = json!({"type":"control_response","response":{"subtype":"success","request_id":"r1","response":{"behavior":"allow"}}});
    w.program_line(ms(0), answer.to_string().as_bytes())
        .expect("w");
    let steps = ok(steps(
        &w.finish().expect("finished"),
        ReplayOptions::default(),
    ));
    assert_expect(
        &steps[0],
        &answer.to_string(),
        "cassette line 2: the program's control_response (success)",
    );
}

#[test]
fn frames_after_the_exit_are_still_checked() {
    let mut w = CassetteWriter::new(Vec::new(), None, Redactions::none()).expect("header");
    w.exit(ms(0), 2).expect("w");
    w.stderr(ms(0), "late").expect("w");
    let text = String::from_utf8(w.finish().expect("finished")).expect("UTF-8");
    let broken = text.replace("\"stderr\":\"late\"", "\"stderr\":late");
    let steps = steps(broken.as_bytes(), ReplayOptions::default());
    assert!(matches!(steps[0], Ok(Step::Exit(2))));
    let error = steps[1].as_ref().expect_err("the broken line");
    assert!(error.starts_with("cassette line 3: corrupt"), "{error}");
    assert_eq!(steps.len(), 2);
}

#[test]
fn replay_streams_a_cassette_it_never_reaches_the_end_of() {
    // An endless cassette: steps come one frame at a time.
    struct Endless(usize);
    impl std::io::Read for Endless {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            const HEADER: &[u8] = b"{\"claude_proto_cassette\":1}\n";
            const FRAME: &[u8] =
                b"{\"t\":7,\"from\":\"cli\",\"line\":{\"type\":\"stream_event\"}}\n";
            let (source, at) = if self.0 < HEADER.len() {
                (HEADER, self.0)
            } else {
                (FRAME, (self.0 - HEADER.len()) % FRAME.len())
            };
            let n = (source.len() - at).min(buf.len());
            buf[..n].copy_from_slice(&source[at..at + n]);
            self.0 += n;
            Ok(n)
        }
    }
    let input = std::io::BufReader::new(Endless(0));
    let mut replay = Replay::from_reader(input, ReplayOptions::default()).expect("header");
    for _ in 0..100_000 {
        let step = replay.next_step().expect("endless").expect("a step");
        assert!(matches!(step, Step::Send { .. }));
    }
}

#[test]
fn replay_and_recorder_parts_move_to_other_threads() {
    fn send<T: Send + 'static>() {}
    fn shared<T: Send + Sync + 'static>() {}
    send::<Replay>();
    send::<claude_proto_testkit::cassette::TeeReader<std::process::ChildStdout, std::fs::File>>();
    send::<claude_proto_testkit::cassette::TeeWriter<std::process::ChildStdin, std::fs::File>>();
    shared::<claude_proto_testkit::cassette::Recorder<std::fs::File>>();
}
