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
//!
//! Here is the id's syntax, checked before any store is asked; each store
//! keeps the ids and answers the replay in the transaction that sends
//! (`store::bus::sqlite::client_ids`, `store::bus::postgres::messages`).

use crate::error::{AppError, Result};

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
