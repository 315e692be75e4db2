//! The ids a caller names, checked before they name a path: a session id
//! must be a UUID, a subagent id a plain file name.

use super::error::SessionsError;

/// A subagent id names a file under the session: no separators, no `..`.
pub(crate) fn check_agent_id(agent_id: &str) -> Result<(), SessionsError> {
    if agent_id.is_empty() || agent_id.contains(['/', '\\', '\0']) || agent_id.contains("..") {
        return Err(SessionsError::InvalidAgentId(agent_id.to_owned()));
    }
    Ok(())
}

pub(crate) fn check_session_id(session_id: &str) -> Result<(), SessionsError> {
    if claude_proto::transcript::is_uuid(session_id) {
        Ok(())
    } else {
        Err(SessionsError::InvalidSessionId(session_id.to_owned()))
    }
}
