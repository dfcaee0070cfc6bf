//! The shared transport: one HTTP client, timeouts, retries with backoff
//! that honour `Retry-After`, and cancellation that drops the stream (the
//! provider sees the connection close and stops generating).
//!
//! Redirects are followed only within the origin (scheme, host and port) of
//! the provider's base URL. A redirect to another origin is not followed and
//! ends the call with an `upstream` error (`redirect_refused`): the request
//! carries the API key (`Authorization`, `x-api-key`), and reqwest strips
//! only some of those headers on a cross-host redirect.
//!
//! A provider's error body is quoted in the `upstream` message so a person
//! sees why it refused; some servers echo the request's key back in it, so
//! every occurrence of the endpoint's key is replaced by its masked form
//! first ([`without_key`]).

use std::sync::OnceLock;
use std::time::Duration;

use futures_util::StreamExt;
use reqwest::StatusCode;
use serde_json::json;

use super::{
    Accumulator, CallOptions, ChatRequest, ChatResponse, Endpoint, StreamEvent, WireProtocol,
};
use crate::error::{AppError, ErrorCode, Result};

fn client() -> Result<&'static reqwest::Client> {
    static CLIENT: OnceLock<Result<reqwest::Client>> = OnceLock::new();
    CLIENT
        .get_or_init(|| {
            reqwest::Client::builder()
                .user_agent(concat!("colmena/", env!("CARGO_PKG_VERSION")))
                .pool_idle_timeout(Duration::from_secs(60))
                .redirect(same_origin_redirects())
                .build()
                .map_err(|e| AppError::internal(format!("cannot build the HTTP client: {e}")))
        })
        .as_ref()
        .map_err(Clone::clone)
}

/// Follows at most 5 redirects, all within the first request's origin.
fn same_origin_redirects() -> reqwest::redirect::Policy {
    reqwest::redirect::Policy::custom(|attempt| {
        let same_origin = attempt
            .previous()
            .first()
            .is_some_and(|first| first.origin() == attempt.url().origin());
        if !same_origin {
            attempt.stop()
        } else if attempt.previous().len() > 5 {
            attempt.error("too many redirects")
        } else {
            attempt.follow()
        }
    })
}

/// The refusal of a redirect that was not followed (another origin).
fn redirect_refused(
    endpoint: &Endpoint,
    status: StatusCode,
    headers: &reqwest::header::HeaderMap,
    from: &url::Url,
) -> AppError {
    let target = headers
        .get(reqwest::header::LOCATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|location| from.join(location).ok())
        .map(|to| to.origin().ascii_serialization())
        .unwrap_or_else(|| "another address".to_owned());
    upstream(
        format!(
            "the provider at {} redirected ({status}) to {target}; Colmena does not follow \
             redirects to another host, so the API key is not sent there: check the base URL",
            endpoint.base_url
        ),
        json!({ "reason": "redirect_refused", "status": status.as_u16() }),
    )
}

/// `text` with every occurrence of the endpoint's API key masked.
pub(crate) fn without_key(endpoint: &Endpoint, text: &str) -> String {
    match endpoint.api_key.as_deref().map(String::as_str) {
        Some(key) if !key.is_empty() && text.contains(key) => {
            text.replace(key, &crate::secrets::mask_secret(key))
        }
        _ => text.to_owned(),
    }
}

pub(crate) fn cancelled() -> AppError {
    AppError::new(ErrorCode::Cancelled, "cancelled")
}

fn upstream(message: impl Into<String>, details: serde_json::Value) -> AppError {
    AppError::new(ErrorCode::Upstream, message).with_details(details)
}

/// How long a 429 or 5xx asks us to wait: `Retry-After` in seconds or as an
/// HTTP date, else exponential backoff from the policy.
pub(crate) fn retry_delay(
    headers: &reqwest::header::HeaderMap,
    attempt: u32,
    options: &CallOptions,
) -> Duration {
    let policy = &options.retry;
    let asked = headers
        .get(reqwest::header::RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| {
            v.trim()
                .parse::<f64>()
                .ok()
                .map(Duration::from_secs_f64)
                .or_else(|| {
                    chrono::DateTime::parse_from_rfc2822(v.trim())
                        .ok()
                        .map(|at| {
                            (at.with_timezone(&chrono::Utc) - chrono::Utc::now())
                                .to_std()
                                .unwrap_or_default()
                        })
                })
        });
    let backoff = policy
        .base_delay
        .saturating_mul(2u32.saturating_pow(attempt));
    asked.unwrap_or(backoff).min(policy.max_delay)
}

fn retryable(status: StatusCode) -> bool {
    status == StatusCode::TOO_MANY_REQUESTS || status.is_server_error()
}

/// Sends the request (retrying while nothing has streamed yet) and decodes
/// the streamed answer.
pub(crate) async fn stream_chat(
    protocol: &dyn WireProtocol,
    endpoint: &Endpoint,
    request: &ChatRequest,
    options: &CallOptions,
    sink: &mut (dyn FnMut(StreamEvent) + Send),
) -> Result<ChatResponse> {
    let wire = protocol.request(endpoint, request)?;
    let client = client()?;
    let mut attempt = 0;
    let response = loop {
        let mut builder = client.post(&wire.url).json(&wire.body);
        for (name, value) in &wire.headers {
            builder = builder.header(name, value);
        }
        let send = tokio::time::timeout(options.connect_timeout, builder.send());
        let sent = tokio::select! {
            _ = options.cancel.cancelled() => return Err(cancelled()),
            sent = send => sent,
        };
        let response = match sent {
            Err(_) => {
                return Err(upstream(
                    format!(
                        "{} did not answer within {} s",
                        wire.url,
                        options.connect_timeout.as_secs()
                    ),
                    json!({ "reason": "timeout" }),
                ));
            }
            Ok(Err(e)) => {
                return Err(upstream(
                    format!("cannot reach {}: {e}", endpoint.base_url),
                    json!({ "reason": "unreachable" }),
                ));
            }
            Ok(Ok(response)) => response,
        };
        let status = response.status();
        if status.is_success() {
            break response;
        }
        if status.is_redirection() {
            return Err(redirect_refused(
                endpoint,
                status,
                response.headers(),
                response.url(),
            ));
        }
        if retryable(status) && attempt < options.retry.max_retries {
            let delay = retry_delay(response.headers(), attempt, options);
            attempt += 1;
            tracing::info!("provider answered {status}; retry {attempt} in {delay:?}");
            tokio::select! {
                _ = options.cancel.cancelled() => return Err(cancelled()),
                _ = tokio::time::sleep(delay) => continue,
            }
        }
        let body = without_key(endpoint, &response.text().await.unwrap_or_default());
        let said = without_key(
            endpoint,
            &protocol
                .error_message(&body)
                .unwrap_or_else(|| body.chars().take(300).collect()),
        );
        let message = match status {
            StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN => {
                format!("the provider refused the API key ({status}): {said}")
            }
            StatusCode::NOT_FOUND => {
                format!("the provider does not know this model or path ({status}): {said}")
            }
            StatusCode::TOO_MANY_REQUESTS => {
                format!("the provider is rate-limiting ({status}) after {attempt} retries: {said}")
            }
            _ => format!("the provider answered {status}: {said}"),
        };
        let reason = match status {
            StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN => "auth_refused",
            StatusCode::TOO_MANY_REQUESTS => "rate_limited",
            _ => "provider_error",
        };
        return Err(upstream(
            message,
            json!({ "reason": reason, "status": status.as_u16() }),
        ));
    };

    let mut decoder = protocol.decoder();
    let mut accumulator = Accumulator::default();
    let mut pieces = Vec::new();
    let mut stream = response.bytes_stream();
    loop {
        let next = tokio::select! {
            _ = options.cancel.cancelled() => return Err(cancelled()),
            next = tokio::time::timeout(options.idle_timeout, stream.next()) => next,
        };
        let chunk = match next {
            Err(_) => {
                return Err(upstream(
                    format!(
                        "the provider stopped streaming for {} s",
                        options.idle_timeout.as_secs()
                    ),
                    json!({ "reason": "timeout" }),
                ));
            }
            Ok(None) => break,
            Ok(Some(Err(e))) => {
                return Err(upstream(
                    format!("the stream broke: {e}"),
                    json!({ "reason": "stream_broken" }),
                ));
            }
            Ok(Some(Ok(chunk))) => chunk,
        };
        decoder.feed(&chunk, &mut pieces)?;
        for piece in pieces.drain(..) {
            accumulator.apply(piece, sink);
        }
    }
    decoder.finish(&mut pieces)?;
    for piece in pieces.drain(..) {
        accumulator.apply(piece, sink);
    }
    accumulator.into_response()
}
