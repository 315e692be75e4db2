//! Every real-CLI scenario recorded against the pinned CLI and replayed,
//! through the test kit, on the same adapter.
//!
//! [`record_and_replay`] runs a scenario twice on the test's thread.
//! First live, each session's CLI started through the kit's binary in its
//! record mode (a wrapper around the real CLI writing a cassette); then
//! again with each session's CLI being the binary replaying that cassette
//! as fast as possible. The scenario's own assertions run both times:
//! what the program under test sees must be the same, and the replay
//! fails on any line the program sends that the recording does not have.
//!
//! The second run happens in the first run's directories (the same
//! `HOME`, project and `TMPDIR`), so the paths the program sends are the
//! ones recorded; the recording's path placeholders are put back as those
//! directories by the binary. Assertions about what the CLI sent the
//! model read, in the replay, what the model stand-in received when
//! recorded.

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use claude_proto::options::Options;
use claude_proto_testkit::cassette::ReplayOptions;
use claude_proto_testkit::child;
use claude_proto_testkit::model_api::{ApiRequest, ModelApi};

use super::temp_dir::TempDir;

/// What a scenario's peers and sessions do: run live, record, or replay.
#[derive(Default)]
enum Mode {
    /// The real CLI, as it is (every scenario outside this module).
    #[default]
    Live,
    /// The real CLI behind the kit's recording wrapper.
    Record,
    /// The kit's binary replaying the recordings, peer by peer.
    Replay,
}

/// One peer of a recorded run: its directories, the model calls it
/// received, and the cassettes of its sessions in the order they started.
struct Take {
    root: Arc<TempDir>,
    /// The recording's live stand-in.
    server: Option<Arc<ModelApi>>,
    requests: Option<Vec<ApiRequest>>,
    cassettes: Vec<PathBuf>,
    /// How many requests the stand-in had received as each session
    /// started, when recorded: a replayed scenario that reads them between
    /// sessions sees what it saw then.
    marks: Vec<usize>,
    /// The next cassette to replay.
    next: usize,
    /// Sessions started in the replay, shared with its [`PeerServer`].
    started: Arc<AtomicUsize>,
}

#[derive(Default)]
struct State {
    mode: Mode,
    binary: PathBuf,
    takes: Vec<Take>,
    /// The take of the peer replaying now (its index).
    current: Option<usize>,
}

thread_local! {
    static STATE: RefCell<State> = RefCell::new(State::default());
}

/// Puts the state back to live when the run ends, a panic included.
struct Reset;

impl Drop for Reset {
    fn drop(&mut self) {
        STATE.with(|state| *state.borrow_mut() = State::default());
    }
}

/// Runs `scenario` live through the recording wrapper (`binary` is the
/// kit's `claude-proto-testkit-cli`), then again against the replayed
/// recordings. Nothing is replayed when the first run started no peer (the
/// CLI is not installed, and the scenario said it was skipped).
pub fn record_and_replay(binary: &str, scenario: impl Fn()) {
    record_and_replay_times(binary, 1, scenario);
}

/// [`record_and_replay`], replaying the one recording `times` times in a
/// row: each replay must pass the scenario's assertions, so they all give
/// the same outcome.
pub fn record_and_replay_times(binary: &str, times: usize, scenario: impl Fn()) {
    let _reset = Reset;
    STATE.with(|state| {
        *state.borrow_mut() = State {
            mode: Mode::Record,
            binary: PathBuf::from(binary),
            ..State::default()
        };
    });
    scenario();
    let recorded = STATE.with(|state| state.borrow().takes.len());
    if recorded == 0 {
        return;
    }
    for _ in 0..times {
        STATE.with(|state| {
            let mut state = state.borrow_mut();
            state.mode = Mode::Replay;
            state.current = None;
            for take in &mut state.takes {
                take.next = 0;
                take.started.store(0, Ordering::SeqCst);
            }
        });
        scenario();
        STATE.with(|state| {
            let state = state.borrow();
            let replayed = state.current.map_or(0, |n| n + 1);
            assert_eq!(
                replayed, recorded,
                "the replay started {replayed} peers where the recording started {recorded}"
            );
            for (n, take) in state.takes.iter().enumerate() {
                assert_eq!(
                    take.next,
                    take.cassettes.len(),
                    "peer {n}: the replay started {} sessions where the recording started {}",
                    take.next,
                    take.cassettes.len()
                );
            }
        });
    }
}

/// The model stand-in as a peer's scenario sees it: live, or (in a
/// replay, where no CLI calls the model) what it received when recorded.
#[derive(Debug)]
pub struct PeerServer {
    live: Arc<ModelApi>,
    recorded: Option<Recorded>,
}

/// What a recorded peer's stand-in received, and how far the replay is.
#[derive(Debug)]
struct Recorded {
    requests: Vec<ApiRequest>,
    marks: Vec<usize>,
    started: Arc<AtomicUsize>,
}

impl Recorded {
    /// The requests received by the time the replay's current session
    /// ends: up to the next session's start when recorded.
    fn visible(&self) -> &[ApiRequest] {
        let started = self.started.load(Ordering::SeqCst);
        let end = self
            .marks
            .get(started)
            .copied()
            .unwrap_or(self.requests.len());
        &self.requests[..end.min(self.requests.len())]
    }
}

impl PeerServer {
    /// The stand-in's URL.
    pub fn url(&self) -> String {
        self.live.url()
    }

    /// Every request received, in arrival order.
    pub fn requests(&self) -> Vec<ApiRequest> {
        match &self.recorded {
            Some(recorded) => recorded.visible().to_vec(),
            None => self.live.requests(),
        }
    }

    /// The model calls received, in arrival order.
    pub fn messages_requests(&self) -> Vec<ApiRequest> {
        match &self.recorded {
            Some(recorded) => recorded
                .visible()
                .iter()
                .filter(|r| r.is_messages())
                .cloned()
                .collect(),
            None => self.live.messages_requests(),
        }
    }

    /// Waits until `n` requests have come, at most `limit`; in a replay,
    /// whether `n` came when recorded.
    pub fn wait_for_requests(&self, n: usize, limit: Duration) -> bool {
        match &self.recorded {
            Some(recorded) => recorded.visible().len() >= n,
            None => self.live.wait_for_requests(n, limit),
        }
    }
}

/// A peer's directories and stand-in: made anew (live, recording) or the
/// recorded peer's (replay). `make` makes new ones.
pub(super) fn peer(make: impl FnOnce() -> (TempDir, ModelApi)) -> (Arc<TempDir>, PeerServer) {
    let replayed = STATE.with(|state| {
        let mut state = state.borrow_mut();
        if !matches!(state.mode, Mode::Replay) {
            return None;
        }
        let n = state.current.map_or(0, |n| n + 1);
        state.current = Some(n);
        let Some(take) = state.takes.get(n) else {
            panic!("the replay started more peers than the recording ({n})");
        };
        let recorded = Recorded {
            requests: take.requests.clone().unwrap_or_default(),
            marks: take.marks.clone(),
            started: take.started.clone(),
        };
        Some((take.root.clone(), recorded))
    });
    if let Some((root, recorded)) = replayed {
        // Nobody calls it (the CLI is a replay), but the options name it.
        let (_, live) = make();
        return (
            root,
            PeerServer {
                live: Arc::new(live),
                recorded: Some(recorded),
            },
        );
    }
    let (root, live) = make();
    let (root, live) = (Arc::new(root), Arc::new(live));
    STATE.with(|state| {
        let mut state = state.borrow_mut();
        if matches!(state.mode, Mode::Record) {
            state.takes.push(Take {
                root: root.clone(),
                server: Some(live.clone()),
                requests: None,
                cassettes: Vec::new(),
                marks: Vec::new(),
                next: 0,
                started: Arc::new(AtomicUsize::new(0)),
            });
        }
    });
    (
        root,
        PeerServer {
            live,
            recorded: None,
        },
    )
}

/// Called as a peer goes: a recording keeps what its stand-in received.
pub(super) fn peer_dropped(root: &Arc<TempDir>, server: &PeerServer) {
    STATE.with(|state| {
        let mut state = state.borrow_mut();
        if !matches!(state.mode, Mode::Record) {
            return;
        }
        if let Some(take) = state.takes.iter_mut().find(|t| Arc::ptr_eq(&t.root, root)) {
            take.requests = Some(server.live.requests());
        }
    });
}

/// `options` for a session about to start: as they are when live; through
/// the recording wrapper around `cli` when recording; the replay of the
/// matching recording when replaying.
pub(super) fn session_options(options: Options, cli: &Path) -> Options {
    STATE.with(|state| {
        let mut state = state.borrow_mut();
        let state = &mut *state;
        match state.mode {
            Mode::Live => options,
            Mode::Record => {
                let Some(take) = state.takes.last_mut() else {
                    return options;
                };
                let cassette = take
                    .root
                    .path()
                    .join(format!("session-{}.cassette", take.cassettes.len()));
                take.cassettes.push(cassette.clone());
                let received = take.server.as_ref().map_or(0, |s| s.requests().len());
                take.marks.push(received);
                child::record_options(options, &state.binary, cli, &cassette)
            }
            Mode::Replay => {
                let take = state
                    .current
                    .and_then(|n| state.takes.get_mut(n))
                    .expect("a session starts after its peer");
                let Some(cassette) = take.cassettes.get(take.next).cloned() else {
                    panic!(
                        "the replay started more sessions than the recording ({})",
                        take.cassettes.len()
                    );
                };
                take.next += 1;
                take.started.store(take.next, Ordering::SeqCst);
                child::replay_options(options, &state.binary, &cassette, &ReplayOptions::default())
            }
        }
    })
}
