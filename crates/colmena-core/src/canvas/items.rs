//! Items (SPEC C2): immutable snapshots taken at selection. An item is
//! copied from a registered source's fetched item (by its id) or made from
//! the snapshot fields given; either way what the canvas keeps never
//! changes (a trigger refuses updates) — to refresh, remove and add again.

use chrono::{DateTime, Utc};
use rusqlite::{Connection, OptionalExtension, params};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Caller, activity, require, touch};
use crate::ctx::{Change, Ctx};
use crate::error::{AppError, Result};
use crate::images::ImagePreview;

#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum SourceKind {
    X,
    Webpage,
    Rss,
    Custom,
}

impl SourceKind {
    pub fn as_str(self) -> &'static str {
        match self {
            SourceKind::X => "x",
            SourceKind::Webpage => "webpage",
            SourceKind::Rss => "rss",
            SourceKind::Custom => "custom",
        }
    }

    /// `x`, `webpage`, `rss`; anything else is `custom`.
    pub fn parse(text: &str) -> SourceKind {
        match text {
            "x" => SourceKind::X,
            "webpage" => SourceKind::Webpage,
            "rss" => SourceKind::Rss,
            _ => SourceKind::Custom,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct CanvasItem {
    pub id: String,
    pub source_kind: SourceKind,
    pub external_id: Option<String>,
    pub title: String,
    pub snippet: String,
    pub captured_at: DateTime<Utc>,
    pub metrics: Value,
    pub raw: Value,
}

/// What to add: a fetched source item by id, or the snapshot itself.
#[derive(Debug, Clone, Default, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct NewItem {
    /// A source item's id (see `sources::source_items`): its fields are
    /// copied as they are now.
    #[serde(default)]
    pub upstream_item_id: Option<String>,
    #[serde(default)]
    pub source_kind: Option<SourceKind>,
    #[serde(default)]
    pub external_id: Option<String>,
    #[serde(default)]
    pub title: Option<String>,
    #[serde(default)]
    pub snippet: Option<String>,
    #[serde(default)]
    pub captured_at: Option<DateTime<Utc>>,
    #[serde(default)]
    #[specta(type = Option<serde_json::Map<String, Value>>)]
    pub metrics: Option<Value>,
    #[serde(default)]
    #[specta(type = Option<serde_json::Map<String, Value>>)]
    pub raw: Option<Value>,
}

const MAX_TEXT: usize = 100_000;

fn from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<CanvasItem> {
    let json = |i: usize| -> rusqlite::Result<Value> {
        Ok(serde_json::from_str(&r.get::<_, String>(i)?).unwrap_or(Value::Null))
    };
    Ok(CanvasItem {
        id: r.get(0)?,
        source_kind: SourceKind::parse(&r.get::<_, String>(1)?),
        external_id: r.get(2)?,
        title: r.get(3)?,
        snippet: r.get(4)?,
        captured_at: r.get(5)?,
        metrics: json(6)?,
        raw: json(7)?,
    })
}

const COLUMNS: &str = "id, source_kind, external_id, title, snippet, captured_at, metrics, raw";

pub(crate) fn list_in(conn: &Connection, canvas: &str) -> Result<Vec<CanvasItem>> {
    let mut stmt = conn.prepare(&format!(
        "SELECT {COLUMNS} FROM canvas_items WHERE canvas_id = ?1 ORDER BY position"
    ))?;
    let rows = stmt.query_map([canvas], from_row)?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

/// The snapshot to store: from the source item, or checked fields.
fn snapshot(conn: &Connection, user: &str, input: NewItem) -> Result<CanvasItem> {
    if let Some(upstream) = input.upstream_item_id.filter(|u| !u.trim().is_empty()) {
        let found = conn
            .query_row(
                "SELECT s.kind, i.external_id, i.title, i.snippet, i.metrics, i.raw
                 FROM source_items i JOIN sources s ON s.id = i.source_id
                 WHERE i.id = ?1 AND s.user_id = ?2",
                params![upstream, user],
                |r| {
                    Ok((
                        r.get::<_, String>(0)?,
                        r.get::<_, String>(1)?,
                        r.get::<_, String>(2)?,
                        r.get::<_, String>(3)?,
                        r.get::<_, String>(4)?,
                        r.get::<_, String>(5)?,
                    ))
                },
            )
            .optional()?
            .ok_or_else(|| AppError::not_found("source item", &upstream))?;
        let (kind, external, title, snippet, metrics, raw) = found;
        return Ok(CanvasItem {
            id: String::new(),
            source_kind: SourceKind::parse(&kind),
            external_id: Some(external),
            title,
            snippet,
            captured_at: Utc::now(),
            metrics: serde_json::from_str(&metrics).unwrap_or_default(),
            raw: serde_json::from_str(&raw).unwrap_or_default(),
        });
    }
    let title = input.title.unwrap_or_default();
    if title.trim().is_empty() {
        return Err(AppError::invalid_field(
            "title",
            "required",
            "an item needs a title, or an upstreamItemId to copy one from",
        ));
    }
    let snippet = input.snippet.unwrap_or_default();
    if title.len() > MAX_TEXT || snippet.len() > MAX_TEXT {
        return Err(AppError::invalid_field(
            "snippet",
            "too_long",
            format!("an item's title and snippet must be under {MAX_TEXT} bytes each"),
        ));
    }
    for (field, value) in [("metrics", &input.metrics), ("raw", &input.raw)] {
        if value.as_ref().is_some_and(|v| !v.is_object()) {
            return Err(AppError::invalid_field(
                field,
                "not_an_object",
                format!("{field} must be a JSON object"),
            ));
        }
    }
    Ok(CanvasItem {
        id: String::new(),
        source_kind: input.source_kind.unwrap_or(SourceKind::Custom),
        external_id: input.external_id.filter(|e| !e.trim().is_empty()),
        title: title.trim().to_owned(),
        snippet,
        captured_at: input.captured_at.unwrap_or_else(Utc::now),
        metrics: input
            .metrics
            .unwrap_or_else(|| Value::Object(Default::default())),
        raw: input
            .raw
            .unwrap_or_else(|| Value::Object(Default::default())),
    })
}

/// Inserts a snapshot at the end of the canvas's selection.
pub(crate) fn insert(conn: &Connection, canvas: &str, item: &CanvasItem) -> Result<CanvasItem> {
    let id = uuid::Uuid::now_v7().to_string();
    conn.execute(
        "INSERT INTO canvas_items (id, canvas_id, position, source_kind, external_id, title, snippet,
                                   captured_at, metrics, raw, created_at)
         VALUES (?1, ?2, (SELECT coalesce(max(position), -1) + 1 FROM canvas_items WHERE canvas_id = ?2),
                 ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
        params![
            id,
            canvas,
            item.source_kind.as_str(),
            item.external_id,
            item.title,
            item.snippet,
            item.captured_at,
            item.metrics.to_string(),
            item.raw.to_string(),
            Utc::now()
        ],
    )?;
    Ok(conn.query_row(
        &format!("SELECT {COLUMNS} FROM canvas_items WHERE id = ?1"),
        [&id],
        from_row,
    )?)
}

/// `add_item(canvas, item)`.
pub async fn add_item(
    ctx: &Ctx,
    actor: &Caller,
    canvas: &str,
    input: NewItem,
) -> Result<CanvasItem> {
    let (actor2, canvas) = (actor.clone(), canvas.to_owned());
    let item = ctx
        .store()
        .write(move |tx| {
            require(tx, actor2.person()?, &canvas)?;
            let snapshot = snapshot(tx, actor2.person()?, input)?;
            let item = insert(tx, &canvas, &snapshot)?;
            touch(tx, &canvas)?;
            activity::record(tx, &actor2, Some(&canvas), "session.add_item", &item.title)?;
            Ok(item)
        })
        .await?;
    ctx.changed(Change::Canvases);
    Ok(item)
}

/// `remove_item(canvas, item)`.
pub async fn remove_item(ctx: &Ctx, actor: &Caller, canvas: &str, item: &str) -> Result<()> {
    let (actor2, canvas, item) = (actor.clone(), canvas.to_owned(), item.to_owned());
    ctx.store()
        .write(move |tx| {
            require(tx, actor2.person()?, &canvas)?;
            let title: Option<String> = tx
                .query_row(
                    "SELECT title FROM canvas_items WHERE id = ?1 AND canvas_id = ?2",
                    params![item, canvas],
                    |r| r.get(0),
                )
                .optional()?;
            let title = title.ok_or_else(|| AppError::not_found("item", &item))?;
            tx.execute("DELETE FROM canvas_items WHERE id = ?1", [&item])?;
            touch(tx, &canvas)?;
            activity::record(tx, &actor2, Some(&canvas), "session.remove_item", &title)
        })
        .await?;
    ctx.changed(Change::Canvases);
    Ok(())
}

/// `clear_selection(canvas)`: every item goes; variants and rounds stay.
pub async fn clear_selection(ctx: &Ctx, actor: &Caller, canvas: &str) -> Result<u32> {
    let (actor2, canvas) = (actor.clone(), canvas.to_owned());
    let removed = ctx
        .store()
        .write(move |tx| {
            require(tx, actor2.person()?, &canvas)?;
            let removed = tx.execute("DELETE FROM canvas_items WHERE canvas_id = ?1", [&canvas])?;
            touch(tx, &canvas)?;
            activity::record(
                tx,
                &actor2,
                Some(&canvas),
                "session.clear_selection",
                &format!("{removed} items"),
            )?;
            Ok(removed as u32)
        })
        .await?;
    ctx.changed(Change::Canvases);
    Ok(removed)
}

/// Adds a dropped image (SPEC C11): stored as an artifact as it came,
/// normalised for models, and selected as a custom item that points at both.
pub async fn add_image(
    ctx: &Ctx,
    actor: &Caller,
    canvas: &str,
    name: &str,
    bytes: Vec<u8>,
) -> Result<CanvasItem> {
    let (user, id) = (actor.person()?.to_owned(), canvas.to_owned());
    ctx.store()
        .read(move |conn| require(conn, &user, &id).map(|_| ()))
        .await?;
    let original = crate::images::upload(ctx, actor.person()?, name, bytes).await?;
    let model = crate::images::normalize_for_model(ctx, actor.person()?, &original.id).await?;
    let snippet = match (original.width, original.height, &original.format) {
        (Some(w), Some(h), Some(format)) if model.id != original.id => format!(
            "Image {w}×{h} {format}, {} KB; for models {}×{} WebP, {} KB.",
            original.size_bytes / 1024,
            model.width.unwrap_or_default(),
            model.height.unwrap_or_default(),
            model.size_bytes.div_ceil(1024)
        ),
        _ => format!(
            "File kept as it came ({} KB): it could not be read as an image.",
            original.size_bytes.div_ceil(1024)
        ),
    };
    let raw = serde_json::json!({
        "artifactId": original.id,
        "modelArtifactId": model.id,
        "width": original.width,
        "height": original.height,
        "format": original.format,
        "bytes": original.size_bytes,
    });
    let input = NewItem {
        source_kind: Some(SourceKind::Custom),
        title: Some(original.name.clone()),
        snippet: Some(snippet),
        raw: Some(raw),
        ..Default::default()
    };
    add_item(ctx, actor, canvas, input).await
}

/// The preview of an image item of `canvas`. Items that are not images,
/// and images kept as they came because they could not be read, have none
/// (`precondition`, reason `not_an_image`).
pub async fn image_preview(
    ctx: &Ctx,
    actor: &Caller,
    canvas: &str,
    item: &str,
) -> Result<ImagePreview> {
    use base64::Engine;
    let (user, canvas, item_id) = (
        actor.person()?.to_owned(),
        canvas.to_owned(),
        item.to_owned(),
    );
    let items = ctx
        .store()
        .read(move |conn| {
            require(conn, &user, &canvas)?;
            list_in(conn, &canvas)
        })
        .await?;
    let item = items
        .into_iter()
        .find(|i| i.id == item_id)
        .ok_or_else(|| AppError::not_found("item", item))?;
    let not_an_image = || {
        AppError::precondition(format!("item '{}' is not an image", item.title))
            .with_details(serde_json::json!({ "reason": "not_an_image" }))
    };
    let artifact = item.raw["modelArtifactId"]
        .as_str()
        .or_else(|| item.raw["artifactId"].as_str())
        .ok_or_else(not_an_image)?;
    let found = crate::images::get(ctx, actor.person()?, artifact).await?;
    if found.format.is_none() || !found.mime.starts_with("image/") {
        return Err(not_an_image());
    }
    let bytes = crate::images::bytes(ctx, actor.person()?, artifact).await?;
    Ok(ImagePreview {
        mime: found.mime,
        width: found.width,
        height: found.height,
        data_base64: base64::engine::general_purpose::STANDARD.encode(bytes),
    })
}
