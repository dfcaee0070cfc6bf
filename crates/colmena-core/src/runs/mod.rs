//! Run records (SPEC H42): every execution of an agent or a swarm, its
//! steps as they happen, the checkpoint it can resume from, and the lease of
//! the process running it.
//!
//! A running run is leased by one process (`host:pid:instance`) and the
//! lease is renewed while it works. A run whose process is gone — its lease
//! expired, or its pid no longer alive on this host — is *interrupted*; if
//! it saved a checkpoint it can be resumed, otherwise it cannot (it died
//! before saving any state). Start-up marks such runs, so a crash or a
//! SIGKILL is noticed at the next start.
//!
//! What a run carries while it works (its events, its context, the port it
//! calls tools through) is in [`context`]; where a stored run came from (a
//! role's wake-up, a scheduled job) in [`origin`].

pub mod context;
pub(crate) mod origin;

use std::time::Duration;

use chrono::{DateTime, Utc};
use rusqlite::{Connection, OptionalExtension, Row, params};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::caller::Client;
use crate::ctx::{Change, Ctx};
use crate::error::{AppError, ErrorCode, Result};
use crate::llm::Usage;
use crate::work::Work;

/// How long a lease holds without renewal.
pub const LEASE: Duration = Duration::from_secs(20);
/// How often a running run renews its lease.
pub const LEASE_RENEWAL: Duration = Duration::from_secs(5);

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum RunKind {
    Agent,
    Swarm,
}

impl RunKind {
    pub fn as_str(self) -> &'static str {
        match self {
            RunKind::Agent => "agent",
            RunKind::Swarm => "swarm",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    Running,
    Completed,
    Failed,
    Cancelled,
    Interrupted,
}

impl RunStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Running => "running",
            RunStatus::Completed => "completed",
            RunStatus::Failed => "failed",
            RunStatus::Cancelled => "cancelled",
            RunStatus::Interrupted => "interrupted",
        }
    }

    fn parse(text: &str) -> RunStatus {
        match text {
            "running" => RunStatus::Running,
            "completed" => RunStatus::Completed,
            "cancelled" => RunStatus::Cancelled,
            "interrupted" => RunStatus::Interrupted,
            _ => RunStatus::Failed,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Run {
    pub id: String,
    pub kind: RunKind,
    /// The agent or swarm that ran.
    pub target_id: String,
    pub thread_id: Option<String>,
    pub parent_run_id: Option<String>,
    pub user_id: String,
    pub input: String,
    pub status: RunStatus,
    pub output: Option<String>,
    pub error: Option<AppError>,
    /// Saved state to resume from.
    pub has_checkpoint: bool,
    pub usage: Usage,
    pub started_at: DateTime<Utc>,
    pub finished_at: Option<DateTime<Utc>>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct RunStep {
    pub seq: u32,
    pub agent_id: Option<String>,
    /// `message` (with the tool calls it made), `tool_result`, `member_output`, `error`.
    pub kind: String,
    pub content: Value,
    pub created_at: DateTime<Utc>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct RunDetail {
    pub run: Run,
    pub steps: Vec<RunStep>,
    /// Runs it started (delegations), in order.
    pub children: Vec<Run>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct RunFilter {
    #[serde(default)]
    pub kind: Option<RunKind>,
    #[serde(default)]
    pub target_id: Option<String>,
    #[serde(default)]
    pub thread_id: Option<String>,
    #[serde(default)]
    pub status: Option<RunStatus>,
    /// Runs started by another run are left out unless asked for.
    #[serde(default)]
    pub include_children: bool,
    #[serde(default)]
    pub limit: Option<u32>,
}

pub(crate) struct NewRun {
    pub kind: RunKind,
    pub target_id: String,
    pub thread_id: Option<String>,
    pub parent_run_id: Option<String>,
    pub user_id: String,
    pub input: String,
    /// The door it was started through; `None` for what Colmena starts
    /// itself (a job, a wake-up, a delegation).
    pub client: Option<Client>,
}

const SELECT: &str =
    "SELECT id, kind, target_id, thread_id, parent_run_id, user_id, input, status, output, error,
        checkpoint IS NOT NULL AS has_checkpoint, prompt_tokens, completion_tokens,
        prompt_tokens_reported, completion_tokens_reported, started_at, finished_at
    FROM runs";

/// A stored token count: `None` when the provider reported none. Rows from
/// before the `*_reported` columns (NULL there) count as reported when
/// above zero.
pub(crate) fn stored_count(count: u32, reported: Option<bool>) -> Option<u32> {
    reported.unwrap_or(count > 0).then_some(count)
}

fn from_row(r: &Row<'_>) -> rusqlite::Result<Run> {
    let kind: String = r.get("kind")?;
    let status: String = r.get("status")?;
    let error: Option<String> = r.get("error")?;
    Ok(Run {
        id: r.get("id")?,
        kind: if kind == "swarm" {
            RunKind::Swarm
        } else {
            RunKind::Agent
        },
        target_id: r.get("target_id")?,
        thread_id: r.get("thread_id")?,
        parent_run_id: r.get("parent_run_id")?,
        user_id: r.get("user_id")?,
        input: r.get("input")?,
        status: RunStatus::parse(&status),
        output: r.get("output")?,
        error: error.and_then(|e| serde_json::from_str(&e).ok()),
        has_checkpoint: r.get("has_checkpoint")?,
        usage: Usage {
            prompt_tokens: stored_count(r.get("prompt_tokens")?, r.get("prompt_tokens_reported")?),
            completion_tokens: stored_count(
                r.get("completion_tokens")?,
                r.get("completion_tokens_reported")?,
            ),
        },
        started_at: r.get("started_at")?,
        finished_at: r.get("finished_at")?,
    })
}

/// The latest top-level run of a conversation.
pub(crate) fn latest_of_thread(conn: &Connection, thread: &str) -> Result<Option<Run>> {
    Ok(conn
        .query_row(
            &format!("{SELECT} WHERE thread_id = ?1 AND parent_run_id IS NULL ORDER BY started_at DESC LIMIT 1"),
            [thread],
            from_row,
        )
        .optional()?)
}

pub(crate) fn find(conn: &Connection, id: &str) -> Result<Option<Run>> {
    Ok(conn
        .query_row(&format!("{SELECT} WHERE id = ?1"), [id], from_row)
        .optional()?)
}

fn require(conn: &Connection, id: &str) -> Result<Run> {
    find(conn, id)?.ok_or_else(|| AppError::not_found("run", id))
}

/// Who holds a lease: `host:pid:instance`.
pub(crate) fn lease_owner(instance: &str) -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_owned())
        .or_else(|_| std::env::var("HOSTNAME"))
        .unwrap_or_else(|_| "localhost".to_owned());
    format!("{host}:{}:{instance}", std::process::id())
}

/// Whether the process named by a lease is certainly gone.
fn owner_is_gone(owner: &str, me: &str) -> bool {
    let (Some((host, rest)), Some((my_host, _))) = (owner.split_once(':'), me.split_once(':'))
    else {
        return false;
    };
    let Some(pid) = rest.split(':').next().and_then(|p| p.parse::<u32>().ok()) else {
        return false;
    };
    host == my_host
        && pid != std::process::id()
        && cfg!(target_os = "linux")
        && !std::path::Path::new(&format!("/proc/{pid}")).exists()
}

/// Whether a lease held by `owner` until `expires` is dead as seen by `me`
/// at `now`: not mine, and either run out or held by a process that is
/// certainly gone. Runs and canvas variants are leased alike.
pub(crate) fn lease_is_dead(
    owner: Option<&str>,
    expires: Option<DateTime<Utc>>,
    me: &str,
    now: DateTime<Utc>,
) -> bool {
    let expired = expires.is_none_or(|at| at < now);
    let gone = owner.is_some_and(|o| owner_is_gone(o, me));
    owner != Some(me) && (expired || gone)
}

/// When a lease taken or renewed now runs out.
pub(crate) fn lease_expiry() -> DateTime<Utc> {
    Utc::now() + chrono::Duration::from_std(LEASE).unwrap_or_default()
}

/// Marks as interrupted the running runs whose process is gone. Returns how many.
pub(crate) fn sweep(conn: &Connection, me: &str) -> Result<usize> {
    let now = Utc::now();
    let mut stmt = conn
        .prepare("SELECT id, lease_owner, lease_expires_at FROM runs WHERE status = 'running'")?;
    let running: Vec<(String, Option<String>, Option<DateTime<Utc>>)> = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
        .collect::<rusqlite::Result<_>>()?;
    let mut swept = 0;
    for (id, owner, expires) in running {
        if lease_is_dead(owner.as_deref(), expires, me, now) {
            swept += conn.execute(
                "UPDATE runs SET status = 'interrupted', lease_owner = NULL, lease_expires_at = NULL WHERE id = ?1 AND status = 'running'",
                [&id],
            )?;
        }
    }
    Ok(swept)
}

pub(crate) async fn start(ctx: &Ctx, new: NewRun) -> Result<Run> {
    let owner = ctx.lease_owner().to_owned();
    let run = ctx
        .store()
        .write(move |tx| {
            let id = uuid::Uuid::now_v7().to_string();
            let now = Utc::now();
            tx.execute(
                "INSERT INTO runs (id, kind, target_id, thread_id, parent_run_id, user_id, input, status,
                                   lease_owner, lease_expires_at, started_at, client)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 'running', ?8, ?9, ?10, ?11)",
                params![
                    id,
                    new.kind.as_str(),
                    new.target_id,
                    new.thread_id,
                    new.parent_run_id,
                    new.user_id,
                    new.input,
                    owner,
                    lease_expiry(),
                    now,
                    new.client.map(Client::as_str)
                ],
            )?;
            require(tx, &id)
        })
        .await?;
    ctx.changed(Change::Runs);
    Ok(run)
}

/// Takes a run over to resume it: it becomes running under this process.
pub(crate) async fn take_over(ctx: &Ctx, id: &str) -> Result<(Run, Value)> {
    let owner = ctx.lease_owner().to_owned();
    let id = id.to_owned();
    let taken = ctx
        .store()
        .write(move |tx| {
            sweep(tx, &owner)?;
            let run = require(tx, &id)?;
            if run.status != RunStatus::Interrupted {
                return Err(AppError::precondition(format!(
                    "run {id} is {} and cannot be resumed",
                    run.status.as_str()
                ))
                .with_details(serde_json::json!({ "reason": "not_interrupted" })));
            }
            let checkpoint: Option<String> = tx.query_row("SELECT checkpoint FROM runs WHERE id = ?1", [&id], |r| r.get(0))?;
            let checkpoint = checkpoint
                .and_then(|c| serde_json::from_str(&c).ok())
                .ok_or_else(|| {
                    AppError::precondition(format!("run {id} stopped before saving any state; start it again instead"))
                        .with_details(serde_json::json!({ "reason": "no_checkpoint" }))
                })?;
            tx.execute(
                "UPDATE runs SET status = 'running', lease_owner = ?2, lease_expires_at = ?3, finished_at = NULL, cancel_requested = 0 WHERE id = ?1",
                params![id, owner, lease_expiry()],
            )?;
            Ok((require(tx, &id)?, checkpoint))
        })
        .await?;
    ctx.changed(Change::Runs);
    Ok(taken)
}

/// Renews the lease of a run of this process; answers whether another
/// process asked it to stop.
pub(crate) async fn renew_lease(ctx: &Ctx, id: &str) -> Result<bool> {
    let (id, owner) = (id.to_owned(), ctx.lease_owner().to_owned());
    ctx.store()
        .write(move |tx| {
            tx.execute(
                "UPDATE runs SET lease_expires_at = ?3 WHERE id = ?1 AND lease_owner = ?2 AND status = 'running'",
                params![id, owner, lease_expiry()],
            )?;
            let requested: Option<bool> = tx
                .query_row("SELECT cancel_requested FROM runs WHERE id = ?1", [&id], |r| r.get(0))
                .optional()?;
            Ok(requested.unwrap_or(false))
        })
        .await
}

pub(crate) async fn record_step(
    ctx: &Ctx,
    id: &str,
    agent: Option<&str>,
    kind: &str,
    content: Value,
) -> Result<()> {
    let (id, agent, kind) = (id.to_owned(), agent.map(str::to_owned), kind.to_owned());
    ctx.store()
        .write(move |tx| {
            let seq: u32 = tx.query_row("SELECT COALESCE(MAX(seq) + 1, 0) FROM run_steps WHERE run_id = ?1", [&id], |r| r.get(0))?;
            tx.execute(
                "INSERT INTO run_steps (run_id, seq, agent_id, kind, content, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![id, seq, agent, kind, content.to_string(), Utc::now()],
            )?;
            Ok(())
        })
        .await
}

pub(crate) async fn save_checkpoint(
    ctx: &Ctx,
    id: &str,
    checkpoint: Value,
    usage: Usage,
) -> Result<()> {
    let id = id.to_owned();
    ctx.store()
        .write(move |tx| {
            tx.execute(
                "UPDATE runs SET checkpoint = ?2, prompt_tokens = ?3, completion_tokens = ?4,
                        prompt_tokens_reported = ?5, completion_tokens_reported = ?6
                 WHERE id = ?1",
                params![
                    id,
                    checkpoint.to_string(),
                    usage.prompt_tokens.unwrap_or(0),
                    usage.completion_tokens.unwrap_or(0),
                    usage.prompt_tokens.is_some(),
                    usage.completion_tokens.is_some()
                ],
            )?;
            Ok(())
        })
        .await
}

pub(crate) async fn finish(
    ctx: &Ctx,
    id: &str,
    status: RunStatus,
    output: Option<String>,
    error: Option<&AppError>,
    usage: Usage,
) -> Result<Run> {
    let id = id.to_owned();
    let error = error.map(serde_json::to_string).transpose()?;
    let run = ctx
        .store()
        .write(move |tx| {
            tx.execute(
                "UPDATE runs SET status = ?2, output = ?3, error = ?4, prompt_tokens = ?5, completion_tokens = ?6,
                        finished_at = ?7, lease_owner = NULL, lease_expires_at = NULL,
                        prompt_tokens_reported = ?8, completion_tokens_reported = ?9
                 WHERE id = ?1",
                params![
                    id,
                    status.as_str(),
                    output,
                    error,
                    usage.prompt_tokens.unwrap_or(0),
                    usage.completion_tokens.unwrap_or(0),
                    Utc::now(),
                    usage.prompt_tokens.is_some(),
                    usage.completion_tokens.is_some()
                ],
            )?;
            require(tx, &id)
        })
        .await?;
    ctx.changed(Change::Runs);
    Ok(run)
}

pub async fn get(ctx: &Ctx, id: &str) -> Result<RunDetail> {
    let id = id.to_owned();
    ctx.store()
        .read(move |conn| {
            let run = require(conn, &id)?;
            let mut stmt = conn.prepare(
                "SELECT seq, agent_id, kind, content, created_at FROM run_steps WHERE run_id = ?1 ORDER BY seq",
            )?;
            let steps = stmt
                .query_map([&id], |r| {
                    let content: String = r.get(3)?;
                    Ok(RunStep {
                        seq: r.get(0)?,
                        agent_id: r.get(1)?,
                        kind: r.get(2)?,
                        content: serde_json::from_str(&content).unwrap_or(Value::String(content)),
                        created_at: r.get(4)?,
                    })
                })?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            let mut children = conn.prepare(&format!("{SELECT} WHERE parent_run_id = ?1 ORDER BY started_at"))?;
            let children = children.query_map([&id], from_row)?.collect::<rusqlite::Result<Vec<_>>>()?;
            Ok(RunDetail { run, steps, children })
        })
        .await
}

/// Runs, most recent first.
pub async fn list(ctx: &Ctx, filter: RunFilter) -> Result<Vec<Run>> {
    ctx.store()
        .read(move |conn| {
            let mut stmt = conn.prepare(&format!(
                "{SELECT} WHERE (?1 IS NULL OR kind = ?1) AND (?2 IS NULL OR target_id = ?2)
                   AND (?3 IS NULL OR thread_id = ?3) AND (?4 IS NULL OR status = ?4)
                   AND (?5 = 1 OR parent_run_id IS NULL)
                 ORDER BY started_at DESC LIMIT ?6"
            ))?;
            let rows = stmt.query_map(
                params![
                    filter.kind.map(RunKind::as_str),
                    filter.target_id,
                    filter.thread_id,
                    filter.status.map(RunStatus::as_str),
                    filter.include_children,
                    filter.limit.unwrap_or(50).clamp(1, 500)
                ],
                from_row,
            )?;
            Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
        })
        .await
}

/// Interrupted top-level runs that can be resumed (they have a checkpoint).
pub async fn resumable(ctx: &Ctx) -> Result<Vec<Run>> {
    let me = ctx.lease_owner().to_owned();
    ctx.store()
        .write(move |tx| sweep(tx, &me).map(|_| ()))
        .await?;
    ctx.store()
        .read(|conn| {
            let mut stmt = conn.prepare(&format!(
                "{SELECT} WHERE status = 'interrupted' AND checkpoint IS NOT NULL AND parent_run_id IS NULL
                   AND id NOT IN (SELECT run_id FROM role_wakes)
                 ORDER BY started_at DESC"
            ))?;
            let rows = stmt.query_map([], from_row)?;
            Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
        })
        .await
}

/// Asks a run to stop; it ends as `cancelled`. A run of this process stops
/// at once; one of another process (the app, while the CLI asks) when its
/// holder next renews the lease, within [`LEASE_RENEWAL`].
pub async fn cancel(ctx: &Ctx, id: &str) -> Result<()> {
    if ctx.work().cancel(Work::Run(id)) {
        return Ok(());
    }
    let key = id.to_owned();
    let asked = ctx
        .store()
        .write(move |tx| {
            require(tx, &key)?;
            Ok(tx.execute(
                "UPDATE runs SET cancel_requested = 1 WHERE id = ?1 AND status = 'running'",
                [&key],
            )? > 0)
        })
        .await?;
    if asked {
        return Ok(());
    }
    let run = get(ctx, id).await?.run;
    Err(AppError::new(
        ErrorCode::Precondition,
        format!("run {id} is not running ({})", run.status.as_str()),
    )
    .with_details(serde_json::json!({ "reason": "not_running" })))
}

/// Gives up an interrupted run that will not be resumed.
pub async fn discard(ctx: &Ctx, id: &str) -> Result<Run> {
    let run = get(ctx, id).await?.run;
    if run.status != RunStatus::Interrupted {
        return Err(AppError::precondition(format!(
            "run {id} is {}, not interrupted",
            run.status.as_str()
        )));
    }
    let error = AppError::new(ErrorCode::Cancelled, "interrupted and not resumed");
    finish(ctx, id, RunStatus::Cancelled, None, Some(&error), run.usage).await
}
