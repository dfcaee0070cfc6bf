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
//! - one author holds at most [`MAX_SESSIONS_PER_AUTHOR`] sessions (429
//!   `too_many_sessions`) and [`MAX_STREAMS_PER_AUTHOR`] event streams (429
//!   `too_many_streams`): a leaked token, or a client opening sessions in a
//!   loop, cannot fill the server. Sessions rmcp closes (DELETE, idle,
//!   shutdown) stop counting at once ([`mcp_sessions`]);
//! - an event stream (`GET /mcp`) lasts as long as its client keeps it and
//!   holds a connection all that time, so streams together hold at most
//!   three quarters of the connection slots ([`ServerConfig::stream_slots`]);
//!   past that a stream is 503 `busy` (`stream_slots_full`), and `/health`,
//!   tool calls and the REST bus still find a free slot;
//! - a role's token gets no event stream at all (405
//!   `role_no_event_stream`): a role makes quick bus calls whose answers
//!   come on the POST's own stream, and the MCP specification lets a server
//!   answer the GET so; clients then go on without it;
//! - a refused stream's answer says `Connection: close`: its connection
//!   would otherwise sit idle in the client's pool, holding a slot;
//! - request bodies are capped like the REST routes' (1 MiB);
//! - sessions end when the server stops (the stop token cancels them, so
//!   shutdown never waits on an open event stream).

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use colmena_core::caller::Client;
use colmena_core::{AppError, Ctx, ErrorCode};
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::json;
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;

use super::auth::Gatekeeper;
use super::config::{MAX_SESSIONS_PER_AUTHOR, MAX_STREAMS_PER_AUTHOR, ServerConfig};
use super::errors::Failure;
use super::held_body::Holding;
use super::mcp_sessions::{
    self, Opening, SharedOwners, StreamHold, StreamRefused, TrackedSessions,
};
use crate::mcp::{ColmenaMcp, Identity};

/// When a client refused for holding too many streams may try again: a
/// stream ends only when its client closes it, so there is no moment to
/// name; a minute keeps a retrying client from hammering.
const STREAM_RETRY_SECONDS: u64 = 60;

/// The `/mcp` route, with `limits`' stream slots and session idle time.
pub(crate) fn routes(
    gatekeeper: Gatekeeper,
    stop: CancellationToken,
    limits: &ServerConfig,
) -> Router<Ctx> {
    let config = StreamableHttpServerConfig::default()
        .with_cancellation_token(stop)
        .with_max_request_body_bytes(super::MAX_REQUEST_BYTES)
        .disable_allowed_hosts();
    let owners = SharedOwners::default();
    let factory_ctx = gatekeeper.ctx.clone();
    let service = StreamableHttpService::new(
        move || Ok(ColmenaMcp::new(factory_ctx.clone(), Identity::PerRequest)),
        Arc::new(TrackedSessions::new(
            Arc::clone(&owners),
            limits.mcp_session_idle,
        )),
        config,
    );
    let gate = Gate {
        gatekeeper,
        owners,
        stream_slots: Arc::new(Semaphore::new(limits.stream_slots())),
        session_idle: limits.mcp_session_idle,
    };
    Router::new()
        .route_service("/mcp", service)
        .layer(middleware::from_fn_with_state(gate, require_token))
}

/// What the token check needs: the workspace, who opened each MCP session,
/// and what sessions and streams may hold.
#[derive(Clone)]
struct Gate {
    gatekeeper: Gatekeeper,
    owners: SharedOwners,
    /// The connections event streams may hold at once.
    stream_slots: Arc<Semaphore>,
    /// How long an idle session lives: by then a refused `initialize` finds
    /// a place, at the latest.
    session_idle: Duration,
}

const SESSION_HEADER: &str = "mcp-session-id";

/// The token's author becomes the request's [`Caller`](colmena_core::Caller),
/// or 401 (429 over its rate); then the rules of the module's list.
async fn require_token(State(gate): State<Gate>, mut request: Request, next: Next) -> Response {
    let caller = match gate
        .gatekeeper
        .admit(request.headers(), Client::OtherMcp)
        .await
    {
        Ok(caller) => caller,
        Err(refusal) => return refusal.into_response(),
    };
    let method = request.method().clone();
    if method == Method::GET && caller.person().is_err() {
        return no_event_stream_for_roles();
    }
    let author = caller.token_author().unwrap_or_default().to_owned();
    let session = request
        .headers()
        .get(SESSION_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    if let Some(id) = &session
        && let Err(refusal) = check_owner(&gate.owners, id, &author)
    {
        return refusal.into_response();
    }
    request.extensions_mut().insert(caller);
    if method == Method::GET {
        return open_stream(&gate, &author, request, next).await;
    }
    if method == Method::POST && session.is_none() {
        // An `initialize`: the session it opens takes a place reserved
        // among its author's; rmcp records it through `OPENING`.
        let Some(opening) = Opening::reserve(&gate.owners, &author) else {
            return too_many_sessions(gate.session_idle);
        };
        return mcp_sessions::OPENING
            .scope(opening, next.run(request))
            .await;
    }
    next.run(request).await
}

/// Session `id` is open and `author`'s; else 403 (another author's) or 404
/// (never opened here, or closed: rmcp would accept a DELETE of it).
fn check_owner(owners: &SharedOwners, id: &str, author: &str) -> Result<(), Failure> {
    match mcp_sessions::lock(owners).owner(id) {
        Some(owner) if owner == author => Ok(()),
        Some(_) => Err(Failure::from(AppError::new(
            ErrorCode::Forbidden,
            "this MCP session was opened with another author's token",
        ))),
        None => Err(Failure::from(AppError::new(
            ErrorCode::NotFound,
            "no such MCP session: initialize a new one",
        ))),
    }
}

/// `GET`: an event stream, within its author's cap and the server's stream
/// slots, both held by the response body for as long as hyper sends it.
async fn open_stream(gate: &Gate, author: &str, request: Request, next: Next) -> Response {
    let hold = match StreamHold::take(&gate.owners, &gate.stream_slots, author) {
        Ok(hold) => hold,
        Err(refused) => return stream_refused(refused),
    };
    let response = next.run(request).await;
    if !response.status().is_success() {
        return response;
    }
    response.map(|body| Body::new(Holding::new(body, hold)))
}

/// A role's token asked for an event stream: 405, as the MCP specification
/// lets a server answer a GET it does not offer.
fn no_event_stream_for_roles() -> Response {
    let error = AppError::new(
        ErrorCode::Forbidden,
        "a role's token has no event stream: call the bus tools with POST /mcp \
         (each answer comes on its POST's own stream)",
    )
    .with_details(json!({ "reason": "role_no_event_stream" }));
    let mut response = Failure::with_status(StatusCode::METHOD_NOT_ALLOWED, error).into_response();
    response
        .headers_mut()
        .insert(header::ALLOW, HeaderValue::from_static("POST, DELETE"));
    closing(response)
}

fn too_many_sessions(idle: Duration) -> Response {
    Failure::from(AppError::rate_limited(
        "too_many_sessions",
        idle.as_secs(),
        format!(
            "this token holds {MAX_SESSIONS_PER_AUTHOR} MCP sessions already: close one \
             (DELETE /mcp) or let one sit idle for {} s",
            idle.as_secs()
        ),
    ))
    .into_response()
}

fn stream_refused(refused: StreamRefused) -> Response {
    let error = match refused {
        StreamRefused::TooMany => AppError::rate_limited(
            "too_many_streams",
            STREAM_RETRY_SECONDS,
            format!(
                "this token holds {MAX_STREAMS_PER_AUTHOR} MCP event streams already: close one first"
            ),
        ),
        StreamRefused::SlotsFull => AppError::new(
            ErrorCode::Busy,
            "every event-stream slot of the server is taken",
        )
        .with_details(json!({ "reason": "stream_slots_full", "retryAfterSeconds": 1 })),
    };
    closing(Failure::from(error).into_response())
}

/// The answer ends its connection: a refused stream's connection would
/// otherwise sit idle in the client's pool, holding one of the slots.
fn closing(mut response: Response) -> Response {
    response
        .headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}
