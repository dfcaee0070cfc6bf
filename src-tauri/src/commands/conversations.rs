//! Conversations with agents (SPEC H39–H44) in the desktop channel, as the
//! workspace owner; a message runs the agent and streams its answer.
//! Images attached to a message are the owner's artifacts: uploaded from a
//! drop (base64 over the IPC, decoded here — transport, not logic) or
//! picked in the native dialog, whose paths never come from the page.

use colmena_core::conversations::search::{self, ConversationHit};
use colmena_core::conversations::{
    self, ChatMessage, Conversation, ListOptions, Resumable, branches, markdown,
};
use colmena_core::ids::AgentId;
use colmena_core::images::ImagePreview;
use colmena_core::images::{self, Artifact};
use colmena_core::runs::Run;
use colmena_core::runs::context::RunEvent;
use colmena_core::runtime::chat;
use colmena_core::{AppError, Ctx};
use tauri::State;
use tauri::ipc::Channel;

use super::desktop::Dialogs;
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

/// A new conversation with the messages before `message_id` (one the
/// person wrote): editing or asking again, the original kept.
#[tauri::command]
#[specta::specta]
pub async fn fork_conversation(
    ctx: State<'_, Ctx>,
    id: String,
    message_id: i64,
) -> Result<Conversation, AppError> {
    branches::fork(&ctx, &id, message_id).await
}

/// The model the conversation answers with; `None`: its agent's own.
#[tauri::command]
#[specta::specta]
pub async fn set_conversation_model(
    ctx: State<'_, Ctx>,
    id: String,
    model_id: Option<String>,
) -> Result<Conversation, AppError> {
    branches::set_model(&ctx, &id, model_id.as_deref()).await
}

#[tauri::command]
#[specta::specta]
pub async fn search_conversations(
    ctx: State<'_, Ctx>,
    query: String,
) -> Result<Vec<ConversationHit>, AppError> {
    search::search(&ctx, None, &query).await
}

/// Opens the save dialog, then writes the conversation as Markdown there;
/// `false` when the person cancelled.
#[tauri::command]
#[specta::specta]
pub async fn export_conversation_to_file(
    dialogs: State<'_, Dialogs>,
    ctx: State<'_, Ctx>,
    id: String,
    title: String,
) -> Result<bool, AppError> {
    let document = markdown::to_markdown(&ctx, &id).await?;
    dialogs.save_document(title, &document).await
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
    images: Vec<String>,
    on_event: Channel<RunEvent>,
) -> Result<Run, AppError> {
    chat::send_with_images(
        &ctx,
        &conversation_id,
        None,
        &text,
        &images,
        None,
        sink(on_event),
    )
    .await
}

/// An image dropped on the composer, stored as the owner's artifact.
#[tauri::command]
#[specta::specta]
pub async fn upload_chat_image(
    ctx: State<'_, Ctx>,
    name: String,
    data_base64: String,
) -> Result<Artifact, AppError> {
    use base64::Engine;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(data_base64.as_bytes())
        .map_err(|e| {
            AppError::invalid_field(
                "file",
                "not_base64",
                format!("the file did not arrive whole: {e}"),
            )
        })?;
    images::upload(&ctx, ctx.owner(), &name, bytes).await
}

/// Opens the native dialog for image files and stores the chosen ones;
/// empty when the person cancelled.
#[tauri::command]
#[specta::specta]
pub async fn pick_chat_images(
    dialogs: State<'_, Dialogs>,
    ctx: State<'_, Ctx>,
    title: String,
) -> Result<Vec<Artifact>, AppError> {
    let mut stored = Vec::new();
    for path in dialogs.pick_images(title).await {
        stored.push(images::upload_file(&ctx, ctx.owner(), &path).await?);
    }
    Ok(stored)
}

/// A thumbnail of one of the owner's images (its copy for models).
#[tauri::command]
#[specta::specta]
pub async fn chat_image_preview(
    ctx: State<'_, Ctx>,
    artifact_id: String,
) -> Result<ImagePreview, AppError> {
    images::preview(&ctx, ctx.owner(), &artifact_id).await
}
