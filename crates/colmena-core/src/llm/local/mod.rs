//! Models that run on this computer (issue 35): GGUF files in the data
//! dir's `models/`, answered by llama.cpp in a child process (the engine,
//! `colmena-engine`) that [`engine`] supervises. To the rest of Colmena a
//! local model is a provider of kind `local` like any other: agents, canvas
//! variants, chat, swarms, roles, cron and MCP `run_agent` reach it through
//! [`crate::llm::chat`].
//!
//! Before the engine is asked to load a file, [`gguf`] checks it (not a
//! GGUF, cut short, no architecture) and [`memory`] checks that it fits, so
//! those get a clear error with a stable reason instead of an abort.

pub mod engine;
pub mod files;
pub mod gguf;
pub mod memory;
pub mod wire;

use std::path::PathBuf;
use std::sync::OnceLock;

use serde_json::json;

use self::engine::{ChatSetup, Engine};
use self::wire::{EngineChat, EngineEvent, EngineMessage, EngineTool};
use super::{
    CallOptions, ChatRequest, ChatResponse, FinishReason, Message, Role, StreamEvent, ToolCall,
    Usage,
};
use crate::error::{AppError, ErrorCode, Result};

/// The context a local model gets (in tokens), unless it was trained for
/// less: enough for an agent's tools and a few turns, small enough for a
/// laptop's memory.
pub const DEFAULT_CONTEXT: u32 = 4096;

/// The local models of one workspace and the engine that runs them.
#[derive(Clone)]
pub struct LocalModels {
    dir: PathBuf,
    engine: Engine,
    /// The context the person set for the model being called (tokens).
    context: Option<u32>,
}

impl std::fmt::Debug for LocalModels {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalModels")
            .field("dir", &self.dir)
            .finish()
    }
}

/// Where a workspace keeps its [`LocalModels`] (a `Ctx` slot).
#[derive(Default)]
pub struct LocalSlot(OnceLock<LocalModels>);

impl LocalSlot {
    pub fn get(&self, data_dir: &std::path::Path) -> LocalModels {
        self.0
            .get_or_init(|| LocalModels {
                dir: files::models_dir(data_dir),
                engine: Engine::default(),
                context: None,
            })
            .clone()
    }
}

impl LocalModels {
    /// The same models, calling one whose context the person set to
    /// `tokens` (`models.context_window`; unset: [`DEFAULT_CONTEXT`]).
    pub fn with_context(mut self, tokens: Option<u32>) -> LocalModels {
        self.context = tokens;
        self
    }

    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    pub fn dir(&self) -> &std::path::Path {
        &self.dir
    }

    /// Loads `model` into the engine (after the chats already waiting),
    /// so its first answer starts at once.
    pub async fn load(&self, model: &str) -> Result<()> {
        let (path, context) = self.setup_for(model).await?;
        self.engine
            .load(ChatSetup {
                model_path: &path,
                context,
                threads: engine_threads(),
            })
            .await
    }

    /// The file and context `model` runs with, after the checks a load
    /// needs: a whole GGUF, memory enough for it when it is not loaded.
    async fn setup_for(&self, model: &str) -> Result<(PathBuf, u32)> {
        let path = files::usable(&self.dir, model)?;
        let info = {
            let path = path.clone();
            tokio::task::spawn_blocking(move || gguf::check(&path))
                .await
                .map_err(|e| AppError::internal(format!("the model check stopped: {e}")))??
        };
        if self.engine.loaded().as_deref() != Some(path.as_path())
            && let Some(memory) = self.engine.memory()
        {
            let needed = memory::needed_for(info.file_bytes);
            if needed > memory.available {
                return Err(AppError::precondition(format!(
                    "the local model '{model}' needs about {} MB of memory and {} MB are free: close other programs or choose a smaller model",
                    needed >> 20,
                    memory.available >> 20
                ))
                .with_details(json!({ "reason": "too_large_for_memory", "neededBytes": needed, "availableBytes": memory.available })));
            }
        }
        let wanted = self.context.unwrap_or(DEFAULT_CONTEXT);
        let context = info
            .context_length
            .map_or(wanted, |trained| trained.min(wanted));
        Ok((path, context))
    }

    /// Answers `request` with the local model it names.
    pub(crate) async fn chat(
        &self,
        request: &ChatRequest,
        options: &CallOptions,
        sink: &mut (dyn FnMut(StreamEvent) + Send),
    ) -> Result<ChatResponse> {
        self.complete(request, &[], options, sink).await
    }

    /// [`LocalModels::chat`] with stop sequences: the answer ends where one
    /// appears (it is not included).
    pub(crate) async fn complete(
        &self,
        request: &ChatRequest,
        stop: &[String],
        options: &CallOptions,
        sink: &mut (dyn FnMut(StreamEvent) + Send),
    ) -> Result<ChatResponse> {
        let (path, context) = self.setup_for(&request.model).await?;
        let threads = engine_threads();
        let mut chat = engine_chat(request);
        chat.stop = stop.to_vec();
        let mut text = String::new();
        let mut calls: Vec<ToolCall> = Vec::new();
        let done = self
            .engine
            .chat(
                ChatSetup {
                    model_path: &path,
                    context,
                    threads,
                },
                chat,
                &options.cancel,
                &mut |event| match event {
                    EngineEvent::Text { text: piece, .. } => {
                        text.push_str(&piece);
                        sink(StreamEvent::Text(piece));
                    }
                    EngineEvent::ToolCall {
                        name, arguments, ..
                    } => {
                        let id = format!("call_{}", calls.len());
                        sink(StreamEvent::ToolCallStarted {
                            index: calls.len(),
                            id: id.clone(),
                            name: name.clone(),
                        });
                        calls.push(ToolCall {
                            id,
                            name,
                            arguments,
                        });
                    }
                    _ => {}
                },
            )
            .await?;
        let EngineEvent::Done {
            finish,
            prompt_tokens,
            completion_tokens,
            ..
        } = done
        else {
            return Err(AppError::internal("the engine ended a chat without 'done'"));
        };
        let finish = match finish.as_str() {
            "cancelled" => return Err(AppError::new(ErrorCode::Cancelled, "cancelled")),
            "length" => FinishReason::Length,
            "tool_calls" => FinishReason::ToolCalls,
            _ => FinishReason::Stop,
        };
        Ok(ChatResponse {
            text,
            tool_calls: calls,
            finish,
            usage: Usage::reported(prompt_tokens, completion_tokens),
        })
    }
}

/// The CPU threads the engine computes with: about the physical cores (half
/// the logical ones), at least one. All of them would be faster alone, but
/// llama.cpp's threads spin while they wait, and on a desktop the window,
/// the browser and everything else share those cores: measured on 2 cores
/// with the window streaming, 2 threads made generation several times
/// slower than 1.
///
/// `COLMENA_ENGINE_THREADS` sets it (a benchmark against llama.cpp's own
/// server gives both the same count).
pub fn engine_threads() -> u32 {
    if let Some(n) = std::env::var("COLMENA_ENGINE_THREADS")
        .ok()
        .and_then(|v| v.trim().parse::<u32>().ok())
        .filter(|n| (1..=256).contains(n))
    {
        return n;
    }
    let logical = std::thread::available_parallelism()
        .map(|n| u32::try_from(n.get()).unwrap_or(1))
        .unwrap_or(1);
    (logical / 2).max(1)
}

/// The conversation as the engine takes it: the system turn first, an
/// assistant's tool calls written in the format the engine prompts for, so
/// the model reads its own earlier calls the way it writes them.
fn engine_chat(request: &ChatRequest) -> EngineChat {
    let mut messages = Vec::new();
    if let Some(system) = request.system.as_ref().filter(|s| !s.trim().is_empty()) {
        messages.push(EngineMessage {
            role: "system".into(),
            content: system.clone(),
        });
    }
    messages.extend(request.messages.iter().map(engine_message));
    EngineChat {
        id: uuid::Uuid::now_v7().simple().to_string(),
        messages,
        tools: request
            .tools
            .iter()
            .map(|t| EngineTool {
                name: t.name.clone(),
                description: t.description.clone(),
                parameters: t.parameters.clone(),
            })
            .collect(),
        max_tokens: request.max_tokens,
        temperature: request.temperature,
        stop: Vec::new(),
    }
}

fn engine_message(m: &Message) -> EngineMessage {
    match m.role {
        Role::User => EngineMessage {
            role: "user".into(),
            content: m.content.clone(),
        },
        Role::Assistant => {
            let mut content = m.content.clone();
            for call in &m.tool_calls {
                let args: serde_json::Value =
                    serde_json::from_str(&call.arguments).unwrap_or_else(|_| json!({}));
                if !content.is_empty() {
                    content.push('\n');
                }
                content.push_str(&format!(
                    "<tool_call>\n{}\n</tool_call>",
                    json!({ "name": call.name, "arguments": args })
                ));
            }
            EngineMessage {
                role: "assistant".into(),
                content,
            }
        }
        Role::Tool => EngineMessage {
            role: "tool".into(),
            content: m.content.clone(),
        },
    }
}
