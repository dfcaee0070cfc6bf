//! The canvas in the desktop (SPEC C1–C10): one line each over
//! `colmena_core::canvas`, acting as the workspace owner with client `ui`.
//! Generation streams to the window through a `Channel`.

use std::sync::Arc;

use colmena_core::canvas::activity::{self, Activity};
use colmena_core::canvas::exports::{self, ExportRequest, ExportTarget, Exported};
use colmena_core::canvas::generate::{self, CanvasEvent, CanvasSink, GenerateAllOutcome};
use colmena_core::canvas::items::{self, CanvasItem, NewItem};
use colmena_core::canvas::presets::{self, PresetDraft, UserPreset};
use colmena_core::canvas::sources::{self, NewSource, Source, SourceItem};
use colmena_core::canvas::variants::{self, NewVariant, Round, Variant, VariantUpdate};
use colmena_core::canvas::{self, Caller, Canvas, CanvasDetail};
use colmena_core::images::ImagePreview;
use colmena_core::{AppError, Ctx};
use tauri::State;
use tauri::ipc::Channel;

pub(super) fn me(ctx: &Ctx) -> Caller {
    Caller::ui(ctx)
}

fn sink(channel: Channel<CanvasEvent>) -> CanvasSink {
    Arc::new(move |event| {
        if let Err(e) = channel.send(event) {
            tracing::debug!("the window stopped listening to a generation: {e}");
        }
    })
}

#[tauri::command]
#[specta::specta]
pub async fn list_canvases(ctx: State<'_, Ctx>) -> Result<Vec<Canvas>, AppError> {
    canvas::list(&ctx, &me(&ctx)).await
}

#[tauri::command]
#[specta::specta]
pub async fn create_canvas(ctx: State<'_, Ctx>, name: Option<String>) -> Result<Canvas, AppError> {
    canvas::create(&ctx, &me(&ctx), name).await
}

#[tauri::command]
#[specta::specta]
pub async fn get_canvas(ctx: State<'_, Ctx>, id: String) -> Result<CanvasDetail, AppError> {
    canvas::get(&ctx, &me(&ctx), &id).await
}

#[tauri::command]
#[specta::specta]
pub async fn rename_canvas(
    ctx: State<'_, Ctx>,
    id: String,
    name: Option<String>,
) -> Result<Canvas, AppError> {
    canvas::update(&ctx, &me(&ctx), &id, name).await
}

#[tauri::command]
#[specta::specta]
pub async fn delete_canvas(ctx: State<'_, Ctx>, id: String) -> Result<(), AppError> {
    canvas::delete(&ctx, &me(&ctx), &id).await
}

#[tauri::command]
#[specta::specta]
pub async fn add_canvas_item(
    ctx: State<'_, Ctx>,
    canvas: String,
    item: NewItem,
) -> Result<CanvasItem, AppError> {
    items::add_item(&ctx, &me(&ctx), &canvas, item).await
}

/// The picture of an image item, to show beside it.
#[tauri::command]
#[specta::specta]
pub async fn canvas_item_image(
    ctx: State<'_, Ctx>,
    canvas: String,
    item: String,
) -> Result<ImagePreview, AppError> {
    items::image_preview(&ctx, &me(&ctx), &canvas, &item).await
}

/// An image dropped on the canvas; the file travels base64-encoded (the
/// IPC carries JSON), which is decoded here — transport, not logic.
#[tauri::command]
#[specta::specta]
pub async fn add_canvas_image(
    ctx: State<'_, Ctx>,
    canvas: String,
    name: String,
    data_base64: String,
) -> Result<CanvasItem, AppError> {
    use base64::Engine;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(data_base64.as_bytes())
        .map_err(|e| {
            AppError::invalid_field(
                "file",
                "not_base64",
                format!("the file did not arrive whole: {e}"),
            )
        })?;
    items::add_image(&ctx, &me(&ctx), &canvas, &name, bytes).await
}

#[tauri::command]
#[specta::specta]
pub async fn remove_canvas_item(
    ctx: State<'_, Ctx>,
    canvas: String,
    item: String,
) -> Result<(), AppError> {
    items::remove_item(&ctx, &me(&ctx), &canvas, &item).await
}

#[tauri::command]
#[specta::specta]
pub async fn clear_canvas_selection(ctx: State<'_, Ctx>, canvas: String) -> Result<u32, AppError> {
    items::clear_selection(&ctx, &me(&ctx), &canvas).await
}

#[tauri::command]
#[specta::specta]
pub async fn add_variant(
    ctx: State<'_, Ctx>,
    canvas: String,
    input: NewVariant,
) -> Result<Variant, AppError> {
    variants::add_variant(&ctx, &me(&ctx), &canvas, input).await
}

#[tauri::command]
#[specta::specta]
pub async fn update_variant(
    ctx: State<'_, Ctx>,
    id: String,
    input: VariantUpdate,
) -> Result<Variant, AppError> {
    variants::update_variant(&ctx, &me(&ctx), &id, input).await
}

#[tauri::command]
#[specta::specta]
pub async fn remove_variant(ctx: State<'_, Ctx>, id: String) -> Result<(), AppError> {
    variants::remove_variant(&ctx, &me(&ctx), &id).await
}

#[tauri::command]
#[specta::specta]
pub async fn select_round(
    ctx: State<'_, Ctx>,
    id: String,
    index: i32,
) -> Result<Variant, AppError> {
    variants::select_round(&ctx, &me(&ctx), &id, index).await
}

#[tauri::command]
#[specta::specta]
pub async fn write_round(ctx: State<'_, Ctx>, id: String, text: String) -> Result<Round, AppError> {
    variants::write_round(&ctx, &me(&ctx), &id, &text).await
}

#[tauri::command]
#[specta::specta]
pub async fn variant_rounds(ctx: State<'_, Ctx>, id: String) -> Result<Vec<Round>, AppError> {
    variants::variant_rounds(&ctx, &me(&ctx), &id).await
}

#[tauri::command]
#[specta::specta]
pub async fn generate_variant(
    ctx: State<'_, Ctx>,
    id: String,
    on_event: Channel<CanvasEvent>,
) -> Result<Round, AppError> {
    generate::generate_variant(&ctx, &me(&ctx), &id, sink(on_event)).await
}

#[tauri::command]
#[specta::specta]
pub async fn generate_all(
    ctx: State<'_, Ctx>,
    canvas: String,
    on_event: Channel<CanvasEvent>,
) -> Result<GenerateAllOutcome, AppError> {
    generate::generate_all(&ctx, &me(&ctx), &canvas, sink(on_event)).await
}

#[tauri::command]
#[specta::specta]
pub async fn cancel_generation(ctx: State<'_, Ctx>, id: String) -> Result<bool, AppError> {
    Ok(generate::cancel(&ctx, &id))
}

#[tauri::command]
#[specta::specta]
pub async fn export_variant(
    ctx: State<'_, Ctx>,
    request: ExportRequest,
) -> Result<Exported, AppError> {
    // A file is chosen in the native dialog (`export_variant_to_file`), never
    // named by the web view.
    if request.target == ExportTarget::File || request.path.is_some() {
        return Err(AppError::invalid_field(
            "target",
            "use_dialog",
            "files are exported through the save dialog",
        ));
    }
    exports::export_variant(&ctx, &me(&ctx), request).await
}

#[tauri::command]
#[specta::specta]
pub async fn exports_last_7_days(ctx: State<'_, Ctx>) -> Result<u32, AppError> {
    exports::exports_last_7_days(&ctx, &me(&ctx)).await
}

#[tauri::command]
#[specta::specta]
pub async fn list_presets(ctx: State<'_, Ctx>) -> Result<Vec<UserPreset>, AppError> {
    presets::list(&ctx, &me(&ctx)).await
}

#[tauri::command]
#[specta::specta]
pub async fn save_preset(ctx: State<'_, Ctx>, draft: PresetDraft) -> Result<UserPreset, AppError> {
    presets::save_preset(&ctx, &me(&ctx), draft).await
}

#[tauri::command]
#[specta::specta]
pub async fn delete_preset(ctx: State<'_, Ctx>, id: String) -> Result<(), AppError> {
    presets::delete_preset(&ctx, &me(&ctx), &id).await
}

#[tauri::command]
#[specta::specta]
pub async fn list_sources(ctx: State<'_, Ctx>) -> Result<Vec<Source>, AppError> {
    sources::list_sources(&ctx, &me(&ctx)).await
}

#[tauri::command]
#[specta::specta]
pub async fn register_source(ctx: State<'_, Ctx>, input: NewSource) -> Result<Source, AppError> {
    sources::register_source(&ctx, &me(&ctx), input).await
}

#[tauri::command]
#[specta::specta]
pub async fn refresh_source(ctx: State<'_, Ctx>, id: String) -> Result<Source, AppError> {
    sources::refresh_source(&ctx, &me(&ctx), &id).await
}

#[tauri::command]
#[specta::specta]
pub async fn source_items(ctx: State<'_, Ctx>, id: String) -> Result<Vec<SourceItem>, AppError> {
    sources::source_items(&ctx, &me(&ctx), &id).await
}

#[tauri::command]
#[specta::specta]
pub async fn remove_source(ctx: State<'_, Ctx>, id: String) -> Result<(), AppError> {
    sources::remove_source(&ctx, &me(&ctx), &id).await
}

#[tauri::command]
#[specta::specta]
pub async fn canvas_activity(
    ctx: State<'_, Ctx>,
    canvas: Option<String>,
    limit: Option<u32>,
) -> Result<Vec<Activity>, AppError> {
    activity::recent(&ctx, &me(&ctx), canvas, limit).await
}
