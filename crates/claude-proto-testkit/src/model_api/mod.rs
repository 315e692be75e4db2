//! The real Claude Code CLI, offline: a loopback stand-in for the Anthropic
//! Messages API with scripted model turns, and the options that point the
//! CLI at it.
//!
//! Your agent talks to the real CLI as in production; only the model is
//! scripted. Start a [`ModelApi`] in the test with the model's turns, give
//! the CLI [`ModelApi::options`], run the session, then check what the
//! agent saw and what the model was sent ([`ModelApi::requests`]). Dropping
//! the `ModelApi` stops it. `OFFLINE.md` in this crate is the whole recipe
//! for a CI job (installing the pinned CLI included).
//!
//! ```
//! use claude_proto_testkit::model_api::{ModelApi, Reply};
//! use serde_json::json;
//!
//! // The n-th model call gets the n-th reply.
//! let api = ModelApi::turns([
//!     Reply::tool_use("Bash", json!({"command": "ls"})).with_text("Let me look."),
//!     Reply::text("There are two files."),
//! ])?;
//! let options = api.options(claude_proto::options::Options::default());
//! assert!(options.env.iter().any(|(name, value)| name == "ANTHROPIC_BASE_URL"
//!     && *value == *api.url()));
//! # Ok::<(), std::io::Error>(())
//! ```
//!
//! # What it answers
//!
//! A plain-std HTTP/1.1 server on `127.0.0.1` (a free port), one thread per
//! connection, every answer closing its connection:
//!
//! - `POST /v1/messages` (any query, e.g. `?beta=true`) is a model call: the
//!   script decides the [`Reply`]. A message is streamed as server-sent
//!   events when the request has `"stream": true` (`message_start`; per
//!   block `content_block_start`, `text_delta`s or `input_json_delta`s,
//!   `content_block_stop`; `message_delta` with the stop reason;
//!   `message_stop`), and is one JSON message otherwise. An error reply is
//!   its HTTP status with an Anthropic error body and the reply's headers.
//! - A script that panics gets that call answered 500 (`api_error`,
//!   "stand-in: the script panicked: ..."), so the turn ends in an error
//!   that says so (the stand-in keeps running).
//! - After [`MAX_MESSAGES_REQUESTS`] model calls (or the limit given to
//!   [`ModelApi::start_with_limit`]) every further one gets a 400, so a
//!   script that makes the CLI loop fails the turn instead of hanging the
//!   test.
//! - A request larger than [`MAX_REQUEST_BYTES`] gets a 413
//!   (`request_too_large`), one it cannot parse a 400, every other path a
//!   404 (`not_found_error`).
//!
//! Every request whose head could be read is recorded, with the status it
//! got: the model calls, the 404s, and the refused ones (a 413, or a 400 for
//! a body it cannot read). Of the requests that are not model calls
//! answered by the script (the 404s, the refused ones, and model calls
//! past the limit), only the first [`MAX_RECORDED_OTHER_REQUESTS`] are
//! recorded: later ones are answered the same but not kept, so a client
//! that keeps knocking cannot grow the test's memory.
//!
//! A connection holds its descriptors only while it is served: a
//! stand-in that answers thousands of requests does not run out of them.
//!
//! # Errors, and the CLI's retries
//!
//! What the pinned CLI ([`PINNED_CLI_VERSION`]) does with an error reply,
//! as the real-CLI tests in `tests/model_api.rs` (named here) check it;
//! the counts and waits are read from its code:
//!
//! - **408, 409, 429 and 5xx** (500, 503 and 529 tested): it waits and sends
//!   the call again, up to `CLAUDE_CODE_MAX_RETRIES` times (10 by default,
//!   at most 15; a 500 answered every time made 11 calls over about three
//!   minutes when measured). The wait starts at 0.5 s and doubles up to
//!   32 s (±25 %),
//!   or is the `retry-after` header's when that is longer
//!   (`tokio_with_retries_on_408_409_429_5xx_and_529_are_sent_again`).
//! - **A `retry-after` over a minute** ends the turn at once, whatever the
//!   retries (`tokio_a_retry_after_over_a_minute_ends_the_turn_at_once`).
//! - **529** three times in a row ends the turn ("Repeated 529 Overloaded
//!   errors"), whatever the retries
//!   (`tokio_three_overloaded_calls_in_a_row_end_the_turn_whatever_the_retries`).
//! - **400** is not retried as such, but while the CLI sends experimental
//!   betas it sends the call again without one of them after another (six
//!   calls in all, at once) before giving up
//!   (`tokio_with_experimental_betas_a_400_is_sent_again`).
//!
//! Left at the defaults, a test of a failing API would see more calls than
//! it scripted and could wait minutes. So [`ModelApi::options`] sets
//! `CLAUDE_CODE_MAX_RETRIES=0` and `CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS=1`:
//! every model call gets one reply, and an error reply ends the turn with
//! an error result carrying its message
//! (`tokio_overloaded_ends_the_turn_with_an_error_at_once`,
//! `tokio_a_400_ends_the_turn_after_one_call`). To test the retries
//! themselves, set the variable again after: with
//! `.env("CLAUDE_CODE_MAX_RETRIES", "1")`,
//! `turns([Reply::overloaded(), Reply::text("ok")])` succeeds after one
//! retry, about half a second later.

use std::collections::hash_map::RandomState;
use std::ffi::OsString;
use std::fmt;
use std::hash::BuildHasher as _;
use std::io::{self, Write as _};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use claude_proto::options::Options;

mod http;
mod limits;
mod reply;
mod request;

pub use limits::{MAX_MESSAGES_REQUESTS, MAX_RECORDED_OTHER_REQUESTS, MAX_REQUEST_BYTES};
pub use reply::Reply;
pub use request::ApiRequest;

use http::{Shared, State};

/// The version of the Claude Code CLI (`@anthropic-ai/claude-code` on npm)
/// this kit is tested against; what `OFFLINE.md` installs.
pub const PINNED_CLI_VERSION: &str = "2.1.332";

/// The API key the CLI is given: any value will do, the stand-in does not
/// check it.
const API_KEY: &str = "stand-in-key";

/// Variables of the test's own environment that the CLI keeps: what it
/// needs to find programs and temporary space. Everything else (the
/// user's credentials, provider switches like `CLAUDE_CODE_USE_BEDROCK`,
/// proxies, a unix socket for the API) could send it elsewhere.
const KEPT: &[&str] = &[
    "PATH",
    "LANG",
    "LC_ALL",
    "TMPDIR",
    "TEMP",
    "TMP",
    "SYSTEMROOT",
];

/// The loopback stand-in for the Anthropic Messages API, running. Each
/// model call is answered by the script it was started with.
///
/// It also owns an empty private directory that
/// [`options`](Self::options) makes the CLI's `HOME` (and config
/// directory), so the CLI reads no settings, credentials or hooks of the
/// machine's user and writes its session files where the test can see
/// them.
///
/// Dropping it stops it: the listener closes, open connections (a slow
/// stream too) are cut, every thread is joined, the script is dropped, and
/// the directory is removed. Close the CLI first.
#[must_use = "dropping it stops the stand-in"]
pub struct ModelApi {
    addr: SocketAddr,
    shared: Arc<Shared>,
    accept: Option<JoinHandle<()>>,
    home: PathBuf,
}

impl fmt::Debug for ModelApi {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ModelApi")
            .field("addr", &self.addr)
            .field("home", &self.home)
            .finish_non_exhaustive()
    }
}

impl ModelApi {
    /// Starts a stand-in on `127.0.0.1` (a free port) that answers each
    /// model call with `script(request)`. The script sees the whole request
    /// (the conversation so far, the tools offered), so it can answer by
    /// content: a tool call first, text once the tool's result is in.
    ///
    /// Errors: binding the port, spawning its thread, or creating its
    /// directory failed.
    pub fn start(
        script: impl Fn(&ApiRequest) -> Reply + Send + Sync + 'static,
    ) -> io::Result<Self> {
        Self::start_with_limit(script, MAX_MESSAGES_REQUESTS)
    }

    /// Starts a stand-in that answers the `n`-th model call with the `n`-th
    /// reply, and any call after the last with a 400
    /// (`invalid_request_error`, "stand-in: no reply scripted for model
    /// call N") so that a CLI asking more than the script says ends its turn
    /// in an error that names the call.
    ///
    /// Errors: as [`start`](Self::start).
    pub fn turns(replies: impl IntoIterator<Item = Reply>) -> io::Result<Self> {
        let replies: Vec<Reply> = replies.into_iter().collect();
        let next = AtomicUsize::new(0);
        Self::start(move |_| {
            let n = next.fetch_add(1, Ordering::SeqCst);
            replies.get(n).cloned().unwrap_or_else(|| {
                Reply::invalid_request(format!(
                    "stand-in: no reply scripted for model call {} (the script has {})",
                    n + 1,
                    replies.len()
                ))
            })
        })
    }

    /// Like [`start`](Self::start), answering at most `max_requests` model
    /// calls before refusing (for long interactive sessions).
    ///
    /// Errors: as [`start`](Self::start).
    pub fn start_with_limit(
        script: impl Fn(&ApiRequest) -> Reply + Send + Sync + 'static,
        max_requests: usize,
    ) -> io::Result<Self> {
        let home = private_dir()?;
        match Self::listen(Box::new(script), max_requests, home.clone()) {
            Ok(api) => Ok(api),
            Err(error) => {
                let _ = std::fs::remove_dir_all(&home);
                Err(error)
            }
        }
    }

    fn listen(script: Box<http::Script>, max_requests: usize, home: PathBuf) -> io::Result<Self> {
        std::fs::create_dir(home.join(".claude"))?;
        let listener = TcpListener::bind(("127.0.0.1", 0))?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared {
            max_requests,
            state: Mutex::new(State::default()),
            changed: Condvar::new(),
            script,
        });
        let accept = {
            let shared = shared.clone();
            std::thread::Builder::new()
                .name("model-api-accept".into())
                .spawn(move || http::accept_loop(&listener, &shared))?
        };
        Ok(Self {
            addr,
            shared,
            accept: Some(accept),
            home,
        })
    }

    /// The port it listens on (on `127.0.0.1`).
    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    /// `http://127.0.0.1:PORT`: the CLI's `ANTHROPIC_BASE_URL`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The CLI's `HOME` under [`options`](Self::options): a private
    /// directory (only this user may enter it), empty but for `.claude`,
    /// removed when the stand-in is dropped. Put settings in
    /// `.claude/settings.json` here before starting the CLI; find its
    /// session transcripts under `.claude/projects` after.
    pub fn home(&self) -> &Path {
        &self.home
    }

    /// The CLI's config directory under [`options`](Self::options)
    /// (`CLAUDE_CONFIG_DIR`): `.claude` in [`home`](Self::home).
    pub fn config_dir(&self) -> PathBuf {
        self.home.join(".claude")
    }

    /// The environment that runs the CLI offline against this stand-in,
    /// for a CLI started by hand (`Command::new(cli).env_clear().envs(..)`);
    /// [`options`](Self::options) sets the same. In order:
    ///
    /// - `PATH`, `LANG`, `LC_ALL`, `TMPDIR`, `TEMP`, `TMP` and `SYSTEMROOT`,
    ///   each as this process has it (skipped when unset);
    /// - `HOME` = [`home`](Self::home), `CLAUDE_CONFIG_DIR` =
    ///   [`config_dir`](Self::config_dir);
    /// - `ANTHROPIC_BASE_URL` = [`url`](Self::url), `ANTHROPIC_API_KEY` =
    ///   a placeholder;
    /// - `DISABLE_TELEMETRY=1`, `CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1`
    ///   (no telemetry, error reports, update checks or other calls home);
    /// - `CLAUDE_CODE_MAX_RETRIES=0` and
    ///   `CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS=1`, so that each model
    ///   call gets one reply and is not sent again (see the module docs).
    ///
    /// Nothing else of this process's environment should reach the CLI:
    /// the user's credentials, `CLAUDE_CODE_USE_BEDROCK` and the like, a
    /// proxy or `ANTHROPIC_UNIX_SOCKET` would send it elsewhere. No
    /// command-line arguments are needed.
    pub fn env(&self) -> Vec<(&'static str, OsString)> {
        let mut env: Vec<(&'static str, OsString)> = KEPT
            .iter()
            .filter_map(|&name| std::env::var_os(name).map(|value| (name, value)))
            .collect();
        env.extend([
            ("HOME", self.home.clone().into_os_string()),
            ("CLAUDE_CONFIG_DIR", self.config_dir().into_os_string()),
            ("ANTHROPIC_BASE_URL", self.url().into()),
            ("ANTHROPIC_API_KEY", API_KEY.into()),
            ("DISABLE_TELEMETRY", "1".into()),
            ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1".into()),
            ("CLAUDE_CODE_MAX_RETRIES", "0".into()),
            ("CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS", "1".into()),
        ]);
        env
    }

    /// `options` set up to run the CLI offline against this stand-in:
    /// nothing of this process's environment inherited
    /// ([`Options::inherit_env`] off) and the variables of
    /// [`env`](Self::env) set, replacing earlier values of the same names.
    /// Everything else (the CLI's path, flags, variables you set before)
    /// is left as it was; variables set after replace these, which is how
    /// to turn the CLI's retries back on.
    pub fn options(&self, options: Options) -> Options {
        self.env()
            .into_iter()
            .fold(options.inherit_env(false), |options, (name, value)| {
                options.env(name, value)
            })
    }

    /// Every request received so far, in arrival order; of those that are
    /// not model calls answered by the script, only the first
    /// [`MAX_RECORDED_OTHER_REQUESTS`].
    pub fn requests(&self) -> Vec<ApiRequest> {
        self.shared.lock().requests.clone()
    }

    /// The model calls (`POST /v1/messages`) received so far, in arrival
    /// order.
    pub fn messages_requests(&self) -> Vec<ApiRequest> {
        self.requests()
            .into_iter()
            .filter(ApiRequest::is_messages)
            .collect()
    }

    /// Waits (at most `limit`) until `n` requests of any kind have been
    /// answered or are being answered (recorded or not); `false` on
    /// timeout. For a test that acts while the CLI waits on the model
    /// (interrupting a slow stream, say).
    pub fn wait_for_requests(&self, n: usize, limit: Duration) -> bool {
        let deadline = crate::engine::deadline(Instant::now(), limit);
        let mut state = self.shared.lock();
        while state.received < n {
            let now = Instant::now();
            if now >= deadline {
                return false;
            }
            state = self
                .shared
                .changed
                .wait_timeout(state, deadline - now)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
        true
    }
}

impl Drop for ModelApi {
    fn drop(&mut self) {
        // Under the lock, so a stream about to pause sees it.
        self.shared.lock().stopped = true;
        self.shared.changed.notify_all();
        // Wake the blocking accept.
        drop(TcpStream::connect_timeout(
            &self.addr,
            Duration::from_secs(1),
        ));
        if let Some(accept) = self.accept.take() {
            let _ = accept.join();
        }
        let (connections, threads) = {
            let mut state = self.shared.lock();
            (
                std::mem::take(&mut state.connections),
                std::mem::take(&mut state.threads),
            )
        };
        for connection in connections.into_values() {
            let _ = connection.shutdown(std::net::Shutdown::Both);
        }
        for (_, thread) in threads {
            let _ = thread.join();
        }
        let _ = std::fs::remove_dir_all(&self.home);
    }
}

/// Makes `<temp>/claude-proto-model-api-<random>`, entered only by this
/// user.
fn private_dir() -> io::Result<PathBuf> {
    let base = std::env::temp_dir();
    #[cfg(unix)]
    let builder = {
        let mut builder = std::fs::DirBuilder::new();
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
        builder
    };
    #[cfg(not(unix))]
    let builder = std::fs::DirBuilder::new();
    let mut last_error = None;
    for attempt in 0..16u32 {
        let random = RandomState::new().hash_one((std::process::id(), attempt, Instant::now()));
        let path = base.join(format!("claude-proto-model-api-{random:016x}"));
        match builder.create(&path) {
            // The CLI reports resolved paths (macOS: /private/var/...;
            // Windows: C:\..., where canonicalize says \\?\C:\...).
            Ok(()) => {
                let resolved = path.canonicalize()?;
                return Ok(match resolved.to_str() {
                    Some(text) => PathBuf::from(
                        claude_proto::transcript::without_verbatim_prefix(text).as_ref(),
                    ),
                    None => resolved,
                });
            }
            Err(error) if error.kind() == io::ErrorKind::AlreadyExists => last_error = Some(error),
            Err(error) => return Err(error),
        }
    }
    Err(last_error.unwrap_or_else(|| io::Error::other("no free name")))
}

// ----- finding the CLI -----------------------------------------------------

/// Why [`claude_bin`] found no CLI.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum CliNotFound {
    /// `CLAUDE_BIN` is not set (or empty).
    Unset,
    /// `CLAUDE_BIN` names no file.
    Missing(PathBuf),
}

impl fmt::Display for CliNotFound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Unset => {
                f.write_str("the real Claude Code CLI was not found: CLAUDE_BIN is not set")?
            }
            Self::Missing(path) => write!(
                f,
                "the real Claude Code CLI was not found: CLAUDE_BIN={} is not a file",
                path.display()
            )?,
        }
        write!(
            f,
            "; install the pinned version with \
             `npm install --prefix .claude-cli --save-exact @anthropic-ai/claude-code@{PINNED_CLI_VERSION}` \
             and set CLAUDE_BIN=$PWD/.claude-cli/node_modules/.bin/claude (see OFFLINE.md of claude-proto-testkit)"
        )
    }
}

impl std::error::Error for CliNotFound {}

/// The real Claude Code CLI named by the `CLAUDE_BIN` environment
/// variable, for `Options::cli_path`. Not searched for elsewhere: a test
/// should run the version it pins, not whatever `claude` is on `PATH`.
///
/// Errors: `CLAUDE_BIN` is unset or names no file; the error says how to
/// install the pinned CLI.
pub fn claude_bin() -> Result<PathBuf, CliNotFound> {
    match std::env::var_os("CLAUDE_BIN") {
        Some(path) if !path.is_empty() => {
            let path = PathBuf::from(path);
            if path.is_file() {
                Ok(path)
            } else {
                Err(CliNotFound::Missing(path))
            }
        }
        _ => Err(CliNotFound::Unset),
    }
}

/// `true` when the `CI` environment variable says this is a CI run (set,
/// and neither empty, `0` nor `false`).
pub fn in_ci() -> bool {
    std::env::var_os("CI").is_some_and(|v| !v.is_empty() && v != "false" && v != "0")
}

/// [`claude_bin`] for a test that needs the real CLI: the CLI, or `None`
/// so the test can return early (having passed without checking
/// anything) when it is not installed. The first time, it says so on
/// stderr (past the test harness's capture), with how to install it.
///
/// # Panics
///
/// When the CLI is missing under CI ([`in_ci`]): there a skipped test
/// would hide a broken setup, so it fails instead.
pub fn claude_bin_or_skip() -> Option<PathBuf> {
    let error = match claude_bin() {
        Ok(path) => return Some(path),
        Err(error) => error,
    };
    assert!(
        !in_ci(),
        "{error} (CI is set, so a missing CLI fails the test instead of skipping it)"
    );
    static SAID: OnceLock<()> = OnceLock::new();
    SAID.get_or_init(|| {
        let _ = writeln!(
            io::stderr(),
            "\nSKIPPED: the tests that run the real Claude Code CLI did not run: {error}.\n"
        );
    });
    None
}
