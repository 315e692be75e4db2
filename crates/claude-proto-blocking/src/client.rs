//! The handle users hold: read events and turns, close the session; the
//! control calls are its [`Controller`]'s.

use std::ops::Deref;
use std::thread::JoinHandle;
use std::time::Duration;

use claude_proto::model::user::UserMessage;
use claude_proto_host::{Error, Event, ExitReport, Turn};

use crate::channels::Input;
use crate::controller::Controller;
use crate::events::{Elapsed, Events};
use crate::parts::Parts;
use crate::turn::TurnStream;

/// A live session with the Claude Code CLI, driven from blocking code.
///
/// Created by [`ClaudeBuilder::spawn`](crate::ClaudeBuilder::spawn) (a `claude` child process) or
/// [`ClaudeBuilder::connect`](crate::ClaudeBuilder::connect) (any reader/writer pair). One driver thread
/// owns the session; this handle hands it commands and reads what it hands
/// back. Each method says what it waits for and for how long at most. None
/// waits on a CLI that stopped reading its stdin: commands are taken at
/// once, and refused ([`Error::Backlog`]) when the unwritten bytes pass
/// their budget.
///
/// Read events with [`next_event`](Self::next_event), the [`Events`]
/// iterator, or a turn at a time with [`query`](Self::query) (a
/// [`TurnStream`]) and [`ask`](Self::ask) (a whole [`Turn`]). The CLI's
/// output is read ahead of you up to
/// [`read_ahead_bytes`](crate::Configure::read_ahead_bytes);
/// beyond that reading pauses, so a slow reader slows the CLI down instead
/// of growing memory. Control traffic (permission prompts, hooks, MCP
/// calls, answers to your control calls) is handled as soon as it is read,
/// never behind events you have not read.
///
/// The control calls (send, interrupt, set_model, the typed `call`, ...)
/// are [`Controller`] methods: `Claude` dereferences to its controller,
/// and [`controller`](Self::controller) gives a cloneable one for other
/// threads, so one thread can read events while another interrupts. The
/// handle itself is `Send` and `Sync` too.
///
/// Dropping the handle closes the session in the background (stdin
/// closed, then SIGTERM, then SIGKILL after the grace periods, and the
/// child reaped). Prefer [`close`](Self::close) to learn how it exited.
#[derive(Debug)]
pub struct Claude {
    controller: Controller,
    parts: Parts,
    events: Events,
    driver: Option<JoinHandle<()>>,
}

impl Claude {
    pub(crate) fn new(parts: Parts, driver: JoinHandle<()>) -> Self {
        Self {
            controller: Controller::new(&parts),
            events: Events::new(parts.handoff.clone(), parts.input.clone()),
            parts,
            driver: Some(driver),
        }
    }

    /// The child's process id (`None` over [`ClaudeBuilder::connect`](crate::ClaudeBuilder::connect)).
    pub fn pid(&self) -> Option<u32> {
        self.parts.pid
    }

    /// The next event, waiting for the CLI to write one; `None` once the
    /// session has ended and every event has been read.
    pub fn next_event(&mut self) -> Option<Event> {
        self.events.next()
    }

    /// The next event, waiting at most `timeout`: `Ok(None)` once the
    /// session has ended and every event has been read, `Err(Elapsed)` if
    /// none came in time.
    pub fn next_event_timeout(&mut self, timeout: Duration) -> Result<Option<Event>, Elapsed> {
        self.events.next_timeout(timeout)
    }

    /// The events, as an iterator (`for event in claude.events()`).
    pub fn events(&mut self) -> &mut Events {
        &mut self.events
    }

    /// A cloneable handle for control calls from other threads while
    /// this one reads the events (see [`Controller`]): interrupt from a
    /// Ctrl-C handler or a watchdog thread, switch the model from a UI
    /// thread, and so on. The session's own control methods are the
    /// controller's (`Claude` dereferences to it).
    pub fn controller(&self) -> Controller {
        self.controller.clone()
    }

    /// Sends `prompt` and returns its turn as an iterator of events,
    /// ending with the turn's `result`; [`TurnStream::finish`] collects it
    /// into a [`Turn`] (or use [`ask`](Self::ask) for that in one call).
    ///
    /// The turn is the one this prompt starts, whatever was read before:
    /// unread events of earlier turns are skipped (and dropped), and a line
    /// the typed model cannot read, or a `result` of an unknown shape,
    /// cannot shift it. Waits only for the driver thread to take the
    /// prompt; if sending fails, nothing was sent.
    ///
    /// A [`TurnStream`] dropped mid-turn leaves the rest of its turn to be
    /// skipped by the next `query`: later turns stay matched.
    pub fn query(&mut self, prompt: impl Into<String>) -> Result<TurnStream<'_>, Error> {
        self.query_message(UserMessage::text(prompt))
    }

    /// [`query`](Self::query) with any user message (images, several
    /// content blocks).
    pub fn query_message(&mut self, message: UserMessage) -> Result<TurnStream<'_>, Error> {
        let turn = self.controller.send_turn(message)?;
        Ok(TurnStream::new(
            &mut self.events,
            &self.parts.shared,
            &self.controller,
            turn,
        ))
    }

    /// Sends `prompt` and returns its whole turn, up to and including its
    /// `result`: `query(prompt)?.finish()`. Waits for the CLI to finish the
    /// turn, or for the session to end (then the error carries the exit
    /// status and stderr); interrupt it from another thread through a
    /// [`Controller`] to cut it short.
    pub fn ask(&mut self, prompt: impl Into<String>) -> Result<Turn, Error> {
        self.query(prompt)?.finish()
    }

    /// The first turn whose `result` you have not read yet, as an
    /// iterator (for prompts sent with [`send`](Controller::send)): its
    /// events from where you are, up to and including that `result`.
    pub fn turn(&mut self) -> TurnStream<'_> {
        let turn = self.events.cursor().next_turn();
        TurnStream::new(&mut self.events, &self.parts.shared, &self.controller, turn)
    }

    /// Collects the first turn whose `result` you have not read yet:
    /// `turn().finish()`; waits as [`ask`](Self::ask) does.
    pub fn receive_turn(&mut self) -> Result<Turn, Error> {
        self.turn().finish()
    }

    /// Closes the session and waits for the end; returns how the CLI exited
    /// (`None` over [`ClaudeBuilder::connect`](crate::ClaudeBuilder::connect)). Unread events are dropped.
    ///
    /// Closes stdin, then sends SIGTERM after the close grace and SIGKILL
    /// after the terminate grace (see
    /// [`ShutdownPolicy`](claude_proto_adapter::ShutdownPolicy)), then
    /// reads what is left in the pipes for at most
    /// [`Limits::drain_after_exit`](claude_proto_host::Limits::drain_after_exit).
    /// So it returns within the sum of those three (plus the time a killed
    /// process takes to go), even if the CLI stopped reading, or a
    /// grandchild holds its pipes. Over `connect` it returns once the
    /// peer's output ends, or after the close grace. When it returns, every
    /// thread of a spawned session has ended except handler threads still
    /// running your closures (their [`CancelToken`](crate::CancelToken)s
    /// are cancelled) and the stderr callback, which it waits for.
    ///
    /// It fails only if the session's driver thread panicked (a bug); the
    /// CLI is killed and reaped all the same.
    pub fn close(mut self) -> Result<Option<ExitReport>, Error> {
        self.shut_down();
        if let Some(driver) = self.driver.take() {
            if driver.join().is_err() {
                return Err(self.parts.shared.ended_error());
            }
        }
        Ok(self
            .parts
            .shared
            .ended()
            .and_then(|ended| ended.report().cloned()))
    }

    /// Stops reading events and starts the close sequence. The input
    /// channel is emptied continuously by the driver, whatever the CLI
    /// does, so this never waits behind a CLI that stopped reading.
    fn shut_down(&mut self) {
        self.parts.handoff.close();
        let _ = self.parts.input.send(Input::Close);
    }
}

impl Deref for Claude {
    type Target = Controller;

    /// The session's controller: every control call.
    fn deref(&self) -> &Controller {
        &self.controller
    }
}

impl Drop for Claude {
    fn drop(&mut self) {
        if self.driver.is_some() {
            self.shut_down();
        }
    }
}
