//! A job's history: an entry for every run (running, then succeeded or
//! failed, with the run it produced and its error) and for every fire that
//! was not run (skipped, with why).
//!
//! Failures are numbered in commit order (`failure_seq`), and so are
//! successes (`done_seq`); every process that announces them turns the new
//! ones into notices — urgent for a failure, quiet for a result, each
//! naming its job so the window can open it — whichever process ran the
//! job: a job that fails in `colmena serve` is seen in the app too.

use chrono::{DateTime, Utc};
use rusqlite::{Connection, OptionalExtension, Row, params};
use tokio::sync::broadcast::error::RecvError;
use tokio_util::sync::CancellationToken;

use super::store::{parse_opt, parse_stored, stored};
use super::{CronRun, HistoryStatus, TriggerKind};
use crate::ctx::{Change, Ctx, Notice};
use crate::error::Result;
use crate::runs::RunKind;

const COLUMNS: &str = "id, job_id, trigger_kind, scheduled_for, started_at, finished_at, status, \
     duration_ms, run_id, run_kind, error, note, \
     (SELECT output FROM runs WHERE runs.id = cron_history.run_id), \
     (SELECT error FROM runs WHERE runs.id = cron_history.run_id)";

fn row(r: &Row<'_>) -> rusqlite::Result<CronRun> {
    let trigger = match r.get::<_, String>(2)?.as_str() {
        "manual" => TriggerKind::Manual,
        "catch_up" => TriggerKind::CatchUp,
        _ => TriggerKind::Schedule,
    };
    let status = match r.get::<_, String>(6)?.as_str() {
        "running" => HistoryStatus::Running,
        "succeeded" => HistoryStatus::Succeeded,
        "skipped" => HistoryStatus::Skipped,
        _ => HistoryStatus::Failed,
    };
    let run_kind = match r.get::<_, Option<String>>(9)?.as_deref() {
        Some("agent") => Some(RunKind::Agent),
        Some("swarm") => Some(RunKind::Swarm),
        _ => None,
    };
    Ok(CronRun {
        id: r.get(0)?,
        job_id: r.get(1)?,
        trigger,
        scheduled_for: parse_opt(r.get(3)?)?,
        started_at: parse_stored(&r.get::<_, String>(4)?)?,
        finished_at: parse_opt(r.get(5)?)?,
        status,
        duration_ms: r.get(7)?,
        run_id: r.get(8)?,
        run_kind,
        error: r.get(10)?,
        note: r.get(11)?,
        output_preview: r
            .get::<_, Option<String>>(12)?
            .as_deref()
            .and_then(crate::activity::preview),
        failure: r
            .get::<_, Option<String>>(13)?
            .and_then(|e| serde_json::from_str(&e).ok()),
    })
}

pub(crate) fn latest(conn: &Connection, job: &str) -> Result<Option<CronRun>> {
    Ok(conn
        .prepare_cached(&format!(
            "SELECT {COLUMNS} FROM cron_history WHERE job_id = ?1 ORDER BY id DESC LIMIT 1"
        ))?
        .query_row([job], row)
        .optional()?)
}

pub(crate) fn of_job(conn: &Connection, job: &str, limit: u32) -> Result<Vec<CronRun>> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM cron_history WHERE job_id = ?1 ORDER BY id DESC LIMIT ?2"
    ))?;
    let rows = stmt.query_map(params![job, limit], row)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// A run begins: its entry, `running`, owned by this process.
pub(crate) fn begin(
    conn: &Connection,
    job: &str,
    trigger: TriggerKind,
    scheduled_for: Option<DateTime<Utc>>,
    started: DateTime<Utc>,
    note: Option<&str>,
    owner: &str,
) -> Result<i64> {
    conn.execute(
        "INSERT INTO cron_history (job_id, trigger_kind, scheduled_for, started_at, status, note, owner)
         VALUES (?1, ?2, ?3, ?4, 'running', ?5, ?6)",
        params![
            job,
            trigger.as_str(),
            scheduled_for.map(stored),
            stored(started),
            note,
            owner
        ],
    )?;
    Ok(conn.last_insert_rowid())
}

/// The run the entry produced, as soon as it is known.
pub(crate) fn set_run(conn: &Connection, id: i64, run_id: &str, kind: RunKind) -> Result<()> {
    conn.execute(
        "UPDATE cron_history SET run_id = ?2, run_kind = ?3
         WHERE id = ?1 AND EXISTS (SELECT 1 FROM runs WHERE id = ?2)",
        params![id, run_id, kind.as_str()],
    )?;
    Ok(())
}

/// The job whose history links `run_id`: a run a job started, resumed
/// after a restart, stays unattended and within the job's grant.
pub(crate) fn job_of_run(conn: &Connection, run_id: &str) -> Result<Option<String>> {
    Ok(conn
        .query_row(
            "SELECT job_id FROM cron_history WHERE run_id = ?1 LIMIT 1",
            [run_id],
            |r| r.get(0),
        )
        .optional()?)
}

/// How a run ended.
#[derive(Debug, Clone, Default)]
pub(crate) struct Outcome {
    pub run: Option<(String, RunKind)>,
    pub error: Option<String>,
    pub note: Option<String>,
}

/// Closes an entry; a failure takes the next failure number.
pub(crate) fn finish(
    conn: &Connection,
    id: i64,
    finished: DateTime<Utc>,
    duration_ms: i64,
    outcome: &Outcome,
) -> Result<()> {
    let status = if outcome.error.is_some() {
        HistoryStatus::Failed
    } else {
        HistoryStatus::Succeeded
    };
    let (run_id, run_kind) = match &outcome.run {
        Some((run, kind)) => {
            let exists: bool = conn.query_row(
                "SELECT EXISTS (SELECT 1 FROM runs WHERE id = ?1)",
                [run],
                |r| r.get(0),
            )?;
            if exists {
                (Some(run.clone()), Some(kind.as_str()))
            } else {
                (None, None)
            }
        }
        None => (None, None),
    };
    conn.execute(
        "UPDATE cron_history SET status = ?2, finished_at = ?3, duration_ms = ?4,
             run_id = coalesce(?5, run_id), run_kind = coalesce(?6, run_kind), error = ?7,
             note = coalesce(?8, note),
             failure_seq = CASE WHEN ?2 = 'failed'
                 THEN (SELECT coalesce(max(failure_seq), 0) + 1 FROM cron_history) END,
             done_seq = CASE WHEN ?2 = 'succeeded'
                 THEN (SELECT coalesce(max(done_seq), 0) + 1 FROM cron_history) END
         WHERE id = ?1",
        params![
            id,
            status.as_str(),
            stored(finished),
            duration_ms,
            run_id,
            run_kind,
            outcome.error,
            outcome.note
        ],
    )?;
    Ok(())
}

/// A fire that was not run, and why.
pub(crate) fn skipped(
    conn: &Connection,
    job: &str,
    trigger: TriggerKind,
    scheduled_for: Option<DateTime<Utc>>,
    at: DateTime<Utc>,
    note: &str,
) -> Result<i64> {
    conn.execute(
        "INSERT INTO cron_history (job_id, trigger_kind, scheduled_for, started_at, finished_at,
             status, duration_ms, note)
         VALUES (?1, ?2, ?3, ?4, ?4, 'skipped', 0, ?5)",
        params![
            job,
            trigger.as_str(),
            scheduled_for.map(stored),
            stored(at),
            note
        ],
    )?;
    Ok(conn.last_insert_rowid())
}

/// Closes the entries left `running` by a process that is gone (or whose
/// run has ended without them): they failed, and say so. Returns how many.
pub(crate) fn sweep(conn: &Connection, me: &str, now: DateTime<Utc>) -> Result<usize> {
    let mut stmt = conn.prepare(
        "SELECT h.id, h.owner, h.started_at, r.status
         FROM cron_history h LEFT JOIN runs r ON r.id = h.run_id
         WHERE h.status = 'running'",
    )?;
    let running: Vec<(i64, Option<String>, String, Option<String>)> = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?
        .collect::<rusqlite::Result<_>>()?;
    let mut swept = 0;
    for (id, owner, started, run_status) in running {
        // A run that is not running any more tells; otherwise only a process
        // that is certainly gone does (an hour from now: no lease expiry).
        let run_ended = run_status.as_deref().is_some_and(|s| s != "running");
        let gone = crate::runs::lease_is_dead(
            owner.as_deref(),
            Some(now + chrono::Duration::hours(1)),
            me,
            now,
        );
        if owner.as_deref() == Some(me) || !(run_ended || gone) {
            continue;
        }
        let started = parse_stored(&started)?;
        let outcome = Outcome {
            error: Some(
                "the process running this job stopped before the run finished (the app or \
                 `colmena serve` was closed or crashed)"
                    .to_owned(),
            ),
            ..Outcome::default()
        };
        let duration = (now - started).num_milliseconds().max(0);
        finish(conn, id, now, duration, &outcome)?;
        swept += 1;
    }
    Ok(swept)
}

/// An outcome to announce: its number, the job, and the error (a failure)
/// or the first lines of what it produced (a result).
struct Announced {
    seq: i64,
    job_id: String,
    job: String,
    text: String,
}

fn outcomes_after(
    conn: &Connection,
    column: &str,
    text: &str,
    seen: i64,
) -> Result<Vec<Announced>> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT h.{column}, j.id, j.name, {text}
         FROM cron_history h JOIN cron_jobs j ON j.id = h.job_id
         WHERE h.{column} > ?1 ORDER BY h.{column}"
    ))?;
    let rows = stmt.query_map([seen], |r| {
        Ok(Announced {
            seq: r.get(0)?,
            job_id: r.get(1)?,
            job: r.get(2)?,
            text: r.get(3)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

fn failures_after(conn: &Connection, seen: i64) -> Result<Vec<Announced>> {
    outcomes_after(conn, "failure_seq", "coalesce(h.error, '')", seen)
}

fn results_after(conn: &Connection, seen: i64) -> Result<Vec<Announced>> {
    outcomes_after(
        conn,
        "done_seq",
        "coalesce((SELECT output FROM runs WHERE runs.id = h.run_id), '')",
        seen,
    )
}

fn top(conn: &Connection, column: &str) -> Result<i64> {
    Ok(conn.query_row(
        &format!("SELECT coalesce(max({column}), 0) FROM cron_history"),
        [],
        |r| r.get(0),
    )?)
}

/// The notice a failed job gives the person.
pub(crate) fn failure_notice(job_id: &str, job: &str, error: &str) -> Notice {
    Notice {
        title: format!("Scheduled job failed: {job}"),
        body: error.chars().take(240).collect(),
        urgent: true,
        from: None,
        topic: Some(crate::ctx::NoticeTopic::JobFailed {
            job: job.to_owned(),
            job_id: Some(job_id.to_owned()),
        }),
    }
}

/// The quiet notice a job that finished well gives: the first lines of
/// what it produced, and its job, to open the result from.
pub(crate) fn result_notice(job_id: &str, job: &str, output: &str) -> Notice {
    Notice {
        title: format!("Scheduled job done: {job}"),
        body: crate::activity::preview(output).unwrap_or_default(),
        urgent: false,
        from: None,
        topic: Some(crate::ctx::NoticeTopic::JobDone {
            job: job.to_owned(),
            job_id: job_id.to_owned(),
        }),
    }
}

/// Turns finished job runs into notices (desktop notifications and the
/// app's toasts) — failures urgent, results quiet — whichever process
/// committed them, until `stop`. Outcomes already there when it starts are
/// not announced again.
pub async fn announce_failures(ctx: Ctx, stop: CancellationToken) {
    let mut changes = ctx.subscribe();
    let tops = ctx
        .store()
        .read(|conn| Ok((top(conn, "failure_seq")?, top(conn, "done_seq")?)))
        .await;
    let (mut failed, mut done) = match tops {
        Ok(tops) => tops,
        Err(e) => {
            tracing::warn!(
                "finished scheduled jobs will not be announced: {}",
                e.message
            );
            return;
        }
    };
    loop {
        tokio::select! {
            () = stop.cancelled() => return,
            change = changes.recv() => match change {
                Ok(Change::CronJobs) | Err(RecvError::Lagged(_)) => {}
                Ok(_) => continue,
                Err(RecvError::Closed) => return,
            },
        }
        let (after_failed, after_done) = (failed, done);
        let found = ctx
            .store()
            .read(move |conn| {
                Ok((
                    failures_after(conn, after_failed)?,
                    results_after(conn, after_done)?,
                ))
            })
            .await;
        match found {
            Ok((failures, results)) => {
                for failure in failures {
                    failed = failed.max(failure.seq);
                    ctx.notify(failure_notice(&failure.job_id, &failure.job, &failure.text));
                }
                for result in results {
                    done = done.max(result.seq);
                    ctx.notify(result_notice(&result.job_id, &result.job, &result.text));
                }
            }
            Err(e) => tracing::warn!("could not look for finished scheduled jobs: {}", e.message),
        }
    }
}
