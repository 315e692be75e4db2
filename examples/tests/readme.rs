//! What the README's Quickstart tells a new project, checked against what
//! this repository builds with: the `[dependencies]` block names versions
//! that admit the ones in `Cargo.lock`, and features the examples (which
//! derive `Deserialize` and `JsonSchema` through the prelude, `mcp_tool`)
//! build with.
#![allow(clippy::unwrap_used)] // a test: fail loudly

use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn read(path: &str) -> String {
    std::fs::read_to_string(root().join(path)).unwrap()
}

/// The lines of the README's ```toml block that starts with
/// `[dependencies]`, comments left out.
fn readme_dependencies() -> Vec<String> {
    let readme = read("README.md");
    let block = readme
        .split("```toml\n[dependencies]\n")
        .nth(1)
        .expect("the README has a ```toml block starting with [dependencies]");
    let block = &block[..block.find("```").unwrap()];
    block
        .lines()
        .filter(|line| !line.trim_start().starts_with('#') && !line.trim().is_empty())
        .map(str::to_owned)
        .collect()
}

/// `name = "1"` or `name = { version = "1", features = ["a", "b"] }`, read.
fn parse(line: &str) -> (String, String, Vec<String>) {
    let (name, spec) = line.split_once(" = ").unwrap();
    let quoted = |text: &str| -> Vec<String> {
        text.split('"')
            .skip(1)
            .step_by(2)
            .map(str::to_owned)
            .collect()
    };
    if spec.starts_with('"') {
        return (name.to_owned(), quoted(spec)[0].clone(), Vec::new());
    }
    let version = spec.split("version = ").nth(1).unwrap();
    let features = spec
        .split("features = [")
        .nth(1)
        .map(|rest| quoted(&rest[..rest.find(']').unwrap()]))
        .unwrap_or_default();
    (name.to_owned(), quoted(version)[0].clone(), features)
}

fn numbers(version: &str) -> Vec<u64> {
    version.split('.').map(|n| n.parse().unwrap()).collect()
}

/// Whether Cargo's default (caret) requirement `req` admits `version`.
fn admits(req: &str, version: &str) -> bool {
    let (req, version) = (numbers(req), numbers(version));
    let padded: Vec<u64> = (0..3).map(|i| req.get(i).copied().unwrap_or(0)).collect();
    // The first non-zero number given must match, and everything before it.
    let fixed = req
        .iter()
        .position(|&n| n != 0)
        .map_or(req.len(), |i| i + 1);
    version[..fixed] == req[..fixed] && version[..3] >= padded[..]
}

/// Every version of `name` in Cargo.lock.
fn locked(name: &str) -> Vec<String> {
    let lock = read("Cargo.lock");
    lock.split("[[package]]")
        .filter(|package| package.contains(&format!("\nname = \"{name}\"\n")))
        .filter_map(|package| {
            let rest = package.split("\nversion = \"").nth(1)?;
            Some(rest[..rest.find('"')?].to_owned())
        })
        .collect()
}

/// The examples package's dependencies, as `cargo metadata` reads them
/// (workspace-inherited ones included).
fn examples_dependencies() -> Vec<Value> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(cargo)
        .current_dir(root())
        .args([
            "metadata",
            "--no-deps",
            "--offline",
            "--format-version",
            "1",
        ])
        .output()
        .unwrap();
    assert!(output.status.success(), "cargo metadata: {output:?}");
    let metadata: Value = serde_json::from_slice(&output.stdout).unwrap();
    metadata["packages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "claude-proto-examples")
        .unwrap()["dependencies"]
        .as_array()
        .unwrap()
        .clone()
}

#[test]
fn caret_requirements_are_read_as_cargo_reads_them() {
    assert!(admits("1", "1.0.229") && admits("1", "1.54.1") && !admits("1", "2.0.0"));
    assert!(admits("0.1", "0.1.0") && !admits("0.1", "0.2.0"));
    assert!(admits("1.47", "1.54.1") && !admits("1.47", "1.46.0"));
    assert_eq!(
        parse(r#"tokio = { version = "1", features = ["macros", "rt-multi-thread"] }"#),
        (
            "tokio".to_owned(),
            "1".to_owned(),
            vec!["macros".to_owned(), "rt-multi-thread".to_owned()]
        )
    );
    assert_eq!(
        parse(r#"schemars = "1""#),
        ("schemars".to_owned(), "1".to_owned(), vec![])
    );
}

#[test]
fn the_readme_dependency_block_is_what_the_examples_build_with() {
    let block = readme_dependencies();
    let ours = examples_dependencies();
    let mut names = Vec::new();
    for line in &block {
        let (name, req, features) = parse(line);
        let versions = locked(&name);
        assert!(
            versions.iter().any(|v| admits(&req, v)),
            "README: {name} = {req:?}, but Cargo.lock has {versions:?}"
        );
        let dependency = ours
            .iter()
            .find(|d| d["name"] == name.as_str() && d["kind"].is_null())
            .unwrap_or_else(|| panic!("the examples do not depend on {name}"));
        for feature in &features {
            assert!(
                dependency["features"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|f| f == feature.as_str()),
                "README: {name} with feature {feature}, which the examples do not enable"
            );
        }
        names.push(name);
    }
    // What a typed tool's derives need: both crates, serde's derive on.
    assert!(names.contains(&"schemars".to_owned()), "{block:?}");
    let serde = block.iter().find(|l| l.starts_with("serde ")).unwrap();
    assert!(parse(serde).2.contains(&"derive".to_owned()), "{serde}");
    // The examples use the derives through the prelude alone.
    let mcp_tool = read("examples/examples/mcp_tool.rs");
    assert!(mcp_tool.contains("use claude_proto_tokio::prelude::*;"));
    assert!(mcp_tool.contains("#[derive(Deserialize, JsonSchema)]"));
}

/// The Quickstart's Node version is the one the pinned CLI's package asks
/// for (`engines`), and what it says of an older Node holds where it can
/// be seen: the installed `claude` is a native binary, not a Node script.
#[test]
fn the_readme_names_the_node_version_the_pinned_cli_asks_for() {
    let lock: Value = serde_json::from_str(&read("tests/peer/package-lock.json")).unwrap();
    let engines = lock["packages"]["node_modules/@anthropic-ai/claude-code"]["engines"]["node"]
        .as_str()
        .unwrap();
    let major = engines
        .strip_prefix(">=")
        .and_then(|version| version.split('.').next())
        .unwrap_or_else(|| panic!("engines.node is {engines:?}, not >=N.x.y: reword the README"));
    let readme = read("README.md")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let says = format!("the pinned CLI asks for Node {major} or newer");
    assert!(readme.contains(&says), "the README does not say \"{says}\"");

    let installed = root().join("tests/peer/node_modules/.bin/claude");
    if let Ok(mut file) = std::fs::File::open(&installed) {
        let mut start = [0u8; 2];
        file.read_exact(&mut start).unwrap();
        assert!(
            &start != b"#!",
            "{} is a script now, not a native binary: the README's words on an older Node may no longer hold",
            installed.display()
        );
    }
}
