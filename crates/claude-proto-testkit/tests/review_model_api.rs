//! The model API stand-in holds nothing per request once a request is
//! answered: no descriptor, and (past a cap) no record of requests that
//! are not model calls.
//!
//! Its own test binary: the descriptor count is this process's, which
//! other tests running beside it would move.

use std::io::{Read as _, Write as _};
use std::net::TcpStream;
use std::sync::{Mutex, PoisonError};

use claude_proto_testkit::model_api::{MAX_RECORDED_OTHER_REQUESTS, ModelApi, Reply};

/// The tests of this file run one at a time: each counts descriptors or
/// requests.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// One `GET /nope` (a 404), read to the end of its answer (the stand-in
/// closes every connection after answering).
fn get_nope(api: &ModelApi) -> String {
    let mut stream = TcpStream::connect(("127.0.0.1", api.port())).expect("connects");
    stream
        .write_all(b"GET /nope HTTP/1.1\r\nhost: localhost\r\n\r\n")
        .expect("sends");
    let mut answer = String::new();
    stream
        .read_to_string(&mut answer)
        .expect("reads the answer");
    answer
}

/// This process's open descriptors.
fn open_fds() -> usize {
    std::fs::read_dir("/proc/self/fd")
        .expect("lists /proc/self/fd")
        .count()
}

/// Hundreds of connections leave the descriptor count where it was, with
/// the stand-in still running: each connection's descriptors go when it
/// has been answered, not when the stand-in is dropped.
#[test]
#[cfg(target_os = "linux")]
fn answered_connections_hold_no_descriptor() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(PoisonError::into_inner);
    let api = ModelApi::turns([Reply::text("unused")]).expect("starts");
    // One request first, so that whatever the first one opens for good
    // (a thread-local, say) is in the count already.
    assert!(get_nope(&api).starts_with("HTTP/1.1 404"));
    let before = open_fds();
    for _ in 0..300 {
        assert!(get_nope(&api).starts_with("HTTP/1.1 404"));
    }
    let after = open_fds();
    // A connection's last descriptor closes right after its answer ends,
    // so a few may still be closing; 300 held (one per connection) is the
    // leak.
    assert!(
        after < before + 30,
        "{before} descriptors before 300 requests, {after} after"
    );
    drop(api);
}

/// Requests that are not model calls are recorded up to the cap, and
/// still answered and counted past it.
#[test]
fn requests_that_are_not_model_calls_are_recorded_up_to_the_cap() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(PoisonError::into_inner);
    let api = ModelApi::turns([Reply::text("unused")]).expect("starts");
    let total = MAX_RECORDED_OTHER_REQUESTS + 20;
    for _ in 0..total {
        assert!(get_nope(&api).starts_with("HTTP/1.1 404"));
    }
    let requests = api.requests();
    assert_eq!(requests.len(), MAX_RECORDED_OTHER_REQUESTS);
    assert!(
        requests
            .iter()
            .all(|r| r.status == 404 && r.path == "/nope")
    );
    // Counted all the same: a waiter for the n-th request is not left
    // waiting.
    assert!(api.wait_for_requests(total, std::time::Duration::ZERO));
}
