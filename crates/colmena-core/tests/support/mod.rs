//! Shared set-up for the core integration tests: a real workspace in a
//! temporary data dir, with its master key in a key file.

#![allow(dead_code, clippy::unwrap_used)]

pub mod bus;
pub mod endpoints;
pub mod hive;
pub mod web;

use std::path::Path;

use colmena_core::secrets::BackendChoice;
use colmena_core::{Ctx, OpenOptions};

pub struct Workspace {
    pub dir: tempfile::TempDir,
    pub ctx: Ctx,
}

pub async fn workspace() -> Workspace {
    let dir = tempfile::tempdir().expect("temp dir");
    let ctx = open(dir.path()).await;
    Workspace { dir, ctx }
}

pub async fn open(path: &Path) -> Ctx {
    colmena_core::workspace::open(OpenOptions {
        data_dir: path.to_owned(),
        secret_backend: BackendChoice::File,
    })
    .await
    .expect("open workspace")
}

/// True when `needle` occurs in any file under `dir` (the store, its WAL,
/// the key file…), read as raw bytes.
pub fn any_file_contains(dir: &Path, needle: &[u8]) -> bool {
    let mut stack = vec![dir.to_owned()];
    while let Some(path) = stack.pop() {
        if path.is_dir() {
            for entry in std::fs::read_dir(&path).expect("read dir") {
                stack.push(entry.expect("entry").path());
            }
        } else if let Ok(bytes) = std::fs::read(&path)
            && bytes.windows(needle.len()).any(|w| w == needle)
        {
            return true;
        }
    }
    false
}

/// A catalog search for `text` over everything, for the owner.
pub fn catalog_query(text: &str) -> colmena_core::memory::CatalogSearch {
    colmena_core::memory::CatalogSearch {
        query: text.to_owned(),
        ..Default::default()
    }
}

/// A run sink that drops every event.
pub fn no_events() -> colmena_core::runs::context::EventSink {
    colmena_core::runs::context::no_events()
}

/// The workspace's store file, opened beside the workspace (as another
/// process would), for what the API does not show: leases, raw statuses.
pub fn db(dir: &Path) -> rusqlite::Connection {
    let db = rusqlite::Connection::open(dir.join(colmena_core::store::DB_FILE)).unwrap();
    // A hang guard, not a timing claim: the app's own writes come first.
    db.busy_timeout(std::time::Duration::from_secs(60)).unwrap();
    db
}

/// A pid that certainly exited: what a SIGKILLed process leaves behind.
pub fn dead_pid() -> u32 {
    let mut child = std::process::Command::new("true").spawn().unwrap();
    child.wait().unwrap();
    child.id()
}

/// A lease owner (`host:pid:instance`) moved to a process that died.
pub fn killed(owner: &str) -> String {
    let parts: Vec<&str> = owner.split(':').collect();
    format!("{}:{}:{}", parts[0], dead_pid(), parts[2])
}

/// Makes every running run look like it belongs to a process that died
/// (SIGKILL).
pub fn kill_lease_holders(dir: &Path) {
    let db = db(dir);
    let owners: Vec<(String, String)> = db
        .prepare("SELECT id, lease_owner FROM runs WHERE status = 'running'")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap();
    assert!(!owners.is_empty(), "a run was running");
    for (id, owner) in owners {
        db.execute(
            "UPDATE runs SET lease_owner = ?2 WHERE id = ?1",
            rusqlite::params![id, killed(&owner)],
        )
        .unwrap();
    }
}
