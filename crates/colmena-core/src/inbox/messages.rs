//! Messages (SPEC B2, B3): send, read an inbox, list what was sent, delete.
//!
//! The wire shape is the seed's, on every door: `id, from, to, body,
//! priority, created_at, read_at` (snake_case, as the REST API gives it).
//!
//! Nothing acknowledged is lost: `send` answers only after its commit (a
//! grouped commit shared with other senders, see `Store::write_grouped`),
//! and reading with `peek = false` selects and marks in one transaction, so
//! two readers never both receive the same unread message.
//!
//! Safe by default: an inbox holds at most [`max_unread`] unread messages
//! (10,000 unless set per data dir); mail to a full inbox is refused with
//! `rate_limited` (`details.reason = "inbox_full"`, field `to`) on every door
//! — HTTP, MCP, agents' tools, the drop folder, the app — because every
//! send goes through [`send`] and the store's one send. Urgent mail moves a role's next wake-up forward, but
//! never closer than the minimum interval after its last one
//! (`inbox::wake_timing`): a flood of urgent mail is one model run
//! per interval, not one per message.
//!
//! The rules are here, once, above the bus store port
//! (`store::bus::port`): the body, the priority, the client id's syntax, no
//! mail to oneself, who may act as whom, and in what order the authors are
//! checked. The store keeps the rows and does in one transaction what must
//! be atomic: the client-id replay, the reply check, the inbox cap and the
//! urgent wake-up.
//!
//! Conversations are threads (issue 15, item 4): a message may answer
//! another (`reply_to`), and only between the same two authors — the
//! answer's sender must be the sender or the recipient of the message it
//! answers, and goes to the other one. Asking to answer a message one is
//! not part of fails exactly like answering a message that does not exist
//! (`not_found`, field `reply_to`), so a token learns nothing about other
//! authors' mail. Every message of a thread carries the id of its first
//! message (`thread_root`, set on the first message once it is answered),
//! so a thread is one indexed read, survives the deletion of any of its
//! messages, and needs no walk up and down the `reply_to` links. Clients
//! that never send `reply_to` see the bus exactly as before.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::Caller;
use super::authors;
use super::client_ids;
use crate::ctx::{Change, Ctx};
use crate::error::{AppError, ErrorCode, Result};
use crate::store::bus::port::{InboxRead, SendRow, Sent, Setting};
use crate::store::bus::time::parse_since;

pub use crate::store::bus::{Message, Priority};

/// Longest message body, in bytes.
pub const MAX_BODY_BYTES: usize = 64 * 1024;
/// Messages one read returns unless told otherwise, and at most.
pub const DEFAULT_LIMIT: u32 = 100;
pub const MAX_LIMIT: u32 = 1000;

/// What a sender gets back: `{id, created_at}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
pub struct MessageReceipt {
    pub id: String,
    pub created_at: DateTime<Utc>,
}

/// A message to send. `priority` is text so that a wrong word is a clear
/// validation error rather than a parse failure.
#[derive(Debug, Clone, Default, Serialize, Deserialize, specta::Type)]
pub struct SendMessage {
    pub body: String,
    #[serde(default)]
    pub priority: Option<String>,
    /// The id of the message this one answers (between the same two
    /// authors); none starts a new conversation.
    #[serde(default)]
    pub reply_to: Option<String>,
    /// The sender's own id for this message (`client_ids`): sending again
    /// with the same one answers the message already sent instead of
    /// delivering a second copy. None: every send is a new message.
    #[serde(default)]
    pub message_id: Option<String>,
}

/// How to read an inbox. Defaults: unread only, marking read, 100 at most.
#[derive(Debug, Clone, Default, Serialize, Deserialize, specta::Type)]
pub struct InboxQuery {
    /// Only messages created after this time (ISO 8601).
    #[serde(default)]
    pub since: Option<String>,
    #[serde(default)]
    pub unread_only: Option<bool>,
    /// Look without marking read.
    #[serde(default)]
    pub peek: Option<bool>,
    #[serde(default)]
    pub limit: Option<u32>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, specta::Type)]
pub struct SentQuery {
    #[serde(default)]
    pub since: Option<String>,
    #[serde(default)]
    pub limit: Option<u32>,
}

/// A page of the conversation between two authors, newest first.
#[derive(Debug, Clone, Default, Serialize, Deserialize, specta::Type)]
pub struct ConversationQuery {
    /// Only messages older than this one (the last of the previous page).
    #[serde(default)]
    pub before: Option<String>,
    #[serde(default)]
    pub limit: Option<u32>,
}

/// The most messages a thread read returns: its latest ones.
pub const THREAD_LIMIT: u32 = 500;

pub(crate) fn check_body(body: &str) -> Result<()> {
    if body.trim().is_empty() {
        return Err(AppError::invalid_field(
            "body",
            "required",
            "the message body must not be empty",
        ));
    }
    if body.len() > MAX_BODY_BYTES {
        return Err(AppError::invalid_field(
            "body",
            "too_long",
            format!(
                "the message body is {} bytes; the most is {MAX_BODY_BYTES}",
                body.len()
            ),
        ));
    }
    Ok(())
}

fn check_limit(limit: Option<u32>) -> Result<u32> {
    match limit.unwrap_or(DEFAULT_LIMIT) {
        l if (1..=MAX_LIMIT).contains(&l) => Ok(l),
        l => Err(AppError::invalid_field(
            "limit",
            "out_of_range",
            format!("limit must be 1 to {MAX_LIMIT}, not {l}"),
        )),
    }
}

fn since_time(since: Option<&str>) -> Result<Option<DateTime<Utc>>> {
    since.map(parse_since).transpose()
}

/// The most unread messages one inbox holds in this data dir.
pub async fn max_unread(ctx: &Ctx) -> Result<u32> {
    ctx.bus().setting(Setting::MaxUnread).await
}

/// Sets the most unread messages one inbox holds (1 to 10,000,000).
pub async fn set_max_unread(ctx: &Ctx, cap: u32) -> Result<u32> {
    if !(1..=10_000_000).contains(&cap) {
        return Err(AppError::invalid_field(
            "maxUnread",
            "out_of_range",
            format!("an inbox must hold 1 to 10,000,000 unread messages, not {cap}"),
        ));
    }
    ctx.bus().set_setting(Setting::MaxUnread, cap).await?;
    Ok(cap)
}

/// Sends `message` from `from` to `to` (ids). The sender is whoever the
/// caller is: a token client can send only as its own author.
pub async fn send(
    ctx: &Ctx,
    caller: &Caller,
    from: &str,
    to: &str,
    message: SendMessage,
) -> Result<Message> {
    check_body(&message.body)?;
    let priority = Priority::parse(message.priority.as_deref().unwrap_or("normal"))?;
    if let Some(id) = &message.message_id {
        client_ids::check(id)?;
    }
    // Mail to oneself is how a role re-woke itself forever (its own urgent
    // message moved its next wake-up, and the instruction that made it
    // write stayed in its thread): nobody writes to their own inbox.
    if from == to {
        return Err(AppError::invalid_field(
            "to",
            "self_message",
            format!("'{from}' cannot send a message to itself"),
        ));
    }
    caller.may_act_as(from)?;
    let answers = message.reply_to.clone();
    let sent = ctx
        .bus()
        .send(SendRow {
            from: from.to_owned(),
            to: to.to_owned(),
            body: message.body,
            priority,
            reply_to: message.reply_to,
            message_id: message.message_id,
        })
        .await?;
    match sent {
        Sent::Message(sent, new) => {
            if new {
                after_send(ctx, &sent);
            }
            Ok(sent)
        }
        Sent::NoAuthor(missing) => {
            // An answer is checked against its conversation before its
            // recipient: a `reply_to` names a message between the sender
            // and the recipient, so a recipient that does not exist fails
            // exactly as one outside that conversation does ("no message …
            // in your mail to answer", "that message is with someone
            // else"). A made-up or borrowed `reply_to` then tells nothing
            // about who is on the bus, and sends nothing (found in the
            // attacker's re-reviews). Only an answer in a conversation with
            // `to` learns that `to` is gone (the other author of a message
            // may have been removed since). Without `reply_to` the
            // recipient's absence is said as it is: writing to an author is
            // how one learns it exists.
            if let (true, Some(id)) = (missing == to, answers.as_deref()) {
                ctx.bus().check_answer(from, to, id).await?;
            }
            Err(AppError::not_found("author", &missing))
        }
    }
}

/// Like [`send`], naming the recipient by id or by name (the model's tools
/// and the seed's `send_message(to_author_name, …)`).
/// No author has this id (ids are never empty).
const NOBODY: &str = "";

pub async fn send_to_name(
    ctx: &Ctx,
    caller: &Caller,
    from: &str,
    to_name: &str,
    message: SendMessage,
) -> Result<Message> {
    match authors::lookup(ctx, to_name).await? {
        Some(to) => send(ctx, caller, from, &to.id, message).await,
        // An answer to nobody: refused as an answer outside its
        // conversation is, whoever is on the bus (see `send`).
        None if message.reply_to.is_some() => send(ctx, caller, from, NOBODY, message).await,
        None => Err(AppError::new(
            ErrorCode::NotFound,
            format!("no author is called '{to_name}'"),
        )),
    }
}

pub(crate) fn after_send(ctx: &Ctx, message: &Message) {
    ctx.changed(Change::Messages);
    if message.priority == Priority::Urgent {
        ctx.wake_scheduler();
    }
}

/// Reads `author`'s inbox, oldest first. Unless `peek`, the messages
/// returned are marked read in the same transaction that selects them.
pub async fn inbox(
    ctx: &Ctx,
    caller: &Caller,
    author: &str,
    query: InboxQuery,
) -> Result<Vec<Message>> {
    let since = since_time(query.since.as_deref())?;
    let limit = check_limit(query.limit)?;
    let unread_only = query.unread_only.unwrap_or(true);
    let peek = query.peek.unwrap_or(false);
    caller.may_act_as(author)?;
    authors::must_exist(ctx, author).await?;
    let messages = ctx
        .bus()
        .inbox(InboxRead {
            author: author.to_owned(),
            since,
            unread_only,
            peek,
            limit,
        })
        .await?;
    if !peek && messages.iter().any(|m| m.read_at.is_some()) {
        ctx.changed(Change::Messages);
    }
    Ok(messages)
}

/// The most ids one mark read/unread takes: one request is one short
/// transaction, never a stall of every sender's commit.
pub const MAX_MARK_IDS: usize = 1000;

fn check_mark_ids(ids: &[String]) -> Result<()> {
    if ids.len() > MAX_MARK_IDS {
        return Err(AppError::invalid_field(
            "ids",
            "too_many",
            format!(
                "at most {MAX_MARK_IDS} messages at a time, not {}",
                ids.len()
            ),
        ));
    }
    Ok(())
}

/// Marks some of `author`'s messages read (the desktop inbox, as each is
/// opened). Ids that are not in that inbox are ignored.
pub async fn mark_read(ctx: &Ctx, caller: &Caller, author: &str, ids: Vec<String>) -> Result<u32> {
    set_read(ctx, caller, author, ids, true).await
}

/// Marks some of `author`'s messages unread again (the person, by hand).
/// Ids that are not in that inbox, or are unread already, are ignored.
pub async fn mark_unread(
    ctx: &Ctx,
    caller: &Caller,
    author: &str,
    ids: Vec<String>,
) -> Result<u32> {
    set_read(ctx, caller, author, ids, false).await
}

/// Sets or clears `read_at` on those of `ids` in `author`'s inbox that are
/// not that way already; answers how many changed.
async fn set_read(
    ctx: &Ctx,
    caller: &Caller,
    author: &str,
    ids: Vec<String>,
    read: bool,
) -> Result<u32> {
    check_mark_ids(&ids)?;
    caller.may_act_as(author)?;
    authors::must_exist(ctx, author).await?;
    let marked = ctx.bus().set_read(author, &ids, read).await?;
    if marked > 0 {
        ctx.changed(Change::Messages);
    }
    Ok(marked)
}

/// The thread `message_id` is in, oldest first, as `as_author` sees it:
/// the messages of that thread it sent or received (all of them, since an
/// answer stays between the same two authors), its latest
/// [`THREAD_LIMIT`]. A message in no thread is a thread of one. A message
/// `as_author` neither sent nor received is `not_found`, like one that does
/// not exist. Nothing is marked read.
pub async fn thread(
    ctx: &Ctx,
    caller: &Caller,
    as_author: &str,
    message_id: &str,
) -> Result<Vec<Message>> {
    caller.may_act_as(as_author)?;
    authors::must_exist(ctx, as_author).await?;
    ctx.bus()
        .thread(as_author, message_id.trim(), THREAD_LIMIT)
        .await
}

/// The conversation between `as_author` and `with`: every message either
/// sent the other, newest first, a page at a time (`before` the last
/// message of the previous page). Nothing is marked read.
pub async fn conversation(
    ctx: &Ctx,
    caller: &Caller,
    as_author: &str,
    with: &str,
    query: ConversationQuery,
) -> Result<Vec<Message>> {
    let limit = check_limit(query.limit)?;
    caller.may_act_as(as_author)?;
    authors::must_exist(ctx, as_author).await?;
    let before = query
        .before
        .as_deref()
        .map(str::trim)
        .filter(|b| !b.is_empty());
    ctx.bus().conversation(as_author, with, before, limit).await
}

/// What `author` sent, oldest first.
pub async fn sent(
    ctx: &Ctx,
    caller: &Caller,
    author: &str,
    query: SentQuery,
) -> Result<Vec<Message>> {
    let since = since_time(query.since.as_deref())?;
    let limit = check_limit(query.limit)?;
    caller.may_act_as(author)?;
    authors::must_exist(ctx, author).await?;
    ctx.bus().sent(author, since, limit).await
}

/// Deletes a message; only its sender may (`as_author` is who asks).
pub async fn delete(ctx: &Ctx, caller: &Caller, as_author: &str, id: &str) -> Result<()> {
    caller.may_act_as(as_author)?;
    ctx.bus().delete(as_author, id).await?;
    ctx.changed(Change::Messages);
    Ok(())
}

/// Urgent mail to people committed after `after_seq` (any process): what
/// the desktop turns into notifications. Returns the messages and the
/// highest seq seen.
pub async fn urgent_for_people_after(ctx: &Ctx, after_seq: i64) -> Result<(Vec<Message>, i64)> {
    ctx.bus().urgent_for_people_after(after_seq).await
}
