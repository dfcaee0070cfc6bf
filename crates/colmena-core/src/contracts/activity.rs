//! `activity`: the caller's timeline of everything that ran — generations,
//! chats, agent and swarm runs, job fires, wake-ups, approvals waiting —
//! with its figures. The input is the [`ActivityFilter`] every door sends.

use crate::activity::{self, ActivityFilter, ActivityPage};
use crate::caller::Caller;
use crate::ctx::Ctx;
use crate::error::Result;

pub async fn timeline(ctx: &Ctx, caller: &Caller, input: ActivityFilter) -> Result<ActivityPage> {
    activity::timeline(ctx, caller, input).await
}
