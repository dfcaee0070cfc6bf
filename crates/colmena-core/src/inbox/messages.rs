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
//! — HTTP, MCP, agents' tools, the drop folder, the app — because the check
//! is in [`insert`]. Urgent mail moves a role's next wake-up forward, but
//! never closer than the minimum interval after its last one
//! (`wake_timing::earliest_urgent_wake`): a flood of urgent mail is one model run
//! per interval, not one per message.
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
use rusqlite::{Connection, OptionalExtension, params};
use serde::{Deserialize, Serialize};

use super::Caller;
use super::authors;
use super::client_ids;
use crate::ctx::{Change, Ctx};
use crate::error::{AppError, ErrorCode, Result};
use crate::store::bus::postgres as pg;
use crate::store::bus::time::{self, parse_since, parse_stored, stored};
use crate::store::meta;

use crate::store::bus::errors::{check_reply_id, inbox_full, no_such_reply, other_conversation};
pub use crate::store::bus::{Message, Priority};

/// Longest message body, in bytes.
pub const MAX_BODY_BYTES: usize = 64 * 1024;
/// Unread messages an inbox holds unless the data dir says otherwise.
pub const DEFAULT_MAX_UNREAD: u32 = 10_000;
const META_MAX_UNREAD: &str = "bus_max_unread";
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

pub(crate) const COLUMNS: &str =
    "id, from_author, to_author, body, priority, created_at, read_at, reply_to, thread_root";

pub(crate) fn from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Message> {
    let priority: String = r.get(4)?;
    Ok(Message {
        id: r.get(0)?,
        from: r.get(1)?,
        to: r.get(2)?,
        body: r.get(3)?,
        priority: if priority == "urgent" {
            Priority::Urgent
        } else {
            Priority::Normal
        },
        created_at: parse_stored(&r.get::<_, String>(5)?)?,
        read_at: r
            .get::<_, Option<String>>(6)?
            .map(|t| parse_stored(&t))
            .transpose()?,
        reply_to: r.get(7)?,
        thread_root: r.get(8)?,
    })
}

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

fn since_text(since: Option<&str>) -> Result<String> {
    // The empty string sorts before every stored time.
    Ok(since
        .map(parse_since)
        .transpose()?
        .map(stored)
        .unwrap_or_default())
}

/// The most unread messages one inbox holds in this data dir.
pub async fn max_unread(ctx: &Ctx) -> Result<u32> {
    if let Some(pg) = ctx.bus_pg() {
        return pg
            .setting(pg::messages::MAX_UNREAD_KEY, DEFAULT_MAX_UNREAD)
            .await;
    }
    ctx.store().read(unread_cap).await
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
    if let Some(pg) = ctx.bus_pg() {
        pg.set_setting(pg::messages::MAX_UNREAD_KEY, cap).await?;
        return Ok(cap);
    }
    ctx.store()
        .write(move |tx| meta::set(tx, META_MAX_UNREAD, &cap.to_string()))
        .await?;
    Ok(cap)
}

fn unread_cap(conn: &Connection) -> Result<u32> {
    Ok(meta::get(conn, META_MAX_UNREAD)?
        .and_then(|v| v.parse().ok())
        .unwrap_or(DEFAULT_MAX_UNREAD))
}

/// Refuses mail to an inbox already holding its cap of unread messages.
fn check_room(conn: &Connection, to: &str) -> Result<()> {
    let cap = unread_cap(conn)?;
    // Kept by triggers on bus_messages (migration 0009): one row, not a count.
    let unread: u32 = conn
        .prepare_cached("SELECT n FROM bus_unread WHERE author_id = ?1")?
        .query_row([to], |r| r.get(0))
        .optional()?
        .unwrap_or(0);
    if unread < cap {
        return Ok(());
    }
    Err(inbox_full(to, cap))
}

/// The message an answer answers, once checked: its id and its thread.
pub(crate) struct Answered {
    id: String,
    thread_root: String,
}

/// The message `from` may answer with mail to `to`: one `from` sent or
/// received, whose other author is `to`. One not visible to `from` is
/// refused exactly like one that does not exist.
pub(crate) fn answered(conn: &Connection, from: &str, to: &str, id: &str) -> Result<Answered> {
    let id = id.trim();
    check_reply_id(id)?;
    let unknown = || no_such_reply(id);
    let row: Option<(String, String, Option<String>)> = conn
        .prepare_cached(
            "SELECT from_author, to_author, thread_root FROM bus_messages WHERE id = ?1",
        )?
        .query_row([id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .optional()?;
    let Some((sender, recipient, root)) = row else {
        return Err(unknown());
    };
    if sender != from && recipient != from {
        return Err(unknown());
    }
    let other = if sender == from { recipient } else { sender };
    if other != to {
        return Err(other_conversation(id, &other));
    }
    Ok(Answered {
        id: id.to_owned(),
        thread_root: root.unwrap_or_else(|| id.to_owned()),
    })
}

/// Inserts a message in the open transaction, if the recipient's inbox has
/// room; an urgent one to a role with an agent moves its next wake-up to
/// now, or to the end of its minimum interval between wake-ups (B6).
pub(crate) fn insert(
    conn: &Connection,
    from: &str,
    to: &str,
    body: &str,
    priority: Priority,
) -> Result<Message> {
    insert_answer(conn, from, to, body, priority, None)
}

/// Like [`insert`], answering `answers` (checked by [`answered`]): the
/// answer joins its thread, and the thread's first message is marked as
/// the first of a thread if it was not yet.
pub(crate) fn insert_answer(
    conn: &Connection,
    from: &str,
    to: &str,
    body: &str,
    priority: Priority,
    answers: Option<&Answered>,
) -> Result<Message> {
    check_room(conn, to)?;
    let id = uuid::Uuid::now_v7().to_string();
    let at = time::now();
    let now = stored(at);
    let (reply_to, thread_root) = match answers {
        Some(a) => (Some(a.id.as_str()), Some(a.thread_root.as_str())),
        None => (None, None),
    };
    // The hottest write there is: prepared once per connection.
    conn.prepare_cached(
        "INSERT INTO bus_messages
             (id, from_author, to_author, body, priority, created_at, reply_to, thread_root)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    )?
    .execute(params![
        id,
        from,
        to,
        body,
        priority.as_str(),
        now,
        reply_to,
        thread_root
    ])?;
    if let Some(root) = thread_root {
        conn.prepare_cached(
            "UPDATE bus_messages SET thread_root = ?1 WHERE id = ?1 AND thread_root IS NULL",
        )?
        .execute([root])?;
    }
    if priority == Priority::Urgent {
        let wake_at = stored(super::wake_timing::earliest_urgent_wake(conn, to, at)?);
        conn.execute(
            "UPDATE authors SET next_wake_at = ?2
             WHERE id = ?1 AND (agent_id IS NOT NULL OR wake_command IS NOT NULL)
               AND (next_wake_at IS NULL OR next_wake_at > ?2)",
            params![to, wake_at],
        )?;
    }
    Ok(conn
        .prepare_cached(&format!("SELECT {COLUMNS} FROM bus_messages WHERE id = ?1"))?
        .query_row([&id], from_row)?)
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
    if let Some(pg) = ctx.bus_pg() {
        caller.may_act_as(from)?;
        authors::must_exist(ctx, from).await?;
        // An answer is checked against its conversation before its
        // recipient: a `reply_to` names a message between the sender and
        // the recipient, so a recipient that does not exist fails exactly
        // as one outside that conversation does ("no message … in your mail
        // to answer", "that message is with someone else"). A made-up or
        // borrowed `reply_to` then tells nothing about who is on the bus,
        // and sends nothing (found in the attacker's re-reviews). Without
        // `reply_to` the recipient's absence is said as it is: writing to
        // an author is how one learns it exists.
        if let Err(missing) = authors::must_exist(ctx, to).await {
            if let Some(id) = message.reply_to.as_deref() {
                // Only an answer in a conversation with `to` learns that
                // `to` is gone (the other author of a message may have been
                // removed since).
                pg::messages::check_answer(pg, from, to, id).await?;
            }
            return Err(missing);
        }
        let max_unread = max_unread(ctx).await?;
        let min_wake = super::wake_timing::min_wake_interval(ctx).await?;
        let (sent, new) = pg::messages::send(
            pg,
            max_unread,
            min_wake,
            pg::messages::Send {
                from,
                to,
                body: &message.body,
                priority,
                reply_to: message.reply_to.as_deref(),
                message_id: message.message_id.as_deref(),
            },
        )
        .await?;
        if new {
            after_send(ctx, &sent);
        }
        return Ok(sent);
    }
    let (caller, from, to) = (caller.clone(), from.to_owned(), to.to_owned());
    let (sent, new) = ctx
        .store()
        .write_grouped(move |conn| {
            caller.may_act_as(&from)?;
            authors::require_exists(conn, &from)?;
            // As above: an answer's recipient is checked with its
            // conversation.
            if message.reply_to.is_none() {
                authors::require_exists(conn, &to)?;
            }
            let request = message.message_id.as_deref().map(|client_id| {
                let sha = crate::store::bus::replay::fingerprint(
                    &to,
                    priority,
                    message.reply_to.as_deref(),
                    &message.body,
                );
                (client_id, sha)
            });
            if let Some((client_id, sha)) = &request {
                let rebuild = |id, created_at| Message {
                    id,
                    from: from.clone(),
                    to: to.clone(),
                    body: message.body.clone(),
                    priority,
                    created_at,
                    read_at: None,
                    reply_to: message.reply_to.clone(),
                    thread_root: None,
                };
                if let Some(held) = client_ids::replayed(conn, &from, client_id, sha, rebuild)? {
                    return Ok((held, false));
                }
            }
            let answers = message
                .reply_to
                .as_deref()
                .map(|id| answered(conn, &from, &to, id))
                .transpose()?;
            if answers.is_some() {
                // The other author of a message the sender has; removed
                // since, it is said as it is.
                authors::require_exists(conn, &to)?;
            }
            let sent = insert_answer(conn, &from, &to, &message.body, priority, answers.as_ref())?;
            if let Some((client_id, sha)) = &request {
                client_ids::record(conn, &from, client_id, sha, &sent)?;
            }
            Ok((sent, true))
        })
        .await?;
    if new {
        after_send(ctx, &sent);
    }
    Ok(sent)
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
    let since = since_text(query.since.as_deref())?;
    let limit = check_limit(query.limit)?;
    let unread_only = query.unread_only.unwrap_or(true);
    let peek = query.peek.unwrap_or(false);
    if let Some(pg) = ctx.bus_pg() {
        caller.may_act_as(author)?;
        authors::must_exist(ctx, author).await?;
        let since = query.since.as_deref().map(parse_since).transpose()?;
        let messages = pg::messages::inbox(pg, author, since, unread_only, peek, limit).await?;
        if !peek && messages.iter().any(|m| m.read_at.is_some()) {
            ctx.changed(Change::Messages);
        }
        return Ok(messages);
    }
    let (caller, author) = (caller.clone(), author.to_owned());
    let select = move |conn: &Connection| -> Result<Vec<Message>> {
        caller.may_act_as(&author)?;
        authors::require_exists(conn, &author)?;
        let sql = if unread_only {
            format!(
                "SELECT {COLUMNS} FROM bus_messages
                 WHERE to_author = ?1 AND read_at IS NULL AND created_at > ?2
                 ORDER BY created_at, seq LIMIT ?3"
            )
        } else {
            format!(
                "SELECT {COLUMNS} FROM bus_messages
                 WHERE to_author = ?1 AND created_at > ?2
                 ORDER BY created_at, seq LIMIT ?3"
            )
        };
        let mut stmt = conn.prepare_cached(&sql)?;
        let rows = stmt.query_map(params![author, since, limit], from_row)?;
        Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
    };
    if peek {
        return ctx.store().read(select).await;
    }
    let marked = ctx
        .store()
        .write_grouped(move |conn| {
            let mut messages = select(conn)?;
            let now = time::now();
            let mut mark = conn.prepare_cached(
                "UPDATE bus_messages SET read_at = ?2 WHERE id = ?1 AND read_at IS NULL",
            )?;
            for message in messages.iter_mut().filter(|m| m.read_at.is_none()) {
                mark.execute(params![message.id, stored(now)])?;
                message.read_at = Some(now);
            }
            Ok(messages)
        })
        .await?;
    if marked.iter().any(|m| m.read_at.is_some()) {
        ctx.changed(Change::Messages);
    }
    Ok(marked)
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
    if let Some(pg) = ctx.bus_pg() {
        caller.may_act_as(author)?;
        authors::must_exist(ctx, author).await?;
        let marked = pg::messages::set_read(pg, author, &ids, read).await?;
        if marked > 0 {
            ctx.changed(Change::Messages);
        }
        return Ok(marked);
    }
    let (caller, author) = (caller.clone(), author.to_owned());
    let marked = ctx
        .store()
        .write_grouped(move |conn| {
            caller.may_act_as(&author)?;
            authors::require_exists(conn, &author)?;
            let now = read.then(|| stored(time::now()));
            let mut mark = conn.prepare_cached(
                "UPDATE bus_messages SET read_at = ?3
                 WHERE id = ?1 AND to_author = ?2 AND (read_at IS NULL) = (?3 IS NOT NULL)",
            )?;
            let mut count = 0;
            for id in ids {
                count += mark.execute(params![id, author, now])?;
            }
            Ok(count as u32)
        })
        .await?;
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
    if let Some(pg) = ctx.bus_pg() {
        caller.may_act_as(as_author)?;
        authors::must_exist(ctx, as_author).await?;
        return pg::messages::thread(pg, as_author, message_id.trim(), THREAD_LIMIT).await;
    }
    let (caller, me, id) = (
        caller.clone(),
        as_author.to_owned(),
        message_id.trim().to_owned(),
    );
    ctx.store()
        .read(move |conn| {
            caller.may_act_as(&me)?;
            authors::require_exists(conn, &me)?;
            let seen: Option<Message> = conn
                .prepare_cached(&format!(
                    "SELECT {COLUMNS} FROM bus_messages
                     WHERE id = ?1 AND (from_author = ?2 OR to_author = ?2)"
                ))?
                .query_row(params![id, me], from_row)
                .optional()?;
            let Some(message) = seen else {
                return Err(AppError::not_found("message", &id));
            };
            let Some(root) = message.thread_root.clone() else {
                return Ok(vec![message]);
            };
            let mut stmt = conn.prepare_cached(&format!(
                "SELECT {COLUMNS} FROM (
                     SELECT seq, {COLUMNS} FROM bus_messages
                     WHERE thread_root = ?1 AND (from_author = ?2 OR to_author = ?2)
                     ORDER BY created_at DESC, seq DESC LIMIT ?3
                 ) ORDER BY created_at, seq"
            ))?;
            let rows = stmt.query_map(params![root, me, THREAD_LIMIT], from_row)?;
            Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
        })
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
    if let Some(pg) = ctx.bus_pg() {
        caller.may_act_as(as_author)?;
        authors::must_exist(ctx, as_author).await?;
        let before = query
            .before
            .as_deref()
            .map(str::trim)
            .filter(|b| !b.is_empty());
        return pg::messages::conversation(pg, as_author, with, before, limit).await;
    }
    let (caller, me, with) = (caller.clone(), as_author.to_owned(), with.to_owned());
    ctx.store()
        .read(move |conn| {
            caller.may_act_as(&me)?;
            authors::require_exists(conn, &me)?;
            // Before everything unless told otherwise: no stored time sorts
            // after this one.
            let (before_at, before_seq) = match query.before.as_deref().map(str::trim) {
                None | Some("") => ("~".to_owned(), i64::MAX),
                Some(id) => conn
                    .prepare_cached(
                        "SELECT created_at, seq FROM bus_messages WHERE id = ?1
                           AND ((from_author = ?2 AND to_author = ?3)
                             OR (from_author = ?3 AND to_author = ?2))",
                    )?
                    .query_row(params![id, me, with], |r| Ok((r.get(0)?, r.get(1)?)))
                    .optional()?
                    .ok_or_else(|| {
                        AppError::not_found("message", id).with_details(serde_json::json!({
                            "field": "before", "reason": "no_such_message", "kind": "message", "id": id,
                        }))
                    })?,
            };
            // One range scan of the pair index per direction (one when an
            // author writes to itself).
            let page = "AND (created_at < ?3 OR (created_at = ?3 AND seq < ?4))
                        ORDER BY created_at DESC, seq DESC LIMIT ?5";
            let mut stmt = conn.prepare_cached(&format!(
                "SELECT {COLUMNS} FROM (
                     SELECT * FROM (SELECT seq, {COLUMNS} FROM bus_messages
                                    WHERE from_author = ?1 AND to_author = ?2 {page})
                     UNION ALL
                     SELECT * FROM (SELECT seq, {COLUMNS} FROM bus_messages
                                    WHERE from_author = ?2 AND to_author = ?1 AND ?1 <> ?2 {page})
                 ) ORDER BY created_at DESC, seq DESC LIMIT ?5"
            ))?;
            let rows = stmt.query_map(
                params![me, with, before_at, before_seq, limit],
                from_row,
            )?;
            Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
        })
        .await
}

/// What `author` sent, oldest first.
pub async fn sent(
    ctx: &Ctx,
    caller: &Caller,
    author: &str,
    query: SentQuery,
) -> Result<Vec<Message>> {
    let since = since_text(query.since.as_deref())?;
    let limit = check_limit(query.limit)?;
    if let Some(pg) = ctx.bus_pg() {
        caller.may_act_as(author)?;
        authors::must_exist(ctx, author).await?;
        let since = query.since.as_deref().map(parse_since).transpose()?;
        return pg::messages::sent(pg, author, since, limit).await;
    }
    let (caller, author) = (caller.clone(), author.to_owned());
    ctx.store()
        .read(move |conn| {
            caller.may_act_as(&author)?;
            authors::require_exists(conn, &author)?;
            let mut stmt = conn.prepare_cached(&format!(
                "SELECT {COLUMNS} FROM bus_messages
                 WHERE from_author = ?1 AND created_at > ?2
                 ORDER BY created_at, seq LIMIT ?3"
            ))?;
            let rows = stmt.query_map(params![author, since, limit], from_row)?;
            Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
        })
        .await
}

/// Deletes a message; only its sender may (`as_author` is who asks).
pub async fn delete(ctx: &Ctx, caller: &Caller, as_author: &str, id: &str) -> Result<()> {
    if let Some(pg) = ctx.bus_pg() {
        caller.may_act_as(as_author)?;
        pg::messages::delete(pg, as_author, id).await?;
        ctx.changed(Change::Messages);
        return Ok(());
    }
    let (caller, as_author, id) = (caller.clone(), as_author.to_owned(), id.to_owned());
    ctx.store()
        .write_grouped(move |conn| {
            caller.may_act_as(&as_author)?;
            let from: Option<String> = conn
                .query_row(
                    "SELECT from_author FROM bus_messages WHERE id = ?1",
                    [&id],
                    |r| r.get(0),
                )
                .optional()?;
            match from {
                None => Err(AppError::not_found("message", &id)),
                Some(from) if from != as_author => Err(AppError::new(
                    ErrorCode::Forbidden,
                    format!("only its sender ('{from}') may delete message {id}"),
                )),
                Some(_) => {
                    conn.execute("DELETE FROM bus_messages WHERE id = ?1", [&id])?;
                    Ok(())
                }
            }
        })
        .await?;
    ctx.changed(Change::Messages);
    Ok(())
}

/// Urgent mail to people committed after `after_seq` (any process): what
/// the desktop turns into notifications. Returns the messages and the
/// highest seq seen.
pub async fn urgent_for_people_after(ctx: &Ctx, after_seq: i64) -> Result<(Vec<Message>, i64)> {
    if let Some(pg) = ctx.bus_pg() {
        return pg::messages::urgent_for_people_after(pg, after_seq).await;
    }
    ctx.store()
        .read(move |conn| {
            let top: i64 =
                conn.query_row("SELECT coalesce(max(seq), 0) FROM bus_messages", [], |r| {
                    r.get(0)
                })?;
            let mut stmt = conn.prepare_cached(&format!(
                "SELECT {COLUMNS} FROM bus_messages m
                 WHERE m.seq > ?1 AND m.seq <= ?2 AND m.priority = 'urgent' AND m.read_at IS NULL
                   AND EXISTS (SELECT 1 FROM authors a WHERE a.id = m.to_author AND a.kind = ?3)
                 ORDER BY m.seq"
            ))?;
            let rows = stmt.query_map(params![after_seq, top, "user"], from_row)?;
            Ok((rows.collect::<rusqlite::Result<Vec<_>>>()?, top))
        })
        .await
}
