//! What a run carries: the events it streams ([`RunEvent`], [`EventSink`]),
//! what it is started with ([`RunBase`]), what every step of it sees
//! ([`RunContext`]), and the port through which it calls a tool
//! ([`ToolRunner`]).
//!
//! These are nouns, below the runtime that drives a run: the tools a run
//! calls (endpoints, MCP servers, the built-in tools and the permission
//! gate above them) take a `RunContext` without naming the runtime, and
//! the runtime calls a tool without naming the tool box, which the
//! composition root installs in the workspace ([`install_tool_runner`]).

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, OnceLock};

use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;

use super::{RunKind, RunStatus};
use crate::agents::Agent;
use crate::caller::Caller;
use crate::ctx::Ctx;
use crate::error::AppError;
use crate::ids::ModelId;
use crate::llm::{ToolCall, Usage};
use crate::models::resolve::RunCredentials;
use crate::permissions::approvals::Approval;

/// What streams out of a run, as it happens.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(
    tag = "type",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
pub enum RunEvent {
    Started {
        run_id: String,
        kind: RunKind,
        target_id: String,
    },
    /// An agent asks its model (step counts from 1).
    AgentStep {
        run_id: String,
        agent_id: String,
        step: u32,
    },
    TextDelta {
        run_id: String,
        agent_id: String,
        text: String,
    },
    ToolCall {
        run_id: String,
        agent_id: String,
        call_id: String,
        name: String,
        arguments: String,
    },
    ToolResult {
        run_id: String,
        agent_id: String,
        call_id: String,
        name: String,
        ok: bool,
        /// The permission gate refused the call (a rule, or a person).
        denied: bool,
        output: String,
    },
    /// A tool call waits for a person (the permission gate's "ask").
    ApprovalRequested { run_id: String, approval: Approval },
    /// A person decided (or the run stopped waiting).
    ApprovalDecided { run_id: String, approval: Approval },
    /// An agent's final answer within the run.
    AgentOutput {
        run_id: String,
        agent_id: String,
        text: String,
    },
    Error {
        run_id: String,
        agent_id: Option<String>,
        error: AppError,
    },
    Finished {
        run_id: String,
        status: RunStatus,
        output: Option<String>,
        usage: Usage,
    },
}

/// Where events go; shared by parallel members and delegated runs.
pub type EventSink = Arc<dyn Fn(RunEvent) + Send + Sync>;

/// A sink that drops everything.
pub fn no_events() -> EventSink {
    Arc::new(|_| {})
}

/// Everything a step of a run needs.
#[derive(Clone)]
pub(crate) struct RunContext {
    pub ctx: Ctx,
    pub run_id: String,
    pub user_id: String,
    /// How many delegations deep this run is.
    pub depth: u32,
    pub credentials: Option<RunCredentials>,
    pub cancel: CancellationToken,
    pub sink: EventSink,
    /// In a hierarchical swarm: the members the orchestrator may delegate to.
    pub delegates: Option<Vec<String>>,
    /// A woken role: the bus author the run speaks as (the bus tools).
    pub author: Option<String>,
    /// Someone can answer the permission gate's questions. Wake-ups (and
    /// what they delegate to) are unattended: they never wait for a person.
    pub attended: bool,
    /// The role whose wake-up this run belongs to: the woken run's own
    /// author, and the same role for every run it delegates to — what the
    /// role may do unattended bounds them all.
    pub wake_role: Option<String>,
    /// The scheduled job that started this run (or the run it delegates
    /// from): what the job may do unattended bounds them all, read fresh
    /// at each call.
    pub wake_job: Option<String>,
    /// The agents that handed this run its task (`delegate_task`), first
    /// the outermost: for every class the gate applies the strictest of
    /// their rules and this agent's, so text one agent read (a page, a
    /// message) cannot reach another agent's wider "allow".
    pub delegators: Vec<String>,
    /// The model this run's agent answers with instead of its own (a
    /// conversation's choice); never handed to the runs it delegates to.
    pub model: Option<ModelId>,
}

impl RunContext {
    /// Who this run acts as: the woken role, else the run's user.
    pub(crate) fn caller(&self) -> Caller {
        match &self.author {
            Some(role) => Caller::role_run(role, &self.user_id),
            None => Caller::agent_run(&self.user_id, &self.run_id, self.wake_role.as_deref()),
        }
    }

    pub(crate) fn emit(&self, event: RunEvent) {
        (self.sink)(event);
    }

    /// Runs one tool call through the workspace's tool runner.
    pub(crate) async fn call_tool(&self, agent: &Agent, step: u32, call: &ToolCall) -> Outcome {
        let installed = self.ctx.slot::<InstalledToolRunner>();
        match installed.0.get() {
            Some(runner) => runner.call(self, agent, step, call).await,
            None => Outcome::failed("no tool runner is installed in this workspace"),
        }
    }
}

/// What a run is started with besides its record: handed down once by
/// whoever starts or resumes it, so the runtime never looks up where a run
/// came from.
pub(crate) struct RunBase {
    pub credentials: Option<RunCredentials>,
    pub sink: EventSink,
    pub delegates: Option<Vec<String>>,
    pub author: Option<String>,
    /// The scheduled job that started the run (see
    /// [`RunContext::wake_job`]; a child run inherits its parent's).
    pub job: Option<String>,
    /// See [`RunContext::attended`].
    pub attended: bool,
    /// See [`RunContext::delegators`] (empty for a run nobody delegated).
    pub delegators: Vec<String>,
    /// See [`RunContext::model`].
    pub model: Option<ModelId>,
}

/// What a tool call produced.
pub(crate) struct Outcome {
    pub ok: bool,
    /// The permission gate refused it: it did not run.
    pub denied: bool,
    pub output: String,
}

impl Outcome {
    pub(crate) fn failed(message: impl Into<String>) -> Outcome {
        Outcome {
            ok: false,
            denied: false,
            output: message.into(),
        }
    }

    pub(crate) fn denied(message: impl Into<String>) -> Outcome {
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

/// A future a [`ToolRunner`] returns (as `mcp_servers::port` does).
pub(crate) type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// The port a run calls its tools through: checks, the permission gate and
/// the call itself stand above the runtime (`toolbox/`).
pub(crate) trait ToolRunner: Send + Sync + 'static {
    /// Runs one call the model made at `step` of `agent`'s turn. A failing
    /// tool is an error *outcome* the model reads; it never ends the run.
    fn call<'a>(
        &'a self,
        rc: &'a RunContext,
        agent: &'a Agent,
        step: u32,
        call: &'a ToolCall,
    ) -> BoxFuture<'a, Outcome>;
}

/// The workspace's tool runner, in its [`Ctx`] slot.
#[derive(Default)]
struct InstalledToolRunner(OnceLock<Arc<dyn ToolRunner>>);

/// Installs the workspace's tool runner (the composition root does, once,
/// as it opens the workspace).
pub(crate) fn install_tool_runner(ctx: &Ctx, runner: Arc<dyn ToolRunner>) {
    let _ = ctx.slot::<InstalledToolRunner>().0.set(runner);
}
