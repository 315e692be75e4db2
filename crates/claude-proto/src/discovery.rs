//! Finding the `claude` executable, as a pure function over injected lookups.
//!
//! [`locate`] decides where the CLI is; it never touches the file system or
//! the environment itself. The caller passes a [`Lookup`] (adapters implement
//! it with `std::env::var_os` and file metadata) and the [`Platform`] whose
//! conventions apply, so every rule can be tested with a fake.
//!
//! The search order is:
//!
//! 1. the explicit path from the caller ([`Options::cli_path`](crate::options::Options::cli_path));
//! 2. the `CLAUDE_BIN` environment variable;
//! 3. each directory of `PATH`, in order;
//! 4. the usual install places (see [`install_places`]).
//!
//! An explicit path or `CLAUDE_BIN` that does not name an executable file is
//! an error naming it: a typo there should be reported, not silently replaced
//! by some other `claude` found later.

use std::ffi::{OsStr, OsString};
use std::fmt;
use std::path::{Path, PathBuf};

/// Environment variable that names the `claude` executable to use.
pub const ENV_CLAUDE_BIN: &str = "CLAUDE_BIN";

/// How to install the CLI, shown when it cannot be found.
pub const INSTALL_HINT: &str = "install Claude Code with `npm install -g @anthropic-ai/claude-code` \
     (or the native installer), or set CLAUDE_BIN to the full path of the `claude` executable";

/// Whose conventions apply: path separators, the `PATH` list separator,
/// executable names and install places.
///
/// Passed in rather than taken from `cfg` so the Windows rules can be tested
/// anywhere; use [`Platform::current`] in real code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Platform {
    /// Linux, macOS and other Unix-like systems.
    Unix,
    /// Windows.
    Windows,
}

impl Platform {
    /// The platform this crate was compiled for.
    pub const fn current() -> Self {
        if cfg!(windows) {
            Platform::Windows
        } else {
            Platform::Unix
        }
    }

    fn path_list_separator(self) -> char {
        match self {
            Platform::Unix => ':',
            Platform::Windows => ';',
        }
    }

    fn dir_separator(self) -> char {
        match self {
            Platform::Unix => '/',
            Platform::Windows => '\\',
        }
    }

    fn is_separator(self, c: char) -> bool {
        match self {
            Platform::Unix => c == '/',
            Platform::Windows => c == '/' || c == '\\' || c == ':',
        }
    }

    /// File names tried in each directory, most preferred first.
    fn executable_names(self) -> &'static [&'static str] {
        match self {
            Platform::Unix => &["claude"],
            // A real executable is preferred to the npm `.cmd` shim.
            Platform::Windows => &["claude.exe", "claude.cmd"],
        }
    }
}

/// The outside world as [`locate`] sees it. Adapters implement it with the
/// real environment and file system; tests use a fake.
pub trait Lookup {
    /// The value of an environment variable, or `None` when it is not set.
    fn env(&self, name: &str) -> Option<OsString>;
    /// Whether `path` names an existing regular file the current user may
    /// execute (on Windows: an existing file).
    fn is_executable_file(&self, path: &Path) -> bool;
}

/// Why a path was considered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Source {
    /// The explicit path given by the caller.
    Explicit,
    /// The `CLAUDE_BIN` environment variable.
    ClaudeBin,
    /// A directory listed in `PATH`.
    PathDir,
    /// One of the usual install places.
    InstallPlace,
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Source::Explicit => "explicit path",
            Source::ClaudeBin => "CLAUDE_BIN",
            Source::PathDir => "PATH",
            Source::InstallPlace => "install place",
        })
    }
}

/// One place that was checked for the executable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    /// The file that was checked.
    pub path: PathBuf,
    /// Why it was checked.
    pub source: Source,
}

/// The `claude` executable could not be found. Every variant lists the
/// places checked, in order.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum NotFound {
    /// The explicit path does not name an executable file.
    #[error(
        "the claude executable given explicitly ({}) is not an executable file (checked: {}); fix the path, or leave it unset to search CLAUDE_BIN, PATH and the usual install places",
        .path.display(), list(.searched)
    )]
    Explicit {
        /// The path as given.
        path: PathBuf,
        /// Where it was looked for.
        searched: Vec<Candidate>,
    },
    /// `CLAUDE_BIN` does not name an executable file.
    #[error(
        "CLAUDE_BIN is set to {}, which is not an executable file (checked: {}); fix it, or unset CLAUDE_BIN to search PATH and the usual install places",
        .path.display(), list(.searched)
    )]
    ClaudeBin {
        /// The value of `CLAUDE_BIN`.
        path: PathBuf,
        /// Where it was looked for.
        searched: Vec<Candidate>,
    },
    /// Not found on `PATH` nor in any install place.
    #[error("the claude executable was not found (searched, in order: {}); {INSTALL_HINT}", list(.searched))]
    Nowhere {
        /// Every place checked, in order.
        searched: Vec<Candidate>,
    },
}

impl NotFound {
    /// Every place checked, in order.
    pub fn searched(&self) -> &[Candidate] {
        match self {
            NotFound::Explicit { searched, .. }
            | NotFound::ClaudeBin { searched, .. }
            | NotFound::Nowhere { searched } => searched,
        }
    }
}

fn list(searched: &[Candidate]) -> String {
    if searched.is_empty() {
        return "nowhere: neither PATH nor a home directory is set".to_owned();
    }
    let items: Vec<String> = searched
        .iter()
        .map(|c| format!("{} ({})", c.path.display(), c.source))
        .collect();
    items.join(", ")
}

/// Finds the `claude` executable.
///
/// `explicit` (usually [`Options::cli_path`](crate::options::Options::cli_path))
/// wins when given; then `CLAUDE_BIN` (ignored when empty); then every
/// non-empty `PATH` entry; then [`install_places`]. A bare file name without
/// a directory (`claude-nightly`), given explicitly or in `CLAUDE_BIN`, is
/// searched for in `PATH` the way a shell would. Empty `PATH` entries are
/// skipped rather than read as "the current directory".
///
/// On Windows, npm's `claude.cmd` shim is passed over for the native
/// `claude.exe` it starts, when that is where npm puts it (see
/// [`native_behind_shim`]).
///
/// # Errors
///
/// [`NotFound::Explicit`] or [`NotFound::ClaudeBin`] when the path the caller
/// chose is not an executable file (the search does not go on), and
/// [`NotFound::Nowhere`] with every place checked when nothing was found.
pub fn locate(
    explicit: Option<&Path>,
    lookup: &impl Lookup,
    platform: Platform,
) -> Result<PathBuf, NotFound> {
    let found = locate_as_found(explicit, lookup, platform)?;
    Ok(native_behind_shim(&found, lookup, platform).unwrap_or(found))
}

/// The native `claude.exe` an npm `claude.cmd` shim starts, if it is where
/// npm installs it; `None` for anything else (then the shim itself is
/// started: std runs a `.cmd` through `cmd.exe`, which takes a shorter
/// command line and refuses arguments holding line breaks).
///
/// npm's shim for `@anthropic-ai/claude-code` starts the package's
/// `bin\claude.exe`, the native CLI its install step puts there. Two
/// layouts: a global install's shim sits in the prefix, beside
/// `node_modules` (`%APPDATA%\npm\claude.cmd`); a local one's in
/// `node_modules\.bin`. Starting the executable directly spares a
/// `cmd.exe` and keeps the command line whole.
pub fn native_behind_shim(
    path: &Path,
    lookup: &impl Lookup,
    platform: Platform,
) -> Option<PathBuf> {
    if platform != Platform::Windows {
        return None;
    }
    let text = path.to_str()?;
    let (dir, name) = text.rsplit_once(['\\', '/'])?;
    if !name.eq_ignore_ascii_case("claude.cmd") {
        return None;
    }
    let package = |modules: &str| {
        ["@anthropic-ai", "claude-code", "bin", "claude.exe"]
            .into_iter()
            .fold(PathBuf::from(modules), |dir, part| {
                join(platform, dir.as_os_str(), part)
            })
    };
    // Global: the prefix's own node_modules. Local: the shim's directory
    // is node_modules\.bin.
    let global = package(join(platform, OsStr::new(dir), "node_modules").to_str()?);
    let local = dir
        .rsplit_once(['\\', '/'])
        .filter(|(_, last)| last.eq_ignore_ascii_case(".bin"))
        .map(|(modules, _)| package(modules));
    std::iter::once(global)
        .chain(local)
        .find(|exe| lookup.is_executable_file(exe))
}

fn locate_as_found(
    explicit: Option<&Path>,
    lookup: &impl Lookup,
    platform: Platform,
) -> Result<PathBuf, NotFound> {
    if let Some(path) = explicit {
        return chosen(path, Source::Explicit, lookup, platform).map_err(|searched| {
            NotFound::Explicit {
                path: path.to_path_buf(),
                searched,
            }
        });
    }
    if let Some(value) = lookup.env(ENV_CLAUDE_BIN).filter(|v| !v.is_empty()) {
        let path = PathBuf::from(value);
        return chosen(&path, Source::ClaudeBin, lookup, platform)
            .map_err(|searched| NotFound::ClaudeBin { path, searched });
    }
    let mut searched = Vec::new();
    for candidate in search_list(lookup, platform) {
        if lookup.is_executable_file(&candidate.path) {
            return Ok(candidate.path);
        }
        searched.push(candidate);
    }
    Err(NotFound::Nowhere { searched })
}

/// Every place steps 3 and 4 of [`locate`] check, in order, without
/// duplicates: the `PATH` directories, then the install places. Useful to
/// explain to a user where the CLI is expected.
pub fn search_list(lookup: &impl Lookup, platform: Platform) -> Vec<Candidate> {
    let mut out: Vec<Candidate> = Vec::new();
    let mut push = |path: PathBuf, source: Source| {
        if !out.iter().any(|c| c.path == path) {
            out.push(Candidate { path, source });
        }
    };
    for dir in path_dirs(lookup, platform) {
        for name in platform.executable_names() {
            push(join(platform, &dir, name), Source::PathDir);
        }
    }
    for path in install_places(lookup, platform) {
        push(path, Source::InstallPlace);
    }
    out
}

/// The usual install places, in the order they are tried.
///
/// Unix: `~/.claude/local/claude` (the old local installer),
/// `~/.local/bin/claude` (native installer), `~/.npm-global/bin/claude`,
/// `/usr/local/bin/claude`, `/opt/homebrew/bin/claude`,
/// `~/node_modules/.bin/claude`, `~/.yarn/bin/claude`.
///
/// Windows (each directory with `claude.exe`, then `claude.cmd`):
/// `%USERPROFILE%\.claude\local`, `%USERPROFILE%\.local\bin`,
/// `%APPDATA%\npm`, `%USERPROFILE%\.npm-global`,
/// `%USERPROFILE%\node_modules\.bin`, `%USERPROFILE%\.yarn\bin`.
///
/// The home directory is `HOME` on Unix and `USERPROFILE` (else `HOME`) on
/// Windows; places under an unset variable are left out.
pub fn install_places(lookup: &impl Lookup, platform: Platform) -> Vec<PathBuf> {
    let home = home_dir(lookup, platform);
    let mut dirs: Vec<OsString> = Vec::new();
    let mut under = |base: &Option<OsString>, rel: &[&str]| {
        if let Some(base) = base {
            let mut dir = base.clone();
            for part in rel {
                dir = join(platform, &dir, part).into_os_string();
            }
            dirs.push(dir);
        }
    };
    match platform {
        Platform::Unix => {
            under(&home, &[".claude", "local"]);
            under(&home, &[".local", "bin"]);
            under(&home, &[".npm-global", "bin"]);
            under(&Some("/usr/local/bin".into()), &[]);
            under(&Some("/opt/homebrew/bin".into()), &[]);
            under(&home, &["node_modules", ".bin"]);
            under(&home, &[".yarn", "bin"]);
        }
        Platform::Windows => {
            let appdata = non_empty_env(lookup, "APPDATA");
            under(&home, &[".claude", "local"]);
            under(&home, &[".local", "bin"]);
            under(&appdata, &["npm"]);
            under(&home, &[".npm-global"]);
            under(&home, &["node_modules", ".bin"]);
            under(&home, &[".yarn", "bin"]);
        }
    }
    dirs.iter()
        .flat_map(|dir| {
            platform
                .executable_names()
                .iter()
                .map(move |name| join(platform, dir, name))
        })
        .collect()
}

/// Checks a path the caller chose; `Err` carries what was checked.
fn chosen(
    path: &Path,
    source: Source,
    lookup: &impl Lookup,
    platform: Platform,
) -> Result<PathBuf, Vec<Candidate>> {
    let text = path.as_os_str().to_string_lossy();
    let bare = !text.is_empty() && !text.chars().any(|c| platform.is_separator(c));
    if !bare {
        if lookup.is_executable_file(path) {
            return Ok(path.to_path_buf());
        }
        return Err(vec![Candidate {
            path: path.to_path_buf(),
            source,
        }]);
    }
    // A bare name: look for it in PATH, adding the Windows extensions when
    // the name has none.
    let names: Vec<OsString> = match platform {
        Platform::Windows if !text.contains('.') => [".exe", ".cmd"]
            .iter()
            .map(|ext| {
                let mut n = path.as_os_str().to_os_string();
                n.push(ext);
                n
            })
            .collect(),
        _ => vec![path.as_os_str().to_os_string()],
    };
    let mut searched = Vec::new();
    for dir in path_dirs(lookup, platform) {
        for name in &names {
            let candidate = join(platform, &dir, name);
            if lookup.is_executable_file(&candidate) {
                return Ok(candidate);
            }
            searched.push(Candidate {
                path: candidate,
                source,
            });
        }
    }
    Err(searched)
}

fn non_empty_env(lookup: &impl Lookup, name: &str) -> Option<OsString> {
    lookup.env(name).filter(|v| !v.is_empty())
}

fn home_dir(lookup: &impl Lookup, platform: Platform) -> Option<OsString> {
    match platform {
        Platform::Unix => non_empty_env(lookup, "HOME"),
        Platform::Windows => {
            non_empty_env(lookup, "USERPROFILE").or_else(|| non_empty_env(lookup, "HOME"))
        }
    }
}

/// The non-empty entries of `PATH`, split with the platform's separator.
fn path_dirs(lookup: &impl Lookup, platform: Platform) -> Vec<OsString> {
    let Some(path) = lookup.env("PATH") else {
        return Vec::new();
    };
    split(&path, platform.path_list_separator())
        .into_iter()
        .filter(|d| !d.is_empty())
        .collect()
}

/// Splits an OS string on an ASCII separator without losing non-UTF-8 bytes
/// (on Unix hosts; elsewhere a non-Unicode value is split lossily).
fn split(s: &OsStr, sep: char) -> Vec<OsString> {
    if let Some(text) = s.to_str() {
        return text.split(sep).map(OsString::from).collect();
    }
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let sep = u8::try_from(sep).unwrap_or(b':');
        s.as_bytes()
            .split(|b| *b == sep)
            .map(|part| OsStr::from_bytes(part).to_os_string())
            .collect()
    }
    #[cfg(not(unix))]
    {
        s.to_string_lossy().split(sep).map(OsString::from).collect()
    }
}

/// Joins a directory and a file name with the platform's separator (not the
/// host's, so Windows paths can be built and tested on Unix).
fn join(platform: Platform, dir: &OsStr, name: impl AsRef<OsStr>) -> PathBuf {
    let mut out = dir.to_os_string();
    let ends_with_sep = dir
        .as_encoded_bytes()
        .last()
        .is_some_and(|b| platform.is_separator(char::from(*b)) && *b != b':');
    if !ends_with_sep {
        out.push(platform.dir_separator().encode_utf8(&mut [0u8; 4]));
    }
    out.push(name.as_ref());
    PathBuf::from(out)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use std::collections::{HashMap, HashSet};

    #[derive(Default, Clone)]
    struct Fake {
        env: HashMap<String, OsString>,
        files: HashSet<PathBuf>,
    }

    impl Fake {
        fn with_env(mut self, k: &str, v: &str) -> Self {
            self.env.insert(k.into(), v.into());
            self
        }
        fn file(mut self, p: &str) -> Self {
            self.files.insert(p.into());
            self
        }
    }

    impl Lookup for Fake {
        fn env(&self, name: &str) -> Option<OsString> {
            self.env.get(name).cloned()
        }
        fn is_executable_file(&self, path: &Path) -> bool {
            self.files.contains(path)
        }
    }

    fn unix() -> Fake {
        Fake::default()
            .with_env("HOME", "/home/u")
            .with_env("PATH", "/usr/bin:/bin")
    }

    fn found(explicit: Option<&str>, fake: &Fake) -> PathBuf {
        locate(explicit.map(Path::new), fake, Platform::Unix).unwrap()
    }

    #[test]
    fn order_explicit_then_claude_bin_then_path_then_install_places() {
        let all = unix()
            .with_env("CLAUDE_BIN", "/env/claude")
            .file("/x/claude")
            .file("/env/claude")
            .file("/bin/claude")
            .file("/home/u/.local/bin/claude");
        assert_eq!(found(Some("/x/claude"), &all), Path::new("/x/claude"));
        assert_eq!(found(None, &all), Path::new("/env/claude"));

        let mut no_env = all;
        no_env.env.remove("CLAUDE_BIN");
        assert_eq!(found(None, &no_env), Path::new("/bin/claude"));

        no_env.files.remove(Path::new("/bin/claude"));
        assert_eq!(found(None, &no_env), Path::new("/home/u/.local/bin/claude"));
    }

    #[test]
    fn path_order_is_respected_and_empty_entries_skipped() {
        let fake = Fake::default()
            .with_env("PATH", ":/a::/b")
            .file("/b/claude")
            .file("/a/claude");
        assert_eq!(found(None, &fake), Path::new("/a/claude"));
        let fake = Fake::default().with_env("PATH", "::").file("claude");
        assert!(locate(None, &fake, Platform::Unix).is_err());
    }

    #[test]
    fn install_places_in_order() {
        let places = install_places(&unix(), Platform::Unix);
        let expected = [
            "/home/u/.claude/local/claude",
            "/home/u/.local/bin/claude",
            "/home/u/.npm-global/bin/claude",
            "/usr/local/bin/claude",
            "/opt/homebrew/bin/claude",
            "/home/u/node_modules/.bin/claude",
            "/home/u/.yarn/bin/claude",
        ];
        assert_eq!(places, expected.map(PathBuf::from));
        // Earlier places win over later ones.
        let fake = unix()
            .file("/opt/homebrew/bin/claude")
            .file("/home/u/.claude/local/claude");
        assert_eq!(
            found(None, &fake),
            Path::new("/home/u/.claude/local/claude")
        );
    }

    #[test]
    fn not_found_lists_every_place_in_order() {
        let fake = unix().with_env("PATH", "/usr/bin:/usr/local/bin");
        let err = locate(None, &fake, Platform::Unix).unwrap_err();
        let paths: Vec<&Path> = err.searched().iter().map(|c| c.path.as_path()).collect();
        assert_eq!(
            paths,
            [
                "/usr/bin/claude",
                "/usr/local/bin/claude",
                "/home/u/.claude/local/claude",
                "/home/u/.local/bin/claude",
                "/home/u/.npm-global/bin/claude",
                // /usr/local/bin/claude was already checked via PATH.
                "/opt/homebrew/bin/claude",
                "/home/u/node_modules/.bin/claude",
                "/home/u/.yarn/bin/claude",
            ]
            .map(Path::new)
        );
        assert_eq!(err.searched()[0].source, Source::PathDir);
        assert_eq!(err.searched()[2].source, Source::InstallPlace);
        let msg = err.to_string();
        assert!(
            msg.contains("npm install -g @anthropic-ai/claude-code"),
            "{msg}"
        );
        assert!(msg.contains("CLAUDE_BIN"), "{msg}");
        for p in paths {
            assert!(msg.contains(&*p.to_string_lossy()), "{msg}");
        }
    }

    #[test]
    fn nothing_set_still_checks_fixed_places() {
        let err = locate(None, &Fake::default(), Platform::Unix).unwrap_err();
        assert_eq!(err.searched().len(), 2);
        let err = locate(None, &Fake::default(), Platform::Windows).unwrap_err();
        assert!(err.searched().is_empty());
        assert!(err.to_string().contains("nowhere"));
    }

    #[test]
    fn missing_explicit_path_is_an_error_not_a_fallthrough() {
        let fake = unix().file("/bin/claude");
        let err = locate(Some(Path::new("/nope/claude")), &fake, Platform::Unix).unwrap_err();
        assert_eq!(
            err,
            NotFound::Explicit {
                path: "/nope/claude".into(),
                searched: vec![Candidate {
                    path: "/nope/claude".into(),
                    source: Source::Explicit
                }],
            }
        );
        assert!(err.to_string().contains("/nope/claude"));
    }

    #[test]
    fn missing_claude_bin_is_an_error_not_a_fallthrough() {
        let fake = unix()
            .with_env("CLAUDE_BIN", "/typo/claude")
            .file("/bin/claude");
        let err = locate(None, &fake, Platform::Unix).unwrap_err();
        assert!(
            matches!(&err, NotFound::ClaudeBin { path, .. } if path == Path::new("/typo/claude"))
        );
        assert!(err.to_string().contains("/typo/claude"));
        // An empty CLAUDE_BIN counts as unset.
        let fake = unix().with_env("CLAUDE_BIN", "").file("/bin/claude");
        assert_eq!(found(None, &fake), Path::new("/bin/claude"));
    }

    #[test]
    fn bare_names_are_searched_in_path() {
        let fake = unix().file("/bin/claude-nightly");
        assert_eq!(
            found(Some("claude-nightly"), &fake),
            Path::new("/bin/claude-nightly")
        );
        let fake = unix().with_env("CLAUDE_BIN", "claude-beta");
        let err = locate(None, &fake, Platform::Unix).unwrap_err();
        let paths: Vec<&Path> = err.searched().iter().map(|c| c.path.as_path()).collect();
        assert_eq!(
            paths,
            ["/usr/bin/claude-beta", "/bin/claude-beta"].map(Path::new)
        );
        // A relative path with a directory is taken as is.
        let fake = unix().file("./bin/claude");
        assert_eq!(
            found(Some("./bin/claude"), &fake),
            Path::new("./bin/claude")
        );
    }

    #[test]
    fn windows_names_and_places() {
        let fake = Fake::default()
            .with_env("USERPROFILE", r"C:\Users\u")
            .with_env("APPDATA", r"C:\Users\u\AppData\Roaming")
            .with_env("PATH", r"C:\Windows;C:\tools\");
        let list: Vec<PathBuf> = search_list(&fake, Platform::Windows)
            .into_iter()
            .map(|c| c.path)
            .collect();
        let expected = [
            r"C:\Windows\claude.exe",
            r"C:\Windows\claude.cmd",
            r"C:\tools\claude.exe",
            r"C:\tools\claude.cmd",
            r"C:\Users\u\.claude\local\claude.exe",
            r"C:\Users\u\.claude\local\claude.cmd",
            r"C:\Users\u\.local\bin\claude.exe",
            r"C:\Users\u\.local\bin\claude.cmd",
            r"C:\Users\u\AppData\Roaming\npm\claude.exe",
            r"C:\Users\u\AppData\Roaming\npm\claude.cmd",
            r"C:\Users\u\.npm-global\claude.exe",
            r"C:\Users\u\.npm-global\claude.cmd",
            r"C:\Users\u\node_modules\.bin\claude.exe",
            r"C:\Users\u\node_modules\.bin\claude.cmd",
            r"C:\Users\u\.yarn\bin\claude.exe",
            r"C:\Users\u\.yarn\bin\claude.cmd",
        ];
        assert_eq!(list, expected.map(PathBuf::from));

        let fake = fake.file(r"C:\Users\u\AppData\Roaming\npm\claude.cmd");
        assert_eq!(
            locate(None, &fake, Platform::Windows).unwrap(),
            Path::new(r"C:\Users\u\AppData\Roaming\npm\claude.cmd")
        );
        // Where npm put the native CLI behind its shim, that is started.
        let native =
            r"C:\Users\u\AppData\Roaming\npm\node_modules\@anthropic-ai\claude-code\bin\claude.exe";
        assert_eq!(
            locate(None, &fake.clone().file(native), Platform::Windows).unwrap(),
            Path::new(native)
        );
        // A bare explicit name gets the Windows extensions.
        let fake = fake.file(r"C:\tools\claude-dev.exe");
        assert_eq!(
            locate(Some(Path::new("claude-dev")), &fake, Platform::Windows).unwrap(),
            Path::new(r"C:\tools\claude-dev.exe")
        );
    }

    /// npm's shims, global and local, give way to the native CLI they
    /// start; any other `.cmd`, or a shim without the executable where npm
    /// puts it, is started as it is.
    #[test]
    fn an_npm_shim_gives_way_to_the_native_cli_behind_it() {
        let global = r"C:\npm\node_modules\@anthropic-ai\claude-code\bin\claude.exe";
        let local = r"D:\app\node_modules\@anthropic-ai\claude-code\bin\claude.exe";
        let fake = Fake::default().file(global).file(local);
        let behind = |path: &str| native_behind_shim(Path::new(path), &fake, Platform::Windows);
        assert_eq!(behind(r"C:\npm\claude.cmd"), Some(global.into()));
        assert_eq!(behind(r"C:\npm\CLAUDE.CMD"), Some(global.into()));
        assert_eq!(
            behind(r"D:\app\node_modules\.bin\claude.cmd"),
            Some(local.into())
        );
        // Forward slashes are separators too; the parts added are joined
        // with backslashes (Windows reads both).
        let mixed = r"D:/app/node_modules\@anthropic-ai\claude-code\bin\claude.exe";
        assert_eq!(
            native_behind_shim(
                Path::new("D:/app/node_modules/.bin/claude.cmd"),
                &fake.clone().file(mixed),
                Platform::Windows
            ),
            Some(mixed.into())
        );
        assert_eq!(behind(r"C:\other\claude.cmd"), None);
        assert_eq!(behind(r"C:\npm\claude.exe"), None);
        assert_eq!(behind(r"C:\npm\claude-dev.cmd"), None);
        assert_eq!(behind("claude.cmd"), None);
        // Unix has no shims to see through.
        assert_eq!(
            native_behind_shim(Path::new(r"C:\npm\claude.cmd"), &fake, Platform::Unix),
            None
        );
        // An explicit path and CLAUDE_BIN are seen through too.
        assert_eq!(
            locate(
                Some(Path::new(r"C:\npm\claude.cmd")),
                &fake.clone().file(r"C:\npm\claude.cmd"),
                Platform::Windows
            )
            .unwrap(),
            Path::new(global)
        );
    }

    #[cfg(unix)]
    #[test]
    fn non_utf8_path_entries_survive() {
        use std::os::unix::ffi::OsStrExt;
        let raw = OsStr::from_bytes(b"/a\xff:/b");
        let parts = split(raw, ':');
        assert_eq!(parts[0].as_bytes(), b"/a\xff");
        assert_eq!(parts[1], OsString::from("/b"));
    }
}
