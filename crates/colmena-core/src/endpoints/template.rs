//! `{{param}}` templates, rendered for where each value goes.
//!
//! The model fills the parameters; the person wrote everything else. So a
//! value can only ever be *data* in its place, never syntax:
//! - in the path a value is one percent-encoded segment: every byte but the
//!   unreserved ones (`A-Z a-z 0-9 - . _ ~`) is encoded, so a value cannot
//!   add `/`, `?` or `#`, and a segment that comes out as `.` or `..` is
//!   refused (URL parsers fold those away, `%2e%2e` included). The scheme,
//!   host and port hold no placeholder at all: no value changes the origin;
//! - in the query a value is form-encoded by `form_urlencoded`;
//! - in a JSON body a string that is exactly `"{{p}}"` takes the typed JSON
//!   value; inside a longer string the value is text in a JSON string,
//!   escaped by the serializer (the body is built as a `Value`, never by
//!   pasting text);
//! - in a header a value holding a control character (CR, LF, NUL…) is
//!   refused: no header can be injected.
//!
//! A placeholder names a property of the parameter schema; any other name
//! is refused when the endpoint is saved and again when it is rendered.

use serde_json::{Map, Value};

use crate::error::{AppError, Result};

/// A piece of a template: text as written, or a parameter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Piece {
    Text(String),
    Param(String),
}

fn name_ok(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Splits `text` into pieces; `field` names where it was written, for the
/// error. `{{ name }}` may have spaces inside the braces.
pub(crate) fn parse(field: &str, text: &str) -> Result<Vec<Piece>> {
    let mut pieces = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find("{{") {
        if open > 0 {
            pieces.push(Piece::Text(rest[..open].to_owned()));
        }
        let after = &rest[open + 2..];
        let close = after.find("}}").ok_or_else(|| {
            AppError::invalid_field(
                field,
                "invalid_placeholder",
                format!("{field}: '{{{{' is not closed by '}}}}'"),
            )
        })?;
        let name = after[..close].trim();
        if !name_ok(name) {
            return Err(AppError::invalid_field(
                field,
                "invalid_placeholder",
                format!(
                    "{field}: '{{{{{}}}}}' is not a parameter name (letters, digits and _, not starting with a digit)",
                    &after[..close]
                ),
            ));
        }
        pieces.push(Piece::Param(name.to_owned()));
        rest = &after[close + 2..];
    }
    if !rest.is_empty() {
        pieces.push(Piece::Text(rest.to_owned()));
    }
    Ok(pieces)
}

/// The parameters `text` names, in order.
pub(crate) fn names(field: &str, text: &str) -> Result<Vec<String>> {
    Ok(parse(field, text)?
        .into_iter()
        .filter_map(|p| match p {
            Piece::Param(name) => Some(name),
            Piece::Text(_) => None,
        })
        .collect())
}

/// Every parameter a JSON template names (in its strings; keys are literal).
pub(crate) fn json_names(field: &str, template: &Value, out: &mut Vec<String>) -> Result<()> {
    match template {
        Value::String(text) => out.extend(names(field, text)?),
        Value::Array(items) => {
            for item in items {
                json_names(field, item, out)?;
            }
        }
        Value::Object(map) => {
            for (key, value) in map {
                if key.contains("{{") {
                    return Err(AppError::invalid_field(
                        field,
                        "placeholder_in_key",
                        format!("{field}: the key '{key}' holds a placeholder; only values may"),
                    ));
                }
                json_names(field, value, out)?;
            }
        }
        _ => {}
    }
    Ok(())
}

/// The parameters a render may use: the schema's properties.
pub(crate) struct Params<'a> {
    pub values: &'a Map<String, Value>,
    pub known: &'a [String],
}

impl Params<'_> {
    /// The value of `name`; absent (or null) is `None`. A name the schema
    /// does not declare is an error, whatever the arguments hold.
    fn get(&self, field: &str, name: &str) -> Result<Option<&Value>> {
        if !self.known.iter().any(|k| k == name) {
            return Err(unknown(field, name));
        }
        Ok(self.values.get(name).filter(|v| !v.is_null()))
    }
}

pub(crate) fn unknown(field: &str, name: &str) -> AppError {
    AppError::invalid_field(
        field,
        "unknown_parameter",
        format!("{field} uses {{{{{name}}}}}, which is not a parameter of the schema"),
    )
}

/// A value as text: strings as they are, anything else as compact JSON.
fn text_of(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// `pieces` with each parameter's text, each passed through `encode`;
/// `None` when a parameter is absent.
fn render_pieces(
    field: &str,
    pieces: &[Piece],
    params: &Params<'_>,
    encode: &dyn Fn(&str) -> String,
) -> Result<Option<String>> {
    let mut out = String::new();
    for piece in pieces {
        match piece {
            Piece::Text(text) => out.push_str(text),
            Piece::Param(name) => match params.get(field, name)? {
                Some(value) => out.push_str(&encode(&text_of(value))),
                None => return Ok(None),
            },
        }
    }
    Ok(Some(out))
}

fn unreserved(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~')
}

/// One path segment's worth of `value`: every byte but the unreserved ones
/// percent-encoded.
pub(crate) fn encode_segment(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for &b in value.as_bytes() {
        if unreserved(b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// A segment URL parsers would fold away (`.`, `..`, `%2e%2E`…).
fn dot_segment(segment: &str) -> bool {
    let folded = segment.to_ascii_lowercase().replace("%2e", ".");
    folded == "." || folded == ".."
}

/// The path with each parameter as one encoded segment (or part of one).
pub(crate) fn render_path(path: &str, params: &Params<'_>) -> Result<String> {
    let mut segments = Vec::new();
    for segment in path.split('/') {
        let pieces = parse("url", segment)?;
        if pieces.iter().all(|p| matches!(p, Piece::Text(_))) {
            segments.push(segment.to_owned());
            continue;
        }
        let mut rendered = String::new();
        for piece in &pieces {
            match piece {
                Piece::Text(text) => rendered.push_str(text),
                Piece::Param(name) => {
                    let value = params.get("url", name)?.ok_or_else(|| {
                        AppError::invalid_field(
                            name,
                            "required",
                            format!("the path needs the parameter '{name}'"),
                        )
                    })?;
                    let text = text_of(value);
                    if text.is_empty() {
                        return Err(AppError::invalid_field(
                            name,
                            "empty_path_segment",
                            format!("the parameter '{name}' goes in the path and cannot be empty"),
                        ));
                    }
                    rendered.push_str(&encode_segment(&text));
                }
            }
        }
        if dot_segment(&rendered) {
            return Err(AppError::invalid_field(
                "url",
                "dot_segment",
                format!(
                    "a path parameter makes the segment '{rendered}', which would move up the path"
                ),
            ));
        }
        segments.push(rendered);
    }
    Ok(segments.join("/"))
}

/// The query pairs: each template rendered as text; a pair whose value is
/// exactly one absent parameter is left out; exactly one array parameter
/// repeats the pair once per item.
pub(crate) fn render_query(
    pairs: &[(String, String)],
    params: &Params<'_>,
) -> Result<Vec<(String, String)>> {
    let mut out = Vec::new();
    for (name, template) in pairs {
        let pieces = parse("query", template)?;
        if let [Piece::Param(param)] = pieces.as_slice()
            && let Some(Value::Array(items)) = params.get("query", param)?
        {
            for item in items.iter().filter(|i| !i.is_null()) {
                out.push((name.clone(), text_of(item)));
            }
            continue;
        }
        if let Some(value) = render_pieces("query", &pieces, params, &|s| s.to_owned())? {
            out.push((name.clone(), value));
        }
    }
    Ok(out)
}

/// A header's value; `None` when a parameter it needs is absent. A value
/// with a control character in it is refused, never cleaned.
pub(crate) fn render_header(
    name: &str,
    template: &str,
    params: &Params<'_>,
) -> Result<Option<String>> {
    let pieces = parse("headers", template)?;
    let Some(value) = render_pieces("headers", &pieces, params, &|s| s.to_owned())? else {
        return Ok(None);
    };
    if value.chars().any(|c| c.is_control() && c != '\t') {
        return Err(AppError::invalid_field(
            "headers",
            "control_characters",
            format!(
                "the value of header '{name}' would hold a line break or another control character"
            ),
        ));
    }
    Ok(Some(value))
}

/// The JSON body: `"{{p}}"` alone takes the typed value, placeholders in a
/// longer string become text inside it. An absent parameter drops the
/// member (or array item) that needs it.
pub(crate) fn render_json(template: &Value, params: &Params<'_>) -> Result<Option<Value>> {
    Ok(match template {
        Value::String(text) => {
            let pieces = parse("body", text)?;
            match pieces.as_slice() {
                [Piece::Param(name)] => params.get("body", name)?.cloned(),
                _ => render_pieces("body", &pieces, params, &|s| s.to_owned())?.map(Value::String),
            }
        }
        Value::Array(items) => {
            let mut out = Vec::with_capacity(items.len());
            for item in items {
                if let Some(value) = render_json(item, params)? {
                    out.push(value);
                }
            }
            Some(Value::Array(out))
        }
        Value::Object(map) => {
            let mut out = Map::new();
            for (key, value) in map {
                if let Some(value) = render_json(value, params)? {
                    out.insert(key.clone(), value);
                }
            }
            Some(Value::Object(out))
        }
        other => Some(other.clone()),
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn with(values: &Value) -> (Map<String, Value>, Vec<String>) {
        let map = values.as_object().cloned().unwrap_or_default();
        let known = map.keys().cloned().collect();
        (map, known)
    }

    #[test]
    fn placeholders_are_parsed_and_bad_ones_refused() {
        assert_eq!(
            parse("url", "/a/{{ id }}/b{{x}}").unwrap(),
            vec![
                Piece::Text("/a/".into()),
                Piece::Param("id".into()),
                Piece::Text("/b".into()),
                Piece::Param("x".into())
            ]
        );
        for bad in ["{{", "{{1a}}", "{{a b}}", "{{a-b}}", "x{{}}"] {
            assert!(parse("url", bad).is_err(), "{bad}");
        }
        assert_eq!(names("q", "}} plain").unwrap(), Vec::<String>::new());
    }

    #[test]
    fn path_values_are_one_segment() {
        let (values, known) = with(&json!({ "id": "a/../b?c#d e", "dots": "..", "n": 7 }));
        let params = Params {
            values: &values,
            known: &known,
        };
        assert_eq!(
            render_path("/users/{{id}}/n{{n}}", &params).unwrap(),
            "/users/a%2F..%2Fb%3Fc%23d%20e/n7"
        );
        assert!(render_path("/x/{{dots}}", &params).is_err());
        let err = render_path("/x/{{missing}}", &params).unwrap_err();
        assert_eq!(err.details.unwrap()["reason"], "unknown_parameter");
    }

    #[test]
    fn body_values_are_typed_or_escaped_and_headers_refuse_line_breaks() {
        let (values, known) =
            with(&json!({ "n": 3, "s": "a\"}, \"admin\": true, \"x\": \"", "tags": ["a"] }));
        let params = Params {
            values: &values,
            known: &known,
        };
        let body = render_json(
            &json!({ "n": "{{n}}", "note": "say {{s}}", "tags": "{{tags}}", "fixed": 1 }),
            &params,
        )
        .unwrap()
        .unwrap();
        assert_eq!(body["n"], json!(3));
        assert_eq!(body["tags"], json!(["a"]));
        assert_eq!(
            body["note"],
            json!(format!("say {}", values["s"].as_str().unwrap()))
        );
        assert!(body.get("admin").is_none());
        let (values, known) = with(&json!({ "v": "x\r\nX-Evil: 1" }));
        let params = Params {
            values: &values,
            known: &known,
        };
        assert!(render_header("X-A", "{{v}}", &params).is_err());
    }
}
