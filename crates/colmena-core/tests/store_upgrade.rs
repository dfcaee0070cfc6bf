//! Upgrading a store written by the first release, and backups.
//!
//! The fixture is the first release's schema: migration 0001 alone (the
//! first commit that shipped a store, 6d05097, had only it; the repository
//! has no release tags), with rows in every table it has. Opening it must
//! keep every row, leave a backup beside it, and work when two workspaces
//! open it at the same moment.

#![allow(clippy::unwrap_used)]

mod support;

use std::path::{Path, PathBuf};

use colmena_core::ErrorCode;
use colmena_core::store::{self, DB_FILE, Store, backup};
use rusqlite::Connection;
use rusqlite::types::Value;

const FIRST_RELEASE: &str = include_str!("../src/store/migrations/0001_foundation.sql");

/// Rows in every table of schema 1, as the first release wrote them.
const FIRST_RELEASE_ROWS: &str = "
    INSERT INTO meta (key, value) VALUES ('fixture_note', 'written by the first release');
    INSERT INTO providers (id, name, kind, base_url, api_key_cipher, api_key_mask, enabled, created_at, updated_at)
      VALUES ('fixture-openai', 'Fixture OpenAI', 'openai_compatible', 'https://api.openai.com/v1',
              X'00112233', 'sk-…a1b2', 1, '2026-11-30T10:00:00Z', '2026-11-30T10:00:00Z'),
             ('fixture-ollama', 'Fixture Ollama', 'ollama', 'http://127.0.0.1:11434', NULL, NULL, 0,
              '2026-11-30T10:01:00Z', '2026-11-30T10:02:00Z');
    INSERT INTO models (id, provider_id, name, label, enabled, disabled_by_provider, created_at, updated_at)
      VALUES ('fixture-openai/gpt-4o', 'fixture-openai', 'gpt-4o', 'GPT-4o', 1, 0,
              '2026-11-30T10:00:00Z', '2026-11-30T10:00:00Z'),
             ('fixture-ollama/llama3', 'fixture-ollama', 'llama3', NULL, 0, 1,
              '2026-11-30T10:01:00Z', '2026-11-30T10:02:00Z');
    INSERT INTO agents (id, name, description, system_prompt, model_id, enabled, created_at, updated_at)
      VALUES ('fixture-writer', 'Fixture Writer', 'writes', 'You write.', 'fixture-openai/gpt-4o', 1,
              '2026-11-30T10:03:00Z', '2026-11-30T10:03:00Z'),
             ('fixture-idle', 'Fixture Idle', '', '', NULL, 0,
              '2026-11-30T10:04:00Z', '2026-11-30T10:04:00Z');
";

/// The tables of schema 1 and the columns they had then.
const TABLES: &[(&str, &str)] = &[
    ("meta", "key, value"),
    (
        "providers",
        "id, name, kind, base_url, api_key_cipher, api_key_mask, enabled, created_at, updated_at",
    ),
    (
        "models",
        "id, provider_id, name, label, enabled, disabled_by_provider, created_at, updated_at",
    ),
    (
        "agents",
        "id, name, description, system_prompt, model_id, enabled, created_at, updated_at",
    ),
];

/// Writes the first release's store at `db`, as that release left it (WAL).
fn first_release_store(db: &Path) {
    let conn = Connection::open(db).unwrap();
    conn.pragma_update(None, "journal_mode", "WAL").unwrap();
    conn.pragma_update(None, "foreign_keys", "ON").unwrap();
    conn.execute_batch(&format!(
        "BEGIN; {FIRST_RELEASE} {FIRST_RELEASE_ROWS} PRAGMA user_version = 1; COMMIT;"
    ))
    .unwrap();
}

fn rows(conn: &Connection, table: &str, columns: &str) -> Vec<Vec<Value>> {
    let mut stmt = conn
        .prepare(&format!("SELECT {columns} FROM {table} ORDER BY 1"))
        .unwrap();
    let width = stmt.column_count();
    stmt.query_map([], |r| (0..width).map(|i| r.get(i)).collect())
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap()
}

/// Every row of every schema-1 table, with the schema-1 columns.
fn snapshot(db: &Path) -> Vec<Vec<Vec<Value>>> {
    let conn = Connection::open(db).unwrap();
    TABLES
        .iter()
        .map(|(table, columns)| rows(&conn, table, columns))
        .collect()
}

fn backups(dir: &Path, prefix: &str) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir.join(backup::BACKUPS_DIR))
        .map(|entries| {
            entries
                .map(|e| e.unwrap().path())
                .filter(|p| {
                    p.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| n.starts_with(prefix))
                })
                .collect()
        })
        .unwrap_or_default();
    found.sort();
    found
}

fn version(db: &Path) -> i64 {
    store::schema_version(&Connection::open(db).unwrap()).unwrap()
}

#[test]
fn a_first_release_store_upgrades_with_every_row_intact_and_a_backup_beside_it() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join(DB_FILE);
    first_release_store(&db);
    let before = snapshot(&db);
    assert!(before.iter().all(|table| !table.is_empty()));

    let store = Store::open(&db).unwrap();
    drop(store);

    assert_eq!(version(&db), store::latest_version());
    assert_eq!(snapshot(&db), before, "every row intact");
    let copies = backups(dir.path(), "pre-migration-");
    assert_eq!(copies.len(), 1, "{copies:?}");
    let name = copies[0].file_name().unwrap().to_str().unwrap();
    assert!(name.ends_with("-v1.db"), "{name}");
    assert_eq!(backup::validate(&copies[0]).unwrap(), 1);
    assert_eq!(
        snapshot(&copies[0]),
        before,
        "the backup holds the old rows"
    );

    // Opening again migrates nothing and backs up nothing.
    drop(Store::open(&db).unwrap());
    assert_eq!(backups(dir.path(), "pre-migration-").len(), 1);
}

#[tokio::test]
async fn the_whole_workspace_opens_on_a_first_release_store_and_keeps_its_rows() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join(DB_FILE);
    first_release_store(&db);
    let before = snapshot(&db);
    let ctx = support::open(dir.path()).await;
    drop(ctx);
    let after = snapshot(&db);
    for ((table, _), (old, new)) in TABLES.iter().zip(before.iter().zip(&after)) {
        for row in old {
            assert!(new.contains(row), "{table}: {row:?} lost");
        }
    }
}

#[test]
fn only_the_last_three_pre_migration_backups_are_kept() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join(DB_FILE);
    for _ in 0..5 {
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", db.display()));
        }
        first_release_store(&db);
        drop(Store::open(&db).unwrap());
    }
    assert_eq!(backups(dir.path(), "pre-migration-").len(), backup::KEEP);
}

#[test]
fn a_new_store_is_not_backed_up() {
    let dir = tempfile::tempdir().unwrap();
    drop(Store::open(&dir.path().join(DB_FILE)).unwrap());
    assert!(backups(dir.path(), "").is_empty());
}

/// Two workspaces (as the app and `colmena serve` do, each with its own
/// connections) open an old store at the same moment: both come up, it is
/// migrated once and backed up once. The same with processes is in
/// colmena-server's tests/store_upgrade.rs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_workspaces_opening_an_old_store_together_both_come_up() {
    let dir = tempfile::tempdir().unwrap();
    first_release_store(&dir.path().join(DB_FILE));
    let (a, b) = tokio::join!(
        tokio::spawn(support_open(dir.path().to_owned())),
        tokio::spawn(support_open(dir.path().to_owned()))
    );
    a.unwrap();
    b.unwrap();
    assert_eq!(version(&dir.path().join(DB_FILE)), store::latest_version());
    assert_eq!(backups(dir.path(), "pre-migration-").len(), 1);
}

async fn support_open(dir: PathBuf) {
    drop(support::open(&dir).await);
}

#[tokio::test]
async fn a_backup_taken_while_the_workspace_is_open_restores_its_rows() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join(DB_FILE);
    first_release_store(&db);
    let before = snapshot(&db);
    let ctx = support::open(dir.path()).await;
    let taken = backup::backup(&db, None).unwrap();
    assert_eq!(taken.schema_version, store::latest_version());
    assert!(taken.bytes > 0);
    assert_eq!(
        backup::validate(&taken.path).unwrap(),
        store::latest_version()
    );

    // While the workspace is open, restore refuses and changes nothing.
    let refused = backup::restore(&db, &taken.path).unwrap_err();
    assert_eq!(refused.code, ErrorCode::Conflict);
    ctx.store()
        .write(|tx| Ok(tx.execute("DELETE FROM agents WHERE id = 'fixture-idle'", [])?))
        .await
        .unwrap();
    drop(ctx);

    let restored = backup::restore(&db, &taken.path).unwrap();
    assert_eq!(restored.schema_version, store::latest_version());
    let previous = restored.previous.unwrap();
    assert!(previous.exists());
    assert!(
        !dir.path().join(colmena_core::search::INDEX_DIR).exists(),
        "the index is rebuilt from the restored rows"
    );
    let after = snapshot(&db);
    for (old, new) in before.iter().zip(&after) {
        for row in old {
            assert!(new.contains(row), "{row:?} lost by the restore");
        }
    }
    // The workspace opens on the restored store and rebuilds its index.
    let ctx = support::open(dir.path()).await;
    assert!(dir.path().join(colmena_core::search::INDEX_DIR).exists());
    drop(ctx);
}

#[test]
fn an_old_backup_is_restored_and_upgraded_when_next_opened() {
    let dir = tempfile::tempdir().unwrap();
    let old = dir.path().join("old.db");
    first_release_store(&old);
    let before = snapshot(&old);
    let data = dir.path().join("data");
    std::fs::create_dir(&data).unwrap();
    let db = data.join(DB_FILE);
    let restored = backup::restore(&db, &old).unwrap();
    assert_eq!(restored.schema_version, 1);
    assert_eq!(restored.previous, None, "there was no store to keep");
    drop(Store::open(&db).unwrap());
    assert_eq!(snapshot(&db), before);
    assert_eq!(version(&db), store::latest_version());
}

#[test]
fn restore_refuses_what_is_not_a_colmena_store() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join(DB_FILE);
    drop(Store::open(&db).unwrap());
    let reason = |path: &Path| {
        let err = backup::restore(&db, path).unwrap_err();
        assert_eq!(err.code, ErrorCode::Validation, "{}", err.message);
        err.message
    };

    let text = dir.path().join("notes.db");
    std::fs::write(&text, "not a database at all, just some text").unwrap();
    reason(&text);

    let other = dir.path().join("other.db");
    Connection::open(&other)
        .unwrap()
        .execute_batch("CREATE TABLE t (x); PRAGMA user_version = 1;")
        .unwrap();
    reason(&other);

    let newer = dir.path().join("newer.db");
    first_release_store(&newer);
    Connection::open(&newer)
        .unwrap()
        .pragma_update(None, "user_version", store::latest_version() + 1)
        .unwrap();
    assert!(reason(&newer).contains("schema version"));

    reason(&dir.path().join("missing.db"));
    reason(&db);
    assert_eq!(
        version(&db),
        store::latest_version(),
        "the store is untouched"
    );
}

#[test]
fn backup_never_overwrites_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join(DB_FILE);
    drop(Store::open(&db).unwrap());
    let target = dir.path().join("mine.db");
    std::fs::write(&target, b"keep me").unwrap();
    let err = backup::backup(&db, Some(&target)).unwrap_err();
    assert_eq!(err.code, ErrorCode::Conflict);
    assert_eq!(std::fs::read(&target).unwrap(), b"keep me");
}

/// Issue 16: the first start of a new version of the app copies the store
/// first (and only then), keeping the last three copies; a first start on no
/// store copies nothing.
#[test]
fn the_first_start_of_a_new_version_backs_the_store_up_once() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join(DB_FILE);
    // No store yet: nothing to copy, the version is remembered.
    assert_eq!(backup::before_new_version(&db, "0.1.0").unwrap(), None);
    first_release_store(&db);
    assert_eq!(backup::before_new_version(&db, "0.1.0").unwrap(), None);
    let copy = backup::before_new_version(&db, "0.2.0")
        .unwrap()
        .expect("a copy");
    assert!(
        copy.file_name()
            .unwrap()
            .to_str()
            .unwrap()
            .ends_with("-0.1.0.db"),
        "{}",
        copy.display()
    );
    assert_eq!(snapshot(&copy), snapshot(&db));
    assert_eq!(
        backup::before_new_version(&db, "0.2.0").unwrap(),
        None,
        "once per version"
    );
    for v in ["0.3.0", "0.4.0", "0.5.0"] {
        backup::before_new_version(&db, v).unwrap().unwrap();
    }
    assert_eq!(backups(dir.path(), "pre-upgrade-").len(), 3);
}
