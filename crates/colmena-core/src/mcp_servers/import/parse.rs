//! Reading a pasted configuration: which object holds the servers, and the
//! servers in the order they are written.
//!
//! `serde_json`'s map sorts its keys and keeps only the last of a repeated
//! one, so the servers object is read a second time into a list: the
//! preview shows them as the file has them, and a name given twice is
//! reported instead of silently losing the first. Editors write JSON with
//! comments and trailing commas (VS Code's `mcp.json`, many hand-edited
//! Cursor files); when strict JSON fails, those are dropped and the text is
//! read again, and the preview says so.

use serde::de::{DeserializeSeed, Deserializer, MapAccess, Visitor};
use serde_json::Value;

use super::ImportSource;
use crate::error::{AppError, Result};

/// Larger than any configuration a person keeps (10 MiB).
pub(super) const MAX_TEXT: usize = 10 * 1024 * 1024;
/// More servers than any client runs at once.
pub(super) const MAX_SERVERS: usize = 1000;

/// What the text holds.
pub(super) struct Document {
    pub source: ImportSource,
    /// Name and settings of each server, in the order written.
    pub servers: Vec<(String, Value)>,
    /// Comments or trailing commas were dropped to read it.
    pub lenient: bool,
}

fn invalid(reason: &str, message: impl Into<String>) -> AppError {
    AppError::invalid_field("text", reason, message)
}

/// The keys of one server's settings: a bare map of servers is recognised
/// by them, and a single server pasted alone is told apart.
const SERVER_KEYS: &[&str] = &["command", "url", "httpUrl", "serverUrl"];

pub(super) fn document(text: &str) -> Result<Document> {
    if text.len() >= MAX_TEXT {
        return Err(invalid(
            "too_large",
            format!(
                "the configuration is {} bytes: at most {} are read",
                text.len(),
                MAX_TEXT - 1
            ),
        ));
    }
    let text = text.trim_start_matches('\u{feff}');
    if text.trim().is_empty() {
        return Err(invalid(
            "empty",
            "the configuration is empty: paste the JSON that holds \"mcpServers\"",
        ));
    }
    let (body, value, lenient) = match serde_json::from_str::<Value>(text) {
        Ok(value) => (text.to_owned(), value, false),
        Err(strict) => {
            let relaxed = relax(text);
            match serde_json::from_str::<Value>(&relaxed) {
                Ok(value) => (relaxed, value, true),
                Err(_) => {
                    return Err(invalid(
                        "not_json",
                        format!("the configuration is not JSON: {strict}"),
                    ));
                }
            }
        }
    };
    let Value::Object(top) = &value else {
        return Err(invalid(
            "no_servers",
            "the configuration must be a JSON object holding \"mcpServers\"",
        ));
    };
    let (source, path): (ImportSource, &[&str]) = if top.contains_key("mcpServers") {
        (ImportSource::McpServers, &["mcpServers"])
    } else if top.contains_key("servers") {
        (ImportSource::Servers, &["servers"])
    } else if top.get("mcp").and_then(|m| m.get("servers")).is_some() {
        (ImportSource::VsCodeSettings, &["mcp", "servers"])
    } else if top.keys().any(|k| SERVER_KEYS.contains(&k.as_str())) {
        return Err(invalid(
            "no_servers",
            "this looks like the settings of one server without its name: paste it as {\"mcpServers\": {\"NAME\": {…}}}",
        ));
    } else if top.values().any(|v| {
        v.as_object()
            .is_some_and(|o| SERVER_KEYS.iter().any(|k| o.contains_key(*k)))
    }) {
        (ImportSource::Bare, &[])
    } else {
        return Err(invalid(
            "no_servers",
            "no \"mcpServers\" object: paste a claude_desktop_config.json, a Cursor mcp.json or a Claude Code .mcp.json",
        ));
    };
    let mut holder = &value;
    for key in path {
        holder = &holder[*key];
    }
    if !holder.is_object() {
        let name = path.join(".");
        return Err(invalid(
            "bad_shape",
            format!("\"{name}\" must be an object of servers by name"),
        ));
    }
    let servers = ordered_at(&body, path)?;
    if servers.len() > MAX_SERVERS {
        return Err(invalid(
            "too_many",
            format!(
                "{} servers: at most {MAX_SERVERS} are imported at once",
                servers.len()
            ),
        ));
    }
    Ok(Document {
        source,
        servers,
        lenient,
    })
}

/// The object at `path` of `body` (already known to be one), entries in order.
fn ordered_at(body: &str, path: &[&str]) -> Result<Vec<(String, Value)>> {
    let mut de = serde_json::Deserializer::from_str(body);
    let found = At { path }
        .deserialize(&mut de)
        .map_err(|e| invalid("bad_shape", format!("the servers cannot be read: {e}")))?;
    Ok(found.unwrap_or_default())
}

/// Descends `path` through objects and reads the object found there in order.
struct At<'p> {
    path: &'p [&'p str],
}

impl<'de> DeserializeSeed<'de> for At<'_> {
    type Value = Option<Vec<(String, Value)>>;

    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<Self::Value, D::Error> {
        de.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for At<'_> {
    type Value = Option<Vec<(String, Value)>>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let Some((first, rest)) = self.path.split_first() else {
            let mut entries = Vec::new();
            while let Some((key, value)) = map.next_entry::<String, Value>()? {
                entries.push((key, value));
            }
            return Ok(Some(entries));
        };
        let mut found = None;
        while let Some(key) = map.next_key::<String>()? {
            if key == *first && found.is_none() {
                found = map.next_value_seed(At { path: rest })?;
            } else {
                map.next_value::<serde::de::IgnoredAny>()?;
            }
        }
        Ok(found)
    }
}

/// `text` without `//` and `/* */` comments and without commas that close
/// nothing (`[1, 2,]`); strings are left as they are.
fn relax(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let mut in_string = false;
    while i < chars.len() {
        let c = chars[i];
        if in_string {
            out.push(c);
            if c == '\\' && i + 1 < chars.len() {
                out.push(chars[i + 1]);
                i += 1;
            } else if c == '"' {
                in_string = false;
            }
            i += 1;
            continue;
        }
        match (c, chars.get(i + 1)) {
            ('"', _) => {
                in_string = true;
                out.push(c);
                i += 1;
            }
            ('/', Some('/')) => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            ('/', Some('*')) => {
                i += 2;
                while i < chars.len() && !(chars[i] == '*' && chars.get(i + 1) == Some(&'/')) {
                    i += 1;
                }
                i += 2;
                out.push(' ');
            }
            (',', _) => {
                let next = next_meaningful(&chars, i + 1);
                if !matches!(next, Some('}' | ']')) {
                    out.push(c);
                }
                i += 1;
            }
            _ => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

/// The next character after `from` that is neither blank nor in a comment.
fn next_meaningful(chars: &[char], mut from: usize) -> Option<char> {
    while from < chars.len() {
        match (chars[from], chars.get(from + 1)) {
            (c, _) if c.is_whitespace() => from += 1,
            ('/', Some('/')) => {
                while from < chars.len() && chars[from] != '\n' {
                    from += 1;
                }
            }
            ('/', Some('*')) => {
                from += 2;
                while from < chars.len()
                    && !(chars[from] == '*' && chars.get(from + 1) == Some(&'/'))
                {
                    from += 1;
                }
                from += 2;
            }
            (c, _) => return Some(c),
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reason(err: &AppError) -> String {
        err.details
            .as_ref()
            .map(|d| d["reason"].to_string())
            .unwrap_or_default()
    }

    #[test]
    fn servers_come_in_the_order_written_repeats_included() {
        let doc = document(r#"{"mcpServers": {"zeta": {"command": "a"}, "alpha": {"command": "b"}, "zeta": {"command": "c"}}}"#).unwrap();
        let names: Vec<&str> = doc.servers.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["zeta", "alpha", "zeta"]);
        assert_eq!(doc.servers[2].1["command"], "c");
        assert!(!doc.lenient);
    }

    #[test]
    fn comments_and_trailing_commas_are_tolerated_and_said() {
        let text = "{\n // mine\n \"servers\": { /* one */ \"a\": {\"url\": \"https://x.test/mcp\", \"args\": [\"//not a comment\",],},},\n}";
        let doc = document(text).unwrap();
        assert!(doc.lenient);
        assert_eq!(doc.source, ImportSource::Servers);
        assert_eq!(doc.servers[0].1["args"][0], "//not a comment");
    }

    #[test]
    fn vscode_settings_and_bare_maps_are_found() {
        let doc = document(r#"{"mcp": {"servers": {"a": {"command": "x"}}}}"#).unwrap();
        assert_eq!(doc.source, ImportSource::VsCodeSettings);
        let doc = document(r#"{"brave": {"command": "npx"}}"#).unwrap();
        assert_eq!(doc.source, ImportSource::Bare);
        assert_eq!(doc.servers.len(), 1);
    }

    #[test]
    fn bad_input_is_a_validation_error_with_a_stable_reason() {
        for (text, expected) in [
            ("", "\"empty\""),
            ("not json", "\"not_json\""),
            ("[1, 2]", "\"no_servers\""),
            (r#"{"preferences": {}}"#, "\"no_servers\""),
            (r#"{"command": "npx", "args": []}"#, "\"no_servers\""),
            (r#"{"mcpServers": [1]}"#, "\"bad_shape\""),
        ] {
            let err = document(text)
                .err()
                .unwrap_or_else(|| panic!("{text} was accepted"));
            assert_eq!(err.code, crate::error::ErrorCode::Validation, "{text}");
            assert_eq!(reason(&err), expected, "{text}: {}", err.message);
        }
        let huge = format!(
            "{{\"mcpServers\": {{}}, \"pad\": \"{}\"}}",
            "x".repeat(MAX_TEXT)
        );
        assert_eq!(reason(&document(&huge).err().unwrap()), "\"too_large\"");
    }
}
