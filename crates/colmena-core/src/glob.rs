//! Wildcard patterns over tool names (`web_*`, `fs_?ead`), SPEC H3.
//!
//! Tool names are `[a-z0-9_]`, so `*` (any run, possibly empty) and `?` (one
//! character) are all a pattern needs; anything else in a pattern is a typo
//! and is reported as such rather than matching nothing.

use crate::error::{AppError, Result};

/// Checks that `pattern` only uses tool-name characters and `*`/`?`.
pub fn validate(field: &str, pattern: &str) -> Result<()> {
    if pattern.is_empty() {
        return Err(AppError::invalid_field(
            field,
            "required",
            "a tool pattern must not be empty",
        ));
    }
    if let Some(bad) = pattern
        .chars()
        .find(|c| !(c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '_' | '*' | '?')))
    {
        return Err(AppError::invalid_field(
            field,
            "invalid_pattern",
            format!(
                "'{pattern}' is not a tool pattern: '{bad}' is not allowed (use a-z, 0-9, _, * and ?)"
            ),
        ));
    }
    Ok(())
}

/// Whether `name` matches `pattern` (iterative, no backtracking blow-up).
pub fn matches(pattern: &str, name: &str) -> bool {
    let (p, n): (Vec<char>, Vec<char>) = (pattern.chars().collect(), name.chars().collect());
    let (mut pi, mut ni) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ni < n.len() {
        match p.get(pi) {
            Some('*') => {
                star = Some((pi, ni));
                pi += 1;
            }
            Some(&c) if c == '?' || c == n[ni] => {
                pi += 1;
                ni += 1;
            }
            _ => match star {
                Some((sp, sn)) => {
                    pi = sp + 1;
                    ni = sn + 1;
                    star = Some((sp, sn + 1));
                }
                None => return false,
            },
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn h3_stars_and_question_marks_match_tool_names() {
        assert!(matches("web_*", "web_fetch"));
        assert!(matches("web_*", "web_"));
        assert!(!matches("web_*", "browser_fetch"));
        assert!(matches("*_read", "fs_read"));
        assert!(matches("fs_?ead", "fs_read"));
        assert!(!matches("fs_?ead", "fs_rread"));
        assert!(matches("*", "anything"));
        assert!(matches("web_fetch", "web_fetch"));
        assert!(!matches("web_fetch", "web_fetch2"));
        assert!(matches("a*b*c", "axxbyyc"));
        assert!(!matches("a*b*c", "axxbyy"));
    }

    #[test]
    fn h3_patterns_with_other_characters_are_errors() {
        assert!(validate("tools", "web_*").is_ok());
        let err = validate("tools", "web-*").unwrap_err();
        assert_eq!(err.field(), Some("tools"));
        assert!(err.message.contains("'-'"));
        assert!(validate("tools", "").is_err());
    }

    #[test]
    fn long_runs_of_stars_stay_fast() {
        let pattern = "*a".repeat(30) + "b";
        assert!(!matches(&pattern, &"a".repeat(60)));
    }
}
