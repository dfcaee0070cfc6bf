//! Wake-ups on the SQLite bus: the schedule, the claim (a compare-and-set
//! on `next_wake_at`, so two schedulers on one data dir never both wake a
//! role), and the columns the role runner keeps on `authors`.

use chrono::{DateTime, Duration, Utc};
use rusqlite::{Connection, OptionalExtension, params};

use super::authors;
use super::settings::read_setting;
use crate::error::Result;
use crate::store::bus::Author;
use crate::store::bus::port::{Scheduled, Setting};
use crate::store::bus::time::{self, parse_stored, stored};

/// When the last wake-up of `role` began, and the interval it must keep.
pub(super) fn last_wake(
    conn: &Connection,
    role: &str,
) -> Result<(Option<DateTime<Utc>>, Duration)> {
    let last: Option<String> = conn
        .query_row(
            "SELECT last_wake_at FROM authors WHERE id = ?1",
            [role],
            |r| r.get(0),
        )
        .optional()?
        .flatten();
    let last = last.as_deref().map(parse_stored).transpose()?;
    let gap = Duration::seconds(i64::from(read_setting(conn, Setting::MinWakeSeconds)?));
    Ok((last, gap))
}

pub(super) fn schedule(conn: &Connection) -> Result<Vec<Scheduled>> {
    let mut stmt = conn.prepare_cached(
        "SELECT id, next_wake_at FROM authors
         WHERE (agent_id IS NOT NULL OR wake_command IS NOT NULL)
           AND wake_interval_minutes IS NOT NULL",
    )?;
    let rows = stmt.query_map([], |r| {
        Ok((r.get::<_, String>(0)?, r.get::<_, Option<String>>(1)?))
    })?;
    rows.collect::<rusqlite::Result<Vec<_>>>()?
        .into_iter()
        .map(|(id, mark)| {
            let due = mark.as_deref().map(parse_stored).transpose()?;
            Ok(Scheduled { id, mark, due })
        })
        .collect()
}

pub(super) fn claim(conn: &Connection, id: &str, mark: Option<&str>) -> Result<Option<Author>> {
    let Some(role) = authors::find(conn, id)? else {
        return Ok(None);
    };
    let Some(minutes) = role.wake_interval_minutes else {
        return Ok(None);
    };
    let now = time::now();
    // Too soon after the last wake-up, whatever made it due: wait for the
    // end of the interval instead.
    let (last, gap) = last_wake(conn, id)?;
    if let Some(last) = last
        && last + gap > now
    {
        conn.execute(
            "UPDATE authors SET next_wake_at = ?3 WHERE id = ?1 AND next_wake_at IS ?2",
            params![id, mark, stored(last + gap)],
        )?;
        return Ok(None);
    }
    let changed = conn.execute(
        "UPDATE authors SET last_wake_at = ?3, next_wake_at = ?4
         WHERE id = ?1 AND next_wake_at IS ?2
           AND (agent_id IS NOT NULL OR wake_command IS NOT NULL)",
        params![
            id,
            mark,
            stored(now),
            stored(now + Duration::minutes(i64::from(minutes)))
        ],
    )?;
    if changed == 0 {
        return Ok(None);
    }
    authors::find(conn, id)
}

pub(super) fn make_due(conn: &Connection, ids: &[String]) -> Result<usize> {
    let now = stored(time::now());
    let mut update = conn.prepare_cached("UPDATE authors SET next_wake_at = ?2 WHERE id = ?1")?;
    let mut changed = 0;
    for id in ids {
        changed += update.execute(params![id, now])?;
    }
    Ok(changed)
}

pub(super) fn defer(conn: &Connection, id: &str, until: DateTime<Utc>) -> Result<()> {
    conn.execute(
        "UPDATE authors SET next_wake_at = ?2 WHERE id = ?1",
        params![id, stored(until)],
    )?;
    Ok(())
}

pub(super) fn record(conn: &Connection, id: &str, failure: Option<&str>) -> Result<()> {
    conn.execute(
        "UPDATE authors SET last_wake_error = ?2 WHERE id = ?1",
        params![id, failure],
    )?;
    Ok(())
}

pub(super) fn issue_token(
    conn: &Connection,
    author: &str,
    hash: &[u8],
    seconds: u32,
) -> Result<()> {
    let now = time::now();
    conn.execute(
        "DELETE FROM author_wake_tokens WHERE expires_at <= ?1",
        [stored(now)],
    )?;
    let expires = now + Duration::seconds(i64::from(seconds));
    conn.execute(
        "INSERT INTO author_wake_tokens (token_hash, author_id, expires_at) VALUES (?1, ?2, ?3)",
        params![hash, author, stored(expires)],
    )?;
    Ok(())
}

pub(super) fn revoke_token(conn: &Connection, hash: &[u8]) -> Result<()> {
    conn.execute(
        "DELETE FROM author_wake_tokens WHERE token_hash = ?1",
        [hash],
    )?;
    Ok(())
}
