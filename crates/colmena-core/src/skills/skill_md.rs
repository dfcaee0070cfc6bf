//! `SKILL.md`: YAML front matter plus a markdown body, in the Agent Skills
//! format (agentskills.io). One parser serves the disk loader, imports and
//! the bundled skills (SPEC H13: two parsers would one day disagree), and
//! the same field rules apply to skills written in the UI.
//!
//! Front matter: `name` (1–64 of a-z, 0-9 and single hyphens, not at the
//! ends; equal to the folder name), `description` (1–1024 characters),
//! optional `license`, `compatibility` (≤ 500), `metadata` (string → string)
//! and `allowed-tools` (space-separated). Unknown fields are kept as they are.

use std::collections::BTreeMap;

use serde_json::{Map, Value as Json};

use crate::error::{AppError, Result};

pub const MAX_NAME: usize = 64;
pub const MAX_DESCRIPTION: usize = 1024;
pub const MAX_COMPATIBILITY: usize = 500;
const KNOWN: [&str; 6] = [
    "name",
    "description",
    "license",
    "compatibility",
    "metadata",
    "allowed-tools",
];

/// A parsed `SKILL.md`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SkillFile {
    pub name: String,
    pub description: String,
    pub license: Option<String>,
    pub compatibility: Option<String>,
    pub metadata: BTreeMap<String, String>,
    pub allowed_tools: Option<String>,
    /// Front-matter fields this version does not know, kept verbatim.
    pub extra: Map<String, Json>,
    pub body: String,
}

fn invalid(field: &str, reason: &str, message: impl Into<String>) -> AppError {
    AppError::invalid_field(field, reason, message)
}

/// Checks a skill name against the Agent Skills rules.
pub fn validate_name(name: &str) -> Result<()> {
    let problem = if name.is_empty() {
        Some("it is empty")
    } else if name.chars().count() > MAX_NAME {
        Some("it is longer than 64 characters")
    } else if !name
        .chars()
        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
    {
        Some("only a-z, 0-9 and hyphens are allowed")
    } else if name.starts_with('-') || name.ends_with('-') {
        Some("it must not start or end with a hyphen")
    } else if name.contains("--") {
        Some("hyphens must be single")
    } else {
        None
    };
    match problem {
        Some(why) => Err(invalid(
            "name",
            "invalid_skill_name",
            format!("'{name}' is not a skill name: {why}"),
        )),
        None => Ok(()),
    }
}

pub fn validate_description(description: &str) -> Result<()> {
    let text = description.trim();
    if text.is_empty() {
        return Err(invalid(
            "description",
            "required",
            "a skill needs a description",
        ));
    }
    if text.chars().count() > MAX_DESCRIPTION {
        return Err(invalid(
            "description",
            "too_long",
            format!("a skill description must be at most {MAX_DESCRIPTION} characters"),
        ));
    }
    Ok(())
}

pub fn validate_compatibility(compatibility: Option<&str>) -> Result<()> {
    match compatibility.map(str::trim) {
        Some("") => Err(invalid(
            "compatibility",
            "required",
            "compatibility, when given, must not be empty",
        )),
        Some(text) if text.chars().count() > MAX_COMPATIBILITY => Err(invalid(
            "compatibility",
            "too_long",
            format!("compatibility must be at most {MAX_COMPATIBILITY} characters"),
        )),
        _ => Ok(()),
    }
}

/// Splits `---\nfront matter\n---\nbody`. A byte-order mark and CRLF are fine.
fn split(text: &str) -> Result<(&str, &str)> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let missing = || {
        invalid(
            "frontMatter",
            "missing_front_matter",
            "SKILL.md must start with a '---' line, the YAML front matter, and a closing '---' line",
        )
    };
    let rest = text
        .strip_prefix("---\r\n")
        .or_else(|| text.strip_prefix("---\n"))
        .ok_or_else(missing)?;
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        if line.trim_end() == "---" {
            let front = &rest[..offset];
            let body = &rest[offset + line.len()..];
            return Ok((front, body));
        }
        offset += line.len();
    }
    Err(missing())
}

fn scalar_to_string(value: &yaml_serde::Value) -> Option<String> {
    match value {
        yaml_serde::Value::String(s) => Some(s.clone()),
        yaml_serde::Value::Number(n) => Some(n.to_string()),
        yaml_serde::Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// Parses a `SKILL.md`; every field error names its field.
pub fn parse(text: &str) -> Result<SkillFile> {
    let (front, body) = split(text)?;
    let yaml: yaml_serde::Value = yaml_serde::from_str(front).map_err(|e| {
        invalid(
            "frontMatter",
            "invalid_yaml",
            format!("the front matter is not valid YAML: {e}"),
        )
    })?;
    let yaml_serde::Value::Mapping(map) = yaml else {
        return Err(invalid(
            "frontMatter",
            "invalid_yaml",
            "the front matter must be a mapping of fields",
        ));
    };

    let text_field = |key: &str| -> Result<Option<String>> {
        match map.get(key) {
            None | Some(yaml_serde::Value::Null) => Ok(None),
            Some(value) => scalar_to_string(value)
                .map(Some)
                .ok_or_else(|| invalid(key, "not_text", format!("'{key}' must be text"))),
        }
    };

    let name = text_field("name")?
        .ok_or_else(|| invalid("name", "required", "the front matter has no 'name'"))?;
    validate_name(&name)?;
    let description = text_field("description")?.ok_or_else(|| {
        invalid(
            "description",
            "required",
            "the front matter has no 'description'",
        )
    })?;
    validate_description(&description)?;
    let compatibility = text_field("compatibility")?;
    validate_compatibility(compatibility.as_deref())?;

    let mut metadata = BTreeMap::new();
    match map.get("metadata") {
        None | Some(yaml_serde::Value::Null) => {}
        Some(yaml_serde::Value::Mapping(entries)) => {
            for (key, value) in entries {
                let (Some(key), Some(value)) = (scalar_to_string(key), scalar_to_string(value))
                else {
                    return Err(invalid(
                        "metadata",
                        "not_text",
                        "'metadata' must map text keys to text values",
                    ));
                };
                metadata.insert(key, value);
            }
        }
        Some(_) => {
            return Err(invalid(
                "metadata",
                "not_text",
                "'metadata' must be a mapping",
            ));
        }
    }

    let mut extra = Map::new();
    for (key, value) in &map {
        let Some(key) = scalar_to_string(key) else {
            continue;
        };
        if KNOWN.contains(&key.as_str()) {
            continue;
        }
        let json = serde_json::to_value(value).map_err(|e| {
            invalid(
                "frontMatter",
                "invalid_yaml",
                format!("field '{key}' cannot be kept: {e}"),
            )
        })?;
        extra.insert(key, json);
    }

    Ok(SkillFile {
        name,
        description: description.trim().to_owned(),
        license: text_field("license")?
            .map(|l| l.trim().to_owned())
            .filter(|l| !l.is_empty()),
        compatibility: compatibility.map(|c| c.trim().to_owned()),
        metadata,
        allowed_tools: text_field("allowed-tools")?
            .map(|t| t.trim().to_owned())
            .filter(|t| !t.is_empty()),
        extra,
        body: body.trim_start_matches(['\r', '\n']).trim_end().to_owned(),
    })
}

/// Writes a `SKILL.md` that [`parse`] reads back to the same skill.
pub fn render(skill: &SkillFile) -> Result<String> {
    let mut front = yaml_serde::Mapping::new();
    let text = |s: &str| yaml_serde::Value::String(s.to_owned());
    front.insert(text("name"), text(&skill.name));
    front.insert(text("description"), text(&skill.description));
    if let Some(license) = &skill.license {
        front.insert(text("license"), text(license));
    }
    if let Some(compatibility) = &skill.compatibility {
        front.insert(text("compatibility"), text(compatibility));
    }
    if !skill.metadata.is_empty() {
        let mut metadata = yaml_serde::Mapping::new();
        for (key, value) in &skill.metadata {
            metadata.insert(text(key), text(value));
        }
        front.insert(text("metadata"), yaml_serde::Value::Mapping(metadata));
    }
    if let Some(tools) = &skill.allowed_tools {
        front.insert(text("allowed-tools"), text(tools));
    }
    for (key, value) in &skill.extra {
        let yaml = yaml_serde::to_value(value)
            .map_err(|e| AppError::internal(format!("cannot write field '{key}': {e}")))?;
        front.insert(text(key), yaml);
    }
    let yaml = yaml_serde::to_string(&yaml_serde::Value::Mapping(front))
        .map_err(|e| AppError::internal(format!("cannot write the front matter: {e}")))?;
    Ok(format!("---\n{yaml}---\n\n{}\n", skill.body))
}

#[cfg(test)]
mod tests {
    use super::*;

    const FULL: &str = "---\nname: pdf-tools\ndescription: Fill and merge PDF forms.\nlicense: Apache-2.0\ncompatibility: Needs poppler\nmetadata:\n  author: ana\n  version: 1.2\nallowed-tools: fs_read fs_write\nx-team: docs\npriority: [1, 2]\n---\n\n# PDF tools\n\nSteps…\n";

    #[test]
    fn h12_a_full_skill_md_is_parsed_and_unknown_fields_are_kept() {
        let skill = parse(FULL).unwrap();
        assert_eq!(skill.name, "pdf-tools");
        assert_eq!(skill.description, "Fill and merge PDF forms.");
        assert_eq!(skill.license.as_deref(), Some("Apache-2.0"));
        assert_eq!(skill.compatibility.as_deref(), Some("Needs poppler"));
        assert_eq!(skill.metadata["version"], "1.2");
        assert_eq!(skill.allowed_tools.as_deref(), Some("fs_read fs_write"));
        assert_eq!(skill.extra["x-team"], "docs");
        assert_eq!(skill.extra["priority"], serde_json::json!([1, 2]));
        assert_eq!(skill.body, "# PDF tools\n\nSteps…");
    }

    #[test]
    fn h12_render_then_parse_gives_the_same_skill() {
        let skill = parse(FULL).unwrap();
        assert_eq!(parse(&render(&skill).unwrap()).unwrap(), skill);
    }

    #[test]
    fn h12_names_follow_the_agent_skills_rules() {
        for good in ["a", "web-research", "x2", &"a".repeat(64)] {
            assert!(validate_name(good).is_ok(), "{good}");
        }
        for bad in [
            "",
            "Web",
            "web_research",
            "-web",
            "web-",
            "web--research",
            "wéb",
            &"a".repeat(65),
        ] {
            let err = validate_name(bad).unwrap_err();
            assert_eq!(err.field(), Some("name"), "{bad}");
        }
    }

    #[test]
    fn h12_bad_front_matter_is_reported_on_its_field() {
        let cases = [
            ("no front matter", "frontMatter"),
            ("---\nname: a\n", "frontMatter"),
            ("---\n: : :\n---\n", "frontMatter"),
            ("---\ndescription: d\n---\n", "name"),
            ("---\nname: a\n---\n", "description"),
            ("---\nname: a\ndescription: '   '\n---\n", "description"),
            (
                &format!("---\nname: a\ndescription: {}\n---\n", "x".repeat(1025)),
                "description",
            ),
            (
                &format!(
                    "---\nname: a\ndescription: d\ncompatibility: {}\n---\n",
                    "x".repeat(501)
                ),
                "compatibility",
            ),
            (
                "---\nname: a\ndescription: d\nmetadata: [1]\n---\n",
                "metadata",
            ),
            ("---\nname: [a]\ndescription: d\n---\n", "name"),
        ];
        for (text, field) in cases {
            let err = parse(text).unwrap_err();
            assert_eq!(err.field(), Some(field), "{text:?}: {err:?}");
        }
    }

    #[test]
    fn crlf_and_a_byte_order_mark_are_accepted() {
        let skill = parse("\u{feff}---\r\nname: a\r\ndescription: d\r\n---\r\nbody\r\n").unwrap();
        assert_eq!(skill.name, "a");
        assert_eq!(skill.body, "body");
    }
}
