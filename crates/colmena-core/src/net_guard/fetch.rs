//! `web_fetch`: a page or file over HTTP(S), size- and time-limited, turned
//! into readable text (scripts, styles and tags removed, entities decoded).
//!
//! Every request goes through [`NetGuard`]: the addresses a host resolves
//! to, and every redirect hop, are checked before anything is connected to,
//! so text an agent read cannot point it at this computer, the local network
//! or a cloud metadata service — unless the user allowed that agent local
//! network access.

use std::time::Duration;

use futures_util::StreamExt;
use tokio_util::sync::CancellationToken;

use super::NetGuard;
use crate::error::{AppError, ErrorCode, Result};

const DEFAULT_MAX_BYTES: u64 = 1024 * 1024;
const HARD_MAX_BYTES: u64 = 5 * 1024 * 1024;
const DEFAULT_TIME_LIMIT: u64 = 20;
const HARD_TIME_LIMIT: u64 = 60;

/// `url` parsed, if it is http or https (the only schemes fetched).
pub(crate) fn http_url(url: &str) -> Result<url::Url> {
    let parsed = url::Url::parse(url).map_err(|e| {
        AppError::invalid_field("url", "invalid_url", format!("'{url}' is not a URL: {e}"))
    })?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(AppError::invalid_field(
            "url",
            "invalid_url",
            "only http and https pages can be fetched",
        ));
    }
    Ok(parsed)
}

/// The `web_fetch` tool; `allow_local_network` is the agent's grant.
pub async fn fetch(
    url: &str,
    max_bytes: Option<u64>,
    timeout_seconds: Option<u64>,
    allow_local_network: bool,
    cancel: &CancellationToken,
) -> Result<String> {
    let guard = NetGuard::system(allow_local_network);
    fetch_with(&guard, url, max_bytes, timeout_seconds, cancel).await
}

/// [`fetch`] through a given guard (tests inject resolver and connector).
pub(crate) async fn fetch_with(
    guard: &NetGuard,
    url: &str,
    max_bytes: Option<u64>,
    timeout_seconds: Option<u64>,
    cancel: &CancellationToken,
) -> Result<String> {
    let parsed = http_url(url)?;
    let limit = max_bytes
        .unwrap_or(DEFAULT_MAX_BYTES)
        .clamp(1024, HARD_MAX_BYTES);
    let time_limit = Duration::from_secs(
        timeout_seconds
            .unwrap_or(DEFAULT_TIME_LIMIT)
            .clamp(1, HARD_TIME_LIMIT),
    );
    let (status, content_type, body, truncated) =
        download(guard, &parsed, limit, time_limit, cancel).await?;
    let text = String::from_utf8_lossy(&body);
    let readable = if content_type.contains("html") || text.trim_start().starts_with('<') {
        html_to_text(&text)
    } else {
        text.into_owned()
    };
    let mut out = format!("URL: {url}\nStatus: {}\n", status.as_u16());
    if truncated {
        out.push_str(&format!("(only the first {limit} bytes were read)\n"));
    }
    out.push('\n');
    out.push_str(readable.trim());
    Ok(out)
}

/// Downloads at most `limit` bytes of `parsed` within `time_limit`.
async fn download(
    guard: &NetGuard,
    parsed: &url::Url,
    limit: u64,
    time_limit: Duration,
    cancel: &CancellationToken,
) -> Result<(reqwest::StatusCode, String, Vec<u8>, bool)> {
    let url = parsed.as_str();
    let work = async {
        let response = guard.get(parsed, time_limit).await?;
        let status = response.status();
        let content_type = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_owned();
        let mut body = Vec::new();
        let mut truncated = false;
        let mut stream = response.bytes_stream();
        while let Some(chunk) = stream.next().await {
            let chunk = chunk.map_err(|e| {
                AppError::new(
                    ErrorCode::Upstream,
                    format!("the download of {url} broke: {e}"),
                )
            })?;
            let room = (limit as usize).saturating_sub(body.len());
            if chunk.len() > room {
                body.extend_from_slice(&chunk[..room]);
                truncated = true;
                break;
            }
            body.extend_from_slice(&chunk);
        }
        Ok::<_, AppError>((status, content_type, body, truncated))
    };
    let (status, content_type, body, truncated) = tokio::select! {
        _ = cancel.cancelled() => return Err(crate::llm::http::cancelled()),
        done = tokio::time::timeout(time_limit, work) => done.map_err(|_| {
            AppError::new(ErrorCode::Upstream, format!("{url} did not answer within {} s", time_limit.as_secs()))
                .with_details(serde_json::json!({ "reason": "timeout" }))
        })??,
    };
    Ok((status, content_type, body, truncated))
}

/// A page or feed's bytes with the default limits (source refreshes); a
/// status other than success is an error.
///
/// Sources are registered by the user, not by agents, so the local network
/// is allowed (a feed served on this computer or the LAN); metadata,
/// multicast and the other never-local classes stay refused.
pub(crate) async fn fetch_raw(url: &str) -> Result<Vec<u8>> {
    let parsed = http_url(url)?;
    let time_limit = Duration::from_secs(DEFAULT_TIME_LIMIT);
    let (status, _, body, _) = download(
        &NetGuard::system(true),
        &parsed,
        HARD_MAX_BYTES,
        time_limit,
        &CancellationToken::new(),
    )
    .await?;
    if !status.is_success() {
        return Err(AppError::new(
            ErrorCode::Upstream,
            format!("{url} answered {}", status.as_u16()),
        ));
    }
    Ok(body)
}

/// The `<title>` of an HTML page.
pub(crate) fn html_title(html: &str) -> Option<String> {
    let lower = html.to_ascii_lowercase();
    lower.find("<title").and_then(|s| {
        let open_end = lower[s..].find('>')? + s + 1;
        let close = lower[open_end..].find("</title")? + open_end;
        Some(decode_entities(html[open_end..close].trim()))
    })
}

/// Readable text of an HTML fragment or page, without its title line.
pub(crate) fn readable_text(html: &str) -> String {
    let title = html_title(html);
    let text = html_to_text(html);
    match title {
        Some(t) if !t.is_empty() => text
            .trim_start()
            .strip_prefix(t.as_str())
            .unwrap_or(&text)
            .trim()
            .to_owned(),
        _ => text.trim().to_owned(),
    }
}

fn remove_blocks(html: &str, tag: &str) -> String {
    let lower = html.to_ascii_lowercase();
    let (open, close) = (format!("<{tag}"), format!("</{tag}"));
    let mut out = String::with_capacity(html.len());
    let mut at = 0;
    while let Some(start) = lower[at..].find(&open).map(|i| i + at) {
        out.push_str(&html[at..start]);
        let Some(end) = lower[start..].find(&close).map(|i| i + start) else {
            return out;
        };
        at = lower[end..].find('>').map_or(html.len(), |i| end + i + 1);
    }
    out.push_str(&html[at..]);
    out
}

fn decode_entities(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        let tail = &rest[amp..];
        let end = tail.find(';').filter(|&e| e <= 10);
        let decoded = end.and_then(|e| {
            let entity = &tail[1..e];
            let ch = match entity {
                "amp" => Some('&'),
                "lt" => Some('<'),
                "gt" => Some('>'),
                "quot" => Some('"'),
                "apos" | "#39" => Some('\''),
                "nbsp" => Some(' '),
                _ if entity.starts_with("#x") || entity.starts_with("#X") => {
                    u32::from_str_radix(&entity[2..], 16)
                        .ok()
                        .and_then(char::from_u32)
                }
                _ if entity.starts_with('#') => entity[1..].parse().ok().and_then(char::from_u32),
                _ => None,
            };
            ch.map(|c| (c, e))
        });
        match decoded {
            Some((ch, e)) => {
                out.push(ch);
                rest = &tail[e + 1..];
            }
            None => {
                out.push('&');
                rest = &tail[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// Readable text of an HTML page: its title, then its text by blocks.
pub fn html_to_text(html: &str) -> String {
    let title = html_title(html);
    let mut cleaned = html.to_owned();
    for tag in ["script", "style", "noscript", "svg", "head", "template"] {
        cleaned = remove_blocks(&cleaned, tag);
    }
    let mut text = String::with_capacity(cleaned.len());
    let mut in_tag = false;
    let mut tag = String::new();
    for ch in cleaned.chars() {
        match (in_tag, ch) {
            (false, '<') => {
                in_tag = true;
                tag.clear();
            }
            (true, '>') => {
                in_tag = false;
                let name: String = tag
                    .trim_start_matches('/')
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric())
                    .collect();
                if matches!(
                    name.to_ascii_lowercase().as_str(),
                    "p" | "br"
                        | "div"
                        | "li"
                        | "tr"
                        | "h1"
                        | "h2"
                        | "h3"
                        | "h4"
                        | "h5"
                        | "h6"
                        | "section"
                        | "article"
                        | "ul"
                        | "ol"
                        | "table"
                        | "blockquote"
                        | "pre"
                ) {
                    text.push('\n');
                }
            }
            (true, c) => tag.push(c),
            (false, c) => text.push(c),
        }
    }
    let decoded = decode_entities(&text);
    let mut lines: Vec<String> = Vec::new();
    for line in decoded.lines() {
        let collapsed = line.split_whitespace().collect::<Vec<_>>().join(" ");
        if !collapsed.is_empty() {
            lines.push(collapsed);
        }
    }
    match title {
        Some(title) if !title.is_empty() => format!("Title: {title}\n\n{}", lines.join("\n")),
        _ => lines.join("\n"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn web_fetch_refuses_local_addresses_unless_allowed() {
        let cancel = CancellationToken::new();
        let err = fetch("http://127.0.0.1:9/", None, Some(1), false, &cancel)
            .await
            .unwrap_err();
        assert_eq!(err.code, ErrorCode::Forbidden);
        assert_eq!(
            err.details.as_ref().map(|d| d["reason"].clone()),
            Some(serde_json::json!("loopback_address"))
        );
        let err = fetch("http://169.254.169.254/", None, Some(1), true, &cancel)
            .await
            .unwrap_err();
        assert_eq!(err.code, ErrorCode::Forbidden, "metadata stays refused");
        let err = fetch("file:///etc/passwd", None, None, true, &cancel)
            .await
            .unwrap_err();
        assert_eq!(err.code, ErrorCode::Validation);
    }

    #[test]
    fn pages_become_readable_text() {
        let html = r#"<html><head><title>Bees &amp; hives</title><style>p{}</style></head>
            <body><script>var x = "<p>no</p>";</script><h1>Colony</h1><p>Workers &lt;3 the queen&#33;</p>
            <ul><li>Drones</li><li>Caf&eacute; &#x263A;</li></ul></body></html>"#;
        let text = html_to_text(html);
        assert!(text.starts_with("Title: Bees & hives"), "{text}");
        assert!(text.contains("Colony\nWorkers <3 the queen!"), "{text}");
        assert!(text.contains("Drones"));
        assert!(
            text.contains("Caf&eacute;"),
            "unknown entities are left as they are"
        );
        assert!(text.contains('☺'));
        assert!(!text.contains("var x"));
    }
}
