//! The official Python SDK, for the tests that compare against it: a
//! Python with the pinned `claude-agent-sdk`, and what to do without one.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The repository's root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// `true` under CI (`CI` set to anything but empty, `false` or `0`).
pub fn in_ci() -> bool {
    std::env::var_os("CI").is_some_and(|v| !v.is_empty() && v != "false" && v != "0")
}

/// Says a test was skipped (straight to stderr, which the harness would
/// otherwise swallow), or fails under CI.
pub fn skip(what: &str) {
    assert!(!in_ci(), "CI is set but {what}");
    let _ = writeln!(std::io::stderr(), "\nSKIPPED: {what}\n");
}

/// The pinned SDK version, from `examples/py/requirements.txt`.
pub fn pinned_sdk() -> String {
    let requirements =
        std::fs::read_to_string(root().join("examples/py/requirements.txt")).unwrap_or_default();
    requirements
        .lines()
        .find_map(|line| line.trim().strip_prefix("claude-agent-sdk=="))
        .unwrap_or("(not pinned)")
        .trim()
        .to_owned()
}

/// A Python with the pinned SDK (`SIDE_BY_SIDE_PYTHON`, else
/// `target/side-by-side-venv` or `target/bench-venv`), or `None` after
/// [`skip`] when there is none.
pub fn python() -> Option<PathBuf> {
    let candidates: Vec<PathBuf> = match std::env::var_os("SIDE_BY_SIDE_PYTHON") {
        Some(python) if !python.is_empty() => vec![PathBuf::from(python)],
        _ => ["target/side-by-side-venv", "target/bench-venv"]
            .iter()
            .map(|venv| root().join(venv).join("bin/python"))
            .collect(),
    };
    let pinned = pinned_sdk();
    let mut found = Vec::new();
    for python in candidates {
        let version = Command::new(&python)
            .args([
                "-c",
                "import claude_agent_sdk; print(claude_agent_sdk.__version__)",
            ])
            .stderr(Stdio::null())
            .output();
        match version {
            Ok(out) if out.status.success() => {
                let version = String::from_utf8_lossy(&out.stdout).trim().to_owned();
                if version == pinned {
                    return Some(python);
                }
                found.push(format!("{} has {version}", python.display()));
            }
            _ => found.push(format!("{}: no Python with the SDK", python.display())),
        }
    }
    skip(&format!(
        "no Python with claude-agent-sdk=={pinned} ({}); make one with \
         `python3 -m venv target/side-by-side-venv && target/side-by-side-venv/bin/pip install -r examples/py/requirements.txt` \
         or point SIDE_BY_SIDE_PYTHON at one",
        found.join("; ")
    ));
    None
}
