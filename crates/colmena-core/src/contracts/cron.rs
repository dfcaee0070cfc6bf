//! The scheduling tools (SPEC H25): `cron_create`, `cron_list`,
//! `cron_update`, `cron_pause`, `cron_resume`, `cron_trigger`,
//! `cron_history`, `cron_delete`. A new job's input is the same
//! [`NewCronJob`] the window and the CLI send; the rest name a job by id.
//!
//! These are the model's doors (and an outside client's): what a job may do
//! with nobody watching is a person's grant, so `unattended` is refused
//! here, and a change made here drops the job's grant (see [`crate::cron`]).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::cron::{self, CronJob, CronJobUpdate, CronRun, NewCronJob, Target, TriggerReceipt};
use crate::ctx::Ctx;
use crate::error::{AppError, Result};

/// A model may not grant itself: `unattended` is set by a person, in the
/// job's settings in Cron or with `colmena cron ... --allow`.
fn refuse_grant(given: &Option<Vec<crate::risk::Risk>>) -> Result<()> {
    if given.is_some() {
        return Err(AppError::invalid_field(
            "unattended",
            "person_only",
            "what a job may do with nobody watching is a person's call: they set it in the job's settings in Cron",
        ));
    }
    Ok(())
}

/// A model may not schedule a role's wake-ups: the job's prompt reaches the
/// role as a message from the workspace owner, and the role acts on it with
/// the grant a person gave it in the Inbox — a model must not speak as the
/// person to it.
fn refuse_role(target: Option<&Target>) -> Result<()> {
    if matches!(target, Some(Target::Role { .. })) {
        return Err(AppError::invalid_field(
            "target",
            "person_only",
            "a scheduled wake-up of a role speaks to it as you: a person sets it up in Cron",
        ));
    }
    Ok(())
}

/// One job, by id (`cron_pause`, `cron_resume`, `cron_trigger`,
/// `cron_delete`).
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CronJobArgs {
    /// The job's id (see `cron_list`).
    #[schemars(length(min = 1))]
    pub id: String,
}

/// `cron_update`: what changes in one job; the rest stays.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CronUpdateArgs {
    /// The job's id (see `cron_list`).
    #[schemars(length(min = 1))]
    pub id: String,
    pub changes: CronJobUpdate,
}

/// `cron_history`: a job's runs, newest first.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CronHistoryArgs {
    /// The job's id (see `cron_list`).
    #[schemars(length(min = 1))]
    pub id: String,
    /// Most entries (default 20, at most 500).
    #[serde(default)]
    #[schemars(range(min = 1, max = 500))]
    pub limit: Option<u32>,
}

pub async fn create(ctx: &Ctx, input: NewCronJob) -> Result<CronJob> {
    refuse_grant(&input.unattended)?;
    refuse_role(Some(&input.target))?;
    cron::create(ctx, input).await
}

pub async fn list(ctx: &Ctx) -> Result<Vec<CronJob>> {
    cron::list(ctx).await
}

/// A job changed here loses its unattended grant: the person allowed it for
/// the job as they set it up, not for what a model made of it.
pub async fn update(ctx: &Ctx, input: CronUpdateArgs) -> Result<CronJob> {
    refuse_grant(&input.changes.unattended)?;
    refuse_role(input.changes.target.as_ref())?;
    refuse_role(Some(&cron::get(ctx, &input.id).await?.target))?;
    let changes = CronJobUpdate {
        unattended: Some(Vec::new()),
        ..input.changes
    };
    cron::update(ctx, &input.id, changes).await
}

pub async fn pause(ctx: &Ctx, input: CronJobArgs) -> Result<CronJob> {
    cron::pause(ctx, &input.id).await
}

pub async fn resume(ctx: &Ctx, input: CronJobArgs) -> Result<CronJob> {
    cron::resume(ctx, &input.id).await
}

pub async fn trigger(ctx: &Ctx, input: CronJobArgs) -> Result<TriggerReceipt> {
    cron::trigger(ctx, &input.id).await
}

pub async fn history(ctx: &Ctx, input: CronHistoryArgs) -> Result<Vec<CronRun>> {
    cron::history(ctx, &input.id, Some(input.limit.unwrap_or(20))).await
}

pub async fn delete(ctx: &Ctx, input: CronJobArgs) -> Result<String> {
    cron::delete(ctx, &input.id).await?;
    Ok(format!("deleted scheduled job '{}'", input.id))
}
