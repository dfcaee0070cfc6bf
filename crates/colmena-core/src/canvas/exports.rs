//! Exports (SPEC C6): a variant's round as markdown — written to the file
//! the person chose, copied, or handed to the caller — and an export event
//! recorded, which feeds "exports in the last 7 days".

use std::path::PathBuf;

use chrono::{Duration, Utc};
use rusqlite::params;
use serde::{Deserialize, Serialize};

use super::variants::{require_variant, rounds_in};
use super::{Caller, activity, require, touch};
use crate::ctx::{Change, Ctx};
use crate::error::{AppError, Result};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum ExportTarget {
    /// Written to `path`.
    File,
    /// The app copies the markdown it gets back.
    Clipboard,
    /// The caller (an agent over MCP, the CLI) takes the text.
    #[default]
    Caller,
}

impl ExportTarget {
    fn as_str(self) -> &'static str {
        match self {
            ExportTarget::File => "file",
            ExportTarget::Clipboard => "clipboard",
            ExportTarget::Caller => "caller",
        }
    }
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ExportRequest {
    pub canvas_id: String,
    pub variant_id: String,
    /// Default: the round shown.
    #[serde(default)]
    pub round_id: Option<String>,
    /// Only `markdown` today.
    #[serde(default)]
    pub format: Option<String>,
    #[serde(default)]
    pub target: ExportTarget,
    /// Where to write, with `target: file`.
    #[serde(default)]
    pub path: Option<PathBuf>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Exported {
    pub export_id: String,
    pub markdown: String,
    pub path: Option<PathBuf>,
}

/// `export_variant({ canvasId, variantId, roundId?, format })`.
pub async fn export_variant(ctx: &Ctx, actor: &Caller, request: ExportRequest) -> Result<Exported> {
    let format = request.format.clone().unwrap_or_else(|| "markdown".into());
    if format != "markdown" {
        return Err(AppError::invalid_field(
            "format",
            "unknown_format",
            format!("the export format is 'markdown', not '{format}'"),
        ));
    }
    if request.target == ExportTarget::File && request.path.is_none() {
        return Err(AppError::invalid_field(
            "path",
            "required",
            "a file export needs a path",
        ));
    }
    let (actor2, req) = (actor.clone(), request.clone());
    let (markdown, round_id) = ctx
        .store()
        .read(move |conn| {
            let canvas = require(conn, actor2.person()?, &req.canvas_id)?;
            let variant = require_variant(conn, actor2.person()?, &req.variant_id)?;
            if variant.canvas_id != canvas.id {
                return Err(AppError::not_found("variant", &req.variant_id));
            }
            let rounds = rounds_in(conn, &variant.id)?;
            let round = match &req.round_id {
                Some(id) => rounds
                    .iter()
                    .find(|r| &r.id == id)
                    .ok_or_else(|| AppError::not_found("round", id))?,
                None => usize::try_from(variant.active_round)
                    .ok()
                    .and_then(|i| rounds.get(i))
                    .ok_or_else(|| {
                        AppError::precondition(
                            "this variant has no round to export yet: generate it first",
                        )
                    })?,
            };
            let items = super::items::list_in(conn, &canvas.id)?;
            let title = canvas
                .name
                .clone()
                .unwrap_or_else(|| variant.preset_id.clone());
            let mut text = format!("# {title}\n\n{}\n", round.output.trim_end());
            if !items.is_empty() {
                text.push_str("\n---\n\nSources:\n\n");
                for item in &items {
                    let url = item.raw.get("url").and_then(|u| u.as_str()).or(item
                        .external_id
                        .as_deref()
                        .filter(|e| e.starts_with("http")));
                    match url {
                        Some(url) => text.push_str(&format!("- [{}]({url})\n", item.title)),
                        None => text.push_str(&format!("- {}\n", item.title)),
                    }
                }
            }
            Ok((text, round.id.clone()))
        })
        .await?;
    if let Some(path) = request
        .path
        .as_ref()
        .filter(|_| request.target == ExportTarget::File)
    {
        std::fs::write(path, &markdown).map_err(|e| {
            AppError::invalid_field(
                "path",
                "not_writable",
                format!("cannot write {}: {e}", path.display()),
            )
        })?;
    }
    let (actor2, req) = (actor.clone(), request.clone());
    let export_id = ctx
        .store()
        .write(move |tx| {
            let id = uuid::Uuid::now_v7().to_string();
            tx.execute(
                "INSERT INTO canvas_exports (id, canvas_id, user_id, variant_id, round_id, format, target, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, 'markdown', ?6, ?7)",
                params![id, req.canvas_id, actor2.person()?, req.variant_id, round_id, req.target.as_str(), Utc::now()],
            )?;
            touch(tx, &req.canvas_id)?;
            let detail = match &req.path {
                Some(p) if req.target == ExportTarget::File => format!("markdown to {}", p.display()),
                _ => format!("markdown ({})", req.target.as_str()),
            };
            activity::record(tx, &actor2, Some(&req.canvas_id), "session.export_variant", &detail)?;
            Ok(id)
        })
        .await?;
    ctx.changed(Change::Canvases);
    Ok(Exported {
        export_id,
        markdown,
        path: request
            .path
            .filter(|_| request.target == ExportTarget::File),
    })
}

/// How many exports the user made in the last 7 days (the Console's figure).
pub async fn exports_last_7_days(ctx: &Ctx, actor: &Caller) -> Result<u32> {
    let user = actor.person()?.to_owned();
    ctx.store()
        .read(move |conn| {
            Ok(conn.query_row(
                "SELECT count(*) FROM canvas_exports WHERE user_id = ?1 AND created_at >= ?2",
                params![user, Utc::now() - Duration::days(7)],
                |r| r.get(0),
            )?)
        })
        .await
}
