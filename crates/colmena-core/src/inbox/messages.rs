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
//! (`wakes::earliest_urgent_wake`): a flood of urgent mail is one model run
//! per interval, not one per message.

use chrono::{DateTime, Utc};
use rusqlite::{Connection, OptionalExtension, params};
use serde::{Deserialize, Serialize};

use super::Caller;
use super::authors;
use super::time::{self, parse_since, parse_stored, stored};
use crate::ctx::{Change, Ctx};
use crate::error::{AppError, ErrorCode, Result};
use crate::store::meta;

/// Longest message body, in bytes.
pub const MAX_BODY_BYTES: usize = 64 * 1024;
/// Unread messages an inbox holds unless the data dir says otherwise.
pub const DEFAULT_MAX_UNREAD: u32 = 10_000;
const META_MAX_UNREAD: &str = "bus_max_unread";
/// What a sender to a full inbox is told to wait, in seconds.
const FULL_INBOX_RETRY_SECONDS: u64 = 60;
/// Messages one read returns unless told otherwise, and at most.
pub const DEFAULT_LIMIT: u32 = 100;
pub const MAX_LIMIT: u32 = 1000;

#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Priority {
    Normal,
    Urgent,
}

impl Priority {
    pub fn as_str(self) -> &'static str {
        match self {
            Priority::Normal => "normal",
            Priority::Urgent => "urgent",
        }
    }

    /// `normal` or `urgent`; anything else is a validation error.
    pub fn parse(text: &str) -> Result<Priority> {
        match text.trim() {
            "normal" => Ok(Priority::Normal),
            "urgent" => Ok(Priority::Urgent),
            other => Err(AppError::invalid_field(
                "priority",
                "invalid_priority",
                format!("priority must be 'normal' or 'urgent', not '{other}'"),
            )),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
pub struct Message {
    pub id: String,
    pub from: String,
    pub to: String,
    pub body: String,
    pub priority: Priority,
    pub created_at: DateTime<Utc>,
    /// `null` while unread.
    pub read_at: Option<DateTime<Utc>>,
}

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

const COLUMNS: &str = "id, from_author, to_author, body, priority, created_at, read_at";

fn from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Message> {
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
    Err(AppError::new(
        ErrorCode::RateLimited,
        format!(
            "'{to}' has {cap} unread messages, as many as an inbox holds; \
             try again once some are read"
        ),
    )
    .with_details(serde_json::json!({
        "field": "to",
        "reason": "inbox_full",
        "retryAfterSeconds": FULL_INBOX_RETRY_SECONDS,
    })))
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
    check_room(conn, to)?;
    let id = uuid::Uuid::now_v7().to_string();
    let at = time::now();
    let now = stored(at);
    // The hottest write there is: prepared once per connection.
    conn.prepare_cached(
        "INSERT INTO bus_messages (id, from_author, to_author, body, priority, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?
    .execute(params![id, from, to, body, priority.as_str(), now])?;
    if priority == Priority::Urgent {
        let wake_at = stored(super::wakes::earliest_urgent_wake(conn, to, at)?);
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
    let (caller, from, to) = (caller.clone(), from.to_owned(), to.to_owned());
    let sent = ctx
        .store()
        .write_grouped(move |conn| {
            authors::require_exists(conn, &from)?;
            caller.may_act_as(&from)?;
            authors::require_exists(conn, &to)?;
            insert(conn, &from, &to, &message.body, priority)
        })
        .await?;
    after_send(ctx, &sent);
    Ok(sent)
}

/// Like [`send`], naming the recipient by id or by name (the model's tools
/// and the seed's `send_message(to_author_name, …)`).
pub async fn send_to_name(
    ctx: &Ctx,
    caller: &Caller,
    from: &str,
    to_name: &str,
    message: SendMessage,
) -> Result<Message> {
    let key = to_name.to_owned();
    let to = ctx
        .store()
        .read(move |conn| authors::find_by_id_or_name(conn, &key))
        .await?
        .ok_or_else(|| {
            AppError::new(
                ErrorCode::NotFound,
                format!("no author is called '{to_name}'"),
            )
        })?;
    send(ctx, caller, from, &to.id, message).await
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
    let (caller, author) = (caller.clone(), author.to_owned());
    let select = move |conn: &Connection| -> Result<Vec<Message>> {
        authors::require_exists(conn, &author)?;
        caller.may_act_as(&author)?;
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

/// Marks some of `author`'s messages read (the desktop inbox, as each is
/// opened). Ids that are not in that inbox are ignored.
pub async fn mark_read(ctx: &Ctx, caller: &Caller, author: &str, ids: Vec<String>) -> Result<u32> {
    let (caller, author) = (caller.clone(), author.to_owned());
    let marked = ctx
        .store()
        .write_grouped(move |conn| {
            authors::require_exists(conn, &author)?;
            caller.may_act_as(&author)?;
            let now = stored(time::now());
            let mut count = 0;
            for id in ids {
                count += conn.execute(
                    "UPDATE bus_messages SET read_at = ?3
                     WHERE id = ?1 AND to_author = ?2 AND read_at IS NULL",
                    params![id, author, now],
                )?;
            }
            Ok(count as u32)
        })
        .await?;
    if marked > 0 {
        ctx.changed(Change::Messages);
    }
    Ok(marked)
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
    let (caller, author) = (caller.clone(), author.to_owned());
    ctx.store()
        .read(move |conn| {
            authors::require_exists(conn, &author)?;
            caller.may_act_as(&author)?;
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
