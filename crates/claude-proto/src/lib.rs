//! claude-proto (crate docs in progress)
#![deny(missing_docs)]

pub mod discovery;
pub mod model;
pub mod options;
