//! End to end through a replay: a session driven as fast as possible
//! against a cassette replayed as the CLI.
//!
//! `bench-replay-e2e tokio|blocking|tokio-child CASSETTE` (make the
//! cassette with `gen-cassette`), where the session is
//!
//! - `tokio`: the tokio adapter connected to the scripted CLI in process
//!   (`claude_proto_testkit::tokio::connect_steps` with a `Replay`), on a
//!   current-thread runtime;
//! - `blocking`: the blocking adapter the same way
//!   (`claude_proto_testkit::blocking::connect_steps`);
//! - `tokio-child`: the tokio adapter spawning the `claude-proto-testkit-cli`
//!   binary in replay mode (`child::replay_options`), found next to this
//!   one or named by `CLAUDE_PROTO_TESTKIT_CLI`.
//!
//! The program is `claude_proto_bench::replay`'s: it sends a prompt, reads
//! every event (counting the messages, as `bench-e2e` does), sends the next
//! prompt after each turn's `result` until it has sent as many as the
//! recording holds, then ends its input, reads to the end of the stream
//! and closes. The permission callback allows every tool. The run counts
//! only if the replay's verdict is a pass (in process: the run's outcome;
//! the child: its exit code 0).
//!
//! `BENCH_REPLAY_KEEP=BYTES` sets how many bytes of the program's lines
//! the in-process replay keeps for its report (`Settings::keep_received_bytes`;
//! default the testkit's 16 MiB): 0 shows the memory of the streaming alone.
//!
//! Prints one line of `key=value` pairs for `replay.sh`: `adapter messages
//! turns bytes secs msgs_per_s mb_per_s peak_rss` (this process's `VmHWM`;
//! the child's replay runs in its own process, not counted), with `bytes`
//! the cassette's size.

use std::path::{Path, PathBuf};
use std::time::Instant;

use claude_proto_bench::{replay, rss};
use claude_proto_testkit::Settings;
use claude_proto_testkit::cassette::{Replay, ReplayOptions};
use claude_proto_testkit::child;

type Error = Box<dyn std::error::Error>;

struct Outcome {
    messages: u64,
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 3 {
        eprintln!("usage: bench-replay-e2e tokio|blocking|tokio-child CASSETTE");
        std::process::exit(2);
    }
    let (adapter, cassette) = (args[1].as_str(), PathBuf::from(&args[2]));
    let bytes = std::fs::metadata(&cassette).map(|m| m.len()).unwrap_or(0);
    // Not timed: a program knows how many prompts it sends.
    let turns = replay::count_prompts(&cassette).unwrap_or_else(|e| {
        eprintln!("bench-replay-e2e: {}: {e}", cassette.display());
        std::process::exit(1);
    });
    let start = Instant::now();
    let outcome = match adapter {
        "tokio" => tokio_in_process(&cassette, turns),
        "blocking" => blocking_in_process(&cassette, turns),
        "tokio-child" => tokio_child(&cassette, turns),
        _ => {
            eprintln!("bench-replay-e2e: unknown adapter {adapter}");
            std::process::exit(2);
        }
    };
    let secs = start.elapsed().as_secs_f64();
    match outcome {
        Ok(o) => println!(
            "adapter=replay-{adapter} messages={} turns={turns} bytes={bytes} secs={secs:.4} \
             msgs_per_s={:.0} mb_per_s={:.1} peak_rss={}",
            o.messages,
            o.messages as f64 / secs,
            bytes as f64 / secs / 1e6,
            rss::peak().unwrap_or(0),
        ),
        Err(e) => {
            eprintln!("bench-replay-e2e {adapter}: {e}");
            std::process::exit(1);
        }
    }
}

fn open(cassette: &Path) -> Result<Replay, Error> {
    Ok(Replay::open(cassette, ReplayOptions::default())?)
}

/// The replay's settings: `Settings::replay()`, with the report's budget
/// from `BENCH_REPLAY_KEEP` if set.
fn settings() -> Settings {
    let keep = std::env::var("BENCH_REPLAY_KEEP")
        .ok()
        .and_then(|v| v.parse().ok());
    match keep {
        Some(bytes) => Settings::replay().keep_received_bytes(bytes),
        None => Settings::replay(),
    }
}

fn tokio_in_process(cassette: &Path, turns: u64) -> Result<Outcome, Error> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let builder = replay::tokio_builder(claude_proto_tokio::Options::default());
        let (claude, run) =
            claude_proto_testkit::tokio::connect_steps(builder, open(cassette)?, settings())?;
        let messages = drive_tokio(claude, turns).await?;
        run.finish().await?;
        Ok(Outcome { messages })
    })
}

fn tokio_child(cassette: &Path, turns: u64) -> Result<Outcome, Error> {
    let binary = child::cli_binary()?;
    let options = child::replay_options(
        claude_proto_tokio::Options::default(),
        &binary,
        cassette,
        &ReplayOptions::default(),
    );
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let claude = replay::tokio_builder(options).spawn().await?;
        let messages = drive_tokio(claude, turns).await?;
        Ok(Outcome { messages })
    })
}

/// The program on tokio: a prompt per turn, every event read, closed; for
/// a child, its exit code is the replay's verdict.
async fn drive_tokio(mut claude: claude_proto_tokio::Claude, turns: u64) -> Result<u64, Error> {
    use claude_proto_tokio::Event;
    let controller = claude.controller();
    let mut sent = 0;
    if sent < turns {
        controller.send_text(replay::PROMPT).await?;
        sent += 1;
    }
    let mut messages = 0;
    let mut ended = false;
    while let Some(event) = claude.next_event().await {
        if let Event::Message(message) = event {
            messages += 1;
            if message.is_result() {
                if sent < turns {
                    controller.send_text(replay::PROMPT).await?;
                    sent += 1;
                } else if !ended {
                    controller.end_input().await?;
                    ended = true;
                }
            }
        }
    }
    if let Some(exit) = claude.close().await? {
        if exit.code != Some(0) {
            return Err(format!("the replay failed: the CLI exited with {exit:?}").into());
        }
    }
    Ok(messages)
}

fn blocking_in_process(cassette: &Path, turns: u64) -> Result<Outcome, Error> {
    use claude_proto_blocking::Event;
    let builder = replay::blocking_builder(claude_proto_blocking::Options::default());
    let (mut claude, run) =
        claude_proto_testkit::blocking::connect_steps(builder, open(cassette)?, settings())?;
    let controller = claude.controller();
    let mut sent = 0;
    if sent < turns {
        controller.send_text(replay::PROMPT)?;
        sent += 1;
    }
    let mut messages = 0;
    let mut ended = false;
    while let Some(event) = claude.next_event() {
        if let Event::Message(message) = event {
            messages += 1;
            if message.is_result() {
                if sent < turns {
                    controller.send_text(replay::PROMPT)?;
                    sent += 1;
                } else if !ended {
                    controller.end_input()?;
                    ended = true;
                }
            }
        }
    }
    claude.close()?;
    run.wait()?;
    Ok(Outcome { messages })
}
