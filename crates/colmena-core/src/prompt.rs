//! The system prompt an agent runs with (SPEC H30, H11): its own prompt,
//! then the active code of ethics, then its active skills. The runtime uses
//! exactly this function; the UI shows its output as a preview.

use rusqlite::Connection;

use crate::agents;
use crate::ctx::Ctx;
use crate::error::Result;
use crate::ethics;
use crate::ids::AgentId;
use crate::skills;

pub async fn compose_system_prompt(ctx: &Ctx, agent: &AgentId) -> Result<String> {
    let agent = agent.clone();
    ctx.store().read(move |conn| compose_in(conn, &agent)).await
}

pub(crate) fn compose_in(conn: &Connection, id: &AgentId) -> Result<String> {
    let agent = agents::find(conn, id)?
        .ok_or_else(|| crate::error::AppError::not_found("agent", id.as_str()))?;
    let mut out = agent.system_prompt.trim().to_owned();

    let rules = ethics::active_in(conn)?;
    if !rules.is_empty() {
        out.push_str("\n\n## Code of ethics\n\nFollow these rules in everything you do:\n");
        for (n, rule) in rules.iter().enumerate() {
            out.push_str(&format!("\n{}. **{}** — {}", n + 1, rule.title, rule.rule));
        }
    }

    let mut active_skills = Vec::new();
    for id in &agent.skills {
        if let Some(skill) = skills::find(conn, id)?.filter(|s| s.active) {
            active_skills.push(skill);
        }
    }
    if !active_skills.is_empty() {
        out.push_str(
            "\n\n## Skills\n\nUse a skill's instructions when the task fits its description.",
        );
        for skill in active_skills {
            out.push_str(&format!(
                "\n\n### {}\n\n_{}_\n\n{}",
                skill.id,
                skill.description,
                skill.body.trim()
            ));
        }
    }
    Ok(out.trim_start().to_owned())
}
