//! What every adapter's spare tests share (`tests/spares_*.rs`): the
//! pinned CLI offline, where a spare parks, and the checks that nothing a
//! spare started is left behind.

use std::path::{Path, PathBuf};

use claude_proto::options::Options;
use claude_proto_testkit::model_api::{ModelApi, Reply, claude_bin_or_skip};

use super::{TempDir, WAIT};
use crate::process;

/// The stand-in answering `replies`, and options that run the pinned CLI
/// offline against it; `None` (the test passes, having said it skipped)
/// without the CLI.
pub fn offline(replies: Vec<Reply>) -> Option<(ModelApi, Options)> {
    let cli = claude_bin_or_skip()?;
    let api = ModelApi::turns(replies).expect("the stand-in starts");
    let options = api.options(Options::new().cli_path(cli));
    Some((api, options))
}

/// Where the CLI `pid` runs: its working directory.
pub fn working_dir(pid: u32) -> PathBuf {
    std::fs::read_link(format!("/proc/{pid}/cwd")).expect("the CLI's working directory")
}

/// A spare's pid and its parking directory, checked to exist.
pub fn parked(pid: Option<u32>) -> (u32, PathBuf) {
    let pid = pid.expect("a spare has a process");
    let parking = working_dir(pid);
    assert!(parking.is_dir(), "the spare parks in {}", parking.display());
    (pid, parking)
}

/// A folder to claim.
pub fn folder() -> TempDir {
    TempDir::new().expect("a temporary folder")
}

/// The transcripts the CLI wrote under `config`.
pub fn transcripts(config: &Path) -> Vec<PathBuf> {
    let Ok(dirs) = std::fs::read_dir(config.join("projects")) else {
        return Vec::new();
    };
    dirs.flatten()
        .flat_map(|dir| {
            std::fs::read_dir(dir.path())
                .into_iter()
                .flatten()
                .flatten()
        })
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|e| e == "jsonl"))
        .collect()
}

/// The claimed session `session` wrote its transcript where a cold
/// session in `folder` would: keyed by the folder, named by its id.
pub fn transcript_is_the_folders(config: &Path, folder: &Path, session: &str) {
    let written = transcripts(config);
    assert!(
        written
            .iter()
            .any(|path| path.file_stem().is_some_and(|s| s == session)),
        "no transcript {session} in {written:?}"
    );
    let key = claude_proto::transcript::project_key(folder.to_str().expect("a UTF-8 path"));
    assert!(
        config.join("projects").join(key).is_dir(),
        "the transcript is not keyed by the claimed folder"
    );
}

/// The spare's process and parking directory are gone, or go within the
/// bound of a background cleanup.
pub fn gone(pid: u32, parking: &Path) {
    assert!(
        process::wait_until_gone(pid, WAIT),
        "the spare's CLI {pid} is still there"
    );
    assert!(
        process::wait_until_removed(parking, WAIT),
        "the parking directory {} was left behind",
        parking.display()
    );
}

/// Gone already: what a failed claim promises when it returns.
pub fn gone_now(pid: u32, parking: &Path) {
    assert!(
        process::state(pid).is_none(),
        "the refused spare {pid} still runs"
    );
    assert!(
        !parking.exists(),
        "the refused spare's directory {} is left",
        parking.display()
    );
}

/// Writes `.claude/settings.json` in `folder` with a `model`, which a
/// claim cannot apply (`project_settings_not_claimable`).
pub fn settings_a_claim_cannot_apply(folder: &Path) {
    let settings = folder.join(".claude");
    std::fs::create_dir_all(&settings).expect("a settings folder");
    std::fs::write(settings.join("settings.json"), r#"{"model": "opus"}"#)
        .expect("a settings file");
}
