//! Every published crate carries what crates.io and docs.rs show: a
//! description, keywords and categories, the repository, its docs.rs page,
//! a README of its own (packed with it, linking back to the main README),
//! every feature documented on docs.rs with its label (`doc_cfg`).
//!
//! `.ci/release-check.sh` checks the packages themselves (packed, built
//! outside the workspace); this names what each manifest must say, so a
//! new crate missing a line fails here first, with the line named.
#![allow(clippy::unwrap_used)] // a test: fail loudly

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The crates under `crates/`: all of them are published.
fn published() -> Vec<(String, PathBuf)> {
    let mut crates: Vec<(String, PathBuf)> = std::fs::read_dir(root().join("crates"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.join("Cargo.toml").is_file())
        .map(|path| {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, path)
        })
        .collect();
    crates.sort();
    crates
}

/// The value of `key = ...` in the manifest's `[package]` table.
fn package_field<'a>(manifest: &'a str, key: &str) -> Option<&'a str> {
    manifest
        .split("\n[")
        .next()
        .unwrap()
        .lines()
        .find_map(|line| {
            let (name, value) = line.split_once('=')?;
            (name.trim() == key).then(|| value.trim())
        })
}

#[test]
fn every_published_crate_says_what_crates_io_and_docs_rs_show() {
    let crates = published();
    assert_eq!(crates.len(), 11, "a crate was added or removed: {crates:?}");
    let mut faults = Vec::new();
    for (name, dir) in &crates {
        let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
        let mut fault = |what: String| faults.push(format!("{name}: {what}"));
        for key in ["description", "keywords", "categories", "license"] {
            if package_field(&manifest, key).is_none()
                && package_field(&manifest, &format!("{key}.workspace")).is_none()
            {
                fault(format!("no `{key}`"));
            }
        }
        if package_field(&manifest, "publish").is_some() {
            fault("`publish` is set: every crate under crates/ is published".into());
        }
        if package_field(&manifest, "repository.workspace") != Some("true") {
            fault("no `repository.workspace = true`".into());
        }
        let docs = format!("\"https://docs.rs/{name}\"");
        if package_field(&manifest, "documentation") != Some(docs.as_str()) {
            fault(format!("`documentation` is not {docs}"));
        }
        if package_field(&manifest, "readme") != Some("\"README.md\"") {
            fault("`readme` is not its own README.md".into());
        }
        if !manifest.contains("[package.metadata.docs.rs]\nall-features = true") {
            fault("docs.rs does not document every feature".into());
        }
        let lib = std::fs::read_to_string(dir.join("src/lib.rs")).unwrap();
        if !lib.contains("#![cfg_attr(docsrs, feature(doc_cfg))]") {
            fault("lib.rs does not label feature-gated items on docs.rs".into());
        }
        match std::fs::read_to_string(dir.join("README.md")) {
            Err(error) => fault(format!("README.md: {error}")),
            Ok(readme) => {
                if !readme.starts_with(&format!("# {name}")) {
                    fault("README.md does not start with `# <crate name>`".into());
                }
                if !readme.contains("https://github.com/claude-proto/claude-proto") {
                    fault("README.md does not link to the main README".into());
                }
                if readme.contains("](../") || readme.contains("](./") {
                    fault("README.md has a relative link, which crates.io cannot follow".into());
                }
            }
        }
    }
    assert!(faults.is_empty(), "{}", faults.join("\n"));
}

#[test]
fn the_repository_named_is_the_one_the_readmes_link_to() {
    let manifest = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    let workspace_package = manifest
        .split("[workspace.package]")
        .nth(1)
        .unwrap()
        .split("\n[")
        .next()
        .unwrap();
    assert!(
        workspace_package.contains("repository = \"https://github.com/claude-proto/claude-proto\""),
        "{workspace_package}"
    );
}
