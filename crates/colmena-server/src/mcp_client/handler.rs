//! The client side of a session: who Colmena says it is, the
//! notifications it reacts to, and the conversions between rmcp's types and
//! core's port.

use std::sync::Arc;

use colmena_core::error::{AppError, ErrorCode};
use colmena_core::mcp_servers::port::{McpEvents, RemoteContent, RemoteResult, RemoteTool};
use rmcp::ClientHandler;
use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig, ContentBlock,
    Implementation, ResourceContents, Tool,
};
use rmcp::service::{NotificationContext, Peer, RoleClient};
use serde_json::Value;

/// Tells the manager when the server's tools changed.
pub(super) struct Handler {
    pub events: Arc<dyn McpEvents>,
}

impl ClientHandler for Handler {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("colmena", env!("CARGO_PKG_VERSION")),
        )
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.events.tools_changed();
    }
}

fn tool(tool: Tool) -> RemoteTool {
    let read_only = tool
        .annotations
        .as_ref()
        .is_some_and(|a| a.read_only_hint == Some(true) && a.destructive_hint != Some(true));
    RemoteTool {
        read_only,
        description: tool
            .description
            .map(|d| d.into_owned())
            .or(tool.title)
            .unwrap_or_default(),
        input_schema: Value::Object((*tool.input_schema).clone()),
        name: tool.name.into_owned(),
    }
}

fn upstream(e: impl std::fmt::Display) -> AppError {
    AppError::new(ErrorCode::Upstream, e.to_string())
}

pub(super) async fn list_tools(peer: &Peer<RoleClient>) -> colmena_core::Result<Vec<RemoteTool>> {
    Ok(peer
        .list_all_tools()
        .await
        .map_err(upstream)?
        .into_iter()
        .map(tool)
        .collect())
}

pub(super) async fn call_tool(
    peer: &Peer<RoleClient>,
    name: &str,
    arguments: Value,
) -> colmena_core::Result<RemoteResult> {
    let mut params = CallToolRequestParams::new(name.to_owned());
    params.arguments = match arguments {
        Value::Object(map) => Some(map),
        Value::Null => None,
        other => {
            return Err(AppError::new(
                ErrorCode::Validation,
                format!("tool arguments must be an object, not {other}"),
            ));
        }
    };
    let result = peer.call_tool(params).await.map_err(upstream)?;
    Ok(convert(result))
}

fn convert(result: CallToolResult) -> RemoteResult {
    let content = result.content.into_iter().map(content).collect();
    RemoteResult {
        is_error: result.is_error.unwrap_or(false),
        content,
        structured: result.structured_content,
    }
}

fn content(block: ContentBlock) -> RemoteContent {
    match block {
        ContentBlock::Text(t) => RemoteContent::Text(t.text),
        ContentBlock::Image(i) => RemoteContent::Image {
            mime: i.mime_type,
            data: i.data,
        },
        ContentBlock::Resource(r) => match r.resource {
            ResourceContents::TextResourceContents { uri, text, .. } => RemoteContent::Resource {
                uri,
                text: Some(text),
            },
            ResourceContents::BlobResourceContents {
                uri,
                mime_type,
                blob,
                ..
            } => match mime_type.filter(|m| m.starts_with("image/")) {
                Some(mime) => RemoteContent::Image { mime, data: blob },
                None => RemoteContent::Resource { uri, text: None },
            },
            _ => RemoteContent::Text("[a resource of a kind Colmena does not know]".to_owned()),
        },
        ContentBlock::ResourceLink(link) => RemoteContent::Resource {
            uri: link.uri,
            text: None,
        },
        ContentBlock::Audio(_) => {
            RemoteContent::Text("[audio content: Colmena does not keep audio]".to_owned())
        }
        _ => RemoteContent::Text("[content of a kind Colmena does not know]".to_owned()),
    }
}
