//! The hive as an outside session needs it (and as the built-in agent
//! tools use it): the agents and swarms there are, running one with a
//! prompt, memory for the caller's own user, and the catalog search.

use std::sync::{Arc, Mutex};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;

use super::{Progress, ProgressSink, until_cancelled};
use crate::agents;
use crate::caller::Caller;
use crate::ctx::Ctx;
use crate::error::Result;
use crate::ids::AgentId;
use crate::memory::{self, CatalogSearch, Memory};
use crate::permissions::approvals::ApprovalStatus;
use crate::runs::Run;
use crate::runs::context::{EventSink, RunEvent};
use crate::runtime::agent::{self, AgentRunOptions};
use crate::search::SearchHit;
use crate::swarms::{self, run::SwarmRunOptions};
use crate::work::Work;

/// An agent as a client chooses one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AgentSummary {
    pub id: String,
    pub name: String,
    pub description: String,
    pub enabled: bool,
    pub model_id: Option<String>,
    pub tools: Vec<String>,
}

/// A swarm as a client chooses one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SwarmSummary {
    pub id: String,
    pub name: String,
    pub description: String,
    pub strategy: String,
    pub enabled: bool,
    pub members: Vec<String>,
}

/// `run_agent`: one agent on a prompt, outside any conversation.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RunAgentArgs {
    /// The agent's id (see `list_agents`).
    #[schemars(length(min = 1))]
    pub agent_id: String,
    /// What to do, with the context it needs.
    #[schemars(length(min = 1))]
    pub prompt: String,
}

/// `run_swarm`: a saved swarm on a prompt.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RunSwarmArgs {
    /// The swarm's id (see `list_swarms`).
    #[schemars(length(min = 1))]
    pub swarm_id: String,
    #[schemars(length(min = 1))]
    pub prompt: String,
}

/// `memory_write`: saves or replaces a memory under a title.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MemoryWriteArgs {
    #[schemars(length(min = 1, max = 200))]
    pub title: String,
    #[schemars(length(max = 200000))]
    pub content: String,
}

/// `memory_read`: one memory by its title.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MemoryReadArgs {
    #[schemars(length(min = 1, max = 200))]
    pub title: String,
}

/// `memory_search` and `search_catalog`: keywords, BM25.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchArgs {
    #[schemars(length(min = 1))]
    pub query: String,
    /// Default 10.
    #[serde(default)]
    #[schemars(range(min = 1, max = 50))]
    pub limit: Option<u32>,
}

/// A memory found, with the passage that matched.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MemoryFound {
    pub title: String,
    pub content: String,
    pub snippet: String,
}

/// A catalog entry found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CatalogFound {
    pub kind: String,
    pub id: String,
    pub title: String,
    pub snippet: String,
}

const DEFAULT_LIMIT: u32 = 10;

pub async fn list_agents(ctx: &Ctx, _: super::canvas::NoArguments) -> Result<Vec<AgentSummary>> {
    Ok(agents::list(ctx)
        .await?
        .into_iter()
        .map(|a| AgentSummary {
            id: a.id.to_string(),
            name: a.name,
            description: a.description,
            enabled: a.enabled,
            model_id: a.model_id.map(|m| m.to_string()),
            tools: a.tools,
        })
        .collect())
}

pub async fn list_swarms(ctx: &Ctx, _: super::canvas::NoArguments) -> Result<Vec<SwarmSummary>> {
    Ok(swarms::list(ctx)
        .await?
        .into_iter()
        .map(|s| SwarmSummary {
            id: s.id,
            name: s.name,
            description: s.description,
            strategy: s.strategy.as_str().to_owned(),
            enabled: s.enabled,
            members: s
                .members
                .into_iter()
                .map(|m| m.agent_id.to_string())
                .collect(),
        })
        .collect())
}

/// Runs an agent for the caller's user; progress reports every step, tool
/// call and answer; `cancel` stops the run (it ends `cancelled`).
pub async fn run_agent(
    ctx: &Ctx,
    caller: &Caller,
    input: RunAgentArgs,
    progress: ProgressSink,
    cancel: &CancellationToken,
) -> Result<Run> {
    let options = AgentRunOptions {
        user_id: Some(caller.person()?.to_owned()),
        client: Some(caller.client),
        ..AgentRunOptions::default()
    };
    // What its tools do passes the permission gate like any run: a call
    // that writes, runs, reaches the network or sends waits for the person
    // in the app (the client hears so in its progress), whoever started it.
    let id = AgentId::from(input.agent_id.as_str());
    let (sink, running) = reporter(ctx, progress, cancel);
    let work = agent::run_agent(ctx, &id, &input.prompt, options, sink);
    until_cancelled(work, cancel, || stop(ctx, &running)).await
}

/// Runs a swarm for the caller's user, like [`run_agent`].
pub async fn run_swarm(
    ctx: &Ctx,
    caller: &Caller,
    input: RunSwarmArgs,
    progress: ProgressSink,
    cancel: &CancellationToken,
) -> Result<Run> {
    let options = SwarmRunOptions {
        user_id: Some(caller.person()?.to_owned()),
        client: Some(caller.client),
        ..SwarmRunOptions::default()
    };
    let (sink, running) = reporter(ctx, progress, cancel);
    let work = swarms::run::run(ctx, &input.swarm_id, &input.prompt, options, sink);
    until_cancelled(work, cancel, || stop(ctx, &running)).await
}

pub async fn memory_write(ctx: &Ctx, caller: &Caller, input: MemoryWriteArgs) -> Result<Memory> {
    caller.person()?;
    memory::write(ctx, caller, &input.title, &input.content).await
}

pub async fn memory_read(ctx: &Ctx, caller: &Caller, input: MemoryReadArgs) -> Result<Memory> {
    caller.person()?;
    memory::read(ctx, caller, &input.title).await
}

pub async fn memory_search(
    ctx: &Ctx,
    caller: &Caller,
    input: SearchArgs,
) -> Result<Vec<MemoryFound>> {
    caller.person()?;
    let limit = Some(input.limit.unwrap_or(DEFAULT_LIMIT));
    Ok(memory::search(ctx, caller, &input.query, limit)
        .await?
        .into_iter()
        .map(|h| MemoryFound {
            snippet: h.snippet.iter().map(|p| p.text.as_str()).collect(),
            title: h.memory.title,
            content: h.memory.content,
        })
        .collect())
}

/// Active skills and tools, and the caller's own memories.
pub async fn search_catalog(
    ctx: &Ctx,
    caller: &Caller,
    input: SearchArgs,
) -> Result<Vec<CatalogFound>> {
    let hits: Vec<SearchHit> = memory::search_catalog(
        ctx,
        CatalogSearch {
            query: input.query,
            kinds: Vec::new(),
            // A woken role finds its own memories, not its owner's.
            user_id: Some(caller.memory_owner()?),
            active_only: true,
            limit: Some(input.limit.unwrap_or(DEFAULT_LIMIT)),
        },
    )
    .await?;
    Ok(hits
        .into_iter()
        .map(|h| CatalogFound {
            kind: h.kind.as_str().to_owned(),
            snippet: h.snippet.iter().map(|p| p.text.as_str()).collect(),
            id: h.id,
            title: h.title,
        })
        .collect())
}

/// The run's id once it started.
type Running = Arc<Mutex<Option<String>>>;

/// Run events as progress; remembers the run's id so it can be stopped,
/// and stops it at once if the cancel came before the run had an id.
fn reporter(ctx: &Ctx, progress: ProgressSink, cancel: &CancellationToken) -> (EventSink, Running) {
    let running: Running = Arc::new(Mutex::new(None));
    let (ctx, cancel, seen) = (ctx.clone(), cancel.clone(), Arc::clone(&running));
    let step = Arc::new(std::sync::atomic::AtomicU64::new(0));
    let sink: EventSink = Arc::new(move |event: RunEvent| {
        let message = match &event {
            RunEvent::Started { run_id, .. } => {
                if let Ok(mut id) = seen.lock() {
                    *id = Some(run_id.clone());
                }
                if cancel.is_cancelled() {
                    ctx.work().cancel(Work::Run(run_id));
                }
                format!("run {run_id} started")
            }
            RunEvent::AgentStep { agent_id, step, .. } => format!("{agent_id}: step {step}"),
            RunEvent::TextDelta { agent_id, text, .. } => format!("{agent_id}: {text}"),
            RunEvent::ToolCall { agent_id, name, .. } => format!("{agent_id}: calls {name}"),
            RunEvent::ToolResult {
                agent_id,
                name,
                ok,
                denied,
                ..
            } => format!(
                "{agent_id}: {name} {}",
                match (ok, denied) {
                    (true, _) => "answered",
                    (false, true) => "denied",
                    (false, false) => "failed",
                }
            ),
            RunEvent::ApprovalRequested { approval, .. } => format!(
                "{}: waits for a person to allow {} in Colmena",
                approval.agent_id, approval.tool
            ),
            RunEvent::ApprovalDecided { approval, .. } => match approval.status {
                ApprovalStatus::Allowed | ApprovalStatus::Denied => format!(
                    "{}: {} was {} by a person",
                    approval.agent_id,
                    approval.tool,
                    approval.status.as_str()
                ),
                _ => format!(
                    "{}: {} was not decided before the run stopped",
                    approval.agent_id, approval.tool
                ),
            },
            RunEvent::AgentOutput { agent_id, .. } => format!("{agent_id}: answered"),
            RunEvent::Error { error, .. } => format!("error: {}", error.message),
            RunEvent::Finished { status, .. } => format!("finished: {}", status.as_str()),
        };
        let step = step.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        progress(Progress {
            step,
            message,
            total: None,
        });
    });
    (sink, running)
}

fn stop(ctx: &Ctx, running: &Running) {
    if let Some(id) = running.lock().ok().and_then(|id| id.clone()) {
        ctx.work().cancel(Work::Run(&id));
    }
}
