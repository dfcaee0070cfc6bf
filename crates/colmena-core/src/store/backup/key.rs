//! The key that goes with a backup (issue 33).
//!
//! A backup is the store, and the store's secrets are sealed with a master
//! key kept outside the data dir on purpose: a backup alone gives back every
//! row but no secret once that key is gone (a new machine, a lost keychain).
//! So a backup may carry the key, sealed with a passphrase the person
//! chooses (`secrets::key_bundle`), in a file beside it: `<backup>.colmena-key`.
//!
//! Why beside the backup rather than inside it: the backup stays a plain
//! store that `validate` checks table by table and any Colmena restores;
//! the bundle can be kept apart from the copy (another disk, a password
//! manager) or left out on purpose; a copy without its bundle carries no key.
//!
//! Automatic copies (before a migration, before the first start of a new
//! version, before an update) are made when nobody is there to type a
//! passphrase. A person who wants them to carry the key seals it once
//! (`colmena backup --automatic-key on`, Settings → Data → Backups): that
//! bundle waits in `backups/automatic.colmena-key` and is copied beside
//! every copy made without a passphrase. A data dir's master key never
//! changes, so the one bundle stays right.
//!
//! A restore given the passphrase checks the bundle against the backup's
//! own key check before anything changes, puts the store back, then puts
//! the key into the keeper the restored store names (the key file when the
//! keychain cannot take it, and the store then says so). A different key
//! found there is not lost: it is sealed with the same passphrase beside the
//! copy of the store it belonged to.

use std::io::Read;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{backups_dir, new_backup_path, open_read_only};
use crate::error::{AppError, ErrorCode, Result};
use crate::secrets::key_bundle::{self, BUNDLE_FIELD, Costs};
use crate::secrets::{
    META_BACKEND, META_BACKEND_NOTE, META_KEY_CHECK, MasterKey, SecretBackend, keeper,
};
use crate::store::meta;

/// Appended to a backup's file name to name its key bundle.
pub const BUNDLE_SUFFIX: &str = ".colmena-key";
/// In the backups folder: the bundle copied beside every copy made without
/// a passphrase.
pub const AUTOMATIC_BUNDLE: &str = "automatic.colmena-key";
/// A bundle is ~100 bytes; a larger file is not one and is not read whole.
const MAX_BUNDLE_BYTES: u64 = 4096;

/// What a backup holds of the master key.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum BackupKey {
    /// The key, sealed with a passphrase, is in `bundle` beside the copy.
    Sealed { bundle: PathBuf },
    /// Not included: the copy's secrets open only with this workspace's key.
    NotIncluded,
    /// The store has no master key yet: nothing in it is sealed.
    NoKey,
}

/// What a restore did with the master key.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RestoredKey {
    /// The backup's key is in the keeper now.
    Restored { location: String },
    /// The keeper already held the backup's key.
    AlreadyThere { location: String },
    /// The backup carries a sealed key, not opened (no passphrase given).
    NotOpened {
        bundle: PathBuf,
        /// Whether the key this workspace has opens the restored secrets.
        #[serde(rename = "currentKeyOpens")]
        current_key_opens: bool,
    },
    /// The backup carries no key: its secrets need the key of the
    /// workspace it came from.
    NotIncluded {
        #[serde(rename = "currentKeyOpens")]
        current_key_opens: bool,
    },
    /// The restored store has no master key yet: nothing in it is sealed.
    NoKey,
}

/// The key half of a restore, as asked.
#[derive(Debug, Clone, Copy, Default)]
pub struct KeyToRestore<'a> {
    /// Opens the bundle; without it the key is left as it is.
    pub passphrase: Option<&'a str>,
    /// The bundle, when it is not beside the backup (`<backup>.colmena-key`).
    pub bundle: Option<&'a Path>,
}

/// The bundle of the backup at `backup`: `<backup>.colmena-key`.
pub fn bundle_path(backup: &Path) -> PathBuf {
    let mut name = backup.as_os_str().to_owned();
    name.push(BUNDLE_SUFFIX);
    PathBuf::from(name)
}

fn automatic_path(db_path: &Path) -> PathBuf {
    backups_dir(db_path).join(AUTOMATIC_BUNDLE)
}

/// The data dir of the store at `db_path`, as the keeper names it (the
/// canonical path, as the workspace opens it).
fn data_dir_of(db_path: &Path) -> Result<PathBuf> {
    let dir = db_path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or_else(|| Path::new("."));
    dir.canonicalize().map_err(|e| {
        AppError::precondition(format!("cannot use the data dir {}: {e}", dir.display()))
    })
}

/// Writes `bytes` to a new owner-only file at `path`, or over an existing
/// one when `replace` (written aside, then renamed).
fn write_private(path: &Path, bytes: &[u8], replace: bool) -> Result<()> {
    use std::io::Write;
    let target = if replace {
        let mut name = path.as_os_str().to_owned();
        name.push(format!(".partial-{}", std::process::id()));
        PathBuf::from(name)
    } else {
        path.to_owned()
    };
    let written = crate::private_files::file_options()
        .write(true)
        .create_new(true)
        .open(&target)
        .and_then(|mut file| {
            file.write_all(bytes)?;
            file.sync_all()
        })
        .and_then(|()| {
            if replace {
                std::fs::rename(&target, path)
            } else {
                Ok(())
            }
        });
    written.map_err(|e| {
        if e.kind() != std::io::ErrorKind::AlreadyExists {
            let _ = std::fs::remove_file(&target);
        }
        if e.kind() == std::io::ErrorKind::AlreadyExists {
            AppError::conflicting_field(
                BUNDLE_FIELD,
                "exists",
                format!("{} already exists", path.display()),
            )
        } else {
            AppError::invalid_field(
                BUNDLE_FIELD,
                "unwritable",
                format!("cannot write {}: {e}", path.display()),
            )
        }
    })
}

/// Seals the key of the store at `db_path` beside `backup`, a copy of it
/// just written.
pub(super) fn seal_beside(db_path: &Path, backup: &Path, passphrase: &str) -> Result<BackupKey> {
    let conn = open_read_only(backup)?;
    let Some(key) = keeper::current_key(&data_dir_of(db_path)?, &conn)? else {
        return Ok(BackupKey::NoKey);
    };
    let bundle = bundle_path(backup);
    write_private(&bundle, &key_bundle::seal(&key, passphrase)?, false)?;
    Ok(BackupKey::Sealed { bundle })
}

/// Beside a copy made without a passphrase: the automatic bundle, when the
/// person sealed one. Never fails the copy: a bundle that cannot be copied
/// is logged, and the copy says it has no key.
pub(super) fn automatic_beside(db_path: &Path, backup: &Path) -> BackupKey {
    let has_key = open_read_only(backup).and_then(|c| Ok(meta::get(&c, META_KEY_CHECK)?.is_some()));
    if matches!(has_key, Ok(false)) {
        return BackupKey::NoKey;
    }
    let standing = automatic_path(db_path);
    let Ok(bytes) = read_bundle(&standing) else {
        return BackupKey::NotIncluded;
    };
    let bundle = bundle_path(backup);
    match write_private(&bundle, &bytes, false) {
        Ok(()) => BackupKey::Sealed { bundle },
        Err(e) => {
            tracing::warn!(
                "the key bundle for automatic copies could not be put beside {}: {}",
                backup.display(),
                e.message
            );
            BackupKey::NotIncluded
        }
    }
}

/// Seals the key of the store at `db_path` for every later copy made
/// without a passphrase (replacing an earlier such bundle). Returns where.
pub fn keep_for_automatic_copies(db_path: &Path, passphrase: &str) -> Result<PathBuf> {
    key_bundle::check_new_passphrase(passphrase)?;
    let conn = open_read_only(db_path)?;
    let key = keeper::current_key(&data_dir_of(db_path)?, &conn)?.ok_or_else(|| {
        AppError::precondition("this workspace has no master key yet: there is nothing to keep")
            .with_details(serde_json::json!({ "reason": "no_key" }))
    })?;
    let sealed = key_bundle::seal(&key, passphrase)?;
    // The folder, made owner-only, as every copy's.
    new_backup_path(db_path, "", "")?;
    let path = automatic_path(db_path);
    write_private(&path, &sealed, true)?;
    Ok(path)
}

/// Stops sealing the key into copies made without a passphrase. Returns
/// whether there was such a bundle.
pub fn forget_for_automatic_copies(db_path: &Path) -> Result<bool> {
    let path = automatic_path(db_path);
    match std::fs::remove_file(&path) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(AppError::internal(format!(
            "cannot remove {}: {e}",
            path.display()
        ))),
    }
}

/// Whether copies made without a passphrase carry the key.
pub fn kept_for_automatic_copies(db_path: &Path) -> bool {
    automatic_path(db_path).is_file()
}

fn read_bundle(path: &Path) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    std::fs::File::open(path)?
        .take(MAX_BUNDLE_BYTES)
        .read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// A key opened from a bundle and checked against the backup.
pub(super) struct Opened {
    key: MasterKey,
    backend: SecretBackend,
}

/// Opens the bundle of the backup `file` when a passphrase is given, and
/// checks that its key opens the backup's secrets — all before anything
/// changes. `None`: no passphrase, or a backup that sealed nothing.
pub(super) fn open_for(file: &Path, wanted: &KeyToRestore<'_>) -> Result<Option<Opened>> {
    let Some(passphrase) = wanted.passphrase else {
        return Ok(None);
    };
    let bundle = wanted
        .bundle
        .map_or_else(|| bundle_path(file), Path::to_path_buf);
    let bytes = read_bundle(&bundle).map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            AppError::invalid_field(
                BUNDLE_FIELD,
                "no_key_bundle",
                format!(
                    "no key was kept with {} ({} does not exist): restore it without a passphrase, or name its key bundle",
                    file.display(),
                    bundle.display()
                ),
            )
        } else {
            AppError::invalid_field(
                BUNDLE_FIELD,
                "unreadable",
                format!("cannot read {}: {e}", bundle.display()),
            )
        }
    })?;
    let key = key_bundle::open(&bytes, passphrase)?;
    let conn = open_read_only(file)?;
    match keeper::key_opens(&conn, &key)? {
        None => Ok(None),
        Some(false) => Err(AppError::invalid_field(
            BUNDLE_FIELD,
            "key_mismatch",
            format!(
                "the key in {} does not open the secrets of {}: it was kept with another backup",
                bundle.display(),
                file.display()
            ),
        )),
        Some(true) => Ok(Some(Opened {
            key,
            backend: keeper::recorded_backend(&conn)?.unwrap_or(SecretBackend::File),
        })),
    }
}

/// After the store at `db_path` was replaced by `file`: puts the opened key
/// back (keeping a different one found there, sealed with the same
/// passphrase beside `previous`, the copy of the replaced store), or says
/// what the restored secrets need.
pub(super) fn settle(
    db_path: &Path,
    file: &Path,
    opened: Option<Opened>,
    passphrase: Option<&str>,
    previous: Option<&Path>,
) -> Result<(RestoredKey, Option<PathBuf>)> {
    let data_dir = data_dir_of(db_path)?;
    let (Some(Opened { key, backend }), Some(passphrase)) = (opened, passphrase) else {
        return Ok((without_key(db_path, file, &data_dir), None));
    };
    let restored_but = |e: AppError| {
        let mut wrapped = AppError::new(
            e.code,
            format!(
                "the store was restored, but its key could not be put back: {}. Restore it again once that is fixed.",
                e.message
            ),
        );
        wrapped.details = e.details;
        wrapped
    };
    // A keychain that cannot be reached here (another machine, no session
    // bus): the key file instead, and the restored store says so.
    let (backend, held, moved) = match keeper::held(&data_dir, backend) {
        Ok(held) => (backend, held, None),
        Err(e) if backend == SecretBackend::Keychain => {
            let held = keeper::held(&data_dir, SecretBackend::File).map_err(restored_but)?;
            let note = format!(
                "the key was restored from a backup into the key file: the OS keychain was not available ({})",
                e.message
            );
            (SecretBackend::File, held, Some(note))
        }
        Err(e) => return Err(restored_but(e)),
    };
    let (restored, replaced) = match &held {
        Some(same) if same.0 == key.0 => (
            RestoredKey::AlreadyThere {
                location: keeper::location(&data_dir, backend),
            },
            None,
        ),
        _ => {
            let replaced = match &held {
                Some(other) => Some(
                    keep_replaced(db_path, other, passphrase, previous).map_err(restored_but)?,
                ),
                None => None,
            };
            let location = keeper::put(&data_dir, backend, &key).map_err(restored_but)?;
            (RestoredKey::Restored { location }, replaced)
        }
    };
    if let Some(note) = moved {
        let conn = rusqlite::Connection::open(db_path).map_err(|e| restored_but(e.into()))?;
        meta::set(&conn, META_BACKEND, backend.as_str())
            .and_then(|()| meta::set(&conn, META_BACKEND_NOTE, &note))
            .map_err(restored_but)?;
    }
    Ok((restored, replaced))
}

/// Seals `other`, the key a restore is about to replace, with the same
/// passphrase beside the copy of the store it belonged to.
fn keep_replaced(
    db_path: &Path,
    other: &MasterKey,
    passphrase: &str,
    previous: Option<&Path>,
) -> Result<PathBuf> {
    let path = match previous {
        Some(copy) => bundle_path(copy),
        None => new_backup_path(db_path, "replaced-key-", "")?.with_extension("colmena-key"),
    };
    write_private(
        &path,
        &key_bundle::seal_with(other, passphrase, Costs::SEALING)?,
        false,
    )?;
    tracing::info!(
        "the master key a restore replaced is kept, sealed with the same passphrase, in {}",
        path.display()
    );
    Ok(path)
}

/// What the restored secrets need when no key was restored.
fn without_key(db_path: &Path, file: &Path, data_dir: &Path) -> RestoredKey {
    let current = open_read_only(db_path).and_then(|conn| keeper::current_key(data_dir, &conn));
    let current_key_opens = match current {
        Ok(None) => return RestoredKey::NoKey,
        Ok(Some(_)) => true,
        Err(e) if e.code == ErrorCode::Precondition => false,
        Err(e) => {
            tracing::warn!(
                "could not tell whether the restored secrets open: {}",
                e.message
            );
            false
        }
    };
    let bundle = bundle_path(file);
    if bundle.is_file() {
        RestoredKey::NotOpened {
            bundle,
            current_key_opens,
        }
    } else {
        RestoredKey::NotIncluded { current_key_opens }
    }
}
