//! Versioned schema migrations, tracked in SQLite's `user_version`.
//!
//! Migrations are additive once released: a new file is appended to
//! [`SCRIPTS`], an old one is never edited. Each table is STRICT.
//!
//! Why they are applied here and not by `rusqlite_migration::to_latest`: that
//! reads `user_version` before opening its (deferred) transaction, so the app
//! and `colmena serve` starting together on an old store would both decide to
//! migrate and the second would fail on "table already exists". Here the
//! version is re-read *inside* a `BEGIN IMMEDIATE` transaction: whoever gets
//! the write lock first migrates, the other waits and then finds nothing to
//! do. `rusqlite_migration` still validates the list and answers the doctor.

use std::time::Duration;

use rusqlite::{Connection, TransactionBehavior};
use rusqlite_migration::{M, Migrations};

use crate::error::{AppError, Result};

const FOUNDATION: &str = include_str!("migrations/0001_foundation.sql");
const CATALOG: &str = include_str!("migrations/0002_catalog.sql");
const RUNTIME: &str = include_str!("migrations/0003_runtime.sql");
const BUS: &str = include_str!("migrations/0004_bus.sql");
const CANVAS: &str = include_str!("migrations/0005_canvas.sql");
const IMAGES: &str = include_str!("migrations/0006_images.sql");
const VARIANT_LEASES: &str = include_str!("migrations/0007_variant_leases.sql");
const ROLE_WAKES: &str = include_str!("migrations/0008_role_wakes.sql");
const PERMISSIONS: &str = include_str!("migrations/0009_permissions.sql");
const HAND_ROUNDS: &str = include_str!("migrations/0010_hand_rounds.sql");
const MCP_SERVERS: &str = include_str!("migrations/0011_mcp_servers.sql");
const CRON: &str = include_str!("migrations/0012_cron.sql");
const ENDPOINTS: &str = include_str!("migrations/0013_endpoints.sql");
const MODEL_IMAGES: &str = include_str!("migrations/0014_model_images.sql");
const PERSISTENT_ROLES: &str = include_str!("migrations/0015_persistent_roles.sql");
const INBOX_THREADS: &str = include_str!("migrations/0016_inbox_threads.sql");
const BUS_CLIENT_IDS: &str = include_str!("migrations/0017_bus_client_ids.sql");
const TEAM_BUS: &str = include_str!("migrations/0018_team_bus.sql");
const ACT_AND_REPLY: &str = include_str!("migrations/0019_act_and_reply.sql");
const LOCAL_PROVIDER: &str = include_str!("migrations/0020_local_provider.sql");
const ACTIVITY: &str = include_str!("migrations/0021_activity.sql");
const CHAT_BRANCHES: &str = include_str!("migrations/0022_chat_branches.sql");
const JOB_RESULTS: &str = include_str!("migrations/0023_job_results.sql");

/// Every migration script, in order; version N is "the first N applied".
/// Append new ones at the end.
const SCRIPTS: &[&str] = &[
    FOUNDATION,
    CATALOG,
    RUNTIME,
    BUS,
    CANVAS,
    IMAGES,
    VARIANT_LEASES,
    ROLE_WAKES,
    PERMISSIONS,
    HAND_ROUNDS,
    MCP_SERVERS,
    CRON,
    ENDPOINTS,
    MODEL_IMAGES,
    PERSISTENT_ROLES,
    INBOX_THREADS,
    BUS_CLIENT_IDS,
    TEAM_BUS,
    ACT_AND_REPLY,
    LOCAL_PROVIDER,
    ACTIVITY,
    CHAT_BRANCHES,
    JOB_RESULTS,
];

/// How long a process starting on a store being migrated (and backed up) by
/// another waits for the write lock, instead of the usual busy timeout.
const MIGRATION_WAIT: Duration = Duration::from_secs(600);

/// Every migration, in order. `migrations().validate()` is run by a test.
pub fn migrations() -> Migrations<'static> {
    Migrations::new(
        SCRIPTS
            .iter()
            .map(|sql| M::up(sql).foreign_key_check())
            .collect(),
    )
}

/// The schema version this build migrates to.
pub fn latest_version() -> i64 {
    i64::try_from(SCRIPTS.len()).unwrap_or(i64::MAX)
}

/// The schema version the file is at (the number of applied migrations).
pub fn schema_version(conn: &Connection) -> Result<i64> {
    Ok(conn.query_row("PRAGMA user_version", [], |r| r.get(0))?)
}

/// Applies the pending migrations, if any, in one `IMMEDIATE` transaction
/// that re-reads the version once it holds the write lock. `before(from)` runs
/// inside that transaction, before the first change, when the store already
/// had a schema (`from > 0`): the pre-migration backup, taken by another
/// connection that still sees the store as it was. Returns the version
/// migrated from, or `None` when there was nothing to do.
pub(crate) fn apply_pending(
    conn: &mut Connection,
    before: impl FnOnce(i64) -> Result<()>,
) -> Result<Option<i64>> {
    let latest = latest_version();
    if check_known(schema_version(conn)?, latest)? {
        return Ok(None);
    }
    conn.busy_timeout(MIGRATION_WAIT)?;
    // Foreign keys off while the scripts run, as SQLite documents for
    // rebuilding a table (0020): dropping a parent table must not cascade
    // into its children. Every script is followed by `foreign_key_check`.
    conn.pragma_update(None, "foreign_keys", "OFF")?;
    let outcome = apply_locked(conn, latest, before);
    conn.pragma_update(None, "foreign_keys", "ON")?;
    conn.busy_timeout(super::BUSY_TIMEOUT)?;
    outcome
}

fn apply_locked(
    conn: &mut Connection,
    latest: i64,
    before: impl FnOnce(i64) -> Result<()>,
) -> Result<Option<i64>> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let from = schema_version(&tx)?;
    if check_known(from, latest)? {
        // Another process migrated while this one waited for the lock.
        return Ok(None);
    }
    if from > 0 {
        before(from)?;
    }
    let first = usize::try_from(from).unwrap_or(0);
    for (index, sql) in SCRIPTS.iter().enumerate().skip(first) {
        tx.execute_batch(sql)
            .map_err(|e| AppError::internal(format!("migration {} failed: {e}", index + 1)))?;
        let violation: Option<String> = {
            let mut check = tx.prepare("PRAGMA foreign_key_check")?;
            let mut rows = check.query([])?;
            match rows.next()? {
                Some(row) => Some(row.get(0)?),
                None => None,
            }
        };
        if let Some(table) = violation {
            return Err(AppError::internal(format!(
                "migration {} left a broken reference in {table}",
                index + 1
            )));
        }
    }
    tx.pragma_update(None, "user_version", latest)?;
    tx.commit()?;
    tracing::info!("store migrated from schema {from} to {latest}");
    Ok(Some(from))
}

/// `true` when `version` is current; an error when it is newer than this
/// build knows (a store written by a later Colmena).
fn check_known(version: i64, latest: i64) -> Result<bool> {
    if version > latest {
        return Err(AppError::precondition(format!(
            "the store is at schema {version}, newer than this Colmena knows ({latest}); \
             update Colmena or restore a backup"
        )));
    }
    Ok(version == latest)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Up to the latest version the way [`apply_pending`] does it: with
    /// foreign keys off while the scripts run, on again after.
    fn migrate_like_the_store(conn: &mut Connection) {
        conn.pragma_update(None, "foreign_keys", "OFF").unwrap();
        migrations().to_latest(conn).unwrap();
        conn.pragma_update(None, "foreign_keys", "ON").unwrap();
    }

    #[test]
    fn migrations_are_valid() {
        migrations().validate().unwrap();
    }

    #[test]
    fn every_table_is_strict() {
        let mut conn = Connection::open_in_memory().unwrap();
        migrate_like_the_store(&mut conn);
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
            let options = &sql[sql.rfind(')').map_or(0, |at| at + 1)..];
            assert!(
                options
                    .split(',')
                    .any(|o| o.trim().trim_end_matches(';') == "STRICT"),
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
        migrate_like_the_store(&mut conn);
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

    /// 0019: the old default grant ("send" alone) becomes "reply"; a grant
    /// a person widened is kept; an agent that refused to send refuses to
    /// act on other systems too, the others ask.
    #[test]
    fn the_old_default_grant_becomes_reply_and_acting_asks_or_is_refused() {
        let mut conn = Connection::open_in_memory().unwrap();
        conn.pragma_update(None, "foreign_keys", "ON").unwrap();
        migrations().to_version(&mut conn, 18).unwrap();
        conn.execute_batch(
            "INSERT INTO agents (id, name, created_at, updated_at) VALUES
               ('quiet', 'Quiet', 'now', 'now'), ('open', 'Open', 'now', 'now');
             INSERT INTO agent_permissions (agent_id, read, write, run, network, send) VALUES
               ('quiet', 'allow', 'ask', 'ask', 'ask', 'deny'),
               ('open', 'allow', 'allow', 'allow', 'allow', 'allow');
             INSERT INTO authors (id, name, kind, token_hash, created_at) VALUES
               ('plain', 'Plain', 'role', x'01', 'now'), ('wide', 'Wide', 'role', x'02', 'now');
             INSERT INTO role_unattended (author_id, risk) VALUES
               ('plain', 'send'), ('wide', 'send'), ('wide', 'network');",
        )
        .unwrap();
        migrate_like_the_store(&mut conn);
        let grant = |role: &str| -> Vec<String> {
            let mut stmt = conn
                .prepare("SELECT risk FROM role_unattended WHERE author_id = ?1 ORDER BY risk")
                .unwrap();
            stmt.query_map([role], |r| r.get(0))
                .unwrap()
                .collect::<rusqlite::Result<_>>()
                .unwrap()
        };
        assert_eq!(grant("plain"), ["reply"]);
        assert_eq!(grant("wide"), ["network", "send"]);
        let act = |agent: &str| -> String {
            conn.query_row(
                "SELECT act FROM agent_permissions WHERE agent_id = ?1",
                [agent],
                |r| r.get(0),
            )
            .unwrap()
        };
        assert_eq!(act("quiet"), "deny");
        assert_eq!(act("open"), "ask");
    }

    #[test]
    fn migrating_twice_is_a_no_op_and_the_version_counts_migrations() {
        let mut conn = Connection::open_in_memory().unwrap();
        migrate_like_the_store(&mut conn);
        migrate_like_the_store(&mut conn);
        let version = schema_version(&conn).unwrap();
        assert_eq!(version, latest_version());
    }

    fn schema_of(conn: &Connection) -> Vec<(String, String)> {
        let mut stmt = conn
            .prepare("SELECT name, coalesce(sql, '') FROM sqlite_schema ORDER BY name")
            .unwrap();
        stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap()
    }

    #[test]
    fn applying_here_builds_the_schema_rusqlite_migration_builds() {
        let mut ours = Connection::open_in_memory().unwrap();
        let from = apply_pending(&mut ours, |_| panic!("no backup of an empty store")).unwrap();
        assert_eq!(from, Some(0));
        let mut theirs = Connection::open_in_memory().unwrap();
        migrations().to_latest(&mut theirs).unwrap();
        assert_eq!(schema_of(&ours), schema_of(&theirs));
        assert_eq!(schema_version(&ours).unwrap(), latest_version());
        assert_eq!(apply_pending(&mut ours, |_| Ok(())).unwrap(), None);
    }

    #[test]
    fn the_backup_hook_runs_once_with_the_old_version_and_its_failure_changes_nothing() {
        let mut conn = Connection::open_in_memory().unwrap();
        migrations().to_version(&mut conn, 1).unwrap();
        let err = apply_pending(&mut conn, |from| {
            assert_eq!(from, 1);
            Err(AppError::internal("disk full"))
        })
        .unwrap_err();
        assert_eq!(err.message, "disk full");
        assert_eq!(schema_version(&conn).unwrap(), 1, "nothing was migrated");
        let mut seen = Vec::new();
        apply_pending(&mut conn, |from| {
            seen.push(from);
            Ok(())
        })
        .unwrap();
        assert_eq!(seen, vec![1]);
        assert_eq!(schema_version(&conn).unwrap(), latest_version());
    }

    #[test]
    fn a_store_newer_than_this_build_is_refused() {
        let mut conn = Connection::open_in_memory().unwrap();
        conn.pragma_update(None, "user_version", latest_version() + 1)
            .unwrap();
        let err = apply_pending(&mut conn, |_| Ok(())).unwrap_err();
        assert_eq!(err.code, crate::error::ErrorCode::Precondition);
    }

    /// Two connections (two processes, in effect) start together on a store
    /// at version 1: exactly one migrates, the other finds it done.
    #[test]
    fn two_connections_migrating_together_both_succeed_and_one_migrates() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("race.db");
        {
            let mut conn = Connection::open(&path).unwrap();
            conn.pragma_update(None, "journal_mode", "WAL").unwrap();
            migrations().to_version(&mut conn, 1).unwrap();
        }
        for _ in 0..5 {
            let barrier = std::sync::Arc::new(std::sync::Barrier::new(2));
            let handles: Vec<_> = (0..2)
                .map(|_| {
                    let (path, barrier) = (path.clone(), barrier.clone());
                    std::thread::spawn(move || {
                        let mut conn = Connection::open(&path).unwrap();
                        // A hang guard: the other one migrates meanwhile.
                        conn.busy_timeout(Duration::from_secs(60)).unwrap();
                        barrier.wait();
                        apply_pending(&mut conn, |_| {
                            // A slow backup widens the window.
                            std::thread::sleep(Duration::from_millis(50));
                            Ok(())
                        })
                    })
                })
                .collect();
            let outcomes: Vec<_> = handles.into_iter().map(|h| h.join().unwrap()).collect();
            let migrated = outcomes.iter().filter(|o| matches!(o, Ok(Some(_)))).count();
            assert!(outcomes.iter().all(Result::is_ok), "{outcomes:?}");
            assert_eq!(migrated, 1, "{outcomes:?}");
            let conn = Connection::open(&path).unwrap();
            assert_eq!(schema_version(&conn).unwrap(), latest_version());
            // Back to version 1 for the next round: a fresh file.
            drop(conn);
            for suffix in ["", "-wal", "-shm"] {
                let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
            }
            let mut conn = Connection::open(&path).unwrap();
            conn.pragma_update(None, "journal_mode", "WAL").unwrap();
            migrations().to_version(&mut conn, 1).unwrap();
        }
    }

    /// 0020: the providers table is rebuilt for the `local` kind without
    /// losing a provider, its models, or the agents on them.
    #[test]
    fn the_local_kind_arrives_and_nothing_cascades() {
        let mut conn = Connection::open_in_memory().unwrap();
        conn.pragma_update(None, "foreign_keys", "ON").unwrap();
        migrations().to_version(&mut conn, 19).unwrap();
        conn.execute_batch(
            "INSERT INTO providers (id, name, kind, base_url, enabled, created_at, updated_at)
               VALUES ('openai', 'OpenAI', 'openai_compatible', 'https://api.openai.com/v1', 1, 'now', 'now');
             INSERT INTO models (id, provider_id, name, created_at, updated_at)
               VALUES ('openai/gpt-4o', 'openai', 'gpt-4o', 'now', 'now');
             INSERT INTO agents (id, name, model_id, created_at, updated_at)
               VALUES ('uno', 'Uno', 'openai/gpt-4o', 'now', 'now');",
        )
        .unwrap();
        migrate_like_the_store(&mut conn);
        let models: i64 = conn
            .query_row("SELECT count(*) FROM models", [], |r| r.get(0))
            .unwrap();
        assert_eq!(models, 1, "the models stayed");
        conn.execute_batch(
            "INSERT INTO providers (id, name, kind, base_url, enabled, created_at, updated_at)
               VALUES ('local', 'Local', 'local', 'local', 1, 'now', 'now');
             INSERT INTO models (id, provider_id, name, created_at, updated_at)
               VALUES ('local/smollm2', 'local', 'smollm2', 'now', 'now');",
        )
        .unwrap();
        // The foreign key still names the rebuilt table: deleting a
        // provider takes its models with it, as before.
        conn.execute("DELETE FROM providers WHERE id = 'local'", [])
            .unwrap();
        let left: Vec<String> = conn
            .prepare("SELECT id FROM models")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert_eq!(left, vec!["openai/gpt-4o".to_owned()]);
        let duplicate = conn.execute(
            "INSERT INTO providers (id, name, kind, base_url, enabled, created_at, updated_at)
               VALUES ('other', 'openai', 'ollama', 'http://x', 1, 'now', 'now')",
            [],
        );
        assert!(duplicate.is_err(), "names are still unique");
    }
}
