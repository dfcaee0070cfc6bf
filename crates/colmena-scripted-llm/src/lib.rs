//! A real HTTP server on 127.0.0.1 that answers like an LLM provider — the
//! exact OpenAI chat-completions, Anthropic messages and Ollama chat
//! streaming formats — with replies from a script instead of a model.
//!
//! No provider is reachable from the machines Colmena is built on, so every
//! provider path is tested against this: text, tool calls whose arguments
//! arrive split across deltas, chunk boundaries anywhere (mid-line, mid
//! character), slow streams, errors before and inside the stream, 429s with
//! `Retry-After`. It records what it was sent and notices when a client
//! hangs up mid-stream (cancellation must close the connection).
//!
//! Images a request carried are read back per wire format
//! ([`RecordedRequest::images`]: OpenAI `image_url` data URLs, Anthropic
//! `image` blocks, Ollama `images`), a rule can match on how many there
//! are, and `GET /scripted/requests` lists them for a test driving the
//! binary. A rule can also leave the token counts out of its stream
//! ([`Rule::without_usage`]), as llama.cpp's server does.
//!
//! A script is a list of [`Rule`]s: the first one whose [`Matcher`] fits the
//! request (and is not used up) answers it.
//!
//! It also lists its models the way local servers do — `GET /v1/models`
//! (OpenAI-compatible: LM Studio, llama.cpp server) and `GET /api/tags`
//! (Ollama) — so the app's detection of a local server can be tested
//! against it: the script's `models`, else the models its rules match on,
//! else [`DEFAULT_MODEL`].

mod wire;

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use wire::Protocol;

/// When a rule applies; every given condition must hold.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Matcher {
    pub system_contains: Option<String>,
    pub last_user_contains: Option<String>,
    /// How many tool results the conversation already holds.
    pub tool_results: Option<usize>,
    pub model: Option<String>,
    /// How many images the whole request carries.
    pub images: Option<usize>,
}

/// What to answer.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "type")]
pub enum Reply {
    /// A streamed text answer.
    Text { text: String },
    /// Tool calls (name, arguments as JSON text), after optional text.
    ToolCalls {
        #[serde(default)]
        text: String,
        calls: Vec<ScriptedCall>,
    },
    /// An HTTP error before any streaming.
    Error {
        status: u16,
        message: String,
        #[serde(default)]
        retry_after: Option<String>,
    },
    /// Some text, then an error inside the stream.
    MidStreamError { text: String, message: String },
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScriptedCall {
    pub name: String,
    pub arguments: String,
}

/// One scripted answer.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Rule {
    #[serde(default)]
    pub when: Matcher,
    pub reply: Reply,
    /// Answer every matching request, not just the first.
    #[serde(default)]
    pub repeat: bool,
    /// Send the stream in pieces of this many bytes (boundaries anywhere).
    #[serde(default)]
    pub chunk_size: Option<usize>,
    /// Pause between pieces.
    #[serde(default)]
    pub delay_ms: u64,
    /// Split each tool call's arguments into deltas of this many characters.
    #[serde(default)]
    pub argument_piece: Option<usize>,
    /// Text deltas of this many characters (default: word by word).
    #[serde(default)]
    pub text_piece: Option<usize>,
    /// Stream no token counts at all (as llama.cpp's server does).
    #[serde(default)]
    pub omit_usage: bool,
}

impl Rule {
    pub fn new(reply: Reply) -> Rule {
        Rule {
            when: Matcher::default(),
            reply,
            repeat: false,
            chunk_size: None,
            delay_ms: 0,
            argument_piece: None,
            text_piece: None,
            omit_usage: false,
        }
    }

    pub fn text(text: &str) -> Rule {
        Rule::new(Reply::Text {
            text: text.to_owned(),
        })
    }

    pub fn tool_call(name: &str, arguments: &str) -> Rule {
        Rule::new(Reply::ToolCalls {
            text: String::new(),
            calls: vec![ScriptedCall {
                name: name.to_owned(),
                arguments: arguments.to_owned(),
            }],
        })
    }

    pub fn error(status: u16, message: &str) -> Rule {
        Rule::new(Reply::Error {
            status,
            message: message.to_owned(),
            retry_after: None,
        })
    }

    pub fn when(mut self, when: Matcher) -> Rule {
        self.when = when;
        self
    }

    pub fn repeat(mut self) -> Rule {
        self.repeat = true;
        self
    }

    pub fn chunked(mut self, bytes: usize) -> Rule {
        self.chunk_size = Some(bytes);
        self
    }

    pub fn slow(mut self, delay_ms: u64) -> Rule {
        self.delay_ms = delay_ms;
        self
    }

    pub fn arguments_in_pieces(mut self, chars: usize) -> Rule {
        self.argument_piece = Some(chars);
        self
    }

    pub fn text_in_pieces(mut self, chars: usize) -> Rule {
        self.text_piece = Some(chars);
        self
    }

    pub fn without_usage(mut self) -> Rule {
        self.omit_usage = true;
        self
    }
}

/// The model a script without `models` (or rules naming one) lists.
pub const DEFAULT_MODEL: &str = "scripted-model";

/// A script: `{"rules": [...]}`. The binary's script file may also say
/// which models to list (`"models": [...]`, see [`ScriptedLlm::start_listing`]).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Script {
    pub rules: Vec<Rule>,
}

impl Script {
    /// What `/v1/models` and `/api/tags` list: `models` when given, else the
    /// distinct models the rules match on, else [`DEFAULT_MODEL`].
    pub fn listed_models(&self, models: &[String]) -> Vec<String> {
        let mut names: Vec<String> = Vec::new();
        let source: Vec<String> = if models.is_empty() {
            self.rules
                .iter()
                .filter_map(|r| r.when.model.clone())
                .collect()
        } else {
            models.to_vec()
        };
        for name in source {
            if !name.trim().is_empty() && !names.contains(&name) {
                names.push(name);
            }
        }
        if names.is_empty() {
            names.push(DEFAULT_MODEL.to_owned());
        }
        names
    }
}

/// What the server received.
#[derive(Debug, Clone)]
pub struct RecordedRequest {
    pub protocol: Protocol,
    pub headers: HeaderMap,
    pub body: Value,
}

impl RecordedRequest {
    /// The image parts of the request, in order, read the way its
    /// protocol writes them.
    pub fn images(&self) -> Vec<RecordedImage> {
        wire::images(self.protocol, &self.body)
    }
}

/// One image part a request carried.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RecordedImage {
    /// Its index in the request's `messages`.
    pub message: usize,
    /// The role of that message.
    pub role: String,
    /// The media type it was sent with; Ollama sends none.
    pub media_type: Option<String>,
    /// The decoded bytes; empty when they were not valid base64.
    #[serde(skip)]
    pub data: Vec<u8>,
    /// How many bytes were decoded.
    pub size: usize,
    /// The part was well formed for its protocol (a `data:…;base64,` URL,
    /// a `base64` source with a media type, valid base64).
    pub well_formed: bool,
}

#[derive(Default)]
struct Shared {
    models: Vec<String>,
    rules: Mutex<Vec<(Rule, bool)>>,
    requests: Mutex<Vec<RecordedRequest>>,
    disconnects: AtomicUsize,
    completed: AtomicUsize,
}

/// A running scripted server; it stops when dropped.
pub struct ScriptedLlm {
    addr: SocketAddr,
    shared: Arc<Shared>,
    _shutdown: tokio::sync::oneshot::Sender<()>,
}

impl ScriptedLlm {
    /// Starts on an ephemeral port of 127.0.0.1.
    pub async fn start(script: Script) -> std::io::Result<ScriptedLlm> {
        ScriptedLlm::start_on(
            "127.0.0.1:0".parse().map_err(std::io::Error::other)?,
            script,
        )
        .await
    }

    pub async fn start_on(addr: SocketAddr, script: Script) -> std::io::Result<ScriptedLlm> {
        ScriptedLlm::start_listing(addr, script, &[]).await
    }

    /// Starts on `addr`, listing `models` (empty: see [`Script::listed_models`]).
    pub async fn start_listing(
        addr: SocketAddr,
        script: Script,
        models: &[String],
    ) -> std::io::Result<ScriptedLlm> {
        let shared = Arc::new(Shared {
            models: script.listed_models(models),
            ..Shared::default()
        });
        {
            let mut rules = shared
                .rules
                .lock()
                .map_err(|_| std::io::Error::other("poisoned"))?;
            rules.extend(script.rules.into_iter().map(|r| (r, false)));
        }
        let listener = tokio::net::TcpListener::bind(addr).await?;
        let addr = listener.local_addr()?;
        let app = router(Arc::clone(&shared));
        let (shutdown, stop) = tokio::sync::oneshot::channel::<()>();
        tokio::spawn(async move {
            let _ = axum::serve(listener, app)
                .with_graceful_shutdown(async {
                    let _ = stop.await;
                })
                .await;
        });
        Ok(ScriptedLlm {
            addr,
            shared,
            _shutdown: shutdown,
        })
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The base URL a provider of this protocol is configured with.
    pub fn base_url(&self, protocol: Protocol) -> String {
        match protocol {
            Protocol::OpenAi => format!("http://{}/v1", self.addr),
            Protocol::Anthropic | Protocol::Ollama => format!("http://{}", self.addr),
        }
    }

    pub fn push(&self, rule: Rule) {
        if let Ok(mut rules) = self.shared.rules.lock() {
            rules.push((rule, false));
        }
    }

    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.shared
            .requests
            .lock()
            .map(|r| r.clone())
            .unwrap_or_default()
    }

    /// Streams the client hung up on before their end.
    pub fn disconnects(&self) -> usize {
        self.shared.disconnects.load(Ordering::SeqCst)
    }

    /// Streams sent to their end.
    pub fn completed(&self) -> usize {
        self.shared.completed.load(Ordering::SeqCst)
    }
}

pub fn router_for(script: Script) -> Router {
    let shared = Arc::new(Shared {
        models: script.listed_models(&[]),
        ..Shared::default()
    });
    if let Ok(mut rules) = shared.rules.lock() {
        rules.extend(script.rules.into_iter().map(|r| (r, false)));
    }
    router(shared)
}

fn router(shared: Arc<Shared>) -> Router {
    Router::new()
        .route("/v1/chat/completions", post(openai))
        .route("/chat/completions", post(openai))
        .route("/v1/messages", post(anthropic))
        .route("/api/chat", post(ollama))
        .route("/v1/models", get(openai_models))
        .route("/models", get(openai_models))
        .route("/api/tags", get(ollama_tags))
        .route("/scripted/requests", get(recorded))
        .with_state(shared)
}

/// What was received so far, for a test driving the binary: each request's
/// protocol, model and image parts (sizes and media types, not bytes).
async fn recorded(State(shared): State<Arc<Shared>>) -> Response {
    let requests: Vec<Value> = shared
        .requests
        .lock()
        .map(|r| r.clone())
        .unwrap_or_default()
        .iter()
        .map(|r| {
            serde_json::json!({
                "protocol": r.protocol,
                "model": r.body["model"],
                "images": r.images(),
            })
        })
        .collect();
    axum::Json(serde_json::json!({ "requests": requests })).into_response()
}

/// `GET /v1/models` as OpenAI-compatible servers answer it.
async fn openai_models(State(shared): State<Arc<Shared>>) -> Response {
    let data: Vec<Value> = shared
        .models
        .iter()
        .map(|m| serde_json::json!({ "id": m, "object": "model", "owned_by": "scripted" }))
        .collect();
    axum::Json(serde_json::json!({ "object": "list", "data": data })).into_response()
}

/// `GET /api/tags` as Ollama answers it.
async fn ollama_tags(State(shared): State<Arc<Shared>>) -> Response {
    let models: Vec<Value> = shared
        .models
        .iter()
        .map(|m| {
            serde_json::json!({
                "name": m,
                "model": m,
                "modified_at": "2026-01-01T00:00:00Z",
                "size": 0,
                "details": { "format": "gguf", "family": "scripted" }
            })
        })
        .collect();
    axum::Json(serde_json::json!({ "models": models })).into_response()
}

async fn openai(state: State<Arc<Shared>>, headers: HeaderMap, body: String) -> Response {
    answer(Protocol::OpenAi, state, headers, body).await
}

async fn anthropic(state: State<Arc<Shared>>, headers: HeaderMap, body: String) -> Response {
    answer(Protocol::Anthropic, state, headers, body).await
}

async fn ollama(state: State<Arc<Shared>>, headers: HeaderMap, body: String) -> Response {
    answer(Protocol::Ollama, state, headers, body).await
}

fn pick(shared: &Shared, protocol: Protocol, body: &Value) -> Option<Rule> {
    let view = wire::RequestView::of(protocol, body);
    let mut rules = shared.rules.lock().ok()?;
    let (rule, used) = rules
        .iter_mut()
        .find(|(rule, used)| !*used && view.matches(&rule.when))?;
    if !rule.repeat {
        *used = true;
    }
    Some(rule.clone())
}

async fn answer(
    protocol: Protocol,
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    body: String,
) -> Response {
    let Ok(json) = serde_json::from_str::<Value>(&body) else {
        return (StatusCode::BAD_REQUEST, "the body is not JSON").into_response();
    };
    if let Ok(mut requests) = shared.requests.lock() {
        requests.push(RecordedRequest {
            protocol,
            headers,
            body: json.clone(),
        });
    }
    let Some(rule) = pick(&shared, protocol, &json) else {
        let body =
            serde_json::json!({ "error": { "message": "no scripted reply matches this request" } });
        return (StatusCode::INTERNAL_SERVER_ERROR, axum::Json(body)).into_response();
    };
    if let Reply::Error {
        status,
        message,
        retry_after,
    } = &rule.reply
    {
        let body = serde_json::json!({ "error": { "type": "scripted", "message": message } });
        let mut response = (
            StatusCode::from_u16(*status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
            axum::Json(body),
        )
            .into_response();
        if let Some(after) = retry_after.as_ref().and_then(|a| a.parse().ok()) {
            response.headers_mut().insert(header::RETRY_AFTER, after);
        }
        return response;
    }
    let model = json["model"].as_str().unwrap_or("scripted").to_owned();
    let bytes = wire::encode(protocol, &rule, &model);
    let pieces = match rule.chunk_size {
        Some(size) if size > 0 => bytes.chunks(size).map(<[u8]>::to_vec).collect(),
        _ => wire::natural_pieces(protocol, &bytes),
    };
    let delay = Duration::from_millis(rule.delay_ms);
    let guard = Finish {
        shared: Arc::clone(&shared),
        done: false,
    };
    let stream = futures_util::stream::unfold(
        (pieces.into_iter(), guard, true),
        move |(mut pieces, guard, first)| async move {
            if !first && !delay.is_zero() {
                tokio::time::sleep(delay).await;
            }
            match pieces.next() {
                Some(piece) => Some((
                    Ok::<_, std::io::Error>(bytes::Bytes::from(piece)),
                    (pieces, guard, false),
                )),
                None => {
                    guard.complete();
                    None
                }
            }
        },
    );
    let content_type = match protocol {
        Protocol::Ollama => "application/x-ndjson",
        _ => "text/event-stream",
    };
    Response::builder()
        .status(StatusCode::OK)
        .header(header::CONTENT_TYPE, content_type)
        .header(header::CACHE_CONTROL, "no-cache")
        .body(Body::from_stream(stream))
        .unwrap_or_else(|_| StatusCode::INTERNAL_SERVER_ERROR.into_response())
}

/// Counts a stream as completed, or as abandoned when it is dropped early.
struct Finish {
    shared: Arc<Shared>,
    done: bool,
}

impl Finish {
    fn complete(mut self) {
        self.done = true;
    }
}

impl Drop for Finish {
    fn drop(&mut self) {
        let counter = if self.done {
            &self.shared.completed
        } else {
            &self.shared.disconnects
        };
        counter.fetch_add(1, Ordering::SeqCst);
    }
}
