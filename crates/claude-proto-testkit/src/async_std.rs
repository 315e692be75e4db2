//! The scripted CLI for an async-std or smol session, in one call (feature
//! `async-std`; the session's runtime is whichever its builder has).

use std::io;

use claude_proto_async_std::{Claude, ClaudeBuilder, SpawnError};

use crate::engine::Settings;
use crate::run::{ProgramEnds, ScriptRun, Stream};
use crate::script::Script;
use crate::step::Steps;

/// A stream between the program and the scripted CLI, on the async-io
/// reactor (which async-std and smol share).
pub type AsyncStream = async_io::Async<Stream>;

/// Starts `script` in process and connects a session built by `builder`
/// to it: the session as the program under test, and the run whose
/// outcome the test checks (`run.finish().await`) once the session is
/// closed.
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
    let (reader, writer) = streams(ends)?;
    let claude = builder.connect(reader, writer)?;
    Ok((claude, run))
}

/// The program's ends as async-io streams (reader, writer), for a
/// `connect` of your own.
pub fn streams(ends: ProgramEnds) -> io::Result<(AsyncStream, AsyncStream)> {
    Ok((
        async_io::Async::new(ends.reader)?,
        async_io::Async::new(ends.writer)?,
    ))
}
