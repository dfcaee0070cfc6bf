use colmena_core::doctor::{self, WorkspaceInfo};
use colmena_core::{AppError, Ctx};
use tauri::State;

/// Where the workspace lives and which secret backend holds its master key.
#[tauri::command]
#[specta::specta]
pub async fn workspace_info(ctx: State<'_, Ctx>) -> Result<WorkspaceInfo, AppError> {
    doctor::workspace_info(&ctx).await
}
