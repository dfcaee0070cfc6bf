//! Models (SPEC H19–H21): the LLMs a provider serves, as agents refer to them.
//!
//! A model's id is `{provider_id}/{name}`. Rules kept here:
//! - a model of a disabled provider is disabled and cannot be switched on
//!   until its provider is (H19);
//! - a model used by agents cannot be deleted, and the error names the
//!   agents (H20);
//! - renaming changes the id and re-points every agent in one transaction:
//!   it happens whole or not at all (H21);
//! - the first working model becomes the default: while no default is set,
//!   a model created enabled, or one whose connection test answers
//!   (`providers::check`), is made the default in the same transaction — so
//!   adding a provider never leaves agents on "no model" (issue 12);
//! - whether a model accepts images is the user's setting when they made
//!   one, else a guess from its name ([`vision`]); a model that does not is
//!   never sent an image — the caller gets [`images_refused`], naming it
//!   (issue 14), instead of a silent drop.

use chrono::{DateTime, Utc};
use rusqlite::{Connection, OptionalExtension, Row, params, params_from_iter};
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::ctx::{Change, Ctx};
use crate::error::{AppError, ErrorCode, Result};
use crate::ids::{AgentId, ModelId, ProviderId};
use crate::providers;
use crate::validate::FieldErrors;

pub mod download;
pub mod library;
pub mod local;
pub mod openai_api;
pub mod resolve;
pub mod vision;

const MAX_NAME_CHARS: usize = 200;
const MAX_LABEL_CHARS: usize = 120;

/// A model as every adapter sees it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Model {
    pub id: ModelId,
    pub provider_id: ProviderId,
    /// The name the provider knows it by (`gpt-4o`, `llama3.1:8b`).
    pub name: String,
    /// An optional name for people.
    pub label: Option<String>,
    /// Whether agents may use it. False whenever the provider is disabled.
    pub enabled: bool,
    pub provider_enabled: bool,
    /// Whether images are sent to it: `images_setting` when set, else the
    /// default for its name ([`vision::accepts_images_by_name`]).
    pub accepts_images: bool,
    /// The user's choice: `None` is "by default from the name".
    pub images_setting: Option<bool>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

#[derive(Debug, Clone, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct NewModel {
    pub provider_id: ProviderId,
    pub name: String,
    #[serde(default)]
    pub label: Option<String>,
}

/// Which models [`list`] returns.
#[derive(Debug, Clone, Default, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ModelFilter {
    #[serde(default)]
    pub provider_id: Option<ProviderId>,
    /// Only models an agent may use right now.
    #[serde(default)]
    pub enabled_only: bool,
}

pub(crate) const META_DEFAULT_MODEL: &str = "default_model";

/// The model agents without one of their own use.
pub async fn default_model(ctx: &Ctx) -> Result<Option<ModelId>> {
    ctx.store().read(default_model_in).await
}

pub(crate) fn default_model_in(conn: &Connection) -> Result<Option<ModelId>> {
    Ok(crate::store::meta::get(conn, META_DEFAULT_MODEL)?.map(ModelId))
}

/// Makes `id` the default when none is set and the model can be used right
/// now — it still exists and it and its provider are on; true if it did.
/// Checked here, inside the caller's write transaction, because a
/// connection test adopts its model after a long network call, during which
/// the model may have been switched off or deleted.
pub(crate) fn adopt_if_no_default(conn: &Connection, id: &ModelId) -> Result<bool> {
    if default_model_in(conn)?.is_some() {
        return Ok(false);
    }
    let usable = find(conn, id)?.is_some_and(|m| m.enabled && m.provider_enabled);
    if !usable {
        return Ok(false);
    }
    crate::store::meta::set(conn, META_DEFAULT_MODEL, id.as_str())?;
    Ok(true)
}

/// Sets (or clears) the workspace's default model; it must exist.
pub async fn set_default_model(ctx: &Ctx, id: Option<ModelId>) -> Result<Option<ModelId>> {
    let chosen = ctx
        .store()
        .write(move |tx| {
            match &id {
                Some(id) => {
                    require(tx, id)?;
                    crate::store::meta::set(tx, META_DEFAULT_MODEL, id.as_str())?;
                }
                None => {
                    tx.execute("DELETE FROM meta WHERE key = ?1", [META_DEFAULT_MODEL])?;
                }
            }
            Ok(id)
        })
        .await?;
    ctx.changed(Change::Models);
    Ok(chosen)
}

/// An agent named in an error or a listing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct AgentRef {
    pub id: AgentId,
    pub name: String,
}

const SELECT: &str = "SELECT m.id, m.provider_id, m.name, m.label, m.enabled, m.created_at,
        m.updated_at, m.accepts_images, p.enabled AS provider_enabled, p.kind AS provider_kind
    FROM models m JOIN providers p ON p.id = m.provider_id";

fn from_row(row: &Row<'_>) -> rusqlite::Result<Model> {
    let name: String = row.get("name")?;
    let images_setting: Option<bool> = row.get("accepts_images")?;
    // Colmena's own engine reads no images yet (no mtmd in the binding's
    // build): a local model never accepts them, whatever its name.
    let local = row.get::<_, String>("provider_kind")? == crate::llm::ProviderKind::Local.as_str();
    Ok(Model {
        id: row.get("id")?,
        provider_id: row.get("provider_id")?,
        accepts_images: !local
            && images_setting.unwrap_or_else(|| vision::accepts_images_by_name(&name)),
        images_setting,
        name,
        label: row.get("label")?,
        enabled: row.get("enabled")?,
        provider_enabled: row.get("provider_enabled")?,
        created_at: row.get("created_at")?,
        updated_at: row.get("updated_at")?,
    })
}

pub(crate) fn find(conn: &Connection, id: &ModelId) -> Result<Option<Model>> {
    Ok(conn
        .query_row(&format!("{SELECT} WHERE m.id = ?1"), [id], from_row)
        .optional()?)
}

fn require(conn: &Connection, id: &ModelId) -> Result<Model> {
    find(conn, id)?.ok_or_else(|| AppError::not_found("model", id.as_str()))
}

pub async fn list(ctx: &Ctx, filter: ModelFilter) -> Result<Vec<Model>> {
    ctx.store()
        .read(move |conn| {
            let sql = format!(
                "{SELECT} WHERE (?1 IS NULL OR m.provider_id = ?1) AND (?2 = 0 OR m.enabled = 1)
                 ORDER BY m.provider_id, m.name"
            );
            let mut stmt = conn.prepare(&sql)?;
            let rows =
                stmt.query_map(params![filter.provider_id, filter.enabled_only], from_row)?;
            Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
        })
        .await
}

pub async fn get(ctx: &Ctx, id: &ModelId) -> Result<Model> {
    let id = id.clone();
    ctx.store().read(move |conn| require(conn, &id)).await
}

/// Adds a model to a provider. It starts enabled if its provider is.
pub async fn create(ctx: &Ctx, input: NewModel) -> Result<Model> {
    let mut errors = FieldErrors::new();
    let name = errors.check(model_name("name", &input.name));
    let label = errors.check(label(input.label.as_deref())).flatten();
    errors.finish()?;
    let Some(name) = name else {
        return Err(AppError::internal("validated model input is incomplete"));
    };
    let provider_id = input.provider_id;
    let model = ctx
        .store()
        .write(move |tx| {
            let provider = providers::find(tx, &provider_id)?.ok_or_else(|| {
                AppError::not_found("provider", provider_id.as_str())
                    .with_details(json!({ "field": "providerId", "reason": "unknown_provider" }))
            })?;
            if provider.kind == crate::llm::ProviderKind::Local {
                return Err(local_models_are_files("name"));
            }
            insert_in(tx, &provider, &name, label)
        })
        .await?;
    ctx.changed(Change::Models);
    ctx.changed(Change::Providers);
    Ok(model)
}

/// Adds the model `name` to `provider` inside the caller's transaction
/// (`create`, `providers::connect`): it starts enabled if its provider is,
/// and becomes the default if none is set and it is usable.
pub(crate) fn insert_in(
    tx: &Connection,
    provider: &providers::Provider,
    name: &str,
    label: Option<String>,
) -> Result<Model> {
    let name = model_name("name", name)?;
    let id = ModelId::new(&provider.id, &name);
    if find(tx, &id)?.is_some() {
        return Err(AppError::conflicting_field(
            "name",
            "duplicate",
            format!("the model '{id}' already exists"),
        ));
    }
    let now = Utc::now();
    tx.execute(
        "INSERT INTO models (id, provider_id, name, label, enabled, disabled_by_provider,
                             created_at, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7)",
        params![
            id,
            provider.id,
            name,
            label,
            provider.enabled,
            !provider.enabled,
            now
        ],
    )?;
    adopt_if_no_default(tx, &id)?;
    require(tx, &id)
}

/// Sets or clears a model's label.
pub async fn set_label(ctx: &Ctx, id: &ModelId, label_text: Option<String>) -> Result<Model> {
    let new_label = label(label_text.as_deref())?;
    let id = id.clone();
    let model = ctx
        .store()
        .write(move |tx| {
            require(tx, &id)?;
            tx.execute(
                "UPDATE models SET label = ?2, updated_at = ?3 WHERE id = ?1",
                params![id, new_label, Utc::now()],
            )?;
            require(tx, &id)
        })
        .await?;
    ctx.changed(Change::Models);
    Ok(model)
}

/// Sets whether a model accepts images: `Some(true)` or `Some(false)` as
/// the user says, `None` back to the default for its name.
pub async fn set_images(ctx: &Ctx, id: &ModelId, setting: Option<bool>) -> Result<Model> {
    let id = id.clone();
    let model = ctx
        .store()
        .write(move |tx| {
            let model = require(tx, &id)?;
            if setting == Some(true) && is_local(tx, &model)? {
                return Err(AppError::invalid_field(
                    "acceptsImages",
                    "engine_reads_no_images",
                    format!("'{id}' runs on Colmena's own engine, which does not read images yet: use a model of a provider that does"),
                ));
            }
            tx.execute(
                "UPDATE models SET accepts_images = ?2, updated_at = ?3 WHERE id = ?1",
                params![id, setting, Utc::now()],
            )?;
            require(tx, &id)
        })
        .await?;
    ctx.changed(Change::Models);
    Ok(model)
}

fn is_local(conn: &Connection, model: &Model) -> Result<bool> {
    Ok(providers::find(conn, &model.provider_id)?
        .is_some_and(|p| p.kind == crate::llm::ProviderKind::Local))
}

/// Sets a model's context window in tokens (`None`: the known figure for
/// its name, `llm::context_window`): a woken role's thread is
/// summarised to stay under it (issue 15). Answers the window now in force.
pub async fn set_context_window(ctx: &Ctx, id: &ModelId, tokens: Option<u32>) -> Result<u32> {
    if let Some(t) = tokens
        && !(256..=10_000_000).contains(&t)
    {
        return Err(AppError::invalid_field(
            "contextWindow",
            "out_of_range",
            "a context window is 256 to 10,000,000 tokens",
        ));
    }
    let id = id.clone();
    let window = ctx
        .store()
        .write(move |tx| {
            let model = require(tx, &id)?;
            tx.execute(
                "UPDATE models SET context_window = ?2, updated_at = ?3 WHERE id = ?1",
                params![id, tokens, Utc::now()],
            )?;
            crate::llm::context_window::window_of(tx, id.as_str(), &model.name)
        })
        .await?;
    ctx.changed(Change::Models);
    Ok(window)
}

/// The error of a model that does not accept images being given some:
/// `precondition`, reason `model_without_images`, with the model's id.
pub fn images_refused(model: &ModelId, images: usize) -> AppError {
    let what = if images == 1 {
        "an image".to_owned()
    } else {
        format!("{images} images")
    };
    AppError::precondition(format!(
        "the model '{model}' does not accept images, so {what} cannot be sent to it; \
         if it does, switch \"accepts images\" on for it (Settings → Providers & models, \
         or `colmena model images {model} on`), or use a model that sees images"
    ))
    .with_details(json!({ "reason": "model_without_images", "modelId": model, "images": images }))
}

/// Switches a model on or off. A model of a disabled provider stays off.
pub async fn set_enabled(ctx: &Ctx, id: &ModelId, enabled: bool) -> Result<Model> {
    switch(ctx, id, Some(enabled)).await
}

/// Flips a model on or off (H20 toggle), in one transaction.
pub async fn toggle(ctx: &Ctx, id: &ModelId) -> Result<Model> {
    switch(ctx, id, None).await
}

/// Switches on (`Some(true)`), off (`Some(false)`) or flips (`None`).
pub async fn switch(ctx: &Ctx, id: &ModelId, target: Option<bool>) -> Result<Model> {
    let id = id.clone();
    let model = ctx
        .store()
        .write(move |tx| {
            let current = require(tx, &id)?;
            let enabled = target.unwrap_or(!current.enabled);
            if enabled && !current.provider_enabled {
                return Err(AppError::precondition(format!(
                    "model '{id}' cannot be enabled while its provider '{}' is disabled",
                    current.provider_id
                ))
                .with_details(json!({ "providerId": current.provider_id })));
            }
            tx.execute(
                "UPDATE models SET enabled = ?2, disabled_by_provider = 0, updated_at = ?3
                 WHERE id = ?1",
                params![id, enabled, Utc::now()],
            )?;
            require(tx, &id)
        })
        .await?;
    ctx.changed(Change::Models);
    Ok(model)
}

/// The agents that use a model.
pub async fn agents_using_model(ctx: &Ctx, id: &ModelId) -> Result<Vec<AgentRef>> {
    let id = id.clone();
    ctx.store()
        .read(move |conn| {
            require(conn, &id)?;
            agents_using_models(conn, std::slice::from_ref(&id))
        })
        .await
}

/// Deletes a model no agent uses (H20).
pub async fn delete(ctx: &Ctx, id: &ModelId) -> Result<()> {
    let id = id.clone();
    ctx.store()
        .write(move |tx| {
            require(tx, &id)?;
            let users = agents_using_models(tx, std::slice::from_ref(&id))?;
            if !users.is_empty() {
                let ids: Vec<&str> = users.iter().map(|a| a.id.as_str()).collect();
                return Err(AppError::new(
                    ErrorCode::Conflict,
                    format!(
                        "model '{id}' cannot be deleted: it is used by agents: {}",
                        ids.join(", ")
                    ),
                )
                .with_details(json!({ "agents": ids })));
            }
            tx.execute("DELETE FROM models WHERE id = ?1", [&id])?;
            // The default model cannot point at nothing.
            tx.execute(
                "DELETE FROM meta WHERE key = ?1 AND value = ?2",
                params![META_DEFAULT_MODEL, id],
            )?;
            Ok(())
        })
        .await?;
    ctx.changed(Change::Models);
    ctx.changed(Change::Providers);
    Ok(())
}

/// Renames a model: its id becomes `{provider}/{new_name}` and every agent
/// that used the old id now uses the new one — all in one transaction (H21).
/// A model on this computer is its file in `models/`: it comes and goes
/// with the file (`colmena model pull`, `model rm`), never by name alone.
fn local_models_are_files(field: &str) -> AppError {
    AppError::invalid_field(
        field,
        "local_model_is_a_file",
        "a model on this computer is named after its file: download or add one (colmena model pull), or remove it (colmena model rm)",
    )
}

pub async fn rename(ctx: &Ctx, id: &ModelId, new_name: &str) -> Result<Model> {
    let new_name = model_name("newName", new_name)?;
    let old = id.clone();
    let model = ctx
        .store()
        .write(move |tx| {
            let current = require(tx, &old)?;
            let new_id = ModelId::new(&current.provider_id, &new_name);
            if new_id == old {
                return Ok(current);
            }
            if providers::find(tx, &current.provider_id)?
                .is_some_and(|p| p.kind == crate::llm::ProviderKind::Local)
            {
                return Err(local_models_are_files("newName"));
            }
            if find(tx, &new_id)?.is_some() {
                return Err(AppError::conflicting_field(
                    "newName",
                    "duplicate",
                    format!("the model '{new_id}' already exists"),
                ));
            }
            let now = Utc::now();
            // New row first, so agents always reference an existing model
            // (the foreign key is checked per statement).
            tx.execute(
                "INSERT INTO models (id, provider_id, name, label, enabled, disabled_by_provider,
                                     created_at, updated_at, accepts_images)
                 SELECT ?2, provider_id, ?3, label, enabled, disabled_by_provider, created_at, ?4,
                        accepts_images
                 FROM models WHERE id = ?1",
                params![old, new_id, new_name, now],
            )?;
            tx.execute(
                "UPDATE agents SET model_id = ?2, updated_at = ?3 WHERE model_id = ?1",
                params![old, new_id, now],
            )?;
            tx.execute("DELETE FROM models WHERE id = ?1", [&old])?;
            tx.execute(
                "UPDATE meta SET value = ?3 WHERE key = ?1 AND value = ?2",
                params![META_DEFAULT_MODEL, old, new_id],
            )?;
            require(tx, &new_id)
        })
        .await?;
    ctx.changed(Change::Models);
    ctx.changed(Change::Agents);
    Ok(model)
}

/// The agents using any of `models`, by id.
pub(crate) fn agents_using_models(conn: &Connection, models: &[ModelId]) -> Result<Vec<AgentRef>> {
    if models.is_empty() {
        return Ok(Vec::new());
    }
    let placeholders = vec!["?"; models.len()].join(", ");
    let mut stmt = conn.prepare(&format!(
        "SELECT id, name FROM agents WHERE model_id IN ({placeholders}) ORDER BY id"
    ))?;
    let rows = stmt.query_map(params_from_iter(models.iter()), |r| {
        Ok(AgentRef {
            id: r.get(0)?,
            name: r.get(1)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

/// A provider-side model name: non-empty, no spaces or control characters.
/// `/` and `:` are allowed (`anthropic/claude-3.5-sonnet`, `llama3.1:8b`).
pub(crate) fn model_name(field: &str, raw: &str) -> Result<String> {
    let name = raw.trim();
    if name.is_empty() {
        return Err(AppError::invalid_field(
            field,
            "required",
            "a model name must not be empty",
        ));
    }
    if name.chars().count() > MAX_NAME_CHARS {
        return Err(AppError::invalid_field(
            field,
            "too_long",
            format!("a model name must be at most {MAX_NAME_CHARS} characters"),
        ));
    }
    if name.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(AppError::invalid_field(
            field,
            "invalid_model_name",
            format!("'{name}' is not a model name: it must not contain spaces"),
        ));
    }
    Ok(name.to_owned())
}

fn label(raw: Option<&str>) -> Result<Option<String>> {
    match raw.map(str::trim).filter(|l| !l.is_empty()) {
        None => Ok(None),
        Some(l) => crate::validate::name("label", l, MAX_LABEL_CHARS).map(Some),
    }
}
