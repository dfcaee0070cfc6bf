//! Versioned schema migrations, tracked in SQLite's `user_version`.
//!
//! Migrations are additive once released: a new file is appended, an old one
//! is never edited. Each table is STRICT.

use rusqlite::Connection;
use rusqlite_migration::{M, Migrations};

use crate::error::Result;

const FOUNDATION: &str = include_str!("migrations/0001_foundation.sql");
const CATALOG: &str = include_str!("migrations/0002_catalog.sql");
const RUNTIME: &str = include_str!("migrations/0003_runtime.sql");
const BUS: &str = include_str!("migrations/0004_bus.sql");
const CANVAS: &str = include_str!("migrations/0005_canvas.sql");
const IMAGES: &str = include_str!("migrations/0006_images.sql");
const VARIANT_LEASES: &str = include_str!("migrations/0007_variant_leases.sql");
const ROLE_WAKES: &str = include_str!("migrations/0008_role_wakes.sql");

/// Every migration, in order. `migrations().validate()` is run by a test.
pub fn migrations() -> Migrations<'static> {
    Migrations::new(vec![
        M::up(FOUNDATION).foreign_key_check(),
        M::up(CATALOG).foreign_key_check(),
        M::up(RUNTIME).foreign_key_check(),
        M::up(BUS).foreign_key_check(),
        M::up(CANVAS).foreign_key_check(),
        M::up(IMAGES).foreign_key_check(),
        M::up(VARIANT_LEASES).foreign_key_check(),
        M::up(ROLE_WAKES).foreign_key_check(),
    ])
}

/// The schema version the file is at (the number of applied migrations).
pub fn schema_version(conn: &Connection) -> Result<i64> {
    Ok(conn.query_row("PRAGMA user_version", [], |r| r.get(0))?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn migrations_are_valid() {
        migrations().validate().unwrap();
    }

    #[test]
    fn every_table_is_strict() {
        let mut conn = Connection::open_in_memory().unwrap();
        migrations().to_latest(&mut conn).unwrap();
        let mut stmt = conn
            .prepare("SELECT name, sql FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
            .unwrap();
        let tables: Vec<(String, String)> = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        assert!(!tables.is_empty());
        for (name, sql) in tables {
            assert!(
                sql.trim_end().ends_with("STRICT"),
                "table {name} is not STRICT"
            );
        }
    }

    #[test]
    fn data_written_at_version_1_survives_the_catalog_migration() {
        let mut conn = Connection::open_in_memory().unwrap();
        conn.pragma_update(None, "foreign_keys", "ON").unwrap();
        migrations().to_version(&mut conn, 1).unwrap();
        conn.execute_batch(
            "INSERT INTO providers (id, name, kind, base_url, enabled, created_at, updated_at)
               VALUES ('openai', 'OpenAI', 'openai_compatible', 'https://api.openai.com/v1', 1, 'now', 'now');
             INSERT INTO models (id, provider_id, name, created_at, updated_at)
               VALUES ('openai/gpt-4o', 'openai', 'gpt-4o', 'now', 'now');
             INSERT INTO agents (id, name, model_id, created_at, updated_at)
               VALUES ('uno', 'Uno', 'openai/gpt-4o', 'now', 'now');",
        )
        .unwrap();
        migrations().to_latest(&mut conn).unwrap();
        let (model, persona): (String, Option<String>) = conn
            .query_row(
                "SELECT model_id, persona FROM agents WHERE id = 'uno'",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap();
        assert_eq!(model, "openai/gpt-4o");
        assert_eq!(persona, None);
    }

    #[test]
    fn migrating_twice_is_a_no_op_and_the_version_counts_migrations() {
        let mut conn = Connection::open_in_memory().unwrap();
        migrations().to_latest(&mut conn).unwrap();
        migrations().to_latest(&mut conn).unwrap();
        let version = schema_version(&conn).unwrap();
        assert_eq!(version, 8);
    }
}
