//! The one error type that crosses every boundary.
//!
//! Every core function returns [`Result<T>`]. Adapters never inspect the
//! message: they map the stable [`ErrorCode`] to their medium (a rejected
//! promise for IPC, an exit status for the CLI, an HTTP status, an MCP
//! `isError` result). The message is written for a person; `details` carries
//! structured facts a UI needs, such as the form field that caused a
//! validation error (`{"field": "baseUrl", "reason": "invalid_url"}`) or the
//! agents that block a deletion (`{"agents": ["writer", "reviewer"]}`).

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// Stable, machine-readable error codes. Never renamed once released: the UI,
/// scripts and remote clients branch on them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// The thing named does not exist.
    NotFound,
    /// The input is malformed or breaks a rule; `details.field` names the field.
    Validation,
    /// The input collides with existing data (a duplicate name, a model in use).
    Conflict,
    /// No or a wrong credential was presented.
    Unauthorized,
    /// The credential is valid but does not allow this.
    Forbidden,
    /// The operation needs something that is not in place (a locked secret
    /// store, a disabled provider).
    Precondition,
    /// An upstream service (an LLM provider, an MCP server) failed.
    Upstream,
    /// The operation was cancelled by whoever started it.
    Cancelled,
    /// A bug or an environment failure; the message says what happened.
    Internal,
    /// Too much, too fast: a client over its request rate, or mail to an
    /// inbox that is full (`details.reason`: `rate_limit`, `inbox_full`).
    /// `details.retryAfterSeconds` says when to try again.
    RateLimited,
    /// The store (or the server) is busy right now; the same request may
    /// succeed a moment later (`details.retryAfterSeconds`).
    Busy,
}

impl ErrorCode {
    /// The code as it is written on the wire (`not_found`, `validation`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::NotFound => "not_found",
            ErrorCode::Validation => "validation",
            ErrorCode::Conflict => "conflict",
            ErrorCode::Unauthorized => "unauthorized",
            ErrorCode::Forbidden => "forbidden",
            ErrorCode::Precondition => "precondition",
            ErrorCode::Upstream => "upstream",
            ErrorCode::Cancelled => "cancelled",
            ErrorCode::Internal => "internal",
            ErrorCode::RateLimited => "rate_limited",
            ErrorCode::Busy => "busy",
        }
    }

    /// Whether the same request may succeed later without any change: a
    /// busy store, a rate limit, a full inbox.
    pub fn is_retryable(self) -> bool {
        matches!(self, ErrorCode::RateLimited | ErrorCode::Busy)
    }
}

/// The boundary error: `{code, message, details}`.
///
/// Named `AppError` rather than `Error` so that the generated TypeScript does
/// not shadow the JavaScript `Error` class.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, thiserror::Error)]
#[error("{message}")]
pub struct AppError {
    pub code: ErrorCode,
    pub message: String,
    #[specta(type = Option<ErrorDetails>)]
    pub details: Option<Value>,
}

/// The keys of `details` that UIs rely on, as TypeScript sees them. On the
/// wire `details` is a free JSON object; these are the conventions.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ErrorDetails {
    /// The input field at fault (camelCase, as in the request).
    #[specta(optional)]
    pub field: Option<String>,
    /// A stable snake_case word for why (`required`, `invalid_url`, …).
    #[specta(optional)]
    pub reason: Option<String>,
    /// Every field at fault, when there are several.
    #[specta(optional)]
    pub fields: Option<Vec<FieldError>>,
    /// Agents that block the operation (a model in use).
    #[specta(optional)]
    pub agents: Option<Vec<String>>,
    /// The provider a refusal came from (`auth_refused`, `provider_disabled`…):
    /// the remedy opens or switches on that one.
    #[specta(optional)]
    pub provider_id: Option<String>,
    /// The model an error is about (`model_without_images`, `model_disabled`…).
    #[specta(optional)]
    pub model_id: Option<String>,
}

/// One entry of `details.fields`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct FieldError {
    pub field: String,
    pub reason: String,
    pub message: String,
}

/// Result alias used by every core function.
pub type Result<T, E = AppError> = std::result::Result<T, E>;

impl AppError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        AppError {
            code,
            message: message.into(),
            details: None,
        }
    }

    pub fn with_details(mut self, details: Value) -> Self {
        self.details = Some(details);
        self
    }

    /// A validation error tied to one input field. `reason` is a stable,
    /// snake_case word the UI can translate (`required`, `invalid_url`, …).
    pub fn invalid_field(field: &str, reason: &str, message: impl Into<String>) -> Self {
        AppError::new(ErrorCode::Validation, message)
            .with_details(json!({ "field": field, "reason": reason }))
    }

    /// A conflict tied to one input field (a duplicate name, say).
    pub fn conflicting_field(field: &str, reason: &str, message: impl Into<String>) -> Self {
        AppError::new(ErrorCode::Conflict, message)
            .with_details(json!({ "field": field, "reason": reason }))
    }

    pub fn not_found(what: &str, id: &str) -> Self {
        AppError::new(ErrorCode::NotFound, format!("{what} '{id}' does not exist"))
            .with_details(json!({ "kind": what, "id": id }))
    }

    pub fn precondition(message: impl Into<String>) -> Self {
        AppError::new(ErrorCode::Precondition, message)
    }

    pub fn internal(message: impl Into<String>) -> Self {
        AppError::new(ErrorCode::Internal, message)
    }

    /// Too much, too fast; try again in `retry_after_seconds`. `reason` is a
    /// stable word (`rate_limit`, `inbox_full`).
    pub fn rate_limited(
        reason: &str,
        retry_after_seconds: u64,
        message: impl Into<String>,
    ) -> Self {
        AppError::new(ErrorCode::RateLimited, message).with_details(
            json!({ "reason": reason, "retryAfterSeconds": retry_after_seconds.max(1) }),
        )
    }

    /// The store is busy (another process holds its write lock too long).
    pub fn busy(message: impl Into<String>) -> Self {
        AppError::new(ErrorCode::Busy, message)
            .with_details(json!({ "reason": "store_busy", "retryAfterSeconds": 1 }))
    }

    /// When to try again, for the retryable codes (at least a second).
    pub fn retry_after_seconds(&self) -> Option<u64> {
        if !self.code.is_retryable() {
            return None;
        }
        let given = self
            .details
            .as_ref()
            .and_then(|d| d.get("retryAfterSeconds"))
            .and_then(Value::as_u64);
        Some(given.unwrap_or(1).max(1))
    }

    /// The field named in `details.field`, if any.
    pub fn field(&self) -> Option<&str> {
        self.details.as_ref()?.get("field")?.as_str()
    }
}

impl From<rusqlite::Error> for AppError {
    fn from(err: rusqlite::Error) -> Self {
        use rusqlite::ErrorCode as Sqlite;
        match err.sqlite_error_code() {
            Some(Sqlite::ConstraintViolation) => AppError::new(
                ErrorCode::Conflict,
                format!("the store refused the change: {err}"),
            ),
            Some(Sqlite::DatabaseBusy | Sqlite::DatabaseLocked) => AppError::busy(format!(
                "the store is busy (another process holds the write lock): {err}"
            )),
            _ => AppError::internal(format!("store error: {err}")),
        }
    }
}

impl From<rusqlite_migration::Error> for AppError {
    fn from(err: rusqlite_migration::Error) -> Self {
        AppError::internal(format!("could not migrate the store: {err}"))
    }
}

impl From<std::io::Error> for AppError {
    fn from(err: std::io::Error) -> Self {
        AppError::internal(format!("i/o error: {err}"))
    }
}

impl From<serde_json::Error> for AppError {
    fn from(err: serde_json::Error) -> Self {
        AppError::internal(format!("json error: {err}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_serialize_as_their_stable_names() {
        for code in [
            ErrorCode::NotFound,
            ErrorCode::Validation,
            ErrorCode::Conflict,
            ErrorCode::Unauthorized,
            ErrorCode::Forbidden,
            ErrorCode::Precondition,
            ErrorCode::Upstream,
            ErrorCode::Cancelled,
            ErrorCode::Internal,
            ErrorCode::RateLimited,
            ErrorCode::Busy,
        ] {
            let wire = serde_json::to_value(code).unwrap_or_default();
            assert_eq!(wire, Value::String(code.as_str().to_owned()));
        }
    }

    #[test]
    fn a_busy_store_is_busy_and_says_when_to_retry() {
        let busy = rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_BUSY),
            Some("database is locked".into()),
        );
        let err = AppError::from(busy);
        assert_eq!(err.code, ErrorCode::Busy);
        assert_eq!(err.retry_after_seconds(), Some(1));
        let limited = AppError::rate_limited("inbox_full", 0, "full");
        assert_eq!(limited.retry_after_seconds(), Some(1));
        assert_eq!(AppError::internal("x").retry_after_seconds(), None);
    }

    #[test]
    fn invalid_field_carries_field_and_reason() {
        let err = AppError::invalid_field("baseUrl", "invalid_url", "bad url");
        assert_eq!(err.code, ErrorCode::Validation);
        assert_eq!(err.field(), Some("baseUrl"));
        let wire = serde_json::to_value(&err).unwrap_or_default();
        assert_eq!(wire["details"]["reason"], "invalid_url");
        assert_eq!(wire["code"], "validation");
    }
}
