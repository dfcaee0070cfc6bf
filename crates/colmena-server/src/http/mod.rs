//! The HTTP door (SPEC B3, X1): the REST bus exactly as seed 003 gives it,
//! the canvas REST routes, and MCP over `/mcp`.
//!
//! Each route calls one core function and maps its error code to a status;
//! who may do what is decided in core, from the token's author. Errors are
//! the boundary type `{code, message, details}` as JSON, always.
//!
//! | route | core |
//! |---|---|
//! | `POST /author/{id}/message-to/{to_id}` | `messages::send` |
//! | `GET /author/{id}/inbox` | `messages::inbox` |
//! | `GET /author/{id}/sent` | `messages::sent` |
//! | `GET /author/{id}/search?q=` | `inbox::search::search` |
//! | `GET /authors` | `contracts::bus::list_authors` (the directory) |
//! | `DELETE /message/{id}` | `messages::delete` |
//! | `GET /openapi.json` | the API described |
//! | `GET /v1/models`, `POST /v1/chat/completions` | `models::openai_api` (the local models, OpenAI-compatible) |
//!
//! Safe by default (the issue "Safe by default", item 4). Outermost first:
//! [`listener`] (header timeout, connection cap, TLS), then for every
//! request [`unread_body`] (what a handler left unread of a body is drained,
//! or the answer says `Connection: close`), [`errors::json_errors`] (JSON error bodies, nothing internal in a
//! 5xx), a panic caught as a 500, [`guard`] (`Host`, `Origin`, requests in
//! flight, request timeout), then per route [`auth`] (token, then the
//! token's rate limit) before any body is read; `/mcp` adds its caps on
//! sessions and event streams ([`mcp`]). Limits and defaults are in
//! [`ServerConfig`].

mod auth;
mod canvas;
mod config;
mod errors;
mod guard;
mod held_body;
mod listener;
mod mcp;
mod mcp_sessions;
mod openai;
mod openapi;
mod ratelimit;
mod routes;
mod tls;
mod unread_body;

use std::future::Future;
use std::net::SocketAddr;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::routing::{delete, get, post};
use colmena_core::{AppError, Ctx, ErrorCode, Result};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use tower_http::catch_panic::CatchPanicLayer;

pub use config::ServerConfig;
pub use openapi::{PATHS as API_PATHS, document as openapi_document};
pub use tls::Tls;

/// Largest request body read at all (message bodies have their own, smaller
/// limit in core, with a clear error).
pub(crate) const MAX_REQUEST_BYTES: usize = 1024 * 1024;

/// The router over `ctx` with `config`'s limits. `stop` ends the MCP
/// sessions.
pub fn router(ctx: Ctx, stop: CancellationToken, config: &ServerConfig) -> Router {
    let gatekeeper = auth::Gatekeeper::new(
        ctx.clone(),
        ratelimit::RateLimiter::new(config.rate_per_second, config.rate_burst),
    );
    let bus = Router::new()
        .merge(canvas::routes())
        .merge(openai::routes())
        .route("/author/{id}/message-to/{to_id}", post(routes::send))
        .route("/author/{id}/inbox", get(routes::inbox))
        .route("/author/{id}/sent", get(routes::sent))
        .route("/author/{id}/search", get(routes::search))
        .route("/author/{id}/thread/{message_id}", get(routes::thread))
        .route("/author/{id}/mark-unread", post(routes::mark_unread))
        .route("/authors", get(routes::authors))
        .route("/message/{id}", delete(routes::delete))
        .route_layer(axum::middleware::from_fn_with_state(
            gatekeeper.clone(),
            auth::require_token,
        ));
    let guard = guard::Guard::new(
        &config.allowed_hosts,
        config.max_in_flight,
        config.request_timeout,
    );
    Router::new()
        .merge(mcp::routes(gatekeeper, stop, config))
        .merge(bus)
        .route("/openapi.json", get(routes::openapi))
        .route("/health", get(routes::health))
        .fallback(routes::unknown_route)
        .layer(DefaultBodyLimit::max(MAX_REQUEST_BYTES))
        .with_state(ctx)
        .layer(axum::middleware::from_fn_with_state(guard, guard::check))
        .layer(CatchPanicLayer::new())
        .layer(axum::middleware::from_fn(errors::json_errors))
        .layer(axum::middleware::from_fn(unread_body::drain))
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

/// Serves with the default limits until `shutdown` completes; requests in
/// flight are finished first.
pub async fn serve(
    ctx: Ctx,
    listener: TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<()> {
    serve_with(ctx, listener, ServerConfig::default(), shutdown).await
}

/// Serves with `config`'s limits until `shutdown` completes.
pub async fn serve_with(
    ctx: Ctx,
    listener: TcpListener,
    config: ServerConfig,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<()> {
    let stop = CancellationToken::new();
    let sessions = stop.clone();
    let shutdown = async move {
        shutdown.await;
        sessions.cancel();
    };
    let app = router(ctx, stop, &config);
    listener::run(listener, app, &config, shutdown).await;
    Ok(())
}
