//! Secrets at rest: AES-256-GCM under one master key per data dir.
//!
//! The master key lives in the OS keychain when one answers, otherwise in a
//! 0600 key file in the data dir. Which backend holds it is recorded in the
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

pub mod keychain;
pub mod keyfile;
mod mask;

use std::path::Path;

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
const META_BACKEND: &str = "secret_backend";
const META_KEY_CHECK: &str = "secret_key_check";
/// Why the backend was chosen, when it was a fallback; shown on every run.
const META_BACKEND_NOTE: &str = "secret_backend_note";
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
            tokio::task::spawn_blocking(move || resolve_key(&data_dir, recorded, choice))
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
) -> Resolved {
    let keychain = keychain::KeychainEntry::for_data_dir(data_dir);
    let key_file = data_dir.join(keyfile::KEY_FILE);
    let requested = match choice {
        BackendChoice::Auto => None,
        BackendChoice::Keychain => Some(SecretBackend::Keychain),
        BackendChoice::File => Some(SecretBackend::File),
    };
    let location = |backend| match backend {
        SecretBackend::Keychain => keychain.describe(),
        SecretBackend::File => key_file.display().to_string(),
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
        (Some(SecretBackend::File), _) => match keyfile::load(&key_file) {
            Ok((key, note)) => ready(SecretBackend::File, key, note),
            Err(e) => locked(SecretBackend::File, e.to_string()),
        },
        (None, Some(SecretBackend::File)) => match new_file_key(&key_file) {
            Ok((key, note)) => ready(SecretBackend::File, key, note),
            Err(e) => locked(SecretBackend::File, e.to_string()),
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
            Err(keychain_error) => match new_file_key(&key_file) {
                Ok((key, note)) => {
                    let mut reason = format!("the OS keychain is not available ({keychain_error})");
                    if let Some(note) = note {
                        reason.push_str("; ");
                        reason.push_str(&note);
                    }
                    ready(SecretBackend::File, key, Some(reason))
                }
                Err(e) => locked(SecretBackend::File, e.to_string()),
            },
        },
    }
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
            keyfile::create(path, &key)?;
            Ok((key, None))
        }
        Err(e) => Err(e),
    }
}

/// Lower-case hex of `bytes` (stored blobs, tokens, digests).
pub(crate) fn encode_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn decode_hex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::DB_FILE;

    async fn open_file_vault(dir: &Path) -> (Store, Vault) {
        let store = Store::open(&dir.join(DB_FILE)).unwrap();
        let vault = Vault::open(dir, &store, BackendChoice::File).await.unwrap();
        (store, vault)
    }

    #[tokio::test]
    async fn sealed_secrets_open_only_in_their_own_context() {
        let dir = tempfile::tempdir().unwrap();
        let (_store, vault) = open_file_vault(dir.path()).await;
        let sealed = vault
            .seal("provider:a:api_key", b"sk-secret-value")
            .unwrap();
        assert!(!sealed.windows(15).any(|w| w == b"sk-secret-value"));
        let clear = vault.open_envelope("provider:a:api_key", &sealed).unwrap();
        assert_eq!(clear.as_slice(), b"sk-secret-value");
        assert!(vault.open_envelope("provider:b:api_key", &sealed).is_err());
    }

    #[tokio::test]
    async fn two_seals_of_one_secret_differ() {
        let dir = tempfile::tempdir().unwrap();
        let (_store, vault) = open_file_vault(dir.path()).await;
        let a = vault.seal("c", b"same").unwrap();
        let b = vault.seal("c", b"same").unwrap();
        assert_ne!(a, b, "a nonce was reused");
    }

    #[cfg(unix)]
    #[tokio::test]
    async fn the_key_file_is_created_0600_and_reused() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let (store, vault) = open_file_vault(dir.path()).await;
        let sealed = vault.seal("c", b"kept").unwrap();
        let key_path = dir.path().join(keyfile::KEY_FILE);
        let mode = std::fs::metadata(&key_path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        assert_eq!(vault.status().backend, SecretBackend::File);
        assert!(vault.status().ready);

        drop(vault);
        let again = Vault::open(dir.path(), &store, BackendChoice::Auto)
            .await
            .unwrap();
        assert_eq!(
            again.status().backend,
            SecretBackend::File,
            "the recorded backend wins"
        );
        assert_eq!(
            again.open_envelope("c", &sealed).unwrap().as_slice(),
            b"kept"
        );
    }

    #[tokio::test]
    async fn a_missing_key_file_locks_the_vault_instead_of_making_a_new_key() {
        let dir = tempfile::tempdir().unwrap();
        let (store, vault) = open_file_vault(dir.path()).await;
        drop(vault);
        std::fs::remove_file(dir.path().join(keyfile::KEY_FILE)).unwrap();
        let locked = Vault::open(dir.path(), &store, BackendChoice::Auto)
            .await
            .unwrap();
        assert!(!locked.status().ready);
        assert!(
            !dir.path().join(keyfile::KEY_FILE).exists(),
            "no new key was made"
        );
        let err = locked.seal("c", b"x").unwrap_err();
        assert_eq!(err.code, crate::error::ErrorCode::Precondition);
        assert!(err.message.contains("missing"), "{}", err.message);
    }

    #[tokio::test]
    async fn a_replaced_key_file_is_detected() {
        let dir = tempfile::tempdir().unwrap();
        let (store, vault) = open_file_vault(dir.path()).await;
        drop(vault);
        let key_path = dir.path().join(keyfile::KEY_FILE);
        std::fs::remove_file(&key_path).unwrap();
        keyfile::create(&key_path, &MasterKey::generate().unwrap()).unwrap();
        let vault = Vault::open(dir.path(), &store, BackendChoice::Auto)
            .await
            .unwrap();
        assert!(!vault.status().ready);
        assert!(
            vault
                .status()
                .note
                .as_deref()
                .unwrap_or("")
                .contains("does not match")
        );
    }

    #[tokio::test]
    async fn asking_for_another_backend_than_the_recorded_one_locks() {
        let dir = tempfile::tempdir().unwrap();
        let (store, vault) = open_file_vault(dir.path()).await;
        drop(vault);
        let vault = Vault::open(dir.path(), &store, BackendChoice::Keychain)
            .await
            .unwrap();
        assert!(!vault.status().ready);
        assert_eq!(vault.status().backend, SecretBackend::File);
        assert!(
            vault
                .status()
                .note
                .as_deref()
                .unwrap_or("")
                .contains(BACKEND_ENV)
        );
    }

    #[test]
    fn hex_round_trips() {
        let bytes = [0u8, 1, 127, 128, 255];
        assert_eq!(decode_hex(&encode_hex(&bytes)).unwrap(), bytes);
        assert_eq!(decode_hex("abc"), None);
        assert_eq!(decode_hex("zz"), None);
    }
}
