//! Saved swarms (SPEC H6–H10): a team of agents and how they work together —
//! one after another, all at once, or under an orchestrator.
//!
//! Rules kept here:
//! - validation happens on save, not on run (H7): a hierarchical swarm
//!   without an orchestrator, or a member that is not an agent, is refused;
//! - a disabled swarm does not run (H8, in [`run`]);
//! - saving never switches anything on by itself (H10): what the members
//!   still need comes back as `pending_activation`; with `activate_members`
//!   it is activated as a union with what is already on. Update goes through
//!   the same path.

pub mod run;

use std::collections::BTreeSet;

use chrono::{DateTime, Utc};
use rusqlite::{Connection, OptionalExtension, Row, Transaction, params};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::ctx::{Change, Ctx};
use crate::error::{AppError, Result};
use crate::ids::{AgentId, slug_for};
use crate::setup::{self, ActivationPlan};
use crate::validate::{self, FieldErrors};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum Strategy {
    /// Each member's output is the next member's input.
    Sequential,
    /// Every member works on the input at once; their outputs are joined.
    Parallel,
    /// An orchestrator delegates to the members and answers.
    Hierarchical,
}

impl Strategy {
    pub fn as_str(self) -> &'static str {
        match self {
            Strategy::Sequential => "sequential",
            Strategy::Parallel => "parallel",
            Strategy::Hierarchical => "hierarchical",
        }
    }

    fn parse(text: &str) -> Strategy {
        match text {
            "parallel" => Strategy::Parallel,
            "hierarchical" => Strategy::Hierarchical,
            _ => Strategy::Sequential,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum MemberRole {
    Member,
    Orchestrator,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct SwarmMember {
    pub agent_id: AgentId,
    pub order_index: u32,
    pub role: MemberRole,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Swarm {
    pub id: String,
    pub name: String,
    pub description: String,
    pub strategy: Strategy,
    pub enabled: bool,
    /// Members in order.
    pub members: Vec<SwarmMember>,
    /// Where the builder draws the nodes.
    pub layout: Value,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct MemberInput {
    pub agent_id: AgentId,
    /// Position; by default the order of the list.
    #[serde(default)]
    pub order_index: Option<u32>,
    #[serde(default)]
    pub role: Option<MemberRole>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct NewSwarm {
    pub name: String,
    #[serde(default)]
    pub description: String,
    pub strategy: Option<Strategy>,
    pub members: Vec<MemberInput>,
    #[serde(default)]
    pub layout: Option<Value>,
    /// Switch on what the members need (as a union), instead of reporting it.
    #[serde(default)]
    pub activate_members: bool,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct SwarmUpdate {
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub strategy: Option<Strategy>,
    #[serde(default)]
    pub members: Option<Vec<MemberInput>>,
    #[serde(default)]
    pub layout: Option<Value>,
    #[serde(default)]
    pub activate_members: bool,
}

/// A saved swarm and what its members still need to work (H10).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct SwarmSaved {
    pub swarm: Swarm,
    pub pending_activation: ActivationPlan,
}

const SELECT: &str =
    "SELECT id, name, description, strategy, enabled, layout, created_at, updated_at FROM swarms";

fn from_row(r: &Row<'_>) -> rusqlite::Result<Swarm> {
    let strategy: String = r.get(3)?;
    let layout: String = r.get(5)?;
    Ok(Swarm {
        id: r.get(0)?,
        name: r.get(1)?,
        description: r.get(2)?,
        strategy: Strategy::parse(&strategy),
        enabled: r.get(4)?,
        members: Vec::new(),
        layout: serde_json::from_str(&layout).unwrap_or_else(|_| json!({})),
        created_at: r.get(6)?,
        updated_at: r.get(7)?,
    })
}

fn members_of(conn: &Connection, id: &str) -> Result<Vec<SwarmMember>> {
    let mut stmt = conn.prepare("SELECT agent_id, order_index, role FROM swarm_members WHERE swarm_id = ?1 ORDER BY order_index, agent_id")?;
    let rows = stmt.query_map([id], |r| {
        let role: String = r.get(2)?;
        Ok(SwarmMember {
            agent_id: r.get(0)?,
            order_index: r.get(1)?,
            role: if role == "orchestrator" {
                MemberRole::Orchestrator
            } else {
                MemberRole::Member
            },
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

pub(crate) fn find(conn: &Connection, id: &str) -> Result<Option<Swarm>> {
    let Some(mut swarm) = conn
        .query_row(&format!("{SELECT} WHERE id = ?1"), [id], from_row)
        .optional()?
    else {
        return Ok(None);
    };
    swarm.members = members_of(conn, id)?;
    Ok(Some(swarm))
}

fn require(conn: &Connection, id: &str) -> Result<Swarm> {
    find(conn, id)?.ok_or_else(|| AppError::not_found("swarm", id))
}

pub async fn list(ctx: &Ctx) -> Result<Vec<Swarm>> {
    ctx.store()
        .read(|conn| {
            let mut stmt = conn.prepare(&format!("{SELECT} ORDER BY name COLLATE NOCASE"))?;
            let mut swarms = stmt
                .query_map([], from_row)?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            for swarm in &mut swarms {
                swarm.members = members_of(conn, &swarm.id)?;
            }
            Ok(swarms)
        })
        .await
}

pub async fn get(ctx: &Ctx, id: &str) -> Result<Swarm> {
    let id = id.to_owned();
    ctx.store().read(move |conn| require(conn, &id)).await
}

/// Checks members against the strategy (H7); returns them in order.
fn check_members(
    conn: &Connection,
    strategy: Strategy,
    input: &[MemberInput],
    errors: &mut FieldErrors,
) -> Result<Vec<SwarmMember>> {
    let mut seen = BTreeSet::new();
    let mut members = Vec::new();
    let mut unknown = Vec::new();
    for (position, m) in input.iter().enumerate() {
        if !seen.insert(m.agent_id.clone()) {
            errors.add(
                "members",
                "duplicate_member",
                format!("'{}' is a member twice", m.agent_id),
            );
            continue;
        }
        if crate::agents::find(conn, &m.agent_id)?.is_none() {
            unknown.push(m.agent_id.to_string());
        }
        members.push(SwarmMember {
            agent_id: m.agent_id.clone(),
            order_index: m.order_index.unwrap_or(position as u32),
            role: m.role.unwrap_or(MemberRole::Member),
        });
    }
    if members.is_empty() {
        errors.add("members", "no_members", "a swarm needs at least one member");
    }
    if !unknown.is_empty() {
        errors.add_with(
            "members",
            "unknown_agents",
            format!("unknown agents: {}", unknown.join(", ")),
            json!({ "unknownAgents": unknown }),
        );
    }
    let orchestrators = members
        .iter()
        .filter(|m| m.role == MemberRole::Orchestrator)
        .count();
    match strategy {
        Strategy::Hierarchical if orchestrators == 0 => errors.add(
            "members",
            "no_orchestrator",
            "a hierarchical swarm needs one member with the orchestrator role",
        ),
        Strategy::Hierarchical if orchestrators > 1 => errors.add(
            "members",
            "several_orchestrators",
            "a hierarchical swarm has exactly one orchestrator",
        ),
        Strategy::Hierarchical if members.len() < 2 => errors.add(
            "members",
            "no_members",
            "an orchestrator needs at least one member to delegate to",
        ),
        Strategy::Sequential | Strategy::Parallel if orchestrators > 0 => errors.add(
            "members",
            "orchestrator_not_hierarchical",
            "only hierarchical swarms have an orchestrator",
        ),
        _ => {}
    }
    members.sort_by_key(|m| (m.order_index, m.agent_id.clone()));
    for (index, member) in members.iter_mut().enumerate() {
        member.order_index = index as u32;
    }
    Ok(members)
}

fn write_members(tx: &Transaction<'_>, id: &str, members: &[SwarmMember]) -> Result<()> {
    tx.execute("DELETE FROM swarm_members WHERE swarm_id = ?1", [id])?;
    for m in members {
        tx.execute(
            "INSERT INTO swarm_members (swarm_id, agent_id, order_index, role) VALUES (?1, ?2, ?3, ?4)",
            params![id, m.agent_id, m.order_index, if m.role == MemberRole::Orchestrator { "orchestrator" } else { "member" }],
        )?;
    }
    Ok(())
}

/// What the members need (H10): activated as a union, or reported.
async fn after_save(ctx: &Ctx, swarm: Swarm, activate: bool) -> Result<SwarmSaved> {
    let ids: Vec<String> = swarm
        .members
        .iter()
        .map(|m| m.agent_id.to_string())
        .collect();
    let plan = setup::plan_activation_for(ctx, ids.clone()).await?;
    let pending = if activate && !plan.is_empty() {
        let catalog: Vec<String> = ids
            .iter()
            .filter(|id| !plan.non_catalog.contains(id))
            .cloned()
            .collect();
        setup::enable_catalog_agents(ctx, catalog).await?;
        setup::plan_activation_for(ctx, ids).await?
    } else {
        plan
    };
    ctx.changed(Change::Swarms);
    Ok(SwarmSaved {
        swarm,
        pending_activation: pending,
    })
}

pub async fn create(ctx: &Ctx, input: NewSwarm) -> Result<SwarmSaved> {
    let activate = input.activate_members;
    let swarm = ctx
        .store()
        .write(move |tx| {
            let mut errors = FieldErrors::new();
            let name = errors.check(validate::name("name", &input.name, 80));
            let id = name.as_deref().and_then(|n| errors.check(slug_for("name", n)));
            let strategy = input.strategy.unwrap_or(Strategy::Sequential);
            let members = check_members(tx, strategy, &input.members, &mut errors)?;
            errors.finish()?;
            let (Some(name), Some(id)) = (name, id) else {
                return Err(AppError::internal("validated swarm input is incomplete"));
            };
            if find(tx, &id)?.is_some() {
                return Err(AppError::conflicting_field("name", "duplicate_id", format!("a swarm with the id '{id}' already exists")));
            }
            let now = Utc::now();
            tx.execute(
                "INSERT INTO swarms (id, name, description, strategy, enabled, layout, created_at, updated_at)
                 VALUES (?1, ?2, ?3, ?4, 1, ?5, ?6, ?6)",
                params![
                    id,
                    name,
                    input.description.trim(),
                    strategy.as_str(),
                    input.layout.unwrap_or_else(|| json!({})).to_string(),
                    now
                ],
            )?;
            write_members(tx, &id, &members)?;
            require(tx, &id)
        })
        .await?;
    after_save(ctx, swarm, activate).await
}

/// Changes a swarm through the same checks and activation path as create.
pub async fn update(ctx: &Ctx, id: &str, input: SwarmUpdate) -> Result<SwarmSaved> {
    let id = id.to_owned();
    let activate = input.activate_members;
    let swarm = ctx
        .store()
        .write(move |tx| {
            let current = require(tx, &id)?;
            let mut errors = FieldErrors::new();
            let name = input.name.as_deref().and_then(|n| errors.check(validate::name("name", n, 80)));
            let strategy = input.strategy.unwrap_or(current.strategy);
            let member_input: Vec<MemberInput> = input.members.clone().unwrap_or_else(|| {
                current
                    .members
                    .iter()
                    .map(|m| MemberInput { agent_id: m.agent_id.clone(), order_index: Some(m.order_index), role: Some(m.role) })
                    .collect()
            });
            let members = check_members(tx, strategy, &member_input, &mut errors)?;
            errors.finish()?;
            tx.execute(
                "UPDATE swarms SET name = COALESCE(?2, name), description = COALESCE(?3, description), strategy = ?4,
                        layout = COALESCE(?5, layout), updated_at = ?6 WHERE id = ?1",
                params![
                    id,
                    name,
                    input.description.as_deref().map(str::trim),
                    strategy.as_str(),
                    input.layout.map(|l| l.to_string()),
                    Utc::now()
                ],
            )?;
            write_members(tx, &id, &members)?;
            require(tx, &id)
        })
        .await?;
    after_save(ctx, swarm, activate).await
}

/// Switches a swarm on or off; `None` flips it (H8).
pub async fn switch(ctx: &Ctx, id: &str, target: Option<bool>) -> Result<Swarm> {
    let id = id.to_owned();
    let swarm = ctx
        .store()
        .write(move |tx| {
            let current = require(tx, &id)?;
            tx.execute(
                "UPDATE swarms SET enabled = ?2, updated_at = ?3 WHERE id = ?1",
                params![id, target.unwrap_or(!current.enabled), Utc::now()],
            )?;
            require(tx, &id)
        })
        .await?;
    ctx.changed(Change::Swarms);
    Ok(swarm)
}

pub async fn delete(ctx: &Ctx, id: &str) -> Result<()> {
    let id = id.to_owned();
    ctx.store()
        .write(move |tx| {
            require(tx, &id)?;
            tx.execute("DELETE FROM swarms WHERE id = ?1", [&id])?;
            Ok(())
        })
        .await?;
    ctx.changed(Change::Swarms);
    Ok(())
}

/// What a set of agents still needs before they can work (for the builder,
/// before saving).
pub async fn pending_activation(ctx: &Ctx, agents: Vec<AgentId>) -> Result<ActivationPlan> {
    setup::plan_activation_for(ctx, agents.into_iter().map(|a| a.0).collect()).await
}
