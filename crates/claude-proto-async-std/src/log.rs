//! Optional logging through `tracing` (feature `tracing`); free otherwise.

#[cfg(feature = "tracing")]
pub(crate) fn debug(args: std::fmt::Arguments<'_>) {
    tracing::debug!(target: "claude_proto_async_std", "{args}");
}

#[cfg(feature = "tracing")]
pub(crate) fn warn(args: std::fmt::Arguments<'_>) {
    tracing::warn!(target: "claude_proto_async_std", "{args}");
}

#[cfg(not(feature = "tracing"))]
pub(crate) fn debug(_: std::fmt::Arguments<'_>) {}

#[cfg(not(feature = "tracing"))]
pub(crate) fn warn(_: std::fmt::Arguments<'_>) {}

/// Logs the events worth a warning (protocol errors, failed handlers).
pub(crate) fn event(event: &claude_proto_process::Event) {
    match event {
        claude_proto_process::Event::ProtocolError(error) => warn(format_args!("{error}")),
        claude_proto_process::Event::HandlerFailed { subtype, message } => {
            warn(format_args!("{subtype} handler failed: {message}"));
        }
        _ => {}
    }
}
