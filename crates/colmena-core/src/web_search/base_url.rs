//! Where a search service lives, as the user typed it, checked.

use url::Url;

use super::WebSearchBackend;
use crate::error::{AppError, Result};

/// Checks and canonicalises a base URL: http(s), a host, no credentials,
/// query or fragment, no trailing slash; a key never travels unencrypted
/// to another computer. Empty means the backend's public API.
pub(super) fn normalize_base_url(backend: WebSearchBackend, raw: Option<&str>) -> Result<String> {
    let raw = raw.map(str::trim).unwrap_or_default();
    let invalid = |why: &str| {
        AppError::invalid_field(
            "baseUrl",
            "invalid_url",
            format!("'{raw}' is not a usable base URL: {why}"),
        )
    };
    if raw.is_empty() {
        return backend
            .default_base_url()
            .map(str::to_owned)
            .ok_or_else(|| {
                AppError::invalid_field(
                    "baseUrl",
                    "required",
                    "SearXNG needs the address of your instance, e.g. http://localhost:8080",
                )
            });
    }
    let url = Url::parse(raw).map_err(|e| invalid(&e.to_string()))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(invalid("it must start with http:// or https://"));
    }
    let Some(host) = url.host_str().filter(|h| !h.is_empty()) else {
        return Err(invalid("it has no host"));
    };
    if !url.username().is_empty() || url.password().is_some() {
        return Err(invalid("credentials belong in the API key, not in the URL"));
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(invalid("it must not have a query or a fragment"));
    }
    let local = host == "localhost"
        || host
            .trim_matches(['[', ']'])
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback());
    if backend.needs_api_key() && url.scheme() == "http" && !local {
        return Err(invalid(
            "the API key would travel unencrypted: use https:// (http:// only on this computer)",
        ));
    }
    Ok(url.as_str().trim_end_matches('/').to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_urls_are_checked_and_defaulted() {
        assert_eq!(
            normalize_base_url(WebSearchBackend::Brave, None).unwrap(),
            "https://api.search.brave.com"
        );
        let err = normalize_base_url(WebSearchBackend::Searxng, Some(" ")).unwrap_err();
        assert_eq!(err.field(), Some("baseUrl"));
        assert_eq!(
            normalize_base_url(WebSearchBackend::Searxng, Some("http://10.0.0.5:8888/")).unwrap(),
            "http://10.0.0.5:8888"
        );
        assert!(
            normalize_base_url(WebSearchBackend::Tavily, Some("http://search.example.com"))
                .is_err(),
            "a key never goes out over plain http"
        );
        assert!(normalize_base_url(WebSearchBackend::Tavily, Some("http://127.0.0.1:9")).is_ok());
        assert!(normalize_base_url(WebSearchBackend::Brave, Some("ftp://x")).is_err());
        assert!(normalize_base_url(WebSearchBackend::Brave, Some("https://u:p@x")).is_err());
    }
}
