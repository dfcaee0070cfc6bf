//! Which model a run or a canvas variant uses, and how to reach it: the
//! model named (or the default), checked usable — it exists, it and its
//! provider are on — with its provider's endpoint and the run's own
//! credentials over the stored ones (SPEC H9). The runtime, canvas
//! generation and the provider check all resolve through here, so "usable"
//! means one thing.

use rusqlite::Connection;
use serde::{Deserialize, Serialize};
use serde_json::json;
use zeroize::Zeroizing;

use crate::ctx::Ctx;
use crate::error::{AppError, Result};
use crate::ids::ModelId;
use crate::llm::Endpoint;
use crate::providers;

/// Credentials for one run, overriding the stored ones (SPEC H9): a tenant's
/// key, or another endpoint.
#[derive(Debug, Clone, Default, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct RunCredentials {
    #[serde(default)]
    pub api_key: Option<String>,
    #[serde(default)]
    pub base_url: Option<String>,
}

/// The model a run (or a canvas variant) uses and how to reach it.
pub(crate) struct ResolvedModel {
    pub endpoint: Endpoint,
    /// The provider's id, as rounds record it.
    pub provider: String,
    pub model: String,
    /// `{provider}/{name}`, as errors name it.
    pub id: ModelId,
    /// Whether images may be sent to it (see `models::Model`).
    pub accepts_images: bool,
}

impl ResolvedModel {
    /// A provider's refusal (a key refused, rate limiting, an error) names
    /// the provider and the model, so the window can open that provider's
    /// key field or that model's settings: the remedy needs to know which.
    pub(crate) fn name_in(&self, mut error: AppError) -> AppError {
        if let Some(serde_json::Value::Object(details)) = error.details.as_mut() {
            details
                .entry("providerId")
                .or_insert_with(|| json!(self.provider));
            details.entry("modelId").or_insert_with(|| json!(self.id));
        }
        error
    }

    /// Refuses `images` images for a model that does not accept them,
    /// before anything is sent (`models::images_refused`).
    pub(crate) fn check_images(&self, images: usize) -> Result<()> {
        if images > 0 && !self.accepts_images {
            return Err(super::images_refused(&self.id, images));
        }
        Ok(())
    }
}

/// The workspace's local models and their engine (made on first use).
pub(crate) fn local_models(ctx: &Ctx) -> crate::llm::local::LocalModels {
    ctx.slot::<crate::llm::local::LocalSlot>()
        .get(ctx.data_dir())
}

/// The agent `agent_id`'s model `model` (or the default), checked usable,
/// with its endpoint.
pub(crate) fn resolve_agent_model(
    conn: &Connection,
    ctx: &Ctx,
    agent_id: &str,
    model: Option<&ModelId>,
    credentials: Option<&RunCredentials>,
) -> Result<ResolvedModel> {
    resolve_model_for(
        conn,
        ctx,
        model,
        &format!("agent '{agent_id}'"),
        json!({ "agentId": agent_id }),
        credentials,
    )
}

/// `model` (or the default model), checked usable, with its endpoint and
/// `credentials` applied over the provider's. `whose` names who wanted it
/// in errors ("agent 'x'", "this variant"); `details` are added to them.
pub(crate) fn resolve_model_for(
    conn: &Connection,
    ctx: &Ctx,
    model: Option<&ModelId>,
    whose: &str,
    details: serde_json::Value,
    credentials: Option<&RunCredentials>,
) -> Result<ResolvedModel> {
    let with = |reason: &str| {
        let mut d = details.clone();
        d["reason"] = json!(reason);
        d
    };
    let id: ModelId = match model {
        Some(id) => id.clone(),
        // Models may exist, but none is the default: the remedy is to
        // choose one (`no_default`), not to connect another.
        None => super::default_model_in(conn)?.ok_or_else(|| {
            AppError::precondition(format!(
                "{whose} has no model and no default model is set: choose one in Settings → Providers & models"
            ))
            .with_details(with("no_default"))
        })?,
    };
    let model = super::find(conn, &id)?.ok_or_else(|| {
        let mut details = with("no_model");
        details["modelId"] = json!(id);
        AppError::precondition(format!("the model '{id}' of {whose} no longer exists"))
            .with_details(details)
    })?;
    if !model.provider_enabled {
        return Err(AppError::precondition(format!(
            "provider '{}' is disabled",
            model.provider_id
        ))
        .with_details(json!({
            "reason": "provider_disabled",
            "providerId": model.provider_id,
            "modelId": id,
        })));
    }
    if !model.enabled {
        return Err(
            AppError::precondition(format!("model '{id}' is disabled")).with_details(json!({
                "reason": "model_disabled",
                "providerId": model.provider_id,
                "modelId": id,
            })),
        );
    }
    let mut endpoint = providers::endpoint(conn, ctx.vault(), &model.provider_id)?;
    if endpoint.kind == crate::llm::ProviderKind::Local {
        let context: Option<u32> = conn.query_row(
            "SELECT context_window FROM models WHERE id = ?1",
            [&model.id],
            |r| r.get(0),
        )?;
        endpoint.local = Some(local_models(ctx).with_context(context));
    }
    if let Some(credentials) = credentials {
        if let Some(key) = credentials
            .api_key
            .as_deref()
            .filter(|k| !k.trim().is_empty())
        {
            endpoint.api_key = Some(Zeroizing::new(key.trim().to_owned()));
        }
        if let Some(url) = credentials
            .base_url
            .as_deref()
            .filter(|u| !u.trim().is_empty())
        {
            endpoint.base_url = providers::normalize_base_url(endpoint.kind, Some(url))?;
        }
    }
    Ok(ResolvedModel {
        endpoint,
        provider: model.provider_id.to_string(),
        model: model.name,
        id: model.id,
        accepts_images: model.accepts_images,
    })
}
