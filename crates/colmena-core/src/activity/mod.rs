//! Activity (issue 37): one timeline of everything that ran for a person —
//! canvas generations, chats, agent and swarm runs, scheduled jobs, role
//! wake-ups — with the approvals waiting for them on top, figures for
//! today and the last seven days, and what ran since they last looked.
//!
//! Why it is read, not written: every source already keeps its rows (the
//! runs, the rounds, the job history, the wake history, the approvals). The
//! timeline is their union at read time, so history shows at once after an
//! upgrade and nothing is kept twice. Each source is read newest first on
//! its own index ([`sources`]) and the lists are merged. A run that a job
//! or a wake-up started is that job's or wake-up's entry, never a second
//! one; runs a run started (delegations, swarm members) are inside it.
//!
//! Names, not ids: each entry carries the name of what ran and of who or
//! what started it, as the rows say now.

mod figures;
mod sources;

pub(crate) use sources::preview;

use chrono::{DateTime, Duration, Local, TimeZone, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::caller::{Caller, Client};
use crate::ctx::Ctx;
use crate::error::{AppError, Result};
use crate::llm::Usage;
use crate::store::meta;

/// What an entry is.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, specta::Type, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum ActivityKind {
    /// A round a model wrote on a canvas.
    Generation,
    /// A turn of a conversation.
    Chat,
    /// An agent run outside a conversation.
    Agent,
    Swarm,
    /// A scheduled job's fire.
    Job,
    /// A role woken to read its mail.
    WakeUp,
    /// A tool call waiting for the person's decision.
    Approval,
}

impl ActivityKind {
    pub const ALL: [ActivityKind; 7] = [
        ActivityKind::Generation,
        ActivityKind::Chat,
        ActivityKind::Agent,
        ActivityKind::Swarm,
        ActivityKind::Job,
        ActivityKind::WakeUp,
        ActivityKind::Approval,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ActivityKind::Generation => "generation",
            ActivityKind::Chat => "chat",
            ActivityKind::Agent => "agent",
            ActivityKind::Swarm => "swarm",
            ActivityKind::Job => "job",
            ActivityKind::WakeUp => "wake_up",
            ActivityKind::Approval => "approval",
        }
    }

    /// The kind a door names (`wake_up`, `wake-up`); `None` for no kind.
    pub fn parse(text: &str) -> Option<ActivityKind> {
        let text = text.trim().replace('-', "_");
        Self::ALL.into_iter().find(|k| k.as_str() == text)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum ActivityStatus {
    Running,
    Completed,
    Failed,
    Cancelled,
    /// Its process went away; resumable when it saved a checkpoint.
    Interrupted,
    /// A job's fire that did not run (its reason is the preview).
    Skipped,
    /// An approval: the person decides.
    Waiting,
}

impl ActivityStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            ActivityStatus::Running => "running",
            ActivityStatus::Completed => "completed",
            ActivityStatus::Failed => "failed",
            ActivityStatus::Cancelled => "cancelled",
            ActivityStatus::Interrupted => "interrupted",
            ActivityStatus::Skipped => "skipped",
            ActivityStatus::Waiting => "waiting",
        }
    }
}

/// Who or what started an entry, by name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(tag = "by", rename_all = "snake_case")]
pub enum Starter {
    /// A person, through a door (`None` where the door was not recorded).
    Person {
        id: String,
        name: String,
        client: Option<Client>,
    },
    /// A scheduled job.
    Job { id: String, name: String },
    /// A role, woken by its schedule or its mail.
    Role { id: String, name: String },
}

/// Where an entry leads: what the window opens on a click.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ActivityLink {
    pub run_id: Option<String>,
    pub canvas_id: Option<String>,
    pub variant_id: Option<String>,
    pub thread_id: Option<String>,
    pub job_id: Option<String>,
    pub role_id: Option<String>,
    pub approval_id: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ActivityEntry {
    /// Unique in the timeline: `run:…`, `round:…`, `job:…`, `wake:…`,
    /// `approval:…`.
    pub key: String,
    pub kind: ActivityKind,
    pub status: ActivityStatus,
    /// The name of what ran: the agent, swarm, canvas, job or role (`None`
    /// for an untitled canvas).
    pub title: Option<String>,
    /// The first line of what it was asked.
    pub detail: Option<String>,
    /// A generation: the variant's preset (`x-thread`, `custom`, …), the
    /// round (from 1) and the model that wrote it.
    pub preset: Option<String>,
    pub round: Option<u32>,
    pub model: Option<String>,
    /// An approval: the tool waiting.
    pub tool: Option<String>,
    pub started_by: Starter,
    /// Its place in the timeline: when it started (a round: when it was
    /// written; an approval: when it was asked).
    pub at: DateTime<Utc>,
    pub finished_at: Option<DateTime<Utc>>,
    pub duration_ms: Option<u64>,
    pub usage: Usage,
    /// The first lines of what it produced, or why it failed.
    pub preview: Option<String>,
    /// Waiting for the person: an approval, or a cut-off run to resume.
    pub needs_you: bool,
    pub link: ActivityLink,
}

/// Counts over a period.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ActivityFigures {
    /// Runs, rounds, fires and wake-ups that started in the period.
    pub runs: u32,
    pub failures: u32,
    /// Tokens in and out the providers reported.
    pub tokens: u64,
}

/// What ran since the person last looked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct SinceSeen {
    pub seen_at: DateTime<Utc>,
    pub figures: ActivityFigures,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ActivityPage {
    /// Newest first.
    pub entries: Vec<ActivityEntry>,
    /// More entries lie before the last one (ask with `before` = its `at`).
    pub more: bool,
    /// Since local midnight.
    pub today: ActivityFigures,
    /// The last seven days.
    pub week: ActivityFigures,
    /// Approvals waiting now.
    pub waiting: u32,
    /// `None` until the person has looked once.
    pub since_seen: Option<SinceSeen>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, specta::Type, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ActivityFilter {
    /// Only these kinds (none: every kind).
    #[serde(default)]
    pub kinds: Vec<ActivityKind>,
    /// Only what waits for the person.
    #[serde(default)]
    pub needs_you: bool,
    /// Entries before this time (the `at` of the last entry of a page).
    #[serde(default)]
    pub before: Option<DateTime<Utc>>,
    /// Most entries (default 50, at most 200).
    #[serde(default)]
    #[schemars(range(min = 1, max = 200))]
    pub limit: Option<u32>,
}

const DEFAULT_LIMIT: u32 = 50;
const MAX_LIMIT: u32 = 200;

/// Whose timeline is read: a person's own runs, plus the workspace's jobs
/// and roles when that person is the owner.
pub(crate) struct Scope {
    pub person: String,
    pub owner: bool,
}

impl Scope {
    /// The caller's scope; a role's token has none (`forbidden`).
    fn of(ctx: &Ctx, caller: &Caller) -> Result<Scope> {
        let person = caller.person()?;
        Ok(Scope {
            person: person.to_owned(),
            owner: person == ctx.owner(),
        })
    }
}

/// The caller's timeline, newest first, with its figures.
pub async fn timeline(ctx: &Ctx, caller: &Caller, filter: ActivityFilter) -> Result<ActivityPage> {
    let scope = Scope::of(ctx, caller)?;
    let limit = match filter.limit {
        Some(0) | None => DEFAULT_LIMIT,
        Some(n) if n > MAX_LIMIT => {
            return Err(AppError::invalid_field(
                "limit",
                "too_large",
                format!("at most {MAX_LIMIT} entries a page"),
            ));
        }
        Some(n) => n,
    };
    let now = Utc::now();
    let today = start_of_local_day(now);
    let week = now - Duration::days(7);
    ctx.store()
        .read(move |conn| {
            let (entries, more) = sources::read(conn, &scope, &filter, limit as usize)?;
            Ok(ActivityPage {
                entries,
                more,
                today: figures::since(conn, &scope, today)?,
                week: figures::since(conn, &scope, week)?,
                waiting: figures::waiting(conn, &scope)?,
                since_seen: since_seen_in(conn, &scope)?,
            })
        })
        .await
}

/// What ran since the caller last looked (`None` before they first did):
/// the tray's digest.
pub async fn since_seen(ctx: &Ctx, caller: &Caller) -> Result<Option<SinceSeen>> {
    let scope = Scope::of(ctx, caller)?;
    ctx.store()
        .read(move |conn| since_seen_in(conn, &scope))
        .await
}

fn since_seen_in(conn: &rusqlite::Connection, scope: &Scope) -> Result<Option<SinceSeen>> {
    let seen_at = meta::get(conn, &seen_key(&scope.person))?
        .and_then(|t| DateTime::parse_from_rfc3339(&t).ok())
        .map(|t| t.with_timezone(&Utc));
    seen_at
        .map(|seen_at| {
            Ok(SinceSeen {
                seen_at,
                figures: figures::since(conn, scope, seen_at)?,
            })
        })
        .transpose()
}

/// Whether anything ever ran here (a run or a generated round): the window
/// then opens on Activity rather than on the canvas (issue 37, item 2).
pub async fn has_history(ctx: &Ctx) -> Result<bool> {
    ctx.store()
        .read(|conn| {
            Ok(conn.query_row(
                "SELECT EXISTS (SELECT 1 FROM runs) OR EXISTS (SELECT 1 FROM variant_rounds WHERE by_hand = 0)",
                [],
                |r| r.get(0),
            )?)
        })
        .await
}

/// Remembers that the person looked now: "since you last looked" starts
/// here (the window calls it when it is hidden or closed).
pub async fn mark_seen(ctx: &Ctx, caller: &Caller) -> Result<DateTime<Utc>> {
    let key = seen_key(caller.person()?);
    let now = Utc::now();
    let text = now.to_rfc3339();
    ctx.store()
        .write(move |tx| meta::set(tx, &key, &text))
        .await?;
    Ok(now)
}

fn seen_key(person: &str) -> String {
    format!("activity.seen_at.{person}")
}

/// Midnight of `now`'s day on this computer's clock.
fn start_of_local_day(now: DateTime<Utc>) -> DateTime<Utc> {
    let local = now.with_timezone(&Local).date_naive();
    local
        .and_hms_opt(0, 0, 0)
        .and_then(|midnight| Local.from_local_datetime(&midnight).earliest())
        .map_or(now - Duration::days(1), |t| t.with_timezone(&Utc))
}

#[cfg(test)]
mod tests;
