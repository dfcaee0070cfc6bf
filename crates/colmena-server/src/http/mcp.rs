//! `/mcp`: the MCP server over streamable HTTP, on the same server as the
//! REST bus (the app's local server and `colmena serve`).
//!
//! Safe by default, as the MCP specification asks of local servers:
//! - the bearer token is checked first, before rmcp reads a byte of the
//!   body; no token or a wrong one is 401, a token over its rate 429 (the
//!   same [`Gatekeeper`] as the REST routes);
//! - `Host` and a browser `Origin` are checked for every route alike, before
//!   this one (`guard`): a web page cannot drive Colmena through DNS
//!   rebinding; rmcp's own host check is off so the two never disagree;
//! - a session belongs to the author who opened it: another token presenting
//!   its `mcp-session-id` is refused (403) before rmcp sees the request, and
//!   an id never opened here (or closed) is 404;
//! - request bodies are capped like the REST routes' (1 MiB);
//! - sessions end when the server stops (the stop token cancels them, so
//!   shutdown never waits on an open event stream).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::extract::{Request, State};
use axum::http::Method;
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use colmena_core::canvas::Client;
use colmena_core::{AppError, Ctx, ErrorCode};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio_util::sync::CancellationToken;

use super::auth::Gatekeeper;
use super::errors::Failure;
use crate::mcp::{ColmenaMcp, Identity};

/// The `/mcp` route.
pub(crate) fn routes(gatekeeper: Gatekeeper, stop: CancellationToken) -> Router<Ctx> {
    let config = StreamableHttpServerConfig::default()
        .with_cancellation_token(stop)
        .with_max_request_body_bytes(super::MAX_REQUEST_BYTES)
        .disable_allowed_hosts();
    let factory_ctx = gatekeeper.ctx.clone();
    let service = StreamableHttpService::new(
        move || Ok(ColmenaMcp::new(factory_ctx.clone(), Identity::PerRequest)),
        LocalSessionManager::default().into(),
        config,
    );
    let gate = Gate {
        gatekeeper,
        sessions: Arc::new(Mutex::new(HashMap::new())),
    };
    Router::new()
        .route_service("/mcp", service)
        .layer(middleware::from_fn_with_state(gate, require_token))
}

/// What the token check needs: the workspace, and which author opened
/// each MCP session.
#[derive(Clone)]
struct Gate {
    gatekeeper: Gatekeeper,
    sessions: Arc<Mutex<HashMap<String, String>>>,
}

const SESSION_HEADER: &str = "mcp-session-id";

/// The token's author becomes the request's [`Caller`](colmena_core::Caller), or 401 (429 over
/// its rate); a session opened by another author is 403.
async fn require_token(State(gate): State<Gate>, mut request: Request, next: Next) -> Response {
    let caller = match gate
        .gatekeeper
        .admit(request.headers(), Client::OtherMcp)
        .await
    {
        Ok(caller) => caller,
        Err(refusal) => return refusal.into_response(),
    };
    let author = caller.author.clone().unwrap_or_default();
    let session = request
        .headers()
        .get(SESSION_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    if let Some(id) = &session {
        let owner = gate.sessions.lock().ok().and_then(|s| s.get(id).cloned());
        match owner {
            Some(owner) if owner != author => {
                return Failure::from(AppError::new(
                    ErrorCode::Forbidden,
                    "this MCP session was opened with another author's token",
                ))
                .into_response();
            }
            Some(_) => {}
            // Never opened here, or closed: rmcp would accept a DELETE of it.
            None => {
                return Failure::from(AppError::new(
                    ErrorCode::NotFound,
                    "no such MCP session: initialize a new one",
                ))
                .into_response();
            }
        }
    }
    let closing = request.method() == Method::DELETE;
    request.extensions_mut().insert(caller);
    let response = next.run(request).await;
    if let Ok(mut sessions) = gate.sessions.lock() {
        match (&session, response.headers().get(SESSION_HEADER)) {
            (None, Some(opened)) => {
                if let Ok(opened) = opened.to_str() {
                    sessions.insert(opened.to_owned(), author);
                }
            }
            (Some(id), _) if closing && response.status().is_success() => {
                sessions.remove(id);
            }
            _ => {}
        }
    }
    response
}
