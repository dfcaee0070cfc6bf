//! "Test connection" (issue 12): one tiny real call to a model, its answer
//! streamed as it is written, so a person sees the model speak before
//! trusting it with an agent.
//!
//! The call goes through the same client, endpoint and key as every agent
//! run (`llm::chat` over `runtime::resolve_model_for`), so a test that passes
//! means runs will reach the model; it is small on purpose (one short
//! sentence, [`MAX_TOKENS`]) and fails fast (one retry, short timeouts).
//! Errors keep the client's stable codes and reasons — `upstream` with
//! `unreachable`, `timeout`, `auth_refused`, `provider_error`,
//! `rate_limited`, `stream_broken`; `precondition` with `provider_disabled`
//! or `model_disabled`; `not_found` — plus `empty_answer` when the model
//! said nothing. A model that answers while no default is set becomes the
//! default (see `models`).

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::ctx::{Change, Ctx};
use crate::error::{AppError, ErrorCode, Result};
use crate::ids::ModelId;
use crate::llm::{self, CallOptions, ChatRequest, Message, RetryPolicy, StreamEvent};
use crate::models;
use crate::runtime::resolve_model_for;

/// The answer is one sentence; this bounds what a chatty model costs.
pub const MAX_TOKENS: u32 = 48;
const SYSTEM: &str =
    "You are answering a connection test. Reply with one short, friendly sentence.";
const PROMPT: &str = "Say hello and tell me which model you are, in one short sentence.";

/// What streams while the model answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum CheckEvent {
    Delta { text: String },
}

pub type CheckSink = Arc<dyn Fn(CheckEvent) + Send + Sync>;

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

/// Asks `model` for one sentence, streaming it into `sink`.
pub async fn test_connection(
    ctx: &Ctx,
    model: &ModelId,
    sink: CheckSink,
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
        model: resolved.model,
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
    let forward = Arc::clone(&sink);
    let mut on_event = move |event: StreamEvent| {
        if let StreamEvent::Text(text) = event {
            forward(CheckEvent::Delta { text });
        }
    };
    let response = llm::chat(&resolved.endpoint, &request, &options, &mut on_event).await?;
    let text = response.text.trim().to_owned();
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
