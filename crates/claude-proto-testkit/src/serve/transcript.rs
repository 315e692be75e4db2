//! The session's transcript, kept as the real CLI keeps it: one JSON entry
//! per prompt and per answer, chained by `parentUuid`, and with
//! `--session-mirror` also sent to the program as `transcript_mirror`.
//!
//! The simulation makes the entries; the child runner, which knows
//! the process's directories and arguments, reads the history of a resumed
//! session and appends the entries to the file.

use serde_json::{Value, json};

/// Where the session's transcript lives and how it began, as the child
/// runner found them.
#[derive(Clone, Debug)]
pub(crate) struct SessionFacts {
    /// The session id: the one resumed, or a new one.
    pub(crate) session_id: String,
    /// The transcript file (`<config>/projects/<project key>/<id>.jsonl`).
    pub(crate) file: String,
    /// The working directory the entries name.
    pub(crate) cwd: String,
    /// Entries the file held at start (a resumed session's history).
    pub(crate) history: usize,
    /// `--session-mirror`: each entry is also sent as `transcript_mirror`.
    pub(crate) mirror: bool,
}

/// The transcript being kept.
pub(crate) struct Transcript {
    pub(crate) facts: SessionFacts,
    last_uuid: Option<String>,
    /// Entries not yet taken by the runner.
    pending: Vec<Value>,
    /// Whether the history was told (at the first turn).
    told: bool,
}

impl Transcript {
    pub(crate) fn new(facts: SessionFacts) -> Self {
        Transcript {
            facts,
            last_uuid: None,
            pending: Vec::new(),
            told: false,
        }
    }
}

impl Transcript {
    /// Takes the entries made since the last call.
    pub(crate) fn take(&mut self) -> Vec<Value> {
        std::mem::take(&mut self.pending)
    }

    /// The history a resumed session has, once: `Some(entries)` the first
    /// time it is asked, if there are any.
    pub(crate) fn history_to_tell(&mut self) -> Option<usize> {
        if self.told {
            return None;
        }
        self.told = true;
        (self.facts.history > 0).then_some(self.facts.history)
    }

    /// Adds `entry` (a `user` or `assistant` entry) under `uuid`, chained
    /// to the last one; returns the `transcript_mirror` line to send when
    /// the mirror is on.
    pub(crate) fn record(
        &mut self,
        mut entry: Value,
        uuid: String,
        timestamp: String,
    ) -> Option<Value> {
        if let Some(map) = entry.as_object_mut() {
            map.insert("uuid".into(), json!(uuid));
            map.insert("parentUuid".into(), json!(self.last_uuid));
            map.insert("sessionId".into(), json!(self.facts.session_id));
            map.insert("timestamp".into(), json!(timestamp));
            map.insert("cwd".into(), json!(self.facts.cwd));
        }
        self.last_uuid = Some(uuid);
        self.pending.push(entry.clone());
        self.facts.mirror.then(|| {
            json!({"type": "transcript_mirror", "filePath": self.facts.file, "entries": [entry]})
        })
    }
}
