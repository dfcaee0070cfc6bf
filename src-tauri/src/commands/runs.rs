//! Runs: running one agent, the run history, resuming an interrupted run,
//! cancelling. Events stream to the window through a `Channel`.

use colmena_core::caller::Client;
use colmena_core::conversations::Conversation;
use colmena_core::ids::AgentId;
use colmena_core::permissions::approvals::{self, Approval, Decision};
use colmena_core::runs::context::{EventSink, RunEvent};
use colmena_core::runs::{self, Run, RunDetail, RunFilter};
use colmena_core::runtime::agent::{self, AgentRunOptions};
use colmena_core::runtime::{follow_up, resume};
use colmena_core::{AppError, Caller, Ctx};
use tauri::State;
use tauri::ipc::Channel;

/// Run events into the window's channel; a closed window just stops listening.
pub fn sink(channel: Channel<RunEvent>) -> EventSink {
    std::sync::Arc::new(move |event| {
        if let Err(e) = channel.send(event) {
            tracing::debug!("run event not delivered: {e}");
        }
    })
}

#[tauri::command]
#[specta::specta]
pub async fn run_agent(
    ctx: State<'_, Ctx>,
    id: AgentId,
    input: String,
    options: AgentRunOptions,
    on_event: Channel<RunEvent>,
) -> Result<Run, AppError> {
    agent::run_agent(
        &ctx,
        &id,
        &input,
        options.through(Client::Ui),
        sink(on_event),
    )
    .await
}

/// A finished run's result goes on in a new conversation (issue 37).
#[tauri::command]
#[specta::specta]
pub async fn continue_run_in_chat(
    ctx: State<'_, Ctx>,
    run_id: String,
) -> Result<Conversation, AppError> {
    follow_up::continue_in_chat(&ctx, &Caller::ui(&ctx), &run_id).await
}

#[tauri::command]
#[specta::specta]
pub async fn list_runs(ctx: State<'_, Ctx>, filter: RunFilter) -> Result<Vec<Run>, AppError> {
    runs::list(&ctx, filter).await
}

#[tauri::command]
#[specta::specta]
pub async fn get_run(ctx: State<'_, Ctx>, id: String) -> Result<RunDetail, AppError> {
    runs::get(&ctx, &id).await
}

#[tauri::command]
#[specta::specta]
pub async fn resumable_runs(ctx: State<'_, Ctx>) -> Result<Vec<Run>, AppError> {
    runs::resumable(&ctx).await
}

#[tauri::command]
#[specta::specta]
pub async fn resume_run(
    ctx: State<'_, Ctx>,
    id: String,
    on_event: Channel<RunEvent>,
) -> Result<Run, AppError> {
    resume::resume_run(&ctx, &id, sink(on_event)).await
}

#[tauri::command]
#[specta::specta]
pub async fn cancel_run(ctx: State<'_, Ctx>, id: String) -> Result<(), AppError> {
    runs::cancel(&ctx, &id).await
}

#[tauri::command]
#[specta::specta]
pub async fn discard_run(ctx: State<'_, Ctx>, id: String) -> Result<Run, AppError> {
    runs::discard(&ctx, &id).await
}

#[tauri::command]
#[specta::specta]
pub async fn pending_approvals(ctx: State<'_, Ctx>) -> Result<Vec<Approval>, AppError> {
    approvals::pending(&ctx).await
}

#[tauri::command]
#[specta::specta]
pub async fn decide_approval(
    ctx: State<'_, Ctx>,
    id: String,
    decision: Decision,
) -> Result<Approval, AppError> {
    Ok(resume::decide(&ctx, &Caller::ui(&ctx), &id, decision)
        .await?
        .approval)
}
