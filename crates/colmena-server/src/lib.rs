//! The adapters of Colmena other than IPC: the HTTP server (the REST bus,
//! [`http`]). The `colmena` binary (CLI) sits next to it in `main.rs`; the
//! desktop app embeds the same server through this library.

pub mod http;
pub mod mcp;
pub mod mcp_client;
