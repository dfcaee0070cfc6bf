//! Conversations (SPEC H39–H44): one composite view over the thread
//! catalog, the messages and the runs — not a third store. A
//! conversation's id is its thread id (`{user}/{channel}/{peer}`).
//!
//! `append_message` persists at once; the catalog row (title from the first
//! user message, count, last activity) is updated right after, off the
//! caller's path — eventually consistent, while `history` is consistent at
//! once (H41).
//!
//! A user message may carry images (issue 14): artifacts of the
//! conversation's user, kept with the message in order — the original as
//! given (shown in the conversation) and the copy made for models (sent
//! with the message and with every later turn).

pub mod answers;
pub mod branches;
pub mod markdown;
pub mod search;
pub mod thread_id;

use chrono::{DateTime, Utc};
use rusqlite::{Connection, OptionalExtension, Row, Transaction, params};
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::ctx::{Change, Ctx};
use crate::error::{AppError, Result};
use crate::runs::{self, Run, RunStatus};
use crate::users::check_user;
use crate::users::{self, ChannelIdentity};

pub use thread_id::{
    is_structured_thread_id, make_thread_id, new_web_conversation_id, parse_thread_id,
    sanitize_segment,
};

const TITLE_CHARS: usize = 60;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum MessageRole {
    User,
    Assistant,
    System,
    Tool,
}

impl MessageRole {
    fn as_str(self) -> &'static str {
        match self {
            MessageRole::User => "user",
            MessageRole::Assistant => "assistant",
            MessageRole::System => "system",
            MessageRole::Tool => "tool",
        }
    }

    fn parse(text: &str) -> MessageRole {
        match text {
            "assistant" => MessageRole::Assistant,
            "system" => MessageRole::System,
            "tool" => MessageRole::Tool,
            _ => MessageRole::User,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Conversation {
    pub id: String,
    pub user_id: String,
    pub channel: String,
    pub peer: String,
    pub agent_id: Option<String>,
    pub title: Option<String>,
    pub message_count: u32,
    pub archived: bool,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    pub last_message_at: Option<DateTime<Utc>>,
    /// The model the agent answers with here; `None` is the agent's own.
    pub model_id: Option<String>,
    /// The conversation this one branched off (an edited or retried
    /// message); `None` for an original, or once that one is deleted.
    pub forked_from: Option<String>,
    /// The latest run, when listed `with_runs`.
    pub last_run: Option<Run>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ChatMessage {
    pub id: i64,
    pub role: MessageRole,
    pub content: String,
    pub agent_id: Option<String>,
    pub run_id: Option<String>,
    pub created_at: DateTime<Utc>,
    /// Images attached to it, in order.
    #[serde(default)]
    pub images: Vec<MessageImage>,
    /// An answer's tool calls, in order (see [`answers`]).
    #[serde(default)]
    pub tools: Vec<answers::MessageTool>,
    /// An answer's token counts, from its run; `None` for other messages.
    #[serde(default)]
    pub usage: Option<crate::llm::Usage>,
}

/// An image attached to a message. An artifact deleted since (retention)
/// is `None`: the conversation says the image is gone.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct MessageImage {
    /// The image as the person gave it.
    pub artifact_id: Option<String>,
    /// The copy made for models: what is sent, and shown as a thumbnail.
    pub model_artifact_id: Option<String>,
    /// Its file name.
    pub name: String,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ListOptions {
    #[serde(default)]
    pub channel: Option<String>,
    #[serde(default)]
    pub include_archived: bool,
    /// Attach each conversation's latest run (one more query each).
    #[serde(default)]
    pub with_runs: bool,
}

/// What [`resolve_context`] answers for a message arriving on a channel.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ResolvedContext {
    pub user_id: String,
    pub thread_id: String,
    pub agent_id: Option<String>,
    /// The identity was first seen now.
    pub is_new_user: bool,
}

/// A run to resume and the state it saved (H42).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Resumable {
    pub run: Run,
    /// How far it got: the number of messages in its saved state.
    pub checkpoint_messages: u32,
}

const SELECT: &str = "SELECT id, user_id, channel, peer, agent_id, title, message_count, archived,
        created_at, updated_at, last_message_at, model_id, forked_from FROM threads";

pub(crate) fn from_row(r: &Row<'_>) -> rusqlite::Result<Conversation> {
    Ok(Conversation {
        id: r.get(0)?,
        user_id: r.get(1)?,
        channel: r.get(2)?,
        peer: r.get(3)?,
        agent_id: r.get(4)?,
        title: r.get(5)?,
        message_count: r.get(6)?,
        archived: r.get(7)?,
        created_at: r.get(8)?,
        updated_at: r.get(9)?,
        last_message_at: r.get(10)?,
        model_id: r.get(11)?,
        forked_from: r.get(12)?,
        last_run: None,
    })
}

pub(crate) fn find(conn: &Connection, id: &str) -> Result<Option<Conversation>> {
    Ok(conn
        .query_row(&format!("{SELECT} WHERE id = ?1"), [id], from_row)
        .optional()?)
}

pub(crate) fn require(conn: &Connection, id: &str) -> Result<Conversation> {
    find(conn, id)?.ok_or_else(|| AppError::not_found("conversation", id))
}

pub(crate) fn insert(
    tx: &Transaction<'_>,
    id: &str,
    user: &str,
    channel: &str,
    peer: &str,
    agent: Option<&str>,
) -> Result<Conversation> {
    let now = Utc::now();
    tx.execute(
        "INSERT INTO threads (id, user_id, channel, peer, agent_id, created_at, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6) ON CONFLICT (id) DO NOTHING",
        params![id, user, channel, peer, agent, now],
    )?;
    require(tx, id)
}

/// A person's conversations, or a role's own thread (`@<author id>`).
pub(crate) fn owner_or(ctx: &Ctx, user: Option<&str>) -> Result<String> {
    crate::users::check_owner(user.unwrap_or(ctx.owner()))
}

/// The conversation of a user with a peer on a channel, created if new.
pub async fn create(
    ctx: &Ctx,
    user: Option<&str>,
    channel: &str,
    peer: &str,
    agent: Option<&str>,
) -> Result<Conversation> {
    let user = owner_or(ctx, user)?;
    let id = make_thread_id(&user, channel, peer);
    let Some((user, channel, peer)) = parse_thread_id(&id) else {
        return Err(AppError::internal(format!(
            "made a malformed thread id {id}"
        )));
    };
    let agent = agent.map(str::to_owned);
    let conversation = ctx
        .store()
        .write(move |tx| insert(tx, &id, &user, &channel, &peer, agent.as_deref()))
        .await?;
    ctx.changed(Change::Conversations);
    Ok(conversation)
}

/// A new conversation in the desktop (web) channel.
pub async fn create_web_conversation(
    ctx: &Ctx,
    user: Option<&str>,
    agent: Option<&str>,
) -> Result<Conversation> {
    let user = owner_or(ctx, user)?;
    let id = new_web_conversation_id(&user);
    let peer = parse_thread_id(&id).map(|(_, _, p)| p).unwrap_or_default();
    let agent = agent.map(str::to_owned);
    let conversation = ctx
        .store()
        .write(move |tx| insert(tx, &id, &user, "web", &peer, agent.as_deref()))
        .await?;
    ctx.changed(Change::Conversations);
    Ok(conversation)
}

/// Where the user would go on writing in the desktop: the latest open web conversation.
pub async fn most_recent_web_conversation(
    ctx: &Ctx,
    user: Option<&str>,
) -> Result<Option<Conversation>> {
    let user = owner_or(ctx, user)?;
    ctx.store()
        .read(move |conn| {
            Ok(conn
                .query_row(
                    &format!(
                        "{SELECT} WHERE user_id = ?1 AND channel = 'web' AND archived = 0
                         ORDER BY COALESCE(last_message_at, created_at) DESC LIMIT 1"
                    ),
                    [&user],
                    from_row,
                )
                .optional()?)
        })
        .await
}

/// A user's conversations, most recent first.
pub async fn list(
    ctx: &Ctx,
    user: Option<&str>,
    options: ListOptions,
) -> Result<Vec<Conversation>> {
    let user = owner_or(ctx, user)?;
    ctx.store()
        .read(move |conn| {
            let mut stmt = conn.prepare(&format!(
                "{SELECT} WHERE user_id = ?1 AND (?2 IS NULL OR channel = ?2) AND (?3 = 1 OR archived = 0)
                 ORDER BY COALESCE(last_message_at, created_at) DESC, id"
            ))?;
            let mut out = stmt
                .query_map(params![user, options.channel, options.include_archived], from_row)?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            if options.with_runs {
                for conversation in &mut out {
                    conversation.last_run = runs::latest_of_thread(conn, &conversation.id)?;
                }
            }
            Ok(out)
        })
        .await
}

pub async fn get(ctx: &Ctx, id: &str) -> Result<Conversation> {
    let id = id.to_owned();
    ctx.store().read(move |conn| require(conn, &id)).await
}

/// Sets a title by hand; it then stays, whatever the first message says.
pub async fn rename(ctx: &Ctx, id: &str, title: &str) -> Result<Conversation> {
    let title = crate::validate::name("title", title, 120)?;
    let id = id.to_owned();
    let conversation = ctx
        .store()
        .write(move |tx| {
            require(tx, &id)?;
            tx.execute(
                "UPDATE threads SET title = ?2, title_is_manual = 1, updated_at = ?3 WHERE id = ?1",
                params![id, title, Utc::now()],
            )?;
            require(tx, &id)
        })
        .await?;
    ctx.changed(Change::Conversations);
    Ok(conversation)
}

/// Which conversation to write to someone on a channel when they did not
/// write first (a scheduled job's report): their latest there, or `None`.
pub async fn conversation_for_channel(
    ctx: &Ctx,
    user: &str,
    channel: &str,
) -> Result<Option<Conversation>> {
    let (user, channel) = (check_user(user)?, channel.to_owned());
    ctx.store()
        .read(move |conn| {
            Ok(conn
                .query_row(
                    &format!(
                        "{SELECT} WHERE user_id = ?1 AND channel = ?2 AND archived = 0
                         ORDER BY COALESCE(last_message_at, created_at) DESC LIMIT 1"
                    ),
                    params![user, channel],
                    from_row,
                )
                .optional()?)
        })
        .await
}

/// Stores a message now; the catalog row catches up right after (H41).
pub async fn append_message(
    ctx: &Ctx,
    thread: &str,
    role: MessageRole,
    content: &str,
    agent: Option<&str>,
    run: Option<&str>,
) -> Result<ChatMessage> {
    append_message_with_images(ctx, thread, role, content, agent, run, Vec::new()).await
}

/// [`append_message`] with images attached, in one transaction. The
/// artifacts are checked by the caller (`runtime::chat`): they belong to
/// the conversation's user and are pictures a model can read.
pub(crate) async fn append_message_with_images(
    ctx: &Ctx,
    thread: &str,
    role: MessageRole,
    content: &str,
    agent: Option<&str>,
    run: Option<&str>,
    images: Vec<MessageImage>,
) -> Result<ChatMessage> {
    let (thread, content) = (thread.to_owned(), content.to_owned());
    let thread_id = thread.clone();
    let (agent, run) = (agent.map(str::to_owned), run.map(str::to_owned));
    let message = ctx
        .store()
        .write(move |tx| {
            require(tx, &thread)?;
            let now = Utc::now();
            tx.execute(
                "INSERT INTO messages (thread_id, role, content, agent_id, run_id, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![thread, role.as_str(), content, agent, run, now],
            )?;
            let id = tx.last_insert_rowid();
            for (position, image) in images.iter().enumerate() {
                tx.execute(
                    "INSERT INTO message_images (message_id, position, artifact_id, model_artifact_id, name)
                     VALUES (?1, ?2, ?3, ?4, ?5)",
                    params![
                        id,
                        position as i64,
                        image.artifact_id,
                        image.model_artifact_id,
                        image.name
                    ],
                )?;
            }
            Ok(ChatMessage {
                id,
                role,
                content,
                agent_id: agent,
                run_id: run,
                created_at: now,
                images,
                tools: Vec::new(),
                usage: None,
            })
        })
        .await?;
    let catalog = ctx.clone();
    tokio::spawn(async move {
        if let Err(e) = refresh_catalog(&catalog, &thread_id).await {
            tracing::warn!("conversation catalog not updated: {}", e.message);
        }
    });
    Ok(message)
}

/// Recomputes a thread's count, last activity and (unless set by hand) title.
pub(crate) async fn refresh_catalog(ctx: &Ctx, thread: &str) -> Result<()> {
    let thread = thread.to_owned();
    ctx.store()
        .write(move |tx| {
            let first_user: Option<String> = tx
                .query_row(
                    "SELECT content FROM messages WHERE thread_id = ?1 AND role = 'user' ORDER BY id LIMIT 1",
                    [&thread],
                    |r| r.get(0),
                )
                .optional()?;
            let title = first_user.map(|text| title_from(&text));
            tx.execute(
                "UPDATE threads SET
                    message_count = (SELECT count(*) FROM messages WHERE thread_id = ?1),
                    last_message_at = (SELECT MAX(created_at) FROM messages WHERE thread_id = ?1),
                    title = CASE WHEN title_is_manual = 1 THEN title ELSE COALESCE(?2, title) END,
                    updated_at = ?3
                 WHERE id = ?1",
                params![thread, title, Utc::now()],
            )?;
            Ok(())
        })
        .await?;
    ctx.changed(Change::Conversations);
    Ok(())
}

/// A title from the first user message: its first line, cut at a word.
pub fn title_from(text: &str) -> String {
    let line = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("");
    if line.chars().count() <= TITLE_CHARS {
        return line.to_owned();
    }
    let cut: String = line.chars().take(TITLE_CHARS).collect();
    let cut = cut.rsplit_once(' ').map_or(cut.as_str(), |(head, _)| head);
    format!("{}…", cut.trim_end_matches([',', ';', ':', '.']))
}

/// Every message of a conversation, in order — consistent at once.
pub async fn history(ctx: &Ctx, id: &str) -> Result<Vec<ChatMessage>> {
    let id = id.to_owned();
    ctx.store()
        .read(move |conn| {
            require(conn, &id)?;
            history_in(conn, &id)
        })
        .await
}

pub(crate) fn history_in(conn: &Connection, id: &str) -> Result<Vec<ChatMessage>> {
    let mut stmt = conn.prepare(
        "SELECT id, role, content, agent_id, run_id, created_at FROM messages WHERE thread_id = ?1 ORDER BY id",
    )?;
    let rows = stmt.query_map([id], |r| {
        let role: String = r.get(1)?;
        Ok(ChatMessage {
            id: r.get(0)?,
            role: MessageRole::parse(&role),
            content: r.get(2)?,
            agent_id: r.get(3)?,
            run_id: r.get(4)?,
            created_at: r.get(5)?,
            images: Vec::new(),
            tools: Vec::new(),
            usage: None,
        })
    })?;
    let mut messages = rows.collect::<rusqlite::Result<Vec<_>>>()?;
    let mut stmt = conn.prepare(
        "SELECT i.message_id, i.artifact_id, i.model_artifact_id, i.name
         FROM message_images i JOIN messages m ON m.id = i.message_id
         WHERE m.thread_id = ?1 ORDER BY i.message_id, i.position",
    )?;
    let images = stmt.query_map([id], |r| {
        Ok((
            r.get::<_, i64>(0)?,
            MessageImage {
                artifact_id: r.get(1)?,
                model_artifact_id: r.get(2)?,
                name: r.get(3)?,
            },
        ))
    })?;
    for image in images {
        let (message, image) = image?;
        // Messages are in id order.
        if let Ok(at) = messages.binary_search_by_key(&message, |m| m.id) {
            messages[at].images.push(image);
        }
    }
    answers::attach(conn, &mut messages)?;
    Ok(messages)
}

async fn set_archived(ctx: &Ctx, id: &str, archived: bool) -> Result<Conversation> {
    let id = id.to_owned();
    let conversation = ctx
        .store()
        .write(move |tx| {
            require(tx, &id)?;
            tx.execute(
                "UPDATE threads SET archived = ?2, updated_at = ?3 WHERE id = ?1",
                params![id, archived, Utc::now()],
            )?;
            require(tx, &id)
        })
        .await?;
    ctx.changed(Change::Conversations);
    Ok(conversation)
}

/// Archives a conversation: out of the list, its history kept (H43).
pub async fn close(ctx: &Ctx, id: &str) -> Result<Conversation> {
    set_archived(ctx, id, true).await
}

pub async fn reopen(ctx: &Ctx, id: &str) -> Result<Conversation> {
    set_archived(ctx, id, false).await
}

/// Deletes the conversation: messages, summary, notes and the row (H43).
pub async fn delete(ctx: &Ctx, id: &str) -> Result<()> {
    let id = id.to_owned();
    ctx.store()
        .write(move |tx| {
            require(tx, &id)?;
            tx.execute("DELETE FROM threads WHERE id = ?1", [&id])?;
            Ok(())
        })
        .await?;
    ctx.changed(Change::Conversations);
    Ok(())
}

/// The conversation's interrupted run and how far it got, or `None` — the
/// normal case, and also for a run that died before saving a checkpoint.
pub async fn resume(ctx: &Ctx, id: &str) -> Result<Option<Resumable>> {
    let me = ctx.lease_owner().to_owned();
    let id = id.to_owned();
    ctx.store()
        .write(move |tx| {
            require(tx, &id)?;
            runs::sweep(tx, &me)?;
            let Some(run) = runs::latest_of_thread(tx, &id)? else {
                return Ok(None);
            };
            if run.status != RunStatus::Interrupted || !run.has_checkpoint {
                return Ok(None);
            }
            let checkpoint: Option<String> = tx.query_row(
                "SELECT checkpoint FROM runs WHERE id = ?1",
                [&run.id],
                |r| r.get(0),
            )?;
            let messages = checkpoint
                .and_then(|c| serde_json::from_str::<serde_json::Value>(&c).ok())
                .and_then(|c| c["messages"].as_array().map(|m| m.len() as u32))
                .unwrap_or(0);
            Ok(Some(Resumable {
                run,
                checkpoint_messages: messages,
            }))
        })
        .await
}

/// Who a channel message is from, and where it goes (H44). An identity seen
/// before keeps its user. A new one is linked to the only user when there
/// is one; with more users it needs the owner's approval first, and the
/// error carries the pairing code to quote.
pub async fn resolve_context(ctx: &Ctx, identity: ChannelIdentity) -> Result<ResolvedContext> {
    if identity.channel.trim().is_empty() || identity.channel_user_id.trim().is_empty() {
        return Err(AppError::invalid_field(
            "channel",
            "required",
            "a channel and a channel user id are needed",
        ));
    }
    // The pairing request must be committed, so the closure answers it
    // as a value and the error is made outside the transaction.
    let resolved = ctx
        .store()
        .write(move |tx| {
            let (user, is_new_user) = match users::linked_user(tx, &identity)? {
                Some(user) => (user, false),
                None if users::count(tx)? <= 1 => {
                    let only: String =
                        tx.query_row("SELECT id FROM users LIMIT 1", [], |r| r.get(0))?;
                    users::link(tx, &identity, &only)?;
                    (only, true)
                }
                None => return Ok(Err(users::request_pairing(tx, &identity)?)),
            };
            let id = make_thread_id(&user, &identity.channel, &identity.channel_user_id);
            let (user_seg, channel, peer) = parse_thread_id(&id)
                .ok_or_else(|| AppError::internal(format!("made a malformed thread id {id}")))?;
            let thread = insert(tx, &id, &user_seg, &channel, &peer, None)?;
            Ok(Ok(ResolvedContext {
                user_id: user,
                thread_id: thread.id,
                agent_id: thread.agent_id,
                is_new_user,
            }))
        })
        .await?;
    match resolved {
        Ok(context) => {
            ctx.changed(Change::Conversations);
            Ok(context)
        }
        Err(request) => {
            ctx.changed(Change::Users);
            Err(AppError::precondition(format!(
                "{} {} is not known here yet; the owner must approve pairing code {}",
                request.identity.channel, request.identity.channel_user_id, request.code
            ))
            .with_details(json!({
                "reason": "pairing_required",
                "pairingId": request.id,
                "code": request.code,
            })))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn h41_titles_come_from_the_first_line_cut_at_a_word() {
        assert_eq!(
            title_from("\n  Plan the launch\nwith details"),
            "Plan the launch"
        );
        let long =
            "Please research the market for electric bicycles in Spain and Portugal next year";
        let title = title_from(long);
        assert!(title.ends_with('…'));
        assert!(title.chars().count() <= TITLE_CHARS + 1);
        assert!(long.starts_with(title.trim_end_matches('…')));
    }
}
