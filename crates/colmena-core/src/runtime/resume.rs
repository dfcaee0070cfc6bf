//! Resuming a run (H42): an interrupted run goes on from its checkpoint,
//! and a person's decision on a call that waited reaches a run whose
//! process stopped meanwhile.
//!
//! A resumed run's origin — the role whose wake-up it is, the job that
//! started it — is looked up here, once, and handed down: the agent loop
//! and the swarm runner never look it up themselves. Resuming sits on the
//! engine floor beside them, because the role runner resumes its own
//! cut-off wake-ups (`roles::cut_off`).

use super::{agent, chat};
use crate::caller::Caller;
use crate::ctx::Ctx;
use crate::error::Result;
use crate::permissions::approvals::{self, Approval, Decision};
use crate::runs::context::{EventSink, no_events};
use crate::runs::origin::origin_of;
use crate::runs::{self, Run, RunKind, RunStatus};
use crate::work::Work;

/// Resumes any interrupted run from its checkpoint (H42).
pub async fn resume_run(ctx: &Ctx, run_id: &str, sink: EventSink) -> Result<Run> {
    let (run, checkpoint) = runs::take_over(ctx, run_id).await?;
    match (run.kind, run.thread_id.is_some()) {
        (RunKind::Agent, true) => chat::resume(ctx, run, checkpoint, sink).await,
        (RunKind::Agent, false) => {
            let origin = origin_of(ctx, &run.id).await?;
            agent::resume_agent(ctx, run, checkpoint, origin, sink).await
        }
        (RunKind::Swarm, _) => {
            let origin = origin_of(ctx, &run.id).await?;
            crate::swarms::run::resume(ctx, run, checkpoint, origin.job, sink).await
        }
    }
}

/// A decision, and the run it resumed (see [`decide`]).
#[derive(Debug)]
pub struct Decided {
    pub approval: Approval,
    /// The run was no longer alive (its process stopped while it waited):
    /// it was resumed here and finds the decision. A short-lived process
    /// (the CLI) waits for it; the app lets it run.
    pub resumed: Option<tokio::task::JoinHandle<Result<Run>>>,
}

/// A person decides (only a person in the app or at the command line may:
/// [`approvals::record_decision`]). A run that is no longer alive (the app
/// restarted while it waited) is resumed and finds the decision; a run
/// alive in another process sees the decision within a second.
pub async fn decide(ctx: &Ctx, caller: &Caller, id: &str, decision: Decision) -> Result<Decided> {
    let approval = approvals::record_decision(ctx, caller, id, decision).await?;
    let resumed = resume_if_stopped(ctx, &approval.run_id).await;
    Ok(Decided { approval, resumed })
}

/// A run whose process stopped while it waited is interrupted: resume it so
/// the decision takes effect without anyone pressing "resume" too. A run
/// still alive in another process (its lease is fresh) is left to it:
/// resuming refuses a run that is not interrupted.
async fn resume_if_stopped(
    ctx: &Ctx,
    run_id: &str,
) -> Option<tokio::task::JoinHandle<Result<Run>>> {
    if ctx.work().is_running(Work::Run(run_id)) {
        return None;
    }
    let detail = runs::get(ctx, run_id).await.ok()?;
    if !matches!(
        detail.run.status,
        RunStatus::Interrupted | RunStatus::Running
    ) || detail.run.parent_run_id.is_some()
    {
        return None;
    }
    let (ctx, run_id) = (ctx.clone(), run_id.to_owned());
    Some(tokio::spawn(async move {
        let resumed = resume_run(&ctx, &run_id, no_events()).await;
        if let Err(e) = &resumed {
            tracing::debug!("run {run_id} not resumed after a decision: {}", e.message);
        }
        resumed
    }))
}
