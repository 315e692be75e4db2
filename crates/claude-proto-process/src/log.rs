//! Optional logging through `tracing` (feature `tracing`, which each
//! adapter's own `tracing` feature turns on); free otherwise. Shared so the
//! adapters log the same things under one target.

/// Logs at debug level (spawn, exit, close steps).
#[cfg(feature = "tracing")]
pub fn debug(args: std::fmt::Arguments<'_>) {
    tracing::debug!(target: "claude_proto", "{args}");
}

/// Logs at warn level (protocol errors, failed handlers).
#[cfg(feature = "tracing")]
pub fn warn(args: std::fmt::Arguments<'_>) {
    tracing::warn!(target: "claude_proto", "{args}");
}

/// Logs at debug level (spawn, exit, close steps).
#[cfg(not(feature = "tracing"))]
pub fn debug(_: std::fmt::Arguments<'_>) {}

/// Logs at warn level (protocol errors, failed handlers).
#[cfg(not(feature = "tracing"))]
pub fn warn(_: std::fmt::Arguments<'_>) {}

/// Logs the events worth a warning (protocol errors, failed handlers, an
/// old CLI).
pub fn event(event: &claude_proto_host::Event) {
    match event {
        claude_proto_host::Event::ProtocolError(error) => warn(format_args!("{error}")),
        claude_proto_host::Event::HandlerFailed { subtype, message } => {
            warn(format_args!("{subtype} handler failed: {message}"));
        }
        claude_proto_host::Event::CliVersion(check) => {
            if let Some(warning) = check.warning() {
                warn(format_args!("{warning}"));
            }
        }
        _ => {}
    }
}
