use colmena_core::canvas::{Caller, CanvasDetail};
use colmena_core::doctor::{self, WorkspaceInfo};
use colmena_core::setup::topic;
use colmena_core::{AppError, Ctx};
use tauri::State;

/// Where the workspace lives and which secret backend holds its master key.
#[tauri::command]
#[specta::specta]
pub async fn workspace_info(ctx: State<'_, Ctx>) -> Result<WorkspaceInfo, AppError> {
    doctor::workspace_info(&ctx).await
}

/// The first run's canvas, in the window's `language`: about the `topic`
/// the person pasted (text or a link), else the sample.
#[tauri::command]
#[specta::specta]
pub async fn open_sample_canvas(
    ctx: State<'_, Ctx>,
    language: String,
    topic: Option<String>,
) -> Result<CanvasDetail, AppError> {
    topic::open_first_canvas(&ctx, &Caller::ui(&ctx), &language, topic.as_deref()).await
}
