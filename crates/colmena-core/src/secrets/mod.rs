//! Secrets at rest: AES-256-GCM under one master key per data dir.
//!
//! The master key lives in the OS keychain when one answers, otherwise in a
//! 0600 key file in the OS config folder — never in the data dir, so what
//! can read the store cannot also read its key ([`keyfile`]). Which backend holds it is recorded in the
//! store the first time, and from then on it is the only place we look: if
//! the keychain stops answering we report the vault as locked rather than
//! make a new key (which would silently orphan every stored secret). The
//! active backend and any reason for a fallback are in [`SecretBackendStatus`],
//! shown by `colmena doctor` and in Settings.
//!
//! Each secret is sealed with a fresh random nonce and bound to its context
//! (`provider:openai:api_key`) as associated data, so a ciphertext copied
//! into another row does not decrypt. No function here returns a secret to an
//! adapter: callers inside core decrypt only to use the secret upstream.
//!
//! A backup may carry the key sealed with a passphrase ([`key_bundle`]); a
//! restore puts it back into the keeper the restored store names ([`keeper`]).

pub mod keeper;
pub mod key_bundle;
pub mod keychain;
pub mod keyfile;
mod mask;

use std::path::{Path, PathBuf};

use aes_gcm::aead::{Aead, KeyInit, Payload};
use aes_gcm::{Aes256Gcm, Nonce};
use serde::{Deserialize, Serialize};
use zeroize::Zeroizing;

use crate::error::{AppError, Result};
use crate::store::{Store, meta};

pub use mask::mask_secret;

pub(crate) const KEY_LEN: usize = 32;
const NONCE_LEN: usize = 12;
const ENVELOPE_VERSION: u8 = 1;
pub(crate) const META_BACKEND: &str = "secret_backend";
pub(crate) const META_KEY_CHECK: &str = "secret_key_check";
/// Why the backend was chosen, when it was a fallback; shown on every run.
pub(crate) const META_BACKEND_NOTE: &str = "secret_backend_note";
const KEY_CHECK_CONTEXT: &str = "colmena:key-check";
const KEY_CHECK_PLAINTEXT: &[u8] = b"colmena master key check";

/// Environment variable that picks the backend for a new data dir:
/// `keychain`, `file` or `auto` (the default).
pub const BACKEND_ENV: &str = "COLMENA_SECRET_BACKEND";

/// The master key. Zeroed when dropped; never serialized.
pub struct MasterKey(pub(crate) Zeroizing<[u8; KEY_LEN]>);

impl MasterKey {
    fn generate() -> Result<MasterKey> {
        let mut key = Zeroizing::new([0u8; KEY_LEN]);
        getrandom::fill(key.as_mut_slice())
            .map_err(|e| AppError::internal(format!("the OS random source failed: {e}")))?;
        Ok(MasterKey(key))
    }
}

/// Where the master key is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum SecretBackend {
    Keychain,
    File,
}

impl SecretBackend {
    pub fn as_str(self) -> &'static str {
        match self {
            SecretBackend::Keychain => "keychain",
            SecretBackend::File => "file",
        }
    }

    fn parse(text: &str) -> Option<SecretBackend> {
        match text {
            "keychain" => Some(SecretBackend::Keychain),
            "file" => Some(SecretBackend::File),
            _ => None,
        }
    }
}

/// Which backend to use for a data dir that has none yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BackendChoice {
    /// The keychain if it answers, else the key file (and the status says why).
    #[default]
    Auto,
    Keychain,
    File,
}

impl BackendChoice {
    /// Reads [`BACKEND_ENV`]; an unknown value is an error, not a default.
    pub fn from_env() -> Result<BackendChoice> {
        match std::env::var(BACKEND_ENV) {
            Err(_) => Ok(BackendChoice::Auto),
            Ok(value) => match value.trim() {
                "" | "auto" => Ok(BackendChoice::Auto),
                "keychain" => Ok(BackendChoice::Keychain),
                "file" => Ok(BackendChoice::File),
                other => Err(AppError::invalid_field(
                    BACKEND_ENV,
                    "unknown_backend",
                    format!("{BACKEND_ENV}={other} is not one of auto, keychain, file"),
                )),
            },
        }
    }
}

/// What `colmena doctor` and Settings show about secrets.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct SecretBackendStatus {
    pub backend: SecretBackend,
    /// Where the key is: the keychain entry, or the key file's path.
    pub location: String,
    /// False when the key cannot be reached; secrets can then be neither
    /// stored nor used, and `note` says why.
    pub ready: bool,
    /// Why this backend (a fallback's reason), or why it is not ready.
    pub note: Option<String>,
}

/// Seals and opens secrets with the data dir's master key.
pub struct Vault {
    cipher: Option<Aes256Gcm>,
    status: SecretBackendStatus,
}

impl Vault {
    /// Finds (or, for a new data dir, creates) the master key.
    pub async fn open(data_dir: &Path, store: &Store, choice: BackendChoice) -> Result<Vault> {
        Vault::open_in(data_dir, store, choice, None).await
    }

    /// [`Vault::open`] with the folder of key files chosen by the caller
    /// instead of [`keyfile::key_dir`] (tests, a key on a separate device).
    pub async fn open_with_key_dir(
        data_dir: &Path,
        store: &Store,
        choice: BackendChoice,
        key_dir: &Path,
    ) -> Result<Vault> {
        Vault::open_in(data_dir, store, choice, Some(key_dir.to_owned())).await
    }

    async fn open_in(
        data_dir: &Path,
        store: &Store,
        choice: BackendChoice,
        key_dir: Option<PathBuf>,
    ) -> Result<Vault> {
        let recorded = store
            .read(|c| meta::get(c, META_BACKEND))
            .await?
            .map(|text| {
                SecretBackend::parse(&text).ok_or_else(|| {
                    AppError::internal(format!(
                        "the store names an unknown secret backend '{text}'"
                    ))
                })
            })
            .transpose()?;
        let check = store.read(|c| meta::get(c, META_KEY_CHECK)).await?;
        let recorded_note = store.read(|c| meta::get(c, META_BACKEND_NOTE)).await?;

        let data_dir = data_dir.to_owned();
        let resolved =
            tokio::task::spawn_blocking(move || resolve_key(&data_dir, recorded, choice, key_dir))
                .await
                .map_err(|e| AppError::internal(format!("opening the vault failed: {e}")))?;

        let (key, mut status) = match resolved {
            Resolved::Ready { key, status } => (key, status),
            Resolved::Locked(status) => {
                return Ok(Vault {
                    cipher: None,
                    status,
                });
            }
        };
        if status.note.is_none() {
            status.note = recorded_note;
        }
        let cipher = Aes256Gcm::new_from_slice(key.0.as_slice())
            .map_err(|_| AppError::internal("the master key has the wrong length"))?;
        let mut vault = Vault {
            cipher: Some(cipher),
            status,
        };

        match check {
            Some(hex) => {
                let verified = decode_hex(&hex)
                    .and_then(|blob| vault.open_envelope(KEY_CHECK_CONTEXT, &blob).ok())
                    .is_some_and(|clear| clear.as_slice() == KEY_CHECK_PLAINTEXT);
                if !verified {
                    vault.lock(format!(
                        "the master key in the {} does not match this store's secrets",
                        vault.status.backend.as_str()
                    ));
                }
            }
            None => {
                let blob = vault.seal(KEY_CHECK_CONTEXT, KEY_CHECK_PLAINTEXT)?;
                let backend = vault.status.backend.as_str();
                let note = vault.status.note.clone();
                store
                    .write(move |tx| {
                        meta::set(tx, META_BACKEND, backend)?;
                        if let Some(note) = note {
                            meta::set(tx, META_BACKEND_NOTE, &note)?;
                        }
                        meta::set(tx, META_KEY_CHECK, &encode_hex(&blob))
                    })
                    .await?;
            }
        }
        Ok(vault)
    }

    pub fn status(&self) -> &SecretBackendStatus {
        &self.status
    }

    /// Encrypts `clear` for the row named by `context`.
    pub fn seal(&self, context: &str, clear: &[u8]) -> Result<Vec<u8>> {
        let cipher = self.ready_cipher()?;
        let mut nonce = [0u8; NONCE_LEN];
        getrandom::fill(&mut nonce)
            .map_err(|e| AppError::internal(format!("the OS random source failed: {e}")))?;
        let sealed = cipher
            .encrypt(
                &Nonce::from(nonce),
                Payload {
                    msg: clear,
                    aad: context.as_bytes(),
                },
            )
            .map_err(|_| AppError::internal("encryption failed"))?;
        let mut envelope = Vec::with_capacity(1 + NONCE_LEN + sealed.len());
        envelope.push(ENVELOPE_VERSION);
        envelope.extend_from_slice(&nonce);
        envelope.extend_from_slice(&sealed);
        Ok(envelope)
    }

    /// Decrypts an envelope made by [`Vault::seal`] for the same `context`.
    pub fn open_envelope(&self, context: &str, envelope: &[u8]) -> Result<Zeroizing<Vec<u8>>> {
        let cipher = self.ready_cipher()?;
        let corrupt =
            || AppError::internal(format!("the secret for {context} cannot be decrypted"));
        let (&version, rest) = envelope.split_first().ok_or_else(corrupt)?;
        if version != ENVELOPE_VERSION || rest.len() < NONCE_LEN {
            return Err(corrupt());
        }
        let (nonce, sealed) = rest.split_at(NONCE_LEN);
        let nonce: [u8; NONCE_LEN] = nonce.try_into().map_err(|_| corrupt())?;
        cipher
            .decrypt(
                &Nonce::from(nonce),
                Payload {
                    msg: sealed,
                    aad: context.as_bytes(),
                },
            )
            .map(Zeroizing::new)
            .map_err(|_| corrupt())
    }

    fn ready_cipher(&self) -> Result<&Aes256Gcm> {
        self.cipher.as_ref().ok_or_else(|| {
            AppError::precondition(format!(
                "secrets are locked: {}",
                self.status
                    .note
                    .as_deref()
                    .unwrap_or("the master key is unavailable")
            ))
        })
    }

    fn lock(&mut self, reason: String) {
        self.cipher = None;
        self.status.ready = false;
        self.status.note = Some(reason);
    }
}

enum Resolved {
    Ready {
        key: MasterKey,
        status: SecretBackendStatus,
    },
    Locked(SecretBackendStatus),
}

fn resolve_key(
    data_dir: &Path,
    recorded: Option<SecretBackend>,
    choice: BackendChoice,
    key_dir: Option<PathBuf>,
) -> Resolved {
    let keychain = keychain::KeychainEntry::for_data_dir(data_dir);
    let key_file: std::result::Result<PathBuf, String> = key_dir
        .map(Ok)
        .unwrap_or_else(|| keyfile::key_dir(data_dir))
        .map(|dir| keyfile::path_in(&dir, data_dir))
        .map_err(|e| e.to_string());
    let requested = match choice {
        BackendChoice::Auto => None,
        BackendChoice::Keychain => Some(SecretBackend::Keychain),
        BackendChoice::File => Some(SecretBackend::File),
    };
    let location = |backend| match backend {
        SecretBackend::Keychain => keychain.describe(),
        SecretBackend::File => match &key_file {
            Ok(path) => path.display().to_string(),
            Err(why) => why.clone(),
        },
    };
    let locked = |backend, note: String| {
        Resolved::Locked(SecretBackendStatus {
            backend,
            location: location(backend),
            ready: false,
            note: Some(note),
        })
    };
    let ready = |backend, key, note| Resolved::Ready {
        key,
        status: SecretBackendStatus {
            backend,
            location: location(backend),
            ready: true,
            note,
        },
    };

    match (recorded, requested) {
        (Some(recorded), Some(requested)) if recorded != requested => locked(
            recorded,
            format!(
                "this data dir keeps its master key in the {}, but {BACKEND_ENV} asks for the {}; \
                 unset it to use the existing key",
                recorded.as_str(),
                requested.as_str()
            ),
        ),
        (Some(SecretBackend::Keychain), _) => match keychain.load() {
            Ok(Some(key)) => ready(SecretBackend::Keychain, key, None),
            Ok(None) => locked(
                SecretBackend::Keychain,
                "the keychain has no master key for this data dir".into(),
            ),
            Err(e) => locked(
                SecretBackend::Keychain,
                format!("the master key is in the OS keychain, which is not answering: {e}"),
            ),
        },
        (Some(SecretBackend::File), _) => match file_key(data_dir, &key_file, false) {
            Ok((key, note)) => ready(SecretBackend::File, key, note),
            Err(e) => locked(SecretBackend::File, e),
        },
        (None, Some(SecretBackend::File)) => match file_key(data_dir, &key_file, true) {
            Ok((key, note)) => ready(SecretBackend::File, key, note),
            Err(e) => locked(SecretBackend::File, e),
        },
        (None, Some(SecretBackend::Keychain)) => match new_keychain_key(&keychain) {
            Ok(key) => ready(SecretBackend::Keychain, key, None),
            Err(e) => locked(
                SecretBackend::Keychain,
                format!("{BACKEND_ENV}=keychain, but the OS keychain is not usable: {e}"),
            ),
        },
        (None, None) => match new_keychain_key(&keychain) {
            Ok(key) => ready(SecretBackend::Keychain, key, None),
            Err(keychain_error) => match file_key(data_dir, &key_file, true) {
                Ok((key, note)) => {
                    let mut reason = format!("the OS keychain is not available ({keychain_error})");
                    if let Some(note) = note {
                        reason.push_str("; ");
                        reason.push_str(&note);
                    }
                    ready(SecretBackend::File, key, Some(reason))
                }
                Err(e) => locked(SecretBackend::File, e),
            },
        },
    }
}

/// The key file at `key_file` — after moving one left in the data dir by an
/// earlier version there — or, with `create`, a new one when there is none.
fn file_key(
    data_dir: &Path,
    key_file: &std::result::Result<PathBuf, String>,
    create: bool,
) -> std::result::Result<(MasterKey, Option<String>), String> {
    let path = key_file.clone()?;
    if let Some(dir) = path.parent() {
        keyfile::prepare_dir(dir).map_err(|e| e.to_string())?;
    }
    let moved = keyfile::adopt_legacy(data_dir, &path).map_err(|e| e.to_string())?;
    let found = if create {
        new_file_key(&path)
    } else {
        keyfile::load(&path)
    };
    let (key, note) = found.map_err(|e| e.to_string())?;
    let note = match (moved, note) {
        (Some(a), Some(b)) => Some(format!("{a}; {b}")),
        (a, b) => a.or(b),
    };
    Ok((key, note))
}

/// The keychain's existing key for this data dir, or a new one stored there.
fn new_keychain_key(entry: &keychain::KeychainEntry) -> Result<MasterKey, keychain::KeychainError> {
    if let Some(key) = entry.load()? {
        return Ok(key);
    }
    let key = MasterKey::generate().map_err(|e| keychain::KeychainError(e.message))?;
    entry.store(&key)?;
    Ok(key)
}

/// The existing key file (a data dir whose store was recreated), or a new one.
fn new_file_key(path: &Path) -> Result<(MasterKey, Option<String>), keyfile::KeyFileError> {
    match keyfile::load(path) {
        Ok(found) => Ok(found),
        Err(keyfile::KeyFileError::Missing(_)) => {
            let key = MasterKey::generate().map_err(|e| keyfile::KeyFileError::Io {
                path: path.display().to_string(),
                source: std::io::Error::other(e.message),
            })?;
            match keyfile::create(path, &key) {
                Ok(()) => Ok((key, None)),
                // Another process starting on the same data dir made it first.
                Err(keyfile::KeyFileError::Exists(_)) => keyfile::load(path),
                Err(e) => Err(e),
            }
        }
        Err(e) => Err(e),
    }
}

/// Whether `key` opens the key check a store recorded (`check_hex`), and so
/// that store's secrets.
pub(crate) fn key_opens_check(key: &MasterKey, check_hex: &str) -> bool {
    let Ok(cipher) = Aes256Gcm::new_from_slice(key.0.as_slice()) else {
        return false;
    };
    let vault = Vault {
        cipher: Some(cipher),
        status: SecretBackendStatus {
            backend: SecretBackend::File,
            location: String::new(),
            ready: true,
            note: None,
        },
    };
    decode_hex(check_hex)
        .and_then(|blob| vault.open_envelope(KEY_CHECK_CONTEXT, &blob).ok())
        .is_some_and(|clear| clear.as_slice() == KEY_CHECK_PLAINTEXT)
}

/// Lower-case hex of `bytes` (stored blobs, tokens, digests).
pub(crate) fn encode_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

pub(crate) fn decode_hex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}

#[cfg(test)]
mod tests;
