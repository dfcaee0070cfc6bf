//! Tool calls: which tools an agent is offered, and running one — only if
//! it is active and the agent's, with arguments checked against the tool's
//! JSON schema first. A failing tool is an error *result* the model reads
//! and may recover from; it never ends the run by itself.

use rusqlite::Connection;
use serde_json::Value;

use super::{RunContext, builtins};
use crate::agents::Agent;
use crate::error::{AppError, ErrorCode, Result};
use crate::llm::{ToolCall, ToolSpec};
use crate::permissions::gate::{self, Passage};
use crate::tools;

/// Longest tool output handed to the model.
const MAX_OUTPUT_CHARS: usize = 16_000;

/// The tools an orchestrator gets whatever its patterns say.
const ORCHESTRATOR_TOOLS: [&str; 2] = ["delegate_task", "list_agents"];

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
        if let Some(tool) = tools::find(conn, &name)?.filter(|t| t.active || granted(&name)) {
            specs.push(ToolSpec {
                name: tool.id,
                description: tool.description,
                parameters: tool.parameters,
            });
        }
    }
    Ok(specs)
}

/// What a tool call produced.
pub(crate) struct Outcome {
    pub ok: bool,
    /// The permission gate refused it: it did not run.
    pub denied: bool,
    pub output: String,
}

impl Outcome {
    fn failed(message: impl Into<String>) -> Outcome {
        Outcome {
            ok: false,
            denied: false,
            output: message.into(),
        }
    }

    fn denied(message: impl Into<String>) -> Outcome {
        Outcome {
            ok: false,
            denied: true,
            output: message.into(),
        }
    }

    /// The text the model reads: errors say so plainly.
    pub(crate) fn for_model(&self) -> String {
        if self.ok {
            self.output.clone()
        } else {
            format!("Error: {}", self.output)
        }
    }
}

fn truncate(mut text: String) -> String {
    if text.chars().count() > MAX_OUTPUT_CHARS {
        text = text.chars().take(MAX_OUTPUT_CHARS).collect();
        text.push_str("\n[output cut: it was longer]");
    }
    text
}

/// Checks arguments against a JSON schema; the error lists each violation.
pub(crate) fn check_arguments(schema: &Value, arguments: &Value) -> Result<()> {
    let validator = jsonschema::validator_for(schema)
        .map_err(|e| AppError::internal(format!("the tool's schema is invalid: {e}")))?;
    let problems: Vec<String> = validator
        .iter_errors(arguments)
        .map(|e| {
            let at = e.instance_path().to_string();
            if at.is_empty() {
                e.to_string()
            } else {
                format!("{at}: {e}")
            }
        })
        .collect();
    if problems.is_empty() {
        Ok(())
    } else {
        Err(AppError::new(ErrorCode::Validation, problems.join("; ")))
    }
}

/// Runs one call the model made at `step`, through the permission gate.
pub(crate) async fn execute(rc: &RunContext, agent: &Agent, step: u32, call: &ToolCall) -> Outcome {
    let orchestrating = (rc.delegates.is_some()
        && ORCHESTRATOR_TOOLS.contains(&call.name.as_str()))
        || (rc.author.is_some() && BUS_TOOLS.contains(&call.name.as_str()));
    let name = call.name.clone();
    let tool = match rc
        .ctx
        .store()
        .read(move |conn| tools::find(conn, &name))
        .await
    {
        Ok(Some(tool)) => tool,
        Ok(None) => return Outcome::failed(format!("there is no tool named '{}'", call.name)),
        Err(e) => return Outcome::failed(e.message),
    };
    if !orchestrating && !agent.tools.contains(&call.name) {
        return Outcome::failed(format!(
            "tool '{}' is not among this agent's tools",
            call.name
        ));
    }
    if !tool.active && !orchestrating {
        return Outcome::failed(format!(
            "tool '{}' is switched off in this workspace",
            call.name
        ));
    }
    let arguments: Value = match serde_json::from_str(if call.arguments.trim().is_empty() {
        "{}"
    } else {
        &call.arguments
    }) {
        Ok(arguments) => arguments,
        Err(e) => {
            return Outcome::failed(format!(
                "the arguments of '{}' are not JSON: {e}",
                call.name
            ));
        }
    };
    if let Err(problems) = check_arguments(&tool.parameters, &arguments) {
        return Outcome::failed(format!(
            "the arguments of '{}' break its schema: {}",
            call.name, problems.message
        ));
    }
    match gate::pass(rc, agent, step, call).await {
        Ok(Passage::Run) => {}
        Ok(Passage::Refused(why)) => return Outcome::denied(why),
        Err(e) => return Outcome::failed(e.message),
    }
    let called = match tool.source {
        tools::ToolSource::Mcp => crate::mcp_servers::call_tool(rc, &call.name, arguments).await,
        tools::ToolSource::Endpoint => {
            crate::endpoints::call_tool(rc, &call.name, &arguments).await
        }
        _ => builtins::call(rc, agent, &call.name, &arguments).await,
    };
    match called {
        Ok(output) => Outcome {
            ok: true,
            denied: false,
            output: truncate(output),
        },
        Err(e) => Outcome::failed(truncate(e.message)),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn arguments_that_break_the_schema_are_described() {
        let schema: Value = serde_json::from_str(
            &crate::tools::catalog::find("web_fetch")
                .unwrap()
                .parameters(),
        )
        .unwrap();
        assert!(check_arguments(&schema, &json!({ "url": "https://a" })).is_ok());
        let problems = check_arguments(&schema, &json!({ "url": 42, "extra": true }))
            .unwrap_err()
            .message;
        assert!(problems.contains("/url"), "{problems}");
        assert!(problems.contains("extra"), "{problems}");
        let missing = check_arguments(&schema, &json!({})).unwrap_err().message;
        assert!(missing.contains("url"), "{missing}");
    }
}
