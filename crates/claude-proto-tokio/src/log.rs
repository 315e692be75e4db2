//! Optional logging through `tracing` (feature `tracing`); free otherwise.

#[cfg(feature = "tracing")]
pub(crate) fn debug(args: std::fmt::Arguments<'_>) {
    tracing::debug!(target: "claude_proto_tokio", "{args}");
}

#[cfg(feature = "tracing")]
pub(crate) fn warn(args: std::fmt::Arguments<'_>) {
    tracing::warn!(target: "claude_proto_tokio", "{args}");
}

#[cfg(not(feature = "tracing"))]
pub(crate) fn debug(_: std::fmt::Arguments<'_>) {}

#[cfg(not(feature = "tracing"))]
pub(crate) fn warn(_: std::fmt::Arguments<'_>) {}
