//! Branching a conversation and choosing its model (issue 37, chat on a
//! par with Claude Desktop and Jan).
//!
//! Editing a sent message, or asking again, never rewrites what was said:
//! the conversation is *forked* before that message — a new conversation
//! with the same agent and model, the earlier messages copied (with their
//! images and the runs their answers came from), `forked_from` naming the
//! original — and the new text is sent there. The original stays as it was.
//!
//! A conversation may answer with a model other than its agent's
//! (`model_id`); `None` goes back to the agent's own.

use chrono::Utc;
use rusqlite::{Transaction, params};

use super::{Conversation, new_web_conversation_id, parse_thread_id, refresh_catalog, require};
use crate::ctx::{Change, Ctx};
use crate::error::{AppError, Result};
use crate::ids::ModelId;

/// A new conversation holding the messages of `id` before `at_message`
/// (a message the person wrote), in the desktop channel.
pub async fn fork(ctx: &Ctx, id: &str, at_message: i64) -> Result<Conversation> {
    let id = id.to_owned();
    let fork = ctx
        .store()
        .write(move |tx| {
            let original = require(tx, &id)?;
            check_question(tx, &id, at_message)?;
            let fork_id = new_web_conversation_id(&original.user_id);
            let peer = parse_thread_id(&fork_id)
                .map(|(_, _, peer)| peer)
                .unwrap_or_default();
            super::insert(
                tx,
                &fork_id,
                &original.user_id,
                "web",
                &peer,
                original.agent_id.as_deref(),
            )?;
            tx.execute(
                "UPDATE threads SET model_id = ?2, forked_from = ?3 WHERE id = ?1",
                params![fork_id, original.model_id, original.id],
            )?;
            copy_messages(tx, &original.id, &fork_id, at_message)?;
            require(tx, &fork_id)
        })
        .await?;
    refresh_catalog(ctx, &fork.id).await?;
    let fork = super::get(ctx, &fork.id).await?;
    ctx.changed(Change::Conversations);
    Ok(fork)
}

/// `at_message` is a message the person wrote in conversation `id`.
fn check_question(tx: &Transaction<'_>, id: &str, at_message: i64) -> Result<()> {
    let role: Option<String> = rusqlite::OptionalExtension::optional(tx.query_row(
        "SELECT role FROM messages WHERE id = ?1 AND thread_id = ?2",
        params![at_message, id],
        |r| r.get(0),
    ))?;
    match role.as_deref() {
        Some("user") => Ok(()),
        Some(_) => Err(AppError::invalid_field(
            "messageId",
            "not_yours",
            "only a message you wrote can be edited or asked again",
        )),
        None => Err(AppError::not_found("message", &at_message.to_string())),
    }
}

/// Copies the messages of `from` before `before` into `to`, in order, with
/// their images.
fn copy_messages(tx: &Transaction<'_>, from: &str, to: &str, before: i64) -> Result<()> {
    let mut select =
        tx.prepare("SELECT id FROM messages WHERE thread_id = ?1 AND id < ?2 ORDER BY id")?;
    let ids = select
        .query_map(params![from, before], |r| r.get::<_, i64>(0))?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    for old in ids {
        tx.execute(
            "INSERT INTO messages (thread_id, role, content, agent_id, run_id, created_at)
             SELECT ?1, role, content, agent_id, run_id, created_at FROM messages WHERE id = ?2",
            params![to, old],
        )?;
        let new = tx.last_insert_rowid();
        tx.execute(
            "INSERT INTO message_images (message_id, position, artifact_id, model_artifact_id, name)
             SELECT ?1, position, artifact_id, model_artifact_id, name FROM message_images WHERE message_id = ?2",
            params![new, old],
        )?;
    }
    Ok(())
}

/// Sets the model this conversation answers with; `None` is the agent's.
pub async fn set_model(ctx: &Ctx, id: &str, model: Option<&str>) -> Result<Conversation> {
    let (id, model) = (id.to_owned(), model.map(ModelId::from));
    let conversation = ctx
        .store()
        .write(move |tx| {
            require(tx, &id)?;
            if let Some(model) = &model
                && crate::models::find(tx, model)?.is_none()
            {
                return Err(AppError::not_found("model", model.as_str()));
            }
            tx.execute(
                "UPDATE threads SET model_id = ?2, updated_at = ?3 WHERE id = ?1",
                params![id, model.as_ref().map(ModelId::as_str), Utc::now()],
            )?;
            require(tx, &id)
        })
        .await?;
    ctx.changed(Change::Conversations);
    Ok(conversation)
}
