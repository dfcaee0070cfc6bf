//! Settings → Data → Backups (issue 33): copies of the store made from the
//! window — with the master key sealed with a passphrase when the person
//! types one — the key kept for the automatic copies, and restores.
//!
//! A restore replaces the store this window holds open, so the app checks
//! the copy and the passphrase first (a wrong one changes nothing and
//! closes nothing), then starts `colmena restore --after-close --then-open`
//! — this same binary, the passphrase on its standard input — and closes.
//! That command waits for the store to close, restores store and key,
//! records how it ended and opens the app again, which shows it
//! (`backup::last_outcome`).
//!
//! The passphrase arrives once, in the call that uses it, and is wiped from
//! memory after; it is never stored, nor put on a command line.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use colmena_core::store::DB_FILE;
use colmena_core::store::backup::{self, BackupReport, BackupsOverview, KeyToRestore};
use colmena_core::{AppError, Ctx};
use tauri::{AppHandle, Runtime, State};
use zeroize::Zeroizing;

/// Closes the app (held in its state so that commands need not name the
/// runtime, as `desktop::Dialogs`).
#[derive(Clone)]
pub struct Quit(Arc<dyn Fn() + Send + Sync>);

impl Quit {
    pub fn new<R: Runtime>(app: AppHandle<R>) -> Quit {
        Quit(Arc::new(move || app.exit(0)))
    }
}

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

/// Forgets how the last restore ended (the person has read it).
#[tauri::command]
#[specta::specta]
pub async fn dismiss_restore_outcome(ctx: State<'_, Ctx>) -> Result<BackupsOverview, AppError> {
    let db = ctx.data_dir().join(DB_FILE);
    blocking(move || {
        backup::dismiss_outcome(&db)?;
        backup::overview(&db)
    })
    .await
}

/// Restores the copy at `path` (one in the backups folder) and, with
/// `key_passphrase`, the key kept with it: checked now, done by
/// `colmena restore` once the app has closed (the module docs say how).
#[tauri::command]
#[specta::specta]
pub async fn restore_backup(
    ctx: State<'_, Ctx>,
    quit: State<'_, Quit>,
    path: PathBuf,
    key_passphrase: Option<String>,
) -> Result<(), AppError> {
    let db = ctx.data_dir().join(DB_FILE);
    let data_dir = ctx.data_dir().to_owned();
    let phrase = key_passphrase.map(Zeroizing::new);
    let checking = phrase.clone();
    let file = path.clone();
    blocking(move || {
        backup::listed_copy(&db, &file)?;
        let wanted = KeyToRestore {
            passphrase: checking.as_deref().map(String::as_str),
            bundle: None,
        };
        backup::check_restore(&db, &file, wanted).map(|_| ())
    })
    .await?;
    start_restore(&data_dir, &path, phrase.as_deref().map(String::as_str))?;
    (quit.0)();
    Ok(())
}

/// `colmena restore --after-close --then-open <this app>`, on its own, with
/// the passphrase written to its standard input.
fn start_restore(data_dir: &Path, file: &Path, passphrase: Option<&str>) -> Result<(), AppError> {
    let app = std::env::current_exe()
        .map_err(|e| AppError::internal(format!("cannot find the app's own program: {e}")))?;
    let mut command = std::process::Command::new(&app);
    command
        .arg(crate::CLI_FLAG)
        .arg("--data-dir")
        .arg(data_dir)
        .arg("restore")
        .arg(file)
        .arg("--after-close")
        .arg("--then-open")
        .arg(&app)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    if passphrase.is_some() {
        command.arg("--key-passphrase-stdin");
    }
    let mut child = command
        .spawn()
        .map_err(|e| AppError::internal(format!("cannot start the restore: {e}")))?;
    if let (Some(phrase), Some(mut stdin)) = (passphrase, child.stdin.take()) {
        let line = Zeroizing::new(format!("{phrase}\n"));
        stdin
            .write_all(line.as_bytes())
            .map_err(|e| AppError::internal(format!("cannot start the restore: {e}")))?;
    }
    Ok(())
}
