//! Nothing of the kit that holds secrets prints them through `Debug`:
//! rule names and environment variable names only.

use claude_proto_testkit::cassette::{
    CassetteWriter, ImportOptions, ProcessFacts, Redactions, ReplayOptions,
};

const SENTINEL: &str = "sentinel-SECRET-4242";

fn facts() -> ProcessFacts {
    ProcessFacts::new(
        Some("/home/alice".into()),
        Some("/home/alice/project".into()),
        Some("/tmp".into()),
        vec![
            ("GITHUB_TOKEN".into(), SENTINEL.into()),
            ("PLAIN_SETTING".into(), SENTINEL.into()),
        ],
    )
}

/// Every rule kind that holds a value: the defaults (paths and the
/// environment's secrets), a text, a path and an environment variable.
fn redactions() -> Redactions {
    Redactions::defaults(&facts())
        .replace(SENTINEL, "<replaced>")
        .path(format!("/srv/{SENTINEL}"), "$SRV")
        .env("MY_PASSWORD", SENTINEL)
}

fn assert_no_secret(shown: &str) {
    assert!(!shown.contains(SENTINEL), "{shown}");
    assert!(!shown.contains("4242"), "{shown}");
}

#[test]
fn process_facts_debug_shows_directories_and_names_not_values() {
    let shown = format!("{:?}", facts());
    assert_no_secret(&shown);
    assert!(shown.contains("GITHUB_TOKEN"), "{shown}");
    assert!(shown.contains("PLAIN_SETTING"), "{shown}");
    assert!(shown.contains("/home/alice/project"), "{shown}");
    let shown = format!("{:#?}", ProcessFacts::of_this_process());
    assert!(shown.contains("env_names"), "{shown}");
}

#[test]
fn redactions_debug_shows_rule_names_not_values() {
    let shown = format!("{:?}", redactions());
    assert_no_secret(&shown);
    assert!(shown.contains("env:GITHUB_TOKEN"), "{shown}");
    assert!(shown.contains("env:MY_PASSWORD"), "{shown}");
    assert!(shown.contains("replace:<replaced>"), "{shown}");
    assert_no_secret(&format!("{:#?}", redactions()));
}

#[test]
fn cassette_writer_debug_shows_rule_names_not_values() {
    let writer = CassetteWriter::new(Vec::new(), Some("2.1.330"), redactions()).expect("writes");
    let shown = format!("{writer:?}");
    assert_no_secret(&shown);
    assert!(shown.contains("env:GITHUB_TOKEN"), "{shown}");
    let _ = writer.finish();
}

#[test]
fn replay_and_import_options_debug_show_no_values() {
    let replay = ReplayOptions {
        restore: Some(facts()),
        ..ReplayOptions::default()
    };
    let shown = format!("{replay:?}");
    assert_no_secret(&shown);
    assert!(shown.contains("GITHUB_TOKEN"), "{shown}");
    let import = ImportOptions {
        redactions: redactions(),
        ..ImportOptions::default()
    };
    assert_no_secret(&format!("{import:?}"));
}
