//! What Colmena and its engine process say to each other: one JSON object
//! per line, requests on the engine's stdin, events on its stdout (its
//! stderr is llama.cpp's log).
//!
//! Why a child process and not a library call: llama.cpp is C++ that may
//! abort on a malformed file or be killed for memory; in a process of its
//! own that ends one run with a clear error, never the window. Why stdio and
//! not a loopback port: no other program on the computer can reach it, and
//! its lifetime is its parent's.
//!
//! The types live here, on the ground floor of `colmena-core`, because both
//! sides use them: the supervisor (`llm::local`) and the engine
//! (`colmena-engine`, which links llama.cpp and is started as
//! `colmena engine` / `colmena-desktop engine`).

use serde::{Deserialize, Serialize};

/// A request to the engine. One chat at a time: the supervisor queues the
/// rest, so the engine never sees a second `chat` before a `done`/`error`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum EngineRequest {
    /// Loads the GGUF at `path` (unloading any other), with a context of
    /// `context` tokens and `threads` CPU threads.
    Load {
        path: String,
        context: u32,
        threads: u32,
    },
    /// Writes the answer to a conversation, streaming it as `text` events.
    Chat(EngineChat),
    /// Stops the chat `id` after the token being written (a `done` with
    /// `finish: "cancelled"` follows).
    Cancel { id: String },
}

/// One conversation to answer with the loaded model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EngineChat {
    pub id: String,
    /// Turns in order; `role` is `system`, `user`, `assistant` or `tool`.
    pub messages: Vec<EngineMessage>,
    /// Tools the model may call; empty: none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<EngineTool>,
    pub max_tokens: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f32>,
    /// Text that ends the answer where it appears (not included).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stop: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EngineMessage {
    pub role: String,
    pub content: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EngineTool {
    pub name: String,
    pub description: String,
    /// The arguments' JSON Schema.
    pub parameters: serde_json::Value,
}

/// What the engine says.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum EngineEvent {
    /// The engine started and is ready for requests.
    Ready { version: String },
    /// A `load` finished.
    Loaded {
        path: String,
        /// The context it was trained for, and the one it got.
        context_train: u32,
        context: u32,
        /// Bytes of weights, and parameters.
        size: u64,
        params: u64,
    },
    /// A piece of the answer of chat `id`.
    Text { id: String, text: String },
    /// A tool call the model wrote (arguments: JSON text).
    ToolCall {
        id: String,
        name: String,
        arguments: String,
    },
    /// Chat `id` ended; `finish` is `stop`, `length`, `tool_calls` or
    /// `cancelled`. Token counts are the engine's own, never estimated.
    Done {
        id: String,
        finish: String,
        prompt_tokens: u32,
        completion_tokens: u32,
    },
    /// A request failed; `id` names the chat when it was one. `code` is
    /// stable (`load_failed`, `context_too_long`, `no_model`, `bad_request`,
    /// `decode_failed`, `template_failed`).
    Error {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<String>,
        code: String,
        message: String,
    },
}

impl EngineEvent {
    /// The line written for this event (no newline).
    pub fn to_line(&self) -> String {
        serde_json::to_string(self)
            .unwrap_or_else(|e| format!(r#"{{"event":"error","code":"internal","message":"{e}"}}"#))
    }
}
