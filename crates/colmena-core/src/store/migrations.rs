//! Versioned schema migrations, tracked in SQLite's `user_version`.
//!
//! Migrations are additive once released: a new file is appended, an old one
//! is never edited. Each table is STRICT.

use rusqlite::Connection;
use rusqlite_migration::{M, Migrations};

use crate::error::Result;

const FOUNDATION: &str = include_str!("migrations/0001_foundation.sql");

/// Every migration, in order. `migrations().validate()` is run by a test.
pub fn migrations() -> Migrations<'static> {
    Migrations::new(vec![M::up(FOUNDATION).foreign_key_check()])
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
    fn migrating_twice_is_a_no_op_and_the_version_counts_migrations() {
        let mut conn = Connection::open_in_memory().unwrap();
        migrations().to_latest(&mut conn).unwrap();
        migrations().to_latest(&mut conn).unwrap();
        let version = schema_version(&conn).unwrap();
        assert_eq!(version, 1);
    }
}
