//! Generation (SPEC C4, C5): one variant, or every variant of a canvas at
//! once with a bound, each failing alone. The model's text streams to the
//! caller as it is written; when it is complete it becomes the variant's
//! next round — output, the prompt and style it was made with, the provider
//! and model actually used, tokens, latency and the client that asked — and
//! the new round is the one shown.
//!
//! Images (SPEC C11, H37): image items of the selection (dropped in with
//! `add_image`) are sent with the prompt as image parts — their copies made
//! for models, in the order of the items — when the variant's model accepts
//! images. When it does not, the generation fails before anything is sent,
//! with the error that names the model (`models::images_refused`); an image
//! item whose picture is no longer stored fails it too. Never a silent drop.

use std::sync::Arc;
use std::time::Instant;

use chrono::Utc;
use futures_util::StreamExt;
use rusqlite::params;
use serde::{Deserialize, Serialize};

use super::items::CanvasItem;
use super::presets;
use super::variants::{Round, Variant, VariantStatus, key_context, require_variant, rounds_in};
use super::{Caller, activity, leases, touch};
use crate::ctx::{Change, Ctx};
use crate::error::{AppError, ErrorCode, Result};
use crate::ids::ModelId;
use crate::llm::{self, CallOptions, ChatRequest, ImagePart, Message, StreamEvent};
use crate::models::resolve::{ResolvedModel, RunCredentials, resolve_model_for};
use crate::work::Work;

/// Most variants generating at once in `generate_all`.
pub const MAX_PARALLEL: usize = 20;
const MAX_TOKENS: u32 = 4096;

/// What streams out of a generation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(
    tag = "type",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
pub enum CanvasEvent {
    Queued {
        variant_id: String,
    },
    Streaming {
        variant_id: String,
        provider: String,
        model: String,
    },
    Delta {
        variant_id: String,
        text: String,
    },
    Done {
        variant_id: String,
        round: Round,
    },
    Failed {
        variant_id: String,
        error: AppError,
    },
}

pub type CanvasSink = Arc<dyn Fn(CanvasEvent) + Send + Sync>;

/// A sink that drops everything.
pub fn no_events() -> CanvasSink {
    Arc::new(|_| {})
}

/// What `generate_all` did: every variant's new round or its error.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct GenerateAllOutcome {
    pub done: Vec<Round>,
    pub failed: Vec<VariantFailure>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct VariantFailure {
    pub variant_id: String,
    pub error: AppError,
}

/// Everything one call needs, read in one go.
struct Prepared {
    variant: Variant,
    items: Vec<CanvasItem>,
    resolved: ResolvedModel,
}

fn prepare(ctx: &Ctx, conn: &rusqlite::Connection, user: &str, id: &str) -> Result<Prepared> {
    let variant = require_variant(conn, user, id)?;
    let items = super::items::list_in(conn, &variant.canvas_id)?;
    // The variant's own key, if it has one, goes over the provider's.
    let own_key: Option<Vec<u8>> = conn.query_row(
        "SELECT api_key_cipher FROM canvas_variants WHERE id = ?1",
        [id],
        |r| r.get(0),
    )?;
    let credentials = own_key
        .map(|cipher| -> Result<RunCredentials> {
            let clear = ctx.vault().open_envelope(&key_context(id), &cipher)?;
            let key = String::from_utf8(clear.to_vec())
                .map_err(|_| AppError::internal("a variant's API key is not text"))?;
            Ok(RunCredentials {
                api_key: Some(key),
                base_url: None,
            })
        })
        .transpose()?;
    let resolved = resolve_model_for(
        conn,
        ctx,
        variant.model_id.as_deref().map(ModelId::from).as_ref(),
        "this variant",
        serde_json::json!({ "variantId": id }),
        credentials.as_ref(),
    )?;
    Ok(Prepared {
        variant,
        items,
        resolved,
    })
}

/// The artifact an image item sends: the copy made for models.
fn image_artifact(item: &CanvasItem) -> Option<&str> {
    item.raw["modelArtifactId"].as_str()
}

/// The pictures of the selection's image items, in order, checked against
/// the model first: nothing is read (or sent) for a model without images.
/// Items whose file could not be read as an image (kept as they came) are
/// text only — their snippet says so.
async fn selection_images(
    ctx: &Ctx,
    user: &str,
    prepared: &Prepared,
) -> Result<Vec<(usize, ImagePart)>> {
    let mut sendable = Vec::new();
    for (n, item) in prepared.items.iter().enumerate() {
        let Some(artifact) = image_artifact(item) else {
            continue;
        };
        match crate::images::get(ctx, user, artifact).await {
            Ok(found) if crate::images::is_model_image(&found) => sendable.push((n, found.id)),
            Ok(_) => {}
            Err(e) if e.code == ErrorCode::NotFound => {
                return Err(AppError::precondition(format!(
                    "the image of item '{}' is no longer stored (it may have been removed by \
                     retention): remove the item, or drop the image in again",
                    item.title
                ))
                .with_details(
                    serde_json::json!({ "reason": "image_missing", "itemId": item.id }),
                ));
            }
            Err(e) => return Err(e),
        }
    }
    prepared.resolved.check_images(sendable.len())?;
    let mut parts = Vec::new();
    for (n, artifact) in sendable {
        if let Some(part) = crate::images::model_part(ctx, user, &artifact).await? {
            parts.push((n, part));
        }
    }
    Ok(parts)
}

/// The instructions and the user message a variant's model gets.
pub(crate) fn compose(variant: &Variant, items: &[CanvasItem]) -> (String, String) {
    let instructions =
        presets::builtin(&variant.preset_id).map_or("Follow the prompt below.", |p| p.instructions);
    let mut system =
        format!("You draft content from the sources the user selected.\n\n{instructions}");
    if !variant.style.trim().is_empty() {
        system.push_str(&format!("\n\nStyle: {}", variant.style.trim()));
    }
    system.push_str("\n\nAnswer with the draft only, no preamble.");
    let mut user = String::new();
    if items.is_empty() {
        user.push_str("There are no selected sources.\n");
    } else {
        user.push_str("Selected sources:\n");
        for (n, item) in items.iter().enumerate() {
            user.push_str(&format!(
                "\n[{}] {} ({})\n{}\n",
                n + 1,
                item.title,
                item.source_kind.as_str(),
                item.snippet
            ));
        }
    }
    if !variant.prompt.trim().is_empty() {
        user.push_str(&format!("\nTask: {}\n", variant.prompt.trim()));
    }
    (system, user)
}

/// The line that tells the model which sources the attached images are.
fn images_note(items: &[CanvasItem], images: &[(usize, ImagePart)]) -> String {
    let which: Vec<String> = images
        .iter()
        .map(|(n, _)| format!("[{}] {}", n + 1, items[*n].title))
        .collect();
    format!(
        "\nThe images of these sources are attached, in this order: {}\n",
        which.join(", ")
    )
}

async fn set_status(
    ctx: &Ctx,
    id: &str,
    status: VariantStatus,
    error: Option<String>,
) -> Result<()> {
    let id = id.to_owned();
    let lease = matches!(status, VariantStatus::Queued | VariantStatus::Streaming)
        .then(|| leases::taken_by(ctx));
    let (owner, expires) = lease.unzip();
    ctx.store()
        .write(move |tx| {
            tx.execute(
                "UPDATE canvas_variants SET status = ?2, error_message = ?3,
                     lease_owner = ?4, lease_expires_at = ?5
                 WHERE id = ?1",
                params![id, status.as_str(), error, owner, expires],
            )?;
            Ok(())
        })
        .await?;
    ctx.changed(Change::Canvases);
    Ok(())
}

/// Back to `done` when the variant has a round to show, else `idle`.
async fn settle(ctx: &Ctx, id: &str) -> Result<()> {
    let id = id.to_owned();
    ctx.store()
        .write(move |tx| {
            tx.execute(
                "UPDATE canvas_variants
                 SET status = CASE WHEN active_round >= 0 THEN 'done' ELSE 'idle' END,
                     error_message = NULL, lease_owner = NULL, lease_expires_at = NULL
                 WHERE id = ?1",
                [id],
            )?;
            Ok(())
        })
        .await?;
    ctx.changed(Change::Canvases);
    Ok(())
}

/// `generate_variant(variant)`: one call, one new round.
pub async fn generate_variant(
    ctx: &Ctx,
    actor: &Caller,
    variant: &str,
    sink: CanvasSink,
) -> Result<Round> {
    // Checked (and the variant's owner with it) before anything changes.
    let id = variant.to_owned();
    let user = actor.person()?.to_owned();
    ctx.store()
        .read(move |conn| require_variant(conn, &user, &id).map(|_| ()))
        .await?;
    let _lease = leases::keep_alive(ctx);
    set_status(ctx, variant, VariantStatus::Queued, None).await?;
    sink(CanvasEvent::Queued {
        variant_id: variant.to_owned(),
    });
    run(ctx, actor, variant, &sink).await
}

/// Stops a generation of this process; false if none is running here.
pub fn cancel(ctx: &Ctx, variant: &str) -> bool {
    ctx.work().cancel(Work::Variant(variant))
}

async fn run(ctx: &Ctx, actor: &Caller, variant: &str, sink: &CanvasSink) -> Result<Round> {
    let outcome = attempt(ctx, actor, variant, sink).await;
    ctx.work().unregister(Work::Variant(variant));
    match outcome {
        Ok(round) => {
            sink(CanvasEvent::Done {
                variant_id: variant.to_owned(),
                round: round.clone(),
            });
            Ok(round)
        }
        Err(error) => {
            // The variant says why; the error is the caller's too. A
            // generation the user stopped is no failure: the variant goes
            // back to what it showed before.
            let _ = if error.code == ErrorCode::Cancelled {
                settle(ctx, variant).await
            } else {
                set_status(
                    ctx,
                    variant,
                    VariantStatus::Error,
                    Some(error.message.clone()),
                )
                .await
            };
            sink(CanvasEvent::Failed {
                variant_id: variant.to_owned(),
                error: error.clone(),
            });
            Err(error)
        }
    }
}

async fn attempt(ctx: &Ctx, actor: &Caller, variant: &str, sink: &CanvasSink) -> Result<Round> {
    let cancel = ctx.work().register(Work::Variant(variant));
    let (ctx2, user, id) = (ctx.clone(), actor.person()?.to_owned(), variant.to_owned());
    let prepared = ctx
        .store()
        .read(move |conn| prepare(&ctx2, conn, &user, &id))
        .await?;
    let (system, mut user_text) = compose(&prepared.variant, &prepared.items);
    let images = selection_images(ctx, actor.person()?, &prepared).await?;
    if !images.is_empty() {
        user_text.push_str(&images_note(&prepared.items, &images));
    }
    set_status(ctx, variant, VariantStatus::Streaming, None).await?;
    sink(CanvasEvent::Streaming {
        variant_id: variant.to_owned(),
        provider: prepared.resolved.provider.clone(),
        model: prepared.resolved.model.clone(),
    });
    let parts = images.into_iter().map(|(_, part)| part).collect();
    let request = ChatRequest {
        model: prepared.resolved.model.clone(),
        system: Some(system),
        messages: vec![Message::user_with_images(user_text, parts)],
        tools: Vec::new(),
        max_tokens: MAX_TOKENS,
        temperature: None,
    };
    let options = CallOptions {
        cancel,
        ..CallOptions::default()
    };
    let started = Instant::now();
    let variant_id = variant.to_owned();
    let mut on_event = |event: StreamEvent| {
        if let StreamEvent::Text(text) = event {
            sink(CanvasEvent::Delta {
                variant_id: variant_id.clone(),
                text,
            });
        }
    };
    let response = llm::chat(
        &prepared.resolved.endpoint,
        &request,
        &options,
        &mut on_event,
    )
    .await
    .map_err(|e| prepared.resolved.name_in(e))?;
    let latency = started.elapsed().as_millis().min(u128::from(u32::MAX)) as u32;
    if response.text.trim().is_empty() {
        return Err(
            AppError::new(ErrorCode::Upstream, "the model answered with no text")
                .with_details(serde_json::json!({ "reason": "empty_answer" })),
        );
    }
    let (actor2, id, prepared_variant) = (actor.clone(), variant.to_owned(), prepared.variant);
    let (provider, model) = (prepared.resolved.provider, prepared.resolved.model);
    let round = ctx
        .store()
        .write(move |tx| {
            // The variant may have been removed meanwhile: then this fails.
            let current = require_variant(tx, actor2.person()?, &id)?;
            let index = current.round_count;
            let round_id = uuid::Uuid::now_v7().to_string();
            tx.execute(
                "INSERT INTO variant_rounds (id, variant_id, round_index, output, prompt_snapshot, style_snapshot,
                     provider, model, prompt_tokens, completion_tokens, latency_ms, client, generated_at,
                     prompt_tokens_reported, completion_tokens_reported)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)",
                params![
                    round_id,
                    id,
                    index,
                    response.text,
                    prepared_variant.prompt,
                    prepared_variant.style,
                    provider,
                    model,
                    response.usage.prompt_tokens.unwrap_or(0),
                    response.usage.completion_tokens.unwrap_or(0),
                    latency,
                    actor2.client.as_str(),
                    Utc::now(),
                    response.usage.prompt_tokens.is_some(),
                    response.usage.completion_tokens.is_some()
                ],
            )?;
            tx.execute(
                "UPDATE canvas_variants SET active_round = ?2, status = 'done', error_message = NULL,
                     lease_owner = NULL, lease_expires_at = NULL, updated_at = ?3
                 WHERE id = ?1",
                params![id, index, Utc::now()],
            )?;
            touch(tx, &current.canvas_id)?;
            activity::record(
                tx,
                &actor2,
                Some(&current.canvas_id),
                "session.generate_variant",
                &format!("{} round {} ({model})", current.preset_id, index + 1),
            )?;
            rounds_in(tx, &id)?
                .into_iter()
                .find(|r| r.id == round_id)
                .ok_or_else(|| AppError::internal("the new round vanished"))
        })
        .await?;
    ctx.changed(Change::Canvases);
    Ok(round)
}

/// `generate_all(canvas)`: every variant, at most [`MAX_PARALLEL`] at a
/// time; one failing leaves the others to finish.
pub async fn generate_all(
    ctx: &Ctx,
    actor: &Caller,
    canvas: &str,
    sink: CanvasSink,
) -> Result<GenerateAllOutcome> {
    let (actor2, canvas_id) = (actor.clone(), canvas.to_owned());
    let _lease = leases::keep_alive(ctx);
    let (owner, expires) = leases::taken_by(ctx);
    let variants = ctx
        .store()
        .write(move |tx| {
            super::require(tx, actor2.person()?, &canvas_id)?;
            let variants = super::variants::list_in(tx, &canvas_id)?;
            tx.execute(
                "UPDATE canvas_variants SET status = 'queued', error_message = NULL,
                     lease_owner = ?2, lease_expires_at = ?3
                 WHERE canvas_id = ?1",
                params![canvas_id, owner, expires],
            )?;
            activity::record(
                tx,
                &actor2,
                Some(&canvas_id),
                "session.generate_all",
                &format!("{} variants", variants.len()),
            )?;
            Ok(variants)
        })
        .await?;
    ctx.changed(Change::Canvases);
    for v in &variants {
        sink(CanvasEvent::Queued {
            variant_id: v.id.clone(),
        });
    }
    let results: Vec<(String, Result<Round>)> = futures_util::stream::iter(variants)
        .map(|v| {
            let sink = sink.clone();
            async move {
                let outcome = run(ctx, actor, &v.id, &sink).await;
                (v.id, outcome)
            }
        })
        .buffer_unordered(MAX_PARALLEL)
        .collect()
        .await;
    let mut outcome = GenerateAllOutcome {
        done: Vec::new(),
        failed: Vec::new(),
    };
    for (variant_id, result) in results {
        match result {
            Ok(round) => outcome.done.push(round),
            Err(error) => outcome.failed.push(VariantFailure { variant_id, error }),
        }
    }
    Ok(outcome)
}
