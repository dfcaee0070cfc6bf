//! `${VAR}` references in a server's configuration, as Claude Code's
//! `.mcp.json` has them: `${VAR}` is the variable's value and
//! `${VAR:-default}` falls back to `default`. A configuration keeps the
//! references as written; they are resolved against Colmena's own
//! environment each time the server starts, so a changed variable applies
//! at the next start and the value never lands in the store.
//!
//! Colmena's own variables (`COLMENA_*`: the secret backend, the bus store,
//! tokens) are never handed to a server: a configuration copied from a
//! cloned project could otherwise send them to any URL. A reference to one
//! is refused when a configuration is saved or imported, and again here,
//! when it is resolved, for a configuration stored before that rule.

use crate::error::{AppError, Result};

/// The prefix of the variables that are Colmena's own.
pub(crate) const RESERVED_PREFIX: &str = "COLMENA_";

/// The stable reason of every refusal of a reference to a `COLMENA_*` name.
pub(crate) const RESERVED_REASON: &str = "colmena_reference";

/// Is `name` one of Colmena's own variables? Compared without case:
/// Windows reads environment names that way.
pub(crate) fn is_reserved(name: &str) -> bool {
    name.get(..RESERVED_PREFIX.len())
        .is_some_and(|start| start.eq_ignore_ascii_case(RESERVED_PREFIX))
}

/// The first name `text` refers to that is Colmena's own, if any.
pub(crate) fn first_reserved(text: &str) -> Option<String> {
    names(text).into_iter().find(|name| is_reserved(name))
}

/// Why a reference to `name` (one of Colmena's own) is not resolved.
fn refused(name: &str) -> AppError {
    AppError::precondition(format!(
        "the configuration refers to ${{{name}}}: Colmena's own variables ({RESERVED_PREFIX}*) are never given to an MCP server"
    ))
    .with_details(serde_json::json!({ "reason": RESERVED_REASON, "name": name }))
}

/// Replaces every reference in `text` using `lookup`; a variable that is
/// not set and has no default is an error naming it, and so is a reference
/// to one of Colmena's own variables, default or not.
pub(crate) fn resolve(text: &str, lookup: &dyn Fn(&str) -> Option<String>) -> Result<String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            out.push_str(&rest[start..]);
            return Ok(out);
        };
        let inner = &after[..end];
        let (name, default) = match inner.split_once(":-") {
            Some((name, default)) => (name, Some(default)),
            None => (inner, None),
        };
        if !is_name(name) {
            // Not a reference (`${}` or `${a b}`): kept as written.
            out.push_str(&rest[start..start + 2 + end + 1]);
        } else if is_reserved(name) {
            return Err(refused(name));
        } else {
            match (lookup(name), default) {
                (Some(value), _) => out.push_str(&value),
                (None, Some(default)) => out.push_str(default),
                (None, None) => {
                    return Err(AppError::precondition(format!(
                        "the environment variable {name} is not set (the configuration refers to ${{{name}}})"
                    )));
                }
            }
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// The names `text` refers to.
pub(crate) fn names(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else { break };
        let name = after[..end].split(":-").next().unwrap_or_default();
        if is_name(name) {
            found.push(name.to_owned());
        }
        rest = &after[end + 1..];
    }
    found
}

fn is_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The process environment.
pub(crate) fn from_env(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(name: &str) -> Option<String> {
        (name == "TOKEN").then(|| "t0k".to_owned())
    }

    #[test]
    fn references_resolve_fall_back_or_name_what_is_missing() {
        assert_eq!(resolve("Bearer ${TOKEN}", &env).unwrap(), "Bearer t0k");
        assert_eq!(resolve("${NOPE:-x}/${TOKEN}", &env).unwrap(), "x/t0k");
        assert_eq!(
            resolve("plain $HOME ${} ${a b}", &env).unwrap(),
            "plain $HOME ${} ${a b}"
        );
        assert_eq!(resolve("open ${TOKEN", &env).unwrap(), "open ${TOKEN");
        let missing = resolve("${MISSING}", &env).unwrap_err();
        assert!(missing.message.contains("MISSING"), "{}", missing.message);
        assert_eq!(names("${A} and ${B:-x} ${}"), ["A", "B"]);
    }

    #[test]
    fn colmenas_own_variables_are_never_resolved() {
        let everything = |_: &str| Some("leaked".to_owned());
        for text in [
            "Bearer ${COLMENA_TOKEN}",
            "${COLMENA_BUS_STORE:-x}",
            "${colmena_secret_backend}",
        ] {
            let refused = resolve(text, &everything).unwrap_err();
            assert_eq!(
                refused.details.as_ref().unwrap()["reason"],
                RESERVED_REASON,
                "{text}"
            );
            assert!(!refused.message.contains("leaked"), "{}", refused.message);
        }
        assert_eq!(
            first_reserved("${HOME}/${COLMENA_DATA_DIR}").as_deref(),
            Some("COLMENA_DATA_DIR")
        );
        assert_eq!(first_reserved("${COLMENAX} ${MY_COLMENA_TOKEN}"), None);
        assert_eq!(resolve("${COLMENAX}", &everything).unwrap(), "leaked");
    }
}
