//! Selective seeding (SPEC H31–H35): which catalog specialists a hive has,
//! and keeping the tools and skills they need active.
//!
//! - At every start [`reconcile`] re-seeds tool and bundled-skill rows from
//!   code (keeping `active`) and makes sure the 8 catalog agent rows exist —
//!   disabled when new. Every row exists even when off, so activating later
//!   needs no re-seed (H32).
//! - The first [`ensure_db`] applies the user's choice (all, none, or a
//!   list); later calls change nothing the user decided (H33): the choice
//!   governs what is created, never what is kept.
//! - Seeding and enabling work on the union of what the chosen agents need,
//!   globs expanded, plus the minimal tools (H34); activating never
//!   deactivates anything. Disabling a specialist deactivates only what no
//!   other enabled agent still needs.

pub mod personas;
pub mod sample;
pub mod topic;

use std::collections::BTreeSet;

use rusqlite::{Connection, Transaction, params};
use serde::{Deserialize, Serialize};

use crate::agents::{self, Agent, NewAgent};
use crate::ctx::{Change, Ctx};
use crate::error::{AppError, Result};
use crate::ids::AgentId;
use crate::search::{self, SearchDoc};
use crate::skills;
use crate::store::meta;
use crate::tools;
use crate::tools::builtin::{MINIMAL_TOOLS, ToolDef, is_minimal};

pub use personas::{PERSONAS, Persona};

const META_SETUP_DONE: &str = "setup_completed_at";

/// Which specialists to install.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Specialists {
    All,
    None,
    Only(Vec<String>),
}

impl Specialists {
    /// `all`, `none`, or comma-separated ids.
    pub fn parse(text: &str) -> Specialists {
        match text.trim() {
            "all" => Specialists::All,
            "none" | "" => Specialists::None,
            list => Specialists::Only(
                list.split(',')
                    .map(|s| s.trim().to_owned())
                    .filter(|s| !s.is_empty())
                    .collect(),
            ),
        }
    }

    fn ids(&self) -> Vec<String> {
        match self {
            Specialists::All => personas::ids(),
            Specialists::None => Vec::new(),
            Specialists::Only(ids) => ids.clone(),
        }
    }
}

/// A catalog specialist as offered in the UI.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct CatalogPersona {
    pub id: String,
    pub name: String,
    pub description: String,
    pub tool_patterns: Vec<String>,
    /// The tools the patterns expand to.
    pub tools: Vec<String>,
    pub skills: Vec<String>,
    pub enabled: bool,
    /// Some of its tools run programs (`cli_exec`, scheduled jobs): the first
    /// run does not offer it checked, so nobody installs an agent that runs
    /// commands without choosing to.
    pub runs_programs: bool,
    /// Its tool patterns that name no tool here yet (`mcp__playwright__*`
    /// before the Playwright server is added): it cannot do its job until
    /// they are installed, so the first run does not offer it checked.
    pub missing: Vec<String>,
}

/// What seeding a set of specialists installs (a dry run, H35).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct SeedPlan {
    pub agents: Vec<String>,
    pub tools: Vec<String>,
    pub skills: Vec<String>,
}

/// What is still missing for a set of agents to work (H35): only what is
/// not active yet; members that are not catalog specialists are listed apart.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ActivationPlan {
    pub agents: Vec<String>,
    pub tools: Vec<String>,
    pub skills: Vec<String>,
    pub non_catalog: Vec<String>,
}

impl ActivationPlan {
    pub fn is_empty(&self) -> bool {
        self.agents.is_empty() && self.tools.is_empty() && self.skills.is_empty()
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct SetupStatus {
    /// The first-run choice was made.
    pub completed: bool,
    pub personas: Vec<CatalogPersona>,
    pub active_tools: u32,
    pub active_skills: u32,
}

fn persona_agent(persona: &Persona) -> NewAgent {
    NewAgent {
        name: persona.name.to_owned(),
        description: persona.description.to_owned(),
        system_prompt: persona.system_prompt.to_owned(),
        tools: persona.tools.iter().map(|t| (*t).to_owned()).collect(),
        skills: persona.skills.iter().map(|s| (*s).to_owned()).collect(),
        enabled: Some(false),
        ..Default::default()
    }
}

/// Re-seeds code-owned rows and makes sure every catalog agent exists.
/// Runs at every start, inside one transaction, with the built-in tools
/// the code has (`builtins`). Returns the documents to re-index and the
/// tool ids that no longer exist.
pub(crate) fn reconcile(
    tx: &Transaction<'_>,
    builtins: &[ToolDef],
) -> Result<(Vec<SearchDoc>, Vec<String>)> {
    let (mut docs, removed) = tools::reseed(tx, builtins)?;
    docs.extend(skills::reseed(tx)?);
    docs.extend(crate::web_search::sync_tool_in(tx)?);
    // Endpoint tools are re-armed from their endpoints (SPEC H29).
    let (armed, orphans) = crate::endpoints::rearm(tx)?;
    docs.extend(armed);
    for persona in &PERSONAS {
        if agents::find(tx, &AgentId::from(persona.id))?.is_none() {
            insert_persona(tx, persona)?;
        }
    }
    retire_old_personas(tx)?;
    let mut removed = removed;
    removed.extend(orphans);
    Ok((docs, removed))
}

/// Inserts a catalog agent. A pattern that matches no tool yet (an MCP
/// server's, before the server is added) is kept all the same: the agent
/// gets those tools the moment they exist.
fn insert_persona(tx: &Transaction<'_>, persona: &Persona) -> Result<()> {
    let mut agent = persona_agent(persona);
    let expansion = tools::expand_in(tx, &agent.tools)?;
    if expansion.unmatched.is_empty() {
        agents::insert(tx, &agent, Some(persona.id))?;
        return Ok(());
    }
    agent.tools.retain(|p| !expansion.unmatched.contains(p));
    agents::insert(tx, &agent, Some(persona.id))?;
    tx.execute(
        "DELETE FROM agent_tool_patterns WHERE agent_id = ?1",
        [persona.id],
    )?;
    for (position, pattern) in persona.tools.iter().enumerate() {
        tx.execute(
            "INSERT INTO agent_tool_patterns (agent_id, position, pattern) VALUES (?1, ?2, ?3)",
            params![persona.id, position as i64, pattern],
        )?;
    }
    Ok(())
}

/// Catalog agents of a store written before some capabilities were real:
/// the browser operator's `browser_*` (tools that never ran) becomes the
/// Playwright MCP server's tools, and a specialist the catalog no longer
/// has becomes an ordinary agent, which the person may keep, edit or
/// delete. The scheduler, made ordinary while the catalog had no scheduled
/// jobs, is the catalog's again when it still holds just `cron_*`.
fn retire_old_personas(tx: &Transaction<'_>) -> Result<()> {
    tx.execute(
        "UPDATE agents SET persona = 'scheduler'
         WHERE id = 'scheduler' AND persona IS NULL
           AND (SELECT group_concat(pattern) FROM agent_tool_patterns
                WHERE agent_id = 'scheduler') = 'cron_*'",
        [],
    )?;
    tx.execute(
        "UPDATE agent_tool_patterns SET pattern = ?2
         WHERE pattern = 'browser_*'
           AND agent_id IN (SELECT id FROM agents WHERE persona = ?1)",
        params!["browser_operator", personas::MCP_BROWSER],
    )?;
    let known: Vec<String> = personas::ids();
    let mut stmt = tx.prepare("SELECT id, persona FROM agents WHERE persona IS NOT NULL")?;
    let stale: Vec<String> = stmt
        .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))?
        .collect::<rusqlite::Result<Vec<_>>>()?
        .into_iter()
        .filter(|(_, persona)| !known.contains(persona))
        .map(|(id, _)| id)
        .collect();
    for id in stale {
        tx.execute(
            "UPDATE agents SET persona = NULL, updated_at = ?2 WHERE id = ?1",
            params![id, chrono::Utc::now()],
        )?;
    }
    Ok(())
}

fn setup_done(conn: &Connection) -> Result<bool> {
    Ok(meta::get(conn, META_SETUP_DONE)?.is_some())
}

fn unknown_personas(ids: &[String]) -> Result<()> {
    let unknown: Vec<&str> = ids
        .iter()
        .filter(|id| personas::find(id).is_none())
        .map(String::as_str)
        .collect();
    if unknown.is_empty() {
        return Ok(());
    }
    Err(AppError::invalid_field(
        "specialists",
        "unknown_specialists",
        format!(
            "unknown specialists: {} (the catalog has {})",
            unknown.join(", "),
            personas::ids().join(", ")
        ),
    ))
}

/// The union of what `agent_ids` need (glob-expanded), plus the minimal tools.
fn needs_of(
    conn: &Connection,
    agent_ids: &[String],
) -> Result<(BTreeSet<String>, BTreeSet<String>)> {
    let mut tools: BTreeSet<String> = MINIMAL_TOOLS.iter().map(|t| (*t).to_owned()).collect();
    let mut skill_ids = BTreeSet::new();
    for id in agent_ids {
        if let Some(agent) = agents::find(conn, &AgentId::from(id.as_str()))? {
            tools.extend(agent.tools);
            skill_ids.extend(agent.skills);
        }
    }
    // A tool with nothing to ask yet (no web search service) stays off until
    // the person sets it up; it is not "missing" for the agents that name it.
    for tool in crate::web_search::needs_setup(conn)? {
        tools.remove(tool);
    }
    Ok((tools, skill_ids))
}

fn active_set(conn: &Connection, table: &str) -> Result<BTreeSet<String>> {
    let mut stmt = conn.prepare(&format!("SELECT id FROM {table} WHERE active = 1"))?;
    let rows = stmt.query_map([], |r| r.get(0))?;
    Ok(rows.collect::<rusqlite::Result<BTreeSet<String>>>()?)
}

/// What seeding `ids` installs: the specialists, and the union of their
/// tools and skills with the minimal tools (a dry run).
pub async fn plan_seed_for(ctx: &Ctx, ids: Vec<String>) -> Result<SeedPlan> {
    unknown_personas(&ids)?;
    ctx.store()
        .read(move |conn| {
            let (tools, skills) = needs_of(conn, &ids)?;
            Ok(SeedPlan {
                agents: ids,
                tools: tools.into_iter().collect(),
                skills: skills.into_iter().collect(),
            })
        })
        .await
}

/// Enables the specialists and activates the union of their needs, never
/// deactivating anything (H34, H10). Returns the index documents to refresh.
fn activate_in(tx: &Transaction<'_>, ids: &[String]) -> Result<Vec<SearchDoc>> {
    let (tools, skill_ids) = needs_of(tx, ids)?;
    let now = chrono::Utc::now();
    for id in ids {
        tx.execute(
            "UPDATE agents SET enabled = 1, updated_at = ?2 WHERE id = ?1 AND enabled = 0",
            params![id, now],
        )?;
    }
    let mut docs = Vec::new();
    for tool in &tools {
        if tx.execute(
            "UPDATE tools SET active = 1, updated_at = ?2 WHERE id = ?1 AND active = 0",
            params![tool, now],
        )? > 0
            && let Some(row) = tools::find(tx, tool)?
        {
            docs.push(tools::doc(&row));
        }
    }
    for skill in &skill_ids {
        if tx.execute(
            "UPDATE skills SET active = 1, updated_at = ?2 WHERE id = ?1 AND active = 0",
            params![skill, now],
        )? > 0
            && let Some(row) = skills::find(tx, skill)?
        {
            docs.push(skills::doc(&row));
        }
    }
    Ok(docs)
}

async fn activate(ctx: &Ctx, ids: Vec<String>, complete_setup: bool) -> Result<SetupStatus> {
    unknown_personas(&ids)?;
    let (docs, generation) = ctx
        .store()
        .write(move |tx| {
            let docs = activate_in(tx, &ids)?;
            if complete_setup && !setup_done(tx)? {
                meta::set(tx, META_SETUP_DONE, &chrono::Utc::now().to_rfc3339())?;
            }
            let generation = search::bump_generation(tx)?;
            Ok((docs, generation))
        })
        .await?;
    ctx.index(docs, vec![], generation).await;
    ctx.changed(Change::Agents);
    ctx.changed(Change::Tools);
    ctx.changed(Change::Skills);
    status(ctx).await
}

/// Installs these specialists (additive) and marks the first run done.
pub async fn apply_seed_plan(ctx: &Ctx, ids: Vec<String>) -> Result<SetupStatus> {
    activate(ctx, ids, true).await
}

/// The first-run choice (H32): applied once; afterwards a no-op (H33).
pub async fn ensure_db(ctx: &Ctx, specialists: Specialists) -> Result<SetupStatus> {
    if ctx.store().read(setup_done).await? {
        return status(ctx).await;
    }
    activate(ctx, specialists.ids(), true).await
}

pub async fn enable_catalog_agents(ctx: &Ctx, ids: Vec<String>) -> Result<SetupStatus> {
    activate(ctx, ids, false).await
}

pub async fn enable_catalog_agent(ctx: &Ctx, id: &str) -> Result<SetupStatus> {
    activate(ctx, vec![id.to_owned()], false).await
}

/// Disables a specialist and deactivates what it alone needed: a tool or
/// skill another enabled agent uses, or a minimal tool, stays active (H34).
pub async fn disable_catalog_agent(ctx: &Ctx, id: &str) -> Result<SetupStatus> {
    unknown_personas(&[id.to_owned()])?;
    let id = id.to_owned();
    let (docs, generation) = ctx
        .store()
        .write(move |tx| {
            let Some(agent) = agents::find(tx, &AgentId::from(id.as_str()))? else {
                return Err(AppError::not_found("agent", &id));
            };
            let now = chrono::Utc::now();
            tx.execute(
                "UPDATE agents SET enabled = 0, updated_at = ?2 WHERE id = ?1",
                params![id, now],
            )?;
            let still_enabled: Vec<String> = agents::list_in(tx)?
                .into_iter()
                .filter(|a| a.enabled)
                .map(|a| a.id.0)
                .collect();
            let (kept_tools, kept_skills) = needs_of(tx, &still_enabled)?;
            let mut docs = Vec::new();
            for tool in agent
                .tools
                .iter()
                .filter(|t| !kept_tools.contains(*t) && !is_minimal(t))
            {
                if tx.execute(
                    "UPDATE tools SET active = 0, updated_at = ?2 WHERE id = ?1 AND active = 1",
                    params![tool, now],
                )? > 0
                    && let Some(row) = tools::find(tx, tool)?
                {
                    docs.push(tools::doc(&row));
                }
            }
            for skill in agent.skills.iter().filter(|s| !kept_skills.contains(*s)) {
                if tx.execute(
                    "UPDATE skills SET active = 0, updated_at = ?2 WHERE id = ?1 AND active = 1",
                    params![skill, now],
                )? > 0
                    && let Some(row) = skills::find(tx, skill)?
                {
                    docs.push(skills::doc(&row));
                }
            }
            Ok((docs, search::bump_generation(tx)?))
        })
        .await?;
    ctx.index(docs, vec![], generation).await;
    ctx.changed(Change::Agents);
    ctx.changed(Change::Tools);
    ctx.changed(Change::Skills);
    status(ctx).await
}

/// Only what is missing for `ids` to work (H35).
pub async fn plan_activation_for(ctx: &Ctx, ids: Vec<String>) -> Result<ActivationPlan> {
    ctx.store()
        .read(move |conn| plan_activation_in(conn, &ids))
        .await
}

pub(crate) fn plan_activation_in(conn: &Connection, ids: &[String]) -> Result<ActivationPlan> {
    let mut plan = ActivationPlan::default();
    let mut catalog = Vec::new();
    let mut unknown = Vec::new();
    for id in ids {
        match agents::find(conn, &AgentId::from(id.as_str()))? {
            Some(Agent {
                persona: Some(_),
                enabled,
                ..
            }) => {
                if !enabled {
                    plan.agents.push(id.clone());
                }
                catalog.push(id.clone());
            }
            Some(_) => plan.non_catalog.push(id.clone()),
            None => unknown.push(id.clone()),
        }
    }
    if !unknown.is_empty() {
        let mut errors = crate::validate::FieldErrors::new();
        errors.add_with(
            "agents",
            "unknown_agents",
            format!("unknown agents: {}", unknown.join(", ")),
            serde_json::json!({ "unknownAgents": unknown }),
        );
        errors.finish()?;
    }
    let (tools, skills) = needs_of(conn, &catalog)?;
    let active_tools = active_set(conn, "tools")?;
    let active_skills = active_set(conn, "skills")?;
    plan.tools = tools
        .into_iter()
        .filter(|t| !active_tools.contains(t))
        .collect();
    plan.skills = skills
        .into_iter()
        .filter(|s| !active_skills.contains(s))
        .collect();
    plan.agents.sort();
    plan.agents.dedup();
    plan.non_catalog.sort();
    plan.non_catalog.dedup();
    Ok(plan)
}

pub async fn list_catalog_personas(ctx: &Ctx) -> Result<Vec<CatalogPersona>> {
    ctx.store().read(personas_in).await
}

fn personas_in(conn: &Connection) -> Result<Vec<CatalogPersona>> {
    let known: Vec<String> = conn
        .prepare("SELECT id FROM tools")?
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    let mut out = Vec::new();
    for persona in &PERSONAS {
        let agent = agents::find(conn, &AgentId::from(persona.id))?;
        let tools = agent.as_ref().map(|a| a.tools.clone()).unwrap_or_default();
        out.push(CatalogPersona {
            runs_programs: tools
                .iter()
                .any(|t| crate::permissions::risk_of(t) == crate::risk::Risk::Run),
            id: persona.id.to_owned(),
            name: persona.name.to_owned(),
            description: persona.description.to_owned(),
            tool_patterns: persona.tools.iter().map(|t| (*t).to_owned()).collect(),
            missing: persona
                .tools
                .iter()
                .filter(|pattern| !known.iter().any(|t| crate::glob::matches(pattern, t)))
                .map(|t| (*t).to_owned())
                .collect(),
            tools,
            skills: persona.skills.iter().map(|s| (*s).to_owned()).collect(),
            enabled: agent.is_some_and(|a| a.enabled),
        });
    }
    Ok(out)
}

pub async fn list_enabled_catalog_agents(ctx: &Ctx) -> Result<Vec<String>> {
    Ok(list_catalog_personas(ctx)
        .await?
        .into_iter()
        .filter(|p| p.enabled)
        .map(|p| p.id)
        .collect())
}

pub async fn status(ctx: &Ctx) -> Result<SetupStatus> {
    ctx.store()
        .read(|conn| {
            let count = |sql: &str| -> Result<u32> { Ok(conn.query_row(sql, [], |r| r.get(0))?) };
            Ok(SetupStatus {
                completed: setup_done(conn)?,
                personas: personas_in(conn)?,
                active_tools: count("SELECT count(*) FROM tools WHERE active = 1")?,
                active_skills: count("SELECT count(*) FROM skills WHERE active = 1")?,
            })
        })
        .await
}
