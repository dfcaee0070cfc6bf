//! LLM providers (SPEC H18, H19, H22): where models are served from and the
//! credential that opens them.
//!
//! Rules kept here:
//! - the API key is sealed by the vault before it is written, and no function
//!   of this module returns it: outward there is only `has_api_key` and the
//!   masked form computed when the key was set (H18);
//! - switching a provider off switches its models off; switching it back on
//!   restores the models that were on before (H19);
//! - a provider whose models are used by agents cannot be deleted: deleting
//!   it would delete those models under the agents (H20); deleting one whose
//!   model is the default clears the default rather than leave it dangling;
//! - moving a provider that has a key to another origin (scheme, host and
//!   port) needs the key again in the same update, as browsers ask for
//!   credentials again on another site: otherwise whoever can edit the base
//!   URL could send the stored key to a server of their choosing.

pub mod check;
pub mod connect;
pub mod detect;

use chrono::{DateTime, Utc};
use rusqlite::{Connection, OptionalExtension, Row, Transaction, params};
use serde::{Deserialize, Serialize};
use serde_json::json;
use url::Url;

pub use crate::llm::ProviderKind;

use crate::ctx::{Change, Ctx};
use crate::error::{AppError, ErrorCode, Result};
use crate::ids::{ProviderId, slug_for};
use crate::models::{AgentRef, agents_using_models};
use crate::secrets::mask_secret;
use crate::validate::{self, FieldErrors};

const MAX_NAME_CHARS: usize = 80;
const MAX_KEY_CHARS: usize = 4096;

/// `details.reason` of an update that moves a keyed provider to another
/// origin without giving its key again.
pub const KEY_REQUIRED_FOR_NEW_ORIGIN: &str = "key_required_for_new_origin";
const KEY_AGAIN: &str = "the new base URL is on another host: give the API key again (or remove \
     it) so that the stored key is never sent to a server it was not meant for";

/// What the UI needs to offer a kind: its default endpoint and whether a key
/// is usually needed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ProviderKindInfo {
    pub kind: ProviderKind,
    pub default_base_url: String,
    pub needs_api_key: bool,
}

/// Every kind Colmena speaks, in the order a picker shows them.
pub fn kinds() -> Vec<ProviderKindInfo> {
    ProviderKind::ALL
        .iter()
        .map(|&kind| ProviderKindInfo {
            kind,
            default_base_url: kind.default_base_url().to_owned(),
            needs_api_key: !matches!(kind, ProviderKind::Ollama | ProviderKind::Local),
        })
        .collect()
}

/// A provider as every adapter sees it. It never holds the key.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Provider {
    pub id: ProviderId,
    pub name: String,
    pub kind: ProviderKind,
    pub base_url: String,
    pub has_api_key: bool,
    /// `sk-…a1b2`, or `None` without a key.
    pub api_key_masked: Option<String>,
    pub enabled: bool,
    pub model_count: u32,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// Input of [`create`]. `kind` is text so that an unknown kind is a
/// validation error naming the field, whatever the adapter.
#[derive(Debug, Clone, Default, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct NewProvider {
    pub name: String,
    pub kind: String,
    /// Empty or absent: the kind's default.
    #[serde(default)]
    pub base_url: Option<String>,
    /// Empty or absent: no key (Ollama needs none).
    #[serde(default)]
    pub api_key: Option<String>,
}

/// Input of [`update`]: absent fields are left as they are.
#[derive(Debug, Clone, Default, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ProviderUpdate {
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub base_url: Option<String>,
    /// A new key replaces the stored one.
    #[serde(default)]
    pub api_key: Option<String>,
    /// Removes the stored key.
    #[serde(default)]
    pub remove_api_key: bool,
}

const SELECT: &str = "SELECT p.id, p.name, p.kind, p.base_url, p.api_key_mask, p.enabled,
        p.created_at, p.updated_at,
        (SELECT count(*) FROM models m WHERE m.provider_id = p.id) AS model_count
    FROM providers p";

fn from_row(row: &Row<'_>) -> rusqlite::Result<Provider> {
    let kind: String = row.get("kind")?;
    let mask: Option<String> = row.get("api_key_mask")?;
    Ok(Provider {
        id: row.get("id")?,
        name: row.get("name")?,
        kind: ProviderKind::parse(&kind).map_err(|e| {
            rusqlite::Error::FromSqlConversionFailure(2, rusqlite::types::Type::Text, Box::new(e))
        })?,
        base_url: row.get("base_url")?,
        has_api_key: mask.is_some(),
        api_key_masked: mask,
        enabled: row.get("enabled")?,
        model_count: row.get("model_count")?,
        created_at: row.get("created_at")?,
        updated_at: row.get("updated_at")?,
    })
}

pub(crate) fn find(conn: &Connection, id: &ProviderId) -> Result<Option<Provider>> {
    Ok(conn
        .query_row(&format!("{SELECT} WHERE p.id = ?1"), [id], from_row)
        .optional()?)
}

pub(crate) fn require(conn: &Connection, id: &ProviderId) -> Result<Provider> {
    find(conn, id)?.ok_or_else(|| AppError::not_found("provider", id.as_str()))
}

/// Every provider, by name.
pub async fn list(ctx: &Ctx) -> Result<Vec<Provider>> {
    ctx.store().read(list_in).await
}

pub(crate) fn list_in(conn: &Connection) -> Result<Vec<Provider>> {
    let mut stmt = conn.prepare(&format!("{SELECT} ORDER BY p.name COLLATE NOCASE"))?;
    let rows = stmt.query_map([], from_row)?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

pub async fn get(ctx: &Ctx, id: &ProviderId) -> Result<Provider> {
    let id = id.clone();
    ctx.store().read(move |conn| require(conn, &id)).await
}

/// A [`NewProvider`] that passed its checks.
pub(crate) struct CheckedProvider {
    pub name: String,
    pub id: ProviderId,
    pub kind: ProviderKind,
    pub base_url: String,
    pub api_key: Option<String>,
}

/// Checks a new provider's fields, naming every field that is wrong.
pub(crate) fn check_new(input: &NewProvider) -> Result<CheckedProvider> {
    let mut errors = FieldErrors::new();
    let name = errors.check(validate::name("name", &input.name, MAX_NAME_CHARS));
    let id = name
        .as_deref()
        .and_then(|n| errors.check(slug_for("name", n)))
        .map(ProviderId);
    let kind = errors.check(ProviderKind::parse(&input.kind));
    let base_url =
        kind.and_then(|k| errors.check(normalize_base_url(k, input.base_url.as_deref())));
    let api_key = errors
        .check(normalize_key(input.api_key.as_deref()))
        .flatten();
    errors.finish()?;
    let (Some(name), Some(id), Some(kind), Some(base_url)) = (name, id, kind, base_url) else {
        return Err(AppError::internal("validated provider input is incomplete"));
    };
    Ok(CheckedProvider {
        name,
        id,
        kind,
        base_url,
        api_key,
    })
}

/// A key sealed for its provider's row, and its masked form.
pub(crate) type SealedKey = (Vec<u8>, String);

/// Seals `key` for the provider `id` (the vault's envelope is stored in the
/// row itself, so a rolled-back write leaves nothing in the vault).
pub(crate) fn seal_for(ctx: &Ctx, id: &ProviderId, key: &str) -> Result<SealedKey> {
    Ok((seal_key(ctx, id, key)?, mask_secret(key)))
}

/// Adds a provider. Its id is the slug of its name.
pub async fn create(ctx: &Ctx, input: NewProvider) -> Result<Provider> {
    let checked = check_new(&input)?;
    let sealed = match &checked.api_key {
        Some(key) => Some(seal_for(ctx, &checked.id, key)?),
        None => None,
    };
    let provider = ctx
        .store()
        .write(move |tx| insert_in(tx, &checked, sealed))
        .await?;
    ctx.changed(Change::Providers);
    Ok(provider)
}

/// Inserts a checked provider inside the caller's transaction (`create`,
/// `connect`), refusing a name or id already taken.
pub(crate) fn insert_in(
    tx: &Connection,
    checked: &CheckedProvider,
    sealed: Option<SealedKey>,
) -> Result<Provider> {
    let CheckedProvider {
        name,
        id,
        kind,
        base_url,
        ..
    } = checked;
    ensure_name_free(tx, name, None)?;
    if *kind == ProviderKind::Local
        && let Some(local) = list_in(tx)?
            .into_iter()
            .find(|p| p.kind == ProviderKind::Local)
    {
        return Err(AppError::conflicting_field(
            "kind",
            "one_local_provider",
            format!(
                "this workspace already runs models on this computer (the provider '{}'); add models to it with `colmena model pull`",
                local.name
            ),
        ));
    }
    if find(tx, id)?.is_some() {
        return Err(AppError::conflicting_field(
            "name",
            "duplicate_id",
            format!("a provider with the id '{id}' already exists; choose another name"),
        ));
    }
    let now = Utc::now();
    let (cipher, mask) = sealed.unzip();
    tx.execute(
        "INSERT INTO providers (id, name, kind, base_url, api_key_cipher, api_key_mask,
                                enabled, created_at, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, 1, ?7, ?7)",
        params![id, name, kind.as_str(), base_url, cipher, mask, now],
    )?;
    require(tx, id)
}

/// Replaces (`Some`) or removes (`None`) a provider's key inside the
/// caller's transaction.
pub(crate) fn set_key_in(tx: &Connection, id: &ProviderId, key: Option<SealedKey>) -> Result<()> {
    let (cipher, mask) = key.unzip();
    tx.execute(
        "UPDATE providers SET api_key_cipher = ?2, api_key_mask = ?3, updated_at = ?4
         WHERE id = ?1",
        params![id, cipher, mask, Utc::now()],
    )?;
    Ok(())
}

/// Changes a provider's name, base URL or key.
pub async fn update(ctx: &Ctx, id: &ProviderId, input: ProviderUpdate) -> Result<Provider> {
    let current = get(ctx, id).await?;
    let mut errors = FieldErrors::new();
    let name = input
        .name
        .as_deref()
        .and_then(|n| errors.check(validate::name("name", n, MAX_NAME_CHARS)));
    let base_url = input
        .base_url
        .as_deref()
        .and_then(|u| errors.check(normalize_base_url(current.kind, Some(u))));
    let api_key = errors
        .check(normalize_key(input.api_key.as_deref()))
        .flatten();
    if api_key.is_some() && input.remove_api_key {
        errors.add(
            "apiKey",
            "conflicting_change",
            "give a new API key or remove the key, not both",
        );
    }
    let moves_away = base_url
        .as_deref()
        .is_some_and(|new| origin_changes(&current.base_url, new));
    let keeps_key = api_key.is_none() && !input.remove_api_key;
    if moves_away && current.has_api_key && keeps_key {
        errors.add("apiKey", KEY_REQUIRED_FOR_NEW_ORIGIN, KEY_AGAIN);
    }
    errors.finish()?;

    let key_change = match (&api_key, input.remove_api_key) {
        (Some(key), _) => Some(Some(seal_for(ctx, id, key)?)),
        (None, true) => Some(None),
        (None, false) => None,
    };
    let id = id.clone();
    let provider = ctx
        .store()
        .write(move |tx| {
            let stored = require(tx, &id)?;
            // Checked again under the write lock: a concurrent update may
            // have stored a key or moved the provider since it was read.
            let moves_away = base_url
                .as_deref()
                .is_some_and(|new| origin_changes(&stored.base_url, new));
            if moves_away && stored.has_api_key && keeps_key {
                return Err(AppError::invalid_field(
                    "apiKey",
                    KEY_REQUIRED_FOR_NEW_ORIGIN,
                    KEY_AGAIN,
                ));
            }
            let now = Utc::now();
            if let Some(name) = name {
                ensure_name_free(tx, &name, Some(&id))?;
                tx.execute(
                    "UPDATE providers SET name = ?2, updated_at = ?3 WHERE id = ?1",
                    params![id, name, now],
                )?;
            }
            if let Some(base_url) = base_url {
                tx.execute(
                    "UPDATE providers SET base_url = ?2, updated_at = ?3 WHERE id = ?1",
                    params![id, base_url, now],
                )?;
            }
            if let Some(change) = key_change {
                set_key_in(tx, &id, change)?;
            }
            require(tx, &id)
        })
        .await?;
    ctx.changed(Change::Providers);
    Ok(provider)
}

/// Switches a provider on or off, and its models with it (H19).
pub async fn set_enabled(ctx: &Ctx, id: &ProviderId, enabled: bool) -> Result<Provider> {
    switch(ctx, id, Some(enabled)).await
}

/// Flips a provider on or off (H18 toggle), in one transaction.
pub async fn toggle(ctx: &Ctx, id: &ProviderId) -> Result<Provider> {
    switch(ctx, id, None).await
}

/// Switches on (`Some(true)`), off (`Some(false)`) or flips (`None`).
pub async fn switch(ctx: &Ctx, id: &ProviderId, target: Option<bool>) -> Result<Provider> {
    let id = id.clone();
    let provider = ctx
        .store()
        .write(move |tx| {
            let current = require(tx, &id)?;
            let enabled = target.unwrap_or(!current.enabled);
            if current.enabled == enabled {
                return Ok(current);
            }
            let now = Utc::now();
            tx.execute(
                "UPDATE providers SET enabled = ?2, updated_at = ?3 WHERE id = ?1",
                params![id, enabled, now],
            )?;
            if enabled {
                tx.execute(
                    "UPDATE models SET enabled = 1, disabled_by_provider = 0, updated_at = ?2
                     WHERE provider_id = ?1 AND disabled_by_provider = 1",
                    params![id, now],
                )?;
            } else {
                tx.execute(
                    "UPDATE models SET enabled = 0, disabled_by_provider = 1, updated_at = ?2
                     WHERE provider_id = ?1 AND enabled = 1",
                    params![id, now],
                )?;
            }
            require(tx, &id)
        })
        .await?;
    ctx.changed(Change::Providers);
    ctx.changed(Change::Models);
    Ok(provider)
}

/// Deletes a provider and its models, unless agents use one of them.
pub async fn delete(ctx: &Ctx, id: &ProviderId) -> Result<()> {
    let id = id.clone();
    ctx.store()
        .write(move |tx| {
            require(tx, &id)?;
            let blocking = agents_of_provider(tx, &id)?;
            if !blocking.is_empty() {
                let names: Vec<&str> = blocking.iter().map(|a| a.id.as_str()).collect();
                return Err(AppError::new(
                    ErrorCode::Conflict,
                    format!(
                        "provider '{id}' cannot be deleted: its models are used by agents: {}",
                        names.join(", ")
                    ),
                )
                .with_details(json!({ "agents": names })));
            }
            // The default model cannot point at a model deleted with its provider.
            tx.execute(
                "DELETE FROM meta WHERE key = ?2
                   AND value IN (SELECT id FROM models WHERE provider_id = ?1)",
                params![id, crate::models::META_DEFAULT_MODEL],
            )?;
            tx.execute("DELETE FROM providers WHERE id = ?1", [&id])?;
            Ok(())
        })
        .await?;
    ctx.changed(Change::Providers);
    ctx.changed(Change::Models);
    Ok(())
}

fn agents_of_provider(tx: &Transaction<'_>, id: &ProviderId) -> Result<Vec<AgentRef>> {
    let mut stmt = tx.prepare("SELECT id FROM models WHERE provider_id = ?1")?;
    let models = stmt
        .query_map([id], |r| r.get(0))?
        .collect::<rusqlite::Result<Vec<crate::ids::ModelId>>>()?;
    agents_using_models(tx, &models)
}

fn ensure_name_free(conn: &Connection, name: &str, except: Option<&ProviderId>) -> Result<()> {
    let taken: Option<ProviderId> = conn
        .query_row(
            "SELECT id FROM providers WHERE name = ?1 COLLATE NOCASE",
            [name],
            |r| r.get(0),
        )
        .optional()?;
    match taken {
        Some(other) if Some(&other) != except => Err(AppError::conflicting_field(
            "name",
            "duplicate",
            format!("a provider named '{name}' already exists"),
        )),
        _ => Ok(()),
    }
}

fn seal_key(ctx: &Ctx, id: &ProviderId, key: &str) -> Result<Vec<u8>> {
    ctx.vault()
        .seal(&key_context(id), key.as_bytes())
        .map_err(|e| match e.code {
            ErrorCode::Precondition => AppError::new(
                ErrorCode::Precondition,
                format!("the API key cannot be stored: {}", e.message),
            )
            .with_details(json!({ "field": "apiKey", "reason": "secrets_locked" })),
            _ => e,
        })
}

/// How to reach a provider: its URL and its key, decrypted for the call.
/// Only the runtime calls this; nothing returns the result to an adapter.
pub(crate) fn endpoint(
    conn: &Connection,
    vault: &crate::secrets::Vault,
    id: &ProviderId,
) -> Result<crate::llm::Endpoint> {
    let (kind, base_url, cipher): (String, String, Option<Vec<u8>>) = conn
        .query_row(
            "SELECT kind, base_url, api_key_cipher FROM providers WHERE id = ?1",
            [id],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .optional()?
        .ok_or_else(|| AppError::not_found("provider", id.as_str()))?;
    let api_key = match cipher {
        None => None,
        Some(cipher) => {
            let clear = vault
                .open_envelope(&key_context(id), &cipher)
                .map_err(|e| {
                    AppError::precondition(format!(
                        "the API key of provider '{id}' cannot be read: {}",
                        e.message
                    ))
                    .with_details(json!({ "reason": "secrets_locked" }))
                })?;
            let text = String::from_utf8(clear.to_vec()).map_err(|_| {
                AppError::internal(format!("the stored key of provider '{id}' is not text"))
            })?;
            Some(zeroize::Zeroizing::new(text))
        }
    };
    Ok(crate::llm::Endpoint {
        kind: ProviderKind::parse(&kind)?,
        base_url,
        api_key,
        local: None,
    })
}

/// The vault context that binds a provider's key ciphertext to its row.
pub(crate) fn key_context(id: &ProviderId) -> String {
    format!("provider:{id}:api_key")
}

/// Checks and canonicalises a base URL: http(s), a host, no credentials,
/// query or fragment, no trailing slash. Empty means the kind's default.
pub fn normalize_base_url(kind: ProviderKind, raw: Option<&str>) -> Result<String> {
    let raw = raw.map(str::trim).unwrap_or_default();
    if raw.is_empty() || (kind == ProviderKind::Local && raw == crate::llm::LOCAL_BASE_URL) {
        return Ok(kind.default_base_url().to_owned());
    }
    if kind == ProviderKind::Local {
        return Err(AppError::invalid_field(
            "baseUrl",
            "invalid_url",
            "a local provider runs models on this computer: it has no base URL",
        ));
    }
    let invalid = |why: &str| {
        AppError::invalid_field(
            "baseUrl",
            "invalid_url",
            format!("'{raw}' is not a usable base URL: {why}"),
        )
    };
    let url = Url::parse(raw).map_err(|e| invalid(&e.to_string()))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(invalid("it must start with http:// or https://"));
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err(invalid("it has no host"));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(invalid("credentials belong in the API key, not in the URL"));
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(invalid("it must not have a query or a fragment"));
    }
    Ok(url.as_str().trim_end_matches('/').to_owned())
}

/// Whether two base URLs are on different origins (scheme, host, port); a
/// URL that does not parse counts as another origin.
pub fn origin_changes(old: &str, new: &str) -> bool {
    match (Url::parse(old), Url::parse(new)) {
        (Ok(old), Ok(new)) => old.origin() != new.origin(),
        _ => true,
    }
}

/// `None` for an absent or blank key; an error for one that cannot be a key.
pub(crate) fn normalize_key(raw: Option<&str>) -> Result<Option<String>> {
    let Some(key) = raw.map(str::trim).filter(|k| !k.is_empty()) else {
        return Ok(None);
    };
    if key.chars().count() > MAX_KEY_CHARS {
        return Err(AppError::invalid_field(
            "apiKey",
            "too_long",
            format!("an API key must be at most {MAX_KEY_CHARS} characters"),
        ));
    }
    if key.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(AppError::invalid_field(
            "apiKey",
            "invalid_key",
            "an API key must not contain spaces or control characters",
        ));
    }
    Ok(Some(key.to_owned()))
}
