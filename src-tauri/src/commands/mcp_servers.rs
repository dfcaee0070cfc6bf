//! MCP servers Colmena uses as a client (Catalog → MCP servers): one line
//! each over `colmena_core::mcp_servers`, acting as the person at the window.

use colmena_core::mcp_servers::import::{self, ImportOptions, ImportOutcome, ImportPreview};
use colmena_core::mcp_servers::presets::{self, McpPreset};
use colmena_core::mcp_servers::{self, McpServer, McpServerInput, McpTestResult};
use colmena_core::{AppError, Caller, Ctx};
use tauri::State;

use super::desktop::Dialogs;

#[tauri::command]
#[specta::specta]
pub async fn list_mcp_servers(ctx: State<'_, Ctx>) -> Result<Vec<McpServer>, AppError> {
    mcp_servers::list(&ctx).await
}

#[tauri::command]
#[specta::specta]
pub async fn get_mcp_server(ctx: State<'_, Ctx>, id: String) -> Result<McpServer, AppError> {
    mcp_servers::get(&ctx, &id).await
}

#[tauri::command]
#[specta::specta]
pub async fn create_mcp_server(
    ctx: State<'_, Ctx>,
    input: McpServerInput,
) -> Result<McpServer, AppError> {
    mcp_servers::create(&ctx, &Caller::ui(&ctx), input).await
}

#[tauri::command]
#[specta::specta]
pub async fn update_mcp_server(
    ctx: State<'_, Ctx>,
    id: String,
    input: McpServerInput,
) -> Result<McpServer, AppError> {
    mcp_servers::update(&ctx, &Caller::ui(&ctx), &id, input).await
}

#[tauri::command]
#[specta::specta]
pub async fn set_mcp_server_enabled(
    ctx: State<'_, Ctx>,
    id: String,
    enabled: bool,
) -> Result<McpServer, AppError> {
    mcp_servers::set_enabled(&ctx, &Caller::ui(&ctx), &id, Some(enabled)).await
}

#[tauri::command]
#[specta::specta]
pub async fn delete_mcp_server(ctx: State<'_, Ctx>, id: String) -> Result<(), AppError> {
    mcp_servers::delete(&ctx, &Caller::ui(&ctx), &id).await
}

#[tauri::command]
#[specta::specta]
pub async fn test_mcp_server(ctx: State<'_, Ctx>, id: String) -> Result<McpTestResult, AppError> {
    mcp_servers::test(&ctx, &Caller::ui(&ctx), &id).await
}

#[tauri::command]
#[specta::specta]
pub async fn mcp_server_presets() -> Result<Vec<McpPreset>, AppError> {
    Ok(presets::presets())
}

/// What importing `text` (an `mcpServers` JSON) would do; nothing is written.
#[tauri::command]
#[specta::specta]
pub async fn preview_mcp_import(
    ctx: State<'_, Ctx>,
    text: String,
    options: ImportOptions,
) -> Result<ImportPreview, AppError> {
    import::preview(&ctx, &text, options).await
}

#[tauri::command]
#[specta::specta]
pub async fn import_mcp_servers(
    ctx: State<'_, Ctx>,
    text: String,
    options: ImportOptions,
) -> Result<ImportOutcome, AppError> {
    import::import(&ctx, &Caller::ui(&ctx), &text, options).await
}

/// Opens the file picker and returns the chosen configuration's text, for
/// the import dialog to preview; `None` when the person cancelled. The path
/// comes from the native dialog, never from the page.
#[tauri::command]
#[specta::specta]
pub async fn pick_mcp_config_file(
    dialogs: State<'_, Dialogs>,
    title: String,
) -> Result<Option<String>, AppError> {
    match dialogs.pick_json(title).await {
        Some(path) => import::read_config_file(&path).map(Some),
        None => Ok(None),
    }
}
