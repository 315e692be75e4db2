//! The caller's OpenTelemetry trace context, handed to the CLI as the W3C
//! `TRACEPARENT` and `TRACESTATE` variables (feature `opentelemetry`), so
//! the spans the CLI exports join the caller's trace, as with the Python
//! SDK.

use std::ffi::OsStr;
use std::process::Command;

use claude_proto::options::Options;

/// The variables of W3C trace context.
const VARIABLES: [&str; 2] = ["TRACEPARENT", "TRACESTATE"];

/// Sets the trace context of the current span (if there is a valid one)
/// on `command`: an inherited `TRACEPARENT` or `TRACESTATE` is replaced
/// (a stale one from the environment must not be paired with the fresh
/// one), but a variable `options` sets or removes is left to it.
pub(crate) fn hand_over(options: &Options, command: &mut Command) {
    let Some((parent, state)) = current() else {
        return;
    };
    let explicit = |name: &str| {
        options
            .env
            .iter()
            .map(|(k, _)| k)
            .chain(&options.env_remove)
            .any(|k| k == OsStr::new(name))
    };
    for name in VARIABLES.into_iter().filter(|n| !explicit(n)) {
        command.env_remove(name);
    }
    if !explicit("TRACEPARENT") {
        command.env("TRACEPARENT", parent);
    }
    if let Some(state) = state.filter(|s| !s.is_empty() && !explicit("TRACESTATE")) {
        command.env("TRACESTATE", state);
    }
}

/// `traceparent` (version 00) and `tracestate` of the current span.
#[cfg(feature = "opentelemetry")]
fn current() -> Option<(String, Option<String>)> {
    use opentelemetry::trace::TraceContextExt as _;
    let context = opentelemetry::Context::current();
    let span = context.span();
    let span = span.span_context();
    if !span.is_valid() {
        return None;
    }
    let parent = format!(
        "00-{}-{}-{:02x}",
        span.trace_id(),
        span.span_id(),
        span.trace_flags().to_u8()
    );
    Some((parent, Some(span.trace_state().header())))
}

/// Without the feature there is no context to hand over.
#[cfg(not(feature = "opentelemetry"))]
fn current() -> Option<(String, Option<String>)> {
    None
}
