//! The OS keychain backend, reached through `keyring-core`.
//!
//! On Linux and FreeBSD this is the freedesktop Secret Service (GNOME
//! Keyring, KWallet) over D-Bus. The keychain can hang (a locked keyring
//! waiting for a password prompt), so every call runs on its own thread and
//! gives up after [`KEYCHAIN_TIMEOUT`]. Other platforms are not wired yet;
//! there the keychain reports itself unavailable and the caller decides.

use std::sync::mpsc;
use std::time::Duration;

use zeroize::Zeroizing;

use super::{KEY_LEN, MasterKey};

/// How long we wait for the keychain before calling it unavailable.
pub const KEYCHAIN_TIMEOUT: Duration = Duration::from_secs(5);

const SERVICE: &str = "colmena";

/// Why the keychain could not be used.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{0}")]
pub struct KeychainError(pub String);

/// The keychain entry that holds the master key of one data dir.
#[derive(Debug, Clone)]
pub struct KeychainEntry {
    account: String,
}

impl KeychainEntry {
    pub fn for_data_dir(data_dir: &std::path::Path) -> Self {
        KeychainEntry {
            account: format!("master-key:{}", data_dir.display()),
        }
    }

    /// Where the key lives, for people (`colmena doctor`, Settings).
    pub fn describe(&self) -> String {
        format!(
            "{PLATFORM_NAME}, service \"{SERVICE}\", account \"{}\"",
            self.account
        )
    }

    /// The stored key, or `None` when the keychain answers but has no entry.
    pub fn load(&self) -> Result<Option<MasterKey>, KeychainError> {
        let account = self.account.clone();
        let secret = with_timeout(move || platform::get(SERVICE, &account))?;
        let Some(secret) = secret else {
            return Ok(None);
        };
        let key: [u8; KEY_LEN] = secret.as_slice().try_into().map_err(|_| {
            KeychainError(format!(
                "the keychain entry holds {} bytes, not a {KEY_LEN}-byte key",
                secret.len()
            ))
        })?;
        Ok(Some(MasterKey(Zeroizing::new(key))))
    }

    /// Stores `key`, then reads it back: a keychain that accepts a write but
    /// cannot return it is not a place to keep the only copy of a key.
    pub fn store(&self, key: &MasterKey) -> Result<(), KeychainError> {
        let account = self.account.clone();
        let bytes = Zeroizing::new(key.0.to_vec());
        with_timeout(move || platform::set(SERVICE, &account, &bytes))?;
        match self.load()? {
            Some(read_back) if read_back.0 == key.0 => Ok(()),
            Some(_) => Err(KeychainError(
                "the keychain returned a different key than the one stored".into(),
            )),
            None => Err(KeychainError(
                "the keychain accepted the key but does not return it".into(),
            )),
        }
    }
}

fn with_timeout<T: Send + 'static>(
    call: impl FnOnce() -> Result<T, KeychainError> + Send + 'static,
) -> Result<T, KeychainError> {
    let (tx, rx) = mpsc::channel();
    std::thread::Builder::new()
        .name("colmena-keychain".into())
        .spawn(move || {
            let _ = tx.send(call());
        })
        .map_err(|e| KeychainError(format!("could not start a keychain thread: {e}")))?;
    rx.recv_timeout(KEYCHAIN_TIMEOUT).unwrap_or_else(|_| {
        Err(KeychainError(format!(
            "the keychain did not answer within {} s",
            KEYCHAIN_TIMEOUT.as_secs()
        )))
    })
}

#[cfg(any(target_os = "linux", target_os = "freebsd"))]
const PLATFORM_NAME: &str = "Secret Service (D-Bus)";
#[cfg(not(any(target_os = "linux", target_os = "freebsd")))]
const PLATFORM_NAME: &str = "OS keychain";

#[cfg(any(target_os = "linux", target_os = "freebsd"))]
mod platform {
    use std::sync::Arc;

    use keyring_core::{CredentialStore, Entry, Error};

    use super::KeychainError;

    fn entry(service: &str, account: &str) -> Result<Entry, KeychainError> {
        let store: Arc<CredentialStore> = zbus_secret_service_keyring_store::Store::new()
            .map_err(|e| KeychainError(format!("no Secret Service on the session bus: {e}")))?;
        Entry::new_in_store(&store, service, account)
            .map_err(|e| KeychainError(format!("the Secret Service refused the entry: {e}")))
    }

    pub fn get(service: &str, account: &str) -> Result<Option<Vec<u8>>, KeychainError> {
        match entry(service, account)?.get_secret() {
            Ok(secret) => Ok(Some(secret)),
            Err(Error::NoEntry) => Ok(None),
            Err(e) => Err(KeychainError(format!(
                "the Secret Service failed a read: {e}"
            ))),
        }
    }

    pub fn set(service: &str, account: &str, secret: &[u8]) -> Result<(), KeychainError> {
        entry(service, account)?
            .set_secret(secret)
            .map_err(|e| KeychainError(format!("the Secret Service failed a write: {e}")))
    }
}

#[cfg(not(any(target_os = "linux", target_os = "freebsd")))]
mod platform {
    use super::KeychainError;

    const UNWIRED: &str = "this build does not reach the OS keychain on this platform";

    pub fn get(_service: &str, _account: &str) -> Result<Option<Vec<u8>>, KeychainError> {
        Err(KeychainError(UNWIRED.into()))
    }

    pub fn set(_service: &str, _account: &str, _secret: &[u8]) -> Result<(), KeychainError> {
        Err(KeychainError(UNWIRED.into()))
    }
}
