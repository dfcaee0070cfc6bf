//! The engine's stdin, read on a thread of its own so that a `cancel` is
//! seen while a chat is being written: the reader marks the chat it names
//! at once (even one still queued), and queues every other request in
//! order.

use std::collections::HashSet;
use std::io::BufRead;
use std::sync::mpsc::{Receiver, channel};
use std::sync::{Arc, Mutex};

use colmena_core::llm::local::wire::EngineRequest;

/// Cancels kept for chats that never came (a cancel after its chat ended):
/// beyond this many the oldest are forgotten.
const MAX_CANCELS_KEPT: usize = 1024;

pub(crate) struct Requests {
    queue: Receiver<EngineRequest>,
    cancelled: Arc<Mutex<HashSet<String>>>,
}

impl Requests {
    pub(crate) fn start() -> Requests {
        let (send, queue) = channel();
        let cancelled: Arc<Mutex<HashSet<String>>> = Arc::default();
        let marks = cancelled.clone();
        std::thread::spawn(move || {
            for line in std::io::stdin().lock().lines() {
                let Ok(line) = line else { break };
                if line.trim().is_empty() {
                    continue;
                }
                match serde_json::from_str::<EngineRequest>(&line) {
                    Ok(EngineRequest::Cancel { id }) => {
                        let mut marks = marks.lock().unwrap_or_else(|e| e.into_inner());
                        if marks.len() >= MAX_CANCELS_KEPT {
                            marks.clear();
                        }
                        marks.insert(id);
                    }
                    Ok(request) => {
                        if send.send(request).is_err() {
                            break;
                        }
                    }
                    Err(e) => {
                        crate::error(None, "bad_request", format!("unreadable request: {e}"));
                    }
                }
            }
        });
        Requests { queue, cancelled }
    }

    /// The next request; `None` once stdin is closed.
    pub(crate) fn next(&self) -> Option<EngineRequest> {
        self.queue.recv().ok()
    }

    /// Whether chat `id` was cancelled.
    pub(crate) fn cancelled(&self, id: &str) -> bool {
        self.lock().contains(id)
    }

    /// Chat `id` has ended: its cancel, if any, is spent.
    pub(crate) fn ended(&self, id: &str) {
        self.lock().remove(id);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashSet<String>> {
        self.cancelled.lock().unwrap_or_else(|e| e.into_inner())
    }
}
