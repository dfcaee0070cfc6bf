//! The timeline's sources, each read newest first on its own index and
//! merged: runs (chats, agent and swarm runs), generated rounds, job fires,
//! wake-ups and waiting approvals.
//!
//! Times are kept in two text forms (runs, rounds and approvals in
//! rusqlite's `2026-12-07 10:00:00.5+00:00`, the job and wake histories in
//! fixed-width `2026-12-07T10:00:00.500000Z`); each source is compared in
//! its own form and the merge compares parsed times.

use chrono::{DateTime, TimeZone, Utc};
use rusqlite::{Connection, Row, params};

use super::{
    ActivityEntry, ActivityFilter, ActivityKind, ActivityLink, ActivityStatus, Scope, Starter,
};
use crate::caller::Client;
use crate::error::{AppError, Result};
use crate::llm::Usage;
use crate::runs::stored_count;
use crate::store::bus::time::{parse_stored, stored};

/// Lines and characters a preview keeps.
const PREVIEW_LINES: usize = 3;
const PREVIEW_CHARS: usize = 280;
const DETAIL_CHARS: usize = 120;

/// The newest `limit` entries of every source the filter asks for, merged;
/// and whether more lie before them.
pub(super) fn read(
    conn: &Connection,
    scope: &Scope,
    filter: &ActivityFilter,
    limit: usize,
) -> Result<(Vec<ActivityEntry>, bool)> {
    let wants = |kind: ActivityKind| filter.kinds.is_empty() || filter.kinds.contains(&kind);
    // Past every stored time, in both text forms.
    let before = match filter.before {
        Some(before) => before,
        None => Utc
            .with_ymd_and_hms(9999, 12, 31, 0, 0, 0)
            .single()
            .ok_or_else(|| AppError::internal("the end of time does not exist"))?,
    };
    // One more than asked: whether there is more.
    let take = limit + 1;
    let mut all = Vec::new();
    all.extend(approvals(
        conn,
        scope,
        before,
        take,
        wants(ActivityKind::Approval),
    )?);
    let run_kinds: Vec<ActivityKind> =
        [ActivityKind::Chat, ActivityKind::Agent, ActivityKind::Swarm]
            .into_iter()
            .filter(|k| wants(*k))
            .collect();
    all.extend(runs(
        conn,
        scope,
        &run_kinds,
        filter.needs_you,
        before,
        take,
    )?);
    if !filter.needs_you {
        if wants(ActivityKind::Generation) {
            all.extend(rounds(conn, scope, before, take)?);
        }
        if scope.owner && wants(ActivityKind::Job) {
            all.extend(jobs(conn, before, take)?);
        }
        if scope.owner && wants(ActivityKind::WakeUp) {
            all.extend(wake_ups(conn, before, take)?);
        }
    }
    all.sort_by(|a, b| b.at.cmp(&a.at).then_with(|| b.key.cmp(&a.key)));
    let more = all.len() > limit;
    all.truncate(limit);
    Ok((all, more))
}

/// The first lines of a text, bounded: what a row shows of a result (the
/// timeline's, a job's history).
pub(crate) fn preview(text: &str) -> Option<String> {
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .take(PREVIEW_LINES)
        .collect();
    cut(&lines.join("\n"), PREVIEW_CHARS)
}

/// The first line of a text, bounded.
fn first_line(text: &str) -> Option<String> {
    cut(
        text.lines().map(str::trim).find(|l| !l.is_empty())?,
        DETAIL_CHARS,
    )
}

fn cut(text: &str, max: usize) -> Option<String> {
    if text.is_empty() {
        return None;
    }
    if text.chars().count() <= max {
        return Some(text.to_owned());
    }
    let kept: String = text.chars().take(max - 1).collect();
    Some(format!("{}…", kept.trim_end()))
}

fn duration(from: DateTime<Utc>, to: Option<DateTime<Utc>>) -> Option<u64> {
    to.and_then(|to| u64::try_from((to - from).num_milliseconds()).ok())
}

/// A time the job and wake histories may not have yet (`…T…Z`).
fn history_time(text: Option<String>) -> rusqlite::Result<Option<DateTime<Utc>>> {
    text.as_deref().map(parse_stored).transpose()
}

/// A stored run's error, as the person reads it.
fn error_message(stored: Option<String>) -> Option<String> {
    let stored = stored?;
    let message = serde_json::from_str::<serde_json::Value>(&stored)
        .ok()
        .and_then(|v| v.get("message").and_then(|m| m.as_str()).map(str::to_owned))
        .unwrap_or(stored);
    preview(&message)
}

fn usage(r: &Row<'_>, prefix: &str) -> rusqlite::Result<Usage> {
    let count = |name: &str| -> rusqlite::Result<Option<u32>> {
        let n: Option<u32> = r.get(format!("{prefix}{name}").as_str())?;
        let reported: Option<bool> = r.get(format!("{prefix}{name}_reported").as_str())?;
        Ok(n.and_then(|n| stored_count(n, reported)))
    };
    Ok(Usage {
        prompt_tokens: count("prompt_tokens")?,
        completion_tokens: count("completion_tokens")?,
    })
}

fn run_status(text: &str) -> ActivityStatus {
    match text {
        "running" => ActivityStatus::Running,
        "completed" => ActivityStatus::Completed,
        "cancelled" => ActivityStatus::Cancelled,
        "interrupted" => ActivityStatus::Interrupted,
        _ => ActivityStatus::Failed,
    }
}

fn person(r: &Row<'_>, client: Option<String>) -> rusqlite::Result<Starter> {
    let id: String = r.get("user_id")?;
    let name: Option<String> = r.get("user_name")?;
    Ok(Starter::Person {
        name: name.unwrap_or_else(|| id.clone()),
        id,
        client: client.as_deref().map(Client::parse),
    })
}

/// A person's top-level runs that no job or wake-up started: chats (a run
/// in a conversation), agent runs and swarm runs.
fn runs(
    conn: &Connection,
    scope: &Scope,
    kinds: &[ActivityKind],
    needs_you: bool,
    before: DateTime<Utc>,
    take: usize,
) -> Result<Vec<ActivityEntry>> {
    let which: Vec<&str> = kinds
        .iter()
        .filter_map(|k| match k {
            ActivityKind::Chat => Some("r.thread_id IS NOT NULL"),
            ActivityKind::Agent => Some("(r.kind = 'agent' AND r.thread_id IS NULL)"),
            ActivityKind::Swarm => Some("(r.kind = 'swarm' AND r.thread_id IS NULL)"),
            _ => None,
        })
        .collect();
    if which.is_empty() {
        return Ok(Vec::new());
    }
    let waiting = if needs_you {
        "AND r.status = 'interrupted' AND r.checkpoint IS NOT NULL"
    } else {
        ""
    };
    let sql = format!(
        "SELECT r.id, r.kind, r.target_id, r.thread_id, r.user_id, u.name AS user_name, r.client,
                r.input, r.status, r.output, r.error, r.checkpoint IS NOT NULL AS resumable,
                r.prompt_tokens, r.completion_tokens, r.prompt_tokens_reported,
                r.completion_tokens_reported, r.started_at, r.finished_at,
                CASE r.kind WHEN 'swarm' THEN s.name ELSE a.name END AS target_name
         FROM runs r
         LEFT JOIN users u ON u.id = r.user_id
         LEFT JOIN agents a ON r.kind = 'agent' AND a.id = r.target_id
         LEFT JOIN swarms s ON r.kind = 'swarm' AND s.id = r.target_id
         WHERE r.user_id = ?1 AND r.parent_run_id IS NULL AND r.started_at < ?2
           AND ({}) {waiting}
           AND NOT EXISTS (SELECT 1 FROM cron_history h WHERE h.run_id = r.id)
           AND NOT EXISTS (SELECT 1 FROM role_wake_history w WHERE w.run_id = r.id)
           AND NOT EXISTS (SELECT 1 FROM role_wakes rw WHERE rw.run_id = r.id)
         ORDER BY r.started_at DESC LIMIT ?3",
        which.join(" OR ")
    );
    let mut stmt = conn.prepare(&sql)?;
    let rows = stmt.query_map(params![scope.person, before, take as i64], |r| {
        let id: String = r.get("id")?;
        let thread: Option<String> = r.get("thread_id")?;
        let swarm = r.get::<_, String>("kind")? == "swarm";
        let status = run_status(&r.get::<_, String>("status")?);
        let started: DateTime<Utc> = r.get("started_at")?;
        let finished: Option<DateTime<Utc>> = r.get("finished_at")?;
        let target: String = r.get("target_id")?;
        let output: Option<String> = r.get("output")?;
        let resumable = status == ActivityStatus::Interrupted && r.get::<_, bool>("resumable")?;
        let preview = match status {
            ActivityStatus::Completed => output.as_deref().and_then(preview),
            _ => error_message(r.get("error")?),
        };
        Ok(ActivityEntry {
            key: format!("run:{id}"),
            kind: if thread.is_some() {
                ActivityKind::Chat
            } else if swarm {
                ActivityKind::Swarm
            } else {
                ActivityKind::Agent
            },
            status,
            title: Some(r.get::<_, Option<String>>("target_name")?.unwrap_or(target)),
            detail: first_line(&r.get::<_, String>("input")?),
            preset: None,
            round: None,
            model: None,
            tool: None,
            started_by: person(r, r.get("client")?)?,
            at: started,
            finished_at: finished,
            duration_ms: duration(started, finished),
            usage: usage(r, "")?,
            preview,
            needs_you: resumable,
            link: ActivityLink {
                run_id: Some(id),
                thread_id: thread,
                ..ActivityLink::default()
            },
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Rounds a model wrote on the person's canvases (not those written by hand).
fn rounds(
    conn: &Connection,
    scope: &Scope,
    before: DateTime<Utc>,
    take: usize,
) -> Result<Vec<ActivityEntry>> {
    let mut stmt = conn.prepare(
        "SELECT vr.id, vr.variant_id, vr.round_index, vr.output, vr.model, vr.latency_ms,
                vr.client, vr.generated_at, vr.prompt_tokens, vr.completion_tokens,
                vr.prompt_tokens_reported, vr.completion_tokens_reported,
                v.preset_id, c.id AS canvas_id, c.name AS canvas_name, c.user_id,
                u.name AS user_name
         FROM variant_rounds vr
         JOIN canvas_variants v ON v.id = vr.variant_id
         JOIN canvases c ON c.id = v.canvas_id
         LEFT JOIN users u ON u.id = c.user_id
         WHERE vr.by_hand = 0 AND c.user_id = ?1 AND vr.generated_at < ?2
         ORDER BY vr.generated_at DESC LIMIT ?3",
    )?;
    let rows = stmt.query_map(params![scope.person, before, take as i64], |r| {
        let id: String = r.get("id")?;
        let written: DateTime<Utc> = r.get("generated_at")?;
        let latency: i64 = r.get("latency_ms")?;
        let round: i64 = r.get("round_index")?;
        let preset: String = r.get("preset_id")?;
        Ok(ActivityEntry {
            key: format!("round:{id}"),
            kind: ActivityKind::Generation,
            status: ActivityStatus::Completed,
            title: r.get("canvas_name")?,
            detail: None,
            tool: None,
            preset: Some(preset),
            round: u32::try_from(round + 1).ok(),
            model: Some(r.get("model")?),
            started_by: person(r, r.get("client")?)?,
            at: written,
            finished_at: Some(written),
            duration_ms: u64::try_from(latency).ok(),
            usage: usage(r, "")?,
            preview: preview(&r.get::<_, String>("output")?),
            needs_you: false,
            link: ActivityLink {
                canvas_id: r.get("canvas_id")?,
                variant_id: r.get("variant_id")?,
                ..ActivityLink::default()
            },
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Every fire of the workspace's jobs, with what its run produced.
fn jobs(conn: &Connection, before: DateTime<Utc>, take: usize) -> Result<Vec<ActivityEntry>> {
    let mut stmt = conn.prepare(
        "SELECT h.id, h.job_id, j.name AS job_name, h.started_at, h.finished_at, h.status,
                h.duration_ms, h.run_id, h.error, h.note, r.output,
                r.prompt_tokens, r.completion_tokens, r.prompt_tokens_reported,
                r.completion_tokens_reported
         FROM cron_history h
         JOIN cron_jobs j ON j.id = h.job_id
         LEFT JOIN runs r ON r.id = h.run_id
         WHERE h.started_at < ?1
         ORDER BY h.started_at DESC LIMIT ?2",
    )?;
    let rows = stmt.query_map(params![stored(before), take as i64], |r| {
        let job: String = r.get("job_id")?;
        let name: String = r.get("job_name")?;
        let status = match r.get::<_, String>("status")?.as_str() {
            "running" => ActivityStatus::Running,
            "succeeded" => ActivityStatus::Completed,
            "skipped" => ActivityStatus::Skipped,
            _ => ActivityStatus::Failed,
        };
        let shown = match status {
            ActivityStatus::Completed => "output",
            ActivityStatus::Skipped => "note",
            _ => "error",
        };
        Ok(ActivityEntry {
            key: format!("job:{}", r.get::<_, i64>("id")?),
            kind: ActivityKind::Job,
            status,
            title: Some(name.clone()),
            detail: None,
            preset: None,
            round: None,
            model: None,
            tool: None,
            started_by: Starter::Job {
                id: job.clone(),
                name,
            },
            at: parse_stored(&r.get::<_, String>("started_at")?)?,
            finished_at: history_time(r.get("finished_at")?)?,
            duration_ms: r
                .get::<_, Option<i64>>("duration_ms")?
                .and_then(|t| u64::try_from(t).ok()),
            usage: usage(r, "")?,
            preview: r
                .get::<_, Option<String>>(shown)?
                .as_deref()
                .and_then(preview),
            needs_you: false,
            link: ActivityLink {
                run_id: r.get("run_id")?,
                job_id: Some(job),
                ..ActivityLink::default()
            },
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Every wake-up of the workspace's roles: what it answered, or why not.
fn wake_ups(conn: &Connection, before: DateTime<Utc>, take: usize) -> Result<Vec<ActivityEntry>> {
    let mut stmt = conn.prepare(
        "SELECT w.id, w.author_id, a.name AS role_name, w.started_at, w.finished_at, w.run_id,
                w.input_tokens, w.output_tokens, w.exit_code, w.timed_out, w.output, w.summary,
                w.error, r.status AS run_status
         FROM role_wake_history w
         LEFT JOIN authors a ON a.id = w.author_id
         LEFT JOIN runs r ON r.id = w.run_id
         WHERE w.started_at < ?1
         ORDER BY w.started_at DESC LIMIT ?2",
    )?;
    let rows = stmt.query_map(params![stored(before), take as i64], |r| {
        let role: String = r.get("author_id")?;
        let name = r
            .get::<_, Option<String>>("role_name")?
            .unwrap_or_else(|| role.clone());
        let at = parse_stored(&r.get::<_, String>("started_at")?)?;
        let finished = history_time(r.get("finished_at")?)?;
        let (summary, output, error): (Option<String>, Option<String>, Option<String>) =
            (r.get("summary")?, r.get("output")?, r.get("error")?);
        let failed = error.is_some()
            || r.get::<_, bool>("timed_out")?
            || r.get::<_, Option<i64>>("exit_code")?
                .is_some_and(|c| c != 0);
        let status = match (
            finished,
            r.get::<_, Option<String>>("run_status")?.as_deref(),
        ) {
            (_, Some("interrupted")) => ActivityStatus::Interrupted,
            (_, Some("cancelled")) => ActivityStatus::Cancelled,
            (None, _) => ActivityStatus::Running,
            _ if failed => ActivityStatus::Failed,
            _ => ActivityStatus::Completed,
        };
        let said = if failed { error } else { summary };
        Ok(ActivityEntry {
            key: format!("wake:{}", r.get::<_, i64>("id")?),
            kind: ActivityKind::WakeUp,
            status,
            title: Some(name.clone()),
            detail: None,
            preset: None,
            round: None,
            model: None,
            tool: None,
            started_by: Starter::Role {
                id: role.clone(),
                name,
            },
            at,
            finished_at: finished,
            duration_ms: duration(at, finished),
            usage: Usage {
                prompt_tokens: r.get("input_tokens")?,
                completion_tokens: r.get("output_tokens")?,
            },
            preview: said.or(output).as_deref().and_then(preview),
            needs_you: false,
            link: ActivityLink {
                run_id: r.get("run_id")?,
                role_id: Some(role),
                ..ActivityLink::default()
            },
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Tool calls waiting for the person, in the person's runs (a woken role's
/// and a job's runs are the owner's).
fn approvals(
    conn: &Connection,
    scope: &Scope,
    before: DateTime<Utc>,
    take: usize,
    wanted: bool,
) -> Result<Vec<ActivityEntry>> {
    if !wanted {
        return Ok(Vec::new());
    }
    let mut stmt = conn.prepare(
        "SELECT ap.id, ap.run_id, ap.agent_id, ap.tool, ap.created_at, ag.name AS agent_name,
                r.user_id, u.name AS user_name, r.client, r.thread_id
         FROM tool_approvals ap
         JOIN runs r ON r.id = ap.run_id
         LEFT JOIN agents ag ON ag.id = ap.agent_id
         LEFT JOIN users u ON u.id = r.user_id
         WHERE ap.status = 'pending' AND r.user_id = ?1 AND ap.created_at < ?2
         ORDER BY ap.created_at DESC LIMIT ?3",
    )?;
    let rows = stmt.query_map(params![scope.person, before, take as i64], |r| {
        let id: String = r.get("id")?;
        let agent: String = r.get("agent_id")?;
        Ok(ActivityEntry {
            key: format!("approval:{id}"),
            kind: ActivityKind::Approval,
            status: ActivityStatus::Waiting,
            title: Some(r.get::<_, Option<String>>("agent_name")?.unwrap_or(agent)),
            detail: None,
            preset: None,
            round: None,
            model: None,
            tool: Some(r.get("tool")?),
            started_by: person(r, r.get("client")?)?,
            at: r.get("created_at")?,
            finished_at: None,
            duration_ms: None,
            usage: Usage::default(),
            preview: None,
            needs_you: true,
            link: ActivityLink {
                run_id: r.get("run_id")?,
                thread_id: r.get("thread_id")?,
                approval_id: Some(id),
                ..ActivityLink::default()
            },
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}
