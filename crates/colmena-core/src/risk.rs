//! The risk classes (SPEC "Safe by default"): what a tool can do to the
//! world outside Colmena's own store, and what an unattended run may be
//! granted. A leaf: the gate, role and job grants and the bus's author rows
//! all name a class, and none of them needs the gate to do so.

use serde::{Deserialize, Serialize};

/// What a tool can do to the world outside Colmena's own store.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, specta::Type,
)]
#[serde(rename_all = "snake_case")]
pub enum Risk {
    /// Reads, or changes only Colmena's own records (memories, artifacts,
    /// notices to the person): nothing outside.
    Read,
    /// Writes, moves or deletes files, or commits.
    Write,
    /// Runs programs.
    Run,
    /// Reaches the network.
    Network,
    /// Sends messages to others.
    Send,
    /// Changes other systems on the person's behalf: an HTTP endpoint
    /// declared with POST, PUT, PATCH or DELETE (files a ticket, deletes a
    /// record), an MCP tool of a remote server that is not marked
    /// read-only. Never in a default grant: what a role may do to answer
    /// its mail is not what it may do to the person's other systems.
    Act,
    /// A grant only, no tool has this class: a role's wake-up may answer
    /// the authors whose mail it was handed (`send_message` to them, and to
    /// nobody else). The default grant of a new role.
    Reply,
}

impl Risk {
    /// The classes tools have: an agent has a rule for each.
    pub const ALL: [Risk; 6] = [
        Risk::Read,
        Risk::Write,
        Risk::Run,
        Risk::Network,
        Risk::Send,
        Risk::Act,
    ];

    /// What an unattended run may be granted beyond reading (a role's
    /// wake-ups, a scheduled job's runs).
    pub const GRANTS: [Risk; 6] = [
        Risk::Reply,
        Risk::Send,
        Risk::Write,
        Risk::Run,
        Risk::Network,
        Risk::Act,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Risk::Read => "read",
            Risk::Write => "write",
            Risk::Run => "run",
            Risk::Network => "network",
            Risk::Send => "send",
            Risk::Act => "act",
            Risk::Reply => "reply",
        }
    }

    pub fn parse(text: &str) -> Option<Risk> {
        Risk::ALL
            .into_iter()
            .chain([Risk::Reply])
            .find(|r| r.as_str() == text)
    }

    /// What the class means, as a person reads it in a refusal.
    pub fn described(self) -> &'static str {
        match self {
            Risk::Read => "reads",
            Risk::Write => "writes files",
            Risk::Run => "runs programs",
            Risk::Network => "reaches the network",
            Risk::Send => "sends messages",
            Risk::Act => {
                "change other systems (HTTP endpoints that are not GET, remote MCP tools not marked read-only)"
            }
            Risk::Reply => "answer the authors whose mail it was handed",
        }
    }
}
