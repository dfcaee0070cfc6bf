//! The master key sealed with a passphrase a person chooses, so a backup can
//! carry it (issue 33).
//!
//! Why: a backup holds the store, and the store's secrets are sealed with a
//! master key that is deliberately kept elsewhere (the keychain or the key
//! folder, never the data dir). A backup without that key cannot give back a
//! single provider key once the machine is gone. Sealing the key with a
//! passphrase lets it travel beside the backup without handing the secrets
//! to whoever finds the files: Argon2id makes each guess of the passphrase
//! cost memory and time, AES-256-GCM (the vault's own cipher) seals the key.
//!
//! Format, version 1 (integers little-endian), [`HEADER_LEN`] + 48 bytes:
//!
//! | bytes | what |
//! |---|---|
//! | 8  | magic `COLMKEY\0` |
//! | 1  | format version (1) |
//! | 4  | Argon2id memory, KiB |
//! | 4  | Argon2id passes |
//! | 4  | Argon2id lanes |
//! | 16 | salt |
//! | 12 | nonce |
//! | 48 | the 32-byte key sealed, its 16-byte tag last |
//!
//! The header (everything before the sealed key) is the associated data: a
//! bundle whose costs or salt were changed does not open, like a wrong
//! passphrase. Costs read from a bundle are bounded ([`MAX_MEMORY_KIB`]…),
//! so a crafted file cannot make a restore allocate without limit.

use aes_gcm::aead::{Aead, KeyInit, Payload};
use aes_gcm::{Aes256Gcm, Nonce};
use argon2::{Algorithm, Argon2, Block, Params, Version};
use zeroize::{Zeroize, Zeroizing};

use super::{KEY_LEN, MasterKey};
use crate::error::{AppError, Result};

const MAGIC_LEN: usize = 8;
const MAGIC: &[u8; MAGIC_LEN] = b"COLMKEY\0";
const FORMAT_VERSION: u8 = 1;
const SALT_LEN: usize = 16;
const NONCE_LEN: usize = 12;
const TAG_LEN: usize = 16;
/// Magic, version, three costs, salt and nonce.
pub const HEADER_LEN: usize = MAGIC_LEN + 1 + 3 * 4 + SALT_LEN + NONCE_LEN;
const BUNDLE_LEN: usize = HEADER_LEN + KEY_LEN + TAG_LEN;

/// The shortest passphrase accepted when sealing, in characters.
pub const MIN_PASSPHRASE_CHARS: usize = 8;
/// The longest, in bytes: a passphrase, not a file.
const MAX_PASSPHRASE_BYTES: usize = 1024;

/// The field a passphrase problem names (the CLI's flag, the UI's input).
pub const PASSPHRASE_FIELD: &str = "keyPassphrase";
/// The field a bundle problem names.
pub const BUNDLE_FIELD: &str = "keyBundle";

/// Argon2id costs. The sealing defaults are RFC 9106's second recommended
/// choice with one lane: 64 MiB and 3 passes (a fraction of a second on a
/// laptop, for a key sealed once per backup).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Costs {
    pub memory_kib: u32,
    pub passes: u32,
    pub lanes: u32,
}

impl Costs {
    pub const SEALING: Costs = Costs {
        memory_kib: 64 * 1024,
        passes: 3,
        lanes: 1,
    };
}

/// The most memory a bundle may ask for (1 GiB), and the most passes and
/// lanes: more is no bundle Colmena wrote.
const MAX_MEMORY_KIB: u32 = 1024 * 1024;
const MAX_PASSES: u32 = 64;
const MAX_LANES: u32 = 16;

fn passphrase_problem(reason: &str, message: impl Into<String>) -> AppError {
    AppError::invalid_field(PASSPHRASE_FIELD, reason, message)
}

fn not_a_bundle(message: impl Into<String>) -> AppError {
    AppError::invalid_field(BUNDLE_FIELD, "not_a_key_bundle", message)
}

/// Checks a passphrase chosen for sealing: long enough to be one, short
/// enough to be typed.
pub fn check_new_passphrase(passphrase: &str) -> Result<()> {
    if passphrase.chars().count() < MIN_PASSPHRASE_CHARS {
        return Err(passphrase_problem(
            "passphrase_too_short",
            format!("the key passphrase must have at least {MIN_PASSPHRASE_CHARS} characters"),
        ));
    }
    if passphrase.len() > MAX_PASSPHRASE_BYTES {
        return Err(passphrase_problem(
            "passphrase_too_long",
            format!("the key passphrase must have at most {MAX_PASSPHRASE_BYTES} bytes"),
        ));
    }
    Ok(())
}

/// The key-encryption key: Argon2id of the passphrase under `salt`.
fn derive(passphrase: &str, salt: &[u8], costs: Costs) -> Result<Zeroizing<[u8; KEY_LEN]>> {
    let params = Params::new(costs.memory_kib, costs.passes, costs.lanes, Some(KEY_LEN))
        .map_err(|e| not_a_bundle(format!("the key bundle's Argon2id costs are invalid: {e}")))?;
    let argon = Argon2::new(Algorithm::Argon2id, Version::V0x13, params.clone());
    let mut memory = vec![Block::default(); params.block_count()];
    let mut kek = Zeroizing::new([0u8; KEY_LEN]);
    let hashed = argon.hash_password_into_with_memory(
        passphrase.as_bytes(),
        salt,
        kek.as_mut_slice(),
        &mut memory[..],
    );
    // The blocks were filled from the passphrase.
    memory.zeroize();
    hashed.map_err(|e| AppError::internal(format!("Argon2id failed: {e}")))?;
    Ok(kek)
}

fn cipher_of(kek: &[u8; KEY_LEN]) -> Result<Aes256Gcm> {
    Aes256Gcm::new_from_slice(kek)
        .map_err(|_| AppError::internal("the key-encryption key has the wrong length"))
}

/// Seals `key` with `passphrase` (checked with [`check_new_passphrase`]).
pub fn seal(key: &MasterKey, passphrase: &str) -> Result<Vec<u8>> {
    check_new_passphrase(passphrase)?;
    seal_with(key, passphrase, Costs::SEALING)
}

/// [`seal`] with the costs given (tests use small ones).
pub fn seal_with(key: &MasterKey, passphrase: &str, costs: Costs) -> Result<Vec<u8>> {
    let mut salt = [0u8; SALT_LEN];
    let mut nonce = [0u8; NONCE_LEN];
    getrandom::fill(&mut salt)
        .and_then(|()| getrandom::fill(&mut nonce))
        .map_err(|e| AppError::internal(format!("the OS random source failed: {e}")))?;
    let mut bundle = Vec::with_capacity(BUNDLE_LEN);
    bundle.extend_from_slice(MAGIC);
    bundle.push(FORMAT_VERSION);
    for cost in [costs.memory_kib, costs.passes, costs.lanes] {
        bundle.extend_from_slice(&cost.to_le_bytes());
    }
    bundle.extend_from_slice(&salt);
    bundle.extend_from_slice(&nonce);
    let kek = derive(passphrase, &salt, costs)?;
    let sealed = cipher_of(&kek)?
        .encrypt(
            &Nonce::from(nonce),
            Payload {
                msg: key.0.as_slice(),
                aad: &bundle,
            },
        )
        .map_err(|_| AppError::internal("sealing the master key failed"))?;
    bundle.extend_from_slice(&sealed);
    Ok(bundle)
}

/// A little-endian `u32` at `at` of a slice known to be long enough.
fn u32_at(bytes: &[u8], at: usize) -> Result<u32> {
    bytes
        .get(at..at + 4)
        .and_then(|b| <[u8; 4]>::try_from(b).ok())
        .map(u32::from_le_bytes)
        .ok_or_else(|| not_a_bundle("the key bundle is cut short"))
}

/// Opens a bundle made by [`seal`]. A wrong passphrase (or a changed
/// bundle) is the validation error `wrong_passphrase`; a file that is no
/// bundle is `not_a_key_bundle`.
pub fn open(bundle: &[u8], passphrase: &str) -> Result<MasterKey> {
    if bundle.len() != BUNDLE_LEN || !bundle.starts_with(MAGIC) {
        return Err(not_a_bundle("that file is not a Colmena key bundle"));
    }
    let version = bundle.get(MAGIC_LEN).copied().unwrap_or_default();
    if version != FORMAT_VERSION {
        return Err(not_a_bundle(format!(
            "the key bundle has format version {version}; this Colmena reads version {FORMAT_VERSION}"
        )));
    }
    let costs_at = MAGIC_LEN + 1;
    let costs = Costs {
        memory_kib: u32_at(bundle, costs_at)?,
        passes: u32_at(bundle, costs_at + 4)?,
        lanes: u32_at(bundle, costs_at + 8)?,
    };
    if costs.memory_kib > MAX_MEMORY_KIB || costs.passes > MAX_PASSES || costs.lanes > MAX_LANES {
        return Err(not_a_bundle(
            "the key bundle asks for more Argon2id work than Colmena ever uses",
        ));
    }
    let (header, sealed) = bundle.split_at(HEADER_LEN);
    let salt = &header[costs_at + 12..costs_at + 12 + SALT_LEN];
    let nonce: [u8; NONCE_LEN] = header[HEADER_LEN - NONCE_LEN..]
        .try_into()
        .map_err(|_| not_a_bundle("the key bundle is cut short"))?;
    let kek = derive(passphrase, salt, costs)?;
    let clear = cipher_of(&kek)?
        .decrypt(
            &Nonce::from(nonce),
            Payload {
                msg: sealed,
                aad: header,
            },
        )
        .map(Zeroizing::new)
        .map_err(|_| {
            passphrase_problem(
                "wrong_passphrase",
                "the passphrase does not open this key bundle (or the bundle was changed)",
            )
        })?;
    let key: [u8; KEY_LEN] = clear
        .as_slice()
        .try_into()
        .map_err(|_| not_a_bundle("the key bundle holds no master key"))?;
    Ok(MasterKey(Zeroizing::new(key)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Cheap costs: the format, not the work factor, is under test here.
    const LIGHT: Costs = Costs {
        memory_kib: 64,
        passes: 1,
        lanes: 1,
    };

    fn key() -> MasterKey {
        MasterKey(Zeroizing::new([7u8; KEY_LEN]))
    }

    fn reason(e: &AppError) -> String {
        e.details.as_ref().unwrap()["reason"]
            .as_str()
            .unwrap()
            .to_owned()
    }

    #[test]
    fn the_right_passphrase_opens_what_it_sealed() {
        let bundle = seal_with(&key(), "correct horse battery", LIGHT).unwrap();
        assert_eq!(bundle.len(), BUNDLE_LEN);
        assert!(
            !bundle.windows(KEY_LEN).any(|w| w == [7u8; KEY_LEN]),
            "the key is in clear in the bundle"
        );
        let opened = open(&bundle, "correct horse battery").unwrap();
        assert_eq!(opened.0.as_slice(), key().0.as_slice());
        // Two seals of one key differ (salt and nonce are fresh).
        assert_ne!(
            bundle,
            seal_with(&key(), "correct horse battery", LIGHT).unwrap()
        );
    }

    #[test]
    fn a_wrong_passphrase_or_a_changed_bundle_is_a_clear_error() {
        let bundle = seal_with(&key(), "correct horse battery", LIGHT).unwrap();
        let wrong = open(&bundle, "correct horse battery!").err().unwrap();
        assert_eq!(reason(&wrong), "wrong_passphrase");
        assert_eq!(wrong.field(), Some(PASSPHRASE_FIELD));
        // A cost lowered by someone: the header is authenticated.
        let mut changed = bundle.clone();
        changed[MAGIC_LEN + 1 + 4] = 2;
        assert_eq!(
            reason(&open(&changed, "correct horse battery").err().unwrap()),
            "wrong_passphrase"
        );
        let mut flipped = bundle;
        let last = flipped.len() - 1;
        flipped[last] ^= 1;
        assert_eq!(
            reason(&open(&flipped, "correct horse battery").err().unwrap()),
            "wrong_passphrase"
        );
    }

    #[test]
    fn what_is_no_bundle_says_so_before_any_work() {
        for bytes in [
            Vec::new(),
            b"SQLite format 3\0".to_vec(),
            vec![0u8; BUNDLE_LEN],
        ] {
            assert_eq!(
                reason(&open(&bytes, "whatever passphrase").err().unwrap()),
                "not_a_key_bundle"
            );
        }
        let mut greedy = seal_with(&key(), "correct horse battery", LIGHT).unwrap();
        greedy[MAGIC_LEN + 1..MAGIC_LEN + 5].copy_from_slice(&u32::MAX.to_le_bytes());
        assert_eq!(
            reason(&open(&greedy, "correct horse battery").err().unwrap()),
            "not_a_key_bundle"
        );
        let mut newer = seal_with(&key(), "correct horse battery", LIGHT).unwrap();
        newer[MAGIC_LEN] = 2;
        assert!(
            open(&newer, "correct horse battery")
                .err()
                .unwrap()
                .message
                .contains("version 2")
        );
    }

    #[test]
    fn a_new_passphrase_must_be_one() {
        assert_eq!(
            reason(&seal(&key(), "short").err().unwrap()),
            "passphrase_too_short"
        );
        assert!(check_new_passphrase("eight ch").is_ok());
    }
}
