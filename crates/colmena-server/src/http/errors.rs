//! Core errors as HTTP answers: the status from the stable code, the body
//! the boundary type `{code, message, details}` itself.
//!
//! A 5xx body carries no internal detail: a generic message and a request
//! id (also in `x-request-id`), and for `busy` its stable `details.reason`;
//! the detail goes to the log under that id.
//! Retryable codes carry `Retry-After`: `rate_limited` (429) and `busy`
//! (503). Answers that did not come from here (a framework rejection, a
//! panic, rmcp's plain-text refusals) are rewritten to the same JSON shape
//! by [`json_errors`], so every error a client sees is JSON.

use axum::Json;
use axum::body::Body;
use axum::extract::Request;
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use colmena_core::{AppError, ErrorCode};
use serde_json::json;

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
        ErrorCode::RateLimited => StatusCode::TOO_MANY_REQUESTS,
        ErrorCode::Busy => StatusCode::SERVICE_UNAVAILABLE,
        ErrorCode::Internal => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

/// The code a status stands for, for answers that carry no code of ours.
fn code_of(status: StatusCode) -> ErrorCode {
    match status {
        StatusCode::UNAUTHORIZED => ErrorCode::Unauthorized,
        StatusCode::FORBIDDEN => ErrorCode::Forbidden,
        StatusCode::NOT_FOUND | StatusCode::METHOD_NOT_ALLOWED | StatusCode::GONE => {
            ErrorCode::NotFound
        }
        StatusCode::REQUEST_TIMEOUT => ErrorCode::Cancelled,
        StatusCode::CONFLICT => ErrorCode::Conflict,
        StatusCode::TOO_MANY_REQUESTS => ErrorCode::RateLimited,
        StatusCode::SERVICE_UNAVAILABLE => ErrorCode::Busy,
        StatusCode::BAD_GATEWAY | StatusCode::GATEWAY_TIMEOUT => ErrorCode::Upstream,
        s if s.is_client_error() => ErrorCode::Validation,
        _ => ErrorCode::Internal,
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
        if self.status.is_server_error() {
            // A busy answer's reason is a stable word (`store_busy`,
            // `stream_slots_full`), never internal detail: it is kept.
            let reason = match self.error.code {
                ErrorCode::Busy => self
                    .error
                    .details
                    .as_ref()
                    .and_then(|d| d.get("reason"))
                    .and_then(serde_json::Value::as_str),
                _ => None,
            };
            return server_error(self.status, self.error.code, &self.error.message, reason);
        }
        let retry = self.error.retry_after_seconds();
        let mut response = (self.status, Json(self.error)).into_response();
        let headers = response.headers_mut();
        if self.status == StatusCode::UNAUTHORIZED {
            headers.insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        }
        if let Some(seconds) = retry {
            headers.insert(header::RETRY_AFTER, HeaderValue::from(seconds));
        }
        response
    }
}

/// A 5xx answer: a generic message, a request id and, when given, the
/// stable `reason`; the detail is logged.
pub(crate) fn server_error(
    status: StatusCode,
    code: ErrorCode,
    detail: &str,
    reason: Option<&str>,
) -> Response {
    let id = uuid::Uuid::now_v7().to_string();
    let message = match code {
        ErrorCode::Busy => "the server is busy; try again in a moment",
        ErrorCode::Upstream => "a service the server depends on failed",
        _ => "the server could not handle this request",
    };
    if code == ErrorCode::Busy {
        tracing::warn!(request_id = %id, "answered busy: {detail}");
    } else {
        tracing::error!(request_id = %id, "answered {status}: {detail}");
    }
    let mut details = json!({ "requestId": id });
    if let Some(reason) = reason {
        details["reason"] = json!(reason);
    }
    let body = AppError::new(code, format!("{message} (request id {id})")).with_details(details);
    let mut response = (status, Json(body)).into_response();
    let headers = response.headers_mut();
    if let Ok(value) = HeaderValue::from_str(&id) {
        headers.insert("x-request-id", value);
    }
    if code == ErrorCode::Busy {
        headers.insert(header::RETRY_AFTER, HeaderValue::from(1u64));
    }
    response
}

/// Largest foreign error body kept as the message of its JSON rewrite.
const FOREIGN_BODY_BYTES: usize = 16 * 1024;

/// Middleware: an error answer that is not JSON becomes `{code, message,
/// details}` with the code its status stands for (4xx keep their text as the
/// message; 5xx say nothing but a request id).
pub async fn json_errors(request: Request, next: Next) -> Response {
    let response = next.run(request).await;
    let status = response.status();
    if !(status.is_client_error() || status.is_server_error()) || is_json(&response) {
        return response;
    }
    let (parts, body) = response.into_parts();
    let text = axum::body::to_bytes(body, FOREIGN_BODY_BYTES)
        .await
        .map(|b| String::from_utf8_lossy(&b).trim().to_owned())
        .unwrap_or_default();
    let code = code_of(status);
    let mut rewritten = if status.is_server_error() {
        server_error(status, code, &text, None)
    } else {
        let message = if text.is_empty() {
            status
                .canonical_reason()
                .unwrap_or("the request was refused")
                .to_owned()
        } else {
            text
        };
        (status, Json(AppError::new(code, message))).into_response()
    };
    // Keep what the refusal said in its headers (Allow, WWW-Authenticate, …).
    for (name, value) in &parts.headers {
        if name != header::CONTENT_TYPE && name != header::CONTENT_LENGTH {
            rewritten.headers_mut().insert(name.clone(), value.clone());
        }
    }
    rewritten
}

fn is_json(response: &Response<Body>) -> bool {
    response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_busy_store_is_503_with_retry_after_and_no_detail() {
        let busy = AppError::busy("SQLITE_BUSY at /secret/path/colmena.db");
        let response = Failure::from(busy).into_response();
        assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(response.headers()[header::RETRY_AFTER], "1");
        let body = axum::body::to_bytes(response.into_body(), 4096)
            .await
            .unwrap_or_default();
        let text = String::from_utf8_lossy(&body);
        assert!(text.contains("\"busy\""), "{text}");
        assert!(
            text.contains("\"store_busy\""),
            "the reason is kept: {text}"
        );
        assert!(!text.contains("secret"), "{text}");
    }

    #[tokio::test]
    async fn an_internal_error_says_nothing_but_a_request_id() {
        let response = Failure::from(AppError::internal("store error: /home/x")).into_response();
        assert_eq!(response.status(), StatusCode::INTERNAL_SERVER_ERROR);
        assert!(response.headers().contains_key("x-request-id"));
        let body = axum::body::to_bytes(response.into_body(), 4096)
            .await
            .unwrap_or_default();
        let text = String::from_utf8_lossy(&body);
        assert!(
            !text.contains("/home/x") && text.contains("requestId"),
            "{text}"
        );
    }
}
