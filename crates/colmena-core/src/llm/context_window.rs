//! How much a model can read at once, and how big a request is (issue 15):
//! a role's thread grows with every wake-up, so before each one the thread
//! is measured against the model's window and older turns are summarised
//! (`roles::role_thread`).
//!
//! The window is the person's setting for the model (`models.context_window`)
//! or, unset, a known figure for the model's family — conservative for an
//! unknown name, since a too-small guess costs a summary while a too-large
//! one costs a failed request. Sizes are estimated at four characters a
//! token (plus a little per message): no tokenizer of every provider's
//! models ships here, and the estimate leaves a quarter of the window free.

use rusqlite::{Connection, OptionalExtension};

use crate::error::Result;
use crate::llm::Message;

/// The window assumed for a model whose family is not known.
pub const UNKNOWN_WINDOW: u32 = 8_192;

/// The model's context window in tokens.
pub(crate) fn window_of(conn: &Connection, model_id: &str, name: &str) -> Result<u32> {
    let row: Option<(Option<u32>, String)> = conn
        .query_row(
            "SELECT m.context_window, p.kind FROM models m JOIN providers p ON p.id = m.provider_id
             WHERE m.id = ?1",
            [model_id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?;
    Ok(match row {
        Some((Some(set), _)) => set,
        // Colmena's own engine gives a local model this context, whatever
        // its family could read elsewhere.
        Some((None, kind)) if kind == super::ProviderKind::Local.as_str() => {
            super::local::DEFAULT_CONTEXT
        }
        _ => known_window(name),
    })
}

/// The window of a model family by its name.
pub fn known_window(name: &str) -> u32 {
    let n = name.to_ascii_lowercase();
    let has = |part: &str| n.contains(part);
    if has("claude") {
        200_000
    } else if has("gpt-4.1") || has("gemini") {
        1_000_000
    } else if has("gpt-4o") || has("gpt-5") || has("o3") || has("o4") || has("mistral-large") {
        128_000
    } else if has("llama3.1")
        || has("llama3.2")
        || has("llama-3.1")
        || has("qwen2.5")
        || has("qwen3")
    {
        32_768
    } else {
        UNKNOWN_WINDOW
    }
}

/// Estimated tokens of a text.
pub fn tokens(text: &str) -> u32 {
    u32::try_from(text.chars().count().div_ceil(4)).unwrap_or(u32::MAX)
}

/// Estimated tokens of one message (its text, its tool calls, a framing).
pub fn message_tokens(message: &Message) -> u32 {
    let calls: u32 = message
        .tool_calls
        .iter()
        .map(|c| tokens(&c.name) + tokens(&c.arguments))
        .sum();
    tokens(&message.content) + calls + 4
}

/// The first `budget` tokens' worth of `text`, with a marker when cut.
pub fn clip(text: &str, budget: u32) -> String {
    let keep = usize::try_from(budget)
        .unwrap_or(usize::MAX)
        .saturating_mul(4);
    if text.chars().count() <= keep {
        return text.to_owned();
    }
    let marker = "\n[… cut here to fit the model's context window]";
    let cut: String = text
        .chars()
        .take(keep.saturating_sub(marker.len()))
        .collect();
    format!("{cut}{marker}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families_have_known_windows_and_unknown_ones_are_small() {
        assert_eq!(known_window("claude-sonnet-4"), 200_000);
        assert_eq!(known_window("gpt-4o-mini"), 128_000);
        assert_eq!(known_window("tinyllama"), UNKNOWN_WINDOW);
    }

    #[test]
    fn a_clipped_text_fits_its_budget() {
        let long = "palabra ".repeat(1000);
        let clipped = clip(&long, 100);
        assert!(tokens(&clipped) <= 100, "{}", tokens(&clipped));
        assert!(clipped.ends_with("context window]"));
        assert_eq!(clip("corto", 100), "corto");
    }
}
