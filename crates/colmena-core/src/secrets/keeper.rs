//! The master key read and put back while no workspace is open: a backup
//! reads the key to seal it with a passphrase, a restore puts a backup's key
//! back where the restored store will look for it.
//!
//! Why not through [`super::Vault`]: backups and restores work on store
//! files (a restore must not hold the store it replaces), so the keeper is
//! found the way the vault finds it — the backend the store recorded, the
//! keychain entry or key file of the data dir's path — without opening one.

use std::path::Path;

use rusqlite::Connection;

use super::{
    BackendChoice, META_BACKEND, META_KEY_CHECK, MasterKey, Resolved, SecretBackend, keychain,
    keyfile, resolve_key,
};
use crate::error::{AppError, ErrorCode, Result};
use crate::store::meta;

/// The stable reason of every "the key cannot be reached" refusal.
pub const KEY_UNAVAILABLE: &str = "key_unavailable";

fn unavailable(message: impl Into<String>) -> AppError {
    AppError::new(ErrorCode::Precondition, message)
        .with_details(serde_json::json!({ "reason": KEY_UNAVAILABLE }))
}

/// The keeper a store recorded, if it ever sealed anything.
pub fn recorded_backend(conn: &Connection) -> Result<Option<SecretBackend>> {
    meta::get(conn, META_BACKEND)?
        .map(|text| {
            SecretBackend::parse(&text).ok_or_else(|| {
                AppError::internal(format!(
                    "the store names an unknown secret backend '{text}'"
                ))
            })
        })
        .transpose()
}

/// Whether `key` opens the secrets of the store `conn`; `None` when the
/// store never sealed anything (it has no key check).
pub fn key_opens(conn: &Connection, key: &MasterKey) -> Result<Option<bool>> {
    Ok(meta::get(conn, META_KEY_CHECK)?.map(|check| super::key_opens_check(key, &check)))
}

/// The master key of the store `conn` in `data_dir`, from the keeper the
/// store recorded and checked against it; `None` when the store never
/// sealed anything. A key that cannot be reached, or that does not open the
/// store, is the precondition [`KEY_UNAVAILABLE`].
pub fn current_key(data_dir: &Path, conn: &Connection) -> Result<Option<MasterKey>> {
    let Some(backend) = recorded_backend(conn)? else {
        return Ok(None);
    };
    let key = match resolve_key(data_dir, Some(backend), BackendChoice::Auto, None) {
        Resolved::Ready { key, .. } => key,
        Resolved::Locked(status) => {
            return Err(unavailable(format!(
                "the master key cannot be reached: {}",
                status
                    .note
                    .unwrap_or_else(|| "the keeper did not answer".into())
            )));
        }
    };
    match key_opens(conn, &key)? {
        Some(false) => Err(unavailable(format!(
            "the master key in the {} does not open this store's secrets",
            backend.as_str()
        ))),
        _ => Ok(Some(key)),
    }
}

/// Where the keeper `backend` of `data_dir` is, for people.
pub fn location(data_dir: &Path, backend: SecretBackend) -> String {
    match backend {
        SecretBackend::Keychain => keychain::KeychainEntry::for_data_dir(data_dir).describe(),
        SecretBackend::File => match keyfile::key_dir(data_dir) {
            Ok(dir) => keyfile::path_in(&dir, data_dir).display().to_string(),
            Err(e) => e.to_string(),
        },
    }
}

/// The key the keeper `backend` of `data_dir` holds now, if any.
pub fn held(data_dir: &Path, backend: SecretBackend) -> Result<Option<MasterKey>> {
    match backend {
        SecretBackend::Keychain => keychain::KeychainEntry::for_data_dir(data_dir)
            .load()
            .map_err(|e| unavailable(format!("the OS keychain cannot be read: {e}"))),
        SecretBackend::File => {
            let path = key_file(data_dir)?;
            match keyfile::load(&path) {
                Ok((key, _)) => Ok(Some(key)),
                Err(keyfile::KeyFileError::Missing(_)) => Ok(None),
                Err(e) => Err(unavailable(e.to_string())),
            }
        }
    }
}

/// Puts `key` in the keeper `backend` of `data_dir`, over any key there (the
/// caller has kept that one: see [`held`]). Returns where it is.
pub fn put(data_dir: &Path, backend: SecretBackend, key: &MasterKey) -> Result<String> {
    match backend {
        SecretBackend::Keychain => {
            let entry = keychain::KeychainEntry::for_data_dir(data_dir);
            entry.store(key).map_err(|e| {
                unavailable(format!("the OS keychain cannot take the master key: {e}"))
            })?;
            Ok(entry.describe())
        }
        SecretBackend::File => {
            let path = key_file(data_dir)?;
            keyfile::replace(&path, key).map_err(|e| unavailable(e.to_string()))?;
            Ok(path.display().to_string())
        }
    }
}

/// The key file of `data_dir`, its folder made private.
fn key_file(data_dir: &Path) -> Result<std::path::PathBuf> {
    let dir = keyfile::key_dir(data_dir).map_err(|e| unavailable(e.to_string()))?;
    keyfile::prepare_dir(&dir).map_err(|e| unavailable(e.to_string()))?;
    Ok(keyfile::path_in(&dir, data_dir))
}
