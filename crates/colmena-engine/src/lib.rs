//! Colmena's local model engine: llama.cpp (through the `llama-cpp-2`
//! binding, which vendors it and builds it with cmake) run in a child
//! process that reads requests and writes events as JSON lines on stdio
//! (`colmena_core::llm::local::wire`).
//!
//! Why a process of its own: the C++ engine may abort on a malformed file,
//! or the kernel may kill it for memory; then one run fails with a clear
//! error and the supervisor (`colmena_core::llm::local`) starts a new
//! engine, while the window and every other run go on. LM Studio, Jan and
//! Ollama keep their engines out of the app's process for the same reason.
//! There is no second executable to ship: the desktop app and the `colmena`
//! CLI call [`run`] when started as `… engine`.
//!
//! One model at a time, one chat at a time (the supervisor queues); the
//! KV cache keeps the previous conversation so the next turn of the same
//! conversation only reads its new tokens.

mod generate;
mod prompt;
mod requests;
mod text_out;
mod tool_prompt;
mod window;

use std::io::Write;
use std::sync::Mutex;

use colmena_core::llm::local::wire::{EngineEvent, EngineRequest};
use llama_cpp_2::llama_backend::LlamaBackend;
use llama_cpp_2::model::LlamaModel;
use llama_cpp_2::model::params::LlamaModelParams;

use requests::Requests;

/// The argument that starts a program as the engine.
pub const ENGINE_ARG: &str = "engine";

/// Where events go: stdout, one line each, whole lines only.
static OUT: Mutex<()> = Mutex::new(());

pub(crate) fn emit(event: &EngineEvent) {
    let _whole_line = OUT.lock().unwrap_or_else(|e| e.into_inner());
    let mut out = std::io::stdout().lock();
    // The parent went away: nothing is left to tell.
    let _ = writeln!(out, "{}", event.to_line());
    let _ = out.flush();
}

pub(crate) fn error(id: Option<&str>, code: &str, message: impl Into<String>) {
    emit(&EngineEvent::Error {
        id: id.map(str::to_owned),
        code: code.to_owned(),
        message: message.into(),
    });
}

/// Runs the engine on stdin/stdout until stdin closes; the exit code.
pub fn run() -> i32 {
    // llama.cpp's log, through `tracing`, to stderr, which the supervisor
    // keeps the tail of to explain a failure: warnings and errors only
    // (its info and debug lines are hundreds per load and per token).
    llama_cpp_2::send_logs_to_tracing(llama_cpp_2::LogOptions::default());
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_max_level(tracing_subscriber::filter::LevelFilter::WARN)
        .with_ansi(false)
        .without_time()
        .with_target(false)
        .init();
    let backend = match LlamaBackend::init() {
        Ok(backend) => backend,
        Err(e) => {
            error(None, "internal", format!("llama.cpp did not start: {e}"));
            return 1;
        }
    };
    let requests = Requests::start();
    emit(&EngineEvent::Ready {
        version: env!("CARGO_PKG_VERSION").to_owned(),
    });
    let mut next = None;
    loop {
        let request = match next.take() {
            Some(request) => request,
            None => match requests.next() {
                Some(request) => request,
                None => return 0,
            },
        };
        match request {
            EngineRequest::Load {
                path,
                context,
                threads,
            } => match load(&backend, &path, context, threads, &requests) {
                Ok(Some(after)) => next = Some(after),
                Ok(None) => return 0,
                Err(message) => error(None, "load_failed", message),
            },
            EngineRequest::Chat(chat) => error(
                Some(&chat.id),
                "no_model",
                "no model is loaded in the engine",
            ),
            EngineRequest::Cancel { .. } => {}
        }
    }
}

/// The model's weights are read into the engine's memory rather than
/// mapped from the file: on x86-64 and ARM llama.cpp repacks most weights
/// into its CPU kernels' layout (twice the prompt speed), and with the file
/// mapped the pages it read stayed resident beside the repacked copy — a
/// Llama 3.2 1B-shaped model took 2.21× its file, read in 1.36× (see
/// BENCHMARKS.md, "The local engine against llama.cpp's own server").
fn model_params() -> LlamaModelParams {
    LlamaModelParams::default().with_use_mmap(false)
}

/// Loads a model and answers chats on it until another load (returned) or
/// the end of stdin (`None`).
fn load(
    backend: &LlamaBackend,
    path: &str,
    context: u32,
    threads: u32,
    requests: &Requests,
) -> Result<Option<EngineRequest>, String> {
    let model = LlamaModel::load_from_file(backend, path, &model_params())
        .map_err(|e| format!("llama.cpp could not load '{path}': {e}"))?;
    let context = context.clamp(256, model.n_ctx_train().max(256));
    let threads = i32::try_from(threads.max(1)).unwrap_or(1);
    let mut window = window::Window::new(backend, &model, context, threads)
        .map_err(|e| format!("'{path}': {e}"))?;
    emit(&EngineEvent::Loaded {
        path: path.to_owned(),
        context_train: model.n_ctx_train(),
        context: window.max(),
        size: model.size(),
        params: model.n_params(),
    });
    let mut cache = generate::KvCache::default();
    loop {
        match requests.next() {
            None => return Ok(None),
            Some(EngineRequest::Chat(chat)) => {
                generate::answer(&model, &mut window, &mut cache, &chat, requests);
            }
            Some(EngineRequest::Cancel { .. }) => {}
            Some(load @ EngineRequest::Load { .. }) => return Ok(Some(load)),
        }
    }
}
