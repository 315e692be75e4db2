//! The threads that move bytes between the CLI's pipes and the driver.
//!
//! Each blocks in one place: its pipe (in `poll(2)` for a spawned CLI, so
//! the driver can end it with a [`Stop`](claude_proto_process::Stop); in
//! `read`/`write` for a [`connect`](crate::ClaudeBuilder::connect)ed
//! stream), or the driver's go-ahead. None of them ever waits on the user
//! or on another of them.

use std::io::{ErrorKind, Read, Write};
use std::sync::mpsc::{Receiver, SyncSender};

use claude_proto_process::StderrLines;

use crate::channels::{Input, WriteOp};

/// Bytes read from stdout at a time.
pub(crate) const READ_CHUNK: usize = 64 * 1024;

/// Buffers the stdout reader owns: it fills one while the driver decodes
/// the other, so reading and decoding overlap, and at most this many
/// chunks are read beyond what the host asked for.
pub(crate) const STDOUT_BUFFERS: usize = 2;

/// Bytes read from stderr at a time.
const STDERR_CHUNK: usize = 8 * 1024;

fn read_some(reader: &mut impl Read, buf: &mut [u8]) -> usize {
    loop {
        match reader.read(buf) {
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            // An error ends the stream as its end does.
            result => return result.unwrap_or(0),
        }
    }
}

/// Reads stdout a chunk at a time. The next read waits for a buffer back
/// from the driver, which gives them back only while the host wants
/// stdout: that is the backpressure.
pub(crate) fn read_stdout(
    mut reader: impl Read,
    input: SyncSender<Input>,
    back: Receiver<Vec<u8>>,
) {
    let mut spare: Vec<Vec<u8>> = (0..STDOUT_BUFFERS).map(|_| vec![0; READ_CHUNK]).collect();
    loop {
        let mut buf = match spare.pop() {
            Some(buf) => buf,
            // Gone: the driver stopped reading or ended.
            None => match back.recv() {
                Ok(buf) => buf,
                Err(_) => return,
            },
        };
        let len = read_some(&mut reader, &mut buf);
        if len == 0 {
            break;
        }
        if input.send(Input::Stdout(buf, len)).is_err() {
            return;
        }
    }
    let _ = input.send(Input::StdoutEnd);
}

/// Reads stderr as fast as it comes (a full stderr pipe stalls the CLI),
/// feeding the user's callback here, so a slow callback holds up this
/// thread only, and the bytes to the driver for the exit report's tail.
pub(crate) fn read_stderr(mut reader: impl Read, input: SyncSender<Input>, mut lines: StderrLines) {
    let mut buf = vec![0; STDERR_CHUNK];
    loop {
        let len = read_some(&mut reader, &mut buf);
        if len == 0 {
            break;
        }
        lines.push(&buf[..len]);
        if input.send(Input::Stderr(buf[..len].to_vec())).is_err() {
            return;
        }
    }
    lines.finish();
    let _ = input.send(Input::StderrEnd);
}

/// Writes, flushes and closes stdin as the driver orders, one order at a
/// time. A CLI that stops reading blocks this thread only.
pub(crate) fn write_stdin(
    mut writer: impl Write,
    orders: Receiver<WriteOp>,
    input: SyncSender<Input>,
) {
    for order in orders {
        let done = match order {
            WriteOp::Write(buf) => {
                let result = writer.write_all(&buf);
                Input::Written(buf, result)
            }
            WriteOp::Flush => Input::Flushed(writer.flush()),
            WriteOp::Close => {
                // Dropping the pipe is what closes it.
                drop(writer);
                let _ = input.send(Input::StdinClosed);
                return;
            }
        };
        if input.send(done).is_err() {
            return;
        }
    }
}
