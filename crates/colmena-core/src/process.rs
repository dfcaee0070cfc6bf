//! Programs Colmena keeps running for the person — MCP servers, the
//! commands that wake roles — started so that they never outlive it, not
//! even when it is killed with SIGKILL.
//!
//! [`supervised_command`] builds the command for the program under
//! `colmena-sandbox --supervise`; [`spawn_supervised`] starts it. Unix:
//! the launcher leads a new process group, everything the program starts
//! (`npx` → `node` → …) stays in that group or, if it leaves it, is
//! re-parented to the launcher; [`kill_group`] ends the group at once; the
//! launcher exits with the program's status once nothing it started is
//! alive, and kills everything itself when Colmena dies (see
//! `sandbox/supervisor.rs` for how, and why not the parent-death signal).
//! Windows: the launcher is in a Job Object only Colmena holds before the
//! program starts; [`kill_group`] and [`release_group`] (once the launcher
//! has exited) close it, and so does the system when Colmena dies — the
//! job then ends every process in it (`sandbox/group.rs`).

pub use crate::sandbox::{Input, kill_group, release_group, spawn_supervised, supervised_command};
