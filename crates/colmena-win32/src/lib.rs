//! The Windows calls Colmena needs and no safe crate offers, in one small
//! crate so every `unsafe` line of the project sits where a reviewer can
//! read all of it at once (the rest of the workspace forbids `unsafe`).
//!
//! - Owner-only access lists: the single-instance pipe, the launch key and
//!   the private folders (data dir, a run's temporary folder) grant this
//!   user and nobody else — not the machine's other users, not the
//!   administrators' group, not SYSTEM — and inherit nothing from the
//!   folder they are made in, from the moment they exist ([`sddl`],
//!   `create_private_dir`, `create_private_file`, `private_pipe`).
//! - Job Objects with limits: a program an agent runs, and everything it
//!   starts, share one job that caps its memory, CPU time and number of
//!   processes, allows no breakaway, and ends the whole tree when closed
//!   ([`JobLimits`], `Job`).
//!
//! What each call means is plain code ([`sddl`], [`job_limits`]) built and
//! unit-tested on every OS; `windows/` only hands it to Windows.

pub mod job_limits;
pub mod sddl;

pub use job_limits::JobLimits;

#[cfg(windows)]
mod windows;
#[cfg(windows)]
pub use windows::{
    Job, JobSettings, create_private_dir, create_private_file, dacl_of, dacl_of_handle,
    private_pipe, user_sid,
};

/// What an owner-only list is for: a folder's is inherited by what is
/// made in it, a file's is its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Object {
    File,
    Folder,
}
