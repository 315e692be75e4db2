// A permission handler must answer with a `PermissionResult`.
use claude_proto_tokio::prelude::*;

fn main() {
    let _ = Claude::builder(Options::default()).on_permission(async |_ask| true);
}
