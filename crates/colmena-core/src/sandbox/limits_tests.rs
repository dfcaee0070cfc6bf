//! A program's limits as each OS receives them: the launcher's options
//! (Unix, per process) and the job's fields (Windows, the whole tree).
//! Plain data, so checked on every OS.

use std::time::Duration;

use colmena_win32::job_limits::flag;

use super::*;

fn job(timeout: u64) -> Job {
    Job::new(
        Path::new("w"),
        "p",
        Vec::new(),
        Duration::from_secs(timeout),
    )
}

#[test]
fn a_programs_job_caps_each_processs_memory_and_cpu_time_and_its_processes() {
    let limits = tree_limits(&job(60));
    assert_eq!(limits.memory, Some(8 << 30));
    assert_eq!(limits.cpu_time, Some(Duration::from_secs(65)));
    assert_eq!(limits.processes, Some(JOB_PROCESSES));
    let flags = limits.flags();
    for set in [
        flag::PROCESS_MEMORY,
        flag::PROCESS_TIME,
        flag::ACTIVE_PROCESS,
        flag::KILL_ON_JOB_CLOSE,
    ] {
        assert_ne!(flags & set, 0, "{set:#x} in {flags:#x}");
    }
    // Per process, as the launcher's limits are on Unix: never the job's
    // total, which would starve a build of many compilers.
    assert_eq!(flags & (flag::JOB_MEMORY | flag::JOB_TIME), 0);
    assert_eq!(flags & (flag::BREAKAWAY_OK | flag::SILENT_BREAKAWAY_OK), 0);
}

/// Both per process: the job's CPU time is the launcher's `cpu=` option.
#[test]
fn the_job_and_the_launcher_get_the_same_cpu_time() {
    let job = job(120);
    let cpu = tree_limits(&job).cpu_time.map(|t| t.as_secs());
    assert_eq!(cpu, Some(cpu_seconds(&job)));
    assert_eq!(cpu_seconds(&job), 125);
}

#[test]
fn a_lower_process_limit_is_kept_and_a_higher_one_is_held_to_the_jobs() {
    let mut few = job(10);
    few.limits.processes = 16;
    assert_eq!(tree_limits(&few).processes, Some(16));
    let mut many = job(10);
    many.limits.processes = u64::MAX;
    assert_eq!(tree_limits(&many).processes, Some(JOB_PROCESSES));
}

#[test]
fn a_job_limits_exit_code_is_explained_on_windows_only() {
    assert_eq!(exit_note(1816).is_some(), cfg!(windows));
    assert_eq!(exit_note(1), None);
    assert_eq!(exit_note(0), None);
}
