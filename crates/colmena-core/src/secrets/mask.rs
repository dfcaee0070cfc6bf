//! The masked form of a secret: enough for a person to recognise which key
//! is configured (`sk-…a1b2`), never enough to use it.

/// Shows at most the first three and last four characters of a long secret,
/// the last two of a medium one, and nothing of a short one.
pub fn mask_secret(secret: &str) -> String {
    let chars: Vec<char> = secret.chars().collect();
    let n = chars.len();
    let tail = |k: usize| chars[n - k..].iter().collect::<String>();
    if n >= 16 {
        let head: String = chars[..3].iter().collect();
        format!("{head}…{}", tail(4))
    } else if n >= 8 {
        format!("…{}", tail(2))
    } else {
        "…".to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn h18_long_keys_show_prefix_and_suffix_only() {
        assert_eq!(mask_secret("sk-test-1234567890abcdef"), "sk-…cdef");
        let masked = mask_secret("sk-ant-api03-abcdefghijklmnopqrstuvwxyz");
        assert_eq!(masked, "sk-…wxyz");
    }

    #[test]
    fn short_keys_reveal_little_or_nothing() {
        assert_eq!(mask_secret("abcdefghij"), "…ij");
        assert_eq!(mask_secret("abc"), "…");
        assert_eq!(mask_secret(""), "…");
    }

    #[test]
    fn multibyte_secrets_do_not_split_characters() {
        assert_eq!(mask_secret("ñññññññññññññññññ"), "ñññ…ññññ");
    }
}
