//! "Connect a model" in one step (issue 12): a provider and its models from
//! a server found on this machine (`detect`) or from a pasted key, so the
//! first run never sends anyone to Settings.
//!
//! Rules kept here:
//! - a provider that already points at the same kind and base URL is
//!   reused — its missing models are added and a new key replaces its old
//!   one — so connecting twice never makes "LM Studio 2";
//! - otherwise a new provider is made under the given name, numbered when
//!   the name is taken; keys go to the vault through `providers::create` /
//!   `update`, as everywhere else;
//! - at least one model is needed; when adding a model fails, a provider
//!   made by this call is removed again, so a failed connect leaves nothing
//!   half made.
//! - the first model becomes the default if none is set (see `models`).

use serde::{Deserialize, Serialize};

use super::{NewProvider, Provider, ProviderKind, ProviderUpdate, normalize_base_url};
use crate::ctx::Ctx;
use crate::error::{AppError, Result};
use crate::models::{self, Model, ModelFilter, NewModel};

/// Input of [`connect`].
#[derive(Debug, Clone, Default, Serialize, Deserialize, specta::Type)]
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
    let kind = ProviderKind::parse(&input.kind)?;
    let base_url = normalize_base_url(kind, input.base_url.as_deref())?;
    let key = input
        .api_key
        .as_deref()
        .map(str::trim)
        .filter(|k| !k.is_empty())
        .map(str::to_owned);

    let existing = super::list(ctx).await?.into_iter().find(|p| {
        p.kind == kind && p.base_url.trim_end_matches('/') == base_url.trim_end_matches('/')
    });
    let (provider, made_here) = match existing {
        Some(found) => {
            let provider = match key {
                Some(key) => {
                    let update = ProviderUpdate {
                        api_key: Some(key),
                        ..ProviderUpdate::default()
                    };
                    super::update(ctx, &found.id, update).await?
                }
                None => found,
            };
            (provider, false)
        }
        None => {
            let name = free_name(ctx, &input.name).await?;
            let new = NewProvider {
                name,
                kind: kind.as_str().to_owned(),
                base_url: Some(base_url),
                api_key: key,
            };
            (super::create(ctx, new).await?, true)
        }
    };

    match add_models(ctx, &provider, &wanted).await {
        Ok(models) => Ok(Connected {
            provider: super::get(ctx, &provider.id).await?,
            models,
        }),
        Err(error) => {
            if made_here && let Err(undo) = super::delete(ctx, &provider.id).await {
                tracing::warn!("could not remove the provider of a failed connect: {undo}");
            }
            Err(error)
        }
    }
}

async fn add_models(ctx: &Ctx, provider: &Provider, wanted: &[String]) -> Result<Vec<Model>> {
    let filter = ModelFilter {
        provider_id: Some(provider.id.clone()),
        enabled_only: false,
    };
    let have = models::list(ctx, filter).await?;
    let mut out = Vec::new();
    for name in wanted {
        match have.iter().find(|m| &m.name == name) {
            Some(model) => out.push(model.clone()),
            None => {
                let input = NewModel {
                    provider_id: provider.id.clone(),
                    name: name.clone(),
                    label: None,
                };
                out.push(models::create(ctx, input).await?);
            }
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
async fn free_name(ctx: &Ctx, name: &str) -> Result<String> {
    let base = name.trim();
    let taken = super::list(ctx).await?;
    let is_taken = |candidate: &str| {
        let slug = crate::ids::slug_for("name", candidate).ok();
        taken.iter().any(|p| {
            p.name.eq_ignore_ascii_case(candidate) || slug.as_deref() == Some(p.id.as_str())
        })
    };
    if base.is_empty() || !is_taken(base) {
        // An empty name is left for `create` to refuse with its field error.
        return Ok(base.to_owned());
    }
    Ok((2..)
        .map(|n| format!("{base} {n}"))
        .find(|candidate| !is_taken(candidate))
        .unwrap_or_else(|| base.to_owned()))
}
