//! Running a swarm (SPEC H8, H9): sequential (each member's output feeds the
//! next), parallel (everyone at once, outputs joined) or hierarchical (the
//! orchestrator delegates to members through `delegate_task`). Every step of
//! every member streams to the caller and is recorded under the swarm's run;
//! the checkpoint holds the finished members' outputs and the state of the
//! member at work, so a resumed run picks up where it stopped.

use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::{MemberRole, Strategy, Swarm};
use crate::ctx::Ctx;
use crate::error::{AppError, ErrorCode, Result};
use crate::ids::AgentId;
use crate::llm::Usage;
use crate::models::resolve::RunCredentials;
use crate::runs::context::{EventSink, RunBase, RunContext};
use crate::runs::{self, NewRun, Run, RunKind};
use crate::runtime::agent::{AgentState, run_loop};
use crate::runtime::drive;

#[derive(Debug, Clone, Default, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct SwarmRunOptions {
    /// Per-run credentials, overriding the stored ones (H9).
    #[serde(default)]
    pub credentials: Option<RunCredentials>,
    #[serde(default)]
    pub user_id: Option<String>,
    /// The door that started it, set by that door (never read from input).
    #[serde(skip)]
    pub client: Option<crate::caller::Client>,
}

impl SwarmRunOptions {
    /// The same options, started through `client`.
    pub fn through(self, client: crate::caller::Client) -> Self {
        SwarmRunOptions {
            client: Some(client),
            ..self
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct MemberOutput {
    agent_id: String,
    text: String,
    #[serde(default)]
    error: Option<String>,
}

/// The checkpoint of a swarm run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct SwarmState {
    input: String,
    outputs: Vec<MemberOutput>,
    /// The member at work and its state (sequential, hierarchical).
    current: Option<(String, AgentState)>,
    usage: Usage,
}

impl SwarmState {
    fn checkpoint(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

/// Runs a saved swarm on `input`. A disabled swarm does not run (H8).
pub async fn run(
    ctx: &Ctx,
    id: &str,
    input: &str,
    options: SwarmRunOptions,
    sink: EventSink,
) -> Result<Run> {
    start(ctx, id, input, options, None, sink).await
}

/// Runs a saved swarm with nobody watching for the scheduled job `job`: the
/// permission gate never waits for a person, and refuses what would ask
/// unless the job's grant allows that class (in every member's run).
pub(crate) async fn run_unattended(
    ctx: &Ctx,
    id: &str,
    input: &str,
    job: &str,
    sink: EventSink,
) -> Result<Run> {
    let job = Some(job.to_owned());
    start(ctx, id, input, SwarmRunOptions::default(), job, sink).await
}

async fn start(
    ctx: &Ctx,
    id: &str,
    input: &str,
    options: SwarmRunOptions,
    job: Option<String>,
    sink: EventSink,
) -> Result<Run> {
    let swarm = super::get(ctx, id).await?;
    if !swarm.enabled {
        return Err(AppError::precondition(format!(
            "swarm '{id}' is disabled: enable it to run it"
        ))
        .with_details(json!({ "reason": "swarm_disabled" })));
    }
    let user = crate::users::check_user(options.user_id.as_deref().unwrap_or(ctx.owner()))?;
    let run = runs::start(
        ctx,
        NewRun {
            kind: RunKind::Swarm,
            target_id: swarm.id.clone(),
            thread_id: None,
            parent_run_id: None,
            user_id: user,
            input: input.to_owned(),
            client: options.client,
        },
    )
    .await?;
    let state = SwarmState {
        input: input.to_owned(),
        ..SwarmState::default()
    };
    execute(ctx, run, swarm, state, options.credentials, job, sink).await
}

/// Resumes an interrupted swarm run from its checkpoint; `job` is the
/// scheduled job that started it, as its resumer looked it up (a job's run
/// stays unattended, within the job's grant).
pub(crate) async fn resume(
    ctx: &Ctx,
    run: Run,
    checkpoint: Value,
    job: Option<String>,
    sink: EventSink,
) -> Result<Run> {
    let state: SwarmState = serde_json::from_value(checkpoint).map_err(|e| {
        AppError::internal(format!(
            "the checkpoint of run {} is unreadable: {e}",
            run.id
        ))
    })?;
    let swarm = super::get(ctx, &run.target_id).await?;
    execute(ctx, run, swarm, state, None, job, sink).await
}

async fn execute(
    ctx: &Ctx,
    run: Run,
    swarm: Swarm,
    state: SwarmState,
    credentials: Option<RunCredentials>,
    job: Option<String>,
    sink: EventSink,
) -> Result<Run> {
    let delegates = (swarm.strategy == Strategy::Hierarchical).then(|| {
        swarm
            .members
            .iter()
            .filter(|m| m.role == MemberRole::Member)
            .map(|m| m.agent_id.to_string())
            .collect()
    });
    let base = RunBase {
        credentials,
        sink,
        delegates,
        author: None,
        attended: job.is_none(),
        job,
        delegators: Vec::new(),
        model: None,
    };
    drive(ctx, run, None, base, move |rc| async move {
        match swarm.strategy {
            Strategy::Sequential => sequential(&rc, &swarm, state).await,
            Strategy::Parallel => parallel(&rc, &swarm, state).await,
            Strategy::Hierarchical => hierarchical(&rc, &swarm, state).await,
        }
    })
    .await
}

async fn record_member(rc: &RunContext, output: &MemberOutput) -> Result<()> {
    runs::record_step(
        &rc.ctx,
        &rc.run_id,
        Some(&output.agent_id),
        "member_output",
        json!(output),
    )
    .await
}

async fn sequential(
    rc: &RunContext,
    swarm: &Swarm,
    mut state: SwarmState,
) -> Result<(String, Usage)> {
    for member in swarm.members.iter().skip(state.outputs.len()) {
        let agent = member.agent_id.clone();
        let agent_state = match state.current.take() {
            Some((id, saved)) if id == agent.as_str() => saved,
            _ => {
                let task = match state.outputs.last() {
                    None => state.input.clone(),
                    Some(previous) => format!(
                        "The task: {}\n\nThe previous member ({}) produced:\n\n{}\n\nDo your part of the work with that as your input.",
                        state.input, previous.agent_id, previous.text
                    ),
                };
                AgentState::new(&task)
            }
        };
        let snapshot = state.clone();
        let wrap = move |s: &AgentState| {
            SwarmState {
                current: Some((agent.to_string(), s.clone())),
                ..snapshot.clone()
            }
            .checkpoint()
        };
        let (text, usage) = run_loop(rc, &member.agent_id, agent_state, None, &wrap).await?;
        state.usage.add(usage);
        let output = MemberOutput {
            agent_id: member.agent_id.to_string(),
            text,
            error: None,
        };
        record_member(rc, &output).await?;
        state.outputs.push(output);
        state.current = None;
        runs::save_checkpoint(&rc.ctx, &rc.run_id, state.checkpoint(), state.usage).await?;
    }
    let last = state
        .outputs
        .last()
        .map(|o| o.text.clone())
        .unwrap_or_default();
    Ok((last, state.usage))
}

async fn parallel(rc: &RunContext, swarm: &Swarm, state: SwarmState) -> Result<(String, Usage)> {
    let shared = Arc::new(Mutex::new(state));
    let done: Vec<String> = shared
        .lock()
        .map(|s| s.outputs.iter().map(|o| o.agent_id.clone()).collect())
        .unwrap_or_default();
    let input = shared.lock().map(|s| s.input.clone()).unwrap_or_default();
    let work = swarm
        .members
        .iter()
        .filter(|m| !done.contains(&m.agent_id.to_string()))
        .map(|member| {
            let (rc, shared, input) = (rc.clone(), Arc::clone(&shared), input.clone());
            let agent: AgentId = member.agent_id.clone();
            async move {
                let snapshot = Arc::clone(&shared);
                let wrap = move |_: &AgentState| {
                    snapshot
                        .lock()
                        .map(|s| s.checkpoint())
                        .unwrap_or(Value::Null)
                };
                let result = run_loop(&rc, &agent, AgentState::new(&input), None, &wrap).await;
                let output = match &result {
                    Ok((text, _)) => MemberOutput {
                        agent_id: agent.to_string(),
                        text: text.clone(),
                        error: None,
                    },
                    Err(e) => MemberOutput {
                        agent_id: agent.to_string(),
                        text: String::new(),
                        error: Some(e.message.clone()),
                    },
                };
                if result
                    .as_ref()
                    .is_err_and(|e| e.code == ErrorCode::Cancelled)
                {
                    return result.map(|_| ());
                }
                record_member(&rc, &output).await?;
                let (checkpoint, usage) = {
                    let mut s = shared
                        .lock()
                        .map_err(|_| AppError::internal("swarm state lock poisoned"))?;
                    if let Ok((_, usage)) = &result {
                        s.usage.add(*usage);
                    }
                    s.outputs.push(output);
                    (s.checkpoint(), s.usage)
                };
                runs::save_checkpoint(&rc.ctx, &rc.run_id, checkpoint, usage).await?;
                Ok(())
            }
        });
    for result in futures_util::future::join_all(work).await {
        result?;
    }
    let state = shared
        .lock()
        .map_err(|_| AppError::internal("swarm state lock poisoned"))?
        .clone();
    if state.outputs.iter().all(|o| o.error.is_some()) {
        let failures: Vec<String> = state
            .outputs
            .iter()
            .map(|o| format!("{}: {}", o.agent_id, o.error.clone().unwrap_or_default()))
            .collect();
        return Err(AppError::new(
            ErrorCode::Upstream,
            format!("every member failed — {}", failures.join("; ")),
        ));
    }
    let mut joined = String::new();
    for member in &swarm.members {
        if let Some(output) = state
            .outputs
            .iter()
            .find(|o| o.agent_id == member.agent_id.as_str())
        {
            match &output.error {
                None => joined.push_str(&format!(
                    "## {}\n\n{}\n\n",
                    output.agent_id,
                    output.text.trim()
                )),
                Some(error) => {
                    joined.push_str(&format!("## {}\n\n(failed: {error})\n\n", output.agent_id))
                }
            }
        }
    }
    Ok((joined.trim_end().to_owned(), state.usage))
}

async fn hierarchical(
    rc: &RunContext,
    swarm: &Swarm,
    mut state: SwarmState,
) -> Result<(String, Usage)> {
    let Some(orchestrator) = swarm
        .members
        .iter()
        .find(|m| m.role == MemberRole::Orchestrator)
    else {
        return Err(AppError::precondition(format!(
            "swarm '{}' has no orchestrator",
            swarm.id
        )));
    };
    let team = rc.ctx.store().read({
        let members: Vec<AgentId> = swarm
            .members
            .iter()
            .filter(|m| m.role == MemberRole::Member)
            .map(|m| m.agent_id.clone())
            .collect();
        move |conn| {
            let mut lines = Vec::new();
            for id in members {
                let line = match crate::agents::find(conn, &id)? {
                    Some(a) => format!(
                        "- `{}` — {}: {}",
                        a.id,
                        a.name,
                        if a.description.is_empty() {
                            "(no description)"
                        } else {
                            &a.description
                        }
                    ),
                    None => format!("- `{id}` — (this agent no longer exists)"),
                };
                lines.push(line);
            }
            Ok(lines.join("\n"))
        }
    });
    let team = team.await?;
    let instructions = format!(
        "## Your team\n\nYou lead a swarm. Split the task, give each part to the right member with the \
         `delegate_task` tool (its `agent_id` and a self-contained task), then combine their answers into \
         the final answer yourself.\n\nMembers:\n{team}"
    );
    let agent_state = match state.current.take() {
        Some((id, saved)) if id == orchestrator.agent_id.as_str() => saved,
        _ => AgentState::new(&state.input),
    };
    let snapshot = state.clone();
    let lead = orchestrator.agent_id.to_string();
    let wrap = move |s: &AgentState| {
        SwarmState {
            current: Some((lead.clone(), s.clone())),
            ..snapshot.clone()
        }
        .checkpoint()
    };
    let (text, usage) = run_loop(
        rc,
        &orchestrator.agent_id,
        agent_state,
        Some(&instructions),
        &wrap,
    )
    .await?;
    state.usage.add(usage);
    let output = MemberOutput {
        agent_id: orchestrator.agent_id.to_string(),
        text: text.clone(),
        error: None,
    };
    record_member(rc, &output).await?;
    Ok((text, state.usage))
}
