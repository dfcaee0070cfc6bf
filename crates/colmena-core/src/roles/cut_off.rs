//! Wake-ups cut off by a crash (SPEC B6, H42). A wake-up run is recorded
//! with the role it speaks as and the messages it was handed
//! (`role_wakes`). If its process dies, the run is *interrupted* like any
//! other, but it is not offered to the user for resume: the role's next
//! wake-up — due at once when the scheduler starts — resumes it from its
//! checkpoint with the same bus identity, so what it already sent is in its
//! history and is not sent again, and when it completes it marks exactly
//! those messages read. Mail that came later is handled by a fresh run.

use crate::ctx::Ctx;
use crate::error::Result;
use crate::inbox::Caller;
use crate::inbox::messages;
use crate::runs::context::no_events;
use crate::runs::{self, RunStatus};
use crate::runtime::resume::resume_run;

/// Makes due now every role with a cut-off wake-up that can be resumed
/// (after sweeping the runs of dead processes). Returns how many.
pub(crate) async fn make_due(ctx: &Ctx) -> Result<usize> {
    let me = ctx.lease_owner().to_owned();
    // This process's cut-off runs (in this workspace), the roles on the bus.
    let roles: Vec<String> = ctx
        .store()
        .write(move |tx| {
            runs::sweep(tx, &me)?;
            let mut stmt = tx.prepare(
                "SELECT DISTINCT w.author_id FROM role_wakes w JOIN runs r ON r.id = w.run_id
                 WHERE r.status = 'interrupted' AND r.checkpoint IS NOT NULL",
            )?;
            let rows = stmt.query_map([], |r| r.get(0))?;
            Ok(rows.collect::<rusqlite::Result<Vec<String>>>()?)
        })
        .await?;
    ctx.bus().make_due(&roles).await
}

/// Resumes `role`'s cut-off wake-ups, oldest first; each one that completes
/// marks its messages read. A failure is logged: the messages stay unread
/// and the fresh run that follows handles them.
pub(crate) async fn resume_for(ctx: &Ctx, role: &str) -> Result<()> {
    let (me, role_id) = (ctx.lease_owner().to_owned(), role.to_owned());
    let cut_off: Vec<(String, String)> = ctx
        .store()
        .write(move |tx| {
            runs::sweep(tx, &me)?;
            let mut stmt = tx.prepare(
                "SELECT w.run_id, w.message_ids FROM role_wakes w JOIN runs r ON r.id = w.run_id
                 WHERE w.author_id = ?1 AND r.status = 'interrupted' AND r.checkpoint IS NOT NULL
                 ORDER BY r.started_at",
            )?;
            let rows = stmt.query_map([&role_id], |r| Ok((r.get(0)?, r.get(1)?)))?;
            Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
        })
        .await?;
    for (run_id, ids) in cut_off {
        let resumed = resume_run(ctx, &run_id, no_events()).await;
        match resumed {
            Ok(run) if run.status == RunStatus::Completed => {
                let ids: Vec<String> = serde_json::from_str(&ids)?;
                messages::mark_read(ctx, &Caller::system(ctx), role, ids).await?;
            }
            Ok(run) => tracing::warn!(
                "the cut-off wake-up {run_id} of '{role}' ended {} when resumed",
                run.status.as_str()
            ),
            Err(e) => tracing::warn!(
                "the cut-off wake-up {run_id} of '{role}' could not be resumed: {}",
                e.message
            ),
        }
    }
    Ok(())
}
