//! A role's own scope and how it is woken (issue 15, seed 003): its
//! standing instructions, the skills enabled for it on top of its agent's,
//! and — for a role that lives outside Colmena — the program that wakes it.
//!
//! The wake command is a program and its arguments, kept and run as a list:
//! there is no shell line to interpolate anything into, and nothing from a
//! message ever reaches it (mail is read by the woken program over MCP or
//! HTTP, with a short-lived token in its environment). Only the local doors
//! (the window, the CLI) configure roles, so only the person chooses what
//! runs on their machine.

use rusqlite::Connection;

use crate::error::{AppError, Result};

/// Longest standing instructions, in characters.
pub const MAX_INSTRUCTIONS: usize = 20_000;
/// Most skills one role may enable.
pub const MAX_ROLE_SKILLS: usize = 64;
/// Most arguments of a wake command (the program included).
pub const MAX_COMMAND_ARGS: usize = 64;
/// Longest argument of a wake command, in bytes.
pub const MAX_COMMAND_ARG_BYTES: usize = 4096;
/// A wake command's time limit unless the role sets one.
pub const DEFAULT_WAKE_TIMEOUT_SECONDS: u32 = 600;
/// The longest time limit: a day.
pub const MAX_WAKE_TIMEOUT_SECONDS: u32 = 86_400;

/// The instructions, trimmed and bounded.
pub(crate) fn check_instructions(text: &str) -> Result<String> {
    let text = text.trim();
    if text.chars().count() > MAX_INSTRUCTIONS {
        return Err(AppError::invalid_field(
            "instructions",
            "too_long",
            format!("a role's instructions must be at most {MAX_INSTRUCTIONS} characters"),
        ));
    }
    Ok(text.to_owned())
}

/// The skill ids, each an existing skill, without repeats, in order.
pub(crate) fn check_skills(conn: &Connection, skills: &[String]) -> Result<Vec<String>> {
    let mut out: Vec<String> = Vec::new();
    for skill in skills.iter().map(|s| s.trim()).filter(|s| !s.is_empty()) {
        if out.iter().any(|s| s == skill) {
            continue;
        }
        let known = conn
            .prepare_cached("SELECT 1 FROM skills WHERE id = ?1")?
            .exists([skill])?;
        if !known {
            return Err(AppError::invalid_field(
                "skills",
                "unknown_skill",
                format!("unknown skill: {skill}"),
            ));
        }
        out.push(skill.to_owned());
    }
    if out.len() > MAX_ROLE_SKILLS {
        return Err(AppError::invalid_field(
            "skills",
            "too_many",
            format!("a role can enable at most {MAX_ROLE_SKILLS} skills"),
        ));
    }
    Ok(out)
}

/// A wake command: a non-empty program, bounded arguments, no NUL bytes.
/// An empty list means "none".
pub(crate) fn check_command(command: Option<&[String]>) -> Result<Option<Vec<String>>> {
    let Some(command) = command.filter(|c| !c.is_empty()) else {
        return Ok(None);
    };
    let invalid = |reason: &str, message: String| {
        Err(AppError::invalid_field("wakeCommand", reason, message))
    };
    if command[0].trim().is_empty() {
        return invalid(
            "no_program",
            "the wake command's first item is the program to run".into(),
        );
    }
    if command.len() > MAX_COMMAND_ARGS {
        return invalid(
            "too_many",
            format!("a wake command has at most {MAX_COMMAND_ARGS} items"),
        );
    }
    for arg in command {
        if arg.len() > MAX_COMMAND_ARG_BYTES {
            return invalid(
                "too_long",
                format!("each item of a wake command is at most {MAX_COMMAND_ARG_BYTES} bytes"),
            );
        }
        if arg.contains('\0') {
            return invalid(
                "nul_byte",
                "a wake command's items cannot hold NUL bytes".into(),
            );
        }
    }
    let mut out = command.to_vec();
    out[0] = out[0].trim().to_owned();
    Ok(Some(out))
}

/// The time limit of a wake command: 1 s to a day.
pub(crate) fn check_timeout(seconds: Option<u32>) -> Result<Option<u32>> {
    match seconds {
        Some(s) if !(1..=MAX_WAKE_TIMEOUT_SECONDS).contains(&s) => Err(AppError::invalid_field(
            "wakeTimeoutSeconds",
            "out_of_range",
            format!(
                "a wake command's time limit must be 1 to {MAX_WAKE_TIMEOUT_SECONDS} seconds, not {s}"
            ),
        )),
        other => Ok(other),
    }
}

/// What a woken role is told on top of its agent's prompt: its standing
/// instructions and its own active skills (those its agent does not
/// already carry). `None` when it has neither.
pub(crate) fn role_prompt(
    conn: &Connection,
    role: Option<&crate::store::bus::Author>,
) -> Result<Option<String>> {
    let Some(role) = role else {
        return Ok(None);
    };
    let agent_skills = match role.agent_id.as_deref() {
        Some(agent) => crate::agents::find(conn, &crate::ids::AgentId::from(agent))?
            .map(|a| a.skills)
            .unwrap_or_default(),
        None => Vec::new(),
    };
    let mut out = String::new();
    if !role.instructions.trim().is_empty() {
        out.push_str(&format!(
            "## Your standing instructions as the role \"{}\"\n\n{}",
            role.name,
            role.instructions.trim()
        ));
    }
    let mut skills = Vec::new();
    for id in role.skills.iter().filter(|s| !agent_skills.contains(s)) {
        if let Some(skill) = crate::skills::find(conn, id)?.filter(|s| s.active) {
            skills.push(skill);
        }
    }
    if !skills.is_empty() {
        if !out.is_empty() {
            out.push_str("\n\n");
        }
        out.push_str("## Your role's skills\n\nUse a skill's instructions when the task fits its description.");
        for skill in skills {
            out.push_str(&format!(
                "\n\n### {}\n\n_{}_\n\n{}",
                skill.id,
                skill.description,
                skill.body.trim()
            ));
        }
    }
    Ok(Some(out).filter(|o| !o.is_empty()))
}
