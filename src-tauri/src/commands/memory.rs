//! The desktop user's memories: the app acts as the workspace owner, so no
//! user id crosses IPC.

use colmena_core::memory::{self, Memory, MemoryHit};
use colmena_core::{AppError, Caller, Ctx};
use tauri::State;

#[tauri::command]
#[specta::specta]
pub async fn list_memories(
    ctx: State<'_, Ctx>,
    limit: Option<u32>,
    offset: Option<u32>,
) -> Result<Vec<Memory>, AppError> {
    memory::list(&ctx, &Caller::ui(&ctx), limit, offset).await
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
pub async fn delete_memory(ctx: State<'_, Ctx>, title: String) -> Result<(), AppError> {
    memory::delete(&ctx, &Caller::ui(&ctx), &title).await
}

#[tauri::command]
#[specta::specta]
pub async fn search_memories(
    ctx: State<'_, Ctx>,
    query: String,
    limit: Option<u32>,
) -> Result<Vec<MemoryHit>, AppError> {
    memory::search(&ctx, &Caller::ui(&ctx), &query, limit).await
}
