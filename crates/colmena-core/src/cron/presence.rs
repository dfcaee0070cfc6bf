//! Whether a cron scheduler runs, as the job operations ask it: in this
//! process (registered in the workspace's [`Hub`], with the clock it
//! computes on) or in another one (it holds the scheduler lock).
//!
//! The job operations (`cron/mod.rs`) stand on the nouns floor and the
//! scheduler on the engine floor above them: this file is what both read,
//! so a job's change never names the scheduler. The change itself reaches
//! a running scheduler through the bell in `Ctx`.
//!
//! "Is a scheduler running?" is answered by an OS lock: every scheduler
//! holds a shared lock on [`LOCK_FILE`] in the data dir for as long as it
//! lives, and a lock dies with its process, so a crash leaves nothing
//! stale to expire.

use std::fs::{File, TryLockError};
use std::path::Path;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use super::schedule::{Clock, SystemClock};
use crate::ctx::Ctx;
use crate::error::{AppError, ErrorCode, Result};

/// The lock every scheduler holds.
pub const LOCK_FILE: &str = "cron-scheduler.lock";

/// What a scheduler running in this process shows the job operations: the
/// clock it computes on. Only the scheduler holds it, so it is gone the
/// moment the scheduler is.
pub(crate) struct Running {
    pub(crate) clock: Arc<dyn Clock>,
}

/// Where a process's scheduler is found (kept in the [`Ctx`]).
#[derive(Default)]
pub struct Hub {
    current: Mutex<Option<Weak<Running>>>,
}

impl Hub {
    /// The hub of the workspace `ctx`.
    pub(crate) fn of(ctx: &Ctx) -> Arc<Hub> {
        ctx.slot::<Hub>()
    }

    /// The scheduler of this process, while it runs.
    pub(crate) fn current(&self) -> Option<Arc<Running>> {
        self.current
            .lock()
            .ok()
            .and_then(|c| c.as_ref().and_then(Weak::upgrade))
    }

    /// Registers a starting scheduler: one per process.
    pub(crate) fn register(&self, running: &Arc<Running>) -> Result<()> {
        let mut current = self
            .current
            .lock()
            .map_err(|_| AppError::internal("the scheduler registry is poisoned"))?;
        if current.as_ref().and_then(Weak::upgrade).is_some() {
            return Err(AppError::new(
                ErrorCode::Conflict,
                "a cron scheduler already runs in this process",
            ));
        }
        *current = Some(Arc::downgrade(running));
        Ok(())
    }
}

/// The clock changes are computed on: this process's scheduler's, else the
/// system's.
pub(crate) fn clock_of(ctx: &Ctx) -> Arc<dyn Clock> {
    match Hub::of(ctx).current() {
        Some(running) => Arc::clone(&running.clock),
        None => Arc::new(SystemClock),
    }
}

/// Opens (creating it) the scheduler lock of the data dir `dir`.
pub(crate) fn open_lock(dir: &Path) -> Result<File> {
    crate::store::holders::open_private(&dir.join(LOCK_FILE))
}

/// Whether a scheduler holds the lock in the data dir `dir` (another
/// process, or another workspace handle of this one). The probe takes the
/// lock exclusively for an instant; a probe of another process doing the
/// same at that instant is told apart by trying again (a scheduler holds
/// its lock for good, a probe for microseconds).
pub(crate) fn held_elsewhere(dir: &Path) -> Result<bool> {
    let file = open_lock(dir)?;
    for attempt in 0..4 {
        match file.try_lock() {
            Ok(()) => {
                let _ = file.unlock();
                return Ok(false);
            }
            Err(TryLockError::WouldBlock) => {
                if attempt < 3 {
                    std::thread::sleep(Duration::from_millis(10));
                }
            }
            Err(TryLockError::Error(e)) => {
                return Err(AppError::internal(format!(
                    "could not look at the scheduler lock: {e}"
                )));
            }
        }
    }
    Ok(true)
}
