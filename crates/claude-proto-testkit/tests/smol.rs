//! The scripted CLI for a session on smol (through the async-std adapter,
//! whose runtime can be smol's).

use claude_proto::model::permission::PermissionResult;
use claude_proto_async_std::{Claude, Options, Runtime};
use claude_proto_testkit::{Script, ask, cli, expect};
use serde_json::json;

#[test]
fn a_permission_callback_on_smol() -> Result<(), Box<dyn std::error::Error>> {
    smol::block_on(async {
        let cat = json!({"command": "cat secrets.txt"});
        let script = Script::new()
            .expect(expect::user_text("Show the secrets"))
            .send(cli::system_init())
            .ask(ask::can_use_tool("Bash", cat), expect::deny_with("secret"))
            .send(cli::result_success("I may not."))
            .expect_end();
        let builder = Claude::builder(Options::default())
            .runtime(Runtime::smol())
            .on_permission(async |_| PermissionResult::deny("secrets stay secret"));
        let (mut claude, run) = claude_proto_testkit::async_std::connect(builder, script)?;
        assert_eq!(
            claude.ask("Show the secrets").await?.text(),
            Some("I may not.")
        );
        claude.close().await?;
        run.finish().await?;
        Ok(())
    })
}
