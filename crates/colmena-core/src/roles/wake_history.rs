//! A role's wake history (issue 15): every wake-up that had mail to handle
//! leaves one entry — when it began and ended, which messages it was handed,
//! what the role sent meanwhile, the tokens its agent used or the exit and
//! output of its wake command, and why it failed. A role's page shows it,
//! so a person can see what a role did while nobody watched.
//!
//! An entry is opened before the work starts and closed after it, so a
//! wake-up cut off by a crash still shows (without an end). What a role
//! "sent" is what it sent between the two: the bus records the sender and
//! the time of every message, so nothing has to report it.

use chrono::{DateTime, Utc};
use rusqlite::{OptionalExtension, params};
use serde::{Deserialize, Serialize};

use crate::ctx::{Change, Ctx};
use crate::error::Result;
use crate::inbox::Caller;
use crate::store::bus::time::{self, parse_stored, stored};

/// Entries kept per role; older ones are dropped as new ones close.
pub const KEPT_PER_ROLE: u32 = 500;
/// Most entries one listing returns.
pub const MAX_LIST: u32 = 200;
/// Longest command output kept, in bytes (the end is kept: it says how it
/// finished).
pub const MAX_OUTPUT_BYTES: usize = 64 * 1024;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum WakeKind {
    /// The role's agent ran in Colmena.
    Agent,
    /// The role's wake command ran (a session outside Colmena).
    Command,
}

impl WakeKind {
    fn as_str(self) -> &'static str {
        match self {
            WakeKind::Agent => "agent",
            WakeKind::Command => "command",
        }
    }
}

/// One wake-up of a role.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct WakeRecord {
    pub id: i64,
    pub author_id: String,
    pub kind: WakeKind,
    pub started_at: DateTime<Utc>,
    /// `None` while it runs, or when it was cut off.
    pub finished_at: Option<DateTime<Utc>>,
    /// The agent's run (agent wake-ups).
    pub run_id: Option<String>,
    /// The messages it was handed.
    pub message_ids: Vec<String>,
    /// The messages the role sent while it was awake.
    pub sent_ids: Vec<String>,
    pub input_tokens: Option<u32>,
    pub output_tokens: Option<u32>,
    /// A wake command's exit status (`None`: killed, or not a command).
    pub exit_code: Option<i32>,
    pub timed_out: bool,
    /// A wake command's stdout and stderr (the last 64 KiB).
    pub output: Option<String>,
    /// The agent's final answer.
    pub summary: Option<String>,
    pub error: Option<String>,
}

/// How a wake-up ended.
#[derive(Debug, Clone, Default)]
pub(crate) struct WakeEnd {
    pub run_id: Option<String>,
    pub input_tokens: Option<u32>,
    pub output_tokens: Option<u32>,
    pub exit_code: Option<i32>,
    pub timed_out: bool,
    pub output: Option<String>,
    pub summary: Option<String>,
    pub error: Option<String>,
}

/// Opens an entry for a wake-up of `author` handed `message_ids`.
pub(crate) async fn begin(
    ctx: &Ctx,
    author: &str,
    kind: WakeKind,
    message_ids: &[String],
) -> Result<i64> {
    let (author, ids) = (
        author.to_owned(),
        serde_json::to_string(message_ids).unwrap_or_else(|_| "[]".into()),
    );
    let id = ctx
        .store()
        .write(move |tx| {
            tx.execute(
                "INSERT INTO role_wake_history (author_id, kind, started_at, message_ids)
                 VALUES (?1, ?2, ?3, ?4)",
                params![author, kind.as_str(), stored(time::now()), ids],
            )?;
            Ok(tx.last_insert_rowid())
        })
        .await?;
    ctx.changed(Change::Authors);
    Ok(id)
}

/// When each of `author`'s wake-ups since `since` began (the wake-up
/// budget counts them).
pub(crate) async fn started_since(
    ctx: &Ctx,
    author: &str,
    since: DateTime<Utc>,
) -> Result<Vec<DateTime<Utc>>> {
    let (author, since) = (author.to_owned(), stored(since));
    ctx.store()
        .read(move |conn| {
            let mut stmt = conn.prepare_cached(
                "SELECT started_at FROM role_wake_history WHERE author_id = ?1 AND started_at > ?2",
            )?;
            let rows = stmt.query_map(params![author, since], |r| r.get::<_, String>(0))?;
            rows.map(|t| Ok(parse_stored(&t?)?))
                .collect::<Result<Vec<_>>>()
        })
        .await
}

/// Closes entry `id`: what it ended with, and what the role sent since it
/// began. Keeps the role's newest [`KEPT_PER_ROLE`] entries.
pub(crate) async fn finish(ctx: &Ctx, id: i64, end: WakeEnd) -> Result<()> {
    let output = end.output.as_deref().map(tail);
    // What the role sent meanwhile is the bus's (wherever it lives): read
    // there first, then written here.
    let began: Option<(String, String)> = ctx
        .store()
        .read(move |conn| {
            Ok(conn
                .query_row(
                    "SELECT author_id, started_at FROM role_wake_history WHERE id = ?1",
                    [id],
                    |r| Ok((r.get(0)?, r.get(1)?)),
                )
                .optional()?)
        })
        .await?;
    let sent = match began {
        Some((author, started)) => {
            ctx.bus()
                .sent_since(&author, time::parse_stored(&started)?)
                .await?
        }
        None => Vec::new(),
    };
    ctx.store()
        .write(move |tx| {
            let Some(author): Option<String> = tx
                .query_row(
                    "SELECT author_id FROM role_wake_history WHERE id = ?1",
                    [id],
                    |r| r.get(0),
                )
                .optional()?
            else {
                return Ok(());
            };
            tx.execute(
                "UPDATE role_wake_history SET finished_at = ?2, run_id = ?3, sent_ids = ?4,
                        input_tokens = ?5, output_tokens = ?6, exit_code = ?7, timed_out = ?8,
                        output = ?9, summary = ?10, error = ?11
                 WHERE id = ?1",
                params![
                    id,
                    stored(time::now()),
                    end.run_id,
                    serde_json::to_string(&sent).unwrap_or_else(|_| "[]".into()),
                    end.input_tokens,
                    end.output_tokens,
                    end.exit_code,
                    end.timed_out,
                    output,
                    end.summary,
                    end.error,
                ],
            )?;
            tx.execute(
                "DELETE FROM role_wake_history WHERE author_id = ?1 AND id <= (
                     SELECT id FROM role_wake_history WHERE author_id = ?1
                     ORDER BY id DESC LIMIT 1 OFFSET ?2)",
                params![author, KEPT_PER_ROLE],
            )?;
            Ok(())
        })
        .await?;
    ctx.changed(Change::Authors);
    Ok(())
}

/// The last [`MAX_OUTPUT_BYTES`] of `text`, cut at a character boundary.
fn tail(text: &str) -> String {
    if text.len() <= MAX_OUTPUT_BYTES {
        return text.to_owned();
    }
    let mut start = text.len() - MAX_OUTPUT_BYTES;
    while !text.is_char_boundary(start) {
        start += 1;
    }
    format!("…{}", &text[start..])
}

/// The wake history of `author`, newest first (`before`: entries older
/// than that id, for paging). A token door sees only its own author's.
pub async fn list(
    ctx: &Ctx,
    caller: &Caller,
    author: &str,
    before: Option<i64>,
    limit: Option<u32>,
) -> Result<Vec<WakeRecord>> {
    caller.may_act_as(author)?;
    let author = author.to_owned();
    let limit = limit.unwrap_or(50).clamp(1, MAX_LIST);
    crate::inbox::authors::must_exist(ctx, &author).await?;
    ctx.store()
        .read(move |conn| {
            let mut stmt = conn.prepare_cached(
                "SELECT id, author_id, kind, started_at, finished_at, run_id, message_ids,
                        sent_ids, input_tokens, output_tokens, exit_code, timed_out, output,
                        summary, error
                 FROM role_wake_history WHERE author_id = ?1 AND id < ?2
                 ORDER BY id DESC LIMIT ?3",
            )?;
            let rows =
                stmt.query_map(params![author, before.unwrap_or(i64::MAX), limit], from_row)?;
            Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
        })
        .await
}

fn from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<WakeRecord> {
    let ids = |i: usize| -> rusqlite::Result<Vec<String>> {
        Ok(serde_json::from_str(&r.get::<_, String>(i)?).unwrap_or_default())
    };
    Ok(WakeRecord {
        id: r.get(0)?,
        author_id: r.get(1)?,
        kind: if r.get::<_, String>(2)? == "command" {
            WakeKind::Command
        } else {
            WakeKind::Agent
        },
        started_at: parse_stored(&r.get::<_, String>(3)?)?,
        finished_at: r
            .get::<_, Option<String>>(4)?
            .map(|t| parse_stored(&t))
            .transpose()?,
        run_id: r.get(5)?,
        message_ids: ids(6)?,
        sent_ids: ids(7)?,
        input_tokens: r.get(8)?,
        output_tokens: r.get(9)?,
        exit_code: r.get(10)?,
        timed_out: r.get(11)?,
        output: r.get(12)?,
        summary: r.get(13)?,
        error: r.get(14)?,
    })
}
