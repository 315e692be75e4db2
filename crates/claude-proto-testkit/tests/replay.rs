//! Recorded sessions replayed as the CLI through an adapter: in process
//! and through the `claude-proto-testkit-cli` binary's real spawn path.

use std::path::{Path, PathBuf};

use claude_proto::model::permission::PermissionResult;
use claude_proto_testkit::cassette::{Replay, ReplayOptions, Speed};
use claude_proto_testkit::model_api::{ModelApi, Reply, claude_bin};
use claude_proto_testkit::{FAILURE_EXIT_CODE, FailureKind, Settings, child};
use claude_proto_tokio::{Claude, Options};
use serde_json::json;

const BINARY: &str = env!("CARGO_BIN_EXE_claude-proto-testkit-cli");

type Result = std::result::Result<(), Box<dyn std::error::Error>>;

fn cassette(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/cassettes")
        .join(format!("{name}.cassette.ndjson"))
}

/// The prompt of the `hello` cassette, and the model's recorded answer.
const HELLO: (&str, &str) = ("Say hello", "Hello!");

/// With `UPDATE_CASSETTES=1` and the pinned CLI (`CLAUDE_BIN`): records the
/// cassettes these tests and the guide replay, through the binary's record
/// mode, against the real CLI running offline. A tool, not a check, so it
/// is ignored by default (it could not fail without the variable): the
/// committed recordings are what the other tests check. Re-record when the
/// library changes what it sends (the replays then fail, naming the line
/// that changed): `UPDATE_CASSETTES=1 cargo test -p claude-proto-testkit
/// --test replay -- --ignored record_the_cassettes`.
#[tokio::test]
#[ignore = "records the cassettes; run with UPDATE_CASSETTES=1 and --ignored"]
async fn record_the_cassettes() -> Result {
    if std::env::var_os("UPDATE_CASSETTES").is_none() {
        return Ok(());
    }
    let real = claude_bin()?;

    let api = ModelApi::turns([Reply::text(HELLO.1)])?;
    let options = api.options(Options::default().cwd(api.home()));
    let options = child::record_options(options, Path::new(BINARY), &real, &cassette("hello"));
    let mut claude = Claude::builder(options).spawn().await?;
    assert_eq!(claude.ask(HELLO.0).await?.text(), Some(HELLO.1));
    claude.close().await?;

    let api = ModelApi::turns([
        Reply::tool_use("Bash", json!({"command": "echo recorded"})),
        Reply::text("It printed recorded."),
    ])?;
    let options = api.options(Options::default().cwd(api.home()));
    let options = child::record_options(
        options,
        Path::new(BINARY),
        &real,
        &cassette("permission_allowed"),
    );
    let mut claude = Claude::builder(options)
        .on_permission(async |_| PermissionResult::allow())
        .spawn()
        .await?;
    let turn = claude.ask("Run echo").await?;
    assert_eq!(turn.text(), Some("It printed recorded."));
    claude.close().await?;
    Ok(())
}

/// The recorded single turn, served in process: the program that asks
/// what was asked in the recording gets the recorded answer, and the
/// replay's verdict is a pass.
#[tokio::test]
async fn a_recorded_turn_replays_in_process() -> Result {
    let replay = Replay::open(cassette("hello"), ReplayOptions::default())?;
    let builder = Claude::builder(Options::default());
    let (mut claude, run) =
        claude_proto_testkit::tokio::connect_steps(builder, replay, Settings::replay())?;
    let turn = claude.ask(HELLO.0).await?;
    assert!(!turn.is_error(), "{turn:?}");
    claude.close().await?;
    run.finish().await?;
    Ok(())
}

/// One recording gives the same outcome every time: 100 replays in a row.
#[tokio::test]
async fn a_hundred_replays_give_the_same_outcome() -> Result {
    let mut texts = Vec::new();
    for _ in 0..100 {
        let replay = Replay::open(cassette("hello"), ReplayOptions::default())?;
        let builder = Claude::builder(Options::default());
        let (mut claude, run) =
            claude_proto_testkit::tokio::connect_steps(builder, replay, Settings::replay())?;
        let turn = claude.ask(HELLO.0).await?;
        texts.push(turn.text().map(str::to_owned));
        claude.close().await?;
        run.finish().await?;
    }
    assert!(texts[0].is_some());
    assert!(texts.iter().all(|t| *t == texts[0]), "{texts:?}");
    Ok(())
}

/// A program that asks something else fails the replay, naming the
/// cassette line it was held against and the first difference.
#[tokio::test]
async fn a_different_prompt_fails_naming_the_recorded_line() -> Result {
    let replay = Replay::open(cassette("hello"), ReplayOptions::default())?;
    let builder = Claude::builder(Options::default());
    let (claude, run) =
        claude_proto_testkit::tokio::connect_steps(builder, replay, Settings::replay())?;
    claude.send_text("Say goodbye").await?;
    let failure = run.finish().await.expect_err("a different prompt");
    drop(claude);
    assert!(
        matches!(failure.kind, FailureKind::Mismatch { .. }),
        "{failure}"
    );
    let text = failure.to_string();
    assert!(text.contains("cassette line"), "{text}");
    assert!(text.contains("Say hello"), "{text}");
    assert!(text.contains("Say goodbye"), "{text}");
    Ok(())
}

/// The same recording replayed by the binary through `spawn`, at
/// recorded speed.
#[tokio::test]
async fn a_recorded_turn_replays_through_spawn() -> Result {
    let options = claude_proto_testkit::child::replay_options(
        Options::default(),
        Path::new(BINARY),
        &cassette("hello"),
        &ReplayOptions {
            speed: Speed::Recorded,
            require_cli_version: Some("2.1.330".into()),
            ..Default::default()
        },
    );
    let mut claude = Claude::builder(options).spawn().await?;
    let turn = claude.ask(HELLO.0).await?;
    assert!(!turn.is_error(), "{turn:?}");
    let exit = claude.close().await?;
    assert_eq!(exit.and_then(|e| e.code), Some(0));
    Ok(())
}

/// A cassette from another CLI version is refused by the binary, which
/// names the version on its stderr and exits with the failure code.
#[tokio::test]
async fn a_cassette_of_another_cli_version_is_refused_through_spawn() -> Result {
    let options = claude_proto_testkit::child::replay_options(
        Options::default(),
        Path::new(BINARY),
        &cassette("hello"),
        &ReplayOptions {
            speed: Speed::AsFastAsPossible,
            require_cli_version: Some("9.9.9".into()),
            ..Default::default()
        },
    );
    let mut claude = Claude::builder(options).spawn().await?;
    let failed = claude.ask(HELLO.0).await;
    assert!(failed.is_err(), "{failed:?}");
    let exit = claude.close().await;
    let text = format!("{exit:?}");
    assert!(text.contains(&FAILURE_EXIT_CODE.to_string()), "{text}");
    Ok(())
}
