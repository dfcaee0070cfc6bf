//! Results lead somewhere (issue 37, item 3): a finished run's result goes
//! on in a conversation with the agent that wrote it, or out as a markdown
//! file. (Copy and "send to canvas" need nothing here: the window copies the
//! text, and a canvas item is `canvas::items::add_item`.)
//!
//! Only the person a run belongs to follows it up; another's run is "not
//! found", as everywhere else.

use crate::caller::Caller;
use crate::conversations::{self, Conversation, MessageRole};
use crate::ctx::Ctx;
use crate::document::MarkdownDocument;
use crate::error::{AppError, Result};
use crate::ids::AgentId;
use crate::runs::{self, Run, RunKind, RunStatus};
use crate::swarms::{self, MemberRole};

/// The caller's finished run, with its answer.
async fn finished(ctx: &Ctx, caller: &Caller, run_id: &str) -> Result<(Run, String)> {
    let run = runs::get(ctx, run_id).await?.run;
    if run.user_id != caller.person()? {
        return Err(AppError::not_found("run", run_id));
    }
    match (&run.status, &run.output) {
        (RunStatus::Completed, Some(output)) if !output.trim().is_empty() => {
            let output = output.clone();
            Ok((run, output))
        }
        _ => Err(AppError::precondition(format!(
            "run '{run_id}' has no result to follow up: it has not completed with an answer"
        ))
        .with_details(serde_json::json!({ "reason": "no_result" }))),
    }
}

/// The agent that speaks for a run: its agent, or the swarm's orchestrator
/// (else its first member).
async fn voice_of(ctx: &Ctx, run: &Run) -> Result<AgentId> {
    match run.kind {
        RunKind::Agent => Ok(AgentId::from(run.target_id.as_str())),
        RunKind::Swarm => {
            let swarm = swarms::get(ctx, &run.target_id).await?;
            swarm
                .members
                .iter()
                .find(|m| m.role == MemberRole::Orchestrator)
                .or_else(|| swarm.members.first())
                .map(|m| m.agent_id.clone())
                .ok_or_else(|| {
                    AppError::precondition(format!("swarm '{}' has no members", swarm.id))
                        .with_details(serde_json::json!({ "reason": "no_members" }))
                })
        }
    }
}

/// A new conversation that starts with the run's question and its answer,
/// with the agent that spoke for it: the person goes on from there.
pub async fn continue_in_chat(ctx: &Ctx, caller: &Caller, run_id: &str) -> Result<Conversation> {
    let (run, output) = finished(ctx, caller, run_id).await?;
    let agent = voice_of(ctx, &run).await?;
    let conversation =
        conversations::create_web_conversation(ctx, Some(&run.user_id), Some(agent.as_str()))
            .await?;
    conversations::append_message(
        ctx,
        &conversation.id,
        MessageRole::User,
        &run.input,
        None,
        None,
    )
    .await?;
    conversations::append_message(
        ctx,
        &conversation.id,
        MessageRole::Assistant,
        &output,
        Some(agent.as_str()),
        Some(&run.id),
    )
    .await?;
    conversations::get(ctx, &conversation.id).await
}

/// The run's result as markdown: what ran, what it was asked, its answer.
pub async fn as_markdown(ctx: &Ctx, caller: &Caller, run_id: &str) -> Result<MarkdownDocument> {
    let (run, output) = finished(ctx, caller, run_id).await?;
    let name = match run.kind {
        RunKind::Agent => crate::agents::get(ctx, &AgentId::from(run.target_id.as_str()))
            .await
            .map(|a| a.name)
            .unwrap_or_else(|_| run.target_id.clone()),
        RunKind::Swarm => swarms::get(ctx, &run.target_id)
            .await
            .map(|s| s.name)
            .unwrap_or_else(|_| run.target_id.clone()),
    };
    let asked = run
        .input
        .lines()
        .map(|l| format!("> {l}"))
        .collect::<Vec<_>>()
        .join("\n");
    let markdown = format!("# {name}\n\n{asked}\n\n{}\n", output.trim_end());
    Ok(MarkdownDocument::named(&name, "result", markdown))
}
