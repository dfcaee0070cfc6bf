//! What a person declares for an endpoint, as adapters see it, and the
//! checks every door shares (SPEC H27). An endpoint is data: a method, a
//! URL whose path may hold `{{param}}`, query and header templates, a JSON
//! body template, secret headers, and the JSON schema of its parameters.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::template::{self, Piece};
use crate::error::{AppError, Result};
use crate::ids;
use crate::validate::{self, FieldErrors as Problems};

const MAX_NAME: usize = 64;
/// `endpoint_` + the slug stays within the 64 characters providers accept.
pub(crate) const MAX_SLUG: usize = 55;
const MAX_DESCRIPTION: usize = 2000;
const MAX_URL: usize = 2048;
const MAX_PAIRS: usize = 50;
const MAX_VALUE: usize = 4096;
const MAX_SECRET: usize = 16 * 1024;
const MAX_BODY_BYTES: usize = 64 * 1024;
const MAX_SCHEMA_BYTES: usize = 64 * 1024;
/// Longest a call may take unless the endpoint says otherwise, and the most
/// it may say.
pub const DEFAULT_TIMEOUT_SECS: u32 = 30;
pub const MAX_TIMEOUT_SECS: u32 = 120;

/// The prefix of every endpoint's tool name.
pub const TOOL_PREFIX: &str = "endpoint_";

/// The methods an endpoint may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "UPPERCASE")]
pub enum HttpMethod {
    Get,
    Post,
    Put,
    Patch,
    Delete,
}

impl HttpMethod {
    pub const ALL: [HttpMethod; 5] = [
        HttpMethod::Get,
        HttpMethod::Post,
        HttpMethod::Put,
        HttpMethod::Patch,
        HttpMethod::Delete,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            HttpMethod::Get => "GET",
            HttpMethod::Post => "POST",
            HttpMethod::Put => "PUT",
            HttpMethod::Patch => "PATCH",
            HttpMethod::Delete => "DELETE",
        }
    }

    pub fn parse(text: &str) -> Option<HttpMethod> {
        let wanted = text.trim().to_ascii_uppercase();
        HttpMethod::ALL.into_iter().find(|m| m.as_str() == wanted)
    }

    /// Only reads: GET. The others change something on the other side.
    pub fn reads_only(self) -> bool {
        self == HttpMethod::Get
    }

    pub(crate) fn reqwest(self) -> reqwest::Method {
        match self {
            HttpMethod::Get => reqwest::Method::GET,
            HttpMethod::Post => reqwest::Method::POST,
            HttpMethod::Put => reqwest::Method::PUT,
            HttpMethod::Patch => reqwest::Method::PATCH,
            HttpMethod::Delete => reqwest::Method::DELETE,
        }
    }
}

/// A query parameter or a plain header: a name and a template.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct EndpointPair {
    pub name: String,
    pub value: String,
}

/// A secret header as written. No value (or an empty one) keeps the value
/// already sealed: an edit need not retype the key.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct SecretHeaderInput {
    pub name: String,
    #[serde(default)]
    pub value: Option<String>,
}

/// Printed without its value: a `{:?}` in a log line must not leak it.
impl std::fmt::Debug for SecretHeaderInput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SecretHeaderInput")
            .field("name", &self.name)
            .field("value", &self.value.as_ref().map(|_| "…"))
            .finish()
    }
}

/// Create or replace an endpoint.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct EndpointInput {
    pub name: String,
    /// The id and tool suffix (`endpoint_<slug>`); from the name when
    /// absent. It never changes once created.
    #[serde(default)]
    pub slug: Option<String>,
    /// What the model reads to decide when to call it.
    pub description: String,
    pub method: HttpMethod,
    /// `http(s)://host[:port]/path`; `{{param}}` only in the path.
    pub url: String,
    #[serde(default)]
    pub query: Vec<EndpointPair>,
    /// A JSON template; `"{{p}}"` alone takes p's typed value.
    #[serde(default)]
    pub body: Option<Value>,
    #[serde(default)]
    pub headers: Vec<EndpointPair>,
    #[serde(default)]
    pub secret_headers: Vec<SecretHeaderInput>,
    /// JSON schema of the parameters (an object schema); none: no parameters.
    #[serde(default)]
    pub param_schema: Option<Value>,
    #[serde(default)]
    pub enabled: Option<bool>,
    /// Longest a call may take, 1–120 s (default 30).
    #[serde(default)]
    pub timeout_seconds: Option<u32>,
}

/// A declared endpoint. Secret headers are named, never shown (SPEC H28).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Endpoint {
    /// The slug; never changes.
    pub id: String,
    /// The tool models call: `endpoint_<id>`.
    pub tool: String,
    pub name: String,
    pub description: String,
    pub method: HttpMethod,
    pub url: String,
    pub query: Vec<EndpointPair>,
    pub body: Option<Value>,
    pub headers: Vec<EndpointPair>,
    /// Which secret headers are set; their values never leave the vault.
    pub secret_header_names: Vec<String>,
    pub param_schema: Value,
    pub enabled: bool,
    pub timeout_seconds: u32,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl From<&Endpoint> for EndpointInput {
    /// The input that leaves `endpoint` as it is: its secret headers named
    /// without a value, so the sealed ones stay.
    fn from(endpoint: &Endpoint) -> EndpointInput {
        EndpointInput {
            name: endpoint.name.clone(),
            slug: Some(endpoint.id.clone()),
            description: endpoint.description.clone(),
            method: endpoint.method,
            url: endpoint.url.clone(),
            query: endpoint.query.clone(),
            body: endpoint.body.clone(),
            headers: endpoint.headers.clone(),
            secret_headers: endpoint
                .secret_header_names
                .iter()
                .map(|name| SecretHeaderInput {
                    name: name.clone(),
                    value: None,
                })
                .collect(),
            param_schema: Some(endpoint.param_schema.clone()),
            enabled: Some(endpoint.enabled),
            timeout_seconds: Some(endpoint.timeout_seconds),
        }
    }
}

/// One header of a request as shown to a person: a secret one masked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ShownHeader {
    pub name: String,
    pub value: String,
    pub secret: bool,
}

/// The request a call sends, as the live preview shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct EndpointRequest {
    pub method: HttpMethod,
    pub url: String,
    pub headers: Vec<ShownHeader>,
    pub body: Option<String>,
}

/// What calling an endpoint with sample arguments answered (SPEC H29).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct EndpointTestResult {
    /// The status is 2xx.
    pub ok: bool,
    pub status: u16,
    pub content_type: Option<String>,
    /// The response's headers; any holding a secret value is masked.
    pub headers: Vec<EndpointPair>,
    /// JSON pretty-printed, else text; secrets echoed back are masked.
    pub body: String,
    /// Only the first MiB was read.
    pub truncated: bool,
    /// A redirect that was not followed, and why.
    pub note: Option<String>,
    pub duration_ms: u64,
    pub request: EndpointRequest,
}

/// The stored, checked definition.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Definition {
    pub name: String,
    pub description: String,
    pub method: HttpMethod,
    pub url: String,
    pub query: Vec<EndpointPair>,
    pub body: Option<Value>,
    pub headers: Vec<EndpointPair>,
    pub secret_names: Vec<String>,
    pub schema: Value,
    pub timeout_seconds: u32,
}

impl Definition {
    /// The schema's property names: what a template may name.
    pub(crate) fn known_params(&self) -> Vec<String> {
        self.schema["properties"]
            .as_object()
            .map(|p| p.keys().cloned().collect())
            .unwrap_or_default()
    }
}

/// A checked input, ready to store.
#[derive(Clone)]
pub(crate) struct Checked {
    pub id: String,
    pub def: Definition,
    /// Secret values to seal (`None`: keep the sealed one).
    pub secrets: Vec<(String, Option<String>)>,
    pub enabled: bool,
}

/// Printed without the secret values.
impl std::fmt::Debug for Checked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.secrets.iter().map(|(n, _)| n.as_str()).collect();
        f.debug_struct("Checked")
            .field("id", &self.id)
            .field("def", &self.def)
            .field("secret_headers", &names)
            .field("enabled", &self.enabled)
            .finish()
    }
}

/// The three parts of a URL template: the origin (no placeholder ever),
/// the path template, and a fixed query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct UrlParts {
    pub origin: String,
    pub path: String,
    pub query: Option<String>,
}

/// Splits a URL template; the origin must be a plain http(s) origin.
pub(crate) fn split_url(url: &str) -> Result<UrlParts> {
    let bad = |reason: &str, message: String| AppError::invalid_field("url", reason, message);
    let (scheme, rest) = url
        .split_once("://")
        .ok_or_else(|| bad("invalid_url", format!("'{url}' is not a URL")))?;
    if !matches!(scheme.to_ascii_lowercase().as_str(), "http" | "https") {
        return Err(bad(
            "scheme",
            "the URL must start with http:// or https://".into(),
        ));
    }
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(end);
    if authority.contains("{{") {
        return Err(bad(
            "placeholder_in_origin",
            "the host and port cannot hold a placeholder: parameters go in the path, query, headers or body".into(),
        ));
    }
    if authority.contains('@') {
        return Err(bad(
            "credentials_in_url",
            "the URL cannot carry a user or password: put credentials in a secret header".into(),
        ));
    }
    if tail.contains('#') {
        return Err(bad(
            "fragment",
            "the URL cannot have a #fragment (it is never sent)".into(),
        ));
    }
    let (path, query) = match tail.split_once('?') {
        Some((path, query)) => (path, Some(query.to_owned())),
        None => (tail, None),
    };
    if query.as_deref().is_some_and(|q| q.contains("{{")) {
        return Err(bad(
            "placeholder_in_query",
            "put templated query parameters in the query list, not in the URL".into(),
        ));
    }
    let origin = format!("{}://{authority}", scheme.to_ascii_lowercase());
    let parsed = url::Url::parse(&format!("{origin}/"))
        .map_err(|e| bad("invalid_url", format!("'{url}' is not a URL: {e}")))?;
    if parsed.host().is_none() || parsed.path() != "/" || parsed.query().is_some() {
        return Err(bad("invalid_url", format!("'{url}' has no valid host")));
    }
    Ok(UrlParts {
        origin: parsed.origin().ascii_serialization(),
        path: if path.is_empty() {
            "/".into()
        } else {
            path.to_owned()
        },
        query,
    })
}

fn header_name_ok(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c))
}

/// Headers the HTTP client owns: a template setting them would confuse
/// the request's framing or target.
fn reserved_header(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    matches!(
        lower.as_str(),
        "host"
            | "content-length"
            | "transfer-encoding"
            | "connection"
            | "keep-alive"
            | "te"
            | "trailer"
            | "upgrade"
    ) || lower.starts_with("proxy-")
}

fn has_controls(value: &str) -> bool {
    value.chars().any(|c| c.is_control() && c != '\t')
}

/// The schema as stored: an object schema that compiles.
fn check_schema(schema: Option<Value>, problems: &mut Problems) -> Value {
    let mut schema = schema
        .filter(|s| !s.is_null())
        .unwrap_or_else(|| json!({ "type": "object", "properties": {} }));
    let Some(map) = schema.as_object_mut() else {
        problems.add(
            "paramSchema",
            "not_an_object",
            "the parameter schema must be a JSON object",
        );
        return json!({ "type": "object" });
    };
    match map.get("type") {
        None => {
            map.insert("type".into(), json!("object"));
        }
        Some(t) if t == "object" => {}
        Some(_) => problems.add(
            "paramSchema",
            "not_an_object_schema",
            "the parameter schema must describe an object (\"type\": \"object\")",
        ),
    }
    if map.get("properties").is_some_and(|p| !p.is_object()) {
        problems.add("paramSchema", "invalid", "\"properties\" must be an object");
    }
    if serde_json::to_string(&schema).map_or(0, |s| s.len()) > MAX_SCHEMA_BYTES {
        problems.add(
            "paramSchema",
            "too_large",
            format!("the parameter schema is over {MAX_SCHEMA_BYTES} bytes"),
        );
    } else if let Err(e) = jsonschema::validator_for(&schema) {
        problems.add(
            "paramSchema",
            "invalid",
            format!("the parameter schema is not a valid JSON schema: {e}"),
        );
    }
    schema
}

fn check_pairs(
    field: &str,
    pairs: Vec<EndpointPair>,
    problems: &mut Problems,
    used: &mut Vec<(String, String)>,
    headers: bool,
) -> Vec<EndpointPair> {
    if pairs.len() > MAX_PAIRS {
        problems.add(field, "too_many", format!("at most {MAX_PAIRS} entries"));
    }
    let mut out = Vec::new();
    for pair in pairs {
        let name = pair.name.trim().to_owned();
        let name_bad = if headers {
            !header_name_ok(&name)
        } else {
            name.is_empty() || has_controls(&name) || name.contains("{{")
        };
        if name_bad {
            problems.add(
                field,
                "invalid_name",
                format!("'{name}' is not a valid name here"),
            );
            continue;
        }
        if headers && reserved_header(&name) {
            problems.add(
                field,
                "reserved_header",
                format!("the header '{name}' is set by Colmena's HTTP client"),
            );
            continue;
        }
        if pair.value.len() > MAX_VALUE || has_controls(&pair.value) {
            problems.add(
                field,
                "invalid_value",
                format!("the value of '{name}' is too long or holds control characters"),
            );
            continue;
        }
        match template::names(field, &pair.value) {
            Ok(names) => used.extend(names.into_iter().map(|n| (field.to_owned(), n))),
            Err(e) => {
                problems.check::<()>(Err(e));
                continue;
            }
        }
        out.push(EndpointPair {
            name,
            value: pair.value,
        });
    }
    out
}

/// Checks `input`: every problem at once, each on its field.
pub(crate) fn check(input: EndpointInput) -> Result<Checked> {
    let mut problems = Problems::new();
    let name = problems.check(validate::name("name", &input.name, MAX_NAME));
    let id = match input
        .slug
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
    {
        // The tool is `endpoint_<id>`: an id that began with the prefix
        // would make one tool name read as two endpoints.
        Some(slug) if slug.starts_with(TOOL_PREFIX) => {
            problems.add(
                "slug",
                "invalid_slug",
                format!("'{slug}' must not begin with '{TOOL_PREFIX}': the tool's name adds it"),
            );
            None
        }
        Some(slug) if ids::slugify(slug).as_deref() == Some(slug) && slug.len() <= MAX_SLUG => {
            Some(slug.to_owned())
        }
        Some(slug) => {
            problems.add(
                "slug",
                "invalid_slug",
                format!(
                    "'{slug}' is not a slug: lowercase letters, digits and _, at most {MAX_SLUG} characters"
                ),
            );
            None
        }
        None => name.as_deref().and_then(|n| {
            problems.check(ids::slug_for("name", n)).map(|mut slug| {
                while let Some(rest) = slug.strip_prefix(TOOL_PREFIX) {
                    slug = rest.to_owned();
                }
                slug.truncate(MAX_SLUG);
                while slug.ends_with('_') {
                    slug.pop();
                }
                slug
            })
        }),
    };
    let description = input.description.trim().to_owned();
    if description.is_empty() {
        problems.add(
            "description",
            "required",
            "the description is what the model reads to decide when to call it: it must not be empty",
        );
    } else if description.chars().count() > MAX_DESCRIPTION {
        problems.add(
            "description",
            "too_long",
            format!("the description must be at most {MAX_DESCRIPTION} characters"),
        );
    }
    let timeout_seconds = input.timeout_seconds.unwrap_or(DEFAULT_TIMEOUT_SECS);
    if !(1..=MAX_TIMEOUT_SECS).contains(&timeout_seconds) {
        problems.add(
            "timeoutSeconds",
            "out_of_range",
            format!("timeoutSeconds must be between 1 and {MAX_TIMEOUT_SECS}"),
        );
    }
    // (field, parameter) for every placeholder, to check against the schema.
    let mut used: Vec<(String, String)> = Vec::new();
    let url = input.url.trim().to_owned();
    let mut path_params = Vec::new();
    if url.len() > MAX_URL || has_controls(&url) || url.contains(' ') {
        problems.add(
            "url",
            "invalid_url",
            format!(
                "the URL is longer than {MAX_URL} characters or holds spaces or control characters"
            ),
        );
    } else if let Some(parts) = problems.check(split_url(&url)) {
        match template::parse("url", &parts.path) {
            Ok(pieces) => {
                for piece in pieces {
                    if let Piece::Param(p) = piece {
                        used.push(("url".into(), p.clone()));
                        path_params.push(p);
                    }
                }
                let sample = parts.path.replace("{{", "").replace("}}", "");
                if url::Url::parse(&format!("{}{sample}", parts.origin)).is_err() {
                    problems.add("url", "invalid_url", format!("'{url}' is not a URL"));
                }
            }
            Err(e) => {
                problems.check::<()>(Err(e));
            }
        }
    }
    let query = check_pairs("query", input.query, &mut problems, &mut used, false);
    let headers = check_pairs("headers", input.headers, &mut problems, &mut used, true);
    let body = input.body.filter(|b| !b.is_null());
    if let Some(template) = &body {
        if input.method == HttpMethod::Get {
            problems.add(
                "body",
                "body_with_get",
                "a GET request has no body: use the query, or another method",
            );
        }
        if serde_json::to_string(template).map_or(0, |s| s.len()) > MAX_BODY_BYTES {
            problems.add(
                "body",
                "too_large",
                format!("the body template is over {MAX_BODY_BYTES} bytes"),
            );
        }
        let mut names = Vec::new();
        match template::json_names("body", template, &mut names) {
            Ok(()) => used.extend(names.into_iter().map(|n| ("body".to_owned(), n))),
            Err(e) => {
                problems.check::<()>(Err(e));
            }
        }
    }
    let mut secrets = Vec::new();
    let mut seen: Vec<String> = headers
        .iter()
        .map(|h| h.name.to_ascii_lowercase())
        .collect();
    {
        let mut plain_seen = std::collections::BTreeSet::new();
        for h in &headers {
            if !plain_seen.insert(h.name.to_ascii_lowercase()) {
                problems.add(
                    "headers",
                    "duplicate",
                    format!("the header '{}' is given twice", h.name),
                );
            }
        }
    }
    if input.secret_headers.len() > MAX_PAIRS {
        problems.add(
            "secretHeaders",
            "too_many",
            format!("at most {MAX_PAIRS} secret headers"),
        );
    }
    for secret in input.secret_headers {
        let name = secret.name.trim().to_owned();
        if !header_name_ok(&name) || reserved_header(&name) {
            problems.add(
                "secretHeaders",
                "invalid_name",
                format!("'{name}' is not a header name that can be set"),
            );
            continue;
        }
        if seen.contains(&name.to_ascii_lowercase()) {
            problems.add(
                "secretHeaders",
                "duplicate",
                format!("the header '{name}' is given twice"),
            );
            continue;
        }
        seen.push(name.to_ascii_lowercase());
        let value = secret.value.filter(|v| !v.is_empty());
        if let Some(v) = &value
            && (v.len() > MAX_SECRET || has_controls(v))
        {
            // The message names the header, never the value.
            problems.add(
                "secretHeaders",
                "invalid_value",
                format!(
                    "the value of secret header '{name}' is too long or holds control characters"
                ),
            );
            continue;
        }
        secrets.push((name, value));
    }
    let schema = check_schema(input.param_schema, &mut problems);
    let known: Vec<String> = schema["properties"]
        .as_object()
        .map(|p| p.keys().cloned().collect())
        .unwrap_or_default();
    let required: Vec<&str> = schema["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut reported = std::collections::BTreeSet::new();
    for (field, param) in &used {
        if !known.contains(param) && reported.insert(param.clone()) {
            problems.check::<()>(Err(template::unknown(field, param)));
        }
    }
    for param in &path_params {
        if known.contains(param) && !required.contains(&param.as_str()) {
            problems.add(
                "paramSchema",
                "path_param_optional",
                format!("'{param}' goes in the path, so the schema must list it as required"),
            );
        }
    }
    problems.finish()?;
    let (Some(name), Some(id)) = (name, id) else {
        return Err(AppError::internal("a checked endpoint lost its name"));
    };
    Ok(Checked {
        id,
        def: Definition {
            name,
            description,
            method: input.method,
            url,
            query,
            body,
            headers,
            secret_names: secrets.iter().map(|(n, _)| n.clone()).collect(),
            schema,
            timeout_seconds,
        },
        secrets,
        enabled: input.enabled.unwrap_or(true),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(url: &str) -> EndpointInput {
        EndpointInput {
            name: "Clima".into(),
            slug: None,
            description: "Weather of a city".into(),
            method: HttpMethod::Get,
            url: url.into(),
            query: vec![EndpointPair {
                name: "city".into(),
                value: "{{city}}".into(),
            }],
            body: None,
            headers: vec![],
            secret_headers: vec![SecretHeaderInput {
                name: "Authorization".into(),
                value: Some("Bearer sk-x".into()),
            }],
            param_schema: Some(json!({
                "type": "object",
                "properties": { "city": { "type": "string" }, "id": { "type": "string" } },
                "required": ["city", "id"]
            })),
            enabled: None,
            timeout_seconds: None,
        }
    }

    #[test]
    fn h27_a_declaration_is_checked_and_split() {
        let checked = check(input("https://api.example.com/v1/{{id}}?units=metric")).unwrap();
        assert_eq!(checked.id, "clima");
        assert_eq!(checked.def.secret_names, vec!["Authorization"]);
        assert_eq!(checked.def.timeout_seconds, DEFAULT_TIMEOUT_SECS);
        let parts = split_url(&checked.def.url).unwrap();
        assert_eq!(parts.origin, "https://api.example.com");
        assert_eq!(parts.path, "/v1/{{id}}");
        assert_eq!(parts.query.as_deref(), Some("units=metric"));
    }

    #[test]
    fn h27_the_origin_holds_no_placeholder_and_unknown_names_are_refused() {
        for (url, reason) in [
            ("https://{{host}}/x", "placeholder_in_origin"),
            (
                "https://api.example.com:{{port}}/x",
                "placeholder_in_origin",
            ),
            ("ftp://api.example.com/", "scheme"),
            ("https://user:pw@api.example.com/", "credentials_in_url"),
            ("https://api.example.com/x#{{id}}", "fragment"),
            ("https://api.example.com/x?a={{id}}", "placeholder_in_query"),
        ] {
            let err = check(input(url)).unwrap_err();
            assert_eq!(err.details.unwrap()["reason"], reason, "{url}");
        }
        let mut unknown = input("https://api.example.com/{{id}}");
        unknown.headers.push(EndpointPair {
            name: "X-Trace".into(),
            value: "{{nope}}".into(),
        });
        let err = check(unknown).unwrap_err();
        assert!(err.message.contains("nope"), "{}", err.message);
        let mut optional = input("https://api.example.com/{{id}}");
        optional.param_schema = Some(json!({ "properties": { "id": {}, "city": {} } }));
        let err = check(optional).unwrap_err();
        assert!(err.message.contains("required"), "{}", err.message);
    }
}
