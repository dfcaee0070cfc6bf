//! A stdio server: the program under the supervising launcher, MCP over its
//! stdin and stdout. Its standard error is kept (the last 4 KB) so a
//! failure can say what the program said; a watcher waits for it to exit,
//! keeps the exit code, kills what is left of its process group and tells
//! the manager.

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use colmena_core::mcp_servers::port::{
    BoxFuture, ExitReport, McpEvents, McpSession, RemoteResult, RemoteTool,
};
use colmena_core::process::{
    Input, kill_group, release_group, spawn_supervised, supervised_command,
};
use rmcp::ServiceExt;
use rmcp::service::{Peer, RoleClient, RunningService};
use serde_json::Value;
use tokio::io::AsyncReadExt;
use zeroize::Zeroizing;

use super::handler::{self, Handler};

/// How much of standard error is kept.
const STDERR_TAIL: usize = 4096;
/// How long a server may take to exit once its stdin is closed.
const EXIT_GRACE: Duration = Duration::from_secs(2);

type Shared<T> = Arc<Mutex<T>>;

pub(super) struct StdioSession {
    service: tokio::sync::Mutex<Option<RunningService<RoleClient, Handler>>>,
    peer: Peer<RoleClient>,
    exit: Shared<Option<ExitReport>>,
    exited: tokio::sync::watch::Receiver<bool>,
    stderr: Shared<String>,
    group: Option<u32>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

fn tail(buffer: &Shared<String>) -> Option<String> {
    let text = lock(buffer).clone();
    (!text.trim().is_empty()).then_some(text)
}

fn describe(status: std::process::ExitStatus) -> (String, Option<i32>) {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return (
                format!("the program was killed by signal {signal}"),
                Some(128 + signal),
            );
        }
    }
    // The supervising launcher reports a program killed by a signal as
    // 128 + the signal, like a shell.
    match status.code() {
        Some(0) => ("the program exited".to_owned(), Some(0)),
        Some(code @ 129..=192) => (
            format!("the program was killed by signal {}", code - 128),
            Some(code),
        ),
        Some(code) => (format!("the program exited with code {code}"), Some(code)),
        None => ("the program exited".to_owned(), None),
    }
}

pub(super) async fn connect(
    command: &str,
    args: &[String],
    env: &[(String, Zeroizing<String>)],
    cwd: &Path,
    events: Arc<dyn McpEvents>,
) -> Result<Arc<StdioSession>, ExitReport> {
    let pairs: Vec<(String, String)> = env
        .iter()
        .map(|(k, v)| (k.clone(), v.to_string()))
        .collect();
    let mut cmd = supervised_command(command, args, &pairs, Some(cwd)).map_err(|e| ExitReport {
        reason: e.message,
        exit_code: None,
        stderr_tail: None,
    })?;
    let mut child = spawn_supervised(&mut cmd, Input::Piped)
        .await
        .map_err(|e| ExitReport {
            reason: format!("cannot start '{command}': {e}"),
            exit_code: None,
            stderr_tail: None,
        })?;
    let group = child.id();
    let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
        if let Some(id) = group {
            kill_group(id);
        }
        return Err(ExitReport {
            reason: "the program's stdin or stdout is not a pipe".into(),
            ..ExitReport::default()
        });
    };
    let stderr: Shared<String> = Arc::default();
    if let Some(mut pipe) = child.stderr.take() {
        let buffer = Arc::clone(&stderr);
        tokio::spawn(async move {
            let mut chunk = [0u8; 1024];
            while let Ok(n) = pipe.read(&mut chunk).await {
                if n == 0 {
                    break;
                }
                let mut text = lock(&buffer);
                text.push_str(&String::from_utf8_lossy(&chunk[..n]));
                if text.len() > STDERR_TAIL {
                    let mut cut = text.len() - STDERR_TAIL;
                    while !text.is_char_boundary(cut) {
                        cut += 1;
                    }
                    text.drain(..cut);
                }
            }
        });
    }
    let exit: Shared<Option<ExitReport>> = Arc::default();
    let (exited_tx, exited) = tokio::sync::watch::channel(false);
    {
        let (exit, stderr, events) = (Arc::clone(&exit), Arc::clone(&stderr), Arc::clone(&events));
        tokio::spawn(async move {
            // The launcher exits only once nothing the program started is
            // alive: its group is gone (and its id may be reused: never
            // signalled after this).
            let status = child.wait().await;
            if let Some(id) = group {
                release_group(id);
            }
            // Let the stderr reader take the last words.
            tokio::time::sleep(Duration::from_millis(50)).await;
            let (reason, exit_code) = match status {
                Ok(status) => describe(status),
                Err(e) => (format!("waiting for the program failed: {e}"), None),
            };
            *lock(&exit) = Some(ExitReport {
                reason,
                exit_code,
                stderr_tail: tail(&stderr),
            });
            let _ = exited_tx.send(true);
            events.ended();
        });
    }
    let served = Handler { events }.serve((stdout, stdin)).await;
    let service = match served {
        Ok(service) => service,
        Err(e) => {
            // The program may be dying: give it a moment to say why.
            let _ = tokio::time::timeout(EXIT_GRACE, exited.clone().wait_for(|done| *done)).await;
            if let Some(id) = group.filter(|_| lock(&exit).is_none()) {
                kill_group(id);
            }
            let report = lock(&exit).clone();
            return Err(report.unwrap_or(ExitReport {
                reason: format!("the MCP handshake failed: {e}"),
                exit_code: None,
                stderr_tail: tail(&stderr),
            }));
        }
    };
    let peer = service.peer().clone();
    Ok(Arc::new(StdioSession {
        service: tokio::sync::Mutex::new(Some(service)),
        peer,
        exit,
        exited,
        stderr,
        group,
    }))
}

impl StdioSession {
    /// After a failed request: if the program is dying, wait until its exit
    /// is known, so the error says it stopped.
    async fn settle(&self) {
        if lock(&self.exit).is_none() && self.peer.is_transport_closed() {
            let _ =
                tokio::time::timeout(EXIT_GRACE, self.exited.clone().wait_for(|done| *done)).await;
        }
    }
}

impl McpSession for StdioSession {
    fn list_tools(&self) -> BoxFuture<'_, colmena_core::Result<Vec<RemoteTool>>> {
        Box::pin(async move {
            let listed = handler::list_tools(&self.peer).await;
            if listed.is_err() {
                self.settle().await;
            }
            listed
        })
    }

    fn call_tool(
        &self,
        name: &str,
        arguments: Value,
    ) -> BoxFuture<'_, colmena_core::Result<RemoteResult>> {
        let name = name.to_owned();
        Box::pin(async move {
            let called = handler::call_tool(&self.peer, &name, arguments).await;
            if called.is_err() {
                self.settle().await;
            }
            called
        })
    }

    fn ended(&self) -> Option<ExitReport> {
        if let Some(report) = lock(&self.exit).clone() {
            return Some(report);
        }
        self.peer.is_transport_closed().then(|| ExitReport {
            reason: "the program closed its output".into(),
            exit_code: None,
            stderr_tail: tail(&self.stderr),
        })
    }

    fn stderr_tail(&self) -> Option<String> {
        tail(&self.stderr)
    }

    fn shutdown(&self) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            if let Some(service) = self.service.lock().await.take() {
                // Closing stdin is how the specification ends a stdio server.
                let _ = tokio::time::timeout(EXIT_GRACE, service.cancel()).await;
            }
            if lock(&self.exit).is_none() {
                let _ =
                    tokio::time::timeout(EXIT_GRACE, self.exited.clone().wait_for(|done| *done))
                        .await;
            }
            // Still running after the grace time: the whole group goes now.
            if let Some(id) = self.group.filter(|_| lock(&self.exit).is_none()) {
                kill_group(id);
            }
        })
    }
}
