//! The copies in a workspace's backups folder, for Settings → Data →
//! Backups: which there are, how large, when made, and whether each carries
//! the master key — what a person needs to pick one to restore.

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::backups_dir;
use super::key::{bundle_path, kept_for_automatic_copies};
use crate::error::{AppError, Result};

/// One copy of the store.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct BackupFile {
    pub path: PathBuf,
    /// The file name: its prefix says why it was made (`colmena-`,
    /// `pre-upgrade-`, `pre-migration-`, `pre-restore-`).
    pub name: String,
    pub bytes: u64,
    pub modified: Option<DateTime<Utc>>,
    /// A key bundle lies beside it (`<name>.colmena-key`).
    pub key_included: bool,
}

/// The backups folder and what it holds, newest first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct BackupsOverview {
    pub folder: PathBuf,
    pub backups: Vec<BackupFile>,
    /// Copies made without a passphrase carry the key (the person sealed
    /// one for them).
    pub automatic_key: bool,
    /// How the last restore asked for in Settings ended, until dismissed.
    pub last_restore: Option<super::RestoreOutcome>,
}

/// The copies of the store at `db_path` in its backups folder.
pub fn overview(db_path: &Path) -> Result<BackupsOverview> {
    let folder = backups_dir(db_path);
    let mut backups = Vec::new();
    let entries = match std::fs::read_dir(&folder) {
        Ok(entries) => Some(entries),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => {
            return Err(AppError::internal(format!(
                "cannot read {}: {e}",
                folder.display()
            )));
        }
    };
    for entry in entries.into_iter().flatten().filter_map(|e| e.ok()) {
        let Ok(name) = entry.file_name().into_string() else {
            continue;
        };
        let Ok(meta) = entry.metadata() else {
            continue;
        };
        if !meta.is_file() || !name.ends_with(".db") {
            continue;
        }
        let path = entry.path();
        backups.push(BackupFile {
            key_included: bundle_path(&path).is_file(),
            modified: meta.modified().ok().map(DateTime::<Utc>::from),
            bytes: meta.len(),
            name,
            path,
        });
    }
    backups.sort_by(|a, b| {
        b.modified
            .cmp(&a.modified)
            .then_with(|| b.name.cmp(&a.name))
    });
    Ok(BackupsOverview {
        automatic_key: kept_for_automatic_copies(db_path),
        last_restore: super::last_outcome(db_path),
        folder,
        backups,
    })
}

/// `file` is one of the copies [`overview`] lists for the store at
/// `db_path` (a file directly in its backups folder): Settings restores
/// only those; other files go through `colmena restore`.
pub fn listed_copy(db_path: &Path, file: &Path) -> Result<()> {
    let folder = backups_dir(db_path).canonicalize().ok();
    let parent = file
        .canonicalize()
        .ok()
        .and_then(|f| f.parent().map(Path::to_path_buf));
    if folder.is_some() && folder == parent {
        Ok(())
    } else {
        Err(AppError::invalid_field(
            "path",
            "not_a_listed_backup",
            format!(
                "{} is not a copy in the backups folder; restore other files with `colmena restore`",
                file.display()
            ),
        ))
    }
}
