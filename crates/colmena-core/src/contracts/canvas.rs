//! The 18 canvas operations of SPEC C9 (and `session_write_round`, a round
//! written by hand) with seed 001's argument names
//! (`session_create({ name? })`, `session_add_variant({ sessionId,
//! presetId, … })`, …). The seed's `llmCredentialId` is a model id here
//! (`provider/model`): the model, with its provider's stored key, that the
//! variant runs on instead of the workspace default.

use std::sync::Arc;

use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::{Progress, ProgressSink, until_cancelled};
use crate::caller::Caller;
use crate::canvas::activity::{self, Activity};
use crate::canvas::exports::{self, ExportRequest, ExportTarget, Exported};
use crate::canvas::generate::{self, CanvasEvent, CanvasSink, GenerateAllOutcome};
use crate::canvas::items::{self, CanvasItem, NewItem, SourceKind};
use crate::canvas::presets::{self, PresetDraft, UserPreset};
use crate::canvas::sources::{self, Source};
use crate::canvas::variants::{self, NewVariant, Round, Variant, VariantUpdate};
use crate::canvas::{self, Canvas, CanvasDetail};
use crate::ctx::Ctx;
use crate::error::{AppError, Result};

/// `session_create`: an empty canvas.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SessionCreate {
    /// A name for the canvas (it can be set later).
    #[serde(default)]
    #[schemars(length(max = 120))]
    pub name: Option<String>,
}

/// An operation that needs no arguments.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoArguments {}

/// An operation on one canvas.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SessionRef {
    /// The canvas id (see `session_list`).
    pub session_id: String,
}

/// `session_update`: renames a canvas.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SessionUpdate {
    pub session_id: String,
    /// The new name; empty or absent clears it.
    #[serde(default)]
    #[schemars(length(max = 120))]
    pub name: Option<String>,
}

/// `session_add_item`: a snapshot of an upstream item, from a registered
/// source by `upstreamItemId` or from the snapshot fields themselves.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SessionAddItem {
    pub session_id: String,
    /// A source item's id (see `session_list_sources`): its fields are
    /// copied as they are now.
    #[serde(default)]
    pub upstream_item_id: Option<String>,
    /// `x`, `webpage`, `rss` or `custom` (default `custom`).
    #[serde(default)]
    pub source_kind: Option<SourceKind>,
    #[serde(default)]
    pub external_id: Option<String>,
    #[serde(default)]
    pub title: Option<String>,
    #[serde(default)]
    pub snippet: Option<String>,
    /// When the item was captured upstream (ISO 8601; default now).
    #[serde(default)]
    pub captured_at: Option<DateTime<Utc>>,
    /// Figures such as likes or reads, as a JSON object.
    #[serde(default)]
    #[schemars(with = "Option<serde_json::Map<String, Value>>")]
    pub metrics: Option<Value>,
    /// The upstream payload, as a JSON object.
    #[serde(default)]
    #[schemars(with = "Option<serde_json::Map<String, Value>>")]
    pub raw: Option<Value>,
}

impl SessionAddItem {
    fn into_parts(self) -> (String, NewItem) {
        let item = NewItem {
            upstream_item_id: self.upstream_item_id,
            source_kind: self.source_kind,
            external_id: self.external_id,
            title: self.title,
            snippet: self.snippet,
            captured_at: self.captured_at,
            metrics: self.metrics,
            raw: self.raw,
        };
        (self.session_id, item)
    }
}

/// `session_remove_item`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SessionRemoveItem {
    pub session_id: String,
    pub item_id: String,
}

/// `session_add_variant`: a generation slot; it starts `idle`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SessionAddVariant {
    pub session_id: String,
    /// A built-in preset (`x-thread`, `blog-with-images`, `linkedin-long`,
    /// `newsletter-section`, `tldr-brief`, `custom`) or `user-saved` with
    /// `userPresetId`.
    pub preset_id: String,
    #[serde(default)]
    pub user_preset_id: Option<String>,
    /// What to write; `custom` needs one.
    #[serde(default)]
    #[schemars(length(max = 20000))]
    pub prompt: Option<String>,
    #[serde(default)]
    #[schemars(length(max = 20000))]
    pub style: Option<String>,
    #[serde(default)]
    pub type_tag: Option<String>,
    /// The model to use instead of the workspace default (`provider/model`).
    #[serde(default)]
    pub llm_credential_id: Option<String>,
}

/// `session_update_variant`: absent fields stay as they are; an empty
/// `llmCredentialId` goes back to the workspace default.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SessionUpdateVariant {
    pub session_id: String,
    pub variant_id: String,
    #[serde(default)]
    pub preset_id: Option<String>,
    #[serde(default)]
    #[schemars(length(max = 20000))]
    pub prompt: Option<String>,
    #[serde(default)]
    #[schemars(length(max = 20000))]
    pub style: Option<String>,
    #[serde(default)]
    pub type_tag: Option<String>,
    #[serde(default)]
    pub llm_credential_id: Option<String>,
}

/// An operation on one variant of a canvas.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct VariantRef {
    pub session_id: String,
    pub variant_id: String,
}

/// `session_select_round`: shows an older (or newer) round; none is lost.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SessionSelectRound {
    pub variant_id: String,
    /// 0-based.
    #[schemars(range(min = 0))]
    pub round_index: i32,
}

/// `session_write_round`: your own version of a variant's output, saved as
/// a new round (the rounds before it stay as they were). It is marked by
/// hand only from the person's window or CLI; through MCP the round is
/// stored under the client that wrote it.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SessionWriteRound {
    pub session_id: String,
    pub variant_id: String,
    /// The whole text of the round, as markdown (at most
    /// [`variants::MAX_ROUND_TEXT`] characters).
    #[schemars(length(min = 1, max = variants::MAX_ROUND_TEXT))]
    pub text: String,
}

/// `session_variant_rounds`: the whole history of a variant.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SessionVariantRounds {
    pub variant_id: String,
}

/// `session_export_variant`: records an export and returns the markdown.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SessionExportVariant {
    pub session_id: String,
    pub variant_id: String,
    /// Default: the round shown.
    #[serde(default)]
    pub round_id: Option<String>,
    /// `markdown` (the only format).
    #[serde(default)]
    pub format: Option<String>,
}

/// `session_save_preset`: a variant's configuration kept for reuse.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SessionSavePreset {
    /// Unique among your presets.
    #[schemars(length(min = 1, max = 120))]
    pub name: String,
    #[serde(default)]
    pub description: String,
    #[schemars(length(max = 20000))]
    pub prompt: String,
    #[serde(default)]
    pub style: String,
    #[serde(default)]
    pub type_tag: String,
}

/// `session_activity`: the latest lines of the activity log.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SessionActivity {
    /// Only this canvas.
    #[serde(default)]
    pub session_id: Option<String>,
    /// 1–100, default 20.
    #[serde(default)]
    #[schemars(range(min = 1, max = 100))]
    pub limit: Option<u32>,
}

pub async fn create(ctx: &Ctx, caller: &Caller, input: SessionCreate) -> Result<Canvas> {
    caller.person()?;
    canvas::create(ctx, caller, input.name).await
}

pub async fn list(ctx: &Ctx, caller: &Caller, _: NoArguments) -> Result<Vec<Canvas>> {
    caller.person()?;
    canvas::list(ctx, caller).await
}

pub async fn get(ctx: &Ctx, caller: &Caller, input: SessionRef) -> Result<CanvasDetail> {
    caller.person()?;
    canvas::get(ctx, caller, &input.session_id).await
}

pub async fn update(ctx: &Ctx, caller: &Caller, input: SessionUpdate) -> Result<Canvas> {
    caller.person()?;
    canvas::update(ctx, caller, &input.session_id, input.name).await
}

pub async fn delete(ctx: &Ctx, caller: &Caller, input: SessionRef) -> Result<Value> {
    caller.person()?;
    canvas::delete(ctx, caller, &input.session_id).await?;
    Ok(serde_json::json!({ "deleted": input.session_id }))
}

pub async fn add_item(ctx: &Ctx, caller: &Caller, input: SessionAddItem) -> Result<CanvasItem> {
    caller.person()?;
    let (session, item) = input.into_parts();
    items::add_item(ctx, caller, &session, item).await
}

pub async fn remove_item(ctx: &Ctx, caller: &Caller, input: SessionRemoveItem) -> Result<Value> {
    caller.person()?;
    items::remove_item(ctx, caller, &input.session_id, &input.item_id).await?;
    Ok(serde_json::json!({ "removed": input.item_id }))
}

pub async fn clear_selection(ctx: &Ctx, caller: &Caller, input: SessionRef) -> Result<Value> {
    caller.person()?;
    let removed = items::clear_selection(ctx, caller, &input.session_id).await?;
    Ok(serde_json::json!({ "removed": removed }))
}

pub async fn add_variant(ctx: &Ctx, caller: &Caller, input: SessionAddVariant) -> Result<Variant> {
    caller.person()?;
    let variant = NewVariant {
        preset_id: input.preset_id,
        user_preset_id: input.user_preset_id,
        prompt: input.prompt,
        style: input.style,
        type_tag: input.type_tag,
        model_id: input.llm_credential_id,
        api_key: None,
    };
    variants::add_variant(ctx, caller, &input.session_id, variant).await
}

pub async fn update_variant(
    ctx: &Ctx,
    caller: &Caller,
    input: SessionUpdateVariant,
) -> Result<Variant> {
    caller.person()?;
    on_canvas(ctx, caller, &input.session_id, &input.variant_id).await?;
    let update = VariantUpdate {
        preset_id: input.preset_id,
        prompt: input.prompt,
        style: input.style,
        type_tag: input.type_tag,
        model_id: input.llm_credential_id,
        ..VariantUpdate::default()
    };
    variants::update_variant(ctx, caller, &input.variant_id, update).await
}

pub async fn remove_variant(ctx: &Ctx, caller: &Caller, input: VariantRef) -> Result<Value> {
    caller.person()?;
    on_canvas(ctx, caller, &input.session_id, &input.variant_id).await?;
    variants::remove_variant(ctx, caller, &input.variant_id).await?;
    Ok(serde_json::json!({ "removed": input.variant_id }))
}

pub async fn select_round(
    ctx: &Ctx,
    caller: &Caller,
    input: SessionSelectRound,
) -> Result<Variant> {
    caller.person()?;
    variants::select_round(ctx, caller, &input.variant_id, input.round_index).await
}

pub async fn write_round(ctx: &Ctx, caller: &Caller, input: SessionWriteRound) -> Result<Round> {
    caller.person()?;
    on_canvas(ctx, caller, &input.session_id, &input.variant_id).await?;
    variants::write_round(ctx, caller, &input.variant_id, &input.text).await
}

pub async fn variant_rounds(
    ctx: &Ctx,
    caller: &Caller,
    input: SessionVariantRounds,
) -> Result<Vec<Round>> {
    caller.person()?;
    variants::variant_rounds(ctx, caller, &input.variant_id).await
}

/// `session_generate_variant`: one model call, one new round. Progress
/// reports each streamed piece; `cancel` stops the generation and leaves
/// the variant as it was.
pub async fn generate_variant(
    ctx: &Ctx,
    caller: &Caller,
    input: VariantRef,
    progress: ProgressSink,
    cancel: &CancellationToken,
) -> Result<Round> {
    caller.person()?;
    on_canvas(ctx, caller, &input.session_id, &input.variant_id).await?;
    let work = generate::generate_variant(ctx, caller, &input.variant_id, reporter(progress));
    until_cancelled(work, cancel, || {
        generate::cancel(ctx, &input.variant_id);
    })
    .await
}

/// `session_generate_all`: every variant of the canvas, each failing alone.
pub async fn generate_all(
    ctx: &Ctx,
    caller: &Caller,
    input: SessionRef,
    progress: ProgressSink,
    cancel: &CancellationToken,
) -> Result<GenerateAllOutcome> {
    caller.person()?;
    let detail = canvas::get(ctx, caller, &input.session_id).await?;
    let work = generate::generate_all(ctx, caller, &input.session_id, reporter(progress));
    until_cancelled(work, cancel, || {
        for variant in &detail.variants {
            generate::cancel(ctx, &variant.id);
        }
    })
    .await
}

pub async fn export_variant(
    ctx: &Ctx,
    caller: &Caller,
    input: SessionExportVariant,
) -> Result<Exported> {
    caller.person()?;
    let request = ExportRequest {
        canvas_id: input.session_id,
        variant_id: input.variant_id,
        round_id: input.round_id,
        format: input.format,
        target: ExportTarget::Caller,
        path: None,
    };
    exports::export_variant(ctx, caller, request).await
}

pub async fn save_preset(
    ctx: &Ctx,
    caller: &Caller,
    input: SessionSavePreset,
) -> Result<UserPreset> {
    caller.person()?;
    let draft = PresetDraft {
        name: input.name,
        description: input.description,
        prompt: input.prompt,
        style: input.style,
        type_tag: input.type_tag,
    };
    presets::save_preset(ctx, caller, draft).await
}

pub async fn list_sources(ctx: &Ctx, caller: &Caller, _: NoArguments) -> Result<Vec<Source>> {
    caller.person()?;
    sources::list_sources(ctx, caller).await
}

pub async fn activity(ctx: &Ctx, caller: &Caller, input: SessionActivity) -> Result<Vec<Activity>> {
    caller.person()?;
    activity::recent(ctx, caller, input.session_id, input.limit).await
}

/// `not_found` unless `variant` is on `session` (and both are the caller's).
async fn on_canvas(ctx: &Ctx, caller: &Caller, session: &str, variant: &str) -> Result<()> {
    let detail = canvas::get(ctx, caller, session).await?;
    if detail.variants.iter().any(|v| v.id == variant) {
        Ok(())
    } else {
        Err(AppError::not_found("variant", variant))
    }
}

/// Generation events as progress: one step per event, the text readable.
fn reporter(progress: ProgressSink) -> CanvasSink {
    let step = Arc::new(std::sync::atomic::AtomicU64::new(0));
    Arc::new(move |event: CanvasEvent| {
        let message = match &event {
            CanvasEvent::Queued { variant_id } => format!("{variant_id}: queued"),
            CanvasEvent::Streaming {
                variant_id, model, ..
            } => format!("{variant_id}: writing with {model}"),
            CanvasEvent::Delta { variant_id, text } => format!("{variant_id}: {text}"),
            CanvasEvent::Done { variant_id, round } => {
                format!("{variant_id}: round {} done", round.index)
            }
            CanvasEvent::Failed { variant_id, error } => {
                format!("{variant_id}: failed: {}", error.message)
            }
        };
        let step = step.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        progress(Progress {
            step,
            message,
            total: None,
        });
    })
}

/// `POST /api/sessions/sources/{id}/refresh`: a source to refresh.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SourceRefresh {
    pub source_id: String,
}

/// Starts a source's refresh in the background and answers at once.
pub async fn refresh_source(ctx: &Ctx, caller: &Caller, input: SourceRefresh) -> Result<Source> {
    caller.person()?;
    sources::refresh_source(ctx, caller, &input.source_id).await
}

/// `POST /api/sessions/{id}/variants/{vid}/regenerate`: a new round, whose
/// generation goes on to its end even if the asker goes away (a request
/// dropped half-way must not leave the variant streaming).
pub async fn regenerate(ctx: &Ctx, caller: &Caller, input: VariantRef) -> Result<Round> {
    caller.person()?;
    let (ctx, caller) = (ctx.clone(), caller.clone());
    tokio::spawn(async move {
        let silent: ProgressSink = Arc::new(|_| {});
        generate_variant(&ctx, &caller, input, silent, &CancellationToken::new()).await
    })
    .await
    .map_err(|e| AppError::internal(format!("the generation stopped: {e}")))?
}
