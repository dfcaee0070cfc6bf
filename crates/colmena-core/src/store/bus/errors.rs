//! The bus's refusals that both stores give, worded once: a full inbox,
//! an answer to mail the sender cannot see or that is between other
//! authors, a deletion by someone other than the sender.

use crate::error::{AppError, ErrorCode, Result};

/// What a sender to a full inbox is told to wait, in seconds.
const FULL_INBOX_RETRY_SECONDS: u64 = 60;
/// The longest message id (and `reply_to`) accepted.
pub(crate) const MAX_ID_BYTES: usize = 100;

/// `rate_limited`: `to`'s inbox holds its cap of unread messages.
pub(crate) fn inbox_full(to: &str, cap: u32) -> AppError {
    AppError::new(
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
    }))
}

/// A `reply_to` that could be a message id.
pub(crate) fn check_reply_id(id: &str) -> Result<()> {
    if id.is_empty() || id.len() > MAX_ID_BYTES {
        return Err(AppError::invalid_field(
            "reply_to",
            "invalid_id",
            "reply_to must be the id of a message",
        ));
    }
    Ok(())
}

/// A `reply_to` the sender cannot see, exactly like one that does not exist.
pub(crate) fn no_such_reply(id: &str) -> AppError {
    AppError::new(
        ErrorCode::NotFound,
        format!("there is no message '{id}' in your mail to answer"),
    )
    .with_details(serde_json::json!({
        "field": "reply_to", "reason": "no_such_message", "kind": "message", "id": id,
    }))
}

/// An answer to mail between the sender and someone else than `to`.
pub(crate) fn other_conversation(id: &str, other: &str) -> AppError {
    AppError::invalid_field(
        "reply_to",
        "other_conversation",
        format!("message '{id}' is between you and '{other}': an answer to it goes to '{other}'"),
    )
}

/// `forbidden`: only a message's sender (`from`) may delete it.
pub(crate) fn not_the_sender(from: &str, id: &str) -> AppError {
    AppError::new(
        ErrorCode::Forbidden,
        format!("only its sender ('{from}') may delete message {id}"),
    )
}
