//! Scheduled jobs (SPEC H25, seed 000 "Cron: híbrido a propósito"): run an
//! agent or a swarm with a prompt, or wake a bus role (B7), on a cron
//! expression or every N seconds, in the job's IANA time zone.
//!
//! Hybrid on purpose. A scheduler runs in the desktop app and in
//! `colmena serve` ([`scheduler`]); a process that only manages jobs (the
//! CLI, a script) needs none:
//! - with a scheduler in this process, a change goes through it: the next
//!   run is computed on its clock and it re-arms at once (the change rings
//!   the cron bell in `Ctx`, which the scheduler listens to);
//! - with none here, the change is written to the store; a scheduler in
//!   another process on the same data dir learns of it through the store's
//!   change feed ([`Change::CronJobs`]), and without any, the next one to
//!   start picks the job up — applying the job's missed-run policy to what
//!   fell due meanwhile (`skip` records a skipped entry saying what was
//!   missed; `run_once` runs once).
//! - [`trigger`] is the exception: it needs a scheduler, here or in another
//!   live process ([`has_scheduler`]), because without one nothing would run
//!   it and answering "done" would be a lie. It is a request row that the
//!   scheduler which deletes it first runs.
//!
//! Any number of schedulers may share a data dir: a fire is claimed by
//! moving `next_run_at` forward only if it still holds the value the
//! scheduler read (as role wake-ups are claimed), so exactly one runs it.
//!
//! A job that fails is loud: its history entry keeps the error, and every
//! process announcing failures ([`announce_failures`]: the app, `colmena
//! serve`) turns it into an urgent notice, whichever process ran the job.
//!
//! Jobs run with nobody watching: the permission gate never waits for a
//! person (what would ask is refused, as for role wake-ups); a role's
//! wake-up keeps what the role was allowed unattended in the Inbox.
//!
//! An agent's or a swarm's job carries its own unattended grant
//! ([`CronJob::unattended`]): the classes a person allowed its runs with
//! nobody watching, the gate's ceiling exactly as a role's grant is (read
//! fresh at each call, so a revoke applies to the next one; never above the
//! agent's own rule). Only a person sets it — the window and the CLI. The
//! model-facing `cron_create`/`cron_update` refuse the field (a model must
//! not grant itself), and a change made through `cron_update` drops the
//! grant: the person allowed those classes for the job as they set it up,
//! and a model that rewrote its prompt or target must not inherit that
//! trust (the job then fails loudly, saying where to allow it again).

mod history;
pub mod presence;
pub mod schedule;
pub mod scheduler;
mod store;
mod targets;

use chrono::{DateTime, Utc};
use rusqlite::OptionalExtension;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

pub use history::announce_failures;
pub use schedule::{Clock, ManualClock, SystemClock, local_time_zone, upcoming};

pub(crate) use history::job_of_run;
pub(crate) use store::grant_of;

use self::presence::{Hub, clock_of, held_elsewhere};
use crate::ctx::{Change, Ctx};
use crate::error::{AppError, ErrorCode, Result};
use crate::risk::Risk;

/// When a job fires.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type, JsonSchema)]
#[serde(
    tag = "kind",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
pub enum Schedule {
    /// A cron expression of five fields read in the job's time zone
    /// (`0 9 * * 1-5`: weekdays at 9:00), or an alias such as `@daily`.
    Cron { expression: String },
    /// Every `seconds` seconds (60 to 31 622 400), in real time.
    Interval { seconds: u32 },
}

/// What a job runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Target {
    /// Runs the agent with the job's prompt.
    Agent { id: String },
    /// Runs the swarm with the job's prompt.
    Swarm { id: String },
    /// Wakes the bus role (its agent reads its inbox); a prompt is first
    /// sent to the role as a message from the workspace owner.
    Role { id: String },
}

impl Target {
    pub fn kind(&self) -> &'static str {
        match self {
            Target::Agent { .. } => "agent",
            Target::Swarm { .. } => "swarm",
            Target::Role { .. } => "role",
        }
    }

    pub fn id(&self) -> &str {
        match self {
            Target::Agent { id } | Target::Swarm { id } | Target::Role { id } => id,
        }
    }
}

/// What happens to fires that fell due while no scheduler ran.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, specta::Type, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum MissedPolicy {
    /// Record them as skipped (the history says what was missed).
    #[default]
    Skip,
    /// Run once when a scheduler starts, standing for all of them.
    RunOnce,
}

impl MissedPolicy {
    pub fn as_str(self) -> &'static str {
        match self {
            MissedPolicy::Skip => "skip",
            MissedPolicy::RunOnce => "run_once",
        }
    }
}

/// Why a history entry exists.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TriggerKind {
    /// Its time came.
    Schedule,
    /// Someone asked for it now ([`trigger`]).
    Manual,
    /// Fires missed while no scheduler ran (policy `run_once`, or a
    /// `skipped` entry for policy `skip`).
    CatchUp,
}

impl TriggerKind {
    pub fn as_str(self) -> &'static str {
        match self {
            TriggerKind::Schedule => "schedule",
            TriggerKind::Manual => "manual",
            TriggerKind::CatchUp => "catch_up",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum HistoryStatus {
    Running,
    Succeeded,
    Failed,
    /// Not run: missed while no scheduler ran, or the previous run was
    /// still going; `note` says which.
    Skipped,
}

impl HistoryStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            HistoryStatus::Running => "running",
            HistoryStatus::Succeeded => "succeeded",
            HistoryStatus::Failed => "failed",
            HistoryStatus::Skipped => "skipped",
        }
    }
}

/// A scheduled job.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct CronJob {
    pub id: String,
    pub name: String,
    pub schedule: Schedule,
    /// IANA name; the cron expression is read in this zone.
    pub time_zone: String,
    pub target: Target,
    /// The name of what it runs (agent, swarm or role), when it still exists.
    pub target_name: Option<String>,
    pub prompt: String,
    pub missed: MissedPolicy,
    pub paused: bool,
    /// What its runs may also do with nobody watching, where the agent's
    /// rule would ask (write, run, network, send); empty: nothing beyond
    /// reading. Always empty for a role's job (the role's grant applies).
    pub unattended: Vec<Risk>,
    /// When it runs next (UTC); none while paused.
    pub next_run_at: Option<DateTime<Utc>>,
    /// The latest history entry.
    pub last: Option<CronRun>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// One entry of a job's history.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct CronRun {
    pub id: i64,
    pub job_id: String,
    pub trigger: TriggerKind,
    /// The fire it stands for (none for a manual run).
    pub scheduled_for: Option<DateTime<Utc>>,
    pub started_at: DateTime<Utc>,
    pub finished_at: Option<DateTime<Utc>>,
    pub status: HistoryStatus,
    pub duration_ms: Option<i64>,
    /// The agent or swarm run it produced.
    pub run_id: Option<String>,
    pub run_kind: Option<crate::runs::RunKind>,
    pub error: Option<String>,
    /// What a skipped or catch-up entry stands for, in words.
    pub note: Option<String>,
    /// The first lines of what its run produced.
    pub output_preview: Option<String>,
    /// Its run's error as the run kept it (code, reason, details): what
    /// the window turns into a one-click fix.
    pub failure: Option<crate::error::AppError>,
}

/// A new job (`cron_create`).
#[derive(Debug, Clone, Serialize, Deserialize, specta::Type, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NewCronJob {
    /// A name to recognise it by; its id is made from it.
    #[schemars(length(min = 1, max = 120))]
    pub name: String,
    pub schedule: Schedule,
    /// IANA time zone (`Europe/Madrid`); default: this computer's.
    #[serde(default)]
    pub time_zone: Option<String>,
    pub target: Target,
    /// What the agent or swarm is asked each time (required for them; for a
    /// role, an optional message it finds in its inbox).
    #[serde(default)]
    #[schemars(length(max = 20000))]
    pub prompt: Option<String>,
    /// Default `skip`.
    #[serde(default)]
    pub missed: Option<MissedPolicy>,
    /// Create it paused.
    #[serde(default)]
    pub paused: Option<bool>,
    /// What its runs may also do with nobody watching (see
    /// [`CronJob::unattended`]); default: nothing. Only a person sets it:
    /// the `cron_create` tool refuses it, and its schema does not show it.
    #[serde(default)]
    #[schemars(skip)]
    pub unattended: Option<Vec<Risk>>,
}

/// A change to a job (`cron_update`): only what is given changes.
#[derive(Debug, Clone, Default, Serialize, Deserialize, specta::Type, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CronJobUpdate {
    #[serde(default)]
    #[schemars(length(min = 1, max = 120))]
    pub name: Option<String>,
    #[serde(default)]
    pub schedule: Option<Schedule>,
    #[serde(default)]
    pub time_zone: Option<String>,
    #[serde(default)]
    pub target: Option<Target>,
    #[serde(default)]
    #[schemars(length(max = 20000))]
    pub prompt: Option<String>,
    #[serde(default)]
    pub missed: Option<MissedPolicy>,
    /// Replaces what its runs may do with nobody watching; absent:
    /// unchanged. Only a person sets it (the `cron_update` tool refuses it).
    #[serde(default)]
    #[schemars(skip)]
    pub unattended: Option<Vec<Risk>>,
}

/// What [`trigger`] answers: the request is queued for a scheduler.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct TriggerReceipt {
    pub job_id: String,
    pub request_id: i64,
    pub requested_at: DateTime<Utc>,
    /// A scheduler of this process will run it (else another process's).
    pub here: bool,
}

/// Who runs scheduled jobs on this data dir.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct SchedulerStatus {
    /// A scheduler runs in this process or another live one.
    pub running: bool,
    /// It is this process's.
    pub here: bool,
}

pub const MAX_NAME_CHARS: usize = 120;
pub const MAX_PROMPT_CHARS: usize = 20_000;
/// Most history entries one call returns.
pub const MAX_HISTORY: u32 = 500;

/// Every job, by name.
pub async fn list(ctx: &Ctx) -> Result<Vec<CronJob>> {
    ctx.store().read(store::list).await
}

pub async fn get(ctx: &Ctx, id: &str) -> Result<CronJob> {
    let id = id.to_owned();
    ctx.store()
        .read(move |conn| store::require(conn, &id))
        .await
}

/// Creates a job; its next run is computed on the clock of this process's
/// scheduler when one runs (which re-arms at once), else on the system clock.
pub async fn create(ctx: &Ctx, input: NewCronJob) -> Result<CronJob> {
    mirror_role_target(ctx, Some(&input.target)).await?;
    let now = clock_of(ctx).now();
    let job = ctx
        .store()
        .write(move |tx| {
            let jobs: u32 = tx.query_row("SELECT COUNT(*) FROM cron_jobs", [], |r| r.get(0))?;
            if jobs >= MAX_JOBS {
                return Err(AppError::new(
                    ErrorCode::Conflict,
                    format!("this workspace already has {MAX_JOBS} scheduled jobs, the most it keeps: delete one first"),
                )
                .with_details(json!({ "reason": "too_many_jobs", "max": MAX_JOBS })));
            }
            store::insert(tx, input, now)
        })
        .await?;
    announce(ctx);
    Ok(job)
}

/// On a bus in PostgreSQL a job's role lives in the bus's database: it is
/// mirrored here (its name and agent) before the job is checked against
/// this store, and a role the bus does not have is refused as here.
async fn mirror_role_target(ctx: &Ctx, target: Option<&Target>) -> Result<()> {
    let Some(Target::Role { id }) = target.filter(|_| ctx.bus().is_shared()) else {
        return Ok(());
    };
    let id = id.trim();
    if id.is_empty() {
        return Ok(()); // refused as `required` by the store's own check
    }
    match crate::inbox::authors::get(ctx, id).await {
        Ok(role) if role.kind == crate::inbox::AuthorKind::Role => {
            crate::inbox::authors::mirror_locally(ctx, &role).await
        }
        Ok(_) => Err(store::unknown_target("role", id)),
        Err(e) if e.code == ErrorCode::NotFound => Err(store::unknown_target("role", id)),
        Err(e) => Err(e),
    }
}

/// The most jobs one workspace keeps (a model with `cron_create` could
/// otherwise fill the scheduler).
pub const MAX_JOBS: u32 = 200;

/// Changes a job. A new schedule or time zone recomputes the next run.
pub async fn update(ctx: &Ctx, id: &str, input: CronJobUpdate) -> Result<CronJob> {
    mirror_role_target(ctx, input.target.as_ref()).await?;
    let now = clock_of(ctx).now();
    let id = id.to_owned();
    let job = ctx
        .store()
        .write(move |tx| store::update(tx, &id, input, now))
        .await?;
    announce(ctx);
    Ok(job)
}

/// Deletes a job and its history.
pub async fn delete(ctx: &Ctx, id: &str) -> Result<()> {
    let id = id.to_owned();
    ctx.store()
        .write(move |tx| {
            if tx.execute("DELETE FROM cron_jobs WHERE id = ?1", [&id])? == 0 {
                return Err(AppError::not_found("scheduled job", &id));
            }
            Ok(())
        })
        .await?;
    announce(ctx);
    Ok(())
}

/// Pauses a job: no fire until it is resumed (and none is "missed").
pub async fn pause(ctx: &Ctx, id: &str) -> Result<CronJob> {
    set_paused(ctx, id, true).await
}

/// Resumes a job: its next run counts from now.
pub async fn resume(ctx: &Ctx, id: &str) -> Result<CronJob> {
    set_paused(ctx, id, false).await
}

async fn set_paused(ctx: &Ctx, id: &str, paused: bool) -> Result<CronJob> {
    let now = clock_of(ctx).now();
    let id = id.to_owned();
    let job = ctx
        .store()
        .write(move |tx| store::set_paused(tx, &id, paused, now))
        .await?;
    announce(ctx);
    Ok(job)
}

/// Asks a scheduler to run the job now. Without any scheduler on this data
/// dir it is an error (`precondition`, `details.reason` = `no_scheduler`):
/// nothing would run it. A paused job runs too: the person asked for it.
pub async fn trigger(ctx: &Ctx, id: &str) -> Result<TriggerReceipt> {
    let status = has_scheduler(ctx).await?;
    if !status.running {
        return Err(AppError::new(
            ErrorCode::Precondition,
            "nothing would run this job now: no scheduler runs on this data dir. Start the Colmena app or `colmena serve`, then try again",
        )
        .with_details(json!({ "reason": "no_scheduler" })));
    }
    let now = clock_of(ctx).now();
    let job_id = id.to_owned();
    let request_id = ctx
        .store()
        .write(move |tx| {
            store::require_row(tx, &job_id)?;
            // One request waits per job: asking again is the same request.
            let waiting: Option<i64> = tx
                .query_row(
                    "SELECT id FROM cron_triggers WHERE job_id = ?1 ORDER BY id LIMIT 1",
                    [&job_id],
                    |r| r.get(0),
                )
                .optional()?;
            if let Some(waiting) = waiting {
                return Ok(waiting);
            }
            tx.execute(
                "INSERT INTO cron_triggers (job_id, requested_at) VALUES (?1, ?2)",
                rusqlite::params![job_id, store::stored(now)],
            )?;
            Ok(tx.last_insert_rowid())
        })
        .await?;
    announce(ctx);
    Ok(TriggerReceipt {
        job_id: id.to_owned(),
        request_id,
        requested_at: now,
        here: status.here,
    })
}

/// A job's history, newest first (at most `limit`, default 50).
pub async fn history(ctx: &Ctx, id: &str, limit: Option<u32>) -> Result<Vec<CronRun>> {
    let id = id.to_owned();
    let limit = limit.unwrap_or(50).clamp(1, MAX_HISTORY);
    ctx.store()
        .read(move |conn| {
            store::require_row(conn, &id)?;
            history::of_job(conn, &id, limit)
        })
        .await
}

/// Whether a scheduler runs on this data dir: in this process, or in
/// another live one (it holds the scheduler lock; a lock dies with its
/// process, so a crash leaves nothing stale).
pub async fn has_scheduler(ctx: &Ctx) -> Result<SchedulerStatus> {
    if Hub::of(ctx).current().is_some() {
        return Ok(SchedulerStatus {
            running: true,
            here: true,
        });
    }
    let dir = ctx.data_dir().to_owned();
    let running = tokio::task::spawn_blocking(move || held_elsewhere(&dir))
        .await
        .map_err(|e| AppError::internal(format!("could not look for a scheduler: {e}")))??;
    Ok(SchedulerStatus {
        running,
        here: false,
    })
}

/// The next `count` (1–20) fires of a schedule in a time zone, from now:
/// what a form shows while it is filled in.
pub async fn preview(
    ctx: &Ctx,
    schedule: Schedule,
    time_zone: String,
    count: u32,
) -> Result<Vec<DateTime<Utc>>> {
    let now = clock_of(ctx).now();
    upcoming(&schedule, &time_zone, now, count.clamp(1, 20) as usize)
}

/// A committed change: live views refresh and this process's scheduler
/// looks again (another process's learns of it from the store).
fn announce(ctx: &Ctx) {
    ctx.changed(Change::CronJobs);
    if Hub::of(ctx).current().is_some() {
        ctx.wake_cron_scheduler();
    }
}
