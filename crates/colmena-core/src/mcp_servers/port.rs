//! The port between the connection manager (here, in core) and an MCP
//! client implementation (rmcp, in `colmena-server`): core may not depend on
//! rmcp (ARCHITECTURE: "no rmcp under colmena-core"), so it names what it
//! needs — start a session, list tools, call one, notice the end — and the
//! process that opens the workspace installs an implementation with
//! [`crate::mcp_servers::install_connector`].

use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use zeroize::Zeroizing;

use crate::error::Result;

pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Everything needed to start one server, secrets opened. Never logged,
/// never returned to an adapter.
pub struct Launch {
    pub server_id: String,
    pub transport: LaunchTransport,
    /// How long starting and listing the tools may take.
    pub start_timeout: Duration,
}

pub enum LaunchTransport {
    Stdio {
        command: String,
        args: Vec<String>,
        env: Vec<(String, Zeroizing<String>)>,
        cwd: PathBuf,
    },
    Http {
        url: String,
        headers: Vec<(String, Zeroizing<String>)>,
    },
}

/// A tool as a server lists it.
#[derive(Debug, Clone, PartialEq)]
pub struct RemoteTool {
    pub name: String,
    pub description: String,
    /// JSON schema of the arguments (an object schema).
    pub input_schema: Value,
    /// The server marks it read-only and not destructive (its annotations:
    /// a hint, trusted as far as the person trusted the server they added).
    pub read_only: bool,
}

/// One piece of a tool's result.
#[derive(Debug, Clone, PartialEq)]
pub enum RemoteContent {
    Text(String),
    /// Base64 data and its MIME type.
    Image {
        mime: String,
        data: String,
    },
    /// An embedded or linked resource: its URI and text if it has any.
    Resource {
        uri: String,
        text: Option<String>,
    },
}

/// What a tool call returned.
#[derive(Debug, Clone, PartialEq)]
pub struct RemoteResult {
    pub is_error: bool,
    pub content: Vec<RemoteContent>,
    pub structured: Option<Value>,
}

/// How a session ended: why, the exit code of its program, and the end of
/// what it wrote on standard error.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ExitReport {
    pub reason: String,
    pub exit_code: Option<i32>,
    pub stderr_tail: Option<String>,
}

/// A running session with one server.
pub trait McpSession: Send + Sync {
    fn list_tools(&self) -> BoxFuture<'_, Result<Vec<RemoteTool>>>;
    fn call_tool(&self, name: &str, arguments: Value) -> BoxFuture<'_, Result<RemoteResult>>;
    /// `Some` once the server is gone (its process exited, its connection closed).
    fn ended(&self) -> Option<ExitReport>;
    /// What the program wrote on standard error lately (stdio only).
    fn stderr_tail(&self) -> Option<String>;
    /// Stops the session and, for stdio, the program and its children.
    fn shutdown(&self) -> BoxFuture<'_, ()>;
}

/// What a session tells the manager on its own.
pub trait McpEvents: Send + Sync {
    /// The server sent `notifications/tools/list_changed`.
    fn tools_changed(&self);
    /// The session ended by itself (the program exited, the stream closed).
    fn ended(&self);
}

/// Starts sessions.
pub trait McpConnector: Send + Sync + 'static {
    /// Starts `launch` and completes the MCP initialisation; an error says
    /// why (with the program's exit code and standard error when it died).
    fn connect(
        &self,
        launch: Launch,
        events: Arc<dyn McpEvents>,
    ) -> BoxFuture<'static, std::result::Result<Arc<dyn McpSession>, ExitReport>>;
}
