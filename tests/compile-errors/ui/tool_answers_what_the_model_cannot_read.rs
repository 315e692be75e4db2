// A tool must answer with a `ToolOutput` or `Result<impl Serialize, _>`.
use claude_proto_blocking::prelude::*;

struct Opaque;

fn main() {
    let _ = claude_proto_blocking::McpServer::new("x", "1.0.0").tool("t", "d", |_: Json| Opaque);
}
