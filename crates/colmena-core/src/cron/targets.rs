//! What a job runs, and how its end is read into its history.
//!
//! - an agent: one unattended run on the job's prompt;
//! - a swarm: one unattended swarm run on the prompt;
//! - a role (B7): the prompt, when there is one, is sent to the role as a
//!   message from the workspace owner — so it waits in the inbox if the
//!   wake-up fails, as bus mail does — and then the role is woken: its agent
//!   reads its unread inbox with the bus tools, within what the role may do
//!   unattended.
//!
//! The run's id is written into the history entry as soon as the run starts
//! (the view links a running entry to its run), and again when it ends.

use std::sync::{Arc, Mutex};

use tokio::sync::oneshot;

use super::Target;
use super::history::{self, Outcome};
use crate::ctx::Ctx;
use crate::error::Result;
use crate::ids::AgentId;
use crate::inbox::{self, Caller, SendMessage};
use crate::runs::context::{EventSink, RunEvent};
use crate::runs::{Run, RunKind, RunStatus};

/// A sink that hands over the id of the first run that starts.
fn first_run_id() -> (EventSink, oneshot::Receiver<String>) {
    let (tell, told) = oneshot::channel();
    let tell = Arc::new(Mutex::new(Some(tell)));
    let sink: EventSink = Arc::new(move |event| {
        if let RunEvent::Started { run_id, .. } = event
            && let Some(tell) = tell.lock().ok().and_then(|mut t| t.take())
        {
            let _ = tell.send(run_id);
        }
    });
    (sink, told)
}

/// Records the run's id on the entry once it is known.
fn link_when_started(ctx: &Ctx, entry: i64, kind: RunKind, told: oneshot::Receiver<String>) {
    let ctx = ctx.clone();
    tokio::spawn(async move {
        let Ok(run_id) = told.await else {
            return;
        };
        let linked = ctx
            .store()
            .write(move |tx| history::set_run(tx, entry, &run_id, kind))
            .await;
        match linked {
            Ok(()) => ctx.changed(crate::ctx::Change::CronJobs),
            Err(e) => tracing::warn!("could not link a job's run: {}", e.message),
        }
    });
}

fn outcome_of(run: Result<Run>, kind: RunKind) -> Outcome {
    match run {
        Ok(run) => {
            let error = match run.status {
                RunStatus::Completed => None,
                status => Some(run.error.map_or_else(
                    || format!("the run ended {}", status.as_str()),
                    |e| e.message,
                )),
            };
            Outcome {
                run: Some((run.id, kind)),
                error,
                note: None,
            }
        }
        Err(e) => Outcome {
            error: Some(e.message),
            ..Outcome::default()
        },
    }
}

/// Runs `target` on `prompt` for the history entry `entry`.
/// `job` is the job's id: its runs carry it, and the permission gate reads
/// the job's unattended grant from it at each call.
pub(crate) async fn run(
    ctx: &Ctx,
    job: &str,
    entry: i64,
    target: &Target,
    prompt: &str,
) -> Outcome {
    match target {
        Target::Agent { id } => {
            let (sink, told) = first_run_id();
            link_when_started(ctx, entry, RunKind::Agent, told);
            let run = crate::runtime::agent::run_agent_unattended(
                ctx,
                &AgentId::from(id.as_str()),
                prompt,
                job,
                sink,
            )
            .await;
            outcome_of(run, RunKind::Agent)
        }
        Target::Swarm { id } => {
            let (sink, told) = first_run_id();
            link_when_started(ctx, entry, RunKind::Swarm, told);
            let run = crate::swarms::run::run_unattended(ctx, id, prompt, job, sink).await;
            outcome_of(run, RunKind::Swarm)
        }
        Target::Role { id } => match wake_role(ctx, id, prompt).await {
            Ok(outcome) => outcome,
            Err(e) => Outcome {
                error: Some(e.message),
                ..Outcome::default()
            },
        },
    }
}

async fn wake_role(ctx: &Ctx, id: &str, prompt: &str) -> Result<Outcome> {
    let role = inbox::authors::get(ctx, id).await?;
    if role.agent_id.is_none() {
        return Err(crate::error::AppError::precondition(format!(
            "'{}' has no agent to wake: it reads its inbox itself",
            role.id
        )));
    }
    if !prompt.is_empty() {
        let caller = Caller::system(ctx);
        inbox::messages::send(
            ctx,
            &caller,
            ctx.owner(),
            &role.id,
            SendMessage {
                body: prompt.to_owned(),
                priority: None,
                reply_to: None,
                message_id: None,
            },
        )
        .await?;
    }
    let woken = crate::roles::wakes::wake(ctx, &role).await?;
    Ok(Outcome {
        note: woken
            .run_id
            .is_none()
            .then(|| "nothing was unread: the role was woken without a model call".to_owned()),
        run: woken.run_id.map(|id| (id, RunKind::Agent)),
        error: woken.error,
    })
}
