//! `web_search`'s service (Settings → Web search): one line each over
//! `colmena_core::web_search`. The API key goes in, never out: every answer
//! carries only its masked form.

use colmena_core::web_search::{
    self, WebSearchBackendInfo, WebSearchConfig, WebSearchSettings, WebSearchTest,
};
use colmena_core::{AppError, Ctx};
use tauri::State;

#[tauri::command]
#[specta::specta]
pub fn web_search_backends() -> Vec<WebSearchBackendInfo> {
    web_search::backends()
}

#[tauri::command]
#[specta::specta]
pub async fn get_web_search(ctx: State<'_, Ctx>) -> Result<WebSearchConfig, AppError> {
    web_search::get(&ctx).await
}

#[tauri::command]
#[specta::specta]
pub async fn set_web_search(
    ctx: State<'_, Ctx>,
    input: WebSearchSettings,
) -> Result<WebSearchConfig, AppError> {
    web_search::set(&ctx, input).await
}

#[tauri::command]
#[specta::specta]
pub async fn clear_web_search(ctx: State<'_, Ctx>) -> Result<WebSearchConfig, AppError> {
    web_search::clear(&ctx).await
}

#[tauri::command]
#[specta::specta]
pub async fn test_web_search(
    ctx: State<'_, Ctx>,
    query: Option<String>,
) -> Result<WebSearchTest, AppError> {
    web_search::test(&ctx, query).await
}
