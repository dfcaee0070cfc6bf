//! An endpoint as a row of the tool catalog (SPEC H27): `endpoint_<id>`,
//! source 'endpoint', its description and parameter schema the endpoint's.
//! Without the row and its search document the model would never know the
//! endpoint exists (the first loadout is minimal by design, the rest is
//! found by `search_catalog`).
//!
//! The row's `active` follows the endpoint's switch when it is flipped. At every start the
//! rows are re-armed from the endpoints (H29): a row that is missing or
//! out of date is written again, one without its endpoint removed.

use chrono::Utc;
use rusqlite::{OptionalExtension, Transaction, params};

use super::config::TOOL_PREFIX;
use super::store::{self, Row};
use crate::error::Result;
use crate::search::{DocKind, SearchDoc};
use crate::tools;

/// The tool name of endpoint `id`.
pub(crate) fn tool_id(id: &str) -> String {
    format!("{TOOL_PREFIX}{id}")
}

/// Writes (or refreshes) the tool row of `row`; returns its search document.
/// `switch`: the endpoint was switched (or created), so the tool's `active`
/// follows it; otherwise `active` stays what it is (the person's choice,
/// SPEC H17). The shown name and description a person set stay too.
pub(crate) fn upsert(tx: &Transaction<'_>, row: &Row, switch: bool) -> Result<Option<SearchDoc>> {
    let id = tool_id(&row.id);
    let parameters = serde_json::to_string(&row.def.schema)?;
    tx.execute(
        "INSERT INTO tools (id, category, description, parameters, source, active, created_at, updated_at, endpoint_id)
         VALUES (?1, 'endpoint', ?2, ?3, 'endpoint', ?4, ?5, ?5, ?6)
         ON CONFLICT (id) DO UPDATE SET description = excluded.description, parameters = excluded.parameters,
            active = CASE WHEN ?7 THEN excluded.active ELSE tools.active END,
            source = 'endpoint', category = 'endpoint', endpoint_id = excluded.endpoint_id,
            updated_at = excluded.updated_at",
        params![id, row.def.description, parameters, row.enabled, Utc::now(), row.id, switch],
    )?;
    Ok(tools::find(tx, &id)?.map(|t| tools::doc(&t)))
}

/// Takes the tool of endpoint `id` out of the catalog.
pub(crate) fn remove(tx: &Transaction<'_>, id: &str) -> Result<Vec<(DocKind, String)>> {
    let tool = tool_id(id);
    let removed = tx.execute(
        "DELETE FROM tools WHERE id = ?1 AND source = 'endpoint'",
        [&tool],
    )?;
    Ok(if removed > 0 {
        vec![(DocKind::Tool, tool)]
    } else {
        Vec::new()
    })
}

/// At start: every endpoint's tool row as the endpoint says; rows of
/// endpoints that are gone removed. Returns what to re-index.
pub(crate) fn rearm(tx: &Transaction<'_>) -> Result<(Vec<SearchDoc>, Vec<String>)> {
    let mut docs = Vec::new();
    let rows = store::all(tx)?;
    for row in &rows {
        let current: Option<(String, String, Option<String>)> = tx
            .query_row(
                "SELECT description, parameters, endpoint_id FROM tools WHERE id = ?1",
                [tool_id(&row.id)],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .optional()?;
        let wanted = (
            row.def.description.clone(),
            serde_json::to_string(&row.def.schema)?,
            Some(row.id.clone()),
        );
        if current.as_ref() != Some(&wanted)
            && let Some(doc) = upsert(tx, row, current.is_none())?
        {
            docs.push(doc);
        }
    }
    let orphans: Vec<String> = {
        let mut stmt = tx.prepare(
            "SELECT id FROM tools WHERE source = 'endpoint'
               AND (endpoint_id IS NULL OR endpoint_id NOT IN (SELECT id FROM endpoints))",
        )?;
        let ids = stmt.query_map([], |r| r.get(0))?;
        ids.collect::<rusqlite::Result<Vec<_>>>()?
    };
    for id in &orphans {
        tx.execute("DELETE FROM tools WHERE id = ?1", [id])?;
    }
    Ok((docs, orphans))
}
