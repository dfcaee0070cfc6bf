//! The supervisor of the engine process: starts `<this program> engine`
//! when a local model is first used, loads the model a chat names, streams
//! the chat through it, and notices when it dies.
//!
//! - One engine, one model, one chat at a time: chats wait their turn on a
//!   fair lock, so two runs on a local model queue instead of competing for
//!   the same memory.
//! - A crash (an abort in llama.cpp, an out-of-memory kill) ends the chat
//!   being written with `upstream`/`engine_stopped` and what the engine
//!   last logged; the next chat starts a new engine.
//! - The model stays loaded for [`KEEP_LOADED`] after its last chat, and is
//!   unloaded sooner when the computer runs short of memory.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex, OnceLock, PoisonError, Weak};
use std::time::{Duration, Instant};

use serde_json::json;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::mpsc;

use super::wire::{EngineChat, EngineEvent, EngineRequest};
use crate::error::{AppError, ErrorCode, Result};

/// How long a model stays loaded after its last chat.
pub const KEEP_LOADED: Duration = Duration::from_secs(5 * 60);
/// How often the idle engine is looked at (keep-alive, memory pressure).
const WATCH_EVERY: Duration = Duration::from_secs(10);
/// Below this share of the memory free, an idle model is unloaded.
const PRESSURE_PERCENT: u64 = 5;
/// Until the engine says it is ready, and until a model is loaded (a large
/// file from a slow disk): generous, these only catch a hung engine.
const START_TIMEOUT: Duration = Duration::from_secs(60);
const LOAD_TIMEOUT: Duration = Duration::from_secs(600);
/// Between two events of a chat: reading a long prompt on a slow CPU may
/// take minutes before the first token.
const EVENT_TIMEOUT: Duration = Duration::from_secs(600);
/// Lines of the engine's log kept to explain a failure.
const LOG_LINES: usize = 12;

/// How the engine is started: a program, its arguments and any variables
/// set in its environment beyond this process's own.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct EngineCommand {
    pub program: PathBuf,
    pub args: Vec<String>,
    pub env: Vec<(String, String)>,
}

static COMMAND: OnceLock<EngineCommand> = OnceLock::new();

/// Says how this process starts its engine (the desktop app and the CLI:
/// themselves with `engine`). Unset: the running program with `engine`.
pub fn set_engine_command(command: EngineCommand) {
    let _first_wins = COMMAND.set(command);
}

fn engine_command() -> Result<EngineCommand> {
    if let Some(command) = COMMAND.get() {
        return Ok(command.clone());
    }
    let program = std::env::current_exe()
        .map_err(|e| AppError::internal(format!("this program's path is unknown: {e}")))?;
    Ok(EngineCommand {
        program,
        args: vec!["engine".to_owned()],
        env: Vec::new(),
    })
}

/// What a chat needs from the engine beyond the conversation.
pub(crate) struct ChatSetup<'a> {
    pub model_path: &'a Path,
    pub context: u32,
    pub threads: u32,
}

/// The engine of one workspace.
#[derive(Clone)]
pub struct Engine {
    shared: Arc<Shared>,
}

struct Shared {
    /// The running engine; locked for a whole chat (the queue).
    running: tokio::sync::Mutex<Option<Running>>,
    /// What `running` holds, readable while a chat holds the lock (the
    /// Models list and `/v1/models` never wait for an answer to end).
    seen: Mutex<Seen>,
    /// Chats handed to an engine so far.
    sent: std::sync::atomic::AtomicU64,
    /// How the machine's memory is read (the load check, the pressure).
    memory: Mutex<super::memory::MemoryReader>,
    last_used: Mutex<Instant>,
    keep_loaded: Duration,
}

struct Running {
    child: Child,
    stdin: ChildStdin,
    events: mpsc::UnboundedReceiver<EngineEvent>,
    log: Arc<Mutex<VecDeque<String>>>,
    /// The model loaded and its context.
    loaded: Option<(PathBuf, u32)>,
}

/// The engine's process and model, as last seen by the one holding it.
#[derive(Default, Clone)]
struct Seen {
    pid: Option<u32>,
    loaded: Option<PathBuf>,
}

impl Seen {
    fn of(running: Option<&Running>) -> Seen {
        Seen {
            pid: running.and_then(|r| r.child.id()),
            loaded: running.and_then(|r| r.loaded.as_ref().map(|(p, _)| p.clone())),
        }
    }
}

impl Shared {
    fn see(&self, running: Option<&Running>) {
        *self.seen.lock().unwrap_or_else(PoisonError::into_inner) = Seen::of(running);
    }

    fn seen(&self) -> Seen {
        self.seen
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    fn memory(&self) -> Option<super::memory::Memory> {
        let reader = self
            .memory
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        reader()
    }

    /// Marks the engine used now (its keep-alive starts again).
    fn touch(&self) {
        *self
            .last_used
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Instant::now();
    }

    /// Stops the engine held in `running`.
    async fn stop(&self, running: &mut Option<Running>) {
        if let Some(mut engine) = running.take() {
            let _gone = engine.child.kill().await;
        }
        self.see(None);
    }
}

impl Default for Engine {
    fn default() -> Self {
        Engine::new(KEEP_LOADED)
    }
}

impl Engine {
    pub fn new(keep_loaded: Duration) -> Engine {
        let shared = Arc::new(Shared {
            running: tokio::sync::Mutex::new(None),
            seen: Mutex::default(),
            sent: std::sync::atomic::AtomicU64::new(0),
            memory: Mutex::new(std::sync::Arc::new(super::memory::read)),
            last_used: Mutex::new(Instant::now()),
            keep_loaded,
        });
        if let Ok(handle) = tokio::runtime::Handle::try_current() {
            handle.spawn(watch(Arc::downgrade(&shared)));
        }
        Engine { shared }
    }

    /// The model loaded now, if any; never waits for a chat.
    pub fn loaded(&self) -> Option<PathBuf> {
        self.shared.seen().loaded
    }

    /// Stops the engine (unloading its model), waiting for the chats
    /// already waiting for it to end first (a model's file is removed
    /// after: on Windows a mapped file cannot be).
    pub async fn unload(&self) {
        let mut running = self.shared.running.lock().await;
        self.shared.stop(&mut running).await;
    }

    /// The machine's memory, as this engine reads it.
    pub fn memory(&self) -> Option<super::memory::Memory> {
        self.shared.memory()
    }

    /// Reads the machine's memory with `reader` from now on (tests: a
    /// machine short of memory).
    pub fn set_memory_reader(&self, reader: super::memory::MemoryReader) {
        *self
            .shared
            .memory
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = reader;
    }

    /// How many chats were handed to an engine (written to its input) so
    /// far: a chat counted here is the engine's to answer.
    pub fn chats_sent(&self) -> u64 {
        self.shared.sent.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// Stops the engine if it holds `path` (or is loading it), after the
    /// chats already waiting for it: the model's file can then go.
    pub async fn unload_if(&self, path: &Path) {
        let mut running = self.shared.running.lock().await;
        let holds = running
            .as_ref()
            .is_some_and(|r| r.loaded.as_ref().is_none_or(|(p, _)| p == path));
        if holds {
            self.shared.stop(&mut running).await;
        }
    }

    /// The process id of the engine, if one runs (tests kill it).
    pub fn pid(&self) -> Option<u32> {
        self.shared.seen().pid
    }

    /// Writes the answer to `chat`: each event is handed to `on_event` as
    /// it comes; the `done` event is returned. Cancelling `cancel` asks the
    /// engine to stop after the token it is writing.
    pub(crate) async fn chat(
        &self,
        setup: ChatSetup<'_>,
        chat: EngineChat,
        cancel: &tokio_util::sync::CancellationToken,
        on_event: &mut (dyn FnMut(EngineEvent) + Send),
    ) -> Result<EngineEvent> {
        let mut running = tokio::select! {
            running = self.shared.running.lock() => running,
            () = cancel.cancelled() => return Err(cancelled()),
        };
        let result = self
            .chat_locked(&mut running, setup, chat, cancel, on_event)
            .await;
        if let Err(e) = &result
            && is_engine_gone(e)
        {
            self.shared.stop(&mut running).await;
        }
        self.shared.touch();
        result
    }

    /// Starts the engine if needed and loads `setup`'s model into it, after
    /// the chats already waiting.
    pub(crate) async fn load(&self, setup: ChatSetup<'_>) -> Result<()> {
        let mut running = self.shared.running.lock().await;
        let result = self.loaded_in(&mut running, &setup).await.map(|_| ());
        if let Err(e) = &result
            && is_engine_gone(e)
        {
            self.shared.stop(&mut running).await;
        }
        self.shared.touch();
        result
    }

    /// The running engine with `setup`'s model loaded: started and loaded
    /// as needed.
    async fn loaded_in<'r>(
        &self,
        running: &'r mut Option<Running>,
        setup: &ChatSetup<'_>,
    ) -> Result<&'r mut Running> {
        if running.as_mut().is_none_or(|r| !r.alive()) {
            *running = Some(start().await?);
            self.shared.see(running.as_ref());
        }
        let Some(engine) = running.as_mut() else {
            return Err(AppError::internal("the engine did not start"));
        };
        let wanted = (setup.model_path.to_path_buf(), setup.context);
        if engine.loaded.as_ref() != Some(&wanted) {
            // The engine drops what it held as soon as it reads the load.
            engine.loaded = None;
            self.shared.see(Some(engine));
            let asked = setup.model_path.display().to_string();
            engine
                .send(&EngineRequest::Load {
                    path: asked.clone(),
                    context: setup.context,
                    threads: setup.threads,
                })
                .await?;
            loop {
                match engine.next(LOAD_TIMEOUT).await? {
                    EngineEvent::Loaded { ref path, .. } if *path == asked => {
                        engine.loaded = Some(wanted);
                        self.shared.see(Some(engine));
                        break;
                    }
                    EngineEvent::Error {
                        id: None, message, ..
                    } => {
                        return Err(AppError::new(
                            ErrorCode::Validation,
                            format!("{message}{}", engine.log_tail()),
                        )
                        .with_details(json!({ "reason": "model_unloadable" })));
                    }
                    // What an abandoned chat or load still wrote before this one.
                    EngineEvent::Loaded { .. }
                    | EngineEvent::Text { .. }
                    | EngineEvent::ToolCall { .. }
                    | EngineEvent::Done { .. }
                    | EngineEvent::Error { id: Some(_), .. } => {}
                    other => return Err(unexpected(&other)),
                }
            }
        }
        Ok(engine)
    }

    async fn chat_locked(
        &self,
        running: &mut Option<Running>,
        setup: ChatSetup<'_>,
        chat: EngineChat,
        cancel: &tokio_util::sync::CancellationToken,
        on_event: &mut (dyn FnMut(EngineEvent) + Send),
    ) -> Result<EngineEvent> {
        // A cancel while the engine starts or loads stops it: what it was
        // doing can no longer be told from what the next chat asks.
        let loading = tokio::select! {
            // A model already loaded is ready at once, cancel or not.
            biased;
            loaded = self.loaded_in(running, &setup) => loaded.map(|_| ()),
            () = cancel.cancelled() => Err(cancelled()),
        };
        if let Err(e) = loading {
            if e.code == ErrorCode::Cancelled {
                self.shared.stop(running).await;
            }
            return Err(e);
        }
        let Some(engine) = running.as_mut() else {
            return Err(AppError::internal("the engine did not start"));
        };
        let id = chat.id.clone();
        engine.send(&EngineRequest::Chat(chat)).await?;
        self.shared
            .sent
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let mut cancel_sent = false;
        loop {
            let event = tokio::select! {
                event = engine.next(EVENT_TIMEOUT) => event?,
                () = cancel.cancelled(), if !cancel_sent => {
                    cancel_sent = true;
                    engine.send(&EngineRequest::Cancel { id: id.clone() }).await?;
                    continue;
                }
            };
            match event {
                // Once cancelled, the call ends cancelled, even if the
                // engine finished the answer before it read the cancel.
                EngineEvent::Done { id: ref done, .. } if *done == id && cancel_sent => {
                    return Err(cancelled());
                }
                EngineEvent::Done { id: ref done, .. } if *done == id => return Ok(event),
                EngineEvent::Error {
                    id: Some(ref failed),
                    ref code,
                    ref message,
                } if *failed == id => return Err(chat_error(code, message)),
                // Only this chat's own pieces: what an abandoned chat (a
                // caller that went away) still writes is never handed on.
                EngineEvent::Text { id: ref of, .. } | EngineEvent::ToolCall { id: ref of, .. }
                    if *of == id =>
                {
                    on_event(event);
                }
                _ => {}
            }
        }
    }
}

fn cancelled() -> AppError {
    AppError::new(ErrorCode::Cancelled, "cancelled")
}

fn unexpected(event: &EngineEvent) -> AppError {
    AppError::internal(format!("the engine answered out of turn: {event:?}"))
}

fn is_engine_gone(e: &AppError) -> bool {
    e.details
        .as_ref()
        .and_then(|d| d.get("reason"))
        .and_then(|r| r.as_str())
        == Some("engine_stopped")
}

/// A chat's failure, by the engine's stable code.
fn chat_error(code: &str, message: &str) -> AppError {
    let (kind, reason) = match code {
        "context_too_long" => (ErrorCode::Precondition, "context_too_long"),
        "cancelled" => return cancelled(),
        "bad_request" => (ErrorCode::Validation, "bad_request"),
        _ => (ErrorCode::Upstream, code),
    };
    AppError::new(kind, format!("the local model: {message}"))
        .with_details(json!({ "reason": reason }))
}

async fn start() -> Result<Running> {
    let command = engine_command()?;
    let mut child = Command::new(&command.program)
        .args(&command.args)
        .envs(command.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| {
            AppError::internal(format!(
                "the local model engine ({}) did not start: {e}",
                command.program.display()
            ))
        })?;
    let (Some(stdin), Some(stdout), Some(stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        return Err(AppError::internal("the engine's pipes were not opened"));
    };
    let (send, events) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        let mut lines = BufReader::new(stdout).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            match serde_json::from_str::<EngineEvent>(&line) {
                Ok(event) => {
                    if send.send(event).is_err() {
                        break;
                    }
                }
                Err(_) => tracing::debug!("engine: {line}"),
            }
        }
    });
    let log: Arc<Mutex<VecDeque<String>>> = Arc::default();
    let tail = log.clone();
    tokio::spawn(async move {
        let mut lines = BufReader::new(stderr).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            tracing::trace!("llama.cpp: {line}");
            let mut tail = tail.lock().unwrap_or_else(PoisonError::into_inner);
            if tail.len() == LOG_LINES {
                tail.pop_front();
            }
            tail.push_back(line);
        }
    });
    let mut running = Running {
        child,
        stdin,
        events,
        log,
        loaded: None,
    };
    match running.next(START_TIMEOUT).await? {
        EngineEvent::Ready { .. } => Ok(running),
        other => Err(unexpected(&other)),
    }
}

impl Running {
    fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    async fn send(&mut self, request: &EngineRequest) -> Result<()> {
        let mut line = serde_json::to_string(request)
            .map_err(|e| AppError::internal(format!("a request could not be written: {e}")))?;
        line.push('\n');
        let written = async {
            self.stdin.write_all(line.as_bytes()).await?;
            self.stdin.flush().await
        };
        if written.await.is_err() {
            return Err(self.stopped().await);
        }
        Ok(())
    }

    /// The next event, or why there is none: the engine stopped (its stdout
    /// closed) or said nothing for `within`.
    async fn next(&mut self, within: Duration) -> Result<EngineEvent> {
        match tokio::time::timeout(within, self.events.recv()).await {
            Ok(Some(event)) => Ok(event),
            Ok(None) => Err(self.stopped().await),
            Err(_) => {
                let _killed = self.child.kill().await;
                Err(AppError::new(
                    ErrorCode::Upstream,
                    format!(
                        "the local model engine said nothing for {} s and was stopped{}",
                        within.as_secs(),
                        self.log_tail()
                    ),
                )
                .with_details(json!({ "reason": "engine_stopped" })))
            }
        }
    }

    /// Why the engine is gone: how it ended and what it last logged.
    async fn stopped(&mut self) -> AppError {
        let status = tokio::time::timeout(Duration::from_secs(5), self.child.wait()).await;
        let how = match status {
            Ok(Ok(status)) => describe_exit(status),
            _ => "it stopped answering".to_owned(),
        };
        AppError::new(
            ErrorCode::Upstream,
            format!(
                "the local model engine stopped ({how}); it starts again for the next run{}",
                self.log_tail()
            ),
        )
        .with_details(json!({ "reason": "engine_stopped" }))
    }

    fn log_tail(&self) -> String {
        let log = self.log.lock().unwrap_or_else(PoisonError::into_inner);
        let last: Vec<&str> = log
            .iter()
            .map(String::as_str)
            .filter(|l| !l.trim().is_empty())
            .rev()
            .take(3)
            .collect();
        if last.is_empty() {
            return String::new();
        }
        let lines: Vec<&str> = last.into_iter().rev().collect();
        format!(" — the engine's log: {}", lines.join(" | "))
    }
}

fn describe_exit(status: std::process::ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return match signal {
                9 => "killed (signal 9; out of memory, or stopped from outside)".to_owned(),
                6 => "aborted by llama.cpp (signal 6)".to_owned(),
                11 => "crashed (signal 11)".to_owned(),
                4 => "stopped by an illegal instruction (signal 4): this processor lacks one the engine was built for (x86-64 builds need AVX2)".to_owned(),
                s => format!("ended by signal {s}"),
            };
        }
    }
    match status.code() {
        Some(code) => format!("exit code {code}"),
        None => "ended".to_owned(),
    }
}

/// Unloads an idle model after its keep-alive, or at once when memory runs
/// short; ends with the engine's owner.
async fn watch(shared: Weak<Shared>) {
    loop {
        tokio::time::sleep(WATCH_EVERY).await;
        let Some(shared) = shared.upgrade() else {
            return;
        };
        // Busy: a chat holds the engine.
        let Ok(mut running) = shared.running.try_lock() else {
            continue;
        };
        let Some(engine) = running.as_mut() else {
            continue;
        };
        if !engine.alive() {
            // Died while idle: what it held is gone.
            shared.stop(&mut running).await;
            continue;
        }
        let idle = shared
            .last_used
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .elapsed();
        let short = shared
            .memory()
            .is_some_and(|m| m.available.saturating_mul(100) < m.total * PRESSURE_PERCENT);
        if idle >= shared.keep_loaded || short {
            if short {
                tracing::info!("memory is short: the local model is unloaded");
            }
            shared.stop(&mut running).await;
        }
    }
}
