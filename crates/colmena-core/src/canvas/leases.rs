//! Leases of variants being generated (SPEC C4), the way runs are leased
//! (`runs`): a variant set to `queued` or `streaming` names the process
//! generating it (`host:pid:instance`) and when that claim runs out; the
//! process renews it while it works. A variant whose process died — killed,
//! crashed, the machine switched off — would otherwise stay `streaming` for
//! ever; the next start sets it to `error` with a message that says so, and
//! the user can generate it again. Another process's live generation (the
//! CLI beside the app) is left alone.

use chrono::{DateTime, Utc};
use rusqlite::{Connection, params};
use tokio_util::sync::{CancellationToken, DropGuard};

use crate::ctx::Ctx;
use crate::error::Result;
use crate::runs::{LEASE_RENEWAL, lease_expiry, lease_is_dead};

/// The error a variant is left with when its generation was cut off.
pub const INTERRUPTED: &str =
    "interrupted: the process generating this variant stopped before it finished";

/// The lease columns for a variant this process is generating now.
pub(crate) fn taken_by(ctx: &Ctx) -> (String, DateTime<Utc>) {
    (ctx.lease_owner().to_owned(), lease_expiry())
}

/// Renews, until the guard is dropped, the leases of every variant this
/// process is generating.
pub(crate) fn keep_alive(ctx: &Ctx) -> DropGuard {
    let done = CancellationToken::new();
    let (ctx, stop) = (ctx.clone(), done.clone());
    tokio::spawn(async move {
        loop {
            tokio::select! {
                _ = stop.cancelled() => break,
                _ = tokio::time::sleep(LEASE_RENEWAL) => {
                    if let Err(e) = renew(&ctx).await {
                        tracing::warn!("variant leases not renewed: {}", e.message);
                    }
                }
            }
        }
    });
    done.drop_guard()
}

async fn renew(ctx: &Ctx) -> Result<()> {
    let (owner, expires) = taken_by(ctx);
    ctx.store()
        .write(move |tx| {
            tx.execute(
                "UPDATE canvas_variants SET lease_expires_at = ?2
                 WHERE lease_owner = ?1 AND status IN ('queued', 'streaming')",
                params![owner, expires],
            )?;
            Ok(())
        })
        .await
}

/// Sets to `error` the variants left generating by a process that is gone.
/// Returns how many.
pub(crate) fn sweep(conn: &Connection, me: &str) -> Result<usize> {
    let now = Utc::now();
    let mut stmt = conn.prepare(
        "SELECT id, lease_owner, lease_expires_at FROM canvas_variants
         WHERE status IN ('queued', 'streaming')",
    )?;
    let generating: Vec<(String, Option<String>, Option<DateTime<Utc>>)> = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
        .collect::<rusqlite::Result<_>>()?;
    let mut swept = 0;
    for (id, owner, expires) in generating {
        if lease_is_dead(owner.as_deref(), expires, me, now) {
            swept += conn.execute(
                "UPDATE canvas_variants SET status = 'error', error_message = ?2,
                     lease_owner = NULL, lease_expires_at = NULL
                 WHERE id = ?1 AND status IN ('queued', 'streaming')",
                params![id, INTERRUPTED],
            )?;
        }
    }
    Ok(swept)
}
