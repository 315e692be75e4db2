//! In-process MCP tool calls, timed by the CLI: drives `bench-mcp-cli`
//! (which makes the calls and measures them) through one of the adapters
//! with an in-process server `calc` whose one tool `add` adds two numbers.
//!
//! `bench-mcp VARIANT BENCH_MCP_CLI`, where VARIANT is
//!
//! - `tokio`: `claude_proto_tokio` on a current-thread runtime, the
//!   hand-written server (`McpServer::new("calc", "1.0.0").tool(..)`, typed
//!   arguments, an async closure);
//! - `tokio-mt`: the same on a multi-thread runtime with 2 workers (what
//!   `#[tokio::main]` gives on this 2-core machine);
//! - `rmcp`: `claude_proto_tokio` on a current-thread runtime with an rmcp
//!   server written with `#[tool_router]`, attached as an endpoint
//!   (`claude_proto_rmcp::RmcpEndpoint`, its own thread and runtime);
//! - `blocking`: `claude_proto_blocking` with the hand-written server (a
//!   plain closure, run on a handler thread).
//!
//! Sends one prompt, waits for the turn's `result` and prints one line of
//! JSON: the result text (the CLI's figures) with `"variant"` added.
//! `BENCH_MCP_CALLS` and `BENCH_MCP_WARMUP` reach the stand-in through the
//! environment.

use std::path::Path;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::{ServerHandler, tool, tool_handler, tool_router};
use serde::Deserialize;
use serde_json::json;

/// The `add` tool's arguments.
#[derive(Deserialize, schemars::JsonSchema)]
struct Add {
    /// The first addend
    a: f64,
    /// The second addend
    b: f64,
}

/// The same server written with rmcp's macros.
#[derive(Clone)]
struct Calc {
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl Calc {
    /// Adds two numbers and returns the sum.
    #[tool]
    async fn add(&self, Parameters(Add { a, b }): Parameters<Add>) -> String {
        (a + b).to_string()
    }
}

// `router = self.tool_router`: the default builds the router on every call.
#[tool_handler(router = self.tool_router, name = "calc", version = "1.0.0")]
impl ServerHandler for Calc {}

const PROMPT: &str = "What is 2 + 3? Use the add tool of the calc server.";

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 3 {
        eprintln!("usage: bench-mcp tokio|tokio-mt|rmcp|blocking BENCH_MCP_CLI");
        std::process::exit(2);
    }
    let (variant, cli) = (args[1].as_str(), Path::new(&args[2]));
    let text = match variant {
        "tokio" => tokio_variant(cli, false, false),
        "tokio-mt" => tokio_variant(cli, true, false),
        "rmcp" => tokio_variant(cli, false, true),
        "blocking" => blocking_variant(cli),
        _ => Err(format!("unknown variant {variant:?}")),
    };
    let figures = text.and_then(|text| {
        serde_json::from_str::<serde_json::Value>(&text)
            .map_err(|e| format!("the result text is not JSON ({e}): {text}"))
    });
    match figures {
        Ok(mut figures) => {
            figures["variant"] = json!(variant);
            println!("{figures}");
        }
        Err(e) => {
            eprintln!("bench-mcp {variant}: {e}");
            std::process::exit(1);
        }
    }
}

fn tokio_variant(cli: &Path, multi_thread: bool, rmcp: bool) -> Result<String, String> {
    use claude_proto_tokio::{Claude, McpServer, Options};
    let runtime = if multi_thread {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
    } else {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
    };
    let runtime = runtime.map_err(|e| e.to_string())?;
    runtime.block_on(async {
        let builder = Claude::builder(Options::new().cli_path(cli));
        let builder = if rmcp {
            let calc = Calc {
                tool_router: Calc::tool_router(),
            };
            let endpoint = claude_proto_rmcp::RmcpEndpoint::new(calc).map_err(|e| e.to_string())?;
            builder.mcp_endpoint("calc", endpoint)
        } else {
            builder.mcp_server(McpServer::new("calc", "1.0.0").tool(
                "add",
                "Adds two numbers and returns the sum.",
                async |Add { a, b }: Add| Ok(a + b),
            ))
        };
        let mut claude = builder.spawn().await.map_err(|e| e.to_string())?;
        let turn = claude.ask(PROMPT).await.map_err(|e| e.to_string())?;
        let text = turn.text().map(str::to_owned);
        claude.close().await.map_err(|e| e.to_string())?;
        text.ok_or_else(|| "the turn has no result text".to_owned())
    })
}

fn blocking_variant(cli: &Path) -> Result<String, String> {
    use claude_proto_blocking::{Claude, McpServer, Options};
    let calc = McpServer::new("calc", "1.0.0").tool(
        "add",
        "Adds two numbers and returns the sum.",
        |Add { a, b }: Add| Ok(a + b),
    );
    let mut claude = Claude::builder(Options::new().cli_path(cli))
        .mcp_server(calc)
        .spawn()
        .map_err(|e| e.to_string())?;
    let turn = claude.ask(PROMPT).map_err(|e| e.to_string())?;
    let text = turn.text().map(str::to_owned);
    claude.close().map_err(|e| e.to_string())?;
    text.ok_or_else(|| "the turn has no result text".to_owned())
}
