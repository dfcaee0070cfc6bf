//! MCP servers as a client (SPEC H23, H24): what a person configures, the
//! connection manager that runs them, their tools in the catalog, and
//! importing the `mcpServers` JSON every peer reads.
//!
//! A stdio server is a program that runs on this computer with the
//! person's rights, so only the local doors — the window and the `colmena`
//! CLI — may create, change, test or import one. An MCP or HTTP client of
//! Colmena, or an agent, gets `forbidden`: a message must never become a
//! program that runs. Calling a server's tools is an agent's business and
//! goes through the permission gate like any tool (class "reaches the
//! network": a person is asked by default).

pub mod config;
mod hub;
pub mod import;
pub mod port;
pub mod presets;
mod refs;
mod result;
mod store;
mod sync;

use serde_json::Value;

pub use config::{
    McpServer, McpServerInput, McpState, McpStatus, McpTestResult, McpToolInfo, McpTransport,
    McpTransportInput, McpVar, McpVarInput,
};
pub use hub::Hub;

use crate::caller::Caller;
use crate::caller::Client;
use crate::ctx::{Change, Ctx};
use crate::error::{AppError, ErrorCode, Result};
use crate::ids;

/// Gives this workspace an MCP client (the process that opened it has
/// one: the app, `colmena serve`, the CLI). Without it, MCP servers can be
/// configured but not started.
pub fn install_connector(ctx: &Ctx, connector: std::sync::Arc<dyn port::McpConnector>) {
    Hub::of(ctx).install(connector);
}

/// Whether this workspace has an MCP client ([`install_connector`]).
pub fn has_connector(ctx: &Ctx) -> bool {
    Hub::of(ctx).has_connector()
}

/// Only a person at this computer configures programs that run on it.
fn local_only(caller: &Caller) -> Result<()> {
    if caller.is_remote() || caller.client == Client::Agent {
        return Err(AppError::new(
            ErrorCode::Forbidden,
            "MCP servers run programs on this computer: only a person at it (the Colmena window or the colmena CLI) may configure them",
        )
        .with_details(serde_json::json!({ "reason": "local_only" })));
    }
    Ok(())
}

pub async fn list(ctx: &Ctx) -> Result<Vec<McpServer>> {
    let hub_ctx = ctx.clone();
    ctx.store()
        .read(move |conn| {
            store::all(conn)?
                .into_iter()
                .map(|row| {
                    let live = Hub::of(&hub_ctx).live(&row.id);
                    store::view(conn, row, live)
                })
                .collect()
        })
        .await
}

pub async fn get(ctx: &Ctx, id: &str) -> Result<McpServer> {
    let (hub_ctx, id) = (ctx.clone(), id.to_owned());
    ctx.store()
        .read(move |conn| {
            let row = store::require(conn, &id)?;
            let live = Hub::of(&hub_ctx).live(&row.id);
            store::view(conn, row, live)
        })
        .await
}

/// Longest server id: `mcp__<id>__` must leave room for the tool's own
/// name inside the 64 characters providers accept.
const MAX_ID: usize = 24;

/// The id a name gives a server: its slug, cut to [`MAX_ID`].
pub(crate) fn server_id(name: &str) -> Result<String> {
    let mut id = ids::slug_for("name", name)?;
    if id.len() > MAX_ID {
        id.truncate(MAX_ID);
        while id.ends_with('_') {
            id.pop();
        }
    }
    Ok(id)
}

fn name_conflict(name: &str, other: &str) -> AppError {
    AppError::conflicting_field(
        "name",
        "duplicate",
        format!("an MCP server named '{name}' (id '{other}') already exists"),
    )
}

pub async fn create(ctx: &Ctx, caller: &Caller, input: McpServerInput) -> Result<McpServer> {
    local_only(caller)?;
    let checked = config::check(input)?;
    let id = server_id(&checked.name)?;
    let (owned, server) = (ctx.clone(), id.clone());
    ctx.store()
        .write(move |tx| {
            let id = server;
            if let Some(other) = store::name_taken(tx, &checked.name, None)? {
                return Err(name_conflict(&checked.name, &other));
            }
            let now = chrono::Utc::now();
            tx.execute(
                "INSERT INTO mcp_servers (id, name, transport, config, enabled, preset, created_at, updated_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7)",
                rusqlite::params![
                    id,
                    checked.name,
                    checked.transport,
                    serde_json::to_string(&checked.config)?,
                    checked.enabled,
                    checked.preset,
                    now
                ],
            )?;
            store::write_secrets(tx, owned.vault(), &id, &checked)?;
            Ok(())
        })
        .await?;
    ctx.changed(Change::McpServers);
    get(ctx, &id).await
}

/// Replaces a server's configuration (its id stays). A running session is
/// stopped: the next need starts the new configuration.
pub async fn update(
    ctx: &Ctx,
    caller: &Caller,
    id: &str,
    input: McpServerInput,
) -> Result<McpServer> {
    local_only(caller)?;
    let checked = config::check(input)?;
    let (owned, server) = (ctx.clone(), id.to_owned());
    let synced = ctx
        .store()
        .write(move |tx| {
            store::require(tx, &server)?;
            if let Some(other) = store::name_taken(tx, &checked.name, Some(&server))? {
                return Err(name_conflict(&checked.name, &other));
            }
            tx.execute(
                "UPDATE mcp_servers SET name = ?2, transport = ?3, config = ?4, enabled = ?5, preset = ?6,
                    last_error = NULL, last_error_at = NULL, last_stderr = NULL, last_exit_code = NULL, updated_at = ?7 WHERE id = ?1",
                rusqlite::params![
                    server,
                    checked.name,
                    checked.transport,
                    serde_json::to_string(&checked.config)?,
                    checked.enabled,
                    checked.preset,
                    chrono::Utc::now()
                ],
            )?;
            store::write_secrets(tx, owned.vault(), &server, &checked)?;
            if checked.enabled {
                Ok(None)
            } else {
                sync::remove(tx, &server).map(Some)
            }
        })
        .await?;
    Hub::of(ctx).stop(id).await;
    if let Some(synced) = synced {
        ctx.index(synced.upserts, synced.deletes, synced.generation)
            .await;
        ctx.changed(Change::Tools);
        ctx.changed(Change::Agents);
    }
    ctx.changed(Change::McpServers);
    get(ctx, id).await
}

/// Switches a server on or off (`None` flips it). Off takes its tools out of
/// the catalog — and so away from every agent — at once and stops it; on
/// brings them back at its next start (Test starts it).
pub async fn set_enabled(
    ctx: &Ctx,
    caller: &Caller,
    id: &str,
    enabled: Option<bool>,
) -> Result<McpServer> {
    local_only(caller)?;
    let server = id.to_owned();
    let (now_on, synced) = ctx
        .store()
        .write(move |tx| {
            let row = store::require(tx, &server)?;
            let on = enabled.unwrap_or(!row.enabled);
            tx.execute(
                "UPDATE mcp_servers SET enabled = ?2, updated_at = ?3 WHERE id = ?1",
                rusqlite::params![server, on, chrono::Utc::now()],
            )?;
            let synced = if on {
                None
            } else {
                Some(sync::remove(tx, &server)?)
            };
            Ok((on, synced))
        })
        .await?;
    if !now_on {
        Hub::of(ctx).stop(id).await;
    }
    if let Some(synced) = synced {
        ctx.index(synced.upserts, synced.deletes, synced.generation)
            .await;
        ctx.changed(Change::Tools);
        ctx.changed(Change::Agents);
    }
    ctx.changed(Change::McpServers);
    get(ctx, id).await
}

pub async fn delete(ctx: &Ctx, caller: &Caller, id: &str) -> Result<()> {
    local_only(caller)?;
    Hub::of(ctx).stop(id).await;
    let server = id.to_owned();
    let synced = ctx
        .store()
        .write(move |tx| {
            store::require(tx, &server)?;
            let synced = sync::remove(tx, &server)?;
            tx.execute("DELETE FROM mcp_servers WHERE id = ?1", [&server])?;
            Ok(synced)
        })
        .await?;
    ctx.index(synced.upserts, synced.deletes, synced.generation)
        .await;
    ctx.changed(Change::Tools);
    ctx.changed(Change::Agents);
    ctx.changed(Change::McpServers);
    Ok(())
}

/// Starts `id` afresh and lists its tools (SPEC H23 `test_mcp_server`).
pub async fn test(ctx: &Ctx, caller: &Caller, id: &str) -> Result<McpTestResult> {
    local_only(caller)?;
    let server = get(ctx, id).await?;
    if !server.enabled {
        return Err(AppError::precondition(format!(
            "MCP server '{}' is switched off: switch it on to test it",
            server.name
        )));
    }
    match Hub::of(ctx).session(ctx, id, true).await {
        Ok(_) => Ok(McpTestResult {
            ok: true,
            error: None,
            stderr_tail: None,
            exit_code: None,
            tools: get(ctx, id).await?.tools,
        }),
        Err(e) => {
            let details = e.details.clone().unwrap_or(Value::Null);
            Ok(McpTestResult {
                ok: false,
                error: Some(e.message),
                stderr_tail: details["stderrTail"].as_str().map(str::to_owned),
                exit_code: details["exitCode"]
                    .as_i64()
                    .and_then(|c| i32::try_from(c).ok()),
                tools: Vec::new(),
            })
        }
    }
}

/// Starts the enabled servers `agent` uses — assigned to it, or named by one
/// of its tool patterns (`mcp__github__*`) — whose tools the catalog does
/// not hold yet (never started, or edited since). A server that fails is
/// left out of the run with a warning; its status says why.
pub(crate) async fn prepare_for(ctx: &Ctx, agent: &crate::ids::AgentId) {
    if !Hub::of(ctx).has_connector() {
        return;
    }
    let id = agent.clone();
    let waiting = ctx
        .store()
        .read(move |conn| {
            let mut stmt = conn.prepare(
                "SELECT s.id FROM mcp_servers s
                 WHERE s.enabled = 1
                   AND NOT EXISTS (SELECT 1 FROM tools t WHERE t.mcp_server_id = s.id)
                   AND (EXISTS (SELECT 1 FROM agent_mcp_servers a WHERE a.agent_id = ?1 AND a.server_id = s.id)
                        OR EXISTS (SELECT 1 FROM agent_tool_patterns p WHERE p.agent_id = ?1
                                   AND substr(p.pattern, 1, length('mcp__' || s.id || '__')) = 'mcp__' || s.id || '__'))",
            )?;
            let rows = stmt.query_map([&id], |r| r.get::<_, String>(0))?;
            Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
        })
        .await;
    for server in waiting.unwrap_or_default() {
        if let Err(e) = Hub::of(ctx).session(ctx, &server, false).await {
            tracing::warn!(
                "MCP server {server} left out of a run of {agent}: {}",
                e.message
            );
        }
    }
}

/// Runs one MCP tool of the catalog for an agent run (the gate has passed).
pub(crate) use result::call_tool;
