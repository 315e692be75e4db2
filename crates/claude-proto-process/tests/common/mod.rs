//! Shared by the tests that start a shell script as a stand-in CLI.
#![allow(clippy::unwrap_used, dead_code)] // test helpers fail loudly by design

use std::os::unix::fs::PermissionsExt as _;
use std::path::PathBuf;

/// A scratch directory holding the stand-in `cli.sh`; removed when dropped.
pub(crate) struct Scratch(pub(crate) PathBuf);

impl Scratch {
    /// A directory for the test `name` of the file `suite`, with `script`
    /// as its executable `cli.sh`.
    pub(crate) fn with_cli(suite: &str, name: &str, script: &str) -> Self {
        let dir = std::env::temp_dir().join(format!(
            "claude-proto-{suite}-{name}-{}",
            std::process::id()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let cli = dir.join("cli.sh");
        std::fs::write(&cli, script).unwrap();
        std::fs::set_permissions(&cli, std::fs::Permissions::from_mode(0o700)).unwrap();
        Self(dir)
    }

    /// The stand-in CLI.
    pub(crate) fn cli(&self) -> PathBuf {
        self.0.join("cli.sh")
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
