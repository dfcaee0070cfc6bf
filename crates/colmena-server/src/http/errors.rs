//! Core errors as HTTP answers: the status from the stable code, the body
//! the boundary type `{code, message, details}` itself.

use axum::Json;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use colmena_core::{AppError, ErrorCode};

/// The status a core error code answers with.
pub fn status(code: ErrorCode) -> StatusCode {
    match code {
        ErrorCode::NotFound => StatusCode::NOT_FOUND,
        ErrorCode::Validation => StatusCode::UNPROCESSABLE_ENTITY,
        ErrorCode::Conflict | ErrorCode::Precondition => StatusCode::CONFLICT,
        ErrorCode::Unauthorized => StatusCode::UNAUTHORIZED,
        ErrorCode::Forbidden => StatusCode::FORBIDDEN,
        ErrorCode::Upstream => StatusCode::BAD_GATEWAY,
        // The client went away or gave up: nothing more fitting exists.
        ErrorCode::Cancelled => StatusCode::REQUEST_TIMEOUT,
        ErrorCode::Internal => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

/// An error on its way out.
pub struct Failure {
    status: StatusCode,
    error: AppError,
}

impl Failure {
    /// The same error with another status (400 for a malformed request,
    /// 413 for one too large to read).
    pub fn with_status(status: StatusCode, error: AppError) -> Failure {
        Failure { status, error }
    }

    /// A malformed request: 400, with the field and a reason.
    pub fn bad_request(field: &str, reason: &str, message: impl Into<String>) -> Failure {
        Failure::with_status(
            StatusCode::BAD_REQUEST,
            AppError::invalid_field(field, reason, message),
        )
    }
}

impl From<AppError> for Failure {
    fn from(error: AppError) -> Self {
        Failure {
            status: status(error.code),
            error,
        }
    }
}

impl IntoResponse for Failure {
    fn into_response(self) -> Response {
        if self.status == StatusCode::INTERNAL_SERVER_ERROR {
            tracing::error!("internal error answered: {}", self.error.message);
        }
        let mut response = (self.status, Json(self.error)).into_response();
        if self.status == StatusCode::UNAUTHORIZED {
            response
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        }
        response
    }
}
