//! A recorded session's child: the CLI spawned from a [`RealSpec`] the way
//! an adapter's `spawn` would, for the adapter to `connect` to through a
//! tee that copies both ways into a [`Transcript`]. The blocking tee is
//! here ([`TeeRead`], [`TeeWrite`]); async adapters wrap the pipes in their
//! own reactor's types and tee them with their own I/O traits.

use std::io::{self, Read, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command};
use std::sync::mpsc;
use std::thread::JoinHandle;

use claude_proto_host::{ExitReport, SpawnError};
use claude_proto_process::{build_command, process_exit};

use super::{RealSpec, Transcript, WAIT};

/// The CLI behind a recorded session: its stderr is drained on a thread of
/// its own, its exit waited for at close. Dropped, it kills the CLI.
#[derive(Debug)]
pub struct TeedChild {
    child: Child,
    stderr: Option<JoinHandle<String>>,
    /// The files the CLI's arguments point at, kept while it runs.
    _private_files: Option<claude_proto_process::PrivateDir>,
}

impl TeedChild {
    /// Spawns the CLI from `spec.options` (with the stdio permission prompt
    /// when the spec has a permission handler, as the adapters' `spawn`
    /// adds it), and hands over its stdin and stdout.
    pub fn spawn(spec: &RealSpec) -> Result<(Self, ChildStdin, ChildStdout), SpawnError> {
        let mut options = spec.options.clone();
        if spec.permission.is_some() {
            options = options.permission_prompt_stdio(true);
        }
        let launch = build_command(&options)?;
        let (program, mut command) = (launch.program, launch.command);
        let mut child = command
            .spawn()
            .map_err(|source| SpawnError::Spawn { program, source })?;
        let missing = || SpawnError::Io(io::Error::other("the CLI's stdio is not piped"));
        let stdin = child.stdin.take().ok_or_else(missing)?;
        let stdout = child.stdout.take().ok_or_else(missing)?;
        let mut stderr = child.stderr.take().ok_or_else(missing)?;
        let stderr = std::thread::spawn(move || {
            let mut text = Vec::new();
            let _ = stderr.read_to_end(&mut text);
            String::from_utf8_lossy(&text).into_owned()
        });
        let teed = Self {
            child,
            stderr: Some(stderr),
            _private_files: launch.private_files,
        };
        Ok((teed, stdin, stdout))
    }

    /// The CLI's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Waits for the CLI to exit (after the adapter closed its stdin) and
    /// reports it; kills it and panics if it is still running after
    /// [`WAIT`].
    pub fn wait(mut self) -> io::Result<ExitReport> {
        let pid = self.child.id();
        let child = &mut self.child;
        let status = std::thread::scope(|scope| {
            let (tx, rx) = mpsc::channel();
            scope.spawn(move || tx.send(child.wait()));
            rx.recv_timeout(WAIT).unwrap_or_else(|_| {
                let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
                panic!("the CLI did not exit within {WAIT:?} after its stdin closed");
            })
        })?;
        let stderr = self
            .stderr
            .take()
            .and_then(|t| t.join().ok())
            .unwrap_or_default();
        let exit = process_exit(status);
        Ok(ExitReport::new(exit.code, exit.signal, stderr))
    }
}

impl Drop for TeedChild {
    fn drop(&mut self) {
        if self.stderr.is_some() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// The CLI's stdout, copied into the transcript as it is read.
#[derive(Debug)]
pub struct TeeRead<R> {
    /// The CLI's stdout.
    pub inner: R,
    /// Where it is copied.
    pub transcript: Transcript,
}

impl<R: Read> Read for TeeRead<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.transcript.cli_wrote(&buf[..n]);
        Ok(n)
    }
}

/// The CLI's stdin, copied into the transcript as it is written.
#[derive(Debug)]
pub struct TeeWrite<W> {
    /// The CLI's stdin.
    pub inner: W,
    /// Where it is copied.
    pub transcript: Transcript,
}

impl<W: Write> Write for TeeWrite<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.transcript.host_wrote(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}
