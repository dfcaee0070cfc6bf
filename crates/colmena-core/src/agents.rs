//! Agents (SPEC H1–H5): a prompt, a model, and what the agent is given —
//! tool patterns, skills and MCP servers.
//!
//! Rules kept here:
//! - the id is the slug of the name, accents folded (H2); a taken id is a
//!   conflict, never a silent numeric suffix;
//! - references are validated on write (H3): tool patterns are globs
//!   expanded against the tool catalog and one that matches nothing is an
//!   error, as are unknown skills and MCP servers — all named in the message;
//! - deleting or disabling an agent never touches tools or skills (H4);
//! - skills declared with the agent become skill rows, idempotently (H5).
//!
//! Patterns are stored as written and expanded when read, so a tool added
//! later that matches `web_*` is given to the agent too.

use std::collections::BTreeSet;

use chrono::{DateTime, Utc};
use rusqlite::{Connection, OptionalExtension, Row, Transaction, params};
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::ctx::{Change, Ctx};
use crate::error::{AppError, ErrorCode, Result};
use crate::glob;
use crate::ids::{AgentId, ModelId, slug_for};
use crate::models;
use crate::permissions::{self, Permissions};
use crate::search::{self, SearchDoc};
use crate::skills::{self, SkillDraft};
use crate::tools;
use crate::validate::{self, FieldErrors};

const MAX_NAME_CHARS: usize = 80;
const MAX_PROMPT_CHARS: usize = 100_000;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Agent {
    pub id: AgentId,
    pub name: String,
    pub description: String,
    pub system_prompt: String,
    pub model_id: Option<ModelId>,
    pub enabled: bool,
    /// The catalog persona this agent was seeded from, if any.
    pub persona: Option<String>,
    /// Tool patterns as written (`web_*`, `fs_read`).
    pub tool_patterns: Vec<String>,
    /// What the patterns expand to now, sorted.
    pub tools: Vec<String>,
    pub skills: Vec<String>,
    pub mcp_servers: Vec<String>,
    /// The agents it may hand work to with `delegate_task` outside a swarm
    /// (in a swarm it is the members); none by default.
    pub delegates: Vec<String>,
    /// What the permission gate does with each risk class of its tools.
    pub permissions: Permissions,
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
    /// Tool patterns (globs over tool names).
    #[serde(default)]
    pub tools: Vec<String>,
    /// Existing skills, by name.
    #[serde(default)]
    pub skills: Vec<String>,
    /// Skills written with the agent: created or updated, then given to it.
    #[serde(default)]
    pub declared_skills: Vec<SkillDraft>,
    #[serde(default)]
    pub mcp_servers: Vec<String>,
    /// The agents it may hand work to outside a swarm (ids).
    #[serde(default)]
    pub delegates: Vec<String>,
    /// The permission gate's rules; default: read allowed, the rest asks.
    #[serde(default)]
    pub permissions: Option<Permissions>,
    /// Defaults to enabled.
    #[serde(default)]
    pub enabled: Option<bool>,
}

/// What [`update`] changes; absent fields stay as they are.
#[derive(Debug, Clone, Default, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct AgentUpdate {
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub system_prompt: Option<String>,
    #[serde(default)]
    pub model_id: Option<ModelId>,
    /// Removes the model (the agent then uses the workspace default).
    #[serde(default)]
    pub clear_model: bool,
    #[serde(default)]
    pub tools: Option<Vec<String>>,
    #[serde(default)]
    pub skills: Option<Vec<String>>,
    #[serde(default)]
    pub mcp_servers: Option<Vec<String>>,
    #[serde(default)]
    pub delegates: Option<Vec<String>>,
    #[serde(default)]
    pub permissions: Option<Permissions>,
}

const SELECT: &str = "SELECT id, name, description, system_prompt, model_id, enabled, persona,
        created_at, updated_at FROM agents";

struct AgentRow {
    id: AgentId,
    name: String,
    description: String,
    system_prompt: String,
    model_id: Option<ModelId>,
    enabled: bool,
    persona: Option<String>,
    created_at: DateTime<Utc>,
    updated_at: DateTime<Utc>,
}

fn from_row(row: &Row<'_>) -> rusqlite::Result<AgentRow> {
    Ok(AgentRow {
        id: row.get("id")?,
        name: row.get("name")?,
        description: row.get("description")?,
        system_prompt: row.get("system_prompt")?,
        model_id: row.get("model_id")?,
        enabled: row.get("enabled")?,
        persona: row.get("persona")?,
        created_at: row.get("created_at")?,
        updated_at: row.get("updated_at")?,
    })
}

fn strings(conn: &Connection, sql: &str, id: &AgentId) -> Result<Vec<String>> {
    let mut stmt = conn.prepare(sql)?;
    let rows = stmt.query_map([id], |r| r.get(0))?;
    Ok(rows.collect::<rusqlite::Result<Vec<String>>>()?)
}

fn complete(conn: &Connection, row: AgentRow, tool_names: &[String]) -> Result<Agent> {
    let tool_patterns = strings(
        conn,
        "SELECT pattern FROM agent_tool_patterns WHERE agent_id = ?1 ORDER BY position",
        &row.id,
    )?;
    let mut tools: BTreeSet<String> = tool_names
        .iter()
        .filter(|name| tool_patterns.iter().any(|p| glob::matches(p, name)))
        .cloned()
        .collect();
    // Every tool of an assigned MCP server (H1 `assign_mcp_servers`), as
    // long as the server is on: a server switched off has no tools rows.
    tools.extend(strings(
        conn,
        "SELECT t.id FROM tools t JOIN agent_mcp_servers a ON a.server_id = t.mcp_server_id
         JOIN mcp_servers s ON s.id = t.mcp_server_id
         WHERE a.agent_id = ?1 AND s.enabled = 1",
        &row.id,
    )?);
    Ok(Agent {
        skills: strings(
            conn,
            "SELECT skill_id FROM agent_skills WHERE agent_id = ?1 ORDER BY skill_id",
            &row.id,
        )?,
        mcp_servers: strings(
            conn,
            "SELECT server_id FROM agent_mcp_servers WHERE agent_id = ?1 ORDER BY server_id",
            &row.id,
        )?,
        delegates: strings(
            conn,
            "SELECT delegate_id FROM agent_delegates WHERE agent_id = ?1 ORDER BY delegate_id",
            &row.id,
        )?,
        tools: tools.into_iter().collect(),
        permissions: permissions::permissions_in(conn, row.id.as_str())?,
        tool_patterns,
        id: row.id,
        name: row.name,
        description: row.description,
        system_prompt: row.system_prompt,
        model_id: row.model_id,
        enabled: row.enabled,
        persona: row.persona,
        created_at: row.created_at,
        updated_at: row.updated_at,
    })
}

pub(crate) fn find(conn: &Connection, id: &AgentId) -> Result<Option<Agent>> {
    let Some(row) = conn
        .query_row(&format!("{SELECT} WHERE id = ?1"), [id], from_row)
        .optional()?
    else {
        return Ok(None);
    };
    let names = tools::all_names(conn)?;
    complete(conn, row, &names).map(Some)
}

pub(crate) fn require(conn: &Connection, id: &AgentId) -> Result<Agent> {
    find(conn, id)?.ok_or_else(|| AppError::not_found("agent", id.as_str()))
}

pub(crate) fn list_in(conn: &Connection) -> Result<Vec<Agent>> {
    let names = tools::all_names(conn)?;
    let mut stmt = conn.prepare(&format!("{SELECT} ORDER BY name COLLATE NOCASE"))?;
    let rows = stmt
        .query_map([], from_row)?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    rows.into_iter()
        .map(|row| complete(conn, row, &names))
        .collect()
}

pub async fn list(ctx: &Ctx) -> Result<Vec<Agent>> {
    ctx.store().read(list_in).await
}

pub async fn get(ctx: &Ctx, id: &AgentId) -> Result<Agent> {
    let id = id.clone();
    ctx.store().read(move |conn| require(conn, &id)).await
}

/// Trims and de-duplicates a list, keeping order.
fn clean(list: &[String]) -> Vec<String> {
    let mut seen = BTreeSet::new();
    list.iter()
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty() && seen.insert(s.clone()))
        .collect()
}

/// Checks every reference, reporting all unknown ones together (H3).
fn check_references(
    conn: &Connection,
    patterns: Option<&[String]>,
    skills: Option<&[String]>,
    servers: Option<&[String]>,
) -> Result<()> {
    let mut errors = FieldErrors::new();
    if let Some(patterns) = patterns {
        let expansion = tools::expand_in(conn, patterns)?;
        if let Some(err) = tools::expansion_error(&expansion) {
            errors.check::<()>(Err(err));
        }
    }
    if let Some(skills) = skills {
        let missing = skills::missing(conn, skills)?;
        if !missing.is_empty() {
            let message = format!("unknown skills: {}", missing.join(", "));
            errors.add_with(
                "skills",
                "unknown_skills",
                message,
                json!({ "unknownSkills": missing }),
            );
        }
    }
    if let Some(servers) = servers {
        let mut missing = Vec::new();
        for server in servers {
            let exists: Option<String> = conn
                .query_row("SELECT id FROM mcp_servers WHERE id = ?1", [server], |r| {
                    r.get(0)
                })
                .optional()?;
            if exists.is_none() {
                missing.push(server.clone());
            }
        }
        if !missing.is_empty() {
            let message = format!("unknown MCP servers: {}", missing.join(", "));
            errors.add_with(
                "mcpServers",
                "unknown_mcp_servers",
                message,
                json!({ "unknownMcpServers": missing }),
            );
        }
    }
    errors.finish()
}

fn write_patterns(tx: &Transaction<'_>, id: &AgentId, patterns: &[String]) -> Result<()> {
    tx.execute("DELETE FROM agent_tool_patterns WHERE agent_id = ?1", [id])?;
    for (position, pattern) in patterns.iter().enumerate() {
        tx.execute(
            "INSERT INTO agent_tool_patterns (agent_id, position, pattern) VALUES (?1, ?2, ?3)",
            params![id, position as i64, pattern],
        )?;
    }
    Ok(())
}

fn write_skills(tx: &Transaction<'_>, id: &AgentId, skills: &[String]) -> Result<()> {
    tx.execute("DELETE FROM agent_skills WHERE agent_id = ?1", [id])?;
    for skill in skills {
        tx.execute(
            "INSERT INTO agent_skills (agent_id, skill_id) VALUES (?1, ?2)",
            params![id, skill],
        )?;
    }
    Ok(())
}

fn write_servers(tx: &Transaction<'_>, id: &AgentId, servers: &[String]) -> Result<()> {
    tx.execute("DELETE FROM agent_mcp_servers WHERE agent_id = ?1", [id])?;
    for server in servers {
        tx.execute(
            "INSERT INTO agent_mcp_servers (agent_id, server_id) VALUES (?1, ?2)",
            params![id, server],
        )?;
    }
    Ok(())
}

/// Sets whom `id` may hand work to: existing agents other than itself.
fn write_delegates(tx: &Transaction<'_>, id: &AgentId, delegates: &[String]) -> Result<()> {
    for delegate in delegates {
        if delegate == id.as_str() {
            return Err(AppError::invalid_field(
                "delegates",
                "self_delegation",
                "an agent cannot hand work to itself",
            ));
        }
        if find(tx, &AgentId::from(delegate.as_str()))?.is_none() {
            return Err(AppError::invalid_field(
                "delegates",
                "unknown_agent",
                format!("there is no agent '{delegate}' to hand work to"),
            ));
        }
    }
    tx.execute("DELETE FROM agent_delegates WHERE agent_id = ?1", [id])?;
    for delegate in delegates {
        tx.execute(
            "INSERT INTO agent_delegates (agent_id, delegate_id) VALUES (?1, ?2)",
            params![id, delegate],
        )?;
    }
    Ok(())
}

fn require_model(conn: &Connection, id: &ModelId) -> Result<()> {
    models::find(conn, id)?.map(|_| ()).ok_or_else(|| {
        AppError::not_found("model", id.as_str())
            .with_details(json!({ "field": "modelId", "reason": "unknown_model" }))
    })
}

fn check_prompt(errors: &mut FieldErrors, prompt: &str) {
    if prompt.chars().count() > MAX_PROMPT_CHARS {
        errors.add(
            "systemPrompt",
            "too_long",
            format!("the system prompt must be at most {MAX_PROMPT_CHARS} characters"),
        );
    }
}

/// Inserts an agent inside a transaction; shared with the catalog seeding.
pub(crate) fn insert(
    tx: &Transaction<'_>,
    input: &NewAgent,
    persona: Option<&str>,
) -> Result<(Agent, Vec<SearchDoc>)> {
    let mut errors = FieldErrors::new();
    let name = errors.check(validate::name("name", &input.name, MAX_NAME_CHARS));
    let id = name
        .as_deref()
        .and_then(|n| errors.check(slug_for("name", n)))
        .map(AgentId);
    check_prompt(&mut errors, &input.system_prompt);
    errors.finish()?;
    let (Some(name), Some(id)) = (name, id) else {
        return Err(AppError::internal("validated agent input is incomplete"));
    };
    if find(tx, &id)?.is_some() {
        return Err(AppError::conflicting_field(
            "name",
            "duplicate_id",
            format!("an agent with the id '{id}' already exists"),
        ));
    }

    let declared = skills::materialize(tx, &input.declared_skills)?;
    let patterns = clean(&input.tools);
    let mut skill_ids = clean(&input.skills);
    for skill in &declared {
        if !skill_ids.contains(&skill.id) {
            skill_ids.push(skill.id.clone());
        }
    }
    let servers = clean(&input.mcp_servers);
    check_references(tx, Some(&patterns), Some(&skill_ids), Some(&servers))?;
    if let Some(model) = &input.model_id {
        require_model(tx, model)?;
    }

    let now = Utc::now();
    tx.execute(
        "INSERT INTO agents (id, name, description, system_prompt, model_id, enabled, persona, created_at, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?8)",
        params![
            id,
            name,
            input.description.trim(),
            input.system_prompt,
            input.model_id,
            input.enabled.unwrap_or(true),
            persona,
            now
        ],
    )?;
    write_patterns(tx, &id, &patterns)?;
    write_skills(tx, &id, &skill_ids)?;
    write_servers(tx, &id, &servers)?;
    write_delegates(tx, &id, &clean(&input.delegates))?;
    if let Some(rules) = &input.permissions {
        permissions::write_permissions(tx, id.as_str(), rules)?;
    }
    let docs = declared.iter().map(skills::doc).collect();
    Ok((require(tx, &id)?, docs))
}

pub async fn create(ctx: &Ctx, input: NewAgent) -> Result<Agent> {
    let has_declared = !input.declared_skills.is_empty();
    let (agent, docs, generation) = ctx
        .store()
        .write(move |tx| {
            let (agent, docs) = insert(tx, &input, None)?;
            let generation = if docs.is_empty() {
                0
            } else {
                search::bump_generation(tx)?
            };
            Ok((agent, docs, generation))
        })
        .await?;
    if has_declared {
        ctx.index(docs, vec![], generation).await;
        ctx.changed(Change::Skills);
    }
    ctx.changed(Change::Agents);
    Ok(agent)
}

/// Changes an agent; references are validated like on create.
pub async fn update(ctx: &Ctx, id: &AgentId, input: AgentUpdate) -> Result<Agent> {
    let mut errors = FieldErrors::new();
    let name = input
        .name
        .as_deref()
        .and_then(|n| errors.check(validate::name("name", n, MAX_NAME_CHARS)));
    if let Some(prompt) = &input.system_prompt {
        check_prompt(&mut errors, prompt);
    }
    errors.finish()?;
    let id = id.clone();
    let agent = ctx
        .store()
        .write(move |tx| {
            require(tx, &id)?;
            let patterns = input.tools.as_deref().map(clean);
            let skill_ids = input.skills.as_deref().map(clean);
            let servers = input.mcp_servers.as_deref().map(clean);
            check_references(tx, patterns.as_deref(), skill_ids.as_deref(), servers.as_deref())?;
            if let Some(model) = &input.model_id {
                require_model(tx, model)?;
            }
            let now = Utc::now();
            tx.execute(
                "UPDATE agents SET name = COALESCE(?2, name), description = COALESCE(?3, description),
                        system_prompt = COALESCE(?4, system_prompt), updated_at = ?5 WHERE id = ?1",
                params![id, name, input.description.as_deref().map(str::trim), input.system_prompt, now],
            )?;
            if input.clear_model {
                tx.execute("UPDATE agents SET model_id = NULL WHERE id = ?1", [&id])?;
            } else if let Some(model) = &input.model_id {
                tx.execute("UPDATE agents SET model_id = ?2 WHERE id = ?1", params![id, model])?;
            }
            if let Some(patterns) = &patterns {
                write_patterns(tx, &id, patterns)?;
            }
            if let Some(skill_ids) = &skill_ids {
                write_skills(tx, &id, skill_ids)?;
            }
            if let Some(servers) = &servers {
                write_servers(tx, &id, servers)?;
            }
            if let Some(delegates) = input.delegates.as_deref().map(clean) {
                write_delegates(tx, &id, &delegates)?;
            }
            if let Some(rules) = &input.permissions {
                permissions::write_permissions(tx, id.as_str(), rules)?;
            }
            require(tx, &id)
        })
        .await?;
    ctx.changed(Change::Agents);
    Ok(agent)
}

/// Gives an agent exactly these tool patterns (H1 `assign_tools`).
pub async fn assign_tools(ctx: &Ctx, id: &AgentId, patterns: Vec<String>) -> Result<Agent> {
    update(
        ctx,
        id,
        AgentUpdate {
            tools: Some(patterns),
            ..Default::default()
        },
    )
    .await
}

/// Gives an agent exactly these skills (H1 `assign_skills`).
pub async fn assign_skills(ctx: &Ctx, id: &AgentId, skills: Vec<String>) -> Result<Agent> {
    update(
        ctx,
        id,
        AgentUpdate {
            skills: Some(skills),
            ..Default::default()
        },
    )
    .await
}

/// Gives an agent exactly these MCP servers (H1 `assign_mcp_servers`).
pub async fn assign_mcp_servers(ctx: &Ctx, id: &AgentId, servers: Vec<String>) -> Result<Agent> {
    update(
        ctx,
        id,
        AgentUpdate {
            mcp_servers: Some(servers),
            ..Default::default()
        },
    )
    .await
}

/// Points an agent at another model, or at none.
pub async fn set_model(ctx: &Ctx, id: &AgentId, model: Option<ModelId>) -> Result<Agent> {
    let clear_model = model.is_none();
    update(
        ctx,
        id,
        AgentUpdate {
            model_id: model,
            clear_model,
            ..Default::default()
        },
    )
    .await
}

/// Enables or disables an agent. Its tools and skills are untouched (H4);
/// for catalog personas use `setup::{enable,disable}_catalog_agent`, which
/// also keeps what they need active.
pub async fn set_enabled(ctx: &Ctx, id: &AgentId, enabled: bool) -> Result<Agent> {
    let id = id.clone();
    let agent = ctx
        .store()
        .write(move |tx| {
            require(tx, &id)?;
            tx.execute(
                "UPDATE agents SET enabled = ?2, updated_at = ?3 WHERE id = ?1",
                params![id, enabled, Utc::now()],
            )?;
            require(tx, &id)
        })
        .await?;
    ctx.changed(Change::Agents);
    Ok(agent)
}

/// Deletes an agent; its tools and skills stay (H4). Catalog personas are
/// disabled rather than deleted (they are re-created at every start).
pub async fn delete(ctx: &Ctx, id: &AgentId) -> Result<()> {
    let id = id.clone();
    ctx.store()
        .write(move |tx| {
            let agent = require(tx, &id)?;
            if agent.persona.is_some() {
                return Err(AppError::new(
                    ErrorCode::Precondition,
                    format!("'{id}' is a catalog specialist: disable it instead of deleting it"),
                )
                .with_details(json!({ "reason": "catalog_agent" })));
            }
            tx.execute("DELETE FROM agents WHERE id = ?1", [&id])?;
            Ok(())
        })
        .await?;
    ctx.changed(Change::Agents);
    Ok(())
}
