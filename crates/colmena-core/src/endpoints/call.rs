//! Calling an endpoint: the request rendered from its templates, sent
//! through the address guard, the answer size- and time-limited and made
//! into what the model (or the Test button) reads.
//!
//! Why the guard allows the local network here when `web_fetch` does not
//! by default: the person declared this exact origin — "our internal API"
//! on the LAN or this computer is the point of an endpoint — and no
//! parameter can change it (the origin holds no placeholder, and the built
//! URL's origin is checked again). Metadata, multicast and the other
//! never-local classes stay refused whoever declared them. A redirect is
//! followed only for a GET and only within the declared origin: a request
//! that carries secret headers is never repeated to wherever an answer
//! points.
//!
//! Secret header values are opened just before sending and dropped
//! (zeroized) after; they never reach a log line (the outgoing request's
//! `Debug` shows header names only, and the values are marked sensitive),
//! an error, the result, or the preview. A server that echoes one back
//! gets it replaced by `[secret]`.

use std::time::{Duration, Instant};

use futures_util::StreamExt;
use reqwest::header::{CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue, LOCATION};
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;
use url::Url;
use zeroize::Zeroizing;

use super::config::{
    Definition, EndpointPair, EndpointRequest, EndpointTestResult, HttpMethod, ShownHeader,
    split_url,
};
use super::template::{self, Params};
use crate::error::{AppError, ErrorCode, Result};
use crate::net_guard::{MAX_REDIRECTS, NetGuard, Outgoing};

/// Most of a response that is read; the rest is cut with a note.
pub const MAX_RESPONSE_BYTES: usize = 1024 * 1024;
/// What a secret header shows in the preview and the test result.
pub const MASK: &str = "••••••••";
/// What a secret value echoed by a server becomes.
const REDACTED: &str = "[secret]";

/// A request rendered from the templates, without its secret headers.
#[derive(Debug, Clone)]
pub(crate) struct Built {
    pub method: HttpMethod,
    pub url: Url,
    pub headers: Vec<(String, String)>,
    pub body: Option<Value>,
}

fn has_header(headers: &[(String, String)], secret: &[String], name: &str) -> bool {
    headers.iter().any(|(n, _)| n.eq_ignore_ascii_case(name))
        || secret.iter().any(|n| n.eq_ignore_ascii_case(name))
}

/// Renders `def` with `args` (checked against its schema first).
pub(crate) fn build(def: &Definition, args: &Value) -> Result<Built> {
    let empty = Map::new();
    let values = match args {
        Value::Object(map) => map,
        Value::Null => &empty,
        _ => {
            return Err(AppError::invalid_field(
                "params",
                "not_an_object",
                "the parameters must be a JSON object",
            ));
        }
    };
    crate::tools::arguments::check_arguments(&def.schema, &Value::Object(values.clone())).map_err(
        |e| {
            AppError::invalid_field(
                "params",
                "schema",
                format!("the parameters break the schema: {}", e.message),
            )
        },
    )?;
    let known = def.known_params();
    let params = Params {
        values,
        known: &known,
    };
    let parts = split_url(&def.url)?;
    let mut text = format!(
        "{}{}",
        parts.origin,
        template::render_path(&parts.path, &params)?
    );
    let pairs: Vec<(String, String)> = def
        .query
        .iter()
        .map(|p| (p.name.clone(), p.value.clone()))
        .collect();
    let rendered = template::render_query(&pairs, &params)?;
    let mut query = parts.query.clone().unwrap_or_default();
    if !rendered.is_empty() {
        let mut encoded = url::form_urlencoded::Serializer::new(String::new());
        encoded.extend_pairs(rendered);
        if !query.is_empty() {
            query.push('&');
        }
        query.push_str(&encoded.finish());
    }
    if !query.is_empty() {
        text.push('?');
        text.push_str(&query);
    }
    let url = Url::parse(&text).map_err(|e| {
        AppError::invalid_field(
            "url",
            "invalid_url",
            format!("the request URL is not valid: {e}"),
        )
    })?;
    // Belt and braces: whatever the parameters held, the origin is the
    // declared one.
    if url.origin().ascii_serialization() != parts.origin {
        return Err(AppError::new(
            ErrorCode::Forbidden,
            "the parameters would change where the request goes; it was not sent",
        )
        .with_details(serde_json::json!({ "reason": "origin_changed" })));
    }
    let mut headers = Vec::new();
    for header in &def.headers {
        if let Some(value) = template::render_header(&header.name, &header.value, &params)? {
            headers.push((header.name.clone(), value));
        }
    }
    let body = match &def.body {
        Some(template) => template::render_json(template, &params)?,
        None => None,
    };
    if body.is_some() && !has_header(&headers, &def.secret_names, "content-type") {
        headers.push(("Content-Type".into(), "application/json".into()));
    }
    Ok(Built {
        method: def.method,
        url,
        headers,
        body,
    })
}

/// The request as a person is shown it: secret headers masked.
pub(crate) fn shown(built: &Built, secret_names: &[String]) -> EndpointRequest {
    let mut headers: Vec<ShownHeader> = built
        .headers
        .iter()
        .map(|(name, value)| ShownHeader {
            name: name.clone(),
            value: value.clone(),
            secret: false,
        })
        .collect();
    headers.extend(secret_names.iter().map(|name| ShownHeader {
        name: name.clone(),
        value: MASK.into(),
        secret: true,
    }));
    EndpointRequest {
        method: built.method,
        url: built.url.to_string(),
        headers,
        body: built
            .body
            .as_ref()
            .and_then(|b| serde_json::to_string_pretty(b).ok()),
    }
}

/// The opened secret values, and what they hide.
pub(crate) struct Secrets {
    pub headers: Vec<(String, Zeroizing<String>)>,
}

impl Secrets {
    /// Every form of every secret that must not be shown: the value, its
    /// JSON-escaped and URL-encoded forms, the token after an auth scheme
    /// (`Bearer x`), and the credentials inside `Basic` (and their password).
    fn hidden(&self) -> Vec<Zeroizing<String>> {
        use base64::Engine as _;
        let mut out = Vec::new();
        for (_, value) in &self.headers {
            let value = value.as_str();
            let mut forms: Vec<Zeroizing<String>> = vec![Zeroizing::new(value.to_owned())];
            if let Some((scheme, token)) = value.split_once(' ')
                && token.trim().len() >= 4
            {
                forms.push(Zeroizing::new(token.trim().to_owned()));
                if scheme.eq_ignore_ascii_case("basic")
                    && let Ok(decoded) =
                        base64::engine::general_purpose::STANDARD.decode(token.trim())
                    && let Ok(decoded) = String::from_utf8(decoded)
                {
                    if let Some((_, password)) = decoded.split_once(':')
                        && password.len() >= 4
                    {
                        forms.push(Zeroizing::new(password.to_owned()));
                    }
                    forms.push(Zeroizing::new(decoded));
                }
            }
            let encoded: Vec<Zeroizing<String>> = forms
                .iter()
                .map(|f| {
                    Zeroizing::new(
                        url::form_urlencoded::byte_serialize(f.as_bytes()).collect::<String>(),
                    )
                })
                .filter(|e| !forms.iter().any(|f| f.as_str() == e.as_str()))
                .collect();
            forms.extend(encoded);
            for form in forms.iter().map(|f| f.as_str()).filter(|f| !f.is_empty()) {
                out.push(Zeroizing::new(form.to_owned()));
                if let Ok(escaped) = serde_json::to_string(form) {
                    let inner = &escaped[1..escaped.len() - 1];
                    if inner != form {
                        out.push(Zeroizing::new(inner.to_owned()));
                    }
                    // JSON may also escape `/` (PHP's encoder does).
                    if inner.contains('/') {
                        out.push(Zeroizing::new(inner.replace('/', "\\/")));
                    }
                }
            }
        }
        // Longest first: a token inside a value is replaced after the value.
        out.sort_by_key(|s| std::cmp::Reverse(s.len()));
        out
    }

    /// `text` with every secret replaced.
    pub(crate) fn redact(&self, text: &str) -> String {
        let mut out = text.to_owned();
        for value in &self.hidden() {
            out = out.replace(value.as_str(), REDACTED);
        }
        out
    }

    /// [`Secrets::redact`] for a text cut at the size limit: it also loses
    /// a trailing start of a secret (three characters or more).
    pub(crate) fn redact_cut(&self, text: &str) -> String {
        let hidden = self.hidden();
        let mut out = self.redact(text);
        for value in &hidden {
            let chars: Vec<char> = value.chars().collect();
            for keep in (1..chars.len()).rev() {
                let head: String = chars[..keep].iter().collect();
                if keep >= 3 && out.ends_with(&head) {
                    out.truncate(out.len() - head.len());
                    out.push_str(REDACTED);
                    break;
                }
            }
        }
        out
    }
}

/// What the endpoint answered.
pub(crate) struct Answer {
    pub status: reqwest::StatusCode,
    pub content_type: Option<String>,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    pub truncated: bool,
    pub note: Option<String>,
    pub final_url: Url,
}

fn header_map(built: &Built, secrets: &Secrets) -> Result<HeaderMap> {
    let bad = |name: &str| {
        AppError::invalid_field(
            "headers",
            "invalid_value",
            format!("the header '{name}' cannot be sent as it is"),
        )
    };
    let mut map = HeaderMap::new();
    for (name, value) in &built.headers {
        let header = HeaderName::from_bytes(name.as_bytes()).map_err(|_| bad(name))?;
        map.append(
            header,
            HeaderValue::from_bytes(value.as_bytes()).map_err(|_| bad(name))?,
        );
    }
    for (name, value) in &secrets.headers {
        let header = HeaderName::from_bytes(name.as_bytes()).map_err(|_| bad(name))?;
        let mut value = HeaderValue::from_bytes(value.as_bytes()).map_err(|_| bad(name))?;
        value.set_sensitive(true);
        map.append(header, value);
    }
    Ok(map)
}

/// Sends `built` with the secret headers within `timeout`, reading at most
/// [`MAX_RESPONSE_BYTES`].
pub(crate) async fn send(
    built: &Built,
    secrets: &Secrets,
    timeout: Duration,
    cancel: &CancellationToken,
) -> Result<Answer> {
    let guard = NetGuard::system(true);
    let request = Outgoing {
        method: built.method.reqwest(),
        headers: header_map(built, secrets)?,
        body: built.body.as_ref().map(serde_json::to_vec).transpose()?,
    };
    let work = async {
        let origin = built.url.origin();
        let mut url = built.url.clone();
        let mut note = None;
        let mut hops = 0;
        let response = loop {
            let response = guard.send(&url, &request, timeout).await?;
            let location = response
                .headers()
                .get(LOCATION)
                .and_then(|v| v.to_str().ok())
                .and_then(|l| url.join(l).ok());
            let (true, Some(next)) = (response.status().is_redirection(), location) else {
                break response;
            };
            if next.origin() != origin {
                note = Some(format!(
                    "the endpoint redirected to another origin ({}); not followed: a call never leaves {}",
                    next.origin().ascii_serialization(),
                    origin.ascii_serialization()
                ));
                break response;
            }
            if built.method != HttpMethod::Get {
                note = Some(format!(
                    "the endpoint redirected to {}; not followed: only GET requests follow redirects",
                    next.path()
                ));
                break response;
            }
            if hops >= MAX_REDIRECTS {
                note = Some(format!("more than {MAX_REDIRECTS} redirects; stopped"));
                break response;
            }
            hops += 1;
            url = next;
        };
        let status = response.status();
        let content_type = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let headers = response
            .headers()
            .iter()
            .map(|(n, v)| {
                (
                    n.to_string(),
                    String::from_utf8_lossy(v.as_bytes()).into_owned(),
                )
            })
            .collect();
        let mut body = Vec::new();
        let mut truncated = false;
        let mut stream = response.bytes_stream();
        while let Some(chunk) = stream.next().await {
            let chunk = chunk.map_err(|e| {
                AppError::new(
                    ErrorCode::Upstream,
                    format!(
                        "the answer of {} broke off: {e}",
                        url.origin().ascii_serialization()
                    ),
                )
            })?;
            let room = MAX_RESPONSE_BYTES.saturating_sub(body.len());
            if chunk.len() > room {
                body.extend_from_slice(&chunk[..room]);
                truncated = true;
                break;
            }
            body.extend_from_slice(&chunk);
        }
        Ok::<_, AppError>(Answer {
            status,
            content_type,
            headers,
            body,
            truncated,
            note,
            final_url: url,
        })
    };
    let answer = tokio::select! {
        () = cancel.cancelled() => return Err(crate::llm::http::cancelled()),
        done = tokio::time::timeout(timeout, work) => done.map_err(|_| {
            AppError::new(
                ErrorCode::Upstream,
                format!(
                    "{} did not answer within {} s",
                    built.url.origin().ascii_serialization(),
                    timeout.as_secs()
                ),
            )
            .with_details(serde_json::json!({ "reason": "timeout" }))
        })?,
    };
    // An error can quote what was sent or received: no secret in it.
    answer.map_err(|e| AppError {
        message: secrets.redact(&e.message),
        ..e
    })
}

fn is_json(content_type: Option<&str>) -> bool {
    content_type.is_some_and(|c| {
        let c = c.to_ascii_lowercase();
        c.contains("/json") || c.contains("+json")
    })
}

/// The body as a person or model reads it: JSON pretty-printed, text as
/// it is, anything else described. Secrets redacted.
pub(crate) fn body_text(answer: &Answer, secrets: &Secrets) -> String {
    let text = match std::str::from_utf8(&answer.body) {
        Ok(text) => text.to_owned(),
        Err(_) if answer.truncated => String::from_utf8_lossy(&answer.body).into_owned(),
        Err(_) => {
            return format!(
                "[{} bytes of {}: not text]",
                answer.body.len(),
                answer.content_type.as_deref().unwrap_or("data")
            );
        }
    };
    let pretty = (!answer.truncated
        && (is_json(answer.content_type.as_deref()) || text.trim_start().starts_with(['{', '['])))
    .then(|| serde_json::from_str::<Value>(&text).ok())
    .flatten()
    .and_then(|v| serde_json::to_string_pretty(&v).ok());
    if answer.truncated {
        secrets.redact_cut(&text)
    } else {
        secrets.redact(&pretty.unwrap_or(text))
    }
}

/// What the model reads: the request line (no header), the status, the
/// content type, notes, and the body. A 4xx/5xx answer is an error result.
pub(crate) fn for_model(built: &Built, answer: &Answer, secrets: &Secrets) -> Result<String> {
    let mut out = format!(
        "{} {}\nStatus: {} {}\n",
        built.method.as_str(),
        secrets.redact(answer.final_url.as_str()),
        answer.status.as_u16(),
        answer.status.canonical_reason().unwrap_or("")
    );
    if let Some(ct) = &answer.content_type {
        out.push_str(&format!("Content-Type: {}\n", secrets.redact(ct)));
    }
    if let Some(note) = &answer.note {
        out.push_str(&format!("Note: {}\n", secrets.redact(note)));
    }
    if answer.truncated {
        out.push_str(&format!(
            "Note: only the first {} KiB of the response were read\n",
            MAX_RESPONSE_BYTES / 1024
        ));
    }
    out.push('\n');
    out.push_str(&body_text(answer, secrets));
    if answer.status.is_client_error() || answer.status.is_server_error() {
        return Err(AppError::new(ErrorCode::Upstream, out));
    }
    Ok(out)
}

/// What the Test button shows.
pub(crate) fn for_test(
    built: &Built,
    answer: &Answer,
    secrets: &Secrets,
    secret_names: &[String],
    started: Instant,
) -> EndpointTestResult {
    EndpointTestResult {
        ok: answer.status.is_success(),
        status: answer.status.as_u16(),
        content_type: answer.content_type.as_deref().map(|c| secrets.redact(c)),
        headers: answer
            .headers
            .iter()
            .map(|(name, value)| EndpointPair {
                name: name.clone(),
                value: secrets.redact(value),
            })
            .collect(),
        body: body_text(answer, secrets),
        truncated: answer.truncated,
        note: answer.note.as_deref().map(|n| secrets.redact(n)),
        duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
        request: shown(built, secret_names),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn h28_echoed_secrets_are_redacted_even_cut_or_escaped() {
        let secrets = Secrets {
            headers: vec![(
                "Authorization".into(),
                Zeroizing::new("Bearer sk-live/abcdef123".into()),
            )],
        };
        let echoed = r#"{"auth":"Bearer sk-live\/abcdef123","token":"sk-live/abcdef123"}"#;
        let out = secrets.redact(echoed);
        assert!(!out.contains("abcdef"), "{out}");
        let cut = secrets.redact_cut("... token sk-live/abc");
        assert_eq!(secrets.redact("... sk-live/abc"), "... sk-live/abc");
        assert!(cut.ends_with(REDACTED), "{cut}");
        assert_eq!(secrets.redact("nothing here"), "nothing here");
        // Echoed URL-encoded (a server that puts it in a link).
        let linked = secrets.redact("next: /page?token=sk-live%2Fabcdef123");
        assert!(!linked.contains("abcdef"), "{linked}");
    }

    #[test]
    fn h28_basic_credentials_are_redacted_decoded_too() {
        use base64::Engine as _;
        let token = base64::engine::general_purpose::STANDARD.encode("ana:pa55-word");
        let secrets = Secrets {
            headers: vec![(
                "Authorization".into(),
                Zeroizing::new(format!("Basic {token}")),
            )],
        };
        let out = secrets.redact(&format!("you are ana:pa55-word ({token}); pass pa55-word"));
        assert!(!out.contains("pa55"), "{out}");
        assert!(!out.contains(&token), "{out}");
    }
}
