//! What a Job Object holds its processes to, as the fields and flags
//! `SetInformationJobObject` takes (`JOBOBJECT_EXTENDED_LIMIT_INFORMATION`),
//! computed here so they can be tested on any OS.
//!
//! Every job Colmena makes ends its whole tree when its handle closes
//! (`KILL_ON_JOB_CLOSE`), lets no process crash into an error dialog that
//! would keep it alive (`DIE_ON_UNHANDLED_EXCEPTION`), and never allows
//! breakaway: neither `BREAKAWAY_OK` nor `SILENT_BREAKAWAY_OK` is set, so
//! `CREATE_BREAKAWAY_FROM_JOB` fails and every child is born in the job.

use std::time::Duration;

/// The `JOB_OBJECT_LIMIT_*` flags, as Windows defines them (the Windows
/// build checks each against `windows-sys`).
pub mod flag {
    pub const PROCESS_TIME: u32 = 0x0000_0002;
    pub const JOB_TIME: u32 = 0x0000_0004;
    pub const ACTIVE_PROCESS: u32 = 0x0000_0008;
    pub const PROCESS_MEMORY: u32 = 0x0000_0100;
    pub const JOB_MEMORY: u32 = 0x0000_0200;
    pub const DIE_ON_UNHANDLED_EXCEPTION: u32 = 0x0000_0400;
    pub const BREAKAWAY_OK: u32 = 0x0000_0800;
    pub const SILENT_BREAKAWAY_OK: u32 = 0x0000_1000;
    pub const KILL_ON_JOB_CLOSE: u32 = 0x0000_2000;
}

/// A job's limits; `None` is "no limit" (the user's own MCP servers and
/// woken roles get only the tree's end on close). Memory and CPU time are
/// per process, as Unix's resource limits are: a build that runs sixteen
/// compilers is held to what one compiler may use, not to a sixteenth.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct JobLimits {
    /// Memory each process may commit, bytes.
    pub memory: Option<u64>,
    /// User-mode CPU time of each process.
    pub cpu_time: Option<Duration>,
    /// Processes alive in the job at once: a fork bomb stops here.
    pub processes: Option<u32>,
}

impl JobLimits {
    /// No limit but the tree's end when the job closes.
    pub fn tree_only() -> JobLimits {
        JobLimits::default()
    }

    /// `LimitFlags`.
    pub fn flags(&self) -> u32 {
        let mut flags = flag::KILL_ON_JOB_CLOSE | flag::DIE_ON_UNHANDLED_EXCEPTION;
        if self.memory.is_some() {
            flags |= flag::PROCESS_MEMORY;
        }
        if self.cpu_time.is_some() {
            flags |= flag::PROCESS_TIME;
        }
        if self.processes.is_some() {
            flags |= flag::ACTIVE_PROCESS;
        }
        flags
    }

    /// `PerProcessUserTimeLimit`: 100-nanosecond ticks (0 when unlimited).
    pub fn cpu_ticks(&self) -> i64 {
        self.cpu_time.map_or(0, |time| {
            i64::try_from(time.as_nanos() / 100).unwrap_or(i64::MAX)
        })
    }

    /// `ProcessMemoryLimit` (0 when unlimited); a 32-bit system's ceiling
    /// is its own address space.
    pub fn memory_bytes(&self) -> usize {
        self.memory
            .map_or(0, |bytes| usize::try_from(bytes).unwrap_or(usize::MAX))
    }

    /// `ActiveProcessLimit` (0 when unlimited).
    pub fn active_processes(&self) -> u32 {
        self.processes.unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_job_ends_its_tree_on_close_and_allows_no_breakaway() {
        let limited = JobLimits {
            memory: Some(8 << 30),
            cpu_time: Some(Duration::from_secs(65)),
            processes: Some(256),
        };
        for limits in [JobLimits::tree_only(), limited] {
            let flags = limits.flags();
            assert_ne!(flags & flag::KILL_ON_JOB_CLOSE, 0);
            assert_ne!(flags & flag::DIE_ON_UNHANDLED_EXCEPTION, 0);
            assert_eq!(flags & (flag::BREAKAWAY_OK | flag::SILENT_BREAKAWAY_OK), 0);
        }
    }

    #[test]
    fn a_limited_job_sets_memory_and_cpu_time_per_process_and_its_processes() {
        let limits = JobLimits {
            memory: Some(8 << 30),
            cpu_time: Some(Duration::from_secs(65)),
            processes: Some(256),
        };
        assert_eq!(
            limits.flags(),
            flag::KILL_ON_JOB_CLOSE
                | flag::DIE_ON_UNHANDLED_EXCEPTION
                | flag::PROCESS_MEMORY
                | flag::PROCESS_TIME
                | flag::ACTIVE_PROCESS
        );
        assert_eq!(limits.cpu_ticks(), 650_000_000);
        // Never the whole job's: a tree of many workers is not starved.
        assert_eq!(limits.flags() & (flag::JOB_MEMORY | flag::JOB_TIME), 0);
        assert_eq!(limits.active_processes(), 256);
        if cfg!(target_pointer_width = "64") {
            assert_eq!(limits.memory_bytes(), 8 << 30);
        }
    }

    #[test]
    fn an_unlimited_job_sets_no_limit_fields() {
        let limits = JobLimits::tree_only();
        assert_eq!(
            limits.flags(),
            flag::KILL_ON_JOB_CLOSE | flag::DIE_ON_UNHANDLED_EXCEPTION
        );
        assert_eq!(
            (
                limits.cpu_ticks(),
                limits.memory_bytes(),
                limits.active_processes()
            ),
            (0, 0, 0)
        );
    }

    #[test]
    fn a_huge_cpu_time_saturates_instead_of_wrapping() {
        let limits = JobLimits {
            cpu_time: Some(Duration::MAX),
            ..JobLimits::default()
        };
        assert_eq!(limits.cpu_ticks(), i64::MAX);
    }
}
