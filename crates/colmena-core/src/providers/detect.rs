//! Model servers already running on this machine (issue 12, the first run's
//! "connect a model"): Ollama on 11434 (`GET /api/tags`), LM Studio on 1234
//! and llama.cpp's server on 8080 (`GET /v1/models`, OpenAI-compatible).
//!
//! This is the app's own look at loopback, made when the person opens the
//! "connect a model" step — not an agent tool, and it never leaves
//! 127.0.0.1. Every port is asked at once with short timeouts, so a port
//! nobody listens on costs nothing and a server that hangs costs at most
//! [`PROBE_TIMEOUT`]. What answers with a well-formed model list is
//! reported; anything else on those ports (another web app on 8080) is not.
//! The ports are a parameter ([`detect_on`]) so tests probe their own.
//!
//! Whatever listens on those ports is not trusted: a redirect is never
//! followed (it could point the probe anywhere), a reply is read only up
//! to [`MAX_REPLY_BYTES`] (one that declares more is refused unread), and
//! at most [`MAX_MODELS`] names of at most [`MAX_MODEL_NAME_CHARS`] are
//! kept, each once, in the order listed.

use std::time::Duration;

use futures_util::StreamExt;
use futures_util::future::join_all;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{ProviderKind, normalize_base_url};
use crate::ctx::Ctx;
use crate::error::{AppError, Result};
use crate::ids::ProviderId;

/// How long one port may take to answer, connection included.
pub const PROBE_TIMEOUT: Duration = Duration::from_millis(1500);
const CONNECT_TIMEOUT: Duration = Duration::from_millis(400);
/// The largest model listing read from a port.
pub const MAX_REPLY_BYTES: usize = 1024 * 1024;
/// The most model names kept from one listing.
pub const MAX_MODELS: usize = 200;
/// A longer name is not a model name (and is skipped).
pub const MAX_MODEL_NAME_CHARS: usize = 200;

/// Which local server answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum LocalServerKind {
    Ollama,
    LmStudio,
    LlamaCpp,
}

impl LocalServerKind {
    /// The name a person knows it by (also the provider's name when connected).
    pub fn display_name(self) -> &'static str {
        match self {
            LocalServerKind::Ollama => "Ollama",
            LocalServerKind::LmStudio => "LM Studio",
            LocalServerKind::LlamaCpp => "llama.cpp server",
        }
    }

    /// The wire protocol Colmena speaks to it.
    pub fn provider_kind(self) -> ProviderKind {
        match self {
            LocalServerKind::Ollama => ProviderKind::Ollama,
            LocalServerKind::LmStudio | LocalServerKind::LlamaCpp => ProviderKind::OpenaiCompatible,
        }
    }
}

/// One port to ask.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Probe {
    pub kind: LocalServerKind,
    pub port: u16,
}

/// Where each server listens unless told otherwise.
pub const USUAL_PORTS: [Probe; 3] = [
    Probe {
        kind: LocalServerKind::Ollama,
        port: 11434,
    },
    Probe {
        kind: LocalServerKind::LmStudio,
        port: 1234,
    },
    Probe {
        kind: LocalServerKind::LlamaCpp,
        port: 8080,
    },
];

/// A server that answered, with the models it serves.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct LocalServer {
    pub kind: LocalServerKind,
    pub name: String,
    pub provider_kind: ProviderKind,
    /// What a provider for it is configured with.
    pub base_url: String,
    pub models: Vec<String>,
    /// The provider that already points at it, if one does.
    pub provider_id: Option<ProviderId>,
}

/// The usual ports ([`USUAL_PORTS`]).
pub async fn detect_local_servers(ctx: &Ctx) -> Result<Vec<LocalServer>> {
    detect_on(ctx, &USUAL_PORTS).await
}

/// Asks every probe at once; returns those that answered, in probe order,
/// each marked with the provider that already uses its base URL.
pub async fn detect_on(ctx: &Ctx, probes: &[Probe]) -> Result<Vec<LocalServer>> {
    let client = reqwest::Client::builder()
        .no_proxy()
        .redirect(reqwest::redirect::Policy::none())
        .connect_timeout(CONNECT_TIMEOUT)
        .timeout(PROBE_TIMEOUT)
        .build()
        .map_err(|e| AppError::internal(format!("cannot build the probe client: {e}")))?;
    let answers = join_all(probes.iter().map(|probe| ask(&client, *probe))).await;
    let providers = super::list(ctx).await?;
    Ok(answers
        .into_iter()
        .flatten()
        .map(|mut server| {
            server.provider_id = providers
                .iter()
                .find(|p| p.kind == server.provider_kind && same_url(&p.base_url, &server.base_url))
                .map(|p| p.id.clone());
            server
        })
        .collect())
}

fn same_url(a: &str, b: &str) -> bool {
    a.trim_end_matches('/') == b.trim_end_matches('/')
}

async fn ask(client: &reqwest::Client, probe: Probe) -> Option<LocalServer> {
    let origin = format!("http://127.0.0.1:{}", probe.port);
    let kind = probe.kind.provider_kind();
    let (url, base_url) = match kind {
        ProviderKind::Ollama => (format!("{origin}/api/tags"), origin.clone()),
        _ => (format!("{origin}/v1/models"), format!("{origin}/v1")),
    };
    let response = client.get(&url).send().await.ok()?;
    if !response.status().is_success() {
        tracing::debug!("{url} answered {}: not a model server", response.status());
        return None;
    }
    let body: Value = serde_json::from_slice(&read_capped(response, &url).await?).ok()?;
    let models = model_names(kind, &body)?;
    Some(LocalServer {
        kind: probe.kind,
        name: probe.kind.display_name().to_owned(),
        provider_kind: kind,
        base_url: normalize_base_url(kind, Some(&base_url)).ok()?,
        models,
        provider_id: None,
    })
}

/// The reply's body, or `None` when it is (or says it is) over
/// [`MAX_REPLY_BYTES`]: never more than that is read.
async fn read_capped(response: reqwest::Response, url: &str) -> Option<Vec<u8>> {
    if response
        .content_length()
        .is_some_and(|n| n > MAX_REPLY_BYTES as u64)
    {
        tracing::debug!("{url} declared a reply over {MAX_REPLY_BYTES} bytes: not read");
        return None;
    }
    let mut body = Vec::new();
    let mut stream = response.bytes_stream();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.ok()?;
        if body.len() + chunk.len() > MAX_REPLY_BYTES {
            tracing::debug!("{url} sent a reply over {MAX_REPLY_BYTES} bytes: dropped");
            return None;
        }
        body.extend_from_slice(&chunk);
    }
    Some(body)
}

/// The model names in a listing, or `None` when the body is not one
/// (`{"models": [{"name"}]}` for Ollama, `{"data": [{"id"}]}` otherwise).
fn model_names(kind: ProviderKind, body: &Value) -> Option<Vec<String>> {
    let (list, field) = match kind {
        ProviderKind::Ollama => (body.get("models")?.as_array()?, "name"),
        _ => (body.get("data")?.as_array()?, "id"),
    };
    let mut seen = std::collections::HashSet::new();
    let names: Vec<String> = list
        .iter()
        .filter_map(|m| m.get(field)?.as_str())
        .map(str::trim)
        .filter(|n| !n.is_empty() && n.chars().count() <= MAX_MODEL_NAME_CHARS)
        .filter(|n| seen.insert(*n))
        .take(MAX_MODELS)
        .map(str::to_owned)
        .collect();
    Some(names)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn listings_are_read_per_protocol_and_other_bodies_are_not_servers() {
        let ollama = json!({ "models": [{ "name": "llama3.1:8b" }, { "name": "qwen2.5" }] });
        assert_eq!(
            model_names(ProviderKind::Ollama, &ollama),
            Some(vec!["llama3.1:8b".to_owned(), "qwen2.5".to_owned()])
        );
        let openai = json!({ "object": "list", "data": [{ "id": "qwen2.5-7b-instruct" }] });
        assert_eq!(
            model_names(ProviderKind::OpenaiCompatible, &openai),
            Some(vec!["qwen2.5-7b-instruct".to_owned()])
        );
        assert_eq!(model_names(ProviderKind::OpenaiCompatible, &ollama), None);
        assert_eq!(
            model_names(ProviderKind::Ollama, &json!({ "status": "ok" })),
            None
        );
    }

    #[test]
    fn names_are_kept_once_in_order_bounded_in_number_and_length() {
        let repeated =
            json!({ "data": [{ "id": "a" }, { "id": "b" }, { "id": "a" }, { "id": "b" }] });
        assert_eq!(
            model_names(ProviderKind::OpenaiCompatible, &repeated),
            Some(vec!["a".to_owned(), "b".to_owned()])
        );
        let long = "x".repeat(MAX_MODEL_NAME_CHARS + 1);
        let many: Vec<Value> = std::iter::once(json!({ "id": long }))
            .chain((0..MAX_MODELS + 50).map(|i| json!({ "id": format!("m{i}") })))
            .collect();
        let names = model_names(ProviderKind::OpenaiCompatible, &json!({ "data": many })).unwrap();
        assert_eq!(names.len(), MAX_MODELS);
        assert_eq!(names[0], "m0");
        assert!(
            names
                .iter()
                .all(|n| n.chars().count() <= MAX_MODEL_NAME_CHARS)
        );
    }
}
