//! Activity: the window's home, the timeline of everything that ran for
//! the person, and "since you last looked".

use colmena_core::activity::{self, ActivityFilter, ActivityPage};
use colmena_core::{AppError, Caller, Ctx};
use tauri::State;

#[tauri::command]
#[specta::specta]
pub async fn activity_timeline(
    ctx: State<'_, Ctx>,
    filter: ActivityFilter,
) -> Result<ActivityPage, AppError> {
    activity::timeline(&ctx, &Caller::ui(&ctx), filter).await
}

#[tauri::command]
#[specta::specta]
pub async fn mark_activity_seen(ctx: State<'_, Ctx>) -> Result<(), AppError> {
    activity::mark_seen(&ctx, &Caller::ui(&ctx)).await.map(drop)
}
