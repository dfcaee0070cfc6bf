//! Which tools an agent is offered: its own active ones, plus those that
//! come with what it is doing — an orchestrator's (delegation) and a woken
//! role's (the bus) — whatever its patterns say.
//!
//! Read in the same store read as the agent and its model when a run sets
//! up; the tool box checks a call against the same lists.

use rusqlite::Connection;

use super::find;
use crate::agents::Agent;
use crate::error::Result;
use crate::llm::ToolSpec;

/// The tools an orchestrator gets whatever its patterns say.
pub(crate) const ORCHESTRATOR_TOOLS: [&str; 2] = ["delegate_task", "list_agents"];

/// The tools a woken role gets whatever its patterns say (SPEC B6).
pub(crate) const BUS_TOOLS: [&str; 3] = ["send_message", "read_inbox", "list_sent"];

/// The agent's active tools, as the model sees them.
pub(crate) fn specs(
    conn: &Connection,
    agent: &Agent,
    orchestrating: bool,
    on_the_bus: bool,
) -> Result<Vec<ToolSpec>> {
    let mut names = agent.tools.clone();
    let granted = |name: &str| {
        (orchestrating && ORCHESTRATOR_TOOLS.contains(&name))
            || (on_the_bus && BUS_TOOLS.contains(&name))
    };
    let extra = ORCHESTRATOR_TOOLS
        .iter()
        .chain(BUS_TOOLS.iter())
        .filter(|name| granted(name));
    for name in extra {
        if !names.iter().any(|n| n == name) {
            names.push((*name).to_owned());
        }
    }
    let mut specs = Vec::new();
    for name in names {
        if let Some(tool) = find(conn, &name)?.filter(|t| t.active || granted(&name)) {
            specs.push(ToolSpec {
                name: tool.id,
                description: tool.description,
                parameters: tool.parameters,
            });
        }
    }
    Ok(specs)
}
