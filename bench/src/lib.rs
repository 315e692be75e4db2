//! Benchmarks of claude-proto: the transcript generator, the decode loops
//! compared, and helpers shared by the bench targets and binaries.
//!
//! See `BENCHMARKS.md` at the repository root for the figures and how to
//! reproduce them.

pub mod decode;
pub mod replay;
pub mod rss;
pub mod transcript;
