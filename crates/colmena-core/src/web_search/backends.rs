//! The wire formats of the three search services, as their documentation
//! gives them:
//! - SearXNG: `GET {base}/search?q=…&format=json` → `results[].title/url/content`
//!   (the JSON format must be listed in the instance's `search.formats`, or
//!   it answers 403);
//! - Brave Search: `GET {base}/res/v1/web/search?q=…&count=N` with
//!   `X-Subscription-Token` → `web.results[].title/url/description`
//!   (descriptions carry `<strong>` highlights);
//! - Tavily: `POST {base}/search` with `Authorization: Bearer …` and the JSON
//!   `{query, max_results}` → `results[].title/url/content`.
//!
//! Every request goes through [`NetGuard`] with the local network allowed:
//! the address is the one the user configured (a SearXNG on this computer is
//! the usual case), never one a model wrote. Metadata addresses stay refused.

use std::time::Duration;

use futures_util::StreamExt;
use reqwest::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE, HeaderMap, HeaderValue, LOCATION};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;
use url::Url;
use zeroize::Zeroizing;

use super::{WebSearchBackend, WebSearchResult};
use crate::error::{AppError, ErrorCode, Result};
use crate::net_guard::{NetGuard, Outgoing};

/// Longest answer read from a service.
const MAX_ANSWER_BYTES: usize = 2 * 1024 * 1024;
const TIME_LIMIT: Duration = Duration::from_secs(20);
const MAX_TITLE_CHARS: usize = 300;
const MAX_SNIPPET_CHARS: usize = 600;

/// Where and how to ask: the stored configuration with its key opened.
pub(super) struct Endpoint {
    pub backend: WebSearchBackend,
    pub base_url: String,
    pub api_key: Option<Zeroizing<String>>,
}

/// Asks the service for `query`, at most `limit` results.
pub(super) async fn search(
    guard: &NetGuard,
    endpoint: &Endpoint,
    query: &str,
    limit: u32,
    cancel: &CancellationToken,
) -> Result<Vec<WebSearchResult>> {
    let (url, request) = request(endpoint, query, limit)?;
    let label = endpoint.backend.label();
    let work = async {
        let response = guard.send(&url, &request, TIME_LIMIT).await?;
        let status = response.status();
        let location = response
            .headers()
            .get(LOCATION)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let body = read_limited(response, label).await?;
        Ok::<_, AppError>((status, location, body))
    };
    let (status, location, body) = tokio::select! {
        _ = cancel.cancelled() => return Err(crate::llm::http::cancelled()),
        done = tokio::time::timeout(TIME_LIMIT, work) => done.map_err(|_| {
            AppError::new(
                ErrorCode::Upstream,
                format!("{label} did not answer within {} s", TIME_LIMIT.as_secs()),
            )
            .with_details(json!({ "reason": "timeout" }))
        })??,
    };
    let redact = |text: String| redact_key(text, endpoint.api_key.as_deref());
    if status.is_redirection() {
        return Err(upstream(
            redact(format!(
                "{label} answered with a redirect ({}) to {}; set the base URL to where it points",
                status.as_u16(),
                location.as_deref().unwrap_or("an unnamed place")
            )),
            "redirect",
            status.as_u16(),
        ));
    }
    if !status.is_success() {
        return Err(status_error(endpoint.backend, status, &body, &redact));
    }
    let answer: Value = serde_json::from_slice(&body).map_err(|e| {
        upstream(
            format!("{label} did not answer with JSON ({e}); is the base URL the service's?"),
            "not_json",
            status.as_u16(),
        )
    })?;
    let mut results = parse(endpoint.backend, &answer)?;
    results.truncate(limit as usize);
    Ok(results)
}

/// The URL and request for one query.
pub(super) fn request(endpoint: &Endpoint, query: &str, limit: u32) -> Result<(Url, Outgoing)> {
    let path = match endpoint.backend {
        WebSearchBackend::Searxng => "/search",
        WebSearchBackend::Brave => "/res/v1/web/search",
        WebSearchBackend::Tavily => "/search",
    };
    let mut url = Url::parse(&format!(
        "{}{path}",
        endpoint.base_url.trim_end_matches('/')
    ))
    .map_err(|e| AppError::internal(format!("the stored base URL is not a URL: {e}")))?;
    let mut headers = HeaderMap::new();
    headers.insert(ACCEPT, HeaderValue::from_static("application/json"));
    let mut outgoing = Outgoing::default();
    match endpoint.backend {
        WebSearchBackend::Searxng => {
            url.query_pairs_mut()
                .append_pair("q", query)
                .append_pair("format", "json");
        }
        WebSearchBackend::Brave => {
            url.query_pairs_mut()
                .append_pair("q", query)
                .append_pair("count", &limit.to_string());
            headers.insert("x-subscription-token", secret_header(endpoint, "")?);
        }
        WebSearchBackend::Tavily => {
            headers.insert(AUTHORIZATION, secret_header(endpoint, "Bearer ")?);
            headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
            outgoing.method = reqwest::Method::POST;
            outgoing.body = Some(serde_json::to_vec(
                &json!({ "query": query, "max_results": limit }),
            )?);
        }
    }
    outgoing.headers = headers;
    Ok((url, outgoing))
}

/// The key as a header value (`prefix` + key), marked sensitive so no log
/// or debug output of the request shows it.
fn secret_header(endpoint: &Endpoint, prefix: &str) -> Result<HeaderValue> {
    let key = endpoint.api_key.as_ref().ok_or_else(|| {
        AppError::precondition(format!(
            "{} needs an API key and none is stored: set it in Settings → Web search",
            endpoint.backend.label()
        ))
    })?;
    let text = Zeroizing::new(format!("{prefix}{}", key.as_str()));
    let mut value = HeaderValue::from_str(&text)
        .map_err(|_| AppError::internal("the stored API key cannot be sent in a header"))?;
    value.set_sensitive(true);
    Ok(value)
}

async fn read_limited(response: reqwest::Response, label: &str) -> Result<Vec<u8>> {
    let mut body = Vec::new();
    let mut stream = response.bytes_stream();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|e| {
            AppError::new(
                ErrorCode::Upstream,
                format!("the answer of {label} broke off: {e}"),
            )
        })?;
        if body.len() + chunk.len() > MAX_ANSWER_BYTES {
            return Err(upstream(
                format!(
                    "{label} answered with more than {} MB",
                    MAX_ANSWER_BYTES / 1024 / 1024
                ),
                "too_large",
                200,
            ));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

fn upstream(message: String, reason: &str, status: u16) -> AppError {
    AppError::new(ErrorCode::Upstream, message)
        .with_details(json!({ "reason": reason, "status": status }))
}

/// What a refusal means, in words the person can act on.
fn status_error(
    backend: WebSearchBackend,
    status: reqwest::StatusCode,
    body: &[u8],
    redact: &dyn Fn(String) -> String,
) -> AppError {
    let label = backend.label();
    let code = status.as_u16();
    let said: String = String::from_utf8_lossy(body)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .take(200)
        .collect();
    match (backend, code) {
        (WebSearchBackend::Searxng, 403) => upstream(
            "SearXNG answered 403: its JSON output is switched off; add `json` to `search.formats` \
             in the instance's settings.yml"
                .to_owned(),
            "json_disabled",
            code,
        ),
        (_, 401 | 403) => upstream(
            format!("{label} refused the API key ({code}): check it in Settings → Web search"),
            "auth_failed",
            code,
        ),
        (_, 429) => AppError::rate_limited(
            "rate_limit",
            60,
            format!("{label} says too many searches were made (429); try again later"),
        ),
        _ => upstream(
            redact(format!("{label} answered {code}: {said}")),
            "status",
            code,
        ),
    }
}

/// `text` without the key in it (an error page that echoes a header).
fn redact_key(text: String, key: Option<&String>) -> String {
    match key {
        Some(key) if key.len() >= 4 => text.replace(key.as_str(), "[the API key]"),
        _ => text,
    }
}

/// The results of an answer in the service's own shape.
pub(super) fn parse(backend: WebSearchBackend, answer: &Value) -> Result<Vec<WebSearchResult>> {
    let (list, snippet_key, path) = match backend {
        WebSearchBackend::Searxng => (&answer["results"], "content", "results"),
        WebSearchBackend::Tavily => (&answer["results"], "content", "results"),
        // A query with no web results has no `web` object at all.
        WebSearchBackend::Brave => match answer.get("web") {
            None if answer.get("type").is_some() => return Ok(Vec::new()),
            _ => (&answer["web"]["results"], "description", "web.results"),
        },
    };
    let items = list.as_array().ok_or_else(|| {
        upstream(
            format!(
                "the answer of {} has no `{path}` list; is the base URL the service's?",
                backend.label()
            ),
            "unexpected_answer",
            200,
        )
    })?;
    Ok(items
        .iter()
        .filter_map(|item| {
            let url = item["url"].as_str()?.trim();
            if url.is_empty() {
                return None;
            }
            Some(WebSearchResult {
                title: plain(item["title"].as_str().unwrap_or_default(), MAX_TITLE_CHARS),
                url: url.to_owned(),
                snippet: plain(
                    item[snippet_key].as_str().unwrap_or_default(),
                    MAX_SNIPPET_CHARS,
                ),
            })
        })
        .collect())
}

/// Text without markup (Brave highlights with `<strong>`), on one line, cut.
fn plain(text: &str, max: usize) -> String {
    let text = crate::net_guard::fetch::html_to_text(text);
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if line.chars().count() > max {
        let mut cut: String = line.chars().take(max).collect();
        cut.push('…');
        cut
    } else {
        line
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn endpoint(backend: WebSearchBackend, key: Option<&str>) -> Endpoint {
        Endpoint {
            backend,
            base_url: "https://api.example.com/".into(),
            api_key: key.map(|k| Zeroizing::new(k.to_owned())),
        }
    }

    #[test]
    fn each_backend_builds_its_documented_request() {
        let (url, req) = request(&endpoint(WebSearchBackend::Searxng, None), "a b&c", 3).unwrap();
        assert_eq!(
            url.as_str(),
            "https://api.example.com/search?q=a+b%26c&format=json"
        );
        assert_eq!(req.method, reqwest::Method::GET);

        let (url, req) = request(
            &endpoint(WebSearchBackend::Brave, Some("BSAkey")),
            "bees",
            7,
        )
        .unwrap();
        assert_eq!(
            url.as_str(),
            "https://api.example.com/res/v1/web/search?q=bees&count=7"
        );
        assert_eq!(req.headers["x-subscription-token"], "BSAkey");
        assert!(req.headers["x-subscription-token"].is_sensitive());

        let (url, req) = request(
            &endpoint(WebSearchBackend::Tavily, Some("tvly-k")),
            "bees",
            4,
        )
        .unwrap();
        assert_eq!(url.as_str(), "https://api.example.com/search");
        assert_eq!(req.method, reqwest::Method::POST);
        assert_eq!(req.headers[AUTHORIZATION], "Bearer tvly-k");
        let body: Value = serde_json::from_slice(req.body.as_deref().unwrap()).unwrap();
        assert_eq!(body, json!({ "query": "bees", "max_results": 4 }));
        assert!(
            !format!("{req:?}").contains("tvly-k"),
            "debug hides the key"
        );
    }

    #[test]
    fn answers_become_plain_results() {
        let brave = json!({ "type": "search", "web": { "results": [
            { "title": "Bees &amp; wasps", "url": "https://b.example/", "description": "All <strong>bees</strong> sting?" },
            { "title": "no url" }
        ]}});
        let results = parse(WebSearchBackend::Brave, &brave).unwrap();
        assert_eq!(results.len(), 1);
        assert_eq!(results[0].title, "Bees & wasps");
        assert_eq!(results[0].snippet, "All bees sting?");
        assert!(
            parse(WebSearchBackend::Brave, &json!({ "type": "search" }))
                .unwrap()
                .is_empty()
        );
        let err = parse(WebSearchBackend::Searxng, &json!({ "html": "<p>" })).unwrap_err();
        assert_eq!(err.details.unwrap()["reason"], "unexpected_answer");
    }

    #[test]
    fn a_key_echoed_by_an_error_page_is_redacted() {
        let key = "tvly-secret-123".to_owned();
        let text = redact_key("bad token tvly-secret-123".into(), Some(&key));
        assert_eq!(text, "bad token [the API key]");
    }
}
