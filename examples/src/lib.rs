//! Shared bits of the examples: finding a CLI and the offline model.

use std::path::PathBuf;

/// The CLI installed in this repository by `npm ci --prefix tests/peer`, if
/// it is there. The examples fall back to it so a fresh clone works
/// without a global install.
pub fn repo_cli() -> Option<PathBuf> {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/peer/node_modules/.bin/claude");
    path.is_file().then_some(path)
}

/// `true` if the environment or `~/.claude` holds credentials for the real
/// service.
pub fn has_credentials() -> bool {
    let set = |name: &str| std::env::var_os(name).is_some_and(|v| !v.is_empty());
    if set("ANTHROPIC_API_KEY") || set("CLAUDE_CODE_OAUTH_TOKEN") || set("ANTHROPIC_AUTH_TOKEN") {
        return true;
    }
    std::env::var_os("HOME")
        .map(|home| PathBuf::from(home).join(".claude/.credentials.json"))
        .is_some_and(|path| path.is_file())
}
