//! Talking with an agent in a conversation: the person's message is stored,
//! the agent runs over the conversation so far, and its answer is stored —
//! also when the run is resumed after an interruption.
//!
//! A message may carry images (issue 14, H37): artifact ids from
//! `images::upload`, owned by the conversation's user. Each is checked to
//! be a picture, its copy for models is made once, and both are kept with
//! the message. Every turn sends the images of the whole conversation
//! again (providers keep no state), so the agent's model must accept
//! images: if it does not, the message is refused — nothing stored,
//! nothing sent — with the error that names the model.

use serde_json::Value;

use super::agent::{AgentState, agent_checkpoint, run_loop};
use super::drive;
use crate::conversations::{self, ChatMessage, MessageImage, MessageRole};
use crate::ctx::Ctx;
use crate::error::{AppError, ErrorCode, Result};
use crate::ids::{AgentId, ModelId};
use crate::llm::{ImagePart, Message};
use crate::models::resolve::{RunCredentials, resolve_agent_model};
use crate::runs::context::{EventSink, RunBase};
use crate::runs::{self, NewRun, Run, RunKind, RunStatus};

/// Most images one message may carry.
pub const MAX_IMAGES_PER_MESSAGE: usize = 10;

/// Sends `text` to the conversation's agent (or `agent`) and runs it.
pub async fn send(
    ctx: &Ctx,
    conversation: &str,
    agent: Option<&AgentId>,
    text: &str,
    credentials: Option<RunCredentials>,
    sink: EventSink,
) -> Result<Run> {
    send_with_images(ctx, conversation, agent, text, &[], credentials, sink).await
}

/// The images to attach, checked: the user's artifacts, each a picture, with
/// its copy for models.
async fn attachments(ctx: &Ctx, user: &str, ids: &[String]) -> Result<Vec<MessageImage>> {
    if ids.len() > MAX_IMAGES_PER_MESSAGE {
        return Err(AppError::invalid_field(
            "images",
            "too_many",
            format!("a message can carry at most {MAX_IMAGES_PER_MESSAGE} images"),
        ));
    }
    let mut out = Vec::new();
    for id in ids {
        let original = crate::images::get(ctx, user, id).await?;
        let copy = crate::images::model_copy(ctx, user, id).await?;
        if !crate::images::is_model_image(&copy) {
            return Err(AppError::invalid_field(
                "images",
                "not_an_image",
                format!(
                    "'{}' cannot be read as an image (JPEG, PNG, WebP or GIF), so no model could see it",
                    original.name
                ),
            ));
        }
        out.push(MessageImage {
            artifact_id: Some(original.id),
            model_artifact_id: Some(copy.id),
            name: original.name,
        });
    }
    Ok(out)
}

/// The turn a stored message is for the model: its text and the images it
/// carried. An image whose copy is no longer stored is said to be gone in
/// the text, so the model is not left guessing.
async fn turn_of(ctx: &Ctx, user: &str, message: &ChatMessage) -> Result<Message> {
    let mut text = message.content.clone();
    let mut parts: Vec<ImagePart> = Vec::new();
    for image in &message.images {
        let part = match &image.model_artifact_id {
            Some(id) => match crate::images::model_part(ctx, user, id).await {
                Ok(part) => part,
                Err(e) if e.code == ErrorCode::NotFound => None,
                Err(e) => return Err(e),
            },
            None => None,
        };
        match part {
            Some(part) => parts.push(part),
            None => text.push_str(&format!(
                "\n[an image attached here, '{}', is no longer stored]",
                image.name
            )),
        }
    }
    Ok(Message::user_with_images(text, parts))
}

/// [`send`] with images attached (`images`: artifact ids of the
/// conversation's user).
pub async fn send_with_images(
    ctx: &Ctx,
    conversation: &str,
    agent: Option<&AgentId>,
    text: &str,
    images: &[String],
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
    let attached = attachments(ctx, &thread.user_id, images).await?;
    let in_history: usize = history.iter().map(|m| m.images.len()).sum();
    let wanted = in_history + attached.len();
    if wanted > 0 {
        // Checked before the message is kept: a model without images gets
        // none, and the person is told which model it is.
        let (ctx2, agent2, credentials2) = (ctx.clone(), agent.clone(), credentials.clone());
        let model = thread.model_id.clone().map(ModelId::from);
        ctx.store()
            .read(move |conn| {
                let found = crate::agents::find(conn, &agent2)?
                    .ok_or_else(|| AppError::not_found("agent", agent2.as_str()))?;
                resolve_agent_model(
                    conn,
                    &ctx2,
                    found.id.as_str(),
                    model.as_ref().or(found.model_id.as_ref()),
                    credentials2.as_ref(),
                )?
                .check_images(wanted)
            })
            .await?;
    }

    let mut state = AgentState::default();
    for message in &history {
        match message.role {
            MessageRole::User => state
                .messages
                .push(turn_of(ctx, &thread.user_id, message).await?),
            MessageRole::Assistant => state
                .messages
                .push(Message::assistant(&message.content, Vec::new())),
            MessageRole::System | MessageRole::Tool => {}
        }
    }
    let stored = conversations::append_message_with_images(
        ctx,
        conversation,
        MessageRole::User,
        text,
        None,
        None,
        attached,
    )
    .await?;
    state
        .messages
        .push(turn_of(ctx, &thread.user_id, &stored).await?);

    let run = runs::start(
        ctx,
        NewRun {
            kind: RunKind::Agent,
            target_id: agent.to_string(),
            thread_id: Some(thread.id.clone()),
            parent_run_id: None,
            user_id: thread.user_id.clone(),
            input: text.to_owned(),
            client: None,
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
    // The conversation's model, read now: a switch applies from the next turn.
    let model = match &thread {
        Some(id) => conversations::get(ctx, id)
            .await?
            .model_id
            .map(ModelId::from),
        None => None,
    };
    let base = RunBase {
        credentials,
        sink,
        delegates: None,
        author: None,
        job: None,
        attended: true,
        delegators: Vec::new(),
        model,
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
