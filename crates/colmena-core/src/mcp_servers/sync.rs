//! A server's tools as rows of the tool catalog (SPEC H16), named the way
//! Claude Code names them — `mcp__<server>__<tool>` — so the same glob
//! patterns (`mcp__github__*`) assign them. The rows stay between starts:
//! the catalog shows what a server offered last even while it is stopped,
//! and a run that needs one of them starts the server.

use std::collections::BTreeSet;

use chrono::Utc;
use rusqlite::{OptionalExtension, Transaction, params};
use serde_json::{Value, json};

use super::port::RemoteTool;
use crate::error::Result;
use crate::search::{self, DocKind, SearchDoc};
use crate::tools;

/// Longest tool name the model providers accept.
const MAX_TOOL_NAME: usize = 64;
/// Longest description kept from a server.
const MAX_DESCRIPTION: usize = 4000;
/// Most tools kept from one server, and the largest argument schema.
const MAX_TOOLS: usize = 500;
const MAX_SCHEMA_BYTES: usize = 64 * 1024;
const MAX_REMOTE_NAME: usize = 256;

/// The catalog name of `tool` of `server`: characters providers refuse in a
/// tool name become `_`, and the whole is cut to 64.
pub(crate) fn tool_id(server: &str, tool: &str) -> String {
    let clean: String = tool
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let mut id = format!("mcp__{server}__{clean}");
    id.truncate(MAX_TOOL_NAME);
    id
}

/// An arguments schema a model and the validator accept: an object schema.
fn object_schema(schema: &Value) -> Value {
    match schema {
        Value::Object(map) if map.get("type").is_some_and(|t| t == "object") => schema.clone(),
        Value::Object(map) if !map.contains_key("type") => {
            let mut map = map.clone();
            map.insert("type".into(), json!("object"));
            Value::Object(map)
        }
        _ => json!({ "type": "object" }),
    }
}

/// What changed in the catalog.
pub(crate) struct Synced {
    pub upserts: Vec<SearchDoc>,
    pub deletes: Vec<(DocKind, String)>,
    pub generation: i64,
}

/// Makes the catalog hold exactly `listed` for `server`, keeping what
/// people set (on/off, shown names) on the tools that stay.
pub(crate) fn replace(tx: &Transaction<'_>, server: &str, listed: &[RemoteTool]) -> Result<Synced> {
    // A server switched off (or deleted) while it was starting or listing
    // keeps no tools: the check is in the same transaction as the write.
    let enabled: Option<bool> = tx
        .query_row(
            "SELECT enabled FROM mcp_servers WHERE id = ?1",
            [server],
            |r| r.get(0),
        )
        .optional()?;
    if enabled != Some(true) {
        return remove(tx, server);
    }
    let now = Utc::now();
    let mut kept = BTreeSet::new();
    let mut upserts = Vec::new();
    if listed.len() > MAX_TOOLS {
        tracing::warn!(
            "MCP server {server} lists {} tools; the first {MAX_TOOLS} are kept",
            listed.len()
        );
    }
    for tool in listed.iter().take(MAX_TOOLS) {
        if tool.name.len() > MAX_REMOTE_NAME {
            tracing::warn!(
                "MCP server {server}: a tool name of {} bytes was skipped",
                tool.name.len()
            );
            continue;
        }
        let id = tool_id(server, &tool.name);
        if !kept.insert(id.clone()) {
            tracing::warn!(
                "MCP server {server}: tool {:?} clashes with another after renaming to {id}",
                tool.name
            );
            continue;
        }
        let description: String = tool.description.chars().take(MAX_DESCRIPTION).collect();
        let parameters = object_schema(&tool.input_schema).to_string();
        if parameters.len() > MAX_SCHEMA_BYTES {
            tracing::warn!(
                "MCP server {server}: the schema of {id} is over {MAX_SCHEMA_BYTES} bytes; skipped"
            );
            kept.remove(&id);
            continue;
        }
        let taken_by_other: bool = tx.query_row(
            "SELECT EXISTS (SELECT 1 FROM tools WHERE id = ?1 AND mcp_server_id IS NOT ?2)",
            params![id, server],
            |r| r.get(0),
        )?;
        if taken_by_other {
            tracing::warn!("MCP server {server}: tool id {id} belongs to another source; skipped");
            continue;
        }
        tx.execute(
            "INSERT INTO tools (id, category, description, parameters, source, active, created_at, updated_at, mcp_server_id, mcp_tool_name, mcp_read_only)
             VALUES (?1, 'mcp', ?2, ?3, 'mcp', 1, ?4, ?4, ?5, ?6, ?7)
             ON CONFLICT (id) DO UPDATE SET description = excluded.description, parameters = excluded.parameters,
                mcp_tool_name = excluded.mcp_tool_name, mcp_read_only = excluded.mcp_read_only,
                updated_at = CASE WHEN tools.description = excluded.description AND tools.parameters = excluded.parameters
                                  THEN tools.updated_at ELSE excluded.updated_at END",
            params![id, description, parameters, now, server, tool.name, tool.read_only],
        )?;
        if let Some(row) = tools::find(tx, &id)? {
            upserts.push(tools::doc(&row));
        }
    }
    let deletes = remove_except(tx, server, &kept)?;
    Ok(Synced {
        upserts,
        deletes,
        generation: search::bump_generation(tx)?,
    })
}

/// Takes every tool of `server` out of the catalog (switched off, deleted).
pub(crate) fn remove(tx: &Transaction<'_>, server: &str) -> Result<Synced> {
    let deletes = remove_except(tx, server, &BTreeSet::new())?;
    Ok(Synced {
        upserts: Vec::new(),
        deletes,
        generation: search::bump_generation(tx)?,
    })
}

fn remove_except(
    tx: &Transaction<'_>,
    server: &str,
    keep: &BTreeSet<String>,
) -> Result<Vec<(DocKind, String)>> {
    let ids: Vec<String> = {
        let mut stmt = tx.prepare("SELECT id FROM tools WHERE mcp_server_id = ?1")?;
        let rows = stmt.query_map([server], |r| r.get(0))?;
        rows.collect::<rusqlite::Result<Vec<_>>>()?
    };
    let mut deletes = Vec::new();
    for id in ids.into_iter().filter(|id| !keep.contains(id)) {
        tx.execute("DELETE FROM tools WHERE id = ?1", [&id])?;
        deletes.push((DocKind::Tool, id));
    }
    Ok(deletes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_names_are_what_providers_accept() {
        assert_eq!(
            tool_id("github", "create_issue"),
            "mcp__github__create_issue"
        );
        assert_eq!(tool_id("everything", "get-sum"), "mcp__everything__get-sum");
        assert_eq!(tool_id("fs", "read.file v2"), "mcp__fs__read_file_v2");
        assert_eq!(tool_id("s", &"x".repeat(100)).len(), 64);
    }

    #[test]
    fn schemas_become_object_schemas() {
        assert_eq!(object_schema(&json!(null)), json!({ "type": "object" }));
        assert_eq!(
            object_schema(&json!({ "properties": { "a": {} } })),
            json!({ "type": "object", "properties": { "a": {} } })
        );
    }
}
