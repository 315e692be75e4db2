//! The session's transcript, kept as the real CLI keeps it: one JSON entry
//! per prompt and per answer, chained by `parentUuid`, and with
//! `--session-mirror` also sent to the program as `transcript_mirror`.
//!
//! The simulation only makes the entries; the child runner, which knows
//! the process's directories and arguments, reads the history of a resumed
//! session and appends the entries to the file.

use serde_json::{Value, json};

use super::simulation::Simulation;
use super::wire;

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

impl Simulation {
    /// Keeps the session's transcript from now on, under `facts`'s id.
    pub(crate) fn keep_transcript(&mut self, facts: SessionFacts) {
        self.ids.session_id.clone_from(&facts.session_id);
        self.transcript = Some(Transcript::new(facts));
    }

    /// The entries made since the last call, for the runner to append.
    pub(crate) fn take_transcript(&mut self) -> Vec<Value> {
        self.transcript
            .as_mut()
            .map(|t| std::mem::take(&mut t.pending))
            .unwrap_or_default()
    }

    /// The history a resumed session has, once: at its first turn it says
    /// how many entries it remembers (`"history: N lines"`).
    pub(crate) fn history_to_tell(&mut self) -> Option<usize> {
        let transcript = self.transcript.as_mut()?;
        if transcript.told {
            return None;
        }
        transcript.told = true;
        (transcript.facts.history > 0).then_some(transcript.facts.history)
    }

    /// Adds `entry` (a `user` or `assistant` entry) to the transcript,
    /// chained to the last one; with the mirror on, also sends it.
    pub(crate) fn record(&mut self, mut entry: Value) {
        let Some(transcript) = self.transcript.as_mut() else {
            return;
        };
        let uuid = self.ids.uuid();
        let at = self.now.saturating_duration_since(self.start);
        if let Some(map) = entry.as_object_mut() {
            map.insert("uuid".into(), json!(uuid));
            map.insert("parentUuid".into(), json!(transcript.last_uuid));
            map.insert("sessionId".into(), json!(transcript.facts.session_id));
            map.insert("timestamp".into(), json!(wire::timestamp(at)));
            map.insert("cwd".into(), json!(transcript.facts.cwd));
        }
        transcript.last_uuid = Some(uuid);
        transcript.pending.push(entry.clone());
        if transcript.facts.mirror {
            let frame = json!({"type": "transcript_mirror", "filePath": transcript.facts.file,
                               "entries": [entry]});
            self.emit_line(&frame);
        }
    }
}
