//! Variants and their rounds (SPEC C3, C4): a variant is a generation slot
//! — preset, prompt, style, type tag, its own model and key if it has them —
//! with a status (`idle → queued → streaming → done | error`) and the index
//! of the round shown. Rounds are append-only (a trigger refuses updates):
//! selecting an older one only moves the index.

use chrono::{DateTime, Utc};
use rusqlite::{Connection, OptionalExtension, params};
use serde::{Deserialize, Serialize};

use super::presets::{self, USER_SAVED};
use super::{Caller, activity, require, touch};
use crate::ctx::{Change, Ctx};
use crate::error::{AppError, Result};
use crate::ids::ModelId;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum VariantStatus {
    Idle,
    Queued,
    Streaming,
    Done,
    Error,
}

impl VariantStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            VariantStatus::Idle => "idle",
            VariantStatus::Queued => "queued",
            VariantStatus::Streaming => "streaming",
            VariantStatus::Done => "done",
            VariantStatus::Error => "error",
        }
    }

    fn parse(text: &str) -> VariantStatus {
        match text {
            "queued" => VariantStatus::Queued,
            "streaming" => VariantStatus::Streaming,
            "done" => VariantStatus::Done,
            "error" => VariantStatus::Error,
            _ => VariantStatus::Idle,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Variant {
    pub id: String,
    pub canvas_id: String,
    pub preset_id: String,
    pub user_preset_id: Option<String>,
    pub prompt: String,
    pub style: String,
    pub type_tag: String,
    pub status: VariantStatus,
    pub error_message: Option<String>,
    /// 0-based; -1 while there is no round.
    pub active_round: i32,
    pub round_count: u32,
    /// The active round's text, for showing the variant at a glance.
    pub active_output: Option<String>,
    pub model_id: Option<String>,
    /// Whether it has its own API key (never the key itself).
    pub has_api_key: bool,
    pub api_key_masked: Option<String>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Round {
    pub id: String,
    pub variant_id: String,
    pub index: u32,
    pub output: String,
    pub prompt_snapshot: String,
    pub style_snapshot: String,
    pub provider: String,
    pub model: String,
    pub prompt_tokens: u32,
    pub completion_tokens: u32,
    pub latency_ms: u32,
    /// Who asked for it (`ui`, `cli`, `claude-code`, …).
    pub client: String,
    pub generated_at: DateTime<Utc>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct NewVariant {
    /// A built-in preset slug, or `user-saved` with `userPresetId`.
    pub preset_id: String,
    #[serde(default)]
    pub user_preset_id: Option<String>,
    /// Default: the user preset's, else empty (the built-in instructions
    /// alone); `custom` needs one.
    #[serde(default)]
    pub prompt: Option<String>,
    #[serde(default)]
    pub style: Option<String>,
    #[serde(default)]
    pub type_tag: Option<String>,
    #[serde(default)]
    pub model_id: Option<String>,
    /// Its own API key for the model's provider (kept encrypted).
    #[serde(default)]
    pub api_key: Option<String>,
}

/// Fields to change; absent ones stay. An empty `modelId` or `apiKey`
/// clears it.
#[derive(Debug, Clone, Default, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct VariantUpdate {
    #[serde(default)]
    pub preset_id: Option<String>,
    #[serde(default)]
    pub prompt: Option<String>,
    #[serde(default)]
    pub style: Option<String>,
    #[serde(default)]
    pub type_tag: Option<String>,
    #[serde(default)]
    pub model_id: Option<String>,
    #[serde(default)]
    pub api_key: Option<String>,
}

const MAX_PROMPT: usize = 20_000;

const COLUMNS: &str = "v.id, v.canvas_id, v.preset_id, v.user_preset_id, v.prompt, v.style, v.type_tag,
     v.status, v.error_message, v.active_round, v.model_id, v.api_key_mask, v.created_at, v.updated_at,
     (SELECT count(*) FROM variant_rounds r WHERE r.variant_id = v.id),
     (SELECT r.output FROM variant_rounds r WHERE r.variant_id = v.id AND r.round_index = v.active_round)";

fn from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Variant> {
    let mask: Option<String> = r.get(11)?;
    Ok(Variant {
        id: r.get(0)?,
        canvas_id: r.get(1)?,
        preset_id: r.get(2)?,
        user_preset_id: r.get(3)?,
        prompt: r.get(4)?,
        style: r.get(5)?,
        type_tag: r.get(6)?,
        status: VariantStatus::parse(&r.get::<_, String>(7)?),
        error_message: r.get(8)?,
        active_round: r.get(9)?,
        model_id: r.get(10)?,
        has_api_key: mask.is_some(),
        api_key_masked: mask,
        created_at: r.get(12)?,
        updated_at: r.get(13)?,
        round_count: r.get(14)?,
        active_output: r.get(15)?,
    })
}

const ROUND_COLUMNS: &str =
    "id, variant_id, round_index, output, prompt_snapshot, style_snapshot, provider,
     model, prompt_tokens, completion_tokens, latency_ms, client, generated_at";

fn round_from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Round> {
    Ok(Round {
        id: r.get(0)?,
        variant_id: r.get(1)?,
        index: r.get(2)?,
        output: r.get(3)?,
        prompt_snapshot: r.get(4)?,
        style_snapshot: r.get(5)?,
        provider: r.get(6)?,
        model: r.get(7)?,
        prompt_tokens: r.get(8)?,
        completion_tokens: r.get(9)?,
        latency_ms: r.get(10)?,
        client: r.get(11)?,
        generated_at: r.get(12)?,
    })
}

pub(crate) fn list_in(conn: &Connection, canvas: &str) -> Result<Vec<Variant>> {
    let mut stmt = conn.prepare(&format!(
        "SELECT {COLUMNS} FROM canvas_variants v WHERE v.canvas_id = ?1 ORDER BY v.position"
    ))?;
    let rows = stmt.query_map([canvas], from_row)?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

/// The variant if its canvas is `user`'s.
pub(crate) fn require_variant(conn: &Connection, user: &str, id: &str) -> Result<Variant> {
    conn.query_row(
        &format!(
            "SELECT {COLUMNS} FROM canvas_variants v JOIN canvases c ON c.id = v.canvas_id
             WHERE v.id = ?1 AND c.user_id = ?2"
        ),
        params![id, user],
        from_row,
    )
    .optional()?
    .ok_or_else(|| AppError::not_found("variant", id))
}

pub(crate) fn rounds_in(conn: &Connection, variant: &str) -> Result<Vec<Round>> {
    let mut stmt = conn.prepare(&format!(
        "SELECT {ROUND_COLUMNS} FROM variant_rounds WHERE variant_id = ?1 ORDER BY round_index"
    ))?;
    let rows = stmt.query_map([variant], round_from_row)?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

fn check_text(field: &str, value: &str) -> Result<()> {
    if value.len() > MAX_PROMPT {
        return Err(AppError::invalid_field(
            field,
            "too_long",
            format!("{field} must be under {MAX_PROMPT} bytes"),
        ));
    }
    Ok(())
}

fn check_preset(preset: &str) -> Result<()> {
    if preset == USER_SAVED || presets::builtin(preset).is_some() {
        return Ok(());
    }
    let known: Vec<&str> = presets::BUILTIN.iter().map(|p| p.id).collect();
    Err(AppError::invalid_field(
        "presetId",
        "unknown_preset",
        format!(
            "unknown preset '{preset}': one of {}, or user-saved",
            known.join(", ")
        ),
    ))
}

fn check_model(conn: &Connection, model: Option<&str>) -> Result<Option<String>> {
    let Some(model) = model.map(str::trim).filter(|m| !m.is_empty()) else {
        return Ok(None);
    };
    if crate::models::find(conn, &ModelId::from(model))?.is_none() {
        return Err(AppError::invalid_field(
            "modelId",
            "unknown_model",
            format!("unknown model: {model}"),
        ));
    }
    Ok(Some(model.to_owned()))
}

pub(crate) fn key_context(variant: &str) -> String {
    format!("variant:{variant}:api_key")
}

/// Seals a variant's own key: the cipher and the mask to store.
fn seal_key(ctx: &Ctx, variant: &str, key: &str) -> Result<(Vec<u8>, String)> {
    let key = key.trim();
    if key.len() < 8 || key.chars().any(char::is_whitespace) {
        return Err(AppError::invalid_field(
            "apiKey",
            "invalid_key",
            "an API key has at least 8 characters and no spaces",
        ));
    }
    Ok((
        ctx.vault().seal(&key_context(variant), key.as_bytes())?,
        crate::secrets::mask_secret(key),
    ))
}

/// `add_variant(canvas, { presetId, prompt, style, typeTag, modelId?, apiKey? })`:
/// starts idle, with no round.
pub async fn add_variant(
    ctx: &Ctx,
    actor: &Caller,
    canvas: &str,
    input: NewVariant,
) -> Result<Variant> {
    check_preset(&input.preset_id)?;
    for (field, value) in [("prompt", &input.prompt), ("style", &input.style)] {
        check_text(field, value.as_deref().unwrap_or_default())?;
    }
    let id = uuid::Uuid::now_v7().to_string();
    let sealed = input
        .api_key
        .as_deref()
        .filter(|k| !k.trim().is_empty())
        .map(|k| seal_key(ctx, &id, k))
        .transpose()?;
    let (actor2, canvas) = (actor.clone(), canvas.to_owned());
    let variant = ctx
        .store()
        .write(move |tx| {
            require(tx, &actor2.user, &canvas)?;
            let saved = match (&*input.preset_id, input.user_preset_id.as_deref()) {
                (USER_SAVED, Some(preset)) => Some(
                    presets::find(tx, &actor2.user, preset)?
                        .ok_or_else(|| AppError::invalid_field("userPresetId", "unknown_preset", format!("unknown preset: {preset}")))?,
                ),
                (USER_SAVED, None) => {
                    return Err(AppError::invalid_field(
                        "userPresetId",
                        "required",
                        "a user-saved variant names its preset (userPresetId)",
                    ));
                }
                _ => None,
            };
            let builtin = presets::builtin(&input.preset_id);
            let prompt = input
                .prompt
                .or_else(|| saved.as_ref().map(|p| p.prompt.clone()))
                .unwrap_or_default();
            if input.preset_id == "custom" && prompt.trim().is_empty() {
                return Err(AppError::invalid_field("prompt", "required", "a custom variant needs a prompt"));
            }
            let style = input.style.or_else(|| saved.as_ref().map(|p| p.style.clone())).unwrap_or_default();
            let type_tag = input
                .type_tag
                .or_else(|| saved.as_ref().map(|p| p.type_tag.clone()))
                .or_else(|| builtin.map(|b| b.type_tag.to_owned()))
                .unwrap_or_default();
            let model = check_model(tx, input.model_id.as_deref())?;
            let (cipher, mask) = sealed.map_or((None, None), |(c, m)| (Some(c), Some(m)));
            let now = Utc::now();
            tx.execute(
                "INSERT INTO canvas_variants (id, canvas_id, position, preset_id, user_preset_id, prompt, style,
                     type_tag, model_id, api_key_cipher, api_key_mask, created_at, updated_at)
                 VALUES (?1, ?2, (SELECT coalesce(max(position), -1) + 1 FROM canvas_variants WHERE canvas_id = ?2),
                     ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?11)",
                params![
                    id,
                    canvas,
                    input.preset_id,
                    saved.as_ref().map(|p| p.id.clone()),
                    prompt,
                    style,
                    type_tag,
                    model,
                    cipher,
                    mask,
                    now
                ],
            )?;
            touch(tx, &canvas)?;
            activity::record(tx, &actor2, Some(&canvas), "session.add_variant", &input.preset_id)?;
            require_variant(tx, &actor2.user, &id)
        })
        .await?;
    ctx.changed(Change::Canvases);
    Ok(variant)
}

/// `update_variant(variant, { … })`: later rounds use the new settings;
/// rounds already made keep the prompt and style they were made with.
pub async fn update_variant(
    ctx: &Ctx,
    actor: &Caller,
    variant: &str,
    input: VariantUpdate,
) -> Result<Variant> {
    if let Some(preset) = &input.preset_id {
        check_preset(preset)?;
    }
    for (field, value) in [("prompt", &input.prompt), ("style", &input.style)] {
        check_text(field, value.as_deref().unwrap_or_default())?;
    }
    let sealed = match input.api_key.as_deref() {
        Some(key) if !key.trim().is_empty() => Some(Some(seal_key(ctx, variant, key)?)),
        Some(_) => Some(None),
        None => None,
    };
    let (actor2, id) = (actor.clone(), variant.to_owned());
    let updated = ctx
        .store()
        .write(move |tx| {
            let current = require_variant(tx, &actor2.user, &id)?;
            let model = match input.model_id.as_deref() {
                Some(m) => check_model(tx, Some(m))?,
                None => current.model_id.clone(),
            };
            tx.execute(
                "UPDATE canvas_variants SET preset_id = ?2, prompt = ?3, style = ?4, type_tag = ?5, model_id = ?6,
                 updated_at = ?7 WHERE id = ?1",
                params![
                    id,
                    input.preset_id.unwrap_or_else(|| current.preset_id.clone()),
                    input.prompt.unwrap_or_else(|| current.prompt.clone()),
                    input.style.unwrap_or_else(|| current.style.clone()),
                    input.type_tag.unwrap_or_else(|| current.type_tag.clone()),
                    model,
                    Utc::now()
                ],
            )?;
            if let Some(sealed) = sealed {
                let (cipher, mask) = sealed.map_or((None, None), |(c, m)| (Some(c), Some(m)));
                tx.execute(
                    "UPDATE canvas_variants SET api_key_cipher = ?2, api_key_mask = ?3 WHERE id = ?1",
                    params![id, cipher, mask],
                )?;
            }
            touch(tx, &current.canvas_id)?;
            activity::record(tx, &actor2, Some(&current.canvas_id), "session.update_variant", &current.preset_id)?;
            require_variant(tx, &actor2.user, &id)
        })
        .await?;
    ctx.changed(Change::Canvases);
    Ok(updated)
}

/// `remove_variant(variant)`: with its rounds.
pub async fn remove_variant(ctx: &Ctx, actor: &Caller, variant: &str) -> Result<()> {
    let (actor2, id) = (actor.clone(), variant.to_owned());
    ctx.store()
        .write(move |tx| {
            let current = require_variant(tx, &actor2.user, &id)?;
            tx.execute("DELETE FROM canvas_variants WHERE id = ?1", [&id])?;
            touch(tx, &current.canvas_id)?;
            activity::record(
                tx,
                &actor2,
                Some(&current.canvas_id),
                "session.remove_variant",
                &current.preset_id,
            )
        })
        .await?;
    ctx.changed(Change::Canvases);
    Ok(())
}

/// `select_round(variant, roundIndex)`: shows an older (or newer) round;
/// no round is removed.
pub async fn select_round(ctx: &Ctx, actor: &Caller, variant: &str, index: i32) -> Result<Variant> {
    let (actor2, id) = (actor.clone(), variant.to_owned());
    let selected = ctx
        .store()
        .write(move |tx| {
            let current = require_variant(tx, &actor2.user, &id)?;
            if index < 0 || index >= current.round_count as i32 {
                return Err(AppError::invalid_field(
                    "roundIndex",
                    "out_of_range",
                    format!(
                        "variant has {} rounds: pick 0 to {}",
                        current.round_count,
                        current.round_count as i32 - 1
                    ),
                ));
            }
            tx.execute(
                "UPDATE canvas_variants SET active_round = ?2, updated_at = ?3 WHERE id = ?1",
                params![id, index, Utc::now()],
            )?;
            touch(tx, &current.canvas_id)?;
            activity::record(
                tx,
                &actor2,
                Some(&current.canvas_id),
                "session.select_round",
                &format!("round {}", index + 1),
            )?;
            require_variant(tx, &actor2.user, &id)
        })
        .await?;
    ctx.changed(Change::Canvases);
    Ok(selected)
}

/// `variant_rounds(variant)`: the whole history, oldest first.
pub async fn variant_rounds(ctx: &Ctx, actor: &Caller, variant: &str) -> Result<Vec<Round>> {
    let (user, id) = (actor.user.clone(), variant.to_owned());
    ctx.store()
        .read(move |conn| {
            require_variant(conn, &user, &id)?;
            rounds_in(conn, &id)
        })
        .await
}
