//! Recording: the tee around a std Read/Write pair and the wrapper process
//! record what passes, in causal order, without disturbing it.
#![cfg(unix)]

use std::io::{self, BufRead, BufReader, Cursor, Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};

use claude_proto_testkit::cassette::{
    CassetteReader, CassetteWriter, FrameKind, Recorder, Redactions, run_wrapper_with,
};

/// A frame as text, to compare.
fn frames(bytes: &[u8]) -> Vec<String> {
    let mut reader = CassetteReader::new(Cursor::new(bytes)).expect("a cassette");
    let mut out = Vec::new();
    while let Some(frame) = reader.next_frame() {
        let frame = frame.expect("a frame");
        out.push(match frame.kind {
            FrameKind::CliLine(l) => format!("cli {}", String::from_utf8_lossy(l.as_bytes())),
            FrameKind::ProgramLine(l) => {
                format!("program {}", String::from_utf8_lossy(l.as_bytes()))
            }
            FrameKind::ProgramEnd => "program eof".into(),
            FrameKind::CliEnd => "cli eof".into(),
            FrameKind::Stderr(t) => format!("stderr {t}"),
            FrameKind::Exit(c) => format!("exit {c}"),
            _ => "?".into(),
        });
    }
    out
}

fn only<'a>(frames: &'a [String], prefix: &str) -> Vec<&'a str> {
    frames
        .iter()
        .filter(|f| f.starts_with(prefix))
        .map(String::as_str)
        .collect()
}

#[test]
fn tee_records_both_directions_through_a_pipe() {
    let writer = CassetteWriter::new(Vec::new(), None, Redactions::none()).expect("header");
    let recorder = Recorder::new(writer);
    let mut cat = Command::new("cat")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("cat runs");
    let mut stdin = recorder.tee_writer(cat.stdin.take().expect("piped"));
    let stdout = recorder.tee_reader(cat.stdout.take().expect("piped"));
    let reader = std::thread::spawn(move || {
        let mut lines = Vec::new();
        for line in BufReader::new(stdout).lines() {
            lines.push(line.expect("a line"));
        }
        lines
    });
    // A line in pieces, two lines in one write, a last line without newline.
    stdin.write_all(b"{\"type\":\"user\",").expect("w");
    stdin.write_all(b"\"n\":1}").expect("w");
    stdin
        .write_all(b"\n{\"n\":2}\n{\"n\":3}\nnot json\n")
        .expect("w");
    stdin.write_all(b"{\"n\":4}").expect("w");
    drop(stdin);
    let echoed = reader.join().expect("reader");
    assert_eq!(echoed.len(), 5);
    assert!(cat.wait().expect("cat exits").success());
    recorder.record_exit(0);
    let bytes = recorder.finish().expect("finished");
    let frames = frames(&bytes);
    let sent = [
        "{\"type\":\"user\",\"n\":1}",
        "{\"n\":2}",
        "{\"n\":3}",
        "not json",
        "{\"n\":4}",
    ];
    let program: Vec<String> = sent.iter().map(|l| format!("program {l}")).collect();
    let cli: Vec<String> = sent.iter().map(|l| format!("cli {l}")).collect();
    assert_eq!(
        frames
            .iter()
            .filter(|f| f.starts_with("program ") && *f != "program eof")
            .collect::<Vec<_>>(),
        program.iter().collect::<Vec<_>>()
    );
    assert_eq!(
        frames
            .iter()
            .filter(|f| f.starts_with("cli ") && *f != "cli eof")
            .collect::<Vec<_>>(),
        cli.iter().collect::<Vec<_>>()
    );
    // Causal order: each line is recorded as sent before it is echoed, and
    // the program's end before the CLI's.
    for line in sent {
        let sent_at = frames.iter().position(|f| *f == format!("program {line}"));
        let echoed_at = frames.iter().position(|f| *f == format!("cli {line}"));
        assert!(sent_at < echoed_at, "{line}: {frames:#?}");
    }
    let program_eof = frames.iter().position(|f| f == "program eof").expect("eof");
    let cli_eof = frames.iter().position(|f| f == "cli eof").expect("eof");
    assert!(program_eof < cli_eof);
    assert_eq!(frames.last().map(String::as_str), Some("exit 0"));
}

#[test]
fn recorder_finishes_once_and_drops_later_frames() {
    let writer = CassetteWriter::new(Vec::new(), None, Redactions::none()).expect("header");
    let recorder = Recorder::new(writer);
    recorder.record_stderr("before");
    let bytes = recorder.finish().expect("finished");
    recorder.record_stderr("after");
    assert!(recorder.finish().is_err(), "finished already");
    assert_eq!(frames(&bytes), ["stderr before"]);
}

/// A cassette output that fails after some bytes.
#[derive(Debug)]
struct Failing(usize);

impl Write for Failing {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.0 < buf.len() {
            return Err(io::Error::other("cassette disk full"));
        }
        self.0 -= buf.len();
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn a_failing_cassette_does_not_disturb_the_session() {
    let writer = CassetteWriter::new(Failing(200), None, Redactions::none()).expect("header");
    let recorder = Recorder::new(writer);
    let mut sink = recorder.tee_writer(Vec::new());
    let line = format!("{{\"text\":\"{}\"}}\n", "x".repeat(100_000));
    sink.write_all(line.as_bytes()).expect("passes");
    let mut source = recorder.tee_reader(Cursor::new(line.clone().into_bytes()));
    let mut got = Vec::new();
    source.read_to_end(&mut got).expect("passes");
    assert_eq!(got, line.as_bytes());
    drop(sink);
    let error = recorder.finish().expect_err("the cassette failed");
    assert_eq!(error.to_string(), "cassette disk full");
}

fn wrap(script: &str, stdin: &'static [u8]) -> (i32, Vec<u8>, Vec<u8>, Vec<String>) {
    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);
    impl Write for Shared {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0.lock().expect("lock").extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }
    let (out, err) = (Shared::default(), Shared::default());
    let writer = CassetteWriter::new(Vec::new(), None, Redactions::none()).expect("header");
    let (code, cassette) = run_wrapper_with(
        Path::new("/bin/sh"),
        ["-c", script],
        writer,
        Cursor::new(stdin),
        out.clone(),
        err.clone(),
    )
    .expect("the wrapper runs");
    let out = out.0.lock().expect("lock").clone();
    let err = err.0.lock().expect("lock").clone();
    (code, out, err, frames(&cassette))
}

/// A CLI of a few lines: an init line, an echo of every input line, a
/// stderr line once stdin ends, exit code 3.
const FAKE_CLI: &str = r#"
echo '{"type":"system","subtype":"init"}'
while IFS= read -r line; do printf '{"echo":%s}\n' "$line"; done
echo 'stdin closed' >&2
exit 3
"#;

#[test]
fn wrapper_passes_everything_through_and_records_it() {
    let (code, out, err, frames) = wrap(FAKE_CLI, b"{\"n\":1}\n{\"n\":2}\n");
    assert_eq!(code, 3);
    assert_eq!(
        String::from_utf8_lossy(&out),
        "{\"type\":\"system\",\"subtype\":\"init\"}\n{\"echo\":{\"n\":1}}\n{\"echo\":{\"n\":2}}\n"
    );
    assert_eq!(String::from_utf8_lossy(&err), "stdin closed\n");
    assert_eq!(
        only(&frames, "program "),
        ["program {\"n\":1}", "program {\"n\":2}", "program eof"]
    );
    assert_eq!(
        only(&frames, "cli "),
        [
            "cli {\"type\":\"system\",\"subtype\":\"init\"}",
            "cli {\"echo\":{\"n\":1}}",
            "cli {\"echo\":{\"n\":2}}",
            "cli eof"
        ]
    );
    assert_eq!(only(&frames, "stderr "), ["stderr stdin closed"]);
    assert_eq!(frames.last().map(String::as_str), Some("exit 3"));
    for n in [1, 2] {
        let sent = frames
            .iter()
            .position(|f| *f == format!("program {{\"n\":{n}}}"));
        let echoed = frames
            .iter()
            .position(|f| *f == format!("cli {{\"echo\":{{\"n\":{n}}}}}"));
        assert!(sent < echoed, "{frames:#?}");
    }
}

#[test]
fn wrapper_returns_when_the_cli_exits_before_stdin_ends() {
    // The CLI exits at once; the wrapper's stdin (a reader that would block
    // forever) is not waited for.
    struct Never;
    impl Read for Never {
        fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
            loop {
                std::thread::park();
            }
        }
    }
    let writer = CassetteWriter::new(Vec::new(), None, Redactions::none()).expect("header");
    let (code, cassette) = run_wrapper_with(
        Path::new("/bin/sh"),
        ["-c", "echo '{\"type\":\"result\"}'; exit 0"],
        writer,
        Never,
        io::sink(),
        io::sink(),
    )
    .expect("runs");
    assert_eq!(code, 0);
    assert_eq!(
        frames(&cassette),
        ["cli {\"type\":\"result\"}", "cli eof", "exit 0"]
    );
}

#[test]
fn wrapper_records_a_killed_cli_as_128_plus_the_signal() {
    let (code, _, _, frames) = wrap("kill -9 $$", b"");
    assert_eq!(code, 137);
    assert_eq!(frames.last().map(String::as_str), Some("exit 137"));
}

#[test]
fn wrapper_reports_a_cli_that_cannot_start() {
    let writer = CassetteWriter::new(Vec::new(), None, Redactions::none()).expect("header");
    let error = run_wrapper_with(
        Path::new("/nonexistent/claude"),
        Vec::<String>::new(),
        writer,
        io::empty(),
        io::sink(),
        io::sink(),
    )
    .expect_err("no such CLI");
    assert_eq!(error.kind(), io::ErrorKind::NotFound);
}

/// Set in the copy of this test binary that the test below runs.
const CHILD: &str = "CASSETTE_RECORD_TEST_CHILD";

#[test]
fn wrapper_hides_the_wrapper_variables_from_the_cli() {
    use claude_proto_testkit::cassette::{REAL_CLI_ENV, RECORD_ENV};
    if std::env::var_os(CHILD).is_none() {
        // Setting variables in this process takes `unsafe`: run this test
        // again in a child that has them.
        let child = Command::new(std::env::current_exe().expect("the test binary"))
            .args([
                "wrapper_hides_the_wrapper_variables_from_the_cli",
                "--exact",
                "--test-threads=1",
            ])
            .env(CHILD, "kept")
            .env(RECORD_ENV, "/dev/null")
            .env(REAL_CLI_ENV, "/bin/false")
            .output()
            .expect("the test binary runs");
        let report = String::from_utf8_lossy(&child.stdout);
        assert!(child.status.success(), "{report}");
        // The child ran this very test, not none.
        assert!(report.contains("1 passed"), "{report}");
        return;
    }
    let script =
        format!("echo \"${{{RECORD_ENV}-unset}} ${{{REAL_CLI_ENV}-unset}} ${{{CHILD}-unset}}\"");
    let (code, out, _, _) = wrap(&script, b"");
    assert_eq!(code, 0);
    assert_eq!(String::from_utf8_lossy(&out), "unset unset kept\n");
}
