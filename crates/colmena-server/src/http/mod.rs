//! The HTTP door (SPEC B3, X1): the REST bus exactly as seed 003 gives it.
//!
//! Each route authenticates the bearer token, calls one core function in
//! `colmena_core::inbox` and maps its error code to a status; who may do
//! what is decided in core, from the token's author. Errors are the
//! boundary type `{code, message, details}` as JSON.
//!
//! | route | core |
//! |---|---|
//! | `POST /author/{id}/message-to/{to_id}` | `messages::send` |
//! | `GET /author/{id}/inbox` | `messages::inbox` |
//! | `GET /author/{id}/sent` | `messages::sent` |
//! | `DELETE /message/{id}` | `messages::delete` |
//! | `GET /openapi.json` | the API described |

mod canvas;
mod errors;
mod mcp;
mod openapi;
mod routes;

use std::future::Future;
use std::net::SocketAddr;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::routing::{delete, get, post};
use colmena_core::{AppError, Ctx, ErrorCode, Result};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

pub use openapi::{PATHS as API_PATHS, document as openapi_document};

/// Largest request body read at all (message bodies have their own, smaller
/// limit in core, with a clear error).
pub(crate) const MAX_REQUEST_BYTES: usize = 1024 * 1024;

/// The router over `ctx`. `stop` ends the MCP sessions; `loopback_only`
/// says the server listens on loopback (so `/mcp` checks `Host`).
pub fn router(ctx: Ctx, stop: CancellationToken, loopback_only: bool) -> Router {
    Router::new()
        .merge(mcp::routes(ctx.clone(), stop, loopback_only))
        .merge(canvas::routes())
        .route("/author/{id}/message-to/{to_id}", post(routes::send))
        .route("/author/{id}/inbox", get(routes::inbox))
        .route("/author/{id}/sent", get(routes::sent))
        .route("/message/{id}", delete(routes::delete))
        .route("/openapi.json", get(routes::openapi))
        .route("/health", get(routes::health))
        .fallback(routes::unknown_route)
        .layer(DefaultBodyLimit::max(MAX_REQUEST_BYTES))
        .with_state(ctx)
}

/// Binds `addr`; an address other than loopback needs `allow_remote` (the
/// bus then answers anyone who can reach the port, token in hand).
pub async fn bind(addr: SocketAddr, allow_remote: bool) -> Result<TcpListener> {
    if !addr.ip().is_loopback() && !allow_remote {
        return Err(AppError::invalid_field(
            "bind",
            "not_loopback",
            format!(
                "{addr} is reachable from other machines; pass --allow-remote to serve there on purpose"
            ),
        ));
    }
    TcpListener::bind(addr).await.map_err(|e| {
        let reason = if e.kind() == std::io::ErrorKind::AddrInUse {
            "address_in_use"
        } else {
            "bind_failed"
        };
        AppError::new(
            ErrorCode::Precondition,
            format!("cannot listen on {addr}: {e}"),
        )
        .with_details(serde_json::json!({ "field": "bind", "reason": reason }))
    })
}

/// Serves until `shutdown` completes; requests in flight are finished first.
pub async fn serve(
    ctx: Ctx,
    listener: TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<()> {
    let loopback_only = listener.local_addr().is_ok_and(|a| a.ip().is_loopback());
    let stop = CancellationToken::new();
    let sessions = stop.clone();
    let shutdown = async move {
        shutdown.await;
        sessions.cancel();
    };
    axum::serve(listener, router(ctx, stop, loopback_only))
        .with_graceful_shutdown(shutdown)
        .await
        .map_err(|e| AppError::internal(format!("the HTTP server stopped: {e}")))
}
