//! Programs Colmena keeps running for the person — MCP servers — started so
//! that they never outlive it, not even when it is killed with SIGKILL.
//!
//! [`supervised_command`] starts the program under `colmena-sandbox
//! --supervise`, the leader of a new process group: everything the program
//! starts (`npx` → `node` → …) stays in that group or, if it leaves it, is
//! re-parented to the launcher; [`kill_group`] ends the group at once. The
//! launcher exits with the program's status once nothing it started is
//! alive, and kills everything itself when Colmena dies (see
//! `sandbox/supervisor.rs` for how, and why not the parent-death
//! signal).

pub use crate::sandbox::{kill_group, supervised_command};
