//! Peak memory under two stress scenarios, one adapter and one scenario per
//! process so the peak RSS (`VmHWM`) is this run's alone. Only the
//! adapters' public API: `Claude::builder(options).spawn()`, `next_event`,
//! `close`; the CLI is `bench-cli` in a stress mode.
//!
//! `bench-stress ADAPTER SCENARIO [--cli PATH] [FLAGS]`, ADAPTER one of
//! `tokio` (current-thread runtime), `blocking`, `async-std` (its global
//! runtime), `smol` (an executor the main thread runs), and SCENARIO:
//!
//! - `flood`: the CLI writes `--lines` (40) messages of `--line-bytes`
//!   (8 MiB) while the consumer reads nothing, until the CLI has written
//!   them all or `--pause-secs` (5) pass; then it drains and closes.
//!   Bounded memory means the CLI is still blocked when the pause ends.
//! - `refusals`: the CLI never reads its stdin and writes `--requests`
//!   (500,000) control requests of an unknown subtype with ids of
//!   `--id-bytes` (150) bytes; each gets an error answer that nobody reads
//!   (about 160 MB in all with the defaults). The consumer drains, closes.
//! - `deadline`: the CLI writes `--lines` (4,000,000) messages of
//!   `--line-bytes` (8 KiB) as fast as the pipe takes them and ignores the
//!   interrupt; the consumer sends a prompt and reads its turn with
//!   `finish_within(--deadline-secs)` (1 s), which interrupts at the
//!   deadline, reads on for `INTERRUPT_GRACE` (10 s) and gives up; then it
//!   closes. Bounded memory means a flat peak however long the grace; the
//!   report's `secs` is the time to give up and close.
//!
//! `--cli` defaults to `bench-cli` next to this binary. Prints one line of
//! `key=value` pairs: peak RSS minus the RSS at start, the events seen,
//! whether the CLI finished during the pause, and how `close` ended.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use claude_proto::options::Options;
use claude_proto_bench::rss;
use claude_proto_tokio::Limits;

const TICK: Duration = Duration::from_millis(10);

struct Args {
    adapter: String,
    scenario: String,
    cli: PathBuf,
    lines: u64,
    line_bytes: u64,
    pause: Duration,
    requests: u64,
    id_bytes: u64,
    /// `Limits::stdin_stall_timeout`: how long a CLI may leave its stdin
    /// unread with the unwritten budget spent before the session closes.
    stall: Duration,
    /// `deadline`: the turn's timeout.
    deadline: Duration,
}

fn parse_args() -> Args {
    let usage = "usage: bench-stress tokio|blocking|async-std|smol flood|refusals|deadline \
                 [--cli PATH] [--lines N] [--line-bytes N] [--pause-secs S] [--requests N] \
                 [--id-bytes N] [--stall-secs S] [--deadline-secs S]";
    let argv: Vec<String> = std::env::args().skip(1).collect();
    if argv.len() < 2 || argv.len() % 2 != 0 {
        eprintln!("{usage}");
        std::process::exit(2);
    }
    let exe = std::env::current_exe().expect("own path");
    let mut args = Args {
        adapter: argv[0].clone(),
        scenario: argv[1].clone(),
        cli: exe.with_file_name("bench-cli"),
        lines: 40,
        line_bytes: 8 << 20,
        pause: Duration::from_secs(5),
        requests: 500_000,
        id_bytes: 150,
        stall: Duration::from_secs(2),
        deadline: Duration::from_secs(1),
    };
    if args.scenario == "deadline" {
        args.lines = 4_000_000;
        args.line_bytes = 8 << 10;
    }
    for pair in argv[2..].chunks(2) {
        let (flag, value) = (pair[0].as_str(), &pair[1]);
        let number = || -> u64 { value.parse().unwrap_or_else(|_| panic!("{flag}: a number")) };
        match flag {
            "--cli" => args.cli = PathBuf::from(value),
            "--lines" => args.lines = number(),
            "--line-bytes" => args.line_bytes = number(),
            "--pause-secs" => args.pause = Duration::from_secs_f64(value.parse().expect("seconds")),
            "--requests" => args.requests = number(),
            "--id-bytes" => args.id_bytes = number(),
            "--stall-secs" => args.stall = Duration::from_secs_f64(value.parse().expect("seconds")),
            "--deadline-secs" => {
                args.deadline = Duration::from_secs_f64(value.parse().expect("seconds"));
            }
            _ => {
                eprintln!("{usage}");
                std::process::exit(2);
            }
        }
    }
    args
}

/// The consumer's pause: over when the CLI says it wrote everything (it
/// creates `done_file`) or at `until`. No pause for `refusals`.
struct Pause {
    done_file: PathBuf,
    start: Instant,
    until: Instant,
}

impl Pause {
    fn waiting(&self) -> bool {
        Instant::now() < self.until && !self.cli_done()
    }
    fn cli_done(&self) -> bool {
        self.done_file.exists()
    }
}

#[derive(Default)]
struct Tally {
    messages: u64,
    refused: u64,
    other: u64,
    paused_secs: f64,
    cli_done_in_pause: bool,
    close: String,
    /// `deadline`: how the turn ended, and how long the call took.
    outcome: String,
    turn_secs: f64,
}

impl Tally {
    fn paused(&mut self, pause: &Pause) {
        self.paused_secs = pause.start.elapsed().as_secs_f64();
        self.cli_done_in_pause = pause.cli_done();
    }
    fn see(&mut self, message: bool, refused: bool) {
        match (message, refused) {
            (true, _) => self.messages += 1,
            (_, true) => self.refused += 1,
            _ => self.other += 1,
        }
    }
    fn closed<T, E: std::fmt::Display>(&mut self, result: Result<T, E>) {
        self.close = match result {
            Ok(_) => "ok".into(),
            Err(e) => format!("error:{}", e.to_string().replace(char::is_whitespace, "_")),
        };
    }
}

impl Tally {
    fn turn_ended<E: std::fmt::Display>(&mut self, outcome: Result<claude_proto_host::Turn, E>) {
        self.outcome = match outcome {
            Ok(turn) => format!("turn_of_{}_messages", turn.messages.len()),
            Err(e) => e.to_string().replace(char::is_whitespace, "_"),
        };
    }
}

/// The `deadline` consumer, the same on every async adapter: one turn
/// given up at its deadline, then close.
macro_rules! give_up {
    ($claude:ident, $deadline:expr) => {{
        let mut tally = Tally::default();
        let asked = Instant::now();
        match $claude.query("flood").await {
            Ok(turn) => tally.turn_ended(turn.finish_within($deadline).await),
            Err(e) => tally.turn_ended(Err(e)),
        }
        tally.turn_secs = asked.elapsed().as_secs_f64();
        tally.closed($claude.close().await);
        tally
    }};
}

/// The consumer, the same on every async adapter: pause, drain, close.
macro_rules! consume {
    ($claude:ident, $Event:path, $pause:expr, $sleep:expr) => {{
        use $Event as Event;
        let pause: Pause = $pause;
        let mut tally = Tally::default();
        while pause.waiting() {
            $sleep.await;
        }
        tally.paused(&pause);
        while let Some(event) = $claude.next_event().await {
            tally.see(
                matches!(event, Event::Message(_)),
                matches!(event, Event::RequestRefused { .. }),
            );
        }
        tally.closed($claude.close().await);
        tally
    }};
}

fn main() {
    let args = parse_args();
    let done_file = std::env::temp_dir().join(format!("bench-stress-{}.done", std::process::id()));
    let _ = std::fs::remove_file(&done_file);
    let mut options = Options::new()
        .cli_path(&args.cli)
        .env("BENCH_CLI_MODE", &args.scenario);
    let pause_for = match args.scenario.as_str() {
        "flood" => {
            options = options
                .env("BENCH_CLI_LINES", args.lines.to_string())
                .env("BENCH_CLI_LINE_BYTES", args.line_bytes.to_string())
                .env("BENCH_CLI_DONE_FILE", &done_file);
            args.pause
        }
        "refusals" => {
            options = options
                .env("BENCH_CLI_REQUESTS", args.requests.to_string())
                .env("BENCH_CLI_ID_BYTES", args.id_bytes.to_string());
            Duration::ZERO
        }
        "deadline" => {
            options = Options::new()
                .cli_path(&args.cli)
                .env("BENCH_CLI_MODE", "flood")
                .env("BENCH_CLI_LINES", args.lines.to_string())
                .env("BENCH_CLI_LINE_BYTES", args.line_bytes.to_string());
            Duration::ZERO
        }
        other => panic!("unknown scenario {other}"),
    };

    rss::reset_peak();
    let base = rss::current().unwrap_or(0);
    let start = Instant::now();
    let pause = |started: Instant| Pause {
        done_file: done_file.clone(),
        start: started,
        until: started + pause_for,
    };
    let mut limits = Limits::default();
    limits.stdin_stall_timeout = args.stall;
    let deadline = (args.scenario == "deadline").then_some(args.deadline);
    let tally = match args.adapter.as_str() {
        "tokio" => tokio_adapter(options, limits, pause, deadline),
        "blocking" => blocking_adapter(options, limits, pause, deadline),
        "async-std" => async_std_adapter(options, limits, pause, deadline),
        "smol" => smol_adapter(options, limits, pause, deadline),
        other => panic!("unknown adapter {other}"),
    };
    let secs = start.elapsed().as_secs_f64();
    let peak = rss::peak().unwrap_or(0);
    let _ = std::fs::remove_file(&done_file);
    let mib = |b: u64| b as f64 / (1024.0 * 1024.0);
    let detail = match args.scenario.as_str() {
        "flood" => format!(
            "lines={} line_bytes={} pause_limit_secs={} paused_secs={:.2} cli_done_in_pause={}",
            args.lines,
            args.line_bytes,
            args.pause.as_secs_f64(),
            tally.paused_secs,
            tally.cli_done_in_pause
        ),
        "deadline" => format!(
            "lines={} line_bytes={} deadline_secs={} turn_secs={:.2} outcome={}",
            args.lines,
            args.line_bytes,
            args.deadline.as_secs_f64(),
            tally.turn_secs,
            tally.outcome
        ),
        _ => format!(
            "requests={} id_bytes={} answer_bytes={}",
            args.requests,
            args.id_bytes,
            args.requests * answer_len(args.id_bytes)
        ),
    };
    println!(
        "adapter={} scenario={} base_rss_mib={:.1} peak_rss_mib={:.1} delta_mib={:.1} secs={secs:.2} \
         messages={} refused={} other_events={} close={} {detail}",
        args.adapter,
        args.scenario,
        mib(base),
        mib(peak),
        mib(peak.saturating_sub(base)),
        tally.messages,
        tally.refused,
        tally.other,
        tally.close,
    );
}

/// Bytes of one refusal as the core writes it today (for the report only).
fn answer_len(id_bytes: u64) -> u64 {
    let line = r#"{"type":"control_response","response":{"subtype":"error","request_id":"","error":"Unsupported control request subtype: bench_unknown","error_code":"unsupported_request"}}"#;
    line.len() as u64 + 1 + id_bytes
}

fn tokio_adapter(
    options: Options,
    limits: Limits,
    pause: impl Fn(Instant) -> Pause,
    deadline: Option<Duration>,
) -> Tally {
    use claude_proto_tokio::{Claude, Configure};
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    runtime.block_on(async {
        let mut claude = Claude::builder(options)
            .limits(limits)
            .spawn()
            .await
            .expect("bench-cli starts");
        if let Some(deadline) = deadline {
            return give_up!(claude, deadline);
        }
        consume!(
            claude,
            claude_proto_tokio::Event,
            pause(Instant::now()),
            tokio::time::sleep(TICK)
        )
    })
}

fn blocking_adapter(
    options: Options,
    limits: Limits,
    pause: impl Fn(Instant) -> Pause,
    deadline: Option<Duration>,
) -> Tally {
    use claude_proto_blocking::{Claude, Configure, Event};
    let mut claude = Claude::builder(options)
        .limits(limits)
        .spawn()
        .expect("bench-cli starts");
    if let Some(deadline) = deadline {
        let mut tally = Tally::default();
        let asked = Instant::now();
        match claude.query("flood") {
            Ok(turn) => tally.turn_ended(turn.finish_within(deadline)),
            Err(e) => tally.turn_ended(Err(e)),
        }
        tally.turn_secs = asked.elapsed().as_secs_f64();
        tally.closed(claude.close());
        return tally;
    }
    let pause = pause(Instant::now());
    let mut tally = Tally::default();
    while pause.waiting() {
        std::thread::sleep(TICK);
    }
    tally.paused(&pause);
    while let Some(event) = claude.next_event() {
        tally.see(
            matches!(event, Event::Message(_)),
            matches!(event, Event::RequestRefused { .. }),
        );
    }
    tally.closed(claude.close());
    tally
}

fn async_std_adapter(
    options: Options,
    limits: Limits,
    pause: impl Fn(Instant) -> Pause,
    deadline: Option<Duration>,
) -> Tally {
    use claude_proto_async_std::{Claude, Configure, Runtime};
    async_std::task::block_on(async {
        let mut claude = Claude::builder(options)
            .limits(limits)
            .runtime(Runtime::async_std())
            .spawn()
            .await
            .expect("bench-cli starts");
        if let Some(deadline) = deadline {
            return give_up!(claude, deadline);
        }
        consume!(
            claude,
            claude_proto_async_std::Event,
            pause(Instant::now()),
            async_std::task::sleep(TICK)
        )
    })
}

/// smol on an executor the main thread runs (driver and consumer share it).
fn smol_adapter(
    options: Options,
    limits: Limits,
    pause: impl Fn(Instant) -> Pause,
    deadline: Option<Duration>,
) -> Tally {
    use claude_proto_async_std::{Claude, Configure, Runtime};
    let executor = std::sync::Arc::new(smol::Executor::new());
    let spawner = executor.clone();
    let runtime = Runtime::custom(move |task| spawner.spawn(task).detach());
    smol::block_on(executor.run(async {
        let mut claude = Claude::builder(options)
            .limits(limits)
            .runtime(runtime)
            .spawn()
            .await
            .expect("bench-cli starts");
        if let Some(deadline) = deadline {
            return give_up!(claude, deadline);
        }
        consume!(
            claude,
            claude_proto_async_std::Event,
            pause(Instant::now()),
            smol::Timer::after(TICK)
        )
    }))
}
