//! The local models as an OpenAI-compatible API (issue 35): what
//! `/v1/models` and `/v1/chat/completions` answer where Colmena serves
//! HTTP, so other programs on the computer can use the model Colmena
//! downloaded (LM Studio and Jan do the same). The HTTP routes are one-line
//! adapters over [`models`] and [`complete`]; the token and Host/Origin
//! rules are the server's own.
//!
//! Only local models are served: a hosted provider's key is never spent by
//! another program through Colmena.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::ctx::Ctx;
use crate::error::{AppError, ErrorCode, Result};
use crate::ids::ModelId;
use crate::llm::{self, CallOptions, ChatRequest, Message, StreamEvent, ToolCall, ToolSpec};
use crate::models::resolve::resolve_model_for;

/// The longest answer asked for when the request names none.
const DEFAULT_MAX_TOKENS: u32 = 2048;

/// A chat completion request, as OpenAI's API takes it.
#[derive(Debug, Clone, Deserialize)]
pub struct CompletionRequest {
    pub model: String,
    pub messages: Vec<ApiMessage>,
    #[serde(default)]
    pub max_tokens: Option<u32>,
    #[serde(default)]
    pub max_completion_tokens: Option<u32>,
    #[serde(default)]
    pub temperature: Option<f32>,
    #[serde(default)]
    pub stop: Option<Stop>,
    #[serde(default)]
    pub stream: bool,
    #[serde(default)]
    pub tools: Vec<ApiTool>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum Stop {
    One(String),
    Many(Vec<String>),
}

#[derive(Debug, Clone, Deserialize)]
pub struct ApiMessage {
    pub role: String,
    #[serde(default)]
    pub content: Option<Value>,
    #[serde(default)]
    pub tool_calls: Vec<ApiToolCall>,
    #[serde(default)]
    pub tool_call_id: Option<String>,
    #[serde(default)]
    pub name: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ApiToolCall {
    #[serde(default)]
    pub id: String,
    #[serde(rename = "type", default = "function_type")]
    pub kind: String,
    pub function: ApiFunction,
}

fn function_type() -> String {
    "function".to_owned()
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ApiFunction {
    pub name: String,
    #[serde(default)]
    pub arguments: String,
}

#[derive(Debug, Clone, Deserialize)]
pub struct ApiTool {
    pub function: ApiToolFunction,
}

#[derive(Debug, Clone, Deserialize)]
pub struct ApiToolFunction {
    pub name: String,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub parameters: Option<Value>,
}

/// A finished completion: the answer, why it ended, and its tokens.
#[derive(Debug, Clone)]
pub struct Completion {
    /// The model's name as served (`smollm2-135m`).
    pub model: String,
    pub text: String,
    pub tool_calls: Vec<ToolCall>,
    /// `stop`, `length` or `tool_calls`.
    pub finish_reason: &'static str,
    pub prompt_tokens: u32,
    pub completion_tokens: u32,
}

impl Completion {
    /// The non-streamed answer, in OpenAI's shape.
    pub fn to_json(&self, id: &str, created: i64) -> Value {
        let mut message = json!({ "role": "assistant", "content": self.text });
        if !self.tool_calls.is_empty() {
            message["tool_calls"] = tool_calls_json(&self.tool_calls);
        }
        json!({
            "id": id,
            "object": "chat.completion",
            "created": created,
            "model": self.model,
            "choices": [{ "index": 0, "message": message, "finish_reason": self.finish_reason }],
            "usage": self.usage_json(),
        })
    }

    pub fn usage_json(&self) -> Value {
        json!({
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "total_tokens": self.prompt_tokens + self.completion_tokens,
        })
    }
}

pub fn tool_calls_json(calls: &[ToolCall]) -> Value {
    Value::Array(
        calls
            .iter()
            .enumerate()
            .map(|(index, c)| {
                json!({
                    "index": index,
                    "id": c.id,
                    "type": "function",
                    "function": { "name": c.name, "arguments": c.arguments },
                })
            })
            .collect(),
    )
}

/// `/v1/models`: the local models that are whole on disk and enabled.
pub async fn models(ctx: &Ctx) -> Result<Value> {
    let on_disk = super::local::list(ctx).await?;
    let Some(provider) = ctx.store().read(super::local::provider_id_in).await? else {
        return Ok(json!({ "object": "list", "data": [] }));
    };
    let rows = super::list(
        ctx,
        super::ModelFilter {
            provider_id: Some(provider),
            enabled_only: true,
        },
    )
    .await?;
    let data: Vec<Value> = rows
        .iter()
        .filter(|m| on_disk.iter().any(|f| f.name == m.name && !f.downloading))
        .map(|m| {
            json!({
                "id": m.name,
                "object": "model",
                "created": m.created_at.timestamp(),
                "owned_by": "colmena",
            })
        })
        .collect();
    Ok(json!({ "object": "list", "data": data }))
}

/// `/v1/chat/completions`: answers with the local model the request names
/// (`smollm2-135m` or `local/smollm2-135m`), handing each piece of text to
/// `on_text` as it is written. `cancel` stops it (the client went away).
pub async fn complete(
    ctx: &Ctx,
    request: CompletionRequest,
    cancel: CancellationToken,
    on_text: &mut (dyn FnMut(&str) + Send),
) -> Result<Completion> {
    let provider = ctx
        .store()
        .read(super::local::provider_id_in)
        .await?
        .ok_or_else(|| unknown_model(&request.model))?;
    let name = request
        .model
        .strip_prefix(&format!("{provider}/"))
        .unwrap_or(&request.model)
        .to_owned();
    let id = ModelId::new(&provider, &name);
    let (system, messages) = conversation(&request.messages)?;
    let stop = match request.stop {
        None => Vec::new(),
        Some(Stop::One(s)) => vec![s],
        Some(Stop::Many(list)) => list,
    };
    if stop.len() > 4 {
        return Err(AppError::invalid_field(
            "stop",
            "too_many",
            "at most 4 stop sequences",
        ));
    }
    let ctx2 = ctx.clone();
    let wanted = id.clone();
    let resolved = ctx
        .store()
        .read(move |conn| {
            resolve_model_for(
                conn,
                &ctx2,
                Some(&wanted),
                "this request",
                json!({ "model": wanted }),
                None,
            )
        })
        .await
        .map_err(|e| {
            if e.code == ErrorCode::Precondition || e.code == ErrorCode::NotFound {
                AppError::new(
                    ErrorCode::NotFound,
                    format!(
                        "'{}' is not a model on this computer ({})",
                        request.model, e.message
                    ),
                )
                .with_details(json!({ "field": "model", "reason": "unknown_model" }))
            } else {
                e
            }
        })?;
    let Some(local) = resolved.endpoint.local.clone() else {
        return Err(unknown_model(&request.model));
    };
    let chat = ChatRequest {
        model: resolved.model.clone(),
        system,
        messages,
        tools: request
            .tools
            .iter()
            .map(|t| ToolSpec {
                name: t.function.name.clone(),
                description: t.function.description.clone(),
                parameters: t
                    .function
                    .parameters
                    .clone()
                    .unwrap_or_else(|| json!({ "type": "object" })),
            })
            .collect(),
        max_tokens: request
            .max_completion_tokens
            .or(request.max_tokens)
            .unwrap_or(DEFAULT_MAX_TOKENS)
            .max(1),
        temperature: request.temperature,
    };
    let options = CallOptions {
        cancel,
        ..CallOptions::default()
    };
    let response = local
        .complete(&chat, &stop, &options, &mut |event| {
            if let StreamEvent::Text(text) = event {
                on_text(&text);
            }
        })
        .await?;
    Ok(Completion {
        model: resolved.model,
        text: response.text,
        finish_reason: match response.finish {
            llm::FinishReason::Length => "length",
            llm::FinishReason::ToolCalls => "tool_calls",
            _ => "stop",
        },
        tool_calls: response.tool_calls,
        prompt_tokens: response.usage.prompt_tokens.unwrap_or(0),
        completion_tokens: response.usage.completion_tokens.unwrap_or(0),
    })
}

/// The request's turns: system turns joined, the rest as Colmena's own.
fn conversation(messages: &[ApiMessage]) -> Result<(Option<String>, Vec<Message>)> {
    let mut system: Vec<String> = Vec::new();
    let mut out = Vec::new();
    let mut names: std::collections::HashMap<String, String> = std::collections::HashMap::new();
    for m in messages {
        let text = text_of(m.content.as_ref())?;
        match m.role.as_str() {
            "system" | "developer" => system.push(text),
            "user" => out.push(Message::user(text)),
            "assistant" => {
                let calls: Vec<ToolCall> = m
                    .tool_calls
                    .iter()
                    .map(|c| ToolCall {
                        id: c.id.clone(),
                        name: c.function.name.clone(),
                        arguments: c.function.arguments.clone(),
                    })
                    .collect();
                for c in &calls {
                    names.insert(c.id.clone(), c.name.clone());
                }
                out.push(Message::assistant(text, calls));
            }
            "tool" => {
                let id = m.tool_call_id.clone().unwrap_or_default();
                let name = m
                    .name
                    .clone()
                    .or_else(|| names.get(&id).cloned())
                    .unwrap_or_default();
                out.push(Message::tool_result(
                    &ToolCall {
                        id,
                        name,
                        arguments: String::new(),
                    },
                    text,
                ));
            }
            other => {
                return Err(AppError::invalid_field(
                    "messages",
                    "unknown_role",
                    format!("'{other}' is not a role (system, user, assistant, tool)"),
                ));
            }
        }
    }
    if out.is_empty() {
        return Err(AppError::invalid_field(
            "messages",
            "required",
            "the conversation has no user turn",
        ));
    }
    let system = (!system.is_empty()).then(|| system.join("\n\n"));
    Ok((system, out))
}

/// A message's text: a string, or the text parts of an array. Images are
/// refused: the engine reads none.
fn text_of(content: Option<&Value>) -> Result<String> {
    match content {
        None | Some(Value::Null) => Ok(String::new()),
        Some(Value::String(s)) => Ok(s.clone()),
        Some(Value::Array(parts)) => {
            let mut text = String::new();
            for part in parts {
                match part["type"].as_str() {
                    Some("text") => text.push_str(part["text"].as_str().unwrap_or_default()),
                    Some(kind) => {
                        return Err(AppError::invalid_field(
                            "messages",
                            "unsupported_content",
                            format!("'{kind}' content is not read by Colmena's engine; send text"),
                        ));
                    }
                    None => {}
                }
            }
            Ok(text)
        }
        Some(_) => Err(AppError::invalid_field(
            "messages",
            "invalid_content",
            "a message's content is a string or an array of parts",
        )),
    }
}

fn unknown_model(model: &str) -> AppError {
    AppError::new(
        ErrorCode::NotFound,
        format!("'{model}' is not a model on this computer"),
    )
    .with_details(json!({ "field": "model", "reason": "unknown_model" }))
}
