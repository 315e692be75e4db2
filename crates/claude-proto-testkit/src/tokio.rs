//! The scripted CLI for a tokio session, in one call (feature `tokio`).

use claude_proto_tokio::{Claude, ClaudeBuilder, SpawnError};

use crate::engine::Settings;
use crate::run::ScriptRun;
use crate::script::Script;
use crate::step::Steps;

/// Starts `script` in process and connects a session built by `builder`
/// to it: the session as the program under test, and the run whose
/// outcome the test checks (`run.finish().await`) once the session is
/// closed.
///
/// Call it inside a tokio runtime (`#[tokio::test]`); outside one it
/// fails as the builder's `connect` does.
pub fn connect(builder: ClaudeBuilder, script: Script) -> Result<(Claude, ScriptRun), SpawnError> {
    let (steps, settings) = script.into_parts();
    connect_steps(builder, steps, settings)
}

/// [`connect`] for any source of steps (a cassette replay) and its
/// settings.
pub fn connect_steps(
    builder: ClaudeBuilder,
    steps: impl Steps + Send + 'static,
    settings: Settings,
) -> Result<(Claude, ScriptRun), SpawnError> {
    let (ends, run) = ScriptRun::start(steps, settings)?;
    let claude = builder.connect(ends.reader, ends.writer)?;
    Ok((claude, run))
}
