//! Upgrades and backups with real processes: a store from the first
//! release's schema (migration 0001 alone, with rows in every table) opened
//! by `colmena serve` and another `colmena` at the same moment — both come
//! up, one migrates, the rows are intact and one backup lies beside it; and
//! `colmena backup` / `colmena restore` around a running server.

#![allow(clippy::unwrap_used)]

mod common;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};

use colmena_core::store;
use common::{colmena, ok_json, run};
use rusqlite::Connection;

const FIRST_RELEASE: &str =
    include_str!("../../colmena-core/src/store/migrations/0001_foundation.sql");

fn first_release_store(data_dir: &Path) {
    std::fs::create_dir_all(data_dir).unwrap();
    let conn = Connection::open(data_dir.join(store::DB_FILE)).unwrap();
    conn.pragma_update(None, "journal_mode", "WAL").unwrap();
    conn.execute_batch(&format!(
        "BEGIN; {FIRST_RELEASE}
         INSERT INTO meta (key, value) VALUES ('fixture_note', 'first release');
         INSERT INTO providers (id, name, kind, base_url, enabled, created_at, updated_at)
           VALUES ('fixture-local', 'Fixture Local', 'openai_compatible', 'http://127.0.0.1:9/v1', 1,
                   '2026-11-30T10:00:00Z', '2026-11-30T10:00:00Z');
         INSERT INTO models (id, provider_id, name, created_at, updated_at)
           VALUES ('fixture-local/m1', 'fixture-local', 'm1', '2026-11-30T10:00:00Z', '2026-11-30T10:00:00Z');
         INSERT INTO agents (id, name, system_prompt, model_id, created_at, updated_at)
           VALUES ('fixture-agent', 'Fixture Agent', 'Be brief.', 'fixture-local/m1',
                   '2026-11-30T10:00:00Z', '2026-11-30T10:00:00Z');
         PRAGMA user_version = 1; COMMIT;"
    ))
    .unwrap();
}

/// Starts `colmena serve` on a free loopback port; returns once it listens.
fn spawn_serve(data_dir: &Path) -> Child {
    colmena(data_dir)
        .args(["--json", "serve", "--bind", "127.0.0.1:0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn wait_listening(child: &mut Child) -> Result<String, String> {
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    if line.contains("listening") {
        Ok(line)
    } else {
        let mut stderr = String::new();
        std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
        Err(stderr)
    }
}

fn stop(mut child: Child) {
    let _ = child.kill();
    let _ = child.wait();
}

fn pre_migration_backups(data_dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(data_dir.join(store::backup::BACKUPS_DIR))
        .map(|entries| {
            entries
                .map(|e| e.unwrap().path())
                .filter(|p| p.to_string_lossy().contains("pre-migration-"))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn serve_and_another_colmena_started_together_on_a_first_release_store_both_come_up() {
    for round in 0..3 {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("data");
        first_release_store(&dir);

        // Both start at once; neither waits for the other.
        let mut serve = spawn_serve(&dir);
        let other = colmena(&dir)
            .args(["--json", "provider", "list"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let other = other.wait_with_output().unwrap();
        let listening = wait_listening(&mut serve);
        stop(serve);
        assert!(
            other.status.success(),
            "round {round}: the second process failed: {}",
            String::from_utf8_lossy(&other.stderr)
        );
        assert!(
            listening.is_ok(),
            "round {round}: serve failed: {listening:?}"
        );
        let providers: serde_json::Value = serde_json::from_slice(&other.stdout).unwrap();
        assert!(
            providers.to_string().contains("fixture-local"),
            "the first release's provider is there: {providers}"
        );

        let conn = Connection::open(dir.join(store::DB_FILE)).unwrap();
        assert_eq!(
            store::schema_version(&conn).unwrap(),
            store::latest_version()
        );
        let kept: (String, String, String) = conn
            .query_row(
                "SELECT a.system_prompt, m.name, (SELECT value FROM meta WHERE key = 'fixture_note')
                 FROM agents a JOIN models m ON m.id = a.model_id WHERE a.id = 'fixture-agent'",
                [],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .unwrap();
        assert_eq!(
            kept,
            ("Be brief.".into(), "m1".into(), "first release".into())
        );
        let backups = pre_migration_backups(&dir);
        assert_eq!(backups.len(), 1, "one migration, one backup: {backups:?}");
        assert_eq!(store::backup::validate(&backups[0]).unwrap(), 1);
    }
}

#[test]
fn backup_runs_beside_a_server_and_restore_waits_until_it_is_gone() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("data");
    first_release_store(&dir);
    let mut serve = spawn_serve(&dir);
    wait_listening(&mut serve).unwrap();

    let copy = root.path().join("copy.db");
    let taken = ok_json(colmena(&dir).args(["backup", "--to"]).arg(&copy));
    assert_eq!(taken["schemaVersion"], store::latest_version());
    assert!(copy.is_file());
    // Writing over an existing file is refused.
    let again = run(colmena(&dir).args(["backup", "--to"]).arg(&copy));
    assert_eq!(again.status.code(), Some(5), "conflict");

    let refused = run(colmena(&dir).arg("restore").arg(&copy));
    assert_eq!(
        refused.status.code(),
        Some(5),
        "restore refuses while serve holds the store: {}",
        String::from_utf8_lossy(&refused.stderr)
    );
    stop(serve);

    let not_a_store = root.path().join("notes.txt");
    std::fs::write(&not_a_store, "hello").unwrap();
    let bad = run(colmena(&dir).arg("restore").arg(&not_a_store));
    assert_eq!(bad.status.code(), Some(4), "validation");

    let restored = ok_json(colmena(&dir).arg("restore").arg(&copy));
    assert_eq!(restored["schemaVersion"], store::latest_version());
    assert!(Path::new(restored["previous"].as_str().unwrap()).is_file());
    assert!(
        dir.join(colmena_core::search::INDEX_DIR).is_dir(),
        "the search index was rebuilt from the restored store"
    );
    let providers = ok_json(colmena(&dir).args(["provider", "list"]));
    assert!(providers.to_string().contains("fixture-local"));

    // Without --to, the copy goes to the backups folder.
    let default = ok_json(colmena(&dir).arg("backup"));
    let path = PathBuf::from(default["path"].as_str().unwrap());
    assert!(
        path.starts_with(dir.canonicalize().unwrap().join("backups"))
            || path.starts_with(dir.join("backups"))
    );
    assert!(path.is_file());
}
