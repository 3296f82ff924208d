//! The one error type of the binding: an ABI code and a message.

use std::fmt;

/// The ABI code of a failed call (abi/ABI.md, "Errors").
///
/// The module raises `InvalidRequest`, `RequestTooLarge` and `Internal`; the
/// host adds `Timeout` and `Trap` for failures outside the module's control.
/// A code this binding does not know yet arrives as `Other`, so a newer module
/// never breaks an older host.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorCode {
    /// Not JSON, wrong shape or type, missing or unknown field, unknown export.
    InvalidRequest,
    /// The request is over `maxRequestBytes`.
    RequestTooLarge,
    /// A bug in the module: never expected.
    Internal,
    /// The call ran past the host's per-call timeout; the instance was discarded.
    Timeout,
    /// The call was cancelled; the instance was discarded.
    Cancelled,
    /// The module trapped or could not start; the instance was discarded.
    Trap,
    /// Any other code, as the module sent it.
    Other(String),
}

impl ErrorCode {
    /// The code as the ABI writes it, e.g. `INVALID_REQUEST`.
    pub fn as_str(&self) -> &str {
        match self {
            ErrorCode::InvalidRequest => "INVALID_REQUEST",
            ErrorCode::RequestTooLarge => "REQUEST_TOO_LARGE",
            ErrorCode::Internal => "INTERNAL",
            ErrorCode::Timeout => "TIMEOUT",
            ErrorCode::Cancelled => "CANCELLED",
            ErrorCode::Trap => "TRAP",
            ErrorCode::Other(code) => code,
        }
    }

    /// Reads a code as the ABI writes it.
    pub fn from_abi(code: &str) -> ErrorCode {
        match code {
            "INVALID_REQUEST" => ErrorCode::InvalidRequest,
            "REQUEST_TOO_LARGE" => ErrorCode::RequestTooLarge,
            "INTERNAL" => ErrorCode::Internal,
            "TIMEOUT" => ErrorCode::Timeout,
            "CANCELLED" => ErrorCode::Cancelled,
            "TRAP" => ErrorCode::Trap,
            other => ErrorCode::Other(other.to_string()),
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A failed toolerr call: the ABI `code` and the module's `message`, which
/// starts with the export's name and names the field at fault, e.g.
/// `tool_error: "message" is required`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{code}: {message}")]
pub struct Error {
    /// What kind of failure this is.
    pub code: ErrorCode,
    /// What was wrong, naming the export and the field.
    pub message: String,
}

impl Error {
    /// An error with `code` and `message`.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Error {
        Error {
            code,
            message: message.into(),
        }
    }

    pub(crate) fn invalid(message: impl Into<String>) -> Error {
        Error::new(ErrorCode::InvalidRequest, message)
    }

    pub(crate) fn internal(message: impl Into<String>) -> Error {
        Error::new(ErrorCode::Internal, message)
    }

    pub(crate) fn trap(message: impl Into<String>) -> Error {
        Error::new(ErrorCode::Trap, message)
    }
}

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
