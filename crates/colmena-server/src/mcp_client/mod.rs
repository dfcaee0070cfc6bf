//! Colmena as an MCP *client*: the rmcp implementation of core's port
//! (`colmena_core::mcp_servers::port`). Core keeps the manager and every
//! rule; this module only speaks the protocol.
//!
//! - stdio: the program starts through `colmena-sandbox --supervise`, the
//!   leader of its own process group, which kills the group when Colmena
//!   goes away — even after `kill -9` — so no server outlives the app. This
//!   module owns the child: it waits for it, keeps the exit code and the
//!   last lines of standard error, and tells the manager when it ended.
//! - streamable HTTP: rmcp's reqwest transport, with the configured headers
//!   (secret ones opened by core just for the connection).

mod handler;
mod http;
mod stdio;

use std::sync::Arc;

use colmena_core::Ctx;
use colmena_core::mcp_servers::port::{
    BoxFuture, ExitReport, Launch, LaunchTransport, McpConnector, McpEvents, McpSession,
};

/// The connector this process installs.
pub struct RmcpConnector;

impl McpConnector for RmcpConnector {
    fn connect(
        &self,
        launch: Launch,
        events: Arc<dyn McpEvents>,
    ) -> BoxFuture<'static, Result<Arc<dyn McpSession>, ExitReport>> {
        Box::pin(async move {
            match launch.transport {
                LaunchTransport::Stdio {
                    command,
                    args,
                    env,
                    cwd,
                } => stdio::connect(&command, &args, &env, &cwd, events)
                    .await
                    .map(|s| s as Arc<dyn McpSession>),
                LaunchTransport::Http { url, headers } => http::connect(&url, &headers, events)
                    .await
                    .map(|s| s as Arc<dyn McpSession>),
            }
        })
    }
}

/// Gives `ctx` Colmena's MCP client (every process that opens a workspace
/// and may run agents or tests: the app, `colmena serve`, the CLI).
pub fn install(ctx: &Ctx) {
    colmena_core::mcp_servers::install_connector(ctx, Arc::new(RmcpConnector));
}
