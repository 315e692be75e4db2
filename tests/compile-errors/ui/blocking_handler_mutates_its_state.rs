// A blocking permission handler that counts its calls in a captured
// variable: it is `FnMut`, not `Fn`. The error names `with_state`.
use claude_proto_blocking::prelude::*;

fn main() {
    let mut asked = 0;
    let count_and_allow = move |_ask: CanUseTool| {
        asked += 1;
        println!("asked {asked} times");
        PermissionResult::allow()
    };
    let _ = Claude::builder(Options::default()).on_permission(count_and_allow);
}
