//! Shared set-up for the core integration tests: a real workspace in a
//! temporary data dir, with its master key in a key file.

#![allow(dead_code, clippy::unwrap_used)]

pub mod hive;

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
    Ctx::open(OpenOptions {
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
pub fn catalog_query(text: &str) -> colmena_core::search::CatalogSearch {
    colmena_core::search::CatalogSearch {
        query: text.to_owned(),
        ..Default::default()
    }
}

/// A run sink that drops every event.
pub fn no_events() -> colmena_core::runtime::EventSink {
    colmena_core::runtime::no_events()
}
