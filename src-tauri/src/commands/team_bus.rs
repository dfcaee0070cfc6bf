//! This desktop on a team's bus (issue 17): Settings → Bus and the team
//! panel of the Inbox view — one line each over `colmena_core::team_bus`.
//! The token goes in once and comes back only masked.

use colmena_core::inbox::authors::DirectoryEntry;
use colmena_core::inbox::{InboxQuery, Message, SendMessage};
use colmena_core::team_bus::{self as team, OutboxEntry, TeamBusConnect, TeamBusLink, outbox};
use colmena_core::{AppError, Ctx};
use tauri::State;

#[tauri::command]
#[specta::specta]
pub async fn team_bus_status(ctx: State<'_, Ctx>) -> Result<Option<TeamBusLink>, AppError> {
    team::status(&ctx).await
}

#[tauri::command]
#[specta::specta]
pub async fn connect_team_bus(
    ctx: State<'_, Ctx>,
    input: TeamBusConnect,
) -> Result<TeamBusLink, AppError> {
    team::connect(&ctx, input).await
}

#[tauri::command]
#[specta::specta]
pub async fn disconnect_team_bus(ctx: State<'_, Ctx>) -> Result<u32, AppError> {
    team::disconnect(&ctx).await
}

#[tauri::command]
#[specta::specta]
pub async fn team_bus_inbox(
    ctx: State<'_, Ctx>,
    query: InboxQuery,
) -> Result<Vec<Message>, AppError> {
    team::inbox(&ctx, query).await
}

/// Who is on the team bus, by name (the "To" picker).
#[tauri::command]
#[specta::specta]
pub async fn team_bus_authors(ctx: State<'_, Ctx>) -> Result<Vec<DirectoryEntry>, AppError> {
    team::authors(&ctx).await
}

#[tauri::command]
#[specta::specta]
pub async fn send_team_message(
    ctx: State<'_, Ctx>,
    to: String,
    message: SendMessage,
) -> Result<OutboxEntry, AppError> {
    outbox::send(&ctx, &to, message).await
}

#[tauri::command]
#[specta::specta]
pub async fn team_outbox(ctx: State<'_, Ctx>) -> Result<Vec<OutboxEntry>, AppError> {
    outbox::list(&ctx).await
}

#[tauri::command]
#[specta::specta]
pub async fn discard_outbox_entry(ctx: State<'_, Ctx>, seq: i64) -> Result<(), AppError> {
    outbox::discard(&ctx, seq).await
}
