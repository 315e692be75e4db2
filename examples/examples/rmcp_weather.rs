//! `rmcp_weather`: hand an MCP server written with rmcp, the official Rust
//! MCP SDK, to a Claude session.
//!
//! ```text
//! cargo run --example rmcp_weather               # real service if you have credentials, else offline
//! cargo run --example rmcp_weather -- --offline  # a loopback stand-in for the model
//! ```
//!
//! The server is plain rmcp: a `#[tool_router]` with one tool whose
//! arguments are a `Deserialize` + `JsonSchema` struct (the schema the
//! model sees is derived from it), with annotations, returning structured
//! output. `claude_proto_rmcp::RmcpEndpoint` attaches it under the name
//! `weather`; the CLI lists it as `mcp__weather__get_weather`. Offline,
//! the stand-in calls it for Paris and repeats what it returned.
//!
//! The same server in the official SDKs: Python's `create_sdk_mcp_server`
//! with `@tool("get_weather", ..., {"city": str})`, TypeScript's
//! `createSdkMcpServer({tools: [tool("get_weather", ..., {city: z.string()}, ..)]})`.

use std::process::ExitCode;

use claude_proto_examples::{
    Reply, base_options, last_tool_result, offline_options, start_error, want_offline,
};
use claude_proto_rmcp::RmcpEndpoint;
use claude_proto_testkit::model_api::ApiRequest;
use claude_proto_tokio::Claude;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::{ServerHandler, tool, tool_handler, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

/// The tool's arguments; the model sees the schema derived from them.
#[derive(Deserialize, JsonSchema)]
struct GetWeather {
    /// City name
    city: String,
}

/// The tool's structured answer.
#[derive(Serialize, JsonSchema)]
struct Weather {
    city: String,
    celsius: f64,
    sky: String,
}

#[derive(Clone)]
struct WeatherServer {
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl WeatherServer {
    /// Get the current weather for a city
    #[tool(annotations(title = "Weather", read_only_hint = true))]
    async fn get_weather(
        &self,
        Parameters(GetWeather { city }): Parameters<GetWeather>,
    ) -> Result<rmcp::Json<Weather>, String> {
        if city.trim().is_empty() {
            return Err("city must not be empty".to_owned());
        }
        println!("[weather.get_weather] {city}");
        Ok(rmcp::Json(Weather {
            city,
            celsius: 22.0,
            sky: "clear".to_owned(),
        }))
    }
}

#[tool_handler(router = self.tool_router, name = "weather", version = "1.0.0")]
impl ServerHandler for WeatherServer {}

#[tokio::main]
async fn main() -> ExitCode {
    match run().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("rmcp_weather: {message}");
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
    let mut options = base_options(None).allowed_tools(["mcp__weather__get_weather"]);
    let mut _offline = None;
    if want_offline(forced) {
        let (offline, guard) = offline_options("rmcp-weather", options, offline_model)?;
        options = offline;
        _offline = Some(guard);
    }

    let server = WeatherServer {
        tool_router: WeatherServer::tool_router(),
    };
    let endpoint = RmcpEndpoint::new(server).map_err(|e| e.to_string())?;
    let mut claude = Claude::builder(options)
        .mcp_endpoint("weather", endpoint)
        .spawn()
        .await
        .map_err(start_error)?;
    let turn = claude
        .ask("What is the weather in Paris? Use the weather tool.")
        .await
        .map_err(|e| e.to_string())?;
    println!("{}", turn.text().unwrap_or_default());
    if let Err(e) = claude.close().await {
        eprintln!("closing failed: {e}");
    }
    match turn.error_message() {
        None => Ok(()),
        Some(error) => Err(error),
    }
}

/// The offline stand-in: calls the tool, then repeats its answer.
fn offline_model(request: &ApiRequest) -> Reply {
    match last_tool_result(request) {
        Some(weather) => Reply::text(format!("(offline stand-in) the tool says: {weather}")),
        None => Reply::tool_use("mcp__weather__get_weather", json!({"city": "Paris"})),
    }
}
