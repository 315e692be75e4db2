//! Every way a session can end, against the real CLI, on every adapter:
//! closed, dropped, its runtime dropped, ended by an error, given up at a
//! deadline, the CLI crashing, the caller panicking after a callback
//! panicked. After each, nothing of the CLI's process group is left, its
//! private files are removed and no file descriptor of this process still
//! holds one of the session's pipes.
//!
//! What the session starts, measured with CLI 2.1.330:
//!
//! - an MCP stdio server runs in the CLI's process group: the one here
//!   ignores SIGTERM, outstays its stdin, and has a child that has a child
//!   of its own, all ignoring SIGTERM ([`DEEP_MCP_SERVER`]);
//! - each Bash tool command runs in a session of its own (`setsid`), out
//!   of reach of any group signal: the CLI ends those commands, and what
//!   they leave in the background, when it is asked to stop (SIGTERM),
//!   never when it is killed. So every ending that asks first takes them
//!   along, and a CLI that crashes leaves them running
//!   ([`nothing_outlives_a_crash_but_what_left_the_group`] shows it);
//! - hook commands run in sessions of their own too, and what one leaves
//!   in the background outlives every ending
//!   ([`what_a_hook_command_leaves_running_is_out_of_reach`]).

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::json;

use super::{
    ENDING, HookRule, Peer, RealHarness, RealSpec, StdioServer, Tree, WAIT, describe, must, query,
    sees_the_process_table, start,
};
use crate::conformance::{Driver, HookBehaviour};
use claude_proto_testkit::model_api::{ApiRequest, Reply};

/// An MCP stdio server whose descendants go two levels deep. It ignores
/// SIGTERM (and so does everything it starts: an ignored signal stays
/// ignored across `fork` and `exec`), writes its pid, its child's and its
/// grandchild's to the file named by its first argument, answers just
/// enough MCP for the CLI to list its (no) tools, and when its stdin closes
/// it stays, waiting for its child.
pub const DEEP_MCP_SERVER: &str = r#"#!/bin/sh
trap '' TERM
echo "$$" >> "$1"
sh -c 'sleep 1001 & echo "$!" >> "$1"; exec sleep 1000' deep "$1" &
echo "$!" >> "$1"
while IFS= read -r line; do
  id=$(printf '%s\n' "$line" | sed -n -E 's/.*"id":("[^"]*"|[0-9]+).*/\1/p')
  case $line in
    *'"method":"initialize"'*)
      printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2024-11-05","capabilities":{"tools":{}},"serverInfo":{"name":"deep","version":"1.0.0"}}}\n' "$id" ;;
    *'"method":"tools/list"'*)
      printf '{"jsonrpc":"2.0","id":%s,"result":{"tools":[]}}\n' "$id" ;;
    *)
      if [ -n "$id" ]; then
        printf '{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"Method not found"}}\n' "$id"
      fi ;;
  esac
done
wait
"#;

/// A Bash tool command that writes its pid (its session's id: the CLI
/// starts it with `setsid`) to `bash.pid` in the project directory, starts
/// a child that ignores SIGTERM and one that has a child of its own, and
/// waits: five processes in its session.
pub const BASH_CROWD: &str = "echo $$ > bash.pid; sh -c 'trap \"\" TERM; exec sleep 1002' & sh -c 'sleep 1003 & wait' & sleep 1000";

/// How many processes a running [`BASH_CROWD`] has in its session.
const BASH_CROWD_SIZE: usize = 5;

/// A [`DEEP_MCP_SERVER`]: the server, its child and its grandchild.
fn deep_server() -> StdioServer {
    StdioServer::new("deep", DEEP_MCP_SERVER, 3)
}

/// The Bash command's session, once [`BASH_CROWD`] runs in full.
struct BashCrowd {
    sid: u32,
}

impl BashCrowd {
    /// Waits (at most [`WAIT`]) for the command to run in full, and checks
    /// that it left the CLI's process group (if a CLI ever runs it inside,
    /// the group's signals reach it and the docs must say so).
    fn wait_until_running(peer: &Peer, cli: u32) -> Self {
        let file = peer.cwd().join("bash.pid");
        let start = Instant::now();
        loop {
            let sid = std::fs::read_to_string(&file)
                .ok()
                .and_then(|text| text.trim().parse::<u32>().ok());
            if let Some(sid) = sid {
                if crate::process::session_members(sid).len() >= BASH_CROWD_SIZE {
                    let crowd = Self { sid };
                    for pid in crate::process::session_members(sid) {
                        assert_ne!(
                            crate::process::group_of(pid),
                            Some(cli),
                            "the Bash command runs in the CLI's group: {}",
                            describe(pid)
                        );
                    }
                    return crowd;
                }
            }
            assert!(
                start.elapsed() < WAIT,
                "the Bash command did not run in full within {WAIT:?}"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Asserts, within [`ENDING`], that nothing of it is left.
    fn assert_gone(&self, how: &str) {
        let start = Instant::now();
        let mut left = crate::process::session_members(self.sid);
        while !left.is_empty() && start.elapsed() < ENDING {
            std::thread::sleep(Duration::from_millis(5));
            left = crate::process::session_members(self.sid);
        }
        assert!(
            left.is_empty(),
            "{how}: the Bash command outlived the session: {:?}",
            left.iter().map(|&p| describe(p)).collect::<Vec<_>>()
        );
    }

    /// Ends it (SIGKILL to each member), for a scenario that shows it
    /// outliving the session.
    fn kill(&self) {
        for pid in crate::process::session_members(self.sid) {
            crate::process::kill(pid);
        }
    }
}

/// The session's pipes as this process's fds name them (`pipe:[inode]`):
/// the CLI's stdin, stdout and stderr, and the watchdog's stdin, which only
/// this process writes to. After the session, no fd of this process may
/// still name one. Pipes, not an fd count: the scenarios run beside
/// others in the same process, whose fds come and go meanwhile.
struct Pipes {
    pipes: Vec<String>,
}

impl Pipes {
    fn of(cli: u32) -> Self {
        let link = |pid: u32, fd: u32| {
            std::fs::read_link(format!("/proc/{pid}/fd/{fd}"))
                .ok()
                .map(|target| target.to_string_lossy().into_owned())
                .filter(|target| target.starts_with("pipe:"))
        };
        let mut pipes: Vec<String> = (0..3).filter_map(|fd| link(cli, fd)).collect();
        assert_eq!(pipes.len(), 3, "the CLI's standard streams are pipes");
        pipes.extend(link(watchdog_of(cli), 0));
        assert_eq!(pipes.len(), 4, "the watchdog's stdin is a pipe");
        let this = Self { pipes };
        assert!(
            !this.held().is_empty(),
            "this process holds none of the session's pipes: the check would see nothing"
        );
        this
    }

    /// The fds of this process that name one of the session's pipes.
    fn held(&self) -> Vec<String> {
        let Ok(entries) = std::fs::read_dir("/proc/self/fd") else {
            return Vec::new();
        };
        entries
            .filter_map(|entry| {
                let entry = entry.ok()?;
                let target = std::fs::read_link(entry.path()).ok()?;
                let target = target.to_string_lossy().into_owned();
                self.pipes
                    .contains(&target)
                    .then(|| format!("fd {} -> {target}", entry.file_name().to_string_lossy()))
            })
            .collect()
    }

    /// Asserts, within [`ENDING`], that no fd of this process holds one of
    /// the session's pipes.
    fn assert_released(&self, how: &str) {
        let start = Instant::now();
        let mut held = self.held();
        while !held.is_empty() && start.elapsed() < ENDING {
            std::thread::sleep(Duration::from_millis(5));
            held = self.held();
        }
        assert!(
            held.is_empty(),
            "{how}: fds of this process outlived the session: {held:?}"
        );
    }
}

/// The pid of the watchdog in `cli`'s process group, once it shows (at
/// most [`WAIT`]: a process may be seen mid-`execve`, with no command line
/// yet).
fn watchdog_of(cli: u32) -> u32 {
    let start = Instant::now();
    loop {
        let members = crate::process::group_members(cli);
        let watchdog = members.iter().copied().find(|&pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .is_ok_and(|cmdline| String::from_utf8_lossy(&cmdline).contains("read -r grace"))
        });
        if let Some(watchdog) = watchdog {
            return watchdog;
        }
        assert!(
            start.elapsed() < WAIT,
            "the group's watchdog does not run; the group: {:?}",
            members.iter().map(|&p| describe(p)).collect::<Vec<_>>()
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Everything one session started, found while it runs.
struct Started {
    tree: Tree,
    /// The MCP server, its child and its grandchild.
    server: Vec<u32>,
    pipes: Pipes,
    bash: Option<BashCrowd>,
    /// This process's open fds and threads before the session, in a
    /// counting run.
    fds_before: Option<crate::process::Resources>,
}

impl Started {
    /// Asserts that the CLI's group is empty now: close (and an error
    /// carrying the exit) reports the exit only once it is.
    fn assert_group_empty_now(&self, how: &str) {
        let left = crate::process::group_members(self.tree.cli);
        assert!(
            left.is_empty(),
            "{how}: the exit was reported with the group still running: {:?}",
            left.iter().map(|&p| describe(p)).collect::<Vec<_>>()
        );
    }

    /// Asserts, within [`ENDING`], that the CLI, everything its MCP server
    /// started, every other member of its group and the Bash command (if
    /// the ending asked the CLI to stop) are gone, its private files
    /// removed and its pipes released.
    /// The scenario's `peer` goes last, before the fds are counted.
    fn assert_gone(&self, how: &str, bash_gone: bool, peer: Peer) {
        let mut pids = vec![self.tree.cli];
        pids.extend(&self.server);
        for pid in pids {
            assert!(
                crate::process::wait_until_not_running(pid, ENDING),
                "{how}: a process outlived the session: {}",
                describe(pid)
            );
        }
        let left = crate::process::wait_until_group_empty(self.tree.cli, ENDING);
        assert!(
            left.is_empty(),
            "{how}: the CLI's process group outlived the session: {:?}",
            left.iter().map(|&p| describe(p)).collect::<Vec<_>>()
        );
        if bash_gone {
            if let Some(bash) = &self.bash {
                bash.assert_gone(how);
            }
        }
        let start = Instant::now();
        while self.tree.files.iter().any(|f| f.exists()) && start.elapsed() < ENDING {
            std::thread::sleep(Duration::from_millis(5));
        }
        for file in &self.tree.files {
            assert!(
                !file.exists(),
                "{how}: {} outlived the session",
                file.display()
            );
        }
        self.pipes.assert_released(how);
        drop(peer);
        self.assert_counts_back(how);
    }

    /// In a counting run, asserts (within [`ENDING`]) that this process
    /// has no more fds open and no more threads than before the session.
    /// Call it once the scenario's [`Peer`] is dropped: its model stand-in
    /// keeps a handle on every connection it served.
    fn assert_counts_back(&self, how: &str) {
        if let Some(before) = self.fds_before {
            let after = crate::process::settle(before, ENDING);
            assert!(
                after.fds <= before.fds,
                "{how}: this process has {} fds open, {} before the session: {:?}",
                after.fds,
                before.fds,
                open_fds()
            );
            assert!(
                after.threads <= before.threads,
                "{how}: this process has {} threads, {} before the session",
                after.threads,
                before.threads,
            );
        }
    }
}

/// Set in the environment of the run that counts fds and threads
/// ([`endings_leave_no_fd_or_thread_behind`]).
const COUNTING: &str = "CLAUDE_PROTO_REAL_CLI_COUNT_FDS";

/// In a counting run, this process's open fds and threads now, once a
/// first session has come and gone (what a runtime starts once and keeps,
/// its reactor and worker threads, is not the session's); `None`
/// otherwise.
fn fds_before<H: RealHarness>() -> Option<crate::process::Resources> {
    std::env::var_os(COUNTING)?;
    static WARMED: std::sync::Once = std::sync::Once::new();
    WARMED.call_once(|| {
        let peer = Peer::new(|_| Reply::text("Warm.")).expect("the CLI is installed");
        let mut spec = peer.spec();
        spec.transcript = None;
        let mut s = start::<H>(spec);
        assert_eq!(query(&mut *s, "Hi").text, "Warm.");
        must("close", s.close());
    });
    Some(crate::process::resources())
}

/// This process's open fds and what they name, for a failure message.
fn open_fds() -> Vec<String> {
    let Ok(entries) = std::fs::read_dir("/proc/self/fd") else {
        return Vec::new();
    };
    entries
        .filter_map(|entry| {
            let entry = entry.ok()?;
            let target = std::fs::read_link(entry.path()).ok()?;
            Some(format!(
                "{} -> {}",
                entry.file_name().to_string_lossy(),
                target.display()
            ))
        })
        .collect()
}

/// Runs this test binary's ending scenarios again, each in a process of
/// its own, where it also checks that the process has no more fds open and
/// no more threads after the session than before it: counts, which the
/// scenarios run beside others cannot trust. The processes run at once
/// (each holds one scenario, so its counts are its own): one after the
/// other, their waits made this the longest test of each real-CLI binary.
/// Call it from one `#[test]` of each real-CLI test binary.
pub fn endings_leave_no_fd_or_thread_behind() {
    if std::env::var_os(COUNTING).is_some() || super::real_cli().is_none() {
        return;
    }
    if !Path::new("/proc/self/fd").exists() {
        eprintln!("no /proc to count fds in; skipped");
        return;
    }
    let exe = std::env::current_exe().expect("this test binary");
    let listed = std::process::Command::new(&exe)
        .args(["nothing_outlives_a", "--list"])
        .output()
        .expect("the test binary lists its tests");
    let listed = String::from_utf8_lossy(&listed.stdout);
    let endings: Vec<&str> = listed
        .lines()
        .filter_map(|line| line.strip_suffix(": test"))
        .collect();
    assert_eq!(
        endings.len(),
        7,
        "this binary should list the 7 endings:\n{listed}"
    );
    let failures: Vec<String> = std::thread::scope(|scope| {
        let runs: Vec<_> = endings
            .iter()
            .map(|ending| {
                let exe = &exe;
                scope.spawn(move || {
                    let output = std::process::Command::new(exe)
                        .args([ending, "--exact", "--test-threads=1"])
                        .env(COUNTING, "1")
                        .output()
                        .expect("the test binary runs again");
                    (ending, output)
                })
            })
            .collect();
        runs.into_iter()
            .filter_map(|run| {
                let (ending, output) = run.join().expect("the run's thread returns");
                let stdout = String::from_utf8_lossy(&output.stdout);
                if output.status.success() && stdout.contains("test result: ok. 1 passed") {
                    return None;
                }
                Some(format!(
                    "the counting run of {ending} failed:\n{stdout}\n{}",
                    String::from_utf8_lossy(&output.stderr)
                ))
            })
            .collect()
    });
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A model that asks for [`BASH_CROWD`] and, once it has a tool result,
/// says it is done.
fn run_the_crowd(request: &ApiRequest) -> Reply {
    if request.tool_results().is_empty() {
        Reply::tool_use(
            "Bash",
            json!({"command": BASH_CROWD, "description": "Start a crowd"}),
        )
    } else {
        Reply::text("Done.")
    }
}

/// The spec of a session that runs a [`StdioServer`] and may run Bash, to
/// be spawned by the adapter itself (its own process plumbing is what
/// these scenarios test).
/// An ending scenario's world, or `None` (the scenario skipped) when this
/// harness cannot see the process table or the CLI is missing: the fds
/// open before (counted before the model stand-in and the scratch files,
/// which go before the count after), the peer answering with `script`, and
/// a deep MCP server.
fn world<H: RealHarness>(
    script: impl Fn(&ApiRequest) -> Reply + Send + Sync + 'static,
) -> Option<(Option<crate::process::Resources>, Peer, StdioServer)> {
    if !sees_the_process_table::<H>() {
        return None;
    }
    let before = fds_before::<H>();
    let peer = Peer::new(script)?;
    Some((before, peer, deep_server()))
}

fn spec_with(peer: &Peer, server: &StdioServer) -> RealSpec {
    let mut spec = peer.spec();
    spec.transcript = None;
    spec.options = spec
        .options
        .mcp_config(server.config())
        .allowed_tools(["Bash"]);
    spec
}

/// Finds what a started session runs: the CLI, its private files, its
/// pipes, the MCP server and its descendants (which, with `may_end`, the
/// session may be ending already).
fn found(
    s: &dyn Driver,
    server: &StdioServer,
    may_end: bool,
    fds_before: Option<crate::process::Resources>,
) -> Started {
    let cli = s.pid().expect("a child process");
    // The CLI's own view first: a CLI about to fail may not live long.
    let tree = Tree::of(cli);
    let pipes = Pipes::of(cli);
    let server = server.wait_until_running(cli, may_end);
    Started {
        tree,
        server,
        pipes,
        bash: None,
        fds_before,
    }
}

/// Starts a session on `start`, sends a prompt whose answer runs
/// [`BASH_CROWD`], and returns once the MCP server's descendants and the
/// Bash command all run.
fn start_the_crowd(
    peer: &Peer,
    server: &StdioServer,
    fds_before: Option<crate::process::Resources>,
    s: Box<dyn Driver>,
) -> (Box<dyn Driver>, Started) {
    let mut s = s;
    let mut started = found(&*s, server, false, fds_before);
    must("send", s.send_text("Start the crowd"));
    started.bash = Some(BashCrowd::wait_until_running(peer, started.tree.cli));
    (s, started)
}

/// Closed while the Bash command runs: `close` closes stdin, then asks the
/// CLI to stop (SIGTERM to the group), which ends the Bash command; the
/// MCP server's descendants ignore SIGTERM and get SIGKILL after the grace;
/// `close` reports the exit once the group is empty.
pub fn nothing_outlives_a_close_mid_turn<H: RealHarness>() {
    let Some((before, peer, server)) = world::<H>(run_the_crowd) else {
        return;
    };
    let s = start::<H>(spec_with(&peer, &server));
    let (s, started) = start_the_crowd(&peer, &server, before, s);
    must("close", s.close()).expect("an exit report");
    started.assert_group_empty_now(H::NAME);
    started.assert_gone(&format!("{}: closed mid-turn", H::NAME), true, peer);
}

/// Dropped without closing while the Bash command runs.
pub fn nothing_outlives_a_drop_mid_turn<H: RealHarness>() {
    let Some((before, peer, server)) = world::<H>(run_the_crowd) else {
        return;
    };
    let s = start::<H>(spec_with(&peer, &server));
    let (s, started) = start_the_crowd(&peer, &server, before, s);
    s.abandon();
    started.assert_gone(&format!("{}: dropped mid-turn", H::NAME), true, peer);
}

/// The runtime under the session dropped while the Bash command runs (the
/// session's tasks go with it), then the session's handle. Skipped, loudly,
/// on an adapter without a runtime (blocking).
pub fn nothing_outlives_a_dropped_runtime<H: RealHarness>() {
    let Some((before, peer, server)) = world::<H>(run_the_crowd) else {
        return;
    };
    let Some(s) = H::start_on_own_runtime(spec_with(&peer, &server)) else {
        eprintln!("{}: no runtime to drop; scenario skipped", H::NAME);
        return;
    };
    let s = must("start", s);
    let (s, started) = start_the_crowd(&peer, &server, before, s);
    assert!(s.drop_runtime(), "{}: the runtime was not dropped", H::NAME);
    started.assert_gone(
        &format!("{}: runtime dropped mid-turn", H::NAME),
        true,
        peer,
    );
}

/// An error ends the session: the CLI is asked to resume a conversation
/// it does not have, and exits with code 1. The waiting call fails with
/// that exit and the CLI's own words, once the group is empty; the session
/// is then dropped, as a `?` drops it.
///
/// The CLI may fail the resume before it starts its MCP servers, so the
/// group's members that ignore SIGTERM are not left to the CLI: a `Gate`
/// starts a [`DEEP_MCP_SERVER`] in the group first, and the CLI only once
/// the test has seen all of it run. So the error surely comes after they
/// run, whichever the CLI does first.
pub fn nothing_outlives_an_error<H: RealHarness>() {
    let Some((before, peer, server)) = world::<H>(|_| Reply::text("unreachable")) else {
        return;
    };
    let gate = Gate::new(&peer.cli);
    let mut spec = spec_with(&peer, &server);
    spec.options = spec
        .options
        .cli_path(&gate.wrapper)
        .resume("3f8c7a52-1d4e-4b6a-9f0e-2a7d5c1b8e90");
    let mut s = start::<H>(spec);
    let started = found(&*s, &gate.deep, false, before);
    gate.open();
    let error = s
        .initialization()
        .expect_err("the CLI has no such conversation");
    let report = error
        .ended()
        .and_then(|ended| ended.report())
        .unwrap_or_else(|| panic!("{}: no exit in the error: {error}", H::NAME));
    assert_eq!(report.code, Some(1), "{report}");
    assert!(
        report.stderr_tail.contains("No conversation found"),
        "{report}"
    );
    started.assert_group_empty_now(H::NAME);
    s.abandon();
    started.assert_gone(&format!("{}: ended by an error", H::NAME), true, peer);
}

/// What the session starts in place of the CLI, for a scenario whose CLI
/// may end before it would start anything: a shell script that starts a
/// [`DEEP_MCP_SERVER`] (in the background, stdin closed) in its process
/// group, waits for one line on a FIFO, and then becomes the real CLI
/// (`exec`: the same pid, still the group's leader, with the arguments the
/// session gave). Its command line carries those arguments too, so the
/// scenario reads the CLI's private files and pipes from it before the CLI
/// runs.
struct Gate {
    /// Holds the wrapper and the FIFO; `deep`'s pids go to its own
    /// directory.
    _dir: super::TempDir,
    wrapper: std::path::PathBuf,
    fifo: std::path::PathBuf,
    /// The tree started before the CLI.
    deep: StdioServer,
}

impl Gate {
    fn new(cli: &Path) -> Self {
        let dir = must("a scratch directory", super::TempDir::new());
        let deep = deep_server();
        let fifo = dir.path().join("go");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(
            must("mkfifo runs", made).success(),
            "mkfifo {}",
            fifo.display()
        );
        let script = format!(
            "#!/bin/sh\n\
             /bin/sh '{server}' '{pids}' </dev/null >/dev/null 2>&1 &\n\
             read -r go < '{fifo}'\n\
             exec '{cli}' \"$@\"\n",
            server = deep.dir.path().join("server.sh").display(),
            pids = deep.pid_file().display(),
            fifo = fifo.display(),
            cli = cli.display(),
        );
        let wrapper = dir.path().join("claude");
        must("the wrapper is written", std::fs::write(&wrapper, script));
        use std::os::unix::fs::PermissionsExt as _;
        must(
            "the wrapper is made executable",
            std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)),
        );
        Self {
            _dir: dir,
            wrapper,
            fifo,
            deep,
        }
    }

    /// Lets the wrapper become the CLI. Opening the FIFO waits for the
    /// wrapper to open its end (at most [`WAIT`]: a wrapper that died
    /// never does).
    fn open(&self) {
        let fifo = self.fifo.clone();
        let (done, opened) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _ = done.send(std::fs::write(&fifo, "go\n"));
        });
        match opened.recv_timeout(WAIT) {
            Ok(written) => must("the gate opens", written),
            Err(_) => panic!("the wrapper did not read its gate within {WAIT:?}"),
        }
    }
}

/// A query given up at its deadline while the Bash command runs (the
/// query's future dropped, or the blocking call abandoned), then the
/// session dropped, as a `?` on the timeout drops it.
pub fn nothing_outlives_a_deadline<H: RealHarness>() {
    let Some((before, peer, server)) = world::<H>(run_the_crowd) else {
        return;
    };
    let mut s = start::<H>(spec_with(&peer, &server));
    let mut started = found(&*s, &server, false, before);
    let Some(given_up) = s.query("Start the crowd", Some(Duration::from_secs(5))) else {
        eprintln!("{}: no query in this harness; scenario skipped", H::NAME);
        return;
    };
    assert!(
        must("query", given_up).is_none(),
        "the Bash command finished within the deadline"
    );
    started.bash = Some(BashCrowd::wait_until_running(&peer, started.tree.cli));
    s.abandon();
    started.assert_gone(
        &format!("{}: query given up at its deadline", H::NAME),
        true,
        peer,
    );
}

/// The CLI crashes (SIGKILL) while the Bash command runs: the session ends
/// what is left of the group (the MCP server and its descendants, which
/// ignore SIGTERM) and reports the kill once it is gone. The Bash command,
/// in a session of its own that only the CLI could have ended, is out of
/// reach and keeps running, as docs/guarantees.md says; the test then ends it.
pub fn nothing_outlives_a_crash_but_what_left_the_group<H: RealHarness>() {
    let Some((before, peer, server)) = world::<H>(run_the_crowd) else {
        return;
    };
    let s = start::<H>(spec_with(&peer, &server));
    let (s, started) = start_the_crowd(&peer, &server, before, s);
    crate::process::kill(started.tree.cli);
    let exit = must("close", s.close()).expect("an exit report");
    assert_eq!(exit.signal, Some(9), "{exit}");
    started.assert_group_empty_now(H::NAME);
    started.assert_gone(&format!("{}: the CLI crashed", H::NAME), false, peer);
    let bash = started.bash.as_ref().expect("the Bash command ran");
    let left = crate::process::session_members(bash.sid);
    bash.kill();
    assert_eq!(
        left.len(),
        BASH_CROWD_SIZE,
        "{}: the Bash command did not outlive the crash; if the CLI now ends its commands \
         another way, the note in docs/guarantees.md on what a crash leaves must change: {:?}",
        H::NAME,
        left.iter().map(|&p| describe(p)).collect::<Vec<_>>()
    );
}

/// A callback panics (the `PreToolUse` hook on the Bash command: the panic
/// is contained and answered as the hook's failure, and the command runs),
/// then the caller's own code panics while it holds the session, which the
/// unwinding drops.
pub fn nothing_outlives_a_panic<H: RealHarness>() {
    let Some((before, peer, server)) = world::<H>(run_the_crowd) else {
        return;
    };
    let mut spec = spec_with(&peer, &server);
    spec.hooks = vec![HookRule {
        event: "PreToolUse",
        matcher: Some("Bash"),
        behaviour: HookBehaviour::Panic,
    }];
    let calls = spec.calls.clone();
    let s = start::<H>(spec);
    let (s, started) = start_the_crowd(&peer, &server, before, s);
    assert!(
        calls.wait_for("PreToolUse", WAIT).is_some(),
        "the panicking hook was not called"
    );
    let unwound = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || {
        let _held = s;
        panic!("the caller panics while it holds the session (on purpose)");
    }));
    assert!(unwound.is_err());
    started.assert_gone(&format!("{}: the caller panicked", H::NAME), true, peer);
}

/// What a hook command leaves running in the background is out of reach:
/// the CLI (2.1.330) starts hook commands in sessions of their own and
/// does not end what they leave behind, so it outlives even a clean close.
/// docs/guarantees.md says so; this shows it, and fails if a CLI starts
/// doing otherwise (then that page must change). The test ends it itself.
pub fn what_a_hook_command_leaves_running_is_out_of_reach<H: RealHarness>() {
    if !sees_the_process_table::<H>() {
        return;
    }
    let Some(peer) = Peer::new(|_| Reply::text("Done.")) else {
        return;
    };
    let file = peer.cwd().join("hook.pid");
    let command = format!(
        "sh -c 'exec sleep 1004' </dev/null >/dev/null 2>&1 & echo $! > {}",
        file.display()
    );
    let mut spec = peer.spec();
    spec.transcript = None;
    spec.options = spec
        .options
        .settings(claude_proto::options::Settings::Inline(json!({"hooks": {
            "UserPromptSubmit": [{"hooks": [{"type": "command", "command": command}]}]
        }})));
    let mut s = start::<H>(spec);
    let cli = s.pid().expect("a child process");
    must("send", s.send_text("Hi"));
    must("turn", crate::conformance::turn(&mut *s));
    let pid: u32 = std::fs::read_to_string(&file)
        .ok()
        .and_then(|text| text.trim().parse().ok())
        .expect("the hook wrote the pid of what it left running");
    let exit = must("close", s.close()).expect("an exit report");
    assert!(exit.success(), "{exit}");
    assert!(crate::process::wait_until_group_empty(cli, ENDING).is_empty());
    let running = crate::process::is_running(pid);
    let group = crate::process::group_of(pid);
    let description = describe(pid);
    crate::process::kill(pid);
    assert!(
        running,
        "what the hook left running was ended: docs/guarantees.md on hook commands must change"
    );
    assert_ne!(group, Some(cli), "{description}");
}

/// A grace between SIGTERM and SIGKILL far longer than [`ENDING`]: an
/// ending that waited it out would be seen, still there, at [`ENDING`].
const LONG_GRACE: Duration = Duration::from_secs(600);

/// The ways a session ends, for [`an_empty_group_ends_at_once`].
#[derive(Debug, Clone, Copy)]
enum Ending {
    Closed,
    Dropped,
    HandleThenRuntimeDropped,
    RuntimeThenHandleDropped,
    Error,
    CallerPanicked,
}

/// Whatever way a session ends (closed, dropped, its handle then its
/// runtime dropped or the other way round, ended by an error, dropped by a
/// caller's panic), once its CLI's group holds nothing but the session's
/// watchdog, the CLI is reaped and the watchdog is gone, with what it
/// started: no process of the group is left, not even a zombie. The CLI
/// exits at the first SIGTERM and nothing here ignores it, so the session's
/// grace (`LONG_GRACE`, ten minutes) is never waited out; an ending that
/// waited it, or counted the watchdog as a member to wait for, fails here.
pub fn an_empty_group_ends_at_once<H: RealHarness>() {
    if !sees_the_process_table::<H>() {
        return;
    }
    for ending in [
        Ending::Closed,
        Ending::Dropped,
        Ending::HandleThenRuntimeDropped,
        Ending::RuntimeThenHandleDropped,
        Ending::Error,
        Ending::CallerPanicked,
    ] {
        let how = format!("{}: {ending:?}", H::NAME);
        let Some(peer) = Peer::new(|_| Reply::text("Done.")) else {
            return;
        };
        let mut spec = peer.spec();
        spec.transcript = None;
        let mut limits = claude_proto_host::Limits::default();
        limits.term_grace = LONG_GRACE;
        spec.limits = Some(limits);
        if matches!(ending, Ending::Error) {
            spec.options = spec.options.resume("3f8c7a52-1d4e-4b6a-9f0e-2a7d5c1b8e90");
        }
        let own_runtime = matches!(
            ending,
            Ending::HandleThenRuntimeDropped | Ending::RuntimeThenHandleDropped
        );
        let mut s = match own_runtime.then(|| H::start_on_own_runtime(spec.clone())) {
            Some(Some(started)) => must("start", started),
            Some(None) | None => start::<H>(spec),
        };
        let cli = s.pid().expect("a child process");
        // The watchdog starts before spawning returns; a CLI that fails at
        // once may take it along before it is seen.
        let watchdog = (!matches!(ending, Ending::Error)).then(|| watchdog_of(cli));
        match ending {
            Ending::Closed => {
                must("initialize", s.initialization());
                must("close", s.close()).expect("an exit report");
            }
            Ending::Dropped => {
                must("initialize", s.initialization());
                s.abandon();
            }
            Ending::HandleThenRuntimeDropped => {
                must("initialize", s.initialization());
                if !s.drop_handle_then_runtime() {
                    eprintln!("{how}: no runtime to drop; dropped the handle only");
                }
            }
            Ending::RuntimeThenHandleDropped => {
                must("initialize", s.initialization());
                if !s.drop_runtime() {
                    eprintln!("{how}: no runtime to drop; dropped the handle only");
                }
            }
            Ending::Error => {
                let error = s
                    .initialization()
                    .expect_err("the CLI has no such conversation");
                assert!(error.ended().is_some(), "{how}: {error}");
                s.abandon();
            }
            Ending::CallerPanicked => {
                must("initialize", s.initialization());
                let unwound = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || {
                    let _held = s;
                    panic!("the caller panics while it holds the session (on purpose)");
                }));
                assert!(unwound.is_err());
            }
        }
        let left = crate::process::wait_until_group_gone(cli, ENDING);
        assert!(
            left.is_empty(),
            "{how}: the CLI's group (its watchdog: {watchdog:?}) was not gone within {ENDING:?}, \
             with a grace of {LONG_GRACE:?}: {:?}",
            left.iter().map(|&p| describe(p)).collect::<Vec<_>>()
        );
        drop(peer);
    }
}
