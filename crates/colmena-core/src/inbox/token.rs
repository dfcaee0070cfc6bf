//! Bearer tokens (SPEC B1): 256 random bits, shown once, stored only as a
//! SHA-256 hash. A fast hash is right here: the token is random, not a
//! password, so there is nothing to brute-force; the comparison is in
//! constant time anyway.

use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use crate::error::{AppError, Result};

const PREFIX: &str = "colmena_";

/// A fresh token and the hash to store.
pub(crate) fn generate() -> Result<(String, Vec<u8>)> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes)
        .map_err(|e| AppError::internal(format!("no randomness for a token: {e}")))?;
    let token = format!("{PREFIX}{}", crate::secrets::encode_hex(&bytes));
    let hash = hash(&token);
    Ok((token, hash))
}

pub(crate) fn hash(token: &str) -> Vec<u8> {
    Sha256::digest(token.as_bytes()).to_vec()
}

pub(crate) fn matches(token: &str, stored: &[u8]) -> bool {
    hash(token).ct_eq(stored).into()
}

/// Cheap shape check before any lookup.
pub(crate) fn well_formed(token: &str) -> bool {
    token.len() == PREFIX.len() + 64
        && token.starts_with(PREFIX)
        && token[PREFIX.len()..].bytes().all(|b| b.is_ascii_hexdigit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn b1_tokens_are_256_random_bits_and_only_their_hash_matches() {
        let (a, hash_a) = generate().unwrap();
        let (b, _) = generate().unwrap();
        assert_ne!(a, b);
        assert!(well_formed(&a), "{a}");
        assert_eq!(a.len(), "colmena_".len() + 64);
        assert!(matches(&a, &hash_a));
        assert!(!matches(&b, &hash_a));
        assert!(
            !hash_a
                .windows(8)
                .any(|w| a.as_bytes().windows(8).any(|x| x == w))
        );
        assert!(!well_formed("colmena_xyz"));
    }
}
