//! A sender's own message ids on the SQLite bus (`bus_client_ids`): the
//! replay `send` answers with, in the transaction that sends. The rule and
//! its syntax are `inbox::client_ids`'s; the fingerprint both stores compare
//! is `store::bus::replay`'s.

use rusqlite::{Connection, OptionalExtension, params};

use super::messages::{COLUMNS, from_row};
use crate::error::Result;
use crate::store::bus::Message;
use crate::store::bus::replay::reused;
use crate::store::bus::time::{parse_stored, stored};

/// The message `from` already sent under `client_id`, if any, in the open
/// transaction. The same id for other mail is a `conflict`. When the
/// message was deleted since, it is rebuilt from the request (which matched
/// it), unread.
pub(super) fn replayed(
    conn: &Connection,
    from: &str,
    client_id: &str,
    request: &[u8],
    rebuild: impl FnOnce(String, chrono::DateTime<chrono::Utc>) -> Message,
) -> Result<Option<Message>> {
    let known: Option<(String, Vec<u8>, String)> = conn
        .prepare_cached(
            "SELECT message_id, request_sha256, created_at FROM bus_client_ids
             WHERE from_author = ?1 AND client_id = ?2",
        )?
        .query_row([from, client_id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .optional()?;
    let Some((message_id, sha, created_at)) = known else {
        return Ok(None);
    };
    if sha != request {
        return Err(reused(client_id, &message_id));
    }
    let held = conn
        .prepare_cached(&format!("SELECT {COLUMNS} FROM bus_messages WHERE id = ?1"))?
        .query_row([&message_id], from_row)
        .optional()?;
    match held {
        Some(message) => Ok(Some(message)),
        None => Ok(Some(rebuild(message_id, parse_stored(&created_at)?))),
    }
}

/// Records that `from` sent `message` under `client_id`, in the transaction
/// that inserted it.
pub(super) fn record(
    conn: &Connection,
    from: &str,
    client_id: &str,
    request: &[u8],
    message: &Message,
) -> Result<()> {
    conn.prepare_cached(
        "INSERT INTO bus_client_ids (from_author, client_id, message_id, request_sha256, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5)",
    )?
    .execute(params![
        from,
        client_id,
        message.id,
        request,
        stored(message.created_at)
    ])?;
    Ok(())
}
