//! The environment the CLI really gets, read from a child started the way
//! every adapter starts the CLI (`build_command`), with a wrapper that
//! writes out its environment instead of running the CLI.
//!
//! The variables to drop must be in *this* process's environment, and a
//! test must not change its own environment while other tests run, so the
//! test runs itself again in a child process that has them.
//!
//! Unix only: the wrapper that writes the environment out is `sh`.
#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers fail loudly by design

use std::path::PathBuf;
use std::process::Command;

use claude_proto_process::{Options, build_command};

const INNER: &str = "CLAUDE_PROTO_ENVIRONMENT_TEST_INNER";

/// The environment a CLI started with `options` sees, as `NAME=value` lines.
fn cli_environment(options: Options, name: &str) -> Vec<String> {
    let out: PathBuf =
        std::env::temp_dir().join(format!("claude-proto-env-{name}-{}", std::process::id()));
    let options = options.wrapper(
        "sh",
        [
            "-c".into(),
            "env > \"$0\"".into(),
            out.clone().into_os_string(),
        ],
    );
    let mut launch = build_command(&options).expect("a command");
    let status = launch.command.status().expect("the wrapper runs");
    assert!(status.success());
    let text = std::fs::read_to_string(&out).expect("the environment was written");
    let _ = std::fs::remove_file(&out);
    text.lines().map(str::to_owned).collect()
}

fn has(env: &[String], name: &str) -> Option<String> {
    env.iter()
        .find_map(|line| line.strip_prefix(&format!("{name}=")).map(str::to_owned))
}

#[test]
fn an_inherited_claudecode_debug_or_node_options_does_not_reach_the_cli() {
    if std::env::var_os(INNER).is_none() {
        let status = Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "an_inherited_claudecode_debug_or_node_options_does_not_reach_the_cli",
                "--test-threads=1",
            ])
            .env(INNER, "1")
            .env("CLAUDECODE", "1")
            .env("DEBUG", "*")
            .env("NODE_OPTIONS", "--inspect")
            .env("KEEP_ME", "kept")
            .status()
            .expect("the test runs again");
        assert!(status.success(), "the inner run failed");
        return;
    }
    let env = cli_environment(Options::default(), "inherited");
    assert_eq!(has(&env, "CLAUDECODE"), None, "CLAUDECODE reached the CLI");
    assert_eq!(has(&env, "DEBUG"), None);
    assert_eq!(has(&env, "NODE_OPTIONS"), None);
    assert_eq!(
        has(&env, "KEEP_ME").as_deref(),
        Some("kept"),
        "the rest is inherited"
    );
    // A value the caller sets explicitly is the caller's.
    let env = cli_environment(Options::default().env("CLAUDECODE", "mine"), "explicit");
    assert_eq!(has(&env, "CLAUDECODE").as_deref(), Some("mine"));
}

/// The identity variables, as the Python SDK sets them: the entrypoint
/// (`sdk-cli`) and `CLAUDE_AGENT_SDK_VERSION=unknown` (see
/// `claude_proto::options::AGENT_SDK_VERSION` for why that value) replace
/// inherited values, as both SDKs replace an inherited SDK version; an
/// inherited `CLAUDE_AGENT_SDK_CLIENT_APP` or
/// `CLAUDE_CODE_SDK_READS_SESSION_STATE` is the caller's and is kept
/// unless `Options` says otherwise (the library's name and `1` are only
/// defaults); an inherited `CLAUDE_AGENT_SDK_DERIVED_CLIENT_APP` names an
/// outer session's app and goes. Values set or removed in `Options::env`
/// are the caller's.
#[test]
fn identity_variables_are_set_as_the_python_sdk_sets_them() {
    if std::env::var_os(INNER).is_none() {
        let status = Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "identity_variables_are_set_as_the_python_sdk_sets_them",
                "--test-threads=1",
            ])
            .env(INNER, "1")
            .env("CLAUDE_CODE_ENTRYPOINT", "sdk-ts")
            .env("CLAUDE_AGENT_SDK_VERSION", "0.3.330")
            .env("CLAUDE_AGENT_SDK_CLIENT_APP", "outer-app")
            .env("CLAUDE_AGENT_SDK_DERIVED_CLIENT_APP", "outer-derived")
            .env("CLAUDE_CODE_SDK_READS_SESSION_STATE", "0")
            .status()
            .expect("the test runs again");
        assert!(status.success(), "the inner run failed");
        return;
    }
    let env = cli_environment(Options::default(), "identity");
    assert_eq!(
        has(&env, "CLAUDE_CODE_ENTRYPOINT").as_deref(),
        Some("sdk-cli")
    );
    assert_eq!(
        has(&env, "CLAUDE_AGENT_SDK_VERSION").as_deref(),
        Some("unknown")
    );
    assert_eq!(
        has(&env, "CLAUDE_AGENT_SDK_CLIENT_APP").as_deref(),
        Some("outer-app"),
        "an inherited client app is the caller's"
    );
    assert_eq!(
        has(&env, "CLAUDE_CODE_SDK_READS_SESSION_STATE").as_deref(),
        Some("0"),
        "an inherited choice is the caller's"
    );
    assert_eq!(has(&env, "CLAUDE_AGENT_SDK_DERIVED_CLIENT_APP"), None);

    let env = cli_environment(
        Options::default()
            .env("CLAUDE_CODE_ENTRYPOINT", "sdk-py")
            .env("CLAUDE_AGENT_SDK_VERSION", "0.2.189")
            .env("CLAUDE_CODE_SDK_READS_SESSION_STATE", "1")
            .client_app("my-app/1.0"),
        "identity-explicit",
    );
    assert_eq!(
        has(&env, "CLAUDE_CODE_ENTRYPOINT").as_deref(),
        Some("sdk-py")
    );
    assert_eq!(
        has(&env, "CLAUDE_AGENT_SDK_CLIENT_APP").as_deref(),
        Some("my-app/1.0")
    );
    assert_eq!(
        has(&env, "CLAUDE_AGENT_SDK_VERSION").as_deref(),
        Some("0.2.189")
    );
    assert_eq!(
        has(&env, "CLAUDE_CODE_SDK_READS_SESSION_STATE").as_deref(),
        Some("1")
    );
    // The opt-out sends an empty name (none, to the CLI), so the inherited
    // one does not get through either.
    let env = cli_environment(Options::default().client_app(""), "identity-no-app");
    assert_eq!(
        has(&env, "CLAUDE_AGENT_SDK_CLIENT_APP").as_deref(),
        Some("")
    );
    // One the caller removes is not set at all, inherited or not.
    let env = cli_environment(
        Options::default().env_remove("CLAUDE_AGENT_SDK_VERSION"),
        "identity-removed",
    );
    assert_eq!(has(&env, "CLAUDE_AGENT_SDK_VERSION"), None);
}

/// With nothing inherited, the defaults: the library's name and `1`.
#[test]
fn with_nothing_inherited_the_defaults_are_sent() {
    let env = cli_environment(
        Options::default()
            .inherit_env(false)
            .env("PATH", std::env::var_os("PATH").unwrap_or_default()),
        "identity-clean",
    );
    assert_eq!(
        has(&env, "CLAUDE_AGENT_SDK_CLIENT_APP").as_deref(),
        Some(claude_proto::options::DEFAULT_CLIENT_APP)
    );
    assert_eq!(
        has(&env, "CLAUDE_CODE_SDK_READS_SESSION_STATE").as_deref(),
        Some("1")
    );
}

/// `PWD` names the directory the CLI starts in, not the caller's: read
/// from the environment the wrapper was started with (`/proc/<pid>/environ`),
/// since a shell fixes up its own `PWD` before `env` could show it.
#[cfg(target_os = "linux")]
#[test]
fn pwd_names_the_directory_the_cli_starts_in() {
    let dir = std::env::temp_dir().join(format!("claude-proto-pwd-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("environ");
    let options = Options::default().cwd(&dir).wrapper(
        "sh",
        [
            "-c".into(),
            "tr '\\0' '\\n' < /proc/$$/environ > \"$0\"".into(),
            out.clone().into_os_string(),
        ],
    );
    let mut launch = build_command(&options).expect("a command");
    assert!(launch.command.status().expect("the wrapper runs").success());
    let text = std::fs::read_to_string(&out).expect("the environment was written");
    let _ = std::fs::remove_dir_all(&dir);
    let env: Vec<String> = text.lines().map(str::to_owned).collect();
    assert_eq!(has(&env, "PWD"), Some(dir.display().to_string()));
}

/// The caller's current OpenTelemetry span reaches the CLI as W3C trace
/// context (feature `opentelemetry`), replacing a stale inherited one;
/// values the caller sets win.
#[test]
fn the_current_span_reaches_the_cli_as_traceparent() {
    use opentelemetry::trace::{
        SpanContext, SpanId, TraceContextExt as _, TraceFlags, TraceId, TraceState,
    };

    if std::env::var_os(INNER).is_none() {
        let status = Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "the_current_span_reaches_the_cli_as_traceparent",
                "--test-threads=1",
            ])
            .env(INNER, "1")
            .env(
                "TRACEPARENT",
                "00-00000000000000000000000000000001-0000000000000001-00",
            )
            .env("TRACESTATE", "stale=1")
            .status()
            .expect("the test runs again");
        assert!(status.success(), "the inner run failed");
        return;
    }
    // No span: the inherited context passes through untouched.
    let env = cli_environment(Options::default(), "no-span");
    assert_eq!(
        has(&env, "TRACEPARENT").as_deref(),
        Some("00-00000000000000000000000000000001-0000000000000001-00")
    );

    let span = SpanContext::new(
        TraceId::from_hex("4bf92f3577b34da6a3ce929d0e0e4736").unwrap(),
        SpanId::from_hex("00f067aa0ba902b7").unwrap(),
        TraceFlags::SAMPLED,
        true,
        TraceState::from_key_value([("vendor", "x")]).unwrap(),
    );
    let _attached = opentelemetry::Context::new()
        .with_remote_span_context(span)
        .attach();
    let env = cli_environment(Options::default(), "span");
    assert_eq!(
        has(&env, "TRACEPARENT").as_deref(),
        Some("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
    );
    assert_eq!(has(&env, "TRACESTATE").as_deref(), Some("vendor=x"));

    let env = cli_environment(Options::default().env("TRACEPARENT", "mine"), "explicit");
    assert_eq!(has(&env, "TRACEPARENT").as_deref(), Some("mine"));
    assert_eq!(has(&env, "TRACESTATE").as_deref(), Some("vendor=x"));
}

/// The one-shot's ceiling is `CLAUDE_CODE_PRINT_BG_WAIT_CEILING_MS` as
/// the CLI gets it: the options' value over an inherited one, the default
/// when removed or unset, none at `0`.
#[test]
fn the_run_end_ceiling_is_read_from_the_clis_environment() {
    use claude_proto_host::run_end::{CEILING_VARIABLE, DEFAULT_CEILING};
    use claude_proto_process::run_end_ceiling;
    use std::time::Duration;
    let clean = || Options::default().inherit_env(false);
    assert_eq!(run_end_ceiling(&clean()), Some(DEFAULT_CEILING));
    assert_eq!(
        run_end_ceiling(&clean().env(CEILING_VARIABLE, "1500")),
        Some(Duration::from_millis(1500))
    );
    assert_eq!(run_end_ceiling(&clean().env(CEILING_VARIABLE, "0")), None);
    assert_eq!(
        run_end_ceiling(&Options::default().env_remove(CEILING_VARIABLE)),
        Some(DEFAULT_CEILING)
    );
}
