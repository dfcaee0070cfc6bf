//! A supervised program's whole process tree, one interface per OS: the
//! tree is adopted once the launcher is started ([`adopt`], Windows only),
//! killed at once ([`kill`]), and released once the launcher has exited
//! ([`release`]).
//!
//! Unix: the launcher is started as the leader of a new process group
//! (`process_group(0)`), and everything it and the program start stays in
//! that group unless it leaves on purpose (`setsid`; the launcher is a
//! subreaper for those, and under bubblewrap the PID namespace catches
//! them). The launcher cleans up when the program ends, so releasing is
//! nothing.
//!
//! Windows: the app puts the launcher in a Job Object of its own that kills
//! every process in it when its last handle closes, before the launcher
//! starts the program (it waits for [`GO`](super::protocol::GO) on its
//! standard input), so the program and everything it starts are born in
//! the job. Only the app holds the job's handle: dropping it — a stop, the
//! launcher's exit (seen by a watch on the job, whatever the caller does),
//! or the app dying, when the system closes its handles — ends the whole
//! tree. A program an agent runs gets a job with limits as well (memory,
//! CPU time, processes: [`tree_limits`](super::tree_limits)); no job allows
//! breakaway. A job holds what a program starts the ordinary way; a
//! hostile program can still ask another process (WMI, the task
//! scheduler) to start one for it.

/// Sends SIGKILL to every process of group `id`. A group that is already
/// gone is fine.
#[cfg(unix)]
pub(super) fn kill(id: u32) {
    use rustix::process::{Pid, Signal, kill_process_group};
    // Group 1 would mean "every process we may signal": never.
    let Some(pid) = i32::try_from(id)
        .ok()
        .filter(|&id| id > 1)
        .and_then(Pid::from_raw)
    else {
        return;
    };
    let _ = kill_process_group(pid, Signal::KILL);
}

/// Nothing: the launcher ended the group before it exited, and its id may
/// already belong to someone else.
#[cfg(unix)]
pub(super) fn release(_id: u32) {}

#[cfg(windows)]
pub(super) use windows_job::{adopt, kill, release};

#[cfg(windows)]
mod windows_job {
    use std::collections::HashMap;
    use std::sync::{Mutex, MutexGuard, OnceLock};

    use colmena_win32::{Job, JobLimits};

    /// The jobs of the launchers alive, by the launcher's process id.
    fn jobs() -> MutexGuard<'static, HashMap<u32, Job>> {
        static JOBS: OnceLock<Mutex<HashMap<u32, Job>>> = OnceLock::new();
        JOBS.get_or_init(Mutex::default)
            .lock()
            .unwrap_or_else(|e| e.into_inner())
    }

    /// Puts the launcher `child` in a new job with `limits` that kills its
    /// processes when closed. Must happen before the launcher is told to
    /// start the program.
    pub(in crate::sandbox) fn adopt(
        child: &tokio::process::Child,
        limits: &JobLimits,
    ) -> std::io::Result<()> {
        let Some(id) = child.id() else {
            return Err(std::io::Error::other("the launcher exited as it started"));
        };
        let job = Job::create(limits)?;
        job.assign_child(child)?;
        jobs().insert(id, job);
        tokio::spawn(close_when_launcher_ends(id));
        Ok(())
    }

    /// How often a job is checked for its launcher.
    const WATCH: std::time::Duration = std::time::Duration::from_millis(500);

    /// Closes launcher `id`'s job once the launcher has left it (exited, or
    /// killed alone when its `Child` was dropped — a cancelled run, a
    /// caller that never called [`kill`] or [`release`]): what the program
    /// left running ends, and the handle is not kept until the app quits.
    /// A pid reused by another process is never in this job.
    async fn close_when_launcher_ends(id: u32) {
        loop {
            tokio::time::sleep(WATCH).await;
            let mut jobs = jobs();
            let Some(job) = jobs.get(&id) else {
                return; // killed or released already
            };
            let launcher_in_job = job.process_ids().is_ok_and(|ids| ids.contains(&id));
            if !launcher_in_job {
                let job = jobs.remove(&id);
                drop(jobs);
                drop(job);
                return;
            }
        }
    }

    /// Closes the job of launcher `id`: every process in it ends.
    pub(in crate::sandbox) fn kill(id: u32) {
        let job = jobs().remove(&id);
        drop(job);
    }

    /// The launcher has exited: what the program left behind ends with its
    /// job, and the handle is freed.
    pub(in crate::sandbox) fn release(id: u32) {
        kill(id);
    }
}
