//! Tool calls: running one — only if it is active and the agent's, with
//! arguments checked against the tool's JSON schema first, then through the
//! permission gate, then to the code behind it (a built-in tool, an HTTP
//! endpoint or an MCP server). A failing tool is an error *outcome* the
//! model reads and may recover from; it never ends the run by itself.
//!
//! [`Toolbox`] is the workspace's `ToolRunner`: the runtime calls tools
//! through that port, so it names none of this.

use serde_json::Value;

use super::builtins;
use super::gate::{self, Passage};
use crate::agents::Agent;
use crate::llm::ToolCall;
use crate::runs::context::{BoxFuture, Outcome, RunContext, ToolRunner};
use crate::tools;
use crate::tools::arguments::check_arguments;
use crate::tools::offered::{BUS_TOOLS, ORCHESTRATOR_TOOLS};

/// Longest tool output handed to the model.
const MAX_OUTPUT_CHARS: usize = 16_000;

/// The tool runner every run of the workspace calls its tools through.
pub(crate) struct Toolbox;

impl ToolRunner for Toolbox {
    fn call<'a>(
        &'a self,
        rc: &'a RunContext,
        agent: &'a Agent,
        step: u32,
        call: &'a ToolCall,
    ) -> BoxFuture<'a, Outcome> {
        Box::pin(execute(rc, agent, step, call))
    }
}

fn truncate(mut text: String) -> String {
    if text.chars().count() > MAX_OUTPUT_CHARS {
        text = text.chars().take(MAX_OUTPUT_CHARS).collect();
        text.push_str("\n[output cut: it was longer]");
    }
    text
}

/// Runs one call the model made at `step`, through the permission gate.
async fn execute(rc: &RunContext, agent: &Agent, step: u32, call: &ToolCall) -> Outcome {
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
