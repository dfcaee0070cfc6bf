//! Messages on PostgreSQL: the SQL of `inbox::messages`, `client_ids` and
//! `search` for the shared store. Who may act as whom, and what a valid
//! body, limit or id is, was decided by `inbox::messages` before these run.
//!
//! A send is one transaction: the recipient's unread row is locked for the
//! cap check (two replicas cannot both squeeze the last message into a
//! full inbox), the sender's message id is held by a transaction-level
//! advisory lock (eight retries of one id through two replicas store one
//! message and all get its receipt), and urgent mail's `pg_notify` is
//! delivered only if the message commits.

use chrono::{DateTime, Utc};
use tokio_postgres::Row;
use tokio_postgres::types::ToSql;

use super::{PgBus, uint};
use crate::error::{AppError, Result};
use crate::store::bus::errors::not_the_sender;
use crate::store::bus::port::SendRow;
use crate::store::bus::{Message, Priority};

const COLUMNS: &str =
    "id, from_author, to_author, body, priority, created_at, read_at, reply_to, thread_root";

fn from_row(r: &Row) -> Message {
    let priority: String = r.get(4);
    Message {
        id: r.get(0),
        from: r.get(1),
        to: r.get(2),
        body: r.get(3),
        priority: if priority == "urgent" {
            Priority::Urgent
        } else {
            Priority::Normal
        },
        created_at: r.get(5),
        read_at: r.get(6),
        reply_to: r.get(7),
        thread_root: r.get(8),
    }
}

/// Later than any message (PostgreSQL's range ends before chrono's).
fn far_future() -> DateTime<Utc> {
    DateTime::from_timestamp(253_402_214_400, 0).unwrap_or(DateTime::<Utc>::UNIX_EPOCH)
}

fn from_rows(rows: &[Row]) -> Vec<Message> {
    rows.iter().map(from_row).collect()
}

/// Sends; answers the message and whether it is new (false: a retry of a
/// message id already delivered).
pub(crate) async fn send(
    bus: &PgBus,
    max_unread: u32,
    min_wake: u32,
    s: &SendRow,
) -> Result<(Message, bool)> {
    let mut client = bus.client().await?;
    let tx = client.transaction().await?;
    let request = s.message_id.as_deref().map(|id| {
        (
            id,
            crate::store::bus::replay::fingerprint(
                &s.to,
                s.priority,
                s.reply_to.as_deref(),
                &s.body,
            ),
        )
    });
    if let Some((client_id, sha)) = &request {
        tx.execute(
            "SELECT pg_advisory_xact_lock(hashtextextended($1 || ':' || $2, 17))",
            &[&s.from, client_id],
        )
        .await?;
        let known = tx
            .query_opt(
                "SELECT message_id, request_sha256, created_at FROM client_ids
                 WHERE from_author = $1 AND client_id = $2",
                &[&s.from, client_id],
            )
            .await?;
        if let Some(row) = known {
            let (message_id, stored_sha, created_at): (String, Vec<u8>, DateTime<Utc>) =
                (row.get(0), row.get(1), row.get(2));
            if &stored_sha != sha {
                return Err(crate::store::bus::replay::reused(client_id, &message_id));
            }
            let held = tx
                .query_opt(
                    &format!("SELECT {COLUMNS} FROM messages WHERE id = $1"),
                    &[&message_id],
                )
                .await?;
            let message = held.map_or_else(
                || Message {
                    id: message_id.clone(),
                    from: s.from.clone(),
                    to: s.to.clone(),
                    body: s.body.clone(),
                    priority: s.priority,
                    created_at,
                    read_at: None,
                    reply_to: s.reply_to.clone(),
                    thread_root: None,
                },
                |r| from_row(&r),
            );
            return Ok((message, false));
        }
    }
    let thread_root = match s.reply_to.as_deref() {
        Some(id) => Some(answered(&tx, &s.from, &s.to, id).await?),
        None => None,
    };
    let unread: Option<i32> = tx
        .query_opt(
            "SELECT n FROM unread WHERE author_id = $1 FOR UPDATE",
            &[&s.to],
        )
        .await?
        .map(|r| r.get(0));
    if uint(unread.unwrap_or(0)) >= max_unread {
        return Err(crate::store::bus::errors::inbox_full(&s.to, max_unread));
    }
    let id = uuid::Uuid::now_v7().to_string();
    let insert = tx
        .prepare_cached(&format!(
            "INSERT INTO messages (id, from_author, to_author, body, priority, created_at,
                                   reply_to, thread_root, words)
             VALUES ($1, $2, $3, $4, $5, date_trunc('microseconds', clock_timestamp()), $6, $7,
                     to_tsvector('simple', $8))
             RETURNING {COLUMNS}"
        ))
        .await?;
    let row = tx
        .query_one(
            &insert,
            &[
                &id,
                &s.from,
                &s.to,
                &s.body,
                &s.priority.as_str(),
                &s.reply_to.as_deref().map(str::trim),
                &thread_root,
                &crate::search::fold_words(&s.body),
            ],
        )
        .await?;
    let sent = from_row(&row);
    if let Some(root) = &thread_root {
        tx.execute(
            "UPDATE messages SET thread_root = $1 WHERE id = $1 AND thread_root IS NULL",
            &[root],
        )
        .await?;
    }
    if s.priority == Priority::Urgent {
        // No sooner than the minimum interval after its last wake-up (B6).
        let woken = tx
            .execute(
                "UPDATE authors SET next_wake_at = greatest($2, last_wake_at + make_interval(secs => $3))
                 WHERE id = $1 AND (agent_id IS NOT NULL OR wake_command IS NOT NULL)
                   AND (next_wake_at IS NULL
                        OR next_wake_at > greatest($2, last_wake_at + make_interval(secs => $3)))",
                &[&s.to, &sent.created_at, &f64::from(min_wake)],
            )
            .await?;
        if woken > 0 {
            tx.execute("SELECT pg_notify($1, $2)", &[&bus.channel(), &s.to])
                .await?;
        }
    }
    if let Some((client_id, sha)) = &request {
        tx.execute(
            "INSERT INTO client_ids (from_author, client_id, message_id, request_sha256, created_at)
             VALUES ($1, $2, $3, $4, $5)",
            &[&s.from, client_id, &sent.id, sha, &sent.created_at],
        )
        .await?;
    }
    tx.commit().await?;
    Ok((sent, true))
}

/// Whether `from` may answer message `id` with mail to `to` (as [`send`]
/// checks it), without sending: how a send to a recipient that is gone is
/// refused like any answer outside its conversation, unless it is one.
pub(crate) async fn check_answer(bus: &PgBus, from: &str, to: &str, id: &str) -> Result<()> {
    let mut client = bus.client().await?;
    let tx = client.transaction().await?;
    answered(&tx, from, to, id).await.map(|_| ())
}

/// The thread an answer joins: `from` may answer only a message it sent or
/// received whose other author is `to` (`inbox::messages::answered`).
async fn answered(
    tx: &deadpool_postgres::Transaction<'_>,
    from: &str,
    to: &str,
    id: &str,
) -> Result<String> {
    let id = id.trim();
    crate::store::bus::errors::check_reply_id(id)?;
    let row = tx
        .query_opt(
            // Locked now, before the recipient's unread row: an inbox read
            // locks its messages and then that row, so the same order here
            // keeps a reply and a read from deadlocking.
            "SELECT from_author, to_author, thread_root FROM messages WHERE id = $1
             FOR NO KEY UPDATE",
            &[&id],
        )
        .await?;
    let (sender, recipient, root): (String, String, Option<String>) = match row {
        Some(r) => (r.get(0), r.get(1), r.get(2)),
        None => return Err(crate::store::bus::errors::no_such_reply(id)),
    };
    if sender != from && recipient != from {
        return Err(crate::store::bus::errors::no_such_reply(id));
    }
    let other = if sender == from { recipient } else { sender };
    if other != to {
        return Err(crate::store::bus::errors::other_conversation(id, &other));
    }
    Ok(root.unwrap_or_else(|| id.to_owned()))
}

/// `author`'s inbox, oldest first; unless `peek`, marked read in the same
/// transaction that selects it.
pub(crate) async fn inbox(
    bus: &PgBus,
    author: &str,
    since: Option<DateTime<Utc>>,
    unread_only: bool,
    peek: bool,
    limit: u32,
) -> Result<Vec<Message>> {
    let since = since.unwrap_or(DateTime::<Utc>::UNIX_EPOCH);
    let filter = if unread_only {
        "AND read_at IS NULL"
    } else {
        ""
    };
    let select = format!(
        "SELECT {COLUMNS} FROM messages WHERE to_author = $1 {filter} AND created_at > $2
         ORDER BY created_at, seq LIMIT $3"
    );
    let params: [&(dyn ToSql + Sync); 3] = [&author, &since, &i64::from(limit)];
    if peek {
        let client = bus.client().await?;
        let stmt = client.prepare_cached(&select).await?;
        return Ok(from_rows(&client.query(&stmt, &params).await?));
    }
    let mut client = bus.client().await?;
    let tx = client.transaction().await?;
    let stmt = tx.prepare_cached(&format!("{select} FOR UPDATE")).await?;
    let mut messages = from_rows(&tx.query(&stmt, &params).await?);
    let unread: Vec<String> = messages
        .iter()
        .filter(|m| m.read_at.is_none())
        .map(|m| m.id.clone())
        .collect();
    if !unread.is_empty() {
        let now = crate::store::bus::time::now();
        tx.execute(
            "UPDATE messages SET read_at = $2 WHERE id = ANY($1) AND read_at IS NULL",
            &[&unread, &now],
        )
        .await?;
        for m in messages.iter_mut().filter(|m| m.read_at.is_none()) {
            m.read_at = Some(now);
        }
    }
    tx.commit().await?;
    Ok(messages)
}

/// Sets (`read`) or clears `read_at` on those of `ids` in `author`'s inbox
/// not that way already; answers how many changed.
pub(crate) async fn set_read(bus: &PgBus, author: &str, ids: &[String], read: bool) -> Result<u32> {
    let client = bus.client().await?;
    let changed = if read {
        client
            .execute(
                "UPDATE messages SET read_at = $3
                 WHERE id = ANY($1) AND to_author = $2 AND read_at IS NULL",
                &[&ids, &author, &crate::store::bus::time::now()],
            )
            .await?
    } else {
        client
            .execute(
                "UPDATE messages SET read_at = NULL
                 WHERE id = ANY($1) AND to_author = $2 AND read_at IS NOT NULL",
                &[&ids, &author],
            )
            .await?
    };
    Ok(u32::try_from(changed).unwrap_or(u32::MAX))
}

/// The thread `id` is in, as `me` sees it (its latest `limit`, oldest first).
pub(crate) async fn thread(bus: &PgBus, me: &str, id: &str, limit: u32) -> Result<Vec<Message>> {
    if id.contains('\0') {
        return Err(AppError::not_found("message", id));
    }
    let client = bus.client().await?;
    let seen = client
        .query_opt(
            &format!(
                "SELECT {COLUMNS} FROM messages WHERE id = $1 AND (from_author = $2 OR to_author = $2)"
            ),
            &[&id, &me],
        )
        .await?
        .map(|r| from_row(&r));
    let Some(message) = seen else {
        return Err(AppError::not_found("message", id));
    };
    let Some(root) = message.thread_root.clone() else {
        return Ok(vec![message]);
    };
    let rows = client
        .query(
            &format!(
                "SELECT {COLUMNS} FROM (
                     SELECT seq, {COLUMNS} FROM messages
                     WHERE thread_root = $1 AND (from_author = $2 OR to_author = $2)
                     ORDER BY created_at DESC, seq DESC LIMIT $3
                 ) t ORDER BY created_at, seq"
            ),
            &[&root, &me, &i64::from(limit)],
        )
        .await?;
    Ok(from_rows(&rows))
}

/// The conversation between `me` and `with`, newest first, before the
/// message `before` (an id of theirs).
pub(crate) async fn conversation(
    bus: &PgBus,
    me: &str,
    with: &str,
    before: Option<&str>,
    limit: u32,
) -> Result<Vec<Message>> {
    let client = bus.client().await?;
    let (before_at, before_seq): (DateTime<Utc>, i64) = match before {
        None => (far_future(), i64::MAX),
        Some(id) => {
            let row = client
                .query_opt(
                    "SELECT created_at, seq FROM messages WHERE id = $1
                       AND ((from_author = $2 AND to_author = $3)
                         OR (from_author = $3 AND to_author = $2))",
                    &[&id, &me, &with],
                )
                .await?
                .ok_or_else(|| {
                    AppError::not_found("message", id).with_details(serde_json::json!({
                        "field": "before", "reason": "no_such_message", "kind": "message", "id": id,
                    }))
                })?;
            (row.get(0), row.get(1))
        }
    };
    let rows = client
        .query(
            &format!(
                "SELECT {COLUMNS} FROM messages
                 WHERE ((from_author = $1 AND to_author = $2) OR (from_author = $2 AND to_author = $1))
                   AND (created_at < $3 OR (created_at = $3 AND seq < $4))
                 ORDER BY created_at DESC, seq DESC LIMIT $5"
            ),
            &[&me, &with, &before_at, &before_seq, &i64::from(limit)],
        )
        .await?;
    Ok(from_rows(&rows))
}

/// What `author` sent after `since`, oldest first.
pub(crate) async fn sent(
    bus: &PgBus,
    author: &str,
    since: Option<DateTime<Utc>>,
    limit: u32,
) -> Result<Vec<Message>> {
    let client = bus.client().await?;
    let stmt = client
        .prepare_cached(&format!(
            "SELECT {COLUMNS} FROM messages WHERE from_author = $1 AND created_at > $2
             ORDER BY created_at, seq LIMIT $3"
        ))
        .await?;
    let rows = client
        .query(
            &stmt,
            &[
                &author,
                &since.unwrap_or(DateTime::<Utc>::UNIX_EPOCH),
                &i64::from(limit),
            ],
        )
        .await?;
    Ok(from_rows(&rows))
}

/// Deletes message `id` if `as_author` sent it.
pub(crate) async fn delete(bus: &PgBus, as_author: &str, id: &str) -> Result<()> {
    if id.contains('\0') {
        return Err(AppError::not_found("message", id));
    }
    let mut client = bus.client().await?;
    let tx = client.transaction().await?;
    let from: Option<String> = tx
        .query_opt(
            "SELECT from_author FROM messages WHERE id = $1 FOR UPDATE",
            &[&id],
        )
        .await?
        .map(|r| r.get(0));
    match from {
        None => Err(AppError::not_found("message", id)),
        Some(from) if from != as_author => Err(not_the_sender(&from, id)),
        Some(_) => {
            tx.execute("DELETE FROM messages WHERE id = $1", &[&id])
                .await?;
            tx.commit().await?;
            Ok(())
        }
    }
}

/// Urgent unread mail to people after `after_seq`, and the highest seq.
pub(crate) async fn urgent_for_people_after(
    bus: &PgBus,
    after_seq: i64,
) -> Result<(Vec<Message>, i64)> {
    let client = bus.client().await?;
    let top: i64 = client
        .query_one("SELECT coalesce(max(seq), 0) FROM messages", &[])
        .await?
        .get(0);
    let rows = client
        .query(
            &format!(
                "SELECT {} FROM messages m
                 WHERE m.seq > $1 AND m.seq <= $2 AND m.priority = 'urgent' AND m.read_at IS NULL
                   AND EXISTS (SELECT 1 FROM authors a WHERE a.id = m.to_author AND a.kind = 'user')
                 ORDER BY m.seq",
                COLUMNS
                    .split(", ")
                    .map(|c| format!("m.{c}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            &[&after_seq, &top],
        )
        .await?;
    Ok((from_rows(&rows), top))
}

/// Full-text search over what `author` sent or received: every word of
/// `text` (the `simple` configuration: lowercased, not stemmed), best match
/// first, then newest. What the person typed is data: `websearch_to_tsquery`
/// reads any text without a syntax error.
pub(crate) async fn search(
    bus: &PgBus,
    author: &str,
    text: &str,
    limit: u32,
) -> Result<Vec<Message>> {
    let client = bus.client().await?;
    let rows = client
        .query(
            &format!(
                "SELECT {COLUMNS} FROM messages, websearch_to_tsquery('simple', $2) q
                 WHERE (from_author = $1 OR to_author = $1) AND words @@ q
                 ORDER BY ts_rank(words, q) DESC, created_at DESC, seq DESC LIMIT $3"
            ),
            &[&author, &crate::search::fold_words(text), &i64::from(limit)],
        )
        .await?;
    Ok(from_rows(&rows))
}

/// Ids of what `author` sent from `started` on (a wake-up's answers).
pub(crate) async fn sent_since(
    bus: &PgBus,
    author: &str,
    started: DateTime<Utc>,
) -> Result<Vec<String>> {
    let client = bus.client().await?;
    let rows = client
        .query(
            "SELECT id FROM messages WHERE from_author = $1 AND created_at >= $2 ORDER BY seq",
            &[&author, &started],
        )
        .await?;
    Ok(rows.iter().map(|r| r.get(0)).collect())
}
