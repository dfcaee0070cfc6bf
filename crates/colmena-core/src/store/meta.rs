//! The `meta` table: small facts about the workspace itself (which secret
//! backend holds the master key, for instance).

use rusqlite::{Connection, OptionalExtension};

use crate::error::Result;

/// One fact; prepared once per connection (hot paths read limits here).
pub fn get(conn: &Connection, key: &str) -> Result<Option<String>> {
    Ok(conn
        .prepare_cached("SELECT value FROM meta WHERE key = ?1")?
        .query_row([key], |r| r.get(0))
        .optional()?)
}

pub fn set(conn: &Connection, key: &str, value: &str) -> Result<()> {
    conn.execute(
        "INSERT INTO meta (key, value) VALUES (?1, ?2)
         ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        [key, value],
    )?;
    Ok(())
}
