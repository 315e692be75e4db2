//! Redaction on write: this machine's paths and the secrets of a session
//! never reach the cassette, and users add their own rules.

use std::io::Cursor;
use std::time::Duration;

use claude_proto_testkit::cassette::{
    CassetteReader, CassetteWriter, FrameKind, Line, ProcessFacts, Redactions,
};

const KEY: &str = "sk-ant-api03-SENTINELKEY0123456789";
const TOKEN: &str = "ghp_SENTINELTOKEN42";
const BEARER: &str = "eyJSENTINELBEARER.abc123";
const PASSWORD: &str = "SENTINEL-PASSWORD";
const CUSTOMER: &str = "Acme Sentinel Corp";

fn facts() -> ProcessFacts {
    ProcessFacts::new(
        Some("/home/sentinel-user".into()),
        Some("/home/sentinel-user/src/app".into()),
        Some("/tmp".into()),
        vec![
            ("GITHUB_TOKEN".into(), TOKEN.into()),
            ("EDITOR".into(), "vim-sentinel-not-secret".into()),
        ],
    )
}

/// Everything a session could leak, written both ways, to stderr and as a
/// line that is not UTF-8.
fn record(rules: Redactions) -> Vec<u8> {
    let mut w = CassetteWriter::new(Vec::new(), None, rules).expect("header");
    let t = Duration::ZERO;
    let init = format!(
        r#"{{"type":"system","subtype":"init","cwd":"/home/sentinel-user/src/app","memory_paths":["/home/sentinel-user/.claude/projects/-home-sentinel-user-src-app/memory"],"tmp":"/tmp/claude-1/x.sock","apiKeySource":"{KEY}"}}"#
    );
    w.cli_line(t, init.as_bytes()).expect("written");
    let tool = format!(
        r#"{{"type":"user","message":{{"content":[{{"type":"tool_result","content":"curl -H 'Authorization: Bearer {BEARER}' with {TOKEN} for {CUSTOMER}"}}]}},"config":{{"password":"{PASSWORD}","api_key":"{PASSWORD}"}}}}"#
    );
    w.cli_line(t, tool.as_bytes()).expect("written");
    let prompt = format!(
        r#"{{"type":"user","message":{{"role":"user","content":"deploy for {CUSTOMER} from /home/sentinel-user/src/app/src with vim-sentinel-not-secret"}}}}"#
    );
    w.program_line(t, prompt.as_bytes()).expect("written");
    w.cli_line(t, format!("plain text {KEY} in /tmp/x").as_bytes())
        .expect("written");
    w.stderr(
        t,
        &format!("error: token {TOKEN} rejected at /home/sentinel-user/.claude"),
    )
    .expect("written");
    let mut not_utf8 = format!("\u{1}{KEY} ").into_bytes();
    not_utf8.push(0xff);
    w.cli_line(t, &not_utf8).expect("written");
    w.finish().expect("finished")
}

fn frames(bytes: &[u8]) -> Vec<(bool, Vec<u8>)> {
    let mut reader = CassetteReader::new(Cursor::new(bytes)).expect("reads");
    let mut out = Vec::new();
    while let Some(frame) = reader.next_frame() {
        match frame.expect("a frame").kind {
            FrameKind::CliLine(line) | FrameKind::ProgramLine(line) => {
                out.push((matches!(line, Line::Json(_)), line.as_bytes().to_vec()));
            }
            FrameKind::Stderr(text) => out.push((false, text.as_bytes().to_vec())),
            _ => {}
        }
    }
    out
}

fn contains(hay: &[u8], needle: &str) -> bool {
    hay.windows(needle.len()).any(|w| w == needle.as_bytes())
}

#[test]
fn default_rules_keep_sentinels_out_of_the_file() {
    let file = record(Redactions::defaults(&facts()));
    let text = String::from_utf8_lossy(&file);
    for sentinel in [KEY, TOKEN, BEARER, PASSWORD, "sentinel-user", "/tmp"] {
        assert!(!contains(&file, sentinel), "{sentinel} leaked:\n{text}");
        for (_, line) in frames(&file) {
            assert!(!contains(&line, sentinel), "{sentinel} leaked in a frame");
        }
    }
    assert!(
        contains(&file, "vim-sentinel-not-secret"),
        "EDITOR is not a secret"
    );
    assert!(contains(&file, CUSTOMER), "not a default rule");
    for placeholder in [
        "\"cwd\":\"$CWD\"",
        "$HOME/.claude/projects/$CWD_ENCODED/memory",
        "$TMPDIR/claude-1/x.sock",
        "sk-ant-[redacted]",
        "Bearer [redacted]",
        "$GITHUB_TOKEN",
        "\"password\":\"[redacted]\"",
        "\"api_key\":\"[redacted]\"",
        "$CWD/src",
    ] {
        assert!(contains(&file, placeholder), "no {placeholder}:\n{text}");
    }
}

#[test]
fn redacted_json_lines_stay_json() {
    let file = record(Redactions::defaults(&facts()));
    let forms: Vec<bool> = frames(&file).iter().map(|f| f.0).collect();
    assert_eq!(forms, [true, true, true, false, false, false]);
}

#[test]
fn the_header_names_the_rules_not_their_values() {
    let rules = Redactions::defaults(&facts())
        .replace(CUSTOMER, "$CUSTOMER")
        .field("deployKey");
    let file = record(rules);
    let reader = CassetteReader::new(Cursor::new(&file)).expect("reads");
    let names = &reader.header().redacted;
    for name in [
        "home",
        "cwd",
        "cwd-encoded",
        "tmpdir",
        "anthropic-key",
        "bearer",
        "env:GITHUB_TOKEN",
        "field:api_key",
        "field:authorization",
        "replace:$CUSTOMER",
        "field:deployKey",
    ] {
        assert!(
            names.iter().any(|n| n == name),
            "no rule {name} in {names:?}"
        );
    }
    let header = file.split(|b| *b == b'\n').next().expect("a header");
    for sentinel in [TOKEN, CUSTOMER, "sentinel-user"] {
        assert!(!contains(header, sentinel), "{sentinel} in the header");
    }
}

#[test]
fn user_rules_extend_the_defaults() {
    let rules = Redactions::defaults(&facts())
        .replace(CUSTOMER, "$CUSTOMER")
        .path("/srv/data", "$DATA")
        .env("SHORT", "Xy1")
        .field("content");
    let mut w = CassetteWriter::new(Vec::new(), None, rules).expect("header");
    let line = br#"{"customer":"Acme Sentinel Corp","p":["/srv/data/a","/srv/database"],"s":"Xy1","content":"secret text","nested":{"Content":"also"}}"#;
    w.cli_line(Duration::ZERO, line).expect("written");
    let file = w.finish().expect("finished");
    let got = frames(&file);
    assert_eq!(
        String::from_utf8_lossy(&got[0].1),
        r#"{"customer":"$CUSTOMER","p":["$DATA/a","/srv/database"],"s":"$SHORT","content":"[redacted]","nested":{"Content":"[redacted]"}}"#
    );
}

#[test]
fn no_rules_record_lines_as_they_are() {
    let file = record(Redactions::none());
    assert!(contains(&file, KEY));
    let reader = CassetteReader::new(Cursor::new(&file)).expect("reads");
    assert!(reader.header().redacted.is_empty());
}

#[test]
fn this_process_defaults_cover_its_own_directories() {
    let rules = Redactions::default_for_this_process();
    let names = rules.rule_names();
    assert!(names.iter().any(|n| n == "cwd"), "{names:?}");
    assert!(names.iter().any(|n| n == "tmpdir"), "{names:?}");
    let cwd = std::env::current_dir().expect("a cwd");
    let cwd = cwd.to_str().expect("UTF-8 cwd");
    let line = format!(r#"{{"cwd":"{cwd}/x"}}"#);
    let out = rules.redact_line(line.as_bytes());
    assert_eq!(String::from_utf8_lossy(&out), r#"{"cwd":"$CWD/x"}"#);
}
