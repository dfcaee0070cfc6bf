//! The role runner: what wakes the bus's long-lived roles and runs them
//! (SPEC B6, issue 15). The bus (`inbox/`) holds authors and mail and says
//! when mail may wake a role; this folder does the waking.
//!
//! - [`wakes`]: the scheduler — claims a due wake-up (exactly one of any
//!   number of schedulers on a data dir), runs the role's agent over its
//!   unread mail, marks it read once the run completes;
//! - [`wake_command`]: a role that lives outside Colmena, woken by running
//!   its program;
//! - [`role_thread`]: what a role remembers between wake-ups, summarised to
//!   fit its model's window;
//! - [`wake_budget`], [`wake_history`]: how often a role may wake, and what
//!   its wake-ups did;
//! - [`cut_off`]: a wake-up cut off by a crash is resumed, not redone.

pub(crate) mod cut_off;
pub mod role_thread;
pub mod wake_budget;
pub mod wake_command;
pub mod wake_history;
pub mod wakes;
