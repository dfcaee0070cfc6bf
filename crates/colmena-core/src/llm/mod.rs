//! Provider clients (SPEC H22, H9): one conversation model, three wire
//! protocols — OpenAI-compatible chat completions, Anthropic messages and
//! Ollama chat — each streaming text and tool calls.
//!
//! Why this split: a [`WireProtocol`] only knows how to write a request and
//! decode its stream (pure, testable byte by byte); the transport in
//! [`http`] is shared — timeouts, retries with backoff on 429 and 5xx
//! honouring `Retry-After`, cancellation that drops the HTTP stream — so the
//! three providers behave the same where it matters.
//!
//! Images (SPEC H37): a user turn may carry [`ImagePart`]s — the bytes of
//! the copy made for models and their media type — which each protocol
//! writes its own way (OpenAI-compatible `image_url` data URLs, Anthropic
//! `image` blocks, Ollama `images`). They stay on the turn, so every later
//! call of the conversation sends them again: providers keep no state. A
//! turn without images is written exactly as before.
//!
//! Token counts (issue 14): [`Usage`] says "not reported" (`None`) apart
//! from zero, because some servers (llama.cpp's) stream no usage at all.

mod anthropic;
pub mod context_window;
pub mod http;
mod kind;
pub mod local;
mod ollama;
mod openai;
pub mod sse;

use std::collections::BTreeMap;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio_util::sync::CancellationToken;
use zeroize::Zeroizing;

use crate::error::{AppError, Result};
pub use kind::{LOCAL_BASE_URL, ProviderKind};

/// Who speaks in a conversation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    User,
    Assistant,
    Tool,
}

/// A tool call the model asked for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    /// The arguments as the model wrote them (JSON text).
    pub arguments: String,
}

/// An image sent to a model with a user turn: the normalised copy's bytes
/// (see `images::normalize_for_model`) and their media type. In a saved
/// checkpoint the bytes are base64, so a resumed run sends the same picture.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImagePart {
    /// `image/webp`, `image/jpeg`, `image/png`, `image/gif`.
    pub media_type: String,
    #[serde(with = "base64_bytes")]
    pub data: Vec<u8>,
}

impl ImagePart {
    pub fn new(media_type: impl Into<String>, data: Vec<u8>) -> ImagePart {
        ImagePart {
            media_type: media_type.into(),
            data,
        }
    }

    /// The bytes as standard base64 (Anthropic's `data`, Ollama's `images`).
    pub fn base64(&self) -> String {
        use base64::Engine;
        base64::engine::general_purpose::STANDARD.encode(&self.data)
    }

    /// `data:<media type>;base64,<bytes>` (OpenAI-compatible `image_url`).
    pub fn data_url(&self) -> String {
        format!("data:{};base64,{}", self.media_type, self.base64())
    }
}

impl std::fmt::Debug for ImagePart {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ImagePart")
            .field("media_type", &self.media_type)
            .field("bytes", &self.data.len())
            .finish()
    }
}

mod base64_bytes {
    use base64::Engine;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(bytes: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&base64::engine::general_purpose::STANDARD.encode(bytes))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        let text = String::deserialize(d)?;
        base64::engine::general_purpose::STANDARD
            .decode(text.as_bytes())
            .map_err(serde::de::Error::custom)
    }
}

/// One turn of the conversation sent to a model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Message {
    pub role: Role,
    pub content: String,
    /// User turns: images sent with the text.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub images: Vec<ImagePart>,
    /// Assistant turns: the tools it called.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// Tool turns: which call this answers, and the tool's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_name: Option<String>,
}

impl Message {
    pub fn user(text: impl Into<String>) -> Message {
        Message::user_with_images(text, Vec::new())
    }

    /// A user turn with images (none: the same as [`Message::user`]).
    pub fn user_with_images(text: impl Into<String>, images: Vec<ImagePart>) -> Message {
        Message {
            role: Role::User,
            content: text.into(),
            images,
            tool_calls: Vec::new(),
            tool_call_id: None,
            tool_name: None,
        }
    }

    pub fn assistant(text: impl Into<String>, tool_calls: Vec<ToolCall>) -> Message {
        Message {
            role: Role::Assistant,
            content: text.into(),
            images: Vec::new(),
            tool_calls,
            tool_call_id: None,
            tool_name: None,
        }
    }

    pub fn tool_result(call: &ToolCall, content: impl Into<String>) -> Message {
        Message {
            role: Role::Tool,
            content: content.into(),
            images: Vec::new(),
            tool_calls: Vec::new(),
            tool_call_id: Some(call.id.clone()),
            tool_name: Some(call.name.clone()),
        }
    }
}

/// A tool offered to the model.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    pub parameters: Value,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ChatRequest {
    /// The model's name at the provider (`gpt-4o`, not `openai/gpt-4o`).
    pub model: String,
    pub system: Option<String>,
    pub messages: Vec<Message>,
    pub tools: Vec<ToolSpec>,
    pub max_tokens: u32,
    pub temperature: Option<f32>,
}

/// Why the model stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum FinishReason {
    Stop,
    ToolCalls,
    Length,
    Other,
}

/// Tokens a call (or a run, summed) took. `None` is "not reported": the
/// server streamed no count (llama.cpp's server sends none), which is not
/// the same as zero and is never shown as zero.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Usage {
    #[serde(default)]
    pub prompt_tokens: Option<u32>,
    #[serde(default)]
    pub completion_tokens: Option<u32>,
}

impl Usage {
    /// Both counts reported.
    pub fn reported(prompt_tokens: u32, completion_tokens: u32) -> Usage {
        Usage {
            prompt_tokens: Some(prompt_tokens),
            completion_tokens: Some(completion_tokens),
        }
    }

    /// Prompt and completion tokens together: what was reported of them,
    /// `None` when neither was.
    pub fn total(&self) -> Option<u32> {
        match (self.prompt_tokens, self.completion_tokens) {
            (None, None) => None,
            (p, c) => Some(p.unwrap_or(0).saturating_add(c.unwrap_or(0))),
        }
    }

    /// Adds a call's counts to a sum: what was reported is added up; a
    /// count stays "not reported" only while no call reported it.
    pub fn add(&mut self, other: Usage) {
        fn sum(a: Option<u32>, b: Option<u32>) -> Option<u32> {
            match (a, b) {
                (Some(a), Some(b)) => Some(a.saturating_add(b)),
                (a, None) => a,
                (None, b) => b,
            }
        }
        self.prompt_tokens = sum(self.prompt_tokens, other.prompt_tokens);
        self.completion_tokens = sum(self.completion_tokens, other.completion_tokens);
    }
}

/// What a complete model turn produced.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatResponse {
    pub text: String,
    pub tool_calls: Vec<ToolCall>,
    pub finish: FinishReason,
    pub usage: Usage,
}

/// What streams out while the model writes.
#[derive(Debug, Clone, PartialEq)]
pub enum StreamEvent {
    Text(String),
    /// A tool call begins; its arguments follow in pieces.
    ToolCallStarted {
        index: usize,
        id: String,
        name: String,
    },
}

/// Where and how to reach a model.
#[derive(Clone)]
pub struct Endpoint {
    pub kind: ProviderKind,
    pub base_url: String,
    pub api_key: Option<Zeroizing<String>>,
    /// Kind `local`: the workspace's models and their engine.
    pub local: Option<local::LocalModels>,
}

impl std::fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Endpoint")
            .field("kind", &self.kind)
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "…"))
            .finish()
    }
}

/// Limits of one call.
#[derive(Debug, Clone)]
pub struct CallOptions {
    pub cancel: CancellationToken,
    /// Until the response headers arrive.
    pub connect_timeout: Duration,
    /// Between two pieces of the stream (and until the first one).
    pub idle_timeout: Duration,
    pub retry: RetryPolicy,
}

impl Default for CallOptions {
    fn default() -> Self {
        CallOptions {
            cancel: CancellationToken::new(),
            connect_timeout: Duration::from_secs(30),
            idle_timeout: Duration::from_secs(120),
            retry: RetryPolicy::default(),
        }
    }
}

/// Retries on 429 and 5xx before any of the answer has streamed.
#[derive(Debug, Clone)]
pub struct RetryPolicy {
    pub max_retries: u32,
    pub base_delay: Duration,
    pub max_delay: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_retries: 3,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(20),
        }
    }
}

/// The URL, headers and body of one call.
pub struct WireRequest {
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub body: Value,
}

/// What a decoder read from the stream.
#[derive(Debug, Clone, PartialEq)]
pub enum Decoded {
    Text(String),
    ToolCallStart {
        index: usize,
        id: String,
        name: String,
    },
    ToolCallArguments {
        index: usize,
        fragment: String,
    },
    Usage(Usage),
    Finish(FinishReason),
}

/// A provider's wire format: how a request is written and a stream decoded.
pub trait WireProtocol: Send + Sync {
    fn request(&self, endpoint: &Endpoint, request: &ChatRequest) -> Result<WireRequest>;
    fn decoder(&self) -> Box<dyn StreamDecoder>;
    /// The provider's own error message in an error body, if it has one.
    fn error_message(&self, body: &str) -> Option<String> {
        let json: Value = serde_json::from_str(body).ok()?;
        json["error"]["message"]
            .as_str()
            .or_else(|| json["error"].as_str())
            .or_else(|| json["message"].as_str())
            .map(str::to_owned)
    }
}

/// Decodes a streamed answer, piece by piece.
pub trait StreamDecoder: Send {
    /// Feeds bytes; a provider error inside the stream is an `Err`.
    fn feed(&mut self, bytes: &[u8], out: &mut Vec<Decoded>) -> Result<()>;
    fn finish(&mut self, out: &mut Vec<Decoded>) -> Result<()>;
}

/// The wire protocol of a provider reached over HTTP; `None` for `local`,
/// which is answered by the engine process, not over a network.
pub fn protocol(kind: ProviderKind) -> Option<&'static dyn WireProtocol> {
    match kind {
        ProviderKind::OpenaiCompatible => Some(&openai::OpenAi),
        ProviderKind::Anthropic => Some(&anthropic::Anthropic),
        ProviderKind::Ollama => Some(&ollama::Ollama),
        ProviderKind::Local => None,
    }
}

/// Assembles decoded pieces into a response; tool-call arguments are
/// accumulated by index, as they arrive split across many deltas.
#[derive(Default)]
pub(crate) struct Accumulator {
    text: String,
    calls: BTreeMap<usize, ToolCall>,
    finish: Option<FinishReason>,
    usage: Usage,
}

impl Accumulator {
    pub(crate) fn apply(&mut self, piece: Decoded, sink: &mut (dyn FnMut(StreamEvent) + Send)) {
        match piece {
            Decoded::Text(text) if !text.is_empty() => {
                self.text.push_str(&text);
                sink(StreamEvent::Text(text));
            }
            Decoded::Text(_) => {}
            Decoded::ToolCallStart { index, id, name } => {
                let call = self.calls.entry(index).or_insert_with(|| ToolCall {
                    id: String::new(),
                    name: String::new(),
                    arguments: String::new(),
                });
                let announce = call.name.is_empty() && !name.is_empty();
                if !id.is_empty() {
                    call.id = id;
                }
                if !name.is_empty() {
                    call.name = name;
                }
                if announce {
                    sink(StreamEvent::ToolCallStarted {
                        index,
                        id: call.id.clone(),
                        name: call.name.clone(),
                    });
                }
            }
            Decoded::ToolCallArguments { index, fragment } => {
                self.calls
                    .entry(index)
                    .or_insert_with(|| ToolCall {
                        id: String::new(),
                        name: String::new(),
                        arguments: String::new(),
                    })
                    .arguments
                    .push_str(&fragment);
            }
            Decoded::Usage(usage) => {
                // The latest count wins, but a zero never hides a count
                // already seen (some servers repeat a zeroed usage).
                let keep = |current: &mut Option<u32>, new: Option<u32>| {
                    if let Some(n) = new
                        && (n > 0 || current.is_none())
                    {
                        *current = Some(n);
                    }
                };
                keep(&mut self.usage.prompt_tokens, usage.prompt_tokens);
                keep(&mut self.usage.completion_tokens, usage.completion_tokens);
            }
            Decoded::Finish(reason) => self.finish = Some(reason),
        }
    }

    pub(crate) fn into_response(self) -> Result<ChatResponse> {
        let mut tool_calls = Vec::new();
        for (index, mut call) in self.calls {
            if call.name.is_empty() {
                return Err(AppError::new(
                    crate::error::ErrorCode::Upstream,
                    format!("the provider streamed a tool call (#{index}) without a name"),
                ));
            }
            if call.id.is_empty() {
                call.id = format!("call_{index}");
            }
            if call.arguments.trim().is_empty() {
                call.arguments = "{}".to_owned();
            }
            tool_calls.push(call);
        }
        let finish = self.finish.unwrap_or(if tool_calls.is_empty() {
            FinishReason::Stop
        } else {
            FinishReason::ToolCalls
        });
        Ok(ChatResponse {
            text: self.text,
            tool_calls,
            finish,
            usage: self.usage,
        })
    }
}

/// Calls a model and streams its answer into `sink`.
pub async fn chat(
    endpoint: &Endpoint,
    request: &ChatRequest,
    options: &CallOptions,
    sink: &mut (dyn FnMut(StreamEvent) + Send),
) -> Result<ChatResponse> {
    match (protocol(endpoint.kind), &endpoint.local) {
        (Some(wire), _) => http::stream_chat(wire, endpoint, request, options, sink).await,
        (None, Some(local)) => local.chat(request, options, sink).await,
        (None, None) => Err(AppError::internal(
            "a local model was called without the workspace's engine",
        )),
    }
}

/// Joins a base URL and a path without doubling or losing a `/`.
pub(crate) fn join_url(base: &str, path: &str) -> String {
    format!(
        "{}/{}",
        base.trim_end_matches('/'),
        path.trim_start_matches('/')
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_call_arguments_are_accumulated_by_index() {
        let mut acc = Accumulator::default();
        let mut events = Vec::new();
        let mut sink = |e: StreamEvent| events.push(e);
        for piece in [
            Decoded::ToolCallStart {
                index: 1,
                id: "b".into(),
                name: "fs_read".into(),
            },
            Decoded::ToolCallStart {
                index: 0,
                id: "a".into(),
                name: "web_fetch".into(),
            },
            Decoded::ToolCallArguments {
                index: 0,
                fragment: "{\"url\":".into(),
            },
            Decoded::ToolCallArguments {
                index: 1,
                fragment: "{\"path\":\"x\"}".into(),
            },
            Decoded::ToolCallArguments {
                index: 0,
                fragment: "\"https://a\"}".into(),
            },
            Decoded::ToolCallStart {
                index: 0,
                id: "a".into(),
                name: "web_fetch".into(),
            },
        ] {
            acc.apply(piece, &mut sink);
        }
        let response = acc.into_response().unwrap();
        assert_eq!(response.tool_calls.len(), 2);
        assert_eq!(response.tool_calls[0].arguments, "{\"url\":\"https://a\"}");
        assert_eq!(response.tool_calls[1].name, "fs_read");
        assert_eq!(response.finish, FinishReason::ToolCalls);
        assert_eq!(events.len(), 2, "each call is announced once");
    }

    #[test]
    fn usage_not_reported_stays_apart_from_zero() {
        let mut acc = Accumulator::default();
        let mut sink = |_: StreamEvent| {};
        acc.apply(Decoded::Text("hi".into()), &mut sink);
        let silent = acc.into_response().unwrap();
        assert_eq!(silent.usage, Usage::default());
        assert_eq!(silent.usage.total(), None);

        // A zero repeated after a count does not hide it.
        let mut acc = Accumulator::default();
        acc.apply(Decoded::Usage(Usage::reported(42, 1)), &mut sink);
        acc.apply(
            Decoded::Usage(Usage {
                prompt_tokens: Some(0),
                completion_tokens: Some(7),
            }),
            &mut sink,
        );
        assert_eq!(acc.into_response().unwrap().usage, Usage::reported(42, 7));

        let mut sum = Usage::default();
        sum.add(Usage {
            prompt_tokens: None,
            completion_tokens: None,
        });
        assert_eq!(sum, Usage::default(), "nothing reported adds up to nothing");
        sum.add(Usage::reported(10, 2));
        sum.add(Usage::reported(5, 1));
        assert_eq!(sum, Usage::reported(15, 3));
        assert_eq!(sum.total(), Some(18));
    }

    #[test]
    fn llama_cpp_timings_are_its_token_counts_when_no_usage_comes() {
        let mut decoder = protocol(ProviderKind::OpenaiCompatible).unwrap().decoder();
        let mut out = Vec::new();
        let stream = concat!(
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hola\"},\"finish_reason\":null}]}\n\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}],",
            "\"timings\":{\"cache_n\":3,\"prompt_n\":17,\"predicted_n\":5}}\n\n",
            "data: [DONE]\n\n"
        );
        decoder.feed(stream.as_bytes(), &mut out).unwrap();
        decoder.finish(&mut out).unwrap();
        assert!(
            out.contains(&Decoded::Usage(Usage::reported(20, 5))),
            "{out:?}"
        );
    }

    #[test]
    fn urls_join_with_one_slash() {
        assert_eq!(
            join_url("http://h/v1/", "/chat/completions"),
            "http://h/v1/chat/completions"
        );
        assert_eq!(join_url("http://h", "v1/messages"), "http://h/v1/messages");
    }
}
