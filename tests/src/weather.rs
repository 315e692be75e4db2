//! The weather server of the README, written once with rmcp's macros and
//! attached to a session as an endpoint (`claude_proto_rmcp`), for the
//! real-CLI scenario `rmcp_tool`: typed arguments with a schema derived
//! from the type, annotations, structured output, a tool that fails and
//! one that panics.

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::service::RequestContext;
use rmcp::{RoleServer, ServerHandler, tool, tool_handler, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::real_cli::Calls;

/// A temperature unit.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Unit {
    /// Degrees Celsius.
    Celsius,
    /// Degrees Fahrenheit.
    Fahrenheit,
}

/// The arguments of `get_weather`.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub struct GetWeather {
    /// City name
    pub city: String,
    /// Temperature unit
    pub unit: Option<Unit>,
}

/// What `get_weather` answers.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Weather {
    /// The city asked about.
    pub city: String,
    /// Its temperature.
    pub temperature: f64,
    /// In this unit.
    pub unit: String,
}

/// The server; its calls are recorded in `calls` (`weather:<tool>`).
#[derive(Clone)]
pub struct WeatherServer {
    calls: Calls,
    tool_router: ToolRouter<Self>,
}

impl WeatherServer {
    /// A server recording its calls in `calls`.
    pub fn new(calls: Calls) -> Self {
        Self {
            calls,
            tool_router: Self::tool_router(),
        }
    }
}

#[tool_router]
impl WeatherServer {
    /// Get the current weather for a city
    #[tool(annotations(title = "Weather", read_only_hint = true))]
    async fn get_weather(
        &self,
        Parameters(args): Parameters<GetWeather>,
    ) -> Result<rmcp::Json<Weather>, String> {
        self.calls.record(
            "weather:get_weather",
            serde_json::to_value(&args).unwrap_or_default(),
        );
        if args.city.is_empty() {
            return Err("city must not be empty".to_owned());
        }
        let (temperature, unit) = match args.unit {
            Some(Unit::Fahrenheit) => (71.6, "fahrenheit"),
            _ => (22.0, "celsius"),
        };
        Ok(rmcp::Json(Weather {
            city: args.city,
            temperature,
            unit: unit.to_owned(),
        }))
    }

    /// Waits until the call is cancelled
    #[tool]
    async fn wait_for_cancel(&self, context: RequestContext<RoleServer>) -> String {
        self.calls
            .record("weather:wait_started", serde_json::Value::Null);
        context.ct.cancelled().await;
        self.calls
            .record("weather:wait_cancelled", serde_json::Value::Null);
        "cancelled".to_owned()
    }

    /// Asks the client for its roots
    #[tool]
    #[allow(deprecated)] // roots/list is deprecated in newer MCP drafts; the CLI still speaks it
    async fn roots(&self, context: RequestContext<RoleServer>) -> String {
        match context.peer.list_roots().await {
            Ok(roots) => format!(
                "roots: {}",
                serde_json::to_string(&roots).unwrap_or_default()
            ),
            Err(error) => format!("no roots: {error}"),
        }
    }

    /// A tool that panics
    #[tool]
    async fn explode(&self) -> String {
        self.calls
            .record("weather:explode", serde_json::Value::Null);
        panic!("the weather station exploded")
    }
}

#[tool_handler(router = self.tool_router, name = "weather", version = "1.0.0")]
impl ServerHandler for WeatherServer {}
