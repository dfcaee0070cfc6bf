//! The token check, once for every authenticated route, before the body is
//! read: the bearer token becomes the request's [`Caller`] (or 401), then
//! its author's rate limit is taken (or 429). Only then does a handler read
//! the body — a client without a valid token, or over its rate, never has
//! a byte of its body read or any core work done.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{HeaderMap, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use colmena_core::caller::Client;
use colmena_core::inbox::authors;
use colmena_core::{AppError, Caller, Ctx, ErrorCode};

use super::errors::Failure;
use super::ratelimit::RateLimiter;

/// The workspace and the per-token rate limits.
#[derive(Clone)]
pub(crate) struct Gatekeeper {
    pub(crate) ctx: Ctx,
    limits: Arc<RateLimiter>,
}

impl Gatekeeper {
    pub(crate) fn new(ctx: Ctx, limits: RateLimiter) -> Gatekeeper {
        Gatekeeper {
            ctx,
            limits: Arc::new(limits),
        }
    }

    /// The author whose token `headers` carry, within its rate, or the
    /// refusal (401, 429).
    pub(crate) async fn admit(
        &self,
        headers: &HeaderMap,
        client: Client,
    ) -> Result<Caller, Failure> {
        let token = bearer(headers)?;
        let caller = authors::caller_from_token(&self.ctx, token, client).await?;
        let key = caller.token_author().unwrap_or_default();
        self.limits.check(key)?;
        Ok(caller)
    }
}

/// The bearer token of a request, or 401.
pub(crate) fn bearer(headers: &HeaderMap) -> Result<&str, Failure> {
    headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| {
            v.strip_prefix("Bearer ")
                .or_else(|| v.strip_prefix("bearer "))
        })
        .ok_or_else(|| {
            Failure::from(AppError::new(
                ErrorCode::Unauthorized,
                "an Authorization: Bearer <token> header is required",
            ))
        })
}

/// Middleware for the REST routes: the [`Caller`] goes into the request's
/// extensions for the handler.
pub(crate) async fn require_token(
    State(gate): State<Gatekeeper>,
    mut request: Request,
    next: Next,
) -> Response {
    match gate.admit(request.headers(), Client::Http).await {
        Ok(caller) => {
            request.extensions_mut().insert(caller);
            next.run(request).await
        }
        Err(refusal) => refusal.into_response(),
    }
}
