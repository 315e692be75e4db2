//! Where a CLI started with given options keeps its sessions: its config
//! directory, resolved from the environment it will get.

use std::path::PathBuf;

use claude_proto::options::Options;
use claude_proto_process::cli_env;

/// The variable the CLI takes its home directory from, as Node's
/// `os.homedir()` does: `HOME` on Unix, `USERPROFILE` on Windows.
pub(crate) const HOME_VARIABLE: &str = if cfg!(windows) { "USERPROFILE" } else { "HOME" };

/// The config directory a CLI started with `options` writes under:
/// `CLAUDE_CONFIG_DIR` as the options set it (or, inheriting the
/// environment, as this process has it), else `.claude` in the home
/// directory (`HOME`, on Windows `USERPROFILE`, likewise). Relative paths
/// are taken from the CLI's working directory, as the CLI takes them.
pub fn config_dir(options: &Options) -> PathBuf {
    let dir = match configured_config_dir(options) {
        Some(dir) => dir,
        None => {
            let home = cli_env(options, HOME_VARIABLE).filter(|v| !v.is_empty());
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_home_set_in_the_options_is_the_clis_home() {
        let home = std::env::temp_dir().join("a-sandboxed-home");
        let options = Options::default()
            .env("CLAUDE_CONFIG_DIR", "")
            .env(HOME_VARIABLE, &home);
        assert_eq!(config_dir(&options), home.join(".claude"));
        // `Sessions::for_options` reads its directory here.
        let sessions = format!("{:?}", crate::Sessions::for_options(&options.cwd(&home)));
        assert!(
            sessions.contains(&format!("{:?}", home.join(".claude"))),
            "{sessions}"
        );
    }

    #[test]
    fn a_config_dir_set_in_the_options_wins_over_home() {
        let dir = std::env::temp_dir().join("a-config-dir");
        let options = Options::default()
            .env("CLAUDE_CONFIG_DIR", &dir)
            .env(HOME_VARIABLE, "/elsewhere");
        assert_eq!(config_dir(&options), dir);
    }
}
