//! Finding a conversation by what was said in it (issue 37): a person's
//! open conversations whose title or any message holds the words, newest
//! first, each with the line that matched.
//!
//! Why `LIKE` and not the tantivy index: chat is not indexed today, and a
//! person's conversations are small enough for a scan to answer at once;
//! the words are matched as typed (escaped, so `%` and `_` are literal),
//! ignoring case for ASCII letters.

use rusqlite::params;
use serde::{Deserialize, Serialize};

use super::{Conversation, from_row, owner_or};
use crate::ctx::Ctx;
use crate::error::{AppError, Result};

/// The most conversations one search answers.
const LIMIT: u32 = 50;
/// The longest query.
const QUERY_CHARS: usize = 200;
/// Characters of context on each side of the match in a snippet.
const AROUND: usize = 60;

/// A conversation that matched, and where.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ConversationHit {
    pub conversation: Conversation,
    /// The latest message that matched (`None` when only the title did).
    pub message_id: Option<i64>,
    /// That message around the match, on one line.
    pub snippet: Option<String>,
}

/// The person's open conversations holding `query`, newest first.
pub async fn search(ctx: &Ctx, user: Option<&str>, query: &str) -> Result<Vec<ConversationHit>> {
    let user = owner_or(ctx, user)?;
    let query = query.trim().to_owned();
    if query.is_empty() {
        return Err(AppError::invalid_field(
            "query",
            "required",
            "type what to look for",
        ));
    }
    if query.chars().count() > QUERY_CHARS {
        return Err(AppError::invalid_field(
            "query",
            "too_long",
            format!("a search is at most {QUERY_CHARS} characters"),
        ));
    }
    let pattern = format!("%{}%", escape_like(&query));
    ctx.store()
        .read(move |conn| {
            let mut stmt = conn.prepare(
                "SELECT * FROM (
                   SELECT id, user_id, channel, peer, agent_id, title, message_count, archived,
                          created_at, updated_at, last_message_at, model_id, forked_from,
                          (SELECT m.id FROM messages m
                            WHERE m.thread_id = threads.id AND m.role IN ('user', 'assistant')
                              AND m.content LIKE ?2 ESCAPE '\\'
                            ORDER BY m.id DESC LIMIT 1) AS hit
                   FROM threads WHERE user_id = ?1 AND archived = 0)
                 WHERE hit IS NOT NULL OR title LIKE ?2 ESCAPE '\\'
                 ORDER BY COALESCE(last_message_at, created_at) DESC, id LIMIT ?3",
            )?;
            let rows = stmt
                .query_map(params![user, pattern, LIMIT], |r| {
                    Ok((from_row(r)?, r.get::<_, Option<i64>>(13)?))
                })?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            let mut content = conn.prepare_cached("SELECT content FROM messages WHERE id = ?1")?;
            let mut hits = Vec::with_capacity(rows.len());
            for (conversation, message_id) in rows {
                let snippet = match message_id {
                    Some(id) => {
                        let text: String = content.query_row([id], |r| r.get(0))?;
                        Some(snippet(&text, &query))
                    }
                    None => None,
                };
                hits.push(ConversationHit {
                    conversation,
                    message_id,
                    snippet,
                });
            }
            Ok(hits)
        })
        .await
}

/// `text` with `LIKE`'s wildcards and the escape character taken literally.
fn escape_like(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '%' | '_' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// `text` on one line, cut to the match and `AROUND` characters each side.
fn snippet(text: &str, query: &str) -> String {
    let chars: Vec<char> = text
        .chars()
        .map(|c| if c.is_whitespace() { ' ' } else { c })
        .collect();
    let lower: Vec<char> = chars.iter().flat_map(|c| c.to_lowercase()).collect();
    let needle: Vec<char> = query.chars().flat_map(|c| c.to_lowercase()).collect();
    // Lower-casing may change the length (rare letters): then show the start.
    let at = if lower.len() == chars.len() {
        lower
            .windows(needle.len().max(1))
            .position(|w| w == needle.as_slice())
            .unwrap_or(0)
    } else {
        0
    };
    let start = at.saturating_sub(AROUND);
    let end = (at + needle.len() + AROUND).min(chars.len());
    let mut out: String = chars[start..end].iter().collect();
    out = out.split_whitespace().collect::<Vec<_>>().join(" ");
    if start > 0 {
        out.insert(0, '…');
    }
    if end < chars.len() {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wildcards_are_literal() {
        assert_eq!(escape_like("50%_a\\b"), "50\\%\\_a\\\\b");
    }

    #[test]
    fn a_snippet_is_the_match_in_its_context_on_one_line() {
        let text = format!("{}\nthe BEES dance\n{}", "a".repeat(100), "b".repeat(100));
        let cut = snippet(&text, "bees");
        assert!(cut.starts_with('…') && cut.ends_with('…'));
        assert!(cut.contains("the BEES dance"));
        assert!(!cut.contains('\n'));
        assert_eq!(snippet("short bees", "bees"), "short bees");
    }
}
