//! The `cron_jobs` rows: validation of what a job may hold, the mapping to
//! [`CronJob`], and the compare-and-set that claims a fire.
//!
//! Times are fixed-width RFC 3339 UTC text with microseconds (as on the bus),
//! so text order is time order and "due" is an index range scan.

use chrono::{DateTime, SecondsFormat, Utc};
use rusqlite::{Connection, OptionalExtension, Row, params};

use super::schedule::{self, Compiled};
use super::{
    CronJob, CronJobUpdate, MAX_NAME_CHARS, MAX_PROMPT_CHARS, MissedPolicy, NewCronJob, Schedule,
    Target, history,
};
use crate::error::{AppError, Result};
use crate::ids::slug_for;
use crate::risk::Risk;

pub(crate) fn stored(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(SecondsFormat::Micros, true)
}

pub(crate) fn parse_stored(text: &str) -> rusqlite::Result<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(text)
        .map(|t| t.with_timezone(&Utc))
        .map_err(|e| {
            rusqlite::Error::FromSqlConversionFailure(0, rusqlite::types::Type::Text, Box::new(e))
        })
}

pub(crate) fn parse_opt(text: Option<String>) -> rusqlite::Result<Option<DateTime<Utc>>> {
    text.as_deref().map(parse_stored).transpose()
}

/// A job row as the scheduler needs it.
#[derive(Debug, Clone)]
pub(crate) struct JobRow {
    pub id: String,
    pub name: String,
    pub schedule: Schedule,
    pub time_zone: String,
    pub target: Target,
    pub prompt: String,
    pub missed: MissedPolicy,
    pub paused: bool,
    pub next_run_at: Option<String>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl JobRow {
    pub(crate) fn compiled(&self) -> Result<(Compiled, chrono_tz::Tz)> {
        Ok((
            schedule::compile(&self.schedule)?,
            schedule::time_zone(&self.time_zone)?,
        ))
    }
}

const COLUMNS: &str = "id, name, schedule_kind, expression, interval_seconds, time_zone, \
     target_kind, target_id, prompt, missed, paused, next_run_at, created_at, updated_at";

fn row(r: &Row<'_>) -> rusqlite::Result<JobRow> {
    let kind: String = r.get(2)?;
    let schedule = if kind == "interval" {
        Schedule::Interval {
            seconds: r.get::<_, i64>(4)?.clamp(0, i64::from(u32::MAX)) as u32,
        }
    } else {
        Schedule::Cron {
            expression: r.get::<_, Option<String>>(3)?.unwrap_or_default(),
        }
    };
    let id: String = r.get(7)?;
    let target = match r.get::<_, String>(6)?.as_str() {
        "swarm" => Target::Swarm { id },
        "role" => Target::Role { id },
        _ => Target::Agent { id },
    };
    let missed = if r.get::<_, String>(9)? == "run_once" {
        MissedPolicy::RunOnce
    } else {
        MissedPolicy::Skip
    };
    Ok(JobRow {
        id: r.get(0)?,
        name: r.get(1)?,
        schedule,
        time_zone: r.get(5)?,
        target,
        prompt: r.get(8)?,
        missed,
        paused: r.get(10)?,
        next_run_at: r.get(11)?,
        created_at: parse_stored(&r.get::<_, String>(12)?)?,
        updated_at: parse_stored(&r.get::<_, String>(13)?)?,
    })
}

pub(crate) fn find_row(conn: &Connection, id: &str) -> Result<Option<JobRow>> {
    Ok(conn
        .prepare_cached(&format!("SELECT {COLUMNS} FROM cron_jobs WHERE id = ?1"))?
        .query_row([id], row)
        .optional()?)
}

pub(crate) fn require_row(conn: &Connection, id: &str) -> Result<JobRow> {
    find_row(conn, id)?.ok_or_else(|| AppError::not_found("scheduled job", id))
}

pub(crate) fn all_rows(conn: &Connection) -> Result<Vec<JobRow>> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM cron_jobs ORDER BY name COLLATE NOCASE"
    ))?;
    let rows = stmt.query_map([], row)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The unpaused jobs whose next run is at or before `now`.
pub(crate) fn due_rows(conn: &Connection, now: DateTime<Utc>) -> Result<Vec<JobRow>> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM cron_jobs
         WHERE paused = 0 AND next_run_at IS NOT NULL AND next_run_at <= ?1
         ORDER BY next_run_at"
    ))?;
    let rows = stmt.query_map([stored(now)], row)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The soonest next run of any unpaused job.
pub(crate) fn soonest(conn: &Connection) -> Result<Option<DateTime<Utc>>> {
    let at: Option<String> = conn.query_row(
        "SELECT min(next_run_at) FROM cron_jobs WHERE paused = 0",
        [],
        |r| r.get(0),
    )?;
    Ok(parse_opt(at)?)
}

fn target_name(conn: &Connection, target: &Target) -> Result<Option<String>> {
    let sql = match target {
        Target::Agent { .. } => "SELECT name FROM agents WHERE id = ?1",
        Target::Swarm { .. } => "SELECT name FROM swarms WHERE id = ?1",
        Target::Role { .. } => "SELECT name FROM authors WHERE id = ?1 AND kind = 'role'",
    };
    Ok(conn
        .prepare_cached(sql)?
        .query_row([target.id()], |r| r.get(0))
        .optional()?)
}

fn to_job(conn: &Connection, row: JobRow) -> Result<CronJob> {
    Ok(CronJob {
        target_name: target_name(conn, &row.target)?,
        last: history::latest(conn, &row.id)?,
        unattended: grant_in(conn, &row.id)?,
        next_run_at: parse_opt(row.next_run_at)?,
        id: row.id,
        name: row.name,
        schedule: row.schedule,
        time_zone: row.time_zone,
        target: row.target,
        prompt: row.prompt,
        missed: row.missed,
        paused: row.paused,
        created_at: row.created_at,
        updated_at: row.updated_at,
    })
}

pub(crate) fn require(conn: &Connection, id: &str) -> Result<CronJob> {
    let row = require_row(conn, id)?;
    to_job(conn, row)
}

pub(crate) fn list(conn: &Connection) -> Result<Vec<CronJob>> {
    all_rows(conn)?
        .into_iter()
        .map(|row| to_job(conn, row))
        .collect()
}

/// The classes a person allowed the job's runs with nobody watching.
fn grant_in(conn: &Connection, id: &str) -> Result<Vec<Risk>> {
    let mut stmt = conn.prepare_cached("SELECT risk FROM cron_job_unattended WHERE job_id = ?1")?;
    let rows = stmt.query_map([id], |r| r.get::<_, String>(0))?;
    let mut risks: Vec<Risk> = rows
        .collect::<rusqlite::Result<Vec<_>>>()?
        .iter()
        .filter_map(|r| Risk::parse(r))
        .collect();
    risks.sort();
    Ok(risks)
}

/// The job's name and grant, read fresh by the permission gate at each call
/// of a run the job started (none when the job is gone: nothing granted).
pub(crate) fn grant_of(conn: &Connection, id: &str) -> Result<Option<(String, Vec<Risk>)>> {
    let name: Option<String> = conn
        .prepare_cached("SELECT name FROM cron_jobs WHERE id = ?1")?
        .query_row([id], |r| r.get(0))
        .optional()?;
    match name {
        Some(name) => Ok(Some((name, grant_in(conn, id)?))),
        None => Ok(None),
    }
}

/// Replaces the job's grant. Reading needs none, so it is not stored; a
/// role's job has none of its own — the role's wake-ups keep what the role
/// was allowed in the Inbox.
fn write_grant(conn: &Connection, id: &str, target: &Target, risks: &[Risk]) -> Result<()> {
    let risks: Vec<Risk> = risks.iter().copied().filter(|r| *r != Risk::Read).collect();
    if risks.contains(&Risk::Reply) {
        return Err(AppError::invalid_field(
            "unattended",
            "reply_without_mail",
            "a job's runs are handed no mail to answer: allow \"send\" for a job that posts messages",
        ));
    }
    if matches!(target, Target::Role { .. }) && !risks.is_empty() {
        return Err(AppError::invalid_field(
            "unattended",
            "role_target",
            "a role's wake-up may do unattended what the role was allowed in the Inbox: set it there, not on the job",
        ));
    }
    conn.execute("DELETE FROM cron_job_unattended WHERE job_id = ?1", [id])?;
    for risk in risks {
        conn.execute(
            "INSERT OR IGNORE INTO cron_job_unattended (job_id, risk) VALUES (?1, ?2)",
            params![id, risk.as_str()],
        )?;
    }
    Ok(())
}

fn check_name(name: &str) -> Result<String> {
    let name = name.trim();
    if name.is_empty() {
        return Err(AppError::invalid_field(
            "name",
            "required",
            "a scheduled job needs a name",
        ));
    }
    if name.chars().count() > MAX_NAME_CHARS {
        return Err(AppError::invalid_field(
            "name",
            "too_long",
            format!("a job's name has at most {MAX_NAME_CHARS} characters"),
        ));
    }
    Ok(name.to_owned())
}

/// The target exists and can run; errors name the `target` field.
/// The job names an agent, swarm or role (`what`) that does not exist.
pub(super) fn unknown_target(what: &str, id: &str) -> AppError {
    AppError::invalid_field(
        "target",
        "unknown_target",
        format!("there is no {what} '{id}'"),
    )
    .with_details(serde_json::json!({
        "field": "target", "reason": "unknown_target", "kind": what, "id": id
    }))
}

fn check_target(conn: &Connection, target: &Target) -> Result<Target> {
    let id = target.id().trim();
    let what = match target {
        Target::Agent { .. } => "agent",
        Target::Swarm { .. } => "swarm",
        Target::Role { .. } => "role",
    };
    if id.is_empty() {
        return Err(AppError::invalid_field(
            "target",
            "required",
            format!("say which {what} the job runs"),
        ));
    }
    let target = match target {
        Target::Agent { .. } => Target::Agent { id: id.to_owned() },
        Target::Swarm { .. } => Target::Swarm { id: id.to_owned() },
        Target::Role { .. } => Target::Role { id: id.to_owned() },
    };
    if target_name(conn, &target)?.is_none() {
        return Err(unknown_target(what, id));
    }
    if let Target::Role { .. } = target {
        let agent: Option<String> =
            conn.query_row("SELECT agent_id FROM authors WHERE id = ?1", [id], |r| {
                r.get(0)
            })?;
        if agent.is_none() {
            return Err(AppError::invalid_field(
                "target",
                "role_without_agent",
                format!(
                    "the role '{id}' has no agent to wake: it reads its inbox itself. Give it an agent in the Inbox first"
                ),
            ));
        }
    }
    Ok(target)
}

fn check_prompt(prompt: Option<String>, target: &Target) -> Result<String> {
    let prompt = prompt.unwrap_or_default().trim().to_owned();
    if prompt.chars().count() > MAX_PROMPT_CHARS {
        return Err(AppError::invalid_field(
            "prompt",
            "too_long",
            format!("a job's prompt has at most {MAX_PROMPT_CHARS} characters"),
        ));
    }
    if prompt.is_empty() && !matches!(target, Target::Role { .. }) {
        return Err(AppError::invalid_field(
            "prompt",
            "required",
            format!(
                "say what the {} is asked each time the job runs",
                target.kind()
            ),
        ));
    }
    Ok(prompt)
}

fn check_unique(conn: &Connection, id: &str, name: &str, except: Option<&str>) -> Result<()> {
    let clash: Option<String> = conn
        .query_row(
            "SELECT id FROM cron_jobs WHERE (id = ?1 OR name = ?2 COLLATE NOCASE) AND id IS NOT ?3",
            params![id, name, except],
            |r| r.get(0),
        )
        .optional()?;
    if clash.is_some() {
        return Err(AppError::conflicting_field(
            "name",
            "duplicate",
            format!("a scheduled job named '{name}' already exists"),
        ));
    }
    Ok(())
}

/// The first fire after `now`.
fn first_fire(schedule: &Schedule, time_zone: &str, now: DateTime<Utc>) -> Result<Option<String>> {
    let compiled = schedule::compile(schedule)?;
    let tz = schedule::time_zone(time_zone)?;
    Ok(compiled.next_after(now, tz).map(stored))
}

pub(crate) fn insert(conn: &Connection, input: NewCronJob, now: DateTime<Utc>) -> Result<CronJob> {
    let name = check_name(&input.name)?;
    let id = slug_for("name", &name)?;
    let time_zone = match input.time_zone.as_deref().map(str::trim) {
        Some(tz) if !tz.is_empty() => tz.to_owned(),
        _ => schedule::local_time_zone(),
    };
    schedule::time_zone(&time_zone)?;
    schedule::compile(&input.schedule)?;
    let target = check_target(conn, &input.target)?;
    let prompt = check_prompt(input.prompt, &target)?;
    check_unique(conn, &id, &name, None)?;
    let paused = input.paused.unwrap_or(false);
    let next = if paused {
        None
    } else {
        first_fire(&input.schedule, &time_zone, now)?
    };
    let (kind, expression, seconds) = schedule_columns(&input.schedule);
    conn.execute(
        "INSERT INTO cron_jobs (id, name, schedule_kind, expression, interval_seconds, time_zone,
             target_kind, target_id, prompt, missed, paused, next_run_at, created_at, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?13)",
        params![
            id,
            name,
            kind,
            expression,
            seconds,
            time_zone,
            target.kind(),
            target.id(),
            prompt,
            input.missed.unwrap_or_default().as_str(),
            paused,
            next,
            stored(now)
        ],
    )?;
    write_grant(
        conn,
        &id,
        &target,
        input.unattended.as_deref().unwrap_or_default(),
    )?;
    require(conn, &id)
}

fn schedule_columns(schedule: &Schedule) -> (&'static str, Option<String>, Option<i64>) {
    match schedule {
        Schedule::Cron { expression } => ("cron", Some(expression.trim().to_owned()), None),
        Schedule::Interval { seconds } => ("interval", None, Some(i64::from(*seconds))),
    }
}

pub(crate) fn update(
    conn: &Connection,
    id: &str,
    input: CronJobUpdate,
    now: DateTime<Utc>,
) -> Result<CronJob> {
    let old = require_row(conn, id)?;
    let name = match input.name {
        Some(name) => check_name(&name)?,
        None => old.name.clone(),
    };
    check_unique(conn, "", &name, Some(id))?;
    let retimed = input.schedule.is_some() || input.time_zone.is_some();
    let schedule = input.schedule.unwrap_or(old.schedule);
    let time_zone = input
        .time_zone
        .map(|tz| tz.trim().to_owned())
        .unwrap_or(old.time_zone);
    schedule::time_zone(&time_zone)?;
    schedule::compile(&schedule)?;
    let target = match input.target {
        Some(target) => check_target(conn, &target)?,
        None => old.target,
    };
    let prompt = check_prompt(Some(input.prompt.unwrap_or(old.prompt)), &target)?;
    let missed = input.missed.unwrap_or(old.missed);
    let next = if old.paused {
        None
    } else if retimed {
        first_fire(&schedule, &time_zone, now)?
    } else {
        old.next_run_at
    };
    let (kind, expression, seconds) = schedule_columns(&schedule);
    conn.execute(
        "UPDATE cron_jobs SET name = ?2, schedule_kind = ?3, expression = ?4, interval_seconds = ?5,
             time_zone = ?6, target_kind = ?7, target_id = ?8, prompt = ?9, missed = ?10,
             next_run_at = ?11, updated_at = ?12
         WHERE id = ?1",
        params![
            id,
            name,
            kind,
            expression,
            seconds,
            time_zone,
            target.kind(),
            target.id(),
            prompt,
            missed.as_str(),
            next,
            stored(now)
        ],
    )?;
    match input.unattended {
        Some(risks) => write_grant(conn, id, &target, &risks)?,
        // Now waking a role: the job's own grant no longer applies.
        None if matches!(target, Target::Role { .. }) => write_grant(conn, id, &target, &[])?,
        None => {}
    }
    require(conn, id)
}

pub(crate) fn set_paused(
    conn: &Connection,
    id: &str,
    paused: bool,
    now: DateTime<Utc>,
) -> Result<CronJob> {
    let old = require_row(conn, id)?;
    if old.paused == paused {
        return to_job(conn, old);
    }
    let next = if paused {
        None
    } else {
        first_fire(&old.schedule, &old.time_zone, now)?
    };
    conn.execute(
        "UPDATE cron_jobs SET paused = ?2, next_run_at = ?3, updated_at = ?4 WHERE id = ?1",
        params![id, paused, next, stored(now)],
    )?;
    require(conn, id)
}

/// Moves the job's next run from `seen` to `next` if no other scheduler did
/// first; true when this one won the fire.
pub(crate) fn claim(conn: &Connection, id: &str, seen: &str, next: Option<String>) -> Result<bool> {
    let changed = conn.execute(
        "UPDATE cron_jobs SET next_run_at = ?3 WHERE id = ?1 AND next_run_at IS ?2 AND paused = 0",
        params![id, seen, next],
    )?;
    Ok(changed == 1)
}
