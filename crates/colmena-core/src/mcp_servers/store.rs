//! MCP servers in the store: the row of `mcp_servers`, its sealed secrets in
//! `mcp_server_secrets`, and the view adapters get (secrets masked, the
//! state from this process's manager, the tools from the catalog).

use chrono::{DateTime, Utc};
use rusqlite::{Connection, OptionalExtension, Transaction, params};
use zeroize::Zeroizing;

use super::config::{
    Checked, DEFAULT_CALL_TIMEOUT_SECS, McpServer, McpState, McpStatus, McpToolInfo, McpTransport,
    McpVar, StoredConfig,
};
use super::port::{Launch, LaunchTransport};
use super::refs;
use crate::error::{AppError, ErrorCode, Result};
use crate::secrets::{Vault, mask_secret};

/// A row as stored.
pub(crate) struct Row {
    pub id: String,
    pub name: String,
    pub transport: String,
    pub config: StoredConfig,
    pub enabled: bool,
    pub preset: Option<String>,
    pub last_error: Option<String>,
    pub last_error_at: Option<DateTime<Utc>>,
    pub last_stderr: Option<String>,
    pub last_exit_code: Option<i32>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

const SELECT: &str =
    "SELECT id, name, transport, config, enabled, preset, last_error, last_error_at,
    created_at, updated_at, last_stderr, last_exit_code FROM mcp_servers";

fn row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Row> {
    let config: String = r.get(3)?;
    Ok(Row {
        id: r.get(0)?,
        name: r.get(1)?,
        transport: r.get(2)?,
        config: serde_json::from_str(&config).unwrap_or_default(),
        enabled: r.get(4)?,
        preset: r.get(5)?,
        last_error: r.get(6)?,
        last_error_at: r.get(7)?,
        created_at: r.get(8)?,
        updated_at: r.get(9)?,
        last_stderr: r.get(10)?,
        last_exit_code: r.get(11)?,
    })
}

pub(crate) fn find(conn: &Connection, id: &str) -> Result<Option<Row>> {
    Ok(conn
        .query_row(&format!("{SELECT} WHERE id = ?1"), [id], row)
        .optional()?)
}

pub(crate) fn require(conn: &Connection, id: &str) -> Result<Row> {
    find(conn, id)?.ok_or_else(|| AppError::not_found("MCP server", id))
}

pub(crate) fn all(conn: &Connection) -> Result<Vec<Row>> {
    let mut stmt = conn.prepare(&format!("{SELECT} ORDER BY name COLLATE NOCASE"))?;
    let rows = stmt.query_map([], row)?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

/// The id a name gets, or who already has it.
pub(crate) fn name_taken(
    conn: &Connection,
    name: &str,
    except: Option<&str>,
) -> Result<Option<String>> {
    let slug = super::server_id(name).unwrap_or_default();
    let taken: Option<String> = conn
        .query_row(
            "SELECT id FROM mcp_servers WHERE (name = ?1 COLLATE NOCASE OR id = ?2) AND id IS NOT ?3",
            params![name.trim(), slug, except],
            |r| r.get(0),
        )
        .optional()?;
    Ok(taken)
}

fn secret_context(id: &str, kind: &str, name: &str) -> String {
    format!("mcp:{id}:{kind}:{name}")
}

/// Seals what is new, keeps what the input left blank, drops what is gone.
/// A secret left blank that was never stored is an error.
pub(crate) fn write_secrets(
    tx: &Transaction<'_>,
    vault: &Vault,
    id: &str,
    checked: &Checked,
) -> Result<()> {
    let kind = checked.secret_kind();
    let kept: Vec<&str> = checked.secrets.iter().map(|(n, _)| n.as_str()).collect();
    let stored: Vec<(String, String)> = {
        let mut stmt =
            tx.prepare("SELECT kind, name FROM mcp_server_secrets WHERE server_id = ?1")?;
        let rows = stmt.query_map([id], |r| Ok((r.get(0)?, r.get(1)?)))?;
        rows.collect::<rusqlite::Result<Vec<_>>>()?
    };
    for (stored_kind, name) in stored {
        if stored_kind != kind || !kept.contains(&name.as_str()) {
            tx.execute(
                "DELETE FROM mcp_server_secrets WHERE server_id = ?1 AND kind = ?2 AND name = ?3",
                params![id, stored_kind, name],
            )?;
        }
    }
    for (name, value) in &checked.secrets {
        match value {
            Some(clear) => {
                let cipher = vault
                    .seal(&secret_context(id, kind, name), clear.as_bytes())
                    .map_err(|e| match e.code {
                        ErrorCode::Precondition => AppError::new(
                            ErrorCode::Precondition,
                            format!("the secret '{name}' cannot be stored: {}", e.message),
                        ),
                        _ => e,
                    })?;
                tx.execute(
                    "INSERT INTO mcp_server_secrets (server_id, kind, name, cipher, mask) VALUES (?1, ?2, ?3, ?4, ?5)
                     ON CONFLICT (server_id, kind, name) DO UPDATE SET cipher = excluded.cipher, mask = excluded.mask",
                    params![id, kind, name, cipher, mask_secret(clear)],
                )?;
            }
            None => {
                let present: bool = tx.query_row(
                    "SELECT EXISTS (SELECT 1 FROM mcp_server_secrets WHERE server_id = ?1 AND kind = ?2 AND name = ?3)",
                    params![id, kind, name],
                    |r| r.get(0),
                )?;
                if !present {
                    return Err(AppError::invalid_field(
                        if kind == "env" { "env" } else { "headers" },
                        "secret_required",
                        format!("the secret '{name}' needs a value"),
                    ));
                }
            }
        }
    }
    Ok(())
}

fn masks(conn: &Connection, id: &str) -> Result<Vec<(String, String)>> {
    let mut stmt =
        conn.prepare("SELECT name, mask FROM mcp_server_secrets WHERE server_id = ?1")?;
    let rows = stmt.query_map([id], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

fn transport_view(conn: &Connection, row: &Row) -> Result<McpTransport> {
    let masks = masks(conn, &row.id)?;
    let vars = row
        .config
        .vars
        .iter()
        .map(|v| match &v.value {
            Some(value) => McpVar {
                name: v.name.clone(),
                value: value.clone(),
                secret: false,
            },
            None => McpVar {
                name: v.name.clone(),
                value: masks
                    .iter()
                    .find(|(n, _)| *n == v.name)
                    .map(|(_, m)| m.clone())
                    .unwrap_or_default(),
                secret: true,
            },
        })
        .collect();
    Ok(if row.transport == "http" {
        McpTransport::Http {
            url: row.config.url.clone(),
            headers: vars,
        }
    } else {
        McpTransport::Stdio {
            command: row.config.command.clone(),
            args: row.config.args.clone(),
            env: vars,
            cwd: row.config.cwd.clone(),
        }
    })
}

/// The tools of `id` in the catalog.
pub(crate) fn tools_of(conn: &Connection, id: &str) -> Result<Vec<McpToolInfo>> {
    let mut stmt = conn.prepare(
        "SELECT id, COALESCE(mcp_tool_name, id), COALESCE(description_override, description), active
         FROM tools WHERE mcp_server_id = ?1 ORDER BY id",
    )?;
    let rows = stmt.query_map([id], |r| {
        Ok(McpToolInfo {
            id: r.get(0)?,
            name: r.get(1)?,
            description: r.get(2)?,
            active: r.get(3)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

/// The stored view of a server; `live` is this process's state, if it has one.
pub(crate) fn view(conn: &Connection, row: Row, live: Option<McpStatus>) -> Result<McpServer> {
    let status = if !row.enabled {
        McpStatus {
            state: McpState::Disabled,
            error: None,
            stderr_tail: None,
            exit_code: None,
            since: None,
        }
    } else if let Some(live) = live {
        live
    } else if let Some(error) = &row.last_error {
        McpStatus {
            state: McpState::Failed,
            error: Some(error.clone()),
            stderr_tail: row.last_stderr.clone(),
            exit_code: row.last_exit_code,
            since: row.last_error_at,
        }
    } else {
        McpStatus {
            state: McpState::Stopped,
            error: None,
            stderr_tail: None,
            exit_code: None,
            since: None,
        }
    };
    Ok(McpServer {
        transport: transport_view(conn, &row)?,
        tools: tools_of(conn, &row.id)?,
        timeout_seconds: row
            .config
            .timeout_seconds
            .unwrap_or(DEFAULT_CALL_TIMEOUT_SECS),
        status,
        id: row.id,
        name: row.name,
        enabled: row.enabled,
        preset: row.preset,
        created_at: row.created_at,
        updated_at: row.updated_at,
    })
}

/// Records (or clears) the last failure, for other processes to show.
pub(crate) fn record_failure(
    tx: &Transaction<'_>,
    id: &str,
    failure: Option<&super::port::ExitReport>,
) -> Result<()> {
    tx.execute(
        "UPDATE mcp_servers SET last_error = ?2, last_error_at = ?3, last_stderr = ?4, last_exit_code = ?5 WHERE id = ?1",
        params![
            id,
            failure.map(|f| f.reason.as_str()),
            failure.map(|_| Utc::now()),
            failure.and_then(|f| f.stderr_tail.as_deref()),
            failure.and_then(|f| f.exit_code)
        ],
    )?;
    Ok(())
}

/// What starting `row` takes: references resolved, secrets opened.
pub(crate) fn launch_of(
    conn: &Connection,
    vault: &Vault,
    data_dir: &std::path::Path,
    row: &Row,
    lookup: &dyn Fn(&str) -> Option<String>,
    start_timeout: std::time::Duration,
) -> Result<(Launch, Vec<Zeroizing<String>>)> {
    let kind = if row.transport == "http" {
        "header"
    } else {
        "env"
    };
    // Every secret value and every value a reference brings in: what an
    // error message or the program's standard error must never show.
    let mut hidden: Vec<Zeroizing<String>> = Vec::new();
    for raw in row
        .config
        .vars
        .iter()
        .filter_map(|v| v.value.as_deref())
        .chain(std::iter::once(row.config.url.as_str()))
        .chain(std::iter::once(row.config.command.as_str()))
        .chain(row.config.args.iter().map(String::as_str))
    {
        for name in refs::names(raw) {
            if let Some(value) = lookup(&name) {
                hidden.push(Zeroizing::new(value));
            }
        }
    }
    let mut vars = Vec::new();
    for var in &row.config.vars {
        let value = match &var.value {
            Some(value) => Zeroizing::new(refs::resolve(value, lookup)?),
            None => {
                let cipher: Vec<u8> = conn
                    .query_row(
                        "SELECT cipher FROM mcp_server_secrets WHERE server_id = ?1 AND kind = ?2 AND name = ?3",
                        params![row.id, kind, var.name],
                        |r| r.get(0),
                    )
                    .optional()?
                    .ok_or_else(|| AppError::precondition(format!("the secret '{}' of MCP server '{}' is missing: set it again", var.name, row.name)))?;
                let clear =
                    vault.open_envelope(&secret_context(&row.id, kind, &var.name), &cipher)?;
                let text = String::from_utf8(clear.to_vec())
                    .map_err(|_| AppError::internal("a sealed MCP secret is not text"))?;
                // A sealed value is used as written: `${…}` in a password
                // is part of the password, not a reference.
                hidden.push(Zeroizing::new(text.clone()));
                Zeroizing::new(text)
            }
        };
        vars.push((var.name.clone(), value));
    }
    let transport = if row.transport == "http" {
        LaunchTransport::Http {
            url: refs::resolve(&row.config.url, lookup)?,
            headers: vars,
        }
    } else {
        let cwd = match &row.config.cwd {
            Some(dir) => {
                let dir = std::path::PathBuf::from(refs::resolve(dir, lookup)?);
                if !dir.is_absolute() {
                    return Err(AppError::precondition(format!(
                        "the working folder of MCP server '{}' is not an absolute path once its references are resolved: {}",
                        row.name,
                        dir.display()
                    )));
                }
                dir
            }
            None => {
                let dir = data_dir.join("mcp").join(&row.id);
                std::fs::create_dir_all(&dir).map_err(|e| {
                    AppError::internal(format!("cannot create the folder {}: {e}", dir.display()))
                })?;
                dir
            }
        };
        LaunchTransport::Stdio {
            command: refs::resolve(&row.config.command, lookup)?,
            args: row
                .config
                .args
                .iter()
                .map(|a| refs::resolve(a, lookup))
                .collect::<Result<_>>()?,
            env: vars,
            cwd,
        }
    };
    Ok((
        Launch {
            server_id: row.id.clone(),
            transport,
            start_timeout,
        },
        hidden,
    ))
}

/// `text` with every hidden value replaced by `[secret]`.
pub(crate) fn redact(text: &str, hidden: &[Zeroizing<String>]) -> String {
    let mut out = text.to_owned();
    for value in hidden.iter().filter(|v| v.len() >= 4) {
        out = out.replace(value.as_str(), "[secret]");
    }
    out
}
