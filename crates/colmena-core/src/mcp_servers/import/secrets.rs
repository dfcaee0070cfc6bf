//! Which imported values are secrets. Configurations written for other
//! clients keep API keys in plain `env` values and headers; Colmena seals
//! those in the vault, so an import must tell them apart by name (the only
//! thing they have in common) and by the one value shape that always holds
//! a secret: a URL with a password in it.
//!
//! A name is read as words — split at `_`, `-`, `.` and at a lower-case to
//! upper-case step — so `GITHUB_PERSONAL_ACCESS_TOKEN`, `X-API-Key` and
//! `apiKey` are secrets and `MONKEY` or `KEYBOARD_LAYOUT` are not. Sealing
//! too much costs a masked value; sealing too little leaves a key in clear.

/// Words that make a name secret.
const WORDS: &[&str] = &[
    "KEY",
    "KEYS",
    "APIKEY",
    "TOKEN",
    "TOKENS",
    "SECRET",
    "SECRETS",
    "PASSWORD",
    "PASSWORDS",
    "PASSWD",
    "PASS",
    "PASSPHRASE",
    "PWD",
    "AUTH",
    "AUTHORIZATION",
    "CREDENTIAL",
    "CREDENTIALS",
    "CREDS",
    "COOKIE",
    "COOKIES",
    "SESSION",
    "SESSIONID",
    "PRIVATE",
    "BEARER",
    "PAT",
    "JWT",
    "DSN",
];

/// The words of `name`, upper-cased.
fn words(name: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut current = String::new();
    let mut previous_lower = false;
    for c in name.chars() {
        if !c.is_ascii_alphanumeric() {
            if !current.is_empty() {
                words.push(std::mem::take(&mut current));
            }
            previous_lower = false;
            continue;
        }
        if c.is_ascii_uppercase() && previous_lower && !current.is_empty() {
            words.push(std::mem::take(&mut current));
        }
        previous_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        current.push(c.to_ascii_uppercase());
    }
    if !current.is_empty() {
        words.push(current);
    }
    words
}

/// Does the environment variable or header `name` hold a secret?
pub fn looks_secret(name: &str) -> bool {
    // The shell's working folders, not passwords.
    if matches!(name.to_ascii_uppercase().as_str(), "PWD" | "OLDPWD") {
        return false;
    }
    words(name).iter().any(|w| WORDS.contains(&w.as_str()))
}

/// A URL with a password (`postgres://user:pw@host/db`).
pub(super) fn has_url_password(value: &str) -> bool {
    value.split_whitespace().any(|part| {
        part.contains("://")
            && url::Url::parse(part).is_ok_and(|u| u.password().is_some_and(|p| !p.is_empty()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_read_as_words() {
        for secret in [
            "API_KEY",
            "OPENAI_API_KEY",
            "GITHUB_PERSONAL_ACCESS_TOKEN",
            "BRAVE_API_KEY",
            "Authorization",
            "Proxy-Authorization",
            "X-API-Key",
            "x-goog-api-key",
            "apiKey",
            "APIKey",
            "DB_PASSWORD",
            "SLACK_BOT_TOKEN",
            "CLIENT_SECRET",
            "Cookie",
            "SESSION_ID",
            "PRIVATE_KEY_PEM",
            "GITHUB_PAT",
            "AWS_SECRET_ACCESS_KEY",
        ] {
            assert!(looks_secret(secret), "{secret} should be secret");
        }
        for plain in [
            "MONKEY",
            "KEYBOARD_LAYOUT",
            "DEBUG",
            "PATH",
            "PWD",
            "MEMORY_FILE_PATH",
            "Content-Type",
            "X-Client-ID",
            "AUTHOR",
            "PASSAGE",
            "TOKENIZER_MODEL",
        ] {
            assert!(!looks_secret(plain), "{plain} should be plain");
        }
    }

    #[test]
    fn a_url_with_a_password_is_a_secret() {
        assert!(has_url_password("postgresql://user:pass@localhost/mydb"));
        assert!(!has_url_password("postgresql://localhost/mydb"));
        assert!(!has_url_password("https://user@example.com"));
        assert!(!has_url_password("not a url: a:b@c"));
    }
}
