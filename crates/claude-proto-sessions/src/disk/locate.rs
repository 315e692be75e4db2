//! Finding the config directory, a project's directories under
//! `projects/` and the worktrees of its repository, as the CLI and the
//! SDKs do.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use claude_proto::transcript::{
    MAX_PROJECT_KEY_LEN, is_truncated_key_of, project_key, without_verbatim_prefix,
};
use unicode_normalization::UnicodeNormalization as _;

/// `CLAUDE_CONFIG_DIR` (NFC) if set and not empty, else `.claude` in the
/// home directory (`HOME`; on Windows `USERPROFILE`).
pub(super) fn default_config_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("CLAUDE_CONFIG_DIR").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(nfc(&dir.to_string_lossy())));
    }
    let home = std::env::var_os(crate::config_dir::HOME_VARIABLE).filter(|h| !h.is_empty())?;
    Some(PathBuf::from(nfc(&PathBuf::from(home)
        .join(".claude")
        .to_string_lossy())))
}

fn nfc(text: &str) -> String {
    text.nfc().collect()
}

/// `directory` as the CLI names its project: absolute, symlinks resolved
/// (as far as the path exists; on macOS a temporary directory under
/// `/var` is `/private/var`, as the CLI's own working directory reads),
/// NFC, and on Windows without the `\\?\` prefix `canonicalize` adds.
pub(super) fn canonical(directory: &Path) -> String {
    let absolute = if directory.is_absolute() {
        directory.to_owned()
    } else {
        std::env::current_dir().unwrap_or_default().join(directory)
    };
    let resolved = std::fs::canonicalize(&absolute).unwrap_or(absolute);
    nfc(without_verbatim_prefix(&resolved.to_string_lossy()).as_ref())
}

/// The key the CLI files the sessions of `directory` under (the name of
/// its directory in `projects/`), and the key a session store keeps them
/// under: the SDKs' `project_key_for_directory`. Symlinks are resolved
/// and the path NFC-normalized first, so a path spelled differently, or a
/// file system that decomposes Unicode, gives the same key.
pub fn project_key_for_directory(directory: impl AsRef<Path>) -> String {
    project_key(&canonical(directory.as_ref()))
}

/// The directory holding the sessions of the project at `path`
/// (canonical): `projects/<key>`, or for a long path whose hash suffix the
/// CLI computed differently, the first directory with the same prefix.
pub(super) fn project_dir(projects: &Path, path: &str) -> Option<PathBuf> {
    let exact = projects.join(project_key(path));
    if exact.is_dir() {
        return Some(exact);
    }
    if project_key(path).len() <= MAX_PROJECT_KEY_LEN {
        return None;
    }
    std::fs::read_dir(projects)
        .ok()?
        .flatten()
        .find_map(|entry| {
            let name = entry.file_name();
            let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
            (is_dir && is_truncated_key_of(&name.to_string_lossy(), path)).then(|| entry.path())
        })
}

/// Every directory directly under `projects` (unreadable: none).
pub(super) fn all_project_dirs(projects: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(projects) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()) || e.path().is_dir())
        .map(|e| e.path())
        .collect()
}

/// The worktrees of the git repository holding `cwd` (NFC), from `git
/// worktree list --porcelain`; none if git is missing, `cwd` is not in a
/// repository, or git takes more than five seconds (as the SDKs allow).
pub(super) fn worktrees(cwd: &str) -> Vec<String> {
    const GIT_DEADLINE: Duration = Duration::from_secs(5);
    let Ok(mut child) = Command::new("git")
        .args(["worktree", "list", "--porcelain"])
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
    else {
        return Vec::new();
    };
    // The output is a few lines per worktree, far below a pipe's buffer,
    // so git never blocks on it before exiting.
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if started.elapsed() < GIT_DEADLINE => {
                std::thread::sleep(Duration::from_millis(5))
            }
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
        }
    };
    let mut out = String::new();
    if let Some(stdout) = child.stdout.as_mut() {
        let _ = std::io::Read::read_to_string(stdout, &mut out);
    }
    if !status.is_some_and(|s| s.success()) {
        return Vec::new();
    }
    out.lines()
        .filter_map(|line| line.strip_prefix("worktree "))
        .map(nfc)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A directory reached through a symlink (macOS's `/var` is
    /// `/private/var`) is keyed by where it is, as the CLI's working
    /// directory reads.
    #[cfg(unix)]
    #[test]
    fn a_directory_through_a_symlink_is_keyed_by_where_it_is() {
        let base = std::env::temp_dir().join(format!("claude-proto-locate-{}", std::process::id()));
        let real = base.join("private").join("var").join("proj");
        std::fs::create_dir_all(&real).expect("mkdir");
        let link = base.join("var");
        std::os::unix::fs::symlink(base.join("private").join("var"), &link).expect("symlink");
        let through_link = project_key_for_directory(link.join("proj"));
        let direct = project_key_for_directory(&real);
        std::fs::remove_dir_all(&base).expect("clean up");
        assert_eq!(through_link, direct);
        assert!(direct.ends_with("-private-var-proj"), "{direct}");
    }
}
