// A permission handler that uses a log it owns: its future borrows the
// closure, so it is not `Fn(CanUseTool) -> impl Future + 'static`. The
// error names `with_state`.
use std::sync::{Arc, Mutex};

use claude_proto_tokio::prelude::*;

fn main() {
    let log = Arc::new(Mutex::new(Vec::<String>::new()));
    let _ = Claude::builder(Options::default()).on_permission(async move |ask| {
        log.lock().unwrap().push(ask.tool_name);
        PermissionResult::allow()
    });
}
