//! Identifiers: slugs derived from names, and the newtypes that keep one kind
//! of id from being passed where another is expected.
//!
//! Agents and providers get slug ids from their names (SPEC H2): accents are
//! folded, never replaced ("Diseño" → `diseno`, not `dise_o`), words are
//! joined by `_` like the catalog ids (`web_researcher`). A slug that already
//! exists is a conflict; we never append a numeric suffix silently, because
//! the id is what the user types in the CLI and sees in MCP clients.

use serde::{Deserialize, Serialize};

use crate::error::{AppError, Result};

/// Longest slug we generate; names longer than this are cut at a word edge.
pub const MAX_SLUG_LEN: usize = 64;

/// Turns a display name into an id: transliterate to ASCII, lowercase, and
/// join the alphanumeric runs with `_`. Returns `None` when nothing is left
/// (a name made only of punctuation or emoji).
pub fn slugify(name: &str) -> Option<String> {
    let ascii = deunicode::deunicode(name);
    let mut slug = String::with_capacity(ascii.len());
    let mut pending_separator = false;
    for ch in ascii.chars() {
        if ch.is_ascii_alphanumeric() {
            if pending_separator && !slug.is_empty() {
                slug.push('_');
            }
            pending_separator = false;
            slug.push(ch.to_ascii_lowercase());
        } else {
            pending_separator = true;
        }
    }
    if slug.len() > MAX_SLUG_LEN {
        slug.truncate(MAX_SLUG_LEN);
        while slug.ends_with('_') {
            slug.pop();
        }
    }
    (!slug.is_empty()).then_some(slug)
}

/// Like [`slugify`] but fails with a validation error on `field` when the
/// name yields no id.
pub fn slug_for(field: &str, name: &str) -> Result<String> {
    slugify(name).ok_or_else(|| {
        AppError::invalid_field(
            field,
            "no_letters",
            format!("'{name}' has no letters or digits to make an id from"),
        )
    })
}

macro_rules! string_id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, specta::Type)]
        #[serde(transparent)]
        pub struct $name(pub String);

        impl $name {
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl From<&str> for $name {
            fn from(value: &str) -> Self {
                $name(value.to_owned())
            }
        }

        impl From<String> for $name {
            fn from(value: String) -> Self {
                $name(value)
            }
        }

        impl rusqlite::ToSql for $name {
            fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
                self.0.to_sql()
            }
        }

        impl rusqlite::types::FromSql for $name {
            fn column_result(value: rusqlite::types::ValueRef<'_>) -> rusqlite::types::FromSqlResult<Self> {
                String::column_result(value).map($name)
            }
        }
    };
}

string_id!(
    /// A provider id: the slug of its name at creation (`openai`, `lm_studio`).
    ProviderId
);
string_id!(
    /// A model id: `{provider_id}/{model name}` (`openai/gpt-4o`,
    /// `openrouter/anthropic/claude-3.5-sonnet`). The provider part never
    /// contains `/`, so the first `/` splits the two.
    ModelId
);
string_id!(
    /// An agent id: the slug of its name (SPEC H2).
    AgentId
);

impl ModelId {
    pub fn new(provider: &ProviderId, name: &str) -> Self {
        ModelId(format!("{}/{}", provider.0, name))
    }

    /// The provider part and the model-name part.
    pub fn split(&self) -> Option<(&str, &str)> {
        self.0.split_once('/')
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn h2_accents_are_folded_not_replaced() {
        assert_eq!(slugify("Diseño").as_deref(), Some("diseno"));
        assert_eq!(
            slugify("Investigación Web").as_deref(),
            Some("investigacion_web")
        );
        assert_eq!(slugify("Ærø Straße").as_deref(), Some("aero_strasse"));
    }

    #[test]
    fn separators_collapse_and_edges_are_trimmed() {
        assert_eq!(slugify("  LM   Studio!! ").as_deref(), Some("lm_studio"));
        assert_eq!(
            slugify("web--researcher").as_deref(),
            Some("web_researcher")
        );
        assert_eq!(slugify("OpenAI").as_deref(), Some("openai"));
    }

    #[test]
    fn a_name_without_letters_has_no_slug() {
        assert_eq!(slugify("!!!"), None);
        assert_eq!(slugify(""), None);
        let err = slug_for("name", "???").unwrap_err();
        assert_eq!(err.field(), Some("name"));
    }

    #[test]
    fn long_names_are_cut_without_trailing_separator() {
        let name = format!("{} tail", "a".repeat(MAX_SLUG_LEN - 1));
        let slug = slugify(&name).unwrap_or_default();
        assert!(slug.len() <= MAX_SLUG_LEN);
        assert!(!slug.ends_with('_'));
    }

    #[test]
    fn model_ids_split_at_the_first_slash() {
        let id = ModelId::new(
            &ProviderId::from("openrouter"),
            "anthropic/claude-3.5-sonnet",
        );
        assert_eq!(
            id.split(),
            Some(("openrouter", "anthropic/claude-3.5-sonnet"))
        );
    }
}
