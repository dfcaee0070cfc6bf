//! Client-id replay (a send retried with the same `message_id` lands
//! once): what a send asks for, as the fingerprint a retry must match, and
//! the refusal when the id was used for other mail. Both stores hold the
//! fingerprint beside the id.

use sha2::{Digest, Sha256};

use super::Priority;
use crate::error::{AppError, ErrorCode};

/// What a send asks for, as the fingerprint a replay must match.
pub(crate) fn fingerprint(
    to: &str,
    priority: Priority,
    reply_to: Option<&str>,
    body: &str,
) -> Vec<u8> {
    let mut hash = Sha256::new();
    for part in [to, priority.as_str(), reply_to.unwrap_or("")] {
        hash.update((part.len() as u64).to_le_bytes());
        hash.update(part.as_bytes());
    }
    hash.update(body.as_bytes());
    hash.finalize().to_vec()
}

/// `client_id` was already used by this sender for other mail (the stored
/// message `message_id`).
pub(crate) fn reused(client_id: &str, message_id: &str) -> AppError {
    AppError::new(
        ErrorCode::Conflict,
        format!(
            "you already sent other mail with message_id '{client_id}': \
             choose a new id for a new message"
        ),
    )
    .with_details(serde_json::json!({
        "field": "message_id", "reason": "message_id_reused", "id": message_id,
    }))
}
