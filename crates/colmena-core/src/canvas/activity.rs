//! The activity log (SPEC C8): append-only, one line per operation on a
//! canvas — which client asked, the operation's dotted name, a readable
//! detail. It feeds the Console's "now" feed: what was this canvas doing?

use chrono::{DateTime, Utc};
use rusqlite::{Connection, params};
use serde::{Deserialize, Serialize};

use crate::caller::Caller;
use crate::ctx::Ctx;
use crate::error::{AppError, Result};

/// Who asked, as the seed names clients (`ui`, `claude-code`, …; MCP
/// clients by their declared name), plus the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "kebab-case")]
pub enum Client {
    Ui,
    Cli,
    /// The REST API with a bearer token.
    Http,
    /// An agent run (a woken role's tools).
    Agent,
    ClaudeCode,
    Cursor,
    ClaudeDesktop,
    Cline,
    OtherMcp,
}

impl Client {
    pub fn as_str(self) -> &'static str {
        match self {
            Client::Ui => "ui",
            Client::Cli => "cli",
            Client::Http => "http",
            Client::Agent => "agent",
            Client::ClaudeCode => "claude-code",
            Client::Cursor => "cursor",
            Client::ClaudeDesktop => "claude-desktop",
            Client::Cline => "cline",
            Client::OtherMcp => "other-mcp",
        }
    }

    /// The client an MCP peer is, from the name it declared.
    pub fn from_mcp_name(name: &str) -> Client {
        let name = name.to_ascii_lowercase();
        if name.contains("claude-code") || name.contains("claude code") {
            Client::ClaudeCode
        } else if name.contains("cursor") {
            Client::Cursor
        } else if name.contains("claude") {
            Client::ClaudeDesktop
        } else if name.contains("cline") {
            Client::Cline
        } else {
            Client::OtherMcp
        }
    }

    pub(crate) fn parse(text: &str) -> Client {
        match text {
            "ui" => Client::Ui,
            "cli" => Client::Cli,
            "http" => Client::Http,
            "agent" => Client::Agent,
            "claude-code" => Client::ClaudeCode,
            "cursor" => Client::Cursor,
            "claude-desktop" => Client::ClaudeDesktop,
            "cline" => Client::Cline,
            _ => Client::OtherMcp,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Activity {
    pub seq: i64,
    /// None once the canvas was deleted.
    pub canvas_id: Option<String>,
    pub client: Client,
    /// Dotted, like `session.add_variant`.
    pub tool: String,
    pub detail: String,
    pub created_at: DateTime<Utc>,
}

/// Appends one line, in the transaction of the change it describes.
pub(crate) fn record(
    conn: &Connection,
    actor: &Caller,
    canvas: Option<&str>,
    tool: &str,
    detail: &str,
) -> Result<()> {
    let detail: String = detail.chars().take(300).collect();
    conn.execute(
        "INSERT INTO canvas_activity (user_id, canvas_id, client, tool, detail, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![
            actor.user,
            canvas,
            actor.client.as_str(),
            tool,
            detail,
            Utc::now()
        ],
    )?;
    Ok(())
}

/// The latest activity of the user's canvases, newest first (`limit`
/// 1–100, default 20), optionally of one canvas.
pub async fn recent(
    ctx: &Ctx,
    actor: &Caller,
    canvas: Option<String>,
    limit: Option<u32>,
) -> Result<Vec<Activity>> {
    let limit = limit.unwrap_or(20);
    if !(1..=100).contains(&limit) {
        return Err(AppError::invalid_field(
            "limit",
            "out_of_range",
            format!("limit must be 1 to 100, not {limit}"),
        ));
    }
    let user = actor.user.clone();
    ctx.store()
        .read(move |conn| {
            let mut stmt = conn.prepare(
                "SELECT seq, canvas_id, client, tool, detail, created_at FROM canvas_activity
                 WHERE user_id = ?1 AND (?2 IS NULL OR canvas_id = ?2)
                 ORDER BY seq DESC LIMIT ?3",
            )?;
            let rows = stmt.query_map(params![user, canvas, limit], |r| {
                Ok(Activity {
                    seq: r.get(0)?,
                    canvas_id: r.get(1)?,
                    client: Client::parse(&r.get::<_, String>(2)?),
                    tool: r.get(3)?,
                    detail: r.get(4)?,
                    created_at: r.get(5)?,
                })
            })?;
            Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
        })
        .await
}
