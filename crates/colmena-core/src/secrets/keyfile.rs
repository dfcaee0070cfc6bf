//! The key-file backend: the master key as 32 raw bytes in a file that only
//! its owner may read (mode 0600), in a folder only its owner may enter
//! (0700) — and *not* in the data dir.
//!
//! Why not next to the store: whatever can read the data dir (a program an
//! agent runs, a file tool with a bug, a backup or a sync client that copies
//! the folder) would then hold the secrets and the key that opens them
//! together. The key lives in the OS config folder instead,
//! `<config dir>/colmena/keys/<id>.key`, where `<id>` is derived from the
//! data dir's path ([`key_id`]), so each data dir keeps its own key.
//!
//! [`KEY_DIR_ENV`] names another folder (tests, or a key kept on a separate
//! device). A data dir inside the system's temporary folder (tests,
//! throwaway workspaces) keeps its key in a private folder there,
//! `<tmp>/colmena-keys-<uid>`, so throwaway data dirs never leave keys in
//! the person's config folder. A key file found in the data dir, where
//! earlier versions kept it, is moved on open ([`adopt_legacy`]).

use std::io::Write;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};
use zeroize::Zeroizing;

use super::{KEY_LEN, MasterKey};

/// File name of the master key inside the data dir, where versions before
/// the key folder kept it (only read, to move it).
pub const KEY_FILE: &str = "master.key";

/// Environment variable naming the folder of key files.
pub const KEY_DIR_ENV: &str = "COLMENA_KEY_DIR";

/// A stable id for a data dir: the first 16 bytes of the SHA-256 of its
/// path, in hex. Same path, same key file.
pub fn key_id(data_dir: &Path) -> String {
    let digest = Sha256::digest(data_dir.as_os_str().as_encoded_bytes());
    super::encode_hex(&digest[..16])
}

/// The folder of key files for `data_dir`: [`KEY_DIR_ENV`], else a private
/// folder in the temporary folder for a data dir inside it, else
/// `<config dir>/colmena/keys`.
pub fn key_dir(data_dir: &Path) -> Result<PathBuf, KeyFileError> {
    if let Some(dir) = std::env::var_os(KEY_DIR_ENV).filter(|v| !v.is_empty()) {
        return Ok(PathBuf::from(dir));
    }
    let tmp = std::env::temp_dir();
    let tmp = tmp.canonicalize().unwrap_or(tmp);
    if data_dir.starts_with(&tmp) {
        return Ok(tmp.join(format!("colmena-keys-{}", owner_id())));
    }
    dirs::config_dir()
        .map(|d| d.join(crate::data_dir::APP_FOLDER).join("keys"))
        .ok_or_else(|| KeyFileError::Io {
            path: KEY_DIR_ENV.to_owned(),
            source: std::io::Error::other(format!(
                "this system has no config folder for the key file; set {KEY_DIR_ENV}"
            )),
        })
}

#[cfg(unix)]
fn owner_id() -> String {
    rustix::process::getuid().as_raw().to_string()
}

#[cfg(not(unix))]
fn owner_id() -> String {
    std::env::var("USERNAME").unwrap_or_else(|_| "user".to_owned())
}

/// The key file of `data_dir` inside `dir`.
pub fn path_in(dir: &Path, data_dir: &Path) -> PathBuf {
    dir.join(format!("{}.key", key_id(data_dir)))
}

/// Creates `dir` owner-only, or checks that an existing one is a folder of
/// ours that nobody else may enter (a folder in a shared temporary folder
/// could have been made by someone else).
pub fn prepare_dir(dir: &Path) -> Result<(), KeyFileError> {
    crate::private_files::create_dir_all(dir).map_err(io(dir))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        let meta = std::fs::symlink_metadata(dir).map_err(io(dir))?;
        let mine = meta.uid() == rustix::process::getuid().as_raw();
        if !meta.is_dir() || !mine {
            return Err(KeyFileError::Io {
                path: dir.display().to_string(),
                source: std::io::Error::other("the key folder is not a folder owned by this user"),
            });
        }
        if meta.permissions().mode() & 0o077 != 0 {
            std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
                .map_err(io(dir))?;
        }
    }
    Ok(())
}

/// Moves a key file left in the data dir by an earlier version to `to`.
/// The note says what happened. Two different keys are an error: neither
/// is deleted.
pub fn adopt_legacy(data_dir: &Path, to: &Path) -> Result<Option<String>, KeyFileError> {
    let legacy = data_dir.join(KEY_FILE);
    let old = match std::fs::read(&legacy) {
        Ok(bytes) => Zeroizing::new(bytes),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io(&legacy)(e)),
    };
    match std::fs::read(to).map(Zeroizing::new) {
        Ok(current) if current.as_slice() == old.as_slice() => {}
        Ok(_) => {
            return Err(KeyFileError::Io {
                path: legacy.display().to_string(),
                source: std::io::Error::other(format!(
                    "a different key file already exists at {}; remove one of them",
                    to.display()
                )),
            });
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let key: [u8; KEY_LEN] =
                old.as_slice()
                    .try_into()
                    .map_err(|_| KeyFileError::WrongLength {
                        path: legacy.display().to_string(),
                        len: old.len(),
                    })?;
            create(to, &MasterKey(Zeroizing::new(key)))?;
        }
        Err(e) => return Err(io(to)(e)),
    }
    std::fs::remove_file(&legacy).map_err(io(&legacy))?;
    Ok(Some(format!(
        "the key file was moved out of the data dir to {}",
        to.display()
    )))
}

/// Why the key file could not be used.
#[derive(Debug, thiserror::Error)]
pub enum KeyFileError {
    #[error("the key file {0} is missing")]
    Missing(String),
    #[error("a key file already exists at {0}")]
    Exists(String),
    #[error("the key file {path} holds {len} bytes, not {KEY_LEN}")]
    WrongLength { path: String, len: usize },
    #[error("could not use the key file {path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> KeyFileError + '_ {
    move |source| KeyFileError::Io {
        path: path.display().to_string(),
        source,
    }
}

/// Reads the key file. Tightens its permissions to 0600 if someone loosened
/// them; the returned note says so.
pub fn load(path: &Path) -> Result<(MasterKey, Option<String>), KeyFileError> {
    let bytes = match std::fs::read(path) {
        Ok(bytes) => Zeroizing::new(bytes),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(KeyFileError::Missing(path.display().to_string()));
        }
        Err(e) => return Err(io(path)(e)),
    };
    let key: [u8; KEY_LEN] =
        bytes
            .as_slice()
            .try_into()
            .map_err(|_| KeyFileError::WrongLength {
                path: path.display().to_string(),
                len: bytes.len(),
            })?;
    let note = tighten_permissions(path)?;
    Ok((MasterKey(Zeroizing::new(key)), note))
}

/// Writes a new key file; fails with [`KeyFileError::Exists`] if one exists
/// (a key is never overwritten). The key is written whole to a private
/// file first and then linked into place, so a process starting at the same
/// moment (the app and `colmena serve` together) never reads half a key:
/// it either finds none or finds this one.
pub fn create(path: &Path, key: &MasterKey) -> Result<(), KeyFileError> {
    let partial = partial_path(path);
    let linked = write_private(&partial, key).and_then(|()| std::fs::hard_link(&partial, path));
    let _ = std::fs::remove_file(&partial);
    match linked {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            Err(KeyFileError::Exists(path.display().to_string()))
        }
        Err(e) => Err(io(path)(e)),
    }
}

/// Puts `key` in place of the key file at `path`, existing or not: a
/// restore bringing back a backup's key (the caller has kept the key it
/// replaces). Written whole to a private file and renamed over the old one,
/// so a process starting meanwhile reads one key or the other, never half.
pub fn replace(path: &Path, key: &MasterKey) -> Result<(), KeyFileError> {
    let partial = partial_path(path);
    let placed = write_private(&partial, key).and_then(|()| std::fs::rename(&partial, path));
    if placed.is_err() {
        let _ = std::fs::remove_file(&partial);
    }
    placed.map_err(io(path))
}

/// A file next to `path` no other process picks: where a key is written
/// whole before it is put in place.
fn partial_path(path: &Path) -> std::path::PathBuf {
    path.with_extension(format!(
        "partial-{}-{}",
        std::process::id(),
        uuid::Uuid::new_v4().simple()
    ))
}

/// Writes `key` to a new owner-only file at `partial`, synced to disk.
fn write_private(partial: &Path, key: &MasterKey) -> std::io::Result<()> {
    let mut file = crate::private_files::file_options()
        .write(true)
        .create_new(true)
        .open(partial)?;
    file.write_all(key.0.as_slice())?;
    file.sync_all()
}

#[cfg(unix)]
fn tighten_permissions(path: &Path) -> Result<Option<String>, KeyFileError> {
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(path)
        .map_err(io(path))?
        .permissions()
        .mode();
    if mode & 0o077 == 0 {
        return Ok(None);
    }
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)).map_err(io(path))?;
    Ok(Some(format!(
        "the key file was readable by others (mode {:o}); it is now 0600",
        mode & 0o777
    )))
}

#[cfg(not(unix))]
fn tighten_permissions(_path: &Path) -> Result<Option<String>, KeyFileError> {
    Ok(None)
}
