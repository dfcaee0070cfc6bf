//! Calls waiting for a person: "ask" made durable.
//!
//! An approval is a row before it is a question on screen, so a run that
//! waits for one survives a restart: the row stays pending, the run is
//! interrupted with the call recorded in its checkpoint, and deciding the
//! approval afterwards resumes the run, which finds the decision and goes
//! on (`runtime::resume::decide`). Only a person in the app or at the
//! command line decides: never an agent, a role's token or an outside
//! client.

use std::time::Duration;

use chrono::{DateTime, Utc};
use rusqlite::{Connection, OptionalExtension, Row, params};
use serde::{Deserialize, Serialize};

use super::Risk;
use crate::caller::Caller;
use crate::caller::Client;
use crate::ctx::{Change, Ctx};
use crate::error::{AppError, ErrorCode, Result};

/// Longest argument text an approval shows (the model's JSON); a call with
/// longer arguments is refused before it asks (`gate::pass`).
pub(crate) const MAX_ARGUMENTS_CHARS: usize = 20_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalStatus {
    Pending,
    Allowed,
    Denied,
    /// The run stopped before anyone decided.
    Cancelled,
}

impl ApprovalStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            ApprovalStatus::Pending => "pending",
            ApprovalStatus::Allowed => "allowed",
            ApprovalStatus::Denied => "denied",
            ApprovalStatus::Cancelled => "cancelled",
        }
    }

    fn parse(text: &str) -> ApprovalStatus {
        match text {
            "allowed" => ApprovalStatus::Allowed,
            "denied" => ApprovalStatus::Denied,
            "cancelled" => ApprovalStatus::Cancelled,
            _ => ApprovalStatus::Pending,
        }
    }
}

/// A person's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// This call only.
    AllowOnce,
    /// This call, and every later call of the same tool in the same run.
    AllowRun,
    Deny,
}

/// A tool call shown to a person before it runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Approval {
    pub id: String,
    pub run_id: String,
    pub agent_id: String,
    pub call_id: String,
    pub tool: String,
    /// The arguments as the model wrote them (JSON text).
    pub arguments: String,
    pub risk: Risk,
    pub status: ApprovalStatus,
    /// For an allowed call: true when the tool is allowed for the rest of the run.
    pub for_run: bool,
    pub decided_by: Option<String>,
    pub created_at: DateTime<Utc>,
    pub decided_at: Option<DateTime<Utc>>,
    /// Set when the call runs a program that nothing confines on this
    /// system (Windows): what the program can reach, for the person
    /// deciding. "Allow for this run" is not offered then.
    #[serde(default)]
    pub unconfined: Option<String>,
}

/// The built-in tools that run a program through the sandbox.
pub(crate) fn runs_a_program(tool: &str) -> bool {
    tool == "cli_exec" || tool.starts_with("git_")
}

/// What is not confined when `tool` runs here, if anything (the gate
/// asks a person every time then).
pub(crate) fn unconfined(tool: &str) -> Option<String> {
    (crate::sandbox::programs_unconfined() && runs_a_program(tool))
        .then(|| crate::sandbox::UNCONFINED.to_owned())
}

const COLUMNS: &str = "id, run_id, agent_id, call_id, tool, arguments, risk, status, scope,
    decided_by, created_at, decided_at";

fn from_row(r: &Row<'_>) -> rusqlite::Result<Approval> {
    Ok(Approval {
        id: r.get(0)?,
        run_id: r.get(1)?,
        agent_id: r.get(2)?,
        call_id: r.get(3)?,
        tool: r.get(4)?,
        arguments: r.get(5)?,
        risk: Risk::parse(&r.get::<_, String>(6)?).unwrap_or(Risk::Network),
        status: ApprovalStatus::parse(&r.get::<_, String>(7)?),
        for_run: r.get::<_, Option<String>>(8)?.as_deref() == Some("run"),
        decided_by: r.get(9)?,
        created_at: r.get(10)?,
        decided_at: r.get(11)?,
        unconfined: unconfined(&r.get::<_, String>(4)?),
    })
}

fn find(conn: &Connection, id: &str) -> Result<Option<Approval>> {
    Ok(conn
        .query_row(
            &format!("SELECT {COLUMNS} FROM tool_approvals WHERE id = ?1"),
            [id],
            from_row,
        )
        .optional()?)
}

/// The approval of one call: the run, the agent in it (a swarm's members
/// share their run), the model turn and the call's id.
fn find_call(
    conn: &Connection,
    run_id: &str,
    agent_id: &str,
    step: u32,
    call_id: &str,
) -> Result<Option<Approval>> {
    Ok(conn
        .query_row(
            &format!(
                "SELECT {COLUMNS} FROM tool_approvals
                 WHERE run_id = ?1 AND agent_id = ?2 AND step = ?3 AND call_id = ?4"
            ),
            params![run_id, agent_id, step, call_id],
            from_row,
        )
        .optional()?)
}

/// Whether a person allowed `agent` to use `tool` for the rest of run `run_id`.
pub(crate) fn allowed_for_run(
    conn: &Connection,
    run_id: &str,
    agent: &str,
    tool: &str,
) -> Result<bool> {
    Ok(conn
        .query_row(
            "SELECT 1 FROM tool_approvals WHERE run_id = ?1 AND agent_id = ?2 AND tool = ?3
             AND status = 'allowed' AND scope = 'run' LIMIT 1",
            params![run_id, agent, tool],
            |_| Ok(()),
        )
        .optional()?
        .is_some())
}

/// Calls waiting for a decision, oldest first.
pub async fn pending(ctx: &Ctx) -> Result<Vec<Approval>> {
    ctx.store()
        .read(|conn| {
            let mut stmt = conn.prepare(&format!(
                "SELECT {COLUMNS} FROM tool_approvals WHERE status = 'pending' ORDER BY created_at, id"
            ))?;
            let rows = stmt.query_map([], from_row)?;
            Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
        })
        .await
}

/// Every approval of a run, oldest first (the run panel shows them).
pub async fn of_run(ctx: &Ctx, run_id: &str) -> Result<Vec<Approval>> {
    let run_id = run_id.to_owned();
    ctx.store()
        .read(move |conn| {
            let mut stmt = conn.prepare(&format!(
                "SELECT {COLUMNS} FROM tool_approvals WHERE run_id = ?1 ORDER BY created_at, id"
            ))?;
            let rows = stmt.query_map([run_id], from_row)?;
            Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
        })
        .await
}

pub async fn get(ctx: &Ctx, id: &str) -> Result<Approval> {
    let key = id.to_owned();
    ctx.store()
        .read(move |conn| find(conn, &key))
        .await?
        .ok_or_else(|| AppError::not_found("approval", id))
}

/// What a run asks a person: the call, as the model wrote it.
pub(crate) struct Request<'a> {
    pub run_id: &'a str,
    pub agent_id: &'a str,
    /// The model turn that made the call.
    pub step: u32,
    pub call_id: &'a str,
    pub tool: &'a str,
    pub arguments: &'a str,
    pub risk: Risk,
}

/// Records the question (or finds it again, for a resumed run) and
/// announces it. Returns the approval as it stands.
pub(crate) async fn request(ctx: &Ctx, ask: Request<'_>) -> Result<Approval> {
    let (arguments, run_id, agent_id, call_id, tool, risk, step) = (
        ask.arguments.to_owned(),
        ask.run_id.to_owned(),
        ask.agent_id.to_owned(),
        ask.call_id.to_owned(),
        ask.tool.to_owned(),
        ask.risk,
        ask.step,
    );
    let (approval, created) = ctx
        .store()
        .write(move |tx| {
            if let Some(existing) = find_call(tx, &run_id, &agent_id, step, &call_id)? {
                return Ok((existing, false));
            }
            let id = uuid::Uuid::now_v7().to_string();
            tx.execute(
                "INSERT INTO tool_approvals (id, run_id, agent_id, step, call_id, tool, arguments, risk, status, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 'pending', ?9)",
                params![id, run_id, agent_id, step, call_id, tool, arguments, risk.as_str(), Utc::now()],
            )?;
            let approval = find(tx, &id)?
                .ok_or_else(|| AppError::internal("an approval vanished as it was written"))?;
            Ok((approval, true))
        })
        .await?;
    if created {
        // Every open window hears of it (other processes' commits too) and
        // shows the card; the desktop shell adds an OS notification when its
        // window is not in front.
        ctx.changed(Change::Approvals);
    }
    Ok(approval)
}

/// Waits until a person decides, the run is cancelled, or the process
/// stops. Decisions made here arrive at once; decisions made by another
/// process (the CLI) are seen within a second.
pub(crate) async fn wait(
    ctx: &Ctx,
    id: &str,
    cancel: &tokio_util::sync::CancellationToken,
) -> Result<Approval> {
    let mut changes = ctx.subscribe();
    loop {
        let current = get(ctx, id).await?;
        if current.status != ApprovalStatus::Pending {
            return Ok(current);
        }
        tokio::select! {
            _ = cancel.cancelled() => {
                close(ctx, id, ApprovalStatus::Cancelled, None, None).await?;
                return Err(crate::llm::http::cancelled());
            }
            _ = changes.recv() => {}
            _ = tokio::time::sleep(Duration::from_secs(1)) => {}
        }
    }
}

async fn close(
    ctx: &Ctx,
    id: &str,
    status: ApprovalStatus,
    scope: Option<&'static str>,
    by: Option<String>,
) -> Result<Option<Approval>> {
    let id = id.to_owned();
    let closed = ctx
        .store()
        .write(move |tx| {
            let changed = tx.execute(
                "UPDATE tool_approvals SET status = ?2, scope = ?3, decided_by = ?4, decided_at = ?5
                 WHERE id = ?1 AND status = 'pending'",
                params![id, status.as_str(), scope, by, Utc::now()],
            )?;
            if changed == 0 {
                return Ok(None);
            }
            find(tx, &id)
        })
        .await?;
    ctx.changed(Change::Approvals);
    Ok(closed)
}

/// A person decides. Only the app's window and the command line may: an
/// agent, a role's token or an outside client approving its own request
/// would make the gate pointless. Returns the decided approval; resuming a
/// run that stopped while it waited is `runtime::resume::decide`'s.
pub(crate) async fn record_decision(
    ctx: &Ctx,
    caller: &Caller,
    id: &str,
    decision: Decision,
) -> Result<Approval> {
    if !matches!(caller.client, Client::Ui | Client::Cli) || !caller.is_local_person() {
        return Err(AppError::new(
            ErrorCode::Forbidden,
            "only a person in the app or at the command line decides what an agent may do",
        )
        .with_details(serde_json::json!({ "reason": "not_a_person" })));
    }
    if decision == Decision::AllowRun && get(ctx, id).await?.unconfined.is_some() {
        return Err(AppError::invalid_field(
            "decision",
            "unconfined",
            "this call runs a program nothing confines on this system, so a person decides on \
             each one: allow it once, or deny it",
        ));
    }
    let (status, scope) = match decision {
        Decision::AllowOnce => (ApprovalStatus::Allowed, Some("once")),
        Decision::AllowRun => (ApprovalStatus::Allowed, Some("run")),
        Decision::Deny => (ApprovalStatus::Denied, None),
    };
    let by = Some(caller.person()?.to_owned());
    let Some(decided) = close(ctx, id, status, scope, by).await? else {
        let current = get(ctx, id).await?;
        return Err(AppError::precondition(format!(
            "this call was already {}",
            current.status.as_str()
        ))
        .with_details(
            serde_json::json!({ "reason": "already_decided", "status": current.status }),
        ));
    };
    Ok(decided)
}

/// Closes what a finished run left pending (it cannot ask any more).
pub(crate) async fn close_run(ctx: &Ctx, run_id: &str) -> Result<()> {
    let run_id = run_id.to_owned();
    let closed = ctx
        .store()
        .write(move |tx| {
            Ok(tx.execute(
                "UPDATE tool_approvals SET status = 'cancelled', decided_at = ?2
                 WHERE run_id = ?1 AND status = 'pending'",
                params![run_id, Utc::now()],
            )?)
        })
        .await?;
    if closed > 0 {
        ctx.changed(Change::Approvals);
    }
    Ok(())
}
