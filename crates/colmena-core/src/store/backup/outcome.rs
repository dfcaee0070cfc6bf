//! What the last restore asked for in Settings did. The app cannot restore
//! the store it holds open, so Settings checks the copy (and the
//! passphrase), starts `colmena restore --after-close --then-open` and
//! closes; that restores and opens the app again. The app it opens learns
//! what happened from this file beside the store — restored, with or
//! without the key, or why not — and shows it until the person dismisses
//! it.

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::RestoreReport;
use crate::error::{AppError, Result};

/// Beside the store.
const OUTCOME_FILE: &str = "last-restore.json";

/// One restore asked for in Settings, as it ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct RestoreOutcome {
    /// The copy that was to be restored.
    pub file: PathBuf,
    pub at: DateTime<Utc>,
    /// What the restore did, when it was done.
    pub report: Option<RestoreReport>,
    /// Why it was not, when it was not (the store is then as it was).
    pub error: Option<String>,
}

fn path_of(db_path: &Path) -> PathBuf {
    db_path.with_file_name(OUTCOME_FILE)
}

/// Records how the restore of `file` into the store at `db_path` ended.
pub fn record_outcome(
    db_path: &Path,
    file: &Path,
    result: &Result<RestoreReport>,
) -> Result<RestoreOutcome> {
    let outcome = RestoreOutcome {
        file: file.to_owned(),
        at: Utc::now(),
        report: result.as_ref().ok().cloned(),
        error: result.as_ref().err().map(|e| e.message.clone()),
    };
    let text = serde_json::to_vec_pretty(&outcome)?;
    std::fs::write(path_of(db_path), text)
        .map_err(|e| AppError::internal(format!("cannot record how the restore ended: {e}")))?;
    Ok(outcome)
}

/// The outcome not yet dismissed, if any (an unreadable file is none).
pub fn last_outcome(db_path: &Path) -> Option<RestoreOutcome> {
    let bytes = std::fs::read(path_of(db_path)).ok()?;
    serde_json::from_slice(&bytes).ok()
}

/// Forgets the outcome (the person has read it).
pub fn dismiss_outcome(db_path: &Path) -> Result<()> {
    match std::fs::remove_file(path_of(db_path)) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(AppError::internal(format!(
            "cannot forget the restore's outcome: {e}"
        ))),
    }
}
