//! The IPC commands: one line each over a core function. Errors reach the UI
//! as the core's `AppError` (`{code, message, details}`).

pub mod activity;
pub mod backups;
pub mod canvas;
pub mod catalog;
pub mod conversations;
pub mod cron;
pub mod desktop;
pub mod endpoints;
pub mod inbox;
pub mod local_models;
pub mod mcp_servers;
pub mod memory;
pub mod names;
pub mod providers;
pub mod runs;
pub mod shell;
pub mod swarms;
pub mod team_bus;
pub mod web_search;
pub mod workspace;
