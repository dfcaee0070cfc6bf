//! Messages on the SQLite bus (`bus_messages`, with `bus_unread` kept by
//! triggers): the SQL of each [`crate::store::bus::BusStore`] message
//! operation, each in one transaction of the workspace's store.
//!
//! The send is the hottest write there is: one grouped commit
//! (`Store::write_grouped`), its statements prepared once per connection.

use chrono::{DateTime, Utc};
use rusqlite::{Connection, OptionalExtension, params};

use super::client_ids;
use super::settings::read_setting;
use crate::error::{AppError, Result};
use crate::store::bus::errors::{
    check_reply_id, inbox_full, no_such_reply, not_the_sender, other_conversation,
};
use crate::store::bus::port::{InboxRead, SendRow, Sent, Setting};
use crate::store::bus::time::{self, parse_stored, stored};
use crate::store::bus::{Message, Priority};

pub(super) const COLUMNS: &str =
    "id, from_author, to_author, body, priority, created_at, read_at, reply_to, thread_root";

pub(super) fn from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Message> {
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

fn collect(rows: impl Iterator<Item = rusqlite::Result<Message>>) -> Result<Vec<Message>> {
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

/// Refuses mail to an inbox already holding its cap of unread messages.
fn check_room(conn: &Connection, to: &str) -> Result<()> {
    let cap = read_setting(conn, Setting::MaxUnread)?;
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
struct Answered {
    id: String,
    thread_root: String,
}

/// The message `from` may answer with mail to `to`: one `from` sent or
/// received, whose other author is `to`. One not visible to `from` is
/// refused exactly like one that does not exist.
fn answered(conn: &Connection, from: &str, to: &str, id: &str) -> Result<Answered> {
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

pub(super) fn check_answer(conn: &Connection, from: &str, to: &str, id: &str) -> Result<()> {
    answered(conn, from, to, id).map(drop)
}

/// The soonest an urgent message arriving `now` may wake `role`: now, or
/// the end of the minimum interval after its last wake-up.
fn earliest_urgent_wake(
    conn: &Connection,
    role: &str,
    now: DateTime<Utc>,
) -> Result<DateTime<Utc>> {
    let (last, gap) = super::wakes::last_wake(conn, role)?;
    Ok(last.map_or(now, |last| (last + gap).max(now)))
}

/// Inserts a message in the open transaction, if the recipient's inbox has
/// room, answering `answers`: the answer joins its thread, and the
/// thread's first message is marked as the first of a thread if it was not
/// yet. Urgent mail to a role that is woken moves its next wake-up to now,
/// or to the end of its minimum interval between wake-ups (B6).
fn insert(conn: &Connection, send: &SendRow, answers: Option<&Answered>) -> Result<Message> {
    check_room(conn, &send.to)?;
    let id = uuid::Uuid::now_v7().to_string();
    let at = time::now();
    let now = stored(at);
    let (reply_to, thread_root) = match answers {
        Some(a) => (Some(a.id.as_str()), Some(a.thread_root.as_str())),
        None => (None, None),
    };
    conn.prepare_cached(
        "INSERT INTO bus_messages
             (id, from_author, to_author, body, priority, created_at, reply_to, thread_root)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    )?
    .execute(params![
        id,
        send.from,
        send.to,
        send.body,
        send.priority.as_str(),
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
    if send.priority == Priority::Urgent {
        let wake_at = stored(earliest_urgent_wake(conn, &send.to, at)?);
        conn.execute(
            "UPDATE authors SET next_wake_at = ?2
             WHERE id = ?1 AND (agent_id IS NOT NULL OR wake_command IS NOT NULL)
               AND (next_wake_at IS NULL OR next_wake_at > ?2)",
            params![send.to, wake_at],
        )?;
    }
    Ok(conn
        .prepare_cached(&format!("SELECT {COLUMNS} FROM bus_messages WHERE id = ?1"))?
        .query_row([&id], from_row)?)
}

/// A send in the open transaction (see `BusStore::send`).
pub(super) fn send(conn: &Connection, send: &SendRow) -> Result<Sent> {
    for author in [&send.from, &send.to] {
        if !super::authors::exists(conn, author)? {
            return Ok(Sent::NoAuthor(author.clone()));
        }
    }
    let request = send.message_id.as_deref().map(|client_id| {
        let sha = crate::store::bus::replay::fingerprint(
            &send.to,
            send.priority,
            send.reply_to.as_deref(),
            &send.body,
        );
        (client_id, sha)
    });
    if let Some((client_id, sha)) = &request {
        let rebuild = |id, created_at| Message {
            id,
            from: send.from.clone(),
            to: send.to.clone(),
            body: send.body.clone(),
            priority: send.priority,
            created_at,
            read_at: None,
            reply_to: send.reply_to.clone(),
            thread_root: None,
        };
        if let Some(held) = client_ids::replayed(conn, &send.from, client_id, sha, rebuild)? {
            return Ok(Sent::Message(held, false));
        }
    }
    let answers = send
        .reply_to
        .as_deref()
        .map(|id| answered(conn, &send.from, &send.to, id))
        .transpose()?;
    let sent = insert(conn, send, answers.as_ref())?;
    if let Some((client_id, sha)) = &request {
        client_ids::record(conn, &send.from, client_id, sha, &sent)?;
    }
    Ok(Sent::Message(sent, true))
}

fn select_inbox(conn: &Connection, read: &InboxRead) -> Result<Vec<Message>> {
    // The empty string sorts before every stored time.
    let since = read.since.map(stored).unwrap_or_default();
    let sql = if read.unread_only {
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
    collect(stmt.query_map(params![read.author, since, read.limit], from_row)?)
}

/// An inbox looked at without marking it read.
pub(super) fn peek_inbox(conn: &Connection, read: &InboxRead) -> Result<Vec<Message>> {
    select_inbox(conn, read)
}

/// An inbox read, marked read in the same transaction.
pub(super) fn read_inbox(conn: &Connection, read: &InboxRead) -> Result<Vec<Message>> {
    let mut messages = select_inbox(conn, read)?;
    let now = time::now();
    let mut mark = conn
        .prepare_cached("UPDATE bus_messages SET read_at = ?2 WHERE id = ?1 AND read_at IS NULL")?;
    for message in messages.iter_mut().filter(|m| m.read_at.is_none()) {
        mark.execute(params![message.id, stored(now)])?;
        message.read_at = Some(now);
    }
    Ok(messages)
}

pub(super) fn set_read(conn: &Connection, author: &str, ids: &[String], read: bool) -> Result<u32> {
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
}

pub(super) fn thread(conn: &Connection, me: &str, id: &str, limit: u32) -> Result<Vec<Message>> {
    let seen: Option<Message> = conn
        .prepare_cached(&format!(
            "SELECT {COLUMNS} FROM bus_messages
             WHERE id = ?1 AND (from_author = ?2 OR to_author = ?2)"
        ))?
        .query_row(params![id, me], from_row)
        .optional()?;
    let Some(message) = seen else {
        return Err(AppError::not_found("message", id));
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
    collect(stmt.query_map(params![root, me, limit], from_row)?)
}

pub(super) fn conversation(
    conn: &Connection,
    me: &str,
    with: &str,
    before: Option<&str>,
    limit: u32,
) -> Result<Vec<Message>> {
    // Before everything unless told otherwise: no stored time sorts after
    // this one.
    let (before_at, before_seq) = match before {
        None => ("~".to_owned(), i64::MAX),
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
    // One range scan of the pair index per direction (one when an author
    // writes to itself).
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
    collect(stmt.query_map(params![me, with, before_at, before_seq, limit], from_row)?)
}

pub(super) fn sent(
    conn: &Connection,
    author: &str,
    since: Option<DateTime<Utc>>,
    limit: u32,
) -> Result<Vec<Message>> {
    let since = since.map(stored).unwrap_or_default();
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM bus_messages
         WHERE from_author = ?1 AND created_at > ?2
         ORDER BY created_at, seq LIMIT ?3"
    ))?;
    collect(stmt.query_map(params![author, since, limit], from_row)?)
}

pub(super) fn delete(conn: &Connection, as_author: &str, id: &str) -> Result<()> {
    let from: Option<String> = conn
        .query_row(
            "SELECT from_author FROM bus_messages WHERE id = ?1",
            [id],
            |r| r.get(0),
        )
        .optional()?;
    match from {
        None => Err(AppError::not_found("message", id)),
        Some(from) if from != as_author => Err(not_the_sender(&from, id)),
        Some(_) => {
            conn.execute("DELETE FROM bus_messages WHERE id = ?1", [id])?;
            Ok(())
        }
    }
}

pub(super) fn urgent_for_people_after(
    conn: &Connection,
    after_seq: i64,
) -> Result<(Vec<Message>, i64)> {
    let top: i64 = conn.query_row("SELECT coalesce(max(seq), 0) FROM bus_messages", [], |r| {
        r.get(0)
    })?;
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM bus_messages m
         WHERE m.seq > ?1 AND m.seq <= ?2 AND m.priority = 'urgent' AND m.read_at IS NULL
           AND EXISTS (SELECT 1 FROM authors a WHERE a.id = m.to_author AND a.kind = ?3)
         ORDER BY m.seq"
    ))?;
    let rows = collect(stmt.query_map(params![after_seq, top, "user"], from_row)?)?;
    Ok((rows, top))
}

/// Of the index's hits (best first), the messages `author` sent or
/// received, `limit` at most: the store has the last word.
pub(super) fn read_hits(
    conn: &Connection,
    author: &str,
    ids: Vec<String>,
    limit: usize,
) -> Result<Vec<Message>> {
    let mut check = conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM bus_messages
         WHERE id = ?1 AND (from_author = ?2 OR to_author = ?2)"
    ))?;
    let mut found = Vec::with_capacity(limit);
    for id in ids {
        if let Some(message) = check.query_row(params![id, author], from_row).optional()? {
            found.push(message);
            if found.len() == limit {
                break;
            }
        }
    }
    Ok(found)
}

pub(super) fn sent_since(
    conn: &Connection,
    author: &str,
    started: DateTime<Utc>,
) -> Result<Vec<String>> {
    let mut stmt = conn.prepare_cached(
        "SELECT id FROM bus_messages WHERE from_author = ?1 AND created_at >= ?2
         ORDER BY created_at, seq LIMIT 1000",
    )?;
    let rows = stmt.query_map(params![author, stored(started)], |r| r.get(0))?;
    Ok(rows.collect::<rusqlite::Result<Vec<String>>>()?)
}
