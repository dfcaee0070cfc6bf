//! Wake-ups on PostgreSQL: which roles are due, the claim that lets one
//! replica (of any number) run a due wake-up, and a wake command's
//! short-lived tokens.
//!
//! The claim locks the role's row with `FOR UPDATE SKIP LOCKED`: a replica
//! that finds it locked is looking at a wake-up another one is claiming
//! right now and moves on, without waiting; the one holding the lock checks
//! that `next_wake_at` is still what it read and moves it one interval
//! ahead in the same transaction. Whoever commits first wins, once.
//!
//! The claim also takes a lease on the role (`waking_until`) for the
//! length of its wake-up: while one replica runs it, no other wakes the
//! role again (urgent mail arriving meanwhile would otherwise start a
//! second run on the same unread mail). The lease is short ([`LEASE`]) and
//! the replica running the wake-up renews it every [`RENEW_EVERY`]: it is
//! released when the wake-up ends, ringing every replica, and a replica
//! killed mid-run lets it lapse within [`LEASE`], after which another
//! replica wakes the role (the schedule reads a leased role as due when
//! its lease ends).

use chrono::{DateTime, Duration, Utc};

use super::{PgBus, int};
use crate::error::Result;
use crate::store::bus::Author;

/// A role that can be woken: when it is due, and until when a replica's
/// wake-up holds it.
pub(crate) struct Scheduled {
    pub id: String,
    pub next_wake_at: Option<DateTime<Utc>>,
    pub waking_until: Option<DateTime<Utc>>,
}

/// Roles that can be woken.
pub(crate) async fn schedule(bus: &PgBus) -> Result<Vec<Scheduled>> {
    let client = bus.client().await?;
    let rows = client
        .query(
            "SELECT id, next_wake_at, waking_until FROM authors
             WHERE (agent_id IS NOT NULL OR wake_command IS NOT NULL)
               AND wake_interval_minutes IS NOT NULL",
            &[],
        )
        .await?;
    Ok(rows
        .iter()
        .map(|r| Scheduled {
            id: r.get(0),
            next_wake_at: r.get(1),
            waking_until: r.get(2),
        })
        .collect())
}

/// Claims `id`'s wake-up if it is still due at `seen` and nobody else is
/// claiming it; too soon after its last wake-up (`min_wake` seconds) it is
/// deferred to the end of that interval instead. The role when claimed.
pub(crate) async fn claim(
    bus: &PgBus,
    owner: &str,
    id: &str,
    seen: Option<DateTime<Utc>>,
    min_wake: u32,
) -> Result<Option<Author>> {
    let mut client = bus.client().await?;
    let tx = client.transaction().await?;
    let row = tx
        .query_opt(
            "SELECT next_wake_at, last_wake_at, wake_interval_minutes, waking_until
             FROM authors
             WHERE id = $1 AND (agent_id IS NOT NULL OR wake_command IS NOT NULL)
             FOR UPDATE SKIP LOCKED",
            &[&id],
        )
        .await?;
    let Some(row) = row else {
        return Ok(None);
    };
    let (next, last, minutes): (Option<DateTime<Utc>>, Option<DateTime<Utc>>, Option<i32>) =
        (row.get(0), row.get(1), row.get(2));
    let leased: Option<DateTime<Utc>> = row.get(3);
    let Some(minutes) = minutes else {
        return Ok(None);
    };
    let now = crate::store::bus::time::now();
    if next != seen || leased.is_some_and(|until| until > now) {
        return Ok(None);
    }
    let gap = Duration::seconds(i64::from(min_wake));
    if let Some(last) = last
        && last + gap > now
    {
        tx.execute(
            "UPDATE authors SET next_wake_at = $2 WHERE id = $1",
            &[&id, &(last + gap)],
        )
        .await?;
        tx.commit().await?;
        return Ok(None);
    }
    tx.execute(
        "UPDATE authors SET last_wake_at = $2, next_wake_at = $3, waking_until = $4 WHERE id = $1",
        &[
            &id,
            &now,
            &(now + Duration::minutes(i64::from(minutes))),
            &(now + LEASE),
        ],
    )
    .await?;
    tx.commit().await?;
    drop(client);
    super::authors::find(bus, owner, id).await
}

/// How long a claim, or its last renewal, keeps other replicas from waking
/// the role: what a replica killed mid-run holds it for at most.
pub(crate) const LEASE: Duration = Duration::seconds(90);
/// How often the replica running a wake-up renews its lease: a third of it,
/// so two renewals may fail (a slow database) before another replica may
/// take over.
pub(crate) const RENEW_EVERY: std::time::Duration = std::time::Duration::from_secs(30);

/// Extends the lease of a wake-up still running on this replica; a lease
/// already released stays released.
pub(crate) async fn renew(bus: &PgBus, id: &str) -> Result<()> {
    let client = bus.client().await?;
    client
        .execute(
            "UPDATE authors SET waking_until = $2 WHERE id = $1 AND waking_until IS NOT NULL",
            &[&id, &(crate::store::bus::time::now() + LEASE)],
        )
        .await?;
    Ok(())
}

/// Ends the lease a claim took on `id` and rings every replica's scheduler:
/// mail that came during the wake-up may make the role due again.
pub(crate) async fn release(bus: &PgBus, id: &str) -> Result<()> {
    let mut client = bus.client().await?;
    let tx = client.transaction().await?;
    tx.execute(
        "UPDATE authors SET waking_until = NULL WHERE id = $1",
        &[&id],
    )
    .await?;
    tx.execute("SELECT pg_notify($1, $2)", &[&bus.channel(), &id])
        .await?;
    tx.commit().await?;
    Ok(())
}

/// Makes `ids` due now (wake-ups cut off when their replica stopped).
pub(crate) async fn make_due(bus: &PgBus, ids: &[String]) -> Result<usize> {
    if ids.is_empty() {
        return Ok(0);
    }
    let client = bus.client().await?;
    let changed = client
        .execute(
            "UPDATE authors SET next_wake_at = $2 WHERE id = ANY($1)",
            &[&ids, &crate::store::bus::time::now()],
        )
        .await?;
    Ok(usize::try_from(changed).unwrap_or(usize::MAX))
}

/// Moves `id`'s next wake-up to `until` (a role past its wake-up budget).
pub(crate) async fn defer(bus: &PgBus, id: &str, until: DateTime<Utc>) -> Result<()> {
    let client = bus.client().await?;
    client
        .execute(
            "UPDATE authors SET next_wake_at = $2 WHERE id = $1",
            &[&id, &until],
        )
        .await?;
    Ok(())
}

/// Keeps why the last wake-up failed (or that it did not).
pub(crate) async fn record(bus: &PgBus, id: &str, failure: Option<&str>) -> Result<()> {
    let client = bus.client().await?;
    client
        .execute(
            "UPDATE authors SET last_wake_error = $2 WHERE id = $1",
            &[&id, &failure],
        )
        .await?;
    Ok(())
}

/// Stores a wake command's token hash until `seconds` from now; sweeps
/// expired ones.
pub(crate) async fn issue_token(
    bus: &PgBus,
    author: &str,
    hash: &[u8],
    seconds: u32,
) -> Result<()> {
    let client = bus.client().await?;
    client
        .execute("DELETE FROM wake_tokens WHERE expires_at <= now()", &[])
        .await?;
    client
        .execute(
            "INSERT INTO wake_tokens (token_hash, author_id, expires_at)
             VALUES ($1, $2, now() + make_interval(secs => $3))",
            &[&hash, &author, &f64::from(int(seconds))],
        )
        .await?;
    Ok(())
}

pub(crate) async fn revoke_token(bus: &PgBus, hash: &[u8]) -> Result<()> {
    let client = bus.client().await?;
    client
        .execute("DELETE FROM wake_tokens WHERE token_hash = $1", &[&hash])
        .await?;
    Ok(())
}
