//! Agents, minimal for now: enough for models to know who uses them (H20,
//! H21). The catalog issue adds tools, skills and MCP servers.
//!
//! An agent's id is the slug of its name (H2); two agents cannot share it.

use chrono::{DateTime, Utc};
use rusqlite::{Connection, OptionalExtension, Row, params};
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::ctx::{Change, Ctx};
use crate::error::{AppError, Result};
use crate::ids::{AgentId, ModelId, slug_for};
use crate::models;
use crate::validate::{self, FieldErrors};

const MAX_NAME_CHARS: usize = 80;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Agent {
    pub id: AgentId,
    pub name: String,
    pub description: String,
    pub system_prompt: String,
    pub model_id: Option<ModelId>,
    pub enabled: bool,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct NewAgent {
    pub name: String,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub system_prompt: String,
    #[serde(default)]
    pub model_id: Option<ModelId>,
}

const SELECT: &str = "SELECT id, name, description, system_prompt, model_id, enabled,
        created_at, updated_at FROM agents";

fn from_row(row: &Row<'_>) -> rusqlite::Result<Agent> {
    Ok(Agent {
        id: row.get("id")?,
        name: row.get("name")?,
        description: row.get("description")?,
        system_prompt: row.get("system_prompt")?,
        model_id: row.get("model_id")?,
        enabled: row.get("enabled")?,
        created_at: row.get("created_at")?,
        updated_at: row.get("updated_at")?,
    })
}

fn find(conn: &Connection, id: &AgentId) -> Result<Option<Agent>> {
    Ok(conn
        .query_row(&format!("{SELECT} WHERE id = ?1"), [id], from_row)
        .optional()?)
}

fn require(conn: &Connection, id: &AgentId) -> Result<Agent> {
    find(conn, id)?.ok_or_else(|| AppError::not_found("agent", id.as_str()))
}

fn require_model(conn: &Connection, id: &ModelId) -> Result<()> {
    models::find(conn, id)?.map(|_| ()).ok_or_else(|| {
        AppError::not_found("model", id.as_str())
            .with_details(json!({ "field": "modelId", "reason": "unknown_model" }))
    })
}

pub async fn list(ctx: &Ctx) -> Result<Vec<Agent>> {
    ctx.store()
        .read(|conn| {
            let mut stmt = conn.prepare(&format!("{SELECT} ORDER BY name COLLATE NOCASE"))?;
            let rows = stmt.query_map([], from_row)?;
            Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
        })
        .await
}

pub async fn get(ctx: &Ctx, id: &AgentId) -> Result<Agent> {
    let id = id.clone();
    ctx.store().read(move |conn| require(conn, &id)).await
}

pub async fn create(ctx: &Ctx, input: NewAgent) -> Result<Agent> {
    let mut errors = FieldErrors::new();
    let name = errors.check(validate::name("name", &input.name, MAX_NAME_CHARS));
    let id = name
        .as_deref()
        .and_then(|n| errors.check(slug_for("name", n)))
        .map(AgentId);
    errors.finish()?;
    let (Some(name), Some(id)) = (name, id) else {
        return Err(AppError::internal("validated agent input is incomplete"));
    };
    let agent = ctx
        .store()
        .write(move |tx| {
            if find(tx, &id)?.is_some() {
                return Err(AppError::conflicting_field(
                    "name",
                    "duplicate_id",
                    format!("an agent with the id '{id}' already exists"),
                ));
            }
            if let Some(model) = &input.model_id {
                require_model(tx, model)?;
            }
            let now = Utc::now();
            tx.execute(
                "INSERT INTO agents (id, name, description, system_prompt, model_id, enabled,
                                     created_at, updated_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, 1, ?6, ?6)",
                params![
                    id,
                    name,
                    input.description,
                    input.system_prompt,
                    input.model_id,
                    now
                ],
            )?;
            require(tx, &id)
        })
        .await?;
    ctx.changed(Change::Agents);
    Ok(agent)
}

/// Points an agent at another model, or at none.
pub async fn set_model(ctx: &Ctx, id: &AgentId, model: Option<ModelId>) -> Result<Agent> {
    let id = id.clone();
    let agent = ctx
        .store()
        .write(move |tx| {
            require(tx, &id)?;
            if let Some(model) = &model {
                require_model(tx, model)?;
            }
            tx.execute(
                "UPDATE agents SET model_id = ?2, updated_at = ?3 WHERE id = ?1",
                params![id, model, Utc::now()],
            )?;
            require(tx, &id)
        })
        .await?;
    ctx.changed(Change::Agents);
    Ok(agent)
}

pub async fn delete(ctx: &Ctx, id: &AgentId) -> Result<()> {
    let id = id.clone();
    ctx.store()
        .write(move |tx| {
            require(tx, &id)?;
            tx.execute("DELETE FROM agents WHERE id = ?1", [&id])?;
            Ok(())
        })
        .await?;
    ctx.changed(Change::Agents);
    Ok(())
}
