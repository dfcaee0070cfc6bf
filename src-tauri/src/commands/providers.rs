use std::sync::Arc;

use colmena_core::ids::{ModelId, ProviderId};
use colmena_core::models::{self, AgentRef, Model, ModelFilter, NewModel};
use colmena_core::providers::check::{self, CheckEvent, CheckSink, ConnectionCheck};
use colmena_core::providers::connect::{self, ConnectModel, Connected};
use colmena_core::providers::detect::{self, LocalServer};
use colmena_core::providers::{self, NewProvider, Provider, ProviderKindInfo, ProviderUpdate};
use colmena_core::{AppError, Ctx};
use tauri::State;
use tauri::ipc::Channel;

#[tauri::command]
#[specta::specta]
pub fn provider_kinds() -> Vec<ProviderKindInfo> {
    providers::kinds()
}

#[tauri::command]
#[specta::specta]
pub async fn list_providers(ctx: State<'_, Ctx>) -> Result<Vec<Provider>, AppError> {
    providers::list(&ctx).await
}

#[tauri::command]
#[specta::specta]
pub async fn create_provider(
    ctx: State<'_, Ctx>,
    input: NewProvider,
) -> Result<Provider, AppError> {
    providers::create(&ctx, input).await
}

#[tauri::command]
#[specta::specta]
pub async fn update_provider(
    ctx: State<'_, Ctx>,
    id: ProviderId,
    input: ProviderUpdate,
) -> Result<Provider, AppError> {
    providers::update(&ctx, &id, input).await
}

#[tauri::command]
#[specta::specta]
pub async fn set_provider_enabled(
    ctx: State<'_, Ctx>,
    id: ProviderId,
    enabled: bool,
) -> Result<Provider, AppError> {
    providers::set_enabled(&ctx, &id, enabled).await
}

#[tauri::command]
#[specta::specta]
pub async fn delete_provider(ctx: State<'_, Ctx>, id: ProviderId) -> Result<(), AppError> {
    providers::delete(&ctx, &id).await
}

#[tauri::command]
#[specta::specta]
pub async fn list_models(ctx: State<'_, Ctx>, filter: ModelFilter) -> Result<Vec<Model>, AppError> {
    models::list(&ctx, filter).await
}

#[tauri::command]
#[specta::specta]
pub async fn create_model(ctx: State<'_, Ctx>, input: NewModel) -> Result<Model, AppError> {
    models::create(&ctx, input).await
}

#[tauri::command]
#[specta::specta]
pub async fn set_model_enabled(
    ctx: State<'_, Ctx>,
    id: ModelId,
    enabled: bool,
) -> Result<Model, AppError> {
    models::set_enabled(&ctx, &id, enabled).await
}

#[tauri::command]
#[specta::specta]
pub async fn set_model_label(
    ctx: State<'_, Ctx>,
    id: ModelId,
    label: Option<String>,
) -> Result<Model, AppError> {
    models::set_label(&ctx, &id, label).await
}

/// Whether images are sent to a model: `true`/`false`, or `null` for the
/// default of its name.
#[tauri::command]
#[specta::specta]
pub async fn set_model_images(
    ctx: State<'_, Ctx>,
    id: ModelId,
    setting: Option<bool>,
) -> Result<Model, AppError> {
    models::set_images(&ctx, &id, setting).await
}

#[tauri::command]
#[specta::specta]
pub async fn rename_model(
    ctx: State<'_, Ctx>,
    id: ModelId,
    new_name: String,
) -> Result<Model, AppError> {
    models::rename(&ctx, &id, &new_name).await
}

#[tauri::command]
#[specta::specta]
pub async fn delete_model(ctx: State<'_, Ctx>, id: ModelId) -> Result<(), AppError> {
    models::delete(&ctx, &id).await
}

#[tauri::command]
#[specta::specta]
pub async fn agents_using_model(
    ctx: State<'_, Ctx>,
    id: ModelId,
) -> Result<Vec<AgentRef>, AppError> {
    models::agents_using_model(&ctx, &id).await
}

#[tauri::command]
#[specta::specta]
pub async fn default_model(ctx: State<'_, Ctx>) -> Result<Option<ModelId>, AppError> {
    models::default_model(&ctx).await
}

#[tauri::command]
#[specta::specta]
pub async fn set_default_model(
    ctx: State<'_, Ctx>,
    id: Option<ModelId>,
) -> Result<Option<ModelId>, AppError> {
    models::set_default_model(&ctx, id).await
}

/// The model servers running on this machine's usual ports (the first run).
#[tauri::command]
#[specta::specta]
pub async fn detect_local_servers(ctx: State<'_, Ctx>) -> Result<Vec<LocalServer>, AppError> {
    detect::detect_local_servers(&ctx).await
}

#[tauri::command]
#[specta::specta]
pub async fn connect_model(
    ctx: State<'_, Ctx>,
    input: ConnectModel,
) -> Result<Connected, AppError> {
    connect::connect(&ctx, input).await
}

/// "Test connection": the model's one-line answer streams over `on_event`.
#[tauri::command]
#[specta::specta]
pub async fn test_connection(
    ctx: State<'_, Ctx>,
    id: ModelId,
    on_event: Channel<CheckEvent>,
) -> Result<ConnectionCheck, AppError> {
    check::test_connection(&ctx, &id, check_sink(on_event)).await
}

/// Forwards to the window; a failed send (the window stopped listening)
/// tells the test to stop.
fn check_sink(channel: Channel<CheckEvent>) -> CheckSink {
    Arc::new(move |event| match channel.send(event) {
        Ok(()) => true,
        Err(e) => {
            tracing::debug!("the window stopped listening to a connection test: {e}");
            false
        }
    })
}
