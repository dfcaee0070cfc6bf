//! A sender's own id for a message (issue 17): at most once on a bus that
//! clients reach over a network.
//!
//! A client that sent a message and never saw the answer — the link was
//! cut, the server restarted, a desktop's outbox is replaying — cannot know
//! whether the bus kept it. It sends again with the same `message_id` it
//! chose the first time, and the bus answers with the message it already
//! holds instead of delivering a second copy. The field is optional on
//! every door (REST, MCP): clients that never send it see the bus exactly as
//! before.
//!
//! Safe by default: ids are scoped to the sender (the table's key is
//! `(from_author, client_id)`), so an id another author used tells a token
//! nothing and cannot be used to reach its mail; the same id for different
//! mail (recipient, priority, answer or body) is refused with `conflict`
//! rather than silently answered with the first message; and the record
//! outlives the message, so a retry that arrives after the recipient
//! deleted it does not deliver it again.

use rusqlite::{Connection, OptionalExtension, params};

use super::messages::{COLUMNS, Message, from_row};
use crate::error::{AppError, Result};
use crate::store::bus::replay::reused;
use crate::store::bus::time::{parse_stored, stored};

/// Longest client id, in bytes.
pub const MAX_CLIENT_ID_BYTES: usize = 100;

/// Checks a client-chosen id: 1 to 100 of `A–Z a–z 0–9 . _ : -` (a UUID,
/// a ULID, `outbox-42`…).
pub fn check(id: &str) -> Result<()> {
    let fine = !id.is_empty()
        && id.len() <= MAX_CLIENT_ID_BYTES
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b':' | b'-'));
    if fine {
        return Ok(());
    }
    Err(AppError::invalid_field(
        "message_id",
        "invalid_id",
        format!(
            "message_id must be 1 to {MAX_CLIENT_ID_BYTES} letters, digits, '.', '_', ':' or '-' \
             (a UUID is a good choice)"
        ),
    ))
}

/// The message `from` already sent under `client_id`, if any, in the open
/// transaction. The same id for other mail is a `conflict`. When the
/// message was deleted since, it is rebuilt from the request (which matched
/// it), unread.
pub(crate) fn replayed(
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
pub(crate) fn record(
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
