//! `wrapper`: the CLI started through a wrapper command, over the same
//! stdin and stdout: in a container, on another host, as another user,
//! under `nice`, ...
//!
//! ```text
//! cargo run --example wrapper -- env                              # through `env`, on this host
//! cargo run --example wrapper -- --offline nice -n 10             # offline: a loopback stand-in for the model
//! cargo run --example wrapper -- docker exec -i -e ANTHROPIC_API_KEY NAME   # in a running container
//! cargo run --example wrapper -- --cli /opt/claude/bin/claude ssh HOST      # on another host
//! cargo run --example wrapper -- --prompt "Which directory are you in?" env
//! ```
//!
//! Everything from the first word that is not one of this program's
//! options is the wrapper: its program and its arguments. The process
//! started is `WRAPPER ARGS... CLI CLI-ARGS...` (`Options::wrapper`), so
//! the wrapper must start the CLI it is given with its stdin and stdout
//! connected (`docker exec -i`, not `-t`; `ssh` without `-t`).
//!
//! The CLI is `--cli PATH` if given, else `CLAUDE_BIN`, else (offline) this
//! repository's pinned CLI, else `claude`, for the wrapper's side to find
//! on its own `PATH`: it is not searched for here, since it lives where
//! the wrapper runs it. Offline (`--offline`, or no credentials found), the
//! model stand-in listens on this host's loopback and is reached through
//! environment variables, so the offline mode suits wrappers that run the
//! CLI on this host and pass the environment on (`env`, `nice`, `timeout`,
//! `sudo --preserve-env`); a container or a remote host needs credentials
//! of its own (`docker exec -e ANTHROPIC_API_KEY ...`).

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

use claude_proto_examples::{
    Reply, last_prompt, offline_options, query_error, repo_cli, want_offline,
};
use claude_proto_testkit::model_api::ApiRequest;
use claude_proto_tokio::Options;

const USAGE: &str =
    "usage: wrapper [--offline | --online] [--cli PATH] [--prompt TEXT] WRAPPER [ARGS...]";

#[tokio::main]
async fn main() -> ExitCode {
    match run().await {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(message) => {
            eprintln!("wrapper: {message}");
            ExitCode::from(2)
        }
    }
}

/// `Ok(true)` if the turn succeeded.
async fn run() -> Result<bool, String> {
    let mut forced = None;
    let mut cli: Option<PathBuf> = None;
    let mut prompt = "Say hello, and say where you run.".to_owned();
    let mut args = std::env::args_os().skip(1);
    let mut wrapper: Vec<OsString> = Vec::new();
    while let Some(arg) = args.next() {
        match arg.to_str() {
            Some("--offline") => forced = Some(true),
            Some("--online") => forced = Some(false),
            Some("--cli") => cli = Some(args.next().ok_or(USAGE)?.into()),
            Some("--prompt") => {
                prompt = args
                    .next()
                    .and_then(|p| p.into_string().ok())
                    .ok_or(USAGE)?;
            }
            Some("-h" | "--help") => return Err(USAGE.into()),
            _ => {
                wrapper.push(arg);
                wrapper.extend(args.by_ref());
            }
        }
    }
    let Some((program, wrapper_args)) = wrapper.split_first() else {
        return Err(format!("no wrapper given\n{USAGE}"));
    };

    let offline = want_offline(forced);
    let cli = cli
        .or_else(|| std::env::var_os("CLAUDE_BIN").map(PathBuf::from))
        .or_else(|| if offline { repo_cli() } else { None });
    let mut options = Options::default().wrapper(program, wrapper_args.iter().cloned());
    if let Some(cli) = cli {
        options = options.cli_path(cli);
    }
    let mut _offline = None;
    if offline {
        let (with_stand_in, guard) = offline_options("wrapper", options, offline_model)?;
        options = with_stand_in;
        _offline = Some(guard);
    }

    // What will be started: the wrapper, its arguments, then the CLI.
    let line = options.command().map_err(|e| e.to_string())?;
    let wrapped = options.wrapped_cli().unwrap_or_default();
    let (program, argv) = options.program_and_args(&wrapped, &line);
    let shown = argv.len() - line.args.len();
    println!(
        "── starting {} {} (+ {} protocol arguments)",
        program.display(),
        argv[..shown]
            .iter()
            .map(|a| a.to_string_lossy())
            .collect::<Vec<_>>()
            .join(" "),
        line.args.len()
    );

    let turn = claude_proto_tokio::query(prompt, options)
        .await
        .map_err(query_error)?;
    if let Some(error) = turn.error_message() {
        eprintln!("turn failed: {error}");
    } else {
        println!("{}", turn.text().unwrap_or_default());
    }
    Ok(!turn.is_error())
}

/// The offline stand-in: says where the request came from.
fn offline_model(request: &ApiRequest) -> Reply {
    Reply::text(format!(
        "(offline stand-in) Hello through the wrapper. You asked: \"{}\".",
        last_prompt(request).trim()
    ))
}
