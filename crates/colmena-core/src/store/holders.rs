//! Who has the store open: every [`super::Store`] holds a shared lock on
//! `colmena.db.lock` next to the file for as long as it lives.
//!
//! Why: `colmena restore` replaces the file under every connection; a server
//! or app still holding it would keep writing into the replaced inode (or a
//! WAL that no longer matches). SQLite offers no "is anyone else connected"
//! question, so the processes say so themselves: restore takes the lock
//! exclusively without waiting and refuses when it cannot. An OS lock dies
//! with its process, so a crash leaves nothing stale behind.

use std::fs::{File, TryLockError};
use std::path::{Path, PathBuf};

use crate::error::{AppError, ErrorCode, Result};

/// The lock file of the store at `db_path`.
pub fn lock_path(db_path: &Path) -> PathBuf {
    let mut name = db_path.file_name().unwrap_or_default().to_os_string();
    name.push(".lock");
    db_path.with_file_name(name)
}

/// Taken by every open store. Waits while a restore holds the lock (seconds).
pub(crate) fn shared(db_path: &Path) -> Result<File> {
    let file = open_private(&lock_path(db_path))?;
    file.lock_shared()
        .map_err(|e| AppError::internal(format!("could not lock the store: {e}")))?;
    Ok(file)
}

/// Taken by a restore: refuses at once when any process has the store open.
pub(crate) fn exclusive(db_path: &Path) -> Result<File> {
    let file = open_private(&lock_path(db_path))?;
    match file.try_lock() {
        Ok(()) => Ok(file),
        Err(TryLockError::WouldBlock) => Err(AppError::new(
            ErrorCode::Conflict,
            "the store is open in Colmena or `colmena serve`; close them and try again",
        )),
        Err(TryLockError::Error(e)) => {
            Err(AppError::internal(format!("could not lock the store: {e}")))
        }
    }
}

/// Opens (creating it, readable by this user only) the lock file `path`.
pub(crate) fn open_private(path: &Path) -> Result<File> {
    crate::private_files::file_options()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .map_err(|e| AppError::internal(format!("could not open {}: {e}", path.display())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_exclusive_lock_is_refused_while_a_store_holds_it_and_granted_after() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("colmena.db");
        assert_eq!(lock_path(&db), dir.path().join("colmena.db.lock"));
        let held = shared(&db).unwrap();
        let also = shared(&db).unwrap();
        assert_eq!(exclusive(&db).unwrap_err().code, ErrorCode::Conflict);
        drop((held, also));
        let restore = exclusive(&db).unwrap();
        drop(restore);
    }
}
