//! The first canvas about what the person wants to write (issue 37, the
//! first minute): step 3 of the first run offers a box to paste text or a
//! link; whatever is pasted becomes the canvas's item, with the sample's two
//! drafts (a TL;DR brief and an X thread) ready to write from it. Nothing
//! pasted: the sample canvas, as before (`sample.rs`).
//!
//! A link is fetched now, as a web page source the person adds by hand is
//! (the page's title and readable text; the same address rules). What the
//! page says is data for the drafts, never instructions: it goes into the
//! item's text, which generation hands the model as the source.

use crate::caller::Caller;
use crate::canvas::CanvasDetail;
use crate::canvas::items::{NewItem, SourceKind};
use crate::canvas::sources;
use crate::ctx::Ctx;
use crate::error::{AppError, Result};

/// The longest paste kept as the item's text.
const TEXT_CHARS: usize = 8_000;
/// The longest canvas name and item title made from it.
const TITLE_CHARS: usize = 80;

/// The drafts' instructions, in the person's language.
struct Prompts {
    brief: &'static str,
    thread: &'static str,
}

const EN: Prompts = Prompts {
    brief: "Summarise it for a busy reader.",
    thread: "Share it as a thread, in a friendly tone.",
};

const ES: Prompts = Prompts {
    brief: "Resúmelo para alguien con poco tiempo. Escribe en español.",
    thread: "Compártelo como un hilo, con un tono cercano. Escribe en español.",
};

/// What was pasted, read: a link to fetch, or text to write from.
#[derive(Debug, PartialEq, Eq)]
enum Pasted<'a> {
    Link(&'a str),
    Text(&'a str),
}

fn read(topic: &str) -> Option<Pasted<'_>> {
    let topic = topic.trim();
    if topic.is_empty() {
        return None;
    }
    let one_word = !topic.contains(char::is_whitespace);
    let lower = topic.to_ascii_lowercase();
    if one_word && (lower.starts_with("http://") || lower.starts_with("https://")) {
        Some(Pasted::Link(topic))
    } else {
        Some(Pasted::Text(topic))
    }
}

/// The first canvas: about `topic` (text or a link) when one is given,
/// else the sample. In `language` (`es`, else English).
pub async fn open_first_canvas(
    ctx: &Ctx,
    actor: &Caller,
    language: &str,
    topic: Option<&str>,
) -> Result<CanvasDetail> {
    let Some(pasted) = topic.and_then(read) else {
        return super::sample::open_sample_canvas(ctx, actor, language).await;
    };
    let item = match pasted {
        Pasted::Link(url) => {
            let page = sources::fetch_page(url)
                .await?
                .into_iter()
                .next()
                .ok_or_else(|| {
                    AppError::invalid_field(
                        "topic",
                        "empty_page",
                        format!("{url} has no text to write from"),
                    )
                })?;
            NewItem {
                source_kind: Some(SourceKind::Webpage),
                title: Some(cut(&page.title, TITLE_CHARS)),
                snippet: Some(page.snippet),
                // Where it came from, as a source's item keeps it.
                external_id: page.url,
                ..NewItem::default()
            }
        }
        Pasted::Text(text) => NewItem {
            source_kind: Some(SourceKind::Custom),
            title: Some(first_line(text)),
            snippet: Some(cut(text, TEXT_CHARS)),
            ..NewItem::default()
        },
    };
    let name = item.title.clone().unwrap_or_default();
    let prompts = if language.trim().to_ascii_lowercase().starts_with("es") {
        &ES
    } else {
        &EN
    };
    super::sample::first_canvas(ctx, actor, &name, item, [prompts.brief, prompts.thread]).await
}

/// `text` cut at `max` characters, on a word where one is near.
fn cut(text: &str, max: usize) -> String {
    let text = text.trim();
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let head: String = text.chars().take(max).collect();
    let head = head.rsplit_once(' ').map_or(head.as_str(), |(h, _)| h);
    format!("{}…", head.trim_end())
}

/// The first line of `text` with words, as a title.
fn first_line(text: &str) -> String {
    let line = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("");
    cut(line, TITLE_CHARS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_paste_is_a_link_only_when_it_is_one_http_address() {
        assert_eq!(read("  "), None);
        assert_eq!(
            read(" https://example.org/a "),
            Some(Pasted::Link("https://example.org/a"))
        );
        assert_eq!(read("HTTP://x.org"), Some(Pasted::Link("HTTP://x.org")));
        assert_eq!(
            read("see https://x.org"),
            Some(Pasted::Text("see https://x.org"))
        );
        assert_eq!(read("ftp://x.org"), Some(Pasted::Text("ftp://x.org")));
    }

    #[test]
    fn titles_are_the_first_line_cut_at_a_word() {
        assert_eq!(first_line("\n  Bees are back \nmore"), "Bees are back");
        let long = "word ".repeat(40);
        let title = first_line(&long);
        assert!(title.ends_with('…') && title.chars().count() <= TITLE_CHARS + 1);
    }
}
