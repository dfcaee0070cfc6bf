//! One agent at work: its composed system prompt, its model, its tools. The
//! loop asks the model, runs the tools it calls (arguments checked against
//! each tool's schema), feeds the results back, and stops at a final answer
//! or after [`MAX_STEPS`]. After every step the conversation so far is the
//! checkpoint: a run resumed from it continues at the next step.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::drive;
use crate::agents::{self, Agent};
use crate::ctx::Ctx;
use crate::error::{AppError, Result};
use crate::ids::AgentId;
use crate::llm::{self, CallOptions, ChatRequest, Message, StreamEvent, ToolCall, ToolSpec, Usage};
use crate::models::resolve::resolve_agent_model;
use crate::prompt;
use crate::runs::context::{EventSink, RunBase, RunContext, RunEvent};
use crate::runs::origin::{RunOrigin, WakeOf, record_wake};
use crate::runs::{self, NewRun, Run, RunKind};
use crate::tools::offered;

/// The most model turns one agent takes in a run.
pub const MAX_STEPS: u32 = 16;
const MAX_TOKENS: u32 = 4096;

/// An agent's progress: the conversation with its model so far.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentState {
    pub messages: Vec<Message>,
    pub step: u32,
    pub usage: Usage,
}

impl AgentState {
    pub fn new(input: &str) -> AgentState {
        AgentState {
            messages: vec![Message::user(input)],
            step: 0,
            usage: Usage::default(),
        }
    }
}

/// What the model is told and offered, read once per run.
struct Setup {
    agent: Agent,
    model: crate::models::resolve::ResolvedModel,
    system: String,
    tools: Vec<ToolSpec>,
}

fn setup(
    rc: &RunContext,
    agent_id: &AgentId,
    extra_system: Option<&str>,
) -> impl Future<Output = Result<Setup>> + use<> {
    let (ctx, rc2) = (rc.ctx.clone(), rc.clone());
    let agent_id = agent_id.clone();
    let extra = extra_system.map(str::to_owned);
    async move {
        // The agent's MCP servers that have never listed their tools start
        // now, so the model is offered them (SPEC H23: started when needed).
        crate::mcp_servers::prepare_for(&ctx, &agent_id).await;
        ctx.store()
            .read(move |conn| {
                let agent = agents::find(conn, &agent_id)?.ok_or_else(|| {
                    AppError::precondition(format!("agent '{agent_id}' no longer exists"))
                        .with_details(json!({ "reason": "unknown_agent", "agentId": agent_id }))
                })?;
                if !agent.enabled {
                    return Err(
                        AppError::precondition(format!("agent '{agent_id}' is disabled"))
                            .with_details(
                                json!({ "reason": "agent_disabled", "agentId": agent_id }),
                            ),
                    );
                }
                let model = resolve_agent_model(
                    conn,
                    &rc2.ctx,
                    agent.id.as_str(),
                    rc2.model.as_ref().or(agent.model_id.as_ref()),
                    rc2.credentials.as_ref(),
                )?;
                let mut system = prompt::compose_in(conn, &agent.id)?;
                if let Some(extra) = extra {
                    system.push_str("\n\n");
                    system.push_str(&extra);
                }
                let tools =
                    offered::specs(conn, &agent, rc2.delegates.is_some(), rc2.author.is_some())?;
                Ok(Setup {
                    agent,
                    model,
                    system,
                    tools,
                })
            })
            .await
    }
}

/// Runs the agent from `state` until it answers. `wrap` turns the agent's
/// state into the run's checkpoint (a swarm wraps it in its own).
pub(crate) async fn run_loop(
    rc: &RunContext,
    agent_id: &AgentId,
    mut state: AgentState,
    extra_system: Option<&str>,
    wrap: &(dyn Fn(&AgentState) -> Value + Send + Sync),
) -> Result<(String, Usage)> {
    let setup = setup(rc, agent_id, extra_system).await?;
    let agent_name = setup.agent.id.to_string();
    loop {
        if rc.cancel.is_cancelled() {
            return Err(crate::llm::http::cancelled());
        }
        // Calls the model made that have no result yet: the run was stopped
        // (a restart) while a call waited for a person, or between calls.
        let unanswered = unanswered_calls(&state.messages);
        if !unanswered.is_empty() {
            for call in &unanswered {
                if rc.cancel.is_cancelled() {
                    return Err(crate::llm::http::cancelled());
                }
                answer(rc, &setup.agent, &agent_name, &mut state, call).await?;
                runs::save_checkpoint(&rc.ctx, &rc.run_id, wrap(&state), state.usage).await?;
            }
            continue;
        }
        if state.step >= MAX_STEPS {
            return Err(AppError::precondition(format!(
                "agent '{agent_name}' stopped after {MAX_STEPS} steps without a final answer"
            ))
            .with_details(json!({ "reason": "step_limit" })));
        }
        state.step += 1;
        rc.emit(RunEvent::AgentStep {
            run_id: rc.run_id.clone(),
            agent_id: agent_name.clone(),
            step: state.step,
        });

        let request = ChatRequest {
            model: setup.model.model.clone(),
            system: Some(setup.system.clone()),
            messages: state.messages.clone(),
            tools: setup.tools.clone(),
            max_tokens: MAX_TOKENS,
            temperature: None,
        };
        // Images go only to a model that accepts them (issue 14).
        setup
            .model
            .check_images(request.messages.iter().map(|m| m.images.len()).sum())?;
        let options = CallOptions {
            cancel: rc.cancel.clone(),
            ..CallOptions::default()
        };
        let (run_id, agent_id_text, sink) =
            (rc.run_id.clone(), agent_name.clone(), rc.sink.clone());
        let mut response = llm::chat(&setup.model.endpoint, &request, &options, &mut |event| {
            if let StreamEvent::Text(text) = event {
                sink(RunEvent::TextDelta {
                    run_id: run_id.clone(),
                    agent_id: agent_id_text.clone(),
                    text,
                });
            }
        })
        .await
        .map_err(|e| setup.model.name_in(e))?;
        distinct_call_ids(&mut response.tool_calls);
        state.usage.add(response.usage);
        runs::record_step(
            &rc.ctx,
            &rc.run_id,
            Some(&agent_name),
            "message",
            json!({ "text": response.text, "toolCalls": response.tool_calls, "usage": response.usage }),
        )
        .await?;
        state.messages.push(Message::assistant(
            response.text.clone(),
            response.tool_calls.clone(),
        ));

        if response.tool_calls.is_empty() {
            runs::save_checkpoint(&rc.ctx, &rc.run_id, wrap(&state), state.usage).await?;
            rc.emit(RunEvent::AgentOutput {
                run_id: rc.run_id.clone(),
                agent_id: agent_name.clone(),
                text: response.text.clone(),
            });
            return Ok((response.text, state.usage));
        }
        // The calls are in the checkpoint before any runs: a call that waits
        // for a person survives a restart, and a finished one is not repeated.
        runs::save_checkpoint(&rc.ctx, &rc.run_id, wrap(&state), state.usage).await?;
    }
}

/// Gives every call of one turn its own id. Some servers (local ones
/// especially) repeat an id within a turn; results are matched to calls by
/// id, here and by the permission gate, so a repeat would let one result —
/// or one person's "allow" — stand for another call.
fn distinct_call_ids(calls: &mut [ToolCall]) {
    let mut seen = std::collections::HashSet::new();
    for (index, call) in calls.iter_mut().enumerate() {
        if call.id.is_empty() || !seen.insert(call.id.clone()) {
            call.id = format!("{}#{index}", call.id);
            seen.insert(call.id.clone());
        }
    }
}

/// The tool calls of the last assistant turn that have no result yet.
fn unanswered_calls(messages: &[Message]) -> Vec<ToolCall> {
    let Some(turn) = messages
        .iter()
        .rposition(|m| m.role == llm::Role::Assistant)
    else {
        return Vec::new();
    };
    let answered: Vec<&str> = messages[turn + 1..]
        .iter()
        .filter_map(|m| m.tool_call_id.as_deref())
        .collect();
    messages[turn]
        .tool_calls
        .iter()
        .filter(|c| !answered.contains(&c.id.as_str()))
        .cloned()
        .collect()
}

/// Runs one call through the gate and the tool, streams and records it,
/// and adds its result to the conversation.
async fn answer(
    rc: &RunContext,
    agent: &Agent,
    agent_name: &str,
    state: &mut AgentState,
    call: &ToolCall,
) -> Result<()> {
    rc.emit(RunEvent::ToolCall {
        run_id: rc.run_id.clone(),
        agent_id: agent_name.to_owned(),
        call_id: call.id.clone(),
        name: call.name.clone(),
        arguments: call.arguments.clone(),
    });
    let outcome = rc.call_tool(agent, state.step, call).await;
    rc.emit(RunEvent::ToolResult {
        run_id: rc.run_id.clone(),
        agent_id: agent_name.to_owned(),
        call_id: call.id.clone(),
        name: call.name.clone(),
        ok: outcome.ok,
        denied: outcome.denied,
        output: outcome.output.clone(),
    });
    runs::record_step(
        &rc.ctx,
        &rc.run_id,
        Some(agent_name),
        "tool_result",
        json!({ "callId": call.id, "name": call.name, "arguments": call.arguments, "ok": outcome.ok, "denied": outcome.denied, "output": outcome.output }),
    )
    .await?;
    state
        .messages
        .push(Message::tool_result(call, outcome.for_model()));
    Ok(())
}

/// The checkpoint of a plain agent run: its state.
pub(crate) fn agent_checkpoint(state: &AgentState) -> Value {
    serde_json::to_value(state).unwrap_or(Value::Null)
}

/// Options of [`run_agent`].
#[derive(Debug, Clone, Default, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct AgentRunOptions {
    #[serde(default)]
    pub credentials: Option<crate::models::resolve::RunCredentials>,
    /// The user the run acts for (memories, notices); default: the owner.
    #[serde(default)]
    pub user_id: Option<String>,
    /// The door that started it, set by that door (never read from input).
    #[serde(skip)]
    pub client: Option<crate::caller::Client>,
}

impl AgentRunOptions {
    /// The same options, started through `client`.
    pub fn through(self, client: crate::caller::Client) -> Self {
        AgentRunOptions {
            client: Some(client),
            ..self
        }
    }
}

/// Runs one agent on an input, outside any conversation.
pub async fn run_agent(
    ctx: &Ctx,
    agent_id: &AgentId,
    input: &str,
    options: AgentRunOptions,
    sink: EventSink,
) -> Result<Run> {
    run_agent_as(ctx, agent_id, input, options, None, sink).await
}

/// Runs one agent; with `author`, as that bus role (it gets the bus tools
/// and sends as the role).
pub(crate) async fn run_agent_as(
    ctx: &Ctx,
    agent_id: &AgentId,
    input: &str,
    options: AgentRunOptions,
    wake: Option<WakeOf>,
    sink: EventSink,
) -> Result<Run> {
    start_agent_run(ctx, agent_id, input, options, wake, None, None, sink).await
}

/// Runs a woken role's agent from its thread (`roles::role_thread`): the
/// turns so far, the new mail last, and the role's own system additions.
pub(crate) async fn run_role_wake(
    ctx: &Ctx,
    agent_id: &AgentId,
    input: &str,
    start: (AgentState, Option<String>),
    wake: WakeOf,
    sink: EventSink,
) -> Result<Run> {
    start_agent_run(
        ctx,
        agent_id,
        input,
        AgentRunOptions::default(),
        Some(wake),
        None,
        Some(start),
        sink,
    )
    .await
}

/// Runs one agent with nobody watching for the scheduled job `job`: the
/// permission gate never waits for a person, and refuses what would ask
/// unless the job's grant allows that class.
pub(crate) async fn run_agent_unattended(
    ctx: &Ctx,
    agent_id: &AgentId,
    input: &str,
    job: &str,
    sink: EventSink,
) -> Result<Run> {
    start_agent_run(
        ctx,
        agent_id,
        input,
        AgentRunOptions::default(),
        None,
        Some(job.to_owned()),
        None,
        sink,
    )
    .await
}

// The three ways a run starts (a person's, a role's wake-up, a job's) meet
// here; each caller above names its own few arguments.
#[allow(clippy::too_many_arguments)]
async fn start_agent_run(
    ctx: &Ctx,
    agent_id: &AgentId,
    input: &str,
    options: AgentRunOptions,
    wake: Option<WakeOf>,
    job: Option<String>,
    start: Option<(AgentState, Option<String>)>,
    sink: EventSink,
) -> Result<Run> {
    let user = crate::users::check_user(options.user_id.as_deref().unwrap_or(ctx.owner()))?;
    agents::get(ctx, agent_id).await?;
    let run = runs::start(
        ctx,
        NewRun {
            kind: RunKind::Agent,
            target_id: agent_id.to_string(),
            thread_id: None,
            parent_run_id: None,
            user_id: user,
            input: input.to_owned(),
            client: options.client,
        },
    )
    .await?;
    // A crash before this is recorded leaves a run with no checkpoint yet,
    // which nobody could resume anyway.
    let author = match wake {
        Some(wake) => {
            let id = run.id.clone();
            ctx.store()
                .write(move |tx| record_wake(tx, &id, &wake).map(|()| wake.author))
                .await
                .map(Some)?
        }
        None => None,
    };
    let base = RunBase {
        credentials: options.credentials,
        sink,
        delegates: None,
        // A wake-up (or a scheduled job) runs with nobody watching.
        attended: job.is_none() && author.is_none(),
        author,
        job,
        delegators: Vec::new(),
        model: None,
    };
    let (state, extra) = start.unwrap_or_else(|| (AgentState::new(input), None));
    let agent_id = agent_id.clone();
    drive(ctx, run, None, base, move |rc| async move {
        run_loop(&rc, &agent_id, state, extra.as_deref(), &agent_checkpoint).await
    })
    .await
}

/// Delegation (the `delegate_task` tool): a child run of another agent,
/// handed its task by `delegator` (the agent of the `parent` run).
pub(crate) async fn delegate(
    parent: &RunContext,
    delegator: &AgentId,
    agent_id: &AgentId,
    task: &str,
) -> Result<String> {
    let run = runs::start(
        &parent.ctx,
        NewRun {
            kind: RunKind::Agent,
            target_id: agent_id.to_string(),
            thread_id: None,
            parent_run_id: Some(parent.run_id.clone()),
            user_id: parent.user_id.clone(),
            input: task.to_owned(),
            client: None,
        },
    )
    .await?;
    let base = RunBase {
        credentials: parent.credentials.clone(),
        sink: parent.sink.clone(),
        delegates: None,
        author: None,
        job: None,
        attended: parent.attended,
        delegators: parent
            .delegators
            .iter()
            .cloned()
            .chain([delegator.to_string()])
            .collect(),
        model: None,
    };
    let (agent, input) = (agent_id.clone(), task.to_owned());
    let finished = Box::pin(drive(
        &parent.ctx,
        run,
        Some(parent),
        base,
        move |rc| async move {
            run_loop(
                &rc,
                &agent,
                AgentState::new(&input),
                None,
                &agent_checkpoint,
            )
            .await
        },
    ))
    .await?;
    match (finished.output, finished.error) {
        (Some(output), _) => Ok(output),
        (None, Some(error)) => Err(error),
        (None, None) => Err(AppError::internal(format!(
            "the delegated run {} ended without an answer",
            finished.id
        ))),
    }
}

/// Resumes an interrupted agent run from its checkpoint, with the origin
/// its resumer looked up: a wake-up run goes on speaking as its role; a
/// job's, unattended within the job's grant.
pub(crate) async fn resume_agent(
    ctx: &Ctx,
    run: Run,
    checkpoint: Value,
    origin: RunOrigin,
    sink: EventSink,
) -> Result<Run> {
    let state: AgentState = serde_json::from_value(checkpoint).map_err(|e| {
        AppError::internal(format!(
            "the checkpoint of run {} is unreadable: {e}",
            run.id
        ))
    })?;
    let agent_id = AgentId::from(run.target_id.as_str());
    let base = RunBase {
        credentials: None,
        sink,
        delegates: None,
        attended: origin.attended(),
        author: origin.author,
        job: origin.job,
        delegators: Vec::new(),
        model: None,
    };
    drive(ctx, run, None, base, move |rc| async move {
        run_loop(&rc, &agent_id, state, None, &agent_checkpoint).await
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeated_or_empty_call_ids_become_distinct() {
        let call = |id: &str| ToolCall {
            id: id.to_owned(),
            name: "fs_write".to_owned(),
            arguments: "{}".to_owned(),
        };
        let mut calls = vec![call("call_0"), call("call_0"), call(""), call("b")];
        distinct_call_ids(&mut calls);
        let ids: Vec<&str> = calls.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(ids, ["call_0", "call_0#1", "#2", "b"]);
    }
}
