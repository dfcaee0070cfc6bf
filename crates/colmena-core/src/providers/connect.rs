//! "Connect a model" in one step (issue 12): a provider and its models from
//! a server found on this machine (`detect`) or from a pasted key, so the
//! first run never sends anyone to Settings.
//!
//! Rules kept here:
//! - everything happens in one write transaction: finding the provider,
//!   making or updating it and adding its models. Two connects to the same
//!   server (a double click) are serialised by the store's writer, so the
//!   second finds the first's provider and never makes "LM Studio 2"; a
//!   failure anywhere leaves nothing half made, and an existing provider's
//!   key is only replaced when the whole connect succeeds;
//! - a provider that already points at the same kind and base URL is
//!   reused — its missing models are added and a new key replaces its old
//!   one;
//! - otherwise a new provider is made under the given name, numbered when
//!   the name is taken;
//! - keys are sealed by the vault for the provider's row exactly as
//!   `providers::create` / `update` do (the sealed envelope lives in the
//!   row, so a rolled-back connect leaves no key anywhere);
//! - at least one model is needed; the first usable model becomes the
//!   default if none is set (see `models`).

use serde::{Deserialize, Serialize};

use super::{NewProvider, Provider, ProviderKind, normalize_base_url, normalize_key};
use crate::ctx::{Change, Ctx};
use crate::error::{AppError, Result};
use crate::models::{self, Model};
use crate::secrets::mask_secret;

/// Input of [`connect`]. Its `Debug` never shows the key.
#[derive(Clone, Default, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ConnectModel {
    /// The provider's name (`LM Studio`, `OpenAI`).
    pub name: String,
    /// `openai_compatible`, `anthropic` or `ollama`.
    pub kind: String,
    #[serde(default)]
    pub base_url: Option<String>,
    #[serde(default)]
    pub api_key: Option<String>,
    /// The provider-side model names to add; the first is the one to test.
    pub models: Vec<String>,
}

impl std::fmt::Debug for ConnectModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ConnectModel")
            .field("name", &self.name)
            .field("kind", &self.kind)
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_deref().map(mask_secret))
            .field("models", &self.models)
            .finish()
    }
}

/// What [`connect`] made or found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Connected {
    pub provider: Provider,
    /// The requested models, in the order asked (existing ones included).
    pub models: Vec<Model>,
}

pub async fn connect(ctx: &Ctx, input: ConnectModel) -> Result<Connected> {
    let wanted: Vec<String> = dedup(&input.models);
    if wanted.is_empty() {
        return Err(AppError::invalid_field(
            "models",
            "required",
            "choose at least one model to connect",
        ));
    }
    for name in &wanted {
        models::model_name("models", name)?;
    }
    let kind = ProviderKind::parse(&input.kind)?;
    let base_url = normalize_base_url(kind, input.base_url.as_deref())?;
    let key = normalize_key(input.api_key.as_deref())?;
    let name = input.name;
    let ctx2 = ctx.clone();
    let connected = ctx
        .store()
        .write(move |tx| {
            let all = super::list_in(tx)?;
            let existing = all
                .iter()
                .find(|p| p.kind == kind && same_url(&p.base_url, &base_url))
                .cloned();
            let provider = match existing {
                Some(found) => {
                    if let Some(key) = &key {
                        let sealed = super::seal_for(&ctx2, &found.id, key)?;
                        super::set_key_in(tx, &found.id, Some(sealed))?;
                    }
                    found
                }
                None => {
                    let checked = super::check_new(&NewProvider {
                        name: free_name(&all, &name),
                        kind: kind.as_str().to_owned(),
                        base_url: Some(base_url),
                        api_key: key,
                    })?;
                    let sealed = match &checked.api_key {
                        Some(key) => Some(super::seal_for(&ctx2, &checked.id, key)?),
                        None => None,
                    };
                    super::insert_in(tx, &checked, sealed)?
                }
            };
            let models = add_models(tx, &provider, &wanted)?;
            Ok(Connected {
                provider: super::require(tx, &provider.id)?,
                models,
            })
        })
        .await?;
    ctx.changed(Change::Providers);
    ctx.changed(Change::Models);
    Ok(connected)
}

fn same_url(a: &str, b: &str) -> bool {
    a.trim_end_matches('/') == b.trim_end_matches('/')
}

/// The wanted models of `provider`, adding those it does not have yet.
fn add_models(
    tx: &rusqlite::Connection,
    provider: &Provider,
    wanted: &[String],
) -> Result<Vec<Model>> {
    let mut out = Vec::new();
    for name in wanted {
        let id = crate::ids::ModelId::new(&provider.id, name);
        match models::find(tx, &id)? {
            Some(model) => out.push(model),
            None => out.push(models::insert_in(tx, provider, name, None)?),
        }
    }
    Ok(out)
}

fn dedup(names: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for name in names.iter().map(|n| n.trim()).filter(|n| !n.is_empty()) {
        if !out.iter().any(|o| o == name) {
            out.push(name.to_owned());
        }
    }
    out
}

/// `name`, or `name 2`, `name 3`… when a provider already has it (or its id).
fn free_name(taken: &[Provider], name: &str) -> String {
    let base = name.trim();
    let is_taken = |candidate: &str| {
        let slug = crate::ids::slug_for("name", candidate).ok();
        taken.iter().any(|p| {
            p.name.eq_ignore_ascii_case(candidate) || slug.as_deref() == Some(p.id.as_str())
        })
    };
    if base.is_empty() || !is_taken(base) {
        // An empty name is left for `check_new` to refuse with its field error.
        return base.to_owned();
    }
    (2..)
        .map(|n| format!("{base} {n}"))
        .find(|candidate| !is_taken(candidate))
        .unwrap_or_else(|| base.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_never_shows_the_key() {
        let input = ConnectModel {
            name: "OpenAI".into(),
            kind: "openai_compatible".into(),
            api_key: Some("sk-debug-secret-123456789".into()),
            models: vec!["gpt-4o-mini".into()],
            ..ConnectModel::default()
        };
        let shown = format!("{input:?}");
        assert!(!shown.contains("sk-debug-secret-123456789"), "{shown}");
        assert!(shown.contains("sk-…6789"), "{shown}");
    }
}
