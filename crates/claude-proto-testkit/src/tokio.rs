//! The scripted CLI for a tokio session, in one call (feature `tokio`).

use std::io;

use claude_proto_tokio::{Claude, ClaudeBuilder, SpawnError};

use crate::engine::Settings;
use crate::run::{ProgramEnds, ScriptRun};
use crate::script::Script;
use crate::step::Steps;

/// A tokio stream between the program and the scripted CLI.
#[cfg(unix)]
pub type TokioStream = ::tokio::net::UnixStream;
/// A tokio stream between the program and the scripted CLI.
#[cfg(not(unix))]
pub type TokioStream = ::tokio::net::TcpStream;

/// Starts `script` in process and connects a session built by `builder`
/// to it: the session as the program under test, and the run whose
/// outcome the test checks (`run.finish().await`) once the session is
/// closed.
///
/// Call it inside a tokio runtime with IO enabled (`#[tokio::test]`);
/// outside one it fails with [`SpawnError::Io`].
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
    ::tokio::runtime::Handle::try_current()
        .map_err(|e| io::Error::other(format!("the scripted CLI needs a tokio runtime: {e}")))?;
    let (ends, run) = ScriptRun::start(steps, settings)?;
    let (reader, writer) = streams(ends)?;
    let claude = builder.connect(reader, writer)?;
    Ok((claude, run))
}

/// The program's ends as tokio streams (reader, writer), for a
/// `connect` of your own. Call it inside a tokio runtime with IO enabled.
pub fn streams(ends: ProgramEnds) -> io::Result<(TokioStream, TokioStream)> {
    ends.reader.set_nonblocking(true)?;
    ends.writer.set_nonblocking(true)?;
    Ok((
        TokioStream::from_std(ends.reader)?,
        TokioStream::from_std(ends.writer)?,
    ))
}
