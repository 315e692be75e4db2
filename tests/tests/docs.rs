//! The docs a user reads, checked: the README stays the short way in, and
//! every relative link between the Markdown pages leads somewhere.
//!
//! What the pages say is checked elsewhere: their Rust samples compile as
//! doc tests (`tests/src/lib.rs`), the side-by-side programs are quoted as
//! they are (`side_by_side.rs`).
#![allow(clippy::unwrap_used)] // a test: fail loudly

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The pages a user is sent to: the README, what it links under `docs/`,
/// and the other top-level guides.
fn pages() -> Vec<PathBuf> {
    let root = root();
    let mut pages: Vec<PathBuf> = ["README.md", "CHANGELOG.md", "BENCHMARKS.md"]
        .iter()
        .chain(&["tests/README.md", "fuzz/README.md"])
        .map(|p| root.join(p))
        .collect();
    for entry in std::fs::read_dir(root.join("docs")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "md") {
            pages.push(path);
        }
    }
    pages.sort();
    pages
}

/// The text outside fenced code blocks, where links are links.
fn prose(text: &str) -> String {
    let mut fenced = false;
    let mut out = String::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if !fenced {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// A heading's anchor as GitHub makes it: lower case, spaces to hyphens,
/// other punctuation but `-` and `_` dropped; a repeated one gets `-1`,
/// `-2`, ...
fn anchors(text: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    for line in prose(text).lines() {
        let Some(title) = line.strip_prefix('#') else {
            continue;
        };
        let title = title.trim_start_matches('#').trim();
        let base: String = title
            .to_lowercase()
            .chars()
            .filter_map(|c| match c {
                ' ' => Some('-'),
                c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
                _ => None,
            })
            .collect();
        let mut anchor = base.clone();
        let mut n = 0;
        while seen.contains(&anchor) {
            n += 1;
            anchor = format!("{base}-{n}");
        }
        seen.insert(anchor);
    }
    seen
}

/// The targets of inline links `[text](target)` that are not URLs.
fn relative_links(text: &str) -> Vec<String> {
    let prose = prose(text);
    let mut links = Vec::new();
    let mut rest = prose.as_str();
    while let Some(at) = rest.find("](") {
        rest = &rest[at + 2..];
        let Some(end) = rest.find(')') else { break };
        let target = rest[..end].trim();
        let is_url = target.contains("://") || target.starts_with("mailto:");
        // Rustdoc's intra-doc links (`crate::x`, `Self::f`) are not files.
        let is_rust_path = target.contains("::") && !target.contains('/');
        if !target.is_empty() && !is_url && !is_rust_path && !target.contains(' ') {
            links.push(target.to_owned());
        }
        rest = &rest[end..];
    }
    links
}

#[test]
fn the_readme_is_at_most_600_lines() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let lines = readme.lines().count();
    assert!(
        lines <= 600,
        "README.md has {lines} lines: move detail to a page under docs/ and link it"
    );
}

#[test]
fn every_relative_link_between_the_pages_leads_somewhere() {
    let mut broken = Vec::new();
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        let name = page.strip_prefix(root()).unwrap().display().to_string();
        for link in relative_links(&text) {
            let (file, anchor) = match link.split_once('#') {
                Some((file, anchor)) => (file, Some(anchor)),
                None => (link.as_str(), None),
            };
            let target = if file.is_empty() {
                page.clone()
            } else {
                page.parent().unwrap().join(file)
            };
            if !target.exists() {
                broken.push(format!("{name}: {link} (no such file)"));
                continue;
            }
            let is_markdown = target.extension().is_some_and(|e| e == "md");
            if let (Some(anchor), true) = (anchor, is_markdown) {
                let target_text = std::fs::read_to_string(&target).unwrap();
                if !anchors(&target_text).contains(anchor) {
                    broken.push(format!("{name}: {link} (no such heading)"));
                }
            }
        }
    }
    assert!(
        broken.is_empty(),
        "broken links:\n  {}",
        broken.join("\n  ")
    );
}

#[test]
fn headings_and_links_are_read_as_github_reads_them() {
    let text = "# Sessions on disk\n\n## Sessions on disk\n\n[a](#sessions-on-disk-1) [b](x.md#y)\n```\n[c](inside-code.md)\n```\n[d](https://example.com) [e](crate::Foo)\n";
    let found = anchors(text);
    assert!(found.contains("sessions-on-disk") && found.contains("sessions-on-disk-1"));
    assert_eq!(relative_links(text), ["#sessions-on-disk-1", "x.md#y"]);
}
