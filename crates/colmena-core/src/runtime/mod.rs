//! The runtime: agents calling models and using tools, for a conversation,
//! a swarm or on their own (SPEC H9, H42).
//!
//! Every run is recorded (`runs`) and streams [`RunEvent`]s to whoever
//! started it as they happen; tokens are streamed but not stored, every
//! complete step is stored. After each step the run saves a checkpoint, so
//! a run killed half-way resumes from its last complete step. While it
//! works, the run renews its lease; a cancelled run stops its HTTP stream
//! and ends as `cancelled`.

pub mod agent;
pub(crate) mod builtins;
pub mod chat;
pub(crate) mod tools;

use std::future::Future;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;

use crate::ctx::Ctx;
use crate::error::{AppError, ErrorCode, Result};
use crate::llm::Usage;
use crate::models::resolve::RunCredentials;
use crate::runs::{self, Run, RunKind, RunStatus};
use crate::work::Work;

/// What streams out of a run, as it happens.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(
    tag = "type",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
pub enum RunEvent {
    Started {
        run_id: String,
        kind: RunKind,
        target_id: String,
    },
    /// An agent asks its model (step counts from 1).
    AgentStep {
        run_id: String,
        agent_id: String,
        step: u32,
    },
    TextDelta {
        run_id: String,
        agent_id: String,
        text: String,
    },
    ToolCall {
        run_id: String,
        agent_id: String,
        call_id: String,
        name: String,
        arguments: String,
    },
    ToolResult {
        run_id: String,
        agent_id: String,
        call_id: String,
        name: String,
        ok: bool,
        /// The permission gate refused the call (a rule, or a person).
        denied: bool,
        output: String,
    },
    /// A tool call waits for a person (the permission gate's "ask").
    ApprovalRequested {
        run_id: String,
        approval: crate::permissions::approvals::Approval,
    },
    /// A person decided (or the run stopped waiting).
    ApprovalDecided {
        run_id: String,
        approval: crate::permissions::approvals::Approval,
    },
    /// An agent's final answer within the run.
    AgentOutput {
        run_id: String,
        agent_id: String,
        text: String,
    },
    Error {
        run_id: String,
        agent_id: Option<String>,
        error: AppError,
    },
    Finished {
        run_id: String,
        status: RunStatus,
        output: Option<String>,
        usage: Usage,
    },
}

/// Where events go; shared by parallel members and delegated runs.
pub type EventSink = Arc<dyn Fn(RunEvent) + Send + Sync>;

/// A sink that drops everything.
pub fn no_events() -> EventSink {
    Arc::new(|_| {})
}

/// Everything a step of a run needs.
#[derive(Clone)]
pub(crate) struct RunContext {
    pub ctx: Ctx,
    pub run_id: String,
    pub user_id: String,
    /// How many delegations deep this run is.
    pub depth: u32,
    pub credentials: Option<RunCredentials>,
    pub cancel: CancellationToken,
    pub sink: EventSink,
    /// In a hierarchical swarm: the members the orchestrator may delegate to.
    pub delegates: Option<Vec<String>>,
    /// A woken role: the bus author the run speaks as (the bus tools).
    pub author: Option<String>,
    /// Someone can answer the permission gate's questions. Wake-ups (and
    /// what they delegate to) are unattended: they never wait for a person.
    pub attended: bool,
    /// The role whose wake-up this run belongs to: the woken run's own
    /// author, and the same role for every run it delegates to — what the
    /// role may do unattended bounds them all.
    pub wake_role: Option<String>,
    /// The scheduled job that started this run (or the run it delegates
    /// from): what the job may do unattended bounds them all, read fresh
    /// at each call.
    pub wake_job: Option<String>,
    /// The agents that handed this run its task (`delegate_task`), first
    /// the outermost: for every class the gate applies the strictest of
    /// their rules and this agent's, so text one agent read (a page, a
    /// message) cannot reach another agent's wider "allow".
    pub delegators: Vec<String>,
}

impl RunContext {
    /// Who this run acts as: the woken role, else the run's user.
    pub(crate) fn caller(&self) -> crate::caller::Caller {
        match &self.author {
            Some(role) => crate::caller::Caller::role_run(role, &self.user_id),
            None => crate::caller::Caller::agent_run(
                &self.user_id,
                &self.run_id,
                self.wake_role.as_deref(),
            ),
        }
    }

    pub(crate) fn emit(&self, event: RunEvent) {
        (self.sink)(event);
    }
}

/// Runs `body` as the run `run`: registers it for cancellation, keeps its
/// lease, streams `Started` and `Finished`, and records how it ended. An
/// error inside the run ends it as failed (or cancelled) — it is in the
/// record, not returned.
pub(crate) async fn drive<F, Fut>(
    ctx: &Ctx,
    run: Run,
    parent: Option<&RunContext>,
    base: RunBase,
    body: F,
) -> Result<Run>
where
    F: FnOnce(RunContext) -> Fut,
    Fut: Future<Output = Result<(String, Usage)>>,
{
    drive_for(ctx, run, parent, base, None, body).await
}

/// [`drive`] for a run a scheduled job started (`job`: its id; a child run
/// inherits its parent's).
pub(crate) async fn drive_for<F, Fut>(
    ctx: &Ctx,
    run: Run,
    parent: Option<&RunContext>,
    base: RunBase,
    job: Option<String>,
    body: F,
) -> Result<Run>
where
    F: FnOnce(RunContext) -> Fut,
    Fut: Future<Output = Result<(String, Usage)>>,
{
    let cancel = match parent {
        Some(parent) => parent.cancel.child_token(),
        None => ctx.work().register(Work::Run(&run.id)),
    };
    let rc = RunContext {
        ctx: ctx.clone(),
        run_id: run.id.clone(),
        user_id: run.user_id.clone(),
        depth: parent.map_or(0, |p| p.depth + 1),
        credentials: base.credentials,
        cancel: cancel.clone(),
        sink: base.sink,
        delegates: base.delegates,
        wake_role: parent.map_or_else(|| base.author.clone(), |p| p.wake_role.clone()),
        wake_job: parent.map_or(job, |p| p.wake_job.clone()),
        author: base.author,
        attended: parent.map_or(base.attended, |p| p.attended),
        delegators: base.delegators,
    };
    rc.emit(RunEvent::Started {
        run_id: run.id.clone(),
        kind: run.kind,
        target_id: run.target_id.clone(),
    });

    let heartbeat = CancellationToken::new();
    {
        let (ctx, id, done) = (ctx.clone(), run.id.clone(), heartbeat.clone());
        let stop = cancel.clone();
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    _ = done.cancelled() => break,
                    _ = tokio::time::sleep(runs::LEASE_RENEWAL) => {
                        match runs::renew_lease(&ctx, &id).await {
                            Ok(true) => stop.cancel(),
                            Ok(false) => {}
                            Err(e) => tracing::warn!("run {id}: lease not renewed: {}", e.message),
                        }
                    }
                }
            }
        });
    }

    let result = body(rc.clone()).await;
    heartbeat.cancel();
    if let Err(e) = crate::permissions::approvals::close_run(ctx, &run.id).await {
        tracing::warn!("run {}: approvals left open: {}", run.id, e.message);
    }
    let usage_so_far = runs::get(ctx, &run.id)
        .await
        .map(|d| d.run.usage)
        .unwrap_or_default();
    let finished = match result {
        Ok((output, usage)) => {
            runs::finish(
                ctx,
                &run.id,
                RunStatus::Completed,
                Some(output),
                None,
                usage,
            )
            .await
        }
        Err(error) => {
            let status = if error.code == ErrorCode::Cancelled {
                RunStatus::Cancelled
            } else {
                RunStatus::Failed
            };
            rc.emit(RunEvent::Error {
                run_id: run.id.clone(),
                agent_id: None,
                error: error.clone(),
            });
            let _ =
                runs::record_step(ctx, &run.id, None, "error", serde_json::to_value(&error)?).await;
            runs::finish(ctx, &run.id, status, None, Some(&error), usage_so_far).await
        }
    };
    if parent.is_none() {
        ctx.work().unregister(Work::Run(&run.id));
    }
    let finished = finished?;
    rc.emit(RunEvent::Finished {
        run_id: finished.id.clone(),
        status: finished.status,
        output: finished.output.clone(),
        usage: finished.usage,
    });
    Ok(finished)
}

/// What a run is started with besides its record.
pub(crate) struct RunBase {
    pub credentials: Option<RunCredentials>,
    pub sink: EventSink,
    pub delegates: Option<Vec<String>>,
    pub author: Option<String>,
    /// See [`RunContext::attended`].
    pub attended: bool,
    /// See [`RunContext::delegators`] (empty for a run nobody delegated).
    pub delegators: Vec<String>,
}
