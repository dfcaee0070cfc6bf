//! Models that run on this computer (issue 35): the library, the files,
//! downloads with their progress, and the engine's loaded model.

use colmena_core::models::Model;
use colmena_core::models::download::{self, DownloadProgress};
use colmena_core::models::library::{self, LibraryModel};
use colmena_core::models::local::{self, LocalModel};
use colmena_core::{AppError, Ctx};
use tauri::State;
use tauri::ipc::Channel;

use super::desktop::Dialogs;

/// The models Colmena can download, marked for this computer's memory.
#[tauri::command]
#[specta::specta]
pub fn model_library() -> Vec<LibraryModel> {
    library::for_this_computer()
}

#[tauri::command]
#[specta::specta]
pub async fn list_local_models(ctx: State<'_, Ctx>) -> Result<Vec<LocalModel>, AppError> {
    local::list(&ctx).await
}

/// Downloads a library model (or an https:// URL); progress streams over
/// `on_progress`. Answers the model once it is whole and checked.
#[tauri::command]
#[specta::specta]
pub async fn pull_local_model(
    ctx: State<'_, Ctx>,
    source: String,
    on_progress: Channel<DownloadProgress>,
) -> Result<Model, AppError> {
    local::pull_download(&ctx, &source, &|p| {
        // The window stopped listening: the download goes on regardless.
        let _ = on_progress.send(p.clone());
    })
    .await
}

/// Adds a GGUF file the person picks in the native open dialog (copied
/// into the data dir's `models/` after its check); `None`: cancelled. The
/// page never names the file.
#[tauri::command]
#[specta::specta]
pub async fn add_local_model_file(
    dialogs: State<'_, Dialogs>,
    ctx: State<'_, Ctx>,
    title: String,
) -> Result<Option<Model>, AppError> {
    match dialogs.pick_gguf(title).await {
        Some(path) => local::add_file(&ctx, &path, None).await.map(Some),
        None => Ok(None),
    }
}

/// The downloads under way (a window opened during one picks it up).
#[tauri::command]
#[specta::specta]
pub fn local_model_downloads(ctx: State<'_, Ctx>) -> Vec<DownloadProgress> {
    download::under_way(&ctx)
}

/// Cancels a download named by its model's name, library id or link.
#[tauri::command]
#[specta::specta]
pub fn cancel_model_download(ctx: State<'_, Ctx>, name: String) -> bool {
    local::cancel_download(&ctx, &name)
}

/// Removes a local model and its file.
#[tauri::command]
#[specta::specta]
pub async fn remove_local_model(ctx: State<'_, Ctx>, name: String) -> Result<(), AppError> {
    local::remove(&ctx, &name).await
}

/// Loads a local model now, so its first answer starts at once.
#[tauri::command]
#[specta::specta]
pub async fn load_local_model(ctx: State<'_, Ctx>, name: String) -> Result<(), AppError> {
    local::load(&ctx, &name).await
}

/// Unloads the model the engine holds, freeing its memory, once the runs
/// already on it have ended; answers at once.
#[tauri::command]
#[specta::specta]
pub async fn unload_local_model(ctx: State<'_, Ctx>) -> Result<(), AppError> {
    local::unload(&ctx);
    Ok(())
}
