//! Finding the `claude` executable and building its command.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use claude_proto::discovery::{self, Lookup, Platform};
use claude_proto::options::{EnvChange, Options};

use claude_proto_host::SpawnError;

/// [`Lookup`] over the real environment and filesystem.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemLookup;

impl Lookup for SystemLookup {
    fn env(&self, name: &str) -> Option<OsString> {
        std::env::var_os(name)
    }

    fn is_executable_file(&self, path: &Path) -> bool {
        let Ok(meta) = std::fs::metadata(path) else {
            return false;
        };
        if !meta.is_file() {
            return false;
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            meta.permissions().mode() & 0o111 != 0
        }
        #[cfg(not(unix))]
        {
            true
        }
    }
}

/// Finds the CLI: `options.cli_path`, then `CLAUDE_BIN`, then `PATH`, then
/// the usual install places. The error lists every place searched and says
/// how to install the CLI.
pub fn locate_cli(options: &Options) -> Result<PathBuf, SpawnError> {
    discovery::locate(
        options.cli_path.as_deref(),
        &SystemLookup,
        Platform::current(),
    )
    .map_err(SpawnError::NotFound)
}

/// The command that starts the CLI for `options`: located executable,
/// argv (never through a shell), environment changes, working directory,
/// and all three standard streams piped. With a
/// [`wrapper`](Options::wrapper), the wrapper is started, with its
/// arguments, the CLI's name as given ([`Options::wrapped_cli`], not
/// searched for here) and the CLI's arguments; the returned path is then
/// the wrapper's.
pub fn build_command(options: &Options) -> Result<(PathBuf, Command), SpawnError> {
    let cli = match options.wrapped_cli() {
        Some(cli) => cli,
        None => locate_cli(options)?,
    };
    let line = options.command().map_err(SpawnError::Options)?;
    let (program, args) = options.program_and_args(&cli, &line);
    let mut command = Command::new(&program);
    command.args(&args);
    if line.clear_env {
        command.env_clear();
    }
    for change in &line.env {
        match change {
            EnvChange::Set(name, value) => {
                command.env(name, value);
            }
            EnvChange::Remove(name) => {
                command.env_remove(name);
            }
            // Future variants are additive; nothing to apply for them.
            #[allow(unreachable_patterns)]
            _ => {}
        }
    }
    if let Some(cwd) = &line.cwd {
        // Checked here: the OS reports a missing directory as a missing
        // program, which sends people looking in the wrong place.
        if !Path::new(cwd).is_dir() {
            return Err(SpawnError::MissingWorkingDirectory(PathBuf::from(cwd)));
        }
        command.current_dir(cwd);
    }
    command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    Ok((program, command))
}
