//! Colmena's service layer: all logic and all writes.
//!
//! Every operation is one plain async function taking [`Ctx`]; the desktop
//! shell (Tauri IPC), the CLI, and later HTTP and MCP are one-line adapters
//! over these functions. Nothing here depends on Tauri, axum or rmcp.

pub mod activity;
pub mod agents;
pub mod caller;
pub mod canvas;
pub mod connect;
pub mod contracts;
pub mod conversations;
pub mod cron;
pub mod ctx;
pub mod data_dir;
pub mod doctor;
pub mod document;
pub mod endpoints;
pub mod error;
pub mod ethics;
pub mod glob;
pub mod ids;
pub mod images;
pub mod inbox;
pub mod llm;
pub mod mcp_servers;
pub mod memory;
pub mod models;
pub mod net_guard;
pub mod permissions;
pub mod private_files;
pub mod process;
pub mod prompt;
pub mod providers;
pub mod risk;
pub mod roles;
pub mod runs;
pub mod runtime;
pub(crate) mod sandbox;
pub mod search;
pub mod secrets;
pub mod setup;
pub mod single_instance;
pub mod skills;
pub mod store;
pub mod swarms;
pub mod team_bus;
pub mod terminal_text;
pub mod toolbox;
pub mod tools;
pub mod users;
mod validate;
pub mod web_search;
pub(crate) mod work;
pub mod workspace;

pub use caller::Caller;
pub use ctx::{Change, Ctx, Notice, NoticeTopic};
pub use error::{AppError, ErrorCode, Result};
pub use workspace::OpenOptions;
