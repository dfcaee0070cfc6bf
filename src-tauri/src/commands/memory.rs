//! The desktop user's memories: the app acts as the workspace owner, so no
//! user id crosses IPC. `role` reads a role's own memories instead (the
//! Memory view filtered by role, a role's page; issue 15).

use colmena_core::memory::{self, Memory, MemoryHit};
use colmena_core::{AppError, Caller, Ctx};
use tauri::State;

#[tauri::command]
#[specta::specta]
pub async fn list_memories(
    ctx: State<'_, Ctx>,
    limit: Option<u32>,
    offset: Option<u32>,
    role: Option<String>,
) -> Result<Vec<Memory>, AppError> {
    memory::list(&ctx, &whose(&ctx, role).await?, limit, offset).await
}

/// The window, or the window reading `role`'s memories.
async fn whose(ctx: &Ctx, role: Option<String>) -> Result<Caller, AppError> {
    match role {
        Some(role) => memory::role_caller(ctx, &Caller::ui(ctx), &role).await,
        None => Ok(Caller::ui(ctx)),
    }
}

#[tauri::command]
#[specta::specta]
pub async fn write_memory(
    ctx: State<'_, Ctx>,
    title: String,
    content: String,
) -> Result<Memory, AppError> {
    memory::write(&ctx, &Caller::ui(&ctx), &title, &content).await
}

#[tauri::command]
#[specta::specta]
pub async fn delete_memory(
    ctx: State<'_, Ctx>,
    title: String,
    role: Option<String>,
) -> Result<(), AppError> {
    memory::delete(&ctx, &whose(&ctx, role).await?, &title).await
}

#[tauri::command]
#[specta::specta]
pub async fn search_memories(
    ctx: State<'_, Ctx>,
    query: String,
    limit: Option<u32>,
    role: Option<String>,
) -> Result<Vec<MemoryHit>, AppError> {
    memory::search(&ctx, &whose(&ctx, role).await?, &query, limit).await
}
