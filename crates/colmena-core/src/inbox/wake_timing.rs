//! When mail may wake a role: the bus's own rule, kept by every send and
//! by the role runner. However much urgent mail arrives, a role is not
//! woken again sooner than [`min_wake_interval`] after its last wake-up
//! began (60 s unless set per data dir): each wake-up is a paid model run,
//! and anyone holding a token can send urgent mail. A send moves the role's
//! `next_wake_at` no earlier than [`earliest_urgent_wake`]; the runner
//! (`roles::wakes::claim`) defers a wake-up that would come too soon.

use chrono::{DateTime, Duration, Utc};
use rusqlite::{Connection, OptionalExtension};

use crate::ctx::Ctx;
use crate::error::{AppError, Result};
use crate::store::bus::time::parse_stored;
use crate::store::meta;

/// The minimum interval between two wake-ups of one role unless the data
/// dir says otherwise.
pub const DEFAULT_MIN_WAKE_SECONDS: u32 = 60;
const META_MIN_WAKE: &str = "bus_min_wake_seconds";

/// The minimum interval between two wake-ups of one role, in seconds.
pub async fn min_wake_interval(ctx: &Ctx) -> Result<u32> {
    if let Some(pg) = ctx.bus_pg() {
        return pg
            .setting(
                crate::store::bus::postgres::messages::MIN_WAKE_KEY,
                DEFAULT_MIN_WAKE_SECONDS,
            )
            .await;
    }
    ctx.store().read(min_wake_seconds).await
}

/// Sets the minimum interval between two wake-ups of one role (1 s to a day).
pub async fn set_min_wake_interval(ctx: &Ctx, seconds: u32) -> Result<u32> {
    if !(1..=86_400).contains(&seconds) {
        return Err(AppError::invalid_field(
            "minWakeSeconds",
            "out_of_range",
            format!(
                "the minimum interval between wake-ups must be 1 to 86400 seconds, not {seconds}"
            ),
        ));
    }
    if let Some(pg) = ctx.bus_pg() {
        pg.set_setting(crate::store::bus::postgres::messages::MIN_WAKE_KEY, seconds)
            .await?;
        return Ok(seconds);
    }
    ctx.store()
        .write(move |tx| meta::set(tx, META_MIN_WAKE, &seconds.to_string()))
        .await?;
    Ok(seconds)
}

fn min_wake_seconds(conn: &Connection) -> Result<u32> {
    Ok(meta::get(conn, META_MIN_WAKE)?
        .and_then(|v| v.parse().ok())
        .unwrap_or(DEFAULT_MIN_WAKE_SECONDS))
}

/// When the last wake-up of `role` began, and the interval it must keep.
pub(crate) fn last_wake(
    conn: &Connection,
    role: &str,
) -> Result<(Option<DateTime<Utc>>, Duration)> {
    let last: Option<String> = conn
        .query_row(
            "SELECT last_wake_at FROM authors WHERE id = ?1",
            [role],
            |r| r.get(0),
        )
        .optional()?
        .flatten();
    let last = last.as_deref().map(parse_stored).transpose()?;
    let gap = Duration::seconds(i64::from(min_wake_seconds(conn)?));
    Ok((last, gap))
}

/// The soonest an urgent message arriving `now` may wake `role`: now, or
/// the end of the minimum interval after its last wake-up.
pub(crate) fn earliest_urgent_wake(
    conn: &Connection,
    role: &str,
    now: DateTime<Utc>,
) -> Result<DateTime<Utc>> {
    let (last, gap) = last_wake(conn, role)?;
    Ok(last.map_or(now, |last| (last + gap).max(now)))
}
