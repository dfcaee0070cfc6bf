//! Collects every field error of one input, so a form can show each next to
//! its field at once instead of one per attempt.

use serde_json::json;

use crate::error::{AppError, ErrorCode, Result};

#[derive(Default)]
pub struct FieldErrors {
    errors: Vec<(String, String, String)>,
    /// Other facts the recorded errors carried (`unknownSkills`, …).
    extra: serde_json::Map<String, serde_json::Value>,
}

impl FieldErrors {
    pub fn new() -> Self {
        FieldErrors::default()
    }

    pub fn add(&mut self, field: &str, reason: &str, message: impl Into<String>) {
        self.errors
            .push((field.to_owned(), reason.to_owned(), message.into()));
    }

    /// Records an error with extra details kept in the final error.
    pub fn add_with(
        &mut self,
        field: &str,
        reason: &str,
        message: impl Into<String>,
        extra: serde_json::Value,
    ) {
        self.add(field, reason, message);
        if let serde_json::Value::Object(map) = extra {
            self.extra.extend(map);
        }
    }

    /// Records the error of `check` (if any) and returns its value.
    pub fn check<T>(&mut self, check: Result<T>) -> Option<T> {
        match check {
            Ok(value) => Some(value),
            Err(err) => {
                let details = err.details.unwrap_or_default();
                let field = details["field"].as_str().unwrap_or("input").to_owned();
                let reason = details["reason"].as_str().unwrap_or("invalid").to_owned();
                if let serde_json::Value::Object(map) = details {
                    self.extra.extend(
                        map.into_iter()
                            .filter(|(k, _)| !matches!(k.as_str(), "field" | "reason" | "fields")),
                    );
                }
                self.errors.push((field, reason, err.message));
                None
            }
        }
    }

    /// `Ok` when nothing was recorded; else one `validation` error whose
    /// message and `details.field` are the first problem's and whose
    /// `details.fields` lists them all.
    pub fn finish(self) -> Result<()> {
        let Some((field, reason, message)) = self.errors.first().cloned() else {
            return Ok(());
        };
        let all: Vec<_> = self
            .errors
            .iter()
            .map(|(f, r, m)| json!({ "field": f, "reason": r, "message": m }))
            .collect();
        let message = if self.errors.len() == 1 {
            message
        } else {
            self.errors
                .iter()
                .map(|(_, _, m)| m.as_str())
                .collect::<Vec<_>>()
                .join("; ")
        };
        let mut details = self.extra;
        details.insert("field".into(), json!(field));
        details.insert("reason".into(), json!(reason));
        details.insert("fields".into(), json!(all));
        Err(AppError::new(ErrorCode::Validation, message)
            .with_details(serde_json::Value::Object(details)))
    }
}

/// A required, trimmed, length-bounded display name.
pub fn name(field: &str, value: &str, max_chars: usize) -> Result<String> {
    let trimmed = value.trim();
    if trimmed.is_empty() {
        return Err(AppError::invalid_field(
            field,
            "required",
            format!("{field} must not be empty"),
        ));
    }
    if trimmed.chars().count() > max_chars {
        return Err(AppError::invalid_field(
            field,
            "too_long",
            format!("{field} must be at most {max_chars} characters"),
        ));
    }
    if trimmed.chars().any(char::is_control) {
        return Err(AppError::invalid_field(
            field,
            "control_characters",
            format!("{field} must not contain control characters"),
        ));
    }
    Ok(trimmed.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_field_errors_are_reported_together() {
        let mut errors = FieldErrors::new();
        errors.check(name("name", "  ", 10));
        errors.add("baseUrl", "invalid_url", "baseUrl is not a URL");
        let err = errors.finish().unwrap_err();
        assert_eq!(err.code, ErrorCode::Validation);
        assert_eq!(err.field(), Some("name"));
        let fields = err.details.unwrap()["fields"].as_array().unwrap().clone();
        assert_eq!(fields.len(), 2);
        assert_eq!(fields[1]["field"], "baseUrl");
    }

    #[test]
    fn names_are_trimmed_and_bounded() {
        assert_eq!(name("name", "  OpenAI ", 10).unwrap(), "OpenAI");
        assert_eq!(
            name("name", "abcdefghijk", 10)
                .unwrap_err()
                .details
                .unwrap()["reason"],
            "too_long"
        );
        assert_eq!(
            name("name", "a\u{7}b", 10).unwrap_err().details.unwrap()["reason"],
            "control_characters"
        );
    }
}
