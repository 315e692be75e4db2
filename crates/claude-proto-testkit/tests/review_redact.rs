//! Bearer tokens are redacted wherever the prefix is, a repeated prefix
//! included.

use claude_proto_testkit::cassette::{ProcessFacts, Redactions};

fn redact(text: &str) -> String {
    Redactions::defaults(&ProcessFacts::default())
        .redact_text(text)
        .into_owned()
}

#[test]
fn a_repeated_bearer_prefix_does_not_hide_the_token() {
    assert_eq!(
        redact("Authorization: Bearer Bearer abcd12345"),
        "Authorization: Bearer Bearer [redacted]"
    );
    assert_eq!(
        redact("bearer bearer abcd12345 and Bearer of news, Bearer xyz98765"),
        "bearer bearer [redacted] and Bearer of news, Bearer [redacted]"
    );
    // In a JSON line too, where the header value is a string.
    let rules = Redactions::defaults(&ProcessFacts::default());
    let line = rules.redact_line(
        br#"{"authorization":"Bearer Bearer abcd12345","h":"x Bearer Bearer zz99zz99zz"}"#,
    );
    let line = String::from_utf8(line.into_owned()).expect("UTF-8");
    assert!(!line.contains("abcd12345"), "{line}");
    assert!(!line.contains("zz99zz99zz"), "{line}");
}
