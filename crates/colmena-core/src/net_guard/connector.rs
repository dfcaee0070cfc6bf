//! Sends one checked hop — a GET, or the request a caller built (a search
//! service's POST) — to exactly the addresses that were checked.
//!
//! Why a resolver that only knows those addresses instead of reqwest's
//! `resolve_to_addrs`: an override that missed (a name spelled differently
//! by the client) would fall back to the system resolver, unchecked. Here a
//! name other than the checked one fails, so nothing is ever resolved twice.

use std::net::SocketAddr;
use std::time::Duration;

use futures_util::future::BoxFuture;
use serde_json::json;
use url::Url;

use crate::error::{AppError, ErrorCode, Result};

/// One hop of a guarded request.
#[derive(Debug, Clone, Copy)]
pub struct Hop<'a> {
    pub url: &'a Url,
    /// The checked addresses, the only ones that may be connected to.
    pub addrs: &'a [SocketAddr],
    pub timeout: Duration,
    /// What is sent: a plain GET unless the caller built something else.
    pub request: &'a Outgoing,
}

/// The method, headers and body of a request; the default is a plain GET.
#[derive(Clone, Default)]
pub struct Outgoing {
    pub method: reqwest::Method,
    pub headers: reqwest::header::HeaderMap,
    pub body: Option<Vec<u8>>,
}

/// Header names only: their values can be credentials.
impl std::fmt::Debug for Outgoing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Outgoing")
            .field("method", &self.method)
            .field("headers", &self.headers.keys().collect::<Vec<_>>())
            .field("body_bytes", &self.body.as_ref().map(Vec::len))
            .finish()
    }
}

/// Performs a hop's request, without following redirects.
pub trait Connector: Send + Sync {
    fn get<'a>(&'a self, hop: Hop<'a>) -> BoxFuture<'a, Result<reqwest::Response>>;
}

/// reqwest pinned to the hop's addresses, no proxy, no redirects.
pub struct ReqwestConnector;

struct Pinned {
    host: String,
    addrs: Vec<SocketAddr>,
}

fn bare(name: &str) -> String {
    name.trim_start_matches('[')
        .trim_end_matches(']')
        .trim_end_matches('.')
        .to_ascii_lowercase()
}

impl reqwest::dns::Resolve for Pinned {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let answer: std::result::Result<
            reqwest::dns::Addrs,
            Box<dyn std::error::Error + Send + Sync>,
        > = if bare(name.as_str()) == self.host {
            Ok(Box::new(self.addrs.clone().into_iter()))
        } else {
            Err("the name is not the one that was checked".into())
        };
        Box::pin(async move { answer })
    }
}

impl Connector for ReqwestConnector {
    fn get<'a>(&'a self, hop: Hop<'a>) -> BoxFuture<'a, Result<reqwest::Response>> {
        Box::pin(async move {
            let host = bare(hop.url.host_str().unwrap_or_default());
            let client = reqwest::Client::builder()
                .user_agent(concat!(
                    "colmena/",
                    env!("CARGO_PKG_VERSION"),
                    " (web_fetch)"
                ))
                .timeout(hop.timeout)
                .redirect(reqwest::redirect::Policy::none())
                .no_proxy()
                .dns_resolver(Pinned {
                    host,
                    addrs: hop.addrs.to_vec(),
                })
                .build()
                .map_err(|e| AppError::internal(format!("cannot build the HTTP client: {e}")))?;
            let mut request = client
                .request(hop.request.method.clone(), hop.url.clone())
                .headers(hop.request.headers.clone());
            if let Some(body) = &hop.request.body {
                request = request.body(body.clone());
            }
            request.send().await.map_err(|e| {
                let reason = if e.is_timeout() {
                    "timeout"
                } else {
                    "unreachable"
                };
                AppError::new(
                    ErrorCode::Upstream,
                    format!("cannot fetch {}: {}", hop.url, error_chain(&e)),
                )
                .with_details(json!({ "reason": reason }))
            })
        })
    }
}

/// The error and its causes on one line ("error sending request: connection
/// refused").
fn error_chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut out = e.to_string();
    let mut source = e.source();
    while let Some(cause) = source {
        out.push_str(": ");
        out.push_str(&cause.to_string());
        source = cause.source();
    }
    out
}
