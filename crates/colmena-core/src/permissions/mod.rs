//! The permission gate (issue "Safe by default"): before a tool runs, the
//! gate decides whether it may, from the tool's risk class and the agent's
//! rule for that class.
//!
//! Why classes and not tools: a person can answer "may this agent write
//! files?" once; "may it call `fs_move`?" for forty tools they cannot. Why
//! "ask": text an agent reads (a message, a page, another agent's answer)
//! can talk it into calling anything it has, so what writes, runs, reaches
//! the network or sends is shown to a person before it happens. Runs nobody
//! watches (role wake-ups, scheduled jobs) never wait for a person: where the
//! rule says "ask" they are refused, unless the user allowed that class for
//! that role's wake-ups.

pub mod approvals;
mod store;

use serde::{Deserialize, Serialize};

pub use crate::risk::Risk;

pub use store::{agent_permissions, role_unattended, set_agent_permissions, set_role_unattended};
pub(crate) use store::{local_network_allowed, permissions_in, write_permissions};

/// The risk class of a tool, by name. An MCP server's tool can do anything
/// its program can (a shell server, a file server), so it counts as
/// running programs: a grant for the network (`web_fetch`) never covers it.
/// A tool this build does not know counts as reaching the network. An
/// HTTP endpoint's tool (`endpoint_*`) reaches the network at least; what
/// the store knows of its method can raise that ([`risk_in`]) to changing
/// other systems.
pub fn risk_of(tool: &str) -> Risk {
    if tool.starts_with("mcp__") {
        return Risk::Run;
    }
    class_of(tool).unwrap_or(Risk::Network)
}

/// The class of a tool this build knows.
fn class_of(tool: &str) -> Option<Risk> {
    Some(match tool {
        // data_chart writes its SVG into the workspace.
        "fs_write" | "fs_move" | "fs_delete" | "git_commit" | "data_chart" => Risk::Write,
        "cli_exec" => Risk::Run,
        // A job runs agents, swarms or a role's wake-up later, again and
        // again, with nobody watching: creating, changing, resuming or
        // triggering one (and deleting or pausing what the person set up)
        // starts or stops work as surely as running a program does, so it
        // is a person's call. Reading the jobs and their history is not.
        "cron_create" | "cron_update" | "cron_resume" | "cron_trigger" | "cron_pause"
        | "cron_delete" => Risk::Run,
        "cron_list" | "cron_history" => Risk::Read,
        "send_message" => Risk::Send,
        "web_fetch" | "web_search" => Risk::Network,
        "delegate_task" | "list_agents" | "search_catalog" | "load_skill" | "memory_search"
        | "memory_read" | "memory_write" | "notify_user" | "read_inbox" | "list_sent"
        | "fs_list" | "fs_read" | "fs_search" | "git_status" | "git_diff" | "git_log"
        | "doc_outline" | "doc_stats" | "image_metadata" | "image_transform" | "data_query_csv"
        | "data_describe" => Risk::Read,
        _ => return None,
    })
}

/// What the gate does with a class of calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum Rule {
    Allow,
    Ask,
    Deny,
}

impl Rule {
    pub fn as_str(self) -> &'static str {
        match self {
            Rule::Allow => "allow",
            Rule::Ask => "ask",
            Rule::Deny => "deny",
        }
    }

    fn ask() -> Rule {
        Rule::Ask
    }

    pub fn parse(text: &str) -> Option<Rule> {
        [Rule::Allow, Rule::Ask, Rule::Deny]
            .into_iter()
            .find(|r| r.as_str() == text)
    }
}

/// An agent's rule per risk class.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Permissions {
    pub read: Rule,
    pub write: Rule,
    pub run: Rule,
    pub network: Rule,
    pub send: Rule,
    /// Tools that change other systems (an agent stored before the class
    /// existed reads as "ask").
    #[serde(default = "Rule::ask")]
    pub act: Rule,
    /// Network tools may reach loopback, private and link-local addresses.
    #[serde(default)]
    pub local_network: bool,
}

impl Default for Permissions {
    /// Read tools allowed; everything that writes, runs, reaches the
    /// network or sends asks first.
    fn default() -> Permissions {
        Permissions {
            read: Rule::Allow,
            write: Rule::Ask,
            run: Rule::Ask,
            network: Rule::Ask,
            send: Rule::Ask,
            act: Rule::Ask,
            local_network: false,
        }
    }
}

impl Permissions {
    /// Everything allowed (tests, and agents a user trusts fully).
    pub fn allow_all() -> Permissions {
        Permissions {
            read: Rule::Allow,
            write: Rule::Allow,
            run: Rule::Allow,
            network: Rule::Allow,
            send: Rule::Allow,
            act: Rule::Allow,
            local_network: false,
        }
    }

    pub fn rule(&self, risk: Risk) -> Rule {
        match risk {
            Risk::Read => self.read,
            Risk::Write => self.write,
            Risk::Run => self.run,
            Risk::Network => self.network,
            // A reply is a message sent: the same rule.
            Risk::Send | Risk::Reply => self.send,
            Risk::Act => self.act,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_catalog_tool_has_a_class_and_acting_tools_are_not_read() {
        for tool in crate::toolbox::catalog::BUILTIN_TOOLS {
            assert!(class_of(tool.name).is_some(), "{} has no class", tool.name);
        }
        for acting in [
            "fs_write",
            "fs_move",
            "fs_delete",
            "git_commit",
            "cli_exec",
            "data_chart",
            "cron_create",
            "cron_update",
            "cron_trigger",
            "cron_resume",
        ] {
            assert_ne!(risk_of(acting), Risk::Read, "{acting} acts on the world");
        }
        assert_eq!(risk_of("cli_exec"), Risk::Run);
        assert_eq!(risk_of("cron_create"), Risk::Run);
        assert_eq!(risk_of("cron_history"), Risk::Read);
        assert_eq!(risk_of("fs_write"), Risk::Write);
        assert_eq!(risk_of("send_message"), Risk::Send);
        assert_eq!(risk_of("web_fetch"), Risk::Network);
        assert_eq!(risk_of("web_search"), Risk::Network);
        assert_eq!(risk_of("data_query_csv"), Risk::Read);
        assert_eq!(risk_of("mcp__github__create_issue"), Risk::Run);
        assert_eq!(risk_of("endpoint_weather"), Risk::Network);
        for risk in Risk::ALL.into_iter().chain(Risk::GRANTS) {
            assert_eq!(Risk::parse(risk.as_str()), Some(risk));
        }
        assert_eq!(
            risk_of("mcp__playwright__browser_click"),
            Risk::Run,
            "the browser is an MCP server's tool now, and MCP tools count as running programs"
        );
    }

    #[test]
    fn the_defaults_allow_reading_and_ask_for_the_rest() {
        let p = Permissions::default();
        assert_eq!(p.rule(Risk::Read), Rule::Allow);
        for risk in [Risk::Write, Risk::Run, Risk::Network, Risk::Send, Risk::Act] {
            assert_eq!(p.rule(risk), Rule::Ask, "{risk:?}");
        }
        assert!(!p.local_network);
    }
}
