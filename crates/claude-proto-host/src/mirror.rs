//! The transcript mirror: the `transcript_mirror` lines of a CLI started
//! with `--session-mirror`, batched and appended to a session store in
//! order, with retries and deadlines, off the protocol's path.
//!
//! The host decides everything here (when a batch goes out, what to retry,
//! when to give up, how much may wait); the adapter only calls the store's
//! `append` for each [`MirrorAppend`] and reports how it went with
//! [`Host::handle_mirror_done`](crate::Host::handle_mirror_done). A slow or
//! failing store never holds up control traffic or events: what cannot be
//! stored becomes an [`Event::MirrorFailed`](crate::Event::MirrorFailed),
//! and the CLI's own transcript on disk keeps everything.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::{Duration, Instant};

use claude_proto::transcript::{Entry, MirrorFrame, SessionKey};

use crate::limits::deadline;

/// How a session mirrors its transcript to a store.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct MirrorConfig {
    /// The `projects` directory the CLI writes under (its config directory
    /// joined with `projects`): the `filePath` of each mirrored line is
    /// read relative to it to find the [`SessionKey`].
    pub projects_dir: String,
    /// Append after every mirrored line instead of once per turn (at each
    /// `result`) or when a batch grows past its bounds. Lines still go out
    /// in order, one append at a time.
    pub eager: bool,
    /// A batch goes out early once it holds more entries than this
    /// (default 500, as the official SDKs).
    pub batch_entries: usize,
    /// A batch goes out early once it holds more bytes than this (default
    /// 1 MiB, as the official SDKs).
    pub batch_bytes: usize,
    /// How long one append may take (default 60 s). One that takes longer
    /// is abandoned and not retried: it may still land, and a retry could
    /// write the batch twice.
    pub append_timeout: Duration,
    /// The waits before the second, third... attempt of a failed append
    /// (default 200 ms then 800 ms: three attempts, as the official SDKs).
    pub retry_backoff: Vec<Duration>,
    /// The most bytes of mirrored lines held at once, waiting or being
    /// appended (default 64 MiB). A line that would exceed it is not
    /// mirrored and reported, so a store that is down cannot grow memory
    /// without bound.
    pub max_buffered_bytes: usize,
}

impl MirrorConfig {
    /// The defaults, for a CLI writing under `projects_dir`.
    pub fn new(projects_dir: impl Into<String>) -> Self {
        Self {
            projects_dir: projects_dir.into(),
            eager: false,
            batch_entries: 500,
            batch_bytes: 1 << 20,
            append_timeout: Duration::from_secs(60),
            retry_backoff: vec![Duration::from_millis(200), Duration::from_millis(800)],
            max_buffered_bytes: 64 << 20,
        }
    }
}

/// Identifies one append attempt, to match its outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MirrorId(u64);

/// Append `entries` to the store at `key`, then report the outcome with
/// [`Host::handle_mirror_done`](crate::Host::handle_mirror_done). Only one
/// append is out at a time, so a store sees each transcript's lines in
/// order.
#[derive(Debug)]
#[must_use = "the mirror waits until the append's outcome is handed back to the host"]
#[non_exhaustive]
pub struct MirrorAppend {
    /// Which attempt this is.
    pub id: MirrorId,
    /// Where the entries go.
    pub key: SessionKey,
    /// The transcript lines, as the CLI wrote them (shared with the
    /// mirror, which keeps them for a retry).
    pub entries: Arc<[Entry]>,
}

/// Lines that did not reach the store: reported as
/// [`Event::MirrorFailed`](crate::Event::MirrorFailed). The CLI's own
/// transcript on disk still has them (import it into the store to catch
/// up).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct MirrorFailure {
    /// The transcript they belong to, if their path named one.
    pub key: Option<SessionKey>,
    /// How many lines were not stored.
    pub entries: usize,
    /// Why.
    pub error: String,
}

/// What the mirror asks of the host.
#[derive(Debug)]
pub(crate) enum MirrorOutput {
    Append(MirrorAppend),
    Abort(MirrorId),
    Failed(MirrorFailure),
}

/// Frames for one key received since the last flush.
#[derive(Debug)]
struct Pending {
    key: SessionKey,
    entries: Vec<Entry>,
    bytes: usize,
}

/// A batch for one key, in the order it must be appended.
#[derive(Debug)]
struct Batch {
    key: SessionKey,
    entries: Arc<[Entry]>,
    bytes: usize,
    /// The frames received up to this batch's flush are settled once it is
    /// (the last batch of each flush carries the mark).
    settles: Option<u64>,
}

#[derive(Debug)]
struct InFlight {
    id: MirrorId,
    batch: Batch,
    attempt: usize,
    deadline: Instant,
}

#[derive(Debug)]
pub(crate) struct Mirror {
    config: MirrorConfig,
    /// Frames received since the last flush, by key in first-seen order.
    pending: Vec<Pending>,
    pending_entries: usize,
    /// Batches flushed, waiting their turn.
    queue: VecDeque<Batch>,
    in_flight: Option<InFlight>,
    /// A failed batch waiting for its next attempt.
    retry: Option<(Instant, Batch, usize)>,
    /// Bytes held in `pending`, `queue`, `in_flight` and `retry`.
    buffered: usize,
    /// Frames received so far.
    received: u64,
    /// Every frame up to this one is stored or reported.
    settled: u64,
    next_id: u64,
    outputs: VecDeque<MirrorOutput>,
}

impl Mirror {
    pub(crate) fn new(config: MirrorConfig) -> Self {
        Self {
            config,
            pending: Vec::new(),
            pending_entries: 0,
            queue: VecDeque::new(),
            in_flight: None,
            retry: None,
            buffered: 0,
            received: 0,
            settled: 0,
            next_id: 0,
            outputs: VecDeque::new(),
        }
    }

    /// A `transcript_mirror` line from the CLI.
    pub(crate) fn handle_line(&mut self, line: &[u8], now: Instant) {
        self.received += 1;
        let frame = match MirrorFrame::parse(line) {
            Ok(frame) => frame,
            Err(error) => return self.drop_frame(None, 0, error.to_string()),
        };
        if frame.entries.is_empty() {
            return self.settle_if_idle();
        }
        let key = match SessionKey::from_file_path(&frame.file_path, &self.config.projects_dir) {
            Ok(key) => key,
            Err(error) => {
                let error = format!(
                    "{error} (the CLI's config directory is not the one the mirror was set up for)"
                );
                return self.drop_frame(None, frame.entries.len(), error);
            }
        };
        let bytes = line.len();
        if self.buffered.saturating_add(bytes) > self.config.max_buffered_bytes {
            let error = format!(
                "the mirror already holds {} bytes waiting for the store (the bound is {})",
                self.buffered, self.config.max_buffered_bytes
            );
            return self.drop_frame(Some(key), frame.entries.len(), error);
        }
        self.buffered += bytes;
        self.pending_entries += frame.entries.len();
        match self.pending.iter_mut().find(|b| b.key == key) {
            Some(batch) => {
                batch.entries.extend(frame.entries);
                batch.bytes += bytes;
            }
            None => self.pending.push(Pending {
                key,
                entries: frame.entries,
                bytes,
            }),
        }
        let pending_bytes: usize = self.pending.iter().map(|b| b.bytes).sum();
        if self.config.eager
            || self.pending_entries > self.config.batch_entries
            || pending_bytes > self.config.batch_bytes
        {
            self.flush(now);
        }
    }

    /// Sends what was received so far (at a turn's end, on request, at the
    /// session's end); returns the mark [`settled`](Self::settled) reaches
    /// once it is stored or reported.
    pub(crate) fn flush(&mut self, now: Instant) -> u64 {
        let pending = std::mem::take(&mut self.pending);
        self.pending_entries = 0;
        let count = pending.len();
        for (i, p) in pending.into_iter().enumerate() {
            self.queue.push_back(Batch {
                key: p.key,
                entries: p.entries.into(),
                bytes: p.bytes,
                settles: (i + 1 == count).then_some(self.received),
            });
        }
        self.start_next(now);
        self.settle_if_idle();
        self.received
    }

    /// Every frame up to this count is stored or reported.
    pub(crate) fn settled(&self) -> u64 {
        self.settled
    }

    /// `true` when nothing waits to be stored.
    pub(crate) fn is_idle(&self) -> bool {
        self.pending.is_empty()
            && self.queue.is_empty()
            && self.in_flight.is_none()
            && self.retry.is_none()
    }

    /// The append `id` finished.
    pub(crate) fn handle_done(&mut self, id: MirrorId, result: Result<(), String>, now: Instant) {
        let Some(in_flight) = self.in_flight.take_if(|f| f.id == id) else {
            // Abandoned at its deadline: its outcome no longer matters.
            return;
        };
        match result {
            Ok(()) => self.finish(in_flight.batch),
            Err(error) => match self.config.retry_backoff.get(in_flight.attempt - 1) {
                Some(wait) => {
                    let at = deadline(now, *wait);
                    self.retry = Some((at, in_flight.batch, in_flight.attempt + 1));
                }
                None => {
                    let attempts = in_flight.attempt;
                    self.fail(
                        in_flight.batch,
                        format!("{error} (after {attempts} attempts)"),
                    );
                }
            },
        }
        self.start_next(now);
    }

    /// Abandons an append past its deadline, sends a retry that is due.
    pub(crate) fn handle_timeout(&mut self, now: Instant) {
        if let Some(in_flight) = self.in_flight.take_if(|f| now >= f.deadline) {
            self.outputs.push_back(MirrorOutput::Abort(in_flight.id));
            let error = format!(
                "the store's append did not finish within {:?}; not retried, as it may still land",
                self.config.append_timeout
            );
            self.fail(in_flight.batch, error);
        }
        if self.retry.as_ref().is_some_and(|(at, _, _)| now >= *at) {
            if let Some((_, batch, attempt)) = self.retry.take() {
                self.send(batch, attempt, now);
            }
        }
        self.start_next(now);
    }

    /// When the mirror must be woken.
    pub(crate) fn poll_timeout(&self) -> Option<Instant> {
        let in_flight = self.in_flight.as_ref().map(|f| f.deadline);
        let retry = self.retry.as_ref().map(|(at, _, _)| *at);
        in_flight.into_iter().chain(retry).min()
    }

    pub(crate) fn poll_output(&mut self) -> Option<MirrorOutput> {
        self.outputs.pop_front()
    }

    fn start_next(&mut self, now: Instant) {
        if self.in_flight.is_some() || self.retry.is_some() {
            return;
        }
        if let Some(batch) = self.queue.pop_front() {
            self.send(batch, 1, now);
        }
    }

    fn send(&mut self, batch: Batch, attempt: usize, now: Instant) {
        let id = MirrorId(self.next_id);
        self.next_id += 1;
        self.outputs.push_back(MirrorOutput::Append(MirrorAppend {
            id,
            key: batch.key.clone(),
            entries: Arc::clone(&batch.entries),
        }));
        self.in_flight = Some(InFlight {
            id,
            batch,
            attempt,
            deadline: deadline(now, self.config.append_timeout),
        });
    }

    fn finish(&mut self, batch: Batch) {
        self.buffered -= batch.bytes;
        if let Some(mark) = batch.settles {
            self.settled = self.settled.max(mark);
        }
        self.settle_if_idle();
    }

    fn fail(&mut self, batch: Batch, error: String) {
        self.outputs.push_back(MirrorOutput::Failed(MirrorFailure {
            key: Some(batch.key.clone()),
            entries: batch.entries.len(),
            error,
        }));
        self.finish(batch);
    }

    fn drop_frame(&mut self, key: Option<SessionKey>, entries: usize, error: String) {
        self.outputs.push_back(MirrorOutput::Failed(MirrorFailure {
            key,
            entries,
            error,
        }));
        self.settle_if_idle();
    }

    /// With nothing waiting, every frame received is settled.
    fn settle_if_idle(&mut self) {
        if self.is_idle() {
            self.settled = self.received;
        }
    }
}
