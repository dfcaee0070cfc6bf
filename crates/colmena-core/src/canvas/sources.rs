//! Sources (SPEC C10): registered upstreams — RSS/Atom feeds, web pages,
//! custom lists — whose items can be selected into canvases. A refresh runs
//! in the background: the source shows `refreshing`, then `ok` with its
//! items or `error` with why. `list_sources` is C9's eighteenth operation.

use chrono::{DateTime, Utc};
use rusqlite::{Connection, OptionalExtension, params};
use serde::{Deserialize, Serialize};

use super::{Caller, activity};
use crate::ctx::{Change, Ctx};
use crate::error::{AppError, Result};
use crate::validate;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum SourceType {
    Rss,
    Webpage,
    Custom,
}

impl SourceType {
    fn as_str(self) -> &'static str {
        match self {
            SourceType::Rss => "rss",
            SourceType::Webpage => "webpage",
            SourceType::Custom => "custom",
        }
    }
    /// `rss`, `webpage`; anything else is `custom`.
    pub fn parse(text: &str) -> SourceType {
        match text {
            "rss" => SourceType::Rss,
            "webpage" => SourceType::Webpage,
            _ => SourceType::Custom,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Source {
    pub id: String,
    pub kind: SourceType,
    pub name: String,
    pub url: Option<String>,
    /// `idle`, `refreshing`, `ok` or `error`.
    pub status: String,
    pub error: Option<String>,
    pub item_count: u32,
    pub last_refreshed_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct SourceItem {
    pub id: String,
    pub source_id: String,
    pub external_id: String,
    pub title: String,
    pub snippet: String,
    pub url: Option<String>,
    pub published_at: Option<DateTime<Utc>>,
    pub fetched_at: DateTime<Utc>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct NewSource {
    pub kind: Option<SourceType>,
    pub name: String,
    #[serde(default)]
    pub url: Option<String>,
}

const COLUMNS: &str =
    "s.id, s.kind, s.name, s.url, s.status, s.error, s.last_refreshed_at, s.created_at,
     (SELECT count(*) FROM source_items i WHERE i.source_id = s.id)";

fn from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Source> {
    Ok(Source {
        id: r.get(0)?,
        kind: SourceType::parse(&r.get::<_, String>(1)?),
        name: r.get(2)?,
        url: r.get(3)?,
        status: r.get(4)?,
        error: r.get(5)?,
        last_refreshed_at: r.get(6)?,
        created_at: r.get(7)?,
        item_count: r.get(8)?,
    })
}

fn require(conn: &Connection, user: &str, id: &str) -> Result<Source> {
    conn.query_row(
        &format!("SELECT {COLUMNS} FROM sources s WHERE s.id = ?1 AND s.user_id = ?2"),
        params![id, user],
        from_row,
    )
    .optional()?
    .ok_or_else(|| AppError::not_found("source", id))
}

/// `list_sources()`: the user's registered sources.
pub async fn list_sources(ctx: &Ctx, actor: &Caller) -> Result<Vec<Source>> {
    let user = actor.person()?.to_owned();
    ctx.store()
        .read(move |conn| {
            let mut stmt = conn.prepare(&format!(
                "SELECT {COLUMNS} FROM sources s WHERE s.user_id = ?1 ORDER BY s.name COLLATE NOCASE"
            ))?;
            let rows = stmt.query_map([user], from_row)?;
            Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
        })
        .await
}

/// Registers a source; feeds and pages need an http(s) URL.
pub async fn register_source(ctx: &Ctx, actor: &Caller, input: NewSource) -> Result<Source> {
    let name = validate::name("name", &input.name, 120)?;
    let kind = input.kind.unwrap_or(SourceType::Rss);
    let url = match (
        kind,
        input
            .url
            .as_deref()
            .map(str::trim)
            .filter(|u| !u.is_empty()),
    ) {
        (SourceType::Custom, _) => None,
        (_, None) => {
            return Err(AppError::invalid_field(
                "url",
                "required",
                "a feed or a page needs its URL",
            ));
        }
        (_, Some(url)) => Some(crate::net_guard::fetch::http_url(url)?.to_string()),
    };
    let actor2 = actor.clone();
    let source = ctx
        .store()
        .write(move |tx| {
            let taken: Option<String> = tx
                .query_row(
                    "SELECT id FROM sources WHERE user_id = ?1 AND name = ?2 COLLATE NOCASE",
                    params![actor2.person()?, name],
                    |r| r.get(0),
                )
                .optional()?;
            if taken.is_some() {
                return Err(AppError::conflicting_field("name", "duplicate_name", format!("a source '{name}' exists")));
            }
            let id = uuid::Uuid::now_v7().to_string();
            tx.execute(
                "INSERT INTO sources (id, user_id, kind, name, url, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![id, actor2.person()?, kind.as_str(), name, url, Utc::now()],
            )?;
            activity::record(tx, &actor2, None, "session.register_source", &name)?;
            require(tx, actor2.person()?, &id)
        })
        .await?;
    ctx.changed(Change::Canvases);
    Ok(source)
}

/// The items a source's last refresh fetched, newest first.
pub async fn source_items(ctx: &Ctx, actor: &Caller, source: &str) -> Result<Vec<SourceItem>> {
    let (user, id) = (actor.person()?.to_owned(), source.to_owned());
    ctx.store()
        .read(move |conn| {
            require(conn, &user, &id)?;
            let mut stmt = conn.prepare(
                "SELECT id, source_id, external_id, title, snippet, url, published_at, fetched_at
                 FROM source_items WHERE source_id = ?1 ORDER BY published_at DESC, fetched_at DESC",
            )?;
            let rows = stmt.query_map([id], |r| {
                Ok(SourceItem {
                    id: r.get(0)?,
                    source_id: r.get(1)?,
                    external_id: r.get(2)?,
                    title: r.get(3)?,
                    snippet: r.get(4)?,
                    url: r.get(5)?,
                    published_at: r.get(6)?,
                    fetched_at: r.get(7)?,
                })
            })?;
            Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
        })
        .await
}

/// Removes a source and its fetched items; canvases keep their snapshots.
pub async fn remove_source(ctx: &Ctx, actor: &Caller, source: &str) -> Result<()> {
    let (user, id) = (actor.person()?.to_owned(), source.to_owned());
    ctx.store()
        .write(move |tx| {
            require(tx, &user, &id)?;
            tx.execute("DELETE FROM sources WHERE id = ?1", [&id])?;
            Ok(())
        })
        .await?;
    ctx.changed(Change::Canvases);
    Ok(())
}

/// Starts a refresh in the background and answers at once (`refreshing`).
pub async fn refresh_source(ctx: &Ctx, actor: &Caller, source: &str) -> Result<Source> {
    let (user, id) = (actor.person()?.to_owned(), source.to_owned());
    let marked = ctx
        .store()
        .write(move |tx| {
            let source = require(tx, &user, &id)?;
            if source.kind == SourceType::Custom {
                return Err(AppError::precondition(
                    "a custom source has nothing to fetch: add its items directly",
                ));
            }
            tx.execute(
                "UPDATE sources SET status = 'refreshing', error = NULL WHERE id = ?1",
                [&id],
            )?;
            require(tx, &user, &id)
        })
        .await?;
    ctx.changed(Change::Canvases);
    let (ctx2, actor2, id) = (ctx.clone(), actor.clone(), source.to_owned());
    tokio::spawn(async move {
        if let Err(e) = refresh_now(&ctx2, &actor2, &id).await {
            tracing::warn!("refreshing source {id} failed: {}", e.message);
        }
    });
    Ok(marked)
}

/// Fetches and stores a source's items now; records `ok` or `error`.
pub async fn refresh_now(ctx: &Ctx, actor: &Caller, source: &str) -> Result<Source> {
    let (user, id) = (actor.person()?.to_owned(), source.to_owned());
    let current = ctx
        .store()
        .read(move |conn| require(conn, &user, &id))
        .await?;
    let url = current.url.clone().unwrap_or_default();
    let fetched = match current.kind {
        SourceType::Rss => fetch_feed(&url).await,
        _ => fetch_page(&url).await,
    };
    let (actor2, id) = (actor.clone(), source.to_owned());
    let outcome = fetched.as_ref().map(|_| ()).map_err(Clone::clone);
    let stored = ctx
        .store()
        .write(move |tx| {
            let now = Utc::now();
            match &fetched {
                Ok(items) => {
                    for item in items {
                        tx.execute(
                            "INSERT INTO source_items (id, source_id, external_id, title, snippet, url, published_at,
                                 raw, fetched_at)
                             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
                             ON CONFLICT (source_id, external_id) DO UPDATE SET title = excluded.title,
                                 snippet = excluded.snippet, url = excluded.url,
                                 published_at = excluded.published_at, raw = excluded.raw,
                                 fetched_at = excluded.fetched_at",
                            params![
                                uuid::Uuid::now_v7().to_string(),
                                id,
                                item.external_id,
                                item.title,
                                item.snippet,
                                item.url,
                                item.published_at,
                                serde_json::json!({ "url": item.url }).to_string(),
                                now
                            ],
                        )?;
                    }
                    tx.execute(
                        "UPDATE sources SET status = 'ok', error = NULL, last_refreshed_at = ?2 WHERE id = ?1",
                        params![id, now],
                    )?;
                    activity::record(tx, &actor2, None, "session.refresh_source", &format!("{} items", items.len()))?;
                }
                Err(e) => {
                    tx.execute(
                        "UPDATE sources SET status = 'error', error = ?2, last_refreshed_at = ?3 WHERE id = ?1",
                        params![id, e.message, now],
                    )?;
                }
            }
            require(tx, actor2.person()?, &id)
        })
        .await?;
    ctx.changed(Change::Canvases);
    outcome.map(|()| stored)
}

/// One item as fetched.
pub(crate) struct Fetched {
    external_id: String,
    pub(crate) title: String,
    pub(crate) snippet: String,
    pub(crate) url: Option<String>,
    published_at: Option<DateTime<Utc>>,
}

async fn fetch_feed(url: &str) -> Result<Vec<Fetched>> {
    let body = crate::net_guard::fetch::fetch_raw(url).await?;
    parse_feed(&body)
}

/// A web page as one item: its title and readable text (at most 4,000
/// characters). Also what a link pasted in the first run becomes.
pub(crate) async fn fetch_page(url: &str) -> Result<Vec<Fetched>> {
    let body = crate::net_guard::fetch::fetch_raw(url).await?;
    let text = String::from_utf8_lossy(&body);
    let title = crate::net_guard::fetch::html_title(&text).unwrap_or_else(|| url.to_owned());
    let readable = crate::net_guard::fetch::readable_text(&text);
    Ok(vec![Fetched {
        external_id: url.to_owned(),
        title,
        snippet: readable.chars().take(4000).collect(),
        url: Some(url.to_owned()),
        published_at: None,
    }])
}

/// RSS 2.0 `<item>`s or Atom `<entry>`s: id (guid/id/link), title, link,
/// description/summary/content as readable text, date.
fn parse_feed(body: &[u8]) -> Result<Vec<Fetched>> {
    use quick_xml::Reader;
    use quick_xml::events::Event;
    let mut reader = Reader::from_reader(body);
    let mut items = Vec::new();
    let mut current: Option<std::collections::HashMap<String, String>> = None;
    let mut field: Option<String> = None;
    let mut buf = Vec::new();
    let mut saw_feed = false;
    loop {
        match reader.read_event_into(&mut buf) {
            Ok(Event::Start(e)) => {
                let name = e.local_name().as_ref().to_owned();
                match name.as_str() {
                    "rss" | "feed" | "RDF" => saw_feed = true,
                    "item" | "entry" => current = Some(Default::default()),
                    _ if current.is_some() => {
                        if name == "link" {
                            // Atom: <link href="…"/> may come as a start tag too.
                            if let Some(href) = e.try_get_attribute("href").ok().flatten() {
                                let value = href.value.replace("&amp;", "&");
                                current
                                    .as_mut()
                                    .map(|c| c.entry("link".into()).or_insert(value));
                            }
                        }
                        field = Some(name);
                    }
                    _ => {}
                }
            }
            Ok(Event::Empty(e)) => {
                let name = e.local_name().as_ref().to_owned();
                if name == "link"
                    && let Some(c) = current.as_mut()
                    && let Some(href) = e.try_get_attribute("href").ok().flatten()
                {
                    let value = href.value.replace("&amp;", "&");
                    c.entry("link".into()).or_insert(value);
                }
            }
            Ok(Event::Text(t)) => {
                if let (Some(c), Some(f)) = (current.as_mut(), field.as_ref()) {
                    c.entry(f.clone()).or_default().push_str(&t.into_inner());
                }
            }
            Ok(Event::CData(t)) => {
                if let (Some(c), Some(f)) = (current.as_mut(), field.as_ref()) {
                    c.entry(f.clone()).or_default().push_str(&t.into_inner());
                }
            }
            // Entities come apart from the text around them.
            Ok(Event::GeneralRef(r)) => {
                if let (Some(c), Some(f)) = (current.as_mut(), field.as_ref()) {
                    let resolved = match r.resolve_char_ref() {
                        Ok(Some(ch)) => ch.to_string(),
                        _ => match &*r.into_inner() {
                            "amp" => "&".into(),
                            "lt" => "<".into(),
                            "gt" => ">".into(),
                            "quot" => "\"".into(),
                            "apos" => "'".into(),
                            other => format!("&{other};"),
                        },
                    };
                    c.entry(f.clone()).or_default().push_str(&resolved);
                }
            }
            Ok(Event::End(e)) => {
                let name = e.local_name().as_ref().to_owned();
                if name == "item" || name == "entry" {
                    if let Some(c) = current.take() {
                        let get = |keys: &[&str]| {
                            keys.iter()
                                .find_map(|k| c.get(*k).filter(|v| !v.trim().is_empty()).cloned())
                        };
                        let link = get(&["link"]);
                        let title = get(&["title"]).unwrap_or_else(|| "(untitled)".into());
                        let body = get(&["description", "summary", "content", "encoded"])
                            .unwrap_or_default();
                        let external_id = get(&["guid", "id"])
                            .or(link.clone())
                            .unwrap_or_else(|| title.clone());
                        let published_at = get(&["pubDate", "published", "updated", "date"])
                            .and_then(|d| {
                                DateTime::parse_from_rfc2822(d.trim())
                                    .or_else(|_| DateTime::parse_from_rfc3339(d.trim()))
                                    .ok()
                                    .map(|t| t.with_timezone(&Utc))
                            });
                        items.push(Fetched {
                            external_id: external_id.trim().to_owned(),
                            title: title.trim().to_owned(),
                            snippet: crate::net_guard::fetch::readable_text(&body)
                                .chars()
                                .take(4000)
                                .collect(),
                            url: link.map(|l| l.trim().to_owned()),
                            published_at,
                        });
                    }
                } else if field.as_deref() == Some(name.as_str()) {
                    field = None;
                }
            }
            Ok(Event::Eof) => break,
            Err(e) => {
                return Err(AppError::new(
                    crate::error::ErrorCode::Upstream,
                    format!("the feed is not valid XML: {e}"),
                ));
            }
            _ => {}
        }
        buf.clear();
    }
    if !saw_feed {
        return Err(AppError::new(
            crate::error::ErrorCode::Upstream,
            "that URL is not an RSS or Atom feed",
        ));
    }
    Ok(items)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c10_rss_and_atom_items_are_read() {
        let rss = br#"<?xml version="1.0"?><rss version="2.0"><channel><title>Abejas</title>
            <item><title>Miel &amp; cera</title><link>https://a.test/1</link><guid>a-1</guid>
            <description><![CDATA[<p>Las abejas <b>hacen</b> miel.</p>]]></description>
            <pubDate>Mon, 30 Nov 2026 10:00:00 +0000</pubDate></item>
            <item><title>Segunda</title><link>https://a.test/2</link></item></channel></rss>"#;
        let items = parse_feed(rss).unwrap();
        assert_eq!(items.len(), 2);
        assert_eq!(items[0].title, "Miel & cera");
        assert_eq!(items[0].external_id, "a-1");
        assert_eq!(items[0].snippet, "Las abejas hacen miel.");
        assert!(items[0].published_at.is_some());
        assert_eq!(items[1].external_id, "https://a.test/2");
        let atom = br#"<feed xmlns="http://www.w3.org/2005/Atom"><entry><id>urn:1</id><title>Uno</title>
            <link href="https://b.test/1"/><summary>Resumen</summary><updated>2026-11-30T10:00:00Z</updated></entry></feed>"#;
        let items = parse_feed(atom).unwrap();
        assert_eq!(items[0].url.as_deref(), Some("https://b.test/1"));
        assert_eq!(items[0].snippet, "Resumen");
        assert!(parse_feed(b"<html><body>no</body></html>").is_err());
    }
}
