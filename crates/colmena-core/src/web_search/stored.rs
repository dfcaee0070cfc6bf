//! The configuration as it is kept: one `meta` row holding JSON, with the
//! API key sealed by the vault (never in clear on disk) and its masked form.
//!
//! Why a `meta` row and not a table: there is one configuration per
//! workspace, read whole and written whole; a row of its own needs no
//! migration and is covered by backups like every other fact of the store.

use chrono::{DateTime, Utc};
use rusqlite::Connection;
use serde::{Deserialize, Serialize};
use zeroize::Zeroizing;

use super::WebSearchBackend;
use crate::error::{AppError, Result};
use crate::secrets::Vault;
use crate::store::meta;

pub(super) const META_KEY: &str = "web_search";

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Stored {
    pub backend: WebSearchBackend,
    pub base_url: String,
    /// The vault's envelope, base64.
    #[serde(default)]
    pub key_cipher: Option<String>,
    #[serde(default)]
    pub key_mask: Option<String>,
    pub updated_at: DateTime<Utc>,
}

/// The vault context that binds a sealed key to its backend: a Brave key's
/// envelope copied under Tavily does not open.
pub(super) fn key_context(backend: WebSearchBackend) -> String {
    format!("web_search:{}:api_key", backend.as_str())
}

pub(super) fn read(conn: &Connection) -> Result<Option<Stored>> {
    meta::get(conn, META_KEY)?
        .map(|text| {
            serde_json::from_str(&text).map_err(|e| {
                AppError::internal(format!(
                    "the stored web search settings are unreadable: {e}"
                ))
            })
        })
        .transpose()
}

pub(super) fn write(conn: &Connection, stored: &Stored) -> Result<()> {
    meta::set(conn, META_KEY, &serde_json::to_string(stored)?)
}

pub(super) fn remove(conn: &Connection) -> Result<bool> {
    Ok(conn.execute("DELETE FROM meta WHERE key = ?1", [META_KEY])? > 0)
}

/// Seals `key` for `backend`: the envelope (base64) and the masked form.
pub(super) fn seal(
    vault: &Vault,
    backend: WebSearchBackend,
    key: &str,
) -> Result<(String, String)> {
    use base64::Engine as _;
    let envelope = vault
        .seal(&key_context(backend), key.as_bytes())
        .map_err(|e| {
            AppError::precondition(format!("the API key cannot be stored: {}", e.message))
                .with_details(serde_json::json!({ "field": "apiKey", "reason": "secrets_locked" }))
        })?;
    Ok((
        base64::engine::general_purpose::STANDARD.encode(envelope),
        crate::secrets::mask_secret(key),
    ))
}

/// The stored key in clear, for the request only.
pub(super) fn open_key(vault: &Vault, stored: &Stored) -> Result<Option<Zeroizing<String>>> {
    use base64::Engine as _;
    let Some(cipher) = &stored.key_cipher else {
        return Ok(None);
    };
    let envelope = base64::engine::general_purpose::STANDARD
        .decode(cipher)
        .map_err(|_| AppError::internal("the stored web search key is damaged"))?;
    let clear = vault
        .open_envelope(&key_context(stored.backend), &envelope)
        .map_err(|e| {
            AppError::precondition(format!(
                "the web search API key cannot be read: {}",
                e.message
            ))
            .with_details(serde_json::json!({ "reason": "secrets_locked" }))
        })?;
    let text = String::from_utf8(clear.to_vec())
        .map_err(|_| AppError::internal("the stored web search key is not text"))?;
    Ok(Some(Zeroizing::new(text)))
}
