//! End to end: a real child process (`bench-cli`) writes the transcript to
//! a pipe as fast as it is read; the reader counts the messages.
//!
//! `bench-e2e ADAPTER BENCH_CLI TRANSCRIPT [TOTAL_BYTES]` (the child repeats
//! the transcript until it has written `TOTAL_BYTES`), where ADAPTER is
//!
//! - `tokio`: `claude_proto_tokio::Claude::builder(..).spawn()`, then
//!   `next_event` until the stream ends;
//! - `floor`: `std::process`, one `initialize` line written by hand, then
//!   read the pipe in 64 KiB chunks and count newlines: no adapter can beat
//!   it;
//! - `async-std`: `claude_proto_async_std` the same way, its tasks spawned
//!   on async-std's runtime, the main thread waiting in `block_on`;
//! - `smol`: `claude_proto_async_std` on a `smol::Executor` that the main
//!   thread runs itself, so the driver and the consumer share one thread
//!   (like the tokio row's current-thread runtime);
//! - `smol-global`: `claude_proto_async_std` on smol's global executor, the
//!   main thread waiting in `smol::block_on`;
//! - `blocking`: `claude_proto_blocking::Claude::builder(..).spawn()`, then
//!   `next_event` until the stream ends, on the main thread;
//!
//! Prints one line of `key=value` pairs for `compare.sh`:
//! `adapter messages bytes secs msgs_per_s mb_per_s peak_rss`.

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

use claude_proto_bench::rss;

struct Outcome {
    messages: u64,
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if !(4..=5).contains(&args.len()) {
        eprintln!(
            "usage: bench-e2e tokio|floor|blocking|async-std|smol|smol-global BENCH_CLI TRANSCRIPT [TOTAL_BYTES]"
        );
        std::process::exit(2);
    }
    let (adapter, cli, transcript) = (&args[1], Path::new(&args[2]), &args[3]);
    let size = std::fs::metadata(transcript)
        .map(|m| m.len())
        .unwrap_or(0)
        .max(1);
    let total: u64 = args.get(4).and_then(|s| s.parse().ok()).unwrap_or(size);
    // The child writes whole copies until it reaches `total`.
    let copies = total.div_ceil(size);
    let bytes = copies * size;
    // Read by bench-cli, which the adapters start with this environment.
    let cli_env = [
        ("BENCH_CLI_TRANSCRIPT", transcript.to_owned()),
        ("BENCH_CLI_TOTAL_BYTES", bytes.to_string()),
    ];
    let start = Instant::now();
    let outcome = run(adapter, cli, &cli_env);
    let secs = start.elapsed().as_secs_f64();
    match outcome {
        Some(o) => println!(
            "adapter={adapter} messages={} bytes={bytes} secs={secs:.4} msgs_per_s={:.0} mb_per_s={:.1} peak_rss={}",
            o.messages,
            o.messages as f64 / secs,
            bytes as f64 / secs / 1e6,
            rss::peak().unwrap_or(0),
        ),
        None => println!("adapter={adapter} unavailable"),
    }
}

/// One run through the named adapter. Add the other adapters here as they
/// land: spawn `cli` with the environment `env` through the adapter's own
/// spawn, count `Event::Message`s until the stream ends.
fn run(adapter: &str, cli: &Path, env: &[(&str, String)]) -> Option<Outcome> {
    match adapter {
        "tokio" => Some(tokio_adapter(cli, env)),
        "floor" => Some(floor(cli, env)),
        "blocking" => Some(blocking_adapter(cli, env)),
        "async-std" => Some(async_std_adapter(
            cli,
            env,
            claude_proto_async_std::Runtime::async_std(),
            async_std::task::block_on,
        )),
        "smol" => Some(smol_local(cli, env)),
        "smol-global" => Some(async_std_adapter(
            cli,
            env,
            claude_proto_async_std::Runtime::smol(),
            smol::block_on,
        )),
        _ => None,
    }
}

fn options(cli: &Path, env: &[(&str, String)]) -> claude_proto_tokio::Options {
    env.iter().fold(
        claude_proto_tokio::Options::new().cli_path(cli),
        |options, (name, value)| options.env(name, value),
    )
}

fn tokio_adapter(cli: &Path, env: &[(&str, String)]) -> Outcome {
    use claude_proto_tokio::{Claude, Event};
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    runtime.block_on(async {
        let mut claude = Claude::builder(options(cli, env))
            .spawn()
            .await
            .expect("bench-cli starts");
        let mut messages = 0;
        while let Some(event) = claude.next_event().await {
            if let Event::Message(_) = event {
                messages += 1;
            }
        }
        Outcome { messages }
    })
}

fn blocking_adapter(cli: &Path, env: &[(&str, String)]) -> Outcome {
    use claude_proto_blocking::{Claude, Event};
    let mut claude = Claude::builder(options(cli, env))
        .spawn()
        .expect("bench-cli starts");
    let mut messages = 0;
    while let Some(event) = claude.next_event() {
        if let Event::Message(_) = event {
            messages += 1;
        }
    }
    Outcome { messages }
}

/// `claude_proto_async_std` on `runtime`, the test thread waiting with
/// `block_on`.
fn async_std_adapter(
    cli: &Path,
    env: &[(&str, String)],
    runtime: claude_proto_async_std::Runtime,
    block_on: fn(std::pin::Pin<Box<dyn std::future::Future<Output = Outcome>>>) -> Outcome,
) -> Outcome {
    use claude_proto_async_std::{Claude, Event};
    let options = env.iter().fold(
        claude_proto_async_std::Options::new().cli_path(cli),
        |options, (name, value)| options.env(name, value),
    );
    block_on(Box::pin(async move {
        let mut claude = Claude::builder(options)
            .runtime(runtime)
            .spawn()
            .await
            .expect("bench-cli starts");
        let mut messages = 0;
        while let Some(event) = claude.next_event().await {
            if let Event::Message(_) = event {
                messages += 1;
            }
        }
        Outcome { messages }
    }))
}

/// `claude_proto_async_std` on a smol `Executor` run by the measuring
/// thread itself: the driver and the consumer share one thread, as with
/// tokio's current-thread runtime above (smol's usual single-threaded
/// setup). "smol-global" measures smol's global executor instead.
fn smol_local(cli: &Path, env: &[(&str, String)]) -> Outcome {
    use claude_proto_async_std::{Claude, Event};
    let executor = std::sync::Arc::new(smol::Executor::new());
    let spawner = executor.clone();
    let runtime = claude_proto_async_std::Runtime::custom(move |task| spawner.spawn(task).detach());
    let options = env.iter().fold(
        claude_proto_async_std::Options::new().cli_path(cli),
        |options, (name, value)| options.env(name, value),
    );
    smol::block_on(executor.run(async move {
        let mut claude = Claude::builder(options)
            .runtime(runtime)
            .spawn()
            .await
            .expect("bench-cli starts");
        let mut messages = 0;
        while let Some(event) = claude.next_event().await {
            if let Event::Message(_) = event {
                messages += 1;
            }
        }
        Outcome { messages }
    }))
}

fn floor(cli: &Path, env: &[(&str, String)]) -> Outcome {
    let mut child = Command::new(cli)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("bench-cli starts");
    let mut stdin = child.stdin.take().expect("piped");
    stdin
        .write_all(b"{\"type\":\"control_request\",\"request_id\":\"r1\",\"request\":{\"subtype\":\"initialize\"}}\n")
        .expect("write initialize");
    let mut stdout = child.stdout.take().expect("piped");
    let mut buf = vec![0u8; 64 * 1024];
    let mut newlines = 0u64;
    loop {
        match stdout.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => newlines += buf[..n].iter().filter(|&&b| b == b'\n').count() as u64,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => panic!("read: {e}"),
        }
    }
    drop(stdin);
    let _ = child.wait();
    // The initialize answer is not a message.
    Outcome {
        messages: newlines.saturating_sub(1),
    }
}
