//! Limits and defaults of a [`Session`](crate::Session).

use std::time::Duration;

/// Limits and defaults for one [`Session`](crate::Session).
///
/// Build it with [`Config::default`] and change the fields you need; every
/// limit here is what bounds the session's memory against a misbehaving CLI.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Config {
    /// Longest stdout line accepted, in bytes, without its newline.
    ///
    /// A longer line is dropped up to its newline and reported as
    /// [`ProtocolErrorKind::LineTooLong`](crate::ProtocolErrorKind); the
    /// session goes on. The partial-line buffer never grows past this.
    /// Default 64 MiB: tool results can carry base64 images and files.
    pub max_line_bytes: usize,
    /// How long a control request we send may wait for its answer when the
    /// call does not give its own timeout. Default 60 s. A request whose
    /// work the CLI itself allows longer waits that long instead, so no
    /// default deadline of ours is shorter than the CLI's own: `mcp_call`
    /// waits its `timeout_ms` (the CLI's default 2 min) plus 5 s (see
    /// [`ControlRequest::cli_deadline`](crate::model::control::ControlRequest::cli_deadline)).
    pub request_timeout: Duration,
    /// How many bytes of an offending line a
    /// [`ProtocolError`](crate::ProtocolError) keeps. Default 256.
    pub error_prefix_bytes: usize,
    /// How many control requests from the CLI may wait for an answer at
    /// once. Past this, new ones are refused with an error response at once
    /// (the CLI is never left waiting) and reported as
    /// [`Event::RequestRefused`](crate::Event). Default 1024.
    pub max_pending_incoming: usize,
    /// Answer CLI requests of a subtype this crate does not model with an
    /// `unsupported_request` error at once, as the official SDKs do, and
    /// report them as [`Event::RequestRefused`](crate::Event). Set to
    /// `false` to receive them as [`Event::Request`](crate::Event) holding
    /// the raw JSON and answer them yourself. Default `true`. The adapters
    /// refuse them either way: receiving them raw is for a program that
    /// drives the core itself.
    pub refuse_unknown_requests: bool,
    /// Seed mixed into the ids of requests we send (`req_<n>_<hex>`), so two
    /// sessions sharing a log can be told apart. The core reads no
    /// randomness itself; adapters seed it. Default 0.
    pub request_id_seed: u64,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            max_line_bytes: 64 * 1024 * 1024,
            request_timeout: Duration::from_secs(60),
            error_prefix_bytes: 256,
            max_pending_incoming: 1024,
            refuse_unknown_requests: true,
            request_id_seed: 0,
        }
    }
}
