//! A role's wake-up budget (issue "Safe by default, round two"): however its
//! mail arrives, a role is woken with mail to handle at most `per_hour`
//! times an hour and `per_day` times a day. Each such wake-up is a paid
//! model run (or its outside program), and the minimum interval alone
//! (`inbox::wake_timing::min_wake_interval`) still lets a loop run for ever: two roles
//! answering each other urgently, or one token holder's urgent mail every
//! minute, each wake-up repeating what the mail asked for.
//!
//! A wake-up past the budget does not run: its mail stays unread, the
//! role's next wake-up moves to when the budget frees, and the person gets
//! one notice for the stretch. "Wake now" (a person's button) is not held
//! back. The count is the role's wake history on this machine (wake-ups
//! with nothing unread are not in it: they cost nothing); on a PostgreSQL
//! bus each replica keeps its own.

use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};

use super::wake_history;
use crate::ctx::{Change, Ctx, Notice, NoticeTopic};
use crate::error::{AppError, Result};
use crate::inbox::authors::Author;
use crate::store::bus::port::Setting;
use crate::store::bus::time::{self, parse_stored, stored};
use crate::store::meta;

/// Wake-ups with mail a role may have in an hour unless the workspace says
/// otherwise.
pub const DEFAULT_PER_HOUR: u32 = Setting::WakesPerHour.default_value();
/// And in a day (24 hours).
pub const DEFAULT_PER_DAY: u32 = Setting::WakesPerDay.default_value();
/// The most either limit may be: the count is read from the wake history,
/// which keeps this many entries per role.
pub const MAX_LIMIT: u32 = wake_history::KEPT_PER_ROLE;

/// Per role: until when the person was last told the role is held back.
const NOTICED_PREFIX: &str = "bus_wake_budget_noticed:";

/// How many wake-ups with mail each role may have.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct WakeBudget {
    pub per_hour: u32,
    pub per_day: u32,
}

impl Default for WakeBudget {
    fn default() -> WakeBudget {
        WakeBudget {
            per_hour: DEFAULT_PER_HOUR,
            per_day: DEFAULT_PER_DAY,
        }
    }
}

/// Each role's wake-up budget in this workspace (on its bus).
pub async fn wake_budget(ctx: &Ctx) -> Result<WakeBudget> {
    Ok(WakeBudget {
        per_hour: ctx.bus().setting(Setting::WakesPerHour).await?,
        per_day: ctx.bus().setting(Setting::WakesPerDay).await?,
    })
}

/// Sets each role's wake-up budget (1 to [`MAX_LIMIT`] each; a day allows
/// at least what an hour does).
pub async fn set_wake_budget(ctx: &Ctx, budget: WakeBudget) -> Result<WakeBudget> {
    for (field, value) in [("perHour", budget.per_hour), ("perDay", budget.per_day)] {
        if !(1..=MAX_LIMIT).contains(&value) {
            return Err(AppError::invalid_field(
                field,
                "out_of_range",
                format!("a wake-up budget is 1 to {MAX_LIMIT} wake-ups, not {value}"),
            ));
        }
    }
    if budget.per_day < budget.per_hour {
        return Err(AppError::invalid_field(
            "perDay",
            "below_per_hour",
            format!(
                "a day's budget ({}) cannot be smaller than an hour's ({})",
                budget.per_day, budget.per_hour
            ),
        ));
    }
    ctx.bus()
        .set_setting(Setting::WakesPerHour, budget.per_hour)
        .await?;
    ctx.bus()
        .set_setting(Setting::WakesPerDay, budget.per_day)
        .await?;
    Ok(budget)
}

/// When `budget` frees a wake-up, given the start times of the wake-ups of
/// the last day (any order) and `now`; `None` when one may run now.
fn freed_at(
    budget: WakeBudget,
    mut starts: Vec<DateTime<Utc>>,
    now: DateTime<Utc>,
) -> Option<DateTime<Utc>> {
    starts.sort();
    let limits = [
        (Duration::hours(1), budget.per_hour),
        (Duration::days(1), budget.per_day),
    ];
    limits
        .into_iter()
        .filter_map(|(window, limit)| {
            let inside: Vec<DateTime<Utc>> = starts
                .iter()
                .copied()
                .filter(|t| *t > now - window)
                .collect();
            let limit = usize::try_from(limit).unwrap_or(usize::MAX);
            // The oldest wake-up that must leave the window for one more
            // to fit.
            (inside.len() >= limit).then(|| inside[inside.len() - limit] + window)
        })
        .max()
}

/// When `role` may next be woken with mail under its budget: `None` now.
pub(crate) async fn held_until(ctx: &Ctx, role: &str) -> Result<Option<DateTime<Utc>>> {
    let budget = wake_budget(ctx).await?;
    let now = time::now();
    let starts = wake_history::started_since(ctx, role, now - Duration::days(1)).await?;
    Ok(freed_at(budget, starts, now))
}

/// Holds `role`'s wake-up back until `until`: its next wake-up moves there
/// (urgent mail meanwhile is held again), and the person is told once for
/// the stretch.
pub(crate) async fn hold(ctx: &Ctx, role: &Author, until: DateTime<Utc>) -> Result<()> {
    ctx.bus().defer(&role.id, until).await?;
    ctx.changed(Change::Authors);
    let key = format!("{NOTICED_PREFIX}{}", role.id);
    let now = time::now();
    let first_of_stretch = ctx
        .store()
        .write(move |tx| {
            let noticed = meta::get(tx, &key)?
                .as_deref()
                .map(parse_stored)
                .transpose()?;
            meta::set(tx, &key, &stored(until))?;
            Ok(noticed.is_none_or(|t| t <= now))
        })
        .await?;
    if first_of_stretch {
        let budget = wake_budget(ctx).await?;
        tracing::warn!(
            "role '{}' reached its wake-up budget; its mail waits until {until}",
            role.id
        );
        ctx.notify(Notice {
            title: format!("{} reached its wake-up budget", role.name),
            body: format!(
                "A role may be woken {} times an hour and {} times a day; this one reached \
                 that. Its mail waits until {}.",
                budget.per_hour,
                budget.per_day,
                until.to_rfc3339()
            ),
            urgent: false,
            from: Some(role.id.clone()),
            topic: Some(NoticeTopic::WakeBudget {
                role: role.name.clone(),
                until: until.to_rfc3339(),
                per_hour: budget.per_hour,
                per_day: budget.per_day,
            }),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(minutes: i64) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339("2026-12-06T12:00:00Z")
            .unwrap()
            .with_timezone(&Utc)
            + Duration::minutes(minutes)
    }

    #[test]
    fn a_role_under_both_limits_may_wake_now() {
        let budget = WakeBudget {
            per_hour: 3,
            per_day: 10,
        };
        assert_eq!(freed_at(budget, vec![], at(0)), None);
        assert_eq!(freed_at(budget, vec![at(-50), at(-10)], at(0)), None);
        // Older than an hour: out of the hour's window.
        assert_eq!(
            freed_at(budget, vec![at(-70), at(-50), at(-10)], at(0)),
            None
        );
    }

    #[test]
    fn a_full_hour_frees_when_its_oldest_wake_up_leaves_the_window() {
        let budget = WakeBudget {
            per_hour: 3,
            per_day: 10,
        };
        let starts = vec![at(-10), at(-50), at(-30)];
        assert_eq!(freed_at(budget, starts, at(0)), Some(at(10)));
    }

    #[test]
    fn a_full_day_holds_longer_than_a_full_hour() {
        let budget = WakeBudget {
            per_hour: 3,
            per_day: 4,
        };
        let starts = vec![at(-20 * 60), at(-50), at(-30), at(-10)];
        assert_eq!(freed_at(budget, starts, at(0)), Some(at(4 * 60)));
    }
}
