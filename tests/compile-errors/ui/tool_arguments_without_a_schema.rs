// A tool whose arguments derive `Deserialize` but not `JsonSchema`: the
// error names both derives, and raw `Json` as the other way.
use claude_proto_tokio::prelude::*;

#[derive(serde::Deserialize)]
struct Add {
    a: f64,
    b: f64,
}

fn main() {
    let _ = McpServer::new("calc", "1.0.0").tool("add", "Adds", async |args: Add| Ok(args.a + args.b));
}
