//! When a job fires: a cron expression read in the job's IANA time zone, or
//! a fixed interval, and the clock that says what "now" is.
//!
//! Cron expressions are the five POSIX fields (minute, hour, day of month,
//! month, day of week) plus croner's extensions (`L`, `#`, `W`, names, and
//! the `@daily`-style aliases); seconds and years are refused, so no job
//! fires more often than once a minute. Intervals are 60 seconds to 366
//! days, counted in real time from the previous fire, so daylight saving
//! never moves them.
//!
//! Daylight saving follows croner (its README, "Daylight Saving Time (DST)
//! Handling", OCPS and Vixie cron): searches move along real time, never
//! wall-clock time, and each next fire is searched from the exact instant of
//! the previous one.
//! - Spring forward (Europe/Madrid, last Sunday of March, 02:00 → 03:00): a
//!   fixed-time job whose time does not exist that day (`30 2 * * *`) runs
//!   once at the first valid minute after the gap, 03:00 CEST; an interval
//!   or wildcard job (`*/15 * * * *`) skips the times inside the gap and
//!   goes on from 03:00.
//! - Autumn back (last Sunday of October, 03:00 → 02:00): a fixed-time job
//!   whose time happens twice (`30 2 * * *`) runs once, at the first
//!   02:30 (CEST); a wildcard job runs in both passes of the repeated hour.
//!
//! The [`Clock`] is injected: the scheduler and every computation here take
//! "now" from it, so tests move time by hand and never sleep for a schedule.

use std::str::FromStr;
use std::sync::Mutex;

use chrono::{DateTime, Duration, Utc};
use chrono_tz::Tz;
use croner::Cron;
use croner::parser::{CronParser, Seconds, Year};

use super::Schedule;
use crate::error::{AppError, Result};

/// Shortest interval between two fires of an interval job.
pub const MIN_INTERVAL_SECONDS: u32 = 60;
/// Longest interval (a leap year).
pub const MAX_INTERVAL_SECONDS: u32 = 366 * 86_400;
/// Longest cron expression accepted.
const MAX_EXPRESSION_CHARS: usize = 200;

/// What "now" is, for the scheduler and the next-fire computations.
pub trait Clock: Send + Sync + 'static {
    fn now(&self) -> DateTime<Utc>;
}

/// The computer's clock.
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> DateTime<Utc> {
        // Microseconds are what is stored: round-trip exactly.
        let now = Utc::now();
        DateTime::from_timestamp_micros(now.timestamp_micros()).unwrap_or(now)
    }
}

/// A clock moved by hand (tests, and a CLI that previews a date).
#[derive(Debug)]
pub struct ManualClock(Mutex<DateTime<Utc>>);

impl ManualClock {
    pub fn new(at: DateTime<Utc>) -> ManualClock {
        ManualClock(Mutex::new(at))
    }

    pub fn set(&self, at: DateTime<Utc>) {
        if let Ok(mut now) = self.0.lock() {
            *now = at;
        }
    }

    pub fn advance(&self, by: Duration) {
        if let Ok(mut now) = self.0.lock() {
            *now += by;
        }
    }
}

impl Clock for ManualClock {
    fn now(&self) -> DateTime<Utc> {
        self.0
            .lock()
            .map(|t| *t)
            .unwrap_or_else(|p| *p.into_inner())
    }
}

/// A time zone by its IANA name (`Europe/Madrid`, `UTC`).
pub fn time_zone(name: &str) -> Result<Tz> {
    let name = name.trim();
    Tz::from_str(name).map_err(|_| {
        AppError::invalid_field(
            "timeZone",
            "unknown_time_zone",
            format!(
                "'{name}' is not an IANA time zone name (such as Europe/Madrid or America/New_York)"
            ),
        )
    })
}

/// This computer's time zone by its IANA name: `TZ` when it names one, else
/// the zone `/etc/localtime` points at, else UTC.
pub fn local_time_zone() -> String {
    let from_env = std::env::var("TZ")
        .ok()
        .map(|tz| tz.trim_start_matches(':').to_owned())
        .filter(|tz| Tz::from_str(tz).is_ok());
    if let Some(tz) = from_env {
        return tz;
    }
    let linked = std::fs::read_link("/etc/localtime")
        .ok()
        .and_then(|target| {
            let text = target.to_string_lossy().into_owned();
            let (_, zone) = text.split_once("zoneinfo/")?;
            Tz::from_str(zone).is_ok().then(|| zone.to_owned())
        });
    linked.unwrap_or_else(|| "UTC".to_owned())
}

/// A schedule ready to answer "when next?".
#[derive(Debug, Clone)]
pub(crate) enum Compiled {
    Cron(Box<Cron>),
    Interval(Duration),
}

fn parser() -> CronParser {
    CronParser::builder()
        .seconds(Seconds::Disallowed)
        .year(Year::Disallowed)
        .build()
}

/// Checks a schedule and prepares it. Errors name the `schedule` field.
pub(crate) fn compile(schedule: &Schedule) -> Result<Compiled> {
    match schedule {
        Schedule::Cron { expression } => {
            let text = expression.trim();
            if text.is_empty() {
                return Err(AppError::invalid_field(
                    "schedule",
                    "required",
                    "a cron expression is needed, such as 0 9 * * 1-5 (weekdays at 9:00)",
                ));
            }
            if text.chars().count() > MAX_EXPRESSION_CHARS {
                return Err(AppError::invalid_field(
                    "schedule",
                    "too_long",
                    format!("a cron expression has at most {MAX_EXPRESSION_CHARS} characters"),
                ));
            }
            let cron = parser().parse(text).map_err(|e| {
                AppError::invalid_field(
                    "schedule",
                    "invalid_cron",
                    format!(
                        "'{text}' is not a cron expression of five fields (minute hour day-of-month month day-of-week): {e}"
                    ),
                )
            })?;
            let compiled = Compiled::Cron(Box::new(cron));
            // A pattern that can never match (31 February) is refused now,
            // not found out when it silently never runs.
            if compiled.next_after(Utc::now(), Tz::UTC).is_none() {
                return Err(AppError::invalid_field(
                    "schedule",
                    "never_fires",
                    format!("'{text}' never matches a real date"),
                ));
            }
            Ok(compiled)
        }
        Schedule::Interval { seconds } => {
            if !(MIN_INTERVAL_SECONDS..=MAX_INTERVAL_SECONDS).contains(seconds) {
                return Err(AppError::invalid_field(
                    "schedule",
                    "interval_out_of_range",
                    format!(
                        "an interval is {MIN_INTERVAL_SECONDS} seconds to {MAX_INTERVAL_SECONDS} seconds (366 days), not {seconds}"
                    ),
                ));
            }
            Ok(Compiled::Interval(Duration::seconds(i64::from(*seconds))))
        }
    }
}

impl Compiled {
    /// The first fire strictly after `after`. For an interval that is one
    /// interval later (the caller passes the previous fire to keep cadence).
    pub(crate) fn next_after(&self, after: DateTime<Utc>, tz: Tz) -> Option<DateTime<Utc>> {
        match self {
            Compiled::Interval(every) => Some(after + *every),
            Compiled::Cron(cron) => cron
                .find_next_occurrence(&after.with_timezone(&tz), false)
                .ok()
                .map(|t| t.with_timezone(&Utc)),
        }
    }

    /// The first fire strictly after `now`, counting from the fire at
    /// `from` (kept cadence for intervals), and how many fires from `from`
    /// (included) up to `now` (included) that leaves behind — capped at
    /// `cap`. Fires are searched one after another, as croner asks.
    pub(crate) fn catch_up(
        &self,
        from: DateTime<Utc>,
        now: DateTime<Utc>,
        tz: Tz,
        cap: u32,
    ) -> (u32, Option<DateTime<Utc>>, Option<DateTime<Utc>>) {
        if from > now {
            return (0, None, Some(from));
        }
        if let Compiled::Interval(every) = self {
            let step = every.num_microseconds().unwrap_or(i64::MAX).max(1);
            let behind = (now - from).num_microseconds().unwrap_or(i64::MAX);
            let passed = behind / step;
            let last = from + Duration::microseconds(passed.saturating_mul(step));
            let count = u32::try_from(passed.saturating_add(1)).unwrap_or(u32::MAX);
            return (count.min(cap), Some(last), Some(last + *every));
        }
        let (mut count, mut last, mut at) = (0u32, None, Some(from));
        while let Some(t) = at {
            if t > now {
                break;
            }
            count += 1;
            last = Some(t);
            if count >= cap {
                // Too many to count one by one: jump to now.
                return (count, last, self.next_after(now, tz));
            }
            at = self.next_after(t, tz);
        }
        (count, last, at)
    }
}

/// The next `n` fires after `now` (for previews and the job list).
pub fn upcoming(
    schedule: &Schedule,
    tz_name: &str,
    now: DateTime<Utc>,
    n: usize,
) -> Result<Vec<DateTime<Utc>>> {
    let compiled = compile(schedule)?;
    let tz = time_zone(tz_name)?;
    let mut fires = Vec::with_capacity(n);
    let mut at = now;
    while fires.len() < n {
        match compiled.next_after(at, tz) {
            Some(t) => {
                fires.push(t);
                at = t;
            }
            None => break,
        }
    }
    Ok(fires)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn utc(text: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(text)
            .unwrap()
            .with_timezone(&Utc)
    }

    fn cron(text: &str) -> Schedule {
        Schedule::Cron {
            expression: text.into(),
        }
    }

    #[test]
    fn five_fields_and_aliases_parse_seconds_and_nonsense_do_not() {
        for good in [
            "0 9 * * 1-5",
            "*/15 * * * *",
            "@daily",
            "0 8 L * *",
            "0 9 * * MON#1",
        ] {
            compile(&cron(good)).unwrap();
        }
        for (bad, reason) in [
            ("", "required"),
            ("every day", "invalid_cron"),
            ("0 0 9 * * *", "invalid_cron"),
            ("61 * * * *", "invalid_cron"),
            ("0 0 31 2 *", "never_fires"),
        ] {
            let err = compile(&cron(bad)).unwrap_err();
            assert_eq!(err.field(), Some("schedule"), "{bad}");
            assert_eq!(err.details.unwrap()["reason"], reason, "{bad}");
        }
        for seconds in [0, 59, MAX_INTERVAL_SECONDS + 1] {
            let err = compile(&Schedule::Interval { seconds }).unwrap_err();
            assert_eq!(err.details.unwrap()["reason"], "interval_out_of_range");
        }
    }

    #[test]
    fn unknown_time_zones_are_refused_by_field() {
        assert_eq!(time_zone("Europe/Madrid").unwrap(), Tz::Europe__Madrid);
        let err = time_zone("Europe/Atlantis").unwrap_err();
        assert_eq!(err.field(), Some("timeZone"));
        assert!(Tz::from_str(&local_time_zone()).is_ok());
    }

    #[test]
    fn a_weekday_job_fires_at_nine_local_time_in_its_zone() {
        let fires = upcoming(
            &cron("0 9 * * 1-5"),
            "America/New_York",
            utc("2026-01-02T15:00:00Z"),
            2,
        )
        .unwrap();
        // Friday 2 January 2026 10:00 EST is past 9:00: next is Monday 5th.
        assert_eq!(
            fires,
            [utc("2026-01-05T14:00:00Z"), utc("2026-01-06T14:00:00Z")]
        );
    }

    #[test]
    fn catching_up_counts_what_was_missed_and_keeps_cadence() {
        let every = compile(&Schedule::Interval { seconds: 600 }).unwrap();
        let from = utc("2026-05-01T10:00:00Z");
        let (count, last, next) = every.catch_up(from, utc("2026-05-01T10:35:00Z"), Tz::UTC, 1000);
        assert_eq!(count, 4);
        assert_eq!(last, Some(utc("2026-05-01T10:30:00Z")));
        assert_eq!(next, Some(utc("2026-05-01T10:40:00Z")));
        let hourly = compile(&cron("0 * * * *")).unwrap();
        let (count, last, next) = hourly.catch_up(from, utc("2026-05-01T13:10:00Z"), Tz::UTC, 1000);
        assert_eq!(
            (count, last, next),
            (
                4,
                Some(utc("2026-05-01T13:00:00Z")),
                Some(utc("2026-05-01T14:00:00Z"))
            )
        );
        let (count, _, next) = hourly.catch_up(from, utc("2027-05-01T10:00:00Z"), Tz::UTC, 50);
        assert_eq!(count, 50, "capped");
        assert_eq!(next, Some(utc("2027-05-01T11:00:00Z")));
    }
}
