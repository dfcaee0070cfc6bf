//! The bus's rows as both stores hold them: authors (people and roles)
//! and messages. The service above (`inbox/`) holds the rules; the stores
//! (this workspace's SQLite, `postgres/`) read and write these.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::error::{AppError, Result};
use crate::risk::Risk;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum AuthorKind {
    /// A person (the owner, or a user who reaches the hive another way).
    User,
    /// A long-lived role: an agent Colmena wakes, or an outside session.
    Role,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Author {
    pub id: String,
    pub name: String,
    pub kind: AuthorKind,
    pub user_id: Option<String>,
    /// The agent a role's wake-ups run.
    pub agent_id: Option<String>,
    pub wake_interval_minutes: Option<u32>,
    /// When the scheduler wakes this role next (roles with an agent).
    pub next_wake_at: Option<DateTime<Utc>>,
    pub last_wake_at: Option<DateTime<Utc>>,
    /// Why the last wake-up failed, if it did.
    pub last_wake_error: Option<String>,
    /// Unread messages in this author's inbox.
    pub unread: u32,
    /// The workspace owner's own author: the desktop app's "me".
    pub is_owner: bool,
    /// Roles: the risk classes their unattended wake-ups may use where the
    /// agent's rule says "ask" (new roles: replying to their mail).
    pub unattended: Vec<Risk>,
    /// Roles: standing instructions, read at every wake-up (issue 15).
    pub instructions: String,
    /// Roles: skills enabled on top of the agent's.
    pub skills: Vec<String>,
    /// A role that lives outside Colmena: the program (and its arguments)
    /// that wakes it, run without a shell.
    pub wake_command: Option<Vec<String>>,
    /// The wake command's time limit, in seconds (default 600).
    pub wake_timeout_seconds: Option<u32>,
    pub created_at: DateTime<Utc>,
}

#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Priority {
    Normal,
    Urgent,
}

impl Priority {
    pub fn as_str(self) -> &'static str {
        match self {
            Priority::Normal => "normal",
            Priority::Urgent => "urgent",
        }
    }

    /// `normal` or `urgent`; anything else is a validation error.
    pub fn parse(text: &str) -> Result<Priority> {
        match text.trim() {
            "normal" => Ok(Priority::Normal),
            "urgent" => Ok(Priority::Urgent),
            other => Err(AppError::invalid_field(
                "priority",
                "invalid_priority",
                format!("priority must be 'normal' or 'urgent', not '{other}'"),
            )),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
pub struct Message {
    pub id: String,
    pub from: String,
    pub to: String,
    pub body: String,
    pub priority: Priority,
    pub created_at: DateTime<Utc>,
    /// `null` while unread.
    pub read_at: Option<DateTime<Utc>>,
    /// The message this one answers; `null` when it answers none (or that
    /// message was deleted).
    pub reply_to: Option<String>,
    /// The id of the first message of the thread this one is in; `null`
    /// while it is in none (nobody answered it and it answers nothing).
    pub thread_root: Option<String>,
}

/// The stored form of a wake command (a JSON array).
pub(crate) fn command_column(command: Option<&Vec<String>>) -> Option<String> {
    command.map(|c| serde_json::to_string(c).unwrap_or_else(|_| "[]".into()))
}

/// A stored wake command; an unreadable one reads as none.
pub(crate) fn command_from_column(text: Option<String>) -> Option<Vec<String>> {
    text.and_then(|t| serde_json::from_str::<Vec<String>>(&t).ok())
        .filter(|c| !c.is_empty())
}
