//! Searching the bus's messages, per author (issue 15, item 4): the query
//! and the limit checked, the caller's right to the author's mail, then
//! the store's own search (`store::bus::sqlite::search_index`, tantivy, on
//! this workspace's bus; PostgreSQL's text search on a shared one). A
//! token client searches only its own author's mail.

use super::messages::Message;
use super::{Caller, authors};
use crate::ctx::Ctx;
use crate::error::{AppError, Result};

pub use crate::store::bus::sqlite::search_index::INDEX_DIR;

/// Hits one search returns unless told otherwise, and at most.
pub const DEFAULT_LIMIT: u32 = 20;
pub const MAX_LIMIT: u32 = 100;
/// Longest query, in bytes.
pub const MAX_QUERY_BYTES: usize = 1000;

fn check_query(query: &str) -> Result<String> {
    let text = query.trim();
    if text.is_empty() {
        return Err(AppError::invalid_field(
            "query",
            "required",
            "say what to search for",
        ));
    }
    if text.len() > MAX_QUERY_BYTES {
        return Err(AppError::invalid_field(
            "query",
            "too_long",
            format!(
                "the query is {} bytes; the most is {MAX_QUERY_BYTES}",
                text.len()
            ),
        ));
    }
    Ok(text.to_owned())
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

/// Searches the messages `as_author` sent or received, best match first,
/// then newest. A token client searches only its own author's mail.
pub async fn search(
    ctx: &Ctx,
    caller: &Caller,
    as_author: &str,
    query: &str,
    limit: Option<u32>,
) -> Result<Vec<Message>> {
    let text = check_query(query)?;
    let limit = check_limit(limit)?;
    caller.may_act_as(as_author)?;
    authors::must_exist(ctx, as_author).await?;
    ctx.bus().search(as_author, &text, limit).await
}

/// Brings the bus's search index up to date now; returns how many messages
/// were added (the benchmark's indexing time; searches do it themselves).
pub async fn catch_up(ctx: &Ctx) -> Result<usize> {
    ctx.bus().catch_up().await
}
