//! The Activity figures: how much ran since a time, how much failed, the
//! tokens it took, and how many approvals wait now — counted in SQL per
//! source, with the same scope as the timeline.
//!
//! What counts as one run: a top-level run (a chat turn, an agent or swarm
//! run, the run a job or a wake-up started), a generated round, and a job
//! fire or wake-up that ran without a run of its own (a role's wake
//! command, a job that failed before its run started). Tokens include what
//! delegations and swarm members took.

use chrono::{DateTime, Utc};
use rusqlite::{Connection, params};

use super::{ActivityFigures, Scope};
use crate::error::Result;
use crate::store::bus::time::stored;

pub(super) fn since(
    conn: &Connection,
    scope: &Scope,
    from: DateTime<Utc>,
) -> Result<ActivityFigures> {
    let history_from = stored(from);
    let (runs, failures): (i64, i64) = conn.query_row(
        "SELECT count(*), coalesce(sum(status = 'failed'), 0) FROM runs
         WHERE user_id = ?1 AND parent_run_id IS NULL AND started_at >= ?2",
        params![scope.person, from],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    let run_tokens: i64 = conn.query_row(
        "SELECT coalesce(sum(prompt_tokens + completion_tokens), 0) FROM runs
         WHERE user_id = ?1 AND started_at >= ?2",
        params![scope.person, from],
        |r| r.get(0),
    )?;
    let (rounds, round_tokens): (i64, i64) = conn.query_row(
        "SELECT count(*), coalesce(sum(vr.prompt_tokens + vr.completion_tokens), 0)
         FROM variant_rounds vr
         JOIN canvas_variants v ON v.id = vr.variant_id
         JOIN canvases c ON c.id = v.canvas_id
         WHERE vr.by_hand = 0 AND c.user_id = ?1 AND vr.generated_at >= ?2",
        params![scope.person, from],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    // Fires and wake commands that ran without a run (and so no tokens).
    let (mut bare, mut bare_failures) = (0_i64, 0_i64);
    if scope.owner {
        let (fires, failed): (i64, i64) = conn.query_row(
            "SELECT count(*), coalesce(sum(status = 'failed'), 0) FROM cron_history
             WHERE run_id IS NULL AND status IN ('succeeded', 'failed') AND started_at >= ?1",
            [&history_from],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )?;
        let (commands, failed_commands): (i64, i64) = conn.query_row(
            "SELECT count(*),
                    coalesce(sum(error IS NOT NULL OR timed_out = 1 OR coalesce(exit_code, 0) <> 0), 0)
             FROM role_wake_history WHERE run_id IS NULL AND started_at >= ?1",
            [&history_from],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )?;
        bare = fires + commands;
        bare_failures = failed + failed_commands;
    }
    let count = |n: i64| u32::try_from(n).unwrap_or(u32::MAX);
    Ok(ActivityFigures {
        runs: count(runs + rounds + bare),
        failures: count(failures + bare_failures),
        tokens: u64::try_from(run_tokens + round_tokens).unwrap_or(0),
    })
}

/// Approvals waiting in the person's runs.
pub(super) fn waiting(conn: &Connection, scope: &Scope) -> Result<u32> {
    let n: i64 = conn.query_row(
        "SELECT count(*) FROM tool_approvals ap JOIN runs r ON r.id = ap.run_id
         WHERE ap.status = 'pending' AND r.user_id = ?1",
        [&scope.person],
        |r| r.get(0),
    )?;
    Ok(u32::try_from(n).unwrap_or(u32::MAX))
}
