//! Where a workspace lives on disk.
//!
//! The app and the CLI resolve the data dir the same way: an explicit
//! `--data-dir`, else `COLMENA_DATA_DIR`, else the OS app-data folder
//! (`~/.local/share/colmena` on Linux, `~/Library/Application Support/colmena`
//! on macOS, `%APPDATA%\colmena` on Windows).

use std::path::{Path, PathBuf};

use crate::error::{AppError, Result};

/// Environment variable naming the data dir.
pub const DATA_DIR_ENV: &str = "COLMENA_DATA_DIR";

/// Folder name under the OS app-data folder.
pub const APP_FOLDER: &str = "colmena";

/// Resolves the data dir: `explicit`, else [`DATA_DIR_ENV`], else the OS default.
pub fn resolve(explicit: Option<&Path>) -> Result<PathBuf> {
    if let Some(dir) = explicit {
        return Ok(dir.to_owned());
    }
    if let Some(dir) = std::env::var_os(DATA_DIR_ENV).filter(|v| !v.is_empty()) {
        return Ok(PathBuf::from(dir));
    }
    default_dir()
}

/// The OS app-data folder for Colmena.
pub fn default_dir() -> Result<PathBuf> {
    dirs::data_dir().map(|d| d.join(APP_FOLDER)).ok_or_else(|| {
        AppError::precondition(format!(
            "this system has no app-data folder; pass --data-dir or set {DATA_DIR_ENV}"
        ))
    })
}

/// Creates the data dir (owner-only on Unix) and returns its absolute path.
/// An existing one is made owner-only too, at every open: a folder made
/// readable by others (a copy, a restore, an older Colmena, a shared
/// parent's umask) would show them the store, the runs and the logs.
pub fn prepare(dir: &Path) -> Result<PathBuf> {
    let prepared = create(dir)?;
    #[cfg(unix)]
    make_private(&prepared);
    Ok(prepared)
}

/// Removes every permission but the owner's from `dir`, if it has any.
#[cfg(unix)]
fn make_private(dir: &Path) {
    use std::os::unix::fs::PermissionsExt;
    let Ok(meta) = std::fs::metadata(dir) else {
        return;
    };
    let mode = meta.permissions().mode();
    if mode & 0o077 == 0 {
        return;
    }
    let private = std::fs::Permissions::from_mode(mode & 0o700);
    if let Err(e) = std::fs::set_permissions(dir, private) {
        tracing::warn!(
            "the data dir {} is readable by others and could not be made private: {e}",
            dir.display()
        );
    }
}

fn create(dir: &Path) -> Result<PathBuf> {
    if !dir.exists() {
        crate::private_files::create_dir_all(dir).map_err(|e| {
            AppError::precondition(format!("cannot create the data dir {}: {e}", dir.display()))
        })?;
    }
    if !dir.is_dir() {
        return Err(AppError::precondition(format!(
            "the data dir {} is not a folder",
            dir.display()
        )));
    }
    dir.canonicalize().map_err(|e| {
        AppError::precondition(format!("cannot use the data dir {}: {e}", dir.display()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_explicit_dir_wins() {
        let dir = Path::new("/tmp/explicit-colmena");
        assert_eq!(resolve(Some(dir)).unwrap(), dir);
    }

    #[test]
    fn prepare_creates_nested_private_folders() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("a/b/c");
        let prepared = prepare(&dir).unwrap();
        assert!(prepared.is_absolute());
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&dir).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o700);
        }
    }

    #[cfg(unix)]
    #[test]
    fn an_existing_data_dir_open_to_others_is_made_private() {
        use std::os::unix::fs::PermissionsExt;
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("shared");
        std::fs::create_dir(&dir).unwrap();
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        prepare(&dir).unwrap();
        let mode = std::fs::metadata(&dir).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700);
    }

    #[test]
    fn a_file_is_not_a_data_dir() {
        let root = tempfile::tempdir().unwrap();
        let file = root.path().join("f");
        std::fs::write(&file, b"x").unwrap();
        let err = prepare(&file).unwrap_err();
        assert_eq!(err.code, crate::error::ErrorCode::Precondition);
    }
}
