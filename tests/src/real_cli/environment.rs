//! The environment the real CLI gets, read from its own
//! `/proc/<pid>/environ`, and what it makes of it; and a secret given to a
//! session appearing nowhere it should not: in no process's command line,
//! no log line, no error and no `Debug` output.

use std::collections::HashMap;
use std::time::Duration;

use serde_json::json;

use super::{
    Peer, RealHarness, TempDir, WAIT, describe, must, query, sees_the_process_table, start,
};
use claude_proto_testkit::model_api::{ApiRequest, Reply};

/// The environment `pid` was started with (Linux: `/proc/<pid>/environ`).
pub fn environ(pid: u32) -> HashMap<String, String> {
    let bytes = std::fs::read(format!("/proc/{pid}/environ")).unwrap_or_default();
    bytes
        .split(|&b| b == 0)
        .filter_map(|entry| {
            let entry = String::from_utf8_lossy(entry);
            let (name, value) = entry.split_once('=')?;
            Some((name.to_owned(), value.to_owned()))
        })
        .collect()
}

/// Whether `request` is the CLI asking the model to title the session (a
/// structured answer with a `title`).
fn asks_for_a_title(request: &ApiRequest) -> bool {
    request
        .body
        .pointer("/output_config/format/schema/properties/title")
        .is_some()
}

/// What one session showed: the CLI's environment, the `User-Agent` of its
/// turn's request, and whether it asked for a title.
struct Identity {
    env: HashMap<String, String>,
    user_agent: String,
    titled: bool,
}

/// Runs one turn with `options` and reads what the CLI was given and did.
fn identity_of<H: RealHarness>(peer: &Peer, options: claude_proto::options::Options) -> Identity {
    let before = peer.server.requests().len();
    let mut spec = peer.spec();
    spec.transcript = None;
    spec.options = options;
    let mut s = start::<H>(spec);
    must("initialize", s.initialization());
    // Answered, so the CLI has run: its environment is its own, not the
    // one it was forked with.
    let env = environ(s.pid().expect("a child process"));
    assert_eq!(query(&mut *s, "Write a haiku about the sea").text, "Hi.");
    must("close", s.close());
    let requests: Vec<ApiRequest> = peer.server.requests().split_off(before);
    let turn = requests
        .iter()
        .find(|r| r.is_messages() && !asks_for_a_title(r))
        .expect("the turn's request");
    Identity {
        env,
        user_agent: turn.header("user-agent").unwrap_or_default().to_owned(),
        // The CLI asks for a title as the prompt is submitted, before the
        // turn's own request: by now it has, or it does not.
        titled: requests.iter().any(asks_for_a_title),
    }
}

/// The identity variables reach the real CLI as set, read from its own
/// environment, and the CLI treats the session as it treats the official
/// SDKs' sessions: `CLAUDE_CODE_ENTRYPOINT=sdk-cli`,
/// `CLAUDE_AGENT_SDK_CLIENT_APP=claude-proto/<version>` and
/// `CLAUDE_AGENT_SDK_VERSION=unknown` (no `CLAUDECODE`); its requests say
/// `sdk-cli, agent-sdk/unknown, client-app/claude-proto/<version>`; and
/// it asks the model to title the session, as it does under the Python
/// SDK's identity (`sdk-py`, its version) and does not without the
/// version (`claude -p`'s behaviour, what removing the variable gives).
/// Non-essential traffic is on here: titles are part of it.
pub fn identity_variables_reach_the_cli<H: RealHarness>() {
    if !sees_the_process_table::<H>() {
        return;
    }
    let Some(peer) = Peer::new(|request| {
        if asks_for_a_title(request) {
            Reply::text(r#"{"title":"Sea haiku"}"#)
        } else {
            Reply::text("Hi.")
        }
    }) else {
        return;
    };
    let options = || {
        let mut options = peer.options();
        options
            .env
            .retain(|(name, _)| name != "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC");
        options
    };

    let ours = identity_of::<H>(&peer, options());
    let get = |name: &str| ours.env.get(name).map(String::as_str);
    assert_eq!(get("CLAUDE_CODE_ENTRYPOINT"), Some("sdk-cli"));
    assert_eq!(
        get("CLAUDE_AGENT_SDK_CLIENT_APP"),
        Some(claude_proto::options::DEFAULT_CLIENT_APP)
    );
    assert_eq!(get("CLAUDE_AGENT_SDK_VERSION"), Some("unknown"));
    assert_eq!(get("CLAUDE_CODE_SDK_READS_SESSION_STATE"), Some("1"));
    assert_eq!(get("CLAUDECODE"), None);
    let expected = format!(
        "sdk-cli, agent-sdk/unknown, client-app/{}",
        claude_proto::options::DEFAULT_CLIENT_APP
    );
    assert!(
        ours.user_agent.contains(&expected),
        "{}: {}",
        H::NAME,
        ours.user_agent
    );

    let python = identity_of::<H>(
        &peer,
        options()
            .entrypoint("sdk-py")
            .env("CLAUDE_AGENT_SDK_VERSION", "0.2.187"),
    );
    assert!(
        python.user_agent.contains("sdk-py, agent-sdk/0.2.187"),
        "{}",
        python.user_agent
    );
    let print = identity_of::<H>(&peer, options().env_remove("CLAUDE_AGENT_SDK_VERSION"));
    assert_eq!(print.env.get("CLAUDE_AGENT_SDK_VERSION"), None);
    assert!(
        !print.user_agent.contains("agent-sdk/"),
        "{}",
        print.user_agent
    );

    assert!(python.titled, "the CLI titles the Python SDK's sessions");
    assert!(
        ours.titled,
        "{}: the CLI did not title our session as it titles the SDKs'",
        H::NAME
    );
    assert!(
        !print.titled,
        "without CLAUDE_AGENT_SDK_VERSION the CLI titled the session: the reason to set it is gone"
    );
}

/// The sentinel of [`no_secret_leaks`].
const SENTINEL: &str = "sk-sentinel-real-cli-7f3a91";

/// Every process's command line that holds the sentinel (Linux `/proc`).
fn command_lines_with_the_sentinel() -> Vec<String> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .is_ok_and(|c| String::from_utf8_lossy(&c).contains(SENTINEL))
        })
        .map(describe)
        .collect()
}

/// A secret in an MCP server's `env` (under a name that looks secret and
/// one that does not) and in the settings' `env` appears in no running
/// process's command line while the session runs (the MCP server the CLI
/// starts with it included), in no line the library logs (feature
/// `tracing`, captured with a test subscriber), in no error a test can
/// provoke (the CLI crashing, the CLI failing at once, a CLI path that
/// does not exist, one that cannot be run), and in no `Debug` output of
/// the options, the builder or the running session.
pub fn no_secret_leaks<H: RealHarness>() {
    if !sees_the_process_table::<H>() {
        return;
    }
    crate::logs::capture();
    let Some(peer) = Peer::new(|_| {
        Reply::text("this answer takes its time ".repeat(20))
            .slowly(200, Duration::from_millis(100))
    }) else {
        return;
    };
    let scratch = must("a scratch directory", TempDir::new());
    let script = scratch.path().join("server.sh");
    must(
        "the server script is written",
        std::fs::write(&script, super::ending::DEEP_MCP_SERVER),
    );
    let with_secrets = || {
        let mut spec = peer.spec();
        spec.transcript = None;
        spec.options = spec
            .options
            .mcp_config(json!({"mcpServers": {"vault": {
                "type": "stdio",
                "command": "/bin/sh",
                "args": [&script, scratch.path().join("pids")],
                "env": {
                    "VAULT_TOKEN": SENTINEL,
                    "DATABASE_URL": format!("postgres://app:{SENTINEL}@db/app"),
                },
            }}}))
            .settings(claude_proto::options::Settings::Inline(json!({"env": {
                "API_TOKEN": SENTINEL,
                "UPSTREAM": format!("https://user:{SENTINEL}@example.invalid"),
            }})));
        spec
    };
    let mut texts: Vec<String> = Vec::new();
    let mut record = |what: &str, debug: String, display: String| {
        texts.push(format!("{what} (Debug): {debug}"));
        texts.push(format!("{what}: {display}"));
    };
    let mut pids = Vec::new();

    let spec = with_secrets();
    record("the options", format!("{:?}", spec.options), String::new());
    if let Some(debug) = H::builder_debug(&spec) {
        record("the builder", debug, String::new());
    }
    let mut s = start::<H>(spec);
    let cli = s.pid().expect("a child process");
    pids.push(cli);
    must("initialize", s.initialization());
    // The MCP server runs, with the secret in its environment: started
    // from the configuration the CLI read from its private file.
    let deadline = std::time::Instant::now() + WAIT;
    let server = loop {
        let started = std::fs::read_to_string(scratch.path().join("pids"))
            .ok()
            .and_then(|t| t.lines().next().and_then(|l| l.trim().parse::<u32>().ok()));
        if let Some(pid) = started {
            break pid;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the MCP server never started"
        );
        std::thread::sleep(Duration::from_millis(10));
    };
    assert_eq!(
        environ(server).get("VAULT_TOKEN").map(String::as_str),
        Some(SENTINEL),
        "the secret reached the MCP server"
    );
    let listed = command_lines_with_the_sentinel();
    assert!(
        listed.is_empty(),
        "the secret is in the process table: {listed:?}"
    );
    if let Some(debug) = s.debug_view() {
        record("the running session", debug, String::new());
    }
    // A crash mid-turn: the errors that follow carry the exit.
    must("send", s.send_text("Take your time"));
    assert!(
        peer.server.wait_for_requests(1, WAIT),
        "the CLI never called the model"
    );
    crate::process::kill(cli);
    if let Err(error) = crate::conformance::turn(&mut *s) {
        record("the turn cut by the crash", error.clone(), error);
    }
    if let Err(error) = s.control(
        claude_proto::model::control::ControlRequest::get_context_usage(),
        None,
    ) {
        record(
            "a request after the crash",
            format!("{error:?}"),
            error.to_string(),
        );
    }
    match s.close() {
        Ok(report) => record("the crash's report", format!("{report:?}"), String::new()),
        Err(error) => record(
            "closing after the crash",
            format!("{error:?}"),
            error.to_string(),
        ),
    }

    // The CLI fails at once (no such conversation to resume).
    let mut spec = with_secrets();
    spec.options = spec.options.resume("3f8c7a52-1d4e-4b6a-9f0e-2a7d5c1b8e90");
    let mut s = start::<H>(spec);
    pids.extend(s.pid());
    let error = s
        .initialization()
        .expect_err("the CLI has no such conversation");
    record("the CLI's failure", format!("{error:?}"), error.to_string());
    s.abandon();

    // No CLI at the path given, and a file there that cannot be run.
    let mut spec = with_secrets();
    spec.options = spec.options.cli_path(scratch.path().join("missing/claude"));
    match H::start(spec) {
        Ok(_) => panic!("{}: a missing CLI started", H::NAME),
        Err(error) => record("a missing CLI", format!("{error:?}"), error.to_string()),
    }
    let not_runnable = scratch.path().join("claude");
    must(
        "a file is written",
        std::fs::write(&not_runnable, "not a program"),
    );
    let mut spec = with_secrets();
    spec.options = spec.options.cli_path(&not_runnable);
    match H::start(spec) {
        Ok(s) => {
            // Found but not executable is refused by the search; if it is
            // started anyway, its end is an error too.
            let mut s = s;
            if let Err(error) = s.initialization() {
                record(
                    "a CLI that cannot run",
                    format!("{error:?}"),
                    error.to_string(),
                );
            }
            s.abandon();
        }
        Err(error) => record(
            "a CLI that cannot run",
            format!("{error:?}"),
            error.to_string(),
        ),
    }

    let lines = crate::logs::captured();
    for pid in pids {
        assert!(
            lines
                .iter()
                .any(|line| line.contains(&format!("pid {pid}"))),
            "{}: the session of pid {pid} logged nothing: is the capture on?",
            H::NAME
        );
    }
    for text in lines.iter().chain(&texts) {
        assert!(
            !text.contains(SENTINEL),
            "{}: the secret leaked: {text}",
            H::NAME
        );
    }
}
