//! `tcp_transport`: a session over TCP instead of a child's pipes.
//!
//! ```text
//! cargo run --example tcp_transport               # real service if you have credentials, else offline
//! cargo run --example tcp_transport -- --offline  # a loopback stand-in for the model
//! ```
//!
//! The adapters can run a session over any byte-stream pair with
//! `ClaudeBuilder::connect(reader, writer)`: the protocol does not care
//! whether the CLI is a child process. This example has two halves, both
//! in this one process on 127.0.0.1:
//!
//! - **The "remote" half** (plain std threads) stands in for a bridge on
//!   another machine, next to the CLI: it listens on a TCP port, and on a
//!   connection starts the `claude` CLI with the argv and environment the
//!   adapter would have used (`claude_proto_process::build_command`),
//!   then copies socket → CLI stdin and CLI stdout → socket. The
//!   CLI's stderr stays with the bridge (here: this terminal).
//! - **The local half** (tokio) connects a `tokio::net::TcpStream`, hands
//!   its halves to `ClaudeBuilder::connect`, runs one turn and closes.
//!
//! Nothing here is authenticated or encrypted: across real machines, put
//! the bridge behind SSH or TLS. Both sides must use the same options: a
//! permission handler (`on_permission`) needs `permission_prompt_stdio(true)`
//! in the options the bridge starts the CLI with, since the builder cannot
//! change a command line it does not run.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener};
use std::process::{ExitCode, ExitStatus, Stdio};
use std::thread::JoinHandle;

use claude_proto_examples::{Reply, base_options, last_prompt, offline_options, want_offline};
use claude_proto_testkit::model_api::ApiRequest;
use claude_proto_tokio::{Claude, Options};

#[tokio::main]
async fn main() -> ExitCode {
    match run().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("tcp_transport: {message}");
            ExitCode::FAILURE
        }
    }
}

async fn run() -> Result<(), String> {
    let forced = match std::env::args().nth(1).as_deref() {
        Some("--offline") => Some(true),
        Some("--online") => Some(false),
        None => None,
        Some(other) => return Err(format!("unknown argument {other:?}")),
    };
    let mut options = base_options(None);
    let mut _offline = None;
    if want_offline(forced) {
        let (offline, guard) = offline_options("tcp-transport", options, offline_model)?;
        options = offline;
        _offline = Some(guard);
    }

    // The "remote" side: in a real deployment this runs on the CLI's host.
    let (addr, bridge) = serve_cli_over_tcp(options.clone())?;
    println!("[bridge] listening on {addr}");

    // The local side: a session over the socket.
    let stream = tokio::net::TcpStream::connect(addr)
        .await
        .map_err(|e| format!("cannot connect to {addr}: {e}"))?;
    let (reader, writer) = stream.into_split();
    let mut claude = Claude::builder(options)
        .connect(reader, writer)
        .map_err(|e| e.to_string())?;
    let init = claude
        .initialization()
        .await
        .map_err(|e| format!("the CLI did not initialize: {e}"))?;
    println!(
        "[local] connected over TCP to Claude Code {} (pid: {:?}, no child of ours)",
        init.claude_code_version.as_deref().unwrap_or("?"),
        claude.pid()
    );
    let turn = claude
        .ask("Say hello to a program that reaches you over TCP.")
        .await
        .map_err(|e| e.to_string())?;
    println!("{}", turn.text().unwrap_or_default());
    println!(
        "── {} · ${:.4} (session so far ${:.4})",
        turn.result.subtype,
        turn.cost_usd(),
        turn.total_cost_usd()
    );
    // Over a custom transport, close ends the writer (the bridge then
    // closes the CLI's stdin and it exits) and there is no exit report.
    claude.close().await.map_err(|e| e.to_string())?;

    let status = tokio::task::spawn_blocking(move || bridge.join())
        .await
        .map_err(|e| e.to_string())?
        .map_err(|_| "the bridge thread panicked".to_owned())??;
    println!("[bridge] the CLI exited: {status}");
    Ok(())
}

/// Listens on 127.0.0.1 (any free port); for the first connection, starts
/// the CLI for `options` and copies bytes both ways until either side ends.
/// The thread returns the CLI's exit status.
fn serve_cli_over_tcp(
    options: Options,
) -> Result<(SocketAddr, JoinHandle<Result<ExitStatus, String>>), String> {
    let listener = TcpListener::bind("127.0.0.1:0").map_err(|e| e.to_string())?;
    let addr = listener.local_addr().map_err(|e| e.to_string())?;
    let thread = std::thread::spawn(move || {
        let (socket, peer) = listener.accept().map_err(|e| e.to_string())?;
        // The launch holds the private files the CLI's arguments point at:
        // kept until the CLI has exited, below.
        let mut launch =
            claude_proto_process::build_command(&options).map_err(|e| e.to_string())?;
        let mut child = launch
            .command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start the CLI: {e}"))?;
        println!(
            "[bridge] {peer} connected; started the CLI as pid {}",
            child.id()
        );
        let (Some(mut stdin), Some(mut stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return Err("the CLI's streams were not piped".into());
        };
        let mut from_socket = socket.try_clone().map_err(|e| e.to_string())?;
        let mut to_socket = socket;
        // socket -> stdin; the client closing its side closes the CLI's stdin.
        let inbound = std::thread::spawn(move || {
            pump(&mut from_socket, &mut stdin);
        });
        // stderr stays here, on the CLI's host.
        let errors = std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                eprintln!("[bridge] CLI stderr: {line}");
            }
        });
        // stdout -> socket, then tell the client nothing more is coming.
        pump(&mut stdout, &mut to_socket);
        let _ = to_socket.shutdown(Shutdown::Both);
        let status = child.wait().map_err(|e| e.to_string());
        let _ = inbound.join();
        let _ = errors.join();
        drop(launch);
        status
    });
    Ok((addr, thread))
}

/// Copies `from` to `to` as bytes arrive, until `from` ends or `to` fails.
/// (Not `std::io::copy`: on Linux it uses `splice(2)` from the socket into
/// the CLI's stdin pipe, and a splice waiting for more socket data kept the
/// CLI from reading what had already arrived: it hung at `initialize`.)
fn pump(from: &mut impl Read, to: &mut impl Write) {
    let mut buf = [0; 64 * 1024];
    loop {
        match from.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(n) => {
                if to.write_all(&buf[..n]).and_then(|()| to.flush()).is_err() {
                    return;
                }
            }
        }
    }
}

/// The offline stand-in: a greeting that quotes the prompt.
fn offline_model(request: &ApiRequest) -> Reply {
    Reply::text(format!(
        "(offline stand-in) Hello over TCP! You said: \"{}\"",
        last_prompt(request).trim()
    ))
}
