//! The scheduler: claims due fires and trigger requests, runs them, and
//! sleeps until the next one — on an injected [`Clock`], so tests move time
//! by hand and call [`Scheduler::tick`] instead of sleeping.
//!
//! One per process at most (the app, `colmena serve`), any number per data
//! dir. Each fire is claimed by compare-and-set on `next_run_at` — the
//! pattern of `roles::wakes::claim` — and each trigger request by deleting
//! its row, so whichever scheduler wins runs it and the others do nothing.
//!
//! A fire is "on time" when the scheduler claims it within [`GRACE`] of its
//! due time. Later than that, nobody was there to run it (no scheduler ran,
//! or the computer slept): the job's missed-run policy decides — `skip`
//! records one skipped entry saying how many fires were missed and when,
//! `run_once` runs once for all of them (`catch_up`). A fire that comes
//! while the job's previous run (in this process) is still going is skipped
//! with a note, never run on top of it.
//!
//! It registers in the workspace's hub and holds the scheduler lock
//! (`presence.rs`: how the job operations see that one runs), and listens
//! to the cron bell in `Ctx`, which a job's change rings.

use std::collections::HashSet;
use std::fs::File;
use std::sync::{Arc, Mutex};
use std::time::{Duration as StdDuration, Instant};

use chrono::{DateTime, Duration, Utc};
use rusqlite::OptionalExtension;
use tokio::sync::broadcast::error::RecvError;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::history::{self, Outcome};
use super::presence::{Hub, Running, open_lock};
use super::schedule::{Clock, SystemClock};
use super::store::{self, JobRow, parse_stored, stored};
use super::{MissedPolicy, TriggerKind, targets};
use crate::ctx::{Change, Ctx};
use crate::error::{AppError, Result};

/// Longest the scheduler sleeps between looks (a clock that jumps, a
/// computer that slept, a change it was not told of).
const TICK: StdDuration = StdDuration::from_secs(15);
/// How late a fire may be claimed and still count as on time.
pub const GRACE: Duration = Duration::seconds(60);
/// A "run now" request older than this when a scheduler finds it is not run
/// (its scheduler stopped before picking it up): it is recorded as skipped.
pub const TRIGGER_TTL: Duration = Duration::minutes(10);
/// Most missed fires counted one by one.
const MISSED_CAP: u32 = 10_000;
/// A running scheduler.
pub struct Scheduler {
    ctx: Ctx,
    clock: Arc<dyn Clock>,
    /// What the hub shows of this scheduler while it lives.
    _running: Arc<Running>,
    /// Jobs whose run this process has going.
    running: Arc<Mutex<HashSet<String>>>,
    _lock: File,
}

/// What one [`Scheduler::tick`] started.
pub struct Ticked {
    /// Runs started (each has a `running` history entry).
    pub started: usize,
    /// Fires recorded as skipped.
    pub skipped: usize,
    handles: Vec<JoinHandle<()>>,
}

impl Ticked {
    /// Waits for every run this tick started to finish and be recorded.
    pub async fn finished(self) {
        for handle in self.handles {
            let _ = handle.await;
        }
    }
}

impl Scheduler {
    /// Starts this process's scheduler on `ctx` with `clock`: takes the
    /// scheduler lock, registers it (one per process) and closes the
    /// history entries a stopped process left running. Fires are run by
    /// [`Scheduler::tick`] (or [`Scheduler::run`], which ticks in a loop).
    pub async fn start(ctx: &Ctx, clock: Arc<dyn Clock>) -> Result<Arc<Scheduler>> {
        let dir = ctx.data_dir().to_owned();
        let lock = tokio::task::spawn_blocking(move || -> Result<File> {
            let file = open_lock(&dir)?;
            file.lock_shared().map_err(|e| {
                AppError::internal(format!("could not take the scheduler lock: {e}"))
            })?;
            Ok(file)
        })
        .await
        .map_err(|e| AppError::internal(format!("could not take the scheduler lock: {e}")))??;
        let running = Arc::new(Running {
            clock: Arc::clone(&clock),
        });
        Hub::of(ctx).register(&running)?;
        let scheduler = Arc::new(Scheduler {
            ctx: ctx.clone(),
            clock,
            _running: running,
            running: Arc::default(),
            _lock: lock,
        });
        let (me, now) = (ctx.lease_owner().to_owned(), scheduler.clock.now());
        let swept = ctx
            .store()
            .write(move |tx| history::sweep(tx, &me, now))
            .await?;
        if swept > 0 {
            tracing::info!("{swept} scheduled runs were cut off when their process stopped");
            ctx.changed(Change::CronJobs);
        }
        Ok(scheduler)
    }

    /// The clock this scheduler runs on.
    pub fn clock(&self) -> Arc<dyn Clock> {
        Arc::clone(&self.clock)
    }

    /// Claims and starts every trigger request and every due fire, as of
    /// the clock's now.
    pub async fn tick(&self) -> Result<Ticked> {
        let now = self.clock.now();
        let mut ticked = Ticked {
            started: 0,
            skipped: 0,
            handles: Vec::new(),
        };
        self.triggers(now, &mut ticked).await?;
        let due = self
            .ctx
            .store()
            .read(move |c| store::due_rows(c, now))
            .await?;
        for job in due {
            self.fire(job, now, &mut ticked).await?;
        }
        if ticked.skipped > 0 {
            self.ctx.changed(Change::CronJobs);
        }
        Ok(ticked)
    }

    async fn triggers(&self, now: DateTime<Utc>, ticked: &mut Ticked) -> Result<()> {
        let requests: Vec<(i64, String)> = self
            .ctx
            .store()
            .read(|conn| {
                let mut stmt =
                    conn.prepare_cached("SELECT id, requested_at FROM cron_triggers ORDER BY id")?;
                let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
                Ok(rows.collect::<rusqlite::Result<_>>()?)
            })
            .await?;
        for (request, requested_at) in requests {
            // Deleting the row is the claim: one scheduler wins it.
            let claimed = self
                .ctx
                .store()
                .write(move |tx| {
                    let job: Option<String> = tx
                        .query_row(
                            "DELETE FROM cron_triggers WHERE id = ?1 RETURNING job_id",
                            [request],
                            |r| r.get(0),
                        )
                        .optional()?;
                    match job {
                        Some(job) => store::find_row(tx, &job),
                        None => Ok(None),
                    }
                })
                .await?;
            let Some(job) = claimed else { continue };
            let requested = parse_stored(&requested_at)?;
            if now - requested > TRIGGER_TTL {
                let note = format!(
                    "asked to run now at {}, but no scheduler picked the request up until {}",
                    requested.to_rfc3339(),
                    now.to_rfc3339()
                );
                self.skip(&job.id, TriggerKind::Manual, None, now, note)
                    .await?;
                ticked.skipped += 1;
                continue;
            }
            self.start_run(job, TriggerKind::Manual, None, None, ticked)
                .await?;
        }
        Ok(())
    }

    /// One due job: claim the fire, then run it, catch up or skip.
    async fn fire(&self, job: JobRow, now: DateTime<Utc>, ticked: &mut Ticked) -> Result<()> {
        let Some(seen) = job.next_run_at.clone() else {
            return Ok(());
        };
        let due = parse_stored(&seen)?;
        let (compiled, tz) = match job.compiled() {
            Ok(compiled) => compiled,
            Err(e) => {
                // A row that no longer compiles (edited by hand): stop it
                // loudly rather than retry it every tick.
                let (id, seen2) = (job.id.clone(), seen.clone());
                let won = self
                    .ctx
                    .store()
                    .write(move |tx| store::claim(tx, &id, &seen2, None))
                    .await?;
                if won {
                    let entry = self
                        .begin(&job.id, TriggerKind::Schedule, Some(due), None)
                        .await?;
                    let outcome = Outcome {
                        error: Some(format!("the job's schedule cannot be read: {}", e.message)),
                        ..Outcome::default()
                    };
                    self.finish(entry, now, 0, outcome).await?;
                }
                return Ok(());
            }
        };
        let (count, last, next) = compiled.catch_up(due, now, tz, MISSED_CAP);
        let (id, next_text) = (job.id.clone(), next.map(stored));
        let won = self
            .ctx
            .store()
            .write(move |tx| store::claim(tx, &id, &seen, next_text))
            .await?;
        if !won {
            return Ok(());
        }
        let on_time = now - due <= GRACE && count <= 1;
        if on_time {
            return self
                .start_run(job, TriggerKind::Schedule, Some(due), None, ticked)
                .await;
        }
        let last = last.unwrap_or(due);
        let missed = missed_words(count, due, last, &job.time_zone);
        match job.missed {
            MissedPolicy::Skip => {
                let note = format!(
                    "{missed} while no scheduler ran; skipped, as the job's missed-run policy says"
                );
                self.skip(&job.id, TriggerKind::CatchUp, Some(due), now, note)
                    .await?;
                ticked.skipped += 1;
                Ok(())
            }
            MissedPolicy::RunOnce => {
                let note = format!("runs once for {missed} while no scheduler ran");
                self.start_run(job, TriggerKind::CatchUp, Some(last), Some(note), ticked)
                    .await
            }
        }
    }

    async fn skip(
        &self,
        job: &str,
        trigger: TriggerKind,
        scheduled_for: Option<DateTime<Utc>>,
        at: DateTime<Utc>,
        note: String,
    ) -> Result<()> {
        let job = job.to_owned();
        self.ctx
            .store()
            .write(move |tx| history::skipped(tx, &job, trigger, scheduled_for, at, &note))
            .await?;
        Ok(())
    }

    async fn begin(
        &self,
        job: &str,
        trigger: TriggerKind,
        scheduled_for: Option<DateTime<Utc>>,
        note: Option<String>,
    ) -> Result<i64> {
        let (job, owner, started) = (
            job.to_owned(),
            self.ctx.lease_owner().to_owned(),
            self.clock.now(),
        );
        let entry = self
            .ctx
            .store()
            .write(move |tx| {
                history::begin(
                    tx,
                    &job,
                    trigger,
                    scheduled_for,
                    started,
                    note.as_deref(),
                    &owner,
                )
            })
            .await?;
        self.ctx.changed(Change::CronJobs);
        Ok(entry)
    }

    async fn finish(
        &self,
        entry: i64,
        finished: DateTime<Utc>,
        ms: i64,
        outcome: Outcome,
    ) -> Result<()> {
        finish(&self.ctx, entry, finished, ms, outcome).await
    }

    /// Starts the job's run in the background, unless its previous run is
    /// still going here (then the fire is skipped, with a note).
    async fn start_run(
        &self,
        job: JobRow,
        trigger: TriggerKind,
        scheduled_for: Option<DateTime<Utc>>,
        note: Option<String>,
        ticked: &mut Ticked,
    ) -> Result<()> {
        let busy = self
            .running
            .lock()
            .map(|mut r| !r.insert(job.id.clone()))
            .unwrap_or(true);
        if busy {
            let note = "not run: the previous run of this job was still going".to_owned();
            self.skip(&job.id, trigger, scheduled_for, self.clock.now(), note)
                .await?;
            ticked.skipped += 1;
            return Ok(());
        }
        let entry = match self.begin(&job.id, trigger, scheduled_for, note).await {
            Ok(entry) => entry,
            Err(e) => {
                if let Ok(mut r) = self.running.lock() {
                    r.remove(&job.id);
                }
                return Err(e);
            }
        };
        let (ctx, running, started) = (
            self.ctx.clone(),
            Arc::clone(&self.running),
            self.clock.now(),
        );
        ticked.started += 1;
        ticked.handles.push(tokio::spawn(async move {
            let clock = Instant::now();
            let outcome = targets::run(&ctx, &job.id, entry, &job.target, &job.prompt).await;
            let elapsed = clock.elapsed();
            let ms = i64::try_from(elapsed.as_millis()).unwrap_or(i64::MAX);
            if let Some(error) = &outcome.error {
                tracing::warn!("scheduled job '{}' failed: {error}", job.name);
            }
            let finished = started + Duration::milliseconds(ms);
            if let Err(e) = finish(&ctx, entry, finished, ms, outcome).await {
                tracing::error!(
                    "the end of scheduled job '{}' could not be recorded: {}",
                    job.name,
                    e.message
                );
            }
            if let Ok(mut r) = running.lock() {
                r.remove(&job.id);
            }
        }));
        Ok(())
    }

    /// Ticks until `stop`, sleeping until the next fire (at most [`TICK`]),
    /// and looking again at once when a job changes here or in another
    /// process.
    pub async fn run(self: Arc<Self>, stop: CancellationToken) {
        let mut changes = self.ctx.subscribe();
        let bell = self.ctx.cron_scheduler_bell();
        loop {
            if let Err(e) = self.tick().await {
                tracing::warn!(
                    "the cron scheduler could not look at the jobs: {}",
                    e.message
                );
            }
            let soonest = self.ctx.store().read(store::soonest).await.ok().flatten();
            let sleep = soonest
                .and_then(|at| (at - self.clock.now()).to_std().ok())
                .map_or(TICK, |until| until.min(TICK));
            let sleep = tokio::time::sleep(sleep);
            tokio::pin!(sleep);
            loop {
                tokio::select! {
                    () = stop.cancelled() => return,
                    () = &mut sleep => break,
                    () = bell.notified() => break,
                    change = changes.recv() => match change {
                        Ok(Change::CronJobs) | Err(RecvError::Lagged(_)) => break,
                        Ok(_) => {}
                        Err(RecvError::Closed) => return,
                    },
                }
            }
        }
    }
}

async fn finish(
    ctx: &Ctx,
    entry: i64,
    finished: DateTime<Utc>,
    ms: i64,
    outcome: Outcome,
) -> Result<()> {
    ctx.store()
        .write(move |tx| history::finish(tx, entry, finished, ms, &outcome))
        .await?;
    ctx.changed(Change::CronJobs);
    Ok(())
}

/// "Missed 3 runs (from 09:00 to 11:00 Europe/Madrid, 2026-03-29)" in words.
fn missed_words(count: u32, first: DateTime<Utc>, last: DateTime<Utc>, time_zone: &str) -> String {
    let local = |t: DateTime<Utc>| match super::schedule::time_zone(time_zone) {
        Ok(tz) => t.with_timezone(&tz).format("%Y-%m-%d %H:%M").to_string(),
        Err(_) => t.format("%Y-%m-%d %H:%M UTC").to_string(),
    };
    let more = if count >= MISSED_CAP { "or more " } else { "" };
    if count <= 1 {
        format!("missed the run of {} ({time_zone})", local(first))
    } else {
        format!(
            "missed {count} {more}runs, from {} to {} ({time_zone})",
            local(first),
            local(last)
        )
    }
}

/// Runs this process's scheduler on the system clock until `stop` (the app
/// and `colmena serve` start it next to the bus scheduler).
pub async fn run_scheduler(ctx: Ctx, stop: CancellationToken) {
    match Scheduler::start(&ctx, Arc::new(SystemClock)).await {
        Ok(scheduler) => scheduler.run(stop).await,
        Err(e) => tracing::warn!("the cron scheduler did not start: {}", e.message),
    }
}
