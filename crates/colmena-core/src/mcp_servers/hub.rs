//! The connection manager: one session per server per process, started
//! when a run first needs it and shared by every run that uses it.
//!
//! - A start is serialised per server (a per-server async lock): runs that
//!   need a server being started wait for that start instead of starting
//!   another copy.
//! - A session that ends (its program crashed, its stream closed) is
//!   dropped; the next need starts it again. A failure right away, and every
//!   failure after it, backs off — 0 s, 2 s, 4 s … up to a minute — so a
//!   broken configuration is not restarted in a loop; a person's Test
//!   always tries at once.
//! - `tools/list_changed` from a server lists its tools again.
//! - `stop_all` runs when the app or `colmena serve` exits; the programs
//!   also die with Colmena when it is killed (the supervising launcher).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use chrono::Utc;

use super::config::{McpState, McpStatus};
use super::port::{ExitReport, McpConnector, McpEvents, McpSession};
use super::{store, sync};
use crate::ctx::{Change, Ctx, WeakCtx};
use crate::error::{AppError, ErrorCode, Result};

/// How long a start (program up, initialised, tools listed) may take: the
/// first `npx -y` of a package downloads it.
const START_TIMEOUT: Duration = Duration::from_secs(90);
const MAX_BACKOFF: Duration = Duration::from_secs(60);

#[derive(Default)]
struct Slot {
    session: Option<Arc<dyn McpSession>>,
    /// Failures in a row since the last good start.
    failures: u32,
    retry_at: Option<Instant>,
    last_error: Option<String>,
    /// The secret values the session was started with, hidden from every
    /// failure it reports.
    hidden: Vec<zeroize::Zeroizing<String>>,
}

/// The manager; one per [`Ctx`].
#[derive(Default)]
pub struct Hub {
    connector: OnceLock<Arc<dyn McpConnector>>,
    slots: Mutex<HashMap<String, Arc<tokio::sync::Mutex<Slot>>>>,
    live: Mutex<HashMap<String, McpStatus>>,
}

impl Hub {
    /// The hub of the workspace `ctx`.
    pub(crate) fn of(ctx: &Ctx) -> Arc<Hub> {
        ctx.slot::<Hub>()
    }
}

fn backoff(failures: u32) -> Duration {
    match failures {
        0 | 1 => Duration::ZERO,
        n => Duration::from_secs(1u64 << (n - 1).min(6)).min(MAX_BACKOFF),
    }
}

fn status(state: McpState, report: Option<&ExitReport>) -> McpStatus {
    McpStatus {
        state,
        error: report.map(|r| r.reason.clone()),
        stderr_tail: report.and_then(|r| r.stderr_tail.clone()),
        exit_code: report.and_then(|r| r.exit_code),
        since: Some(Utc::now()),
    }
}

/// A start that failed, as the error a run or a Test shows.
pub(crate) fn start_error(name: &str, report: &ExitReport) -> AppError {
    let mut message = format!("MCP server '{name}' could not start: {}", report.reason);
    // The reason usually names the exit code already ("exited with code 3").
    if let Some(code) = report.exit_code
        && !report.reason.contains(&code.to_string())
    {
        message.push_str(&format!(" (exit code {code})"));
    }
    message.push('.');
    // The last line the program wrote is usually the one that says why.
    if let Some(last) = report
        .stderr_tail
        .as_deref()
        .and_then(|t| t.lines().rev().find(|l| !l.trim().is_empty()))
    {
        message.push_str(&format!(" It said: {}", last.trim()));
    }
    AppError::new(ErrorCode::Upstream, message).with_details(serde_json::json!({
        "reason": "mcp_server_failed",
        "exitCode": report.exit_code,
        "stderrTail": report.stderr_tail,
    }))
}

impl Hub {
    pub(crate) fn install(&self, connector: Arc<dyn McpConnector>) {
        if self.connector.set(connector).is_err() {
            tracing::warn!("an MCP connector was already installed; the second one is ignored");
        }
    }

    pub(crate) fn has_connector(&self) -> bool {
        self.connector.get().is_some()
    }

    fn slot(&self, id: &str) -> Arc<tokio::sync::Mutex<Slot>> {
        let mut slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        Arc::clone(slots.entry(id.to_owned()).or_default())
    }

    /// This process's state of `id`, if it has tried to start it.
    pub(crate) fn live(&self, id: &str) -> Option<McpStatus> {
        self.live
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(id)
            .cloned()
    }

    fn set_live(&self, id: &str, status: Option<McpStatus>) {
        let mut live = self.live.lock().unwrap_or_else(|e| e.into_inner());
        match status {
            Some(status) => live.insert(id.to_owned(), status),
            None => live.remove(id),
        };
    }

    /// The running session of `id`, started if needed. `force` ignores the
    /// backoff (a person pressed Test) and starts a fresh session.
    pub(crate) async fn session(
        &self,
        ctx: &Ctx,
        id: &str,
        force: bool,
    ) -> Result<Arc<dyn McpSession>> {
        let slot = self.slot(id);
        let mut slot = slot.lock().await;
        if let Some(session) = slot.session.clone() {
            match session.ended() {
                None if !force => return Ok(session),
                None => session.shutdown().await,
                Some(report) => self.note_end(ctx, id, &mut slot, &report).await,
            }
            slot.session = None;
        }
        if !force
            && let Some(at) = slot.retry_at
            && Instant::now() < at
        {
            let wait = at
                .saturating_duration_since(Instant::now())
                .as_secs()
                .max(1);
            return Err(AppError::new(
                ErrorCode::Upstream,
                format!(
                    "MCP server '{id}' failed: {}. It is tried again in {wait} s (or press Test in Catalog → MCP servers).",
                    slot.last_error.as_deref().unwrap_or("it stopped")
                ),
            )
            .with_details(serde_json::json!({ "reason": "mcp_server_backoff", "retryAfterSeconds": wait })));
        }
        let connector = self.connector.get().cloned().ok_or_else(|| {
            AppError::precondition("this process cannot start MCP servers (it has no MCP client)")
        })?;
        let (owned, server) = (ctx.clone(), id.to_owned());
        let (name, (launch, hidden)) = ctx
            .store()
            .read(move |conn| {
                let row = store::require(conn, &server)?;
                if !row.enabled {
                    return Err(AppError::precondition(format!(
                        "MCP server '{}' is switched off",
                        row.name
                    )));
                }
                let launch = store::launch_of(
                    conn,
                    owned.vault(),
                    owned.data_dir(),
                    &row,
                    &super::refs::from_env,
                    START_TIMEOUT,
                )?;
                Ok((row.name, launch))
            })
            .await?;
        self.set_live(id, Some(status(McpState::Starting, None)));
        let events: Arc<dyn McpEvents> = Arc::new(Events {
            ctx: ctx.downgrade(),
            server: id.to_owned(),
        });
        let started =
            match tokio::time::timeout(START_TIMEOUT, connector.connect(launch, events)).await {
                Ok(Ok(session)) => {
                    match tokio::time::timeout(START_TIMEOUT, session.list_tools()).await {
                        Ok(Ok(tools)) => Ok((session, tools)),
                        Ok(Err(e)) => {
                            let report = session.ended().unwrap_or(ExitReport {
                                reason: format!("listing its tools failed: {}", e.message),
                                exit_code: None,
                                stderr_tail: session.stderr_tail(),
                            });
                            session.shutdown().await;
                            Err(report)
                        }
                        Err(_) => {
                            let tail = session.stderr_tail();
                            session.shutdown().await;
                            Err(ExitReport {
                                reason: "it did not list its tools in time".into(),
                                exit_code: None,
                                stderr_tail: tail,
                            })
                        }
                    }
                }
                Ok(Err(report)) => Err(report),
                Err(_) => Err(ExitReport {
                    reason: format!("it did not answer within {} s", START_TIMEOUT.as_secs()),
                    exit_code: None,
                    stderr_tail: None,
                }),
            };
        // What a failure says never shows a secret (a server that prints
        // "invalid token ghp_…" on its way out): see `fail`.
        slot.hidden = hidden;
        match started {
            Ok((session, tools)) => {
                let server = id.to_owned();
                let synced = ctx
                    .store()
                    .write(move |tx| {
                        store::record_failure(tx, &server, None)?;
                        sync::replace(tx, &server, &tools)
                    })
                    .await?;
                ctx.index(synced.upserts, synced.deletes, synced.generation)
                    .await;
                ctx.changed(Change::Tools);
                slot.failures = 0;
                slot.retry_at = None;
                slot.last_error = None;
                slot.session = Some(Arc::clone(&session));
                self.set_live(id, Some(status(McpState::Running, None)));
                ctx.changed(Change::McpServers);
                Ok(session)
            }
            Err(report) => {
                let report = self.fail(ctx, id, &mut slot, &report).await;
                Err(start_error(&name, &report))
            }
        }
    }

    /// Records a failure, its secrets hidden; returns it as recorded.
    async fn fail(&self, ctx: &Ctx, id: &str, slot: &mut Slot, report: &ExitReport) -> ExitReport {
        let report = &ExitReport {
            reason: store::redact(&report.reason, &slot.hidden),
            exit_code: report.exit_code,
            stderr_tail: report
                .stderr_tail
                .as_deref()
                .map(|t| store::redact(t, &slot.hidden)),
        };
        slot.failures += 1;
        slot.retry_at = Some(Instant::now() + backoff(slot.failures));
        slot.last_error = Some(report.reason.clone());
        self.set_live(id, Some(status(McpState::Failed, Some(report))));
        let (server, recorded) = (id.to_owned(), report.clone());
        if let Err(e) = ctx
            .store()
            .write(move |tx| store::record_failure(tx, &server, Some(&recorded)))
            .await
        {
            tracing::warn!(
                "cannot record the failure of MCP server {id}: {}",
                e.message
            );
        }
        ctx.changed(Change::McpServers);
        report.clone()
    }

    /// A running session ended by itself: one failure (a crash right after
    /// another backs off), shown with why.
    async fn note_end(&self, ctx: &Ctx, id: &str, slot: &mut Slot, report: &ExitReport) {
        let report = self.fail(ctx, id, slot, report).await;
        tracing::warn!("MCP server {id} stopped: {}", report.reason);
    }

    /// The session of `id` ended by itself (called from its events).
    pub(crate) async fn ended(&self, ctx: &Ctx, id: &str) {
        let slot = self.slot(id);
        let mut slot = slot.lock().await;
        if let Some(session) = slot.session.clone()
            && let Some(report) = session.ended()
        {
            slot.session = None;
            self.note_end(ctx, id, &mut slot, &report).await;
        }
    }

    /// The tools of a running `id`, listed again.
    pub(crate) async fn refresh(&self, ctx: &Ctx, id: &str) -> Result<()> {
        let session = {
            let slot = self.slot(id);
            let slot = slot.lock().await;
            slot.session.clone()
        };
        let Some(session) = session else {
            return Ok(());
        };
        let tools = tokio::time::timeout(START_TIMEOUT, session.list_tools())
            .await
            .map_err(|_| {
                AppError::new(
                    ErrorCode::Upstream,
                    format!("MCP server '{id}' did not list its tools in time"),
                )
            })??;
        let server = id.to_owned();
        let synced = ctx
            .store()
            .write(move |tx| sync::replace(tx, &server, &tools))
            .await?;
        ctx.index(synced.upserts, synced.deletes, synced.generation)
            .await;
        ctx.changed(Change::Tools);
        ctx.changed(Change::McpServers);
        Ok(())
    }

    /// Stops `id` (switched off, deleted, edited): the next need starts the
    /// new configuration.
    pub(crate) async fn stop(&self, id: &str) {
        let slot = self.slot(id);
        let mut slot = slot.lock().await;
        if let Some(session) = slot.session.take() {
            session.shutdown().await;
        }
        *slot = Slot::default();
        self.set_live(id, None);
    }

    /// Stops every server (the process is exiting).
    pub(crate) async fn stop_all(&self) {
        let ids: Vec<String> = self
            .slots
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .keys()
            .cloned()
            .collect();
        for id in ids {
            self.stop(&id).await;
        }
    }
}

/// What a session reports, routed back to the manager of its workspace.
struct Events {
    ctx: WeakCtx,
    server: String,
}

impl Events {
    fn spawn(&self, refresh: bool) {
        let (Some(ctx), Ok(runtime)) = (self.ctx.upgrade(), tokio::runtime::Handle::try_current())
        else {
            return;
        };
        let server = self.server.clone();
        runtime.spawn(async move {
            if refresh {
                if let Err(e) = Hub::of(&ctx).refresh(&ctx, &server).await {
                    tracing::warn!(
                        "MCP server {server}: listing its tools again failed: {}",
                        e.message
                    );
                }
            } else {
                Hub::of(&ctx).ended(&ctx, &server).await;
            }
        });
    }
}

impl McpEvents for Events {
    fn tools_changed(&self) {
        self.spawn(true);
    }

    fn ended(&self) {
        self.spawn(false);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_crash_restarts_at_once_and_repeated_ones_back_off_to_a_minute() {
        assert_eq!(backoff(1), Duration::ZERO);
        assert_eq!(backoff(2), Duration::from_secs(2));
        assert_eq!(backoff(3), Duration::from_secs(4));
        assert_eq!(backoff(20), MAX_BACKOFF);
    }
}
