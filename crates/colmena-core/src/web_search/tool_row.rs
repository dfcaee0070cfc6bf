//! The `web_search` row of the tool catalog follows the configuration: on
//! while a backend is configured, off otherwise (a tool that has nothing to
//! ask is not offered to any model).

use chrono::Utc;
use rusqlite::Connection;

use super::{TOOL, stored};
use crate::error::Result;
use crate::search::SearchDoc;

/// Switches the tool row on or off; the document to re-index if it changed.
pub(super) fn set_tool_active_in(conn: &Connection, active: bool) -> Result<Option<SearchDoc>> {
    let changed = conn.execute(
        "UPDATE tools SET active = ?2, updated_at = ?3 WHERE id = ?1 AND active != ?2",
        rusqlite::params![TOOL, active, Utc::now()],
    )?;
    if changed == 0 {
        return Ok(None);
    }
    Ok(crate::tools::find(conn, TOOL)?.map(|t| crate::tools::doc(&t)))
}

/// The catalog tools that stay off because they have nothing to ask yet
/// (setup leaves them out of what it activates).
pub(crate) fn needs_setup(conn: &Connection) -> Result<Vec<&'static str>> {
    Ok(if stored::read(conn)?.is_none() {
        vec![TOOL]
    } else {
        Vec::new()
    })
}

/// At start: `web_search` is off while no backend is configured (a store
/// from before the tool was real may have it on).
pub(crate) fn sync_tool_in(conn: &Connection) -> Result<Option<SearchDoc>> {
    if stored::read(conn)?.is_none() {
        set_tool_active_in(conn, false)
    } else {
        Ok(None)
    }
}
