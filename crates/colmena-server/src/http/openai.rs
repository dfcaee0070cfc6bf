//! The local models over an OpenAI-compatible API (issue 35), for other
//! programs on this computer: `GET /v1/models` and `POST
//! /v1/chat/completions` (streamed as server-sent events when asked),
//! behind the same token and Host/Origin rules as every other route. One
//! line each over `models::openai_api`.

use std::convert::Infallible;

use axum::body::Bytes;
use axum::extract::State;
use axum::response::sse::{Event, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use colmena_core::models::openai_api::{self, Completion, CompletionRequest};
use colmena_core::{AppError, Ctx};
use futures_util::stream::StreamExt;
use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::errors::Failure;

pub fn routes() -> Router<Ctx> {
    Router::new()
        .route("/v1/models", get(models))
        .route("/v1/chat/completions", post(chat_completions))
}

async fn models(State(ctx): State<Ctx>) -> Result<Json<Value>, Failure> {
    Ok(Json(openai_api::models(&ctx).await?))
}

async fn chat_completions(State(ctx): State<Ctx>, body: Bytes) -> Result<Response, Failure> {
    let request: CompletionRequest = serde_json::from_slice(&body).map_err(|e| {
        Failure::bad_request(
            "body",
            "invalid_json",
            format!("not a chat completion request: {e}"),
        )
    })?;
    let id = format!("chatcmpl-{}", uuid::Uuid::now_v7().simple());
    let created = chrono::Utc::now().timestamp();
    if !request.stream {
        let done =
            openai_api::complete(&ctx, request, CancellationToken::new(), &mut |_| {}).await?;
        return Ok(Json(done.to_json(&id, created)).into_response());
    }
    // Streamed: the completion runs in a task; a client that goes away
    // closes the channel, which cancels it.
    let (send, receive) = mpsc::unbounded_channel::<Piece>();
    let cancel = CancellationToken::new();
    let watch = send.clone();
    let stop = cancel.clone();
    tokio::spawn(async move {
        watch.closed().await;
        stop.cancel();
    });
    let model = request.model.clone();
    tokio::spawn(async move {
        let texts = send.clone();
        let outcome = openai_api::complete(&ctx, request, cancel, &mut |text| {
            let _gone = texts.send(Piece::Text(text.to_owned()));
        })
        .await;
        let _gone = send.send(match outcome {
            Ok(done) => Piece::Done(done),
            Err(e) => Piece::Failed(e),
        });
    });
    let chunk = move |delta: Value, finish: Option<&str>, usage: Option<Value>| {
        let mut c = json!({
            "id": id,
            "object": "chat.completion.chunk",
            "created": created,
            "model": model,
            "choices": [{ "index": 0, "delta": delta, "finish_reason": finish }],
        });
        if let Some(usage) = usage {
            c["usage"] = usage;
        }
        Event::default().data(c.to_string())
    };
    let first = chunk(json!({ "role": "assistant", "content": "" }), None, None);
    let events = tokio_stream_of(receive).flat_map(move |piece| {
        let events: Vec<Event> = match piece {
            Piece::Text(text) => vec![chunk(json!({ "content": text }), None, None)],
            Piece::Done(done) => {
                let mut out = Vec::new();
                if !done.tool_calls.is_empty() {
                    out.push(chunk(
                        json!({ "tool_calls": openai_api::tool_calls_json(&done.tool_calls) }),
                        None,
                        None,
                    ));
                }
                out.push(chunk(
                    json!({}),
                    Some(done.finish_reason),
                    Some(done.usage_json()),
                ));
                out.push(Event::default().data("[DONE]"));
                out
            }
            Piece::Failed(e) => vec![Event::default().data(json!({ "error": e }).to_string())],
        };
        futures_util::stream::iter(events.into_iter().map(Ok::<Event, Infallible>))
    });
    let all =
        futures_util::stream::once(async move { Ok::<Event, Infallible>(first) }).chain(events);
    Ok(Sse::new(all).into_response())
}

enum Piece {
    Text(String),
    Done(Completion),
    Failed(AppError),
}

/// The pieces as they come, ending after the last one (`Done` or
/// `Failed`): the channel itself stays open while the watcher holds it.
fn tokio_stream_of(
    mut receive: mpsc::UnboundedReceiver<Piece>,
) -> impl futures_util::Stream<Item = Piece> {
    let mut ended = false;
    futures_util::stream::poll_fn(move |cx| {
        if ended {
            return std::task::Poll::Ready(None);
        }
        let next = receive.poll_recv(cx);
        if let std::task::Poll::Ready(Some(Piece::Done(_) | Piece::Failed(_))) = &next {
            ended = true;
        }
        next
    })
}
