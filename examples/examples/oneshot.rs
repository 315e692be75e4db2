//! `oneshot`: one prompt in, the answer, its cost and usage out.
//!
//! ```text
//! cargo run --example oneshot -- "What is 2+2?"             # real service if you have credentials, else offline
//! cargo run --example oneshot -- --offline "What is 2+2?"   # a loopback stand-in for the model
//! cargo run --example oneshot -- --offline "please fail"    # offline, a turn that fails (exit code 1)
//! ```
//!
//! One call, `claude_proto_tokio::query`, starts a session, asks the
//! prompt, collects the turn up to its `result` and closes; this prints the
//! result text, cost and token usage. The exit code is non-zero if the turn failed, so it
//! composes in shell scripts. Offline, the stand-in echoes the prompt, and
//! answers a prompt containing "fail" with an API error.

use std::process::ExitCode;

use claude_proto_examples::{
    Reply, base_options, last_prompt, offline_options, query_error, want_offline,
};
use claude_proto_testkit::model_api::ApiRequest;

#[tokio::main]
async fn main() -> ExitCode {
    match run().await {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(message) => {
            eprintln!("oneshot: {message}");
            ExitCode::from(2)
        }
    }
}

/// `Ok(true)` if the turn succeeded.
async fn run() -> Result<bool, String> {
    let mut forced = None;
    let mut words = Vec::new();
    for arg in std::env::args().skip(1) {
        match arg.as_str() {
            "--offline" => forced = Some(true),
            "--online" => forced = Some(false),
            _ => words.push(arg),
        }
    }
    let prompt = words.join(" ");
    if prompt.trim().is_empty() {
        return Err("usage: oneshot [--offline | --online] PROMPT".into());
    }

    let mut options = base_options(None);
    let mut _offline = None;
    if want_offline(forced) {
        let (offline, guard) = offline_options("oneshot", options, offline_model)?;
        options = offline;
        _offline = Some(guard);
    }

    let turn = claude_proto_tokio::query(prompt, options)
        .await
        .map_err(query_error)?;
    let result = &turn.result;
    if let Some(error) = turn.error_message() {
        eprintln!("turn failed: {error}");
    } else {
        println!("{}", turn.text().unwrap_or_default());
    }
    println!(
        "── cost ${:.4} · {} in / {} out tokens ({} cache read, {} cache write) · {} turns · {} ms",
        result.total_cost_usd(),
        result.usage.uncached_input_tokens(),
        result.usage.generated_tokens(),
        result.usage.cache_read_tokens(),
        result.usage.cache_creation_tokens(),
        result.num_turns,
        result.duration_ms,
    );
    Ok(result.is_success())
}

/// The offline stand-in: echoes the prompt, or fails on request.
fn offline_model(request: &ApiRequest) -> Reply {
    let prompt = last_prompt(request);
    if prompt.to_lowercase().contains("fail") {
        return Reply::error(
            400,
            "invalid_request_error",
            "the offline stand-in was asked to fail",
        );
    }
    Reply::text(format!(
        "(offline stand-in) You asked: \"{}\". A real model would answer here.",
        prompt.trim()
    ))
}
