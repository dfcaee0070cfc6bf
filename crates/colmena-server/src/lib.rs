//! The adapters of Colmena other than IPC: the HTTP server (the REST bus,
//! [`http`]), MCP ([`mcp`], [`mcp_client`]) and the command line ([`cli`],
//! run by the `colmena` binary in `main.rs` and, in the Linux packages, by
//! the desktop binary). The desktop app embeds the same server through this
//! library.

pub mod cli;
/// The argument that starts this program as the local model engine.
pub use colmena_engine::ENGINE_ARG;
pub mod http;
pub mod mcp;
pub mod mcp_client;
