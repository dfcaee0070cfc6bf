//! Talking with an agent in a conversation: the person's message is stored,
//! the agent runs over the conversation so far, and its answer is stored —
//! also when the run is resumed after an interruption.

use serde_json::Value;

use super::agent::{AgentState, agent_checkpoint, run_loop};
use super::{EventSink, RunBase, RunCredentials, drive};
use crate::conversations::{self, MessageRole};
use crate::ctx::Ctx;
use crate::error::{AppError, Result};
use crate::ids::AgentId;
use crate::llm::Message;
use crate::runs::{self, NewRun, Run, RunKind, RunStatus};

/// Sends `text` to the conversation's agent (or `agent`) and runs it.
pub async fn send(
    ctx: &Ctx,
    conversation: &str,
    agent: Option<&AgentId>,
    text: &str,
    credentials: Option<RunCredentials>,
    sink: EventSink,
) -> Result<Run> {
    let thread = conversations::get(ctx, conversation).await?;
    let agent = match (agent, &thread.agent_id) {
        (Some(agent), _) => agent.clone(),
        (None, Some(agent)) => AgentId::from(agent.as_str()),
        (None, None) => {
            return Err(AppError::invalid_field(
                "agentId",
                "required",
                "choose the agent to talk to",
            ));
        }
    };
    crate::agents::get(ctx, &agent).await?;
    let history = conversations::history(ctx, conversation).await?;
    conversations::append_message(ctx, conversation, MessageRole::User, text, None, None).await?;

    let mut state = AgentState::default();
    for message in &history {
        match message.role {
            MessageRole::User => state.messages.push(Message::user(&message.content)),
            MessageRole::Assistant => state
                .messages
                .push(Message::assistant(&message.content, Vec::new())),
            MessageRole::System | MessageRole::Tool => {}
        }
    }
    state.messages.push(Message::user(text));

    let run = runs::start(
        ctx,
        NewRun {
            kind: RunKind::Agent,
            target_id: agent.to_string(),
            thread_id: Some(thread.id.clone()),
            parent_run_id: None,
            user_id: thread.user_id.clone(),
            input: text.to_owned(),
        },
    )
    .await?;
    finish_in_conversation(ctx, run, agent, state, credentials, sink).await
}

async fn finish_in_conversation(
    ctx: &Ctx,
    run: Run,
    agent: AgentId,
    state: AgentState,
    credentials: Option<RunCredentials>,
    sink: EventSink,
) -> Result<Run> {
    let thread = run.thread_id.clone();
    let base = RunBase {
        credentials,
        sink,
        delegates: None,
        author: None,
        attended: true,
    };
    let agent_for_loop = agent.clone();
    let finished = drive(ctx, run, None, base, move |rc| async move {
        run_loop(&rc, &agent_for_loop, state, None, &agent_checkpoint).await
    })
    .await?;
    if let (Some(thread), RunStatus::Completed, Some(output)) =
        (thread, finished.status, &finished.output)
    {
        conversations::append_message(
            ctx,
            &thread,
            MessageRole::Assistant,
            output,
            Some(agent.as_str()),
            Some(&finished.id),
        )
        .await?;
    }
    Ok(finished)
}

/// Resumes an interrupted conversation run; its answer lands in the conversation.
pub(crate) async fn resume(ctx: &Ctx, run: Run, checkpoint: Value, sink: EventSink) -> Result<Run> {
    let state: AgentState = serde_json::from_value(checkpoint).map_err(|e| {
        AppError::internal(format!(
            "the checkpoint of run {} is unreadable: {e}",
            run.id
        ))
    })?;
    let agent = AgentId::from(run.target_id.as_str());
    finish_in_conversation(ctx, run, agent, state, None, sink).await
}

/// Resumes any interrupted run from its checkpoint (H42).
pub async fn resume_run(ctx: &Ctx, run_id: &str, sink: EventSink) -> Result<Run> {
    let (run, checkpoint) = runs::take_over(ctx, run_id).await?;
    match (run.kind, run.thread_id.is_some()) {
        (RunKind::Agent, true) => resume(ctx, run, checkpoint, sink).await,
        (RunKind::Agent, false) => super::agent::resume_agent(ctx, run, checkpoint, sink).await,
        (RunKind::Swarm, _) => crate::swarms::run::resume(ctx, run, checkpoint, sink).await,
    }
}
