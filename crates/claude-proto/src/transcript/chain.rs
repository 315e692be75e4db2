//! A transcript's conversation: which of its lines make the thread the
//! user sees, in order. The CLI links each entry to its parent by uuid;
//! the thread is the walk from the newest leaf of the main conversation
//! back to the root, with the tool calls and results of parallel tool use
//! that the walk leaves aside put back after their response.
//!
//! [`TranscriptIndex`] keeps only each line's links and flags (see
//! `probe`), so the thread of a huge transcript is found in memory
//! proportional to its number of lines, not its size; the lines
//! themselves are read again by position.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::probe::Probe;

/// Where the caller found a line, handed back by the thread: a byte
/// offset and length in a file, or an index in a list of entries (with
/// `len` whatever the caller likes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Span {
    /// The line's offset (or index).
    pub start: u64,
    /// The line's length in bytes.
    pub len: u64,
}

/// A line's links and flags, read from its bytes (the costly part of
/// indexing, and independent of every other line, so it may run on
/// several threads): hand it to [`TranscriptIndex::handle_read`].
#[derive(Debug)]
pub struct ReadLine(Read);

#[derive(Debug)]
enum Read {
    Blank,
    NotJson,
    Probe(Box<Probe>),
}

impl ReadLine {
    /// Reads `line` (without its newline).
    pub fn of(line: &[u8]) -> Self {
        if line.iter().all(u8::is_ascii_whitespace) {
            return Self(Read::Blank);
        }
        #[cfg(fuzzing)]
        super::fast_probe::check_probe(line);
        // One scan that checks the encoding too, for the easy lines.
        if let Some(probe) = super::fast_probe::probe(line) {
            return Self(Read::Probe(Box::new(probe)));
        }
        // serde_json skips the strings it ignores without checking their
        // UTF-8; a line the messages could not be read from must not take
        // part in the thread either.
        if std::str::from_utf8(line).is_err() {
            return Self(Read::NotJson);
        }
        Self(Probe::slowly(line).map_or(Read::NotJson, |p| Read::Probe(Box::new(p))))
    }
}

/// The kinds of line that take part in the conversation's links.
const CHAIN_KINDS: [&str; 5] = ["user", "assistant", "progress", "system", "attachment"];

#[derive(Debug)]
struct Node {
    span: Span,
    uuid: Box<str>,
    parent: Option<Box<str>>,
    kind: Kind,
    sidechain: bool,
    meta: bool,
    team: bool,
    agent_id: Option<Value>,
    timestamp: Box<str>,
    source_tool_assistant: Option<Box<str>>,
    /// `message.id` of an assistant entry.
    message_id: Option<Box<str>>,
    /// Ids of `tool_use` blocks (assistant) or `tool_use_id`s of
    /// `tool_result` blocks (user).
    tool_ids: Box<[Box<str>]>,
    /// A user entry with a parent and a `tool_result` block.
    is_tool_result: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    User,
    Assistant,
    Progress,
    Other,
}

impl Kind {
    fn is_message(self) -> bool {
        matches!(self, Kind::User | Kind::Assistant)
    }
}

/// The links and flags of every conversation line of one transcript, fed
/// line by line, and the thread they make.
///
/// Lines that are not JSON objects, or not conversation entries with a
/// uuid (titles, tags, summaries, mode changes), are not kept; lines that
/// are not JSON are counted in [`skipped_lines`](Self::skipped_lines).
#[derive(Debug, Default)]
pub struct TranscriptIndex {
    nodes: Vec<Node>,
    /// Each uuid's last node: a uuid written twice means its last line.
    by_uuid: HashMap<Box<str>, usize>,
    /// Uuids in the order first seen.
    first_seen: Vec<usize>,
    skipped: u64,
}

impl TranscriptIndex {
    /// An empty index.
    pub fn new() -> Self {
        Self::default()
    }

    /// Reads one line (without its newline; blank lines are ignored) found
    /// at `span`. Never fails: a line that is not JSON is counted as
    /// skipped, one that is not part of the conversation is passed over.
    pub fn handle_line(&mut self, span: Span, line: &[u8]) {
        self.handle_read(span, ReadLine::of(line));
    }

    /// [`handle_line`](Self::handle_line) for a line read ahead, perhaps
    /// on another thread: lines must still be handed over in file order.
    pub fn handle_read(&mut self, span: Span, line: ReadLine) {
        let probe = match line.0 {
            Read::Blank => return,
            Read::NotJson => {
                self.skipped += 1;
                return;
            }
            Read::Probe(probe) => *probe,
        };
        let (Some(kind), Some(uuid)) = (probe.kind.as_deref(), probe.uuid) else {
            return;
        };
        if !CHAIN_KINDS.contains(&kind) {
            return;
        }
        let kind = match kind {
            "user" => Kind::User,
            "assistant" => Kind::Assistant,
            "progress" => Kind::Progress,
            _ => Kind::Other,
        };
        let tool_ids: Box<[Box<str>]> = match kind {
            Kind::Assistant => probe
                .blocks
                .iter()
                .filter(|b| b.kind.as_deref() == Some("tool_use"))
                .filter_map(|b| b.id.as_deref().map(Box::from))
                .collect(),
            Kind::User => probe
                .blocks
                .iter()
                .filter(|b| b.kind.as_deref() == Some("tool_result"))
                .filter_map(|b| b.tool_use_id.as_deref().map(Box::from))
                .collect(),
            Kind::Progress | Kind::Other => Box::new([]),
        };
        let parent = probe.parent.filter(|p| !p.is_empty()).map(Box::from);
        let is_tool_result = kind == Kind::User
            && parent.is_some()
            && probe
                .blocks
                .iter()
                .any(|b| b.kind.as_deref() == Some("tool_result"));
        let uuid: Box<str> = uuid.into();
        let index = self.nodes.len();
        self.nodes.push(Node {
            span,
            uuid: uuid.clone(),
            parent,
            kind,
            sidechain: probe.sidechain,
            meta: probe.meta,
            team: probe.team,
            agent_id: probe.agent_id,
            timestamp: probe.timestamp.unwrap_or_default().into(),
            source_tool_assistant: probe.source_tool_assistant.map(Box::from),
            message_id: probe
                .message_id
                .filter(|_| kind == Kind::Assistant)
                .map(Box::from),
            tool_ids,
            is_tool_result,
        });
        if self.by_uuid.insert(uuid, index).is_none() {
            self.first_seen.push(index);
        }
    }

    /// How many non-blank lines were not JSON objects (a torn last line,
    /// corruption, another program's output).
    pub fn skipped_lines(&self) -> u64 {
        self.skipped
    }

    /// How many conversation entries were kept.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether no conversation entry was kept.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The user and assistant messages the user sees, in order, as the
    /// SDKs' `get_session_messages` returns them: the thread from the
    /// newest main-conversation leaf, parallel tool calls and results put
    /// back, then meta, sidechain and team entries left out.
    pub fn conversation(&self) -> Vec<Span> {
        self.thread()
            .into_iter()
            .map(|i| &self.nodes[i])
            .filter(|n| n.kind.is_message() && !n.meta && !n.sidechain && !n.team)
            .map(|n| n.span)
            .collect()
    }

    /// The messages of a subagent's transcript, in order: the walk back
    /// from its last user or assistant entry (subagent transcripts do not
    /// branch).
    pub fn subagent_conversation(&self) -> Vec<Span> {
        let Some(leaf) = self.nodes.iter().rposition(|n| n.kind.is_message()) else {
            return Vec::new();
        };
        let (chain, _) = self.walk_back(leaf);
        chain
            .into_iter()
            .map(|i| &self.nodes[i])
            .filter(|n| n.kind.is_message())
            .map(|n| n.span)
            .collect()
    }

    /// The entries a fork copies, in file order: every conversation entry
    /// that is not a sidechain, with its uuid, its parent and whether it
    /// is a `progress` entry (linked through, never copied).
    pub(crate) fn fork_entries(&self) -> impl Iterator<Item = (Span, &str, Option<&str>, bool)> {
        self.nodes.iter().filter(|n| !n.sidechain).map(|n| {
            (
                n.span,
                &*n.uuid,
                n.parent.as_deref(),
                n.kind == Kind::Progress,
            )
        })
    }

    fn node_of(&self, uuid: &str) -> Option<usize> {
        self.by_uuid.get(uuid).copied()
    }

    /// Node indices from root to `leaf`, and their uuids.
    fn walk_back(&self, leaf: usize) -> (Vec<usize>, HashSet<&str>) {
        let mut chain = Vec::new();
        let mut seen = HashSet::new();
        let mut current = Some(leaf);
        while let Some(i) = current {
            if !seen.insert(&*self.nodes[i].uuid) {
                break;
            }
            chain.push(i);
            current = self.nodes[i]
                .parent
                .as_deref()
                .and_then(|p| self.node_of(p));
        }
        chain.reverse();
        (chain, seen)
    }

    fn thread(&self) -> Vec<usize> {
        let parents: HashSet<&str> = self
            .nodes
            .iter()
            .filter_map(|n| n.parent.as_deref())
            .collect();
        let mut leaves = Vec::new();
        for (terminal, _) in self
            .nodes
            .iter()
            .enumerate()
            .filter(|(_, n)| !parents.contains(&*n.uuid))
        {
            let mut seen = HashSet::new();
            let mut current = Some(terminal);
            while let Some(i) = current {
                if !seen.insert(&*self.nodes[i].uuid) {
                    break;
                }
                if self.nodes[i].kind.is_message() {
                    leaves.push(i);
                    break;
                }
                current = self.nodes[i]
                    .parent
                    .as_deref()
                    .and_then(|p| self.node_of(p));
            }
        }
        // Newest in the file wins, ranked by the uuid's last position.
        let rank = |i: usize| self.node_of(&self.nodes[i].uuid).unwrap_or(i);
        let best = |candidates: &[usize]| -> Option<usize> {
            let mut best: Option<usize> = None;
            for &c in candidates {
                if best.is_none_or(|b| rank(c) > rank(b)) {
                    best = Some(c);
                }
            }
            best
        };
        let main: Vec<usize> = leaves
            .iter()
            .copied()
            .filter(|&i| {
                let n = &self.nodes[i];
                !n.sidechain && !n.team && !n.meta
            })
            .collect();
        let Some(leaf) = best(&main).or_else(|| best(&leaves)) else {
            return Vec::new();
        };
        let (chain, mut seen) = self.walk_back(leaf);
        self.recover_parallel_tool_use(chain, &mut seen)
    }

    /// Puts back the tool calls and results of a response with parallel
    /// tool use that the walk did not reach.
    ///
    /// The CLI writes one assistant entry per content block, chained one
    /// after another and sharing `message.id`; each tool result's parent
    /// is its own call's entry, so the results fan out and the walk keeps
    /// only the branch the next turn continued from. For each response on
    /// the thread, its other entries and their results are inserted after
    /// its last entry on the thread: siblings, then results, each in
    /// timestamp order (ties in file order). A result is placed by its
    /// parent, its `sourceToolAssistantUUID` or the call it answers (the
    /// last two only from the same writer); a result whose parent is not
    /// in the response is taken only if it answers a call of the response
    /// that nothing answered yet. The TypeScript and Python SDKs do the
    /// same.
    fn recover_parallel_tool_use<'a>(
        &'a self,
        chain: Vec<usize>,
        seen: &mut HashSet<&'a str>,
    ) -> Vec<usize> {
        let on_chain_assistants: Vec<usize> = chain
            .iter()
            .copied()
            .filter(|&i| self.nodes[i].kind == Kind::Assistant)
            .collect();
        let mut anchor: HashMap<&str, usize> = HashMap::new();
        for &i in &on_chain_assistants {
            if let Some(id) = self.nodes[i].message_id.as_deref() {
                anchor.insert(id, i);
            }
        }
        if anchor.is_empty() {
            return chain;
        }
        // Each uuid once, its last node, in first-seen order.
        let unique: Vec<usize> = self
            .first_seen
            .iter()
            .map(|&first| self.node_of(&self.nodes[first].uuid).unwrap_or(first))
            .collect();
        let mut siblings: HashMap<&str, Vec<usize>> = HashMap::new();
        // A call id claimed by two responses is ambiguous (None).
        let mut call_owner: HashMap<&str, Option<usize>> = HashMap::new();
        let mut results = Vec::new();
        for &i in &unique {
            let node = &self.nodes[i];
            if let Some(message_id) = node.message_id.as_deref() {
                siblings.entry(message_id).or_default().push(i);
                for call in node.tool_ids.iter() {
                    let owner = match call_owner.get(&**call) {
                        None => Some(i),
                        Some(Some(owner))
                            if self.nodes[*owner].message_id.as_deref() == Some(message_id) =>
                        {
                            Some(i)
                        }
                        Some(_) => None,
                    };
                    call_owner.insert(call, owner);
                }
            } else if node.is_tool_result {
                results.push(i);
            }
        }
        let same_writer =
            |a: &Node, b: &Node| a.sidechain == b.sidechain && a.agent_id == b.agent_id;
        let mut results_by_assistant: HashMap<&str, Vec<usize>> = HashMap::new();
        for &r in &results {
            let result = &self.nodes[r];
            if let Some(parent) = result.parent.as_deref() {
                results_by_assistant.entry(parent).or_default().push(r);
            }
            if let Some(source) = result.source_tool_assistant.as_deref() {
                if let Some(s) = self.node_of(source) {
                    if same_writer(result, &self.nodes[s]) {
                        results_by_assistant.entry(source).or_default().push(r);
                    }
                }
            }
            for call in result.tool_ids.iter() {
                if let Some(Some(owner)) = call_owner.get(&**call) {
                    if same_writer(result, &self.nodes[*owner]) {
                        results_by_assistant
                            .entry(&self.nodes[*owner].uuid)
                            .or_default()
                            .push(r);
                    }
                }
            }
        }
        let mut answered_on_chain: Option<HashSet<&str>> = None;
        let mut position: Option<HashMap<usize, usize>> = None;
        let mut processed = HashSet::new();
        let mut inserts: HashMap<usize, Vec<usize>> = HashMap::new();
        for &assistant in &on_chain_assistants {
            let Some(message_id) = self.nodes[assistant].message_id.as_deref() else {
                continue;
            };
            if !processed.insert(message_id) {
                continue;
            }
            let group = siblings
                .get(message_id)
                .cloned()
                .unwrap_or_else(|| vec![assistant]);
            let members: HashSet<&str> = group.iter().map(|&m| &*self.nodes[m].uuid).collect();
            let mut orphan_siblings: Vec<usize> = group
                .iter()
                .copied()
                .filter(|&m| !seen.contains(&*self.nodes[m].uuid))
                .collect();
            let mut orphan_results = Vec::new();
            let mut strays = Vec::new();
            let mut collected = HashSet::new();
            for &member in &group {
                for &r in results_by_assistant
                    .get(&*self.nodes[member].uuid)
                    .into_iter()
                    .flatten()
                {
                    if seen.contains(&*self.nodes[r].uuid) || !collected.insert(r) {
                        continue;
                    }
                    if self.nodes[r]
                        .parent
                        .as_deref()
                        .is_some_and(|p| members.contains(p))
                    {
                        orphan_results.push(r);
                    } else {
                        strays.push(r);
                    }
                }
            }
            if !strays.is_empty() {
                let on_chain = answered_on_chain.get_or_insert_with(|| {
                    chain
                        .iter()
                        .filter(|&&i| self.nodes[i].kind == Kind::User)
                        .flat_map(|&i| self.nodes[i].tool_ids.iter().map(|c| &**c))
                        .collect()
                });
                let mut answered = on_chain.clone();
                for &r in &orphan_results {
                    answered.extend(self.nodes[r].tool_ids.iter().map(|c| &**c));
                }
                let position = position.get_or_insert_with(|| {
                    unique.iter().enumerate().map(|(p, &i)| (i, p)).collect()
                });
                strays.sort_by_key(|r| position.get(r).copied().unwrap_or(usize::MAX));
                for r in strays {
                    let calls = &self.nodes[r].tool_ids;
                    let answers_open_call = calls.iter().any(|call| {
                        !answered.contains(&**call)
                            && matches!(call_owner.get(&**call), Some(Some(owner)) if members.contains(&*self.nodes[*owner].uuid))
                    });
                    if answers_open_call {
                        answered.extend(calls.iter().map(|c| &**c));
                        orphan_results.push(r);
                    }
                }
            }
            if orphan_siblings.is_empty() && orphan_results.is_empty() {
                continue;
            }
            orphan_siblings.sort_by(|a, b| self.nodes[*a].timestamp.cmp(&self.nodes[*b].timestamp));
            orphan_results.sort_by(|a, b| self.nodes[*a].timestamp.cmp(&self.nodes[*b].timestamp));
            let recovered: Vec<usize> = orphan_siblings.into_iter().chain(orphan_results).collect();
            seen.extend(recovered.iter().map(|&r| &*self.nodes[r].uuid));
            inserts.insert(anchor[message_id], recovered);
        }
        if inserts.is_empty() {
            return chain;
        }
        let mut thread = Vec::with_capacity(chain.len());
        for i in chain {
            thread.push(i);
            thread.extend(inserts.remove(&i).into_iter().flatten());
        }
        thread
    }
}
