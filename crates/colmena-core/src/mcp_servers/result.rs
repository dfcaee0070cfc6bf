//! One MCP tool call for an agent run, and its result as the text the model
//! reads: text parts as they are, structured content as JSON, images stored
//! as the user's image artifacts (the model gets their ids, which the image
//! tools take), resources by URI. What a server returns is data: it reaches
//! the model as a tool result, never as instructions of Colmena's.

use std::time::Duration;

use base64::Engine;
use rusqlite::OptionalExtension;
use serde_json::Value;

use super::Hub;
use super::config::DEFAULT_CALL_TIMEOUT_SECS;
use super::port::{RemoteContent, RemoteResult};
use crate::ctx::Ctx;
use crate::error::{AppError, ErrorCode, Result};
use crate::runs::context::RunContext;

/// Largest image kept from one result, and most images kept per result.
const MAX_IMAGE_BYTES: usize = 20 * 1024 * 1024;
const MAX_IMAGES: usize = 8;

struct Target {
    server: String,
    name: String,
    remote_name: String,
    enabled: bool,
    timeout: u32,
}

async fn target(ctx: &Ctx, tool_id: &str) -> Result<Target> {
    let id = tool_id.to_owned();
    ctx.store()
        .read(move |conn| {
            let found: Option<(String, String, String, bool, String)> = conn
                .query_row(
                    "SELECT s.id, s.name, t.mcp_tool_name, s.enabled, s.config
                     FROM tools t JOIN mcp_servers s ON s.id = t.mcp_server_id WHERE t.id = ?1",
                    [&id],
                    |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
                )
                .optional()?;
            let (server, name, remote_name, enabled, config) =
                found.ok_or_else(|| AppError::not_found("MCP tool", &id))?;
            let config: super::config::StoredConfig =
                serde_json::from_str(&config).unwrap_or_default();
            Ok(Target {
                server,
                name,
                remote_name,
                enabled,
                timeout: config.timeout_seconds.unwrap_or(DEFAULT_CALL_TIMEOUT_SECS),
            })
        })
        .await
}

/// Calls the catalog tool `tool_id` with `arguments` (already checked
/// against its schema), within the server's time limit and the run's
/// cancellation.
pub(crate) async fn call_tool(rc: &RunContext, tool_id: &str, arguments: Value) -> Result<String> {
    let ctx = &rc.ctx;
    let target = target(ctx, tool_id).await?;
    if !target.enabled {
        return Err(AppError::precondition(format!(
            "MCP server '{}' is switched off",
            target.name
        )));
    }
    let session = Hub::of(ctx).session(ctx, &target.server, false).await?;
    let limit = Duration::from_secs(u64::from(target.timeout));
    let outcome = tokio::select! {
        outcome = tokio::time::timeout(limit, session.call_tool(&target.remote_name, arguments)) => outcome,
        () = rc.cancel.cancelled() => {
            return Err(AppError::new(ErrorCode::Cancelled, "the run was stopped during the call"));
        }
    };
    match outcome {
        Ok(Ok(result)) => render(ctx, &rc.user_id, &target, result).await,
        Ok(Err(e)) => match session.ended() {
            Some(report) => {
                Hub::of(ctx).ended(ctx, &target.server).await;
                let mut message = format!(
                    "MCP server '{}' stopped during the call ({}",
                    target.name, report.reason
                );
                if let Some(code) = report.exit_code {
                    message.push_str(&format!(", exit code {code}"));
                }
                message.push_str("); it is started again for the next call");
                Err(AppError::new(ErrorCode::Upstream, message))
            }
            None => Err(AppError::new(
                e.code,
                format!("MCP server '{}': {}", target.name, e.message),
            )),
        },
        Err(_) => Err(AppError::new(
            ErrorCode::Upstream,
            format!(
                "MCP server '{}' did not answer {} within {} s",
                target.name, target.remote_name, target.timeout
            ),
        )),
    }
}

async fn render(ctx: &Ctx, user: &str, target: &Target, result: RemoteResult) -> Result<String> {
    let mut parts: Vec<String> = Vec::new();
    let mut images = 0;
    for (n, content) in result.content.into_iter().enumerate() {
        match content {
            RemoteContent::Text(text) => parts.push(text),
            RemoteContent::Resource { uri, text } => parts.push(match text {
                Some(text) => format!("[resource {uri}]\n{text}"),
                None => format!("[resource {uri}]"),
            }),
            RemoteContent::Image { mime, .. } if images >= MAX_IMAGES => {
                parts.push(format!(
                    "[image {mime}: not kept, the result holds more than {MAX_IMAGES}]"
                ));
            }
            RemoteContent::Image { mime, data } => {
                images += 1;
                parts.push(store_image(ctx, user, target, n, &mime, &data).await);
            }
        }
    }
    if let Some(structured) = result.structured {
        let json = serde_json::to_string_pretty(&structured)?;
        // Servers often repeat the structured result as text: once is enough.
        if !parts.iter().any(|p| {
            p.trim() == json.trim()
                || serde_json::from_str::<Value>(p).ok().as_ref() == Some(&structured)
        }) {
            parts.push(format!("Structured result:\n{json}"));
        }
    }
    let text = parts.join("\n\n");
    if result.is_error {
        return Err(AppError::new(
            ErrorCode::Upstream,
            if text.is_empty() {
                format!("{} reported an error", target.remote_name)
            } else {
                text
            },
        ));
    }
    Ok(if text.is_empty() {
        format!("{} returned nothing", target.remote_name)
    } else {
        text
    })
}

async fn store_image(
    ctx: &Ctx,
    user: &str,
    target: &Target,
    n: usize,
    mime: &str,
    data: &str,
) -> String {
    let bytes = match base64::engine::general_purpose::STANDARD.decode(data.trim()) {
        Ok(bytes) if bytes.len() <= MAX_IMAGE_BYTES => bytes,
        Ok(bytes) => return format!("[image {mime}, {} bytes: too large to keep]", bytes.len()),
        Err(_) => return format!("[image {mime}: its data is not base64]"),
    };
    let extension = mime.rsplit('/').next().unwrap_or("bin");
    let name = format!("{}-{}-{n}.{extension}", target.server, target.remote_name);
    match crate::images::upload(ctx, user, &name, bytes).await {
        Ok(artifact) => match (artifact.width, artifact.height) {
            (Some(w), Some(h)) => format!(
                "[image {} ({w}×{h} {}), stored as image artifact {}: image_metadata and image_transform take that id]",
                artifact.name, artifact.mime, artifact.id
            ),
            _ => format!(
                "[image {}, stored as artifact {}]",
                artifact.name, artifact.id
            ),
        },
        Err(e) => format!("[image {mime}: not kept: {}]", e.message),
    }
}
