//! HTTP endpoints declared as tools (Catalog → Endpoints): one line each
//! over `colmena_core::endpoints`, acting as the person at the window.
//! Secret header values go in, never out: reads name them only.

use colmena_core::endpoints::{self, Endpoint, EndpointInput, EndpointRequest, EndpointTestResult};
use colmena_core::{AppError, Caller, Ctx};
use serde_json::Value;
use tauri::State;

#[tauri::command]
#[specta::specta]
pub async fn list_endpoints(ctx: State<'_, Ctx>) -> Result<Vec<Endpoint>, AppError> {
    endpoints::list(&ctx).await
}

#[tauri::command]
#[specta::specta]
pub async fn get_endpoint(ctx: State<'_, Ctx>, id: String) -> Result<Endpoint, AppError> {
    endpoints::get(&ctx, &id).await
}

#[tauri::command]
#[specta::specta]
pub async fn create_endpoint(
    ctx: State<'_, Ctx>,
    input: EndpointInput,
) -> Result<Endpoint, AppError> {
    endpoints::create(&ctx, &Caller::ui(&ctx), input).await
}

#[tauri::command]
#[specta::specta]
pub async fn update_endpoint(
    ctx: State<'_, Ctx>,
    id: String,
    input: EndpointInput,
) -> Result<Endpoint, AppError> {
    endpoints::update(&ctx, &Caller::ui(&ctx), &id, input).await
}

#[tauri::command]
#[specta::specta]
pub async fn set_endpoint_enabled(
    ctx: State<'_, Ctx>,
    id: String,
    enabled: bool,
) -> Result<Endpoint, AppError> {
    endpoints::set_enabled(&ctx, &Caller::ui(&ctx), &id, Some(enabled)).await
}

#[tauri::command]
#[specta::specta]
pub async fn delete_endpoint(ctx: State<'_, Ctx>, id: String) -> Result<(), AppError> {
    endpoints::delete(&ctx, &Caller::ui(&ctx), &id).await
}

/// Calls a saved endpoint with sample arguments, without the model.
#[tauri::command]
#[specta::specta]
pub async fn test_endpoint(
    ctx: State<'_, Ctx>,
    id: String,
    params: Value,
) -> Result<EndpointTestResult, AppError> {
    endpoints::test(&ctx, &Caller::ui(&ctx), &id, &params).await
}

/// The request the form's definition would send (secrets masked); nothing
/// is stored or sent.
#[tauri::command]
#[specta::specta]
pub async fn preview_endpoint(
    input: EndpointInput,
    params: Value,
) -> Result<EndpointRequest, AppError> {
    endpoints::preview(input, &params)
}
