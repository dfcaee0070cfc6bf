//! Where the rules live: one row per agent that left the defaults, and the
//! classes each role's unattended wake-ups may use.

use rusqlite::{Connection, OptionalExtension, params};

use super::{Permissions, Risk, Rule};
use crate::ctx::{Change, Ctx};
use crate::error::{AppError, Result};
use crate::ids::AgentId;
use crate::inbox::authors::{self, AuthorKind};

fn rule(text: String) -> Rule {
    // The CHECK constraint admits only the three words; a row edited by hand
    // into something else asks, the safe reading.
    Rule::parse(&text).unwrap_or(Rule::Ask)
}

/// An agent's rules (the defaults when it has none stored).
pub(crate) fn permissions_in(conn: &Connection, agent: &str) -> Result<Permissions> {
    let row = conn
        .query_row(
            "SELECT read, write, run, network, send, local_network, act FROM agent_permissions WHERE agent_id = ?1",
            [agent],
            |r| {
                Ok(Permissions {
                    read: rule(r.get(0)?),
                    write: rule(r.get(1)?),
                    run: rule(r.get(2)?),
                    network: rule(r.get(3)?),
                    send: rule(r.get(4)?),
                    local_network: r.get(5)?,
                    act: rule(r.get(6)?),
                })
            },
        )
        .optional()?;
    Ok(row.unwrap_or_default())
}

pub(crate) fn write_permissions(conn: &Connection, agent: &str, p: &Permissions) -> Result<()> {
    conn.execute(
        "INSERT INTO agent_permissions (agent_id, read, write, run, network, send, local_network, act)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
         ON CONFLICT (agent_id) DO UPDATE SET read = ?2, write = ?3, run = ?4, network = ?5,
             send = ?6, local_network = ?7, act = ?8",
        params![
            agent,
            p.read.as_str(),
            p.write.as_str(),
            p.run.as_str(),
            p.network.as_str(),
            p.send.as_str(),
            p.local_network,
            p.act.as_str()
        ],
    )?;
    Ok(())
}

/// Whether the user let `agent`'s network tools reach this computer and its
/// local network (loopback, private and link-local addresses).
/// Whether `agent` may reach the local network in a run that `delegators`
/// handed it (empty when nobody did): every one of them must allow it — the
/// strictest wins, as for the rules (an agent kept off the local network
/// cannot reach it by delegating to one that is not).
pub(crate) async fn local_network_allowed(
    ctx: &Ctx,
    agent: &AgentId,
    delegators: &[String],
) -> Result<bool> {
    let mut ids = vec![agent.to_string()];
    ids.extend(delegators.iter().cloned());
    ctx.store()
        .read(move |conn| {
            for id in &ids {
                if !permissions_in(conn, id)?.local_network {
                    return Ok(false);
                }
            }
            Ok(true)
        })
        .await
}

pub async fn agent_permissions(ctx: &Ctx, agent: &AgentId) -> Result<Permissions> {
    Ok(crate::agents::get(ctx, agent).await?.permissions)
}

/// Replaces an agent's rules.
pub async fn set_agent_permissions(
    ctx: &Ctx,
    agent: &AgentId,
    permissions: Permissions,
) -> Result<Permissions> {
    let id = agent.clone();
    ctx.store()
        .write(move |tx| {
            crate::agents::require(tx, &id)?;
            write_permissions(tx, id.as_str(), &permissions)?;
            tx.execute(
                "UPDATE agents SET updated_at = ?2 WHERE id = ?1",
                params![id, chrono::Utc::now()],
            )?;
            Ok(())
        })
        .await?;
    ctx.changed(Change::Agents);
    Ok(permissions)
}

pub async fn role_unattended(ctx: &Ctx, author: &str) -> Result<Vec<Risk>> {
    let mut risks = authors::get(ctx, author).await?.unattended;
    risks.sort();
    Ok(risks)
}

/// Replaces the classes a role's unattended wake-ups may use. People are
/// always attended: only roles have this.
pub async fn set_role_unattended(ctx: &Ctx, author: &str, risks: Vec<Risk>) -> Result<Vec<Risk>> {
    if authors::get(ctx, author).await?.kind != AuthorKind::Role {
        return Err(AppError::invalid_field(
            "unattended",
            "not_a_role",
            format!("'{author}' is a person: only roles have unattended wake-ups"),
        ));
    }
    ctx.bus().set_unattended(author, &risks).await?;
    ctx.changed(Change::Authors);
    role_unattended(ctx, author).await
}
