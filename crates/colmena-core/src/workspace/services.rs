//! The background work a process starts for an open workspace, written
//! once: the desktop app and `colmena serve` both start it from here, so
//! the two cannot drift apart (one starting a scheduler the other forgot).
//!
//! - the bus scheduler wakes roles whose mail or schedule is due (SPEC B6);
//! - the cron scheduler runs scheduled jobs (H25);
//! - the announcers tell the person of urgent mail and failed jobs — only
//!   where a person watches (the desktop), whichever process did the work;
//! - the team-bus delivery sends this desktop's outbox to its team bus.
//!
//! Everything stops when `stop` is cancelled.

use tokio_util::sync::CancellationToken;

use crate::ctx::Ctx;

/// Which background services a process runs for its workspace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Services {
    /// Wakes roles (the bus scheduler).
    pub wake_scheduler: bool,
    /// Runs scheduled jobs.
    pub cron_scheduler: bool,
    /// Announces urgent mail and failed jobs to the person.
    pub announcers: bool,
    /// Sends the outbox to the team bus this desktop is on.
    pub team_delivery: bool,
}

impl Services {
    /// The desktop app: everything.
    pub fn desktop() -> Services {
        Services {
            wake_scheduler: true,
            cron_scheduler: true,
            announcers: true,
            team_delivery: true,
        }
    }

    /// `colmena serve`: the schedulers unless `--no-scheduler`; nobody
    /// watches its notices (the app announces failures whichever process
    /// ran the job), and a server is not a desktop on a team bus.
    pub fn headless(no_scheduler: bool) -> Services {
        Services {
            wake_scheduler: !no_scheduler,
            cron_scheduler: !no_scheduler,
            announcers: false,
            team_delivery: false,
        }
    }

    /// Starts them on the current tokio runtime; they stop with `stop`.
    pub fn start(self, ctx: &Ctx, stop: &CancellationToken) {
        if self.wake_scheduler {
            tokio::spawn(crate::roles::wakes::run_scheduler(
                ctx.clone(),
                stop.clone(),
            ));
        }
        if self.cron_scheduler {
            tokio::spawn(crate::cron::scheduler::run_scheduler(
                ctx.clone(),
                stop.clone(),
            ));
        }
        if self.announcers {
            tokio::spawn(crate::inbox::announce_urgent_mail(
                ctx.clone(),
                stop.clone(),
            ));
            tokio::spawn(crate::cron::announce_failures(ctx.clone(), stop.clone()));
        }
        if self.team_delivery {
            tokio::spawn(crate::team_bus::delivery::run(ctx.clone(), stop.clone()));
        }
    }
}
