//! `/mcp`: the MCP server over streamable HTTP, on the same server as the
//! REST bus (the app's local server and `colmena serve`).
//!
//! Safe by default, as the MCP specification asks of local servers:
//! - the bearer token is checked first, before rmcp reads a byte of the
//!   body; no token or a wrong one is 401;
//! - a request carrying a browser `Origin` that is not a loopback page is
//!   refused (403): a web page cannot drive Colmena through DNS rebinding;
//! - on loopback, the `Host` must be a loopback name too; a server bound
//!   elsewhere on purpose (`--allow-remote`) leaves `Host` to the token;
//! - a session belongs to the author who opened it: another token presenting
//!   its `mcp-session-id` is refused (403) before rmcp sees the request;
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
use colmena_core::{AppError, Caller, Ctx, ErrorCode};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio_util::sync::CancellationToken;

use super::errors::Failure;
use super::routes::bearer;
use crate::mcp::{ColmenaMcp, Identity};

/// Browser origins allowed at all: pages served from this machine.
const LOOPBACK_ORIGINS: [&str; 3] = ["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"];

/// The `/mcp` route.
pub fn routes(ctx: Ctx, stop: CancellationToken, loopback_only: bool) -> Router<Ctx> {
    let mut config = StreamableHttpServerConfig::default()
        .with_cancellation_token(stop)
        .with_max_request_body_bytes(super::MAX_REQUEST_BYTES)
        .with_allowed_origins(LOOPBACK_ORIGINS)
        .enforce_origin_validation();
    if !loopback_only {
        config = config.disable_allowed_hosts();
    }
    let factory_ctx = ctx.clone();
    let service = StreamableHttpService::new(
        move || Ok(ColmenaMcp::new(factory_ctx.clone(), Identity::PerRequest)),
        LocalSessionManager::default().into(),
        config,
    );
    let gate = Gate {
        ctx,
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
    ctx: Ctx,
    sessions: Arc<Mutex<HashMap<String, String>>>,
}

const SESSION_HEADER: &str = "mcp-session-id";

/// The token's author becomes the request's [`Caller`], or 401; a session
/// opened by another author is 403.
async fn require_token(State(gate): State<Gate>, mut request: Request, next: Next) -> Response {
    let caller = match bearer(request.headers()) {
        Ok(token) => Caller::from_token(&gate.ctx, token, Client::OtherMcp).await,
        Err(failure) => return failure.into_response(),
    };
    let caller = match caller {
        Ok(caller) => caller,
        Err(error) => return Failure::from(error).into_response(),
    };
    let author = caller.author.clone().unwrap_or_default();
    let session = request
        .headers()
        .get(SESSION_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    if let Some(id) = &session {
        let owner = gate.sessions.lock().ok().and_then(|s| s.get(id).cloned());
        if owner.is_some_and(|owner| owner != author) {
            return Failure::from(AppError::new(
                ErrorCode::Forbidden,
                "this MCP session was opened with another author's token",
            ))
            .into_response();
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
