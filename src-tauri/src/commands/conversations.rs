//! Conversations with agents (SPEC H39–H44) in the desktop channel, as the
//! workspace owner; a message runs the agent and streams its answer.

use colmena_core::conversations::{self, ChatMessage, Conversation, ListOptions, Resumable};
use colmena_core::ids::AgentId;
use colmena_core::runs::Run;
use colmena_core::runtime::{RunEvent, chat};
use colmena_core::{AppError, Ctx};
use tauri::State;
use tauri::ipc::Channel;

use super::runs::sink;

#[tauri::command]
#[specta::specta]
pub async fn list_conversations(
    ctx: State<'_, Ctx>,
    options: ListOptions,
) -> Result<Vec<Conversation>, AppError> {
    conversations::list(&ctx, None, options).await
}

#[tauri::command]
#[specta::specta]
pub async fn create_conversation(
    ctx: State<'_, Ctx>,
    agent_id: AgentId,
) -> Result<Conversation, AppError> {
    conversations::create_web_conversation(&ctx, None, Some(agent_id.as_str())).await
}

#[tauri::command]
#[specta::specta]
pub async fn conversation_history(
    ctx: State<'_, Ctx>,
    id: String,
) -> Result<Vec<ChatMessage>, AppError> {
    conversations::history(&ctx, &id).await
}

#[tauri::command]
#[specta::specta]
pub async fn rename_conversation(
    ctx: State<'_, Ctx>,
    id: String,
    title: String,
) -> Result<Conversation, AppError> {
    conversations::rename(&ctx, &id, &title).await
}

#[tauri::command]
#[specta::specta]
pub async fn close_conversation(ctx: State<'_, Ctx>, id: String) -> Result<Conversation, AppError> {
    conversations::close(&ctx, &id).await
}

#[tauri::command]
#[specta::specta]
pub async fn reopen_conversation(
    ctx: State<'_, Ctx>,
    id: String,
) -> Result<Conversation, AppError> {
    conversations::reopen(&ctx, &id).await
}

#[tauri::command]
#[specta::specta]
pub async fn delete_conversation(ctx: State<'_, Ctx>, id: String) -> Result<(), AppError> {
    conversations::delete(&ctx, &id).await
}

#[tauri::command]
#[specta::specta]
pub async fn conversation_resume(
    ctx: State<'_, Ctx>,
    id: String,
) -> Result<Option<Resumable>, AppError> {
    conversations::resume(&ctx, &id).await
}

#[tauri::command]
#[specta::specta]
pub async fn send_chat_message(
    ctx: State<'_, Ctx>,
    conversation_id: String,
    text: String,
    on_event: Channel<RunEvent>,
) -> Result<Run, AppError> {
    chat::send(&ctx, &conversation_id, None, &text, None, sink(on_event)).await
}
