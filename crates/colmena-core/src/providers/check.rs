//! "Test connection" (issue 12): one tiny real call to a model, its answer
//! streamed as it is written, so a person sees the model speak before
//! trusting it with an agent.
//!
//! The call goes through the same client, endpoint and key as every agent
//! run (`llm::chat` over `models::resolve::resolve_model_for`), so a test that passes
//! means runs will reach the model; it is small on purpose (one short
//! sentence, [`MAX_TOKENS`]) and fails fast (one retry, short timeouts).
//! Errors keep the client's stable codes and reasons — `upstream` with
//! `unreachable`, `timeout`, `auth_refused`, `provider_error`,
//! `rate_limited`, `stream_broken`; `precondition` with `provider_disabled`
//! or `model_disabled`; `not_found` — plus `empty_answer` when the model
//! said nothing. A model that answers while no default is set becomes the
//! default (see `models`).
//!
//! Bounds, so a test can never run away: the whole call has a time limit
//! ([`TIME_LIMIT`], `upstream` with reason `timeout`); the collected text is
//! capped at [`MAX_TEXT_CHARS`] (the call stops there and what came is the
//! answer); and when the window stops listening (the sink reports that the
//! send failed) the call is cancelled rather than left generating.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::ctx::{Change, Ctx};
use crate::error::{AppError, ErrorCode, Result};
use crate::ids::ModelId;
use crate::llm::{self, CallOptions, ChatRequest, Message, RetryPolicy, StreamEvent};
use crate::models;
use crate::models::resolve::resolve_model_for;

/// The answer is one sentence; this bounds what a chatty model costs.
pub const MAX_TOKENS: u32 = 48;
/// The longest a whole test may take, the first token included.
pub const TIME_LIMIT: Duration = Duration::from_secs(120);
/// The most text a test collects and streams (a server that ignores
/// `max_tokens` is stopped there).
pub const MAX_TEXT_CHARS: usize = 4096;
const SYSTEM: &str =
    "You are answering a connection test. Reply with one short, friendly sentence.";
const PROMPT: &str = "Say hello and tell me which model you are, in one short sentence.";

/// What streams while the model answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum CheckEvent {
    Delta { text: String },
}

/// Where the answer streams; it returns `false` once nobody listens any
/// more (the window closed the channel), which stops the test.
pub type CheckSink = Arc<dyn Fn(CheckEvent) -> bool + Send + Sync>;

/// A connection that answered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ConnectionCheck {
    pub model_id: ModelId,
    /// The whole answer, as streamed.
    pub text: String,
    pub latency_ms: u32,
    /// It became the workspace's default model with this test.
    pub became_default: bool,
}

/// Asks `model` for one sentence, streaming it into `sink`, within
/// [`TIME_LIMIT`].
pub async fn test_connection(
    ctx: &Ctx,
    model: &ModelId,
    sink: CheckSink,
) -> Result<ConnectionCheck> {
    test_connection_within(ctx, model, sink, TIME_LIMIT).await
}

/// What streamed so far.
#[derive(Default)]
struct Collected {
    text: String,
    chars: usize,
    /// The text reached [`MAX_TEXT_CHARS`] and the call was stopped.
    capped: bool,
    /// The sink reported that nobody listens any more.
    unheard: bool,
}

/// [`test_connection`] with its time limit given (tests use a short one).
pub async fn test_connection_within(
    ctx: &Ctx,
    model: &ModelId,
    sink: CheckSink,
    limit: Duration,
) -> Result<ConnectionCheck> {
    let id = model.clone();
    let ctx2 = ctx.clone();
    let resolved = ctx
        .store()
        .read(move |conn| {
            resolve_model_for(
                conn,
                &ctx2,
                Some(&id),
                "this connection test",
                json!({ "modelId": id }),
                None,
            )
        })
        .await?;
    let request = ChatRequest {
        model: resolved.model.clone(),
        system: Some(SYSTEM.to_owned()),
        messages: vec![Message::user(PROMPT)],
        tools: Vec::new(),
        max_tokens: MAX_TOKENS,
        temperature: None,
    };
    let options = CallOptions {
        connect_timeout: Duration::from_secs(15),
        // A local server may load the model before its first token.
        idle_timeout: Duration::from_secs(90),
        retry: RetryPolicy {
            max_retries: 1,
            ..RetryPolicy::default()
        },
        ..CallOptions::default()
    };
    let started = Instant::now();
    let cancel = options.cancel.clone();
    let collected = Arc::new(Mutex::new(Collected::default()));
    let into = Arc::clone(&collected);
    let mut on_event = move |event: StreamEvent| {
        let StreamEvent::Text(text) = event else {
            return;
        };
        let Ok(mut seen) = into.lock() else {
            return;
        };
        if seen.capped || seen.unheard {
            return;
        }
        let room = MAX_TEXT_CHARS.saturating_sub(seen.chars);
        let piece: String = text.chars().take(room).collect();
        let taken = piece.chars().count();
        seen.chars += taken;
        seen.text.push_str(&piece);
        if taken < text.chars().count() || seen.chars >= MAX_TEXT_CHARS {
            seen.capped = true;
            cancel.cancel();
        }
        if !piece.is_empty() && !sink(CheckEvent::Delta { text: piece }) {
            seen.unheard = true;
            cancel.cancel();
        }
    };
    let call = llm::chat(&resolved.endpoint, &request, &options, &mut on_event);
    let outcome = tokio::time::timeout(limit, call).await;
    let (capped, unheard, so_far) = match collected.lock() {
        Ok(seen) => (seen.capped, seen.unheard, seen.text.clone()),
        Err(_) => return Err(AppError::internal("the connection test's text is poisoned")),
    };
    let text = match outcome {
        Err(_) => {
            return Err(AppError::new(
                ErrorCode::Upstream,
                format!("the model '{model}' did not finish answering within {limit:?}"),
            )
            .with_details(json!({
                "reason": "timeout",
                "modelId": model,
                "limitMs": u64::try_from(limit.as_millis()).unwrap_or(u64::MAX),
            })));
        }
        // Nobody listens: the test is over, whatever the stream did after.
        Ok(_) if unheard => {
            tracing::debug!("the connection test of '{model}' stopped: nobody listens");
            return Err(crate::llm::http::cancelled());
        }
        Ok(Err(error)) if error.code == ErrorCode::Cancelled && capped => so_far,
        Ok(Err(error)) => return Err(resolved.name_in(error)),
        Ok(Ok(_)) if capped => so_far,
        Ok(Ok(response)) => response.text.chars().take(MAX_TEXT_CHARS).collect(),
    };
    let text = text.trim().to_owned();
    if text.is_empty() {
        return Err(AppError::new(
            ErrorCode::Upstream,
            format!("the model '{model}' answered with no text"),
        )
        .with_details(json!({ "reason": "empty_answer", "modelId": model })));
    }
    let id = model.clone();
    let became_default = ctx
        .store()
        .write(move |tx| models::adopt_if_no_default(tx, &id))
        .await?;
    if became_default {
        ctx.changed(Change::Models);
    }
    Ok(ConnectionCheck {
        model_id: model.clone(),
        text,
        latency_ms: u32::try_from(started.elapsed().as_millis()).unwrap_or(u32::MAX),
        became_default,
    })
}
