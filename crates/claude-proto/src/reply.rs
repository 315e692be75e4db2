//! The answer to a control request from the CLI.

use serde::Serialize;
use serde_json::value::RawValue;

/// The answer to one [`IncomingRequest`](crate::IncomingRequest), given to
/// [`Session::respond`](crate::Session::respond).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Reply {
    /// Success, with the subtype's payload (already JSON) or none for a
    /// plain acknowledgement.
    Success(Option<Box<RawValue>>),
    /// Failure, with a human-readable message and optionally a
    /// machine-readable `error_code` (`snake_case`).
    Error {
        /// What went wrong, for the CLI's logs and the model.
        message: String,
        /// An `error_code` such as `unsupported_request`.
        code: Option<String>,
    },
}

impl Reply {
    /// A success without payload.
    pub fn ack() -> Self {
        Reply::Success(None)
    }

    /// A success carrying `payload` (a `PermissionResult`, `HookOutput`,
    /// MCP response, ...). Fails only if `payload` cannot be serialized.
    pub fn success<T: Serialize + ?Sized>(payload: &T) -> Result<Self, serde_json::Error> {
        serde_json::value::to_raw_value(payload).map(|raw| Reply::Success(Some(raw)))
    }

    /// An error answer.
    pub fn error(message: impl Into<String>) -> Self {
        Reply::Error {
            message: message.into(),
            code: None,
        }
    }

    /// An error answer with an `error_code`.
    pub fn error_with_code(message: impl Into<String>, code: impl Into<String>) -> Self {
        Reply::Error {
            message: message.into(),
            code: Some(code.into()),
        }
    }
}
