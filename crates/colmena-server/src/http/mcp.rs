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
//! - sessions end when the server stops (the stop token cancels them, so
//!   shutdown never waits on an open event stream).

use axum::Router;
use axum::extract::{Request, State};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use colmena_core::canvas::Client;
use colmena_core::{Caller, Ctx};
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
    Router::new()
        .route_service("/mcp", service)
        .layer(middleware::from_fn_with_state(ctx, require_token))
}

/// The token's author becomes the request's [`Caller`], or 401.
async fn require_token(State(ctx): State<Ctx>, mut request: Request, next: Next) -> Response {
    let caller = match bearer(request.headers()) {
        Ok(token) => Caller::from_token(&ctx, token, Client::OtherMcp).await,
        Err(failure) => return failure.into_response(),
    };
    match caller {
        Ok(caller) => {
            request.extensions_mut().insert(caller);
            next.run(request).await
        }
        Err(error) => Failure::from(error).into_response(),
    }
}
