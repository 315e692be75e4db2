//! Where a CLI started with given options keeps its sessions: its config
//! directory, resolved from the environment it will get.

use std::path::PathBuf;

use claude_proto::options::Options;
use claude_proto_process::cli_env;

/// The config directory a CLI started with `options` writes under:
/// `CLAUDE_CONFIG_DIR` as the options set it (or, inheriting the
/// environment, as this process has it), else `.claude` in the home
/// directory (`HOME`, likewise). Relative paths are taken from the CLI's
/// working directory, as the CLI takes them.
pub fn config_dir(options: &Options) -> PathBuf {
    let dir = match configured_config_dir(options) {
        Some(dir) => dir,
        None => {
            let home = cli_env(options, "HOME").filter(|v| !v.is_empty());
            home.map(PathBuf::from).unwrap_or_default().join(".claude")
        }
    };
    match &options.cwd {
        Some(cwd) if dir.is_relative() => PathBuf::from(cwd).join(dir),
        _ if dir.is_relative() => std::env::current_dir().unwrap_or_default().join(dir),
        _ => dir,
    }
}

/// `CLAUDE_CONFIG_DIR` as the CLI started with `options` gets it, if set
/// and not empty.
pub fn configured_config_dir(options: &Options) -> Option<PathBuf> {
    cli_env(options, "CLAUDE_CONFIG_DIR")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}
