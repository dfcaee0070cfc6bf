//! A tool call's arguments checked against the tool's JSON schema, before
//! anything runs: for the tools a model calls and for an HTTP endpoint's
//! declared parameters alike.

use serde_json::Value;

use crate::error::{AppError, ErrorCode, Result};

/// Checks arguments against a JSON schema; the error lists each violation.
pub(crate) fn check_arguments(schema: &Value, arguments: &Value) -> Result<()> {
    let validator = jsonschema::validator_for(schema)
        .map_err(|e| AppError::internal(format!("the tool's schema is invalid: {e}")))?;
    let problems: Vec<String> = validator
        .iter_errors(arguments)
        .map(|e| {
            let at = e.instance_path().to_string();
            if at.is_empty() {
                e.to_string()
            } else {
                format!("{at}: {e}")
            }
        })
        .collect();
    if problems.is_empty() {
        Ok(())
    } else {
        Err(AppError::new(ErrorCode::Validation, problems.join("; ")))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn arguments_that_break_the_schema_are_described() {
        let schema: Value = serde_json::from_str(
            &crate::toolbox::catalog::find("web_fetch")
                .unwrap()
                .parameters(),
        )
        .unwrap();
        assert!(check_arguments(&schema, &json!({ "url": "https://a" })).is_ok());
        let problems = check_arguments(&schema, &json!({ "url": 42, "extra": true }))
            .unwrap_err()
            .message;
        assert!(problems.contains("/url"), "{problems}");
        assert!(problems.contains("extra"), "{problems}");
        let missing = check_arguments(&schema, &json!({})).unwrap_err().message;
        assert!(missing.contains("url"), "{missing}");
    }
}
