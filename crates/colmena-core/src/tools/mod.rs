//! Tools (SPEC H16, H17): list, get, switch on and off, rename for people,
//! and expand glob patterns against the catalog (H3).
//!
//! The rows mirror the built-in tools (`toolbox::catalog::BUILTIN_TOOLS`,
//! handed to [`reseed`]), endpoint and MCP tools. The code owns a tool's description, category and schema; the
//! user owns whether it is active and how it is shown. A shown name or
//! description the user set is stored apart from the code's, so re-seeding
//! at start never loses it and clearing it restores the code's text.

pub(crate) mod arguments;
pub mod builtin;
pub(crate) mod offered;

use std::collections::BTreeSet;

use chrono::{DateTime, Utc};
use rusqlite::{Connection, OptionalExtension, Row, Transaction, params};
use serde::{Deserialize, Serialize};
use serde_json::json;

use self::builtin::{ToolDef, is_minimal};
use crate::ctx::{Change, Ctx};
use crate::error::{AppError, ErrorCode, Result};
use crate::glob;
use crate::search::{self, SearchDoc};

const MAX_SHOWN_NAME: usize = 80;
const MAX_DESCRIPTION: usize = 2000;

/// Where a tool comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum ToolSource {
    Builtin,
    Endpoint,
    Mcp,
}

/// A tool as adapters see it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Tool {
    /// The name a model calls.
    pub id: String,
    /// The name shown to people (the user's, else the id).
    pub display_name: String,
    /// What the model reads (the user's, else the code's).
    pub description: String,
    pub category: String,
    /// JSON schema of the arguments.
    pub parameters: serde_json::Value,
    pub source: ToolSource,
    pub active: bool,
    /// Part of what every hive needs (SPEC H31).
    pub minimal: bool,
    /// The user changed the shown name or description.
    pub customized: bool,
    pub updated_at: DateTime<Utc>,
}

/// What [`update_metadata`] changes; `Some("")` restores the code's value.
#[derive(Debug, Clone, Default, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ToolMetadata {
    #[serde(default)]
    pub display_name: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ToolFilter {
    #[serde(default)]
    pub category: Option<String>,
    #[serde(default)]
    pub active_only: bool,
}

/// What a list of patterns expands to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct PatternExpansion {
    pub patterns: Vec<PatternMatch>,
    /// Every tool matched, once, sorted.
    pub tools: Vec<String>,
    /// Patterns that match no tool.
    pub unmatched: Vec<String>,
    /// Patterns that are not valid patterns, with why.
    pub invalid: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct PatternMatch {
    pub pattern: String,
    pub tools: Vec<String>,
}

const SELECT: &str = "SELECT id, COALESCE(display_name, id) AS shown, COALESCE(description_override, description) AS text,
        category, parameters, source, active, (display_name IS NOT NULL OR description_override IS NOT NULL) AS customized,
        updated_at
    FROM tools";

fn from_row(row: &Row<'_>) -> rusqlite::Result<Tool> {
    let id: String = row.get("id")?;
    let parameters: String = row.get("parameters")?;
    let source: String = row.get("source")?;
    Ok(Tool {
        minimal: is_minimal(&id),
        display_name: row.get("shown")?,
        description: row.get("text")?,
        category: row.get("category")?,
        parameters: serde_json::from_str(&parameters).unwrap_or(serde_json::Value::Null),
        source: match source.as_str() {
            "endpoint" => ToolSource::Endpoint,
            "mcp" => ToolSource::Mcp,
            _ => ToolSource::Builtin,
        },
        active: row.get("active")?,
        customized: row.get("customized")?,
        updated_at: row.get("updated_at")?,
        id,
    })
}

pub(crate) fn find(conn: &Connection, id: &str) -> Result<Option<Tool>> {
    Ok(conn
        .query_row(&format!("{SELECT} WHERE id = ?1"), [id], from_row)
        .optional()?)
}

fn require(conn: &Connection, id: &str) -> Result<Tool> {
    find(conn, id)?.ok_or_else(|| AppError::not_found("tool", id))
}

pub(crate) fn doc(tool: &Tool) -> SearchDoc {
    search::tool_doc(
        &tool.id,
        &tool.display_name,
        &tool.description,
        &tool.category,
        tool.active,
    )
}

/// Every tool name in the catalog, sorted.
pub(crate) fn all_names(conn: &Connection) -> Result<Vec<String>> {
    let mut stmt = conn.prepare("SELECT id FROM tools ORDER BY id")?;
    let names = stmt
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<Vec<String>>>()?;
    Ok(names)
}

pub async fn list(ctx: &Ctx, filter: ToolFilter) -> Result<Vec<Tool>> {
    ctx.store()
        .read(move |conn| {
            let mut stmt = conn.prepare(&format!(
                "{SELECT} WHERE (?1 IS NULL OR category = ?1) AND (?2 = 0 OR active = 1)
                 ORDER BY category, id"
            ))?;
            let rows = stmt.query_map(params![filter.category, filter.active_only], from_row)?;
            Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
        })
        .await
}

pub async fn get(ctx: &Ctx, id: &str) -> Result<Tool> {
    let id = id.to_owned();
    ctx.store().read(move |conn| require(conn, &id)).await
}

/// Switches a tool on or off; `None` flips it.
pub async fn switch(ctx: &Ctx, id: &str, target: Option<bool>) -> Result<Tool> {
    let id = id.to_owned();
    let (tool, generation) = ctx
        .store()
        .write(move |tx| {
            let current = require(tx, &id)?;
            let active = target.unwrap_or(!current.active);
            tx.execute(
                "UPDATE tools SET active = ?2, updated_at = ?3 WHERE id = ?1",
                params![id, active, Utc::now()],
            )?;
            Ok((require(tx, &id)?, search::bump_generation(tx)?))
        })
        .await?;
    ctx.index(vec![doc(&tool)], vec![], generation).await;
    ctx.changed(Change::Tools);
    Ok(tool)
}

pub async fn set_active(ctx: &Ctx, id: &str, active: bool) -> Result<Tool> {
    switch(ctx, id, Some(active)).await
}

/// Changes how a tool is shown to people and described to models.
pub async fn update_metadata(ctx: &Ctx, id: &str, input: ToolMetadata) -> Result<Tool> {
    let shown = normalize_override("displayName", input.display_name, MAX_SHOWN_NAME)?;
    let description = normalize_override("description", input.description, MAX_DESCRIPTION)?;
    let id = id.to_owned();
    let (tool, generation) = ctx
        .store()
        .write(move |tx| {
            require(tx, &id)?;
            let now = Utc::now();
            if let Some(shown) = shown {
                tx.execute(
                    "UPDATE tools SET display_name = ?2, updated_at = ?3 WHERE id = ?1",
                    params![id, shown, now],
                )?;
            }
            if let Some(description) = description {
                tx.execute(
                    "UPDATE tools SET description_override = ?2, updated_at = ?3 WHERE id = ?1",
                    params![id, description, now],
                )?;
            }
            Ok((require(tx, &id)?, search::bump_generation(tx)?))
        })
        .await?;
    ctx.index(vec![doc(&tool)], vec![], generation).await;
    ctx.changed(Change::Tools);
    Ok(tool)
}

/// `None`: leave as is; `Some(None)`: back to the code's; `Some(Some(text))`: override.
fn normalize_override(
    field: &str,
    value: Option<String>,
    max: usize,
) -> Result<Option<Option<String>>> {
    let Some(value) = value else {
        return Ok(None);
    };
    let trimmed = value.trim();
    if trimmed.is_empty() {
        return Ok(Some(None));
    }
    if trimmed.chars().count() > max {
        return Err(AppError::invalid_field(
            field,
            "too_long",
            format!("{field} must be at most {max} characters"),
        ));
    }
    Ok(Some(Some(trimmed.to_owned())))
}

/// Expands tool patterns against the catalog (SPEC H3); reports patterns
/// that are malformed or match nothing instead of dropping them.
pub async fn expand(ctx: &Ctx, patterns: Vec<String>) -> Result<PatternExpansion> {
    ctx.store()
        .read(move |conn| expand_in(conn, &patterns))
        .await
}

pub(crate) fn expand_in(conn: &Connection, patterns: &[String]) -> Result<PatternExpansion> {
    let names = all_names(conn)?;
    // A pattern for an MCP server's tools (`mcp__github__*`) is valid
    // before the server has listed them — it has not started yet, is
    // switched off, or is still to be added (the browser specialist's
    // `mcp__playwright__*` before the preset): they arrive when it runs.
    let awaits_server = |pattern: &str| pattern.starts_with("mcp__");
    let mut expansion = PatternExpansion {
        patterns: Vec::new(),
        tools: Vec::new(),
        unmatched: Vec::new(),
        invalid: Vec::new(),
    };
    let mut all = BTreeSet::new();
    for pattern in patterns {
        let pattern = pattern.trim();
        if let Err(e) = glob::validate("tools", pattern) {
            expansion.invalid.push(e.message);
            continue;
        }
        let matched: Vec<String> = names
            .iter()
            .filter(|n| glob::matches(pattern, n))
            .cloned()
            .collect();
        if matched.is_empty() && !awaits_server(pattern) {
            expansion.unmatched.push(pattern.to_owned());
        }
        all.extend(matched.iter().cloned());
        expansion.patterns.push(PatternMatch {
            pattern: pattern.to_owned(),
            tools: matched,
        });
    }
    expansion.tools = all.into_iter().collect();
    Ok(expansion)
}

/// The validation error for an expansion with bad patterns, if any.
pub(crate) fn expansion_error(expansion: &PatternExpansion) -> Option<AppError> {
    if !expansion.invalid.is_empty() {
        return Some(
            AppError::new(ErrorCode::Validation, expansion.invalid.join("; "))
                .with_details(json!({ "field": "tools", "reason": "invalid_pattern" })),
        );
    }
    if !expansion.unmatched.is_empty() {
        return Some(
            AppError::new(
                ErrorCode::Validation,
                format!(
                    "tool patterns match no tool: {}",
                    expansion.unmatched.join(", ")
                ),
            )
            .with_details(json!({
                "field": "tools",
                "reason": "unknown_tools",
                "unknownTools": expansion.unmatched,
            })),
        );
    }
    None
}

/// Re-seeds the built-in tool rows from code (SPEC H17): description,
/// category and schema follow the code; `active` and the user's overrides
/// stay. New tools start active only if they are minimal. Built-in rows no
/// longer in code are removed. `builtins` is the code's list
/// (`toolbox::catalog::BUILTIN_TOOLS`). Returns the documents to re-index.
pub(crate) fn reseed(
    tx: &Transaction<'_>,
    builtins: &[ToolDef],
) -> Result<(Vec<SearchDoc>, Vec<String>)> {
    let now = Utc::now();
    let mut changed = Vec::new();
    for def in builtins {
        let parameters_now = def.parameters();
        let existing: Option<(String, String, String)> = tx
            .query_row(
                "SELECT description, category, parameters FROM tools WHERE id = ?1",
                [def.name],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .optional()?;
        match existing {
            None => {
                tx.execute(
                    "INSERT INTO tools (id, category, description, parameters, source, active, created_at, updated_at)
                     VALUES (?1, ?2, ?3, ?4, 'builtin', ?5, ?6, ?6)",
                    params![def.name, def.category, def.description, parameters_now, is_minimal(def.name), now],
                )?;
            }
            Some((description, category, parameters))
                if description != def.description
                    || category != def.category
                    || parameters != parameters_now =>
            {
                tx.execute(
                    "UPDATE tools SET description = ?2, category = ?3, parameters = ?4, updated_at = ?5 WHERE id = ?1",
                    params![def.name, def.description, def.category, parameters_now, now],
                )?;
            }
            Some(_) => continue,
        }
        if let Some(tool) = find(tx, def.name)? {
            changed.push(doc(&tool));
        }
    }
    let mut stale = tx.prepare("SELECT id FROM tools WHERE source = 'builtin'")?;
    let removed: Vec<String> = stale
        .query_map([], |r| r.get::<_, String>(0))?
        .collect::<rusqlite::Result<Vec<_>>>()?
        .into_iter()
        .filter(|id| !builtins.iter().any(|def| def.name == id))
        .collect();
    for id in &removed {
        tx.execute("DELETE FROM tools WHERE id = ?1", [id])?;
    }
    Ok((changed, removed))
}
