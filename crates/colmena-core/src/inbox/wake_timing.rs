//! When mail may wake a role: the bus's own rule, kept by every send and
//! by the role runner. However much urgent mail arrives, a role is not
//! woken again sooner than [`min_wake_interval`] after its last wake-up
//! began (60 s unless set per data dir): each wake-up is a paid model run,
//! and anyone holding a token can send urgent mail. A send moves the role's
//! `next_wake_at` no earlier than the end of that interval, and a claim of
//! a wake-up that would come too soon defers it instead; both are done by
//! the bus store in the transaction that sends or claims
//! (`store::bus::port::BusStore::send`, `claim`).

use crate::ctx::Ctx;
use crate::error::{AppError, Result};
use crate::store::bus::port::Setting;

/// The minimum interval between two wake-ups of one role, in seconds.
pub async fn min_wake_interval(ctx: &Ctx) -> Result<u32> {
    ctx.bus().setting(Setting::MinWakeSeconds).await
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
    ctx.bus()
        .set_setting(Setting::MinWakeSeconds, seconds)
        .await?;
    Ok(seconds)
}
