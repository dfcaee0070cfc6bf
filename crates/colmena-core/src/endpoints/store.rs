//! Endpoints in the store: the row of `endpoints`, its secret headers
//! sealed in `endpoint_secrets` (the way `mcp_server_secrets` are), and the
//! view adapters get — secret headers by name only.

use chrono::{DateTime, Utc};
use rusqlite::{Connection, OptionalExtension, Transaction, params};
use zeroize::Zeroizing;

use super::config::{Checked, Definition, Endpoint, EndpointPair, HttpMethod, TOOL_PREFIX};
use crate::error::{AppError, ErrorCode, Result};
use crate::secrets::Vault;

/// A row as stored.
#[derive(Debug, Clone)]
pub(crate) struct Row {
    pub id: String,
    pub def: Definition,
    pub enabled: bool,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

const SELECT: &str = "SELECT id, name, description, method, url, query, body, headers,
    secret_headers, param_schema, enabled, timeout_seconds, created_at, updated_at FROM endpoints";

fn json_or<T: serde::de::DeserializeOwned + Default>(text: &str) -> T {
    serde_json::from_str(text).unwrap_or_default()
}

fn row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Row> {
    let method: String = r.get(3)?;
    let body: Option<String> = r.get(6)?;
    let schema: String = r.get(9)?;
    let timeout: i64 = r.get(11)?;
    Ok(Row {
        id: r.get(0)?,
        def: Definition {
            name: r.get(1)?,
            description: r.get(2)?,
            method: HttpMethod::parse(&method).unwrap_or(HttpMethod::Get),
            url: r.get(4)?,
            query: json_or::<Vec<EndpointPair>>(&r.get::<_, String>(5)?),
            body: body.and_then(|b| serde_json::from_str(&b).ok()),
            headers: json_or::<Vec<EndpointPair>>(&r.get::<_, String>(7)?),
            secret_names: json_or::<Vec<String>>(&r.get::<_, String>(8)?),
            schema: serde_json::from_str(&schema)
                .unwrap_or_else(|_| serde_json::json!({ "type": "object" })),
            timeout_seconds: u32::try_from(timeout).unwrap_or(super::config::DEFAULT_TIMEOUT_SECS),
        },
        enabled: r.get(10)?,
        created_at: r.get(12)?,
        updated_at: r.get(13)?,
    })
}

pub(crate) fn find(conn: &Connection, id: &str) -> Result<Option<Row>> {
    Ok(conn
        .query_row(&format!("{SELECT} WHERE id = ?1"), [id], row)
        .optional()?)
}

/// The endpoint `id`, also found by its tool name (`endpoint_<id>`).
pub(crate) fn require(conn: &Connection, id: &str) -> Result<Row> {
    // No id begins with the prefix (config::check), so a tool name and an
    // id never read as two endpoints: the gate's `method_in` strips the
    // prefix the same way.
    if let Some(found) = find(conn, id.strip_prefix(TOOL_PREFIX).unwrap_or(id))? {
        return Ok(found);
    }
    Err(AppError::not_found("endpoint", id))
}

pub(crate) fn all(conn: &Connection) -> Result<Vec<Row>> {
    let mut stmt = conn.prepare(&format!("{SELECT} ORDER BY name COLLATE NOCASE"))?;
    let rows = stmt.query_map([], row)?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

/// Who already has `name` or `id`, other than `except`.
pub(crate) fn taken(
    conn: &Connection,
    name: &str,
    id: &str,
    except: Option<&str>,
) -> Result<Option<String>> {
    Ok(conn
        .query_row(
            "SELECT id FROM endpoints WHERE (name = ?1 COLLATE NOCASE OR id = ?2) AND id IS NOT ?3",
            params![name, id, except],
            |r| r.get(0),
        )
        .optional()?)
}

/// Writes the definition (insert or replace) inside `tx`.
pub(crate) fn write(
    tx: &Transaction<'_>,
    checked: &Checked,
    now: DateTime<Utc>,
    create: bool,
) -> Result<()> {
    let def = &checked.def;
    let body = def.body.as_ref().map(serde_json::to_string).transpose()?;
    let values = params![
        checked.id,
        def.name,
        def.description,
        def.method.as_str(),
        def.url,
        serde_json::to_string(&def.query)?,
        body,
        serde_json::to_string(&def.headers)?,
        serde_json::to_string(&def.secret_names)?,
        serde_json::to_string(&def.schema)?,
        checked.enabled,
        def.timeout_seconds,
        now
    ];
    if create {
        tx.execute(
            "INSERT INTO endpoints (id, name, description, method, url, query, body, headers, secret_headers,
                param_schema, enabled, timeout_seconds, created_at, updated_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?13)",
            values,
        )?;
    } else {
        tx.execute(
            "UPDATE endpoints SET name = ?2, description = ?3, method = ?4, url = ?5, query = ?6, body = ?7,
                headers = ?8, secret_headers = ?9, param_schema = ?10, enabled = ?11, timeout_seconds = ?12,
                updated_at = ?13 WHERE id = ?1",
            values,
        )?;
    }
    Ok(())
}

fn secret_context(id: &str, name: &str) -> String {
    format!("endpoint:{id}:header:{}", name.to_ascii_lowercase())
}

/// Seals what is new, keeps what the input left blank, drops what is gone.
/// A secret left blank that was never stored is an error.
pub(crate) fn write_secrets(tx: &Transaction<'_>, vault: &Vault, checked: &Checked) -> Result<()> {
    let id = &checked.id;
    let stored: Vec<String> = {
        let mut stmt = tx.prepare("SELECT name FROM endpoint_secrets WHERE endpoint_id = ?1")?;
        let rows = stmt.query_map([id], |r| r.get(0))?;
        rows.collect::<rusqlite::Result<Vec<_>>>()?
    };
    for name in stored {
        if !checked.secrets.iter().any(|(n, _)| *n == name) {
            tx.execute(
                "DELETE FROM endpoint_secrets WHERE endpoint_id = ?1 AND name = ?2",
                params![id, name],
            )?;
        }
    }
    for (name, value) in &checked.secrets {
        match value {
            Some(clear) => {
                let cipher = vault
                    .seal(&secret_context(id, name), clear.as_bytes())
                    .map_err(|e| match e.code {
                        ErrorCode::Precondition => AppError::new(
                            ErrorCode::Precondition,
                            format!("the secret header '{name}' cannot be stored: {}", e.message),
                        ),
                        _ => e,
                    })?;
                tx.execute(
                    "INSERT INTO endpoint_secrets (endpoint_id, name, cipher) VALUES (?1, ?2, ?3)
                     ON CONFLICT (endpoint_id, name) DO UPDATE SET cipher = excluded.cipher",
                    params![id, name, cipher],
                )?;
            }
            None => {
                let present: bool = tx.query_row(
                    "SELECT EXISTS (SELECT 1 FROM endpoint_secrets WHERE endpoint_id = ?1 AND name = ?2)",
                    params![id, name],
                    |r| r.get(0),
                )?;
                if !present {
                    return Err(AppError::invalid_field(
                        "secretHeaders",
                        "secret_required",
                        format!("the secret header '{name}' needs a value"),
                    ));
                }
            }
        }
    }
    Ok(())
}

/// The secret headers of `row`, opened: only for the moment a request is
/// sent. The values are wiped from memory when dropped.
pub(crate) fn open_secrets(
    conn: &Connection,
    vault: &Vault,
    row: &Row,
) -> Result<Vec<(String, Zeroizing<String>)>> {
    let mut out = Vec::new();
    for name in &row.def.secret_names {
        let cipher: Vec<u8> = conn
            .query_row(
                "SELECT cipher FROM endpoint_secrets WHERE endpoint_id = ?1 AND name = ?2",
                params![row.id, name],
                |r| r.get(0),
            )
            .optional()?
            .ok_or_else(|| {
                AppError::precondition(format!(
                    "the secret header '{name}' of endpoint '{}' is missing: set it again",
                    row.def.name
                ))
            })?;
        let clear = vault.open_envelope(&secret_context(&row.id, name), &cipher)?;
        let text = String::from_utf8(clear.to_vec())
            .map_err(|_| AppError::internal("a sealed header value is not text"))?;
        out.push((name.clone(), Zeroizing::new(text)));
    }
    Ok(out)
}

/// What adapters see: secret headers by name only (SPEC H28).
pub(crate) fn view(row: Row) -> Endpoint {
    Endpoint {
        tool: format!("{TOOL_PREFIX}{}", row.id),
        id: row.id,
        name: row.def.name,
        description: row.def.description,
        method: row.def.method,
        url: row.def.url,
        query: row.def.query,
        body: row.def.body,
        headers: row.def.headers,
        secret_header_names: row.def.secret_names,
        param_schema: row.def.schema,
        enabled: row.enabled,
        timeout_seconds: row.def.timeout_seconds,
        created_at: row.created_at,
        updated_at: row.updated_at,
    }
}
