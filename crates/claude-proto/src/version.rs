//! Which CLI versions this release works with, and the check of the
//! version a CLI reports (`claude_code_version` in its `initialize`
//! answer).

use std::cmp::Ordering;
use std::fmt;

/// The CLI version this release is tested against (the version pinned in
/// the repository's end-to-end tests).
pub const TESTED_CLI_VERSION: &str = "2.1.332";

/// The oldest CLI version this release supports: the 2.1 line, whose
/// control protocol (request cancellation, hook failure modes, in-process
/// MCP over `mcp_message`) this release models. Older 2.x versions may
/// work in part; a session on one gets a [`VersionCheck::Older`] warning.
pub const MIN_CLI_VERSION: &str = "2.1.0";

/// Below this version the CLI predates the control protocol of the agent
/// SDKs (the Python SDK's minimum): a session on one is refused.
pub const FIRST_COMPATIBLE_CLI_VERSION: &str = "2.0.0";

/// The environment variable that turns the check off (the Python SDK's
/// name for the same switch); the adapters read it.
pub const ENV_SKIP_VERSION_CHECK: &str = "CLAUDE_AGENT_SDK_SKIP_VERSION_CHECK";

/// What to run to get the tested CLI.
pub const INSTALL_TESTED_CLI: &str = "npm install @anthropic-ai/claude-code@2.1.332";

/// A `major.minor.patch` version; anything after the patch number
/// (`-beta.1`, ` (Claude Code)`) is ignored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct CliVersion {
    /// Major version.
    pub major: u64,
    /// Minor version.
    pub minor: u64,
    /// Patch version.
    pub patch: u64,
}

impl CliVersion {
    /// Reads the leading `major.minor.patch` of `text`; `None` if it does
    /// not start with one.
    pub fn parse(text: &str) -> Option<Self> {
        let mut parts = text.trim().splitn(3, '.');
        let major = parts.next()?.parse().ok()?;
        let minor = parts.next()?.parse().ok()?;
        let rest = parts.next()?;
        let end = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        let patch = rest[..end].parse().ok()?;
        Some(Self {
            major,
            minor,
            patch,
        })
    }

    fn of(constant: &str) -> Self {
        // The constants above are well formed; a zero version would only
        // make the check lenient.
        Self::parse(constant).unwrap_or(Self {
            major: 0,
            minor: 0,
            patch: 0,
        })
    }
}

impl fmt::Display for CliVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

/// The outcome of checking the version a CLI reported.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum VersionCheck {
    /// At least [`MIN_CLI_VERSION`].
    Supported(CliVersion),
    /// Older than [`MIN_CLI_VERSION`] but not known to be incompatible:
    /// the session runs, with a warning.
    Older(CliVersion),
    /// The CLI reported no version, or one that is not `x.y.z` (CLIs before
    /// 2.1 did not report it): the session runs, with a warning.
    Unreported(Option<String>),
    /// Older than [`FIRST_COMPATIBLE_CLI_VERSION`]: the session is refused.
    Incompatible(CliVersion),
}

impl VersionCheck {
    /// Checks `reported` (the `initialize` answer's `claude_code_version`).
    pub fn of(reported: Option<&str>) -> Self {
        let Some(version) = reported.and_then(CliVersion::parse) else {
            return Self::Unreported(reported.map(str::to_owned));
        };
        let at_least = |constant| version.cmp(&CliVersion::of(constant)) != Ordering::Less;
        if !at_least(FIRST_COMPATIBLE_CLI_VERSION) {
            Self::Incompatible(version)
        } else if !at_least(MIN_CLI_VERSION) {
            Self::Older(version)
        } else {
            Self::Supported(version)
        }
    }

    /// The warning to give, for [`Older`](Self::Older) and
    /// [`Unreported`](Self::Unreported).
    pub fn warning(&self) -> Option<String> {
        match self {
            Self::Older(version) => Some(format!(
                "Claude Code {version} is older than {MIN_CLI_VERSION}, the oldest version this \
                 library supports (it is tested with {TESTED_CLI_VERSION}); some features may not \
                 work: `{INSTALL_TESTED_CLI}` installs the tested one, and \
                 {ENV_SKIP_VERSION_CHECK}=1 silences this"
            )),
            Self::Unreported(reported) => Some(format!(
                "Claude Code did not report a version it understands ({}); it may be older than \
                 {MIN_CLI_VERSION}, the oldest version this library supports (it is tested with \
                 {TESTED_CLI_VERSION}): `{INSTALL_TESTED_CLI}` installs the tested one, and \
                 {ENV_SKIP_VERSION_CHECK}=1 silences this",
                reported.as_deref().unwrap_or("none")
            )),
            _ => None,
        }
    }

    /// Why the session is refused, for [`Incompatible`](Self::Incompatible).
    pub fn refusal(&self) -> Option<String> {
        match self {
            Self::Incompatible(version) => Some(format!(
                "Claude Code {version} predates the control protocol this library speaks \
                 (needs {FIRST_COMPATIBLE_CLI_VERSION} or later, supports {MIN_CLI_VERSION} or \
                 later, tested with {TESTED_CLI_VERSION}): run `{INSTALL_TESTED_CLI}`, or set \
                 {ENV_SKIP_VERSION_CHECK}=1 to try anyway"
            )),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_parse_leniently_and_order() {
        let v = |s| CliVersion::parse(s);
        assert_eq!(
            v("2.1.332").map(|v| v.to_string()).as_deref(),
            Some("2.1.332")
        );
        assert_eq!(v("2.1.332 (Claude Code)"), v("2.1.332"));
        assert_eq!(v("2.1.4-beta.1").map(|v| v.patch), Some(4));
        assert!(v("2.1.332") > v("2.1.40"));
        for bad in ["", "2", "2.1", "x.1.2", "2.x.1", "2.1.x", "-1.0.0"] {
            assert_eq!(v(bad), None, "{bad}");
        }
    }

    #[test]
    fn checks() {
        assert!(matches!(
            VersionCheck::of(Some("2.1.332")),
            VersionCheck::Supported(_)
        ));
        assert!(matches!(
            VersionCheck::of(Some("3.0.0")),
            VersionCheck::Supported(_)
        ));
        assert!(matches!(
            VersionCheck::of(Some("2.1.0")),
            VersionCheck::Supported(_)
        ));
        let older = VersionCheck::of(Some("2.0.77"));
        assert!(matches!(older, VersionCheck::Older(_)));
        let warning = older.warning().unwrap();
        assert!(
            warning.contains("2.0.77") && warning.contains(INSTALL_TESTED_CLI),
            "{warning}"
        );
        assert!(older.refusal().is_none());
        let ancient = VersionCheck::of(Some("1.0.128"));
        assert!(matches!(ancient, VersionCheck::Incompatible(_)));
        assert!(ancient.refusal().unwrap().contains(INSTALL_TESTED_CLI));
        assert!(ancient.warning().is_none());
        assert_eq!(VersionCheck::of(None), VersionCheck::Unreported(None));
        let odd = VersionCheck::of(Some("dev"));
        assert!(odd.warning().unwrap().contains("(dev)"));
        assert!(CliVersion::of(TESTED_CLI_VERSION) >= CliVersion::of(MIN_CLI_VERSION));
        assert!(INSTALL_TESTED_CLI.ends_with(TESTED_CLI_VERSION));
    }
}
