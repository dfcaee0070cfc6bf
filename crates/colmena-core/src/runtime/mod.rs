//! The runtime: agents calling models and using tools, for a conversation,
//! a swarm or on their own (SPEC H9, H42).
//!
//! Every run is recorded (`runs`) and streams [`RunEvent`]s to whoever
//! started it as they happen; tokens are streamed but not stored, every
//! complete step is stored. After each step the run saves a checkpoint, so
//! a run killed half-way resumes from its last complete step. While it
//! works, the run renews its lease; a cancelled run stops its HTTP stream
//! and ends as `cancelled`.
//!
//! What a run carries (`runs::context`) and the tools it calls (`toolbox/`,
//! through the `ToolRunner` port) are not the runtime's: it drives the run.

pub mod agent;
pub mod chat;
pub mod follow_up;
pub mod resume;

use std::future::Future;

use tokio_util::sync::CancellationToken;

use crate::ctx::Ctx;
use crate::error::{ErrorCode, Result};
use crate::llm::Usage;
use crate::runs::context::{RunBase, RunContext, RunEvent};
use crate::runs::{self, Run, RunStatus};
use crate::work::Work;

/// Runs `body` as the run `run`: registers it for cancellation, keeps its
/// lease, streams `Started` and `Finished`, and records how it ended. An
/// error inside the run ends it as failed (or cancelled) — it is in the
/// record, not returned. A child run inherits its parent's job and
/// attendance.
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
        wake_job: parent.map_or(base.job, |p| p.wake_job.clone()),
        author: base.author,
        attended: parent.map_or(base.attended, |p| p.attended),
        delegators: base.delegators,
        model: base.model,
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
