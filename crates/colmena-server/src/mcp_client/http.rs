//! A streamable HTTP server: rmcp's reqwest transport with the configured
//! headers. Redirects are not followed (a header meant for one host never
//! reaches another).

use std::collections::HashMap;
use std::sync::Arc;

use colmena_core::mcp_servers::port::{
    BoxFuture, ExitReport, McpEvents, McpSession, RemoteResult, RemoteTool,
};
use reqwest::header::{HeaderName, HeaderValue};
use rmcp::ServiceExt;
use rmcp::service::{Peer, RoleClient, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::Value;
use tokio::sync::Mutex;
use zeroize::Zeroizing;

use super::handler::{self, Handler};

pub(super) struct HttpSession {
    service: Mutex<Option<RunningService<RoleClient, Handler>>>,
    peer: Peer<RoleClient>,
}

fn failed(reason: impl Into<String>) -> ExitReport {
    ExitReport {
        reason: reason.into(),
        exit_code: None,
        stderr_tail: None,
    }
}

pub(super) async fn connect(
    url: &str,
    headers: &[(String, Zeroizing<String>)],
    events: Arc<dyn McpEvents>,
) -> Result<Arc<HttpSession>, ExitReport> {
    let mut custom = HashMap::new();
    for (name, value) in headers {
        let name = HeaderName::from_bytes(name.as_bytes())
            .map_err(|_| failed(format!("'{name}' is not a header name")))?;
        let mut value = HeaderValue::from_str(value)
            .map_err(|_| failed(format!("the value of header '{name}' is not valid")))?;
        value.set_sensitive(true);
        custom.insert(name, value);
    }
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|e| failed(format!("cannot build the HTTP client: {e}")))?;
    let config =
        StreamableHttpClientTransportConfig::with_uri(url.to_owned()).custom_headers(custom);
    let transport = StreamableHttpClientTransport::with_client(client, config);
    let service = Handler { events }
        .serve(transport)
        .await
        .map_err(|e| failed(format!("the MCP handshake with {url} failed: {e}")))?;
    let peer = service.peer().clone();
    Ok(Arc::new(HttpSession {
        service: Mutex::new(Some(service)),
        peer,
    }))
}

impl McpSession for HttpSession {
    fn list_tools(&self) -> BoxFuture<'_, colmena_core::Result<Vec<RemoteTool>>> {
        Box::pin(handler::list_tools(&self.peer))
    }

    fn call_tool(
        &self,
        name: &str,
        arguments: Value,
    ) -> BoxFuture<'_, colmena_core::Result<RemoteResult>> {
        let name = name.to_owned();
        Box::pin(async move { handler::call_tool(&self.peer, &name, arguments).await })
    }

    fn ended(&self) -> Option<ExitReport> {
        self.peer
            .is_transport_closed()
            .then(|| failed("the connection to the server closed"))
    }

    fn stderr_tail(&self) -> Option<String> {
        None
    }

    fn shutdown(&self) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            if let Some(service) = self.service.lock().await.take() {
                let _ = service.cancel().await;
            }
        })
    }
}
