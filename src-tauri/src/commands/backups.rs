//! Settings → Data → Backups (issue 33): copies of the store made from the
//! window — with the master key sealed with a passphrase when the person
//! types one — and the key kept for the automatic copies. A restore replaces
//! the store this window holds open, so it is done with Colmena closed
//! (`colmena restore`); the section says how, with the copy's path.
//!
//! The passphrase arrives once, in the call that uses it, and is wiped from
//! memory after; it is never stored.

use colmena_core::store::DB_FILE;
use colmena_core::store::backup::{self, BackupReport, BackupsOverview};
use colmena_core::{AppError, Ctx};
use tauri::State;
use zeroize::Zeroizing;

async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, AppError> + Send + 'static,
) -> Result<T, AppError> {
    tauri::async_runtime::spawn_blocking(work)
        .await
        .map_err(|e| AppError::internal(format!("the backup task failed: {e}")))?
}

/// The workspace's copies, newest first, and whether automatic ones carry the key.
#[tauri::command]
#[specta::specta]
pub async fn list_backups(ctx: State<'_, Ctx>) -> Result<BackupsOverview, AppError> {
    let db = ctx.data_dir().join(DB_FILE);
    blocking(move || backup::overview(&db)).await
}

/// Copies the store now into the backups folder; with `key_passphrase`, the
/// master key is sealed beside the copy.
#[tauri::command]
#[specta::specta]
pub async fn make_backup(
    ctx: State<'_, Ctx>,
    key_passphrase: Option<String>,
) -> Result<BackupReport, AppError> {
    let db = ctx.data_dir().join(DB_FILE);
    let phrase = key_passphrase.map(Zeroizing::new);
    blocking(move || match phrase {
        Some(phrase) => backup::backup_with_key(&db, None, &phrase),
        None => backup::backup(&db, None),
    })
    .await
}

/// With `key_passphrase`, seals the master key for every copy made without
/// one (before migrations, upgrades and updates); without it, stops.
#[tauri::command]
#[specta::specta]
pub async fn keep_backup_key(
    ctx: State<'_, Ctx>,
    key_passphrase: Option<String>,
) -> Result<BackupsOverview, AppError> {
    let db = ctx.data_dir().join(DB_FILE);
    let phrase = key_passphrase.map(Zeroizing::new);
    blocking(move || {
        match phrase {
            Some(phrase) => {
                backup::keep_for_automatic_copies(&db, &phrase)?;
            }
            None => {
                backup::forget_for_automatic_copies(&db)?;
            }
        }
        backup::overview(&db)
    })
    .await
}
