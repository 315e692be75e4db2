// A tool closure whose arguments have no type: the compiler cannot know
// which type to read them as, and asks for one (`args: Json`, or a type
// deriving `Deserialize` and `JsonSchema`).
use claude_proto_tokio::prelude::*;

fn main() {
    let _ = McpServer::new("echo", "1.0.0").tool("echo", "Echoes", async |args| {
        Ok(args["text"].to_string())
    });
}
