//! The session stores the tests share.

use std::sync::Arc;

use claude_proto_process::session_store::{MemoryStore, SessionStore};

/// The store a scenario that spans "machines" uses: in memory for now.
pub fn shared_store(_name: &str) -> Arc<dyn SessionStore> {
    Arc::new(MemoryStore::new())
}
