//! Swarms: CRUD, what their members still need, and runs streamed to the
//! window through a `Channel` — one line each over `colmena-core`.

use colmena_core::caller::Client;
use colmena_core::ids::AgentId;
use colmena_core::runs::Run;
use colmena_core::runs::context::RunEvent;
use colmena_core::setup::ActivationPlan;
use colmena_core::swarms::run::{self as swarm_run, SwarmRunOptions};
use colmena_core::swarms::{self, NewSwarm, Swarm, SwarmSaved, SwarmUpdate};
use colmena_core::{AppError, Ctx};
use tauri::State;
use tauri::ipc::Channel;

use super::runs::sink;

#[tauri::command]
#[specta::specta]
pub async fn list_swarms(ctx: State<'_, Ctx>) -> Result<Vec<Swarm>, AppError> {
    swarms::list(&ctx).await
}

#[tauri::command]
#[specta::specta]
pub async fn get_swarm(ctx: State<'_, Ctx>, id: String) -> Result<Swarm, AppError> {
    swarms::get(&ctx, &id).await
}

#[tauri::command]
#[specta::specta]
pub async fn create_swarm(ctx: State<'_, Ctx>, input: NewSwarm) -> Result<SwarmSaved, AppError> {
    swarms::create(&ctx, input).await
}

#[tauri::command]
#[specta::specta]
pub async fn update_swarm(
    ctx: State<'_, Ctx>,
    id: String,
    input: SwarmUpdate,
) -> Result<SwarmSaved, AppError> {
    swarms::update(&ctx, &id, input).await
}

#[tauri::command]
#[specta::specta]
pub async fn set_swarm_enabled(
    ctx: State<'_, Ctx>,
    id: String,
    enabled: bool,
) -> Result<Swarm, AppError> {
    swarms::switch(&ctx, &id, Some(enabled)).await
}

#[tauri::command]
#[specta::specta]
pub async fn delete_swarm(ctx: State<'_, Ctx>, id: String) -> Result<(), AppError> {
    swarms::delete(&ctx, &id).await
}

#[tauri::command]
#[specta::specta]
pub async fn swarm_pending_activation(
    ctx: State<'_, Ctx>,
    agents: Vec<AgentId>,
) -> Result<ActivationPlan, AppError> {
    swarms::pending_activation(&ctx, agents).await
}

#[tauri::command]
#[specta::specta]
pub async fn run_swarm(
    ctx: State<'_, Ctx>,
    id: String,
    input: String,
    options: SwarmRunOptions,
    on_event: Channel<RunEvent>,
) -> Result<Run, AppError> {
    swarm_run::run(
        &ctx,
        &id,
        &input,
        options.through(Client::Ui),
        sink(on_event),
    )
    .await
}
