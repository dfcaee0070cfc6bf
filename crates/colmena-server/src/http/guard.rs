//! What every request passes before any route sees it:
//!
//! - `Host` must name this machine's loopback (`localhost`, `127.0.0.1`,
//!   `[::1]`, any port) or a name given with `--allowed-host`: a web page
//!   on a rebound domain (DNS rebinding) never reaches the API, `/health`
//!   included. A missing `Host` is refused too.
//! - a browser `Origin`, when present, must be a page of those same hosts:
//!   no foreign page drives Colmena with a token it was handed;
//! - at most `max_in_flight` requests are handled at once; more are 503
//!   `busy` with `Retry-After` at once rather than queued;
//! - a request gets `request_timeout` from its head to its response head,
//!   body read included (408 `cancelled` after that).
//!
//! Refusals are 403 `forbidden` with `details.reason` `host_not_allowed`
//! or `origin_not_allowed`.

use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Request, State};
use axum::http::{HeaderMap, StatusCode, Uri, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use colmena_core::{AppError, ErrorCode};
use serde_json::json;
use tokio::sync::Semaphore;

use super::errors::Failure;

/// The names this machine answers to on loopback.
const LOOPBACK_HOSTS: [&str; 3] = ["localhost", "127.0.0.1", "::1"];

/// The shared state of the checks.
#[derive(Clone)]
pub(crate) struct Guard {
    /// Extra host names, lower case, without port.
    hosts: Arc<Vec<String>>,
    in_flight: Arc<Semaphore>,
    request_timeout: Duration,
}

impl Guard {
    pub(crate) fn new(
        allowed_hosts: &[String],
        max_in_flight: usize,
        request_timeout: Duration,
    ) -> Guard {
        let hosts = allowed_hosts
            .iter()
            .map(|h| normalize_host(h))
            .filter(|h| !h.is_empty())
            .collect();
        Guard {
            hosts: Arc::new(hosts),
            in_flight: Arc::new(Semaphore::new(max_in_flight.max(1))),
            request_timeout,
        }
    }

    fn host_allowed(&self, host: &str) -> bool {
        let host = normalize_host(host);
        LOOPBACK_HOSTS.contains(&host.as_str()) || self.hosts.contains(&host)
    }

    /// The request's `Host` (or its URI's authority) is one of ours.
    fn check_host(&self, uri: &Uri, headers: &HeaderMap) -> Result<(), Failure> {
        let host = headers
            .get(header::HOST)
            .map(|v| v.to_str().ok().map(str::to_owned))
            .unwrap_or_else(|| uri.authority().map(|a| a.as_str().to_owned()));
        match host {
            Some(host) if self.host_allowed(authority_host(&host)) => Ok(()),
            Some(_) => Err(refused(
                "host_not_allowed",
                "this server answers only to its own host names (a rebound or foreign Host is refused)",
            )),
            None => Err(refused(
                "host_not_allowed",
                "a Host header naming this server is required",
            )),
        }
    }

    /// A browser `Origin`, if any, is a page of one of our hosts.
    fn check_origin(&self, headers: &HeaderMap) -> Result<(), Failure> {
        let Some(origin) = headers.get(header::ORIGIN) else {
            return Ok(());
        };
        let allowed = origin
            .to_str()
            .ok()
            .and_then(|o| o.parse::<Uri>().ok())
            .is_some_and(|uri| {
                matches!(uri.scheme_str(), Some("http" | "https"))
                    && uri.authority().is_some_and(|a| self.host_allowed(a.host()))
            });
        if allowed {
            Ok(())
        } else {
            Err(refused(
                "origin_not_allowed",
                "requests from web pages of other sites are refused",
            ))
        }
    }
}

fn refused(reason: &str, message: &str) -> Failure {
    Failure::from(
        AppError::new(ErrorCode::Forbidden, message).with_details(json!({ "reason": reason })),
    )
}

/// `host:port`, `[v6]:port`, `host` → the host alone.
fn authority_host(authority: &str) -> &str {
    if let Some(rest) = authority.strip_prefix('[') {
        return rest.split(']').next().unwrap_or_default();
    }
    match authority.rsplit_once(':') {
        // A second colon means a bare IPv6 address, not a port.
        Some((host, port)) if !host.contains(':') && port.bytes().all(|b| b.is_ascii_digit()) => {
            host
        }
        _ => authority,
    }
}

fn normalize_host(host: &str) -> String {
    host.trim()
        .trim_start_matches('[')
        .trim_end_matches(']')
        .trim_end_matches('.')
        .to_ascii_lowercase()
}

/// Middleware: host and origin, then the in-flight limit and the timeout.
pub(crate) async fn check(State(guard): State<Guard>, request: Request, next: Next) -> Response {
    if let Err(refusal) = guard
        .check_host(request.uri(), request.headers())
        .and_then(|()| guard.check_origin(request.headers()))
    {
        return refusal.into_response();
    }
    let Ok(_permit) = Arc::clone(&guard.in_flight).try_acquire_owned() else {
        return Failure::from(AppError::new(
            ErrorCode::Busy,
            "the server is handling as many requests as it takes at once",
        ))
        .into_response();
    };
    match tokio::time::timeout(guard.request_timeout, next.run(request)).await {
        Ok(response) => response,
        Err(_) => Failure::with_status(
            StatusCode::REQUEST_TIMEOUT,
            AppError::new(
                ErrorCode::Cancelled,
                format!(
                    "the request took longer than {} s and was dropped",
                    guard.request_timeout.as_secs()
                ),
            )
            .with_details(json!({ "reason": "request_timeout" })),
        )
        .into_response(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_names_and_configured_ones_pass_others_do_not() {
        let guard = Guard::new(&["Bus.Example.".into()], 1, Duration::from_secs(1));
        for ok in [
            "localhost",
            "localhost:7878",
            "127.0.0.1:1",
            "[::1]:7878",
            "[::1]",
            "LOCALHOST",
            "bus.example:443",
        ] {
            assert!(guard.host_allowed(authority_host(ok)), "{ok}");
        }
        for bad in [
            "evil.test",
            "evil.test:7878",
            "127.0.0.1.evil.test",
            "localhost.evil.test",
            "0.0.0.0",
            "",
            "[::2]:1",
        ] {
            assert!(!guard.host_allowed(authority_host(bad)), "{bad}");
        }
    }
}
