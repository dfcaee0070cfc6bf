//! The bus in the desktop (SPEC B5): authors, the inbox of each, compose,
//! sent, delete, wake-ups, and the local server — one line each over
//! `colmena-core`. The app runs on the workspace's machine, so it acts as
//! `Caller::ui`; it sends as the owner's own author.

use colmena_core::connect::{self, ClientConfig, ConnectRequest};
use colmena_core::inbox::{
    self, Author, AuthorUpdate, AuthorWithToken, Caller, InboxQuery, Message, NewAuthor,
    SendMessage, SentQuery,
};
use colmena_core::{AppError, Ctx};
use tauri::State;

use crate::server::{LocalServer, ServerStatus};

#[tauri::command]
#[specta::specta]
pub async fn list_authors(ctx: State<'_, Ctx>) -> Result<Vec<Author>, AppError> {
    inbox::authors::list(&ctx).await
}

#[tauri::command]
#[specta::specta]
pub async fn create_author(
    ctx: State<'_, Ctx>,
    input: NewAuthor,
) -> Result<AuthorWithToken, AppError> {
    inbox::authors::create(&ctx, input).await
}

#[tauri::command]
#[specta::specta]
pub async fn update_author(
    ctx: State<'_, Ctx>,
    id: String,
    input: AuthorUpdate,
) -> Result<Author, AppError> {
    inbox::authors::update(&ctx, &id, input).await
}

/// What the workspace's owner is called, here and on the bus.
#[tauri::command]
#[specta::specta]
pub async fn set_my_name(ctx: State<'_, Ctx>, name: String) -> Result<Author, AppError> {
    let me = ctx.owner().to_owned();
    inbox::authors::set_person_name(&ctx, &me, &name).await
}

#[tauri::command]
#[specta::specta]
pub async fn rotate_author_token(
    ctx: State<'_, Ctx>,
    id: String,
) -> Result<AuthorWithToken, AppError> {
    inbox::authors::rotate_token(&ctx, &id).await
}

#[tauri::command]
#[specta::specta]
pub async fn remove_author(ctx: State<'_, Ctx>, id: String) -> Result<(), AppError> {
    inbox::authors::remove(&ctx, &id).await
}

/// A role's wake-ups, newest first (issue 15).
#[tauri::command]
#[specta::specta]
pub async fn list_wake_history(
    ctx: State<'_, Ctx>,
    author_id: String,
    before: Option<i64>,
    limit: Option<u32>,
) -> Result<Vec<colmena_core::roles::wake_history::WakeRecord>, AppError> {
    colmena_core::roles::wake_history::list(&ctx, &Caller::ui(&ctx), &author_id, before, limit)
        .await
}

/// The summary standing for a role's older turns, if one was made.
#[tauri::command]
#[specta::specta]
pub async fn role_thread_summary(
    ctx: State<'_, Ctx>,
    author_id: String,
) -> Result<Option<colmena_core::roles::role_thread::ThreadSummary>, AppError> {
    colmena_core::roles::role_thread::summary(&ctx, &author_id).await
}

#[tauri::command]
#[specta::specta]
pub async fn wake_author(ctx: State<'_, Ctx>, id: String) -> Result<Author, AppError> {
    colmena_core::roles::wakes::wake_now(&ctx, &id).await
}

#[tauri::command]
#[specta::specta]
pub async fn send_bus_message(
    ctx: State<'_, Ctx>,
    to: String,
    message: SendMessage,
) -> Result<Message, AppError> {
    inbox::messages::send(&ctx, &Caller::ui(&ctx), ctx.owner(), &to, message).await
}

#[tauri::command]
#[specta::specta]
pub async fn read_inbox(
    ctx: State<'_, Ctx>,
    author: String,
    query: InboxQuery,
) -> Result<Vec<Message>, AppError> {
    inbox::messages::inbox(&ctx, &Caller::ui(&ctx), &author, query).await
}

/// Full-text search over the mail `author` sent or received, best match
/// first (nothing is marked read).
#[tauri::command]
#[specta::specta]
pub async fn search_bus_messages(
    ctx: State<'_, Ctx>,
    author: String,
    query: String,
    limit: Option<u32>,
) -> Result<Vec<Message>, AppError> {
    inbox::search::search(&ctx, &Caller::ui(&ctx), &author, &query, limit).await
}

#[tauri::command]
#[specta::specta]
pub async fn mark_messages_read(
    ctx: State<'_, Ctx>,
    author: String,
    ids: Vec<String>,
) -> Result<u32, AppError> {
    inbox::messages::mark_read(&ctx, &Caller::ui(&ctx), &author, ids).await
}

/// Marks messages of `author`'s inbox unread again (the person, by hand).
#[tauri::command]
#[specta::specta]
pub async fn mark_messages_unread(
    ctx: State<'_, Ctx>,
    author: String,
    ids: Vec<String>,
) -> Result<u32, AppError> {
    inbox::messages::mark_unread(&ctx, &Caller::ui(&ctx), &author, ids).await
}

/// The thread `message_id` is in, oldest first, as `author` sees it.
#[tauri::command]
#[specta::specta]
pub async fn read_bus_thread(
    ctx: State<'_, Ctx>,
    author: String,
    message_id: String,
) -> Result<Vec<Message>, AppError> {
    inbox::messages::thread(&ctx, &Caller::ui(&ctx), &author, &message_id).await
}

#[tauri::command]
#[specta::specta]
pub async fn list_sent(
    ctx: State<'_, Ctx>,
    author: String,
    query: SentQuery,
) -> Result<Vec<Message>, AppError> {
    inbox::messages::sent(&ctx, &Caller::ui(&ctx), &author, query).await
}

#[tauri::command]
#[specta::specta]
pub async fn delete_bus_message(ctx: State<'_, Ctx>, id: String) -> Result<(), AppError> {
    inbox::messages::delete(&ctx, &Caller::ui(&ctx), ctx.owner(), &id).await
}

#[tauri::command]
#[specta::specta]
pub async fn server_status(server: State<'_, LocalServer>) -> Result<ServerStatus, AppError> {
    // The server starts just after the first frame (after_first_paint).
    Ok(server.status_once_tried().await)
}

#[tauri::command]
#[specta::specta]
pub async fn set_server_port(
    ctx: State<'_, Ctx>,
    server: State<'_, LocalServer>,
    port: u32,
) -> Result<ServerStatus, AppError> {
    let port = inbox::local_server::set_port(&ctx, port).await?;
    Ok(server.restart(&ctx, port).await)
}

/// The exact configuration that connects an AI client (Claude Code, Claude
/// Desktop, Cursor) to Colmena's MCP server, minting a token on request.
#[tauri::command]
#[specta::specta]
pub async fn mcp_client_config(
    ctx: State<'_, Ctx>,
    request: ConnectRequest,
) -> Result<ClientConfig, AppError> {
    let program = connect::cli_program(std::env::current_exe().ok().as_deref());
    connect::client_config(&ctx, request, &program).await
}
