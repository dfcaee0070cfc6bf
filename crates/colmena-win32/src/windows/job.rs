//! A Job Object with limits ([`JobLimits`]): the processes put in it, and
//! everything they start, end when the last handle closes.

use std::ffi::c_void;
use std::io;
use std::os::windows::io::{AsRawHandle, BorrowedHandle, RawHandle};
use std::ptr::{null, null_mut};

use windows_sys::Win32::Foundation::ERROR_MORE_DATA;
use windows_sys::Win32::System::JobObjects::{
    AssignProcessToJobObject, CreateJobObjectW, JOB_OBJECT_LIMIT_ACTIVE_PROCESS,
    JOB_OBJECT_LIMIT_BREAKAWAY_OK, JOB_OBJECT_LIMIT_DIE_ON_UNHANDLED_EXCEPTION,
    JOB_OBJECT_LIMIT_JOB_MEMORY, JOB_OBJECT_LIMIT_JOB_TIME, JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE,
    JOB_OBJECT_LIMIT_PROCESS_MEMORY, JOB_OBJECT_LIMIT_PROCESS_TIME,
    JOB_OBJECT_LIMIT_SILENT_BREAKAWAY_OK, JOBOBJECT_EXTENDED_LIMIT_INFORMATION,
    JobObjectBasicProcessIdList, JobObjectExtendedLimitInformation, QueryInformationJobObject,
    SetInformationJobObject,
};

use super::owned::{OwnedHandle, last_error};
use crate::job_limits::{JobLimits, flag};

// The flags `crate::job_limits` writes are Windows' own.
const _: () = {
    assert!(flag::PROCESS_TIME == JOB_OBJECT_LIMIT_PROCESS_TIME);
    assert!(flag::PROCESS_MEMORY == JOB_OBJECT_LIMIT_PROCESS_MEMORY);
    assert!(flag::JOB_TIME == JOB_OBJECT_LIMIT_JOB_TIME);
    assert!(flag::ACTIVE_PROCESS == JOB_OBJECT_LIMIT_ACTIVE_PROCESS);
    assert!(flag::JOB_MEMORY == JOB_OBJECT_LIMIT_JOB_MEMORY);
    assert!(flag::DIE_ON_UNHANDLED_EXCEPTION == JOB_OBJECT_LIMIT_DIE_ON_UNHANDLED_EXCEPTION);
    assert!(flag::BREAKAWAY_OK == JOB_OBJECT_LIMIT_BREAKAWAY_OK);
    assert!(flag::SILENT_BREAKAWAY_OK == JOB_OBJECT_LIMIT_SILENT_BREAKAWAY_OK);
    assert!(flag::KILL_ON_JOB_CLOSE == JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE);
};

/// A job only this process holds; dropping it ends every process in it.
pub struct Job(OwnedHandle);

// SAFETY: a job handle may be used and closed from any thread.
unsafe impl Send for Job {}
// SAFETY: the calls made through `&Job` are thread-safe in Windows.
unsafe impl Sync for Job {}

/// The limits Windows reports for a job (what it holds, not what was asked).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JobSettings {
    pub flags: u32,
    /// Per process.
    pub cpu_ticks: i64,
    pub active_processes: u32,
    /// Per process.
    pub memory_bytes: usize,
}

impl Job {
    /// A new, unnamed job (nothing else can open it by name) with `limits`.
    pub fn create(limits: &JobLimits) -> io::Result<Job> {
        // SAFETY: default security, no name; the handle is owned below.
        let handle = unsafe { CreateJobObjectW(null(), null()) };
        if handle.is_null() {
            return Err(last_error("cannot create a job object"));
        }
        let job = Job(OwnedHandle(handle));
        let mut info = JOBOBJECT_EXTENDED_LIMIT_INFORMATION::default();
        info.BasicLimitInformation.LimitFlags = limits.flags();
        info.BasicLimitInformation.PerProcessUserTimeLimit = limits.cpu_ticks();
        info.BasicLimitInformation.ActiveProcessLimit = limits.active_processes();
        info.ProcessMemoryLimit = limits.memory_bytes();
        // SAFETY: `info` is the structure this class takes, of its size.
        let set = unsafe {
            SetInformationJobObject(
                job.0.0,
                JobObjectExtendedLimitInformation,
                (&raw const info).cast::<c_void>(),
                size_of::<JOBOBJECT_EXTENDED_LIMIT_INFORMATION>() as u32,
            )
        };
        if set == 0 {
            return Err(last_error("cannot set a job object's limits"));
        }
        Ok(job)
    }

    /// Puts the process behind `process` in this job.
    pub fn assign(&self, process: BorrowedHandle<'_>) -> io::Result<()> {
        // SAFETY: the job's handle is ours and open; a borrowed handle is
        // open for as long as the borrow.
        if unsafe { AssignProcessToJobObject(self.0.0, process.as_raw_handle()) } == 0 {
            return Err(last_error("cannot put a process in its job object"));
        }
        Ok(())
    }

    /// Puts a running tokio child in this job (an error once it has
    /// exited and been reaped).
    pub fn assign_child(&self, child: &tokio::process::Child) -> io::Result<()> {
        let handle = child
            .raw_handle()
            .ok_or_else(|| io::Error::other("the process exited as it started"))?;
        // SAFETY: tokio owns this process handle until the `Child` is
        // dropped, which the borrow of `child` prevents for this call.
        let handle = unsafe { BorrowedHandle::borrow_raw(handle) };
        self.assign(handle)
    }

    /// The ids of the processes in the job now (the first 1,024).
    pub fn process_ids(&self) -> io::Result<Vec<u32>> {
        #[repr(C)]
        struct List {
            assigned: u32,
            listed: u32,
            ids: [usize; 1024],
        }
        let mut list = List {
            assigned: 0,
            listed: 0,
            ids: [0; 1024],
        };
        // SAFETY: `List` has the layout of JOBOBJECT_BASIC_PROCESS_ID_LIST
        // with room for 1,024 ids, and its size is passed.
        let read = unsafe {
            QueryInformationJobObject(
                self.0.0,
                JobObjectBasicProcessIdList,
                (&raw mut list).cast(),
                size_of::<List>() as u32,
                null_mut(),
            )
        };
        if read == 0 && io::Error::last_os_error().raw_os_error() != Some(ERROR_MORE_DATA as i32) {
            return Err(last_error("cannot list a job object's processes"));
        }
        let listed = (list.listed as usize).min(list.ids.len());
        Ok(list.ids[..listed].iter().map(|&id| id as u32).collect())
    }

    /// The limits the job holds.
    pub fn settings(&self) -> io::Result<JobSettings> {
        let mut info = JOBOBJECT_EXTENDED_LIMIT_INFORMATION::default();
        // SAFETY: `info` is the structure this class fills, of its size.
        let read = unsafe {
            QueryInformationJobObject(
                self.0.0,
                JobObjectExtendedLimitInformation,
                (&raw mut info).cast(),
                size_of::<JOBOBJECT_EXTENDED_LIMIT_INFORMATION>() as u32,
                null_mut(),
            )
        };
        if read == 0 {
            return Err(last_error("cannot read a job object's limits"));
        }
        let basic = info.BasicLimitInformation;
        Ok(JobSettings {
            flags: basic.LimitFlags,
            cpu_ticks: basic.PerProcessUserTimeLimit,
            active_processes: basic.ActiveProcessLimit,
            memory_bytes: info.ProcessMemoryLimit,
        })
    }

    /// The job's handle (for reading its access list).
    pub fn handle(&self) -> BorrowedHandle<'_> {
        // SAFETY: the handle is open until `self` is dropped, which the
        // borrow prevents.
        unsafe { BorrowedHandle::borrow_raw(self.0.0 as RawHandle) }
    }
}
