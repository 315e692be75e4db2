//! Finding the `claude` executable and building its command.

use std::ffi::{OsStr, OsString};
use std::io;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use claude_proto::discovery::{self, Lookup, Platform};
use claude_proto::options::{EnvChange, Options, RedactedArg};

use claude_proto_host::SpawnError;

use crate::private::PrivateDir;

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
///
/// The values that can carry secrets, `--mcp-config` (MCP servers' `env`
/// and `headers` hold tokens) and inline `--settings`, are written to
/// files in a [`PrivateDir`] (0700, files 0600) and passed by path, so no
/// other user reads them in the process table; keep
/// [`Launch::private_files`] until the CLI has exited (a
/// [`ProcessHandle`](crate::ProcessHandle) does). With a wrapper they stay
/// inline: the CLI may run where these files are not (a container, another
/// host).
///
/// On Windows the CLI is started with `CREATE_NO_WINDOW`: a console
/// program started by a GUI program (a Tauri app, say) would otherwise get
/// a console window of its own, one per session; with all three streams
/// piped it needs none.
pub fn build_command(options: &Options) -> Result<Launch, SpawnError> {
    let wrapped = options.wrapped_cli();
    let cli = match &wrapped {
        Some(cli) => cli.clone(),
        None => locate_cli(options)?,
    };
    let line = options.command().map_err(SpawnError::Options)?;
    let (program, args) = options.program_and_args(&cli, &line);
    let (args, private_files) = if wrapped.is_some() {
        (args, None)
    } else {
        move_secrets_to_files(args).map_err(|error| {
            SpawnError::Io(io::Error::new(
                error.kind(),
                format!(
                    "writing the CLI's MCP configuration and settings to a private file: {error}"
                ),
            ))
        })?
    };
    if cfg!(windows) {
        windows::check_command_line(&program, &args)?;
    }
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
            EnvChange::SetUnlessInherited(name, value)
                if line.clear_env || std::env::var_os(name).is_none() =>
            {
                command.env(name, value);
            }
            // A default the inherited environment overrides; future
            // variants are additive, with nothing to apply for them.
            _ => {}
        }
    }
    crate::trace_context::hand_over(options, &mut command);
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
    #[cfg(unix)]
    if options.own_process_group {
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
    }
    #[cfg(windows)]
    std::os::windows::process::CommandExt::creation_flags(&mut command, windows::creation_flags());
    Ok(Launch {
        program,
        command,
        private_files,
        own_process_group: (cfg!(unix) || cfg!(windows)) && options.own_process_group,
    })
}

/// A command that starts the CLI, from [`build_command`].
///
/// Its `Debug` output hides secrets as [`Options`]' does (a derived one
/// would show every environment value the command sets, API keys
/// included, and behind a wrapper the inline MCP configuration).
#[non_exhaustive]
pub struct Launch {
    /// The executable started (the wrapper's, with one).
    pub program: PathBuf,
    /// The command, all three streams piped.
    pub command: Command,
    /// The private files the arguments point at, if any: removed when
    /// dropped, so keep them until the CLI has exited.
    pub private_files: Option<PrivateDir>,
    /// Whether the CLI is to run in a process group of its own on Unix (the
    /// command starts it as one), in a Job Object of its own on Windows
    /// (put there as it starts) ([`Options::own_process_group`]).
    pub own_process_group: bool,
}

impl std::fmt::Debug for Launch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let args: Vec<RedactedArg<'_>> = self.command.get_args().map(RedactedArg::new).collect();
        let env: Vec<EnvChange> = self
            .command
            .get_envs()
            .map(|(name, value)| match value {
                Some(value) => EnvChange::Set(name.to_owned(), value.to_owned()),
                None => EnvChange::Remove(name.to_owned()),
            })
            .collect();
        f.debug_struct("Launch")
            .field("program", &self.program)
            .field("args", &args)
            .field("env", &env)
            .field("cwd", &self.command.get_current_dir())
            .field("private_files", &self.private_files)
            .field("own_process_group", &self.own_process_group)
            .finish()
    }
}

/// The flags whose inline JSON values go to private files, and the files'
/// names.
const SECRET_FLAGS: [(&str, &str); 2] = [
    ("--mcp-config=", "mcp-config.json"),
    ("--settings=", "settings.json"),
];

/// `args` with every inline JSON value of [`SECRET_FLAGS`] written to a
/// private file and replaced by its path.
fn move_secrets_to_files(args: Vec<OsString>) -> io::Result<(Vec<OsString>, Option<PrivateDir>)> {
    let mut dir: Option<PrivateDir> = None;
    let mut out = Vec::with_capacity(args.len());
    for arg in args {
        let inline = arg.to_str().and_then(|text| {
            SECRET_FLAGS.iter().find_map(|&(flag, file)| {
                let value = text.strip_prefix(flag)?;
                value
                    .trim_start()
                    .starts_with('{')
                    .then_some((flag, file, value))
            })
        });
        let Some((flag, file, value)) = inline else {
            out.push(arg);
            continue;
        };
        let dir = match &mut dir {
            Some(dir) => dir,
            None => dir.insert(PrivateDir::create("claude-args")?),
        };
        let path = dir.write(file, value.as_bytes())?;
        let mut replaced = OsString::from(flag);
        replaced.push(path.as_os_str());
        out.push(replaced);
    }
    Ok((out, dir))
}

/// The value of `name` in the environment a CLI started with `options`
/// gets: this process's own (when inherited), changed as the options
/// change it. `None` when the options are invalid and unset.
pub fn cli_env(options: &Options, name: &str) -> Option<OsString> {
    let line = options.command().ok();
    let changes = line.as_ref().map(|l| l.env.as_slice()).unwrap_or_default();
    let mut value = if options.inherit_env {
        std::env::var_os(name)
    } else {
        None
    };
    for change in changes {
        match change {
            EnvChange::Set(n, v) if n == name => value = Some(v.clone()),
            EnvChange::Remove(n) if n == name => value = None,
            EnvChange::SetUnlessInherited(n, v) if n == name && value.is_none() => {
                value = Some(v.clone());
            }
            _ => {}
        }
    }
    value
}

/// The ceiling of a one-shot run's wait for its end
/// ([`Command::EndInputAtRunEnd`](claude_proto_host::Command::EndInputAtRunEnd)):
/// `CLAUDE_CODE_PRINT_BG_WAIT_CEILING_MS` as the CLI started with
/// `options` reads it (see [`claude_proto_host::run_end::ceiling_from`]).
pub fn run_end_ceiling(options: &Options) -> Option<std::time::Duration> {
    let value = cli_env(options, claude_proto_host::run_end::CEILING_VARIABLE);
    claude_proto_host::run_end::ceiling_from(value.as_deref().and_then(OsStr::to_str))
}

/// What Windows takes on a command line, counted as std builds it, so a
/// line too long is refused before anything starts, with the arguments to
/// shorten named; and the flags the CLI is created with. Pure, so it is
/// tested everywhere.
mod windows {
    use std::ffi::{OsStr, OsString};
    use std::path::Path;

    use claude_proto_host::SpawnError;

    /// `CreateProcessW`'s `CREATE_NO_WINDOW`: a console program started
    /// without a console window (it gets a console of its own, with no
    /// window), as Node's `windowsHide` starts a child whose three streams
    /// are all piped.
    pub(crate) const CREATE_NO_WINDOW: u32 = 0x0800_0000;

    /// The process creation flags the CLI is started with on Windows. std
    /// adds `CREATE_UNICODE_ENVIRONMENT` to whatever is set here; the Job
    /// Object the CLI goes into is set up after it starts, with no flag
    /// of its own.
    #[cfg_attr(not(windows), allow(dead_code))]
    pub(crate) fn creation_flags() -> u32 {
        CREATE_NO_WINDOW
    }

    /// `CreateProcessW`'s limit on `lpCommandLine`, in UTF-16 units, its
    /// terminating NUL included.
    pub(crate) const LIMIT: usize = 32_767;
    /// `cmd.exe`'s limit on the line it runs, which a `.cmd` or `.bat` is
    /// started through.
    pub(crate) const CMD_LIMIT: usize = 8_191;
    /// What std puts before a batch file's command line.
    const CMD_PREFIX: &str = "cmd.exe /e:ON /v:OFF /d /c \"";

    /// `Ok` if Windows can start `program` with `args`.
    pub(crate) fn check_command_line(program: &Path, args: &[OsString]) -> Result<(), SpawnError> {
        let batch = program
            .extension()
            .is_some_and(|ext| ext.eq_ignore_ascii_case("cmd") || ext.eq_ignore_ascii_case("bat"));
        if batch {
            if let Some(arg) = args.iter().find(|arg| {
                arg.as_encoded_bytes()
                    .iter()
                    .any(|b| *b == b'\r' || *b == b'\n')
            }) {
                return Err(SpawnError::CommandLine {
                    why: format!(
                        "{} holds a line break, which a .cmd cannot be given",
                        flag(arg)
                    ),
                    longest: longest(args),
                });
            }
        }
        let mut length = units(program.as_os_str()) + 2;
        if batch {
            length += CMD_PREFIX.len() + 1;
        }
        let quoted: fn(&OsStr) -> usize = if batch {
            batch_quoted_length
        } else {
            quoted_length
        };
        length += args.iter().map(|arg| 1 + quoted(arg)).sum::<usize>();
        // The terminating NUL.
        length += 1;
        let limit = if batch { CMD_LIMIT } else { LIMIT };
        if length > limit {
            return Err(SpawnError::CommandLine {
                why: format!(
                    "it is {length} characters, over the limit of {limit}{}",
                    if batch { " for a .cmd" } else { "" }
                ),
                longest: longest(args),
            });
        }
        Ok(())
    }

    /// UTF-16 units of `text` (a unit for each byte that is not Unicode).
    fn units(text: &OsStr) -> usize {
        text.to_string_lossy().encode_utf16().count()
    }

    /// An argument's length once quoted as std quotes it: in quotes if it
    /// is empty or holds a space or a tab; a backslash before each `"`,
    /// and the backslashes before it doubled; the backslashes before a
    /// closing quote doubled.
    pub(crate) fn quoted_length(arg: &OsStr) -> usize {
        let text = arg.to_string_lossy();
        let quote = text.is_empty() || text.contains([' ', '\t']);
        escaped_length(&text, quote, false)
    }

    /// An argument's length once quoted as std quotes it for a batch
    /// file's `cmd.exe`: in quotes if it is empty, ends with a backslash,
    /// or holds an ASCII character other than a letter, a digit or one of
    /// `#$*+-./:?@\_` (or a control character); each `"` doubled, with
    /// the backslashes before it doubled; each `%` (and `\r`) preceded by
    /// `%%cd:~,`, which stops `cmd.exe` expanding variables; the
    /// backslashes before a closing quote doubled.
    pub(crate) fn batch_quoted_length(arg: &OsStr) -> usize {
        const UNQUOTED: &str = r"#$*+-./:?@\_";
        let text = arg.to_string_lossy();
        let quote = text.is_empty()
            || text.ends_with('\\')
            || text.chars().any(|c| {
                (c.is_ascii() && !(c.is_ascii_alphanumeric() || UNQUOTED.contains(c)))
                    || c.is_control()
            });
        escaped_length(&text, quote, true)
    }

    /// The UTF-16 length of `text` escaped as std escapes it, in quotes or
    /// not: one more unit before each `"`, plus one for each backslash
    /// before it (`\"` for an executable, `""` for a batch file, the
    /// backslashes doubled either way); for a batch file, `%%cd:~,` before
    /// each `%` and `\r`; in quotes, the backslashes before the closing
    /// quote doubled.
    fn escaped_length(text: &str, quote: bool, batch: bool) -> usize {
        let mut length = usize::from(quote) * 2;
        let mut backslashes = 0;
        for unit in text.encode_utf16() {
            length += 1;
            if unit == u16::from(b'\\') {
                backslashes += 1;
                continue;
            }
            if unit == u16::from(b'"') {
                length += backslashes + 1;
            } else if batch && (unit == u16::from(b'%') || unit == u16::from(b'\r')) {
                length += "%%cd:~,".len();
            }
            backslashes = 0;
        }
        if quote {
            length += backslashes;
        }
        length
    }

    /// The three longest arguments, as `--flag (length)`.
    fn longest(args: &[OsString]) -> String {
        let mut sized: Vec<(usize, String)> = args
            .iter()
            .map(|arg| (quoted_length(arg), flag(arg)))
            .collect();
        sized.sort_by_key(|(length, _)| std::cmp::Reverse(*length));
        let named: Vec<String> = sized
            .into_iter()
            .take(3)
            .map(|(length, flag)| format!("{flag} ({length})"))
            .collect();
        named.join(", ")
    }

    /// An argument's flag (`--allowedTools` of `--allowedTools=Read,Edit`);
    /// the start of a value that is not one.
    fn flag(arg: &OsStr) -> String {
        let text = arg.to_string_lossy();
        match text.split_once('=') {
            Some((flag, _)) if flag.starts_with("--") => flag.to_owned(),
            _ if text.starts_with("--") => text.into_owned(),
            _ => format!(
                "a value starting {:?}",
                text.chars().take(20).collect::<String>()
            ),
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        fn args(list: &[&str]) -> Vec<OsString> {
            list.iter().map(OsString::from).collect()
        }

        /// A GUI program (Tauri, say) that starts sessions opens no
        /// console window for each.
        #[test]
        fn the_cli_is_started_without_a_console_window() {
            assert_eq!(CREATE_NO_WINDOW, 0x0800_0000);
            assert_eq!(creation_flags() & CREATE_NO_WINDOW, CREATE_NO_WINDOW);
        }

        /// Lengths as std's `make_command_line` builds them.
        #[test]
        fn arguments_are_counted_as_std_quotes_them() {
            assert_eq!(quoted_length(OsStr::new("--verbose")), 9);
            assert_eq!(quoted_length(OsStr::new("")), 2);
            assert_eq!(quoted_length(OsStr::new("a b")), 5);
            // `a"b` becomes `a\"b`; `a\"b` becomes `a\\\"b`.
            assert_eq!(quoted_length(OsStr::new("a\"b")), 4);
            assert_eq!(quoted_length(OsStr::new("a\\\"b")), 6);
            // `C:\a b\` in quotes ends `\\"`.
            assert_eq!(quoted_length(OsStr::new("C:\\a b\\")), 10);
            // Backslashes not before a quote are kept as they are.
            assert_eq!(quoted_length(OsStr::new("C:\\ab\\")), 6);
            // UTF-16 units, not bytes: é is one, 😀 is two.
            assert_eq!(quoted_length(OsStr::new("é😀")), 3);
        }

        /// A line over the limit is refused, naming the longest flags.
        #[test]
        fn a_command_line_over_windows_limit_is_refused_naming_the_longest_flags() {
            let program = Path::new(r"C:\npm\claude.exe");
            // 15 + 18 × 1,700 = 30,615 units: it fits.
            let tools = format!("--allowedTools={}", "mcp__server__tool,".repeat(1_700));
            let fits = args(&["--verbose", &tools]);
            assert!(check_command_line(program, &fits).is_ok());
            // Two of 15 + 18 × 1,000 = 18,015 units do not: with the quoted
            // program (19), the spaces (3) and the NUL, 36,062.
            let half = format!("--allowedTools={}", "mcp__server__tool,".repeat(1_000));
            let too_long = args(&["--verbose", &half, &half]);
            let error = check_command_line(program, &too_long)
                .unwrap_err()
                .to_string();
            assert!(
                error.contains("it is 36062 characters, over the limit of 32767"),
                "{error}"
            );
            assert!(
                error.contains("--allowedTools (18015), --allowedTools (18015), --verbose (9)"),
                "{error}"
            );
        }

        /// Lengths as std's `make_bat_command_line` builds them.
        #[test]
        fn a_batch_files_arguments_are_counted_as_std_quotes_them() {
            assert_eq!(batch_quoted_length(OsStr::new("--verbose")), 9);
            // `,` and `=` are quoted there, not for an executable.
            assert_eq!(batch_quoted_length(OsStr::new("--tools=Read,Edit")), 19);
            assert_eq!(quoted_length(OsStr::new("--tools=Read,Edit")), 17);
            assert_eq!(batch_quoted_length(OsStr::new("")), 2);
            assert_eq!(batch_quoted_length(OsStr::new("C:\\dir\\")), 10);
            // `a"b` becomes `"a""b"`; `100%` becomes `"100%%cd:~,%"`.
            assert_eq!(batch_quoted_length(OsStr::new("a\"b")), 6);
            assert_eq!(batch_quoted_length(OsStr::new("100%")), 13);
        }

        /// Through `cmd.exe` the limit is 8,191, and no line breaks.
        #[test]
        fn a_cmd_takes_a_shorter_line_and_no_line_breaks() {
            let program = Path::new(r"C:\tools\claude.cmd");
            let tools = format!("--allowedTools={}", "Read,".repeat(1_700));
            assert!(
                check_command_line(Path::new(r"C:\tools\claude.exe"), &args(&[&tools])).is_ok()
            );
            let error = check_command_line(program, &args(&[&tools]))
                .unwrap_err()
                .to_string();
            assert!(
                error.contains("over the limit of 8191 for a .cmd"),
                "{error}"
            );
            let error = check_command_line(program, &args(&["--verbose", "--append=a\nb"]))
                .unwrap_err()
                .to_string();
            assert!(error.contains("--append holds a line break"), "{error}");
        }
    }
}
