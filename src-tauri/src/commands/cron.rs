//! Scheduled jobs (the Cron view, SPEC H25): one line each over
//! `colmena_core::cron`. With the app's scheduler running, changes go
//! through it; `trigger_cron_job` answers an error when no scheduler runs.

use chrono::{DateTime, Utc};
use colmena_core::cron::{
    self, CronJob, CronJobUpdate, CronRun, NewCronJob, Schedule, SchedulerStatus, TriggerReceipt,
};
use colmena_core::{AppError, Ctx};
use tauri::State;

use crate::after_first_paint::Started;

#[tauri::command]
#[specta::specta]
pub async fn list_cron_jobs(ctx: State<'_, Ctx>) -> Result<Vec<CronJob>, AppError> {
    cron::list(&ctx).await
}

#[tauri::command]
#[specta::specta]
pub async fn get_cron_job(ctx: State<'_, Ctx>, id: String) -> Result<CronJob, AppError> {
    cron::get(&ctx, &id).await
}

#[tauri::command]
#[specta::specta]
pub async fn create_cron_job(ctx: State<'_, Ctx>, input: NewCronJob) -> Result<CronJob, AppError> {
    cron::create(&ctx, input).await
}

#[tauri::command]
#[specta::specta]
pub async fn update_cron_job(
    ctx: State<'_, Ctx>,
    id: String,
    input: CronJobUpdate,
) -> Result<CronJob, AppError> {
    cron::update(&ctx, &id, input).await
}

#[tauri::command]
#[specta::specta]
pub async fn delete_cron_job(ctx: State<'_, Ctx>, id: String) -> Result<(), AppError> {
    cron::delete(&ctx, &id).await
}

#[tauri::command]
#[specta::specta]
pub async fn pause_cron_job(ctx: State<'_, Ctx>, id: String) -> Result<CronJob, AppError> {
    cron::pause(&ctx, &id).await
}

#[tauri::command]
#[specta::specta]
pub async fn resume_cron_job(ctx: State<'_, Ctx>, id: String) -> Result<CronJob, AppError> {
    cron::resume(&ctx, &id).await
}

#[tauri::command]
#[specta::specta]
pub async fn trigger_cron_job(
    ctx: State<'_, Ctx>,
    started: State<'_, Started>,
    id: String,
) -> Result<TriggerReceipt, AppError> {
    started.wait().await;
    cron::trigger(&ctx, &id).await
}

#[tauri::command]
#[specta::specta]
pub async fn cron_job_history(
    ctx: State<'_, Ctx>,
    id: String,
    limit: Option<u32>,
) -> Result<Vec<CronRun>, AppError> {
    cron::history(&ctx, &id, limit).await
}

#[tauri::command]
#[specta::specta]
pub async fn cron_scheduler_status(
    ctx: State<'_, Ctx>,
    started: State<'_, Started>,
) -> Result<SchedulerStatus, AppError> {
    // The app's scheduler starts after the first frame (after_first_paint).
    started.wait().await;
    cron::has_scheduler(&ctx).await
}

#[tauri::command]
#[specta::specta]
pub async fn preview_cron_schedule(
    ctx: State<'_, Ctx>,
    schedule: Schedule,
    time_zone: String,
    count: u32,
) -> Result<Vec<DateTime<Utc>>, AppError> {
    cron::preview(&ctx, schedule, time_zone, count).await
}
