//! The bus tools of seed 003 (SPEC B4), one contract for the MCP tools and
//! the tools of a woken role: `send_message(to_author_name, body,
//! priority?)`, `read_inbox(since?, unread_only?)`, `list_sent(since?)`.
//! The sender and the reader are always the caller's own author — no
//! argument names one.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::caller::Caller;
use crate::ctx::Ctx;
use crate::error::Result;
use crate::inbox::authors::{self, DirectoryEntry};
use crate::inbox::messages::{self, InboxQuery, Message, Priority, SendMessage, SentQuery};

/// `send_message`: a message from you to another author.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SendMessageArgs {
    /// The recipient: an author's name or id (a role or a person).
    #[schemars(length(min = 1, max = 80))]
    pub to_author_name: String,
    /// The message, at most 64 KiB of UTF-8 text.
    #[schemars(length(min = 1))]
    pub body: String,
    /// `urgent` wakes a role at once; default `normal`.
    #[serde(default)]
    pub priority: Option<Priority>,
    /// The id of the message this one answers (one between you and the
    /// recipient); omit it to start a new conversation.
    #[serde(default)]
    #[schemars(length(min = 1, max = 100))]
    pub reply_to: Option<String>,
    /// Your own id for this message (a UUID, say; letters, digits, `.`,
    /// `_`, `:`, `-`). Sending again with the same id — after a timeout or
    /// a lost answer — returns the message already sent instead of
    /// delivering it twice. Omit it and every send is a new message.
    #[serde(default)]
    #[schemars(length(min = 1, max = 100))]
    pub message_id: Option<String>,
}

/// `read_thread`: a message and every answer around it (the thread it is
/// in), oldest first; nothing is marked read.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadThreadArgs {
    /// The id of any message of the thread (one you sent or received).
    #[schemars(length(min = 1, max = 100))]
    pub message_id: String,
}

/// `mark_unread`: mark messages of your inbox unread again.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MarkUnreadArgs {
    /// Ids of messages you received; others are ignored.
    #[schemars(length(min = 1, max = 1000))]
    pub ids: Vec<String>,
}

/// `read_inbox`: your unread mail, oldest first; what it returns is marked
/// read.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadInboxArgs {
    /// ISO 8601 time: only messages after it.
    #[serde(default)]
    pub since: Option<String>,
    /// Default true; false includes messages already read.
    #[serde(default)]
    pub unread_only: Option<bool>,
}

/// `list_sent`: what you sent, oldest first (to confirm delivery).
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListSentArgs {
    /// ISO 8601 time: only messages after it.
    #[serde(default)]
    pub since: Option<String>,
}

/// `search_messages`: full-text search over the mail you sent or received,
/// best match first, then newest.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchMessagesArgs {
    /// Words to find (all of them); `"…"` for a phrase, `-word` to exclude.
    #[schemars(length(min = 1, max = 1000))]
    pub query: String,
    /// At most this many messages (1 to 100, default 20).
    #[serde(default)]
    #[schemars(range(min = 1, max = 100))]
    pub limit: Option<u32>,
}

pub async fn send_message(ctx: &Ctx, caller: &Caller, input: SendMessageArgs) -> Result<Message> {
    let message = SendMessage {
        body: input.body,
        priority: input.priority.map(|p| p.as_str().to_owned()),
        reply_to: input.reply_to,
        message_id: input.message_id,
    };
    let me = caller.speaks_as(ctx)?;
    messages::send_to_name(ctx, caller, &me, &input.to_author_name, message).await
}

pub async fn read_inbox(ctx: &Ctx, caller: &Caller, input: ReadInboxArgs) -> Result<Vec<Message>> {
    let query = InboxQuery {
        since: input.since,
        unread_only: input.unread_only,
        peek: Some(false),
        limit: None,
    };
    let me = caller.speaks_as(ctx)?;
    messages::inbox(ctx, caller, &me, query).await
}

pub async fn list_sent(ctx: &Ctx, caller: &Caller, input: ListSentArgs) -> Result<Vec<Message>> {
    let query = SentQuery {
        since: input.since,
        limit: None,
    };
    let me = caller.speaks_as(ctx)?;
    messages::sent(ctx, caller, &me, query).await
}

pub async fn search_messages(
    ctx: &Ctx,
    caller: &Caller,
    input: SearchMessagesArgs,
) -> Result<Vec<Message>> {
    let me = caller.speaks_as(ctx)?;
    crate::inbox::search::search(ctx, caller, &me, &input.query, input.limit).await
}

pub async fn read_thread(
    ctx: &Ctx,
    caller: &Caller,
    input: ReadThreadArgs,
) -> Result<Vec<Message>> {
    let me = caller.speaks_as(ctx)?;
    messages::thread(ctx, caller, &me, &input.message_id).await
}

/// How many of them were marked unread (`{"marked": n}`).
pub async fn mark_unread(
    ctx: &Ctx,
    caller: &Caller,
    input: MarkUnreadArgs,
) -> Result<serde_json::Value> {
    let me = caller.speaks_as(ctx)?;
    let marked = messages::mark_unread(ctx, caller, &me, input.ids).await?;
    Ok(serde_json::json!({ "marked": marked }))
}

/// `list_authors`: who is on this bus — people and roles — to address a
/// message to (issue 37: the team bus's "To" is a picker, not a typed id).
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListAuthorsArgs {}

/// The bus's authors, by name. Only an author of the bus may ask (a token
/// holder, or the owner): the directory is the members' own, as a team's
/// address book is — what stays closed is anyone's mail, and whether a
/// name exists to someone who is not on the bus.
pub async fn list_authors(
    ctx: &Ctx,
    caller: &Caller,
    _: ListAuthorsArgs,
) -> Result<Vec<DirectoryEntry>> {
    caller.speaks_as(ctx)?;
    authors::directory(ctx).await
}
